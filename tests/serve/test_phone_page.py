"""The ``serve`` page on a phone: real headless Chromium at 390 × 844 with touch and a
geolocation the test sets, against the real server on 127.0.0.1.

Debian's Chromium driven by Playwright (as tests/serve/test_serve_browser.py); map tiles
get an empty image and any other request off the machine is aborted and recorded. One
page load plays the field: the map fills the screen and the controls open in a bottom
sheet; the play area is drawn by touch; the stations come back; a game starts from them;
a radius question is asked at "my location" and applied; a thermometer dragged on the map
keeps to a legal distance; the hider answers from their own position after confirming it.
"""

from __future__ import annotations

import json

import pytest
import shapely
from pyproj import Geod
from support.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    PHONE,
    offline_page,
    phone_context,
    sync_playwright_or_fail,
    wait_until,
)
from support.serve_support import SIOUX_AREA, config, running_server

from stations_generator.core.questions.legal import THERMOMETER_DISTANCES_M
from stations_generator.serve.app import create_app

pytestmark = pytest.mark.slow

#: Where the phone is: downtown Sioux Falls, inside the play area (lat, lon).
HERE = (43.5446, -96.7287)
GEOD = Geod(ellps="WGS84")


def _box(page, selector: str) -> dict:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def _pixel(page, lon: float, lat: float) -> tuple[float, float]:
    """Page coordinates of a map position."""
    x, y = page.evaluate(
        """([lat, lon]) => { const p = sg.map.latLngToContainerPoint([lat, lon]);
            const r = sg.map.getContainer().getBoundingClientRect();
            return [p.x + r.left, p.y + r.top]; }""",
        [lat, lon],
    )
    return x, y


def _touch_drag(page, start: tuple[float, float], end: tuple[float, float], steps: int = 10):
    """A one-finger drag on the touch screen (DevTools touch events, as a phone sends them)."""
    cdp = page.context.new_cdp_session(page)
    (x0, y0), (x1, y1) = start, end
    cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
    )
    for k in range(1, steps + 1):
        x, y = x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )
        page.wait_for_timeout(16)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def _small_targets(page) -> list[str]:
    """Visible buttons, selects and text fields of the sheet lower than 44 px."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#sheet button, #sheet select, #sheet summary,'
              + ' #sheet input:not([type=checkbox]):not([type=radio])')]
            .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height > 0)
            .filter((e) => e.getBoundingClientRect().height < 43.5)
            .map((e) => e.id || e.outerHTML.slice(0, 60))"""
    )


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    """One phone page on the server: (page, errors, blocked)."""
    sync_playwright = sync_playwright_or_fail()
    assert CHROMIUM.exists()
    with running_server(create_app(config())) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        context = phone_context(browser, HERE)
        errors: list[str] = []
        blocked: list[str] = []
        page = offline_page(context, blocked, errors)
        try:
            page.goto(url)
            wait_until(page, "window.sg && sg.ready && sg.sheet")
            yield page, errors, blocked
        finally:
            context.close()
            browser.close()


def test_the_map_fills_the_phone_and_the_controls_open_in_a_sheet(phone):
    page, errors, blocked = phone
    header = _box(page, "header")
    map_box = _box(page, "#map")
    assert map_box["width"] == PHONE["width"]
    assert (
        map_box["y"] == header["height"] and map_box["height"] == PHONE["height"] - header["height"]
    )
    heights = {}
    for state in ("full", "peek", "half"):
        page.tap(f"#sheet-{state}")
        page.wait_for_timeout(250)  # the sheet's transition
        heights[state] = _box(page, "#sheet")["height"]
        assert page.evaluate("sg.sheet.state()") == state
    assert heights["peek"] < 200 < heights["half"] < heights["full"]
    assert heights["full"] == map_box["height"]
    # Dragged up from the peek past the middle, it snaps open; dragged down, it peeks.
    page.tap("#sheet-peek")
    page.wait_for_timeout(250)
    grip = _box(page, "#sheet-bar .grip")
    x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
    _touch_drag(page, (x, y), (x, 120))
    page.wait_for_timeout(250)
    assert page.evaluate("sg.sheet.state()") == "full"
    grip = _box(page, "#sheet-bar .grip")
    _touch_drag(page, (x, grip["y"] + 10), (x, PHONE["height"] - 60))
    page.wait_for_timeout(250)
    assert page.evaluate("sg.sheet.state()") == "peek"
    page.tap("#sheet-full")
    page.wait_for_timeout(250)
    # Every control of the sheet is a tap target of 44 px or more, in words.
    assert _small_targets(page) == []
    assert "Cluster radius (m)" in page.inner_text("#settings")
    # Turned sideways: the map still fills the screen, the sheet keeps to a part of it.
    page.set_viewport_size({"width": PHONE["height"], "height": PHONE["width"]})
    page.tap("#sheet-peek")
    page.wait_for_timeout(250)
    map_box, sheet = _box(page, "#map"), _box(page, "#sheet")
    assert map_box["width"] == PHONE["height"] and sheet["width"] == PHONE["height"]
    assert sheet["height"] < 0.4 * map_box["height"]
    page.set_viewport_size(PHONE)
    page.tap("#sheet-full")
    page.wait_for_timeout(250)
    assert errors == [] and blocked == []


def test_a_game_played_on_the_phone(phone, tmp_path_factory):
    page, errors, blocked = phone
    ring = json.loads(SIOUX_AREA.read_text("utf-8"))["features"][0]["geometry"]["coordinates"][0]
    corners = [tuple(p) for p in ring[:-1]]
    lons, lats = [c[0] for c in corners], [c[1] for c in corners]
    page.evaluate(
        "b => { sg.map.fitBounds(b, {animate: false, paddingTopLeft: [30, 30], paddingBottomRight: [30, 200]}); }",
        [[min(lats), min(lons)], [max(lats), max(lons)]],
    )

    # Draw the play area by touch: the sheet steps aside, each corner is a tap.
    page.tap("#draw-area")
    assert page.evaluate("sg.sheet.state()") == "peek"
    page.wait_for_timeout(250)
    for lon, lat in [*corners, corners[0]]:
        page.touchscreen.tap(*_pixel(page, lon, lat))
        page.wait_for_timeout(80)
    wait_until(page, "(sg.rendered || 0) >= 1 && sg.seq === sg.shown")
    result = page.evaluate("sg.result")
    drawn = shapely.geometry.shape(page.evaluate("sg.requestBody().play_area.features[0].geometry"))
    # Every corner where it was tapped (to the pixel: ~100 m at this zoom).
    assert drawn.symmetric_difference(shapely.Polygon(corners)).area < 2e-2 * drawn.area, drawn.wkt
    assert result["stations"] > 90
    assert page.locator(".leaflet-overlay-pane path[stroke='#0277bd']").count() == 1
    assert "Stations:" in page.inner_text("#status")

    # Start a game from the station map.
    page.tap("#tab-game")
    page.tap("#sheet-half")
    page.tap("#game-from-map")
    wait_until(page, "(sg.gameRendered || 0) >= 1")
    full_km2 = page.evaluate("sg.gameResult.remaining_km2")

    # A radius question at "my location": the live position, then the question applied.
    page.select_option("#q-type", "radius")
    page.fill("#q-distance", "2 km")
    page.select_option("#q-answer", "within")
    page.tap("#q-here")
    wait_until(page, "!document.getElementById('q-add').disabled")
    assert page.evaluate("sg.location.state.last.accuracy") == 12
    assert "Your location (±12 m)" in page.inner_text("#q-where")
    before = page.evaluate("sg.gameRendered")
    page.tap("#q-add")
    wait_until(page, f"sg.gameRendered > {before}")
    question = page.evaluate("sg.game.doc.questions[0]")
    assert question["seeker"] == {"lat": HERE[0], "lon": HERE[1]}
    assert question["radius"] == "2 km"
    remaining = page.evaluate("sg.gameResult.remaining_km2")
    assert 0 < remaining < full_km2  # a 2 km circle: the rest is gone
    assert 4 * 3.1 < remaining < 4 * 3.2  # π r² (r = 2 km) within the area

    # A thermometer dragged on the map keeps to the game size's legal distances.
    page.select_option("#q-type", "thermometer")
    page.tap("#q-here")  # the start: my location
    wait_until(page, "sg.thermometer()")
    page.tap("#sheet-peek")
    page.wait_for_timeout(250)
    # (A function returning nothing: Playwright would serialise the returned map.)
    page.evaluate("() => { sg.map.setView([43.5446, -96.7287], 13, {animate: false}); }")
    size = page.evaluate("sg.gameResult.game_size")
    legal = THERMOMETER_DISTANCES_M[size]
    # Drag the handle to ~1.3 km north-east of the start.
    _lon, _lat, _ = GEOD.fwd(HERE[1], HERE[0], 45, 1300)
    start_px = _pixel(
        page, *page.evaluate("[sg.thermometer().handle.lng, sg.thermometer().handle.lat]")
    )
    _touch_drag(page, start_px, _pixel(page, _lon, _lat))
    wait_until(page, "sg.thermometerDragged >= 1")
    thermo = page.evaluate("sg.thermometer()")
    assert thermo["distance"] in legal and thermo["distance"] == 1000
    azimuth, _back, metres = GEOD.inv(HERE[1], HERE[0], thermo["end"]["lng"], thermo["end"]["lat"])
    assert abs(metres - 1000) < 0.01 and abs(azimuth - 45) < 3
    assert page.input_value("#q-distance") == "1 km"
    page.tap("#sheet-half")
    page.select_option("#q-answer", "hotter")
    before = page.evaluate("sg.gameRendered")
    page.tap("#q-add")
    wait_until(page, f"sg.gameRendered > {before}")
    assert page.evaluate("sg.game.doc.questions[1].distance") == "1 km"
    assert page.is_hidden("#game-error")

    # Hider mode from the hider's own position: shown first, answered once confirmed.
    page.tap("#hider-here")
    wait_until(page, "!document.getElementById('hider-confirm').hidden")
    assert "43.54460, -96.72870 (±12 m)" in page.inner_text("#hider-where")
    page.tap("#hider-confirm")
    wait_until(page, "sg.hiderAnswers && sg.hiderAnswers.length === 2")
    assert page.evaluate("sg.hiderPosition") == f"{HERE[0]:.6f},{HERE[1]:.6f}"
    assert page.evaluate("sg.hiderAnswers[0].answer") == "within"
    # The player's position is on the map, live: a dot and its accuracy circle.
    assert page.locator(".leaflet-overlay-pane path[fill='#1565c0']").count() >= 1

    page.tap("#sheet-half")
    remaining = json.loads(page.evaluate("sg.gameResult.files['remaining.geojson']"))
    zone = next(f for f in remaining["features"] if f["id"] == "remaining")
    w, south, e, north = shapely.geometry.shape(zone["geometry"]).bounds
    page.evaluate(
        "b => { sg.map.fitBounds(b, {animate: false, paddingTopLeft: [20, 20], paddingBottomRight: [20, 420]}); }",
        [[south, w], [north, e]],
    )
    page.wait_for_timeout(300)
    shots = tmp_path_factory.getbasetemp() / "serve-screenshots"
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(shots / "serve-phone.png"))
    assert (shots / "serve-phone.png").stat().st_size > 10_000
    assert errors == [] and blocked == []


def test_every_setting_has_a_players_label_and_words_for_its_range():
    """The settings panel's metadata: a label per setting, help and ranges in words (no
    ``--flag`` and no ``1<=x<=20037508.0``), the CLI's own help left as it is."""
    from stations_generator.serve.options import describe_options

    options = describe_options()
    labels = [o["label"] for o in options]
    assert len(set(labels)) == len(labels) and all(labels)
    for o in options:
        assert "--" not in o["page_help"] and "<=" not in o["page_help"] + o["limits"], o
        assert o["flag"].startswith("--") and o["help"]
    by_name = {o["name"]: o for o in options}
    assert by_name["cluster_radius"]["label"] == "Cluster radius (m)"
    assert by_name["min_spacing"]["limits"] == "1 or more"
    assert by_name["max_per_cluster"]["limits"] == "0 or more"
    assert "“Solve exactly (slower)”" in by_name["time_limit"]["page_help"]
    assert "--optimize" in by_name["time_limit"]["help"]
