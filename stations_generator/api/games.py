"""The game verbs: read a game, apply it, write its result, check a zone, answer as the hider, its map and share link.

See :mod:`stations_generator.api` for how they are used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stations_generator.api.checks import (
    GameResult,
    OverpassSettings,
    PathLike,
    Warn,
    check_file,
    check_game,
    check_instance,
    check_optional_text,
    check_warn,
)
from stations_generator.app.request_fields import (
    argument,
    check_flag,
    check_items,
    check_path,
    check_text,
)
from stations_generator.errors import ArgumentValueError

if TYPE_CHECKING:  # the heavy modules load on first use
    from stations_generator.core.questions.game import Game, ZoneCheck
    from stations_generator.core.stationmap.build import StationMap


def read_game(
    path: PathLike,
    *,
    osm: Sequence[PathLike] = (),
    play_area: PathLike | None = None,
    stations: PathLike | None = None,
    overpass: OverpassSettings | None = None,
    dem: PathLike | None = None,
    warn: Warn | None = None,
) -> Game:
    """Read a game: GAME.json, a taibeled state, question list or share link file.

    Parameters
    ----------
    path : path
    osm, play_area, stations
        Where the map comes from (override the game's), as ``questions --osm``,
        ``--play-area``, ``--stations``.
    overpass : OverpassSettings
        For a taibeled play area stored as an OSM id that no ``osm`` file holds.
    dem : path
        An elevation file for sea-level questions (overrides the game's ``"dem"``), as
        ``questions --dem``.
    warn : callable

    Returns
    -------
    Game
    """
    from stations_generator.app.games import game_title, load
    from stations_generator.app.map_context import map_sources

    game_file = check_file("path", path)
    given = {"play_area": play_area, "stations": stations, "dem": dem}
    files = {k: None if v is None else check_file(k, v) for k, v in given.items()}
    s = OverpassSettings() if overpass is None else overpass
    check_instance("overpass", s, OverpassSettings, "an OverpassSettings")
    sources = map_sources(
        check_items("osm", osm, check_file, "file paths"),
        files["play_area"],
        files["stations"],
        overpass_urls=s.urls,
        cache_dir=s.cache_dir,
        use_cache=s.use_cache,
        dem=files["dem"],
    )
    say = check_warn(warn)
    with argument("path"):
        game = load(game_file, sources, say, validate=False).game
    return dataclasses.replace(game, title=game_title(game_file))


def apply_game(game: Game, *, warn: Warn | None = None) -> GameResult:
    """Apply every recorded answer: the area each question removed, what remains, and
    each hiding zone's status (what ``questions apply`` computes)."""
    from stations_generator.core.questions.geometry import QuestionError
    from stations_generator.errors import InputError

    check_game("game", game)
    say = check_warn(warn)
    try:
        game.validate()
    except QuestionError as exc:
        raise InputError(str(exc)) from None
    elimination = game.eliminate()
    for contradiction in elimination.contradictions:
        say(contradiction.message())
    return GameResult(game, elimination, game.possible_zones(elimination), game.title)


def write_game_result(
    result: GameResult, output_dir: PathLike, *, html_map: bool = False
) -> list[Path]:
    """Write remaining.geojson and zones.geojson (and elimination.html with ``html_map``),
    as one output set (as :func:`write_station_map`)."""
    from stations_generator.app.games import APPLY_FILES, apply_texts
    from stations_generator.formats.atomic import output_set

    check_instance("result", result, GameResult, "a GameResult (from apply_game)")
    folder = check_path("output_dir", output_dir)
    texts = apply_texts(
        result.game,
        result.elimination,
        result.zones,
        html_map=check_flag("html_map", html_map),
        title=result.title,
    )
    with output_set(folder, APPLY_FILES) as outputs:
        for file_name, text in texts.items():
            outputs.write_text(file_name, text)
    return [folder / n for n in texts]


def check_zone(
    game: Game, *, station: str | None = None, at: tuple[float, float] | None = None
) -> ZoneCheck:
    """Is a hiding zone still valid? ``station`` is an id (``node/123``) or name; ``at``
    is a centre as ``"LAT,LON"`` or a (lat, lon) pair. The result names each question
    that rules the zone out; its ``point`` is the zone's centre as (lat, lon) too."""
    from stations_generator.app.games import check_zone as check
    from stations_generator.app.games import lat_lon

    check_game("game", game)
    if (station is None) == (at is None):
        raise ArgumentValueError("station", "= or at=: give exactly one")
    if station is not None:
        with argument("station"):
            result = check(game, station=check_text("station", station))
    else:
        lat, lon = lat_lon("at", at)
        _not_swapped("at", game, lat, lon)
        with argument("at"):
            result = check(game, at=(lon, lat), label=f"{lat},{lon}")
    lon, lat = result.point
    return dataclasses.replace(result, point=(lat, lon))


def hider_answers(
    game: Game, hider: tuple[float, float], *, station: str | None = None
) -> list[dict[str, Any]]:
    """Every question answered truthfully for a hider at ``hider`` (``"LAT,LON"`` or a
    (lat, lon) pair): one dict per question with ``label``, ``answer``, ``value`` and the
    ``recorded`` answer. ``station`` (an id or name) is the hider's station, if any."""
    from stations_generator.app.games import find_station, lat_lon
    from stations_generator.app.games import hider_answers as answers

    check_game("game", game)
    lat, lon = lat_lon("hider", hider)
    _not_swapped("hider", game, lat, lon)
    if station is not None:
        with argument("station"):
            find_station(game, check_text("station", station))
    with argument("hider"):
        return answers(game, lon, lat, station, label=f"{lat},{lon}")


def _not_swapped(name: str, game: Game, lat: float, lon: float) -> None:
    """Refuse a point outside the play area whose swap is inside it: (lon, lat) given."""
    if abs(lon) <= 90 and not game.covers(lon, lat) and game.covers(lat, lon):
        raise ArgumentValueError(
            name,
            f": ({lat:g}, {lon:g}) is outside the play area and ({lon:g}, {lat:g}) inside; "
            "give (lat, lon), latitude first",
        )


def map_html(
    result: StationMap | GameResult, *, title: str | None = None, candidates: bool = True
) -> str:
    """The interactive map page of a station map (``generate --map``; with ``candidates``
    the rejected candidates' layer of ``--explain``) or of a game (``questions apply
    --map``): one self-contained page (Leaflet inlined; only map tiles load online)."""
    from stations_generator.core.stationmap.build import StationMap

    what = "a StationMap (from make_station_map) or a GameResult (from apply_game)"
    check_instance("result", result, (StationMap, GameResult), what)
    title = check_optional_text("title", title)
    check_flag("candidates", candidates)
    if isinstance(result, GameResult):
        from stations_generator.app.games import elimination_page

        return elimination_page(
            result.game, result.elimination, result.zones, title or result.title
        )
    from stations_generator.app.generate import station_map_page

    name = title or result.settings.get("name", "play-area")
    return station_map_page(result, name, candidates=candidates)


def share_link(
    game: Game,
    *,
    base_url: str | None = None,
    zone_options: Sequence[str] | None = None,
) -> str:
    """The game as a taibeled share link (``BASE_URL?hzc=…``): its play area, questions and
    hiding radius. ``base_url`` is the app's address [default: the taibeled app's];
    ``zone_options`` are the app's Overpass filters of the hiding stations [default: the
    app's ``[railway=station]``]. :func:`read_game` reads such a link back from a text file."""
    from stations_generator.app.games import share_link as game_link

    check_game("game", game)
    if zone_options is not None:
        zone_options = list(check_items("zone_options", zone_options, check_text, "str filters"))
    where = {} if base_url is None else {"base_url": check_text("base_url", base_url, empty=False)}
    return game_link(game, zone_options=zone_options, **where)
