"""The ``stations-generator generate`` command end to end, on the bundled real data."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import geopandas as gpd
import pytest
from support.cli_runs import run
from support.paths import REPO, SIOUX

from stations_generator.formats.csv import PEER_COLUMNS
from stations_generator.formats.geojson_check import validate_rfc7946

ZONE = REPO / "zones" / "sioux-falls.geojson"
OFFLINE = ["--osm", str(SIOUX / "pois.json"), "--water", str(SIOUX / "water.json")]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    result = run("generate", ZONE, *OFFLINE, "-o", out, "--explain")
    assert result.exit_code == 0, result.stderr
    return out, result


def test_writes_all_outputs(generated):
    out, result = generated
    assert sorted(p.name for p in out.iterdir()) == [
        "candidates.geojson",
        "stations.csv",
        "stations.geojson",
        "stations.kml",
    ]
    assert "Stations:" in result.stderr and "Game size: M" in result.stderr
    assert result.stdout == ""  # everything human goes to stderr


def test_geojson_is_rfc7946_and_round_trips(generated):
    out, _ = generated
    data = json.loads((out / "stations.geojson").read_text())
    assert validate_rfc7946(data) == []
    assert "crs" not in data
    frame = gpd.read_file(out / "stations.geojson")
    stations = frame[frame["role"] == "station"]
    assert len(stations) >= 100
    assert stations["id"].is_unique
    assert set(stations["density_tier"]) <= {"dense", "moderate", "sparse"}
    assert (stations["wait_min"] < stations["wait_max"]).all()


def test_summary_matches_files(generated):
    out, result = generated
    stations = [
        f
        for f in json.loads((out / "stations.geojson").read_text())["features"]
        if f["properties"]["role"] == "station"
    ]
    clusters = {f["properties"]["cluster_id"] for f in stations}
    assert f"Stations: {len(stations)} in {len(clusters)} clusters" in result.stderr


def test_csv_has_peer_columns(generated):
    out, _ = generated
    header = (out / "stations.csv").read_text().splitlines()[0]
    assert header == ",".join(PEER_COLUMNS)
    assert header == (SIOUX / "peer-output.csv").read_text().splitlines()[0]


def test_explain_lists_every_candidate(generated):
    out, _ = generated
    feats = json.loads((out / "candidates.geojson").read_text())["features"]
    reasons = {f["properties"]["reason"] for f in feats if f["properties"]["status"] == "rejected"}
    assert reasons <= {"spacing", "gap", "cluster_cap", "excluded", "duplicate"}
    assert {"spacing", "gap", "duplicate"} <= reasons


def test_deterministic_bytes(generated, tmp_path):
    out, _ = generated
    result = run("generate", ZONE, *OFFLINE, "-o", tmp_path, "--explain")
    assert result.exit_code == 0
    for name in ("stations.geojson", "stations.csv", "stations.kml", "candidates.geojson"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


def test_exclusion_removes_pois(tmp_path):
    downtown = {
        "type": "Polygon",
        "coordinates": [
            [[-96.74, 43.53], [-96.71, 43.53], [-96.71, 43.56], [-96.74, 43.56], [-96.74, 43.53]]
        ],
    }
    excl = tmp_path / "downtown.geojson"
    excl.write_text(json.dumps(downtown))
    result = run("generate", ZONE, *OFFLINE, "-o", tmp_path / "o", "--exclude", excl, "--explain")
    assert result.exit_code == 0, result.stderr
    feats = json.loads((tmp_path / "o" / "candidates.geojson").read_text())["features"]
    excluded = [f for f in feats if f["properties"]["reason"] == "excluded"]
    assert len(excluded) > 20
    from shapely.geometry import Point, shape

    zone = shape(downtown)
    for f in feats:
        inside = zone.covers(Point(f["geometry"]["coordinates"]))
        assert inside == (f["properties"]["reason"] == "excluded")


def test_cluster_radius_1000_count(tmp_path):
    result = run(
        "generate", ZONE, *OFFLINE, "-o", tmp_path, "--cluster-radius", 1000, "--max-per-cluster", 0
    )
    assert result.exit_code == 0
    count = len((tmp_path / "stations.csv").read_text().splitlines()) - 1
    assert count >= 150


def test_extract_input(tmp_path):
    result = run(
        "generate",
        REPO / "zones" / "liechtenstein.geojson",
        "--osm",
        REPO / "tests/data/osm-extracts/liechtenstein-2013-08.osm.pbf",
        "-o",
        tmp_path,
    )
    assert result.exit_code == 0, result.stderr
    assert "Game size: S" in result.stderr
    assert len((tmp_path / "stations.csv").read_text().splitlines()) > 10


# --- bad input -----------------------------------------------------------------


def _bad(tmp_path, args, message, code=None):
    out = tmp_path / "out"
    result = run("generate", *args, "-o", out)
    assert result.exit_code != 0
    if code is not None:
        assert result.exit_code == code
    err = result.stderr.strip()
    assert err.count("\n") == 0 or err.splitlines()[-1].startswith("error:"), err
    assert "Traceback" not in result.stderr
    assert message in err, err
    assert not out.exists() or list(out.iterdir()) == []  # never a partial output
    return err


def test_missing_file(tmp_path):
    _bad(tmp_path, [tmp_path / "nope.geojson", *OFFLINE], "does not exist")


def test_not_geojson(tmp_path):
    path = tmp_path / "area.geojson"
    path.write_text((SIOUX / "peer-output.csv").read_text())
    _bad(tmp_path, [path, *OFFLINE], "is not GeoJSON")


def test_point_instead_of_polygon(tmp_path):
    path = tmp_path / "point.geojson"
    path.write_text(json.dumps({"type": "Point", "coordinates": [-96.7205389, 43.5520853]}))
    _bad(tmp_path, [path, *OFFLINE], "Point, not a polygon")


def test_swapped_lat_lon(tmp_path):
    ring = json.loads(ZONE.read_text())["features"][0]["geometry"]["coordinates"][0]
    path = tmp_path / "swapped.geojson"
    path.write_text(json.dumps({"type": "Polygon", "coordinates": [[[b, a] for a, b in ring]]}))
    _bad(tmp_path, [path, *OFFLINE], "swap them")


def test_empty_after_exclusions(tmp_path):
    _bad(tmp_path, [ZONE, *OFFLINE, "--exclude", ZONE], "nothing is left of the play area")


def test_no_candidates(tmp_path):
    _bad(tmp_path, [ZONE, *OFFLINE, "--category", "ferry_terminal"], "no station candidates")


def test_unknown_category(tmp_path):
    _bad(tmp_path, [ZONE, *OFFLINE, "--category", "cafes"], "unknown category 'cafes'")


def test_subject_is_not_a_station_category(tmp_path):
    _bad(tmp_path, [ZONE, *OFFLINE, "--category", "hospital"], "not a station category")


def test_wrong_osm_file_type(tmp_path):
    _bad(tmp_path, [ZONE, "--osm", SIOUX / "peer-output.csv"], "unknown OSM file type")


def test_bad_playing_hours(tmp_path):
    _bad(tmp_path, [ZONE, *OFFLINE, "--playing-hours", "7pm-7am"], "end before they start")


def test_spacing_larger_than_gap(tmp_path):
    _bad(tmp_path, [ZONE, *OFFLINE, "--min-spacing", 1500], "larger than --cluster-gap")


def test_output_is_a_file(tmp_path):
    out = tmp_path / "taken"
    out.write_text("x")
    result = run("generate", ZONE, *OFFLINE, "-o", out)
    assert result.exit_code != 0 and "is a file" in result.stderr
    assert out.read_text() == "x"


def test_console_script_no_traceback(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "stations_generator",
            "generate",
            str(tmp_path / "x.geojson"),
            *map(str, OFFLINE),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
    assert proc.stdout == ""


@pytest.mark.parametrize("command", [[], ["generate"]])
def test_help(command):
    result = run(*command, "--help")
    assert result.exit_code == 0 and "Usage:" in result.stdout


def test_quiet_prints_nothing(tmp_path):
    result = run("-q", "generate", ZONE, *OFFLINE, "-o", tmp_path)
    assert result.exit_code == 0 and result.stderr == ""


# --- online, against a local server serving the real fixture ---------------------


class _FixtureOverpass:
    """Serves the Sioux Falls elements (POIs + water) as one Overpass JSON response."""

    def __init__(self):
        elements = json.loads((SIOUX / "pois.json").read_text()) + json.loads(
            (SIOUX / "water.json").read_text()
        )
        body = json.dumps(
            {"version": 0.6, "generator": "Overpass API", "elements": elements}
        ).encode()
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                outer.requests.append(self.rfile.read(int(self.headers["Content-Length"])))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/interpreter"


def test_online_matches_offline_and_caches(tmp_path, generated):
    server = _FixtureOverpass()
    try:
        args = [
            "generate",
            ZONE,
            "-o",
            tmp_path / "a",
            "--overpass-url",
            server.url,
            "--cache-dir",
            tmp_path / "c",
        ]
        first = run(*args)
        assert first.exit_code == 0, first.stderr
        assert len(server.requests) == 1
        query = server.requests[0].decode()
        assert "poly" in query and "out+center+tags" in query.replace("%20", "+")
        second = run(*args[:3], tmp_path / "b", *args[4:])
        assert second.exit_code == 0
        assert len(server.requests) == 1  # answered from the cache
    finally:
        server.server.shutdown()
    offline, _ = generated
    assert (tmp_path / "a" / "stations.csv").read_bytes() == (offline / "stations.csv").read_bytes()
    assert (tmp_path / "b" / "stations.csv").read_bytes() == (offline / "stations.csv").read_bytes()
