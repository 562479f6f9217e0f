"""The page and its assets: a fixed list of files from the package, nothing else.

Names are looked up in :data:`ASSETS`; no request path is ever joined to a folder, so
there is no path traversal. The vendored files (``data/vendor/``, licences there) are
served with their ``sourceMappingURL`` comments dropped, so the browser asks for
nothing the server does not have.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import cache
from importlib import resources

from fastapi.responses import HTMLResponse

from stations_generator.serve.security import TILE_ORIGIN

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
    # Swagger UI for /docs (docs_page), vendored: the API page works offline
    "swagger-ui/swagger-ui-bundle.js": (
        "data/vendor/swagger-ui/swagger-ui-bundle.js",
        "text/javascript",
    ),
    "swagger-ui/swagger-ui.css": ("data/vendor/swagger-ui/swagger-ui.css", "text/css"),
    "swagger-ui/favicon-32x32.png": ("data/vendor/swagger-ui/favicon-32x32.png", "image/png"),
    "app.js": ("serve/static/app.js", "text/javascript"),
    "common.js": ("serve/static/common.js", "text/javascript"),
    "settings.js": ("serve/static/settings.js", "text/javascript"),
    "shared.js": ("serve/static/shared.js", "text/javascript"),
    "qrcode.js": ("data/vendor/qrcode-generator/qrcode.js", "text/javascript"),
    "referee.js": ("serve/static/referee.js", "text/javascript"),
    "timetable.js": ("serve/static/timetable.js", "text/javascript"),
    "words.js": ("serve/static/words.js", "text/javascript"),
    "location.js": ("serve/static/location.js", "text/javascript"),
    "sheet.js": ("serve/static/sheet.js", "text/javascript"),
    "thermometer.js": ("serve/static/thermometer.js", "text/javascript"),
    "app.css": ("serve/static/app.css", "text/css"),
    "offline.js": ("serve/static/offline.js", "text/javascript"),
    "icon-192.png": ("serve/static/icon-192.png", "image/png"),
    "icon-512.png": ("serve/static/icon-512.png", "image/png"),
}

#: The web app manifest's media type (served at ``/manifest.webmanifest``).
MANIFEST_TYPE = "application/manifest+json"
#: What the service worker may fetch: its own server and the map tiles (it keeps them).
WORKER_CSP = (
    f"default-src 'none'; connect-src 'self' {TILE_ORIGIN}; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


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


def manifest() -> bytes:
    """The web app manifest (``static/manifest.webmanifest``)."""
    return _read("serve/static/manifest.webmanifest")


@cache
def service_worker() -> str:
    """The service worker (``static/sw.js``) with its cache list filled in.

    Its cache holds the page (``/``) and every entry of :data:`ASSETS` except the API
    page's Swagger UI; its name is the package version and a hash of those files, so a
    new release (or any changed file) replaces the cache.
    """
    from stations_generator import __version__

    names = sorted(n for n in ASSETS if not n.startswith("swagger-ui/"))
    digest = hashlib.sha256(_read("serve/static/index.html"))
    for name in names:
        digest.update(name.encode() + b"\0" + _read(ASSETS[name][0]))
    version = f"{__version__}-{digest.hexdigest()[:12]}"
    shell = json.dumps(["/", *(f"/assets/{n}" for n in names)])
    text = _read("serve/static/sw.js").decode("utf-8")
    return text.replace('"__VERSION__"', json.dumps(version)).replace("__SHELL__", shell)


_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
#: Where the vendored Swagger UI of ``/docs`` is served (entries of :data:`ASSETS`).
_SWAGGER = "/assets/swagger-ui/"


def docs_page(openapi_url: str, title: str) -> HTMLResponse:
    """FastAPI's Swagger UI page on the vendored Swagger UI (``data/vendor/swagger-ui/``),
    so it works offline, with a policy of its own: the server's script and style, the
    page's one inline script by hash, the API's own document, no frames.

    Parameters
    ----------
    openapi_url : str
        Where the OpenAPI document is served.
    title : str
        The page's title.
    """
    from fastapi.openapi.docs import get_swagger_ui_html

    page = get_swagger_ui_html(
        openapi_url=openapi_url,
        title=f"{title} - API",
        swagger_js_url=_SWAGGER + "swagger-ui-bundle.js",
        swagger_css_url=_SWAGGER + "swagger-ui.css",
        swagger_favicon_url=_SWAGGER + "favicon-32x32.png",
        # no badge from the online validator (validator.swagger.io)
        swagger_ui_parameters={"validatorUrl": None},
    )
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(m.encode()).digest()).decode() + "'"
        for m in _INLINE_SCRIPT.findall(bytes(page.body).decode("utf-8"))
    )
    page.headers["Content-Security-Policy"] = (
        f"default-src 'none'; script-src 'self' {hashes}; style-src 'self'; "
        "img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    return page
