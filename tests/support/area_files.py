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
    "lonely.shp": (b"\x00\x00\x27\x0a" + b"\x00" * 96, "cannot read 'lonely.shp' as a GIS file"),
}
