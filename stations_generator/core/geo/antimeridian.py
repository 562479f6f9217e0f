"""Longitudes around ±180°: one continuous frame inside, RFC 7946 pieces outside.

Inside the toolkit a play area is one continuous shape: an area across the
antimeridian (Fiji, Chukotka, the Aleutians) has longitudes running past 180° (e.g.
177° to 183°) instead of two pieces at opposite ends of the map. Every other
geometry of a game (places, lines, zones, seekers) is moved into the same window,
``centre ± 180°``, so shapely's planar predicates and boolean operations see
neighbours as neighbours. GeographicLib (pyproj.Geod) accepts any longitude, so
distances need no change. Outputs are split at ±180° again, as RFC 7946 §3.1.9
asks, with every longitude in [-180°, 180°].

The play-area reader (``playarea.py``) keeps such an area as RFC 7946 gives it, in two
parts, which is right for the station map (``generate`` works part by part); the game
loaders (``app.game_loader.load_game``) join it with :func:`join_antimeridian`.

For an area that does not come near ±180° all of this is the identity.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry


def wrap_lon(lon, centre: float = 0.0):
    """Longitude(s) moved by whole turns into ``[centre - 180, centre + 180)``."""
    if isinstance(lon, float | int) and isinstance(centre, float | int):
        if centre - 180.0 <= lon < centre + 180.0:  # the usual case, without numpy
            return float(lon)
        return float((lon - centre + 180.0) % 360.0 - 180.0 + centre)
    lon = np.asarray(lon, float)
    centre = np.asarray(centre, float)
    inside = (lon >= centre - 180.0) & (lon < centre + 180.0)
    # Longitudes already in the window are returned exactly as they are.
    out = np.where(inside, lon, (lon - centre + 180.0) % 360.0 - 180.0 + centre)
    return float(out) if out.ndim == 0 else out


def centre_lon(geometry: BaseGeometry) -> float:
    """The central longitude of a (continuous) geometry: the middle of its bounds."""
    minx, _, maxx, _ = geometry.bounds
    return (minx + maxx) / 2.0


def shift_lon(geometry: BaseGeometry, turns: int) -> BaseGeometry:
    """The geometry moved east by ``turns`` × 360°."""
    if turns == 0 or geometry.is_empty:
        return geometry
    return shapely.transform(geometry, lambda c: c + np.array([360.0 * turns, 0.0]))


def to_window(geometry: BaseGeometry, centre: float) -> BaseGeometry:
    """The geometry moved by whole turns so that its own centre is within 180° of ``centre``.

    Each part is moved on its own, so pieces of a shape split at ±180° come together.
    """
    if geometry.is_empty:
        return geometry
    if geometry.geom_type.startswith("Multi"):
        parts = list(geometry.geoms)
        moved = [to_window(p, centre) for p in parts]
        if all(m is p for m, p in zip(moved, parts, strict=True)):
            return geometry
        if geometry.geom_type == "MultiPolygon":  # pieces split at ±180° become one again
            return shapely.union_all(moved)
        return type(geometry)(moved)
    own = centre_lon(geometry)
    turns = int(round((wrap_lon(own, centre) - own) / 360.0))
    return shift_lon(geometry, turns)


def crosses_antimeridian(geometry: BaseGeometry) -> bool:
    """Whether the geometry's longitudes leave [-180°, 180°] (a continuous area across it)."""
    minx, _, maxx, _ = geometry.bounds
    return minx < -180.0 or maxx > 180.0


def join_antimeridian(geometry: BaseGeometry) -> BaseGeometry:
    """One continuous shape from polygons split at ±180° (RFC 7946 style), else unchanged.

    A geometry with parts on both edges of the map (touching 180° and -180°) is
    rejoined by moving its western parts one turn east; the result runs past 180°.
    Anything else (the usual case) is returned as it is.
    """
    if geometry.is_empty or not geometry.geom_type.startswith("Multi"):
        return geometry
    minx, _, maxx, _ = geometry.bounds
    if minx > -180.0 + 1e-9 or maxx < 180.0 - 1e-9:
        return geometry
    parts = list(geometry.geoms)
    east = [p for p in parts if p.bounds[2] >= 180.0 - 1e-9]
    west = [p for p in parts if p.bounds[0] <= -180.0 + 1e-9]
    if not east or not west:
        return geometry
    moved = [shift_lon(p, 1) if p.bounds[0] + p.bounds[2] < 0 else p for p in parts]
    joined = shapely.union_all(moved)
    # Only pieces that meet along ±180° are one area split in two; merely sitting at
    # both ends of the map is not enough.
    if len(shapely.get_parts(joined)) >= len(parts):
        return geometry
    return joined


def split_antimeridian(geometry: BaseGeometry) -> BaseGeometry:
    """The geometry cut at ±180° with every longitude in [-180°, 180°] (RFC 7946 §3.1.9).

    Geometries already inside [-180°, 180°] are returned unchanged.
    """
    if geometry.is_empty or not crosses_antimeridian(geometry):
        return geometry
    minx, miny, maxx, maxy = geometry.bounds
    pieces = []
    for turns in range(
        int(np.floor((minx + 180.0) / 360.0)), int(np.ceil((maxx - 180.0) / 360.0)) + 1
    ):
        west = -180.0 + 360.0 * turns
        window = box(west, miny - 1.0, west + 360.0, maxy + 1.0)
        piece = geometry.intersection(window)
        if not piece.is_empty:
            pieces.append(shift_lon(piece, -turns))
    parts = []
    for piece in pieces:
        parts.extend(
            getattr(piece, "geoms", [piece])
            if piece.geom_type.startswith(("Multi", "Geom"))
            else [piece]
        )
    polys = [p for p in parts if p.geom_type == "Polygon" and not p.is_empty]
    if polys and len(polys) == len(parts):
        return shapely.MultiPolygon(polys) if len(polys) > 1 else polys[0]
    return shapely.GeometryCollection(parts)
