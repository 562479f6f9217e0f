"""``referee start / record / state``: the log kept event by event, refusals in one line."""

from __future__ import annotations

import json

import pytest
from support.cli_runs import refused, run, run_caught
from support.paths import REPO

EXAMPLE = REPO / "examples" / "referee" / "helsinki-log.json"
GAME = REPO / "examples" / "helsinki-game" / "game.json"
RADIUS = '{"type": "radius", "seeker": {"lat": 60.17132, "lon": 24.94146}, "radius": "1 km"}'


@pytest.fixture
def log(tmp_path):
    """A Small-game log with the hider and the seekers started (10:00)."""
    path = tmp_path / "day.json"
    run("referee", "start", path, "--game", GAME)
    run("referee", "record", path, "hiding-started", "--at", "2026-07-11T09:30:00+03:00")
    run("referee", "record", path, "seeking-started", "--at", "10:00")
    return path


def test_start_takes_the_size_from_the_game_and_stores_paths_relative(tmp_path):
    path = tmp_path / "day.json"
    result = run("referee", "start", path, "--game", GAME)
    assert "started day.json" in result.output
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["size"] == "S" and data["events"] == []
    assert not data["game"].startswith("/") and data["game"].endswith("game.json")


def test_start_refuses_to_overwrite_without_force(log):
    before = log.read_bytes()
    refused(run_caught("referee", "start", log, "--size", "L"), "exists", "--force")
    assert log.read_bytes() == before
    run("referee", "start", log, "--size", "L", "--force")
    assert json.loads(log.read_text(encoding="utf-8"))["size"] == "L"


def test_start_needs_a_size():
    refused(run_caught("referee", "start", "x.json", "--cards", "none"), "--size")


def test_record_asks_answers_and_the_state_shows_it(log):
    out = run(
        "referee", "record", log, "question-asked", "--at", "10:05", "--question", RADIUS
    ).output
    assert "open: q1 Radius 1 km, answer due 10:10" in out
    run("referee", "record", log, "question-answered", "--at", "10:08", "--answer", "within")
    state = json.loads(run("referee", "state", log, "--at", "10:30", "--json").output)
    assert state["ledger"][0]["reward"] == "earned"
    assert state["clock"]["game_min"] == 30
    assert state["cards"]["pending_rewards"] == 1
    text = run("referee", "state", log, "--at", "10:30").output
    assert (
        "q1 10:05 Radius 1 km: draw 2 pick 1" in text
        and "again: Radius 1 km: draw 4 pick 2" in text
    )


def test_events_out_of_order_are_refused_and_the_log_is_unchanged(log):
    run("referee", "record", log, "break-started", "--at", "11:00")
    before = log.read_bytes()
    result = run_caught(
        "referee", "record", log, "question-asked", "--at", "10:30", "--question", RADIUS
    )
    refused(result, "is before event", "time order", "nothing written")
    assert log.read_bytes() == before


def test_a_question_in_a_break_is_refused(log):
    run("referee", "record", log, "break-started", "--at", "11:00")
    before = log.read_bytes()
    result = run_caught(
        "referee", "record", log, "question-asked", "--at", "11:10", "--question", RADIUS
    )
    refused(result, "break", "Unscheduled Breaks")
    assert log.read_bytes() == before


def test_a_card_not_in_the_hand_is_refused(log):
    run("referee", "record", log, "question-asked", "--at", "10:05", "--question", RADIUS)
    result = run_caught(
        "referee", "record", log, "question-answered", "--at", "10:06", "--card", "veto-question"
    )
    refused(result, "not in the hand")


def test_a_bad_question_is_refused_in_one_line(log):
    result = run_caught(
        "referee", "record", log, "question-asked", "--question", '{"type": "radius"}'
    )
    refused(result, '"seeker" is missing')
    refused(
        run_caught("referee", "record", log, "question-asked", "--question", "{nope"), "--question"
    )


def test_state_of_the_example_log():
    out = run("referee", "state", EXAMPLE).output
    assert out.startswith("13:20 S game, found")
    assert "game time 2 h 38 (breaks 35 min, paused 7 min)" in out
    assert "again: Photo: tree: not allowed (vetoed" in out


def test_state_at_a_moment_of_the_example():
    data = json.loads(run("referee", "state", EXAMPLE, "--at", "11:20", "--json").output)
    assert data["clock"]["in_break"] and not data["can_ask"]
    assert data["cards"]["curses"][0]["card"] == "curse-of-the-bridge-troll"
    refused(run_caught("referee", "state", EXAMPLE, "--at", "25:00"), "HH:MM")


@pytest.mark.parametrize("command", ["start", "record", "state"])
def test_each_command_has_help_with_an_example(command):
    out = run("referee", command, "--help").output
    assert "Example" in out and "referee" in out


def test_the_group_lists_its_commands():
    out = run("referee", "--help").output
    for name in ("start", "record", "state", "check-curse"):
        assert name in out


def test_ids_are_filled_in(log):
    """A thermometer's id is kept for it while other questions are asked."""
    run("referee", "record", log, "thermometer-started", "--at", "10:01")
    run("referee", "record", log, "question-asked", "--at", "10:02", "--question", RADIUS)
    run("referee", "record", log, "question-answered", "--at", "10:03", "--answer", "within")
    thermo = '{"type": "thermometer", "start": "60.17132,24.94146", "end": "60.168,24.946", "distance": "400 m"}'
    run("referee", "record", log, "question-asked", "--at", "10:10", "--question", thermo)
    events = json.loads(log.read_text(encoding="utf-8"))["events"]
    assert [(e["event"], e.get("id")) for e in events[2:]] == [
        ("thermometer-started", "q1"),
        ("question-asked", "q2"),
        ("question-answered", "q2"),
        ("question-asked", "q1"),
    ]
