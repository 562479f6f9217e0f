"""Screenshot a seeker's phone in a shared game of the ``serve`` page, for the docs.

Usage, from the repository root::

    python scripts/screenshot_shared.py docs/img/serve-shared-phone.png

Starts ``stations-generator serve`` offline on 127.0.0.1 with the bundled Helsinki data
(its shared games in a temporary SQLite file), then plays a round in Debian's headless
Chromium (``scripts/install-test-services.sh``) through Playwright, two phones of
390 × 844 with touch and a set location: the organiser shares the Helsinki example game
(its first question), asks a radius question at their location, and the hider answers it
from theirs. The picture is the organiser's phone with the answer applied and the
shared game's part of the controls in sight. Requests off
the machine are aborted, so map tiles are not drawn. The PNG is reduced to 128 colours.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parents[1]
GAME = REPO / "examples" / "helsinki-game" / "game.json"
OSM = REPO / "tests" / "data" / "osm-extracts" / "helsinki-centre.osm.pbf"
AREA = REPO / "zones" / "helsinki-centre.geojson"
PHONE = {"width": 390, "height": 844}
#: The organiser (a seeker) and the hider, inside the Helsinki play area (lat, lon).
SEEKER, HIDER = (60.1712, 24.9441), (60.1705, 24.9455)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(page, expression: str, timeout_s: float = 60) -> None:
    """Poll ``expression`` in the page (its CSP forbids Playwright's eval-based wait)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(f"() => !!({expression})"):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page did not get to {expression}")
        time.sleep(0.05)


def _phone(browser, where: tuple[float, float]):
    context = browser.new_context(
        viewport=PHONE,
        has_touch=True,
        is_mobile=True,
        geolocation={"latitude": where[0], "longitude": where[1], "accuracy": 12},
        permissions=["geolocation"],
    )
    context.route(
        "**/*",
        lambda r: r.continue_() if urlsplit(r.request.url).hostname == "127.0.0.1" else r.abort(),
    )
    return context.new_page()


def _play(url: str, target: Path) -> None:
    """The round on two phones; the organiser's phone shot to ``target``."""
    from playwright.sync_api import sync_playwright

    game = json.loads(GAME.read_text("utf-8"))
    game["questions"] = game["questions"][:1]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        seeker, hider = _phone(browser, SEEKER), _phone(browser, HIDER)
        seeker.goto(url)
        _wait(seeker, "window.sg && sg.ready")
        seeker.click("#tab-game")
        seeker.fill("#paste-game", json.dumps(game))
        seeker.click("#load-pasted")
        _wait(seeker, "(sg.gameRendered || 0) > 0")
        seeker.click("#shared-create")
        _wait(seeker, "sg.shared.snapshot() && sg.shared.snapshot().live")
        hider.goto(seeker.input_value("#shared-hider-link"))
        _wait(hider, "window.sg && sg.ready && sg.shared.snapshot().live")
        seeker.select_option("#q-type", "radius")
        seeker.fill("#q-distance", "500 m")
        seeker.click("#q-here")
        _wait(seeker, "!document.getElementById('q-add').disabled")
        seeker.click("#q-add")
        _wait(hider, "sg.shared.snapshot().pending.length === 1")
        hider.locator(".shared-answer-here").first.click()
        _wait(hider, "!document.getElementById('shared-answer').hidden")
        hider.click("#shared-answer-send")
        _wait(seeker, "sg.shared.snapshot().questions === 2 && sg.gameResult.labels.length === 2")
        # The shared game's part of the sheet in sight: its status, the join code, the QR code.
        # As on the LAN address the phones use: no note that 127.0.0.1 reaches no phone.
        seeker.evaluate("document.getElementById('shared-local').hidden = true")
        seeker.evaluate("document.getElementById('shared').previousElementSibling.scrollIntoView()")
        seeker.wait_for_timeout(800)  # the sheet and the map settle
        seeker.screenshot(path=str(target))
        browser.close()


def screenshot(target: Path) -> int:
    """Write the PNG to ``target`` and return its size in bytes."""
    from PIL import Image

    port = _free_port()
    with tempfile.TemporaryDirectory() as temp:
        server = subprocess.Popen(
            [sys.executable, "-m", "stations_generator", "serve", "--offline",
             "--port", str(port), "--database", str(Path(temp) / "games.sqlite3"),
             "--osm", str(OSM), "--file", str(AREA)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
        try:
            line = server.stdout.readline()
            if not line.startswith("Serving"):
                raise RuntimeError(f"serve did not start: {line!r}")
            raw = target.with_suffix(".raw.png")
            _play(f"http://127.0.0.1:{port}/", raw)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
    image = Image.open(raw).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        target, optimize=True
    )
    raw.unlink()
    return target.stat().st_size


def main(argv: list[str] | None = None) -> int:
    """Command line: ``screenshot_shared.py TARGET.png``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    size = screenshot(args.target)
    print(f"wrote {args.target} ({size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
