"""Play areas and exclusions in KML/KMZ, GPX, shapefile and GeoPackage (issue 13).

The bundled zones/*.geojson areas are converted in the test: KML, KMZ and GPX by our own
writer below, shapefile and GeoPackage by geopandas (pyogrio). Every command reads
them with the same reader, so the station maps are byte-identical to the GeoJSON run.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner
from support.paths import REPO

from stations_generator.cli import main
from stations_generator.formats.playarea import load_polygons

LIECHTENSTEIN = REPO / "zones" / "liechtenstein.geojson"
EXTRACT = REPO / "tests" / "data" / "osm-extracts" / "liechtenstein-2013-08.osm.pbf"
ZONES = sorted((REPO / "zones").glob("*.geojson"))


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


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("fmt", ["kml", "kmz", "gpx", "shp", "gpkg"])
@pytest.mark.parametrize("zone", ZONES, ids=lambda p: p.stem)
def test_every_bundled_zone_reads_the_same_in_every_format(tmp_path, zone, fmt):
    original = load_polygons(zone)
    warnings: list[str] = []
    area = load_polygons(write_format(zone, tmp_path, fmt), warnings.append)
    # 7 decimals in KML/GPX (1 cm); GeoPackage went through EPSG:3857 and back.
    assert area.symmetric_difference(original).area < 1e-6 * original.area
    expected = {"kmz": "ignored 2 points", "gpx": "closed LineString"}.get(fmt)
    assert [w for w in warnings if expected is None or expected not in w] == []
    assert len(warnings) == (expected is not None)


@pytest.mark.parametrize("fmt", ["kml", "kmz", "gpx", "shp", "gpkg"])
def test_generate_from_each_format_matches_geojson(tmp_path, fmt):
    reference = tmp_path / "ref"
    assert (
        run(
            "-q", "generate", str(LIECHTENSTEIN), "--osm", str(EXTRACT), "-o", str(reference)
        ).exit_code
        == 0
    )
    area = write_format(LIECHTENSTEIN, tmp_path, fmt)
    out = tmp_path / fmt
    result = run("generate", str(area), "--osm", str(EXTRACT), "-o", str(out))
    assert result.exit_code == 0, result.output
    if fmt in ("shp", "gpkg", "kml"):  # no warning for a clean file
        assert "warning" not in result.stderr
    for name in ("stations.geojson", "stations.csv"):
        if fmt == "gpkg":  # 3857 round trip moves vertices by ~1e-9°: same stations
            assert (out / "stations.csv").read_text() == (reference / "stations.csv").read_text()
        else:
            assert (out / name).read_bytes() == (reference / name).read_bytes(), name


def test_exclusion_in_kml_and_play_area_in_shapefile(tmp_path):
    area = load_polygons(LIECHTENSTEIN)
    vaduz = area.centroid.buffer(0.03).intersection(area)
    exclusion = tmp_path / "vaduz.kml"
    exclusion.write_text(kml_text(vaduz, "Vaduz"), "utf-8")
    shp = write_format(LIECHTENSTEIN, tmp_path, "shp")
    plain = run("generate", str(shp), "--osm", str(EXTRACT), "-o", str(tmp_path / "a"))
    cut = run("generate", str(shp), "--osm", str(EXTRACT), "--exclude", str(exclusion),
              "--explain", "-o", str(tmp_path / "b"))  # fmt: skip
    assert plain.exit_code == cut.exit_code == 0, cut.output
    assert '"excluded"' in (tmp_path / "b" / "candidates.geojson").read_text()
    assert "net area 159.0 km²" in plain.stderr and "net area 159.0 km²" not in cut.stderr


def test_zipped_shapefile_and_kmz_named_zip(tmp_path):
    shp = write_format(LIECHTENSTEIN, tmp_path, "shp")
    zipped = tmp_path / "shapefile.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        for part in sorted(tmp_path.glob("liechtenstein.*")):
            z.write(part, part.name)
    kmz_as_zip = tmp_path / "my-maps.zip"
    write_format(LIECHTENSTEIN, tmp_path, "kmz").rename(kmz_as_zip)
    original = load_polygons(LIECHTENSTEIN)
    for path in (zipped, kmz_as_zip, shp):
        area = load_polygons(path)
        assert area.symmetric_difference(original).area < 1e-6 * original.area, path.name


def test_questions_play_area_in_kml(tmp_path):
    game = REPO / "examples" / "helsinki-game" / "game.json"
    kml = write_format(REPO / "zones" / "helsinki-centre.geojson", tmp_path, "kml")
    a = run("-q", "questions", "apply", str(game), "-o", str(tmp_path / "a"))
    b = run(
        "-q", "questions", "apply", str(game), "--play-area", str(kml), "-o", str(tmp_path / "b")
    )
    assert a.exit_code == b.exit_code == 0, b.output
    assert (tmp_path / "a" / "zones.geojson").read_bytes() == (
        tmp_path / "b" / "zones.geojson"
    ).read_bytes()


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


@pytest.mark.parametrize("name", sorted(BAD))
@pytest.mark.parametrize("option", ["PLAY_AREA", "--exclude"])
def test_bad_area_files_are_one_line_errors(tmp_path, name, option):
    raw, message = BAD[name]
    path = tmp_path / name
    path.write_bytes(raw)
    args = [str(LIECHTENSTEIN), "--exclude", str(path)] if option == "--exclude" else [str(path)]
    result = run("generate", *args, "--osm", str(EXTRACT), "-o", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert message in lines[0]
    assert "Traceback" not in result.output
    assert not (tmp_path / "out" / "stations.geojson").exists()
