"""A service day's trips in a time window: departures, frequencies and waits per station.

The trips of a day are those of the services running on it, the previous day's (24 h
earlier, so their ``25:10:00`` is this day's 01:10) and the next day's (24 h later, for
a window past midnight), frequency-based trips expanded, as
:mod:`~stations_generator.core.transit.timetable` takes them.

Measured, and how:

* a **departure** is a stop time where riders may board (``pickup_type`` not 1) that is
  not its trip's last stop, leaving within the window ``[start, end)``; departures from
  a station's platforms count for the station;
* **departures per hour**: the departures in the window over its length in hours;
* the **longest wait** in a window: the longest time, anywhere in the window, until the
  next departure: the largest of the gaps from the window's start to the first
  departure, between departures, and from the last departure to the window's end. A
  longest wait of at most *T* is exactly "every stretch of *T* inside the window holds a
  departure", i.e. "a vehicle at least every *T*".
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from stations_generator.core.transit.feed import Feed
from stations_generator.core.transit.frequencies import expand_frequencies
from stations_generator.core.transit.service import running_services
from stations_generator.core.transit.timetable import DAY_S

__all__ = [
    "NO_WAIT",
    "DayService",
    "StationService",
    "Window",
    "day_service",
    "longest_waits",
    "station_service",
]

#: A longest wait where nothing departs in the window.
NO_WAIT = -1
#: Bits of a time in the window (seconds below 48 h < 2**22) when sorted with its key.
_TIME_BITS = 22


@dataclass(frozen=True)
class Window:
    """A time window of a service day, seconds after its midnight, ``[start_s, end_s)``.

    Attributes
    ----------
    start_s, end_s : int
        ``end_s`` may pass 86,400 (a window past midnight) up to 48 h.
    """

    start_s: int
    end_s: int

    def __post_init__(self) -> None:
        if not 0 <= self.start_s < self.end_s <= 2 * DAY_S:
            raise ValueError(
                f"window {self.start_s}-{self.end_s} s: it needs 0 ≤ start < end ≤ 48:00"
            )

    @property
    def hours(self) -> float:
        """The window's length in hours."""
        return (self.end_s - self.start_s) / 3600.0


@dataclass(frozen=True, eq=False)
class DayService:
    """The stop times of one day's trip instances (a trip of the day before or after is
    an instance too, its times shifted by ∓24 h).

    Attributes
    ----------
    feed : Feed
        Frequencies expanded.
    day : datetime.date
    window : Window
    station : numpy.ndarray of int32
        Per stop of the feed, its station (the parent, or itself).
    inst_trip, inst_route : numpy.ndarray of int32
        Per instance: the feed's trip row, its route row.
    inst, stop : numpy.ndarray of int32
        Per stop time (instance after instance, in stop order): its instance, its stop.
    pos : numpy.ndarray of int32
        Per stop time, its position in the instance.
    dep, arr : numpy.ndarray of int64
        Per stop time, seconds after the day's midnight.
    pickup, dropoff, last : numpy.ndarray of bool
        Per stop time: boarding allowed, alighting allowed, the instance's last stop.
    """

    feed: Feed
    day: dt.date
    window: Window
    station: np.ndarray
    inst_trip: np.ndarray
    inst_route: np.ndarray
    inst: np.ndarray
    stop: np.ndarray
    pos: np.ndarray
    dep: np.ndarray
    arr: np.ndarray
    pickup: np.ndarray
    dropoff: np.ndarray
    last: np.ndarray

    def departures(self, routes: np.ndarray | None = None) -> np.ndarray:
        """Per stop time, whether it is a departure in the window (see the module
        docstring), of a route with ``routes[route]`` True when given.

        Returns
        -------
        numpy.ndarray of bool
        """
        w = self.window
        mask = self.pickup & ~self.last & (self.dep >= w.start_s) & (self.dep < w.end_s)
        if routes is not None:
            mask &= routes[self.inst_route[self.inst]]
        return mask


def day_service(feed: Feed, day: dt.date, window: Window) -> DayService:
    """The trip instances of ``day`` with a stop time inside ``window``.

    Parameters
    ----------
    feed : Feed
    day : datetime.date
    window : Window

    Returns
    -------
    DayService
    """
    if not isinstance(day, dt.date):
        raise TypeError(f"day must be a datetime.date, not {type(day).__name__}")
    feed = expand_frequencies(feed)
    starts = np.searchsorted(feed.st_trip, np.arange(feed.n_trips + 1))
    counts = np.diff(starts)
    has = counts > 0
    first = np.where(has, feed.st_dep[np.minimum(starts[:-1], len(feed.st_dep) - 1)], 0)
    last = np.where(has, feed.st_arr[np.maximum(starts[1:] - 1, 0)], 0)
    trips, shifts = [], []
    for offset in (-1, 0, 1):
        shift = offset * DAY_S
        runs = running_services(feed, day + dt.timedelta(days=offset))[feed.trip_service]
        overlaps = (first + shift < window.end_s) & (last + shift >= window.start_s)
        rows = np.flatnonzero(runs & has & overlaps)
        trips.append(rows)
        shifts.append(np.full(len(rows), shift, dtype=np.int64))
    inst_trip = np.concatenate(trips).astype(np.int32)
    inst_shift = np.concatenate(shifts)
    lens = counts[inst_trip]
    inst = np.repeat(np.arange(len(inst_trip), dtype=np.int32), lens)
    pos = (np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)).astype(np.int32)
    idx = starts[inst_trip][inst] + pos
    return DayService(
        feed=feed,
        day=day,
        window=window,
        station=feed.station_of(),
        inst_trip=inst_trip,
        inst_route=feed.trip_route[inst_trip].astype(np.int32),
        inst=inst,
        stop=feed.st_stop[idx].astype(np.int32),
        pos=pos,
        dep=feed.st_dep[idx].astype(np.int64) + inst_shift[inst],
        arr=feed.st_arr[idx].astype(np.int64) + inst_shift[inst],
        pickup=feed.st_pickup[idx],
        dropoff=feed.st_dropoff[idx],
        last=pos == lens[inst] - 1,
    )


def longest_waits(
    keys: np.ndarray, times: np.ndarray, n_keys: int, window: Window
) -> tuple[np.ndarray, np.ndarray]:
    """Per key, the longest wait and the shortest gap between its departures.

    Parameters
    ----------
    keys : numpy.ndarray of int
        Per departure, its key (a station row, a pair number…), below ``n_keys``.
    times : numpy.ndarray of int
        Per departure, its time, inside ``window``.
    n_keys : int
    window : Window

    Returns
    -------
    longest, shortest : numpy.ndarray of int64
        Per key, the longest wait (module docstring) and the shortest gap between two
        departures at different times (the longest wait when it has one departure);
        :data:`NO_WAIT` for a key without departures.
    """
    longest = np.full(n_keys, NO_WAIT, dtype=np.int64)
    shortest = np.full(n_keys, NO_WAIT, dtype=np.int64)
    if len(keys) == 0:
        return longest, shortest
    if times.min() < window.start_s or times.max() >= window.end_s:
        raise ValueError("times must lie inside the window")
    # one int64 sort of key and time together (times lie in [0, 48 h) < 2**22 s)
    packed = np.sort(keys.astype(np.int64) << _TIME_BITS | times.astype(np.int64))
    k, t = packed >> _TIME_BITS, packed & ((1 << _TIME_BITS) - 1)
    new = np.ones(len(k), dtype=bool)
    new[1:] = k[1:] != k[:-1]
    heads = np.flatnonzero(new)  # each key's first departure (the rows are sorted by key)
    tails = np.append(heads[1:], len(k)) - 1
    gap = np.empty(len(t), dtype=np.int64)  # from the departure before (same time: 0)
    gap[1:] = t[1:] - t[:-1]
    inner = gap.copy()
    gap[heads] = t[heads] - window.start_s
    firsts = k[heads]
    longest[firsts] = np.maximum(np.maximum.reduceat(gap, heads), window.end_s - t[tails])
    big = np.iinfo(np.int64).max
    inner[heads] = big
    inner[inner == 0] = big  # two departures at one time are no gap
    gaps = np.minimum.reduceat(inner, heads)
    shortest[firsts] = np.where(gaps == big, longest[firsts], gaps)
    return longest, shortest


@dataclass(frozen=True)
class StationService:
    """How often each served station has a departure in the window.

    Attributes
    ----------
    stations : numpy.ndarray of int32
        Station rows with at least one departure, ascending.
    departures : numpy.ndarray of int64
        Per station, its departures in the window.
    per_hour : numpy.ndarray of float64
        Per station, departures per hour.
    longest_wait_s, shortest_gap_s : numpy.ndarray of int64
        Per station (see :func:`longest_waits`).
    routes : tuple of tuple of int
        Per station, the route rows departing from it, ascending.
    """

    stations: np.ndarray
    departures: np.ndarray
    per_hour: np.ndarray
    longest_wait_s: np.ndarray
    shortest_gap_s: np.ndarray
    routes: tuple[tuple[int, ...], ...]


def station_service(ds: DayService, routes: np.ndarray | None = None) -> StationService:
    """Departures, frequency and waits of every station in the window.

    Parameters
    ----------
    ds : DayService
    routes : numpy.ndarray of bool, optional
        Per route, whether its trips count [default: all].

    Returns
    -------
    StationService
    """
    dep = ds.departures(routes)
    st = ds.station[ds.stop[dep]].astype(np.int64)
    n = ds.feed.n_stops
    longest, shortest = longest_waits(st, ds.dep[dep], n, ds.window)
    count = np.bincount(st, minlength=n)
    rows = np.flatnonzero(count > 0).astype(np.int32)
    pairs = np.unique(np.column_stack((st, ds.inst_route[ds.inst[dep]])), axis=0)
    by_station: dict[int, list[int]] = {}
    for s, r in pairs.tolist():
        by_station.setdefault(s, []).append(r)
    return StationService(
        stations=rows,
        departures=count[rows].astype(np.int64),
        per_hour=count[rows] / ds.window.hours,
        longest_wait_s=longest[rows],
        shortest_gap_s=shortest[rows],
        routes=tuple(tuple(by_station[int(s)]) for s in rows),
    )
