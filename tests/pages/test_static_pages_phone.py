"""The generated pages on a phone: ``stations.html``, ``elimination.html``, ``report.html``.

Made by the CLI from the bundled real data (Sioux Falls, the Helsinki game), served from
127.0.0.1 and opened in Debian's Chromium (Playwright) as on a 390 × 844 phone with
touch. On the phone the legend and the layer control start collapsed behind a button,
the zoom buttons are visible, uncovered and 44 px tall, and the view is fitted to the
play area; on a desktop the controls are open as before. Map tiles are answered with an
empty image; any other request that does not go to 127.0.0.1 is aborted and fails the
test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    PHONE,
    keep_offline,
    serving_folder,
    sync_playwright_or_fail,
)
from support.paths import REPO, SIOUX
from support.serve_support import cli

from stations_generator.pages.offline import COLLAPSIBLE_CLASS

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 900}
SIOUX_AREA = REPO / "zones" / "sioux-falls.geojson"
HELSINKI_GAME = REPO / "examples" / "helsinki-game" / "game.json"
HELSINKI_AREA = REPO / "zones" / "helsinki-centre.geojson"
#: The page's Leaflet map (Folium declares it as a global ``var``).
MAP = "Object.values(window).find((v) => v instanceof L.Map)"


def area_bounds(path: Path) -> list[list[float]]:
    """``[[south, west], [north, east]]`` of a play-area GeoJSON file."""
    points: list[tuple[float, float]] = []

    def walk(value) -> None:
        if (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int | float) for v in value)
        ):
            points.append((float(value[0]), float(value[1])))
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for feature in json.loads(path.read_text("utf-8"))["features"]:
        walk(feature["geometry"]["coordinates"])
    lons, lats = [p[0] for p in points], [p[1] for p in points]
    return [[min(lats), min(lons)], [max(lats), max(lons)]]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    """The three pages, made by the CLI, served on 127.0.0.1."""
    out = tmp_path_factory.mktemp("phone-site")
    runs = [
        ("generate", SIOUX_AREA, "--osm", SIOUX / "pois.json", "--water", SIOUX / "water.json",
         "-o", out, "--explain", "--map"),
        ("questions", "apply", HELSINKI_GAME, "-o", out / "game", "--map"),
        ("report", SIOUX_AREA, "--osm", SIOUX / "pois.json", "-o", out / "report.json",
         "--html", out / "report.html"),
    ]  # fmt: skip
    for args in runs:
        result = cli(*args)
        assert result.exit_code == 0, result.output
    with serving_folder(out) as url:
        yield url


@pytest.fixture(scope="module")
def chromium():
    sync_playwright = sync_playwright_or_fail()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


def open_page(chromium, url: str, viewport: dict, *, phone: bool):
    """``url`` in a fresh context; returns the page, its errors and the aborted loads."""
    context = chromium.new_context(
        viewport=viewport, has_touch=phone, is_mobile=phone, device_scale_factor=3 if phone else 1
    )
    errors: list[str] = []
    aborted: list[str] = []

    keep_offline(context, aborted)
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
    page.goto(url, wait_until="load")
    page.wait_for_selector(".leaflet-control-zoom-in")
    return page, errors, aborted


def uncovered(page, selector: str) -> bool:
    """Whether the element is on screen and what a tap at its centre hits is the element."""
    return page.evaluate(
        """(selector) => {
            const element = document.querySelector(selector);
            const box = element.getBoundingClientRect();
            const x = box.left + box.width / 2, y = box.top + box.height / 2;
            if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
            const hit = document.elementFromPoint(x, y);
            return hit === element || element.contains(hit);
        }""",
        selector,
    )


def fit(page, bounds: list[list[float]]) -> dict:
    """Whether the view holds ``bounds``, and the share of the map's width or height they fill."""
    return page.evaluate(
        f"""(b) => {{
            const map = {MAP};
            const area = L.latLngBounds(b);
            const nw = map.latLngToContainerPoint(area.getNorthWest());
            const se = map.latLngToContainerPoint(area.getSouthEast());
            const size = map.getSize();
            return {{contains: map.getBounds().contains(area),
                     fill: Math.max((se.x - nw.x) / size.x, (se.y - nw.y) / size.y),
                     width: size.x, height: size.y}};
        }}""",
        bounds,
    )


PAGES = {
    "stations.html": SIOUX_AREA,
    "game/elimination.html": HELSINKI_AREA,
    "report.html": SIOUX_AREA,
}


@pytest.mark.parametrize("name", list(PAGES))
def test_a_phone_sees_the_map_with_its_controls_collapsed(site, chromium, name):
    page, errors, aborted = open_page(chromium, f"{site}/{name}", PHONE, phone=True)
    layers = page.locator(".leaflet-control-layers")
    toggle = page.locator(".leaflet-control-layers-toggle")
    legends = page.locator(f"details.{COLLAPSIBLE_CLASS}")

    # Collapsed: the layer list hidden behind its button, every legend closed.
    assert "leaflet-control-layers-expanded" not in (layers.get_attribute("class") or "")
    assert toggle.is_visible() and not page.locator(".leaflet-control-layers-list").is_visible()
    assert all(not d for d in legends.evaluate_all("(all) => all.map((d) => d.open)"))
    # The zoom buttons are there, tappable (not under a legend or control), 44 px tall.
    for button in (".leaflet-control-zoom-in", ".leaflet-control-zoom-out"):
        assert uncovered(page, button), button
        assert page.locator(button).bounding_box()["height"] >= 44
    assert uncovered(page, ".leaflet-control-layers-toggle")
    # The view is fitted to the play area: all of it on screen, filling most of it.
    shown = fit(page, area_bounds(PAGES[name]))
    assert shown["width"] == PHONE["width"] and shown["contains"], shown
    if name != "report.html":  # the report also fits the places within reach
        assert shown["fill"] >= 0.6, shown

    # Each button opens what it hides.
    if legends.count():
        summary = legends.first.locator("summary")
        assert summary.is_visible() and summary.bounding_box()["height"] >= 44
        assert uncovered(page, f"details.{COLLAPSIBLE_CLASS} > summary")
        summary.tap()
        assert legends.first.evaluate("(d) => d.open")
    toggle.tap()
    page.locator(".leaflet-control-layers-overlays").wait_for(state="visible")
    assert "leaflet-control-layers-expanded" in layers.get_attribute("class")
    assert errors == [] and aborted == []
    page.context.close()


@pytest.mark.parametrize("name", ["stations.html", "game/elimination.html"])
def test_a_desktop_keeps_the_open_legend_and_layer_list(site, chromium, name):
    page, errors, aborted = open_page(chromium, f"{site}/{name}", DESKTOP, phone=False)
    assert page.locator(".leaflet-control-layers-overlays").is_visible()
    assert not page.locator(".leaflet-control-layers-toggle").is_visible()
    legend = page.locator(f"details.{COLLAPSIBLE_CLASS}")
    assert legend.evaluate("(d) => d.open") and legend.locator("div, li").first.is_visible()
    assert uncovered(page, ".leaflet-control-zoom-in")
    assert fit(page, area_bounds(PAGES[name]))["contains"]
    assert errors == [] and aborted == []
    page.context.close()


def test_a_phone_sees_the_board_with_its_legend_collapsed(tmp_path_factory, chromium):
    """The Het Jachtseizoen board page: the same phone view (it has no layer list)."""
    out = tmp_path_factory.mktemp("board-site")
    area = REPO / "examples" / "board" / "monaco.geojson"
    osm = REPO / "tests" / "data" / "osm-extracts" / "monaco-2016.osm.pbf"
    result = cli("board", "generate", area, "--osm", osm, "--towns-above", "0", "-o", out)
    assert result.exit_code == 0, result.output
    with serving_folder(out) as url:
        page, errors, aborted = open_page(chromium, f"{url}/board.html", PHONE, phone=True)
        legend = page.locator(f"details.{COLLAPSIBLE_CLASS}")
        assert legend.count() == 1 and not legend.evaluate("(d) => d.open")
        for button in (".leaflet-control-zoom-in", ".leaflet-control-zoom-out"):
            assert uncovered(page, button), button
            assert page.locator(button).bounding_box()["height"] >= 44
        shown = fit(page, area_bounds(area))
        assert shown["width"] == PHONE["width"] and shown["contains"], shown
        summary = legend.locator("summary")
        assert summary.bounding_box()["height"] >= 44 and "Monaco" in summary.inner_text()
        summary.tap()
        assert legend.evaluate("(d) => d.open")
        assert errors == [] and aborted == []
        page.context.close()
