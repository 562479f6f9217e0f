"""Play-area files in every format a map app exports, read as GeoJSON.

One reader per format, each returning parsed GeoJSON (a FeatureCollection) that
:func:`stations_generator.formats.playarea.parse_polygons` then checks and repairs the same way
whatever the format:

* GeoJSON (``.geojson``, ``.json``) — the JSON reader of :mod:`stations_generator.formats.jsonio`;
* KML (``.kml``; Google My Maps, Google Earth) and KMZ (``.kmz``, a zip holding a KML):
  Polygon, LineString, LinearRing and Point placemarks, MultiGeometry of them;
* GPX (``.gpx``): tracks and routes as lines (a closed track is the polygon it encloses),
  waypoints as points;
* anything GDAL reads through pyogrio (``.shp`` shapefiles, ``.gpkg`` GeoPackages,
  ``.fgb``, ``.gml``, ``.sqlite``, zipped shapefiles), reprojected to WGS84.

A file's format is told by its name, then by its first bytes (``<`` = XML, ``PK`` = zip).
Points in a KML or GPX holding a polygon or line too (pins next to the outline) are
ignored with a warning; without one they are refused as in GeoJSON.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from stations_generator.errors import InputError
from stations_generator.formats import jsonio

Warn = Callable[[str], None]

#: Largest play-area file read (and largest KML unpacked from a KMZ).
MAX_AREA_FILE_BYTES = 256 * 1024**2
JSON_SUFFIXES = (".geojson", ".json")
KML_SUFFIXES = (".kml",)
KMZ_SUFFIXES = (".kmz",)
GPX_SUFFIXES = (".gpx",)
#: Read through pyogrio (GDAL); ``.zip`` is a zipped shapefile.
OGR_SUFFIXES = (".shp", ".gpkg", ".fgb", ".gml", ".sqlite", ".zip", ".tab", ".mif")
FORMATS = "GeoJSON, KML/KMZ, GPX, a shapefile (.shp) or a GeoPackage (.gpkg)"


def read_area_file(path: Path, label: str, warn: Warn = lambda _m: None) -> dict:
    """Parsed GeoJSON from a play-area file of any supported format.

    Parameters
    ----------
    path : Path
    label : str
        How to name the file in messages.
    warn : callable
        Receives one-line warnings (points ignored next to an outline).

    Raises
    ------
    InputError
        Missing, a folder, empty, too large, or not a readable file of its format.
    """
    path = Path(path)
    name = path.name.lower()
    if name.endswith(JSON_SUFFIXES):
        return _json(path, label, "GeoJSON", "give a GeoJSON file (.geojson) saved as UTF-8")
    if not path.exists():
        raise InputError(f"{label} does not exist; check the path")
    if path.is_dir():
        raise InputError(f"{label} is a folder, not a play-area file ({FORMATS})")
    if name.endswith(".zip"):
        try:
            entries = [n.lower() for n in zipfile.ZipFile(path).namelist()]
        except (zipfile.BadZipFile, OSError) as exc:
            raise InputError(f"{label} is not a readable zip file: {exc}") from None
        if not any(n.endswith(".shp") for n in entries) and any(
            n.endswith(".kml") for n in entries
        ):
            return _kml(_kmz_document(_read_bytes(path, label), label), label, warn)  # a KMZ
    if name.endswith(OGR_SUFFIXES):
        return _ogr(path, label)
    raw = _read_bytes(path, label)
    if name.endswith(KMZ_SUFFIXES) or raw[:2] == b"PK":
        return _kml(_kmz_document(raw, label), label, warn)
    if name.endswith(KML_SUFFIXES) or name.endswith(GPX_SUFFIXES) or raw.lstrip()[:1] == b"<":
        root = _xml_root(raw, label)
        if _local(root.tag) == "gpx":
            return _gpx(root, label, warn)
        if _local(root.tag) == "kml" or name.endswith(KML_SUFFIXES):
            return _kml(root, label, warn)
        raise InputError(
            f"{label} is XML with a <{_local(root.tag)}> root, neither KML nor GPX; give {FORMATS}"
        )
    return _json(path, label)


def _json(
    path: Path,
    label: str,
    what: str = "a play-area file",
    fix: str = f"give {FORMATS}, saved as UTF-8",
) -> Any:
    return jsonio.read_json_file(path, what, label=label, limit=MAX_AREA_FILE_BYTES, fix=fix)


def _read_bytes(path: Path, label: str) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_AREA_FILE_BYTES:
            raise InputError(
                f"{label} is {size / 1024**2:.0f} MiB, more than the "
                f"{MAX_AREA_FILE_BYTES / 1024**2:.0f} MiB accepted for a play area"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {label}: {exc.strerror or exc}") from None
    if not raw.strip():
        raise InputError(f"{label} is empty; export the play area again ({FORMATS})")
    return raw


# --------------------------------------------------------------------------- XML


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _xml_root(raw: bytes, label: str) -> ET.Element:
    # Entity declarations are what XML bombs are made of; no map app writes them.
    if b"<!ENTITY" in raw:
        raise InputError(f"{label} declares XML entities, which are not accepted; export it again")
    try:
        return ET.fromstring(raw)
    except ET.ParseError as exc:
        line, column = exc.position
        raise InputError(
            f"{label} is not valid XML (line {line}, column {column + 1}); export it again as "
            "KML or GPX"
        ) from None


def _children(element: ET.Element, name: str) -> list[ET.Element]:
    return [c for c in element if _local(c.tag) == name]


def _number(text: str, label: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{label}: {where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"{label}: {where}: {text!r} is not a finite number")
    return value


# --------------------------------------------------------------------------- KML


def _kmz_document(raw: bytes, label: str) -> ET.Element:
    """The KML inside a KMZ: ``doc.kml`` if present, else its first ``.kml`` entry."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        names = [n for n in archive.namelist() if n.lower().endswith(".kml")]
        if not names:
            raise InputError(f"{label} is a zip holding no .kml file; export it as KMZ or KML")
        entry = archive.getinfo("doc.kml" if "doc.kml" in names else names[0])
        if entry.file_size > MAX_AREA_FILE_BYTES:
            raise InputError(f"{label}: its {entry.filename} unpacks to more than 256 MiB")
        data = archive.read(entry)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, KeyError) as exc:
        raise InputError(f"{label} is not a readable KMZ (zip) file: {exc}") from None
    if not data.strip():
        raise InputError(f"{label}: its {entry.filename} is empty; export the play area again")
    return _xml_root(data, f"{label} ({entry.filename})")


def _kml_positions(element: ET.Element | None, label: str, where: str) -> list[list[float]]:
    coords = None if element is None else next(iter(_descendants(element, "coordinates")), None)
    if coords is None or not (coords.text or "").strip():
        raise InputError(f"{label}: {where} has no coordinates; draw it again")
    out = []
    for k, tuple_text in enumerate(coords.text.split(), 1):
        parts = tuple_text.split(",")
        if len(parts) < 2:
            raise InputError(
                f"{label}: {where}, point {k}: {tuple_text!r} is not 'longitude,latitude[,altitude]'"
            )
        out.append([_number(p, label, f"{where}, point {k}") for p in parts[:2]])
    return out


def _descendants(element: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in element.iter() if _local(e.tag) == name]


def _kml_geometries(element: ET.Element, label: str, where: str) -> list[dict]:
    """GeoJSON geometries of one KML geometry element (MultiGeometry flattened)."""
    kind = _local(element.tag)
    if kind == "Polygon":
        outer = next(iter(_children(element, "outerBoundaryIs")), None)
        rings = [_kml_positions(outer, label, f"{where} outer boundary")]
        for k, inner in enumerate(_children(element, "innerBoundaryIs"), 1):
            rings.append(_kml_positions(inner, label, f"{where} inner boundary {k}"))
        return [{"type": "Polygon", "coordinates": rings}]
    if kind in ("LineString", "LinearRing"):
        return [{"type": "LineString", "coordinates": _kml_positions(element, label, where)}]
    if kind == "Point":
        return [{"type": "Point", "coordinates": _kml_positions(element, label, where)[0]}]
    if kind == "MultiGeometry":
        return [g for child in element for g in _kml_geometries(child, label, where)]
    return []  # gx:Track, Model…: not an area


def _kml(root: ET.Element, label: str, warn: Warn) -> dict:
    features = []
    placemarks = _descendants(root, "Placemark")
    for number, placemark in enumerate(placemarks, 1):
        name = next((c.text for c in _children(placemark, "name") if c.text), None)
        where = f"placemark {number}" + (f" ({name.strip()})" if name else "")
        for child in placemark:
            for geometry in _kml_geometries(child, label, where):
                features.append(_feature(geometry, name))
    if not placemarks:
        raise InputError(
            f"{label} holds no placemark, so no play area; draw the area as a polygon and "
            "export it again"
        )
    return _collection(features, label, "placemark", warn)


def _feature(geometry: dict, name: str | None) -> dict:
    return {
        "type": "Feature",
        "properties": {"name": name.strip()} if name else {},
        "geometry": geometry,
    }


def _collection(features: list[dict], label: str, what: str, warn: Warn) -> dict:
    if not features:
        raise InputError(
            f"{label} holds no {what} with a geometry, so no play area; draw the area as a "
            "polygon and export it again"
        )
    points = [f for f in features if f["geometry"]["type"] == "Point"]
    if points and len(points) < len(features):
        warn(
            f"{label}: ignored {len(points)} point{'s' * (len(points) > 1)} next to the outline "
            "(a play area is a polygon)"
        )
        features = [f for f in features if f["geometry"]["type"] != "Point"]
    return {"type": "FeatureCollection", "features": features}


# --------------------------------------------------------------------------- GPX


def _gpx_points(parent: ET.Element, tag: str, label: str, where: str) -> list[list[float]]:
    out = []
    for k, point in enumerate(_children(parent, tag), 1):
        lat, lon = point.get("lat"), point.get("lon")
        if lat is None or lon is None:
            raise InputError(f"{label}: {where}, point {k} has no lat/lon attributes")
        at = f"{where}, point {k}"
        out.append([_number(lon, label, at), _number(lat, label, at)])
    return out


def _gpx(root: ET.Element, label: str, warn: Warn) -> dict:
    features = []
    for number, track in enumerate(_children(root, "trk"), 1):
        name = next((c.text for c in _children(track, "name") if c.text), None)
        for k, segment in enumerate(_children(track, "trkseg"), 1):
            line = _gpx_points(segment, "trkpt", label, f"track {number} segment {k}")
            if line:
                features.append(_feature({"type": "LineString", "coordinates": line}, name))
    for number, route in enumerate(_children(root, "rte"), 1):
        name = next((c.text for c in _children(route, "name") if c.text), None)
        line = _gpx_points(route, "rtept", label, f"route {number}")
        if line:
            features.append(_feature({"type": "LineString", "coordinates": line}, name))
    for position in _gpx_points(root, "wpt", label, "waypoints"):
        features.append(_feature({"type": "Point", "coordinates": position}, None))
    return _collection(features, label, "track, route or waypoint", warn)


# --------------------------------------------------------------------------- GDAL


def _ogr(path: Path, label: str) -> dict:
    """Every layer's features, reprojected to WGS84, as a FeatureCollection."""
    import pyogrio
    import shapely

    target = f"/vsizip/{path}" if path.name.lower().endswith(".zip") else str(path)
    try:
        layers = [str(row[0]) for row in pyogrio.list_layers(target)]
        features = []
        for layer in layers:
            info = pyogrio.read_info(target, layer=layer)
            if info.get("geometry_type") in (None, "None"):
                continue  # an attribute table, no geometry
            _meta, _fids, geometries, _fields = pyogrio.raw.read(target, layer=layer)
            crs = info.get("crs")
            geoms = shapely.from_wkb([g for g in geometries if g is not None])
            if crs and not _is_wgs84(crs):
                geoms = _to_wgs84(geoms, crs, label)
            for geom in geoms:
                if geom is not None and not geom.is_empty:
                    features.append(_feature(json.loads(shapely.to_geojson(geom)), None))
    except InputError:
        raise
    except Exception as exc:  # GDAL's errors: a missing .shx, a damaged file…
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        text = text.split("; It might help")[0].replace(f"'{target}' ", "").replace(target, label)
        raise InputError(
            f"cannot read {label} as a GIS file: {text.rstrip('.')}; give {FORMATS}"
        ) from None
    if not features:
        raise InputError(
            f"{label} is empty: it holds no feature with a geometry; draw the play area as a polygon"
        )
    return {"type": "FeatureCollection", "features": features}


def _is_wgs84(crs: str) -> bool:
    from pyproj import CRS

    return CRS.from_user_input(crs).equals(CRS.from_epsg(4326), ignore_axis_order=True)


def _to_wgs84(geoms, crs: str, label: str):
    import shapely
    from pyproj import Transformer

    try:
        transformer = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    except Exception:  # an unknown CRS
        raise InputError(
            f"{label}: its coordinate system ({crs}) cannot be converted to WGS84; export it "
            "in EPSG:4326"
        ) from None
    return [shapely.transform(g, lambda xy: _xy(transformer, xy)) for g in geoms]


def _xy(transformer, xy):
    import numpy as np

    x, y = transformer.transform(xy[:, 0], xy[:, 1])
    return np.column_stack([x, y])
