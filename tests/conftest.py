"""Test-session setup: no test may reach the internet.

Every socket connection to a non-loopback address fails, so a test that would
silently call Overpass or a tile server fails loudly instead.
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
EXTRACTS = DATA / "osm-extracts"
SIOUX = REPO / "examples" / "sioux-falls"

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _is_loopback(address) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class NetworkBlockedError(RuntimeError):
    pass


def _guarded_connect(self, address):
    if not _is_loopback(address):
        raise NetworkBlockedError(f"test tried to reach the network: {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self, address):
    if not _is_loopback(address):
        raise NetworkBlockedError(f"test tried to reach the network: {address!r}")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if host not in (None, "localhost") and not _is_loopback((host, 0)):
        raise NetworkBlockedError(f"test tried to resolve a network host: {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def _block_network():
    socket.socket.connect = _guarded_connect
    socket.socket.connect_ex = _guarded_connect_ex
    socket.getaddrinfo = _guarded_getaddrinfo
    yield
    socket.socket.connect = _real_connect
    socket.socket.connect_ex = _real_connect_ex
    socket.getaddrinfo = _real_getaddrinfo


@pytest.fixture(autouse=True, scope="session")
def _extract_cache(tmp_path_factory):
    """The extract cache of the session: a fresh folder, never the user's (subprocesses too)."""
    import os

    folder = tmp_path_factory.mktemp("extract-cache")
    old = os.environ.get("STATIONS_GENERATOR_EXTRACT_CACHE_DIR")
    os.environ["STATIONS_GENERATOR_EXTRACT_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("STATIONS_GENERATOR_EXTRACT_CACHE_DIR", None)
    else:
        os.environ["STATIONS_GENERATOR_EXTRACT_CACHE_DIR"] = old


# --- the local Overpass and Nominatim ------------------------------------------


@pytest.fixture
def local_services(tmp_path, monkeypatch):
    """``osm_services`` running, and the environment pointing the CLI at them (cwd tmp_path)."""
    from osm_services import serve

    monkeypatch.chdir(tmp_path)
    with serve() as running:
        env = {**running.env(tmp_path / "overpass"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
        yield running, env


#: The spacing core's modules that setup.py compiles with Cython (beside their .pxd).
COMPILED_SPACING = ("spacing_state", "spacing_search")


@pytest.fixture(scope="session")
def pure_spacing():
    """``core/stationmap/spacing.py`` and the two modules setup.py compiles
    (:data:`COMPILED_SPACING`) run from their sources as Python, under other names, beside
    the installed (maybe compiled) modules; the returned ``spacing`` module holds the
    Python ones' names (``pure.Selection`` is the Python class)."""
    import importlib.util
    import sys

    from stations_generator.core.stationmap import spacing

    package = "stations_generator.core.stationmap"
    folder = Path(spacing.__file__).parent
    names = (*COMPILED_SPACING, "spacing")
    installed = {name: sys.modules[f"{package}.{name}"] for name in names}
    aliases = []
    try:
        for name in names:
            alias = f"{package}._{name}_as_python"
            spec = importlib.util.spec_from_file_location(alias, folder / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[alias] = module
            aliases.append(alias)
            # The next module's imports by the real name find this Python one.
            sys.modules[f"{package}.{name}"] = module
            spec.loader.exec_module(module)
    finally:
        for name, module in installed.items():
            sys.modules[f"{package}.{name}"] = module
    try:
        yield sys.modules[aliases[-1]]
    finally:
        for alias in aliases:
            del sys.modules[alias]


# --- real-data fixtures -----------------------------------------------------


@pytest.fixture(scope="session")
def catalogue():
    from stations_generator import load_catalogue

    return load_catalogue()


@pytest.fixture(scope="session")
def sioux_area():
    from stations_generator import load_polygons

    return load_polygons(SIOUX / "polygon.geojson")


@pytest.fixture(scope="session")
def sioux_data(catalogue, sioux_area):
    from stations_generator.osm.sources import read_files

    return read_files([SIOUX / "pois.json"], [SIOUX / "water.json"], sioux_area, catalogue)


@pytest.fixture(scope="session")
def sioux_candidates(sioux_data, catalogue):
    from stations_generator import elements_to_candidates, parse_play_window

    return elements_to_candidates(
        sioux_data.elements, catalogue, parse_play_window("7am-7pm", "sat,sun")
    )


# --- a dense station map of the Helsinki extract (shared by the play tests) ----

HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"
# Closer spacing and a shorter density radius than the defaults, so the 1.7 km
# extract gives a couple of dozen stations in all three tiers.
DENSE_OPTIONS = [
    "--min-spacing", "150", "--cluster-gap", "400", "--density-radius", "250",
    "--tiers", "dense:40:5-15,moderate:15:10-30,sparse:0:20-60",
]  # fmt: skip


def member_variants(obj: dict, keys, bad_values):
    """Deep copies of ``obj`` with each of ``keys`` set to each of ``bad_values``, and
    with it removed (for checks that must refuse whatever a schema refuses)."""
    import copy

    for key in keys:
        for bad in bad_values:
            changed = copy.deepcopy(obj)
            changed[key] = bad
            yield changed
        changed = copy.deepcopy(obj)
        changed.pop(key, None)
        yield changed


def extract_area(path: Path, folder: Path) -> Path:
    """The extract's bounding box (from its header) as a play-area polygon file."""
    import json

    import osmium

    reader = osmium.io.Reader(str(path), osmium.osm.osm_entity_bits.NOTHING)
    box = reader.header().box()
    reader.close()
    w, s = box.bottom_left.lon, box.bottom_left.lat
    e, n = box.top_right.lon, box.top_right.lat
    area = folder / f"{path.name.split('.')[0]}-area.geojson"
    ring = [[w, s], [e, s], [e, n], [w, n], [w, s]]
    area.write_text(json.dumps({"type": "Polygon", "coordinates": [ring]}))
    return area


@pytest.fixture(scope="session")
def helsinki_stations_file(tmp_path_factory) -> Path:
    """stations.geojson of the Helsinki extract, generated with DENSE_OPTIONS."""
    from click.testing import CliRunner

    from stations_generator.cli import main

    out = tmp_path_factory.mktemp("helsinki-map")
    args = ["-q", "generate", extract_area(HELSINKI, out), "--osm", HELSINKI, "-o", out]
    result = CliRunner().invoke(main, [str(a) for a in [*args, *DENSE_OPTIONS]])
    assert result.exit_code == 0, result.output
    return out / "stations.geojson"
