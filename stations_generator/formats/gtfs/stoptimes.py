"""``stop_times.txt``, ``frequencies.txt`` and ``transfers.txt`` of a GTFS feed, checked."""

from __future__ import annotations

import numpy as np

from stations_generator.errors import InputError
from stations_generator.formats.gtfs.source import FeedSource
from stations_generator.formats.gtfs.tables import Table, read_table
from stations_generator.formats.gtfs.times import parse_times

__all__ = ["read_extras", "read_stop_times"]

_TIME_FIX = "write times as H:MM:SS, e.g. 08:05:00, or 25:10:00 after midnight"


def _fill_times(
    table: Table, order: np.ndarray, trip: np.ndarray, arr: np.ndarray, dep: np.ndarray
) -> None:
    """Fill, in place, a missing arrival or departure from the other, and untimed stops
    by linear interpolation along the trip's stop order between its timed stops."""
    arr[arr < 0] = dep[arr < 0]
    dep[dep < 0] = arr[dep < 0]
    timed = arr >= 0
    n = len(arr)
    pos = np.arange(n)
    before = np.maximum.accumulate(np.where(timed, pos, -1))
    after = np.minimum.accumulate(np.where(timed, pos, n)[::-1])[::-1]
    first = np.ones(n, dtype=bool)
    first[1:] = trip[1:] != trip[:-1]
    last = np.ones(n, dtype=bool)
    last[:-1] = trip[1:] != trip[:-1]
    ends = (first | last) & ~timed
    if ends.any():
        row = int(order[np.argmax(ends)])
        raise table.fail(
            row,
            "a trip's first and last stops need times",
            "give them arrival_time and departure_time",
        )
    gap = ~timed
    lo, hi = before[gap], after[gap]
    share = (pos[gap] - lo) / (hi - lo)
    arr[gap] = dep[gap] = np.round(dep[lo] + share * (arr[hi] - dep[lo])).astype(arr.dtype)


def read_stop_times(
    src: FeedSource, stops: dict[str, int], trips: dict[str, int], stop_kind: np.ndarray
) -> dict[str, np.ndarray]:
    """The stop times, sorted by trip then stop sequence, checked (see the reader's docstring).

    Parameters
    ----------
    src : FeedSource
    stops, trips : dict of str to int
        Ids to rows.
    stop_kind : numpy.ndarray
        Per stop row, its location_type.

    Returns
    -------
    dict of str to numpy.ndarray
        The ``st_*`` columns of a :class:`~stations_generator.core.transit.feed.Feed`.
    """
    table = read_table(
        src,
        "stop_times.txt",
        ["trip_id", "stop_id", "arrival_time", "departure_time", "stop_sequence"],
        ["pickup_type", "drop_off_type"],
    )
    if table is None:
        raise InputError(f"{src.label} has no stop_times.txt; give a complete GTFS feed")
    trip = table.refs("trip_id", trips, "trips.txt")
    stop = table.refs("stop_id", stops, "stops.txt")
    kind = stop_kind[stop]
    not_stop = (kind != 0) & (kind != 4)  # GTFS: stop times name stops or boarding areas
    if not_stop.any():
        row = int(np.argmax(not_stop))
        what = {1: "a station", 2: "an entrance", 3: "a generic node"}[int(kind[row])]
        problem = f"stop_id {table.col('stop_id').iloc[row].strip()!r} is {what}"
        raise table.fail(row, problem, "name a stop or platform (location_type 0) there")
    arr = table.parsed("arrival_time", parse_times, _TIME_FIX, allow_empty=True)
    dep = table.parsed("departure_time", parse_times, _TIME_FIX, allow_empty=True)
    seq = table.whole("stop_sequence", "number a trip's stops 0, 1, 2...")
    pickup = table.ints("pickup_type", (0, 1, 2, 3), 0, "use 0 to 3") != 1
    dropoff = table.ints("drop_off_type", (0, 1, 2, 3), 0, "use 0 to 3") != 1
    order = np.lexsort((seq, trip))
    trip, seq = trip[order], seq[order]
    dup = np.flatnonzero((trip[1:] == trip[:-1]) & (seq[1:] == seq[:-1]))
    if len(dup):
        raise table.fail(
            int(order[dup[0] + 1]),
            f"stop_sequence {seq[dup[0]]} appears twice in the trip",
            "number each stop of a trip once",
        )
    arr, dep = arr[order], dep[order]
    _fill_times(table, order, trip, arr, dep)
    same = trip[1:] == trip[:-1]
    back = np.flatnonzero(same & (arr[1:] < dep[:-1]))
    back_here = np.flatnonzero(dep < arr)
    if len(back_here) or len(back):
        row = int(order[back_here[0]] if len(back_here) else order[back[0] + 1])
        raise table.fail(
            row, "the trip's times go backwards", "give times that never decrease along the trip"
        )
    return {
        "st_trip": trip.astype(np.int32),
        "st_stop": stop[order].astype(np.int32),
        "st_arr": arr.astype(np.int32),
        "st_dep": dep.astype(np.int32),
        "st_pickup": pickup[order],
        "st_dropoff": dropoff[order],
    }


def read_extras(
    src: FeedSource, stops: dict[str, int], trips: dict[str, int]
) -> dict[str, np.ndarray]:
    """``frequencies.txt`` and ``transfers.txt`` (empty columns when absent), checked.

    Returns
    -------
    dict of str to numpy.ndarray
        The ``fr_*`` and ``tr_*`` columns of a Feed.
    """
    out: dict[str, np.ndarray] = {}
    fr = read_table(
        src,
        "frequencies.txt",
        ["trip_id", "start_time", "end_time", "headway_secs"],
        ["exact_times"],
    )
    if fr is None:
        out |= {k: np.zeros(0, np.int32) for k in ("fr_trip", "fr_start", "fr_end", "fr_headway")}
        out["fr_exact"] = np.zeros(0, bool)
    else:
        start = fr.parsed("start_time", parse_times, _TIME_FIX, allow_empty=False)
        end = fr.parsed("end_time", parse_times, _TIME_FIX, allow_empty=False)
        headway = fr.whole("headway_secs", "give the headway in whole seconds")
        if (headway == 0).any():
            row = int(np.argmax(headway == 0))
            raise fr.fail(row, "headway_secs is 0", "give the headway in whole seconds above 0")
        if (end <= start).any():
            raise fr.fail(
                int(np.argmax(end <= start)), "end_time is not after start_time", "fix the times"
            )
        out["fr_trip"] = fr.refs("trip_id", trips, "trips.txt")
        out |= {"fr_start": start, "fr_end": end, "fr_headway": headway.astype(np.int32)}
        out["fr_exact"] = fr.ints("exact_times", (0, 1), 0, "use 0 or 1") == 1
    tr = read_table(
        src, "transfers.txt", ["from_stop_id", "to_stop_id", "transfer_type"], ["min_transfer_time"]
    )
    if tr is None:
        out |= {k: np.zeros(0, np.int32) for k in ("tr_from", "tr_to", "tr_min_time")}
        out["tr_type"] = np.zeros(0, np.int8)
        return out
    kind = tr.ints("transfer_type", (0, 1, 2, 3, 4, 5), 0, "use 0 to 5")
    min_time = tr.whole("min_transfer_time", "give it in whole seconds", empty=-1)
    keep = kind <= 3  # 4 and 5 are in-seat transfers between trips, not stops
    frm = tr.refs("from_stop_id", stops, "stops.txt", optional=True)
    to = tr.refs("to_stop_id", stops, "stops.txt", optional=True)
    keep &= (frm >= 0) & (to >= 0)
    out["tr_from"], out["tr_to"] = frm[keep], to[keep]
    out["tr_type"] = kind[keep].astype(np.int8)
    out["tr_min_time"] = min_time[keep].astype(np.int32)
    return out
