"""Earliest arrival over a timetable: RAPTOR (round-based public transit routing).

Round *k* finds the earliest arrivals with *k* vehicle trips (Delling, Pajor and
Werneck, "Round-Based Public Transit Routing", 2012). A rider is *ready* at a stop
from some time: at the start (and after walking from it), after alighting there plus
the stop's change time, or after alighting elsewhere and walking one footpath. Each
round scans every pattern at once, vectorised: per row (a pattern's stop) the first
trip departing at or after the rider is ready there is found by one binary search over
all rows; along a pattern, the trip ridden at a stop is the earliest caught at any
earlier stop (trips of a pattern never overtake, so a segmented running minimum gives
it). Rounds go on until nothing improves or ``max_rounds`` is reached; the result is
exact for journeys of at most that many trips, one footpath between two trips.

Every round's labels are kept, so one journey to any stop can be rebuilt as legs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from stations_generator.core.transit.timetable import TIME_OFFSET, TIME_SPAN, Timetable
from stations_generator.core.transit.walking import walk_from_position

__all__ = ["UNREACHED", "Arrivals", "Leg", "earliest_arrival"]

#: The arrival time of a stop not reached.
UNREACHED = np.iinfo(np.int64).max // 4
_START = -1  # ready at the start (or walked there from it)
_ALIGHTED = -2  # ready after alighting at the stop itself


@dataclass(frozen=True)
class Leg:
    """One leg of a journey.

    Attributes
    ----------
    kind : str
        ``"ride"`` or ``"walk"``.
    from_stop, to_stop : int
        Stop rows (``from_stop`` is -1 for a walk from a position).
    depart, arrive : int
        Seconds after the service day's midnight.
    trip : int
        The feed's trip row of a ride, -1 for a walk.
    """

    kind: str
    from_stop: int
    to_stop: int
    depart: int
    arrive: int
    trip: int = -1


@dataclass(frozen=True, eq=False)
class Arrivals:
    """The earliest arrivals from one start.

    Attributes
    ----------
    timetable : Timetable
    start_time : int
        Seconds after midnight.
    arrival : numpy.ndarray of int64
        Per stop, the earliest arrival (:data:`UNREACHED` if none).
    trips : numpy.ndarray of int16
        Per stop, the trips of the earliest journey there (-1 unreached).
    rounds : int
        Rounds run.
    """

    timetable: Timetable
    start_time: int
    arrival: np.ndarray
    trips: np.ndarray
    rounds: int
    _veh: np.ndarray  # (rounds + 1, stops): arrival by a vehicle in that round
    _veh_row: np.ndarray  # the row it arrived at
    _veh_trip: np.ndarray  # the pattern trip (index into trip_of)
    _veh_board: np.ndarray  # the row boarded
    _walk: np.ndarray  # arrival by walking after that round's vehicles
    _walk_from: np.ndarray
    _ready_src: np.ndarray  # how the ready time of that round was reached
    _ready_round: np.ndarray  # in which round it was set
    _start_walk: dict[int, tuple[int, int]]

    def station_arrival(self) -> np.ndarray:
        """Per stop row, the earliest arrival at its station (itself or its platforms).

        Returns
        -------
        numpy.ndarray of int64
            Indexed by stop row; a station's value is the least of its own and its
            children's, a stop's the same as its station's.
        """
        station = self.timetable.feed.station_of()
        best = np.full(len(station), UNREACHED, dtype=np.int64)
        np.minimum.at(best, station, self.arrival)
        return best[station]

    def journey(self, stop: int) -> list[Leg]:
        """One earliest journey to ``stop`` as legs (empty at the start or if unreached).

        Parameters
        ----------
        stop : int
            A stop row.

        Returns
        -------
        list of Leg
        """
        if self.arrival[stop] >= UNREACHED:
            return []
        for k in range(self.rounds + 1):
            if self._veh[k, stop] == self.arrival[stop]:
                return self._ride_back(k, stop)
            if self._walk[k, stop] == self.arrival[stop]:
                return self._walk_back(k, stop)
        return self._start_legs(stop)

    def _start_legs(self, stop: int) -> list[Leg]:
        walk = self._start_walk.get(stop)
        if walk is None:
            return []
        src, secs = walk
        return [Leg("walk", src, stop, self.start_time, self.start_time + secs)]

    def _walk_back(self, k: int, stop: int) -> list[Leg]:
        src = int(self._walk_from[k, stop])
        legs = self._ride_back(k, src)
        return [*legs, Leg("walk", src, stop, int(self._veh[k, src]), int(self._walk[k, stop]))]

    def _ride_back(self, k: int, stop: int) -> list[Leg]:
        tt = self.timetable
        row, ptrip, board = (
            int(a[k, stop]) for a in (self._veh_row, self._veh_trip, self._veh_board)
        )
        first = int(tt.pattern_trips[tt.row_pattern[row]])
        offset = ptrip - first
        depart = int(tt.dep[tt.row_start[board] + offset])
        b_stop = int(tt.row_stop[board])
        ride = Leg("ride", b_stop, stop, depart, int(self._veh[k, stop]), int(tt.trip_of[ptrip]))
        j = int(self._ready_round[k - 1, b_stop])
        src = int(self._ready_src[k - 1, b_stop])
        if src == _START:
            before = self._start_legs(b_stop)
        elif src == _ALIGHTED:
            before = self._ride_back(j, b_stop)
        else:
            before = self._walk_back(j, b_stop)
        return [*before, ride]


def _position(position: object) -> tuple[float, float]:
    try:
        lon, lat = (float(v) for v in position)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise TypeError(f"from_position must be (lon, lat), got {position!r}") from None
    if not (abs(lon) <= 180 and abs(lat) <= 90):
        raise ValueError(
            f"from_position must be (lon, lat) in degrees on the globe, got {position!r}"
        )
    return lon, lat


def _start_ready(
    tt: Timetable,
    time: int,
    stops: Sequence[int] | None,
    position: tuple[float, float] | None,
) -> tuple[np.ndarray, dict[int, tuple[int, int]]]:
    n = tt.feed.n_stops
    ready = np.full(n, UNREACHED, dtype=np.int64)
    walks: dict[int, tuple[int, int]] = {}
    if position is not None:
        lon, lat = _position(position)
        rows, secs = walk_from_position(tt.feed, tt.walking, tt.served, lon, lat)
        for r, s in zip(rows.tolist(), secs.tolist(), strict=True):
            ready[r] = time + s
            walks[r] = (-1, s)
        return ready, walks
    for s in stops or ():
        if not (isinstance(s, int | np.integer) and 0 <= s < n):
            raise ValueError(f"from_stops must hold stop rows 0..{n - 1}, got {s!r}")
        ready[s] = time
    starts = ready.copy()
    p = tt.paths
    for u, v, secs in zip(p.src.tolist(), p.dst.tolist(), p.seconds.tolist(), strict=True):
        if starts[u] < UNREACHED and time + secs < ready[v]:
            ready[v] = time + secs
            walks[v] = (u, secs)
    return ready, walks


def _scan(tt: Timetable, ready: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the arrival there by the earliest trip caught at an earlier row of its
    pattern (UNREACHED if none), that trip (index into trip_of) and the row boarded."""
    n_rows = len(tt.row_stop)
    rows = np.arange(n_rows, dtype=np.int64)
    r = np.where(tt.row_pickup, ready[tt.row_stop], UNREACHED)
    key = rows * TIME_SPAN + np.minimum(r + TIME_OFFSET, TIME_SPAN - 1)
    caught = np.searchsorted(tt.dep_key, key) - tt.row_start[:-1]  # == trips: none
    n_trips = np.diff(tt.pattern_trips)[tt.row_pattern]
    span = int(tt.row_pos.max()) + 2 if n_rows else 1
    big = (int(n_trips.max()) + 1) * span if n_rows else 1
    lift = (tt.n_patterns - tt.row_pattern).astype(np.int64) * big
    enc = np.minimum.accumulate(caught * span + tt.row_pos + lift) - lift
    prev = np.empty(n_rows, dtype=np.int64)
    prev[0:1] = n_trips[0:1] * span
    prev[1:] = np.where(tt.row_pattern[1:] == tt.row_pattern[:-1], enc[:-1], n_trips[1:] * span)
    trip, pos = prev // span, prev % span
    ok = (trip < n_trips) & tt.row_dropoff
    at = tt.row_start[:-1] + np.where(ok, trip, 0)
    arrival = np.where(ok, tt.arr[np.minimum(at, len(tt.arr) - 1)], UNREACHED)
    first = tt.pattern_trips[tt.row_pattern]
    return arrival, first + trip, rows - tt.row_pos + pos


def earliest_arrival(
    tt: Timetable,
    time: int,
    *,
    from_stops: Sequence[int] | None = None,
    from_position: tuple[float, float] | None = None,
    max_rounds: int | None = None,
) -> Arrivals:
    """The earliest arrival at every stop from a start at ``time``.

    Parameters
    ----------
    tt : Timetable
    time : int
        Start, seconds after the service day's midnight.
    from_stops : sequence of int, optional
        Start stop rows (any of them); walking transfers from them are allowed.
    from_position : (float, float), optional
        A start (lon, lat) instead: walks to the stops within the timetable's walking
        distance.
    max_rounds : int, optional
        Most vehicle trips in a journey [default: None, as many as improve].

    Returns
    -------
    Arrivals
    """
    if (from_stops is None) == (from_position is None):
        raise ValueError("give either from_stops or from_position")
    if isinstance(time, bool) or not isinstance(time, int | np.integer):
        raise TypeError(f"time must be int seconds, not {type(time).__name__}")
    if max_rounds is not None and (isinstance(max_rounds, bool) or int(max_rounds) < 0):
        raise ValueError(f"max_rounds must be an int >= 0, got {max_rounds!r}")
    ready, start_walk = _start_ready(tt, int(time), from_stops, from_position)
    n = tt.feed.n_stops
    rec = _Record(n, ready)
    p = tt.paths
    limit = n + 1 if max_rounds is None else int(max_rounds)
    k = 0
    while k < limit and len(tt.row_stop):
        k += 1
        row_arr, row_trip, row_board = _scan(tt, rec.ready)
        veh, veh_row = _best_by_stop(tt.row_stop, row_arr, n)
        cand = veh[p.src] + p.seconds
        walk, walk_pos = _best_by_stop(p.dst, np.where(veh[p.src] < UNREACHED, cand, UNREACHED), n)
        walk_from = np.where(walk_pos >= 0, p.src[np.maximum(walk_pos, 0)], -1)
        safe = np.maximum(veh_row, 0)
        if not rec.add(k, veh, veh_row, row_trip[safe], row_board[safe], walk, walk_from, p.change):
            break
    return rec.result(tt, int(time), start_walk)


def _best_by_stop(stop: np.ndarray, value: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per stop, the least value and the index that has it (first of equals, -1 if none)."""
    best = np.full(n, UNREACHED, dtype=np.int64)
    where = np.full(n, -1, dtype=np.int64)
    order = np.lexsort((np.arange(len(stop)), value, stop))
    s, v = stop[order], value[order]
    head = np.ones(len(s), dtype=bool)
    head[1:] = s[1:] != s[:-1]
    head &= v < UNREACHED
    best[s[head]] = v[head]
    where[s[head]] = order[head]
    return best, where


class _Record:
    """The labels of every round, for the result and for rebuilding journeys."""

    def __init__(self, n: int, ready: np.ndarray) -> None:
        self.ready = ready
        self.arrival = ready.copy()
        self.trips = np.where(ready < UNREACHED, 0, -1).astype(np.int16)
        self.src = np.full(n, _START, dtype=np.int64)
        self.round = np.zeros(n, dtype=np.int64)
        none = np.full(n, UNREACHED, dtype=np.int64)
        self.rounds: dict[str, list[np.ndarray]] = {
            "veh": [none],
            "veh_row": [none],
            "veh_trip": [none],
            "veh_board": [none],
            "walk": [none],
            "walk_from": [none],
            "src": [self.src.copy()],
            "round": [self.round.copy()],
        }

    def add(
        self,
        k: int,
        veh: np.ndarray,
        veh_row: np.ndarray,
        veh_trip: np.ndarray,
        veh_board: np.ndarray,
        walk: np.ndarray,
        walk_from: np.ndarray,
        change: np.ndarray,
    ) -> bool:
        """Record round ``k``; whether any stop became ready earlier."""
        by_veh = np.where(veh < UNREACHED, veh + change, UNREACHED)
        better_v = by_veh < self.ready
        better_w = (walk < self.ready) & (walk <= by_veh)
        better_v &= ~better_w
        self.ready = np.where(better_w, walk, np.where(better_v, by_veh, self.ready))
        self.src = np.where(better_w, walk_from, np.where(better_v, _ALIGHTED, self.src))
        self.round = np.where(better_w | better_v, k, self.round)
        arrived = np.minimum(veh, walk)
        improved = arrived < self.arrival
        self.arrival = np.where(improved, arrived, self.arrival)
        self.trips = np.where(improved, k, self.trips).astype(np.int16)
        for name, value in (
            ("veh", veh),
            ("veh_row", veh_row),
            ("veh_trip", veh_trip),
            ("veh_board", veh_board),
            ("walk", walk),
            ("walk_from", walk_from),
            ("src", self.src.copy()),
            ("round", self.round.copy()),
        ):
            self.rounds[name].append(value)
        return bool(np.any(better_v | better_w))

    def result(self, tt: Timetable, time: int, start_walk: dict[int, tuple[int, int]]) -> Arrivals:
        stacked = {name: np.stack(parts) for name, parts in self.rounds.items()}
        return Arrivals(
            timetable=tt,
            start_time=time,
            arrival=self.arrival,
            trips=self.trips,
            rounds=len(self.rounds["veh"]) - 1,
            _veh=stacked["veh"],
            _veh_row=stacked["veh_row"],
            _veh_trip=stacked["veh_trip"],
            _veh_board=stacked["veh_board"],
            _walk=stacked["walk"],
            _walk_from=stacked["walk_from"],
            _ready_src=stacked["src"],
            _ready_round=stacked["round"],
            _start_walk=start_walk,
        )
