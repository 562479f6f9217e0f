"""The referee on the ``serve`` page, in a real headless Chromium at a phone's width.

Debian's Chromium driven by Playwright (as tests/pages/test_browser.py) on the real server
at 127.0.0.1; map tiles get an empty image and any other request off the machine is
aborted and recorded. One page load: start a round, record events with the page's
buttons, see the clock, the open question and the hand follow, and a forbidden event
refused in words, with the log left as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    PHONE,
    keep_offline,
    sync_playwright_or_fail,
    wait_until,
)
from support.serve_support import config, running_server

from stations_generator.serve.app import create_app

pytestmark = pytest.mark.slow

#: A GAME.json with one question, as the Questions form leaves it in the page.
RADIUS = {"type": "radius", "seeker": {"lat": 60.17132, "lon": 24.94146}, "radius": "1 km"}
GAME = {"format": "stations-generator-game/1", "questions": [{**RADIUS, "answer": "within"}]}


def _event(page, at: str, button: str) -> None:
    """Set the event's time, press the button, wait for the server's answer to show."""
    before = page.evaluate("sg.referee.answered")
    page.fill("#ref-at", at)
    page.click(button)
    wait_until(page, f"sg.referee.answered > {before}")


def test_a_round_refereed_on_the_page(tmp_path):
    sync_playwright = sync_playwright_or_fail()
    assert CHROMIUM.exists()
    with running_server(create_app(config())) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        context = browser.new_context(viewport=PHONE, accept_downloads=True)
        page = context.new_page()
        errors: list[str] = []
        blocked: list[str] = []

        keep_offline(context, blocked)
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        try:
            page.goto(url)
            wait_until(page, "window.sg && sg.ready && sg.referee && sg.referee.ready")
            _referee_round(page, tmp_path)
        finally:
            context.close()
            browser.close()
    # The one 400 is the refused event; nothing else failed, nothing left the machine.
    assert [e for e in errors if "400 (Bad Request)" not in e] == [] and len(errors) == 1
    assert blocked == []


def _referee_round(page, tmp_path: Path) -> None:
    page.click("#tab-game")
    page.select_option("#ref-size", "S")
    page.click("#ref-start")
    wait_until(page, "sg.referee.log && sg.referee.log.size === 'S'")

    _event(page, "09:30", "text=Hiding started")
    assert "09:30 S game, hiding" in page.inner_text("#ref-clock")
    assert "hiding time left 30 min (ends 10:00)" in page.inner_text("#ref-clock")

    # Too early: the server refuses it, the page says why, the log keeps one event.
    _event(page, "09:40", "text=Photo asked")
    error = page.inner_text("#ref-error")
    assert error.startswith("refused: ") and "seeking has not started" in error
    assert "(JLTG.EU house rules, Game Time)" in error
    assert page.evaluate("sg.referee.log.events.length") == 1

    _event(page, "10:00", "text=Seeking started")
    assert page.is_hidden("#ref-error")
    assert "10:00 S game, seeking" in page.inner_text("#ref-clock")

    # The question of the Questions list (the Game view's GAME.json), recorded as asked.
    page.evaluate("g => sg.setGame(g, 'game.json', [], false)", GAME)
    _event(page, "10:05", "#ref-ask-form")
    assert "open: q1 Radius 1 km, answer due 10:10" in page.inner_text("#ref-questions")
    assert page.input_value("#ref-answer") == "within"
    _event(page, "10:08", "#ref-answered")
    assert "q1 10:05 Radius 1 km: draw 2 pick 1 — within, earned" in page.inner_text(
        "#ref-questions"
    )

    _event(page, "10:08", "text=Hint given unasked (free)")
    assert "hint 10:08: unasked" in page.inner_text("#ref-questions")

    for card in ("veto-question", "move"):
        page.select_option("#ref-card", card)
        page.click("#ref-add-card")
    _event(page, "10:09", "#ref-drawn")
    page.select_option("#ref-card", "veto-question")
    page.click("#ref-add-card")
    _event(page, "10:10", "#ref-kept")
    assert "hand (1/6): veto-question" in page.inner_text("#ref-cards")
    stored = page.evaluate("JSON.parse(localStorage.getItem('stations-generator/referee/v1'))")
    assert stored == page.evaluate("sg.referee.log")
    assert stored["events"][-1]["event"] == "cards-kept"
    assert stored["events"][-1]["cards"] == ["veto-question"]

    # A phone's width: nothing wider than the screen, every referee button a finger wide.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    heights = page.evaluate(
        "[...document.querySelectorAll('#referee .ref-button')]"
        ".map(b => b.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 44

    with page.expect_download() as info:
        page.click("#ref-download")
    downloaded = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert downloaded == page.evaluate("sg.referee.log") and len(downloaded["events"]) == 7
