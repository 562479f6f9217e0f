"""The game log file: its schema, one-line refusals, byte-identical writing, question costs."""

from __future__ import annotations

import json

import pytest
from support.paths import REPO

from stations_generator.app.game_loader import load_game
from stations_generator.app.referee import log_state
from stations_generator.errors import InputError
from stations_generator.formats import gamelog

EXAMPLE = REPO / "examples" / "referee" / "helsinki-log.json"
HELSINKI_GAME = REPO / "examples" / "helsinki-game" / "game.json"
T = "2026-07-11T10:00:00+03:00"


def _one_line(exc: pytest.ExceptionInfo, *words: str) -> None:
    text = str(exc.value)
    assert "\n" not in text
    for w in words:
        assert w in text, text


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"event": "hider-found"}, ['"at" is missing', "ISO time"]),
        ({"at": T, "event": "hider-lost"}, ["unknown event 'hider-lost'", "hider-found"]),
        ({"at": T, "event": "question-answered", "id": "q1"}, ['"answer"', '"card"']),
        ({"at": T, "event": "question-asked", "id": "q1"}, ['"question" is missing']),
        ({"at": T, "event": "cards-drawn", "cards": "move"}, ["list of card ids"]),
        ({"at": T, "event": "hider-found", "extra": 1}, ['unknown key "extra"']),
        (
            {"at": T, "event": "question-asked", "id": "q1", "question": {"type": "radius"}},
            ['"seeker" is missing'],
        ),
        ({"at": T, "event": "hint-given"}, ['"accepted" is missing', "free"]),
        ({"at": T, "event": "hint-given", "accepted": "yes"}, ["true (the seekers accepted)"]),
        ({"at": T, "event": "free-question", "free": "weather"}, ["blue-lines"]),
        ({"at": T, "event": "cards-replaced", "cards": ["move"]}, ['"draws" is missing']),
    ],
)
def test_bad_events_are_refused_in_one_line(event, words):
    with pytest.raises(InputError) as exc:
        gamelog.append_event(gamelog.new_log("S"), event)
    _one_line(exc, *words)


def test_times_need_their_zone():
    with pytest.raises(InputError) as exc:
        gamelog.parse_time("2026-07-11T10:00:00", "at")
    _one_line(exc, "no time zone", "+02:00")
    data = {**gamelog.new_log("S"), "events": [{"at": "2026-07-11T10:00", "event": "hider-found"}]}
    with pytest.raises(InputError) as exc:
        gamelog.events_of(data, "day.json")
    _one_line(exc, "day.json: event 1", "no time zone")


def test_a_game_file_is_not_a_log(tmp_path):
    with pytest.raises(InputError) as exc:
        gamelog.read_log(HELSINKI_GAME)
    _one_line(exc, "not a game log", "referee start")
    with pytest.raises(InputError) as exc:
        gamelog.read_log(tmp_path / "missing.json")
    _one_line(exc, "does not exist")


def test_writing_is_byte_identical(tmp_path):
    data = gamelog.read_log(EXAMPLE)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    gamelog.write_log(a, data)
    gamelog.write_log(b, json.loads(a.read_text(encoding="utf-8")))
    assert a.read_bytes() == b.read_bytes() == EXAMPLE.read_bytes()


def test_question_models_price_like_the_game_file_loader():
    """The log prices GAME.json questions without OSM data, as the game loader does."""
    loaded = load_game(HELSINKI_GAME).game.questions
    raw = json.loads(HELSINKI_GAME.read_text(encoding="utf-8"))["questions"]
    assert len(loaded) == len(raw) > 3
    for full, data in zip(loaded, raw, strict=True):
        model = gamelog.question_model(data, "q")
        assert (model.cost_key(), model.label(), model.cost) == (
            full.cost_key(),
            full.label(),
            full.cost,
        )


@pytest.mark.parametrize(
    ("question", "key"),
    [
        (
            {"type": "matching", "seeker": "60.17,24.94", "subject": "zone", "level": 8},
            ("matching", "zone", 8),
        ),
        (
            {"type": "matching", "seeker": "60.17,24.94", "subject": "zone-letter", "level": 8},
            ("matching", "zone-letter", 8),
        ),
        (
            {"type": "measuring", "seeker": "60.17,24.94", "subject": "border"},
            ("measuring", "border", 2),
        ),
        (
            {"type": "measuring", "seeker": "60.17,24.94", "subject": "border", "level": 4},
            ("measuring", "border", 4),
        ),
        (
            {"type": "matching", "seeker": "60.17,24.94", "subject": "station-letter"},
            ("matching", "station-letter"),
        ),
        ({"type": "photo", "photo": "tree"}, ("photo", "tree")),
        ({"type": "radius", "seeker": "60.17,24.94", "radius": "3 km"}, ("radius", "custom")),
    ],
)
def test_each_question_kind_has_its_repeat_key(question, key):
    """Repeating Questions: a zone 4 and a zone 8 question are different questions."""
    assert gamelog.question_model(question, "q").cost_key() == key


def test_the_example_log_replays_to_a_found_hider():
    state = log_state(EXAMPLE)
    assert state.cards is not None and state.cards.hand == ("time-bonus-10-percent",)
    assert state.clock.phase == "found"
    # 3 h 20 of seeking less a 35-minute break and a 7-minute late answer.
    assert state.clock.game_min == pytest.approx(200 - 35 - 7)
    assert [r.reward for r in state.ledger].count("earned") == 4


def test_an_event_takes_only_its_own_fields():
    """A field of another kind of event is refused, naming the fields it takes."""
    data = {**gamelog.new_log("S"), "events": [{"at": T, "event": "hint-given", "accepted": True}]}
    assert gamelog.events_of(data)[0].accepted is True
    data["events"][0]["answer"] = "within"
    with pytest.raises(InputError) as exc:
        gamelog.events_of(data, "day.json")
    _one_line(exc, "day.json: event 1", "answer is not a field", "accepted")


def test_a_next_round_log_keeps_its_start_hand_and_the_previous_end():
    previous = {"log": "round1.json", "ended": "2026-07-11T13:20:00+03:00", "round": 2}
    data = gamelog.new_log("M", hand=["move"], previous=previous)
    assert data["hand"] == ["move"] and data["previous"]["round"] == 2
    assert gamelog.settings_of(data).previous_end.hour == 13
    assert (
        "hand" not in gamelog.new_log("M")
        and gamelog.settings_of(gamelog.new_log("M")).previous_end is None
    )
    with pytest.raises(InputError) as exc:
        gamelog.new_log("M", previous={"log": "round1.json"})
    _one_line(exc, '"ended" is missing')


def test_questions_not_in_the_app_price_and_read_like_the_game_file_loader(tmp_path):
    """Landmass, marked path and sea level: the log's models have the loader's key, label
    and cost (JLTG.EU house rules, Matching/Measuring Questions Not In The App)."""
    dem_game = REPO / "tests" / "data" / "dem" / "monaco-sea-level.json"
    data = json.loads(dem_game.read_text(encoding="utf-8"))
    data["osm"] = [str((dem_game.parent / p).resolve()) for p in data["osm"]]
    data["dem"] = str((dem_game.parent / data["dem"]).resolve())
    seeker = {"lat": 43.7389, "lon": 7.4206}
    data["questions"] += [
        {"type": "matching", "seeker": seeker, "subject": "landmass", "answer": "same"},
        {"type": "matching", "seeker": seeker, "subject": "marked-path", "answer": "same"},
    ]
    game = tmp_path / "game.json"
    game.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_game(game).game.questions
    assert len(loaded) == len(data["questions"]) == 3
    for full, raw in zip(loaded, data["questions"], strict=True):
        model = gamelog.question_model(raw, "q")
        assert type(model) is type(full)
        assert (model.cost_key(), model.label(), model.cost) == (
            full.cost_key(),
            full.label(),
            full.cost,
        )
