"""Walking transfers between stops: geodesic distances, a walking speed, ``transfers.txt``.

Pairs of stops within ``max_distance_m`` are found with a k-d tree (scipy) over unit
vectors on the sphere, whose chord distances bound the great-circle ones; each pair is
then measured on the WGS84 ellipsoid (pyproj.Geod) and kept when within the distance.
The sphere's radius is taken 0.5 % below the ellipsoid's smallest radius of curvature
(6,335 km), so no pair within the distance is missed. A walk takes
``ceil(distance / speed_mps)`` seconds.

``transfers.txt`` then overrides, a station's row standing for every pair of its
platforms, a row between two stops for that pair alone (applied last): type 2
(minimum time) sets the pair's time to ``min_transfer_time``, even beyond walking
distance, and for a stop to itself the time between alighting and boarding there;
type 3 (not possible) removes the pair; types 0 and 1 keep the walking time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from stations_generator.core.geo.geodesy import GEOD
from stations_generator.core.transit.feed import Feed

__all__ = [
    "DEFAULT_MAX_WALK_M",
    "DEFAULT_WALK_SPEED_MPS",
    "Footpaths",
    "Walking",
    "footpaths",
    "walk_from_position",
]

#: Walking transfers reach 300 m: platforms of one station and the stops across a street
#: or a block, short of the 400 m usually taken as a stop's whole walking catchment.
DEFAULT_MAX_WALK_M = 300.0
#: 1.2 m/s (4 ft/s), the pedestrian walking speed traffic engineering designs for (US MUTCD).
DEFAULT_WALK_SPEED_MPS = 1.2
#: A sphere radius below every radius of curvature of WGS84 (6,335,439 m at the equator's
#: meridian), less 0.5 %: chord searches on it never miss a pair within the distance.
_SEARCH_RADIUS_M = 6_335_439.0 * 0.995


@dataclass(frozen=True)
class Walking:
    """How far and how fast riders walk between stops.

    Attributes
    ----------
    max_distance_m : float
        Longest walking transfer, metres [default: 300].
    speed_mps : float
        Walking speed, metres per second [default: 1.2].
    """

    max_distance_m: float = DEFAULT_MAX_WALK_M
    speed_mps: float = DEFAULT_WALK_SPEED_MPS

    def __post_init__(self) -> None:
        for name in ("max_distance_m", "speed_mps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{name} must be a number, not {type(value).__name__}")
            if not (math.isfinite(value) and value >= 0) or (name == "speed_mps" and value == 0):
                raise ValueError(f"{name} must be a finite number above 0, got {value!r}")

    def seconds(self, metres: np.ndarray) -> np.ndarray:
        """Walking times, whole seconds rounded up.

        Returns
        -------
        numpy.ndarray of int64
        """
        return np.ceil(np.asarray(metres, dtype=float) / self.speed_mps).astype(np.int64)


@dataclass(frozen=True)
class Footpaths:
    """Directed walking transfers and the time to change at a stop.

    Attributes
    ----------
    src, dst : numpy.ndarray of int32
        Stop rows, ``src != dst``; sorted by ``(src, dst)``.
    seconds : numpy.ndarray of int64
        The walk's time.
    change : numpy.ndarray of int64
        Per stop, the least time between alighting and boarding there (0 unless
        ``transfers.txt`` gives one).
    """

    src: np.ndarray
    dst: np.ndarray
    seconds: np.ndarray
    change: np.ndarray


def _unit_vectors(lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
    lam, phi = np.radians(lon), np.radians(lat)
    return np.column_stack((np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)))


def _chord(metres: float) -> float:
    return 2.0 * math.sin(min(metres / _SEARCH_RADIUS_M, math.pi) / 2.0)


def footpaths(feed: Feed, walking: Walking, stops: np.ndarray) -> Footpaths:
    """The walking transfers between the given stops.

    Parameters
    ----------
    feed : Feed
    walking : Walking
    stops : numpy.ndarray of bool
        Per stop, whether it may be walked from and to (e.g. the stops trips serve).

    Returns
    -------
    Footpaths
    """
    rows = np.flatnonzero(stops & np.isfinite(feed.stop_lon) & np.isfinite(feed.stop_lat))
    pairs: dict[tuple[int, int], int] = {}
    if len(rows) > 1 and walking.max_distance_m > 0:
        tree = cKDTree(_unit_vectors(feed.stop_lon[rows], feed.stop_lat[rows]))
        found = tree.query_pairs(_chord(walking.max_distance_m), output_type="ndarray")
        a, b = rows[found[:, 0]], rows[found[:, 1]]
        _, _, dist = GEOD.inv(
            feed.stop_lon[a], feed.stop_lat[a], feed.stop_lon[b], feed.stop_lat[b]
        )
        near = np.asarray(dist) <= walking.max_distance_m
        secs = walking.seconds(np.asarray(dist)[near])
        for u, v, s in zip(a[near].tolist(), b[near].tolist(), secs.tolist(), strict=True):
            pairs[(u, v)] = pairs[(v, u)] = s
    change = np.zeros(feed.n_stops, dtype=np.int64)
    _apply_transfers(feed, stops, pairs, change)
    ordered = sorted(pairs.items())
    src = np.array([p[0][0] for p in ordered], dtype=np.int32)
    dst = np.array([p[0][1] for p in ordered], dtype=np.int32)
    seconds = np.array([p[1] for p in ordered], dtype=np.int64)
    return Footpaths(src, dst, seconds, change)


def _apply_transfers(
    feed: Feed, stops: np.ndarray, pairs: dict[tuple[int, int], int], change: np.ndarray
) -> None:
    children: dict[int, list[int]] = {}
    for child in np.flatnonzero(feed.stop_parent >= 0).tolist():
        children.setdefault(int(feed.stop_parent[child]), []).append(child)
    is_station = feed.stop_location_type[feed.tr_from] == 1
    is_station |= feed.stop_location_type[feed.tr_to] == 1
    for row in [*np.flatnonzero(is_station), *np.flatnonzero(~is_station)]:
        kind, secs = int(feed.tr_type[row]), int(feed.tr_min_time[row])
        if kind not in (2, 3):
            continue
        u0, v0 = int(feed.tr_from[row]), int(feed.tr_to[row])
        for u in children.get(u0, [u0]):
            for v in children.get(v0, [v0]):
                if not (stops[u] and stops[v]):
                    continue
                if u == v:
                    change[u] = max(secs, 0) if kind == 2 else change[u]
                elif kind == 3:
                    pairs.pop((u, v), None)
                else:
                    pairs[(u, v)] = max(secs, 0)


def walk_from_position(
    feed: Feed, walking: Walking, stops: np.ndarray, lon: float, lat: float
) -> tuple[np.ndarray, np.ndarray]:
    """The stops within walking distance of a position, and the walk's time to each.

    Parameters
    ----------
    feed : Feed
    walking : Walking
    stops : numpy.ndarray of bool
        Per stop, whether it may be walked to.
    lon, lat : float
        The position, degrees.

    Returns
    -------
    tuple of numpy.ndarray
        Stop rows (int32) and seconds (int64), by stop row.
    """
    rows = np.flatnonzero(stops & np.isfinite(feed.stop_lon) & np.isfinite(feed.stop_lat))
    n = len(rows)
    _, _, dist = GEOD.inv(
        np.full(n, lon), np.full(n, lat), feed.stop_lon[rows], feed.stop_lat[rows]
    )
    near = np.asarray(dist) <= walking.max_distance_m
    return rows[near].astype(np.int32), walking.seconds(np.asarray(dist)[near])
