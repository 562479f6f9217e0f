"""Layers cut to a box from the extract cache (osm/layers.py) on real extracts.

A cached layer is made into objects only where a box needs them, picked by the
points' coordinates and the shapes' envelopes stored in the entry. These tests check
that the pick gives exactly what cutting the whole layer gives (points inside the box,
edges included; shapes meeting it), for random boxes over the real Liechtenstein
extract tiled 4 times and for boxes whose edges lie on a shape's envelope; that an
entry written before the envelopes and row offsets were stored still reads the same;
that a small box makes only its rows; and that a bad row found late is dropped and
the extract read again.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import HELSINKI, LIECHTENSTEIN, REPO
from support.tiled_osm import STEP_DEG, write_tiles

from stations_generator.app.map_context import ROUTE_MARGIN_M, OsmContext
from stations_generator.core.catalogue import load_catalogue
from stations_generator.formats.gamefile import DEFAULT_STATION_CATEGORIES
from stations_generator.formats.playarea import load_polygons
from stations_generator.osm import extracts, layers
from stations_generator.osm.extract_cache import ExtractCache
from stations_generator.osm.routes import read_routes, routes_serving

SHAPE_LAYERS = [("area", name) for name in layers.AREA_LAYERS] + [
    ("line", name) for name in layers.LINE_LAYERS
]


@pytest.fixture(autouse=True)
def _fresh_memo():
    layers._MEMO.clear()
    yield
    layers._MEMO.clear()


@pytest.fixture(scope="module")
def tiled(tmp_path_factory):
    return write_tiles(LIECHTENSTEIN, tmp_path_factory.mktemp("tiles") / "li-4.osm.pbf", 4)


@pytest.fixture(scope="module")
def whole(tiled, tmp_path_factory):
    """Every layer of the tiled extract, whole (no box), and a cache folder one read filled."""
    folder = tmp_path_factory.mktemp("cache") / "extracts"
    layers._MEMO.clear()
    with layers.use_cache(ExtractCache(folder)):
        found = {
            "points": layers.points(tiled, load_catalogue()),
            **{name: _shapes(kind, tiled, name, None) for kind, name in SHAPE_LAYERS},
            "routes": layers.routes(tiled),
        }
    layers._MEMO.clear()
    assert found["points"] and found["admin"] and found["water"] and found["waterway"]
    assert found["routes"]
    return found, folder


def _shapes(kind: str, path, name: str, box_):
    return (layers.areas if kind == "area" else layers.lines)(path, name, box_)


def _cut_points(points, box_):
    w, s, e, n = box_
    return [p for p in points if w <= p.lon <= e and s <= p.lat <= n]


def _cut_shapes(rows, box_):
    clip = shapely.box(*box_)
    return [r for r in rows if r[2].intersects(clip)]


def _cut_routes(routes, box_):
    w, s, e, n = box_
    return [r for r in routes if any(w <= x <= e and s <= y <= n for x, y in r.stops)]


def _route_rows(routes) -> list:
    return [(r, r.stops, r.stop_ids) for r in routes]


def _same_rows(got, want) -> bool:
    return [(k, t, g.wkb) for k, t, g in got] == [(k, t, g.wkb) for k, t, g in want]


def _check_box(tiled, found, folder, box_) -> None:
    """Every layer cut to ``box_`` from the cache entries is the whole layer cut to it."""
    with layers.use_cache(ExtractCache(folder)):
        got = layers.points(tiled, load_catalogue(), box_)
        assert [(e, e.tags) for e in got] == [
            (e, e.tags) for e in _cut_points(found["points"], box_)
        ]
        for kind, name in SHAPE_LAYERS:
            assert _same_rows(_shapes(kind, tiled, name, box_), _cut_shapes(found[name], box_))
        want = _route_rows(_cut_routes(found["routes"], box_))
        assert _route_rows(layers.routes(tiled, box_)) == want


# Boxes over the 2 x 2 tiles (0.4° apart) and a little beyond, from points to ~1°.
_LON = st.floats(9.3, 9.9 + STEP_DEG)
_LAT = st.floats(46.9, 47.4 + STEP_DEG)
_SIZE = st.floats(0.0, 1.0)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same boxes every run
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(w=_LON, s=_LAT, dw=_SIZE, ds=_SIZE)
def test_a_box_from_the_cache_is_the_whole_layer_cut_to_it(tiled, whole, w, s, dw, ds):
    found, folder = whole
    layers._MEMO.clear()
    _check_box(tiled, found, folder, (w, s, w + dw, s + ds))


@pytest.mark.slow  # the quick loop's budget: a tiled extract read, or many boxes
def test_boxes_on_the_edge_of_an_envelope(tiled, whole, monkeypatch):
    """A box that only touches a shape's envelope, or a point, from any side: the pick
    keeps what touches (edges included) and drops nothing that meets the box."""
    found, folder = whole
    monkeypatch.setattr(extracts, "read_points", lambda *_a, **_k: pytest.fail("read"))
    rows = [r for name in ("admin", "water", "waterway") for r in found[name][:15]]
    boxes = []
    for _, _, g in rows:
        w, s, e, n = shapely.bounds(g).tolist()
        boxes += [
            (e, s, e + 0.01, n),
            (w - 0.01, s, w, n),
            (w, n, e, n + 0.01),
            (w, s - 0.01, e, s),
        ]
    p = found["points"][len(found["points"]) // 2]
    boxes += [(p.lon, p.lat, p.lon, p.lat), (p.lon, p.lat, p.lon + 0.1, p.lat + 0.1)]
    for box_ in boxes:
        layers._MEMO.clear()
        _check_box(tiled, found, folder, box_)
    # and the touching ones are really there: a box on a point holds that point
    with layers.use_cache(ExtractCache(folder)):
        assert p in layers.points(tiled, load_catalogue(), (p.lon, p.lat, p.lon, p.lat))


def test_a_small_box_makes_only_its_rows(tiled, whole):
    found, folder = whole
    cache = ExtractCache(folder)
    box_ = (9.50, 47.10, 9.55, 47.15)  # a corner of Vaduz, copy 0
    with layers.use_cache(cache):
        got = layers.points(tiled, load_catalogue(), box_)
    index = layers.index_catalogue(load_catalogue())
    held = layers._MEMO[(str(folder), cache.key(tiled, f"points|{index.fingerprint()}"))]
    made = sum(row is not None for row in held._rows)
    assert got and made == len(_cut_points(held.select(None), box_)) < len(found["points"]) / 10


def _old_layout(folder, tiled) -> None:
    """Rewrite every layer entry as the previous version stored it: no envelopes, no offsets."""
    cache = ExtractCache(folder)
    index = layers.index_catalogue(load_catalogue())
    names = ["points", *layers.AREA_LAYERS, *layers.LINE_LAYERS, "routes"]
    for name in names:
        key = cache.key(tiled, layers._layer_id(name, index))
        columns = cache.load(key)
        assert columns is not None and ("bounds" in columns or name == "points")
        cache.store(key, {k: v for k, v in columns.items() if k != "bounds" and "_at" not in k})


def test_entries_without_envelopes_or_offsets_read_the_same(tiled, whole, tmp_path, monkeypatch):
    import shutil

    found, folder = whole
    old = tmp_path / "old"
    shutil.copytree(folder, old)
    _old_layout(old, tiled)
    warnings = []
    for name in ("read_points", "read_areas", "read_lines"):
        monkeypatch.setattr(extracts, name, lambda *_a, **_k: pytest.fail("the extract was read"))
    monkeypatch.setattr(layers, "_read_all", lambda *_a, **_k: pytest.fail("the extract was read"))
    for box_ in [(9.45, 47.0, 9.7, 47.3), (9.5 + STEP_DEG, 47.0, 9.9 + STEP_DEG, 47.6)]:
        layers._MEMO.clear()
        with layers.use_cache(ExtractCache(old, warn=warnings.append)):
            got = layers.points(tiled, load_catalogue(), box_)
            assert [(e, e.tags) for e in got] == [
                (e, e.tags) for e in _cut_points(found["points"], box_)
            ]
            for kind, name in SHAPE_LAYERS:
                want = _cut_shapes(found[name], box_)
                assert _same_rows(_shapes(kind, tiled, name, box_), want)
            want = _route_rows(_cut_routes(found["routes"], box_))
            assert _route_rows(layers.routes(tiled, box_)) == want
    assert warnings == []


def test_a_bad_row_found_when_made_drops_the_entry(tiled, whole, tmp_path):
    """An entry whose checksum holds but one admin row's tags are not strings: the row is
    made only when a box needs it; then the entry is dropped and the extract read again."""
    import shutil

    found, folder = whole
    spoiled = tmp_path / "spoiled"
    shutil.copytree(folder, spoiled)
    cache = ExtractCache(spoiled)
    key = cache.key(tiled, layers._layer_id("admin", layers.index_catalogue(load_catalogue())))
    columns = cache.load(key)
    tags = [dict(t) for _, t, _ in found["admin"]]
    last = len(tags) - 1  # a municipality of the last copy, far from copy 0's box below
    tags[last] = {"name": 1}
    cache.store(key, {**columns, **layers._json_columns("tags", tags)})
    warnings = []
    far = shapely.bounds(found["admin"][last][2]).tolist()
    near = (9.50, 47.10, 9.55, 47.15)
    assert not _cut_shapes(found["admin"][last:], near)
    with layers.use_cache(ExtractCache(spoiled, warn=warnings.append)):
        assert _same_rows(layers.areas(tiled, "admin", near), _cut_shapes(found["admin"], near))
        assert warnings == []  # the bad row was not needed, nor made
        got = layers.areas(tiled, "admin", far)
    assert _same_rows(got, _cut_shapes(found["admin"], far))
    assert any("dropped" in w for w in warnings), warnings
    layers._MEMO.clear()
    with layers.use_cache(ExtractCache(spoiled)):  # the entry stored again is good
        assert _same_rows(layers.areas(tiled, "admin", far), _cut_shapes(found["admin"], far))
    assert np.isfinite(far).all()


# --- transit routes -------------------------------------------------------------------
# The Helsinki centre extract (159 routes, every stop within ~1 x 1.5 km) tiled 4 times:
# a box picks the routes with a stop inside it, as filtering the whole layer does.


@pytest.fixture(scope="module")
def helsinki(tmp_path_factory):
    """The tiled Helsinki extract, its whole route layer, and a cache folder one read filled."""
    path = write_tiles(HELSINKI, tmp_path_factory.mktemp("tiles") / "hel-4.osm.pbf", 4)
    folder = tmp_path_factory.mktemp("cache") / "extracts"
    layers._MEMO.clear()
    with layers.use_cache(ExtractCache(folder)):
        found = layers.routes(path)
    layers._MEMO.clear()
    assert len(found) == 4 * len(read_routes(HELSINKI)) > 400
    return path, found, folder


def _stop_bounds(routes) -> tuple[float, float, float, float]:
    xy = np.array([p for r in routes for p in r.stops])
    return (*xy.min(axis=0).tolist(), *xy.max(axis=0).tolist())


# A tile's stops span ~0.02°: boxes of up to that size mostly, some over several tiles.
_TILE = st.integers(0, 1)
_IN_TILE = st.floats(-0.01, 0.03)
_ROUTE_BOX = st.one_of(st.floats(0.0, 0.02), st.floats(0.0, 0.6))


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@pytest.mark.slow  # the quick loop's budget: a tiled extract read, or many boxes
@given(i=_TILE, j=_TILE, u=_IN_TILE, v=_IN_TILE, dw=_ROUTE_BOX, ds=_ROUTE_BOX)
def test_routes_in_a_box_are_the_whole_layer_cut_to_it(helsinki, i, j, u, v, dw, ds):
    path, found, folder = helsinki
    w, s = 24.935 + STEP_DEG * i + u, 60.164 + STEP_DEG * j + v
    box_ = (w, s, w + dw, s + ds)
    layers._MEMO.clear()
    with layers.use_cache(ExtractCache(folder)):
        got = layers.routes(path, box_)
    assert _route_rows(got) == _route_rows(_cut_routes(found, box_))


@pytest.mark.slow  # the quick loop's budget: a tiled extract read, or many boxes
def test_a_box_on_a_stop_keeps_its_route(helsinki):
    """Boxes whose edges (or all of them) lie on a stop: the stop is inside (edges
    included), so its route is there; a box just beside it is cut like the whole layer."""
    path, found, folder = helsinki
    cases = []
    for r in found[:: max(1, len(found) // 25)]:
        x, y = r.stops[len(r.stops) // 2]
        for box_ in [
            (x, y, x, y),
            (x, y, x + 0.01, y + 0.01),
            (x - 0.01, y - 0.01, x, y),
            (x - 0.01, y, x + 0.01, y),
        ]:
            cases.append((r, box_, True))
        cases.append((r, (x + 1e-9, y, x + 0.01, y + 0.01), None))
    layers._MEMO.clear()
    with layers.use_cache(ExtractCache(folder)):
        for r, box_, inside in cases:
            got = layers.routes(path, box_)
            assert _route_rows(got) == _route_rows(_cut_routes(found, box_))
            if inside:
                assert r in got


@pytest.mark.slow  # the quick loop's budget: a tiled extract read, or many boxes
def test_a_small_box_makes_only_its_routes(helsinki):
    path, found, folder = helsinki
    cache = ExtractCache(folder)
    tile0 = _stop_bounds(read_routes(HELSINKI))
    with layers.use_cache(cache):
        got = layers.routes(path, tile0)
    held = layers._MEMO[(str(folder), cache.key(path, "routes"))]
    made = sum(row is not None for row in held._rows)
    assert got == _cut_routes(found, tile0)
    assert made == len(got) == len(found) // 4  # copy 0's routes, made; the others not


@pytest.mark.slow  # the quick loop's budget: a tiled extract read, or many boxes
def test_old_route_entries_read_the_same(helsinki, tmp_path, monkeypatch):
    """A route entry stored before the envelopes and row offsets were: the same routes for
    every box, without reading the extract, and nothing dropped."""
    import shutil

    path, found, folder = helsinki
    old = tmp_path / "old"
    shutil.copytree(folder, old)
    cache = ExtractCache(old)
    key = cache.key(path, "routes")
    columns = cache.load(key)
    assert {"bounds", "meta_at", "stop_ids_at"} <= set(columns)
    cache.store(key, {k: v for k, v in columns.items() if k != "bounds" and "_at" not in k})
    monkeypatch.setattr(layers, "_read_all", lambda *_a, **_k: pytest.fail("the extract was read"))
    warnings = []
    tile0 = _stop_bounds(read_routes(HELSINKI))
    for box_ in [tile0, (24.9, 60.1, 25.4, 60.6), (24.94, 60.17, 24.945, 60.175), None]:
        layers._MEMO.clear()
        with layers.use_cache(ExtractCache(old, warn=warnings.append)):
            got = layers.routes(path, box_)
        want = found if box_ is None else _cut_routes(found, box_)
        assert _route_rows(got) == _route_rows(want)
    assert warnings == []


@pytest.mark.slow  # the quick loop's budget: a tiled extract read, or many boxes
def test_a_bad_route_found_when_made_drops_the_entry(helsinki, tmp_path):
    """The last route (of the last copy) has a number for a name: a box away from it
    does not make it; one on it drops the entry, and the extract is read again."""
    import shutil

    path, found, folder = helsinki
    spoiled = tmp_path / "spoiled"
    shutil.copytree(folder, spoiled)
    cache = ExtractCache(spoiled)
    key = cache.key(path, "routes")
    meta = [[r.id, r.ref, r.network, r.name, r.route] for r in found]
    meta[-1][3] = 1
    cache.store(key, {**cache.load(key), **layers._json_columns("meta", meta)})
    near, far = _stop_bounds(found[:1]), _stop_bounds(found[-1:])
    assert found[-1] not in _cut_routes(found, near)
    warnings = []
    with layers.use_cache(ExtractCache(spoiled, warn=warnings.append)):
        assert layers.routes(path, near) == _cut_routes(found, near)
        assert warnings == []
        got = layers.routes(path, far)
    assert _route_rows(got) == _route_rows(_cut_routes(found, far)) and found[-1] in got
    assert any("dropped" in w for w in warnings), warnings


def _served(station, routes) -> tuple[frozenset, frozenset]:
    node = int(station.id.split("/")[1]) if station.id.startswith("node/") else None
    served = routes_serving(station.lon, station.lat, node, routes)
    return frozenset(r.id for r in served), frozenset(r.line_ref for r in served)


@pytest.mark.slow  # the quick loop's budget: a tiled extract read, or many boxes
def test_a_play_areas_stations_get_the_routes_of_the_whole_layer(helsinki, tmp_path):
    """The game context reads the routes near its play area only (copy 0's), and every
    station gets the lines the whole layer gives it: the area's own (from the extract),
    and those of a station file with every copy's tram stops (most far outside)."""
    path, found, folder = helsinki
    area = load_polygons(REPO / "zones" / "helsinki-centre.geojson", min_area_km2=0)
    layers._MEMO.clear()
    with layers.use_cache(ExtractCache(folder)):
        context = OsmContext(area, [path])
        stations = context.stations_from_osm(DEFAULT_STATION_CATEGORIES)
        assert 0 < len(context.routes) <= len(found) // 4
        assert {r.id for r in context.routes} == {
            r.id for b in context.bboxes(ROUTE_MARGIN_M) for r in _cut_routes(found, b)
        }
        assert stations and any(s.lines for s in stations)
        for s in stations:
            assert (s.lines, s.line_refs) == _served(s, found)
        stops = [e for e in layers.points(path, load_catalogue()) if e.tags.get("railway")]
        features = [
            {
                "type": "Feature",
                "properties": {
                    "role": "station",
                    "id": e.key,
                    "osm_type": e.osm_type,
                    "osm_id": e.osm_id,
                    "wait_min": 20,
                    "wait_max": 60,
                },
                "geometry": {"type": "Point", "coordinates": [e.lon, e.lat]},
            }
            for e in stops
        ]
        file = tmp_path / "stations.geojson"
        file.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
        from_file = context.stations_from_file(file)
    outside = [s for s in from_file if not area.buffer(0.05).covers(shapely.Point(s.lon, s.lat))]
    assert len(outside) > len(from_file) / 2 and any(s.lines for s in outside)
    for s in from_file:
        assert (s.lines, s.line_refs) == _served(s, found)
