"""Play areas: read polygons (GeoJSON, or any format of :mod:`.areafiles`), check them,
repair what can be repaired.

Accepted: a Polygon, MultiPolygon, Feature, FeatureCollection or GeometryCollection
of them (every part and hole is kept; parts are unioned). A closed LineString ring
(as some drawing tools export) is read as the polygon it encloses, with a warning.
Anything else (a Point, an open line) is an error that says what to draw instead.

Rings are checked the same way whether they come as a LineString or as a Polygon
ring: a ring whose ends are apart by at most :data:`RING_CLOSE_SHARE` of its length
(the peer generator's own Sioux Falls area: 56 m of ~70 km) is closed with a
warning; a ring open by more is refused. Invalid geometry is repaired only where the
repair is unambiguous, and every repair is reported: a self-crossing outline is split
at its crossings (``make_valid``), a hole outside its outer ring is ignored (it cuts
nothing), a hole crossing it is cut out where it overlaps; a hole covering its whole
outer ring is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from stations_generator.core.geo.antimeridian import (
    centre_lon,
    crosses_antimeridian,
    split_antimeridian,
    to_window,
)
from stations_generator.core.geo.geodesy import GEOD, geodesic_area_km2
from stations_generator.errors import InputError, NoDataError
from stations_generator.formats import jsonio, schemas

Warn = Callable[[str], None]

#: A ring whose ends are this share of its length apart, or less, is closed (with a warning).
RING_CLOSE_SHARE = 0.01
#: Smallest play area accepted, km² (one hectare; a hiding zone alone is ~0.5 km²).
MIN_PLAY_AREA_KM2 = 0.01
#: Largest GeoJSON file read.
MAX_GEOJSON_BYTES = 256 * 1024**2
_GEOJSON_TYPES = schemas.GEOJSON["properties"]["type"]["enum"]


def _iter_geometries(obj: dict, source: str) -> Iterable[dict]:
    kind = obj.get("type")
    if kind == "FeatureCollection":
        for feature in obj["features"]:
            yield from _iter_geometries(feature, source)
    elif kind == "Feature":
        geometry = obj.get("geometry")
        if geometry:
            yield from _iter_geometries(geometry, source)
    elif kind == "GeometryCollection":
        for geometry in obj["geometries"]:
            yield from _iter_geometries(geometry, source)
    else:
        yield obj


def _check_coordinates(coords: np.ndarray, source: str) -> None:
    if len(coords) == 0:
        return
    lons, lats = coords[:, 0], coords[:, 1]
    if (abs(lats) > 90).any():
        bad = float(lats[abs(lats) > 90][0])
        hint = (
            " — the coordinates look swapped: GeoJSON wants [longitude, latitude]; swap them"
            if (abs(lons) <= 90).all()
            else ""
        )
        raise InputError(f"{source}: latitude {bad:g} is out of range{hint}")
    if (abs(lons) > 180).any():
        bad = float(lons[abs(lons) > 180][0])
        raise InputError(
            f"{source}: longitude {bad:g} is out of range; coordinates must be WGS84 degrees "
            "(reproject the file to EPSG:4326)"
        )


def _metres(m: float) -> str:
    return f"{m / 1000:.1f} km" if m >= 10_000 else f"{m:.0f} m"


def _km2(km2: float) -> str:
    return f"{km2:.3g} km²" if km2 >= 0.01 else f"{km2 * 1e6:.3g} m²"


def _unwrapped(positions: list, what: str, source: str) -> list:
    """The ring with its longitudes made continuous across ±180° (else unchanged).

    A step of more than 180° of longitude between two points is read as the short way
    across the antimeridian, as Google Earth draws it (a KML or GPX outline around
    Fiji runs 179.9°, -179.9°…); the ring then runs past 180° and the area is cut there
    afterwards (RFC 7946). A ring whose steps add up to a whole turn goes around a pole.
    """
    lons = np.array([float(p[0]) for p in positions])
    if len(lons) < 2:
        return positions
    ends = np.append(lons, lons[0])
    steps = np.diff(ends)  # (with the step back to the start)
    wrapped = (steps + 180.0) % 360.0 - 180.0
    if abs(float(wrapped.sum())) > 180.0:
        lats = [float(p[1]) for p in positions]
        raise InputError(_pole_message(source, what, sum(lats) > 0))
    # A step along a map edge (from -180° to 180°, as in a band drawn up to a pole) is no jump.
    edge = (np.abs(ends[:-1]) == 180.0) & (np.abs(ends[1:]) == 180.0)
    if not ((np.abs(steps) > 180.0) & ~edge).any():
        return positions
    steps = np.where(edge, steps, wrapped)
    moved = lons[0] + np.concatenate([[0.0], np.cumsum(steps[:-1])])
    return [[float(x), *p[1:]] for x, p in zip(moved, positions, strict=True)]


def _pole_message(source: str, what: str, north: bool) -> str:
    return (
        f"{source}: {what} encloses the {'North' if north else 'South'} Pole; a play area "
        "cannot contain a pole: draw an area that stays clear of it"
    )


def _closed_ring(
    positions: list, what: str, source: str, warn: Warn, then: str = ""
) -> list[tuple[float, float]]:
    """The ring's (lon, lat) points, closed; an open ring is closed if nearly so, else refused."""
    ring = [(float(p[0]), float(p[1])) for p in positions]
    if len(ring) >= 2 and ring[0] != ring[-1]:
        lons, lats = zip(*ring, strict=True)
        length = float(GEOD.line_length(lons, lats))
        gap = float(GEOD.line_length([ring[-1][0], ring[0][0]], [ring[-1][1], ring[0][1]]))
        share = gap / length if length > 0 else float("inf")
        if share > RING_CLOSE_SHARE:
            opened = (
                f"{source} holds an open LineString ({what})"
                if what.startswith("LineString")
                else f"{source}: {what} is open"
            )
            raise InputError(
                f"{opened}: its ends are {_metres(gap)} apart"
                + (f" ({share:.0%} of its {_metres(length)} length)" if length > 0 else "")
                + "; close the ring (repeat the first point at the end) or draw a polygon"
            )
        warn(
            f"{source}: {what} was not closed: its ends were {_metres(gap)} apart "
            f"({share:.2%} of its {_metres(length)} length); closed it with a straight edge{then}"
        )
        ring.append(ring[0])
    if len(set(ring)) < 3 or len(ring) < 4:
        raise InputError(
            f"{source}: {what} has only {len(set(ring))} distinct points; a ring needs at "
            "least 3 corners"
        )
    return ring


def _polygonal_parts(geom: BaseGeometry) -> list[Polygon]:
    return [
        p
        for g in getattr(geom, "geoms", [geom])
        for p in (g.geoms if isinstance(g, MultiPolygon) else [g])
        if isinstance(p, Polygon) and not p.is_empty and p.area > 0
    ]


def _where(geom: BaseGeometry) -> str:
    why = shapely.is_valid_reason(geom)
    return why.replace("[", " at (").replace("]", ")") if "[" in why else why


def _distance_m(a: BaseGeometry, b: BaseGeometry) -> float:
    pa, pb = nearest_points(a, b)
    return float(GEOD.line_length([pa.x, pb.x], [pa.y, pb.y]))


def _polygon(rings: list[list], label: str, source: str, warn: Warn) -> list[Polygon]:
    """One GeoJSON polygon (outer ring + holes) as valid polygons; each repair is reported."""
    what = f"{label}, outer ring"
    shell_ring = _closed_ring(_unwrapped(rings[0], what, source), what, source, warn)
    shell = Polygon(shell_ring)
    if not shell.is_valid:
        parts = _polygonal_parts(shapely.make_valid(shell))
        if not parts:
            raise InputError(
                f"{source}: {label}: the outline ({_where(shell)}) encloses no area; redraw it"
            )
        warn(
            f"{source}: {label}: repaired invalid polygon ({_where(shell)}): the outline "
            f"crosses itself, so it was split at the crossings into {len(parts)} part{'s' * (len(parts) > 1)} covering "
            f"{_km2(sum(geodesic_area_km2(p) for p in parts))}"
        )
        shell = shapely.union_all(parts)
    cuts = []
    for number, positions in enumerate(rings[1:], 1):
        what = f"{label}, hole {number}"
        ring = _closed_ring(_unwrapped(positions, what, source), what, source, warn)
        hole = to_window(Polygon(ring), centre_lon(shell))
        if not hole.is_valid:
            hole = shapely.union_all(_polygonal_parts(shapely.make_valid(hole)))
        if hole.is_empty or hole.area == 0:
            warn(f"{source}: {what} has no area; ignored it")
            continue
        if hole.covers(shell):
            raise InputError(
                f"{source}: {what} covers the whole outer ring, leaving no area; remove the "
                "hole or redraw the polygon"
            )
        overlap = hole.intersection(shell)
        if overlap.is_empty or overlap.area == 0:
            warn(
                f"{source}: {what} lies outside the outer ring ({_metres(_distance_m(shell, hole))}"
                " away), so it cuts nothing; ignored it"
            )
            continue
        if not shell.contains(hole):
            warn(
                f"{source}: {what} crosses the outer ring; cut out only its part inside "
                f"({_km2(geodesic_area_km2(overlap))} of its {_km2(geodesic_area_km2(hole))})"
            )
        cuts.append(hole)
    area = shell.difference(shapely.union_all(cuts)) if cuts else shell
    return _polygonal_parts(area)


def _as_polygons(raw: dict, number: int, source: str, warn: Warn) -> list[Polygon]:
    kind, coords = raw["type"], raw["coordinates"]
    if kind == "Polygon":
        if not coords:
            raise InputError(f"{source}: polygon {number} has no rings; draw the play area again")
        return _polygon(coords, f"polygon {number}", source, warn)
    if kind == "MultiPolygon":
        out = []
        for k, rings in enumerate(coords, 1):
            if not rings:
                raise InputError(f"{source}: polygon {number} part {k} has no rings")
            out.extend(_polygon(rings, f"polygon {number} part {k}", source, warn))
        return out
    if kind in ("LineString", "MultiLineString"):
        lines = [coords] if kind == "LineString" else coords
        out = []
        for k, line in enumerate(lines, 1):
            what = f"LineString {number}" + (f" part {k}" if kind != "LineString" else "")
            closed = len(line) >= 2 and list(line[0][:2]) == list(line[-1][:2])
            line = _unwrapped(line, what, source)
            ring = _closed_ring(line, what, source, warn, " and read it as the polygon it encloses")
            if closed:
                warn(f"{source}: read a closed LineString as the polygon it encloses")
            out.extend(_polygon([ring], what, source, lambda _m: None))
        return out
    raise InputError(
        f"{source} holds a {kind}, not a polygon; the play area must be a Polygon or MultiPolygon"
    )


def parse_polygons(
    data: Any,
    source: str,
    warn: Warn = lambda _m: None,
    *,
    min_area_km2: float = MIN_PLAY_AREA_KM2,
) -> BaseGeometry:
    """A (Multi)Polygon from parsed GeoJSON, checked and repaired.

    Parameters
    ----------
    data : dict
        Parsed GeoJSON.
    source : str
        How to name the input in messages (usually the file name).
    warn : callable
        Receives one-line warnings (repairs, rings closed, ring read as polygon).
    min_area_km2 : float
        Smallest area accepted (default one hectare; exclusions pass 0).

    Returns
    -------
    shapely Polygon or MultiPolygon in WGS84

    Raises
    ------
    InputError
        Not GeoJSON (the JSON path of the first problem is named), no polygon, an open
        ring, swapped or out-of-range coordinates, unrepairable geometry.
    NoDataError
        The polygons have no area, or less than ``min_area_km2``.
    """
    if not isinstance(data, dict):
        raise InputError(
            f"{source} is not a GeoJSON object; give a Polygon, Feature or FeatureCollection"
        )
    if data.get("type") not in _GEOJSON_TYPES:
        raise InputError(
            f"{source} is not GeoJSON (found type {data.get('type')!r}); give a Polygon, "
            "MultiPolygon, Feature or FeatureCollection"
        )
    jsonio.validate(data, schemas.GEOJSON, source)
    raws = list(_iter_geometries(data, source))
    for raw in raws:  # (the schema bounds every coordinate to a double's range)
        _check_coordinates(_positions(raw["coordinates"]), source)
    parts: list[Polygon] = []
    for number, raw in enumerate(raws, 1):
        parts.extend(_as_polygons(raw, number, source, warn))
    if not parts:
        raise InputError(f"{source} has no polygon; draw the play area as a Polygon")
    area = shapely.union_all(parts)
    if area.bounds[3] >= 90.0 or area.bounds[1] <= -90.0:
        raise InputError(_pole_message(source, "the area", area.bounds[3] >= 90.0))
    if crosses_antimeridian(area):  # (an outline drawn across ±180°) cut there, RFC 7946
        area = split_antimeridian(area)
    if len(parts) > 1 and sum(p.area for p in parts) > area.area * (1 + 1e-9):
        warn(f"{source}: its {len(parts)} polygons overlap; merged them into one area")
    if area.is_empty or area.area == 0:
        raise NoDataError(f"{source}: the polygon has no area; redraw it")
    km2 = geodesic_area_km2(area)
    if km2 < min_area_km2:
        raise NoDataError(
            f"{source}: the polygon covers only {_km2(km2)}, less than the "
            f"{_km2(min_area_km2)} a play area needs; draw the whole area you play in"
        )
    return shapely.normalize(area)


def _positions(coords: Any) -> np.ndarray:
    """Every [lon, lat] position of nested coordinate arrays, as an (n, 2) array."""
    out: list[tuple[float, float]] = []
    stack = [coords]
    while stack:
        value = stack.pop()
        if value and not isinstance(value[0], list | tuple):
            out.append((float(value[0]), float(value[1])))
        else:
            stack.extend(value)
    return np.array(out, dtype=float).reshape(-1, 2)


def load_polygons(
    path: Path, warn: Warn = lambda _m: None, *, min_area_km2: float = MIN_PLAY_AREA_KM2
) -> BaseGeometry:
    """Read a play-area file of polygons (see :func:`parse_polygons`).

    Any format of :mod:`stations_generator.formats.areafiles`: GeoJSON, KML/KMZ, GPX, shapefile,
    GeoPackage and the other files GDAL reads; every format is checked the same way.
    """
    from stations_generator.formats.areafiles import read_area_file

    path = Path(path)
    data = read_area_file(path, repr(path.name), warn)
    return parse_polygons(data, repr(path.name), warn, min_area_km2=min_area_km2)
