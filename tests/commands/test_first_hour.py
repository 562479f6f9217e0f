"""A new user's first hour, through the command line (issue 13): data coverage, the
first run's warnings, results far below the game size, stale files, summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.paths import REPO
from support.quickstart import readme_summary, summary

from stations_generator.app.generate import FAR_BELOW_SHARE
from stations_generator.cli import main
from stations_generator.core.gamesize import STATION_BANDS

LIECHTENSTEIN = REPO / "zones" / "liechtenstein.geojson"
EXTRACT = REPO / "tests" / "data" / "osm-extracts" / "liechtenstein-2013-08.osm.pbf"
SIOUX = REPO / "zones" / "sioux-falls.geojson"
POIS = REPO / "examples" / "sioux-falls" / "pois.json"
WATER = REPO / "examples" / "sioux-falls" / "water.json"


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def moved(tmp_path: Path, name: str, how) -> Path:
    """Liechtenstein's real outline with every position changed by ``how(lon, lat)``."""
    data = json.loads(LIECHTENSTEIN.read_text("utf-8"))
    geometry = data["features"][0]["geometry"]
    geometry["coordinates"] = [
        [list(how(x, y)) for x, y in ring] for ring in geometry["coordinates"]
    ]
    path = tmp_path / name
    path.write_text(json.dumps(data), "utf-8")
    return path


def test_swapped_coordinates_inside_the_valid_range(tmp_path):
    area = moved(tmp_path, "vaduz.geojson", lambda x, y: (y, x))  # [47.1, 9.5]: valid, wrong
    result = run("generate", area, "--osm", EXTRACT, "-o", tmp_path / "out")
    assert result.exit_code == 3
    assert result.stderr == (
        "error: the play area (lon 47.05–47.27, lat 9.47–9.64) lies outside the extract "
        "(lon 9.47–9.64, lat 47.05–47.27) — are latitude and longitude swapped?\n"
    )
    assert not (tmp_path / "out").exists()


def test_area_outside_the_extract(tmp_path):
    area = moved(tmp_path, "elsewhere.geojson", lambda x, y: (x + 5, y))
    result = run("generate", area, "--osm", EXTRACT, "-o", tmp_path / "out")
    assert result.exit_code == 3
    assert (
        "lies outside the extract (lon 9.47–9.64, lat 47.05–47.27); give OSM data" in result.stderr
    )
    assert "swapped" not in result.stderr
    # Overpass JSON states no coverage: its objects' extent stands in.
    result = run("generate", area, "--osm", POIS, "-o", tmp_path / "out")
    assert result.exit_code == 3
    assert "lies outside the OSM data (lon -96.81–-96.56, lat 43.47–43.61)" in result.stderr
    # report: the same check
    result = run("report", area, "--osm", EXTRACT)
    assert result.exit_code == 3 and "lies outside the extract" in result.stderr


def test_area_partly_outside_the_extract_warns_with_the_share(tmp_path):
    area = moved(tmp_path, "east.geojson", lambda x, y: (x + 0.1, y))
    result = run("generate", area, "--osm", EXTRACT, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert (
        "warning: 65% of the play area (103.8 km² of 160.5 km²) lies outside the extract "
        "(lon 9.47–9.64, lat 47.05–47.27); no station can be found there"
    ) in result.stderr
    # The bundled area, inside its extract, warns about nothing.
    clean = run("generate", LIECHTENSTEIN, "--osm", EXTRACT, "-o", tmp_path / "clean")
    assert clean.exit_code == 0 and "warning" not in clean.stderr


def test_quick_start_first_run_is_clean(tmp_path):
    result = run("generate", SIOUX, "--osm", POIS, "--water", WATER, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    # The summary comes first, and is the one the README shows for this run.
    assert result.stderr.splitlines()[0] == readme_summary().line
    for zone in sorted((REPO / "zones").glob("*.geojson")):
        for feature in json.loads(zone.read_text("utf-8"))["features"]:
            assert feature["geometry"]["type"] in ("Polygon", "MultiPolygon"), zone.name


def _ring(tmp_path: Path, name: str, geometry: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"type": "Feature", "properties": {}, "geometry": geometry}))
    return path


def test_unclosed_polygon_ring_warns_as_a_closed_linestring_does(tmp_path):
    ring = json.loads(SIOUX.read_text("utf-8"))["features"][0]["geometry"]["coordinates"][0]
    # A ring a drawing tool failed to close: it stops on its closing edge, short of the start.
    (ax, ay), (bx, by) = ring[-2], ring[0]
    almost = [*ring[:-1], [ax + 0.999 * (bx - ax), ay + 0.999 * (by - ay)]]
    cases = {
        "line.geojson": {"type": "LineString", "coordinates": ring},
        "open-polygon.geojson": {"type": "Polygon", "coordinates": [almost]},
        "open-line.geojson": {"type": "LineString", "coordinates": almost},
    }
    stderr = {}
    for name, geometry in cases.items():
        result = run("report", _ring(tmp_path, name, geometry), "--osm", POIS)
        assert result.exit_code == 0, result.output
        stderr[name] = [line for line in result.stderr.splitlines() if line.startswith("warning")]
    assert stderr["line.geojson"] == [
        "warning: 'line.geojson': read a closed LineString as the polygon it encloses"
    ]
    (polygon_warning,) = stderr["open-polygon.geojson"]
    assert polygon_warning.startswith(
        "warning: 'open-polygon.geojson': polygon 1, outer ring was not closed: its ends were 18 m apart"
    )
    (line_warning,) = stderr["open-line.geojson"]
    assert "LineString 1 was not closed: its ends were 18 m apart" in line_warning
    assert line_warning.endswith("and read it as the polygon it encloses")


def test_far_below_the_game_size_band_says_what_would_help(tmp_path):
    result = run("generate", LIECHTENSTEIN, "--osm", EXTRACT, "--category", "museum",
                 "--no-transit", "-o", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 0, result.output
    (warning,) = [line for line in result.stderr.splitlines() if line.startswith("warning")]
    count = summary(result.stderr).stations
    assert 0 < count < FAR_BELOW_SHARE * STATION_BANDS["S"][0]
    assert warning.startswith(
        f"warning: only {count} stations, far below the 30–100 a game of size S aims for"
    )
    for hint in (
        "a larger play area",
        "fewer --category",
        "drop --no-transit",
        "--min-spacing (300 m)",
    ):
        assert hint in warning
    # Below the band but not far below (at least half of its 30): the cap line already
    # says it, and there is no warning.
    near = run("generate", LIECHTENSTEIN, "--osm", EXTRACT, "-o", tmp_path / "near")
    lowest = STATION_BANDS["S"][0]
    assert FAR_BELOW_SHARE * lowest <= summary(near.stderr).stations < lowest
    assert "warning" not in near.stderr


def test_summary_with_one_station_per_cluster(tmp_path):
    result = run("generate", LIECHTENSTEIN, "--osm", EXTRACT, "--max-per-cluster", "1",
                 "--no-transit", "-o", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Closest stations: none within a cluster (cap 1: each cluster holds one station), " in (
        result.stderr
    )
    assert "none this close within" not in result.stderr
    assert "Game size: S, inferred from the net area 159.0 km² (< 259 km²)" in result.stderr


@pytest.mark.parametrize("extra", [["--explain"], []])
def test_a_rerun_leaves_no_stale_file(tmp_path, extra):
    out = tmp_path / "out"
    first = run("generate", LIECHTENSTEIN, "--osm", EXTRACT, "--explain", "--map", "-o", out)
    assert first.exit_code == 0
    assert (out / "stations.html").exists() and (out / "candidates.geojson").exists()
    (out / "notes.txt").write_text("mine")  # a file of the user's own is kept
    again = run(
        "generate", LIECHTENSTEIN, "--osm", EXTRACT, "--min-spacing", "500", *extra, "-o", out
    )
    assert again.exit_code == 0
    files = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    expected = ["stations.csv", "stations.geojson", "stations.kml", "notes.txt"]
    expected += ["candidates.geojson"] * ("--explain" in extra) + ["stations.html"] * (
        "--map" in extra
    )
    assert files == sorted(expected)
    meta = json.loads((out / "stations.geojson").read_text())["metadata"]
    assert meta["min_spacing_m"] == 500
    if "--explain" in extra:
        assert (
            json.loads((out / "candidates.geojson").read_text())["metadata"]["min_spacing_m"] == 500
        )


def test_report_names_major_city_in_one_place(tmp_path):
    result = run("report", LIECHTENSTEIN, "--osm", EXTRACT, "-o", tmp_path / "report.json")
    assert result.exit_code == 0, result.output
    assert result.stderr.count("Major city") == 1
    (not_assessed,) = [
        line for line in result.stderr.splitlines() if line.startswith("not assessed")
    ]
    # the extract's coastline is assessed; the sea level needs --dem
    assert "major city" not in not_assessed and "coastline" not in not_assessed
    assert "sea level" in not_assessed
    document = json.loads((tmp_path / "report.json").read_text())
    assert "major_city" not in document["not_assessed"]
    assert list(document["not_assessed"]) == ["sea_level"]
    assert any(s["subject"] == "major_city" for s in document["subjects"])


def test_questions_apply_table_keeps_stations_out_of_the_km2_column(tmp_path):
    game = REPO / "examples" / "helsinki-game" / "game.json"
    result = run("questions", "apply", game, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    header, *rows = result.stderr.splitlines()[:8]
    assert header.split()[-4:] == ["left", "km²", "stations", "removed"]
    transit = next(r for r in rows if "Matching transit line" in r)
    assert transit.split()[-3:] == ["0.0000", "0.1085", "12"]
    for row in rows:
        removed, left = row.split()[-3:-1]
        float(removed), float(left)  # numbers in the km² columns


@pytest.fixture(scope="module")
def liechtenstein_map(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("li")
    assert run("-q", "generate", LIECHTENSTEIN, "--osm", EXTRACT, "-o", out).exit_code == 0
    return out / "stations.geojson"


@pytest.mark.slow
def test_calibrate_suggests_monotone_paste_ready_tiers(liechtenstein_map, tmp_path):
    from stations_generator.core.stationmap.density import parse_tiers

    result = run("calibrate", liechtenstein_map, "--osm", EXTRACT, "--transit-in-play",
                 "--pairs", 80, "-o", tmp_path / "cal")  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    paste = lines[lines.index("Paste into generate:") + 1].strip()
    assert paste.startswith("--tiers ")
    tiers = parse_tiers(paste.removeprefix("--tiers "))  # densest first
    assert [t.name for t in tiers] == ["dense", "moderate", "sparse"]
    assert [t.min_nearby for t in tiers] == [15, 5, 0]
    for denser, sparser in zip(tiers, tiers[1:], strict=False):
        assert denser.wait_min <= sparser.wait_min and denser.wait_max <= sparser.wait_max
    # The pasted tiers regenerate the map.
    again = run(
        "-q", "generate", LIECHTENSTEIN, "--osm", EXTRACT, *paste.split(), "-o", tmp_path / "new"
    )
    assert again.exit_code == 0, again.output
    meta = json.loads((tmp_path / "new" / "stations.geojson").read_text())["metadata"]
    assert meta["tiers"] == paste.removeprefix("--tiers ")


@pytest.mark.slow
def test_transit_in_play_defaults_agree(liechtenstein_map, tmp_path):
    from stations_generator.commands.calibrate import calibrate
    from stations_generator.commands.roll import roll
    from stations_generator.commands.route import route

    defaults = {
        command.name: next(p.default for p in command.params if p.name == "transit_in_play")
        for command in (roll, route, calibrate)
    }
    assert defaults == {"roll": False, "route": False, "calibrate": False}
    for name in ("roll", "route", "calibrate"):
        result = run(name, "--help")
        assert "--transit-in-play / --no-transit-in-play" in result.stdout
    # calibrate without the flag: no cooldown in the door-to-door time
    result = run("calibrate", liechtenstein_map, "--pairs", 20, "-o", tmp_path / "cal")
    assert result.exit_code == 0, result.output
    assert "Door to door = expected wait + drive;" in result.stdout
    import csv

    with open(tmp_path / "cal" / "calibration.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(row["cooldown_s"] == "0.0" for row in rows)


@pytest.mark.slow
def test_status_lines_on_a_terminal_only(liechtenstein_map, tmp_path, monkeypatch):
    from stations_generator.commands.console import Console

    args = ("calibrate", liechtenstein_map, "--osm", EXTRACT, "--pairs", 10, "-o", tmp_path / "c")
    piped = run(*args)
    assert piped.exit_code == 0 and "\r" not in piped.stderr
    monkeypatch.setattr(Console, "show_progress", property(lambda self: self.verbosity >= 0))
    tty = run(*args)
    assert tty.exit_code == 0, tty.output
    for step in ("Reading the drivable roads of liechtenstein-2013-08.osm.pbf…",
                 "Building the road graph…", "Timing 10 drives…", "Drawing calibration.png…"):  # fmt: skip
        assert f"\r{step}" in tty.stderr  # (click drops the erase-line code off a terminal)
    assert tty.stderr.count("\r") >= 8  # each line drawn, then cleared before the results
    route = run("route", "Schaan-Vaduz", "Walsermuseum", "--map", liechtenstein_map,
                "--osm", EXTRACT)  # fmt: skip
    assert route.exit_code == 0, route.output
    assert "\rTiming the drives…" in route.stderr
    quiet = run("-q", *args)
    assert quiet.exit_code == 0 and "\r" not in quiet.stderr
    generated = run("generate", LIECHTENSTEIN, "--osm", EXTRACT, "-o", tmp_path / "g")
    assert "\rReading liechtenstein-2013-08.osm.pbf…" in generated.stderr


def test_place_offline_is_a_network_error_with_the_overpass_exit_code(tmp_path, monkeypatch):
    import socket

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now: connection refused, as when offline
    monkeypatch.setenv("STATIONS_GENERATOR_NOMINATIM_URL", f"http://127.0.0.1:{port}")
    place = run("generate", "--place", "Vaduz", "--no-cache", "-o", tmp_path / "a")
    relation = run("generate", "--osm-relation", 1155955, "--no-cache",
                   "--overpass-url", f"http://127.0.0.1:{port}/api", "-o", tmp_path / "b")  # fmt: skip
    assert place.exit_code == relation.exit_code == 4
    assert place.stderr.startswith("error: could not connect to Nominatim at http://127.0.0.1:")
    assert "could not find a polygon" not in place.stderr
    assert relation.stderr.startswith("error: could not connect to Overpass at http://127.0.0.1:")


@pytest.mark.parametrize(
    "args",
    [
        ["generate", "--osm", str(POIS), "-o", "out"],  # no play area
        ["-q", "generate", str(SIOUX), "--quiet-please"],
        ["generate", str(SIOUX), "--min-spacing", "abc"],
        ["roll"],
        ["no-such-command"],
        ["--no-such-option"],
    ],
)
def test_one_error_style(args):
    result = run(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and "Error:" not in result.stderr
    assert "Usage:" not in result.output
    assert lines[0].endswith("--help'")


@pytest.mark.parametrize(
    "args",
    [["--help"], ["generate", str(LIECHTENSTEIN), "--osm", str(EXTRACT), "-o", "{out}"]],
)
def test_osmnx_is_not_imported_where_it_is_not_needed(args, tmp_path):
    import subprocess
    import sys

    code = (
        "import sys\nfrom stations_generator.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print('osmnx' in sys.modules, 'networkx' in sys.modules and 'osmnx' in sys.modules)"
    )
    argv = [a.replace("{out}", str(tmp_path / "out")) for a in args]
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False False"
