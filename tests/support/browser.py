"""Debian's Chromium driven by Playwright, for the tests that look at pages in a real browser."""

from __future__ import annotations

import base64
import contextlib
import functools
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = Path("/usr/bin/chromium")
#: axe-core, vendored for the tests (its README: version, licence, checksums).
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def sync_playwright_or_fail():
    """Playwright's ``sync_playwright``, failing the test (never skipping) without a browser."""
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "the playwright package is not installed (pip install playwright)"
    if reason is None and not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing; run scripts/install-test-services.sh"
    if reason is not None:
        # The README's test command installs both; a missing browser is a failure,
        # never a silent skip.
        pytest.fail(f"browser tests cannot run: {reason}")
    return sync_playwright


# A 1×1 transparent PNG: what the tile server "answers" (no network in tests).
EMPTY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:
        pass


@contextlib.contextmanager
def serving_folder(folder: Path) -> Iterator[str]:
    """A folder served over HTTP on 127.0.0.1 while the block runs; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def keep_offline(context, blocked: list[str]) -> None:
    """Route a browser context's requests: 127.0.0.1 passes, map tiles get an empty PNG,
    anything else is aborted and its URL added to ``blocked``."""

    def route(r) -> None:
        host = urlsplit(r.request.url).hostname
        if host == "127.0.0.1":
            r.continue_()
        elif host == "tile.openstreetmap.org":
            r.fulfill(status=200, content_type="image/png", body=EMPTY_PNG)
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)


#: A phone's screen in CSS pixels (an iPhone 12-15's).
PHONE = {"width": 390, "height": 844}


def phone_context(browser, where: tuple[float, float], accuracy: float = 12):
    """A new touch context the size of :data:`PHONE`, located at ``where`` (lat, lon)
    to ``accuracy`` metres, with the location allowed."""
    return browser.new_context(
        viewport=PHONE,
        has_touch=True,
        is_mobile=True,
        geolocation={"latitude": where[0], "longitude": where[1], "accuracy": accuracy},
        permissions=["geolocation"],
    )


def offline_page(context, blocked: list[str], errors: list[str]):
    """A new page of ``context`` kept on this machine (:func:`keep_offline`: what else it
    loads goes into ``blocked``), its script errors and console errors into ``errors``."""
    keep_offline(context, blocked)
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    return page


# axe.run's serious and critical violations: [rule id, impact, [element selectors]].
_RUN_AXE = """async () => {
    const result = await axe.run(document, {resultTypes: ["violations"]});
    return result.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => [v.id, v.impact, v.nodes.map((n) => n.target.join(" "))]);
}"""


def axe_violations(page) -> list:
    """The serious and critical violations axe-core finds on ``page`` as it is now.

    Injected with ``page.evaluate`` (DevTools), which the serve page's
    Content-Security-Policy does not apply to, as it applies to no browser extension.
    """
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text("utf-8"))
    return page.evaluate(_RUN_AXE)


def wait_until(page, expression: str, timeout_s: float = 30) -> None:
    """Poll ``expression`` in the page until it is truthy (the serve page's CSP forbids
    Playwright's eval-based ``wait_for_function``); fail after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(f"() => !!({expression})"):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        time.sleep(0.05)
