"""The station-map verbs: read a play area, load OSM data, build and write a station map.

See :mod:`stations_generator.api` for how they are used.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stations_generator.api.checks import (
    OsmLayers,
    OverpassSettings,
    PathLike,
    PlayArea,
    Warn,
    check_existing,
    check_instance,
    check_optional_text,
    check_station_map,
    check_warn,
    make_request,
    overpass_request_fields,
    warnings_to,
)
from stations_generator.app.request_fields import (
    MAP_PALETTE,
    argument,
    check_flag,
    check_items,
    check_path,
)
from stations_generator.errors import ArgumentTypeError, ArgumentValueError

if TYPE_CHECKING:  # the heavy modules load on first use
    from shapely.geometry.base import BaseGeometry

    from stations_generator.core.stationmap.build import StationMap


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
    say = check_warn(warn)
    name = check_optional_text("name", name)
    overpass_fields = overpass_request_fields(overpass)
    exclusions = check_items(
        "exclude",
        exclude,
        lambda key, e: area_from_value(key, _not_play_area(key, e), say, min_area_km2=0),
        "areas (paths, geometries, GeoJSON, GeoDataFrames)",
    )
    if source is not None and not isinstance(source, str | os.PathLike):
        polygon = area_from_value("source", _not_play_area("source", source), say)
        return PlayArea(polygon, exclusions, name or "play-area", source)
    request = make_request(
        {"play_area": "source"},
        play_area=source,
        place=check_optional_text("place", place, empty=False),
        osm_relation=osm_relation,
        **overpass_fields,
    )
    with warnings_to(warn), argument("source" if source is not None else given[0]):
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
    request = make_request(
        _LOAD_OSM_NAMES,
        play_area=None,
        osm_files=files,
        water_files=water_files,
        category_files=category_files,
        only_categories=categories,
        include_transit=include_transit,
        water_subtract=water,
        **overpass_request_fields(overpass),
    )
    for field, keyword in _LOAD_OSM_NAMES.items():
        if field.endswith("_files"):
            check_existing(keyword, getattr(request, field))
    with argument("categories" if not category_files else "category_files or categories"):
        catalogue = select_catalogue(request)
    with warnings_to(None):
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
    return check_instance(
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
    check_instance("osm", osm, OsmLayers, "OsmLayers (from load_osm)")
    check_warn(warn)
    request = make_request(
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
    with warnings_to(warn):
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

    return summary_lines(check_station_map("station_map", station_map))


def write_station_map(
    station_map: StationMap,
    output_dir: PathLike,
    *,
    name: str | None = None,
    explain: bool = False,
    html_map: bool = False,
    palette: str = "default",
) -> list[Path]:
    """Write stations.geojson, stations.csv and stations.kml (plus candidates.geojson with
    ``explain``, stations.html in ``palette`` with ``html_map``) into ``output_dir``.

    The files appear together or not at all; files of an earlier run that this call does
    not write (e.g. stations.html) are removed, so the folder never mixes two runs.

    Returns
    -------
    list of Path
        The files written.
    """
    from stations_generator.app.generate import output_texts, write_outputs

    check_station_map("station_map", station_map)
    folder = check_path("output_dir", output_dir)
    title = check_optional_text("name", name) or station_map.settings.get("name", "play-area")
    texts = output_texts(
        station_map,
        title,
        explain=check_flag("explain", explain),
        html_map=check_flag("html_map", html_map),
        palette=MAP_PALETTE.check("palette", palette, "default"),
    )
    return write_outputs(folder, texts)
