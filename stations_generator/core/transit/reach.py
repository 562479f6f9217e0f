"""Where the hider can have got to: the earliest time in each hiding zone, from one query.

A hiding zone is the geodesic circle of the game's hiding radius around its station.
A rider is **in a zone** at the earliest of:

* arriving (alighting, or standing at the start) at a stop served that day inside the
  circle: geodesic distance from the zone's centre at most the radius;
* arriving at a stop outside it, then walking straight to the circle: the walk is
  ``distance - radius`` metres, allowed when it is at most the walking distance
  (:class:`~stations_generator.core.transit.walking.Walking`), and takes
  ``ceil(metres / speed)`` seconds like every walking transfer (it may follow one);
* for a start at a position, standing in the circle (at the start time) or walking
  straight to it within the walking distance.

Distances are measured on the WGS84 ellipsoid (pyproj.Geod, Karney's algorithm: exact
to about 15 nanometres); the nearest point of a geodesic circle from a point outside
lies on the geodesic to its centre, so ``distance - radius`` is the exact distance to
the circle and the test "inside" is exact. Walks are as the crow flies, like walking
transfers. The stops near each zone are found with a k-d tree on the unit sphere whose
radius is below every radius of curvature of WGS84, so none is missed.

All zones' times come from one RAPTOR query (:func:`reach_zones`): the query gives every
stop's earliest arrival, and each zone takes the least over its stops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TypeVar

import numpy as np
from scipy.spatial import cKDTree

from stations_generator.core.geo.features import unit_vectors
from stations_generator.core.geo.geodesy import GEOD
from stations_generator.core.referee.clock import hiding_time
from stations_generator.core.transit.raptor import UNREACHED, Arrivals, earliest_arrival
from stations_generator.core.transit.timetable import Timetable
from stations_generator.core.transit.walking import Walking

__all__ = [
    "UNREACHABLE_REASON",
    "ZoneReach",
    "Zones",
    "feed_station_rows",
    "feed_zones",
    "hiding_deadline",
    "reach_zones",
    "reachable_zone_filter",
    "rule_out_unreachable",
    "seconds_of",
    "zones_at",
    "zones_reached",
]

#: Why a zone the hider cannot reach in time is no longer possible.
UNREACHABLE_REASON = "not reachable in the hiding period"
_Status = TypeVar("_Status")

#: The smallest radius of curvature of the WGS84 ellipsoid (b² / a, the meridian's at the
#: equator), less 0.5 %: a chord search on a sphere of this radius misses no pair.
_SPHERE_M = GEOD.b**2 / GEOD.a * 0.995


@dataclass(frozen=True, eq=False)
class Zones:
    """Hiding zones (circles around centres) and, for each, the stops that reach it.

    Attributes
    ----------
    ids, names : tuple of str
        Per zone (a feed's station id and name, or the caller's).
    lon, lat : numpy.ndarray of float64
        Per zone, the centre in degrees.
    radius_m : float
        The hiding radius, metres.
    walking : Walking
        The walking rules of the timetable the zones were made for.
    pair_zone, pair_stop : numpy.ndarray of int64
        One entry per (zone, stop) whose stop lies inside the circle or within the
        walking distance of it, sorted by zone then stop.
    pair_walk : numpy.ndarray of int64
        Seconds from that stop into the circle (0 inside it).
    pair_metres : numpy.ndarray of float64
        The stop's geodesic distance from the zone's centre.
    """

    ids: tuple[str, ...]
    names: tuple[str, ...]
    lon: np.ndarray
    lat: np.ndarray
    radius_m: float
    walking: Walking
    pair_zone: np.ndarray
    pair_stop: np.ndarray
    pair_walk: np.ndarray
    pair_metres: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)

    def inside(self) -> tuple[np.ndarray, np.ndarray]:
        """The (zone, stop) pairs whose stop lies inside the circle.

        Returns
        -------
        tuple of numpy.ndarray
            Zone indices and stop rows.
        """
        keep = self.pair_metres <= self.radius_m
        return self.pair_zone[keep], self.pair_stop[keep]

    def walk_in(self, lon: float, lat: float) -> np.ndarray:
        """Per zone, seconds to walk into it from a position (0 inside; UNREACHED if too far).

        Returns
        -------
        numpy.ndarray of int64
        """
        n = len(self)
        _, _, dist = GEOD.inv(np.full(n, lon), np.full(n, lat), self.lon, self.lat)
        gap = np.maximum(np.asarray(dist, dtype=float) - self.radius_m, 0.0)
        secs = self.walking.seconds(gap)
        return np.where(gap <= self.walking.max_distance_m, secs, UNREACHED)


def _check_radius(radius_m: object) -> float:
    if isinstance(radius_m, bool) or not isinstance(radius_m, int | float):
        raise TypeError(f"radius_m must be a number, not {type(radius_m).__name__}")
    if not (math.isfinite(radius_m) and radius_m > 0):
        raise ValueError(f"radius_m must be a finite number above 0, got {radius_m!r}")
    return float(radius_m)


def zones_at(
    tt: Timetable,
    ids: Sequence[str],
    names: Sequence[str],
    lon: Sequence[float] | np.ndarray,
    lat: Sequence[float] | np.ndarray,
    radius_m: float,
) -> Zones:
    """Hiding zones around the given centres, for a timetable's served stops.

    Parameters
    ----------
    tt : Timetable
    ids, names : sequence of str
        Per zone.
    lon, lat : sequence of float
        Per zone, the centre (degrees).
    radius_m : float
        The hiding radius, metres.

    Returns
    -------
    Zones
    """
    radius = _check_radius(radius_m)
    lon, lat = np.asarray(lon, dtype=float), np.asarray(lat, dtype=float)
    if not (len(ids) == len(names) == len(lon) == len(lat)):
        raise ValueError("ids, names, lon and lat must have one entry per zone")
    if not (np.all(np.abs(lon) <= 180) and np.all(np.abs(lat) <= 90)):
        raise ValueError("lon and lat must be degrees on the globe")
    f = tt.feed
    rows = np.flatnonzero(tt.served & np.isfinite(f.stop_lon) & np.isfinite(f.stop_lat))
    reach = radius + tt.walking.max_distance_m
    zone_i: list[np.ndarray] = []
    stop_i: list[np.ndarray] = []
    if len(rows) and len(lon):
        tree = cKDTree(unit_vectors(f.stop_lon[rows], f.stop_lat[rows]))
        chord = 2.0 * math.sin(min(reach / _SPHERE_M, math.pi) / 2.0)
        found = tree.query_ball_point(unit_vectors(lon, lat), chord)
        for z, near in enumerate(found):
            zone_i.append(np.full(len(near), z, dtype=np.int64))
            stop_i.append(rows[np.sort(np.asarray(near, dtype=np.int64))])
    pz = np.concatenate(zone_i) if zone_i else np.zeros(0, np.int64)
    ps = np.concatenate(stop_i).astype(np.int64) if stop_i else np.zeros(0, np.int64)
    _, _, dist = GEOD.inv(lon[pz], lat[pz], f.stop_lon[ps], f.stop_lat[ps])
    metres = np.asarray(dist, dtype=float).reshape(-1)
    keep = metres <= reach
    gap = np.maximum(metres[keep] - radius, 0.0)
    return Zones(
        ids=tuple(str(i) for i in ids),
        names=tuple(str(n) for n in names),
        lon=lon,
        lat=lat,
        radius_m=radius,
        walking=tt.walking,
        pair_zone=pz[keep],
        pair_stop=ps[keep],
        pair_walk=tt.walking.seconds(gap),
        pair_metres=metres[keep],
    )


def feed_station_rows(tt: Timetable) -> np.ndarray:
    """The feed's stations served that day: stations with a served platform, and served
    stops that have no station.

    Returns
    -------
    numpy.ndarray of int64
        Stop rows, ascending.
    """
    f = tt.feed
    station = f.station_of()
    rows = np.unique(station[tt.served])
    return rows[np.isfinite(f.stop_lon[rows]) & np.isfinite(f.stop_lat[rows])].astype(np.int64)


def feed_zones(tt: Timetable, radius_m: float) -> Zones:
    """A hiding zone around every station of the feed served that day.

    Parameters
    ----------
    tt : Timetable
    radius_m : float
        The hiding radius, metres.

    Returns
    -------
    Zones
        In the order of :func:`feed_station_rows`, ids and names from ``stops.txt``.
    """
    rows = feed_station_rows(tt)
    f = tt.feed
    return zones_at(
        tt,
        [f.stop_ids[r] for r in rows],
        [f.stop_names[r] for r in rows],
        f.stop_lon[rows],
        f.stop_lat[rows],
        radius_m,
    )


@dataclass(frozen=True, eq=False)
class ZoneReach:
    """The earliest time in each hiding zone from one start.

    Attributes
    ----------
    zones : Zones
    arrivals : Arrivals
        The query's earliest arrivals at the stops.
    arrival : numpy.ndarray of int64
        Per zone, the earliest time in it, seconds after the service day's midnight
        (:data:`~stations_generator.core.transit.raptor.UNREACHED` if never).
    via_stop : numpy.ndarray of int64
        Per zone, the stop from which it was entered (-1: from the start position, or
        unreached).
    """

    zones: Zones
    arrivals: Arrivals
    arrival: np.ndarray
    via_stop: np.ndarray

    @property
    def start_time(self) -> int:
        """The start, seconds after midnight."""
        return self.arrivals.start_time

    def within(self, deadline: int) -> np.ndarray:
        """Per zone, whether it is reached at or before ``deadline`` (seconds after midnight).

        Returns
        -------
        numpy.ndarray of bool
        """
        return self.arrival <= int(deadline)

    def minutes(self) -> np.ndarray:
        """Per zone, minutes after the start (NaN if unreached).

        Returns
        -------
        numpy.ndarray of float64
        """
        reached = self.arrival < UNREACHED
        out = np.full(len(self.arrival), np.nan)
        out[reached] = (self.arrival[reached] - self.start_time) / 60.0
        return out


def zones_reached(
    arrivals: Arrivals, zones: Zones, from_position: tuple[float, float] | None = None
) -> ZoneReach:
    """Each zone's earliest time from the stops' earliest arrivals (see the module docstring).

    Parameters
    ----------
    arrivals : Arrivals
        A query over the timetable the zones were made for.
    zones : Zones
    from_position : (float, float), optional
        The query's start position (lon, lat), if it started at one: zones entered on foot
        from it count too.

    Returns
    -------
    ZoneReach
    """
    at_stop = arrivals.arrival[zones.pair_stop]
    cand = np.where(at_stop < UNREACHED, at_stop + zones.pair_walk, UNREACHED)
    n = len(zones)
    best = np.full(n, UNREACHED, dtype=np.int64)
    via = np.full(n, -1, dtype=np.int64)
    if len(cand):
        order = np.lexsort((zones.pair_stop, cand, zones.pair_zone))
        head = np.ones(len(order), dtype=bool)
        head[1:] = zones.pair_zone[order][1:] != zones.pair_zone[order][:-1]
        first = order[head]
        best[zones.pair_zone[first]] = cand[first]
        via[zones.pair_zone[first]] = np.where(cand[first] < UNREACHED, zones.pair_stop[first], -1)
    if from_position is not None:
        walk = zones.walk_in(float(from_position[0]), float(from_position[1]))
        on_foot = np.where(walk < UNREACHED, arrivals.start_time + walk, UNREACHED)
        better = on_foot < best
        best = np.where(better, on_foot, best)
        via = np.where(better, -1, via)
    return ZoneReach(zones, arrivals, best, via)


def reach_zones(
    tt: Timetable,
    zones: Zones,
    time: int,
    *,
    from_stops: Sequence[int] | None = None,
    from_position: tuple[float, float] | None = None,
    max_rounds: int | None = None,
) -> ZoneReach:
    """Every zone's earliest time from a start, with one RAPTOR query.

    Parameters
    ----------
    tt : Timetable
    zones : Zones
        Made for ``tt`` (:func:`feed_zones` or :func:`zones_at`).
    time : int
        Start, seconds after the service day's midnight.
    from_stops, from_position, max_rounds
        As :func:`~stations_generator.core.transit.raptor.earliest_arrival`.

    Returns
    -------
    ZoneReach
    """
    if zones.walking != tt.walking:
        raise ValueError("zones were made for a timetable with other walking rules")
    arrivals = earliest_arrival(
        tt, time, from_stops=from_stops, from_position=from_position, max_rounds=max_rounds
    )
    return zones_reached(arrivals, zones, from_position)


def seconds_of(delta: timedelta) -> int:
    """A duration in whole seconds (rounded down).

    Returns
    -------
    int
    """
    return int(delta.total_seconds())


def hiding_deadline(start: int, game_size: str) -> int:
    """The end of the hiding period of a game of ``game_size`` started at ``start``.

    The hiding period is the JLTG.EU house rules' hiding time by game size
    (:data:`~stations_generator.core.referee.clock.HIDING_TIME`).

    Parameters
    ----------
    start : int
        Seconds after midnight.
    game_size : str
        ``S``, ``M`` or ``L``.

    Returns
    -------
    int
        Seconds after midnight.
    """
    if not isinstance(game_size, str) or game_size.upper() not in ("S", "M", "L"):
        raise ValueError(f"game_size must be S, M or L, got {game_size!r}")
    return int(start) + seconds_of(hiding_time(game_size))


def reachable_zone_filter(
    tt: Timetable,
    lon: Sequence[float] | np.ndarray,
    lat: Sequence[float] | np.ndarray,
    radius_m: float,
    time: int,
    deadline: int,
    *,
    from_stops: Sequence[int] | None = None,
    from_position: tuple[float, float] | None = None,
) -> np.ndarray:
    """An optional filter on possible zones: "reachable in the hiding period".

    For any stations (e.g. a game's OSM stations, whose hiding zones the game's zone
    filter computes), whether the hider, starting at ``time`` from the start, can be in
    each one's zone by ``deadline`` over the timetable.

    Parameters
    ----------
    tt : Timetable
    lon, lat : sequence of float
        Per station, degrees.
    radius_m : float
        The game's hiding radius.
    time, deadline : int
        Seconds after the service day's midnight (see :func:`hiding_deadline`).
    from_stops, from_position
        The start, as :func:`~stations_generator.core.transit.raptor.earliest_arrival`.

    Returns
    -------
    numpy.ndarray of bool
        Per station, True when its zone is reachable by the deadline.
    """
    n = len(lon)
    zones = zones_at(tt, [str(i) for i in range(n)], [""] * n, lon, lat, radius_m)
    reach = reach_zones(tt, zones, time, from_stops=from_stops, from_position=from_position)
    return reach.within(deadline)


def rule_out_unreachable(statuses: Sequence[_Status], reachable: np.ndarray) -> list[_Status]:
    """Mark the zones the hider cannot reach in time as no longer possible.

    For the game's zone list (:class:`~stations_generator.core.questions.game.ZoneStatus`
    or any frozen dataclass with ``possible``, ``fraction`` and ``reason``): a possible
    zone whose ``reachable`` entry is False becomes impossible, share 0, with
    :data:`UNREACHABLE_REASON`; the others are kept as they are (a zone already ruled
    out keeps its first reason).

    Parameters
    ----------
    statuses : sequence of ZoneStatus
    reachable : numpy.ndarray of bool
        Per status, from :func:`reachable_zone_filter` on their stations.

    Returns
    -------
    list of ZoneStatus
    """
    keep = np.asarray(reachable, dtype=bool)
    if len(keep) != len(statuses):
        raise ValueError("reachable must have one entry per zone status")
    return [
        s
        if ok or not s.possible
        else replace(s, possible=False, fraction=0.0, reason=UNREACHABLE_REASON)
        for s, ok in zip(statuses, keep.tolist(), strict=True)
    ]
