"""The question-availability report, on the real Sioux Falls and Helsinki data."""

from __future__ import annotations

import json
from pathlib import Path

import click
import geopandas as gpd
import osmium
import pytest
import shapely
from click.testing import CliRunner
from shapely.geometry import Point
from support.cli_runs import one_command
from support.paths import EXTRACTS, REPO, SIOUX

from stations_generator import load_catalogue, load_polygons
from stations_generator.commands.report import report
from stations_generator.core.questions.availability import (
    NEEDS_DEM,
    build_report,
    format_table,
    report_catalogue,
    report_subjects,
    subject_places,
)
from stations_generator.osm import layers
from stations_generator.osm.sources import read_files

ZONE = REPO / "zones" / "sioux-falls.geojson"
POIS = SIOUX / "pois.json"
HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"
# The Helsinki extract's extent (tests/data/osm-extracts/README.md), as a play area.
HELSINKI_BOX = (24.935, 60.164, 24.953, 60.179)


def cli() -> click.Group:
    return one_command(report)


def run(*args):
    return CliRunner().invoke(cli(), ["report", *[str(a) for a in args]])


def row(document: dict, subject: str) -> dict:
    (found,) = [s for s in document["subjects"] if s["subject"] == subject]
    return found


def verdict(document: dict, subject: str, question: str) -> str:
    (found,) = [q for q in row(document, subject)["questions"] if q["question"] == question]
    return found["verdict"]


@pytest.fixture(scope="module")
def sioux(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    result = run(ZONE, "--osm", POIS, "-o", out / "report.json", "--html", out / "report.html")
    assert result.exit_code == 0, result.output
    return json.loads((out / "report.json").read_text()), result, out


@pytest.fixture(scope="module")
def helsinki(tmp_path_factory):
    out = tmp_path_factory.mktemp("helsinki")
    area = out / "helsinki.geojson"
    area.write_text(json.dumps(shapely.geometry.mapping(shapely.box(*HELSINKI_BOX))))
    result = run(area, "--osm", HELSINKI, "-o", out / "report.json")
    assert result.exit_code == 0, result.output
    return json.loads((out / "report.json").read_text())


# --------------------------------------------------------------------------- Sioux Falls


def test_train_line_questions_are_none_on_sioux_falls(sioux):
    document, _, _ = sioux
    assert row(document, "transit_line")["inside"] == 0
    assert verdict(document, "transit_line", "tentacles") == "none"
    assert verdict(document, "transit_line", "matching") == "none"
    assert verdict(document, "high_speed_rail", "measuring") == "none"
    assert verdict(document, "train_station", "measuring") == "none"
    assert row(document, "train_station")["within_m"]["50000"] == 0


def _independent_points(subject_filter) -> list[Point]:
    """Objects of pois.json that pass a catalogue tag filter, read without the project."""
    seen: set[tuple[str, int]] = set()
    points = []
    for element in json.loads(POIS.read_text()):
        key = (element["type"], element["id"])
        if key in seen or not subject_filter(element.get("tags", {})):
            continue
        seen.add(key)
        where = element if "lat" in element else element["center"]
        points.append(Point(where["lon"], where["lat"]))
    return points


@pytest.mark.parametrize("subject", ["museum", "park"])
def test_counts_match_an_independent_count(sioux, catalogue, subject):
    document, _, _ = sioux
    points = _independent_points(catalogue[subject].matches)
    area = load_polygons(ZONE)
    utm = gpd.GeoSeries([area], crs=4326).estimate_utm_crs()
    area_m = gpd.GeoSeries([area], crs=4326).to_crs(utm).iloc[0]
    distance = gpd.GeoSeries(points, crs=4326).to_crs(utm).distance(area_m)
    got = row(document, subject)
    assert got["inside"] == sum(area.covers(p) for p in points) > 0
    assert got["within_m"]["50000"] == int((distance <= 50_000).sum()) == len(points)
    if "2000" in got["within_m"]:
        assert got["within_m"]["2000"] == int((distance <= 2_000).sum())


def test_museums_support_every_question(sioux):
    document, _, _ = sioux
    museum = row(document, "museum")
    assert museum["inside"] == 8
    for question in ("matching", "measuring", "tentacles"):
        assert verdict(document, "museum", question) == "usable"
    assert museum["nearest_in_area"] >= 2


def test_subjects_missing_from_the_data_are_none_with_a_note(sioux):
    document, _, _ = sioux
    assert verdict(document, "zoo", "tentacles") == "none"
    assert verdict(document, "zoo", "matching") == "none"
    notes = " ".join(document["notes"])
    assert "stops at the play area's bounding box" in notes
    assert "question-only categories" in notes


def test_every_catalogue_subject_is_reported(sioux):
    document, _, _ = sioux
    subjects = [s["subject"] for s in document["subjects"]]
    assert set(load_catalogue().subjects) <= set(subjects)
    assert {"transit_line", "high_speed_rail"} <= set(subjects)
    for entry in document["subjects"]:
        assert entry["questions"], entry["subject"]
        for q in entry["questions"]:
            assert q["verdict"] in ("usable", "only_one", "none", "unknown")
            assert q["count"] == entry["within_m"][f"{q['reach_m']:g}"]


def test_table_goes_to_stderr(sioux):
    _, result, _ = sioux
    lines = [line for line in result.stderr.splitlines() if not line.startswith("warning:")]
    assert lines[0].split()[:2] == ["subject", "inside"]
    (train,) = [line for line in lines if line.startswith("Train station")]
    assert train.split()[-2:] == ["none", "-"]
    assert result.stdout == ""  # JSON went to the file


def test_json_goes_to_stdout_without_output_file():
    result = run(ZONE, "--osm", POIS)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["play_area"] == "sioux-falls.geojson"
    assert document["sources"] == ["pois.json"]
    assert verdict(document, "museum", "tentacles") == "usable"


def test_html_page_is_offline_and_lists_every_subject(sioux):
    document, _, out = sioux
    html = (out / "report.html").read_text()
    for entry in document["subjects"]:
        assert f'data-subject="{entry["subject"]}"' in html
    assert "<script src" not in html and "<link" not in html
    assert "Leaflet 1.9.3" in html
    assert '"Museum (8)"' in html  # the museum layer, one marker per museum within reach


def test_report_is_deterministic(sioux, tmp_path):
    document, _, out = sioux
    again = run(ZONE, "--osm", POIS, "-o", tmp_path / "r.json", "--html", tmp_path / "r.html")
    assert again.exit_code == 0
    assert json.loads((tmp_path / "r.json").read_text()) == document
    assert (tmp_path / "r.html").read_bytes() == (out / "report.html").read_bytes()


# --------------------------------------------------------------------------- Helsinki


def _osmium_count(path: Path, key: str, value: str) -> int:
    count = 0
    for obj in osmium.FileProcessor(str(path)):
        if obj.tags.get(key) == value:
            count += 1
    return count


def test_helsinki_libraries_are_usable(helsinki):
    libraries = row(helsinki, "library")
    assert libraries["inside"] >= 2
    assert libraries["within_m"]["50000"] == _osmium_count(HELSINKI, "amenity", "library")
    assert libraries["nearest_in_area"] >= 2
    for question in ("matching", "measuring", "tentacles"):
        assert verdict(helsinki, "library", question) == "usable"


def test_helsinki_has_rail_and_a_single_consulate(helsinki):
    assert verdict(helsinki, "train_station", "measuring") == "usable"
    assert verdict(helsinki, "transit_line", "tentacles") == "usable"
    assert row(helsinki, "transit_line")["inside"] >= 2
    consulate = row(helsinki, "consulate")
    assert consulate["within_m"]["50000"] == 1
    assert verdict(helsinki, "consulate", "matching") == "only_one"
    assert verdict(helsinki, "consulate", "measuring") == "usable"


def test_helsinki_coast_and_streets_from_the_extract(helsinki):
    # The extract's own layers (osm/layers.py) hold the Gulf of Finland's coastline.
    coast = [r for r in helsinki["layer_subjects"] if r["subject"] == "coastline"]
    (measuring,) = coast[0]["questions"]
    assert measuring["verdict"] == "usable"
    assert measuring["count"] == len({k for k, _, _ in layers.lines(HELSINKI, "coastline")}) > 0
    paths = [r for r in helsinki["layer_subjects"] if r["subject"] == "marked_path"][0]
    assert paths["questions"][0]["verdict"] == "usable" and paths["inside"] >= 2
    # the keys written before the geometry subjects are all still there
    assert {"area_km2", "margin_m", "verdicts", "subjects", "not_assessed", "notes"} <= set(
        helsinki
    )
    assert helsinki["not_assessed"] == {"sea_level": NEEDS_DEM}


# --------------------------------------------------------------------------- core, errors


def test_margin_zero_counts_only_the_inside(catalogue, sioux_area):
    full = report_catalogue(catalogue)
    data = read_files([POIS], [], sioux_area, full, water=False)
    places = subject_places(data.elements, full)
    result = build_report(sioux_area, places, report_subjects(full), margin_m=0.0)
    park = result.subject("park")
    assert set(park.within) == {0.0}
    (matching,) = [q for q in park.questions if q.question == "matching"]
    assert matching.count == park.inside
    table = format_table(result).splitlines()
    assert len(table) == 1 + len(result.subjects) + 1 + len(result.notes)


def test_route_variants_count_as_one_line(catalogue):
    full = report_catalogue(catalogue)
    data = read_files([HELSINKI], [], shapely.box(*HELSINKI_BOX), full, water=False)
    relations = [e for e in data.elements if full["transit_line"].matches(e.tags)]
    lines = subject_places(data.elements, full)
    lines = lines[lines["subject"] == "transit_line"]
    groups: dict[tuple, set[str]] = {}
    for e in relations:
        if e.tags.get("ref"):
            key = (e.tags.get("route"), e.tags.get("network", ""), e.tags["ref"])
            groups.setdefault(key, set()).add(e.key)
    assert any(len(ids) > 1 for ids in groups.values())  # e.g. both directions of tram 6
    kept = set(lines["id"])
    for ids in groups.values():
        assert len(ids & kept) == 1
        assert min(ids, key=lambda k: int(k.split("/")[1])) in kept
    assert len(lines) < len(relations)


def test_missing_osm_is_a_one_line_error():
    result = run(ZONE)
    assert result.exit_code == 2
    assert (
        result.stderr
        == "error: report works offline: give the OSM data with --osm FILE (repeatable)\n"
    )


def test_missing_osm_file_is_a_one_line_error(tmp_path):
    result = run(ZONE, "--osm", tmp_path / "nope.json")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "'nope.json' does not exist" in errors[0]


def test_distinct_nearest_places_match_a_brute_force():
    # Every Sioux Falls POI of the fixture as a "place", the report's sample grid over
    # the play area: the STRtree's nearest place of each sample against a full argmin.
    import numpy as np

    from stations_generator.core.geo.geodesy import LocalFrame
    from stations_generator.core.questions.availability import _area_samples, _distinct_nearest

    area = load_polygons(REPO / "zones" / "sioux-falls.geojson")
    frame = LocalFrame.for_bounds(area.bounds)
    area_m = shapely.transform(area, lambda xy: np.column_stack(frame.project(xy[:, 0], xy[:, 1])))
    samples = _area_samples(area_m)
    raw = json.loads((SIOUX / "pois.json").read_text())
    lon = np.array([(e.get("center") or e)["lon"] for e in raw])
    lat = np.array([(e.get("center") or e)["lat"] for e in raw])
    x, y = frame.project(lon, lat)
    for k in (2, 10, 60, len(x)):
        d = np.hypot(samples[:, :1] - x[None, :k], samples[:, 1:] - y[None, :k])
        brute = len(np.unique(d.argmin(axis=1)))
        assert _distinct_nearest(x[:k], y[:k], samples) == brute
        assert 1 <= brute <= k
    # Two places at one spot: a sample takes the first, so they count once.
    twin = _distinct_nearest(np.r_[x[:1], x[:1]], np.r_[y[:1], y[:1]], samples)
    assert twin == 1
