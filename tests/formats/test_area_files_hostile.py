"""Hostile play-area files: what an upload or a command-line file must never make the reader do.

* Security: a GDAL VRT dressed as a GeoPackage, GML, shapefile… must not make GDAL open a
  file elsewhere or fetch a ``/vsicurl/`` URL; reading any upload opens nothing outside it.
* Memory: zip and XML bombs stop with a one-line error before the memory is spent
  (peak measured in a subprocess).
* Tracebacks: encrypted or AES zip entries, NUL or 300-byte names, 3,000-deep XML.
* Wrong results: areas across ±180° in every format, polar caps, a second GeoPackage
  layer, a wrong ``.prj``, a truncated ``.shp``, a shapefile in a zip's folder.

Every area is a real one (zones/*.geojson), written in each format in the test.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import geopandas as gpd
import pytest
import shapely
from support.area_files import (
    gpx_text,
    kml_text,
    patch_headers,
    streamed_zip,
    vrt_text,
    write_format,
    zip_bytes,
)
from support.paths import REPO

from stations_generator.core.geo.antimeridian import join_antimeridian
from stations_generator.errors import InputError
from stations_generator.formats.playarea import load_polygons

LIECHTENSTEIN = REPO / "zones" / "liechtenstein.geojson"
HELSINKI = REPO / "zones" / "helsinki-centre.geojson"
#: A file elsewhere in the repository, which a VRT upload names.
OUTSIDE = REPO / "zones" / "sioux-falls.geojson"
#: Bound on what reading one bomb may add to the process's peak memory (ru_maxrss).
MAX_BOMB_GROWTH_MB = 150


def refused(path: Path, *fragments: str) -> str:
    """The reader's one-line InputError for ``path``, checked to hold every fragment."""
    with pytest.raises(InputError) as info:
        load_polygons(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(repr(path.name)), message
    for fragment in fragments:
        assert fragment in message, message
    return message


def real_area():
    return load_polygons(LIECHTENSTEIN)


# --------------------------------------------------------------------------- security

VRT_NAMES = ["area.gml", "area.gpkg", "area.shp", "area.fgb", "area.sqlite", "area.vrt", "area"]


@pytest.mark.parametrize("name", VRT_NAMES)
def test_a_vrt_under_any_name_is_refused(tmp_path, name):
    upload = tmp_path / name
    upload.write_text(vrt_text(str(OUTSIDE), OUTSIDE.stem), "utf-8")
    refused(upload, "GDAL VRT", "not read")


def test_gdal_alone_would_follow_the_vrt(tmp_path):
    """The attack is real: GDAL itself opens the file the VRT names (the control)."""
    import pyogrio

    upload = tmp_path / "area.gpkg"
    upload.write_text(vrt_text(str(OUTSIDE), OUTSIDE.stem), "utf-8")
    assert pyogrio.read_info(upload)["features"] == 1


def _watch_fifo(fifo: Path, stop: threading.Event, opened: list) -> None:
    # A writer can open a FIFO without blocking only while a reader has it open: this
    # sees GDAL's C-level open(), which Python's audit hooks do not.
    while not stop.is_set():
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.001)
            continue
        opened.append(time.monotonic())
        os.close(fd)  # (the reader then sees end of file and returns)


_READ_ONE = """
import sys
from pathlib import Path
if sys.argv[2] == "gdal":
    import pyogrio
    read = lambda path: pyogrio.read_info(path)
else:
    from stations_generator.formats.playarea import load_polygons as read
try:
    read(Path(sys.argv[1]))
except Exception:
    pass
"""


def _fifo_opened_while(fifo: Path, upload: Path, reader: str) -> list:
    """Whether reading ``upload`` (in a subprocess, so a blocked open cannot hang the
    test: the watcher opening the FIFO's other end releases it) opens ``fifo``."""
    stop, opened = threading.Event(), []
    watcher = threading.Thread(target=_watch_fifo, args=(fifo, stop, opened), daemon=True)
    watcher.start()
    try:
        subprocess.run(
            [sys.executable, "-c", _READ_ONE, str(upload), reader], timeout=60, check=True
        )
    finally:
        stop.set()
        watcher.join(5)
    return opened


@pytest.mark.parametrize("name", ["area.gml", "area.gpkg", "area.shp"])
def test_a_vrt_never_makes_gdal_open_the_file_it_names(tmp_path, name):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    fifo = outside / "secret.geojson"
    os.mkfifo(fifo)
    upload_dir = tmp_path / "upload"
    upload_dir.mkdir()
    upload = upload_dir / name
    upload.write_text(vrt_text(str(fifo)), "utf-8")
    assert _fifo_opened_while(fifo, upload, "ours") == []
    # The control: GDAL given the same file opens the FIFO, and the watcher sees it.
    assert _fifo_opened_while(fifo, upload, "gdal") != []


class _Counting(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self):  # noqa: N802 (the http.server name)
        type(self).requests.append(self.path)
        self.send_response(404)
        self.end_headers()

    do_HEAD = do_GET  # noqa: N815

    def log_message(self, *_args):
        pass


@pytest.fixture
def loopback_server():
    _Counting.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, _Counting.requests
    server.shutdown()
    server.server_close()


_GDAL_READ = """
import sys, pyogrio
if sys.argv[2] == "safe":
    from stations_generator.formats.ogr_files import GDAL_CONFIG
    pyogrio.set_gdal_config_options(GDAL_CONFIG)
try:
    pyogrio.read_info(sys.argv[1])
except Exception:
    pass
"""


def test_a_vsicurl_vrt_sends_no_request(tmp_path, loopback_server):
    server, requests = loopback_server
    url = f"/vsicurl/http://127.0.0.1:{server.server_address[1]}/area.geojson"
    upload = tmp_path / "area.gpkg"
    upload.write_text(vrt_text(url), "utf-8")
    refused(upload, "GDAL VRT")
    assert requests == []

    def gdal(mode: str) -> None:  # a fresh process: GDAL's settings as it starts
        subprocess.run(
            [sys.executable, "-c", _GDAL_READ, str(upload), mode], timeout=60, check=True
        )

    gdal("safe")  # defence in depth: GDAL with our settings does not fetch either
    assert requests == []
    gdal("plain")  # the control: plain GDAL fetches the URL, and the server sees it
    assert requests != []


_AUDIT = """
import json, sys
from pathlib import Path
from stations_generator.formats.playarea import load_polygons
uploads = [Path(p) for p in json.loads(sys.argv[1])]

def read_all():
    out = {}
    for path in uploads:
        try:
            load_polygons(path)
            out[str(path)] = "ok"
        except Exception as exc:
            out[str(path)] = f"{type(exc).__name__}: {exc}"
    return out

first = read_all()  # (imports and lazy loads happen here, before the hook)
events = []

def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, Path)):
        events.append(["open", str(args[0])])
    elif event.startswith("socket.") or event in ("urllib.Request", "subprocess.Popen", "os.system"):
        events.append([event, repr(args)[:200]])

sys.addaudithook(hook)
second = read_all()
print(json.dumps({"first": first, "second": second, "events": events}))
"""


def _uploads(root: Path, loopback_port: int) -> list[Path]:
    """One folder per upload: every format the reader takes, and the attacks."""
    area = real_area()
    made = []
    for fmt in ("kml", "kmz", "gpx", "shp", "gpkg"):
        folder = root / fmt
        folder.mkdir()
        made.append(write_format(LIECHTENSTEIN, folder, fmt))
    folder = root / "fgb"
    folder.mkdir()
    made.append(folder / "area.fgb")
    gpd.GeoDataFrame(geometry=[area], crs=4326).to_file(made[-1], driver="FlatGeobuf")
    folder = root / "zip"
    folder.mkdir()
    shp = made[3]
    sides = {p.name: p.read_bytes() for p in shp.parent.iterdir()}
    made.append(folder / "area.zip")
    made[-1].write_bytes(zip_bytes(sides))
    folder = root / "geojson"
    folder.mkdir()
    made.append(folder / "area.geojson")
    made[-1].write_bytes(LIECHTENSTEIN.read_bytes())
    attacks = {
        "vrt-file.gpkg": vrt_text(str(OUTSIDE), OUTSIDE.stem),
        "vrt-file.gml": vrt_text(str(OUTSIDE), OUTSIDE.stem),
        "vrt-url.shp": vrt_text(f"/vsicurl/http://127.0.0.1:{loopback_port}/a.geojson"),
        "vrt-in.kml": vrt_text(str(OUTSIDE), OUTSIDE.stem),
    }
    for name, text in attacks.items():
        folder = root / name.replace(".", "-")
        folder.mkdir()
        made.append(folder / name)
        made[-1].write_text(text, "utf-8")
    folder = root / "vrt-zip"
    folder.mkdir()
    made.append(folder / "area.zip")
    made[-1].write_bytes(zip_bytes({"area.shp": vrt_text(str(OUTSIDE), OUTSIDE.stem).encode()}))
    return made


def test_reading_any_upload_opens_nothing_outside_it_and_no_socket(tmp_path, loopback_server):
    """Python's audit hook sees every open() and socket call made from Python.

    Its limit: GDAL, PROJ and SQLite open files from C, which the hook does not see; the
    FIFO and loopback-server tests above check those behaviourally (a file GDAL would
    open, a URL it would fetch), and the reader hands GDAL only bytes (``/vsimem/``).
    """
    server, requests = loopback_server
    uploads = _uploads(tmp_path, server.server_address[1])
    done = subprocess.run(
        [sys.executable, "-c", _AUDIT, json.dumps([str(p) for p in uploads])],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["first"] == report["second"]
    outcome = report["second"]
    for path in uploads:
        expect_ok = not path.parent.name.startswith("vrt")
        assert (outcome[str(path)] == "ok") == expect_ok, (path, outcome[str(path)])
    attacks = [outcome[str(p)] for p in uploads if p.parent.name.startswith("vrt")]
    assert len(attacks) == 5 and all(a.startswith("InputError") for a in attacks), attacks
    folders = {str(p.parent) for p in uploads}
    opened = [e[1] for e in report["events"] if e[0] == "open"]
    assert opened, "the hook saw no open at all: it is not recording"
    outside = [p for p in opened if str(Path(p).parent) not in folders]
    assert outside == []
    assert [e for e in report["events"] if e[0] != "open"] == []
    assert requests == []


# --------------------------------------------------------------------------- memory

_PEAK = """
import json, sys
from pathlib import Path
from xml.etree import ElementTree as ET
from stations_generator.formats.playarea import load_polygons
from stations_generator.errors import InputError
import pyogrio, shapely, pyproj  # noqa: F401  (warm: the imports are not the read)

def rss_mb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024

with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets the peak (VmHWM) to the current size (Linux)
before = rss_mb("VmRSS")
try:
    if sys.argv[2] == "control":  # what reading the whole file at once costs
        ET.fromstring(Path(sys.argv[1]).read_bytes())
        message = "parsed"
    else:
        load_polygons(Path(sys.argv[1]))
        message = "read"
except InputError as exc:
    message = str(exc)
print(json.dumps({"message": message, "before_mb": before, "peak_mb": rss_mb("VmHWM")}))
"""


def _peak(path: Path, mode: str = "reader") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(path), mode],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["growth_mb"] = result["peak_mb"] - result["before_mb"]
    return result


_KML = b'<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>'


def _bombs(folder: Path) -> dict[str, tuple[Path, str]]:
    """Name -> (file, a fragment of the expected message)."""
    mib = 1024**2
    bombs = {
        # 70 KiB holding 64 MiB of KML: 16 million empty elements.
        "kmz-16M-elements": (
            streamed_zip(folder / "elements.kmz", "doc.kml", _KML, b"<a/>", 16 * mib, b"</kml>"),
            "XML elements",
        ),
        # 100 MiB of one text node (no elements to count): bounded by bytes.
        "kmz-100MiB-text": (
            streamed_zip(
                folder / "text.kmz",
                "doc.kml",
                _KML + b"<name>",
                b"x" * 1024,
                100 * 1024,
                b"</name></kml>",
            ),
            "MiB",
        ),
    }
    honest = folder / "text.kmz"
    liar = folder / "liar.kmz"
    liar.write_bytes(patch_headers(honest.read_bytes(), size=1024))  # claims 1 KiB
    bombs["kmz-header-says-1KiB"] = (liar, "damaged")
    plain = folder / "elements.kml"
    plain.write_bytes(_KML + b"<a/>" * (2 * mib) + b"</Document></kml>")
    bombs["kml-2M-elements"] = (plain, "XML elements")
    arrays = folder / "arrays.geojson"  # 30 MiB: 10 million empty arrays, each a Python list
    arrays.write_bytes(b'{"type":"MultiPoint","coordinates":[' + b"[]," * (10 * mib) + b"[]]}")
    bombs["geojson-10M-arrays"] = (arrays, "more than 500,000 points")
    return bombs


@pytest.mark.slow
def test_bombs_stop_before_the_memory_is_spent(tmp_path):
    bombs = _bombs(tmp_path)
    assert (tmp_path / "elements.kmz").stat().st_size < 200 * 1024  # (a small upload)
    peaks = {}
    for name, (path, fragment) in bombs.items():
        result = _peak(path)
        assert fragment in result["message"] and "\n" not in result["message"], (name, result)
        peaks[name] = round(result["growth_mb"])
        assert result["growth_mb"] < MAX_BOMB_GROWTH_MB, (name, result)
    # The control: the measure sees memory spent; parsing the plain bomb whole costs more.
    control = _peak(tmp_path / "elements.kml", "control")
    assert control["message"] == "parsed" and control["growth_mb"] > MAX_BOMB_GROWTH_MB, control
    print("growth of the peak while reading, MB:", peaks, "control:", round(control["growth_mb"]))


# --------------------------------------------------------------------------- tracebacks


def _kmz(tmp_path: Path, raw: bytes, name: str = "area.kmz") -> Path:
    path = tmp_path / name
    path.write_bytes(raw)
    return path


def test_zip_entries_that_cannot_be_read_are_one_line_errors(tmp_path):
    doc = kml_text(real_area()).encode()
    plain = zip_bytes({"doc.kml": doc})
    refused(
        _kmz(tmp_path, patch_headers(plain, flags=1), "enc.kmz"), "encrypted", "without a password"
    )
    refused(_kmz(tmp_path, patch_headers(plain, method=99), "aes.kmz"), "AES", "deflate")
    refused(_kmz(tmp_path, patch_headers(plain, method=12), "bz.kmz"), "method 12")
    nul = zip_bytes({"doc_kml.kml": doc}).replace(b"doc_kml.kml", b"doc\x00kml.kml")
    refused(_kmz(tmp_path, nul, "nul.kmz"), "NUL byte")
    long_name = "x" * 296 + ".kml"
    refused(_kmz(tmp_path, zip_bytes({long_name: doc}), "long.kmz"), "longer than 255 bytes")
    damaged = bytearray(plain)  # a deflate stream scrambled after its first bytes
    start = damaged.find(b"doc.kml") + len("doc.kml") + 5
    damaged[start : start + 40] = bytes(b ^ 0x5A for b in damaged[start : start + 40])
    refused(_kmz(tmp_path, bytes(damaged), "damaged.kmz"), "is damaged")
    shp_zip = zip_bytes({"a\x01.shp": b"", "b" * 300 + ".shp": b""})
    refused(_kmz(tmp_path, shp_zip, "long.zip"), "longer than 255 bytes")


def test_deep_multigeometry_is_a_one_line_error(tmp_path):
    ring = "9.5,47.1 9.6,47.1 9.6,47.2 9.5,47.1"
    polygon = f"<Polygon><outerBoundaryIs><LinearRing><coordinates>{ring}</coordinates></LinearRing></outerBoundaryIs></Polygon>"
    deep = "<MultiGeometry>" * 3000 + polygon + "</MultiGeometry>" * 3000
    path = tmp_path / "deep.kml"
    path.write_text(f"<kml><Placemark>{deep}</Placemark></kml>", "utf-8")
    refused(path, "more than 100 deep")
    shallow = tmp_path / "shallow.kml"  # the same outline, nested 20 deep, is read
    nested = "<MultiGeometry>" * 20 + polygon + "</MultiGeometry>" * 20
    shallow.write_text(f"<kml><Placemark>{nested}</Placemark></kml>", "utf-8")
    assert load_polygons(shallow).area > 0


# --------------------------------------------------------------------------- antimeridian


def _fiji():
    """Liechtenstein's real outline moved onto the antimeridian at Fiji's latitude,
    continuous (longitudes past 180°) and as a map app writes it (wrapped into ±180°)."""
    area = real_area()
    c = area.centroid
    moved = shapely.transform(area, lambda xy: xy + [180.0 - c.x, -17.8 - c.y])

    def wrap(xy):
        xy = xy.copy()
        xy[:, 0] = (xy[:, 0] + 180.0) % 360.0 - 180.0
        return xy

    return moved, shapely.transform(moved, wrap)


def _write(fmt: str, geometry, folder: Path) -> Path:
    if fmt == "kml":
        path = folder / "fiji.kml"
        path.write_text(kml_text(geometry), "utf-8")
    elif fmt == "kmz":
        path = folder / "fiji.kmz"
        path.write_bytes(zip_bytes({"doc.kml": kml_text(geometry).encode()}))
    elif fmt == "gpx":
        path = folder / "fiji.gpx"
        path.write_text(gpx_text(geometry), "utf-8")
    elif fmt == "geojson":
        path = folder / "fiji.geojson"
        path.write_text(shapely.to_geojson(geometry), "utf-8")
    else:
        path = folder / f"fiji.{fmt}"
        driver = {"gpkg": "GPKG", "shp": "ESRI Shapefile", "fgb": "FlatGeobuf"}[fmt]
        gpd.GeoDataFrame(geometry=[geometry], crs=4326).to_file(path, driver=driver)
    return path


@pytest.mark.parametrize("fmt", ["kml", "kmz", "gpx", "geojson", "gpkg", "shp", "fgb"])
def test_an_area_across_the_antimeridian_reads_the_same_in_every_format(tmp_path, fmt):
    moved, wrapped = _fiji()
    assert wrapped.bounds[0] < -179 and wrapped.bounds[2] > 179  # drawn across ±180°
    area = load_polygons(_write(fmt, wrapped, tmp_path))
    minx, _, maxx, _ = area.bounds
    assert -180.0 <= minx and maxx <= 180.0  # RFC 7946: cut at ±180°
    whole = join_antimeridian(area)
    assert whole.symmetric_difference(moved).area < 1e-5 * moved.area  # (KML, GPX: 7 decimals)
    for lon in (0.0, 90.0, -90.0):  # (where the wrong reading put the stations)
        assert not area.contains(shapely.Point(lon, -17.8))


def test_the_split_geojson_and_the_drawn_kml_give_one_area(tmp_path):
    moved, wrapped = _fiji()
    from stations_generator.core.geo.antimeridian import split_antimeridian

    split = tmp_path / "split.geojson"
    split.write_text(shapely.to_geojson(split_antimeridian(moved)), "utf-8")
    drawn = _write("kml", wrapped, tmp_path)
    a, b = load_polygons(split), load_polygons(drawn)
    assert a.symmetric_difference(b).area < 1e-5 * a.area


def test_a_polar_cap_is_refused_with_the_fix(tmp_path):
    ring = " ".join(f"{lon},84.5,0" for lon in range(-180, 180, 15))
    for fmt, text in (
        (
            "kml",
            f"<kml><Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>{ring}</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>",
        ),
        (
            "gpx",
            "<gpx>"
            + "<trk><trkseg>"
            + "".join(f'<trkpt lat="-84.5" lon="{lon}"/>' for lon in range(-180, 181, 15))
            + "</trkseg></trk></gpx>",
        ),
    ):
        path = tmp_path / f"cap.{fmt}"
        path.write_text(text, "utf-8")
        refused(path, "Pole", "cannot contain a pole", "draw an area")
    band = tmp_path / "band.geojson"  # the same cap drawn as a band up to the pole
    band.write_text(
        json.dumps(
            {
                "type": "Polygon",
                "coordinates": [[[-180, 84.5], [180, 84.5], [180, 90], [-180, 90], [-180, 84.5]]],
            }
        ),
        "utf-8",
    )
    refused(band, "North Pole")


# --------------------------------------------------------------------------- GIS messages


def test_a_second_geopackage_layer_is_refused_by_name(tmp_path):
    path = tmp_path / "two.gpkg"
    area = real_area()
    gpd.GeoDataFrame(geometry=[area], crs=4326).to_file(path, layer="play_area", driver="GPKG")
    pins = gpd.GeoDataFrame(geometry=[area.representative_point()], crs=4326)
    pins.to_file(path, layer="pins", driver="GPKG")
    refused(path, "2 layers", "'play_area'", "'pins'", "keep only")


def test_a_wrong_prj_names_the_prj(tmp_path):
    from pyproj import CRS

    path = write_format(LIECHTENSTEIN, tmp_path, "shp")
    path.with_suffix(".prj").write_text(CRS.from_epsg(3857).to_wkt("WKT1_ESRI"), "utf-8")
    refused(path, ".prj does not match", "EPSG:4326")


def test_a_truncated_shapefile_says_so(tmp_path):
    path = write_format(LIECHTENSTEIN, tmp_path, "shp")
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) * 2 // 3])
    refused(path, "is truncated", "export the shapefile again")


def test_a_shapefile_in_a_zip_folder_is_read_and_two_are_refused(tmp_path):
    shp = write_format(HELSINKI, tmp_path, "shp")
    sides = {f"export/{p.name}": p.read_bytes() for p in tmp_path.glob(f"{shp.stem}.*")}
    nested = tmp_path / "nested.zip"
    nested.write_bytes(zip_bytes(sides))
    assert load_polygons(nested).symmetric_difference(load_polygons(HELSINKI)).area < 1e-9
    double = tmp_path / "double.zip"
    double.write_bytes(
        zip_bytes({**sides, **{k.replace("export/", "copy/"): v for k, v in sides.items()}})
    )
    refused(double, "exactly one shapefile", "holds 2")
    lonely = tmp_path / "lonely.zip"
    lonely.write_bytes(zip_bytes({k: v for k, v in sides.items() if not k.endswith(".shx")}))
    refused(lonely, "no export/helsinki-centre.shx")


@pytest.mark.parametrize(
    ("name", "raw", "fragment"),
    [
        ("area.gml", b'<gml:FeatureCollection xmlns:gml="http://www.opengis.net/gml"/>', "is GML"),
        (
            "area.sqlite",
            b"SQLite format 3\x00" + b"\x00" * 200,
            "SQLite database but not a GeoPackage",
        ),
        ("area.tab", b"!table\nversion 300\n", "none of the formats read"),
        ("area.gpkg", b"SQLite format 3\x00" + b"\x00" * 200, "not a shapefile, GeoPackage"),
    ],
)
def test_formats_gdal_would_read_elsewhere_are_refused(tmp_path, name, raw, fragment):
    path = tmp_path / name
    path.write_bytes(raw)
    refused(path, fragment)


def test_a_shapefile_reads_only_its_own_side_files(tmp_path):
    """A .prj of another name next to the .shp is not read (only area.prj would be)."""
    path = write_format(LIECHTENSTEIN, tmp_path, "shp")
    (tmp_path / "other.prj").write_text("not a projection", "utf-8")
    assert load_polygons(path).symmetric_difference(real_area()).area < 1e-9


def test_a_zipped_shapefile_is_read_from_the_zip_only(tmp_path):
    shp = (
        write_format(LIECHTENSTEIN, tmp_path / "out", "shp")
        if (tmp_path / "out").mkdir() is None
        else None
    )
    sides = {p.name: p.read_bytes() for p in shp.parent.iterdir()}
    upload = tmp_path / "upload"
    upload.mkdir()
    path = upload / "area.zip"
    path.write_bytes(zip_bytes({k: v for k, v in sides.items() if not k.endswith(".prj")}))
    # A .prj beside the zip is not read: GDAL sees only the zip's own files.
    (upload / "liechtenstein.prj").write_text("garbage", "utf-8")
    assert load_polygons(path).symmetric_difference(real_area()).area < 1e-9
    with zipfile.ZipFile(path) as z:
        assert all(not n.endswith(".prj") for n in z.namelist())


def test_a_hole_across_the_antimeridian_stays_a_hole():
    from stations_generator.formats.playarea import parse_polygons

    moved, _ = _fiji()
    outer = max(getattr(moved, "geoms", [moved]), key=lambda p: p.area)
    hole = outer.centroid.buffer(0.01)  # (around 180°: its ring crosses it too)
    assert hole.bounds[0] < 180.0 < hole.bounds[2]

    def wrapped(ring):
        return [[(x + 180.0) % 360.0 - 180.0, y] for x, y in ring.coords]

    shell = wrapped(outer.exterior)
    area = parse_polygons({"type": "Polygon", "coordinates": [shell, wrapped(hole.exterior)]}, "x")
    whole = join_antimeridian(area)
    expected = shapely.Polygon(outer.exterior).difference(hole)
    assert whole.symmetric_difference(expected).area < 1e-9
    assert not area.contains(shapely.Point(-179.9999, outer.centroid.y))
