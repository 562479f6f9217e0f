"""Places, zones and stations that questions refer to, and the nearest-place geometry
they share: nearest place, Voronoi cells, which zone covers a point (pure: no I/O).

Ties between places go to the smaller id. Coordinates are (lon, lat).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.antimeridian import centre_lon, wrap_lon
from stations_generator.core.geo.features import PlaceIndex
from stations_generator.core.geo.shapes import closer_region, distance_m


@dataclass(frozen=True)
class Place:
    """A point of interest a question refers to (a museum, a station…)."""

    id: str
    name: str
    lon: float
    lat: float


@dataclass(frozen=True)
class Zone:
    """An admin area (or any named polygon)."""

    id: str
    name: str
    geometry: BaseGeometry = field(compare=False, repr=False)


@dataclass(frozen=True)
class Station:
    """A hiding station: where a hiding zone is centred."""

    id: str
    name: str
    lon: float
    lat: float
    tags: tuple[tuple[str, str], ...] = ()  # the OSM tags that say what kind of stop it is
    lines: frozenset[str] = frozenset()  # ids of the route relations serving it
    line_refs: frozenset[str] = frozenset()  # "network:ref" of those routes, e.g. "RET:B"

    def tag(self, key: str) -> str | None:
        """The value of an OSM tag of the station, or None."""
        return dict(self.tags).get(key)


def nearest_place(places: Sequence[Place], lon: float, lat: float) -> tuple[Place | None, float]:
    """The place nearest (lon, lat) and its geodesic distance in metres (None, inf if none)."""
    if not places:
        return None, math.inf
    d = distance_m(
        np.full(len(places), lon),
        np.full(len(places), lat),
        np.array([p.lon for p in places]),
        np.array([p.lat for p in places]),
    )
    tied = np.flatnonzero(d == d.min())
    best = int(min(tied, key=lambda i: places[i].id)) if len(tied) > 1 else int(tied[0])
    return places[best], float(d[best])


def place_index(places: Sequence[Place]) -> PlaceIndex:
    """An exact nearest-place index; ties go to the smaller id, as in :func:`nearest_place`."""
    ids = [p.id for p in places]
    rank = np.empty(len(ids), int)
    rank[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
    return PlaceIndex([p.lon for p in places], [p.lat for p in places], rank)


def voronoi_cell(places: Sequence[Place], chosen: Place, extent: BaseGeometry) -> BaseGeometry:
    """The part of ``extent`` whose nearest place (geodesic; ties to the smaller id) is ``chosen``.

    The intersection of the "closer to chosen than to q" regions for every other
    place q (see :func:`stations_generator.core.geo.shapes.closer_region`). Places far
    enough that their bisector cannot reach ``extent`` are skipped.
    """
    cell = extent
    others = [q for q in places if q.id != chosen.id and (q.lon, q.lat) != (chosen.lon, chosen.lat)]
    if not others:
        return cell
    d = distance_m(
        np.full(len(others), chosen.lon),
        np.full(len(others), chosen.lat),
        np.array([q.lon for q in others]),
        np.array([q.lat for q in others]),
    )
    for k in np.argsort(d, kind="stable"):
        if cell.is_empty:
            break
        q = others[int(k)]
        # Every point of the cell is within `reach` of the chosen place; a place more
        # than 2·reach away cannot be nearer to any of them.
        reach = max_distance_from(cell, chosen)
        if d[k] > 2 * reach:
            break
        cell = closer_region((chosen.lon, chosen.lat), (q.lon, q.lat), cell)
    return cell


def max_distance_from(geometry: BaseGeometry, place: Place) -> float:
    """The geodesic distance (metres) from ``place`` to the farthest vertex of the hull of ``geometry``."""
    coords = shapely.get_coordinates(shapely.convex_hull(geometry))
    if len(coords) == 0:
        return 0.0
    d = distance_m(
        np.full(len(coords), place.lon), np.full(len(coords), place.lat), coords[:, 0], coords[:, 1]
    )
    return float(d.max())


class ZoneIndex:
    """Which zone covers a point (the smallest id where zones overlap), by STRtree."""

    def __init__(self, zones: Sequence[Zone]) -> None:
        self.zones = sorted(zones, key=lambda z: z.id)
        geoms = [z.geometry for z in self.zones]
        self.tree = shapely.STRtree(geoms)
        self.centre = centre_lon(shapely.GeometryCollection(geoms)) if geoms else 0.0

    def zone_of(self, lon: float, lat: float) -> Zone | None:
        """The zone covering (lon, lat), or None."""
        return self.zones_of([lon], [lat])[0]

    def zones_of(self, lons, lats) -> list[Zone | None]:
        """:meth:`zone_of` for many points at once."""
        pts = shapely.points(
            wrap_lon(np.asarray(lons, float), self.centre), np.asarray(lats, float)
        )
        qi, zi = self.tree.query(pts, predicate="covered_by")
        best = np.full(len(pts), len(self.zones))
        np.minimum.at(best, qi, zi)
        return [self.zones[int(b)] if b < len(self.zones) else None for b in best]


def zone_of(zones: Sequence[Zone], lon: float, lat: float) -> Zone | None:
    """The zone of ``zones`` covering (lon, lat) (the smallest id where they overlap), or None."""
    return ZoneIndex(zones).zone_of(lon, lat)


def first_letter(name: str) -> str:
    """The first letter of a name, case-folded (digits and punctuation skipped)."""
    for ch in name.casefold():
        if ch.isalpha():
            return ch
    return ""
