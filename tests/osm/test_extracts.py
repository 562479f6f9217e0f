"""Tests for the offline OSM extract readers, on the real extracts in tests/data/osm-extracts."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import osmium
import pytest
import shapely
from pyproj import Geod
from shapely.geometry import LineString, MultiPolygon, Polygon
from support.paths import EXTRACTS, HELSINKI, LIECHTENSTEIN, MONACO

from stations_generator.core.elements import OsmElement
from stations_generator.errors import InputError
from stations_generator.osm.extracts import (
    EXTRACT_SUFFIXES,
    WATER_TAGS,
    is_water,
    read_areas,
    read_lines,
    read_points,
    read_water,
)

KOUVOLA = EXTRACTS / "kouvola-test.osm.pbf"

GEOD = Geod(ellps="WGS84")
TYPE_ORDER = {"node": 0, "way": 1, "relation": 2}


def is_cafe(tags: Mapping[str, str]) -> bool:
    return tags.get("amenity") == "cafe"


def is_poi(tags: Mapping[str, str]) -> bool:
    return any(key in tags for key in ("amenity", "shop", "tourism", "leisure"))


def geodesic_km2(geom: Any) -> float:
    return abs(GEOD.geometry_area_perimeter(geom)[0]) / 1e6


def assert_sorted_unique(elements: list[OsmElement]) -> None:
    keys = [(TYPE_ORDER[e.osm_type], e.osm_id) for e in elements]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


# ---------------------------------------------------------------------------
# Independent osmium helpers (plain SimpleHandler, no code from the module)
# ---------------------------------------------------------------------------


class _TagCounter(osmium.SimpleHandler):
    def __init__(self, pred: Callable[[Mapping[str, str]], bool]) -> None:
        super().__init__()
        self.pred = pred
        self.keys: set[str] = set()

    def _check(self, kind: str, obj: Any) -> None:
        if self.pred({t.k: t.v for t in obj.tags}):
            self.keys.add(f"{kind}/{obj.id}")

    def node(self, n: Any) -> None:
        self._check("node", n)

    def way(self, w: Any) -> None:
        self._check("way", w)

    def relation(self, r: Any) -> None:
        self._check("relation", r)


class _WayRefs(osmium.SimpleHandler):
    def __init__(self, ids: set[int]) -> None:
        super().__init__()
        self.ids = ids
        self.refs: dict[int, list[int]] = {}

    def way(self, w: Any) -> None:
        if w.id in self.ids:
            self.refs[w.id] = [n.ref for n in w.nodes]


class _NodeCoords(osmium.SimpleHandler):
    def __init__(self, ids: set[int]) -> None:
        super().__init__()
        self.ids = ids
        self.coords: dict[int, tuple[float, float]] = {}

    def node(self, n: Any) -> None:
        if n.id in self.ids:
            self.coords[n.id] = (n.location.lon, n.location.lat)


def hand_bbox(path: Path, way_id: int) -> tuple[list[int], list[tuple[float, float]]]:
    """A way's node refs and the coordinates of those nodes present in the file."""
    refs = _WayRefs({way_id})
    refs.apply_file(str(path))
    node_ids = refs.refs[way_id]
    coords = _NodeCoords(set(node_ids))
    coords.apply_file(str(path))
    return node_ids, [coords.coords[n] for n in node_ids if n in coords.coords]


# ---------------------------------------------------------------------------
# read_points
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def helsinki_pois() -> list[OsmElement]:
    return read_points(HELSINKI, is_poi)


def test_read_points_cafes_match_independent_count() -> None:
    cafes = read_points(HELSINKI, is_cafe)
    counter = _TagCounter(is_cafe)
    counter.apply_file(str(HELSINKI))
    keys = [e.key for e in cafes]
    assert set(keys) == counter.keys
    assert len(keys) == len(counter.keys)
    assert abs(len(keys) - 89) <= 3  # README: 89 cafés
    assert all(e.tags["amenity"] == "cafe" for e in cafes)
    assert_sorted_unique(cafes)


def test_read_points_pois_match_independent_count(helsinki_pois: list[OsmElement]) -> None:
    # Cafés in this extract are all nodes; the broad POI set has ways and relations too.
    counter = _TagCounter(is_poi)
    counter.apply_file(str(HELSINKI))
    keys = [e.key for e in helsinki_pois]
    assert set(keys) == counter.keys
    assert len(keys) == len(counter.keys)
    assert {e.osm_type for e in helsinki_pois} == {"node", "way", "relation"}
    assert_sorted_unique(helsinki_pois)


def test_read_points_ways_lie_inside_their_node_bbox(helsinki_pois: list[OsmElement]) -> None:
    class WayBoxes(osmium.SimpleHandler):
        def __init__(self) -> None:
            super().__init__()
            self.boxes: dict[int, tuple[float, float, float, float]] = {}

        def way(self, w: Any) -> None:
            if is_poi(w.tags):
                pts = [(n.lon, n.lat) for n in w.nodes if n.location.valid()]
                lons, lats = [p[0] for p in pts], [p[1] for p in pts]
                self.boxes[w.id] = (min(lons), min(lats), max(lons), max(lats))

    handler = WayBoxes()
    handler.apply_file(str(HELSINKI), locations=True)
    ways = [e for e in helsinki_pois if e.osm_type == "way"]
    assert ways and len(ways) == len(handler.boxes)
    for e in ways:
        x0, y0, x1, y1 = handler.boxes[e.osm_id]
        assert x0 <= e.lon <= x1 and y0 <= e.lat <= y1
        assert e.lon == pytest.approx((x0 + x1) / 2, abs=1e-9)
        assert e.lat == pytest.approx((y0 + y1) / 2, abs=1e-9)


def test_read_points_way_centre_by_hand(helsinki_pois: list[OsmElement]) -> None:
    way = next(
        e for e in helsinki_pois if e.osm_type == "way" and e.tags.get("amenity") == "library"
    )
    _, coords = hand_bbox(HELSINKI, way.osm_id)
    assert len(coords) >= 3
    lons = [c[0] for c in coords]
    lats = [c[1] for c in coords]
    assert way.lon == pytest.approx((min(lons) + max(lons)) / 2, abs=1e-9)
    assert way.lat == pytest.approx((min(lats) + max(lats)) / 2, abs=1e-9)


def test_read_points_clipped_way_uses_existing_nodes() -> None:
    # Vironkatu runs off the edge of the Helsinki extract: some of its nodes are missing.
    way_id = 4250285
    refs, coords = hand_bbox(HELSINKI, way_id)
    assert 0 < len(coords) < len(refs)
    result = read_points(HELSINKI, lambda t: t.get("name") == "Vironkatu")
    way = next(e for e in result if e.key == f"way/{way_id}")
    lons = [c[0] for c in coords]
    lats = [c[1] for c in coords]
    assert way.lon == pytest.approx((min(lons) + max(lons)) / 2, abs=1e-9)
    assert way.lat == pytest.approx((min(lats) + max(lats)) / 2, abs=1e-9)


def test_read_points_relation_centre_matches_its_polygon() -> None:
    def is_country(t: Mapping[str, str]) -> bool:
        return t.get("admin_level") == "2" and t.get("name") == "Liechtenstein"

    points = read_points(LIECHTENSTEIN, is_country)
    (rel,) = [e for e in points if e.osm_type == "relation"]
    (area,) = read_areas(LIECHTENSTEIN, is_country)
    assert area[0] == rel.key
    x0, y0, x1, y1 = area[2].bounds
    assert rel.lon == pytest.approx((x0 + x1) / 2, abs=1e-7)
    assert rel.lat == pytest.approx((y0 + y1) / 2, abs=1e-7)


def test_read_points_bbox_is_a_subset() -> None:
    everything = read_points(HELSINKI, is_poi)
    bbox = (24.940, 60.166, 24.948, 60.172)
    inside = read_points(HELSINKI, is_poi, bbox=bbox)
    assert 0 < len(inside) < len(everything)
    assert all(bbox[0] <= e.lon <= bbox[2] and bbox[1] <= e.lat <= bbox[3] for e in inside)
    expected = [
        e.key for e in everything if bbox[0] <= e.lon <= bbox[2] and bbox[1] <= e.lat <= bbox[3]
    ]
    assert [e.key for e in inside] == expected
    assert_sorted_unique(inside)


def test_read_points_bad_bbox() -> None:
    with pytest.raises(InputError):
        read_points(HELSINKI, is_cafe, bbox=(25.0, 60.0, 24.0, 61.0))


def test_read_points_predicate_errors_propagate() -> None:
    def broken(tags: Mapping[str, str]) -> bool:
        raise RuntimeError("bug in predicate")

    def broken_on_relations(tags: Mapping[str, str]) -> bool:
        if "type" in tags:  # only relations: raised inside osmium's first area pass
            raise RuntimeError("bug in predicate")
        return False

    for reader, pred in [
        (read_points, broken),
        (read_areas, broken),
        (read_lines, broken),
        (read_areas, broken_on_relations),
    ]:
        with pytest.raises(RuntimeError, match="bug in predicate") as info:
            reader(LIECHTENSTEIN, pred)
        assert not isinstance(info.value, InputError)


def test_read_points_poi_counts() -> None:
    # README: ~228 POIs of "our" categories in Monaco; the broad predicate here keeps
    # many more (every amenity/shop/tourism/leisure). Speed is measured in bench/.
    pois = read_points(MONACO, is_poi)
    assert len(pois) > 228
    assert_sorted_unique(pois)


def test_polygonal_repairs_or_rejects() -> None:
    from stations_generator.osm.extract_io import polygonal

    bowtie = Polygon([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)])
    repaired = polygonal(bowtie)
    assert repaired is not None and repaired.is_valid
    assert repaired.area == pytest.approx(0.5)
    assert polygonal(Polygon([(0, 0), (1, 0), (2, 0), (0, 0)])) is None  # no area at all
    assert polygonal(Polygon()) is None
    square = MultiPolygon([Polygon([(0, 0), (1, 0), (1, 1), (0, 1)])])
    assert isinstance(polygonal(square), Polygon)


# ---------------------------------------------------------------------------
# Formats
# ---------------------------------------------------------------------------


def _convert(src: Path, dst: Path) -> None:
    with osmium.SimpleWriter(str(dst)) as writer:
        for obj in osmium.FileProcessor(src):
            writer.add(obj)


@pytest.mark.parametrize("suffix", [".osm", ".osm.bz2", ".osm.gz", ".opl"])
def test_formats_give_identical_points(tmp_path: Path, suffix: str) -> None:
    def keep(t: Mapping[str, str]) -> bool:
        return is_poi(t) or t.get("highway") == "bus_stop"

    dst = tmp_path / f"kouvola{suffix}"
    _convert(KOUVOLA, dst)
    assert suffix in EXTRACT_SUFFIXES
    reference = read_points(KOUVOLA, keep)
    converted = read_points(dst, keep)
    assert len(reference) > 30
    assert [(e.key, e.lat, e.lon, e.tags) for e in converted] == [
        (e.key, e.lat, e.lon, e.tags) for e in reference
    ]


def test_suffix_is_case_insensitive(tmp_path: Path) -> None:
    dst = tmp_path / "KOUVOLA.OSM.PBF"
    dst.write_bytes(KOUVOLA.read_bytes())
    assert read_points(dst, is_poi) == read_points(KOUVOLA, is_poi)


# ---------------------------------------------------------------------------
# read_areas / read_water / read_lines
# ---------------------------------------------------------------------------


def test_read_areas_liechtenstein_country() -> None:
    areas = read_areas(
        LIECHTENSTEIN,
        lambda t: t.get("boundary") == "administrative" and t.get("admin_level") == "2",
    )
    # The extract holds the Austrian and Swiss boundaries only in part: skipped, not raised.
    assert len(areas) == 1
    key, tags, geom = areas[0]
    assert key.startswith("relation/")
    assert tags["name"] == "Liechtenstein"
    assert tags["type"] == "boundary"
    assert isinstance(geom, Polygon | MultiPolygon) and geom.is_valid
    assert geodesic_km2(geom) == pytest.approx(160.0, rel=0.02)
    assert geom.contains(shapely.Point(9.5209, 47.1410))  # Vaduz


def test_read_areas_liechtenstein_municipalities() -> None:
    country = read_areas(LIECHTENSTEIN, lambda t: t.get("admin_level") == "2")[0][2]
    munis = read_areas(
        LIECHTENSTEIN,
        lambda t: (
            t.get("boundary") == "administrative" and t.get("admin_level") == "8" and "name" in t
        ),
    )
    assert len(munis) == 11
    assert "Vaduz" in {tags["name"] for _, tags, _ in munis}
    keys = [k for k, _, _ in munis]
    assert keys == sorted(keys, key=lambda k: (k.split("/")[0] != "way", int(k.split("/")[1])))
    geoms = [g for _, _, g in munis]
    assert all(g.is_valid and g.area > 0 for g in geoms)
    for i, a in enumerate(geoms):
        for b in geoms[i + 1 :]:
            assert a.intersection(b).area < 0.001 * min(a.area, b.area)
    total = sum(geodesic_km2(g) for g in geoms)
    assert total == pytest.approx(geodesic_km2(country), rel=0.01)


def test_read_areas_bbox_filter() -> None:
    def keep(t: Mapping[str, str]) -> bool:
        return t.get("admin_level") == "8" and "name" in t

    bbox = (9.50, 47.20, 9.56, 47.27)  # the north (Unterland)
    all_munis = read_areas(LIECHTENSTEIN, keep)
    some = read_areas(LIECHTENSTEIN, keep, bbox=bbox)
    assert 0 < len(some) < len(all_munis)
    box = shapely.box(*bbox)
    assert all(g.intersects(box) for _, _, g in some)
    assert {k for k, _, _ in some} == {k for k, _, g in all_munis if g.intersects(box)}


@pytest.mark.parametrize("path", [MONACO, HELSINKI])
def test_read_water(path: Path) -> None:
    water = read_water(path)
    assert water
    for geom in water:
        assert isinstance(geom, Polygon | MultiPolygon)
        assert geom.is_valid and geom.area > 0
    tagged = read_areas(path, is_water)
    assert [g.wkb for _, _, g in tagged] == [g.wkb for g in water]
    assert all(is_water(tags) for _, tags, _ in tagged)


def test_is_water() -> None:
    for key, value in WATER_TAGS:
        assert is_water({key: value, "name": "x"})
    assert not is_water({"natural": "wood"})
    assert not is_water({"waterway": "river"})
    assert not is_water({})


def test_read_lines_coastline() -> None:
    lines = read_lines(MONACO, lambda t: t.get("natural") == "coastline")
    assert lines
    ids = [int(k.split("/")[1]) for k, _, _ in lines]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for key, tags, line in lines:
        assert key.startswith("way/")
        assert tags["natural"] == "coastline"
        assert isinstance(line, LineString)
        assert len(line.coords) >= 2
        assert all(7.3 < x < 7.6 and 43.6 < y < 43.8 for x, y in line.coords)


def test_read_lines_clipped_ways() -> None:
    # Vironkatu again: the line keeps only the nodes present in the extract.
    refs, coords = hand_bbox(HELSINKI, 4250285)
    lines = dict((k, line) for k, _, line in read_lines(HELSINKI, lambda t: "highway" in t))
    line = lines["way/4250285"]
    assert len(refs) > len(coords) == len(line.coords)
    assert all(
        math.isclose(a, c, abs_tol=1e-9)
        for p, q in zip(line.coords, coords, strict=True)
        for a, c in zip(p, q, strict=True)
    )


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    text = tmp_path / "notes.osm.pbf"
    text.write_text("this is not an OSM file\nat all\n")
    truncated = tmp_path / "truncated.osm.pbf"
    data = KOUVOLA.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    xml = tmp_path / "broken.osm"
    xml.write_text("<osm version='0.6'><node id='1' lat='60' lon='25'>\n")
    unknown = tmp_path / "kouvola.txt"
    unknown.write_bytes(data)
    return {
        "missing": tmp_path / "nowhere.osm.pbf",
        "text": text,
        "truncated": truncated,
        "broken-xml": xml,
        "unknown-suffix": unknown,
        "directory": tmp_path,
    }


@pytest.mark.parametrize(
    "which", ["missing", "text", "truncated", "broken-xml", "unknown-suffix", "directory"]
)
@pytest.mark.parametrize(
    "reader",
    [
        lambda p: read_points(p, is_poi),
        lambda p: read_areas(p, is_water),
        lambda p: read_lines(p, is_poi),
        read_water,
    ],
    ids=["points", "areas", "lines", "water"],
)
def test_bad_files_raise_one_line_input_error(
    tmp_path: Path, which: str, reader: Callable[[Path], object]
) -> None:
    path = _bad_files(tmp_path)[which]
    with pytest.raises(InputError) as info:
        reader(path)
    message = str(info.value)
    assert "\n" not in message
    assert path.name in message
    if which in ("text", "truncated", "broken-xml", "unknown-suffix"):
        assert ".osm.pbf" in message  # names the fix: the file types we read


def test_area_from_extracts_stores_only_the_objects_nodes(monkeypatch) -> None:
    """A play area named by OSM id is assembled from its own nodes: tracking them, the
    location index holds those (not every node of the file), and the polygon is the one
    read_areas assembles for the same relation. A file this small stores every node
    instead (cheaper than osmium's 4 MiB id block): the same polygon."""
    from stations_generator.osm import one_pass, osm_area
    from stations_generator.osm.extracts import read_areas

    country = next(
        (key, geom)
        for key, tags, geom in read_areas(
            LIECHTENSTEIN, lambda t: t.get("admin_level") == "2" and "name" in t
        )
        if key.startswith("relation/")
    )
    rid = int(country[0].split("/")[1])
    made: list[Any] = []
    create = osmium.index.create_map

    def spy(storage: str) -> Any:
        made.append(create(storage))
        return made[-1]

    monkeypatch.setattr(osmium.index, "create_map", spy)
    assert one_pass.stores_every_node(LIECHTENSTEIN, [rid])  # (any one id block)
    every = osm_area.area_from_extracts([LIECHTENSTEIN], "relation", rid)
    made.clear()
    monkeypatch.setattr(one_pass, "stores_every_node", lambda path, sample: False)
    area = osm_area.area_from_extracts([LIECHTENSTEIN], "relation", rid)
    assert area is not None and every is not None and area.equals_exact(every, 0)
    assert shapely.symmetric_difference(area, country[1]).area < 1e-9 * country[1].area
    members = {
        w.id: [n.ref for n in w.nodes]
        for w in osmium.FileProcessor(str(LIECHTENSTEIN), osmium.osm.WAY)
    }
    member_ways = next(
        [m.ref for m in r.members if m.type == "w"]
        for r in osmium.FileProcessor(str(LIECHTENSTEIN), osmium.osm.RELATION)
        if r.id == rid
    )
    wanted = {n for w in member_ways for n in members.get(w, ())}
    in_file = sum(1 for _ in osmium.FileProcessor(str(LIECHTENSTEIN), osmium.osm.NODE))
    stored = made[0].used_memory() // 16  # sparse index: 8-byte id + 8-byte location
    assert 0 < stored <= len(wanted) < in_file / 5
