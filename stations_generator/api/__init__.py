"""The public Python API: a few verbs, each the step the command line runs.

Build a station map (what ``generate`` does)::

    import stations_generator as sg

    area = sg.read_play_area("zones/sioux-falls.geojson")
    osm = sg.load_osm(area, files=["examples/sioux-falls/pois.json"],
                      water_files=["examples/sioux-falls/water.json"])
    smap = sg.make_station_map(area, osm)          # every generate option as a keyword
    print("\\n".join(sg.summary(smap)))
    sg.write_station_map(smap, "out/sioux-falls", html_map=True)

Play a game (what ``questions apply``, ``zones check`` and ``questions answer`` do)::

    game = sg.read_game("zones/helsinki-game.json", osm=["…/helsinki.osm.pbf"])
    result = sg.apply_game(game)
    sg.check_zone(game, station="Kamppi")
    sg.hider_answers(game, hider=(60.17, 24.93))     # or "60.17,24.93": latitude first

Each verb calls the same function as the command line, so the files written from
Python and by the CLI are byte-identical. Warnings go through :mod:`warnings` (as
:class:`StationsGeneratorWarning`) unless a ``warn`` callable is given; bad input
raises :class:`~stations_generator.errors.UserError` subclasses with the CLI's message.
A bad argument is refused first, as a TypeError or ValueError (an InputError too) whose
one line starts with the parameter's name; settings by the CLI's own checks (docs/api.md).
"""

from stations_generator.api.checks import (
    GameResult,
    OsmLayers,
    OverpassSettings,
    PlayArea,
    StationsGeneratorWarning,
)
from stations_generator.api.games import (
    apply_game,
    check_zone,
    hider_answers,
    map_html,
    read_game,
    share_link,
    write_game_result,
)
from stations_generator.api.stations import (
    load_osm,
    make_station_map,
    read_play_area,
    summary,
    write_station_map,
)

__all__ = [
    "GameResult",
    "OsmLayers",
    "OverpassSettings",
    "PlayArea",
    "StationsGeneratorWarning",
    "apply_game",
    "check_zone",
    "hider_answers",
    "load_osm",
    "make_station_map",
    "map_html",
    "read_game",
    "read_play_area",
    "share_link",
    "summary",
    "write_game_result",
    "write_station_map",
]
