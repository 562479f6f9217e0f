"""Play areas and exclusions in KML/KMZ, GPX, shapefile and GeoPackage (issue 13).

The bundled zones/*.geojson areas are converted in the test: KML, KMZ and GPX by our own
writer below, shapefile and GeoPackage by geopandas (pyogrio). Every command reads
them with the same reader, so the station maps are byte-identical to the GeoJSON run.
"""

from __future__ import annotations

import zipfile

import pytest
from click.testing import CliRunner
from support.area_files import BAD, kml_text, write_format
from support.paths import REPO

from stations_generator.cli import main
from stations_generator.formats.playarea import load_polygons

LIECHTENSTEIN = REPO / "zones" / "liechtenstein.geojson"
EXTRACT = REPO / "tests" / "data" / "osm-extracts" / "liechtenstein-2013-08.osm.pbf"
ZONES = sorted((REPO / "zones").glob("*.geojson"))


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
