"""Accessibility: axe-core finds no serious or critical violation; colour never carries
meaning alone; the API page (``/docs``) works offline.

axe-core is vendored for the tests (``tests/support/vendor/axe-core/``, MPL-2.0) and
injected into the pages in Debian's Chromium: the ``serve`` page in both its views
(Station map and Game) on a 390 × 844 phone, and the generated ``stations.html`` and
``elimination.html`` (desktop: legends and layer list open, so all their text is
checked). The palette tests draw the real Sioux Falls map and the Helsinki game with
``palette="okabe-ito"``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from support.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    PHONE,
    axe_violations,
    serving_folder,
    sync_playwright_or_fail,
    wait_until,
)
from support.paths import REPO, SIOUX
from support.serve_support import api_client, cli, config, running_server

from stations_generator import api
from stations_generator.pages.elimination_map import IMPOSSIBLE_DASH, NUMBER_CLASS, elimination_map
from stations_generator.pages.folium_map import station_map
from stations_generator.pages.offline import render_station_map
from stations_generator.pages.palette import CLUSTER_DASHES, OKABE_ITO, PALETTES, palette
from stations_generator.serve.app import create_app

SIOUX_AREA = REPO / "zones" / "sioux-falls.geojson"
HELSINKI_GAME = REPO / "examples" / "helsinki-game" / "game.json"
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def chromium():
    sync_playwright = sync_playwright_or_fail()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


def new_page(chromium, viewport: dict, *, phone: bool = False):
    """A page in a fresh context that reaches only 127.0.0.1; the list of what it tried
    elsewhere (map tiles included) and of its errors, Content-Security-Policy
    violations among them."""
    context = chromium.new_context(viewport=viewport, has_touch=phone, is_mobile=phone)
    elsewhere: list[str] = []
    errors: list[str] = []

    def route(route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    context.add_init_script(
        "document.addEventListener('securitypolicyviolation', (e) => console.error("
        "'CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))"
    )
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on(
        "console",
        lambda m: m.type == "error" and "ERR_FAILED" not in m.text and errors.append(m.text),
    )
    return page, elsewhere, errors


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server(create_app(config())) as url:
        yield url


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    """``stations.html`` (with the rejected candidates) and ``game/elimination.html``,
    made by the CLI from the bundled data, served on 127.0.0.1."""
    out = tmp_path_factory.mktemp("a11y-site")
    runs = [
        ("generate", SIOUX_AREA, "--osm", SIOUX / "pois.json", "--water", SIOUX / "water.json",
         "-o", out, "--explain", "--map"),
        ("questions", "apply", HELSINKI_GAME, "-o", out / "game", "--map"),
    ]  # fmt: skip
    for args in runs:
        result = cli(*args)
        assert result.exit_code == 0, result.output
    with serving_folder(out) as url:
        yield url


# ------------------------------------------------------------------ axe-core in Chromium


@pytest.mark.slow
def test_the_serve_page_has_no_serious_violation_in_either_view(server, chromium):
    page, _elsewhere, errors = new_page(chromium, PHONE, phone=True)
    page.goto(server)
    wait_until(page, "window.sg && window.sg.ready")
    found = {"Station map": axe_violations(page)}
    game = page.get_by_role("tab", name="Game", exact=True).or_(
        page.get_by_role("button", name="Game", exact=True)
    )
    game.first.click()
    wait_until(
        page,
        "[...document.querySelectorAll('[role=tab], button')].some((b) =>"
        " b.textContent.trim() === 'Game' && (b.getAttribute('aria-selected') === 'true'"
        " || b.classList.contains('active')))",
    )
    found["Game"] = axe_violations(page)
    assert found == {"Station map": [], "Game": []}
    assert [e for e in errors if "CSP violation" in e] == []
    page.context.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["stations.html", "game/elimination.html"])
def test_the_generated_pages_have_no_serious_violation(site, chromium, name):
    page, _elsewhere, errors = new_page(chromium, DESKTOP)
    page.goto(f"{site}/{name}", wait_until="load")
    page.wait_for_selector(".leaflet-control-layers-overlays")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert axe_violations(page) == []
    assert errors == []
    page.context.close()


@pytest.mark.slow
def test_the_api_page_works_offline(server, chromium):
    page, elsewhere, errors = new_page(chromium, DESKTOP)
    answer = page.goto(server + "docs")
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in policy and "style-src 'self';" in policy
    assert "https:" not in policy and "http:" not in policy
    # Swagger UI's own DOM, drawn from the API's OpenAPI document.
    page.wait_for_selector(".swagger-ui .info .title", timeout=15000)
    assert "stations-generator" in page.locator(".swagger-ui .info .title").inner_text()
    paths = json.loads(page.context.request.get(server + "openapi.json").text())["paths"]
    page.wait_for_selector(".opblock")
    shown = page.locator(".opblock-summary-path").evaluate_all(
        "(all) => all.map((e) => e.getAttribute('data-path'))"
    )
    assert set(shown) == set(paths) and "/api/health" in shown
    assert elsewhere == [] and errors == []
    page.context.close()


def test_the_api_page_links_only_the_vendored_swagger_ui():
    client = api_client(create_app(config()))
    links = re.findall(r'(?:src|href)="([^"]+)"', client.get("/docs").text)
    assert len(links) == 3 and all(u.startswith("/assets/swagger-ui/") for u in links), links
    for url in links:
        answer = client.get(url)
        assert answer.status_code == 200 and len(answer.content) > 500, url
        assert b"sourceMappingURL" not in answer.content[-300:]
    vendor = REPO / "stations_generator" / "data" / "vendor" / "swagger-ui"
    assert "Apache License" in (vendor / "LICENSE").read_text()
    assert "SmartBear" in (vendor / "NOTICE").read_text()


# ------------------------------------------------------------------ colour and its twins


@pytest.fixture(scope="module")
def sioux(tmp_path_factory):
    out = tmp_path_factory.mktemp("palette-sioux")
    result = cli(
        "generate", SIOUX_AREA, "--osm", SIOUX / "pois.json", "--water", SIOUX / "water.json",
        "-o", out, "--explain",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    from stations_generator.app.maps import read_candidates_file, read_station_file

    stations, area, exclusions = read_station_file(out / "stations.geojson")
    return stations, area, exclusions, read_candidates_file(out / "candidates.geojson")


def payload(page: str) -> dict:
    """The station map's JSON payload (``var data = …;`` in the page)."""
    return json.loads(re.search(r"var data = (\{.*?\});\n", page).group(1))


def test_the_okabe_ito_map_uses_only_its_colours(sioux):
    stations, area, exclusions, candidates = sioux
    page = render_station_map(
        station_map(stations, area, exclusions, candidates=candidates, palette="okabe-ito")
    )
    data = payload(page)
    used = {c["colour"] for c in data["categories"]} | set(data["clusters"])
    used |= {r["colour"] for r in data["reasons"]}
    assert used <= set(OKABE_ITO) and len(used) > 4
    legend = re.findall(r'class="sg-(?:swatch|dot)" style="background:(#[0-9a-f]{6})"', page)
    assert legend and set(legend) <= set(OKABE_ITO)
    # The default palette's colours are not the same: the option changes the page.
    default = payload(render_station_map(station_map(stations, area, exclusions)))
    assert set(default["clusters"]) - set(OKABE_ITO)


def test_neighbouring_clusters_differ_in_ring_pattern_too(sioux):
    stations, area, exclusions, _ = sioux
    data = payload(render_station_map(station_map(stations, area, exclusions)))
    assert len(data["clusterDashes"]) == len(data["clusters"])
    assert set(data["clusterDashes"]) <= set(CLUSTER_DASHES) and len(set(data["clusterDashes"])) > 1
    # Two stations of different clusters within the gap-ring neighbourhood (3 × 1000 m)
    # differ in dash pattern wherever the four patterns allow: count the clashes.
    from pyproj import Geod

    geod = Geod(ellps="WGS84")
    by_cluster: dict[int, tuple[float, float]] = {}
    for s in data["stations"]:
        by_cluster.setdefault(s["c"], (s["lon"], s["lat"]))
    clusters = sorted(by_cluster)
    pairs = same = 0
    for i, a in enumerate(clusters):
        for b in clusters[i + 1 :]:
            (lon1, lat1), (lon2, lat2) = by_cluster[a], by_cluster[b]
            if geod.inv(lon1, lat1, lon2, lat2)[2] < 1500:
                pairs += 1
                same += data["clusterDashes"][a] == data["clusterDashes"][b]
    assert pairs > 0 and same <= pairs // 4, (same, pairs)


def test_eliminated_areas_carry_their_number_and_impossible_zones_a_dash():
    game = api.read_game(HELSINKI_GAME)
    elimination = game.eliminate()
    zones = game.possible_zones()
    page = render_station_map(elimination_map(game, elimination, zones, palette="okabe-ito"))
    # Folium writes the number's HTML into a JSON string: quotes and brackets escaped.
    marks = re.findall(
        NUMBER_CLASS + r'\\" style=\\"border-color:(#[0-9a-f]{6})\\"\\u003e(\d+)\\u003c', page
    )
    removed = [k for k, step in enumerate(elimination.steps, 1) if not step.removed.is_empty]
    assert [int(k) for _colour, k in marks] == removed and removed
    assert {colour for colour, _k in marks} <= set(OKABE_ITO)
    impossible = sum(1 for z in zones if not z.possible)
    assert impossible and page.count(f'"dashArray": "{IMPOSSIBLE_DASH}"') == impossible
    assert set(re.findall(r'"fillColor": "(#[0-9a-f]{6})"', page)) <= set(OKABE_ITO) | {
        palette("okabe-ito").impossible
    }


def test_an_unknown_palette_is_refused_by_name(sioux):
    stations, area, exclusions, _ = sioux
    assert PALETTES == ("default", "okabe-ito")
    with pytest.raises(ValueError, match=r"^palette: 'viridis' is not one of default, okabe-ito"):
        station_map(stations, area, exclusions, palette="viridis")


def test_the_commands_write_their_maps_in_the_palette_asked_for(tmp_path):
    out = tmp_path / "sioux"
    generated = cli(
        "generate", SIOUX_AREA, "--osm", SIOUX / "pois.json", "--water", SIOUX / "water.json",
        "-o", out, "--map", "--palette", "okabe-ito",
    )  # fmt: skip
    assert generated.exit_code == 0, generated.output
    mapped = cli(
        "map", out / "stations.geojson", "-o", tmp_path / "again.html", "--palette", "okabe-ito"
    )
    assert mapped.exit_code == 0, mapped.output
    generate_page = (out / "stations.html").read_text("utf-8")
    assert set(payload(generate_page)["clusters"]) <= set(OKABE_ITO)
    assert payload((tmp_path / "again.html").read_text("utf-8")) == payload(generate_page)
    applied = cli(
        "questions",
        "apply",
        HELSINKI_GAME,
        "-o",
        tmp_path / "game",
        "--map",
        "--palette",
        "okabe-ito",
    )
    assert applied.exit_code == 0, applied.output
    page = (tmp_path / "game" / "elimination.html").read_text("utf-8")
    assert palette("okabe-ito").possible in page and palette("default").possible not in page
    refused = cli("map", out / "stations.geojson", "--palette", "viridis")
    assert (
        refused.exit_code != 0
        and "'viridis' is not one of 'default', 'okabe-ito'" in refused.output
    )
