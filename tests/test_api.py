"""The public API: discoverable, the CLI's steps, byte-identical outputs (issue 13)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.paths import REPO

import stations_generator as sg
from stations_generator.cli import main

SIOUX = REPO / "zones" / "sioux-falls.geojson"
POIS = REPO / "examples" / "sioux-falls" / "pois.json"
WATER = REPO / "examples" / "sioux-falls" / "water.json"
GAME = REPO / "examples" / "helsinki-game" / "game.json"
VERBS = (
    "read_play_area",
    "load_osm",
    "make_station_map",
    "summary",
    "write_station_map",
    "read_game",
    "apply_game",
    "write_game_result",
    "check_zone",
    "hider_answers",
)


def test_dir_lists_the_public_api():
    names = dir(sg)
    for name in (*VERBS, "PlayArea", "OverpassSettings", "StationMap", "WaitTier"):
        assert name in names
        assert name in sg.__all__
    from stations_generator import api

    assert set(api.__all__) <= set(names)


def test_importing_the_package_loads_no_heavy_module():
    code = (
        "import sys, stations_generator as sg; dir(sg); "
        "print(sorted(m for m in ('geopandas', 'shapely', 'osmnx', 'pyproj') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.name.startswith(".")}


def test_generate_from_python_is_byte_identical_to_the_cli(tmp_path):
    cli_dir, api_dir = tmp_path / "cli", tmp_path / "api"
    args = [str(SIOUX), "--osm", str(POIS), "--water", str(WATER), "--explain", "--map"]
    args += ["--min-spacing", "400", "--playing-days", "sat"]
    result = CliRunner().invoke(main, ["-q", "generate", *args, "-o", str(cli_dir)])
    assert result.exit_code == 0, result.output

    area = sg.read_play_area(SIOUX)
    osm = sg.load_osm(area, [POIS], water_files=[WATER])
    smap = sg.make_station_map(area, osm, min_spacing=400, playing_days="sat")
    written = sg.write_station_map(smap, api_dir, explain=True, html_map=True)

    assert [p.name for p in written] == sorted(_files(cli_dir), key=[p.name for p in written].index)
    assert _files(api_dir) == _files(cli_dir)
    assert sg.summary(smap)[0].startswith(f"Stations: {len(smap.stations)} in ")
    # a second write without the extras leaves no stale file of the first
    sg.write_station_map(smap, api_dir)
    assert sorted(_files(api_dir)) == ["stations.csv", "stations.geojson", "stations.kml"]


def test_play_area_from_a_geometry_with_exclusions():
    area = sg.read_play_area(SIOUX)
    hole = area.polygon.centroid.buffer(0.02)
    with_hole = sg.read_play_area(area.polygon, exclude=[hole], name="sioux")
    assert with_hole.name == "sioux" and len(with_hole.exclusions) == 1
    osm = sg.load_osm(with_hole, [POIS], water_files=[WATER])
    plain = sg.make_station_map(area, osm)
    cut = sg.make_station_map(with_hole, osm)
    assert cut.net_area_km2 < plain.net_area_km2 - 10
    assert (cut.candidates["reason"] == "excluded").sum() > 0


def test_bad_input_raises_the_cli_message(tmp_path):
    with pytest.raises(sg.InputError, match="exactly one"):
        sg.read_play_area()
    with pytest.raises(sg.InputError, match="not a polygon"):
        sg.read_play_area({"type": "Point", "coordinates": [9.5, 47.1]})
    area = sg.read_play_area(SIOUX)
    with pytest.raises(sg.InputError, match="question subject"):
        sg.load_osm(area, [POIS], categories=["airport"])


def test_warnings_go_to_python_warnings(tmp_path):
    ring = [list(xy) for xy in sg.read_play_area(SIOUX).polygon.exterior.coords]
    line = {"type": "LineString", "coordinates": ring}
    with pytest.warns(sg.StationsGeneratorWarning, match="closed LineString"):
        sg.read_play_area(line)
    seen: list[str] = []
    sg.read_play_area(line, warn=seen.append)
    assert len(seen) == 1 and "closed LineString" in seen[0]


@pytest.mark.slow
def test_game_verbs_match_the_cli(tmp_path):
    cli_dir, api_dir = tmp_path / "cli", tmp_path / "api"
    runner = CliRunner()
    result = runner.invoke(main, ["-q", "questions", "apply", str(GAME), "-o", str(cli_dir)])
    assert result.exit_code == 0, result.output
    game = sg.read_game(GAME)
    applied = sg.apply_game(game)
    sg.write_game_result(applied, api_dir)
    assert _files(api_dir) == _files(cli_dir)
    assert applied.summary()[-1].startswith(f"Remaining: {applied.remaining_km2:.4f} km²")

    station = applied.zones[0].station
    check = sg.check_zone(game, station=station.id)
    out = runner.invoke(main, ["zones", "check", str(GAME), "--station", station.id, "--json"])
    assert json.loads(out.stdout)["valid"] == check.valid
    assert out.exit_code == (0 if check.valid else 1)

    rows = sg.hider_answers(game, (station.lat, station.lon))
    out = runner.invoke(
        main,
        ["questions", "answer", str(GAME), "--hider", f"{station.lat},{station.lon}", "--json"],
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout) == rows
    with pytest.raises(sg.InputError, match="outside the play area"):
        sg.hider_answers(game, (station.lon, station.lat))


def test_search_from_python_matches_the_cli(tmp_path):
    cli_dir, api_dir = tmp_path / "cli", tmp_path / "api"
    args = [str(SIOUX), "--osm", str(POIS), "--water", str(WATER), "--search", "300"]
    result = CliRunner().invoke(main, ["-q", "generate", *args, "-o", str(cli_dir)])
    assert result.exit_code == 0, result.output
    area = sg.read_play_area(SIOUX)
    osm = sg.load_osm(area, [POIS], water_files=[WATER])
    smap = sg.make_station_map(area, osm, search=300)
    sg.write_station_map(smap, api_dir)
    assert _files(api_dir) == _files(cli_dir)
    # 300 rounds per start find fewer than the default budget, more than none.
    assert len(sg.make_station_map(area, osm, search=0).stations) < len(smap.stations)
    assert len(smap.stations) <= len(sg.make_station_map(area, osm).stations)
    for bad, error in ((-1, ValueError), (2.5, TypeError), (True, TypeError)):
        # the CLI's one-line InputError, and the ValueError/TypeError a library user expects
        with pytest.raises(sg.InputError, match="^search") as info:
            sg.make_station_map(area, osm, search=bad)
        assert isinstance(info.value, error)
    with pytest.raises(sg.InputError, match="strict_priority"):
        sg.make_station_map(area, osm, search=10, strict_priority=True)
