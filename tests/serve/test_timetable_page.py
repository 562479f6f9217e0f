"""The timetable layer on the phone: real headless Chromium at 390 × 844 with touch,
against the real server on 127.0.0.1 started as ``serve --gtfs nyc_subway_gtfs.zip``.

Map tiles get an empty image and any other request off the machine is aborted and
recorded (as tests/serve/test_phone_page.py). In the Game view's "Timetable" section a
start station is picked, the zones come back coloured by arrival band, the legend says
each band in words and minutes with its count, and a zone tapped on the map says its time.
"""

from __future__ import annotations

import pytest
from support.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    axe_violations,
    offline_page,
    phone_context,
    sync_playwright_or_fail,
    wait_until,
)
from support.paths import REPO
from support.serve_support import config, running_server

from stations_generator.pages.timetable_page import bands
from stations_generator.serve.app import create_app

pytestmark = pytest.mark.slow

NYC = REPO / "tests" / "data" / "gtfs" / "nyc_subway_gtfs.zip"
#: Where the phone is: at Times Square (lat, lon).
HERE = (40.7557, -73.9870)


@pytest.fixture(scope="module")
def phone():
    """One phone page on ``serve --gtfs NYC``: (page, errors, blocked)."""
    sync_playwright = sync_playwright_or_fail()
    assert CHROMIUM.exists()
    with (
        running_server(create_app(config(gtfs_files=(NYC,)))) as url,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        context = phone_context(browser, HERE, accuracy=15)
        errors: list[str] = []
        blocked: list[str] = []
        page = offline_page(context, blocked, errors)
        try:
            page.goto(url)
            wait_until(page, "window.sg && sg.ready && sg.sheet && sg.timetable.ready")
            yield page, errors, blocked
        finally:
            context.close()
            browser.close()


def _zone_pixel(page, index: int) -> tuple[float, float]:
    """Page coordinates of a drawn zone's station dot."""
    return tuple(
        page.evaluate(
            """(i) => { const c = sg.timetable.zones[i].dot;
                const p = sg.map.latLngToContainerPoint(c.getLatLng());
                const r = sg.map.getContainer().getBoundingClientRect();
                return [p.x + r.left, p.y + r.top]; }""",
            index,
        )
    )


def _legend(page) -> list[tuple[str, int]]:
    rows = page.locator("#tt-legend tbody tr")
    out = []
    for k in range(rows.count()):
        label, count = rows.nth(k).locator("td").all_inner_texts()
        out.append((label.strip(), int(count.split()[0])))
    return out


def test_pick_a_station_and_see_where_the_hider_can_be(phone):
    page, errors, blocked = phone
    page.tap("#tab-game")
    page.tap("#sheet-full")
    page.locator("#timetable").scroll_into_view_if_needed()
    assert page.inner_text("#timetable h2") == "Timetable"
    assert "Where can the hider be?" in page.inner_text("#timetable")
    stations = page.evaluate("sg.timetable.feeds[0].stations")
    times_sq = next(s for s in stations if s["name"] == "Times Sq-42 St")
    page.select_option("#tt-station", times_sq["id"])
    page.fill("#tt-at", "08:00")
    page.fill("#tt-date", "2025-01-08")
    page.select_option("#tt-size", "M")
    page.tap("#tt-go")
    wait_until(page, "sg.timetable.answered >= 1")
    assert page.is_hidden("#tt-error"), page.inner_text("#tt-error")
    doc = page.evaluate("sg.timetable.result")
    zones = doc["query"]["zones"]

    # The legend: every band in words and minutes, with its count; the counts add up.
    legend = _legend(page)
    assert [label for label, _ in legend] == [label for _, label in bands(60)]
    assert legend[0][0] == "within 15 min" and legend[3][0] == "45 to 60 min"
    assert sum(n for _, n in legend) == zones > 50
    assert legend == [(b["label"], b["count"]) for b in doc["bands"]]
    summary = page.inner_text("#tt-summary")
    assert "From Times Sq-42 St at 08:00 on 2025-01-08" in summary
    assert f"{doc['query']['reachable']} of {zones} zones" in summary

    # One circle per zone and a dot at its station, in its band's colour, at its radius.
    assert page.evaluate("sg.timetable.zones.length") == zones
    drawn = page.evaluate(
        """sg.timetable.zones.map((z) => [z.circle.options.fillColor, z.dot.options.fillColor,
            z.circle.getRadius()])"""
    )
    assert drawn == [
        [doc["bands"][b]["colour"]] * 2 + [f["properties"]["radius_m"]]
        for b, f in zip(doc["zone_bands"], doc["features"], strict=True)
    ]

    # A zone's station tapped on the map says its name and time (not only its colour).
    page.tap("#sheet-peek")
    page.wait_for_timeout(400)  # the sheet's move, and the layer's fit after it
    # A zone the hider reaches some minutes after setting off (not the start's own).
    target = next(
        i for i, f in enumerate(doc["features"]) if (f["properties"]["minutes"] or 0) > 10
    )
    page.evaluate(
        "(i) => sg.map.setView(sg.timetable.zones[i].dot.getLatLng(), 15, {animate: false})",
        target,
    )
    page.wait_for_timeout(200)
    page.touchscreen.tap(*_zone_pixel(page, target))
    popup = page.locator(".leaflet-popup-content")
    popup.wait_for(timeout=5000)
    props = doc["features"][target]["properties"]
    text = popup.inner_text()
    assert props["name"] in text and props["arrival"][11:16] in text
    assert f"{round(props['minutes'])} min after the start" in text
    label = doc["bands"][doc["zone_bands"][target]]["label"]
    assert f"band: {label}" in text
    assert errors == [] and blocked == []


def test_from_my_location_and_the_section_on_the_phone(phone):
    page, errors, blocked = phone
    page.tap("#sheet-full")
    page.locator("#tt-here").scroll_into_view_if_needed()
    page.tap("#tt-here")
    wait_until(page, "sg.timetable.position")
    assert "From your location" in page.inner_text("#tt-where")
    page.fill("#tt-within", "20")
    before = page.evaluate("sg.timetable.answered")
    page.tap("#tt-go")
    wait_until(page, f"sg.timetable.answered > {before}")
    doc = page.evaluate("sg.timetable.result")
    assert doc["query"]["from"] == f"{HERE[1]:.6f},{HERE[0]:.6f}"
    assert doc["query"]["deadline_note"] == "20 min after the start"
    assert _legend(page)[0][0] == "within 5 min"
    # A bad request is one line in the section's error box, in words.
    page.fill("#tt-date", "2030-01-01")
    page.tap("#tt-go")
    wait_until(page, f"sg.timetable.answered > {before + 1}")
    assert "no trip of nyc_subway_gtfs.zip runs that day" in page.inner_text("#tt-error")
    page.fill("#tt-date", "")
    # Tap targets of 44 px and no serious accessibility fault in the section.
    small = page.evaluate(
        """() => [...document.querySelectorAll('#timetable button, #timetable select, #timetable input')]
            .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height < 43.5)
            .map((e) => e.id)"""
    )
    assert small == []
    assert axe_violations(page) == []
    # The console notes the refused request (its 400), nothing else.
    assert [e for e in errors if "status of 400" not in e] == [] and blocked == []


HOSTILE = '<img src=x onerror="window.pwned=1">Times Sq & <b>42</b>'


def test_stop_names_reach_the_page_as_text(phone):
    """A feed's stop name is hostile text: the server's answers are given one (the real
    answers, with a station's name replaced) and the page shows it as it is."""
    page, errors, blocked = phone
    errors.clear()  # the test before left its refused request's 400 there

    def renamed(route, field: str) -> None:
        response = route.fetch()
        data = response.json()
        if field == "feeds":
            for station in data["feeds"][0]["stations"]:
                if station["name"] == "Times Sq-42 St":
                    station["name"] = HOSTILE
        else:
            data["query"]["from"] = HOSTILE
            for f in data["features"]:
                if f["properties"]["name"] == "Times Sq-42 St":
                    f["properties"]["name"] = HOSTILE
        route.fulfill(response=response, json=data)

    # On the context: the page's service worker makes the API requests.
    context = page.context
    context.route("**/api/timetable/feeds", lambda r: renamed(r, "feeds"))
    context.route("**/api/timetable/reach", lambda r: renamed(r, "reach"))
    try:
        page.reload()
        wait_until(page, "window.sg && sg.ready && sg.timetable.ready")
        page.tap("#tab-game")
        page.tap("#sheet-full")
        station = page.evaluate(
            f"sg.timetable.feeds[0].stations.find((s) => s.name === {HOSTILE!r})"
        )
        page.select_option("#tt-station", station["id"])
        assert (
            page.locator("#tt-station option:checked").inner_text()
            == f"{HOSTILE} ({station['id']})"
        )
        page.fill("#tt-date", "2025-01-08")
        page.tap("#tt-go")
        wait_until(page, "sg.timetable.answered >= 1")
        assert page.inner_text("#tt-summary").startswith(f"From {HOSTILE} at 08:00")
        # Its zone's tooltip, open on the map.
        zone = page.evaluate(
            f"""(() => {{ const z = sg.timetable.zones.find((z) => z.text.startsWith({HOSTILE!r}));
                z.dot.openTooltip(); return z.dot.getTooltip().getElement().textContent; }})()"""
        )
        assert zone.startswith(f"{HOSTILE} ({station['id']}): in the zone at 08:00")
        # Nothing of it became markup: no image, no bold, nothing run.
        markup = page.evaluate(
            """document.querySelectorAll(['#timetable', '.leaflet-tooltip-pane',
                '.leaflet-popup-pane'].map((s) => `${s} img, ${s} b`).join(', ')).length"""
        )
        assert markup == 0
        assert page.evaluate("window.pwned === undefined")
    finally:
        context.unroute("**/api/timetable/feeds")
        context.unroute("**/api/timetable/reach")
    assert errors == [] and blocked == []
