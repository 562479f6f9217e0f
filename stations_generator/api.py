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
    sg.hider_answers(game, hider=(60.17, 24.93))

Each verb calls the same function as the command line, so the files written from
Python and by the CLI are byte-identical. Warnings go through :mod:`warnings` (as
:class:`StationsGeneratorWarning`) unless a ``warn`` callable is given; bad input
raises :class:`~stations_generator.errors.UserError` subclasses with the CLI's message.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


@dataclass(frozen=True)
class PlayArea:
    """A play area: its polygon, the areas left out of it, and the map's default name."""

    polygon: BaseGeometry
    exclusions: tuple[BaseGeometry, ...] = ()
    name: str = "play-area"
    #: How it was given (for the ``generate`` equivalent): a file, relation or place.
    source: Any = None

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


def _request(**fields: Any):
    from stations_generator.app.requests import GenerateRequest

    return GenerateRequest(**fields)


def _overpass_fields(settings: OverpassSettings | None) -> dict[str, Any]:
    s = settings or OverpassSettings()
    return {
        "overpass_urls": tuple(s.urls),
        "overpass_timeout": s.timeout,
        "cache_dir": None if s.cache_dir is None else Path(s.cache_dir),
        "use_cache": s.use_cache,
    }


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
    source : path, shapely geometry or GeoJSON dict
        A file in any play-area format (GeoJSON, KML/KMZ, GPX, shapefile, GeoPackage),
        a (Multi)Polygon in WGS84, or parsed GeoJSON. Give this, ``place`` or
        ``osm_relation``.
    place : str
        Online: a named place geocoded with Nominatim, e.g. ``"Vaduz, Liechtenstein"``.
    osm_relation : int
        Online: an OSM relation whose area is the play area.
    exclude : iterable
        Areas to leave out (files, geometries or GeoJSON, as ``source``).
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
    InputError, NoDataError, NetworkError
        With the message the command line prints.
    """
    from stations_generator.app.generate import read_area
    from stations_generator.errors import InputError
    from stations_generator.formats.playarea import load_polygons, parse_polygons

    given = [s for s in (source, place, osm_relation) if s is not None]
    if len(given) != 1:
        raise InputError("give exactly one of a play area, place= or osm_relation=")
    say = warn if warn is not None else _python_warning

    def one(value: Any, min_area_km2: float | None = None) -> BaseGeometry:
        kwargs = {} if min_area_km2 is None else {"min_area_km2": min_area_km2}
        if isinstance(value, str | Path):
            return load_polygons(Path(value), say, **kwargs)
        if isinstance(value, dict):
            return parse_polygons(value, "the GeoJSON", say, **kwargs)
        import shapely

        if hasattr(value, "__geo_interface__"):
            geojson = json.loads(shapely.to_geojson(value))
            return parse_polygons(geojson, "the geometry", say, **kwargs)
        raise InputError(
            f"a play area must be a file path, a shapely geometry or GeoJSON, not {type(value).__name__}"
        )

    exclusions = tuple(one(e, 0) for e in exclude)
    if source is not None and not isinstance(source, str | Path):
        return PlayArea(one(source), exclusions, name or "play-area", source)
    request = _request(
        play_area=Path(source) if source is not None else None,
        place=place,
        osm_relation=osm_relation,
        **_overpass_fields(overpass),
    )
    with _warnings_to(warn):
        polygon, _none, default = read_area(request)
    return PlayArea(polygon, exclusions, name or default, source or place or osm_relation)


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

    request = _request(
        play_area=None,
        osm_files=tuple(Path(p) for p in files),
        water_files=tuple(Path(p) for p in water_files),
        category_files=tuple(Path(p) for p in category_files),
        only_categories=tuple(categories),
        include_transit=include_transit,
        water_subtract=water,
        **_overpass_fields(overpass),
    )
    catalogue = select_catalogue(request)
    with _warnings_to(None):
        data = load_data(request, area.polygon, catalogue)
    return OsmLayers(
        data,
        tuple(categories),
        tuple(Path(p) for p in category_files),
        include_transit,
        water,
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
        The solver's budget in deterministic seconds [default: 60]; only with ``optimize``.
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
    """
    from stations_generator.app.generate import build, select_catalogue
    from stations_generator.core.stationmap.optimize import DEFAULT_TIME_LIMIT_S
    from stations_generator.errors import InputError

    if search is not None and (
        isinstance(search, bool) or not isinstance(search, int) or search < 0
    ):
        raise InputError(f"search must be a whole number of rounds >= 0, got {search!r}")
    if search is not None and strict_priority:
        raise InputError("search re-packs the map and strict_priority forbids that; drop one")
    request = _request(
        category_files=osm.category_files,
        only_categories=osm.categories,
        include_transit=osm.include_transit,
        min_spacing=float(min_spacing),
        cluster_gap=float(cluster_gap),
        cluster_radius=None if cluster_radius is None else float(cluster_radius),
        max_per_cluster=max_per_cluster,
        game_size=game_size,
        density_radius=float(density_radius),
        tiers=tiers,
        playing_hours=playing_hours,
        playing_days=playing_days,
        play_date=play_date,
        water_subtract=water_subtract and osm.water,
        strict_priority=strict_priority,
        optimize=optimize,
        time_limit=DEFAULT_TIME_LIMIT_S if time_limit is None else float(time_limit),
        search_rounds=search,
    )
    catalogue = select_catalogue(request)
    with _warnings_to(warn):
        result = build(request, area.polygon, list(area.exclusions), osm.data, catalogue)
    result.settings["name"] = area.name
    return result


def summary(station_map: StationMap) -> list[str]:
    """The summary lines ``generate`` prints (stations, game size, cap, closest pair)."""
    from stations_generator.app.generate import summary_lines

    return summary_lines(station_map)


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

    title = name or station_map.settings.get("name", "play-area")
    texts = output_texts(station_map, title, explain=explain, html_map=html_map)
    return write_outputs(Path(output_dir), texts)


def read_game(
    path: PathLike,
    *,
    osm: Sequence[PathLike] = (),
    play_area: PathLike | None = None,
    stations: PathLike | None = None,
    overpass: OverpassSettings | None = None,
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
    warn : callable

    Returns
    -------
    Game
    """
    import dataclasses

    from stations_generator.app.games import game_title, load
    from stations_generator.app.map_context import map_sources

    s = overpass or OverpassSettings()
    sources = map_sources(
        osm,
        play_area,
        stations,
        overpass_urls=s.urls,
        cache_dir=s.cache_dir,
        use_cache=s.use_cache,
    )
    say = warn if warn is not None else _python_warning
    game = load(Path(path), sources, say, validate=False).game
    game = dataclasses.replace(game, title=game_title(Path(path)))
    return game


def apply_game(game: Game, *, warn: Warn | None = None) -> GameResult:
    """Apply every recorded answer: the area each question removed, what remains, and
    each hiding zone's status (what ``questions apply`` computes)."""
    from stations_generator.core.questions.geometry import QuestionError
    from stations_generator.errors import InputError

    try:
        game.validate()
    except QuestionError as exc:
        raise InputError(str(exc)) from None
    elimination = game.eliminate()
    say = warn if warn is not None else _python_warning
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

    texts = apply_texts(
        result.game, result.elimination, result.zones, html_map=html_map, title=result.title
    )
    with output_set(Path(output_dir), APPLY_FILES) as outputs:
        for file_name, text in texts.items():
            outputs.write_text(file_name, text)
    return [Path(output_dir) / n for n in texts]


def check_zone(
    game: Game, *, station: str | None = None, at: tuple[float, float] | None = None
) -> ZoneCheck:
    """Is a hiding zone still valid? ``station`` is an id (``node/123``) or name; ``at``
    is a (lat, lon) centre. The result names each question that rules the zone out."""
    from stations_generator.app.games import check_zone as check

    point = None if at is None else (float(at[1]), float(at[0]))
    label = "" if at is None else f"{at[0]},{at[1]}"
    return check(game, station=station, at=point, label=label)


def hider_answers(
    game: Game, hider: tuple[float, float], *, station: str | None = None
) -> list[dict[str, Any]]:
    """Every question answered truthfully for a hider at ``hider`` = (lat, lon): one dict
    per question with ``label``, ``answer``, ``value`` and the ``recorded`` answer."""
    from stations_generator.app.games import hider_answers as answers

    lat, lon = float(hider[0]), float(hider[1])
    return answers(game, lon, lat, station, label=f"{lat},{lon}")


def map_html(
    result: StationMap | GameResult, *, title: str | None = None, candidates: bool = True
) -> str:
    """The interactive map page of a station map (``generate --map``; with ``candidates``
    the rejected candidates' layer of ``--explain``) or of a game (``questions apply
    --map``): one self-contained page (Leaflet inlined; only map tiles load online)."""
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

    where = {} if base_url is None else {"base_url": base_url}
    return game_link(game, zone_options=zone_options, **where)
