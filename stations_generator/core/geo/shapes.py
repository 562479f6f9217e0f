"""Geodesic shapes in WGS84 lon/lat: circles, "closer to A than B" regions, buffers.

Error bounds (each checked against pyproj.Geod in ``tests/core/questions/test_question_scale.py`` and the question oracle):

* :func:`geodesic_circle` is *circumscribed*: its vertices lie just beyond
  ``r / cos(π/n)`` so the polygon contains the true geodesic circle, and ``n`` is
  chosen so no point of the polygon is more than ``tolerance_m`` (1 m) beyond it.
* :func:`closer_region` follows the ellipsoidal equidistant line of two points
  (``d(p, a) = d(p, b)`` by GeographicLib), refined by Newton steps to < 1 mm,
  sampled every ``step_m`` (1 km); between samples it is a straight lon/lat segment,
  within 2 cm of the curve at that spacing.
* :class:`AzimuthalFrame` (azimuthal equidistant on WGS84, centred on the play area)
  gives a first guess of buffers of lines and polygons. Distances from the centre are
  exact; other distances are off by at most ``ρ²/(6R²)`` relative, ρ the distance
  from the centre: 3 mm per km of distance at 50 km, 1.2 cm per km at 100 km, metres
  on a 300 km area. :func:`distance_region` therefore moves every edge vertex of a
  buffer onto the exact geodesic distance (:mod:`.features`) whenever that bound,
  or the arcs' polygon approximation, exceeds :data:`EDGE_TOLERANCE_M`.

Question regions (circles, bisectors, buffers) keep their edges within
:data:`EDGE_TOLERANCE_M` (50 cm, half the 1 m the issue allows) of the true geodesic
edge at any size, so hider mode (exact distances) and the map agree everywhere but
in that band. Finer costs time: every halving of it adds ~40 % vertices to circles. Longitudes
are handled in one continuous window around each shape (:mod:`.antimeridian`), so
shapes across ±180° work like any other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyproj
import shapely
from shapely.geometry import LineString, Polygon, box
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.antimeridian import centre_lon, wrap_lon
from stations_generator.core.geo.geodesy import GEOD

DEFAULT_TOLERANCE_M = 1.0
# Largest distance of a question region's edge from the true geodesic edge (metres).
EDGE_TOLERANCE_M = 0.5
EARTH_RADIUS_M = 6_371_008.8


def circle_vertex_count(radius_m: float, tolerance_m: float = DEFAULT_TOLERANCE_M) -> int:
    """Vertices a circumscribed polygon needs to stay within ``tolerance_m`` of the circle.

    A regular n-gon around a circle of radius r sticks out at most
    ``r (1/cos(π/n) − 1)``; solve for n (at least 32).
    """
    if radius_m <= tolerance_m:
        return 32
    n = math.pi / math.acos(radius_m / (radius_m + tolerance_m))
    return max(32, int(math.ceil(n)))


def geodesic_circle(
    lon: float, lat: float, radius_m: float, tolerance_m: float = DEFAULT_TOLERANCE_M
) -> Polygon:
    """The geodesic circle of ``radius_m`` around a point, as a circumscribed lon/lat polygon.

    Parameters
    ----------
    lon, lat : float
        Centre, WGS84 degrees.
    radius_m : float
        Geodesic radius in metres (> 0, < 10 000 km).
    tolerance_m : float
        Largest distance of the polygon outside the true circle.

    Returns
    -------
    shapely Polygon
        Contains every point within ``radius_m``; none farther than ``radius_m + tolerance_m``.
    """
    n = circle_vertex_count(radius_m, 0.9 * tolerance_m)
    return shapely.polygons(_circle_rings([lon], [lat], radius_m, n, 0.1 * tolerance_m))[0]


def _circle_rings(lons, lats, radius_m: float, n: int, margin_m: float) -> np.ndarray:
    """Closed circumscribed rings (array of shape (k, n+1, 2)) around many centres at once."""
    lons = np.asarray(lons, float)
    lats = np.asarray(lats, float)
    k = len(lons)
    azimuths = np.linspace(0.0, 360.0, n, endpoint=False)[::-1]  # clockwise from north → CCW ring
    # Straight lon/lat edges bow inwards by a few cm at most (checked in the tests);
    # the margin keeps the true circle inside the polygon.
    reach = radius_m / math.cos(math.pi / n) + margin_m
    centres = np.repeat(lons, n)
    x, y, _ = GEOD.fwd(centres, np.repeat(lats, n), np.tile(azimuths, k), np.full(k * n, reach))
    x = wrap_lon(np.asarray(x), centres)  # one continuous ring, also across ±180°
    ring = np.stack([x, y], axis=1).reshape(k, n, 2)
    return np.concatenate([ring, ring[:, :1, :]], axis=1)


def geodesic_circles(
    lons, lats, radius_m: float, tolerance_m: float = DEFAULT_TOLERANCE_M
) -> np.ndarray:
    """Vectorised :func:`geodesic_circle` for many centres (array of shapely Polygons)."""
    if len(lons) == 0:
        return np.array([], dtype=object)
    n = circle_vertex_count(radius_m, 0.9 * tolerance_m)
    return shapely.polygons(_circle_rings(lons, lats, radius_m, n, 0.1 * tolerance_m))


def distance_m(lon1, lat1, lon2, lat2) -> np.ndarray:
    """Geodesic distance(s) in metres (GeographicLib)."""
    _, _, d = GEOD.inv(lon1, lat1, lon2, lat2)
    return np.asarray(d)


def _refine_equidistant(lon, lat, a, b, iterations: int = 8):
    """Newton steps moving points onto the line d(p, a) = d(p, b)."""
    lon = np.asarray(lon, float).copy()
    lat = np.asarray(lat, float).copy()
    for _ in range(iterations):
        # pyproj's back azimuth is the direction at p pointing to a (resp. b).
        _, to_a, da = GEOD.inv(np.full_like(lon, a[0]), np.full_like(lat, a[1]), lon, lat)
        _, to_b, db = GEOD.inv(np.full_like(lon, b[0]), np.full_like(lat, b[1]), lon, lat)
        f = da - db
        if np.abs(f).max() < 1e-5:
            break
        ra, rb = np.radians(to_a), np.radians(to_b)
        # grad f = (unit vector away from a) - (unit vector away from b), in (east, north).
        ge = -np.sin(ra) + np.sin(rb)
        gn = -np.cos(ra) + np.cos(rb)
        norm2 = np.maximum(ge * ge + gn * gn, 1e-12)
        de, dn = -f * ge / norm2, -f * gn / norm2
        step = np.hypot(de, dn)
        az = np.degrees(np.arctan2(de, dn))
        lon, lat, _ = GEOD.fwd(lon, lat, az, step)
    return lon, lat


def closer_region(
    a: tuple[float, float],
    b: tuple[float, float],
    extent: BaseGeometry,
    *,
    step_m: float = 500.0,
) -> BaseGeometry:
    """Points of ``extent`` at least as close to ``a`` as to ``b`` (geodesic; ties belong to ``a``).

    Parameters
    ----------
    a, b : (lon, lat)
    extent : shapely geometry, WGS84
        The region to cut (a play area, a circle); the answer is clipped to it.
    step_m : float
        Sampling of the equidistant line (500 m: straight lon/lat chords stay within
        1.5 cm of the curve up to 70° of latitude).

    Returns
    -------
    shapely geometry (may be empty)
    """
    if a == b or extent.is_empty:
        return extent
    centre = centre_lon(extent)  # GeographicLib answers in [-180, 180]: back into the window
    a = (wrap_lon(a[0], centre), a[1])
    b = (wrap_lon(b[0], centre), b[1])
    minx, miny, maxx, maxy = extent.bounds
    # Half-length of the bisector needed to cross the extent, from its midpoint.
    corners = np.array([(minx, miny), (minx, maxy), (maxx, miny), (maxx, maxy)])
    az_ab, _, dist_ab = GEOD.inv(a[0], a[1], b[0], b[1])
    mid_lon, mid_lat, _ = GEOD.fwd(a[0], a[1], az_ab, dist_ab / 2)
    corner_d = distance_m(np.full(4, mid_lon), np.full(4, mid_lat), corners[:, 0], corners[:, 1])
    reach = min(float(corner_d.max()) * 1.2 + 2 * step_m, 9.0e6)
    _, towards_a, _ = GEOD.inv(a[0], a[1], mid_lon, mid_lat)  # azimuth at the midpoint, to a
    steps = int(math.ceil(reach / step_m))
    offsets = np.linspace(-reach, reach, 2 * steps + 1)
    lon, lat, _ = GEOD.fwd(
        np.full(len(offsets), mid_lon),
        np.full(len(offsets), mid_lat),
        np.full(len(offsets), towards_a + 90.0),
        offsets,
    )
    lon, lat = _refine_equidistant(lon, lat, a, b)
    # Close the polygon far out on a's side.
    back = reach * 1.5
    end_lon, end_lat, _ = GEOD.fwd(lon[[-1, 0]], lat[[-1, 0]], [towards_a] * 2, [back, back])
    lon, end_lon = wrap_lon(lon, centre), wrap_lon(np.asarray(end_lon), centre)
    ring = list(zip(lon, lat, strict=True)) + [
        (end_lon[0], end_lat[0]),
        (end_lon[1], end_lat[1]),
    ]
    side = shapely.make_valid(Polygon(ring))
    probe_lon, probe_lat, _ = GEOD.fwd(mid_lon, mid_lat, towards_a, min(dist_ab / 4, reach / 2))
    if not side.covers(shapely.Point(wrap_lon(probe_lon, centre), probe_lat)):
        side = box(*extent.bounds).buffer(1.0).difference(side)  # the line wrapped oddly
    return polygonal(shapely.make_valid(extent.intersection(side)))


def polygonal(geometry: BaseGeometry) -> BaseGeometry:
    """The polygons of a geometry (boolean operations leave points and lines on edges)."""
    if geometry.geom_type in ("Polygon", "MultiPolygon"):
        return geometry
    parts = [g for g in shapely.get_parts(geometry) if g.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.union_all(parts) if parts else shapely.Polygon()


@dataclass(frozen=True)
class AzimuthalFrame:
    """Azimuthal equidistant projection (WGS84) centred on a point, for buffers and distances."""

    lon: float
    lat: float

    @classmethod
    def around(cls, geometry: BaseGeometry) -> AzimuthalFrame:
        """A frame centred on a geometry's bounding-box centre."""
        minx, miny, maxx, maxy = geometry.bounds
        return cls((minx + maxx) / 2, (miny + maxy) / 2)

    def rho_max(self, geometry: BaseGeometry) -> float:
        """The largest distance (m) from the frame centre of a point of ``geometry``'s hull."""
        coords = shapely.get_coordinates(shapely.convex_hull(geometry))
        if len(coords) == 0:
            return 0.0
        x, y = self.project_xy(coords[:, 0], coords[:, 1])
        return float(np.hypot(x, y).max())

    @cached_property
    def crs(self) -> pyproj.CRS:
        return pyproj.CRS.from_proj4(
            f"+proj=aeqd +lat_0={self.lat:.9f} +lon_0={self.lon:.9f} +ellps=WGS84 +units=m +no_defs"
        )

    @cached_property
    def _forward(self) -> pyproj.Transformer:
        return pyproj.Transformer.from_crs("EPSG:4326", self.crs, always_xy=True)

    @cached_property
    def _back(self) -> pyproj.Transformer:
        return pyproj.Transformer.from_crs(self.crs, "EPSG:4326", always_xy=True)

    def project(self, geometry: BaseGeometry) -> BaseGeometry:
        """WGS84 -> metres (vertices only: long edges become chords)."""
        return _apply(self._forward, geometry)

    def project_area(self, geometry: BaseGeometry) -> BaseGeometry:
        """WGS84 -> metres, with lon/lat edges first cut every 0.01° so they keep their shape.

        A straight lon/lat edge is a curve in the frame; its chord can stray hundreds
        of metres on a large area (a 2° edge at 17° S: 300 m), cut pieces by < 5 cm.
        """
        return _apply(self._forward, shapely.segmentize(geometry, 0.01))

    def unproject(self, geometry: BaseGeometry) -> BaseGeometry:
        """Metres -> WGS84 (longitudes within 180° of the frame's centre)."""
        return _apply(self._back, geometry, self.lon)

    def project_xy(self, lon, lat) -> tuple[np.ndarray, np.ndarray]:
        x, y = self._forward.transform(np.asarray(lon, float), np.asarray(lat, float))
        return np.asarray(x), np.asarray(y)

    def unproject_xy(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        lon, lat = self._back.transform(np.asarray(x, float), np.asarray(y, float))
        return wrap_lon(np.asarray(lon), self.lon), np.asarray(lat)


def _apply(
    transformer: pyproj.Transformer, geometry: BaseGeometry, lon_centre: float | None = None
) -> BaseGeometry:
    def fn(coords: np.ndarray) -> np.ndarray:
        x, y = transformer.transform(coords[:, 0], coords[:, 1])
        if lon_centre is not None:
            x = wrap_lon(np.asarray(x), lon_centre)
        return np.column_stack([x, y])

    return shapely.transform(geometry, fn)


def buffer_segments(radius_m: float, tolerance_m: float = DEFAULT_TOLERANCE_M) -> int:
    """Shapely ``quad_segs`` so a buffer's arcs stay within ``tolerance_m`` of the true arcs."""
    return max(8, int(math.ceil(circle_vertex_count(radius_m, tolerance_m) / 4)))


def densify_line(line: LineString, step_m: float = 500.0) -> LineString:
    """Geodesic densification of a lon/lat line (segments longer than ``step_m`` get points)."""
    coords = np.asarray(line.coords)
    out = [coords[0]]
    for (x0, y0), (x1, y1) in zip(coords[:-1], coords[1:], strict=True):
        d = float(distance_m(x0, y0, x1, y1))
        k = int(d // step_m)
        if k:
            pts = GEOD.npts(x0, y0, x1, y1, k)
            out.extend(pts)
        out.append((x1, y1))
    return LineString(out)
