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
