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


# --- words, hints, free questions, the next round -------------------------------------------


def test_a_question_in_words_is_recorded_as_its_game_file_question(log):
    out = run(
        "referee",
        "record",
        log,
        "question-asked",
        "--at",
        "10:05",
        "--question",
        "radius 1 km",
        "--seeker",
        "60.17132,24.94146",
    ).output
    assert "open: q1 Radius 1 km, answer due 10:10" in out
    run("referee", "record", log, "question-answered", "--at", "10:06", "--answer", "within")
    run(
        "referee",
        "record",
        log,
        "question-asked",
        "--at",
        "10:07",
        "--question",
        "matching zone 8",
        "--seeker",
        "60.17,24.94",
    )
    events = json.loads(log.read_text(encoding="utf-8"))["events"]
    assert events[2]["question"] == {
        "type": "radius",
        "seeker": "60.17132,24.94146",
        "radius": "1 km",
    }
    assert events[4]["question"]["level"] == 8 and events[4]["question"]["subject"] == "zone"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["question-asked", "--question", "radius 1 km"], ["--seeker LAT,LON"]),
        (["question-asked", "--question", "radius", "--seeker", "60,24"], ["distance"]),
        (["question-asked", "--question", "circle 1 km"], ["unknown question", "radius 1 km"]),
        (["question-asked", "--question", "photo tree", "--seeker", "60,24"], ["--seeker"]),
        (["question-asked", "--question", "photo tree later"], ["long or end"]),
        (["question-asked", "--question", "matching zone x", "--seeker", "60,24"], ["number"]),
        (["hiding-started", "--answer", "within"], ["--answer is not for hiding-started"]),
        (["hint-given", "--cards", "move"], ["--cards is not for hint-given", "--accepted"]),
        (["hint-given", "--accepted", "maybe"], ["--accepted", "yes"]),
        (["free-question", "--free", "weather"], ["--free", "blue-lines"]),
        (["free-question", "--free", "blue-lines"], ["exit_blue_lines"]),
        (["card-played", "--card", "no-such-card"], ["no-such-card", "not in the card file"]),
        (["cards-kept", "--cards", ""], ['"cards" is missing']),
        (["hint-given", "--accepted", "yes", "--at", "9h"], ["--at", "ISO time"]),
        (["lunch-started", "--team", "everyone"], ["--team"]),
    ],
)
def test_every_bad_value_is_one_line(log, args, words):
    before = log.read_bytes()
    refused(run_caught("referee", "record", log, *args), *words)
    assert log.read_bytes() == before


def test_hints_and_free_questions_in_words(log):
    run("referee", "record", log, "hint-given", "--at", "10:05", "--accepted", "yes")
    run(
        "referee",
        "record",
        log,
        "free-question",
        "--at",
        "10:06",
        "--free",
        "blue-lines",
        "--exit-blue-lines",
        "yes",
        "--answer",
        "yes",
    )
    text = run("referee", "state", log, "--at", "10:10").output
    assert "hint 10:05: accepted, draw 1 pick 1" in text
    assert "free 10:06: Are you within the blue lines? — yes, they must exit the blue lines" in text
    assert "rewards owed 1" in text


def test_the_record_help_shows_every_kind_of_example():
    out = run("referee", "record", "--help").output
    for words in (
        "hint-given",
        "free-question",
        "cards-replaced",
        "--target",
        "--retract",
        "radius 1 km",
    ):
        assert words in out


def test_the_next_round_starts_from_the_previous_log(tmp_path):
    """Hiding: Small and Medium games; Cards: the discard pile is empty at a round's start."""
    second = tmp_path / "next" / "round2.json"
    run("referee", "start", second, "--from-log", EXAMPLE, "--hand", "move")
    data = json.loads(second.read_text(encoding="utf-8"))
    old = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert data["size"] == old["size"] and data["cards"] == old["cards"]
    assert (second.parent / data["game"]).resolve() == GAME.resolve()
    assert data["previous"]["ended"] == "2026-07-11T13:20:00+03:00"
    assert data["previous"]["round"] == 2 and data["hand"] == ["move"]
    state = json.loads(
        run("referee", "state", second, "--at", "2026-07-11T13:30:00+03:00", "--json").output
    )
    assert state["cards"]["hand"] == ["move"] and state["cards"]["discard"] == 0
    refused(
        run_caught(
            "referee", "record", second, "hiding-started", "--at", "2026-07-11T13:10:00+03:00"
        ),
        "previous round ended",
        "Small and Medium games",
    )
    # HH:MM in a log with no events yet: the day and zone of the previous round's end.
    out = run("referee", "record", second, "hiding-started", "--at", "13:50").output
    assert "30 min after the previous round ended" in out
    events = json.loads(second.read_text(encoding="utf-8"))["events"]
    assert events[0]["at"] == "2026-07-11T13:50:00+03:00"
    carried = tmp_path / "round2b.json"
    run("referee", "start", carried, "--from-log", EXAMPLE, "--carry-hand")
    hand = json.loads(carried.read_text(encoding="utf-8"))["hand"]
    assert hand == data["previous"]["hand"] and hand


def test_the_next_round_keeps_the_previous_settings_and_needs_it_over(log, tmp_path):
    refused(
        run_caught("referee", "start", tmp_path / "r2.json", "--from-log", EXAMPLE, "--size", "L"),
        "--size",
        "leave them out",
    )
    refused(
        run_caught("referee", "start", tmp_path / "r2.json", "--from-log", log),
        "not over",
        "hider-found",
    )
    refused(run_caught("referee", "start", tmp_path / "r2.json", "--carry-hand"), "--from-log")
    assert not (tmp_path / "r2.json").exists()


def test_the_example_second_round_replays():
    """examples/referee/helsinki-round2-log.json: every new kind of event, replayed."""
    second = EXAMPLE.with_name("helsinki-round2-log.json")
    data = json.loads(run("referee", "state", second, "--json").output)
    assert data["clock"]["phase"] == "found" and data["clock"]["game_min"] == 115
    assert [r["reward"] for r in data["ledger"]] == [
        "earned",
        "earned (retracted)",
        "earned",
        "vetoed: none",
    ]
    assert [h["accepted"] for h in data["hints"]] == [True, False]
    assert data["free_questions"][1]["exit_blue_lines"] is False
    kinds = {e["event"] for e in json.loads(second.read_text(encoding="utf-8"))["events"]}
    assert {"hint-given", "free-question", "cards-replaced"} <= kinds


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["--size", "S", "--hand", "no-such-card"],
            ["hand", "no-such-card", "not in the card file"],
        ),
        (["--size", "S", "--cards", "none", "--hand", "move"], ["starting hand", "--cards"]),
        (["--from-log", "missing.json"], ["missing.json", "does not exist"]),
        (["--from-log", EXAMPLE, "--rules", "official"], ["--rules official", "leave it out"]),
    ],
)
def test_start_refuses_bad_values_in_one_line(tmp_path, args, words):
    path = tmp_path / "day.json"
    refused(run_caught("referee", "start", path, *args), *words)
    assert not path.exists()
    own = tmp_path / "own.json"
    run("referee", "start", own, "--size", "S")
    refused(run_caught("referee", "start", own, "--from-log", own, "--force"), "itself")


def test_a_duplicate_is_recorded_with_its_target(tmp_path):
    """Power Ups: Duplicate Another Card, through `referee record --target`."""
    path = tmp_path / "day.json"
    troll = "curse-of-the-bridge-troll"
    run("referee", "start", path, "--game", GAME, "--hand", f"duplicate-another-card,{troll}")
    run("referee", "record", path, "hiding-started", "--at", "2026-07-11T09:30:00+03:00")
    run("referee", "record", path, "seeking-started", "--at", "10:00")
    run(
        "referee",
        "record",
        path,
        "curse-cast",
        "--at",
        "10:05",
        "--card",
        "duplicate-another-card",
        "--target",
        troll,
    )
    event = json.loads(path.read_text(encoding="utf-8"))["events"][-1]
    assert event["target"] == troll
    state = json.loads(run("referee", "state", path, "--at", "10:06", "--json").output)
    assert state["cards"]["hand"] == [troll] and state["cards"]["curses"][0]["card"] == troll
    refused(
        run_caught("referee", "record", path, "curse-cleared", "--at", "10:07", "--target", troll),
        "--target is not for curse-cleared",
    )
