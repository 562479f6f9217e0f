"""Play-area loading on the real Sioux Falls polygon and shapes derived from it."""

from __future__ import annotations

import json

import pytest
import shapely
from shapely.geometry import Polygon, mapping
from support.paths import REPO, SIOUX

from stations_generator import load_polygons, parse_polygons
from stations_generator.errors import InputError, NoDataError


def ring():
    data = json.loads((SIOUX / "polygon.geojson").read_text())
    return data["features"][0]["geometry"]["coordinates"]


def test_closed_linestring_is_read_as_polygon_with_warning():
    warnings = []
    area = load_polygons(SIOUX / "polygon.geojson", warnings.append)
    assert area.geom_type == "Polygon" and area.is_valid
    assert any("closed LineString" in w for w in warnings)
    assert area.equals(Polygon(ring()))


@pytest.mark.parametrize("wrap", ["geometry", "feature", "collection", "geomcollection"])
def test_wrappers(wrap):
    geom = {"type": "Polygon", "coordinates": [ring()]}
    obj = {
        "geometry": geom,
        "feature": {"type": "Feature", "properties": {}, "geometry": geom},
        "collection": {
            "type": "FeatureCollection",
            "features": [{"type": "Feature", "properties": {}, "geometry": geom}],
        },
        "geomcollection": {"type": "GeometryCollection", "geometries": [geom]},
    }[wrap]
    assert parse_polygons(obj, "x").equals(Polygon(ring()))


def test_multipolygon_keeps_parts_and_holes():
    outer = Polygon(ring())
    hole = outer.centroid.buffer(0.02)
    with_hole = outer.difference(hole)
    island = hole.centroid.buffer(0.005)  # an island inside the hole: a separate part
    data = {
        "type": "MultiPolygon",
        "coordinates": [mapping(with_hole)["coordinates"], mapping(island)["coordinates"]],
    }
    area = parse_polygons(data, "x")
    assert area.geom_type == "MultiPolygon" and len(area.geoms) == 2
    assert sum(len(p.interiors) for p in area.geoms) == 1
    assert area.area == pytest.approx(with_hole.area + island.area)


def test_self_intersecting_is_repaired_with_warning():
    coords = ring()[:-1]
    bowtie = [coords[0], coords[2], coords[1], coords[3], coords[0]]  # edges cross
    warnings = []
    area = parse_polygons({"type": "Polygon", "coordinates": [bowtie]}, "bowtie", warnings.append)
    assert area.is_valid and area.area > 0
    assert any("repaired invalid polygon" in w and "Self-intersection" in w for w in warnings)


def test_swapped_coordinates():
    swapped = [[lat, lon] for lon, lat in ring()]
    with pytest.raises(InputError, match="swapped"):
        parse_polygons({"type": "Polygon", "coordinates": [swapped]}, "x")


def test_projected_coordinates():
    big = [[x * 1e5, y * 1e3] for x, y in ring()]
    with pytest.raises(InputError, match="out of range"):
        parse_polygons({"type": "Polygon", "coordinates": [big]}, "x")


def test_point_is_not_a_play_area():
    with pytest.raises(InputError, match="Point, not a polygon"):
        parse_polygons({"type": "Point", "coordinates": ring()[0]}, "x")


def test_open_line_is_not_a_play_area():
    with pytest.raises(InputError, match="open LineString"):
        parse_polygons({"type": "LineString", "coordinates": ring()[:-1]}, "x")


def test_degenerate_polygon():
    c = ring()
    flat = [c[0], c[1], c[0], c[1]]
    with pytest.raises((NoDataError, InputError)):
        parse_polygons({"type": "Polygon", "coordinates": [flat]}, "x")


def test_bad_files(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_polygons(tmp_path / "missing.geojson")
    text = tmp_path / "notes.geojson"
    text.write_text("this is not json")
    with pytest.raises(InputError, match="not GeoJSON"):
        load_polygons(text)
    binary = tmp_path / "extract.geojson"
    binary.write_bytes((REPO / "tests/data/osm-extracts/kouvola-test.osm.pbf").read_bytes()[:200])
    with pytest.raises(InputError):
        load_polygons(binary)
    other = tmp_path / "other.geojson"
    other.write_text(json.dumps({"type": "Topology", "objects": {}}))
    with pytest.raises(InputError, match="not GeoJSON"):
        load_polygons(other)


def test_zones_are_valid_real_play_areas():
    zones = sorted((REPO / "zones").glob("*.geojson"))
    assert len(zones) >= 2
    for path in zones:
        area = load_polygons(path)
        assert area.is_valid and not area.is_empty
        assert shapely.get_coordinates(area)[:, 1].max() <= 90


# --- ring closure and repairs (issue 9 items 7 and 12) ----------------------------------


def test_peer_area_drawn_as_an_almost_closed_line_is_closed_with_a_warning():
    """The peer's own case: a LineString whose ends are tens of metres apart."""
    almost = [*ring()[:-1], [ring()[0][0] + 0.0007, ring()[0][1]]]  # ~56 m short
    warnings = []
    area = parse_polygons({"type": "LineString", "coordinates": almost}, "x", warnings.append)
    assert area.is_valid and area.area > 0
    (message,) = warnings
    assert "not closed" in message and "56 m apart" in message and "% of its" in message


def test_unclosed_polygon_ring_is_treated_like_a_line():
    almost = [*ring()[:-1], [ring()[0][0] + 0.0007, ring()[0][1]]]
    warnings = []
    parse_polygons({"type": "Polygon", "coordinates": [almost]}, "x", warnings.append)
    assert any("outer ring was not closed" in w for w in warnings)
    with pytest.raises(InputError, match="outer ring is open: its ends are .* apart"):
        parse_polygons({"type": "Polygon", "coordinates": [ring()[:4]]}, "x")


def test_hole_outside_its_shell_is_ignored_with_its_distance():
    far = [[x + 4, y] for x, y in ring()]
    warnings = []
    area = parse_polygons({"type": "Polygon", "coordinates": [ring(), far]}, "x", warnings.append)
    assert area.geom_type == "Polygon" and area.equals(Polygon(ring()))
    (message,) = warnings
    assert "hole 1 lies outside the outer ring" in message and "km away" in message
    assert "%" not in message


def test_hole_equal_to_its_shell_is_refused():
    with pytest.raises(InputError, match="covers the whole outer ring"):
        parse_polygons({"type": "Polygon", "coordinates": [ring(), ring()]}, "x")


def test_hole_crossing_its_shell_is_cut_out_where_it_overlaps():
    x, y = ring()[0]
    square = [
        [x - 0.01, y - 0.01],
        [x + 0.01, y - 0.01],
        [x + 0.01, y + 0.01],
        [x - 0.01, y + 0.01],
    ]
    warnings = []
    area = parse_polygons(
        {"type": "Polygon", "coordinates": [ring(), [*square, square[0]]]}, "x", warnings.append
    )
    assert area.area < Polygon(ring()).area
    assert any("crosses the outer ring" in w for w in warnings)


def test_microscopic_polygon_has_its_own_message():
    x, y = ring()[0]
    tiny = [[x, y], [x + 1e-6, y], [x + 1e-6, y + 1e-6], [x, y + 1e-6], [x, y]]
    with pytest.raises(NoDataError, match="covers only .* m²"):
        parse_polygons({"type": "Polygon", "coordinates": [tiny]}, "x")
    # exclusions may be small
    assert parse_polygons({"type": "Polygon", "coordinates": [tiny]}, "x", min_area_km2=0).area > 0


@pytest.mark.parametrize(
    "bad", [float("nan"), float("inf"), -float("inf"), 10**400, "1", None, True, [], {}]
)
def test_non_finite_or_non_numeric_positions_name_their_json_path(bad):
    coords = [list(p) for p in ring()]
    coords[3][1] = bad
    with pytest.raises(InputError, match=r"\$\.coordinates\[0\]\[3\]: expected a position") as info:
        parse_polygons({"type": "Polygon", "coordinates": [coords]}, "x")
    assert "\n" not in str(info.value)


def test_non_finite_numbers_are_shown_as_given():
    # The validator reads NaN as null; the message shows the value the caller gave.
    coords = [list(p) for p in ring()]
    coords[3][0] = float("nan")
    with pytest.raises(InputError, match=r"finite numbers, got \[NaN, "):
        parse_polygons({"type": "Polygon", "coordinates": [coords]}, "x")


@pytest.mark.parametrize("position", [[1.0], [1.0, 2.0, 3.0, 4.0, 5.0], []])
def test_positions_need_two_to_four_numbers(position):
    coords = [list(p) for p in ring()]
    coords[2] = position
    with pytest.raises(InputError, match=r"\[0\]\[2\]: expected a position .* got "):
        parse_polygons({"type": "Polygon", "coordinates": [coords]}, "x")


def test_positions_of_three_or_four_numbers_and_tuples_are_read():
    area = parse_polygons(mapping(Polygon(ring())), "x")  # shapely gives tuples
    with_altitude = [[*p, 120.0] for p in ring()]
    measured = [[*p, 120.0, 7.0] for p in ring()]
    assert parse_polygons({"type": "Polygon", "coordinates": [with_altitude]}, "x").equals(area)
    assert parse_polygons({"type": "Polygon", "coordinates": [measured]}, "x").equals(area)


def test_coordinates_nested_one_level_too_deep_or_shallow_are_refused():
    for coordinates in ([ring()[0]], [[ring()]]):
        with pytest.raises(InputError, match=r"\$\.coordinates\[0\]"):
            parse_polygons({"type": "Polygon", "coordinates": coordinates}, "x")


def test_deeply_nested_python_data_is_refused_in_one_line():
    deep: list = []
    inner = deep
    for _ in range(100_000):  # far deeper than any validator's native stack allows
        inner.append([])
        inner = inner[0]
    with pytest.raises(InputError, match="x is nested too deeply"):
        parse_polygons({"type": "Polygon", "coordinates": deep}, "x")
