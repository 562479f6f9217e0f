"""The page installed and offline: its web app manifest, its service worker, and a reload
in airplane mode.

The fast tests read the manifest and ``/sw.js`` from the app in-process. The browser test
(Debian's Chromium driven by Playwright, as tests/serve/test_serve_browser.py) opens the
Helsinki game on the real server on 127.0.0.1 (a secure context, as service workers
need), goes offline and reloads: the page, the play area, the remaining area and the zones
draw again from the worker's copies; a question added offline is queued, and applied when
the network is back. And a server that dies while the phone is online: the first question
asked then is queued too (not lost in an error), and applied once the server is back —
with the service worker and without it (as over plain http:// on a LAN).
"""

from __future__ import annotations

import json
import re

import pytest
from support.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    offline_page,
    sync_playwright_or_fail,
    wait_until,
)
from support.serve_support import HELSINKI_GAME, api_client, config, running_server
from support.shared_games import free_port, start_serve

from stations_generator import __version__
from stations_generator.serve.app import create_app
from stations_generator.serve.assets import ASSETS
from stations_generator.serve.security import TILE_ORIGIN


@pytest.fixture(scope="module")
def client():
    return api_client(create_app(config()))


def _secure(answer) -> str:
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    policy = answer.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    return policy


def test_the_manifest_is_served_linked_and_its_icons_exist(client):
    answer = client.get("/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/manifest+json"
    _secure(answer)
    manifest = answer.json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert manifest["name"] and manifest["short_name"] and manifest["theme_color"]
    sizes = set()
    for icon in manifest["icons"]:
        png = client.get(icon["src"])
        assert png.status_code == 200 and png.headers["content-type"] == icon["type"]
        assert png.content.startswith(b"\x89PNG\r\n\x1a\n")
        width, height = int.from_bytes(png.content[16:20]), int.from_bytes(png.content[20:24])
        assert icon["sizes"] == f"{width}x{height}"
        sizes.add(width)
    assert {192, 512} <= sizes  # what browsers ask of an installable app
    page = client.get("/")
    assert '<link rel="manifest" href="manifest.webmanifest">' in page.text
    policy = _secure(page)
    assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy


def test_the_service_worker_caches_the_whole_shell_of_this_version(client):
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"  # a new release is seen at once
    policy = _secure(answer)
    # It may fetch the server and the tiles it keeps, nothing else.
    assert re.search(r"connect-src 'self' (\S+);", policy).group(1) == TILE_ORIGIN
    text = answer.text
    assert "__SHELL__" not in text and "__VERSION__" not in text
    shell = json.loads(re.search(r"^const SHELL = (.*);$", text, re.M).group(1))
    version = re.search(r'^const VERSION = "(.*)";$', text, re.M).group(1)
    assert version.startswith(__version__ + "-")
    expected = {"/", *(f"/assets/{n}" for n in ASSETS if not n.startswith("swagger-ui/"))}
    assert set(shell) == expected
    for path in shell:
        assert client.get(path).status_code == 200, path
    assert client.get("/sw.js").text == text  # same files, same worker


def _drawn(page) -> dict:
    """What the game view shows: the layers on the map, the status, the questions."""
    return page.evaluate(
        """() => ({
            zones: document.querySelectorAll('#map path.leaflet-interactive').length,
            remaining: document.querySelectorAll('#map path[fill="#ff9800"]').length,
            status: document.getElementById('game-status').innerText,
            questions: document.querySelectorAll('#questions li').length,
            files: sg.gameResult && sg.gameResult.files,
        })"""
    )


@pytest.mark.slow
def test_a_reload_offline_redraws_the_game_and_queues_new_questions():
    sync_playwright = sync_playwright_or_fail()
    with running_server(create_app(config())) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        blocked: list[str] = []
        errors: list[str] = []
        page = offline_page(context, blocked, errors)
        try:
            page.goto(url)
            wait_until(page, "window.sg && sg.ready && navigator.serviceWorker.controller")
            page.click("#tab-game")
            page.set_input_files("#load-game", str(HELSINKI_GAME))
            wait_until(page, "(sg.gameRendered || 0) > 0")
            online = _drawn(page)
            assert "hiding zones still possible: 14 of 30" in online["status"]
            assert page.is_hidden("#offline-status")

            context.set_offline(True)
            page.reload()
            wait_until(page, "window.sg && sg.ready && (sg.gameRendered || 0) > 0")
            offline = _drawn(page)
            assert offline == online  # the same game, drawn from the worker's copies
            assert offline["zones"] > 0 and offline["remaining"] > 0
            status = page.inner_text("#offline-status")
            assert status.startswith("Offline:") and "queued" in status
            # The shell from the worker's cache: every style sheet, Leaflet's styles applied.
            assert page.evaluate(
                """() => [...document.styleSheets].filter((s) => s.cssRules.length).length === 3
                    && getComputedStyle(document.getElementById('map')).overflow === 'hidden'"""
            )

            # A question added offline waits in the queue, said so; the map stays as it was.
            page.select_option("#q-type", "radius")
            page.fill("#q-distance", "600 m")
            page.select_option("#q-answer", "within")
            box = page.locator("#map").bounding_box()
            page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
            page.click("#q-add")
            queued = page.locator("#queued-questions li")
            assert queued.count() == 1 and "queued" in queued.inner_text()
            assert page.evaluate("sg.game.doc.questions.length") == 7
            assert page.evaluate("sg.offline.queued().length") == 1

            before = page.evaluate("sg.gameRendered")
            context.set_offline(False)
            wait_until(page, f"sg.gameRendered > {before} && sg.gameResult.labels.length === 8")
            assert page.evaluate("sg.game.doc.questions.length") == 8
            assert page.evaluate("sg.offline.queued().length") == 0
            assert queued.count() == 0 and page.is_hidden("#offline-status")
            assert _drawn(page)["files"]["zones.geojson"] != online["files"]["zones.geojson"]
        finally:
            context.close()
            browser.close()
    # Only the failed look-ups of the server while offline, nothing else.
    assert [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e] == []
    assert blocked == []


def _ask_radius(page) -> None:
    """A radius question (600 m, within) at a tap right of the map's centre."""
    page.select_option("#q-type", "radius")
    page.fill("#q-distance", "600 m")
    page.select_option("#q-answer", "within")
    box = page.locator("#map").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    page.click("#q-add")


@pytest.mark.slow
# "block": no service worker, as over plain http:// on a LAN (the request itself fails).
@pytest.mark.parametrize("worker", ["allow", "block"])
def test_a_question_asked_as_the_server_dies_is_queued_and_applied_when_it_is_back(
    tmp_path, worker
):
    sync_playwright = sync_playwright_or_fail()
    port, database = free_port(), tmp_path / "games.sqlite3"
    process = start_serve(port, database)[0]
    errors: list[str] = []
    blocked: list[str] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
            )
            context = browser.new_context(
                viewport={"width": 1280, "height": 900}, service_workers=worker
            )
            page = offline_page(context, blocked, errors)
            try:
                page.goto(f"http://127.0.0.1:{port}/")
                worker_on = "navigator.serviceWorker.controller" if worker == "allow" else "true"
                wait_until(page, f"window.sg && sg.ready && {worker_on}")
                page.click("#tab-game")
                page.set_input_files("#load-game", str(HELSINKI_GAME))
                wait_until(page, "(sg.gameRendered || 0) > 0")
                online = _drawn(page)

                wait_until(page, "sg.game.answerNames")  # the page's last request (nameAnswers)
                # The server dies; the phone still says online and the page does not know.
                process.kill()
                process.wait(30)
                assert page.evaluate("navigator.onLine && !sg.offline.isDown()")
                _ask_radius(page)
                wait_until(page, "sg.offline.queued().length === 1")
                status = page.inner_text("#offline-status")
                assert status.startswith("The server cannot be reached") and "queued" in status
                queued = page.locator("#queued-questions li")
                assert queued.count() == 1 and "queued" in queued.inner_text()
                assert page.is_hidden("#game-error")  # said in words, not as an error
                assert page.evaluate("sg.game.doc.questions.length") == 7
                assert _drawn(page) == online  # the map stays as it was
                # Saved for a reload once: in the queue, not in the game.
                saved = page.evaluate(
                    "['queue/v1', 'v1'].map((k) =>"
                    " JSON.parse(localStorage.getItem('stations-generator/serve/' + k)))"
                )
                assert len(saved[0]) == 1 and len(saved[1]["game"]["doc"]["questions"]) == 7

                # The server is back: the question is applied (the page asks every 10 s).
                before = page.evaluate("sg.gameRendered")
                process = start_serve(port, database)[0]
                wait_until(
                    page, f"sg.gameRendered > {before} && sg.gameResult.labels.length === 8", 40
                )
                assert page.evaluate("sg.game.doc.questions.length") == 8
                assert page.evaluate("sg.offline.queued().length") == 0
                assert queued.count() == 0 and page.is_hidden("#offline-status")
                assert _drawn(page)["files"]["zones.geojson"] != online["files"]["zones.geojson"]
            finally:
                context.close()
                browser.close()
    finally:
        process.kill()
        process.wait(30)
    # Only the failed requests to the stopped server.
    assert [e for e in errors if not re.search(r"ERR_CONNECTION_REFUSED|503", e)] == []
    assert blocked == []
