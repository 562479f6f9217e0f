"""The station map in a real headless Chromium, offline.

The page is generated from the bundled Sioux Falls data with the ``generate`` CLI and
the ``map`` command, served from 127.0.0.1, and opened in Debian's Chromium driven by
Playwright (``executable_path``; Playwright never downloads a browser here). Every
request that does not go to 127.0.0.1 is aborted — map tiles included — so the page
can only work if its JavaScript and CSS are inline.

Needs the ``playwright`` package and ``/usr/bin/chromium`` (``scripts/install-test-services.sh``
installs it). Without them the tests fail with the reason.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import click
import pytest
from click.testing import CliRunner
from support.browser import CHROMIUM, CHROMIUM_FLAGS, serving_folder, sync_playwright_or_fail
from support.paths import REPO, SIOUX

from stations_generator.app.maps import read_station_file, write_map_html
from stations_generator.cli import Group, main
from stations_generator.commands.console import use_console
from stations_generator.commands.maps import map_command
from stations_generator.pages.folium_map import LEGEND_ID, PIN_CLASS, station_map

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """The generated Sioux Falls outputs and maps, served on 127.0.0.1."""
    out = tmp_path_factory.mktemp("site")
    generated = CliRunner().invoke(
        main,
        [
            "generate",
            str(REPO / "zones" / "sioux-falls.geojson"),
            "--osm",
            str(SIOUX / "pois.json"),
            "--water",
            str(SIOUX / "water.json"),
            "-o",
            str(out),
            "--explain",
        ],
    )
    assert generated.exit_code == 0, generated.output

    @click.group(cls=Group)
    @click.pass_context
    def group(ctx: click.Context) -> None:
        use_console(ctx, 0)

    group.add_command(map_command)
    mapped = CliRunner().invoke(
        group,
        [
            "map",
            str(out / "stations.geojson"),
            "--candidates",
            str(out / "candidates.geojson"),
            "-o",
            str(out / "stations.html"),
        ],
    )
    assert mapped.exit_code == 0, mapped.output
    stations, play_area, exclusions = read_station_file(out / "stations.geojson")
    write_map_html(
        out / "clustered.html",
        station_map(stations, play_area, exclusions, cluster_markers_above=50),
    )

    applied = CliRunner().invoke(
        main,
        [
            "questions",
            "apply",
            str(REPO / "examples/helsinki-game/game.json"),
            "-o",
            str(out / "game"),
            "--map",
        ],
    )
    assert applied.exit_code == 0, applied.output

    with serving_folder(out) as url:
        yield url, out


class Session:
    """One page in a fresh Chromium profile with the network cut off."""

    def __init__(self, context, page) -> None:
        self.context = context
        self.page = page
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.console_errors: list[tuple[str, str]] = []

    def real_errors(self) -> list[str]:
        """Page errors and console errors, except the loads we aborted on purpose."""
        console = [
            text
            for text, url in self.console_errors
            if not (url in self.blocked and "ERR_FAILED" in text)
        ]
        return self.errors + console


@pytest.fixture
def browser(tmp_path) -> Iterator[Session]:
    sync_playwright = sync_playwright_or_fail()
    profile = tmp_path / "profile"  # a new, empty user-data-dir
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        page = context.pages[0] if context.pages else context.new_page()
        session = Session(context, page)

        def route(route) -> None:
            if urlsplit(route.request.url).hostname == "127.0.0.1":
                route.continue_()
            else:
                session.blocked.append(route.request.url)
                route.abort()

        context.route("**/*", route)
        page.on("pageerror", lambda exc: session.errors.append(str(exc)))
        page.on(
            "console",
            lambda msg: (
                session.console_errors.append((msg.text, msg.location.get("url", "")))
                if msg.type == "error"
                else None
            ),
        )
        try:
            yield session
        finally:
            context.close()
    shutil.rmtree(profile, ignore_errors=True)


def _station_names(folder: Path) -> list[dict]:
    data = json.loads((folder / "stations.geojson").read_text())
    return [f["properties"] for f in data["features"] if f["properties"]["role"] == "station"]


def test_station_map_works_offline_in_chromium(site, browser, tmp_path):
    base, folder = site
    stations = _station_names(folder)
    page = browser.page
    page.goto(f"{base}/stations.html", wait_until="load")
    page.wait_for_function("window.stationMap !== undefined")

    # One Leaflet marker element per station.
    pins = page.locator(f".leaflet-marker-icon.{PIN_CLASS}")
    assert pins.count() == len(stations) > 0
    assert page.evaluate("window.stationMap.stations.getLayers().length") == len(stations)

    # Legend and layer control.
    assert page.locator(f"#{LEGEND_ID}").is_visible()
    assert f"{len(stations)} stations" in page.locator(f"#{LEGEND_ID}").inner_text()
    overlays = page.locator(".leaflet-control-layers-overlays label").all_inner_texts()
    overlays = [o.strip() for o in overlays]
    assert "Hiding zones (402 m)" in overlays
    assert any(o.startswith("Rejected candidates (") for o in overlays)

    # Clicking a pin opens its popup with the wait range and tier.
    names = [s["name"] for s in stations]
    chosen = next(s for s in stations if s["name"] and names.count(s["name"]) == 1)
    page.locator(f'.{PIN_CLASS}[title="{chosen["name"]}"]').click()
    popup = page.locator(".leaflet-popup-content")
    popup.wait_for(state="visible")
    text = popup.inner_text()
    assert chosen["name"] in text
    assert f"Wait {chosen['wait_min']}–{chosen['wait_max']} min ({chosen['density_tier']})" in text
    assert f"OpenStreetMap {chosen['osm_type']}/{chosen['osm_id']}" in text

    # The rejected-candidates layer switches on and adds its canvas shapes.
    page.locator(".leaflet-control-layers-overlays label", has_text="Rejected candidates").click()
    on_map = page.evaluate(
        "(() => { let n = 0; window.stationMap.map.eachLayer(l => {"
        " if (l instanceof L.CircleMarker && !(l instanceof L.Circle)) n++; }); return n; })()"
    )
    assert on_map == page.evaluate("window.stationMap.rejectedCount") > 0

    page.wait_for_timeout(400)  # let the popup's fade-in finish for the screenshot
    shot = tmp_path / "stations.png"
    page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    assert browser.real_errors() == []
    # The only requests that left the page were map tiles, and all were aborted.
    assert browser.blocked, "the page should ask for map tiles"
    assert all(urlsplit(u).hostname == "tile.openstreetmap.org" for u in browser.blocked)


def test_clustered_map_holds_every_station(site, browser, tmp_path):
    base, folder = site
    count = len(_station_names(folder))
    page = browser.page
    page.goto(f"{base}/clustered.html", wait_until="load")
    page.wait_for_function("window.stationMap !== undefined")
    assert page.evaluate("window.stationMap.stations.getLayers().length") == count
    clusters = page.locator(".marker-cluster")
    assert clusters.count() > 0
    in_clusters = sum(int(t) for t in clusters.all_inner_texts())
    single = page.locator(f".leaflet-marker-icon.{PIN_CLASS}").count()
    assert in_clusters + single == count
    # Clicking a cluster zooms in: more single pins are shown afterwards.
    clusters.first.click()
    page.wait_for_function(
        f"document.querySelectorAll('.leaflet-marker-icon.{PIN_CLASS}').length > {single}"
    )
    page.screenshot(path=str(tmp_path / "clustered.png"))
    assert browser.real_errors() == []
    assert all(urlsplit(u).hostname == "tile.openstreetmap.org" for u in browser.blocked)


def test_page_has_no_remote_script_or_style(site):
    _, folder = site
    html = (folder / "stations.html").read_text()
    assert not re.search(r"<script[^>]*\bsrc=|<link\b", html)


def test_elimination_map_in_chromium(site, browser, tmp_path):
    from stations_generator.pages.elimination_map import LEGEND_ID as ELIMINATION_LEGEND

    base, folder = site
    zones = json.loads((folder / "game" / "zones.geojson").read_text())["features"]
    steps = json.loads((folder / "game" / "remaining.geojson").read_text())["features"][1:]
    page = browser.page
    page.goto(f"{base}/game/elimination.html", wait_until="load")
    page.wait_for_selector(".leaflet-control-layers-overlays")
    overlays = [
        o.strip() for o in page.locator(".leaflet-control-layers-overlays label").all_inner_texts()
    ]
    # A layer per question, labelled with its answer, plus the fixed layers.
    for k, step in enumerate(steps, 1):
        props = step["properties"]
        assert f"{k}. {props['label']}: {props['answer']}" in overlays
    assert {"Remaining area", "Possible hiding zones", "Impossible hiding zones"} <= set(overlays)
    legend = page.locator(f"#{ELIMINATION_LEGEND}")
    assert legend.is_visible()
    possible = sum(1 for z in zones if z["properties"]["possible"])
    assert f"zones possible {possible} of {len(zones)}" in legend.inner_text()
    counts = page.evaluate(
        "(() => { const c = {possible: 0, impossible: 0}; for (const k of Object.keys(window)) {"
        " const v = window[k]; if (v instanceof L.Circle) {"
        " if (v.options.className === 'sg-zone-possible') c.possible++;"
        " if (v.options.className === 'sg-zone-impossible') c.impossible++; } } return c; })()"
    )
    assert counts == {"possible": possible, "impossible": len(zones) - possible}
    # Switching a question's layer off removes its shapes from the map.
    first = page.locator(".leaflet-control-layers-overlays label").filter(has_text="1. ")
    before = page.evaluate(
        "(() => { let n = 0; Object.values(window).forEach(v => {"
        " if (v && v._map && v instanceof L.Path) n++; }); return n; })()"
    )
    first.click()
    after = page.evaluate(
        "(() => { let n = 0; Object.values(window).forEach(v => {"
        " if (v && v._map && v instanceof L.Path) n++; }); return n; })()"
    )
    assert after < before
    page.screenshot(path=str(tmp_path / "elimination.png"))
    assert browser.real_errors() == []
