"""Transit lines from a feed's trips, and the house rules' valid hiding stops (pure).

**Same transit line.** JLTG.EU house rules, "Matching: Transit Line": the hider is on
the same transit line as the seekers when at least one direct train connects the two
stations every two hours (:data:`TRANSIT_LINE_MAX_WAIT_S`). From a feed: two stations
are on the same line when, in at least one direction, the departures from one station
of trips that later stop at the other (boarding allowed at the first, alighting at the
second) leave a longest wait (:mod:`~stations_generator.core.transit.window`) of at
most the given time in the window: there is a direct trip at least every that long, the
whole window through. The rule speaks of trains: :data:`TRANSIT_LINE_MODES`.

**Valid hiding stop.** JLTG.EU house rules, "Hiding Zones": the zone's stop has at
least one vehicle an hour (:data:`CENTRE_MAX_WAIT_S`), and transit used inside the zone
runs every 15 minutes (:data:`ZONE_MAX_WAIT_S`). Measured as:

* at the centre station: its departures' longest wait in the window ≤ 60 min;
* inside the zone: the stations with a departure in the window whose position (the
  parent station's, else the stop's) lies within the hiding radius of the centre's,
  geodesic on WGS84, the centre included; their departures taken together (any route,
  any direction) have a longest wait ≤ 15 min — a vehicle leaves from somewhere in the
  zone at least every 15 minutes.

How: the window's trips are grouped into patterns (the same stations, boarding rules
and route); a pattern's position is a *group*, its trips' departures there. Every pair
of stations a pattern serves in order is one row per pattern (not per trip); a pair
served by one group has that group's longest wait, a pair served by several has the
longest wait of their departures merged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pyproj import Geod
from scipy.spatial import cKDTree

from stations_generator.core.geo.features import unit_vectors
from stations_generator.core.transit.window import NO_WAIT, DayService, longest_waits

__all__ = [
    "CENTRE_MAX_WAIT_S",
    "TRANSIT_LINE_MAX_WAIT_S",
    "TRANSIT_LINE_MODES",
    "ZONE_MAX_WAIT_S",
    "DirectLinks",
    "StopValidity",
    "direct_links",
    "stop_validity",
]

#: JLTG.EU house rules, "Matching: Transit Line": a direct train at least every 2 hours.
TRANSIT_LINE_MAX_WAIT_S = 2 * 3600
#: The modes that make a transit line under those rules: trains (``rail`` covers the
#: S-Bahn, GTFS 109) and the monorails the rules count as railways.
TRANSIT_LINE_MODES = ("rail", "monorail")
#: JLTG.EU house rules, "Hiding Zones": at least one vehicle an hour at the zone's stop.
CENTRE_MAX_WAIT_S = 3600
#: JLTG.EU house rules, "Hiding Zones": transit inside the zone every 15 minutes.
ZONE_MAX_WAIT_S = 15 * 60
_GEOD = Geod(ellps="WGS84")
#: A sphere radius below every radius of curvature of WGS84 (6,335,439 m, the
#: meridian's at the equator), less 0.5 %: a chord search on it misses no pair.
_SPHERE_M = 6_335_439.0 * 0.995


@dataclass(frozen=True)
class DirectLinks:
    """Per ordered pair of stations with a direct trip in the window, the longest wait.

    Attributes
    ----------
    src, dst : numpy.ndarray of int32
        Station rows, sorted by ``(src, dst)``.
    longest_wait_s : numpy.ndarray of int64
        Per pair, the longest wait for a direct trip from ``src`` to ``dst``.
    trips : numpy.ndarray of int64
        Per pair, how many direct trips leave in the window.
    """

    src: np.ndarray
    dst: np.ndarray
    longest_wait_s: np.ndarray
    trips: np.ndarray

    def wait(self, a: int, b: int) -> int:
        """The longest wait from ``a`` to ``b`` (:data:`NO_WAIT` without a direct trip)."""
        key = np.searchsorted(self.src * np.int64(1 << 32) + self.dst, a * (1 << 32) + b)
        if key < len(self.src) and self.src[key] == a and self.dst[key] == b:
            return int(self.longest_wait_s[key])
        return NO_WAIT

    def linked(self, max_wait_s: int) -> set[tuple[int, int]]:
        """Unordered pairs ``(a, b)``, ``a < b``, with a direct trip at least every
        ``max_wait_s`` in one direction or the other.

        Returns
        -------
        set of tuple of int
        """
        ok = self.longest_wait_s <= max_wait_s
        a, b = self.src[ok].tolist(), self.dst[ok].tolist()
        return {(min(u, v), max(u, v)) for u, v in zip(a, b, strict=True)}


def _expand(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices ``starts[k] … starts[k] + counts[k] - 1`` of every k, in order."""
    total = int(counts.sum())
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + offsets


def _patterns(ds: DayService) -> list[np.ndarray]:
    """The instances grouped by pattern: the same stations, boarding and alighting rules
    and route (a pattern's trips differ only in their times)."""
    lens = np.bincount(ds.inst, minlength=len(ds.inst_trip))
    starts = np.concatenate(([0], np.cumsum(lens)))
    out = []
    for length in np.unique(lens[lens > 1]).tolist():
        insts = np.flatnonzero(lens == length)
        take = starts[insts][:, None] + np.arange(length)[None, :]
        key = np.column_stack(
            (ds.station[ds.stop[take]], ds.pickup[take], ds.dropoff[take], ds.inst_route[insts])
        )
        _, code = np.unique(key, axis=0, return_inverse=True)
        code = code.reshape(-1)
        order = np.argsort(code, kind="stable")
        out.extend(np.split(insts[order], np.cumsum(np.bincount(code))[:-1]))
    return out


def _groups(ds: DayService, routes: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """Departure groups (a pattern's position: its trips' departures there in the
    window) and the ordered station pairs each group serves directly.

    Returns ``(group_of_departure, departure_time, pair_src, pair_dst, pair_group)``.
    """
    dep_ok = ds.departures(routes)
    lens = np.bincount(ds.inst, minlength=len(ds.inst_trip))
    starts = np.concatenate(([0], np.cumsum(lens)))
    gid, gtime, src, dst, grp = [], [], [], [], []
    n_groups = 0
    for insts in _patterns(ds):
        length = int(lens[insts[0]])
        take = starts[insts][:, None] + np.arange(length)[None, :]
        ok = dep_ok[take]
        cols = np.flatnonzero(ok.any(axis=0))
        if len(cols) == 0:
            continue
        colmap = np.full(length, -1, dtype=np.int64)
        colmap[cols] = n_groups + np.arange(len(cols))
        rows, at = np.nonzero(ok)
        gid.append(colmap[at])
        gtime.append(ds.dep[take[rows, at]])
        stations = ds.station[ds.stop[take[0]]]
        i, j = np.triu_indices(length, k=1)
        keep = (colmap[i] >= 0) & ds.dropoff[take[0]][j] & (stations[i] != stations[j])
        src.append(stations[i[keep]])
        dst.append(stations[j[keep]])
        grp.append(colmap[i[keep]])
        n_groups += len(cols)
    if not gid:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty, empty
    return tuple(np.concatenate(p).astype(np.int64) for p in (gid, gtime, src, dst, grp))


def direct_links(ds: DayService, routes: np.ndarray | None = None) -> DirectLinks:
    """Every direct connection between two stations in the window, with its longest wait.

    Parameters
    ----------
    ds : DayService
    routes : numpy.ndarray of bool, optional
        Per route, whether its trips count [default: all].

    Returns
    -------
    DirectLinks
    """
    gid, gtime, src, dst, grp = _groups(ds, routes)
    n_groups = int(gid.max()) + 1 if len(gid) else 0
    group_wait, _ = longest_waits(gid, gtime, n_groups, ds.window)
    group_trips = np.bincount(gid, minlength=n_groups)
    sorted_times = gtime[np.argsort(gid, kind="stable")]
    group_start = np.concatenate(([0], np.cumsum(group_trips)))[:-1]
    # one row per (pair, group); a pair served by one group has that group's wait
    entries = np.unique(np.column_stack((src * (1 << 32) + dst, grp)), axis=0)
    keys, first, n_per = np.unique(entries[:, 0], return_index=True, return_counts=True)
    groups = entries[:, 1]
    wait = group_wait[groups[first]] if len(first) else np.zeros(0, dtype=np.int64)
    multi = np.flatnonzero(n_per > 1)
    if len(multi):
        # pairs served by the same groups (a trunk's stations, from one station) share
        # one merged wait: merge each distinct set of groups once
        sets: dict[tuple[int, ...], int] = {}
        set_of = np.array(
            [
                sets.setdefault(tuple(groups[first[m] : first[m] + n_per[m]].tolist()), len(sets))
                for m in multi.tolist()
            ],
            dtype=np.int64,
        )
        members = [np.array(key, dtype=np.int64) for key in sets]
        g = np.concatenate(members)
        owner = np.repeat(np.arange(len(members)), [len(m) for m in members])
        times = sorted_times[_expand(group_start[g], group_trips[g])]
        merged, _ = longest_waits(np.repeat(owner, group_trips[g]), times, len(members), ds.window)
        wait[multi] = merged[set_of]
    trips = np.add.reduceat(group_trips[groups], first) if len(first) else np.zeros(0, np.int64)
    return DirectLinks(
        src=(keys >> 32).astype(np.int32),
        dst=(keys & ((1 << 32) - 1)).astype(np.int32),
        longest_wait_s=wait.astype(np.int64),
        trips=trips.astype(np.int64),
    )


@dataclass(frozen=True)
class StopValidity:
    """The house rules' timetable conditions for each candidate hiding stop.

    Attributes
    ----------
    stations : numpy.ndarray of int32
        The centre stations checked.
    centre_wait_s : numpy.ndarray of int64
        Per station, the longest wait at it (:data:`NO_WAIT`: nothing departs).
    zone_wait_s : numpy.ndarray of int64
        Per station, the longest wait anywhere in its zone.
    zone_stations : numpy.ndarray of int64
        Per station, how many served stations its zone holds (itself included).
    valid : numpy.ndarray of bool
        Both conditions hold.
    """

    stations: np.ndarray
    centre_wait_s: np.ndarray
    zone_wait_s: np.ndarray
    zone_stations: np.ndarray
    valid: np.ndarray


def stop_validity(
    ds: DayService,
    radius_m: float,
    stations: np.ndarray | None = None,
    routes: np.ndarray | None = None,
    centre_max_s: int = CENTRE_MAX_WAIT_S,
    zone_max_s: int = ZONE_MAX_WAIT_S,
) -> StopValidity:
    """Check the house rules' timetable conditions (module docstring) for hiding stops.

    Parameters
    ----------
    ds : DayService
    radius_m : float
        The hiding radius (JLTG.EU: 500 m in S and M games, 1 km in L).
    stations : numpy.ndarray of int, optional
        The centre stations [default: every station with a departure in the window].
    routes : numpy.ndarray of bool, optional
        Per route, whether its trips count as transit [default: all].
    centre_max_s, zone_max_s : int
        The longest waits allowed [default: 60 min, 15 min].

    Returns
    -------
    StopValidity
    """
    if not radius_m > 0:
        raise ValueError(f"radius_m must be > 0, not {radius_m}")
    dep = ds.departures(routes)
    st = ds.station[ds.stop[dep]].astype(np.int64)
    times = ds.dep[dep]
    feed = ds.feed
    served = np.unique(st)
    served = served[np.isfinite(feed.stop_lon[served]) & np.isfinite(feed.stop_lat[served])]
    centres = served if stations is None else np.asarray(stations, dtype=np.int64)
    centre_wait, _ = longest_waits(st, times, feed.n_stops, ds.window)
    members = _zone_members(feed.stop_lon, feed.stop_lat, centres, served, radius_m)
    zone_wait = np.full(len(centres), NO_WAIT, dtype=np.int64)
    zone_count = np.zeros(len(centres), dtype=np.int64)
    order = np.argsort(st, kind="stable")
    st_sorted, t_sorted = st[order], times[order]
    for k, inside in enumerate(members):
        zone_count[k] = len(inside)
        lo = np.searchsorted(st_sorted, inside)
        hi = np.searchsorted(st_sorted, inside, side="right")
        picked = np.concatenate([t_sorted[a:b] for a, b in zip(lo, hi, strict=True)] or [[]])
        wait, _ = longest_waits(np.zeros(len(picked), dtype=np.int64), picked, 1, ds.window)
        zone_wait[k] = wait[0]
    c_wait = centre_wait[centres]
    valid = (c_wait != NO_WAIT) & (c_wait <= centre_max_s)
    valid &= (zone_wait != NO_WAIT) & (zone_wait <= zone_max_s)
    return StopValidity(centres.astype(np.int32), c_wait, zone_wait, zone_count, valid)


def _zone_members(
    lon: np.ndarray, lat: np.ndarray, centres: np.ndarray, served: np.ndarray, radius_m: float
) -> list[np.ndarray]:
    """Per centre, the served stations within ``radius_m`` of it (geodesic), sorted."""
    if len(served) == 0:
        return [np.zeros(0, dtype=np.int64) for _ in centres]
    tree = cKDTree(unit_vectors(lon[served], lat[served]))
    chord = 2.0 * math.sin(min(radius_m / _SPHERE_M, math.pi) / 2.0)
    out = []
    for c, near in zip(
        centres.tolist(),
        tree.query_ball_point(unit_vectors(lon[centres], lat[centres]), chord),
        strict=True,
    ):
        cand = served[np.asarray(near, dtype=np.int64)]
        _, _, d = _GEOD.inv(
            np.full(len(cand), lon[c]), np.full(len(cand), lat[c]), lon[cand], lat[cand]
        )
        inside = set(cand[np.asarray(d) <= radius_m].tolist()) | {c}
        out.append(np.array(sorted(inside), dtype=np.int64))
    return out
