"""The timetable of one service day, as the arrays RAPTOR scans.

The day's trips are those of the services running on it, plus the previous day's
trips that run past midnight (their times of 24:00:00 and later, 86,400 s less, are
this day's early hours) and, unless turned off, the next day's trips (86,400 s more),
so a journey started late in the evening can go on after midnight. Frequency-based
trips are expanded first (:func:`~stations_generator.core.transit.frequencies.expand_frequencies`).

Trips with the same stops in the same order (and the same boarding and alighting
rules at each) form a *pattern*; a pattern's trips are sorted by departure and split
into chains in which no trip overtakes another (every time of a later trip is at or
after the earlier one's), so that at each stop the first trip one can still catch is
found by binary search. A pattern's stop is a *row*: its times are stored row after
row, each row's trips in chain order, so one sorted search over all rows at once
finds every row's first catchable trip (see :mod:`~stations_generator.core.transit.raptor`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from stations_generator.core.transit.feed import Feed
from stations_generator.core.transit.frequencies import expand_frequencies
from stations_generator.core.transit.service import running_services
from stations_generator.core.transit.walking import Footpaths, Walking, footpaths

__all__ = ["DAY_S", "TIME_OFFSET", "TIME_SPAN", "Timetable", "build_timetable"]

DAY_S = 86_400
#: Added to every time so the previous day's trips (from -86,400 s) sort as non-negative.
TIME_OFFSET = DAY_S
#: Every offset time lies below this (2**21 s, 24 days): the rows' search keys are
#: ``row * TIME_SPAN + time``.
TIME_SPAN = 1 << 21


@dataclass(frozen=True, eq=False)
class Timetable:
    """One service day's trips, grouped into patterns (see the module docstring).

    Attributes
    ----------
    feed : Feed
        The feed (frequencies expanded).
    day : datetime.date
        The service day; times are seconds after its midnight.
    walking : Walking
        The walking transfers' rules.
    paths : Footpaths
        The walking transfers.
    served : numpy.ndarray of bool
        Per stop, whether a trip of the timetable stops there.
    row_stop, row_pattern, row_pos : numpy.ndarray of int32
        Per row (a pattern's stop): the stop, the pattern, the position in the pattern.
    row_pickup, row_dropoff : numpy.ndarray of bool
        Per row: whether riders may board, alight there.
    row_start : numpy.ndarray of int64
        Per row, where its times start in ``arr`` and ``dep``; ``row_start[-1]`` is their length.
    arr, dep : numpy.ndarray of int64
        Arrival and departure times, row after row, each row in the pattern's trip order.
    dep_key : numpy.ndarray of int64
        ``row * TIME_SPAN + dep + TIME_OFFSET``: sorted, for the rows' binary searches.
    pattern_trips : numpy.ndarray of int64
        Per pattern, where its trips start in ``trip_of`` (one more entry at the end).
    trip_of : numpy.ndarray of int32
        Per trip of a pattern, the feed's trip row.
    trip_shift : numpy.ndarray of int64
        Per trip of a pattern, the seconds added to the feed's times (-86,400, 0, 86,400).
    """

    feed: Feed
    day: dt.date
    walking: Walking
    paths: Footpaths
    served: np.ndarray
    row_stop: np.ndarray
    row_pattern: np.ndarray
    row_pos: np.ndarray
    row_pickup: np.ndarray
    row_dropoff: np.ndarray
    row_start: np.ndarray
    arr: np.ndarray
    dep: np.ndarray
    dep_key: np.ndarray
    pattern_trips: np.ndarray
    trip_of: np.ndarray
    trip_shift: np.ndarray

    @property
    def n_patterns(self) -> int:
        """How many patterns (chains of non-overtaking trips)."""
        return len(self.pattern_trips) - 1

    @property
    def n_stop_times(self) -> int:
        """How many stop times the day's trips have."""
        return len(self.arr)


def _day_trips(feed: Feed, day: dt.date, next_day: bool) -> tuple[np.ndarray, np.ndarray]:
    """The trips of the day: feed rows and the shift of their times."""
    last = np.full(feed.n_trips, -1, dtype=np.int64)
    np.maximum.at(last, feed.st_trip, feed.st_arr.astype(np.int64))
    parts, shifts = [], []
    for offset in (-1, 0, 1) if next_day else (-1, 0):
        runs = running_services(feed, day + dt.timedelta(days=offset))[feed.trip_service]
        if offset == -1:
            runs &= last >= DAY_S
        rows = np.flatnonzero(runs)
        parts.append(rows)
        shifts.append(np.full(len(rows), offset * DAY_S, dtype=np.int64))
    return np.concatenate(parts).astype(np.int32), np.concatenate(shifts)


def _chains(arr: np.ndarray, dep: np.ndarray) -> list[np.ndarray]:
    """The trips (rows of the (trips, stops) matrices, sorted by departure) split into
    chains in which no trip overtakes another; the first chain that takes a trip gets it."""
    if len(arr) == 1 or (np.all(np.diff(arr, axis=0) >= 0) and np.all(np.diff(dep, axis=0) >= 0)):
        return [np.arange(len(arr))]
    chains: list[list[int]] = []
    for t in range(len(arr)):
        for chain in chains:
            last = chain[-1]
            if np.all(arr[t] >= arr[last]) and np.all(dep[t] >= dep[last]):
                chain.append(t)
                break
        else:
            chains.append([t])
    return [np.array(c) for c in chains]


def _patterns(feed: Feed, trips: np.ndarray) -> dict[bytes, list[int]]:
    """Instance indices of ``trips`` by their pattern's key (stops and boarding rules)."""
    starts = np.searchsorted(feed.st_trip, np.arange(feed.n_trips + 1))
    groups: dict[bytes, list[int]] = {}
    for i, trip in enumerate(trips.tolist()):
        lo, hi = starts[trip], starts[trip + 1]
        if hi - lo < 2:
            continue  # a trip of one stop goes nowhere
        key = (
            feed.st_stop[lo:hi].tobytes()
            + feed.st_pickup[lo:hi].tobytes()
            + feed.st_dropoff[lo:hi].tobytes()
        )
        groups.setdefault(key, []).append(i)
    return groups


def build_timetable(
    feed: Feed, day: dt.date, *, walking: Walking | None = None, next_day: bool = True
) -> Timetable:
    """The timetable of ``day`` (see the module docstring).

    Parameters
    ----------
    feed : Feed
    day : datetime.date
        The service day.
    walking : Walking, optional
        Walking transfers [default: ``Walking()``, 300 m at 1.2 m/s].
    next_day : bool
        Include the next day's trips (times + 86,400 s) [default: True].

    Returns
    -------
    Timetable
    """
    if not isinstance(day, dt.date):
        raise TypeError(f"day must be a datetime.date, not {type(day).__name__}")
    walking = Walking() if walking is None else walking
    feed = expand_frequencies(feed)
    trips, shifts = _day_trips(feed, day, next_day)
    starts = np.searchsorted(feed.st_trip, np.arange(feed.n_trips + 1))
    rows: dict[str, list[np.ndarray]] = {k: [] for k in ("stop", "pat", "pos", "pick", "drop")}
    arr_parts, dep_parts, trip_of, trip_shift, pattern_trips = [], [], [], [], [0]
    for _key, members in sorted(_patterns(feed, trips).items()):
        idx = np.array(members)
        lo = starts[trips[idx]]
        n = starts[trips[idx][0] + 1] - lo[0]
        take = lo[:, None] + np.arange(n)[None, :]
        arr = feed.st_arr[take].astype(np.int64) + shifts[idx][:, None]
        dep = feed.st_dep[take].astype(np.int64) + shifts[idx][:, None]
        order = np.lexsort((idx, arr[:, -1], dep[:, 0]))
        for chain in _chains(arr[order], dep[order]):
            sel = order[chain]
            pattern = len(pattern_trips) - 1
            first = take[0]
            rows["stop"].append(feed.st_stop[first])
            rows["pat"].append(np.full(n, pattern))
            rows["pos"].append(np.arange(n))
            rows["pick"].append(feed.st_pickup[first])
            rows["drop"].append(feed.st_dropoff[first])
            arr_parts.append(arr[sel].T.ravel())
            dep_parts.append(dep[sel].T.ravel())
            trip_of.append(trips[idx[sel]])
            trip_shift.append(shifts[idx[sel]])
            pattern_trips.append(pattern_trips[-1] + len(sel))
    return _assemble(
        feed, day, walking, rows, arr_parts, dep_parts, trip_of, trip_shift, pattern_trips
    )


def _assemble(
    feed: Feed,
    day: dt.date,
    walking: Walking,
    rows: dict[str, list[np.ndarray]],
    arr_parts: list[np.ndarray],
    dep_parts: list[np.ndarray],
    trip_of: list[np.ndarray],
    trip_shift: list[np.ndarray],
    pattern_trips: list[int],
) -> Timetable:
    def cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

    row_stop = cat(rows["stop"], np.int32)
    row_pattern = cat(rows["pat"], np.int32)
    counts = np.diff(np.asarray(pattern_trips, dtype=np.int64))
    row_start = np.concatenate(([0], np.cumsum(counts[row_pattern]))).astype(np.int64)
    arr, dep = cat(arr_parts, np.int64), cat(dep_parts, np.int64)
    if len(dep) and (
        dep.min() + TIME_OFFSET < 0 or max(arr.max(), dep.max()) + TIME_OFFSET >= TIME_SPAN
    ):
        raise ValueError("stop times must lie between -24:00:00 and 24 days")
    row_of_time = np.repeat(np.arange(len(row_stop), dtype=np.int64), np.diff(row_start))
    served = np.zeros(feed.n_stops, dtype=bool)
    served[row_stop] = True
    return Timetable(
        feed=feed,
        day=day,
        walking=walking,
        paths=footpaths(feed, walking, served),
        served=served,
        row_stop=row_stop,
        row_pattern=row_pattern,
        row_pos=cat(rows["pos"], np.int32),
        row_pickup=cat(rows["pick"], bool),
        row_dropoff=cat(rows["drop"], bool),
        row_start=row_start,
        arr=arr,
        dep=dep,
        dep_key=row_of_time * TIME_SPAN + dep + TIME_OFFSET,
        pattern_trips=np.asarray(pattern_trips, dtype=np.int64),
        trip_of=cat(trip_of, np.int32),
        trip_shift=cat(trip_shift, np.int64),
    )
