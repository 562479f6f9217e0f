"""The part of an area within a geodesic distance of lines and polygons, at any scale.

:func:`distance_region` is the measuring question's region for line and polygon
subjects (coastline, borders, high-speed rail, water). Its cost follows the area
asked about, not the whole reference layer, and its edges are exact:

1. **Clip** — only segments that can lie within the distance of the area are kept
   (an STRtree query in the game's frame, frame error bound allowed for); nothing
   else is buffered.
2. **Simplify** — those lines are simplified by ``τ`` (Douglas–Peucker, stated
   below), which moves the first-guess buffer by at most ``τ``.
3. **Buffer** in the azimuthal equidistant frame (GEOS), clipped to the area's hull
   grown by a margin larger than every first-guess error.
4. **Refine** — when the first guess can be off by more than
   :data:`~.shapes.EDGE_TOLERANCE_M` (the frame bound ``κ·d``, ``τ`` and the arcs'
   polygons), the buffer's edges are densified (spacing ``√(8·d·tol)``, so a chord
   across an arc of radius ``d`` stays within ``tol`` of it) and every vertex is moved
   along the line from its exact nearest feature point to exactly ``d`` from it
   (:class:`~.features.GeodesicFeatures`), twice.
5. **Check holes and islands** — a GEOS buffer of many overlapping lines can leave
   small spurious holes or slivers; every hole whose inside is nearer than ``d`` and
   every part whose inside is farther is dropped, by the exact distance at an inner
   point of it.

``τ`` is ``min(d / 1000, 10 m)`` where refinement follows (it costs no accuracy then)
and 0 otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .antimeridian import wrap_lon
from .features import GeodesicFeatures, frame_bow_m, frame_kappa
from .geodesy import GEOD
from .shapes import EDGE_TOLERANCE_M, AzimuthalFrame, buffer_segments

_DIRECT_QUAD_SEGS = 256  # above this the arcs are refined instead of drawn finer


def _polygonal(geometry: BaseGeometry) -> BaseGeometry:
    if geometry.geom_type in ("Polygon", "MultiPolygon"):
        return geometry
    parts = [g for g in shapely.get_parts(geometry) if g.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.union_all(parts) if parts else shapely.Polygon()


def _clipped_lines(features: GeodesicFeatures, extent: BaseGeometry, reach_m: float):
    """The frame coordinates of the segments near ``extent``, merged into lines."""
    idx = features.near(extent, reach_m)
    if len(idx) == 0:
        return None
    return shapely.line_merge(shapely.multilinestrings(features.planar[np.sort(idx)]))


def _refine(
    region: BaseGeometry, features: GeodesicFeatures, d: float, band: float
) -> BaseGeometry:
    """Move every edge vertex within ``band`` of distance ``d`` onto distance ``d`` exactly."""
    coords = shapely.get_coordinates(region)
    if len(coords) == 0:
        return region
    lon, lat = coords[:, 0].copy(), coords[:, 1].copy()
    todo = np.arange(len(lon))
    for _ in range(3):
        if len(todo) == 0:
            break
        dist, flon, flat = features.nearest(lon[todo], lat[todo])
        edge = (np.abs(dist - d) <= band) & (dist > 0) & np.isfinite(dist)
        off = np.abs(dist - d) > 1e-4
        todo = todo[edge & off]
        if len(todo) == 0:
            break
        flon, flat = flon[edge & off], flat[edge & off]
        az, _, _ = GEOD.inv(flon, flat, lon[todo], lat[todo])
        nlon, nlat, _ = GEOD.fwd(flon, flat, az, np.full(len(todo), d))
        lon[todo] = wrap_lon(np.asarray(nlon), features.frame.lon)
        lat[todo] = nlat
    moved = shapely.transform(region, lambda _c: np.column_stack([lon, lat]))
    if not moved.is_valid:
        moved = _polygonal(shapely.make_valid(moved))
    return moved


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
    inside = None
    if features.polygons is not None:
        inside = shapely.intersection(extent, features.polygons)
    if d <= 0:
        return _polygonal(inside) if inside is not None else shapely.Polygon()
    rho = frame.rho_max(extent) + d
    frame_error = d * float(frame_kappa(rho)) + float(frame_bow_m(features.longest_m, rho))
    direct_quad = buffer_segments(d, tolerance_m / 2)
    refine = frame_error > tolerance_m / 2 or direct_quad > _DIRECT_QUAD_SEGS
    tau = min(d / 1000.0, 10.0) if refine else 0.0
    quad = buffer_segments(d, 1.0) if refine else direct_quad
    lines = _clipped_lines(features, extent, d + tolerance_m)
    parts = []
    if lines is not None:
        if tau > 0:
            lines = shapely.simplify(lines, tau)
        grow = d / math.cos(math.pi / (4 * quad))  # circumscribed arcs
        first_error = frame_error + tau + (grow - d) + 1.0
        hull = frame.project(shapely.convex_hull(extent)).buffer(4 * first_error + 10.0)
        planar = shapely.intersection(lines.buffer(grow, quad_segs=quad), hull)
        if refine:
            spacing = max(min(math.sqrt(8.0 * d * tolerance_m), 1000.0), 1.0)
            planar = shapely.segmentize(planar, spacing)
        region = _polygonal(frame.unproject(planar))
        if refine:
            region = _refine(region, features, d, 3 * first_error)
        region = _drop_spurious(region, features, d, tolerance_m)
        parts.append(region)
    if inside is not None and not inside.is_empty:
        parts.append(_polygonal(inside))
    if not parts:
        return shapely.Polygon()
    region = shapely.union_all(parts) if len(parts) > 1 else parts[0]
    return _polygonal(shapely.make_valid(shapely.intersection(extent, region)))
