"""Hostile text in every page: user and OSM strings arrive as text, never as markup or code.

Each page is built twice from real data — once with hostile strings in every user or OSM
field (station, place and start names, categories, opening hours, tiers, rejection
reasons, titles, notes), once with plain strings in the same fields — and parsed with
``html.parser``. The property: both pages have the same elements with the same
attributes (nothing the page did not make itself: no ``img``/``svg``, no ``on…``
handler, no extra ``<script>``), every Folium tooltip (a JavaScript template literal)
holds no backtick, ``${`` or backslash, no layer name carries markup, and each hostile
string can be read back verbatim from the page's text, attributes, tooltips or data.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.board_cases import real_board
from support.browser import CHROMIUM, CHROMIUM_FLAGS, sync_playwright_or_fail
from support.paths import REPO, SIOUX

from stations_generator.api import apply_game, read_game
from stations_generator.app.games import elimination_page
from stations_generator.app.maps import read_candidates_file, read_station_file, write_map_html
from stations_generator.board.page import board_page, highlight_page
from stations_generator.cli import main
from stations_generator.pages.folium_map import station_map
from stations_generator.pages.offline import (
    StyledBlock,
    html_text,
    offline_map,
    render_station_map,
)

HOSTILE = (
    "x</title></script><img src=x onerror=alert(1)>",
    "\"'><svg onload=alert(2)>",
    "{{7*7}} {% raw %}{{ cycler.__init__.__globals__ }}",
    "`${alert(3)}`\\",
    "line\u2028sep\u2029 <!-- <script>alert(4)</script>",
)
PLAIN = tuple(f"plain text {i}" for i in range(len(HOSTILE)))
#: Hostile strings for file names (no "/"): the report's title is its area's file name.
FILE_SAFE = "x\"'><svg onload=alert(5)> {{7*7}} `${alert(6)}`"

_TOOLTIP = re.compile(r"bindTooltip\(\s*`<div[^>]*>(.*?)</div>`", re.DOTALL)
_LAYER_NAME = re.compile(r'("(?:[^"\\]|\\.)*")\s*:\s*(?:feature_group|geo_json|marker_cluster)_')
_PAYLOAD = re.compile(r"var data = (\{.*?\});\n")


class Census(HTMLParser):
    """Every element with its attribute names, the text, the attribute values."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: Counter = Counter()
        self.handlers: list[tuple[str, str]] = []
        self.texts: list[str] = []
        self.values: list[str] = []
        self.title = ""
        self._in_title = False
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements[(tag, tuple(sorted(name for name, _v in attrs)))] += 1
        self.handlers += [(tag, name) for name, _v in attrs if name.startswith("on")]
        self.values += [v for _n, v in attrs if v]
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        self.texts.append(data)
        if self._in_title:
            self.title += data


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def readable(page: str) -> list[str]:
    """Everything a reader of the page sees as text: body text, attributes, tooltips,
    layer names, the station payload's strings (decoded)."""
    census = Census(page)
    out = [*census.texts, *census.values]
    out += [html.unescape(t) for t in _TOOLTIP.findall(page)]
    out += [html.unescape(json.loads(n)) for n in _LAYER_NAME.findall(page)]
    match = _PAYLOAD.search(page)
    if match:
        out += _strings(json.loads(match.group(1)))
    return out


def assert_inert(page: str, plain_page: str, hostile: tuple[str, ...]) -> None:
    """The page property of the module docstring."""
    census, plain = Census(page), Census(plain_page)
    assert census.elements == plain.elements, "the hostile text changed the page's elements"
    assert not any(tag in ("img", "svg") for tag, _attrs in census.elements)
    assert census.handlers == plain.handlers == []
    tooltips = _TOOLTIP.findall(page)
    assert len(tooltips) == len(_TOOLTIP.findall(plain_page))
    for text in tooltips:
        assert "`" not in text and "${" not in text and "\\" not in text, text
    for name in _LAYER_NAME.findall(page):
        assert "<" not in json.loads(name), name  # Leaflet sets layer names as HTML
    seen = "\n".join(readable(page))
    for text in hostile:
        assert text in seen, f"{text!r} is not shown verbatim"
    assert "49" not in census.title  # "{{7*7}}" was not evaluated


def _cycle(names: tuple[str, ...], i: int) -> str:
    return names[i % len(names)]


# --------------------------------------------------------------------------- stations.html


def _renamed_pois(folder: Path, names: tuple[str, ...]) -> Path:
    elements = json.loads((SIOUX / "pois.json").read_text())
    for i, element in enumerate(elements):
        tags = element.get("tags") or {}
        if "name" in tags:
            tags["name"] = _cycle(names, i)
            tags["opening_hours"] = _cycle(names, i + 1)
    path = folder / "pois.json"
    path.write_text(json.dumps(elements))
    return path


def _generate(folder: Path, names: tuple[str, ...]) -> Path:
    out = folder / "out"
    result = CliRunner().invoke(
        main,
        [
            "generate",
            str(REPO / "zones" / "sioux-falls.geojson"),
            "--osm",
            str(_renamed_pois(folder, names)),
            "--water",
            str(SIOUX / "water.json"),
            "-o",
            str(out),
            "--search",
            "0",
            "--explain",
            "--map",
            "--name",
            " ".join(names),
        ],
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, Path]:
    """``generate --map --name …`` on Sioux Falls with every OSM name hostile, and plain."""
    return {
        "hostile": _generate(tmp_path_factory.mktemp("hostile"), HOSTILE),
        "plain": _generate(tmp_path_factory.mktemp("plain"), PLAIN),
    }


def test_generate_writes_hostile_names_as_text(generated):
    page = (generated["hostile"] / "stations.html").read_text()
    plain = (generated["plain"] / "stations.html").read_text()
    assert_inert(page, plain, HOSTILE)
    assert Census(page).title == " ".join(HOSTILE)


_STATION_FIELDS = ("name", "category", "density_tier", "open_during_play", "opening_hours")
_CANDIDATE_FIELDS = (*_STATION_FIELDS, "reason", "conflict_with")


def _station_page(out: Path, names: tuple[str, ...]) -> str:
    """The map of ``generate``'s files with every text field of every record replaced."""
    stations, area, exclusions = read_station_file(out / "stations.geojson")
    candidates = read_candidates_file(out / "candidates.geojson")
    stations = stations.copy()
    candidates = candidates.copy()
    for frame, fields in ((stations, _STATION_FIELDS), (candidates, _CANDIDATE_FIELDS)):
        for k, field in enumerate(fields):
            frame[field] = [_cycle(names, i + k) for i in range(len(frame))]
    m = station_map(stations, area, exclusions, candidates=candidates, title=names[0])
    path = out / "renamed.html"
    write_map_html(path, m)
    return path.read_text()


def test_every_station_field_is_text(generated):
    page = _station_page(generated["hostile"], HOSTILE)
    assert_inert(page, _station_page(generated["plain"], PLAIN), HOSTILE)
    payload = json.loads(_PAYLOAD.search(page).group(1))
    names = {s["name"] for s in payload["stations"]}
    assert names <= set(HOSTILE) and len(names) > 1  # exactly the hostile strings


def test_clustered_station_map_is_inert(generated):
    def page(names: tuple[str, ...]) -> str:
        stations, area, exclusions = read_station_file(generated["plain"] / "stations.geojson")
        stations = stations.copy()
        stations["name"] = [_cycle(names, i) for i in range(len(stations))]
        path = generated["plain"] / "clustered.html"
        write_map_html(path, station_map(stations, area, exclusions, cluster_markers_above=5))
        return path.read_text()

    assert_inert(page(HOSTILE), page(PLAIN), HOSTILE)


def test_styled_blocks_are_not_read_as_templates():
    """Branca reads a macro's output once more as a template; StyledBlock's body is not."""
    m = offline_map([[0.0, 0.0], [1.0, 1.0]], title="t")
    StyledBlock("Probe", "", "<p id=probe>{{ 7*7 }} {% if x %}</p>").add_to(m)
    assert "<p id=probe>{{ 7*7 }} {% if x %}</p>" in render_station_map(m)


def test_html_text_is_inert_as_html_and_in_template_literals():
    for text in HOSTILE:
        out = html_text(text)
        assert not set("<>\"'`$\\{}%") & set(out)
        assert html.unescape(out) == text
    assert html_text(None) == ""


# --------------------------------------------------------------------------- board.html


def _named_board(names: tuple[str, ...]):
    board = real_board("monaco", 36, 24)
    return dataclasses.replace(
        board,
        name=names[0],
        starts=[
            (s, _cycle(names, i), _cycle(names, i + 1))
            for i, (s, _n, _k) in enumerate(board.starts)
        ],
        cities={s: _cycle(names, i) for i, s in enumerate(board.cities)},
        airfields={s: _cycle(names, i) for i, s in enumerate(board.airfields)},
        junctions={s: [_cycle(names, i)] for i, s in enumerate(board.junctions)},
    )


def test_board_page_is_inert():
    hostile, plain = _named_board(HOSTILE), _named_board(PLAIN)
    assert len(hostile.starts) >= 2
    page = board_page(hostile)
    assert_inert(page, board_page(plain), HOSTILE[: len(hostile.starts) + 1])
    assert Census(page).title == f"Board: {HOSTILE[0]}"


def test_track_page_is_inert():
    hostile, plain = _named_board(HOSTILE), _named_board(PLAIN)
    squares = {s for s, _n, _k in hostile.starts}
    page = highlight_page(hostile, squares, HOSTILE[1], HOSTILE[2])
    assert_inert(page, highlight_page(plain, squares, PLAIN[1], PLAIN[2]), HOSTILE[:3])


# --------------------------------------------------------------------------- elimination.html


def _elimination(names: tuple[str, ...]) -> str:
    result = apply_game(read_game(REPO / "examples" / "helsinki-game" / "game.json"))
    zones = [
        dataclasses.replace(
            z,
            station=dataclasses.replace(z.station, name=_cycle(names, i)),
            reason=_cycle(names, i + 1) if not z.possible else z.reason,
        )
        for i, z in enumerate(result.zones)
    ]
    assert any(not z.possible for z in zones) and any(z.possible for z in zones)
    return elimination_page(result.game, result.elimination, zones, names[0])


def test_elimination_page_is_inert():
    page = _elimination(HOSTILE)
    assert_inert(page, _elimination(PLAIN), HOSTILE)
    assert Census(page).title == HOSTILE[0]


# --------------------------------------------------------------------------- report.html


def _report(folder: Path, title: str, names: tuple[str, ...]) -> str:
    folder.mkdir()
    area = folder / f"{title}.geojson"
    shutil.copy(REPO / "zones" / "sioux-falls.geojson", area)
    page = folder / "report.html"
    result = CliRunner().invoke(
        main,
        [
            "report",
            str(area),
            "--osm",
            str(_renamed_pois(folder, names)),
            "-o",
            str(folder / "report.json"),
            "--html",
            str(page),
        ],
    )
    assert result.exit_code == 0, result.output
    return page.read_text()


def test_report_page_is_inert(tmp_path):
    page = _report(tmp_path / "hostile", FILE_SAFE, HOSTILE)
    assert_inert(page, _report(tmp_path / "plain", "plain", PLAIN), (*HOSTILE, FILE_SAFE))
    assert Census(page).title == f"Questions: {FILE_SAFE}"


# --------------------------------------------------------------------------- in a browser

_OPEN_EVERYTHING = """() => {
    const map = Object.keys(window).filter(k => /^map_/.test(k)).map(k => window[k])[0];
    let tooltips = 0;
    map.eachLayer(layer => {
        if (layer.getTooltip && layer.getTooltip()) {
            try { layer.openTooltip(); tooltips++; } catch (e) {}
        }
    });
    let popups = 0;
    if (window.stationMap) {
        window.stationMap.markers.slice(0, 40).forEach(marker => {
            try { marker.openPopup(); popups++; } catch (e) {}
        });
    }
    return {tooltips: tooltips, popups: popups,
            handlers: document.querySelectorAll("[onerror], [onload]").length};
}"""


@pytest.mark.slow
def test_no_script_runs_in_chromium(generated, tmp_path):
    """Open every hostile page, every tooltip and some popups: no dialog, no page error."""
    sync_playwright = sync_playwright_or_fail()
    pages = {
        "stations.html": (generated["hostile"] / "stations.html").read_text(),
        "renamed.html": _station_page(generated["hostile"], HOSTILE),
        "board.html": board_page(_named_board(HOSTILE)),
        "elimination.html": _elimination(HOSTILE),
        "report.html": _report(tmp_path / "report", FILE_SAFE, HOSTILE),
    }
    dialogs: list[str] = []
    errors: list[str] = []
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
        )
        # Only the page itself loads: tiles (and anything injected) are aborted.
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith("file:") else route.abort()
            ),
        )
        page = context.pages[0] if context.pages else context.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            for name, text in pages.items():
                path = tmp_path / name
                path.write_text(text)
                page.goto(path.as_uri(), wait_until="load")
                opened = page.evaluate(_OPEN_EVERYTHING)
                page.wait_for_timeout(100)
                assert opened["handlers"] == 0, name
                assert opened["tooltips"] + opened["popups"] > 0, name
                if opened["popups"]:
                    shown = "\n".join(page.locator(".leaflet-popup-content").all_inner_texts())
                    assert any(h.split("\u2028")[0] in shown for h in HOSTILE), shown
        finally:
            context.close()
    assert dialogs == [] and errors == []


# --------------------------------------------------------------------------- calibration.png


def test_calibration_plot_title_is_text_not_mathtext():
    """A "$" in a station file's name is a dollar: matplotlib's mathtext would raise."""
    from stations_generator.core.play.calibration import Calibration
    from stations_generator.pages.calibration_plot import calibration_png

    empty = Calibration([], [], 0, 0.0, 1.5, (2.0, 4.0))
    for title in (r"$\frac{$ costs $5", *HOSTILE):
        png = calibration_png(empty, title)
        assert png.startswith(b"\x89PNG")
