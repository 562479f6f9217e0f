"""Read a GTFS feed (a .zip or a folder) into a checked :class:`~stations_generator.core.transit.feed.Feed`.

Files read: ``stops.txt``, ``routes.txt``, ``trips.txt``, ``stop_times.txt`` (required),
``calendar.txt`` and/or ``calendar_dates.txt`` (at least one), ``frequencies.txt`` and
``transfers.txt`` (optional); no other file is opened. Checked, each failure one line
naming the file, the row (as a spreadsheet numbers it) and the fix: required files and
columns; duplicate ids; coordinates on the globe; parent stations that are stations;
trips of unknown routes or services; stop times of unknown trips or stops, times that
are not ``H:MM:SS`` (hours may pass 24: ``25:10:00`` is legal, ``2x:00`` is not), a
trip's times going backwards, a trip's first and last stop without times; calendar
ranges that end before they start or include none of their weekdays; frequencies and
transfers of unknown trips and stops. Stop times between two timed stops with no
time of their own are interpolated by stop order (GTFS leaves their time to the rider).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np

from stations_generator.core.transit.feed import Feed
from stations_generator.errors import InputError
from stations_generator.formats.gtfs.source import MAX_MEMBER_BYTES, FeedSource
from stations_generator.formats.gtfs.stoptimes import read_extras, read_stop_times
from stations_generator.formats.gtfs.tables import Table, read_table
from stations_generator.formats.gtfs.times import parse_dates

__all__ = ["read_feed"]

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _index(table: Table, column: str) -> dict[str, int]:
    ids = table.col(column).str.strip()
    dup = ids.duplicated().to_numpy()
    if dup.any():
        row = int(np.argmax(dup))
        raise table.fail(
            row, f"{column} {ids.iloc[row]!r} appears twice", "give each row its own id"
        )
    empty = (ids == "").to_numpy()
    if empty.any():
        raise table.fail(int(np.argmax(empty)), f"{column} is empty", "give every row an id")
    return {sid: i for i, sid in enumerate(ids.tolist())}


def _stops(table: Table) -> dict[str, object]:
    index = _index(table, "stop_id")
    kind = table.ints(
        "location_type", range(5), 0, "use 0 stop, 1 station, 2 entrance, 3 node, 4 boarding area"
    )
    located = kind <= 2  # GTFS: generic nodes and boarding areas may have no coordinates
    lat = table.floats("stop_lat", -90.0, 90.0, located)
    lon = table.floats("stop_lon", -180.0, 180.0, located)
    parent = table.refs("parent_station", index, "stops.txt", optional=True)
    bad = (parent >= 0) & (kind[np.maximum(parent, 0)] != 1) & (kind <= 1)
    if bad.any():
        row = int(np.argmax(bad))
        raise table.fail(
            row, "parent_station is not a station (location_type 1)", "name a station as parent"
        )
    return {
        "stop_ids": tuple(index),
        "stop_names": tuple(table.col("stop_name").tolist()),
        "stop_lon": lon,
        "stop_lat": lat,
        "stop_parent": parent.astype(np.int32),
        "stop_location_type": kind.astype(np.int8),
    }


def _calendars(cal: Table | None, dates: Table | None, src: FeedSource) -> dict[str, object]:
    if cal is None and dates is None:
        raise InputError(
            f"{src.label} has neither calendar.txt nor calendar_dates.txt; add one (GTFS requires it)"
        )
    ids: dict[str, int] = {}
    for table in (cal, dates):
        if table is not None:
            for sid in table.col("service_id").str.strip().tolist():
                ids.setdefault(sid, len(ids))
    out: dict[str, object] = {"service_ids": tuple(ids)}
    if cal is not None:
        days = np.column_stack(
            [cal.ints(d, (0, 1), -1, f"write {d} as 0 or 1") for d in _DAYS]
        ).astype(bool)
        missing = np.column_stack([cal.col(d).str.strip() == "" for d in _DAYS]).any(axis=1)
        if missing.any():
            raise cal.fail(
                int(np.argmax(missing)), "a weekday is empty", "write each weekday as 0 or 1"
            )
        start = cal.parsed("start_date", parse_dates, "write dates as YYYYMMDD")
        end = cal.parsed("end_date", parse_dates, "write dates as YYYYMMDD")
        _check_ranges(cal, days, start, end)
        out |= {"cal_service": cal.refs("service_id", ids, "calendar.txt"), "cal_days": days}
        out |= {"cal_start": start, "cal_end": end}
    else:
        out |= {"cal_service": np.zeros(0, np.int32), "cal_days": np.zeros((0, 7), bool)}
        out |= {"cal_start": np.zeros(0, np.int32), "cal_end": np.zeros(0, np.int32)}
    if dates is not None:
        kind = dates.ints("exception_type", (1, 2), -1, "write 1 (service added) or 2 (removed)")
        if (kind < 0).any():
            raise dates.fail(int(np.argmax(kind < 0)), "exception_type is empty", "write 1 or 2")
        out |= {"cd_service": dates.refs("service_id", ids, "calendar_dates.txt")}
        out |= {
            "cd_date": dates.parsed("date", parse_dates, "write dates as YYYYMMDD"),
            "cd_added": kind == 1,
        }
    else:
        out |= {"cd_service": np.zeros(0, np.int32), "cd_date": np.zeros(0, np.int32)}
        out |= {"cd_added": np.zeros(0, bool)}
    return out


def _check_ranges(cal: Table, days: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
    for row in range(len(start)):
        a = dt.date(start[row] // 10000, start[row] // 100 % 100, start[row] % 100)
        b = dt.date(end[row] // 10000, end[row] // 100 % 100, end[row] % 100)
        weekdays = {(a + dt.timedelta(days=i)).weekday() for i in range(min((b - a).days + 1, 7))}
        if b < a:
            raise cal.fail(
                row,
                f"end_date {end[row]} is before start_date {start[row]}",
                "swap or fix the dates",
            )
        if not any(days[row, w] for w in weekdays):
            raise cal.fail(
                row,
                "the service never runs (none of its weekdays falls between its dates)",
                "fix the weekdays or the dates",
            )


def _routes_trips(routes: Table, trips: Table, service_ids: dict[str, int]) -> dict[str, object]:
    route_index = _index(routes, "route_id")
    route_type = routes.ints(
        "route_type",
        (*range(8), 11, 12, *range(100, 1800)),
        -1,
        "use a GTFS route type, e.g. 1 subway, 3 bus",
    )
    if (route_type < 0).any():
        raise routes.fail(
            int(np.argmax(route_type < 0)), "route_type is empty", "give a GTFS route type"
        )
    trip_index = _index(trips, "trip_id")
    return {
        "route_ids": tuple(route_index),
        "route_short_names": tuple(routes.col("route_short_name").tolist()),
        "route_type": route_type.astype(np.int16),
        "trip_ids": tuple(trip_index),
        "trip_route": trips.refs("route_id", route_index, "routes.txt"),
        "trip_service": trips.refs("service_id", service_ids, "calendar.txt or calendar_dates.txt"),
    }


def read_feed(path: Path, *, max_member_bytes: int = MAX_MEMBER_BYTES) -> Feed:
    """Read and check a GTFS feed (see the module docstring).

    Parameters
    ----------
    path : pathlib.Path
        A GTFS .zip, or a folder of its files.
    max_member_bytes : int
        Largest file read [default: 2 GiB].

    Returns
    -------
    Feed

    Raises
    ------
    InputError
        One line naming the file, the row and the fix.
    """
    src = FeedSource(Path(path), max_member_bytes)
    try:
        need = {
            "stops.txt": (
                ["stop_id"],
                ["stop_name", "stop_lat", "stop_lon", "location_type", "parent_station"],
            ),
            "routes.txt": (["route_id", "route_type"], ["route_short_name"]),
            "trips.txt": (["route_id", "service_id", "trip_id"], []),
        }
        tables = {}
        for name, (required, optional) in need.items():
            tables[name] = read_table(src, name, required, optional)
            if tables[name] is None:
                raise InputError(f"{src.label} has no {name}; give a complete GTFS feed")
        cal = read_table(src, "calendar.txt", ["service_id", *_DAYS, "start_date", "end_date"])
        dates = read_table(src, "calendar_dates.txt", ["service_id", "date", "exception_type"])
        columns = _stops(tables["stops.txt"]) | _calendars(cal, dates, src)
        services = {sid: i for i, sid in enumerate(columns["service_ids"])}
        columns |= _routes_trips(tables["routes.txt"], tables["trips.txt"], services)
        stops = {sid: i for i, sid in enumerate(columns["stop_ids"])}
        trips = {tid: i for i, tid in enumerate(columns["trip_ids"])}
        columns |= read_stop_times(src, stops, trips, columns["stop_location_type"])
        columns |= read_extras(src, stops, trips)
    finally:
        src.close()
    return Feed(**columns)
