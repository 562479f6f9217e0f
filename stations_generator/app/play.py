"""The use cases behind ``roll``, ``route`` and ``calibrate``: the map, the stations
the players named, and where drive times come from.

The functions report through logging (notes, ``-v`` details, warnings and status lines,
:mod:`stations_generator.app.reporting`); none prints.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stations_generator.app.reporting import status, status_sink
from stations_generator.core.play.drive import (
    GREAT_CIRCLE_SPEED_KPH,
    DriveTimes,
    GreatCircleDriveTimes,
    RoadDriveTimes,
)
from stations_generator.core.play.routes import (
    ItineraryRoute,
    Station,
    StationMatch,
    find_station,
    plan_itinerary,
    split_itinerary,
)
from stations_generator.core.stationmap.density import DEFAULT_TIERS, WaitTier, parse_tiers
from stations_generator.errors import InputError
from stations_generator.formats.atomic import reading
from stations_generator.formats.stationfile import StationFile, read_station_map

__all__ = [
    "RoadOptions",
    "drive_times",
    "load_map",
    "locate_itinerary",
    "locate_station",
    "map_tiers",
]


#: Which station a guess took (info), where drive times come from (debug), warnings.
log = logging.getLogger(__name__)


def load_map(path: Path) -> StationFile:
    """Read a ``stations.geojson``, never a set a killed ``generate`` left half-written.

    Parameters
    ----------
    path : Path

    Returns
    -------
    StationFile

    Raises
    ------
    InputError
        As :func:`stations_generator.formats.stationfile.read_station_map`.
    """
    with reading(path):
        return read_station_map(path)


def _mention_fuzzy(matches: Sequence[StationMatch]) -> None:
    for m in matches:
        if m.kind in ("fuzzy", "part"):
            log.info(f"{m.query!r}: taking {m.station.display}")


def locate_station(query: str, stations: Sequence[Station]) -> Station:
    """The station a player named (name, part of a name or id), saying (info) when it was
    a guess.

    Parameters
    ----------
    query : str
    stations : sequence of Station

    Returns
    -------
    Station

    Raises
    ------
    InputError
        No station matches, or several do (the message lists them).
    """
    match = find_station(query, stations)
    _mention_fuzzy([match])
    return match.station


def locate_itinerary(queries: Sequence[str], stations: Sequence[Station]) -> list[ItineraryRoute]:
    """The routes a player named (stations in order, routes separated by ``"/"``), saying
    (info) which station each fuzzy or partial match took.

    Parameters
    ----------
    queries : sequence of str
        The command line's station names.
    stations : sequence of Station

    Returns
    -------
    list of ItineraryRoute

    Raises
    ------
    InputError
        A name matches no station or several, or the routes do not connect.
    """
    itinerary, matches = plan_itinerary(split_itinerary(queries), stations)
    _mention_fuzzy(matches)
    return itinerary


def map_tiers(station_map: StationFile) -> tuple[WaitTier, ...] | None:
    """The wait tiers a map was generated with.

    Parameters
    ----------
    station_map : StationFile

    Returns
    -------
    tuple of WaitTier or None
        Its metadata's ``tiers`` text parsed, or the default tiers when its stations'
        tier names are the defaults' (maps written before the text was kept); None
        when neither tells.
    """
    text = station_map.metadata.get("tiers")
    if isinstance(text, str):
        try:
            return parse_tiers(text)
        except ValueError:
            return None
    names = {s.density_tier for s in station_map.stations if s.density_tier}
    return DEFAULT_TIERS if names <= {t.name for t in DEFAULT_TIERS} else None


@dataclass(frozen=True)
class RoadOptions:
    """Where drive times come from (the road options shared by ``route`` and ``calibrate``).

    Attributes
    ----------
    osm : Path or None
        An OSM extract with the play area's roads.
    online : bool
        Download the roads from Overpass instead.
    speed : float
        km/h along the great circle where there is no road path.
    overpass_urls : tuple of str
        Overpass endpoints (empty: the defaults).
    cache_dir : Path or None
        The Overpass cache folder (None: the default).
    use_cache : bool
    overpass_timeout : float
        Deadline of the download in seconds.
    """

    osm: Path | None = None
    online: bool = False
    speed: float = GREAT_CIRCLE_SPEED_KPH
    overpass_urls: tuple[str, ...] = ()
    cache_dir: Path | None = None
    use_cache: bool = True
    overpass_timeout: float = 300.0


def _bbox(station_map: StationFile, margin_deg: float = 0.01) -> tuple[float, float, float, float]:
    if station_map.play_area is not None and not station_map.play_area.is_empty:
        w, s, e, n = station_map.play_area.bounds
    else:
        lons = [st.lon for st in station_map.stations]
        lats = [st.lat for st in station_map.stations]
        w, s, e, n = min(lons), min(lats), max(lons), max(lats)
    # ~1 km around the area, so roads just outside its edge keep it connected.
    return (w - margin_deg * 2, s - margin_deg, e + margin_deg * 2, n + margin_deg)


def _extract_drive_times(station_map: StationFile, roads: RoadOptions, extract: Path) -> DriveTimes:
    from stations_generator.osm.roads import read_drive_graph

    log.debug(f"reading the drivable roads of {extract}")
    with status(log, f"Reading the drivable roads of {extract.name}"):
        graph = read_drive_graph(extract, bbox=_bbox(station_map))
    with status(log, "Building the road graph"):
        times = RoadDriveTimes(graph, fallback_speed_kph=roads.speed, source=extract.name)
    log.debug(times.describe())
    return times


def _online_drive_times(station_map: StationFile, roads: RoadOptions) -> DriveTimes:
    from stations_generator.osm import overpass
    from stations_generator.osm.roads import fetch_drive_graph

    area = station_map.play_area
    if area is None:
        import shapely

        area = shapely.MultiPoint([(s.lon, s.lat) for s in station_map.stations]).envelope
    log.debug("downloading the drivable roads from Overpass (cached)")
    client = overpass.client(
        roads.overpass_urls,
        timeout=roads.overpass_timeout,
        cache_dir=roads.cache_dir,
        use_cache=roads.use_cache,
        log=log.debug,
        notify=log.info,
        status=status_sink(log),
    )
    graph = fetch_drive_graph(area, client=client)
    with status(log, "Building the road graph"):
        return RoadDriveTimes(graph, fallback_speed_kph=roads.speed, source="Overpass")


def drive_times(station_map: StationFile, roads: RoadOptions) -> DriveTimes:
    """Drive times between the map's stations, from the roads the options name.

    Parameters
    ----------
    station_map : StationFile
        Its play area (or its stations' extent) bounds the roads read.
    roads : RoadOptions
        An extract, Overpass, or neither: great-circle estimates at ``roads.speed``
        (with a warning).

    Returns
    -------
    DriveTimes

    Raises
    ------
    InputError
        Both an extract and ``online`` are given.
    """
    if roads.osm is not None and roads.online:
        raise InputError("give either --osm EXTRACT or --online for the roads, not both")
    if roads.osm is not None:
        return _extract_drive_times(station_map, roads, roads.osm)
    if roads.online:
        return _online_drive_times(station_map, roads)
    log.warning(
        f"no roads given (--osm EXTRACT or --online): drive times are great-circle "
        f"estimates at an assumed {roads.speed:g} km/h"
    )
    return GreatCircleDriveTimes(roads.speed, "no road graph")
