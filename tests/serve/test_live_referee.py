"""Shared games that carry the referee's settings: every event is checked by the house
rules against the game's events so far (the same replay as ``referee record``)."""

from __future__ import annotations

import json

import pytest
from support.paths import REPO
from support.serve_support import api_client, config
from support.shared_games import GAME, HIDER_AT, asked, bearer, new_game, post

from stations_generator.serve.app import create_app

LOG = json.loads((REPO / "examples" / "referee" / "helsinki-log.json").read_text("utf-8"))
#: The example round's settings: a game log without its events (and without its game file,
#: which the server never opens).
REFEREE = {k: v for k, v in LOG.items() if k not in ("events", "game")}


@pytest.fixture
def client(tmp_path):
    app = create_app(config(), temp_dir=tmp_path / "temp", database=tmp_path / "games.sqlite3")
    with api_client(app) as c:
        yield c


def _start(client, game) -> None:
    for n, (kind, at) in enumerate(
        (("hiding-started", "09:30"), ("seeking-started", "10:00")), start=1
    ):
        event = {"at": f"2026-07-11T{at}:00+03:00", "event": kind}
        assert post(client, game, game["seeker_token"], f"s-{n}", event).status_code == 200


def test_the_rules_refuse_an_event_with_the_rule_and_store_nothing(client):
    game = new_game(client, referee=REFEREE)
    _start(client, game)
    first = asked(1, "2026-07-11T10:05:00+03:00")
    assert post(client, game, game["seeker_token"], "q-1", first).status_code == 200
    # A second question while the first is open: one question at a time.
    second = {**asked(2, "2026-07-11T10:06:00+03:00"), "id": "q2"}
    refused = post(client, game, game["seeker_token"], "q-2", second)
    assert refused.status_code == 422
    message = refused.json()["error"]
    assert "one question at a time" in message.lower() and "\n" not in message
    events = client.get(
        f"/api/shared/games/{game['code']}/events", headers=bearer(game["hider_token"])
    ).json()["events"]
    assert len(events) == 3  # nothing stored for the refused one
    # The same event sent again (a lost acknowledgement) is a duplicate, not a new question.
    again = post(client, game, game["seeker_token"], "q-1", first)
    assert again.status_code == 200 and again.json()["duplicate"] is True


def test_the_hiders_position_and_other_events_pass_the_rules(client):
    game = new_game(client, referee=REFEREE)
    _start(client, game)
    question = asked(1, "2026-07-11T10:05:00+03:00")
    post(client, game, game["seeker_token"], "q-1", question)
    answer = {
        "at": "2026-07-11T10:08:00+03:00",
        "event": "question-answered",
        "id": "q1",
        "answer": GAME["questions"][1]["answer"],
        "hider": HIDER_AT,  # hider mode's position: kept for the hider, not in the log
    }
    assert post(client, game, game["hider_token"], "h-1", answer).status_code == 200
    position = {"at": "2026-07-11T10:09:00+03:00", "event": "position", "hider": HIDER_AT}
    assert post(client, game, game["hider_token"], "h-2", position).status_code == 200


def test_a_game_without_referee_settings_is_not_refereed(client):
    game = new_game(client)
    second = asked(2, "2026-07-11T10:06:00+03:00")
    for n in (1, 2):  # two open questions, no game start: nobody referees this game
        assert (
            post(client, game, game["seeker_token"], f"q-{n}", second | {"id": f"q{n}"}).status_code
            == 200
        )


def test_unusable_referee_settings_are_refused_at_creation(client):
    bad = client.post(
        "/api/shared/games", json={"game": GAME, "settings": {"referee": {**REFEREE, "size": "XL"}}}
    )
    assert bad.status_code == 400 and "size" in bad.json()["error"]
    card_file = client.post(
        "/api/shared/games",
        json={"game": GAME, "settings": {"referee": {**REFEREE, "cards": "/etc/passwd"}}},
    )
    assert card_file.status_code == 400 and "shipped deck" in card_file.json()["error"]
