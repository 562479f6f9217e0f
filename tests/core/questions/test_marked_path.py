"""The matching marked-path question on Helsinki centre's street network.

JLTG.EU house rules, Matching: Marked Path, and Definitions of Terms: Marked Path.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import box
from support.paths import HELSINKI

from stations_generator.app.map_context import OsmContext
from stations_generator.core.questions.marked_paths import (
    ERROR_BOUND_M,
    NAME_JOIN_M,
    NOT_PUBLIC,
    SAMPLE_SPACING_M,
    MarkedPaths,
    MarkedWay,
    MatchingMarkedPathQuestion,
    is_marked_path,
)
from stations_generator.formats.gamefile import question_from_dict
from stations_generator.osm import layers
from stations_generator.osm.extracts import read_lines

AREA = box(24.936, 60.1648, 24.952, 60.1782)  # zones/helsinki-centre.geojson
KLUUVIKATU = (24.9480, 60.1685)  # a seeker beside Kluuvikatu


@pytest.fixture(scope="module")
def context():
    return OsmContext(AREA, [HELSINKI])


@pytest.fixture(scope="module")
def ways(context):
    return context.marked_paths([KLUUVIKATU])


@pytest.fixture(scope="module")
def paths(context, ways):
    return MarkedPaths(ways, context.frame)


def test_marked_path_tags():
    assert is_marked_path({"highway": "footway"})
    assert is_marked_path({"highway": "residential", "name": "Bulevardi"})
    assert not is_marked_path({"highway": "service", "access": "private"})
    # Closed to cars, open to walkers: still public.
    assert is_marked_path({"highway": "service", "access": "no", "foot": "yes"})
    assert not is_marked_path({"highway": "pedestrian", "area": "yes"})  # a square
    assert not is_marked_path({"highway": "busway"})  # bus station entrance
    assert not is_marked_path({"highway": "construction"})
    assert not is_marked_path({"leisure": "park"})


def test_layer_keeps_only_public_paths():
    rows = layers.lines(HELSINKI, "marked_path")
    assert len(rows) > 1000
    want = read_lines(HELSINKI, is_marked_path)
    assert [k for k, _, _ in rows] == [k for k, _, _ in want]
    assert all(set(tags) <= set(layers.MARKED_PATH_TAGS) for _, tags, _ in rows)
    kept = {key for key, _, _ in rows}
    closed = read_lines(HELSINKI, lambda t: "highway" in t and t.get("access") in NOT_PUBLIC)
    assert closed  # private service roads and the like, in the real data
    for key, tags, _ in closed:
        assert (key in kept) == is_marked_path(tags)
    assert any(key not in kept for key, _, _ in closed)


def test_layer_is_read_on_demand_and_cached(tmp_path):
    from stations_generator.core.catalogue import load_catalogue
    from stations_generator.osm.extract_cache import ExtractCache

    cache = ExtractCache(tmp_path / "extracts")
    layers._MEMO.clear()
    try:
        with layers.use_cache(cache):
            layers.points(HELSINKI, load_catalogue())  # reads every other layer
            before = set((tmp_path / "extracts").iterdir())
            first = layers.lines(HELSINKI, "marked_path")
            after = set((tmp_path / "extracts").iterdir())
            assert len(after - before) == 1  # only the marked paths, read alone
            layers._MEMO.clear()
            again = layers.lines(HELSINKI, "marked_path")  # from the cache entry
        assert [(k, t, g.wkb) for k, t, g in again] == [(k, t, g.wkb) for k, t, g in first]
    finally:
        layers._MEMO.clear()


def test_named_path_is_its_connected_ways_of_that_name(ways, paths):
    by_name: dict[str, set[int]] = {}
    for seg, way in enumerate(paths.segment_way):
        by_name.setdefault(ways[way].name, set()).add(int(paths.segment_path[seg]))
    named = {n: p for n, p in by_name.items() if n}
    assert len(named) > 50
    # Mannerheimintie: two carriageways that meet only beyond the extract, one street.
    assert len(named["Mannerheimintie"]) == 1
    assert sum(len(p) == 1 for p in named.values()) >= 0.95 * len(named)
    # No path holds two names.
    path_names: dict[int, set[str]] = {}
    for seg, way in enumerate(paths.segment_way):
        path_names.setdefault(int(paths.segment_path[seg]), set()).add(ways[way].name)
    assert all(len(n) == 1 for n in path_names.values())


def test_unnamed_paths_end_at_intersections(ways, paths):
    # Vertices where three or more passages meet split unnamed ways.
    coords = np.vstack([shapely.get_coordinates(w.line) for w in ways])
    unique, counts = np.unique(coords, axis=0, return_counts=True)
    unnamed = [k for k, w in enumerate(ways) if not w.name]
    split = 0
    for k in unnamed:
        c = shapely.get_coordinates(ways[k].line)
        labels = set(paths.segment_path[paths.segment_way == k].tolist())
        inner = c[1:-1]
        if len(labels) > 1:
            split += 1
            # A way cut in two: one of its inner vertices is a node other ways use.
            hits = [(unique == v).all(axis=1).nonzero()[0] for v in inner]
            assert any(counts[h[0]] > 1 for h in hits if len(h))
    assert split > 0
    assert (
        len({int(p) for k in unnamed for p in paths.segment_path[paths.segment_way == k]})
        > len(unnamed) // 2
    )


def test_error_bound(context, ways, paths):
    """A point's path is at most ERROR_BOUND_M farther (in the frame) than its nearest path."""
    assert ERROR_BOUND_M == pytest.approx(SAMPLE_SPACING_M / 2 + 0.001)
    rng = np.random.default_rng(3)
    lon = rng.uniform(24.936, 24.952, 400)
    lat = rng.uniform(60.1648, 60.1782, 400)
    got = paths.path_of(lon, lat)
    frame = context.frame
    x, y = frame.project_xy(lon, lat)
    pts = shapely.points(np.column_stack([x, y]))
    lines = [frame.project(w.line) for w in ways]
    seg_lines = {}
    for seg, way in enumerate(paths.segment_way):
        seg_lines.setdefault(int(paths.segment_path[seg]), set()).add(int(way))
    dist = np.array([[p.distance(g) for g in lines] for p in pts])  # 400 × ways
    nearest = dist.min(axis=1)
    way_path_sets = seg_lines
    for i, path in enumerate(got):
        mine = min(dist[i, w] for w in way_path_sets[int(path)])
        assert mine <= nearest[i] + ERROR_BOUND_M + 1e-6


def test_region_matches_the_answers(context, ways):
    q = MatchingMarkedPathQuestion(KLUUVIKATU, ways, context.frame, True)
    assert q.paths.describe(q.seeker_path) == "Kluuvikatu"
    kept = q.kept_for(True, AREA)
    dropped = q.kept_for(False, AREA)
    assert 0 < kept.area < AREA.area * 0.05
    assert kept.union(dropped).area == pytest.approx(AREA.area, rel=1e-9)
    assert q.answer_for(*KLUUVIKATU) and kept.covers(shapely.Point(KLUUVIKATU))
    rng = np.random.default_rng(11)
    lon = rng.uniform(24.944, 24.952, 3000)
    lat = rng.uniform(60.165, 60.172, 3000)
    inside = shapely.contains_xy(kept, lon, lat)
    answers = q.answers_for(lon, lat)
    # Disagreement only on the region's edge (cells mapped back to lon/lat): within 1 m.
    frame = context.frame
    edge = frame.project(kept.boundary)
    x, y = frame.project_xy(lon, lat)
    off = np.flatnonzero(inside != answers)
    assert len(off) <= 3
    for i in off:
        assert edge.distance(shapely.Point(x[i], y[i])) < 1.0


def test_context_reads_only_what_can_be_nearest(context, ways):
    # Every way read is within the covering reach of the area, not the whole extract.
    everything = layers.lines(HELSINKI, "marked_path")
    assert 0 < len(ways) <= len(everything)
    assert NAME_JOIN_M == 50.0
    assert all(w.line.intersects(box(*context.bbox)) for w in ways)


def test_game_file_reads_marked_path(context):
    raw = {
        "type": "matching",
        "seeker": {"lat": KLUUVIKATU[1], "lon": KLUUVIKATU[0]},
        "subject": "marked-path",
        "answer": "different",
    }
    q = question_from_dict(raw, context, [], "question 1")
    assert isinstance(q, MatchingMarkedPathQuestion)
    assert q.cost == (3, 1) and q.cost_key() == ("matching", "marked-path")
    assert q.answer_for(*KLUUVIKATU) and q.same is False


def test_no_ways_is_refused():
    with pytest.raises(ValueError, match="ways"):
        MarkedPaths((), OsmContext(AREA, [HELSINKI]).frame)
    assert MarkedWay("way/1", "", shapely.LineString([(0, 0), (1, 1)])).name == ""


def test_local_diagram_equals_the_whole_one(context, paths):
    """The region from the samples near a path is the region of the whole diagram."""
    extent = context.frame.project_area(AREA)
    cells = shapely.get_parts(
        shapely.voronoi_polygons(
            shapely.multipoints(paths.points), extend_to=extent.buffer(500), ordered=True
        )
    )
    rng = np.random.default_rng(5)
    for path in rng.choice(int(paths.point_path.max()) + 1, 12, replace=False):
        whole = shapely.coverage_union_all(cells[paths.point_path == path]).intersection(extent)
        local = paths.region(int(path), extent).intersection(extent)
        assert whole.symmetric_difference(local).area <= 1e-6 * max(whole.area, 1.0)


def test_overpass_json_alone_is_refused_with_the_fix():
    from support.paths import DATA

    from stations_generator.errors import InputError

    sioux = DATA / "overpass" / "sioux-falls-pois-subset.json"
    context = OsmContext(box(-96.8, 43.5, -96.7, 43.6), [sioux])
    for subject in ("marked-path", "landmass"):
        raw = {"type": "matching", "seeker": "43.55,-96.75", "subject": subject, "answer": "same"}
        with pytest.raises(InputError, match="needs an OSM extract") as err:
            question_from_dict(raw, context, [], "question 1")
        assert "--osm" in str(err.value) and "\n" not in str(err.value)
