"""Output writers (GeoJSON, CSV, KML, atomic writes) on the real Sioux Falls peer data."""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import sys
from decimal import Decimal
from xml.etree import ElementTree as ET

import geopandas as gpd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPoint, Point, Polygon
from shapely.geometry.polygon import orient
from support.paths import SIOUX

from stations_generator.formats import atomic
from stations_generator.formats.atomic import atomic_write_bytes, atomic_write_text
from stations_generator.formats.csv import PEER_COLUMNS, stations_csv, write_stations_csv
from stations_generator.formats.geojson import (
    COORD_DECIMALS,
    candidates_feature_collection,
    dumps_geojson,
    polygon_rings,
    stations_feature_collection,
    write_geojson,
)
from stations_generator.formats.geojson_check import validate_rfc7946
from stations_generator.formats.kml import KML_NS, stations_kml, write_kml

PEER_CSV = SIOUX / "peer-output.csv"
POLYGON = SIOUX / "polygon.geojson"
K = f"{{{KML_NS}}}"

# A small priority mapping (0 = transit ... 7 = restaurants); anything else -> 0.
PRIORITY = {
    "bus_station": 0,
    "cable_car_station": 0,
    "museum": 2,
    "attraction": 2,
    "park": 3,
    "gas_station": 4,
    "supermarket": 5,
    "cafe": 6,
    "restaurant": 7,
    "fast_food": 7,
}


# --------------------------------------------------------------------------- fixtures


def _peer_rows() -> list[dict[str, str]]:
    with PEER_CSV.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _stations_from_rows(rows: list[dict[str, str]]) -> gpd.GeoDataFrame:
    records = [
        {
            "id": f"{r['osm_type']}/{r['osm_id']}",
            "osm_type": r["osm_type"],
            "osm_id": int(r["osm_id"]),
            "name": r["name"],
            "category": r["category"],
            "priority": PRIORITY.get(r["category"], 0),
            "cluster_id": int(r["cluster_id"]),
            "wait_min": int(r["wait_min_minutes"]),
            "wait_max": int(r["wait_max_minutes"]),
            "density_tier": r["density_tier"],
            "nearby_count": int(r["nearby_poi_count"]),
            "open_during_play": r["open_during_play"],
            "opening_hours": r["opening_hours"] or "",
            "geometry": Point(float(r["longitude"]), float(r["latitude"])),
        }
        for r in rows
    ]
    return gpd.GeoDataFrame(records, geometry="geometry", crs="EPSG:4326")


@pytest.fixture(scope="module")
def peer_rows() -> list[dict[str, str]]:
    return _peer_rows()


@pytest.fixture(scope="module")
def stations(peer_rows) -> gpd.GeoDataFrame:
    return _stations_from_rows(peer_rows)


@pytest.fixture(scope="module")
def play_area() -> Polygon:
    data = json.loads(POLYGON.read_text(encoding="utf-8"))
    geometry = data["features"][0]["geometry"]
    assert geometry["type"] == "LineString"  # a closed ring stored as a LineString
    polygon = Polygon(geometry["coordinates"])
    assert polygon.is_valid and not polygon.is_empty
    return polygon


@pytest.fixture()
def collection(stations, play_area) -> dict:
    return stations_feature_collection(stations, play_area, metadata={"options": {"size": "M"}})


def _positions(coords):
    if coords and isinstance(coords[0], int | float):
        yield coords
    else:
        for item in coords:
            yield from _positions(item)


def _all_positions(fc: dict):
    for feature in fc["features"]:
        yield from _positions(feature["geometry"]["coordinates"])


def _decimals(value: float) -> int:
    return max(0, -Decimal(repr(value)).as_tuple().exponent)


def _station_features(fc: dict) -> list[dict]:
    return [f for f in fc["features"] if f["properties"]["role"] == "station"]


def _play_area_feature(fc: dict) -> dict:
    (feature,) = [f for f in fc["features"] if f["properties"]["role"] == "play_area"]
    return feature


# --------------------------------------------------------------------------- GeoJSON


def test_geojson_is_valid_rfc7946(collection, stations):
    assert validate_rfc7946(collection) == []
    assert "crs" not in collection
    assert all("crs" not in f and "crs" not in f["geometry"] for f in collection["features"])
    assert len(_station_features(collection)) == len(stations) > 0
    assert collection["metadata"]["attribution"] == "© OpenStreetMap contributors, ODbL 1.0"
    assert collection["metadata"]["options"] == {"size": "M"}


def test_geojson_coordinates_have_at_most_7_decimals(collection):
    parsed = json.loads(dumps_geojson(collection))
    positions = list(_all_positions(parsed))
    assert len(positions) > 186
    too_precise = [p for p in positions if any(_decimals(v) > COORD_DECIMALS for v in p)]
    assert too_precise == []


def test_geojson_play_area_is_counter_clockwise(collection, play_area):
    # The peer's ring is stored clockwise; the output must be counter-clockwise.
    assert not play_area.exterior.is_ccw
    ring = _play_area_feature(collection)["geometry"]["coordinates"][0]
    assert Polygon(ring).exterior.is_ccw
    assert Polygon(ring).equals_exact(orient(play_area, 1.0), tolerance=1e-7)


def test_geojson_station_properties_are_plain_python(collection, stations):
    expected = {
        "role", "id", "name", "category", "cluster_id", "wait_min", "wait_max",
        "density_tier", "nearby_count", "open_during_play", "opening_hours",
        "osm_type", "osm_id",
    }  # fmt: skip
    for feature in _station_features(collection):
        props = feature["properties"]
        assert set(props) == expected
        assert feature["id"] == props["id"]
        assert type(props["cluster_id"]) is int and type(props["osm_id"]) is int
        assert type(props["wait_min"]) is int and type(props["nearby_count"]) is int
    # Stable order: (cluster_id, id).
    keys = [(f["properties"]["cluster_id"], f["id"]) for f in _station_features(collection)]
    assert keys == sorted(keys)


def test_geojson_round_trips_through_geopandas(tmp_path, collection, stations):
    path = tmp_path / "stations.geojson"
    write_geojson(path, collection)
    back = gpd.read_file(path)
    back = back[back["role"] == "station"]
    assert len(back) == len(stations)
    got = {row.id: row for row in back.itertuples()}
    assert set(got) == set(stations["id"])
    for row in stations.itertuples():
        other = got[row.id]
        assert other.name == row.name
        assert other.category == row.category
        assert int(other.cluster_id) == row.cluster_id
        assert abs(other.geometry.x - row.geometry.x) <= 1e-7
        assert abs(other.geometry.y - row.geometry.y) <= 1e-7


def test_dumps_geojson_one_feature_per_line_and_trailing_newline(collection):
    text = dumps_geojson(collection)
    assert text.endswith("}\n")
    assert json.loads(text) == collection
    feature_lines = [line for line in text.splitlines() if line.startswith('{"type":"Feature"')]
    assert len(feature_lines) == len(collection["features"])
    assert "©" in text  # ensure_ascii=False


def test_geojson_exclusions_become_features(stations, play_area):
    centre = play_area.centroid
    exclusions = [centre.buffer(0.01), Polygon()]  # the empty one is skipped
    fc = stations_feature_collection(stations, play_area, exclusions)
    roles = [f["properties"]["role"] for f in fc["features"]]
    assert roles.count("exclusion") == 1
    assert roles.count("play_area") == 1
    assert validate_rfc7946(fc) == []


# --------------------------------------------------------------------------- validator


def _mutated(collection: dict, mutate) -> list[str]:
    assert validate_rfc7946(collection) == []
    broken = copy.deepcopy(collection)
    mutate(broken)
    return validate_rfc7946(broken)


def test_validator_catches_clockwise_exterior(collection):
    def mutate(fc):
        _play_area_feature(fc)["geometry"]["coordinates"][0].reverse()

    problems = _mutated(collection, mutate)
    assert any("exterior ring must be counter-clockwise" in p for p in problems), problems


def test_validator_catches_counter_clockwise_hole(stations, play_area):
    hole = orient(play_area.centroid.buffer(0.01), 1.0).exterior.coords
    fc = stations_feature_collection(stations, Polygon(play_area.exterior.coords, [hole]))

    def mutate(fc):
        _play_area_feature(fc)["geometry"]["coordinates"][1].reverse()

    problems = _mutated(fc, mutate)
    assert any("hole must be clockwise" in p for p in problems), problems


def test_validator_catches_unclosed_ring(collection):
    def mutate(fc):
        _play_area_feature(fc)["geometry"]["coordinates"][0].pop()

    problems = _mutated(collection, mutate)
    assert any("not closed" in p for p in problems), problems


def test_validator_catches_short_ring(collection):
    def mutate(fc):
        ring = _play_area_feature(fc)["geometry"]["coordinates"][0]
        del ring[2:-1]  # 3 positions, still closed

    problems = _mutated(collection, mutate)
    assert any("at least 4 positions" in p for p in problems), problems


def test_validator_catches_latitude_out_of_range(collection):
    def mutate(fc):
        _station_features(fc)[0]["geometry"]["coordinates"][1] = 91.0

    problems = _mutated(collection, mutate)
    assert any("latitude 91.0 is outside" in p for p in problems), problems


def test_validator_catches_longitude_out_of_range(collection):
    def mutate(fc):
        _station_features(fc)[0]["geometry"]["coordinates"][0] = -180.5

    problems = _mutated(collection, mutate)
    assert any("longitude -180.5 is outside" in p for p in problems), problems


def test_validator_catches_crs_member(collection):
    def mutate(fc):
        fc["crs"] = {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}}

    problems = _mutated(collection, mutate)
    assert any('"crs"' in p for p in problems), problems


def test_validator_catches_eight_decimals(collection):
    def mutate(fc):
        position = _station_features(fc)[0]["geometry"]["coordinates"]
        position[0] = float(f"{position[0]:.7f}3")  # e.g. -96.72009403

    problems = _mutated(collection, mutate)
    assert any("more than 7 decimals" in p for p in problems), problems


def test_validator_catches_missing_members(collection):
    def mutate(fc):
        first, second = _station_features(fc)[:2]
        del first["properties"]
        second["type"] = "Feture"
        fc["features"][-1]["geometry"]["type"] = "Pointy"

    problems = _mutated(collection, mutate)
    assert any('"properties" member' in p for p in problems), problems
    assert any("'Feture'" in p for p in problems), problems
    assert any("'Pointy'" in p for p in problems), problems
    assert len(problems) == 3


def test_validator_needs_features_list():
    assert validate_rfc7946({"type": "FeatureCollection"}) != []
    assert validate_rfc7946({"type": "FeatureCollection", "features": []}) == []


# --------------------------------------------------------------------------- orientation


def test_wrongly_oriented_polygon_with_hole_is_fixed(stations, play_area):
    exterior_cw = orient(play_area, -1.0).exterior.coords
    hole_ccw = orient(play_area.centroid.buffer(0.02), 1.0).exterior.coords
    polygon = Polygon(exterior_cw, [hole_ccw])
    assert not polygon.exterior.is_ccw and polygon.interiors[0].is_ccw  # really wrong

    fc = stations_feature_collection(stations, polygon)
    exterior, hole = _play_area_feature(fc)["geometry"]["coordinates"]
    assert Polygon(exterior).exterior.is_ccw
    assert not Polygon(hole).exterior.is_ccw
    assert Polygon(exterior, [hole]).equals_exact(orient(polygon, 1.0), tolerance=1e-7)
    assert validate_rfc7946(fc) == []

    # The KML writer uses the same orientation.
    root = ET.fromstring(stations_kml(stations, polygon))
    outer = root.find(f".//{K}outerBoundaryIs/{K}LinearRing/{K}coordinates").text
    inner = root.find(f".//{K}innerBoundaryIs/{K}LinearRing/{K}coordinates").text

    def ring(text):
        return [tuple(map(float, p.split(",")[:2])) for p in text.split()]

    assert Polygon(ring(outer)).exterior.is_ccw
    assert not Polygon(ring(inner)).exterior.is_ccw


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-179, 179), st.floats(-89, 89)), min_size=3, max_size=12, unique=True
    ),
    st.booleans(),
)
def test_polygon_rings_always_validate(points, clockwise):
    hull = MultiPoint(points).convex_hull
    assume(isinstance(hull, Polygon) and hull.area >= 1e-6)
    polygon = orient(hull, -1.0 if clockwise else 1.0)
    geometry = {"type": "Polygon", "coordinates": polygon_rings(polygon)}
    assert validate_rfc7946(geometry) == []


# --------------------------------------------------------------------------- determinism


def test_outputs_are_deterministic_and_row_order_independent(stations, play_area):
    shuffled = stations.sample(frac=1.0, random_state=7).reset_index(drop=True)
    assert list(shuffled["id"]) != list(stations["id"])

    def render(frame):
        fc = stations_feature_collection(frame, play_area, metadata={"options": {"a": 1}})
        return (
            dumps_geojson(fc).encode("utf-8"),
            stations_csv(frame).encode("utf-8"),
            stations_kml(frame, play_area).encode("utf-8"),
        )

    first = render(stations)
    assert render(stations) == first
    assert render(shuffled) == first


def test_written_files_are_byte_identical(tmp_path, stations, play_area):
    shuffled = stations.sample(frac=1.0, random_state=11).reset_index(drop=True)
    a, b = tmp_path / "a.geojson", tmp_path / "b.geojson"
    write_geojson(a, stations_feature_collection(stations, play_area))
    write_geojson(b, stations_feature_collection(shuffled, play_area))
    assert a.read_bytes() == b.read_bytes()
    assert b"\r" not in a.read_bytes()


# --------------------------------------------------------------------------- candidates


def test_candidates_feature_collection(stations, play_area):
    candidates = stations.copy()
    candidates["status"] = "kept"
    candidates["reason"] = ""
    candidates["conflict_with"] = ""
    rejected = candidates.iloc[:3].copy()
    rejected["id"] = ["node/1", "node/2", "node/3"]
    rejected["cluster_id"] = 0
    rejected["status"] = "rejected"
    rejected["reason"] = ["spacing", "gap", "excluded"]
    rejected["conflict_with"] = list(candidates["id"].iloc[:3])
    rejected = rejected.drop(columns=["wait_min", "wait_max"])
    both = gpd.GeoDataFrame(
        [*rejected.to_dict("records"), *candidates.to_dict("records")],
        geometry="geometry",
        crs="EPSG:4326",
    )
    fc = candidates_feature_collection(both)
    assert validate_rfc7946(fc) == []
    props = [f["properties"] for f in fc["features"]]
    assert len(props) == len(stations) + 3
    assert [p["status"] for p in props[-3:]] == ["rejected"] * 3
    assert all(p["status"] == "kept" for p in props[:-3])
    assert [p["reason"] for p in props[-3:]] == ["spacing", "gap", "excluded"]
    assert props[-1]["wait_min"] is None  # missing (NaN) -> null, not NaN
    assert "NaN" not in dumps_geojson(fc)


# --------------------------------------------------------------------------- CSV


def test_csv_header_matches_peer_exactly(stations):
    peer_header = PEER_CSV.read_text(encoding="utf-8").splitlines()[0]
    text = stations_csv(stations)
    assert text.split("\n", 1)[0] == peer_header
    assert tuple(peer_header.split(",")) == PEER_COLUMNS
    assert "\r" not in text and text.endswith("\n")


def test_csv_reproduces_peer_rows(stations, peer_rows):
    rows = list(csv.DictReader(io.StringIO(stations_csv(stations), newline="")))

    def key(row):
        return tuple(row[c] for c in PEER_COLUMNS)

    assert sorted(map(key, rows)) == sorted(map(key, peer_rows))
    order = [(int(r["cluster_id"]), f"{r['osm_type']}/{r['osm_id']}") for r in rows]
    assert order == sorted(order)


def test_csv_round_trip_with_awkward_names(tmp_path, peer_rows):
    rows = copy.deepcopy(peer_rows)
    awkward = [
        'Café "Zürich", Bar & Grill',
        "Łódź — 東京 🚏",
        "Line one\nline two",
        "",
    ]
    for row, name in zip(rows, awkward, strict=False):
        row["name"] = name
    frame = _stations_from_rows(rows)
    path = tmp_path / "out" / "stations.csv"
    write_stations_csv(path, frame)
    with path.open(newline="", encoding="utf-8") as handle:
        back = list(csv.DictReader(handle))
    assert len(back) == len(frame)
    got = {f"{r['osm_type']}/{r['osm_id']}": r for r in back}
    for row in frame.itertuples():
        other = got[row.id]
        assert other["name"] == row.name
        assert int(other["wait_min_minutes"]) == row.wait_min
        assert int(other["wait_max_minutes"]) == row.wait_max
        assert float(other["latitude"]) == pytest.approx(row.geometry.y, abs=5e-7)
    assert {r["name"] for r in back} >= set(awkward)
    assert not path.read_bytes().startswith(b"\xef\xbb\xbf")  # no BOM


# --------------------------------------------------------------------------- KML


@pytest.fixture(scope="module")
def kml_root(stations, play_area) -> ET.Element:
    return ET.fromstring(stations_kml(stations, play_area, name="Sioux Falls").encode("utf-8"))


def test_kml_namespace_and_declaration(stations, play_area, kml_root):
    text = stations_kml(stations, play_area)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert kml_root.tag == f"{K}kml"
    assert kml_root.find(f"{K}Document/{K}name").text == "Sioux Falls"


def test_kml_placemarks_and_folders(stations, kml_root):
    placemarks = kml_root.findall(f".//{K}Placemark")
    assert len(placemarks) == len(stations) + 1  # stations + the play area
    folders = {f.findtext(f"{K}name"): f for f in kml_root.iter(f"{K}Folder")}
    cluster_folders = {n for n in folders if n.startswith("Cluster ")}
    assert cluster_folders == {f"Cluster {c}" for c in stations["cluster_id"].unique()}
    play = folders["Play area"].findall(f"{K}Placemark")
    assert len(play) == 1 and play[0].find(f".//{K}outerBoundaryIs") is not None
    for name, folder in folders.items():
        if name.startswith("Cluster "):
            cluster = name.removeprefix("Cluster ")
            values = folder.findall(f".//{K}Data[@name='cluster_id']/{K}value")
            assert values and {v.text for v in values} == {cluster}


def test_kml_station_styles_coordinates_and_descriptions(stations, kml_root):
    style_ids = {s.get("id") for s in kml_root.iter(f"{K}Style")}
    by_id = {row.id: row for row in stations.itertuples()}
    seen = set()
    for placemark in kml_root.iter(f"{K}Placemark"):
        point = placemark.find(f"{K}Point/{K}coordinates")
        if point is None:
            continue
        data = {d.get("name"): d.findtext(f"{K}value") for d in placemark.iter(f"{K}Data")}
        row = by_id[data["id"]]
        seen.add(row.id)
        style_url = placemark.findtext(f"{K}styleUrl")
        assert style_url == f"#cat-{row.category}"
        assert style_url[1:] in style_ids
        lon, lat = map(float, point.text.split(","))
        assert abs(lon - row.geometry.x) <= 1e-7 and abs(lat - row.geometry.y) <= 1e-7
        description = placemark.findtext(f"{K}description")
        assert f"{row.wait_min}–{row.wait_max} min" in description
        assert f"https://www.openstreetmap.org/{row.id}" in description
        name = placemark.findtext(f"{K}name")
        assert name == row.name if row.name else name.startswith("Unnamed ")
    assert seen == set(by_id)


def test_kml_escapes_awkward_names(tmp_path, peer_rows, play_area):
    rows = copy.deepcopy(peer_rows[:5])
    rows[0]["name"] = 'Fish & Chips <Deluxe> "quoted" \x01'
    rows[1]["name"] = "Łódź 東京"
    path = tmp_path / "map.kml"
    write_kml(path, stations_kml(_stations_from_rows(rows), play_area))
    root = ET.parse(path).getroot()
    names = {p.findtext(f"{K}name") for p in root.iter(f"{K}Placemark")}
    assert 'Fish & Chips <Deluxe> "quoted" ' in names  # control char dropped
    assert "Łódź 東京" in names


# --------------------------------------------------------------------------- atomic writes


def _boom(*args, **kwargs):
    raise OSError("simulated failure")


def test_atomic_write_creates_parents_and_writes_exact_bytes(tmp_path):
    path = tmp_path / "a" / "b" / "out.txt"
    atomic_write_text(path, "line 1\nline 2 ✓\n")
    assert path.read_bytes() == "line 1\nline 2 ✓\n".encode()
    assert os.listdir(path.parent) == ["out.txt"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_atomic_write_new_file_respects_umask(tmp_path):
    path = tmp_path / "out.bin"
    atomic_write_bytes(path, b"x")
    mask = os.umask(0o022)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask


def test_failed_replace_keeps_previous_content(tmp_path, monkeypatch, stations, play_area):
    path = tmp_path / "stations.geojson"
    path.write_text("previous", encoding="utf-8")
    monkeypatch.setattr(atomic.os, "replace", _boom)
    with pytest.raises(OSError, match="simulated"):
        write_geojson(path, stations_feature_collection(stations, play_area))
    assert path.read_text(encoding="utf-8") == "previous"
    assert os.listdir(tmp_path) == ["stations.geojson"]


def test_failed_replace_leaves_no_file(tmp_path, monkeypatch, stations):
    path = tmp_path / "stations.csv"
    monkeypatch.setattr(atomic.os, "replace", _boom)
    with pytest.raises(OSError):
        write_stations_csv(path, stations)
    assert not path.exists()
    assert os.listdir(tmp_path) == []


def test_failed_fsync_removes_temp_file(tmp_path, monkeypatch, stations, play_area):
    path = tmp_path / "map.kml"
    path.write_bytes(b"old")
    monkeypatch.setattr(atomic.os, "fsync", _boom)
    with pytest.raises(OSError):
        write_kml(path, stations_kml(stations, play_area))
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["map.kml"]


def test_unserialisable_data_leaves_target_untouched(tmp_path, collection):
    path = tmp_path / "stations.geojson"
    write_geojson(path, collection)
    before = path.read_bytes()
    broken = copy.deepcopy(collection)
    broken["features"][-1]["properties"]["bad"] = object()
    with pytest.raises(TypeError):
        write_geojson(path, broken)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["stations.geojson"]


def test_atomic_write_rejects_wrong_types(tmp_path):
    with pytest.raises(TypeError):
        atomic_write_bytes(tmp_path / "x", "not bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        atomic_write_text(tmp_path / "x", b"not text")  # type: ignore[arg-type]
    assert os.listdir(tmp_path) == []
