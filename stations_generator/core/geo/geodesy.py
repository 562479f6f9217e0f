"""Geodesy: a local metric frame for an area, and geodesic lengths and areas.

Distances between stations are computed in the area's UTM zone (chosen by pyproj)
and divided by the projection's point scale factor, which pyproj reports for every
point. Transverse Mercator is conformal, so for two points ``d`` apart the corrected
grid distance differs from the WGS84 geodesic by less than ``d * Δk`` where ``Δk`` is
the change of scale across the segment: under 1e-7 for the ≤ 2 km distances the
spacing rules use anywhere within ±6° of the zone's central meridian, i.e. below a
millimetre. ``tests/core/geo/test_geodesy.py`` checks this against pyproj.Geod (GeographicLib).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
import pyproj
from pyproj.aoi import AreaOfInterest
from pyproj.database import query_utm_crs_info
from shapely.geometry.base import BaseGeometry

WGS84 = pyproj.CRS.from_epsg(4326)
GEOD = pyproj.Geod(ellps="WGS84")


def utm_crs_for(bounds: tuple[float, float, float, float]) -> pyproj.CRS:
    """The WGS84 UTM zone pyproj picks for a lon/lat bounding box.

    Parameters
    ----------
    bounds : (min_lon, min_lat, max_lon, max_lat)

    Returns
    -------
    pyproj.CRS
    """
    west, south, east, north = bounds
    code = _plain_utm_epsg(west, south, east, north)
    if code is not None:
        return _utm_crs(code)
    infos = query_utm_crs_info(
        datum_name="WGS 84",
        area_of_interest=AreaOfInterest(west, south, east, north),
    )
    if not infos:  # polar areas: fall back to the zone of the centre
        lon = (west + east) / 2
        zone = int((lon + 180) // 6) % 60 + 1
        return pyproj.CRS.from_dict({"proj": "utm", "zone": zone, "south": (south + north) < 0})
    # pyproj lists every zone that touches the area; take the one whose central
    # meridian is nearest the centre of the box.
    centre = (west + east) / 2

    def offset(info) -> float:
        zone = int(info.code) % 100  # EPSG 326zz (north) / 327zz (south)
        meridian = -183 + 6 * zone
        return abs(meridian - centre)

    best = min(infos, key=lambda i: (offset(i), i.code))
    return pyproj.CRS.from_epsg(int(best.code))


@cache
def _utm_crs(code: int) -> pyproj.CRS:
    return pyproj.CRS.from_epsg(code)


def _plain_utm_epsg(west: float, south: float, east: float, north: float) -> int | None:
    """The EPSG code :func:`utm_crs_for` picks, without the database search; None if unsure.

    WGS84 UTM zone z (EPSG 326zz north of the equator up to 84° N, 327zz south
    of it down to 80° S) covers longitudes -180 + 6(z - 1) to -180 + 6z. Among the
    zones a box touches, the database search keeps the one whose central meridian
    is nearest the box's centre, then the lower code (north before south). The
    search takes ~0.2-0.4 s; this takes microseconds. Boxes on a zone edge, on the
    equator, past the poles' limits or not in [-180, 180] are left to the search.
    """
    if not (-180.0 <= west <= east <= 180.0 and -80.0 < south <= north < 84.0):
        return None
    if south == 0.0 or north == 0.0:
        return None
    centre = (west + east) / 2
    if (centre + 180.0) % 6.0 == 0.0:
        return None
    first = int((west + 180.0) // 6) + 1
    last = min(int((east + 180.0) // 6) + 1, 60)
    zones = range(max(first, 1), last + 1)
    zone = min(zones, key=lambda z: (abs(-183 + 6 * z - centre), z))
    return (32600 if north > 0 else 32700) + zone


@dataclass(frozen=True)
class LocalFrame:
    """A metric frame (UTM zone) for one play area.

    Attributes
    ----------
    crs : pyproj.CRS
        The projected CRS.
    """

    crs: pyproj.CRS

    @classmethod
    def for_bounds(cls, bounds: tuple[float, float, float, float]) -> LocalFrame:
        """The frame pyproj picks for a lon/lat bounding box."""
        return cls(utm_crs_for(bounds))

    def project(self, lon, lat) -> tuple[np.ndarray, np.ndarray]:
        """Project lon/lat arrays to metres."""
        forward = _transformer(self.crs.srs)
        x, y = forward.transform(np.asarray(lon, float), np.asarray(lat, float))
        return np.asarray(x), np.asarray(y)

    def unproject(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        """Metres back to lon/lat arrays."""
        back = _transformer(self.crs.srs, inverse=True)
        lon, lat = back.transform(np.asarray(x, float), np.asarray(y, float))
        return np.asarray(lon), np.asarray(lat)

    def scale_factors(self, lon, lat) -> np.ndarray:
        """The projection's point scale factor k at each lon/lat (grid / true length)."""
        factors = _proj(self.crs.srs).get_factors(np.asarray(lon, float), np.asarray(lat, float))
        return np.asarray(factors.meridional_scale, float)


@lru_cache(maxsize=16)
def _transformer(srs: str, inverse: bool = False) -> pyproj.Transformer:
    crs = pyproj.CRS.from_user_input(srs)
    if inverse:
        return pyproj.Transformer.from_crs(crs, WGS84, always_xy=True)
    return pyproj.Transformer.from_crs(WGS84, crs, always_xy=True)


@lru_cache(maxsize=16)
def _proj(srs: str) -> pyproj.Proj:
    return pyproj.Proj(srs)


def geodesic_distance(lon1, lat1, lon2, lat2) -> np.ndarray:
    """WGS84 geodesic distance(s) in metres (GeographicLib through pyproj.Geod)."""
    _, _, dist = GEOD.inv(lon1, lat1, lon2, lat2)
    return np.asarray(dist)


def geodesic_area_km2(geometry: BaseGeometry) -> float:
    """The WGS84 geodesic area of a lon/lat (multi)polygon in km²."""
    if geometry.is_empty:
        return 0.0
    area, _ = GEOD.geometry_area_perimeter(geometry)
    return abs(area) / 1e6
