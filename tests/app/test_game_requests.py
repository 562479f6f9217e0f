"""Loading a game has one request: ``map_sources``' parameters. The game commands' map
options and ``api.read_game``'s keywords are exactly those, with the same defaults."""

from __future__ import annotations

import dataclasses
import inspect

import click
import pytest

from stations_generator import api
from stations_generator.app.map_context import MapSources, map_sources
from stations_generator.commands.questions import questions, zones

REQUEST = inspect.signature(map_sources).parameters
#: Where the map comes from: map_sources' parameters.
MAP = set(REQUEST)
#: Command-line option names that differ from the parameter they set.
CLI_NAMES = {
    "osm_files": "osm",
    "stations_file": "stations",
    "no_cache": "use_cache",
    "dem_file": "dem",
}
#: api.read_game's keywords and OverpassSettings' fields, by parameter.
API_NAMES = {"urls": "overpass_urls"}
GAME_COMMANDS = {
    "questions apply": questions.commands["apply"],
    "questions answer": questions.commands["answer"],
    "questions cost": questions.commands["cost"],
    "zones check": zones.commands["check"],
}
MAP_OPTIONS = {
    "osm_files",
    "play_area",
    "stations_file",
    "overpass_urls",
    "cache_dir",
    "no_cache",
    "dem_file",
}


def test_map_sources_fill_every_field_of_the_map_sources():
    fields = {f.name for f in dataclasses.fields(MapSources)}
    assert fields == {"osm", "play_area", "stations", "overpass", "dem"}  # notes are log records
    made = map_sources(["a.osm.pbf"], "area.geojson", "stations.geojson")
    assert [str(p) for p in made.osm] == ["a.osm.pbf"]
    assert str(made.play_area) == "area.geojson" and str(made.stations) == "stations.geojson"
    assert callable(made.overpass)


@pytest.mark.parametrize("command", sorted(GAME_COMMANDS))
def test_each_game_command_offers_the_request_and_its_defaults(command):
    options = {p.name: p for p in GAME_COMMANDS[command].params if isinstance(p, click.Option)}
    mapped = {CLI_NAMES.get(name, name): name for name in options if name in MAP_OPTIONS}
    assert set(mapped) == MAP
    # (resilient: a required option of the command, e.g. --hider, may stay unset here)
    context = GAME_COMMANDS[command].make_context(command, ["game.json"], resilient_parsing=True)
    for parameter, option in mapped.items():
        given = context.params[option]
        wanted = REQUEST[parameter].default
        if option == "no_cache":
            assert given is (not wanted)
        else:
            assert (tuple(given) if isinstance(given, tuple) else given) == wanted, option


def test_read_game_takes_the_request_as_keywords():
    keywords = inspect.signature(api.read_game).parameters
    overpass = {f.name: f.default for f in dataclasses.fields(api.OverpassSettings)}
    offered = {name for name in keywords if name in MAP}
    offered |= {API_NAMES.get(name, name) for name in overpass if API_NAMES.get(name, name) in MAP}
    assert offered == MAP
    for name in offered & set(keywords):
        assert keywords[name].default == REQUEST[name].default, name
    for name, default in overpass.items():
        parameter = API_NAMES.get(name, name)
        if parameter in MAP:
            assert default == REQUEST[parameter].default, name
