"""Checking a curse on OSM extracts (app/curse_checks.py, osm/curse_layers.py) and the
``check-curse`` command, on the bundled real extracts."""

from __future__ import annotations

import json

import pytest
import shapely
from shapely.geometry import Point
from support.cli_runs import one_line_error, run_caught
from support.geodesic_checks import GEOD
from support.paths import EXTRACTS, HELSINKI, LIECHTENSTEIN

from stations_generator.app.curse_checks import (
    ExtractCurseLayers,
    check_curse_on_map,
    curse_check_json,
)
from stations_generator.errors import InputError
from stations_generator.osm import curse_layers, layers

STATION = (60.1713198, 24.9414566)  # Helsinki railway station (node/25389429)


def _pitkasilta() -> tuple[float, float]:
    """A point on the Pitkäsilta bridge's centre line, from the data."""
    line = next(
        g
        for _, t, g in curse_layers.features(HELSINKI, "bridge")
        if t.get("name") == "Pitkäsilta" and g.geom_type == "LineString"
    )
    (a, b) = shapely.get_coordinates(line)[:2]
    lon, lat = GEOD.npts(a[0], a[1], b[0], b[1], 1)[0]
    return lat, lon


def test_bridge_troll_on_the_extract():
    on = check_curse_on_map("curse-of-the-bridge-troll", "M", [HELSINKI], seekers=_pitkasilta())
    assert on.met and on.results[0].distance_m < 0.01
    assert on.rule == "JLTG.EU house rules, Curse Of The Bridge Troll"
    off = check_curse_on_map("curse-of-the-bridge-troll", "M", [HELSINKI], seekers=STATION)
    assert not off.met and off.results[0].distance_m > 10.0


def test_bodies_of_water_are_the_measuring_questions_shapes():
    ours = [g.wkb for _, _, g in curse_layers.features(HELSINKI, "body_of_water")]
    assert ours and ours == [g.wkb for g in layers.bodies_of_water(HELSINKI)]


def test_features_within_the_reach_are_all_given_once():
    near, reach = _pitkasilta(), 600.0
    one = ExtractCurseLayers([HELSINKI]).map_features("named_street", near, reach)
    twice = ExtractCurseLayers([HELSINKI, HELSINKI]).map_features("named_street", near, reach)
    assert [f.osm_id for f in one] == [f.osm_id for f in twice]
    assert len({f.osm_id for f in one}) == len(one)
    given = {f.osm_id for f in one}
    for oid, _, line in curse_layers.features(HELSINKI, "named_street"):
        xy = shapely.get_coordinates(line)
        n = len(xy)
        _, _, d = GEOD.inv([near[1]] * n, [near[0]] * n, xy[:, 0], xy[:, 1])
        if d.min() <= reach:  # a vertex within the reach: the street must be there
            assert oid in given, oid
    assert len(given) < len(curse_layers.features(HELSINKI, "named_street"))


def test_stations_carry_the_tags_the_valid_stop_rules_read():
    stations = ExtractCurseLayers([HELSINKI]).stations(STATION, 3000.0)
    kinds = {s.name: s.tag("station") for s in stations}
    assert kinds["Helsinki"] is None and kinds["Rautatientori"] == "subway"


def test_same_input_same_json():
    def once() -> str:
        check = check_curse_on_map(
            "curse-of-the-grass-toucher", "L", [LIECHTENSTEIN], seekers=(47.1395, 9.5229)
        )
        return json.dumps(curse_check_json(check), sort_keys=True)

    assert once() == once()


@pytest.mark.parametrize(
    ("curse", "osm", "words"),
    [
        ("curse-of-the-oracle", [HELSINKI], ("curse-of-the-oracle", "cannot check")),
        ("curse-of-the-moral-high-ground", [HELSINKI], ("altitude",)),
        ("not-a-card", [HELSINKI], ("unknown curse", "not-a-card")),
        ("curse-of-the-bridge-troll", [EXTRACTS / "nowhere.osm.pbf"], ("nowhere.osm.pbf",)),
        ("curse-of-the-bridge-troll", [], ("OSM",)),
    ],
)
def test_bad_input_is_one_line(curse, osm, words):
    with pytest.raises(InputError) as caught:
        check_curse_on_map(curse, "M", osm, seekers=STATION)
    message = str(caught.value)
    assert "\n" not in message and all(w in message for w in words), message


def test_teams_distance_needs_no_map():
    hider = GEOD.fwd(STATION[1], STATION[0], 90.0, 5000.0)
    check = check_curse_on_map(
        "curse-of-the-landline", "M", [], seekers=STATION, hider=(hider[1], hider[0])
    )
    assert check.met and check.results[0].distance_m == pytest.approx(5000.0, abs=1e-6)


# --- the command ---------------------------------------------------------------------------


def _run(*args: str):
    return run_caught("referee", "check-curse", *args)


def test_command_text_and_json():
    lat, lon = _pitkasilta()
    args = ["curse-of-the-bridge-troll", "--size", "M", "--seekers", f"{lat},{lon}"]
    text = _run(*args, "--osm", str(HELSINKI))
    assert text.exit_code == 0, text.output
    assert text.output.splitlines()[0].endswith(": met") and "Pitkäsilta" in text.output
    raw = _run(*args, "--osm", str(HELSINKI), "--json")
    data = json.loads(raw.output)
    assert data["met"] is True and data["conditions"][0]["feature"]["name"] == "Pitkäsilta"
    assert data["conditions"][0]["distance_m"] < 0.01


def test_command_plates_of_the_distant_road_trip():
    args = ["curse-of-the-distant-road-trip", "--size", "L", "--seekers", "47.1395,9.5229"]
    met = _run(*args, "--plates", "Schaan", "Ruggell", "--osm", str(LIECHTENSTEIN), "--json")
    assert json.loads(met.output)["met"] is True and met.exit_code == 0
    unmet = _run(*args, "--plates", "Ruggell", "Schaan", "--osm", str(LIECHTENSTEIN), "--json")
    assert json.loads(unmet.output)["met"] is False
    assert unmet.exit_code == 1  # like `zones check`: 1 when not met, 2 for bad input


def test_command_errors_are_one_line():
    no_map = _run("curse-of-the-bridge-troll", "--size", "M", "--seekers", "60.17,24.94")
    one_line_error(no_map, 2, "OSM")
    unknown = _run("curse-of-the-x", "--size", "M", "--seekers", "60.17,24.94")
    one_line_error(unknown, 2, "curse-of-the-x", "cannot check")
    bad = _run("curse-of-the-bridge-troll", "--size", "M", "--seekers", "60.17")
    one_line_error(bad, 2, "LAT,LON")
    no_seekers = _run("curse-of-the-long-shot", "--size", "M", "--hider", "60.17,24.94")
    one_line_error(no_seekers, 2, "seekers")


def test_reported_feature_lies_at_the_reported_distance():
    check = check_curse_on_map("curse-of-the-seabird", "S", [HELSINKI], seekers=STATION)
    result = check.results[0]
    water = {k: g for k, _, g in curse_layers.features(HELSINKI, "body_of_water")}
    assert result.osm_id in water
    geom = water[result.osm_id]
    assert not geom.covers(Point(STATION[1], STATION[0]))
    assert result.distance_m > 3.0 and not result.met


def test_kinds_read_what_an_independent_osmium_scan_finds():
    import osmium

    class Scan(osmium.SimpleHandler):
        def __init__(self) -> None:
            super().__init__()
            self.worship_nodes: set[str] = set()
            self.streets: set[str] = set()
            self.paths: set[str] = set()

        def node(self, n) -> None:
            if n.tags.get("amenity") == "place_of_worship":
                self.worship_nodes.add(f"node/{n.id}")

        def way(self, w) -> None:
            if w.tags.get("name") and w.tags.get("highway") in ("footway", "path", "cycleway"):
                self.paths.add(f"way/{w.id}")
            elif w.tags.get("name") and w.tags.get("highway") in ("residential", "primary"):
                self.streets.add(f"way/{w.id}")

    scan = Scan()
    scan.apply_file(str(LIECHTENSTEIN))
    worship = curse_layers.features(LIECHTENSTEIN, "place_of_worship")
    assert {k for k, _, g in worship if g.geom_type == "Point"} == scan.worship_nodes
    streets = {k for k, _, _ in curse_layers.features(LIECHTENSTEIN, "named_street")}
    assert scan.streets and scan.streets <= streets  # named residential and primary roads
    assert scan.paths and not (scan.paths & streets)  # named footways, paths are not streets
    for _, tags, _ in curse_layers.features(LIECHTENSTEIN, "bridge"):
        assert tags.get("tunnel", "no") == "no"
        assert tags.get("man_made") == "bridge" or tags.get("bridge", "no") != "no"


_DIGEST = """
import hashlib, sys
from pathlib import Path
from stations_generator.core.referee.curse_map import FEATURE_KINDS
from stations_generator.osm import curse_layers, extracts
if sys.argv[2] == "cached":  # a read of the file now fails: only the cache can answer
    extracts.read_lines = extracts.read_areas = extracts.read_points = None
kinds = sorted(set(FEATURE_KINDS) - {"valid_stop", "body_of_water"})
rows = [(k, oid, tags, g.wkb) for k in kinds for oid, tags, g in curse_layers.features(Path(sys.argv[1]), k)]
print(hashlib.sha256(repr(rows).encode()).hexdigest())
"""


def test_the_extract_cache_gives_the_features_a_read_gives(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "STATIONS_GENERATOR_EXTRACT_CACHE_DIR": str(tmp_path)}

    def digest(mode: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", _DIGEST, str(HELSINKI), mode],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    read = digest("read")
    assert any(tmp_path.rglob("*.npz"))  # the read stored its entry
    assert digest("cached") == read
