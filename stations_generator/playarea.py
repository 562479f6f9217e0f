"""Play areas: read GeoJSON polygons, check them, repair what can be repaired.

Accepted: a Polygon, MultiPolygon, Feature, FeatureCollection or GeometryCollection
of them (every part and hole is kept; parts are unioned). A closed LineString ring
(as some drawing tools export) is read as the polygon it encloses, with a warning.
Anything else (a Point, an open line) is an error that says what to draw instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import shapely
from shapely.geometry import LinearRing, MultiPolygon, Polygon, shape
from shapely.geometry.base import BaseGeometry

from .errors import InputError, NoDataError

Warn = Callable[[str], None]


def _iter_geometries(obj: dict, source: str) -> Iterable[dict]:
    kind = obj.get("type")
    if kind == "FeatureCollection":
        features = obj.get("features")
        if not isinstance(features, list):
            raise InputError(
                f"{source}: FeatureCollection has no 'features' list; is it valid GeoJSON?"
            )
        for feature in features:
            yield from _iter_geometries(feature, source)
    elif kind == "Feature":
        geometry = obj.get("geometry")
        if geometry:
            yield from _iter_geometries(geometry, source)
    elif kind == "GeometryCollection":
        for geometry in obj.get("geometries", []):
            yield from _iter_geometries(geometry, source)
    elif kind in (
        "Polygon",
        "MultiPolygon",
        "LineString",
        "MultiLineString",
        "Point",
        "MultiPoint",
    ):
        yield obj
    else:
        raise InputError(
            f"{source} is not GeoJSON (found type {kind!r}); give a Polygon, MultiPolygon, "
            "Feature or FeatureCollection"
        )


def _check_coordinates(geom: BaseGeometry, source: str) -> None:
    coords = shapely.get_coordinates(geom)
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


def _as_polygons(geom: BaseGeometry, source: str, warn: Warn) -> list[Polygon]:
    if isinstance(geom, Polygon):
        return [geom]
    if isinstance(geom, MultiPolygon):
        return list(geom.geoms)
    if geom.geom_type == "LineString":
        if geom.is_closed and len(geom.coords) >= 4:
            warn(f"{source}: read a closed LineString as the polygon it encloses")
            return [Polygon(LinearRing(geom.coords))]
        raise InputError(
            f"{source} holds an open LineString, not a polygon; close the ring or draw a polygon"
        )
    if geom.geom_type == "MultiLineString":
        return [p for part in geom.geoms for p in _as_polygons(part, source, warn)]
    raise InputError(
        f"{source} holds a {geom.geom_type}, not a polygon; the play area must be a "
        "Polygon or MultiPolygon"
    )


def _repair(geom: BaseGeometry, source: str, warn: Warn) -> BaseGeometry:
    if geom.is_valid:
        return geom
    why = shapely.is_valid_reason(geom)
    fixed = shapely.make_valid(geom)
    polygons = [
        g for g in getattr(fixed, "geoms", [fixed]) if g.geom_type in ("Polygon", "MultiPolygon")
    ]
    if not polygons:
        raise InputError(f"{source}: invalid polygon ({why}) that cannot be repaired; redraw it")
    repaired = shapely.union_all(polygons)
    lost = geom.area - repaired.area
    note = f", changing its area by {abs(lost) / max(geom.area, 1e-30):.1%}" if geom.area else ""
    warn(f"{source}: repaired invalid polygon ({why}) with make_valid{note}")
    return repaired


def parse_polygons(data: dict, source: str, warn: Warn = lambda _m: None) -> BaseGeometry:
    """A (Multi)Polygon from parsed GeoJSON, checked and repaired.

    Parameters
    ----------
    data : dict
        Parsed GeoJSON.
    source : str
        How to name the input in messages (usually the file name).
    warn : callable
        Receives one-line warnings (repairs, ring read as polygon).

    Returns
    -------
    shapely Polygon or MultiPolygon in WGS84

    Raises
    ------
    InputError
        Not GeoJSON, no polygon, swapped or out-of-range coordinates, unrepairable.
    NoDataError
        The polygons have no area.
    """
    if not isinstance(data, dict):
        raise InputError(
            f"{source} is not a GeoJSON object; give a Polygon, Feature or FeatureCollection"
        )
    parts: list[Polygon] = []
    for raw in _iter_geometries(data, source):
        try:
            geom = shape(raw)
        except Exception as exc:  # shapely raises several types on malformed coordinates
            raise InputError(f"{source}: malformed {raw.get('type')} coordinates ({exc})") from None
        _check_coordinates(geom, source)
        parts.extend(_repair(p, source, warn) for p in _as_polygons(geom, source, warn))
    if not parts:
        raise InputError(f"{source} has no polygon; draw the play area as a Polygon")
    area = shapely.union_all(parts)
    area = _repair(area, source, warn)
    if area.is_empty or area.area == 0:
        raise NoDataError(f"{source}: the polygon has no area; redraw it")
    return shapely.normalize(area)


def load_polygons(path: Path, warn: Warn = lambda _m: None) -> BaseGeometry:
    """Read a GeoJSON file of polygons (see :func:`parse_polygons`)."""
    path = Path(path)
    source = repr(path.name)
    if not path.exists():
        raise InputError(f"{source} does not exist; check the path")
    if path.is_dir():
        raise InputError(f"{source} is a folder; give a GeoJSON file")
    try:
        data = json.loads(path.read_text("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{source} is not a text file; give a GeoJSON file (.geojson)") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source} is not GeoJSON (invalid JSON at line {exc.lineno}); give a .geojson file"
        ) from None
    return parse_polygons(data, source, warn)
