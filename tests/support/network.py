"""No test may reach the internet: socket guards that let only loopback addresses through.

Every socket connection to a non-loopback address fails, and so does resolving a
network host name, so a test that would silently call Overpass or a tile server
fails loudly instead. ``tests/conftest.py`` installs the guards for the session.
"""

from __future__ import annotations

import ipaddress
import socket

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def is_loopback(address) -> bool:
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


def guarded_connect(self, address):
    if not is_loopback(address):
        raise NetworkBlockedError(f"test tried to reach the network: {address!r}")
    return _real_connect(self, address)


def guarded_connect_ex(self, address):
    if not is_loopback(address):
        raise NetworkBlockedError(f"test tried to reach the network: {address!r}")
    return _real_connect_ex(self, address)


def guarded_getaddrinfo(host, *args, **kwargs):
    if host not in (None, "localhost") and not is_loopback((host, 0)):
        raise NetworkBlockedError(f"test tried to resolve a network host: {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


def block() -> None:
    """Install the guards on :mod:`socket` (every later connection is checked)."""
    socket.socket.connect = guarded_connect
    socket.socket.connect_ex = guarded_connect_ex
    socket.getaddrinfo = guarded_getaddrinfo


def unblock() -> None:
    """Put :mod:`socket`'s own functions back."""
    socket.socket.connect = _real_connect
    socket.socket.connect_ex = _real_connect_ex
    socket.getaddrinfo = _real_getaddrinfo
