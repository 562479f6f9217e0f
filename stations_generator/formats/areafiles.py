"""Play-area files in every format a map app exports, read as GeoJSON.

One reader per format, each returning parsed GeoJSON (a FeatureCollection) that
:func:`stations_generator.formats.playarea.parse_polygons` then checks and repairs the same way
whatever the format (areas across ±180° included):

* GeoJSON (``.geojson``, ``.json``) — the JSON reader of :mod:`stations_generator.formats.jsonio`;
* KML (``.kml``; Google My Maps, Google Earth) and KMZ (``.kmz``, a zip holding a KML):
  Polygon, LineString, LinearRing and Point placemarks, MultiGeometry of them;
* GPX (``.gpx``): tracks and routes as lines (a closed track is the polygon it encloses),
  waypoints as points;
* through GDAL (:mod:`.ogr_files`): ESRI shapefiles (``.shp`` with its side files, or
  zipped), GeoPackages (``.gpkg``) and FlatGeobuf (``.fgb``), reprojected to WGS84.

A file's format is told by its first bytes, whatever its name says: a shapefile,
GeoPackage or FlatGeobuf by its magic number, ``PK`` a zip, ``<`` XML (KML or GPX by
its root element), else JSON. Nothing else reaches GDAL: a VRT, GML, MapInfo
(``.tab``, ``.mif``) or SpatiaLite file is refused with a message, since GDAL's readers
of them open other files and URLs the file names. XML and zips are read within bounds
(:mod:`.xmlread`, :mod:`.zipread`). Points in a KML or GPX holding a polygon or line
too (pins next to the outline) are ignored with a warning; without one they are
refused as in GeoJSON.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from stations_generator.errors import InputError
from stations_generator.formats import jsonio, ogr_files, zipread
from stations_generator.formats.xmlread import MAX_XML_BYTES, parse_xml

Warn = Callable[[str], None]

#: Largest play-area file read (and largest KML unpacked from a KMZ).
MAX_AREA_FILE_BYTES = 256 * 1024**2
#: Most points in a KML or GeoJSON play area (an outline of 500,000 points is about 15 MB of KML).
MAX_POSITIONS = 500_000
#: Largest GeoJSON play area (as :data:`.xmlread.MAX_XML_BYTES`) and most arrays and objects
#: in it: a position is one array; the rest leaves room for features and their rings.
MAX_JSON_BYTES = MAX_XML_BYTES
MAX_JSON_NODES = MAX_POSITIONS + 100_000
JSON_SUFFIXES = (".geojson", ".json")
KML_SUFFIXES = (".kml",)
KMZ_SUFFIXES = (".kmz",)
GPX_SUFFIXES = (".gpx",)
#: Formats GDAL reads that are not read here (they can point at other files or URLs).
REFUSED_SUFFIXES = (".gml", ".sqlite", ".tab", ".mif", ".vrt")
FORMATS = "GeoJSON, KML/KMZ, GPX, a shapefile (.shp) or a GeoPackage (.gpkg)"
_HEAD_BYTES = 4096
_TUPLE = re.compile(r"\S+")


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
        Missing, a folder, empty, too large, not a readable file of its format, or a
        format that is not read (see the module docstring).
    """
    path = Path(path)
    name = path.name.lower()
    if name.endswith(JSON_SUFFIXES):
        return _json(path, label, "GeoJSON", "give a GeoJSON file (.geojson) saved as UTF-8")
    head, size = _head(path, label)
    driver = ogr_files.sniff(head)
    if driver is not None:
        return _gis(ogr_files.read_gis(path, driver, label), label)
    if head[:2] == b"PK" or name.endswith(KMZ_SUFFIXES + (".zip",)):
        return _zip(path, label, warn)
    xml = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"<"
    if name.endswith(KML_SUFFIXES + GPX_SUFFIXES) or xml:
        root = parse_xml(_chunks(path, label, size), label)
        return _xml(root, label, warn, name.endswith(KML_SUFFIXES))
    if name.endswith(REFUSED_SUFFIXES + (".shp", ".gpkg", ".fgb")):
        raise InputError(
            f"{label} is {ogr_files.what_it_is(head)}: not a shapefile, GeoPackage or "
            f"FlatGeobuf; give {FORMATS}"
        )
    return _json(path, label)


def _head(path: Path, label: str) -> tuple[bytes, int]:
    """The file's first bytes and size; a missing, folder, empty or huge file is refused."""
    if not path.exists():
        raise InputError(f"{label} does not exist; check the path")
    if path.is_dir():
        raise InputError(f"{label} is a folder, not a play-area file ({FORMATS})")
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(_HEAD_BYTES)
    except OSError as exc:
        raise InputError(f"cannot read {label}: {exc.strerror or exc}") from None
    if size > MAX_AREA_FILE_BYTES:
        raise InputError(
            f"{label} is {size / 1024**2:.0f} MiB, more than the "
            f"{MAX_AREA_FILE_BYTES / 1024**2:.0f} MiB accepted for a play area"
        )
    if not head.strip() and size <= _HEAD_BYTES:
        raise InputError(f"{label} is empty; export the play area again ({FORMATS})")
    return head, size


def _chunks(path: Path, label: str, size: int) -> Iterator[bytes]:
    if size > MAX_XML_BYTES:
        raise InputError(
            f"{label} is {size / 1024**2:.0f} MiB of XML, more than the "
            f"{MAX_XML_BYTES / 1024**2:.0f} MiB a play area needs; simplify the outline"
        )
    try:
        with path.open("rb") as f:
            while chunk := f.read(zipread.CHUNK_BYTES):
                yield chunk
    except OSError as exc:
        raise InputError(f"cannot read {label}: {exc.strerror or exc}") from None


def _zip(path: Path, label: str, warn: Warn) -> dict:
    """A KMZ (a zip holding a KML) or a zipped shapefile."""
    kmz = path.name.lower().endswith(KMZ_SUFFIXES)
    with zipread.open_zip(path, label, "KMZ (zip)" if kmz else "zip") as archive:
        names = [n.lower() for n in archive.namelist()]
        if any(n.endswith(".shp") for n in names) and not kmz:
            data = ogr_files.zipped_shapefile(archive, label)
            return _gis(ogr_files.read_bytes(data, ogr_files.SHAPEFILE, label), label)
        kmls = [i for i in archive.infolist() if i.filename.lower().endswith(".kml")]
        if not kmls:
            raise InputError(
                f"{label} is a zip holding no .kml file and no shapefile; export it as KMZ or "
                "KML, or zip the shapefile's .shp, .shx, .dbf and .prj"
            )
        entry = next((i for i in kmls if i.filename == "doc.kml"), kmls[0])
        where = f"{label} ({entry.filename})"
        root = parse_xml(zipread.iter_member(archive, entry, MAX_XML_BYTES, label), where)
    return _kml(root, where, warn)


def _xml(root: ET.Element, label: str, warn: Warn, kml_name: bool) -> dict:
    kind = _local(root.tag)
    if kind == "gpx":
        return _gpx(root, label, warn)
    if kind == "kml" or kml_name:
        return _kml(root, label, warn)
    what = (
        "a GDAL VRT (a file pointing at other files)"
        if kind == "OGRVRTDataSource"
        else ("GML" if kind == "FeatureCollection" else f"XML with a <{kind}> root")
    )
    raise InputError(f"{label} is {what}, neither KML nor GPX, and is not read; give {FORMATS}")


def _gis(found: list[tuple[dict, str | None]], label: str) -> dict:
    if not found:
        raise InputError(
            f"{label} is empty: it holds no feature with a geometry; draw the play area as a polygon"
        )
    return {"type": "FeatureCollection", "features": [_feature(g, None) for g, _ in found]}


def _json(
    path: Path,
    label: str,
    what: str = "a play-area file",
    fix: str = f"give {FORMATS}, saved as UTF-8",
) -> Any:
    if path.is_file() and path.stat().st_size <= MAX_JSON_BYTES:
        _check_json_nodes(path, label)
    return jsonio.read_json_file(path, what, label=label, limit=MAX_JSON_BYTES, fix=fix)


def _check_json_nodes(path: Path, label: str) -> None:
    """Refuse JSON of more arrays and objects than a play area has, before parsing it.

    Each ``[`` or ``{`` costs a Python list or dict once parsed (a position ~200 bytes
    all told); counting them in the bytes bounds the memory the parse can take.
    """
    nodes = 0
    try:
        with path.open("rb") as f:
            while chunk := f.read(zipread.CHUNK_BYTES):
                nodes += chunk.count(b"[") + chunk.count(b"{")
                if nodes > MAX_JSON_NODES:
                    raise InputError(
                        f"{label} holds more than {MAX_POSITIONS:,} points, more than a play "
                        "area needs; simplify the outline and export it again"
                    )
    except OSError as exc:
        raise InputError(f"cannot read {label}: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- XML


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


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


def _kml_positions(element: ET.Element | None, label: str, where: str) -> list[list[float]]:
    coords = None if element is None else next(iter(_descendants(element, "coordinates")), None)
    if coords is None or not (coords.text or "").strip():
        raise InputError(f"{label}: {where} has no coordinates; draw it again")
    out = []
    for k, match in enumerate(_TUPLE.finditer(coords.text), 1):
        tuple_text = match.group()
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
    _check_positions(root, label)
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


def _check_positions(root: ET.Element, label: str) -> None:
    """Refuse a KML of more than :data:`MAX_POSITIONS` points before reading any."""
    total = 0
    for coords in _descendants(root, "coordinates"):
        total += sum(1 for _ in _TUPLE.finditer(coords.text or ""))
        if total > MAX_POSITIONS:
            raise InputError(
                f"{label} holds more than {MAX_POSITIONS:,} points, more than a play area "
                "needs; simplify the outline and export it again"
            )


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
