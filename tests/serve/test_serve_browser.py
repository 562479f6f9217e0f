"""The ``serve`` page in a real headless Chromium, against the real server on 127.0.0.1.

Debian's Chromium driven by Playwright (as tests/pages/test_browser.py). Map tiles are answered
with an empty image; every other request that does not go to 127.0.0.1 is aborted and
recorded, so the page works only if everything else comes from the server. The play
area is drawn with mouse clicks on the map; the results are compared with the CLI run
on the same polygon, the downloads byte for byte.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import shapely
from support.browser import CHROMIUM_FLAGS, sync_playwright_or_fail
from support.serve_support import (
    HELSINKI_GAME,
    SIOUX_AREA,
    cli,
    config,
    generate,
    running_server,
)

from stations_generator.serve.app import create_app

pytestmark = pytest.mark.slow

# A 1×1 transparent PNG: what the tile server "answers" (no network in tests).
EMPTY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)
# Downtown Sioux Falls (lon, lat): the exclusion drawn in the tests.
EXCLUSION = [(-96.745, 43.535), (-96.715, 43.535), (-96.715, 43.555), (-96.745, 43.555)]


def wait_until(page, expression: str, timeout: float = 10000) -> None:
    """Wait until the page's ``expression`` is true, polling with ``page.evaluate``.

    Playwright's ``wait_for_function`` compiles its predicate with ``eval`` in the page,
    which the page's Content-Security-Policy forbids (no 'unsafe-eval'), as it should.
    """
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(f"() => !!({expression})"):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def server():
    with running_server(create_app(config())) as url:
        yield url


@pytest.fixture(scope="module")
def browser_page(server, tmp_path_factory):
    """One Chromium page on the server (a fresh profile), with its errors and blocked loads."""
    sync_playwright = sync_playwright_or_fail()
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path="/usr/bin/chromium",
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 900},
            accept_downloads=True,
        )
        page = context.pages[0] if context.pages else context.new_page()
        errors: list[str] = []
        blocked: list[str] = []

        def route(route) -> None:
            url = urlsplit(route.request.url)
            if url.hostname == "127.0.0.1":
                route.continue_()
            elif url.hostname == "tile.openstreetmap.org":
                route.fulfill(status=200, content_type="image/png", body=EMPTY_PNG)
            else:
                blocked.append(route.request.url)
                route.abort()

        context.route("**/*", route)
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
        # Every Content-Security-Policy violation is an error too (Chromium also logs it).
        context.add_init_script(
            "document.addEventListener('securitypolicyviolation', (e) => console.error("
            "'CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))"
        )
        response = page.goto(server)
        policy = response.headers["content-security-policy"]
        assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy
        wait_until(page, "window.sg && window.sg.ready")
        page.evaluate("localStorage.clear()")
        page.reload()
        wait_until(page, "window.sg && window.sg.ready")
        yield page, errors, blocked
        context.close()


def _fit(page, lonlats) -> None:
    bounds = [[min(y for _x, y in lonlats), min(x for x, _y in lonlats)],
              [max(y for _x, y in lonlats), max(x for x, _y in lonlats)]]  # fmt: skip
    page.evaluate(
        "b => { sg.map.fitBounds(b, {animate: false, paddingTopLeft: [60, 60], paddingBottomRight: [60, 200]}); }",
        bounds,
    )
    page.wait_for_timeout(200)


def _pixel(page, lon: float, lat: float) -> tuple[float, float]:
    """Page coordinates of a map position."""
    return tuple(
        page.evaluate(
            """([lat, lon]) => {
                const p = sg.map.latLngToContainerPoint([lat, lon]);
                const r = sg.map.getContainer().getBoundingClientRect();
                return [p.x + r.left, p.y + r.top];
            }""",
            [lat, lon],
        )
    )


def _draw(page, button: str, lonlats) -> None:
    """Click the draw button, click every corner, close the ring on the first corner."""
    page.click(button)
    for lon, lat in lonlats:
        page.mouse.click(*_pixel(page, lon, lat))
        page.wait_for_timeout(60)
    page.mouse.click(*_pixel(page, *lonlats[0]))


def _wait_render(page, before: int) -> dict:
    wait_until(page, f"(sg.rendered || 0) > {before} && sg.seq === sg.shown", timeout=30000)
    page.wait_for_timeout(400)  # the debounce: no newer request still on its way
    wait_until(page, "sg.seq === sg.shown", timeout=30000)
    return page.evaluate("sg.result")


def _rendered(page) -> int:
    return page.evaluate("sg.rendered || 0")


def _cli_for_page(page, folder: Path, *flags: str) -> tuple[Path, str]:
    """Run ``generate`` on the polygon (and exclusions) the page sent; its folder and stderr."""
    body = page.evaluate("sg.resultBody")
    folder.mkdir(parents=True, exist_ok=True)
    area = folder / "play-area.geojson"
    area.write_text(json.dumps(body["play_area"]), "utf-8")
    extra: list[str] = []
    if body.get("exclusions"):
        (folder / "exclude.geojson").write_text(json.dumps(body["exclusions"]), "utf-8")
        extra = ["--exclude", str(folder / "exclude.geojson")]
    result = generate(folder / "out", area, *extra, *flags)
    return folder / "out", result.stderr


def _download(page, button: str) -> bytes:
    with page.expect_download() as info:
        page.click(button)
    return Path(info.value.path()).read_bytes()


def _station_points(result: dict) -> list[shapely.Point]:
    return [
        shapely.Point(f["geometry"]["coordinates"])
        for f in result["station_map"]["features"]
        if f["geometry"]["type"] == "Point"
    ]


#: The question form's rows that each type shows; the others must not show.
FORM_ROWS = ("#q-subject-row", "#q-level-row", "#q-distance-row", "#q-answer", "#q-answer-text")
SHOWN_ROWS = {
    "radius": {"#q-distance-row", "#q-answer"},
    "matching": {"#q-subject-row", "#q-level-row", "#q-answer"},  # its first subject: zone
    "tentacles": {"#q-subject-row", "#q-distance-row", "#q-answer-text"},
}


def test_before_a_map_or_a_game_the_page_says_what_to_do(browser_page):
    """Downloads, the game's export and its share link wait for a map or a game, disabled
    with the reason in words (they failed with raw messages, or silently); the question
    form shows only its type's fields; the settings speak a player's words."""
    page, errors, blocked = browser_page
    for button in ("#dl-stations-kml", "#dl-stations-geojson"):
        assert page.is_disabled(button)
    assert "draw or load a play area first" in page.inner_text("#downloads-why")
    settings = page.inner_text("#settings")
    assert "Cluster radius (m)" in settings and "Spacing within a cluster (m)" in settings
    assert "--" not in settings and "<=x" not in settings
    assert "--cluster-radius" in page.get_attribute(".setting:has(#opt-cluster_radius)", "title")
    page.click("#tab-game")
    for button in ("#export-game", "#share-link", "#game-from-map"):
        assert page.is_disabled(button)
    assert "Start or load a game first" in page.inner_text("#export-why")
    for kind, shown in SHOWN_ROWS.items():
        page.select_option("#q-type", kind)
        for row in FORM_ROWS:
            assert page.is_visible(row) == (row in shown), (kind, row)
    page.click("#tab-stations")
    assert errors == [] and blocked == []


def _popups(page) -> list[str]:
    """The popup text of every station marker on the map."""
    return page.evaluate(
        """() => { const out = [];
            sg.map.eachLayer((l) => { if (l.getPopup && l.getPopup() && l.getRadius && l.getRadius() === 6)
                out.push(String(l.getPopup().getContent())); });
            return out; }"""
    )


def _drawn_paths(page, colour: str) -> int:
    """SVG paths of that stroke colour on the map (the drawn play area, the exclusions)."""
    return page.locator(f".leaflet-overlay-pane path[stroke='{colour}']").count()


def test_station_map_view(browser_page, tmp_path, tmp_path_factory):
    page, errors, blocked = browser_page
    ring = json.loads(SIOUX_AREA.read_text("utf-8"))["features"][0]["geometry"]["coordinates"][0]
    corners = [tuple(p) for p in ring[:-1]]
    _fit(page, corners)

    # Load the play area as a KML file: read by the CLI's reader, the same map.
    from support.area_files import write_format

    kml = write_format(SIOUX_AREA, tmp_path, "kml")
    before = _rendered(page)
    # Every status the page shows while it works (a local extract is no fetch from OSM).
    page.evaluate(
        """() => { sg.statuses = []; new MutationObserver(() => sg.statuses.push(
            document.getElementById('status').textContent)).observe(
            document.getElementById('status'), {childList: true, characterData: true, subtree: true}); }"""
    )
    page.set_input_files("#load-area", str(kml))
    result = _wait_render(page, before)
    statuses = page.evaluate("sg.statuses")
    assert any(s.startswith("Building the station map") for s in statuses), statuses
    assert not any("Fetching" in s for s in statuses), statuses
    generate(tmp_path / "kml-out", kml)
    assert (
        _download(page, "#dl-stations-kml") == (tmp_path / "kml-out" / "stations.kml").read_bytes()
    )
    page.click("#clear-shapes")

    # Draw the Sioux Falls play area with the mouse: the CLI on that polygon agrees.
    before = _rendered(page)
    _draw(page, "#draw-area", corners)
    result = _wait_render(page, before)
    out, stderr = _cli_for_page(page, tmp_path / "drawn")
    assert result["summary"][0] in stderr and f"Stations: {result['stations']} in" in stderr
    assert result["stations"] > 90
    assert _download(page, "#dl-stations-kml") == (out / "stations.kml").read_bytes()
    assert _download(page, "#dl-stations-geojson") == (out / "stations.geojson").read_bytes()
    drawn = shapely.geometry.shape(
        page.evaluate("sg.requestBody()")["play_area"]["features"][0]["geometry"]
    )
    # Every corner where it was clicked (to the pixel: ~50 m at this zoom).
    assert drawn.symmetric_difference(shapely.Polygon(corners)).area < 1e-2 * drawn.area
    # The drawn area stays on the map once the stations are back (it used to vanish).
    assert _drawn_paths(page, "#0277bd") == 1
    # Unnamed stations are named by their category and the nearest named place; the OSM
    # id is a detail beside it, never the name.
    popups = _popups(page)
    unnamed = [f for f in result["station_map"]["features"] if f["properties"].get("name") == ""]
    assert unnamed and len(popups) == result["stations"]
    assert not any("<b></b>" in text for text in popups)
    for f in unnamed:
        text = next(t for t in popups if f["properties"]["id"] in t)
        category = f["properties"]["category"].replace("_", " ")
        assert f"<b>unnamed {category} near " in text, text

    # Draw an exclusion: no station inside it, and the CLI with --exclude agrees.
    before = _rendered(page)
    _draw(page, "#draw-exclusion", EXCLUSION)
    result = _wait_render(page, before)
    assert _drawn_paths(page, "#0277bd") == 1 and _drawn_paths(page, "#c62828") == 1
    zone = shapely.geometry.shape(
        page.evaluate("sg.exclusionsGeoJSON()")["features"][0]["geometry"]
    )
    assert zone.area > 0.5 * shapely.Polygon(EXCLUSION).area
    assert not any(zone.contains(p) for p in _station_points(result))
    out, stderr = _cli_for_page(page, tmp_path / "excluded")
    assert result["summary"][0] in stderr

    # Change the cluster radius: the map updates and matches the CLI with that flag.
    before_count = result["stations"]
    before = _rendered(page)
    page.fill("#opt-cluster_radius", "700")
    result = _wait_render(page, before)
    assert result["cluster_radius_m"] == 700
    out, stderr = _cli_for_page(page, tmp_path / "radius", "--cluster-radius", "700")
    assert result["summary"][0] in stderr and result["stations"] != before_count
    clusters = {
        f["properties"]["cluster_id"]
        for f in result["station_map"]["features"]
        if f["properties"].get("role") == "station"
    }
    assert page.evaluate("sg.layerCounts().clusters") == len(clusters)
    assert page.evaluate("sg.layerCounts().stations") == result["stations"]

    # Reload: the polygon, the exclusion and the setting are still there.
    area_before = page.evaluate("JSON.stringify(sg.areaGeoJSON())")
    excl_before = page.evaluate("JSON.stringify(sg.exclusionsGeoJSON())")
    page.reload()
    wait_until(page, "window.sg && window.sg.ready && (sg.rendered || 0) >= 1", timeout=30000)
    assert page.evaluate("JSON.stringify(sg.areaGeoJSON())") == area_before
    assert page.evaluate("JSON.stringify(sg.exclusionsGeoJSON())") == excl_before
    assert page.input_value("#opt-cluster_radius") == "700"
    assert page.evaluate("sg.result.summary") == result["summary"]

    shots = tmp_path_factory.getbasetemp() / "serve-screenshots"
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(shots / "serve-stations.png"))
    assert errors == [] and blocked == []


def test_game_view(browser_page, tmp_path, tmp_path_factory):
    page, errors, blocked = browser_page
    page.click("#tab-game")
    before = page.evaluate("sg.gameRendered || 0")
    page.set_input_files("#load-game", str(HELSINKI_GAME))
    wait_until(page, f"(sg.gameRendered || 0) > {before}", timeout=30000)
    applied = cli("questions", "apply", HELSINKI_GAME, "-o", tmp_path / "apply")
    assert applied.exit_code == 0, applied.stderr
    files = page.evaluate("sg.gameResult.files")
    for name in ("remaining.geojson", "zones.geojson"):
        assert files[name] == (tmp_path / "apply" / name).read_text("utf-8")
    assert "hiding zones still possible: 14 of 30" in page.inner_text("#game-status")
    assert page.locator("#questions li").count() == 7
    # The tentacles answer by its name, the OSM id beside it.
    wait_until(page, "document.getElementById('questions').innerText.includes('Päivälehden museo')")
    assert (
        "Päivälehden museo (node/1221210297)" in page.locator("#questions li").nth(3).inner_text()
    )

    # Hide the last question and show it again: the map follows.
    last = page.locator("#questions li").nth(6)
    before = page.evaluate("sg.gameRendered")
    last.locator(".q-hide").click()
    wait_until(page, f"sg.gameRendered > {before}")
    assert page.evaluate("sg.gameResult.labels.length") == 6
    before = page.evaluate("sg.gameRendered")
    page.locator("#questions li").nth(6).locator(".q-hide").click()
    wait_until(page, f"sg.gameRendered > {before}")
    assert page.evaluate("sg.gameResult.files")["zones.geojson"] == files["zones.geojson"]

    # Add a radius question by clicking the seeker's position; the CLI agrees.
    page.select_option("#q-type", "radius")
    page.fill("#q-distance", "600 m")
    page.select_option("#q-answer", "within")
    page.mouse.click(*_pixel(page, 24.9440, 60.1700))
    before = page.evaluate("sg.gameRendered")
    page.click("#q-add")
    wait_until(page, f"sg.gameRendered > {before}", timeout=30000)
    doc = json.loads(HELSINKI_GAME.read_text("utf-8"))
    doc["questions"].append(page.evaluate("sg.game.doc.questions[7]"))
    game8 = HELSINKI_GAME.parent / "game.json"  # relative paths resolve from its folder
    (tmp_path / "game8.json").write_text(
        json.dumps({**doc, "play_area": str((game8.parent / doc["play_area"]).resolve()),
                    "osm": [str((game8.parent / f).resolve()) for f in doc["osm"]]}),
        "utf-8",
    )  # fmt: skip
    applied = cli("questions", "apply", tmp_path / "game8.json", "-o", tmp_path / "apply8")
    assert applied.exit_code == 0, applied.stderr
    got = page.evaluate("sg.gameResult.files")
    assert got["zones.geojson"] == (tmp_path / "apply8" / "zones.geojson").read_text("utf-8")
    assert got["remaining.geojson"] == (tmp_path / "apply8" / "remaining.geojson").read_text(
        "utf-8"
    )

    # Hider mode: the answers for a clicked position equal `questions answer`.
    page.select_option("#click-mode", "hider")
    page.mouse.click(*_pixel(page, 24.9490, 60.1665))
    wait_until(page, "sg.hiderAnswers && sg.hiderAnswers.length === 8", timeout=30000)
    hider = page.evaluate("sg.hiderPosition")
    answered = cli("questions", "answer", tmp_path / "game8.json", "--hider", hider, "--json")
    assert page.evaluate("sg.hiderAnswers") == json.loads(answered.stdout)
    page.select_option("#click-mode", "zone")

    # Click a zone: the check names the question that rules it out, as `zones check`.
    zones = json.loads(got["zones.geojson"])["features"]
    ruled_out = next(z for z in zones if not z["properties"]["possible"])
    lon, lat = ruled_out["geometry"]["coordinates"]
    page.evaluate("sg.zoneCheck = null")
    page.mouse.click(*_pixel(page, lon, lat))
    wait_until(page, "sg.zoneCheck !== null", timeout=30000)
    check = page.evaluate("sg.zoneCheck")
    station = check["zone"].rsplit("(", 1)[1].rstrip(")")
    checked = cli("zones", "check", tmp_path / "game8.json", "--station", station, "--json")
    assert check == json.loads(checked.stdout)
    assert "ruled out by question" in page.inner_text("#zone-check") or not check["valid"]

    # The share link and the cost ledger.
    page.click("#share-link")
    wait_until(page, "!!sg.shareLink")
    assert "?hzc=" in page.evaluate("sg.shareLink")
    assert "Total" in page.inner_text("#ledger")

    shots = tmp_path_factory.getbasetemp() / "serve-screenshots"
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(shots / "serve-game.png"))
    assert (shots / "serve-game.png").stat().st_size > 10_000
    assert errors == [] and blocked == []


def test_a_share_link_opens_the_game(browser_page, server):
    """``?hzc=`` in the page's address: an inline error until its OSM data is ticked."""
    from support.serve_support import SHARE_LINK

    page, errors, blocked = browser_page
    code = SHARE_LINK.read_text("utf-8").strip().split("?hzc=")[1]
    page.goto(f"{server}?hzc={code}")
    wait_until(page, "window.sg && window.sg.ready", timeout=30000)
    wait_until(page, "!document.getElementById('game-error').hidden", timeout=30000)
    # The server's advice in the page's words: tick the data, on the page.
    message = page.inner_text("#game-error")
    assert "tick OSM data that covers the play area" in message and "--" not in message
    before = page.evaluate("sg.gameRendered || 0")
    page.check(".src-game[value='helsinki-centre.osm.pbf']")
    wait_until(page, f"(sg.gameRendered || 0) > {before}", timeout=30000)
    assert "hiding zones still possible: 14 of 30" in page.inner_text("#game-status")
    assert page.is_hidden("#game-error")
    # The refused request is logged by Chromium itself; nothing else went wrong.
    assert [e for e in errors if "status of 400" not in e] == [] and blocked == []
