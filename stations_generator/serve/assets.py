"""The page and its assets: a fixed list of files from the package, nothing else.

Names are looked up in :data:`ASSETS`; no request path is ever joined to a folder, so
there is no path traversal. The vendored files (``data/vendor/``, licences there) are
served with their ``sourceMappingURL`` comments dropped, so the browser asks for
nothing the server does not have.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_SOURCE_MAP = re.compile(r"\n?/[/*]# sourceMappingURL=[^\n]*")

#: Asset name -> (package path, media type).
ASSETS: dict[str, tuple[str, str]] = {
    "leaflet.js": ("data/vendor/leaflet/leaflet.js", "text/javascript"),
    "leaflet.css": ("data/vendor/leaflet/leaflet.css", "text/css"),
    "images/layers.png": ("data/vendor/leaflet/images/layers.png", "image/png"),
    "images/layers-2x.png": ("data/vendor/leaflet/images/layers-2x.png", "image/png"),
    "images/marker-icon.png": ("data/vendor/leaflet/images/marker-icon.png", "image/png"),
    "leaflet-geoman.js": ("data/vendor/leaflet-geoman/leaflet-geoman.min.js", "text/javascript"),
    "leaflet-geoman.css": ("data/vendor/leaflet-geoman/leaflet-geoman.css", "text/css"),
    "app.js": ("serve/static/app.js", "text/javascript"),
    "app.css": ("serve/static/app.css", "text/css"),
}


@cache
def _read(path: str) -> bytes:
    data = resources.files("stations_generator").joinpath(path).read_bytes()
    if path.endswith((".js", ".css")):
        data = _SOURCE_MAP.sub("", data.decode("utf-8")).encode("utf-8")
    return data


def asset(name: str) -> tuple[bytes, str] | None:
    """The bytes and media type of a known asset, or None."""
    entry = ASSETS.get(name)
    if entry is None:
        return None
    path, media = entry
    return _read(path), media


def page() -> str:
    """The page's HTML."""
    return _read("serve/static/index.html").decode("utf-8")
