"""The part of an area within a geodesic distance of lines and polygons, at any scale.

:func:`distance_region` is the measuring question's region for line and polygon
subjects (coastline, borders, high-speed rail, water). Its cost follows the area
asked about, not the whole reference layer, and its edges are exact:

1. **Clip** — only segments that can lie within the distance of the area are kept
   (an STRtree query in the game's frame, frame error bound allowed for); nothing
   else is buffered.
2. **Simplify** — those lines are simplified by ``τ = tol/2`` (Douglas–Peucker in the
   frame), which moves the buffer by at most ``τ``.
3. **Buffer** in the azimuthal equidistant frame (GEOS, line by line, then one
   union; a first guess to be refined: in pieces of 48 segments, simplified by ``τ``),
   clipped to the area's hull
   grown by a margin larger than every first-guess error. When the frame's error
   bound ``κ·d`` (see :mod:`.features`) and the arcs drawn for ``tol`` are both
   small (small areas) this is the answer, within ``tol`` of the true edge.
4. **Refine** (otherwise) — every edge vertex is moved along the line from its
   exact nearest feature point to exactly ``d`` from it
   (:class:`~.features.GeodesicFeatures`); then, edge by edge, the midpoint of each
   chord is refined the same way and inserted where it lies more than ``tol`` from
   the chord, until no chord strays (at most 12 rounds). A vertex moved inwards is
   done (its nearest feature point stays nearest); one moved outwards is measured
   again. Known feature points bound each distance (a chord's ends' nearest points
   for its middle), which spares the nearest-segment search. Edges end within ``tol`` of
   the true geodesic edge whatever the size of the area or the distance, with
   vertices only where the edge curves.
5. **Check holes and islands** — a GEOS buffer of many overlapping lines can leave
   small spurious holes or slivers; every hole whose inside is nearer than ``d`` and
   every part whose inside is farther is dropped, by the exact distance at an inner
   point of it.

``tol`` is :data:`~.shapes.EDGE_TOLERANCE_M` (50 cm, half the 1 m bound) by default; any
smaller value can be asked for (the tests check 5 cm).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.antimeridian import wrap_lon
from stations_generator.core.geo.features import GeodesicFeatures, frame_bow_m, frame_kappa
from stations_generator.core.geo.geodesy import GEOD
from stations_generator.core.geo.shapes import EDGE_TOLERANCE_M, AzimuthalFrame, buffer_segments
from stations_generator.core.geo.shapes import polygonal as _polygonal

_DIRECT_QUAD_SEGS = 256  # above this the arcs are refined instead of drawn finer
_MIDPOINT_ROUNDS = 12
# Lines are buffered in pieces of this many segments (on the "large" oracle case's
# 25,000-vertex borders: 0.73 s whole, 0.28 s at 50, 0.27 s at 20, 0.53 s at 8).
_CHUNK = 48


def _clipped_lines(features: GeodesicFeatures, extent: BaseGeometry, reach_m: float):
    """The frame coordinates of the segments near ``extent``, merged into lines."""
    idx = features.near(extent, reach_m)
    if len(idx) == 0:
        return None
    return shapely.line_merge(shapely.multilinestrings(features.planar[np.sort(idx)]))


def _chunks(lines: BaseGeometry, most: int) -> np.ndarray:
    """The lines cut into consecutive pieces of about ``most`` segments.

    Each cut is at the middle of a segment, where both pieces go on straight.
    """
    out = []
    for line in shapely.get_parts(lines):
        c = shapely.get_coordinates(line)
        if len(c) <= most + 1:
            out.append(line)
            continue
        start, after = c[0], 1  # the piece's first point, the first vertex after it
        for j in range(most - 1, len(c) - 2, most):  # cut segment j (c[j] to c[j + 1])
            middle = (c[j] + c[j + 1]) / 2.0
            out.append(shapely.linestrings(np.vstack([start, c[after : j + 1], middle])))
            start, after = middle, j + 1
        out.append(shapely.linestrings(np.vstack([start, c[after:]])))
    return np.array(out, dtype=object)


def _onto(
    features: GeodesicFeatures,
    lon,
    lat,
    d: float,
    band: float,
    passes: int = 2,
    hint: np.ndarray | float | None = None,
):
    """Points moved onto distance ``d`` of the features (points outside ``band`` of it stay).

    ``hint`` (metres, one per point, optional): a likely upper bound of each point's
    distance, which spares the nearest-segment search (:meth:`GeodesicFeatures.nearest`).

    Returns the new (lon, lat), a mask of the points that are on the edge, and the
    nearest feature point of each edge point (lon, lat; nan elsewhere).
    """
    lon = np.array(lon, float)
    lat = np.array(lat, float)
    edge = np.zeros(len(lon), bool)
    feet = np.full((len(lon), 2), np.nan)
    todo = np.arange(len(lon))
    for k in range(passes):
        if len(todo) == 0:
            break
        dist, flon, flat = features.nearest(lon[todo], lat[todo], hint)
        near = (np.abs(dist - d) <= band) & (dist > 0) & np.isfinite(dist)
        if k == 0:
            edge[todo] = near
        feet[todo[near]] = np.column_stack([flon[near], flat[near]])
        move = near & (np.abs(dist - d) > 1e-4)
        todo, flon, flat, outward = todo[move], flon[move], flat[move], dist[move] < d
        if len(todo) == 0:
            break
        az, _, _ = GEOD.inv(flon, flat, lon[todo], lat[todo])
        nlon, nlat, _ = GEOD.fwd(flon, flat, az, np.full(len(todo), d))
        lon[todo] = wrap_lon(np.asarray(nlon), features.frame.lon)
        lat[todo] = nlat
        # A point moved inwards lies on the geodesic from its nearest feature point F
        # to where it was: F is still its nearest (triangle inequality), at exactly d.
        # Only points moved outwards may have come nearer to another feature; F, at
        # exactly d, bounds their distance.
        todo = todo[outward]
        hint = d + 1e-6
    return lon, lat, edge, feet


def _refine_ring(
    ring: np.ndarray, features: GeodesicFeatures, d: float, band: float, tol: float
) -> np.ndarray:
    """A closed ring with its edge vertices on distance ``d`` and no chord more than ``tol`` off."""
    lon, lat, on, feet = _onto(features, ring[:-1, 0], ring[:-1, 1], d, band, passes=3)
    pts = np.column_stack([lon, lat])
    pending = on & np.roll(on, -1)  # chord i runs from vertex i to vertex i + 1
    for _ in range(_MIDPOINT_ROUNDS):
        cand = np.flatnonzero(pending)
        if len(cand) == 0:
            break
        nxt = (cand + 1) % len(pts)
        a, b = pts[cand], pts[nxt]
        mid = (a + b) / 2.0
        # The chord's ends' nearest feature points bound the middle's distance.
        hint = np.fmin(
            np.asarray(GEOD.inv(mid[:, 0], mid[:, 1], feet[cand, 0], feet[cand, 1])[2]),
            np.asarray(GEOD.inv(mid[:, 0], mid[:, 1], feet[nxt, 0], feet[nxt, 1])[2]),
        )
        hint = np.where(np.isfinite(hint), hint * (1 + 1e-12) + 1e-6, d + band)
        mlon, mlat, medge, mfeet = _onto(features, mid[:, 0], mid[:, 1], d, band, hint=hint)
        _, _, off = GEOD.inv(mid[:, 0], mid[:, 1], mlon, mlat)
        split = medge & (np.asarray(off) > tol)
        pending[:] = False
        if not split.any():
            break
        at = cand[split] + 1
        pts = np.insert(pts, at, np.column_stack([mlon[split], mlat[split]]), axis=0)
        feet = np.insert(feet, at, mfeet[split], axis=0)
        # Both halves of a split chord are checked again; every other chord is done.
        pending = np.insert(pending, at, True)
        pending[at - 1 + np.arange(len(at))] = True
    return np.vstack([pts, pts[:1]])


def _refine(
    region: BaseGeometry, features: GeodesicFeatures, d: float, band: float, tol: float
) -> BaseGeometry:
    polys = []
    for poly in shapely.get_parts(region):
        if poly.is_empty:
            continue
        shell = _refine_ring(np.asarray(poly.exterior.coords), features, d, band, tol)
        holes = [_refine_ring(np.asarray(r.coords), features, d, band, tol) for r in poly.interiors]
        polys.append(Polygon(shell, [h for h in holes if len(h) >= 4]))
    if not polys:
        return shapely.Polygon()
    out = shapely.MultiPolygon(polys) if len(polys) > 1 else polys[0]
    if not out.is_valid:
        # A needle a hundredth of the tolerance wide is a fold, not part of the edge.
        out = _without_needles(_polygonal(shapely.make_valid(out)), features, tol / 100)
    return out


def _without_needles(
    region: BaseGeometry, features: GeodesicFeatures, thin_m: float
) -> BaseGeometry:
    """The region without parts thinner than ``thin_m`` (mean width, 2 · area / perimeter).

    Two edge vertices next to a corner of the true edge can swap places when both are
    moved onto it; the ring then folds, and the fold becomes a needle of its own
    (e.g. 14 cm long, a micrometre wide). Every point of a dropped needle is within
    ``thin_m`` of its edges.
    """
    parts = shapely.get_parts(region)
    if len(parts) < 2:
        return region
    planar = np.array([features.frame.project(p) for p in parts], dtype=object)
    width = 2 * shapely.area(planar) / np.maximum(shapely.length(planar), 1e-300)
    keep = width >= thin_m
    return region if keep.all() else shapely.union_all(parts[keep])


def _drop_spurious(
    region: BaseGeometry, features: GeodesicFeatures, d: float, tol: float
) -> BaseGeometry:
    """Fill holes nearer than ``d`` inside and drop parts farther than ``d`` inside."""
    polys = [p for p in shapely.get_parts(region) if not p.is_empty]
    if not polys:
        return region
    probes = []
    for p in polys:
        probes.append(shapely.point_on_surface(p))
        for ring in p.interiors:
            probes.append(shapely.point_on_surface(shapely.Polygon(ring)))
    xy = shapely.get_coordinates(np.array(probes, dtype=object))
    dist = features.distance(xy[:, 0], xy[:, 1])
    out, k = [], 0
    changed = False
    for p in polys:
        keep_part = dist[k] <= d + tol
        k += 1
        holes = []
        for ring in p.interiors:
            if dist[k] >= d - tol:
                holes.append(ring)
            else:
                changed = True
            k += 1
        if not keep_part:
            changed = True
            continue
        out.append(shapely.Polygon(p.exterior, holes) if len(holes) != len(p.interiors) else p)
    if not changed:
        return region
    return shapely.union_all(out) if out else shapely.Polygon()


def _first_guess(lines: BaseGeometry, grow: float, quad: int, smooth: float) -> BaseGeometry:
    """The planar buffer of the lines; with ``smooth`` > 0, fast and simplified by that much.

    Line by line, then one union: GEOS buffers many overlapping lines ~10x faster so.
    With ``smooth`` (a first guess to be refined) the lines are buffered in pieces of
    _CHUNK segments, ~2.5x faster again: with round caps and joins the union of the
    pieces' buffers is the buffer of the lines, but where GEOS's own simplification of
    two pieces differs their union has shallow notches, smoothed by ``smooth``.
    """
    if smooth <= 0:
        return shapely.union_all(shapely.buffer(shapely.get_parts(lines), grow, quad_segs=quad))
    pieces = shapely.buffer(_chunks(lines, _CHUNK), grow, quad_segs=quad)
    return shapely.simplify(shapely.union_all(pieces), smooth)


def distance_region(
    features: GeodesicFeatures,
    distance_m: float,
    extent: BaseGeometry,
    tolerance_m: float = EDGE_TOLERANCE_M,
) -> BaseGeometry:
    """Points of ``extent`` at most ``distance_m`` (geodesic) from the nearest feature.

    Parameters
    ----------
    features : GeodesicFeatures
        Lines and polygons (distance 0 inside a polygon), in the game's longitude window.
    distance_m : float
        The distance (≥ 0).
    extent : shapely (Multi)Polygon, lon/lat
        The area asked about (the remaining area, a hiding zone).
    tolerance_m : float
        Largest distance of the region's edge from the true edge (see the module docstring).

    Returns
    -------
    shapely geometry (may be empty)
    """
    if extent.is_empty or features.is_empty:
        return shapely.Polygon()
    frame: AzimuthalFrame = features.frame
    d = float(distance_m)
    tol = float(tolerance_m)
    inside = None
    if features.polygons is not None:
        inside = shapely.intersection(extent, features.polygons)
    if d <= 0:
        return _polygonal(inside) if inside is not None else shapely.Polygon()
    rho = frame.rho_max(extent) + d
    frame_error = d * float(frame_kappa(rho)) + float(frame_bow_m(features.longest_m, rho))
    tau = tol / 2
    direct_quad = buffer_segments(d, tol / 4)
    refine = frame_error > tol / 4 or direct_quad > _DIRECT_QUAD_SEGS
    quad = buffer_segments(d, max(1.0, d * 1e-4)) if refine else direct_quad
    lines = _clipped_lines(features, extent, d + tol)
    parts = []
    if lines is not None:
        lines = shapely.simplify(lines, tau)
        grow = d / math.cos(math.pi / (4 * quad))  # circumscribed arcs
        # (+ tau when refined: the first guess is then simplified by tau once more)
        first_error = frame_error + tau + (grow - d) + (tau if refine else 0.0)
        hull = shapely.convex_hull(frame.project_area(extent)).buffer(4 * first_error + 10.0)
        planar = shapely.intersection(_first_guess(lines, grow, quad, tau if refine else 0.0), hull)
        region = _polygonal(frame.unproject(planar))
        if refine:
            region = _refine(region, features, d, 3 * first_error + 1.0, tol)
        region = _drop_spurious(region, features, d, tol)
        parts.append(region)
    if inside is not None and not inside.is_empty:
        parts.append(_polygonal(inside))
    if not parts:
        return shapely.Polygon()
    region = shapely.union_all(parts) if len(parts) > 1 else parts[0]
    return _polygonal(shapely.make_valid(shapely.intersection(extent, region)))
