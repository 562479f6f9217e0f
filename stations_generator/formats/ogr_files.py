"""GIS play areas read through GDAL (pyogrio) only in the formats meant, and only from memory.

GDAL opens whatever its drivers recognise, and some of them point elsewhere: a VRT
(``<OGRVRTDataSource>``) names other files or ``/vsicurl/`` URLs, GML resolves
xlinks and schemas and writes ``.gfs`` files next to the one read. So:

* a file's format is told by its first bytes, from an allow-list: an ESRI shapefile
  (file code 9994), a GeoPackage (an SQLite file with the ``GPKG`` application id) or
  a FlatGeobuf (``fgb`` magic). Anything else (a VRT, GML, MapInfo, SpatiaLite…) is
  refused with a message, whatever its name says;
* GDAL is given the bytes, not the path: pyogrio copies them into GDAL's in-memory
  file system (``/vsimem/``), so nothing GDAL does can open a file on disk; a
  shapefile's side files (``.shx``, ``.dbf``, ``.prj``, ``.cpg``) are the ones next to
  the ``.shp`` with its name, or in the zip it came in, repacked into an in-memory zip;
* the driver GDAL chose is checked against the one sniffed;
* GDAL's network access and directory listings are switched off
  (:data:`GDAL_CONFIG`), for defence in depth.
"""

from __future__ import annotations

import io
import json
import threading
import warnings
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from stations_generator.errors import InputError
from stations_generator.formats import zipread

#: Largest GIS file (all of a shapefile's parts together) read into memory.
MAX_GIS_BYTES = 64 * 1024**2
#: Most features read from one file (a play area is one polygon, or a few).
MAX_FEATURES = 10_000
SHAPEFILE, GEOPACKAGE, FLATGEOBUF = "ESRI Shapefile", "GPKG", "FlatGeobuf"
#: Side files of a shapefile read with it (extension -> needed).
SHAPEFILE_PARTS = {".shp": True, ".shx": True, ".dbf": False, ".prj": False, ".cpg": False}
#: GDAL settings: no network (``/vsicurl/`` allowed only for a file extension nothing has),
#: no directory listing, no GDAL SQL functions in GeoPackage views or triggers.
GDAL_CONFIG = {
    "CPL_VSIL_CURL_ALLOWED_EXTENSIONS": ".no-network-access",
    "GDAL_HTTP_MAX_RETRY": "0",
    "GDAL_HTTP_TIMEOUT": "1",
    "GDAL_DISABLE_READDIR_ON_OPEN": "EMPTY_DIR",
    "GDAL_VRT_ENABLE_PYTHON": "NO",
    "OGR_SQLITE_LOAD_EXTENSIONS": "",
    "ALLOW_OGR_SQL_FUNCTIONS_FROM_TRIGGER_AND_VIEW": "NO",
    "GML_SKIP_RESOLVE_ELEMS": "ALL",
    "GML_DOWNLOAD_WFS_SCHEMA": "NO",
}


_GDAL_LOCK = threading.Lock()


@contextmanager
def _gdal_settings(pyogrio: Any) -> Iterator[None]:
    """:data:`GDAL_CONFIG` while the block runs (one read at a time), then GDAL's own again."""
    with _GDAL_LOCK:
        old = {key: pyogrio.get_gdal_config_option(key) for key in GDAL_CONFIG}
        pyogrio.set_gdal_config_options(GDAL_CONFIG)
        try:
            yield
        finally:
            pyogrio.set_gdal_config_options(
                {key: None if value is None else str(value) for key, value in old.items()}
            )


def sniff(head: bytes) -> str | None:
    """The allowed GDAL driver the first 100 bytes of a file are, or None.

    Parameters
    ----------
    head : bytes
        At least the file's first 72 bytes.
    """
    if head[:4] == b"\x00\x00\x27\x0a":  # shapefile main file: file code 9994, big-endian
        return SHAPEFILE
    if head[:16] == b"SQLite format 3\x00" and head[68:72] in (b"GPKG", b"GP10", b"GP11"):
        return GEOPACKAGE  # application_id at offset 68 (GeoPackage 1.2+: GPKG)
    if head[:3] == b"fgb" and head[4:7] == b"fgb":
        return FLATGEOBUF
    return None


def what_it_is(head: bytes) -> str:
    """A short description of a file GDAL is not given, for messages."""
    text = head.lstrip()[:200]
    if text.startswith(b"<") and b"OGRVRTDataSource" in text:
        return "a GDAL VRT (a file pointing at other files), which is not read"
    if head[:16] == b"SQLite format 3\x00":
        return "an SQLite database but not a GeoPackage"
    if text.startswith(b"<"):
        return "XML but none of KML, GPX"
    return "none of the formats read"


def read_gis(path: Path, driver: str, label: str) -> list[tuple[dict, str | None]]:
    """GeoJSON geometries (WGS84) and their layer's name, from a sniffed GIS file.

    Parameters
    ----------
    path : Path
        The file (a ``.shp`` with its side files next to it, a ``.gpkg`` or ``.fgb``).
    driver : str
        What :func:`sniff` said it is.
    label : str
        How to name the file in messages.
    """
    if driver == SHAPEFILE:
        data = shapefile_zip(_sides(path, label), label)
    else:
        data = _read_disk(path, label)
    return read_bytes(data, driver, label)


def _read_disk(path: Path, label: str) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_GIS_BYTES:
            raise InputError(
                f"{label} is {size / 1024**2:.0f} MiB, more than the "
                f"{MAX_GIS_BYTES / 1024**2:.0f} MiB accepted for a play area"
            )
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {label}: {exc.strerror or exc}") from None


def _sides(shp: Path, label: str) -> dict[str, bytes]:
    """The shapefile's parts next to it, by extension (only files named like the .shp)."""
    parts: dict[str, bytes] = {}
    total = 0
    for ext, needed in SHAPEFILE_PARTS.items():
        candidates = [shp.with_suffix(ext), shp.with_suffix(ext.upper())]
        found = next((p for p in candidates if p.is_file()), None)
        if found is None:
            if needed:
                raise InputError(
                    f"{label} has no {ext} file next to it (a shapefile is several files); "
                    f"give the .shp with its {ext}, .dbf and .prj, or zip them together"
                )
            continue
        parts[ext] = _read_disk(found, repr(found.name))
        total += len(parts[ext])
        if total > MAX_GIS_BYTES:
            raise InputError(f"{label} and its side files are more than 64 MiB; simplify it")
    return parts


def shapefile_zip(parts: dict[str, bytes], label: str) -> bytes:
    """One shapefile's parts (by extension) as the bytes of an in-memory zip, checked."""
    check_shp(parts[".shp"], label)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as out:
        for ext, data in parts.items():
            out.writestr("area" + ext, data)
    return buffer.getvalue()


def check_shp(data: bytes, label: str) -> None:
    """Refuse a .shp that is not one or is cut short (its header states its length)."""
    if sniff(data[:100]) != SHAPEFILE or len(data) < 100:
        raise InputError(f"{label} is not an ESRI shapefile (.shp); export the play area again")
    declared = int.from_bytes(data[24:28], "big") * 2  # (file length in 16-bit words)
    if len(data) < declared:
        raise InputError(
            f"{label} is truncated: its header says {declared:,} bytes, the file has "
            f"{len(data):,}; copy or export the shapefile again"
        )


def zipped_shapefile(archive: zipfile.ZipFile, label: str) -> bytes:
    """The one shapefile in a zip (at its top or in a folder), as :func:`shapefile_zip` bytes."""
    shps = [i for i in archive.infolist() if i.filename.lower().endswith(".shp")]
    if len(shps) != 1:
        names = ", ".join(i.filename for i in shps[:5]) or "none"
        raise InputError(
            f"{label} must hold exactly one shapefile (.shp); it holds {len(shps)} ({names}); "
            "zip only the play area's .shp, .shx, .dbf and .prj"
        )
    stem = shps[0].filename[: -len(".shp")]
    by_name = {i.filename.lower(): i for i in archive.infolist()}
    parts: dict[str, bytes] = {}
    budget = MAX_GIS_BYTES
    for ext, needed in SHAPEFILE_PARTS.items():
        info = by_name.get((stem + ext).lower())
        if info is None:
            if needed:
                raise InputError(
                    f"{label} holds {shps[0].filename} but no {stem}{ext} next to it in the zip;"
                    f" zip the .shp with its .shx, .dbf and .prj"
                )
            continue
        parts[ext] = zipread.read_member(archive, info, budget, label)
        budget -= len(parts[ext])
    return shapefile_zip(parts, label)


def read_bytes(data: bytes, driver: str, label: str) -> list[tuple[dict, str | None]]:
    """GeoJSON geometries (WGS84) with their layer's name, from the bytes of a sniffed file."""
    import pyogrio

    try:
        with (
            _gdal_settings(pyogrio),
            warnings.catch_warnings(),
        ):  # ("GPKG application_id, but non conformant extension")
            warnings.simplefilter("ignore", RuntimeWarning)
            names = [str(row[0]) for row in pyogrio.list_layers(data)]
            info = pyogrio.read_info(data, layer=names[0]) if names else {}
            if info.get("driver") != driver:
                raise InputError(f"{label} is not a {driver} file GDAL reads; export it again")
            layers = _geometry_layers(pyogrio, data, names, label)
            out = []
            for layer, crs in layers:
                _meta, _fids, geometries, _fields = pyogrio.raw.read(
                    data, layer=layer, read_geometry=True, max_features=MAX_FEATURES + 1
                )
                geoms = [g for g in geometries if g is not None]
                out.extend((g, layer) for g in _as_geojson(geoms, crs, label))
    except InputError:
        raise
    except Exception as exc:  # GDAL's errors: a damaged file…
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        text = text.split("; It might help")[0].split("/vsimem/")[0].rstrip(" :'")
        raise InputError(
            f"cannot read {label} ({driver}): {text}; export the play area again"
        ) from None
    return out


def _geometry_layers(
    pyogrio: Any, data: bytes, names: list[str], label: str
) -> list[tuple[str, str | None]]:
    """The layers holding geometry, with their CRS; more than one is refused by name."""
    layers = []
    for name in names:
        info = pyogrio.read_info(data, layer=name)
        if info.get("geometry_type") in (None, "None"):
            continue  # an attribute table, no geometry
        if int(info.get("features") or 0) > MAX_FEATURES:
            raise InputError(
                f"{label}: layer {name!r} holds {info['features']:,} features, more than the "
                f"{MAX_FEATURES:,} a play area file may hold; keep only the play area"
            )
        layers.append((str(name), info.get("crs")))
    if len(layers) > 1:
        names = ", ".join(repr(n) for n, _ in layers)
        raise InputError(
            f"{label} holds {len(layers)} layers with geometry ({names}); keep only the play "
            "area's layer in the file (e.g. ogr2ogr area.gpkg input.gpkg LAYER), or give it as "
            "GeoJSON"
        )
    return layers


def _as_geojson(wkbs: list, crs: str | None, label: str) -> list[dict]:
    import shapely

    geoms = list(shapely.from_wkb(wkbs))
    if crs:
        geoms = to_wgs84(geoms, crs, label)
    return [json.loads(shapely.to_geojson(g)) for g in geoms if g is not None and not g.is_empty]


def to_wgs84(geoms: list, crs: str, label: str) -> list:
    """The geometries moved from ``crs`` to WGS84 lon/lat; a CRS that cannot be right is refused."""
    import numpy as np
    import shapely
    from pyproj import CRS, Transformer

    try:
        source = CRS.from_user_input(crs)
        if source.equals(CRS.from_epsg(4326), ignore_axis_order=True):
            return geoms
        transformer = Transformer.from_crs(source, "EPSG:4326", always_xy=True)
    except Exception:  # an unknown CRS
        raise InputError(
            f"{label}: its coordinate system ({crs}) cannot be converted to WGS84; export it "
            "in EPSG:4326"
        ) from None
    coords = shapely.get_coordinates(geoms)
    if source.is_projected and len(coords) and (np.abs(coords) <= [180, 90]).all():
        raise InputError(
            f"{label}: its coordinate system is {source.name} (metres), but its coordinates "
            "look like longitude/latitude degrees: the .prj does not match the data; delete "
            "the .prj or export the file again in EPSG:4326"
        )

    def move(xy):
        x, y = transformer.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    moved = [shapely.transform(g, move) for g in geoms]
    if not np.isfinite(shapely.get_coordinates(moved)).all():
        raise InputError(
            f"{label}: its coordinates cannot be converted from {source.name} to longitude/"
            "latitude (the .prj does not match the data); export the file again in EPSG:4326"
        )
    return moved
