"""``report`` on the questions read from geometry: coastline, water, admin areas, landmass,
marked paths, sea level; on the real bundled extracts and DEM.

Liechtenstein is landlocked (its coastline question is not usable); Monaco's extract
holds the coast, and the Monaco SRTM3 tile its heights (the sea at 0 m, the hills above);
Krems lies on the Danube.
"""

from __future__ import annotations

import json
import re

import click
import pytest
import shapely
from click.testing import CliRunner
from support.cli_runs import one_command
from support.paths import KREMS, LIECHTENSTEIN, MONACO, REPO, SIOUX

from stations_generator.commands.report import report
from stations_generator.core.questions.availability import (
    LAYER_LABELS,
    NEEDS_DEM,
    NEEDS_EXTRACT,
    VERDICT_TEXT,
)
from stations_generator.formats.playarea import load_polygons
from stations_generator.osm import layers

LIECHTENSTEIN_ZONE = REPO / "zones" / "liechtenstein.geojson"
MONACO_DEM = REPO / "tests" / "data" / "dem" / "monaco-srtm3.tif"
# The Principality and its harbour, in the Monaco extract and the DEM.
MONACO_BOX = (7.405, 43.725, 7.44, 43.75)
# The Krems extract's extent (tests/data/osm-extracts/README.md).
KREMS_BOX = (15.55, 48.37, 15.86, 48.45)


def cli() -> click.Group:
    return one_command(report)


def run(*args):
    return CliRunner().invoke(cli(), ["report", *[str(a) for a in args]])


def box_area(folder, name, box):
    path = folder / f"{name}.geojson"
    path.write_text(json.dumps(shapely.geometry.mapping(shapely.box(*box))))
    return path


def layer(document: dict, subject: str) -> dict:
    (found,) = [s for s in document["layer_subjects"] if s["subject"] == subject]
    return found


def question(row: dict, kind: str) -> dict:
    (found,) = [q for q in row["questions"] if q["question"] == kind]
    return found


@pytest.fixture(scope="module")
def liechtenstein(tmp_path_factory):
    out = tmp_path_factory.mktemp("li-layers")
    result = run(
        LIECHTENSTEIN_ZONE,
        "--osm",
        LIECHTENSTEIN,
        "-o",
        out / "report.json",
        "--html",
        out / "report.html",
    )
    assert result.exit_code == 0, result.output
    return json.loads((out / "report.json").read_text()), result, out


@pytest.fixture(scope="module")
def monaco(tmp_path_factory):
    out = tmp_path_factory.mktemp("mc-layers")
    area = box_area(out, "monaco", MONACO_BOX)
    result = run(area, "--osm", MONACO, "--dem", MONACO_DEM, "-o", out / "report.json")
    assert result.exit_code == 0, result.output
    return json.loads((out / "report.json").read_text()), result


def test_a_landlocked_country_has_no_coastline_question(liechtenstein):
    inland = question(layer(liechtenstein[0], "coastline"), "measuring")
    assert inland["verdict"] == "none" and inland["count"] == 0
    assert "no coastline" in inland["note"]


def test_the_coast_of_monaco_makes_the_coastline_question_usable(monaco):
    coast = question(layer(monaco[0], "coastline"), "measuring")
    assert coast["verdict"] == "usable"
    # The extract is ~12 km across: every coastline way in it lies within the 50 km margin.
    assert coast["count"] == len({key for key, _, _ in layers.lines(MONACO, "coastline")}) > 0


def test_admin_levels_are_those_of_the_extracts_admin_areas(liechtenstein):
    document, _, _ = liechtenstein
    area = load_polygons(LIECHTENSTEIN_ZONE, print)
    admin = layers.areas(LIECHTENSTEIN, "admin", area.bounds)
    levels = sorted({int(tags["admin_level"]) for _, tags, _ in admin})
    rows = [s for s in document["layer_subjects"] if s["subject"].startswith("admin_level_")]
    assert [int(s["subject"].rsplit("_", 1)[1]) for s in rows] == levels
    assert levels  # the country, its districts and municipalities
    for row in rows:
        level = row["subject"].rsplit("_", 1)[1]
        # zones of the level that reach into the area (not only its box)
        inside = [g for _, tags, g in admin if tags["admin_level"] == level and g.intersects(area)]
        assert row["inside"] == len(inside)
        matching = question(row, "matching")["verdict"]
        assert matching == ("usable" if len(inside) >= 2 else "only_one")
    # the 11 municipalities split the area; the country alone does not
    assert question(layer(document, "admin_level_8"), "matching")["verdict"] == "usable"
    assert question(layer(document, "admin_level_2"), "matching")["verdict"] == "only_one"


def test_paths_water_and_land_of_a_landlocked_country(liechtenstein):
    document, _, _ = liechtenstein
    paths = layer(document, "marked_path")
    assert question(paths, "matching")["verdict"] == "usable" and paths["inside"] >= 2
    water = question(layer(document, "body_of_water"), "measuring")
    assert water["verdict"] == "usable" and water["count"] >= 1
    # between the Rhine and the Alps, one piece of land
    assert question(layer(document, "landmass"), "matching")["verdict"] == "only_one"


def test_sea_level_needs_a_dem_and_is_judged_with_one(liechtenstein, monaco):
    assert liechtenstein[0]["not_assessed"] == {"sea_level": NEEDS_DEM}
    assert question(layer(liechtenstein[0], "sea_level"), "measuring")["verdict"] == (
        "not_assessed"
    )
    sea = question(layer(monaco[0], "sea_level"), "measuring")
    # the area holds the sea (0 m) and the hills above Monaco
    assert sea["verdict"] == "usable"
    low, high = (float(v) for v in re.match(r"([\d.]+)–([\d.]+) m", sea["note"]).groups())
    assert low == 0.0 and high > 100.0
    assert monaco[0]["not_assessed"] == {}


def test_table_and_json_agree(liechtenstein):
    document, result, _ = liechtenstein
    lines = result.stderr.splitlines()
    assert document["layer_subjects"]
    for row in document["layer_subjects"]:
        (line,) = [x for x in lines if x.startswith(row["label"] + "  ")]
        cells = re.split(r"\s{2,}", line)
        inside = "-" if row["inside"] is None else str(row["inside"])
        assert cells[1] == inside, line
        for k, kind in enumerate(("matching", "measuring", "tentacles")):
            found = [q for q in row["questions"] if q["question"] == kind]
            assert cells[5 + k] == (VERDICT_TEXT[found[0]["verdict"]] if found else "-"), line
            if found and found[0]["verdict"] not in ("usable", "not_assessed"):
                # a question that is not usable says why, as in the JSON
                assert f"{row['label']}, {kind}: " in result.stderr
                assert found[0]["note"] in result.stderr


def test_html_page_shows_the_layer_rows(liechtenstein):
    document, _, out = liechtenstein
    html = (out / "report.html").read_text()
    for row in document["layer_subjects"]:
        assert f'data-subject="{row["subject"]}"' in html
    assert "not assessed" in html and "--dem FILE" in html


def test_overpass_json_is_not_assessed(tmp_path):
    result = run(
        REPO / "zones" / "sioux-falls.geojson",
        "--osm",
        SIOUX / "pois.json",
        "-o",
        tmp_path / "r.json",
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "r.json").read_text())
    rows = {s["subject"]: s for s in document["layer_subjects"]}
    assert set(rows) == set(LAYER_LABELS)
    for subject, row in rows.items():
        kinds = [q["question"] for q in row["questions"]]
        assert kinds == (["matching", "measuring"] if subject == "admin_border" else kinds[:1])
        for q in row["questions"]:
            assert q["verdict"] == "not_assessed"
            assert q["note"] == (NEEDS_DEM if subject == "sea_level" else NEEDS_EXTRACT)
    assert document["not_assessed"] == {s: r["questions"][0]["note"] for s, r in rows.items()}
    assert f"marked path — {NEEDS_EXTRACT}; sea level — {NEEDS_DEM}" in result.stderr
    assert document["subjects"]  # the point subjects are counted as before


def test_the_danube_splits_the_land_and_margin_zero_reads_only_the_area(tmp_path):
    # Krems on the Danube: the river (water areas and its line) cuts the land in pieces.
    # With --margin 0 a line or area counts only where it touches the area.
    area = box_area(tmp_path, "krems", KREMS_BOX)
    outs = []
    for k in range(2):
        result = run(area, "--osm", KREMS, "--margin", "0", "-o", tmp_path / f"r{k}.json")
        assert result.exit_code == 0, result.output
        outs.append((tmp_path / f"r{k}.json").read_bytes())
    assert outs[0] == outs[1]  # same input, same bytes
    document = json.loads(outs[0])
    land = layer(document, "landmass")
    assert question(land, "matching")["verdict"] == "usable" and land["inside"] >= 2
    for subject in ("coastline", "body_of_water"):
        row = layer(document, subject)
        assert question(row, "measuring")["count"] == row["inside"]  # within 0 m = inside
    assert question(layer(document, "body_of_water"), "measuring")["verdict"] == "usable"


def test_a_dem_not_covering_the_area_is_a_one_line_error(tmp_path):
    out = tmp_path / "report.json"
    result = run(LIECHTENSTEIN_ZONE, "--osm", LIECHTENSTEIN, "--dem", MONACO_DEM, "-o", out)
    assert result.exit_code != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "monaco-srtm3.tif" in errors[0]
    assert "Traceback" not in result.output
    assert not out.exists()  # nothing half-written


def test_marked_paths_of_a_large_extract_wait_for_the_option(tmp_path, monkeypatch):
    """Every street and path of a large extract takes minutes to read: past
    MARKED_PATHS_UP_TO_MB the row says so and names the option, which judges it."""
    from stations_generator.app import availability_report

    size_mb = LIECHTENSTEIN.stat().st_size / 1e6
    monkeypatch.setattr(availability_report, "MARKED_PATHS_UP_TO_MB", size_mb / 2)
    verdicts = {}
    for extra in ((), ("--marked-paths",), ("--no-marked-paths",)):
        out = tmp_path / f"report{len(verdicts)}.json"
        result = run(LIECHTENSTEIN_ZONE, "--osm", LIECHTENSTEIN, *extra, "-o", out)
        assert result.exit_code == 0, result.output
        verdicts[extra] = question(layer(json.loads(out.read_text()), "marked_path"), "matching")
    large = verdicts[()]
    assert large["verdict"] == "not_assessed" and "--marked-paths" in large["note"]
    assert f"{size_mb:.0f} MB" in large["note"]
    assert verdicts[("--marked-paths",)]["verdict"] == "usable"
    assert verdicts[("--no-marked-paths",)]["verdict"] == "not_assessed"
