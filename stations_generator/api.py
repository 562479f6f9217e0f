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

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stations_generator.app.request_fields import (
    argument,
    check_flag,
    check_items,
    check_number,
    check_path,
    check_text,
    describe,
)
from stations_generator.errors import ArgumentError, ArgumentTypeError, ArgumentValueError

if TYPE_CHECKING:  # the heavy modules load on first use
    from shapely.geometry.base import BaseGeometry

    from stations_generator.core.questions.game import Elimination, Game, ZoneCheck, ZoneStatus
    from stations_generator.core.stationmap.build import StationMap
    from stations_generator.osm.sources import OsmData

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

Warn = Callable[[str], None]
PathLike = str | Path


class StationsGeneratorWarning(UserWarning):
    """A warning about the user's input (a ring closed, a play area partly uncovered, …)."""


@dataclass(frozen=True)
class OverpassSettings:
    """How to reach Overpass (and Nominatim for ``place=``); the CLI's defaults.

    Attributes
    ----------
    urls : tuple of str
        Endpoints tried in order; empty = the built-in public instances.
    timeout : float
        Deadline in seconds for each request (every try, instance and wait).
    cache_dir : path or None
        Cache folder; None = the user cache dir.
    use_cache : bool
        Read and write the cache.
    """

    urls: tuple[str, ...] = ()
    timeout: float = 300.0
    cache_dir: Path | None = None
    use_cache: bool = True

    def __post_init__(self) -> None:
        from stations_generator.app.request_fields import SECONDS

        checked = {
            "urls": check_items("urls", self.urls, check_text, "URLs (str)"),
            # the range of the command line's --overpass-timeout (commands/options.py)
            "timeout": check_number("timeout", self.timeout, SECONDS(min=1)),
            "cache_dir": None
            if self.cache_dir is None
            else check_path("cache_dir", self.cache_dir),
            "use_cache": check_flag("use_cache", self.use_cache),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class PlayArea:
    """A play area: its polygon, the areas left out of it, and the map's default name."""

    polygon: BaseGeometry
    exclusions: tuple[BaseGeometry, ...] = ()
    name: str = "play-area"
    #: How it was given (for the ``generate`` equivalent): a file, relation or place.
    source: Any = None

    def __post_init__(self) -> None:
        _polygon("polygon", self.polygon)
        exclusions = check_items("exclusions", self.exclusions, _polygon, "(Multi)Polygons")
        object.__setattr__(self, "exclusions", exclusions)
        check_text("name", self.name)

    @property
    def area_km2(self) -> float:
        """The polygon's geodesic area in km² (before water and exclusions)."""
        from stations_generator.core.geo.geodesy import geodesic_area_km2

        return geodesic_area_km2(self.polygon)


@dataclass
class OsmLayers:
    """The OSM objects and water for one play area, and the station categories read."""

    data: OsmData
    categories: tuple[str, ...]
    category_files: tuple[Path, ...] = ()
    include_transit: bool = True
    water: bool = True

    @property
    def sources(self) -> list[str]:
        """Where the data came from (file names or ``Overpass``)."""
        return self.data.sources


@dataclass
class GameResult:
    """A game after its questions: what each removed, what remains, every zone's status."""

    game: Game
    elimination: Elimination
    zones: list[ZoneStatus]
    title: str = "game"

    def __post_init__(self) -> None:
        from stations_generator.core.questions.game import Elimination

        _game("game", self.game)
        _instance("elimination", self.elimination, Elimination, "an Elimination")
        check_items("zones", self.zones, lambda _name, zone: zone, "ZoneStatus")
        check_text("title", self.title)

    @property
    def remaining_km2(self) -> float:
        """Area still possible, km²."""
        return self.elimination.remaining_km2

    @property
    def possible_zones(self) -> list[ZoneStatus]:
        """The hiding zones still possible."""
        return [z for z in self.zones if z.possible]

    def summary(self) -> list[str]:
        """The table ``questions apply`` prints."""
        from stations_generator.app.games import summary_table

        return summary_table(self.game, self.elimination, self.zones)


def _python_warning(message: str) -> None:
    warnings.warn(message, StationsGeneratorWarning, stacklevel=3)


@contextlib.contextmanager
def _warnings_to(warn: Warn | None) -> Iterator[None]:
    """The package's warnings logged during the block go to ``warn``, else to
    :func:`warnings.warn`; its notes stay plain log records."""
    from stations_generator.app.reporting import routed

    with routed(warn=warn if warn is not None else _python_warning):
        yield


# --- the checks at the API's edge -------------------------------------------------------
# Each raises ArgumentTypeError / ArgumentValueError (a TypeError / ValueError, and an
# InputError with the CLI's one-line message) naming the parameter.


def _instance(name: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kind):
        raise ArgumentTypeError(name, f" must be {what}, not {describe(value)}")
    return value


def _polygon(name: str, value: Any) -> BaseGeometry:
    if getattr(value, "geom_type", None) not in ("Polygon", "MultiPolygon"):
        raise ArgumentTypeError(
            name,
            " must be a shapely Polygon or MultiPolygon in WGS84 (read_play_area reads "
            f"files, GeoJSON and GeoDataFrames), not {describe(value)}",
        )
    return value


def _game(name: str, value: Any) -> Game:
    from stations_generator.core.questions.game import Game

    return _instance(name, value, Game, "a Game (from read_game)")


def _station_map(name: str, value: Any) -> StationMap:
    from stations_generator.core.stationmap.build import StationMap

    return _instance(name, value, StationMap, "a StationMap (from make_station_map)")


def _optional_text(name: str, value: Any, *, empty: bool = True) -> str | None:
    return None if value is None else check_text(name, value, empty=empty)


def _warn(value: Any) -> Warn:
    if value is None:
        return _python_warning
    if not callable(value):
        raise ArgumentTypeError("warn", f" must be a callable taking a str, not {describe(value)}")
    return value


def _existing(name: str, paths: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(_file(f"{name}[{k}]", path) for k, path in enumerate(paths))


def _file(name: str, value: Any) -> Path:
    path = check_path(name, value)
    if not path.is_file():
        raise ArgumentValueError(name, f": no file {str(path)!r}; check the path")
    return path


def _request(names: dict[str, str] | None = None, **fields: Any):
    """The GenerateRequest of ``fields``; its errors name the API's keywords (``names``:
    field -> keyword)."""
    from stations_generator.app.requests import GenerateRequest

    try:
        return GenerateRequest(**fields)
    except ArgumentError as exc:
        field = exc.parameter.split("[")[0]
        keyword = (names or {}).get(field, field)
        raise exc.renamed(keyword + exc.parameter[len(field) :]) from None


def _overpass_fields(settings: OverpassSettings | None) -> dict[str, Any]:
    s = OverpassSettings() if settings is None else settings
    _instance("overpass", s, OverpassSettings, "an OverpassSettings")
    keys = ("overpass_urls", "overpass_timeout", "cache_dir", "use_cache")
    return dict(zip(keys, (s.urls, s.timeout, s.cache_dir, s.use_cache), strict=True))


def read_play_area(
    source: PathLike | BaseGeometry | dict | None = None,
    *,
    place: str | None = None,
    osm_relation: int | None = None,
    exclude: Iterable[PathLike | BaseGeometry | dict] = (),
    name: str | None = None,
    overpass: OverpassSettings | None = None,
    warn: Warn | None = None,
) -> PlayArea:
    """Read a play area and the areas to leave out of it.

    Parameters
    ----------
    source : path, shapely geometry, GeoJSON dict, GeoDataFrame or GeoSeries
        A file in any play-area format (GeoJSON, KML/KMZ, GPX, shapefile, GeoPackage),
        a (Multi)Polygon in WGS84, parsed GeoJSON, or a GeoDataFrame/GeoSeries in any
        CRS (reprojected to EPSG:4326; one without a CRS is refused). Give this,
        ``place`` or ``osm_relation``.
    place : str
        Online: a named place geocoded with Nominatim, e.g. ``"Vaduz, Liechtenstein"``.
    osm_relation : int
        Online: an OSM relation whose area is the play area.
    exclude : list
        Areas to leave out (as ``source``); a list even for one.
    name : str
        The map's name [default: the file's name, the place, or ``relation-ID``].
    overpass : OverpassSettings
        How to reach Overpass/Nominatim for ``place`` and ``osm_relation``.
    warn : callable
        Receives one-line warnings [default: :func:`warnings.warn`].

    Returns
    -------
    PlayArea

    Raises
    ------
    TypeError, ValueError
        For a bad argument, naming it (also an InputError).
    InputError, NoDataError, NetworkError
        With the message the command line prints.
    """
    from stations_generator.app.generate import area_from_value, read_area

    named = (("source", source), ("place", place), ("osm_relation", osm_relation))
    given = [k for k, v in named if v is not None]
    if len(given) != 1:
        got = f" (got {' and '.join(given)})" if given else ""
        raise ArgumentValueError("source", f", place= or osm_relation=: give exactly one{got}")
    say = _warn(warn)
    name = _optional_text("name", name)
    overpass_fields = _overpass_fields(overpass)
    exclusions = check_items(
        "exclude",
        exclude,
        lambda key, e: area_from_value(key, _not_play_area(key, e), say, min_area_km2=0),
        "areas (paths, geometries, GeoJSON, GeoDataFrames)",
    )
    if source is not None and not isinstance(source, str | os.PathLike):
        polygon = area_from_value("source", _not_play_area("source", source), say)
        return PlayArea(polygon, exclusions, name or "play-area", source)
    request = _request(
        {"play_area": "source"},
        play_area=source,
        place=_optional_text("place", place, empty=False),
        osm_relation=osm_relation,
        **overpass_fields,
    )
    with _warnings_to(warn), argument("source" if source is not None else given[0]):
        polygon, _none, default = read_area(request)
    return PlayArea(polygon, exclusions, name or default, source or place or osm_relation)


def _not_play_area(name: str, value: Any) -> Any:
    if isinstance(value, PlayArea):
        raise ArgumentTypeError(name, " is already a PlayArea; use it as it is")
    return value


def load_osm(
    area: PlayArea,
    files: Sequence[PathLike] = (),
    *,
    water_files: Sequence[PathLike] = (),
    water: bool = True,
    categories: Sequence[str] = (),
    category_files: Sequence[PathLike] = (),
    include_transit: bool = True,
    overpass: OverpassSettings | None = None,
) -> OsmLayers:
    """Load the OSM objects and water for a play area.

    Parameters
    ----------
    area : PlayArea
    files : paths
        Offline: OSM extracts (.osm, .osm.bz2, .osm.pbf) or saved Overpass JSON. Without
        files, one batched Overpass query fetches everything (``overpass`` settings).
    water_files : paths
        Water areas to subtract (Overpass JSON with geometry, or an extract).
    water : bool
        Read water at all (``generate --no-water-subtract`` is ``water=False``).
    categories : names
        Only these station categories [default: every station category].
    category_files : paths
        TOML files of ``[[category]]`` entries extending the catalogue.
    include_transit : bool
        Keep real transit stations (``--no-transit`` is False).
    overpass : OverpassSettings
        How to reach Overpass when no ``files`` are given.

    Returns
    -------
    OsmLayers
    """
    from stations_generator.app.generate import load_data, select_catalogue

    _play_area("area", area)
    request = _request(
        _LOAD_OSM_NAMES,
        play_area=None,
        osm_files=files,
        water_files=water_files,
        category_files=category_files,
        only_categories=categories,
        include_transit=include_transit,
        water_subtract=water,
        **_overpass_fields(overpass),
    )
    for field, keyword in _LOAD_OSM_NAMES.items():
        if field.endswith("_files"):
            _existing(keyword, getattr(request, field))
    with argument("categories" if not category_files else "category_files or categories"):
        catalogue = select_catalogue(request)
    with _warnings_to(None):
        data = load_data(request, area.polygon, catalogue)
    return OsmLayers(
        data,
        request.only_categories,
        request.category_files,
        request.include_transit,
        request.water_subtract,
    )


#: load_osm's keywords by the GenerateRequest fields they set (the files: checked to exist).
_LOAD_OSM_NAMES = {
    "osm_files": "files",
    "water_files": "water_files",
    "category_files": "category_files",
    "only_categories": "categories",
    "water_subtract": "water",
}
#: make_station_map's.
_MAP_NAMES = {"search_rounds": "search"}


def _play_area(name: str, value: Any) -> PlayArea:
    return _instance(
        name, value, PlayArea, "a PlayArea (read_play_area reads a file, GeoJSON or GeoDataFrame)"
    )


def make_station_map(
    area: PlayArea,
    osm: OsmLayers,
    *,
    min_spacing: float = 300.0,
    cluster_gap: float = 1000.0,
    cluster_radius: float | None = None,
    max_per_cluster: int | None = None,
    game_size: str | None = None,
    density_radius: float = 1609.0,
    tiers: str | None = None,
    playing_hours: str = "7am-7pm",
    playing_days: str = "sat,sun",
    play_date: dt.date | None = None,
    water_subtract: bool = True,
    strict_priority: bool = False,
    optimize: bool = False,
    time_limit: float | None = None,
    search: int | None = None,
    warn: Warn | None = None,
) -> StationMap:
    """Pick the vehicle stations: every ``generate`` option, with its default.

    Parameters
    ----------
    area : PlayArea
    osm : OsmLayers
        From :func:`load_osm`.
    min_spacing, cluster_gap : float
        Metres between stations of one cluster / of different clusters.
    cluster_radius : float or None
        Metres from a cluster's first station [default: the game size's hiding radius].
    max_per_cluster : int or None
        Cap on non-transit stations per cluster; 0 = none [default: auto-tuned].
    game_size : "S", "M", "L" or None
        [default: from the net play area].
    density_radius : float
        Metres for the nearby count that sets the wait tier.
    tiers : str or None
        ``NAME:MIN_NEARBY:MIN-MAX,…`` [default: dense:15:5-15,moderate:5:10-30,sparse:0:20-60].
    playing_hours, playing_days, play_date
        The playing window (POIs closed all through it rank last).
    water_subtract : bool
        Subtract water from the play area.
    strict_priority : bool
        Pure rank-order selection, without the swaps that add stations.
    optimize : bool
        Solve the spacing exactly (CP-SAT), as ``generate --optimize``: the most stations
        the rules allow, never fewer than without it; ``summary()`` gives the proven bound.
    time_limit : float or None
        The solver's budget in deterministic seconds [default: 60]; only with ``optimize``
        (refused without it, as ``generate --time-limit`` without ``--optimize``).
    search : int or None
        Rounds of local search per greedy start, as ``generate --search``: more stations
        under the same rules, the same map on every run [default: 4 per candidate, at
        most 2000]; 0 = the greedy with its swaps only.
    warn : callable
        Receives warnings (data coverage, far below the game-size band).

    Returns
    -------
    StationMap
        ``stations`` and ``candidates`` GeoDataFrames, the net area, the rules used.

    Raises
    ------
    TypeError, ValueError
        For a setting ``generate`` refuses too (the same checks), naming the keyword.
    """
    from stations_generator.app.generate import build, select_catalogue
    from stations_generator.core.stationmap.optimize import DEFAULT_TIME_LIMIT_S

    _play_area("area", area)
    _instance("osm", osm, OsmLayers, "OsmLayers (from load_osm)")
    _warn(warn)
    request = _request(
        _MAP_NAMES,
        category_files=osm.category_files,
        only_categories=osm.categories,
        include_transit=osm.include_transit,
        min_spacing=min_spacing,
        cluster_gap=cluster_gap,
        cluster_radius=cluster_radius,
        max_per_cluster=max_per_cluster,
        game_size=game_size,
        density_radius=density_radius,
        tiers=tiers,
        playing_hours=playing_hours,
        playing_days=playing_days,
        play_date=play_date,
        water_subtract=water_subtract,
        strict_priority=strict_priority,
        optimize=optimize,
        time_limit=DEFAULT_TIME_LIMIT_S if time_limit is None else time_limit,
        search_rounds=search,
    )
    _check_map_settings(request, time_limit)
    request = dataclasses.replace(request, water_subtract=request.water_subtract and osm.water)
    catalogue = select_catalogue(request)
    with _warnings_to(warn):
        result = build(request, area.polygon, list(area.exclusions), osm.data, catalogue)
    result.settings["name"] = area.name
    return result


def _check_map_settings(request: Any, time_limit: float | None) -> None:
    """What ``generate`` checks beyond each option alone, in the same words (its usage
    checks, and the play window and tiers it reads first), naming the keyword."""
    from stations_generator.app.generate import check_settings

    if time_limit is not None and not request.optimize:
        raise ArgumentValueError("time_limit", " is the optimize budget; add optimize=True")
    if request.search_rounds is not None and request.strict_priority:
        raise ArgumentValueError(
            "search", " re-packs the map and strict_priority forbids that; drop one"
        )
    check_settings(request)


def summary(station_map: StationMap) -> list[str]:
    """The summary lines ``generate`` prints (stations, game size, cap, closest pair)."""
    from stations_generator.app.generate import summary_lines

    return summary_lines(_station_map("station_map", station_map))


def write_station_map(
    station_map: StationMap,
    output_dir: PathLike,
    *,
    name: str | None = None,
    explain: bool = False,
    html_map: bool = False,
) -> list[Path]:
    """Write stations.geojson, stations.csv and stations.kml (plus candidates.geojson with
    ``explain``, stations.html with ``html_map``) into ``output_dir``.

    The files appear together or not at all; files of an earlier run that this call does
    not write (e.g. stations.html) are removed, so the folder never mixes two runs.

    Returns
    -------
    list of Path
        The files written.
    """
    from stations_generator.app.generate import output_texts, write_outputs

    _station_map("station_map", station_map)
    folder = check_path("output_dir", output_dir)
    title = _optional_text("name", name) or station_map.settings.get("name", "play-area")
    texts = output_texts(
        station_map,
        title,
        explain=check_flag("explain", explain),
        html_map=check_flag("html_map", html_map),
    )
    return write_outputs(folder, texts)


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

    game_file = _file("path", path)
    given = {"play_area": play_area, "stations": stations, "dem": dem}
    files = {k: None if v is None else _file(k, v) for k, v in given.items()}
    s = OverpassSettings() if overpass is None else overpass
    _instance("overpass", s, OverpassSettings, "an OverpassSettings")
    sources = map_sources(
        check_items("osm", osm, _file, "file paths"),
        files["play_area"],
        files["stations"],
        overpass_urls=s.urls,
        cache_dir=s.cache_dir,
        use_cache=s.use_cache,
        dem=files["dem"],
    )
    say = _warn(warn)
    with argument("path"):
        game = load(game_file, sources, say, validate=False).game
    return dataclasses.replace(game, title=game_title(game_file))


def apply_game(game: Game, *, warn: Warn | None = None) -> GameResult:
    """Apply every recorded answer: the area each question removed, what remains, and
    each hiding zone's status (what ``questions apply`` computes)."""
    from stations_generator.core.questions.geometry import QuestionError
    from stations_generator.errors import InputError

    _game("game", game)
    say = _warn(warn)
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

    _instance("result", result, GameResult, "a GameResult (from apply_game)")
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

    _game("game", game)
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

    _game("game", game)
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
    _instance("result", result, (StationMap, GameResult), what)
    title = _optional_text("title", title)
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

    _game("game", game)
    if zone_options is not None:
        zone_options = list(check_items("zone_options", zone_options, check_text, "str filters"))
    where = {} if base_url is None else {"base_url": check_text("base_url", base_url, empty=False)}
    return game_link(game, zone_options=zone_options, **where)
