"""The referee's JSON API (``/api/referee/*``) through FastAPI's TestClient, in-process.

The page keeps the game log and sends it whole; every answer is compared with what the
CLI (``referee record`` / ``referee state --json``) writes or prints for the same log:
the same rule checks, the same state. A log naming files opens none of them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.cli_runs import run, run_caught
from support.paths import REPO
from support.serve_support import api_client, config

from stations_generator.formats import gamelog
from stations_generator.serve.app import create_app
from stations_generator.serve.referee import MAX_EVENTS, MAX_LOG_BYTES

EXAMPLE = REPO / "examples" / "referee" / "helsinki-log.json"
#: Every example log (a whole round each), the CLI's state to match.
EXAMPLES = sorted((REPO / "examples" / "referee").glob("*log.json"))
CARDS_TOML = REPO / "stations_generator" / "data" / "jltg-eu-cards.toml"
STATIC = REPO / "stations_generator" / "serve" / "static"
RADIUS = {"type": "radius", "seeker": {"lat": 60.17132, "lon": 24.94146}, "radius": "1 km"}
#: A short Small round, every time ISO with its zone (the ids left to be filled in).
ROUND = [
    {"at": "2026-07-11T09:30:00+03:00", "event": "hiding-started"},
    {"at": "2026-07-11T10:00:00+03:00", "event": "seeking-started"},
    {"at": "2026-07-11T10:05:00+03:00", "event": "question-asked", "question": RADIUS},
    {"at": "2026-07-11T10:08:00+03:00", "event": "question-answered", "answer": "within"},
    {"at": "2026-07-11T10:09:00+03:00", "event": "cards-drawn", "cards": ["veto-question", "move"]},
    {"at": "2026-07-11T10:10:00+03:00", "event": "cards-kept", "cards": ["veto-question"]},
]


@pytest.fixture(scope="module")
def client():
    with api_client(create_app(config())) as c:
        yield c


def _ok(response) -> dict:
    assert response.status_code == 200, response.text[:400]
    return response.json()


def _error(response, status: int = 400) -> str:
    assert response.status_code == status, response.text[:400]
    message = response.json()["error"]
    assert "\n" not in message and "Traceback" not in message
    return message


def _record_all(client, log: dict, events: list[dict]) -> dict:
    answer = {"log": log}
    for event in events:
        answer = _ok(
            client.post("/api/referee/record", json={"log": answer["log"], "event": event})
        )
    return answer


def _cli_log(tmp_path: Path, events: list[dict]) -> Path:
    """The same events recorded by ``referee record`` on the CLI."""
    path = tmp_path / "day.json"
    run("referee", "start", path, "--size", "S")
    for e in events:
        args = ["referee", "record", path, e["event"], "--at", e["at"]]
        if "question" in e:
            args += ["--question", json.dumps(e["question"])]
        if "answer" in e:
            args += ["--answer", e["answer"]]
        if "cards" in e:
            args += ["--cards", ",".join(e["cards"])]
        if "card" in e:
            args += ["--card", e["card"]]
        run(*args)
    return path


def test_start_gives_an_empty_log_and_its_state(client):
    answer = _ok(client.post("/api/referee/start", json={"size": "l", "max_hours": 8}))
    log = answer["log"]
    assert log["events"] == [] and log["size"] == "L" and log["cards"] == "jltg-eu"
    assert log["max_game_minutes"] == 480 and log["game"] is None
    assert answer["state"]["clock"]["phase"] == "before"
    assert answer["state"]["cards"]["hand"] == [] and answer["state"]["cards"]["deck"] > 100


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"size": "XL"}, ["size", "S", "M", "L"]),
        ({"size": "S", "setup": "nowhere"}, ["no setup 'nowhere'", "germany-2026-07"]),
        ({"size": "S", "max_hours": -1}, ["max_hours"]),
        ({"size": "S", "game": "/etc/passwd"}, ["unknown field 'game'"]),
        ({"size": "S", "cards": "../my-cards.toml"}, ["shipped deck only"]),
        ([1, 2], ["JSON object"]),
    ],
)
def test_start_refuses_bad_settings_in_one_line(client, body, words):
    message = _error(client.post("/api/referee/start", json=body))
    assert all(w in message for w in words), message


def test_recorded_round_is_the_clis_log_and_state(client, tmp_path):
    start = _ok(client.post("/api/referee/start", json={"size": "S"}))
    answer = _record_all(client, start["log"], ROUND)
    path = _cli_log(tmp_path, ROUND)
    # Ids filled in as the CLI fills them (q1; the answer to the last question asked).
    assert gamelog.dumps_log(answer["log"]) == path.read_text(encoding="utf-8")
    # At a stated moment: "now" moves on between the two calls.
    at = "2026-07-11T10:30:00+03:00"
    cli_state = json.loads(run("referee", "state", path, "--json", "--at", at).output)
    assert (
        _ok(client.post("/api/referee/state", json={"log": answer["log"], "at": at})) == cli_state
    )
    # The state after the last event: the hand and the ledger the page shows.
    state = answer["state"]
    assert state["cards"]["hand"] == ["veto-question"]
    assert state["ledger"][0]["reward"] == "earned" and state["clock"]["game_min"] == 10


def test_a_forbidden_event_is_refused_with_the_clis_rule_line(client, tmp_path):
    start = _ok(client.post("/api/referee/start", json={"size": "S"}))
    log = _record_all(client, start["log"], ROUND[:1])["log"]
    early = {"at": "2026-07-11T09:40:00+03:00", "event": "question-asked", "question": RADIUS}
    message = _error(client.post("/api/referee/record", json={"log": log, "event": early}))
    path = _cli_log(tmp_path, ROUND[:1])
    args = ["--at", early["at"], "--question", json.dumps(RADIUS)]
    result = run_caught("referee", "record", path, "question-asked", *args)
    cli_line = result.stderr.strip()
    assert result.exit_code != 0 and "(JLTG.EU house rules, Game Time)" in cli_line
    # The same rule, word for word, between the file's name and the closing words.
    rule = cli_line.split("): ", 1)[1].removesuffix("; nothing written")
    assert message.endswith(f"): {rule}; not recorded"), (message, cli_line)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_the_example_logs_have_the_clis_state(client, example):
    log = json.loads(example.read_text(encoding="utf-8"))
    cli_state = json.loads(run("referee", "state", example, "--json").output)
    state = _ok(client.post("/api/referee/state", json={"log": log}))
    # A whole round: shown at its end, by both.
    assert state == cli_state and state["clock"]["phase"] == "found"
    first = log["events"][0]["at"]
    at = f"{int(first[11:13]) + 1:02d}:{first[14:16]}"  # an hour into the round
    cli_at = json.loads(run("referee", "state", example, "--at", at, "--json").output)
    assert _ok(client.post("/api/referee/state", json={"log": log, "at": at})) == cli_at
    assert cli_at["clock"]["at"].startswith(f"{first[:11]}{at}")


def test_an_event_of_the_example_replayed_out_of_order_is_refused(client):
    assert EXAMPLE in EXAMPLES  # the example logs above are found
    log = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    first = log["events"][0]
    message = _error(client.post("/api/referee/record", json={"log": log, "event": first}))
    assert "not recorded" in message and f"event {len(log['events']) + 1} " in message


class _Opened:
    """Every file the process opens while active (the audit hook sees every thread)."""

    hook_installed = False
    paths: list[str] | None = None

    def __enter__(self) -> list[str]:
        if not _Opened.hook_installed:
            sys.addaudithook(_Opened._hook)  # an audit hook cannot be removed: installed once
            _Opened.hook_installed = True
        _Opened.paths = []
        return _Opened.paths

    def __exit__(self, *exc) -> None:
        _Opened.paths = None

    @staticmethod
    def _hook(event: str, args: tuple) -> None:
        if _Opened.paths is not None and event == "open" and isinstance(args[0], (str, Path)):
            _Opened.paths.append(str(args[0]))


def test_a_log_naming_files_opens_none_of_them(client, tmp_path):
    game = tmp_path / "secret-game.json"
    game.write_text('{"format": "stations-generator-game/1"}', encoding="utf-8")
    cards = tmp_path / "secret-cards.toml"
    cards.write_bytes(CARDS_TOML.read_bytes())
    log = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    with _Opened() as opened:
        # The game file is the CLI's: kept in the log, never read.
        ok = client.post("/api/referee/state", json={"log": {**log, "game": str(game)}})
        relative = client.post("/api/referee/state", json={"log": {**log, "game": "../x.json"}})
        previous = {"log": str(game), "ended": "2026-07-11T08:00:00+03:00"}
        after = client.post("/api/referee/state", json={"log": {**log, "previous": previous}})
        by_path = client.post("/api/referee/state", json={"log": {**log, "cards": str(cards)}})
        event = {"event": "break-started", "at": "2026-07-11T13:30:00+03:00"}
        record = client.post(
            "/api/referee/record", json={"log": {**log, "cards": str(cards)}, "event": event}
        )
    # The file names change nothing (the state of a finished round is at its end).
    plain = _ok(client.post("/api/referee/state", json={"log": {**log, "game": None}}))
    assert _ok(ok) == plain and plain["clock"]["phase"] == "found"
    assert relative.status_code == 200 and after.status_code == 200, after.text
    assert "shipped deck only" in _error(by_path) and "shipped deck only" in _error(record)
    assert opened, "the audit hook saw no file at all"  # e.g. the modules, the shipped deck
    assert not [p for p in opened if "secret" in p], opened


def test_oversized_logs_are_refused(client):
    big = {"log": {"note": "x" * MAX_LOG_BYTES}}
    assert "larger than 2 MiB" in _error(client.post("/api/referee/state", json=big), 413)
    log = gamelog.new_log("S")
    log["events"] = [{"at": "2026-07-11T09:30:00+03:00", "event": "break-started"}] * (
        MAX_EVENTS + 1
    )
    message = _error(client.post("/api/referee/state", json={"log": log}))
    assert f"more than the {MAX_EVENTS}" in message


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"log": {"format": "x"}}, ["not a game log"]),
        ({"log": gamelog.new_log("S"), "at": "25:00"}, ["not a time of day"]),
        ({"log": gamelog.new_log("S"), "at": 5}, ["HH:MM"]),
        ({}, ["log must be a JSON object"]),
    ],
)
def test_bad_state_requests_are_one_line(client, body, words):
    message = _error(client.post("/api/referee/state", json=body))
    assert all(w in message for w in words), message


def test_bad_events_are_one_line(client):
    log = gamelog.new_log("S")
    for event, words in [
        ({"event": "lunch-eaten"}, ["unknown event"]),
        ({"event": "cards-drawn", "at": "09:00"}, ["cards"]),
        ("seeking-started", ["event must be a JSON object"]),
    ]:
        message = _error(client.post("/api/referee/record", json={"log": log, "event": event}))
        assert all(w in message for w in words), message


def test_the_card_picker_lists_the_shipped_deck(client):
    deck = _ok(client.get("/api/referee/cards"))
    ids = [c["id"] for c in deck["cards"]]
    assert deck["deck"] == "jltg-eu" and len(ids) == len(set(ids)) > 100
    assert {"veto-question", "curse-of-the-bridge-troll"} <= set(ids)
    assert {c["kind"] for c in deck["cards"]} == {"curse", "blessing", "power-up", "time-bonus"}
    assert "germany-2026-07" in deck["setups"] and "veto-question" in deck["answer_cards"]
    assert "blue-lines" in {f["id"] for f in deck["free_questions"]}
    assert {"hint-given", "free-question"} <= set(deck["events"])


def test_the_page_loads_the_referee_script_and_writes_text_only(client):
    page = client.get("/").text
    assert '<script src="assets/referee.js"></script>' in page and 'id="referee"' in page
    script = client.get("/assets/referee.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.content == (STATIC / "referee.js").read_bytes()
    # Card names and notes reach the page as text: no HTML parsing anywhere in the script.
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script.text, sink


def test_the_referee_answers_while_every_build_slot_is_taken():
    """Refereeing never waits behind station-map builds: with the one worker and its one
    place in line taken, a map request is 503 but the referee's state is answered."""
    import threading

    app = create_app(config(), max_jobs=1, max_queue=1)
    release = threading.Event()
    with api_client(app) as c:
        for _ in range(2):  # the worker and the place in line
            app.state.jobs.submit(lambda: release.wait(30))
        try:
            busy = c.post("/api/game/cost", json={"game": {"questions": []}})
            assert busy.status_code == 503
            log = json.loads(EXAMPLE.read_text(encoding="utf-8"))
            state = c.post("/api/referee/state", json={"log": log})
            assert state.status_code == 200 and state.json()["clock"]["phase"] == "found"
        finally:
            release.set()
