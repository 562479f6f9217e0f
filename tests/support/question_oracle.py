"""An independent oracle for question geometry: GeographicLib brute force.

Nothing here uses the package's frames, buffers, indexes or question classes. Every
deciding distance is a WGS84 geodesic from GeographicLib: pyproj.Geod (its C port)
for the bulk, vectorised, and the ``geographiclib`` package (Karney's own Python
implementation, a test extra) for every point whose verdict is within 5 m of
flipping. Lines are chains of geodesic segments; the distance to a segment is found
by golden-section search along it (GeographicLib's direct problem), from densified
vertices. A KD-tree over unit vectors only prunes places and vertices that cannot be
nearest (chord distances, converted with a generous 2 % bound).

Each truth comes with the point's distance to the true boundary (exact for circles
and measuring regions, first order for bisectors), so a mismatch of the package's
polygon can be judged: a miss more than 1 m from the true boundary is a failure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyproj
import shapely
from geographiclib.geodesic import Geodesic
from scipy.spatial import cKDTree

GEOD = pyproj.Geod(ellps="WGS84")
WGS84 = Geodesic.WGS84
R_MIN = 6_335_000.0  # smallest radius of curvature of WGS84
CONFIRM_M = 5.0  # verdicts this close to flipping are recomputed with geographiclib
STEP_M = 25.0  # densification of lines before the golden-section search


def inv(lon1, lat1, lon2, lat2):
    """(azimuth at 1, azimuth at 2 pointing back to 1, distance) arrays, pyproj.Geod."""
    a, b, d = GEOD.inv(
        *np.broadcast_arrays(
            np.asarray(lon1, float),
            np.asarray(lat1, float),
            np.asarray(lon2, float),
            np.asarray(lat2, float),
        )
    )
    return np.asarray(a), np.asarray(b), np.asarray(d)


def exact(lon1, lat1, lon2, lat2) -> float:
    """One geodesic distance from the geographiclib package."""
    return WGS84.Inverse(float(lat1), float(lon1), float(lat2), float(lon2))["s12"]


def unit(lon, lat) -> np.ndarray:
    lon, lat = np.radians(np.asarray(lon, float)), np.radians(np.asarray(lat, float))
    return np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])


def sample_points(area, n: int, seed: int) -> np.ndarray:
    """``n`` points uniform by area inside ``area`` (lon/lat; density ∝ cos φ), as (n, 2)."""
    rng = np.random.default_rng(seed)
    minx, miny, maxx, maxy = area.bounds
    shapely.prepare(area)
    out = []
    got = 0
    s0, s1 = math.sin(math.radians(miny)), math.sin(math.radians(maxy))
    while got < n:
        m = 4 * (n - got) + 100
        lon = rng.uniform(minx, maxx, m)
        lat = np.degrees(np.arcsin(rng.uniform(s0, s1, m)))
        keep = shapely.contains_xy(area, lon, lat)
        pts = np.column_stack([lon[keep], lat[keep]])
        out.append(pts)
        got += len(pts)
    return np.vstack(out)[:n]


# --- places ----------------------------------------------------------------------------


class Places:
    """Brute-force nearest places (ties to the smaller id)."""

    def __init__(self, ids, lons, lats):
        order = sorted(range(len(ids)), key=lambda i: ids[i])
        self.ids = [ids[i] for i in order]
        self.lons = np.asarray(lons, float)[order]
        self.lats = np.asarray(lats, float)[order]
        self.tree = cKDTree(unit(self.lons, self.lats))

    def ranked(self, lons, lats, k: int = 2):
        """Indices and distances of the ``k`` nearest places of each point, nearest first.

        Every place that could be among the ``k`` nearest is measured: all places
        within the chord of the k-th nearest's geodesic distance (+2 %).
        """
        k = min(k, len(self.ids))
        q = unit(lons, lats)
        _, first = self.tree.query(q, k=k)
        first = first.reshape(len(q), k)
        _, _, dk = inv(lons, lats, self.lons[first[:, -1]], self.lats[first[:, -1]])
        lists = self.tree.query_ball_point(q, dk / R_MIN * 1.02 + 1e-9)
        counts = np.array([len(c) for c in lists])
        qi = np.repeat(np.arange(len(q)), counts)
        pi = np.concatenate([np.asarray(c, int) for c in lists])
        _, _, d = inv(lons[qi], lats[qi], self.lons[pi], self.lats[pi])
        order = np.lexsort((pi, d, qi))  # by point, then distance, then id rank
        qi, pi, d = qi[order], pi[order], d[order]
        start = np.searchsorted(qi, np.arange(len(q)))
        idx = np.stack([pi[start + j] for j in range(k)], axis=1)
        dist = np.stack([d[start + j] for j in range(k)], axis=1)
        return idx, dist

    def bisector_margin(self, lons, lats, i1, i2) -> np.ndarray:
        """First-order distance (m) from each point to the bisector of places i1 and i2."""
        a1, _, d1 = inv(self.lons[i1], self.lats[i1], lons, lats)
        a2, _, d2 = inv(self.lons[i2], self.lats[i2], lons, lats)
        _, b1, _ = inv(self.lons[i1], self.lats[i1], lons, lats)
        _, b2, _ = inv(self.lons[i2], self.lats[i2], lons, lats)
        theta = np.radians(b1 - b2)
        grad = np.maximum(np.abs(2 * np.sin(theta / 2)), 1e-9)
        return np.abs(d2 - d1) / grad


# --- lines and polygons -------------------------------------------------------------------


class Lines:
    """Geodesic polylines and polygons: distance from points (0 inside a polygon)."""

    def __init__(self, geometries):
        self.polygons = [g for g in geometries if g.geom_type in ("Polygon", "MultiPolygon")]
        self.area = shapely.union_all(self.polygons) if self.polygons else None
        if self.area is not None:
            shapely.prepare(self.area)
        seg = []
        for g in geometries:
            line = g.boundary if g.geom_type in ("Polygon", "MultiPolygon") else g
            for part in shapely.get_parts(line):
                c = shapely.get_coordinates(part)
                seg.extend(np.hstack([c[:-1], c[1:]]))
        seg = np.array([s for s in seg if (s[0], s[1]) != (s[2], s[3])])
        self.seg = seg
        _, _, self.length = inv(seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3])
        self.az, _, _ = inv(seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3])
        # Dense vertices every STEP_M along each geodesic segment (distance s along it).
        k = np.maximum(1, np.ceil(self.length / STEP_M).astype(int))
        self.owner = np.repeat(np.arange(len(seg)), k + 1)
        start = np.cumsum(k + 1) - (k + 1)
        step = np.arange(len(self.owner)) - np.repeat(start, k + 1)
        self.along = step * np.repeat(self.length / k, k + 1)
        x, y, _ = GEOD.fwd(
            self.seg[self.owner, 0], self.seg[self.owner, 1], self.az[self.owner], self.along
        )
        self.vlon, self.vlat = np.asarray(x), np.asarray(y)
        self.tree = cKDTree(unit(self.vlon, self.vlat))

    def _on(self, seg_idx, s):
        x, y, _ = GEOD.fwd(self.seg[seg_idx, 0], self.seg[seg_idx, 1], self.az[seg_idx], s)
        return np.asarray(x), np.asarray(y)

    def distance(self, lons, lats, near: float | None = None) -> np.ndarray:
        """Distance from each point (metres).

        With ``near``, only points whose distance may lie within STEP_M of ``near``
        are searched to the millimetre; the others get their distance to the nearest
        dense vertex (at most STEP_M / 2 too long), which cannot change their verdict.
        """
        lons = all_lons = np.asarray(lons, float)
        lats = all_lats = np.asarray(lats, float)
        q = unit(lons, lats)
        _, first = self.tree.query(q)
        _, _, d0 = inv(lons, lats, self.vlon[first], self.vlat[first])
        best = d0.copy()  # an upper bound; the true distance is at least 0.98 of it, less STEP_M
        if near is not None:  # points far from ``near`` either way are decided already
            todo = np.flatnonzero(np.abs(d0 - near) <= 0.02 * d0 + 2 * STEP_M)
        else:
            todo = np.arange(len(lons))
        out = best
        lons, lats, q, d0 = lons[todo], lats[todo], q[todo], d0[todo]
        lists = self.tree.query_ball_point(q, (d0 + STEP_M) / R_MIN * 1.02 + 1e-9)
        pi = np.concatenate([np.full(len(c), i) for i, c in enumerate(lists)])
        vi = np.concatenate([np.asarray(c, int) for c in lists])
        # The nearest point of the lines lies within STEP_M / 2 of a dense vertex, so only
        # vertices within STEP_M / 2 of the nearest vertex's distance can be next to it.
        dv = inv(lons[pi], lats[pi], self.vlon[vi], self.vlat[vi])[2]
        vmin = np.full(len(lons), np.inf)
        np.minimum.at(vmin, pi, dv)
        close = dv <= vmin[pi] + STEP_M / 2 + 1e-6
        if near is not None:
            close &= np.abs(vmin[pi] - near) <= STEP_M
        pi, vi = pi[close], vi[close]
        _, first_of = np.unique(pi * (len(self.seg) + 1) + self.owner[vi], return_index=True)
        close_idx = np.flatnonzero(close)[first_of]  # one search per point and segment
        pi, vi = pi[first_of], vi[first_of]
        # Golden-section search on the stretch of the segment around each candidate vertex.
        seg = self.owner[vi]
        lo = np.clip(self.along[vi] - STEP_M, 0.0, self.length[seg])
        hi = np.clip(self.along[vi] + STEP_M, 0.0, self.length[seg])
        g = (math.sqrt(5) - 1) / 2
        a, b = lo.copy(), hi.copy()
        c = b - g * (b - a)
        d = a + g * (b - a)
        fc = inv(lons[pi], lats[pi], *self._on(seg, c))[2]
        fd = inv(lons[pi], lats[pi], *self._on(seg, d))[2]
        for _ in range(28):  # 50 m × 0.618^28 < 0.1 mm
            left = fc < fd
            # keep [a, d] (new d = old c) or [c, b] (new c = old d): one new point each round
            b = np.where(left, d, b)
            a = np.where(left, a, c)
            new_c = np.where(left, b - g * (b - a), d)
            new_d = np.where(left, c, a + g * (b - a))
            f_new = inv(lons[pi], lats[pi], *self._on(seg, np.where(left, new_c, new_d)))[2]
            fc, fd = np.where(left, f_new, fd), np.where(left, fc, f_new)
            c, d = new_c, new_d
        s = (a + b) / 2
        best_pair = dv[close_idx]
        for col in (lo, hi, s):
            best_pair = np.minimum(best_pair, inv(lons[pi], lats[pi], *self._on(seg, col))[2])
        best = vmin.copy()
        np.minimum.at(best, pi, best_pair)
        out[todo] = best
        if self.area is not None:
            out[shapely.intersects_xy(self.area, all_lons, all_lats)] = 0.0
        return out


# --- zones ------------------------------------------------------------------------------


def zone_of(zones: list[tuple[str, str, object]], lons, lats) -> list[str | None]:
    """The id of the zone covering each point (the smallest id where zones overlap)."""
    out: list[str | None] = [None] * len(lons)
    for zid, _, geom in sorted(zones, key=lambda z: z[0]):
        shapely.prepare(geom)
        inside = shapely.intersects_xy(geom, np.asarray(lons), np.asarray(lats))
        for i in np.flatnonzero(inside):
            if out[i] is None:
                out[i] = zid
    return out


# --- truths -----------------------------------------------------------------------------


@dataclass
class Truth:
    """The true verdict at each point and the point's distance to the true boundary.

    ``margin`` is an array (metres, inf where there is no boundary) or a function of
    point indices giving it (when it is costly and only needed for a few points).
    """

    keep: np.ndarray
    margin: object

    def margins(self, idx) -> np.ndarray:
        idx = np.asarray(idx, int)
        if callable(self.margin):
            return np.asarray(self.margin(idx), float) if len(idx) else np.zeros(0)
        return np.asarray(self.margin)[idx]


def confirm(keep, margin, recompute) -> Truth:
    """Recompute, with geographiclib, every verdict within CONFIRM_M of flipping."""
    keep = keep.copy()
    for i in np.flatnonzero(margin < CONFIRM_M):
        keep[i], margin[i] = recompute(i)
    return Truth(keep, margin)


def radius(seeker, r, lons, lats, within: bool) -> Truth:
    _, _, d = inv(seeker[0], seeker[1], lons, lats)

    def again(i):
        e = exact(seeker[0], seeker[1], lons[i], lats[i])
        return (e <= r) == within, abs(e - r)

    return confirm((d <= r) == within, np.abs(d - r), again)


def thermometer(start, end, lons, lats, hotter: bool) -> Truth:
    _, back_s, ds = inv(start[0], start[1], lons, lats)
    _, back_e, de = inv(end[0], end[1], lons, lats)
    grad = np.maximum(np.abs(2 * np.sin(np.radians(back_s - back_e) / 2)), 1e-9)
    margin = np.abs(ds - de) / grad

    def again(i):
        es = exact(start[0], start[1], lons[i], lats[i])
        ee = exact(end[0], end[1], lons[i], lats[i])
        return (ee <= es) == hotter, margin[i]

    return confirm((de <= ds) == hotter, margin, again)


def nearest_same(places: Places, seeker, lons, lats, same: bool) -> Truth:
    (mine,), _ = places.ranked(np.array([seeker[0]]), np.array([seeker[1]]), 1)
    idx, _ = places.ranked(lons, lats, 2)
    keep = (idx[:, 0] == mine[0]) == same
    margin = (
        places.bisector_margin(lons, lats, idx[:, 0], idx[:, 1])
        if idx.shape[1] > 1
        else np.full(len(lons), np.inf)
    )
    return Truth(keep, margin)


def tentacles(places: Places, seeker, r, lons, lats, answer) -> Truth:
    """``answer`` a place id or None (not within)."""
    _, _, ds = inv(seeker[0], seeker[1], places.lons, places.lats)
    inside = np.flatnonzero(ds <= r)
    _, _, d = inv(seeker[0], seeker[1], lons, lats)
    within = d <= r
    circle = np.abs(d - r)
    if len(inside) == 0:
        return Truth(np.full(len(lons), answer is None), np.full(len(lons), np.inf))
    sub = Places([places.ids[i] for i in inside], places.lons[inside], places.lats[inside])
    idx, _ = sub.ranked(lons, lats, 2)
    near = np.array([sub.ids[i] for i in idx[:, 0]], dtype=object)
    if answer is None:
        return Truth(~within, circle)
    margin = np.minimum(
        circle,
        sub.bisector_margin(lons, lats, idx[:, 0], idx[:, 1]) if len(inside) > 1 else np.inf,
    )
    return Truth(within & (near == answer), margin)


_MEASURED: dict = {}


def measuring(
    points: Places | None, lines: Lines | None, seeker, lons, lats, closer: bool
) -> Truth:
    """``closer``: the nearest feature at most as far as the seeker's (distances cached per input)."""
    key = (id(points), id(lines), tuple(seeker), id(lons))
    if key in _MEASURED:
        ds, d = _MEASURED[key]
        return Truth((d <= ds) == closer, np.abs(d - ds))

    def dist(x, y, near=None):
        best = np.full(len(x), np.inf)
        if points is not None:
            best = np.minimum(best, points.ranked(x, y, 1)[1][:, 0])
        if lines is not None:
            best = np.minimum(best, lines.distance(x, y, near))
        return best

    ds = float(dist(np.array([seeker[0]]), np.array([seeker[1]]))[0])
    d = dist(lons, lats, ds)
    _MEASURED[key] = (ds, d)
    return Truth((d <= ds) == closer, np.abs(d - ds))


def zones_same(zones, matching_ids: set[str], lons, lats, same: bool, boundary) -> Truth:
    """``boundary()`` gives the zones' boundary Lines (built only if a margin is asked for)."""
    found = zone_of(zones, lons, lats)
    keep = np.array([(z in matching_ids) == same for z in found])
    return Truth(keep, lambda idx: boundary().distance(lons[idx], lats[idx]))
