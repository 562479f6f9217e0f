"""Start-up: ``--help`` must not import the heavy libraries (they cost a second of CPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import pytest
from support.paths import REPO

from stations_generator.cli import LAZY_COMMANDS, LAZY_HELP, main

HEAVY = (
    "osmnx",
    "geopandas",
    "pandas",
    "folium",
    "matplotlib",
    "scipy",
    "osmium",
    "overpy",
)

_PROBE = """
import json, sys
from stations_generator.cli import main
try:
    main(sys.argv[1:], prog_name="stations-generator")
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})
sys.stderr.write(json.dumps(sorted({{m.split(".")[0] for m in heavy}})))
"""


def _imported_by(*args: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=set(HEAVY)), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "args", [["--help"], ["generate", "--help"], ["--version"], ["timetable", "--help"]]
)
def test_help_imports_no_heavy_library(args):
    assert _imported_by(*args) == []


def test_lazy_help_matches_the_commands():
    """The command list of ``--help`` shows what the commands themselves say."""
    ctx = click.Context(main)
    assert set(LAZY_HELP) <= set(LAZY_COMMANDS)
    for name, text in LAZY_HELP.items():
        command = main.get_command(ctx, name)
        assert command.help.split("\n\n")[0] == text, name
        for limit in (30, 45, 80):
            assert click.Command(name, help=text).get_short_help_str(limit) == (
                command.get_short_help_str(limit)
            )


def test_town_sized_generate_imports_neither_pandas_nor_scipy(tmp_path):
    """``generate`` finds close pairs without scipy (core/closepairs.py), and makes and
    writes its map as point tables (core/pointtable.py), not GeoDataFrames: importing
    ``scipy.spatial`` costs ~0.25 s and geopandas with pandas ~0.45 s, most of a small
    run. The HTML map (folium over GeoDataFrames) does load them."""
    sioux = REPO / "examples" / "sioux-falls"
    args = ["-q", "generate", str(REPO / "zones" / "sioux-falls.geojson")]
    args += ["--osm", str(sioux / "pois.json"), "--water", str(sioux / "water.json")]
    heavy = _imported_by(*args, "--explain", "-o", str(tmp_path / "out"))
    assert (tmp_path / "out" / "candidates.geojson").is_file()
    assert not {"pandas", "geopandas", "scipy"} & set(heavy)
    heavy = _imported_by(*args, "--map", "-o", str(tmp_path / "map"))
    assert (tmp_path / "map" / "stations.html").is_file()
    assert {"pandas", "geopandas", "folium"} <= set(heavy)  # (the probe sees the imports)
    assert "scipy" not in heavy


def test_generate_from_a_poi_response_imports_neither_osmium_nor_overpy(tmp_path):
    """osmium reads extracts and overpy converts elements with geometries or members: a
    POI response (``out center tags``) needs neither, and they cost 32 ms of start-up.
    Water (``out geom``) does load overpy."""
    sioux = REPO / "examples" / "sioux-falls"
    args = ["-q", "generate", str(REPO / "zones" / "sioux-falls.geojson")]
    args += ["--osm", str(sioux / "pois.json")]
    heavy = _imported_by(*args, "-o", str(tmp_path / "out"))
    assert (tmp_path / "out" / "stations.geojson").is_file()
    assert not {"osmium", "overpy"} & set(heavy)
    heavy = _imported_by(*args, "--water", str(sioux / "water.json"), "-o", str(tmp_path / "w"))
    assert (tmp_path / "w" / "stations.geojson").is_file()
    assert "overpy" in heavy and "osmium" not in heavy


def test_report_without_a_page_imports_neither_folium_nor_scipy(tmp_path):
    """``report -o`` loads folium only for ``--html`` and finds each sample point's
    nearest place with shapely's STRtree: the two imports cost ~1 s of a ~1.2 s run
    on a cached extract."""
    args = ["-q", "report", str(REPO / "zones" / "sioux-falls.geojson")]
    args += ["--osm", str(REPO / "examples" / "sioux-falls" / "pois.json")]
    heavy = _imported_by(*args, "-o", str(tmp_path / "report.json"))
    report = json.loads((tmp_path / "report.json").read_text())
    assert any(
        q["question"] == "matching" and q["verdict"] == "usable"
        for row in report["subjects"]
        for q in row["questions"]
    )
    assert "geopandas" in heavy and "folium" not in heavy and "scipy" not in heavy
    # With the page, folium is loaded and the page written.
    heavy = _imported_by(*args, "--html", str(tmp_path / "report.html"))
    assert "folium" in heavy and (tmp_path / "report.html").stat().st_size > 10_000


def test_questions_apply_on_a_city_game_imports_no_scipy(tmp_path):
    """Distances to lines and borders take their candidate segments from shapely's
    STRtree (core/features.py), and a city's places are few enough for plain numpy:
    no ``scipy.spatial`` (~0.5 s of imports) in a game with a measuring question."""
    game = REPO / "examples" / "helsinki-game" / "game.json"
    assert '"measuring"' in game.read_text()
    heavy = _imported_by("-q", "questions", "apply", str(game), "-o", str(tmp_path / "out"))
    assert (tmp_path / "out" / "remaining.geojson").is_file()
    assert "scipy" not in heavy


def _commands(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _commands(command, ctx, (*path, name))
        else:
            yield " ".join((*path, name)), command


def test_every_command_shows_an_example():
    ctx = click.Context(main)
    commands = dict(_commands(main, ctx))
    assert {"generate", "board track", "extract index", "serve"} <= set(commands)
    for name, command in commands.items():
        assert "Example" in (command.help or ""), name
        assert "stations-generator " + name in command.help, name


def _imported_modules(path) -> set[str]:
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("commands", ("stations_generator.cli",)),
        ("serve", ("stations_generator.cli", "stations_generator.commands")),
    ],
)
def test_commands_and_the_page_stand_below_the_main_group(package, forbidden):
    """The commands share their options through commands/options.py, not cli.py; the
    page makes its settings from the request types, not from the click commands."""
    files = sorted((REPO / "stations_generator" / package).glob("*.py"))
    assert files
    for path in files:
        bad = {m for m in _imported_modules(path) if m.startswith(forbidden)}
        assert not bad, (path.name, bad)


def test_one_click_context_for_every_command():
    defined = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "stations_generator").rglob("*.py"))
        if "\nCONTEXT = " in path.read_text(encoding="utf-8")
    ]
    assert defined == ["stations_generator/commands/options.py"]
