"""Play areas written in the formats map apps export (KML, KMZ, GPX, shapefile, GeoPackage),
and bad area files with the one-line error each must give."""

from __future__ import annotations

import zipfile
from pathlib import Path

import geopandas as gpd

from stations_generator.formats.playarea import load_polygons


def kml_text(geometry, name: str = "area", pins: int = 0) -> str:
    """A KML document as Google My Maps exports it: one Polygon placemark (+ pins)."""

    def ring(coords) -> str:
        text = " ".join(f"{x:.7f},{y:.7f},0" for x, y in coords)
        return f"<LinearRing><coordinates>{text}</coordinates></LinearRing>"

    polygons = []
    for poly in getattr(geometry, "geoms", [geometry]):
        inner = "".join(
            f"<innerBoundaryIs>{ring(i.coords)}</innerBoundaryIs>" for i in poly.interiors
        )
        polygons.append(
            f"<Polygon><outerBoundaryIs>{ring(poly.exterior.coords)}</outerBoundaryIs>{inner}</Polygon>"
        )
    shape = (
        polygons[0] if len(polygons) == 1 else f"<MultiGeometry>{''.join(polygons)}</MultiGeometry>"
    )
    c = geometry.representative_point()
    pin = f"<Placemark><name>pin</name><Point><coordinates>{c.x},{c.y},0</coordinates></Point></Placemark>"
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2">'
        f"<Document><name>{name}</name><Placemark><name>{name}</name>{shape}</Placemark>"
        f"{pin * pins}</Document></kml>\n"
    )


def gpx_text(geometry) -> str:
    """A GPX track along the outline (a closed track, as a GPS app records a loop)."""
    poly = max(getattr(geometry, "geoms", [geometry]), key=lambda p: p.area)
    points = "".join(f'<trkpt lat="{y:.7f}" lon="{x:.7f}"/>' for x, y in poly.exterior.coords)
    return (
        '<?xml version="1.0"?>\n<gpx version="1.1" creator="test" '
        'xmlns="http://www.topografix.com/GPX/1/1">'
        f"<trk><name>loop</name><trkseg>{points}</trkseg></trk></gpx>\n"
    )


def write_format(geojson: Path, folder: Path, fmt: str) -> Path:
    area = load_polygons(geojson)
    stem = folder / geojson.stem
    if fmt == "kml":
        path = stem.with_suffix(".kml")
        path.write_text(kml_text(area, geojson.stem), "utf-8")
    elif fmt == "kmz":
        path = stem.with_suffix(".kmz")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("doc.kml", kml_text(area, geojson.stem, pins=2))
    elif fmt == "gpx":
        path = stem.with_suffix(".gpx")
        path.write_text(gpx_text(area), "utf-8")
    elif fmt == "shp":
        path = stem.with_suffix(".shp")
        gpd.GeoDataFrame({"name": [geojson.stem]}, geometry=[area], crs=4326).to_file(path)
    elif fmt == "gpkg":  # in a projected CRS: read back in WGS84
        path = stem.with_suffix(".gpkg")
        frame = gpd.GeoDataFrame({"name": [geojson.stem]}, geometry=[area], crs=4326)
        frame.to_crs(3857).to_file(path, driver="GPKG")
    else:
        raise AssertionError(fmt)
    return path


BAD = {
    "empty.kml": (b"", "'empty.kml' is empty"),
    "blank.gpx": (b"  \n", "'blank.gpx' is empty"),
    "empty.geojson": (b"", "'empty.geojson' is empty"),
    "nothing.kml": (
        b'<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>x</name></Document></kml>',
        "'nothing.kml' holds no placemark",
    ),
    "pins.kml": (
        b"<kml><Document><Placemark><Point><coordinates>9.52,47.14</coordinates></Point>"
        b"</Placemark></Document></kml>",
        "holds a Point, not a polygon",
    ),
    "broken.kml": (b"<kml><Document><Placemark>", "'broken.kml' is not valid XML (line 1"),
    "bomb.kml": (
        b'<?xml version="1.0"?><!DOCTYPE k [<!ENTITY a "aaaa">]><kml>&a;</kml>',
        "declares XML entities",
    ),
    "nan.kml": (
        b"<kml><Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>9.5,47.1 nan,47.2"
        b" 9.6,47.2 9.5,47.1</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>",
        "'nan' is not a finite number",
    ),
    "svg.kml": (b"<svg></svg>", "holds no placemark"),
    "page.xml": (b"<html><body/></html>", "neither KML nor GPX"),
    "waypoints.gpx": (
        b'<gpx><wpt lat="47.1" lon="9.5"/></gpx>',
        "holds a Point, not a polygon",
    ),
    "image.png": (b"\x89PNG\r\n\x1a\n\x00\x00", "'image.png'"),
    "notes.txt": (b"my play area is Vaduz", "'notes.txt' is not a play-area file (invalid JSON"),
    "broken.kmz": (b"PK\x03\x04 not really a zip", "'broken.kmz' is not a readable KMZ"),
    "broken.zip": (b"PK\x03\x04 not really a zip", "'broken.zip' is not a readable zip file"),
    "lonely.shp": (b"\x00\x00\x27\x0a" + b"\x00" * 96, "'lonely.shp' has no .shx file next to it"),
}


# --------------------------------------------------------------------------- hostile files


def vrt_text(source: str, layer: str | None = None) -> str:
    """A GDAL VRT layer reading ``source`` (a path or a ``/vsicurl/`` URL), its layer ``layer``."""
    src_layer = f"<SrcLayer>{layer}</SrcLayer>" if layer else ""
    return (
        '<OGRVRTDataSource><OGRVRTLayer name="area">'
        f"<SrcDataSource>{source}</SrcDataSource>{src_layer}</OGRVRTLayer></OGRVRTDataSource>\n"
    )


def zip_bytes(entries: dict[str, bytes]) -> bytes:
    """A zip (deflate) of the entries."""
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buffer.getvalue()


def patch_headers(
    raw: bytes, *, flags: int | None = None, method: int | None = None, size: int | None = None
) -> bytes:
    """The zip with every local and central header's flag bits, method or stated
    uncompressed size replaced (what a hostile tool writes; zipfile cannot)."""
    out = bytearray(raw)
    # (offsets in the local header "PK\\3\\4" and the central one "PK\\1\\2", PKWARE APPNOTE 4.3.7/4.3.12)
    for magic, flag_at, method_at, size_at in (
        (b"PK\x03\x04", 6, 8, 22),
        (b"PK\x01\x02", 8, 10, 24),
    ):
        at = out.find(magic)
        while at >= 0:
            if flags is not None:
                out[at + flag_at : at + flag_at + 2] = flags.to_bytes(2, "little")
            if method is not None:
                out[at + method_at : at + method_at + 2] = method.to_bytes(2, "little")
            if size is not None:
                out[at + size_at : at + size_at + 4] = size.to_bytes(4, "little")
            at = out.find(magic, at + 4)
    return bytes(out)


def streamed_zip(path: Path, name: str, head: bytes, body: bytes, times: int, tail: bytes) -> Path:
    """A zip whose one entry is ``head + body * times + tail``, written in pieces (a bomb:
    ``times`` large, the zip small)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open(name, "w") as entry:
            entry.write(head)
            block = body * max(1, min(times, 65536))
            done = 0
            while done < times:
                n = min(times - done, max(1, min(times, 65536)))
                entry.write(block if n * len(body) == len(block) else body * n)
                done += n
            entry.write(tail)
    return path
