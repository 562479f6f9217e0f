"""``timetable stations``: a station map from a GTFS feed, alone or merged with an OSM one.

The stations (:func:`stations_generator.core.transit.selection.select_stations`) are
written as ``generate`` writes a station map — ``stations.geojson`` (RFC 7946),
``stations.csv`` and ``stations.kml``, as one output set (all or nothing; the set's
other files from an earlier run in the folder removed), byte-identical on a rerun — so
``map``, games and taibeled-style viewers read them as OSM station maps. Each station's
properties are the station map's (:data:`~stations_generator.formats.geojson.STATION_PROPERTIES`)
where they apply, plus ``routes``, ``departures_per_hour`` and ``gtfs_stop_id``:

* ``id`` ``gtfs:<stop_id>`` (the parent station's, or the stop's); ``name`` its name;
* ``category`` by its routes' mode (:data:`~stations_generator.core.transit.modes.MODE_CATEGORY`:
  ``train_station``, ``subway_station``, ``tram_stop``, ``bus_stop``…);
* ``wait_min`` / ``wait_max``: the wait for the next vehicle in the window, in whole
  minutes: the shortest gap between two departures (rounded down) and the longest wait
  (rounded up; :mod:`~stations_generator.core.transit.window`), capped at 1,440;
* ``open_during_play`` ``yes`` (it is served in the window); no cluster, tier or OSM id.

With an OSM station map (``--osm-stations``): a feed station is the same as an OSM one
when they lie within :data:`SAME_PLACE_M` (geodesic), or have the same name (letters
and digits compared, case folded) within :data:`SAME_NAME_M`. The OSM station is kept
(with its cluster and OSM id) and gains the feed's ``routes`` and
``departures_per_hour``; the feed stations that match none are added; the OSM map's
play area, exclusions and rules stay.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stations_generator.app.generate import (
    GENERATE_FILES,
    STATIONS_CSV,
    STATIONS_GEOJSON,
    STATIONS_KML,
)
from stations_generator.app.timetable_feed import FeedChoice, FeedDay, open_feed, resolve
from stations_generator.core.geo.shapes import distance_m
from stations_generator.core.stationmap.pointtable import PointTable, text_column
from stations_generator.core.transit.modes import MODE_CATEGORY, MODES, mode_of
from stations_generator.core.transit.selection import Selection, select_stations
from stations_generator.errors import InputError
from stations_generator.formats import csv as csv_export
from stations_generator.formats import geojson, kml
from stations_generator.formats.atomic import output_set
from stations_generator.formats.stationfile import StationFile, read_station_map

__all__ = [
    "EXTRA_PROPERTIES",
    "SAME_NAME_M",
    "SAME_PLACE_M",
    "FeedStationMap",
    "feed_station_map",
    "merge_with_osm",
    "run_timetable_stations",
    "station_map_texts",
]

log = logging.getLogger(__name__)

#: Properties a feed's stations carry besides the station map's.
EXTRA_PROPERTIES = ("routes", "departures_per_hour", "gtfs_stop_id")
#: Within this, a feed station and an OSM one are the same station: both points stand on
#: the station (the OSM node anywhere over its platforms, the feed's parent station at
#: its centre), and a platform is up to ~300 m long, so their points lie ≤ 200 m apart;
#: two different rail or metro stations are rarely this close (stop spacing is ~500 m+).
SAME_PLACE_M = 200.0
#: Within this, the same name makes them the same station (a large interchange's parts
#: and its OSM node can lie farther apart than :data:`SAME_PLACE_M`); farther, two stops
#: of the same name are different places (a "Main St" in two suburbs).
SAME_NAME_M = 1000.0
#: The longest wait a station map holds (its schema's upper end: a day).
_MAX_WAIT_MIN = 1440


@dataclass(frozen=True)
class FeedStationMap:
    """A feed's stations as a station map.

    Attributes
    ----------
    feed_day : FeedDay
    selection : Selection
    table : PointTable
        One row per station, the station map's columns and :data:`EXTRA_PROPERTIES`.
    metadata : dict
        The GeoJSON ``metadata`` member.
    osm : StationFile or None
        The OSM station map merged with, if any.
    merged : int
        Feed stations matched to an OSM station.
    """

    feed_day: FeedDay
    selection: Selection
    table: PointTable
    metadata: dict[str, Any]
    osm: StationFile | None = None
    merged: int = 0


def _feed_rows(fd: FeedDay, selection: Selection) -> dict[str, list[Any]]:
    service, feed = selection.service, fd.feed
    cols: dict[str, list[Any]] = {
        name: [] for name in (*geojson.STATION_PROPERTIES, *EXTRA_PROPERTIES)
    }
    for k, station in enumerate(service.stations.tolist()):
        routes = service.routes[k]
        modes = {mode_of(int(feed.route_type[r])) for r in routes}
        longest = int(service.longest_wait_s[k])
        shortest = int(service.shortest_gap_s[k])
        row = {
            "id": f"gtfs:{feed.stop_ids[station]}",
            "name": feed.stop_names[station],
            "category": MODE_CATEGORY[min(modes, key=MODES.index)],
            "cluster_id": None,
            "wait_min": min(shortest // 60, _MAX_WAIT_MIN),
            "wait_max": min(math.ceil(longest / 60), _MAX_WAIT_MIN),
            "density_tier": "",
            "nearby_count": None,
            "open_during_play": "yes",
            "opening_hours": "",
            "osm_type": None,
            "osm_id": None,
            "routes": ";".join(fd.route_names(routes)),
            "departures_per_hour": round(float(service.per_hour[k]), 2),
            "gtfs_stop_id": feed.stop_ids[station],
        }
        for name, value in row.items():
            cols[name].append(value)
    return cols


def _table(cols: dict[str, list[Any]], lon: list[float], lat: list[float]) -> PointTable:
    columns = {}
    for name, values in cols.items():
        columns[name] = (
            text_column(values)
            if all(isinstance(v, str) for v in values)
            else np.array(values, dtype=object)
        )
    return PointTable(columns, np.asarray(lon, dtype=float), np.asarray(lat, dtype=float))


def _metadata(fd: FeedDay, choice: FeedChoice, selection: Selection) -> dict[str, Any]:
    return {
        "attribution": fd.attribution,
        "source": "gtfs",
        "feed": fd.name,
        "service_date": fd.day.isoformat(),
        "window": fd.window_text(),
        "route_types": list(choice.route_types),
        "routes": list(choice.routes),
        "min_per_hour": choice.min_per_hour,
        "every_nth": int(choice.every_nth),
        "served_stations": selection.served,
    }


def feed_station_map(fd: FeedDay, choice: FeedChoice) -> FeedStationMap:
    """The feed's chosen stations as a station map (no OSM map).

    Raises
    ------
    InputError
        No station is left (naming what to loosen).
    """
    selection = select_stations(fd.service, fd.routes, choice.min_per_hour, int(choice.every_nth))
    if len(selection.service.stations) == 0:
        raise InputError(
            f"no station of {fd.name} is served {choice.min_per_hour:g}+ times an hour by the "
            f"chosen routes on {fd.day.isoformat()} {fd.window_text()} ({selection.served} served "
            "at all); widen --window, lower --min-per-hour or choose other routes"
        )
    cols = _feed_rows(fd, selection)
    rows = selection.service.stations
    table = _table(cols, fd.feed.stop_lon[rows].tolist(), fd.feed.stop_lat[rows].tolist())
    return FeedStationMap(fd, selection, table, _metadata(fd, choice, selection))


def _name_key(name: str) -> str:
    return re.sub(r"\W+", "", name.casefold())


def merge_with_osm(result: FeedStationMap, osm: StationFile) -> FeedStationMap:
    """The OSM station map with the feed's stations merged in (module docstring)."""
    t = result.table
    names = [_name_key(str(n)) for n in t["name"].tolist()]
    o_lon = np.array([s.lon for s in osm.stations])
    o_lat = np.array([s.lat for s in osm.stations])
    o_names = [_name_key(s.name) for s in osm.stations]
    extra: dict[int, dict[str, Any]] = {}
    unmatched = []
    for k in range(len(t)):
        d = distance_m(np.full(len(o_lon), t.lon[k]), np.full(len(o_lat), t.lat[k]), o_lon, o_lat)
        same = (d <= SAME_PLACE_M) | (
            (d <= SAME_NAME_M) & np.array([bool(names[k]) and n == names[k] for n in o_names])
        )
        if not same.any():
            unmatched.append(k)
            continue
        best = int(np.flatnonzero(same)[np.argmin(d[same])])
        mine = extra.setdefault(best, {"routes": set(), "departures_per_hour": 0.0})
        mine["routes"].update(r for r in str(t["routes"][k]).split(";") if r)
        mine["departures_per_hour"] += float(t["departures_per_hour"][k])
    cols: dict[str, list[Any]] = {
        name: [] for name in (*geojson.STATION_PROPERTIES, *EXTRA_PROPERTIES)
    }
    lon, lat = [], []
    for i, props in enumerate(osm.properties):
        got = extra.get(i, {})
        for name in geojson.STATION_PROPERTIES:
            cols[name].append(props.get(name))
        cols["routes"].append(";".join(sorted(got.get("routes", ()))))
        cols["departures_per_hour"].append(round(got["departures_per_hour"], 2) if got else None)
        cols["gtfs_stop_id"].append("")
        lon.append(osm.stations[i].lon)
        lat.append(osm.stations[i].lat)
    for k in unmatched:
        for name in cols:
            cols[name].append(t[name][k])
        lon.append(float(t.lon[k]))
        lat.append(float(t.lat[k]))
    metadata = {
        **osm.metadata,
        **result.metadata,
        "attribution": f"{geojson.ATTRIBUTION}; {result.metadata['attribution']}",
        "source": "osm+gtfs",
        "osm_stations": len(osm.stations),
        "merged_stations": len(t) - len(unmatched),
        "same_place_m": SAME_PLACE_M,
        "same_name_m": SAME_NAME_M,
    }
    return FeedStationMap(
        result.feed_day,
        result.selection,
        _table(cols, lon, lat),
        metadata,
        osm,
        len(t) - len(unmatched),
    )


def station_map_texts(result: FeedStationMap, name: str) -> dict[str, str]:
    """The text of ``stations.geojson``, ``stations.csv`` and ``stations.kml``.

    Returns
    -------
    dict of str to str
    """
    fields = (*geojson.STATION_PROPERTIES, *EXTRA_PROPERTIES)
    records = geojson.station_records(result.table, fields)
    area = result.osm.play_area if result.osm is not None else None
    exclusions = result.osm.exclusions if result.osm is not None else ()
    attribution = result.metadata["attribution"]
    return {
        STATIONS_GEOJSON: geojson.dumps_geojson(
            geojson.stations_feature_collection(
                None, area, exclusions, metadata=result.metadata, records=records
            )
        ),
        STATIONS_CSV: csv_export.stations_csv(result.table, records=records),
        STATIONS_KML: kml.stations_kml(
            result.table, area, exclusions, name=name, records=records, attribution=attribution
        ),
    }


def run_timetable_stations(
    choice: FeedChoice,
    output_dir: Path,
    *,
    osm_stations: Path | None = None,
    name: str | None = None,
    cache_dir: Path | None = None,
    use_cache: bool = True,
) -> FeedStationMap:
    """Read the feed, choose its stations, merge with an OSM map, write the outputs.

    Parameters
    ----------
    choice : FeedChoice
    output_dir : Path
        The station map's folder (``generate``'s output set: its other files there go).
    osm_stations : Path, optional
        A ``stations.geojson`` of OSM stations to merge with.
    name : str, optional
        The KML document's name [default: the feed's file name].
    cache_dir : Path, optional
    use_cache : bool

    Returns
    -------
    FeedStationMap

    Raises
    ------
    InputError
        A bad feed, choice or OSM station map; nothing is written then.
    """
    osm = read_station_map(osm_stations) if osm_stations is not None else None
    fd = resolve(open_feed(choice.feed, cache_dir, use_cache), choice)
    with output_set(Path(output_dir), GENERATE_FILES) as outputs:
        result = feed_station_map(fd, choice)
        if osm is not None:
            result = merge_with_osm(result, osm)
        for file, text in station_map_texts(result, name or fd.name.split(".")[0]).items():
            outputs.write_text(file, text)
    return result


def summary_lines(result: FeedStationMap, output_dir: Path) -> list[str]:
    """What ``timetable stations`` says on stderr."""
    fd, sel = result.feed_day, result.selection
    lines = [
        f"Stations: {len(sel.service.stations)} of {fd.name} on {fd.day.isoformat()} "
        f"{fd.window_text()} ({sel.served} served by the chosen routes; "
        f"{sel.below_frequency} below the frequency, {sel.not_nth} not every Nth stop)"
    ]
    if result.osm is not None:
        lines.append(
            f"Merged with {result.osm.source}: {result.merged} feed stations were already in it "
            f"(within {SAME_PLACE_M:g} m, or same name within {SAME_NAME_M:g} m); "
            f"{len(result.table)} stations in all"
        )
    lines.append(
        "Wrote "
        + ", ".join(
            str(Path(output_dir) / f) for f in (STATIONS_GEOJSON, STATIONS_CSV, STATIONS_KML)
        )
    )
    return lines
