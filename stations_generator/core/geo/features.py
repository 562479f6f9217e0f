"""Exact geodesic distances from points to lines and polygons (measuring subjects).

A line is a chain of geodesic segments between its vertices (OSM nodes); a polygon
is its area (distance 0 inside) bounded by such segments. :class:`GeodesicFeatures`
answers "how far is the nearest one, and where is its nearest point" exactly on
WGS84, whatever the size of the area:

1. an STRtree over the segments in the game's azimuthal equidistant frame picks
   candidates: every segment whose frame distance could be the smallest once the
   frame's error bound is allowed for (below);
2. for each candidate the foot of the perpendicular on the geodesic segment is
   found by iterating along it with GeographicLib (pyproj.Geod): the step is the
   spherical along-track distance from the current foot, which converges to
   under 0.1 mm in a few steps (the ellipsoid changes each step by ~0.3 %);
3. the smallest of those geodesic distances is the answer.

Long segments (a border drawn with a node every 2.5°: 180 km) are indexed as short
pieces of themselves, so the tree's candidates stay tight, but measured whole, as
spans of up to 250 km: a far point has hundreds of candidate pieces on one segment
(the frame bound widens with the distance), and one foot on the span is the nearest
of all of them. ``tests/core/geo/test_long_segments.py`` counts the feet.

The frame bound used for step 1: azimuthal equidistant scale is 1 along radii and
``(ρ/R)/sin(ρ/R) ≈ 1 + ρ²/6R²`` across them, so a frame distance is never shorter
than the geodesic and at most ``ρ²/6R²`` (×1.5 for the ellipsoid) longer, ρ the
largest distance from the frame centre involved; a geodesic segment of length L
bows from its straight image by at most ``L²(ρ + L)/4R²``. Candidates are all
segments within ``(D₀ + δ)(1 + κ) + δ`` of the point in the frame, D₀ the smallest
frame distance: none that can be nearest is missed.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.geodesy import GEOD

EARTH_RADIUS_M = 6_371_008.8
_FOOT_TOLERANCE_M = 1e-4
_FOOT_ITERATIONS = 12


def unit_vectors(lon, lat) -> np.ndarray:
    """Points on the unit sphere (n, 3), for chord-distance KD-trees over lon/lat points."""
    lon, lat = np.radians(np.asarray(lon, float)), np.radians(np.asarray(lat, float))
    return np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])


def frame_kappa(rho_m) -> np.ndarray:
    """Relative error bound of frame distances at ``rho_m`` from the frame centre."""
    rho = np.asarray(rho_m, float)
    return 1.5 * rho * rho / (6.0 * EARTH_RADIUS_M**2) + 1e-9


def frame_bow_m(segment_m: float, rho_m) -> np.ndarray:
    """How far a geodesic segment may bow from its straight frame image (metres)."""
    rho = np.asarray(rho_m, float)
    return segment_m * segment_m * (rho + segment_m) / (4.0 * EARTH_RADIUS_M**2) + 1e-3


def foot_on_segments(
    plon,
    plat,
    alon,
    alat,
    blon,
    blat,
    az_ab: np.ndarray | None = None,
    length: np.ndarray | None = None,
):
    """Nearest points on geodesic segments A→B to points P (arrays, pairwise).

    ``az_ab`` and ``length`` (the segments' azimuths at A and lengths, from
    ``GEOD.inv(A, B)``) may be given when known. The nearest point is found to
    ``_FOOT_TOLERANCE_M`` along the segment (its distance, at a minimum, to far less).

    Returns
    -------
    (distance_m, foot_lon, foot_lat) : arrays
        Geodesic distance from each P to its segment and the nearest point on it
        (an end point when the perpendicular foot falls outside the segment).
    """
    plon, plat, alon, alat, blon, blat = (
        np.asarray(v, float) for v in (plon, plat, alon, alat, blon, blat)
    )
    if az_ab is None or length is None:
        az_ab, _, length = GEOD.inv(alon, alat, blon, blat)
    az_ab, length = np.asarray(az_ab, float), np.asarray(length, float)
    az_ap, _, d_ap = GEOD.inv(alon, alat, plon, plat)
    delta = np.asarray(d_ap) / EARTH_RADIUS_M
    turn = np.radians(np.asarray(az_ap) - az_ab)
    s = np.clip(
        EARTH_RADIUS_M * np.arctan2(np.sin(delta) * np.cos(turn), np.cos(delta)), 0.0, length
    )
    dist, flon, flat = (np.full(len(s), np.nan) for _ in range(3))
    todo = np.arange(len(s))
    for _ in range(_FOOT_ITERATIONS):
        if len(todo) == 0:
            break
        xlon, xlat, back = GEOD.fwd(alon[todo], alat[todo], az_ab[todo], s[todo])
        az_xp, _, d_xp = GEOD.inv(xlon, xlat, plon[todo], plat[todo])
        dist[todo], flon[todo], flat[todo] = d_xp, xlon, xlat
        d_xp = np.asarray(d_xp) / EARTH_RADIUS_M
        turn = np.radians(np.asarray(az_xp) - (np.asarray(back) + 180.0))
        step = EARTH_RADIUS_M * np.arctan2(np.sin(d_xp) * np.cos(turn), np.cos(d_xp))
        new = np.clip(s[todo] + step, 0.0, length[todo])
        moved = np.abs(new - s[todo])
        s[todo] = new
        # A point that moves less than the tolerance keeps the foot just measured.
        todo = todo[moved > _FOOT_TOLERANCE_M]
    if len(todo):  # (not converged in _FOOT_ITERATIONS: where the last step led)
        flon[todo], flat[todo], _ = GEOD.fwd(alon[todo], alat[todo], az_ab[todo], s[todo])
        dist[todo] = GEOD.inv(plon[todo], plat[todo], flon[todo], flat[todo])[2]
    return dist, flon, flat


# Longer segments are indexed as geodesic pieces of at most _PIECE_M: the straight frame
# image of a piece bows from the geodesic by under 1 cm up to 1,000 km from the frame's
# centre (frame_bow_m), so the STRtree's candidates stay tight. Exact distances are
# taken to whole spans of at most _SPAN_M (the foot iteration converges along a
# geodesic of that length in a few steps; test_foot_on_a_long_geodesic_segment_is_exact
# checks 400 km): one foot per span and point, however many of its pieces are candidates.
_PIECE_M = 1_000.0
_SPAN_M = 250_000.0


def _split(seg: np.ndarray, length: np.ndarray, most_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Segments (of geodesic ``length``) longer than ``most_m`` cut into equal geodesic
    pieces (the same geodesic).

    Returns the pieces, in the order of the segments they come from, and the index of
    each piece's segment.
    """
    count = np.maximum(np.ceil(length / most_m), 1).astype(int)
    owner = np.repeat(np.arange(len(seg)), count)
    if (count == 1).all():
        return seg, owner
    pieces = [seg[count == 1]]
    owners = [np.flatnonzero(count == 1)]
    for i in np.flatnonzero(count > 1):
        k = int(count[i])
        inner = GEOD.npts(seg[i, 0], seg[i, 1], seg[i, 2], seg[i, 3], k - 1)
        pts = np.array([seg[i, :2], *inner, seg[i, 2:]])
        pts[:, 0] = seg[i, 0] + ((pts[:, 0] - seg[i, 0] + 180.0) % 360.0 - 180.0)
        pieces.append(np.hstack([pts[:-1], pts[1:]]))
        owners.append(np.full(k, i))
    order = np.argsort(np.concatenate(owners), kind="stable")  # back in the segments' order
    return np.vstack(pieces)[order], owner


def _segments(geometries) -> tuple[np.ndarray, ...]:
    """The spans and pieces of every segment of lines and rings, each (n, 4) lon1, lat1, lon2, lat2.

    Returns (spans, their azimuths at the start, their lengths, pieces, span of each piece).
    """
    out = []
    for g in geometries:
        for line in shapely.get_parts(shapely.boundary(g) if _is_polygonal(g) else g):
            for ring in shapely.get_parts(line):
                c = shapely.get_coordinates(ring)
                if len(c) >= 2:
                    out.append(np.hstack([c[:-1], c[1:]]))
    if not out:
        return np.zeros((0, 4)), np.zeros(0), np.zeros(0), np.zeros((0, 4)), np.zeros(0, int)
    seg = np.vstack(out)
    spans = seg[(seg[:, 0] != seg[:, 2]) | (seg[:, 1] != seg[:, 3])]
    az, _, length = (np.asarray(v, float) for v in GEOD.inv(*spans.T))
    if (length > _SPAN_M).any():
        spans, _ = _split(spans, length, _SPAN_M)
        az, _, length = (np.asarray(v, float) for v in GEOD.inv(*spans.T))
    pieces, owner = _split(spans, length, _PIECE_M)
    return spans, az, length, pieces, owner


def _planar_distance(px, py, seg: np.ndarray) -> np.ndarray:
    """Planar distance from points to segments (x1, y1, x2, y2), pairwise."""
    dx, dy = seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1]
    length2 = dx * dx + dy * dy
    t = np.clip(
        ((px - seg[:, 0]) * dx + (py - seg[:, 1]) * dy) / np.where(length2 > 0, length2, 1.0), 0, 1
    )
    return np.hypot(px - (seg[:, 0] + t * dx), py - (seg[:, 1] + t * dy))


def _is_polygonal(g: BaseGeometry) -> bool:
    return g.geom_type in ("Polygon", "MultiPolygon")


class GeodesicFeatures:
    """Lines and polygons with exact geodesic point distances (see the module docstring).

    Parameters
    ----------
    geometries : sequence of shapely geometries (lon/lat, in the game's longitude window)
        LineStrings, MultiLineStrings, Polygons, MultiPolygons; points are ignored.
    frame : AzimuthalFrame
        The frame used to pick candidate segments (any frame works; a frame centred
        on the play area keeps the candidate lists short).
    """

    def __init__(self, geometries, frame) -> None:
        geometries = [
            g for g in geometries if not g.is_empty and g.geom_type not in ("Point", "MultiPoint")
        ]
        self.frame = frame
        polys = [g for g in geometries if _is_polygonal(g)]
        self.polygons = shapely.union_all(polys) if polys else None
        if self.polygons is not None:
            shapely.prepare(self.polygons)
        self.spans, self.span_az, self.span_m, self.segments, self.span_of = _segments(geometries)
        x1, y1 = frame.project_xy(self.segments[:, 0], self.segments[:, 1])
        x2, y2 = frame.project_xy(self.segments[:, 2], self.segments[:, 3])
        self.xy = np.column_stack([x1, y1, x2, y2])
        self.planar = (
            shapely.linestrings(
                np.stack([np.column_stack([x1, y1]), np.column_stack([x2, y2])], axis=1)
            )
            if len(self.segments)
            else np.array([], dtype=object)
        )
        lengths = np.hypot(x2 - x1, y2 - y1)
        self.longest_m = float(lengths.max()) if len(lengths) else 0.0

    def __len__(self) -> int:
        return len(self.segments)

    @cached_property
    def tree(self) -> shapely.STRtree:
        """An STRtree over the segments in the frame (for area queries)."""
        return shapely.STRtree(self.planar)

    @property
    def is_empty(self) -> bool:
        return len(self.segments) == 0 and self.polygons is None

    def inside(self, lon, lat) -> np.ndarray:
        """Whether points lie inside (or on) one of the polygons."""
        lon = np.atleast_1d(np.asarray(lon, float))
        lat = np.atleast_1d(np.asarray(lat, float))
        if self.polygons is None:
            return np.zeros(len(lon), bool)
        return shapely.intersects_xy(self.polygons, lon, lat)

    def candidates(self, lon, lat, within: float | np.ndarray | None = None):
        """(point index, segment index) pairs that may hold each point's nearest segment.

        The STRtree over the segments in the frame gives each point's nearest segment
        (whose frame distance bounds the smallest, D₀), then every segment within the
        candidates' reach of the point; pairs sorted by point, then segment. With
        ``within`` (metres, geodesic; a number or one per point) D₀ is bounded from it
        instead (``within·(1 + κ) + δ``, no nearest-segment search): the pairs then hold
        the nearest segment of every point whose nearest feature is within that distance.
        """
        x, y = self.frame.project_xy(lon, lat)
        xy = np.column_stack([np.atleast_1d(x), np.atleast_1d(y)])
        points = shapely.points(xy)
        centre_m = np.hypot(xy[:, 0], xy[:, 1])
        if within is None:
            # The nearest segment by GEOS, measured as the reach filter below measures.
            pi, si = self.tree.query_nearest(points)
            d0 = np.full(len(xy), np.inf)  # an upper bound of the smallest frame distance
            np.minimum.at(d0, pi, _planar_distance(xy[pi, 0], xy[pi, 1], self.xy[si]))
        else:
            # A feature point within g (geodesic) is within g·(1 + κ) in the frame, and
            # the chord of its piece within δ more.
            g = np.broadcast_to(np.asarray(within, float), (len(xy),))
            rho0 = centre_m + g + self.longest_m
            d0 = g * (1.0 + frame_kappa(rho0)) + frame_bow_m(self.longest_m, rho0)
        rho = centre_m + d0 + self.longest_m
        kappa, bow = frame_kappa(rho), frame_bow_m(self.longest_m, rho)
        reach = (d0 + bow) * (1.0 + kappa) + bow
        # A hair wider for GEOS's rounding; the filter decides (as numpy measures).
        pi, si = self.tree.query(points, predicate="dwithin", distance=reach * (1 + 1e-9) + 1e-6)
        planar = _planar_distance(xy[pi, 0], xy[pi, 1], self.xy[si])
        keep = planar <= reach[pi]
        pi, si = pi[keep], si[keep]
        order = np.lexsort((si, pi))
        return pi[order], si[order]

    def _span_candidates(self, lon, lat, within: float | np.ndarray | None = None):
        """(point index, span index) pairs: the spans holding a candidate piece, once each.

        The nearest point of a span is at most as far as that of any of its pieces, and
        no nearer than the nearest feature: measuring whole spans loses nothing.
        """
        pi, si = self.candidates(lon, lat, within)
        if len(self.spans) == len(self.segments):  # (no span is cut: pieces are spans)
            return pi, si
        key = np.unique(pi * len(self.spans) + self.span_of[si])
        return key // len(self.spans), key % len(self.spans)

    def _nearest_on_lines(self, lon, lat, within: float | np.ndarray | None = None):
        """(distance, foot lon, foot lat) to the nearest segment (inf, nan where none is found)."""
        n = len(lon)
        best = np.full(n, np.inf)
        flon = np.full(n, np.nan)
        flat = np.full(n, np.nan)
        pi, si = self._span_candidates(lon, lat, within)
        s = self.spans[si]
        d, fx, fy = foot_on_segments(
            lon[pi], lat[pi], *s.T, az_ab=self.span_az[si], length=self.span_m[si]
        )
        order = np.lexsort((d, pi))
        first = np.ones(len(order), bool)
        first[1:] = pi[order][1:] != pi[order][:-1]
        win = order[first]
        best[pi[win]] = d[win]
        flon[pi[win]] = fx[win]
        flat[pi[win]] = fy[win]
        return best, flon, flat

    def nearest(self, lon, lat, within: float | np.ndarray | None = None):
        """Exact distance (m) from each point to the nearest feature, and that nearest point.

        Parameters
        ----------
        lon, lat : array-like
            The points, in degrees.
        within : float or array, optional
            A hint: each point's distance is likely at most this (metres), e.g. its
            distance to a known feature point. Candidates are then picked from it, with
            no nearest-segment search; a point found farther is measured again without
            it, so the answer is exact either way.

        Returns
        -------
        (distance_m, foot_lon, foot_lat) : arrays
            0 and the point itself inside a polygon; inf where there are no features.
        """
        lon = np.atleast_1d(np.asarray(lon, float))
        lat = np.atleast_1d(np.asarray(lat, float))
        n = len(lon)
        best = np.full(n, np.inf)
        flon = np.full(n, np.nan)
        flat = np.full(n, np.nan)
        if len(self.segments) and n:
            best, flon, flat = self._nearest_on_lines(lon, lat, within)
            if within is not None:
                # The hint was wrong for these: the nearest segment may not have been a candidate.
                again = np.flatnonzero(~(best <= np.broadcast_to(within, (n,))))
                if len(again):
                    got = self._nearest_on_lines(lon[again], lat[again])
                    best[again], flon[again], flat[again] = got
        inside = self.inside(lon, lat)
        best[inside] = 0.0
        flon[inside] = lon[inside]
        flat[inside] = lat[inside]
        return best, flon, flat

    def distance(self, lon, lat) -> np.ndarray:
        """Exact geodesic distance (m) from each point to the nearest feature."""
        return self.nearest(lon, lat)[0]

    def near(self, extent: BaseGeometry, reach_m: float) -> np.ndarray:
        """Indices of the segments that may lie within ``reach_m`` of ``extent`` (frame bound allowed)."""
        if not len(self.segments):
            return np.zeros(0, int)
        proj = self.frame.project_area(extent)
        minx, miny, maxx, maxy = proj.bounds
        rho = math.hypot(max(abs(minx), abs(maxx)), max(abs(miny), abs(maxy))) + reach_m
        reach = reach_m * (1.0 + float(frame_kappa(rho))) + float(frame_bow_m(self.longest_m, rho))
        return self.tree.query(proj, predicate="dwithin", distance=reach)


_RADIUS_MIN_M = 6_335_000.0  # smallest radius of curvature of WGS84 (meridian at the equator)


_BRUTE_PAIRS = 2_000_000  # up to this many (query, place) pairs: plain numpy, no KD-tree


class PlaceIndex:
    """The exact nearest of many points (places), for many query points at once.

    Each query's nearest place by chord on the unit sphere is found first (numpy for
    small problems, a SciPy KD-tree for large ones); every place that could still be
    nearer on the ellipsoid (within that place's geodesic distance, converted to a
    chord with the smallest radius of curvature, +1 %) is then measured exactly with
    GeographicLib. Ties go to the place of smallest ``rank``.

    Parameters
    ----------
    lons, lats : arrays of the places' coordinates
    rank : optional array; ties go to the smallest rank (default: the order given)
    """

    def __init__(self, lons, lats, rank=None) -> None:
        self.lons = np.asarray(lons, float)
        self.lats = np.asarray(lats, float)
        self.rank = np.arange(len(self.lons)) if rank is None else np.asarray(rank)
        self.units = unit_vectors(self.lons, self.lats)

    @cached_property
    def tree(self):
        from scipy.spatial import cKDTree  # (only for large problems: it costs 0.4 s to import)

        return cKDTree(self.units)

    def _candidates(self, q: np.ndarray, lons, lats):
        """(query, place) pairs that may hold each query's nearest place, and the chord-nearest."""
        n = len(q)
        if n * len(self.lons) <= _BRUTE_PAIRS:
            dots = q @ self.units.T
            first = np.argmax(dots, axis=1)
            rough = np.asarray(GEOD.inv(lons, lats, self.lons[first], self.lats[first])[2])
            reach = np.minimum(rough / _RADIUS_MIN_M * 1.01 + 1e-9, 2.0)
            qi, pi = np.nonzero(2.0 - 2.0 * dots <= (reach * reach)[:, None])
            return qi, pi, first, rough
        _, first = self.tree.query(q)
        rough = np.asarray(GEOD.inv(lons, lats, self.lons[first], self.lats[first])[2])
        lists = self.tree.query_ball_point(q, rough / _RADIUS_MIN_M * 1.01 + 1e-9)
        counts = np.array([len(c) for c in lists])
        qi = np.repeat(np.arange(n), counts)
        pi = (
            np.concatenate([np.asarray(c, int) for c in lists])
            if counts.sum()
            else np.zeros(0, int)
        )
        return qi, pi, first, rough

    def chord_nearest_distance(self, lons, lats) -> np.ndarray:
        """The geodesic distance (m) from each point to its chord-nearest place.

        An upper bound of the distance to the nearest place, cheaper than :meth:`nearest`.

        Parameters
        ----------
        lons, lats : array-like
            The points, in degrees.

        Returns
        -------
        numpy.ndarray
        """
        return self._candidates(unit_vectors(lons, lats), lons, lats)[3]

    def nearest(self, lons, lats) -> tuple[np.ndarray, np.ndarray]:
        """(index of the nearest place, its distance in metres) for each query point.

        The index is -1 and the distance inf when there are no places.
        """
        lons = np.atleast_1d(np.asarray(lons, float))
        lats = np.atleast_1d(np.asarray(lats, float))
        n = len(lons)
        if len(self.lons) == 0 or n == 0:
            return np.full(n, -1), np.full(n, np.inf)
        qi, pi, first, rough = self._candidates(unit_vectors(lons, lats), lons, lats)
        d = np.asarray(GEOD.inv(lons[qi], lats[qi], self.lons[pi], self.lats[pi])[2])
        order = np.lexsort((self.rank[pi], d, qi))
        keep = np.ones(len(order), bool)
        keep[1:] = qi[order][1:] != qi[order][:-1]
        win = order[keep]
        idx = np.full(n, -1)
        dist = np.full(n, np.inf)
        idx[qi[win]] = pi[win]
        dist[qi[win]] = d[win]
        missing = idx < 0  # (only if no place fell within the chord: use the chord's nearest)
        idx[missing] = first[missing]
        dist[missing] = rough[missing]
        return idx, dist
