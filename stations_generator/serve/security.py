"""What the server accepts from a network: its own host names, its own page, JSON bodies.

One pure ASGI middleware (:class:`Guard`) checks every request before any route runs and
adds the security headers to every response:

* **Host** — only the names the server answers to (:func:`allowed_hosts`): a page on
  another site that re-points its own name at this machine (DNS rebinding) sends its
  own name as the Host and gets 400. When the server listens on every address
  (``--host 0.0.0.0``), a bare IP address is accepted too: rebinding needs a host *name*,
  and phones on the LAN type the address.
* **Origin** — every request that is not GET/HEAD must come from the page itself
  (``Origin`` equal to the server's own ``http://host:port``); a request without an
  Origin (scripts, curl) must then be ``application/json``, which a browser cannot send
  to another site without a CORS pre-flight this server never grants. Otherwise 403.
* **Content-Type** — a POST body must be ``application/json`` (415).
* **Headers** — a Content-Security-Policy allowing only the server's own assets and the
  map tiles of :data:`TILE_ORIGIN`, ``X-Content-Type-Options: nosniff``,
  ``Referrer-Policy: no-referrer`` and ``frame-ancestors 'none'``.

Every refusal is ``{"error": "<one line>"}``, as the rest of the API.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

#: The tile server the page's map uses (``L.tileLayer`` in ``static/app.js``).
TILE_ORIGIN = "https://tile.openstreetmap.org"

#: The page's policy: its own scripts, styles and requests; images also from the tile
#: server (``data:`` for the icons Leaflet-Geoman's CSS inlines); its own service worker
#: and web app manifest; no frames, no plugins.
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; "
    f"img-src 'self' data: {TILE_ORIGIN}; connect-src 'self'; font-src 'self'; "
    "worker-src 'self'; manifest-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

#: Always answered to, wherever the server listens.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")

_WILDCARDS = ("", "0.0.0.0", "::")  # noqa: S104 - names, compared with --host
_SAFE_METHODS = (b"GET", b"HEAD")
_JSON = "application/json"


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_name(header: str) -> str:
    """The name part of a ``Host`` header (port and IPv6 brackets dropped, lower case)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else ""
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def allowed_hosts(bound: str = "127.0.0.1", extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The host names a server listening on ``bound`` answers to.

    Parameters
    ----------
    bound : str
        The address it listens on (``--host``).
    extra : iterable of str
        More names (``--allowed-host``), e.g. the machine's name on the LAN.

    Returns
    -------
    tuple of str
        Loopback names, ``bound`` (unless a wildcard), the machine's own name when
        listening on every address, and ``extra``; lower case, without duplicates.
    """
    names = [*LOOPBACK_HOSTS, *(host_name(e) for e in extra)]
    if bound.strip("[]") in _WILDCARDS:
        names += [socket.gethostname(), socket.getfqdn()]
    else:
        names.append(bound.strip("[]"))
    return tuple(dict.fromkeys(n.lower() for n in names if n))


def _error(status: int, message: str, extra: list | None = None) -> dict[str, Any]:
    body = json.dumps({"error": message}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return {"status": status, "headers": headers + (extra or []), "body": body}


class Guard:
    """The ASGI middleware of the module docstring.

    Parameters
    ----------
    app : ASGI application
    hosts : iterable of str
        The accepted host names (:func:`allowed_hosts`).
    any_ip : bool
        Also accept any IP address as the Host (the server listens on every address).
    """

    def __init__(self, app: Any, hosts: Iterable[str], any_ip: bool = False) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.any_ip = any_ip

    def refusal(self, scope: dict) -> dict[str, Any] | None:
        """The error answer to this request, or None when it may go on."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        name = host_name(host)
        if name not in self.hosts and not (self.any_ip and _is_ip(name)):
            return _error(
                400,
                f"this server does not answer to the host name {name[:100]!r}; open it as "
                "http://localhost:PORT/ or restart it with --allowed-host NAME",
            )
        if scope["method"].encode() in _SAFE_METHODS:
            return None
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        origin = headers.get("origin")
        if origin is not None:
            parts = urlsplit(origin)
            if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
                return _error(
                    403,
                    f"requests from another site ({origin[:100]}) are refused; use the "
                    "page this server serves",
                )
        elif media != _JSON or headers.get("sec-fetch-site") == "cross-site":
            return _error(
                403,
                "a request without an Origin header must send Content-Type: application/json",
            )
        if media != _JSON:
            return _error(415, f"the request body must be {_JSON}, not {media or 'untyped'}")
        return None

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is not None:
            await send(
                {
                    "type": "http.response.start",
                    "status": refused["status"],
                    "headers": refused["headers"] + _security_headers([]),
                }
            )
            await send({"type": "http.response.body", "body": refused["body"]})
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": _security_headers(list(message["headers"]))}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _security_headers(headers: list) -> list:
    """``headers`` with the security headers added (a route's own CSP is kept)."""
    present = {k.lower() for k, _v in headers}
    add = [
        (b"content-security-policy", PAGE_CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
    ]
    return headers + [(k, v) for k, v in add if k not in present]
