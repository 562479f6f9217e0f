"""Photo questions (JLTG.EU house rules, Photos) on the bundled Helsinki game.

Each test names the rule it checks; docs/questions.md has the table.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest
import shapely
from support.cli_runs import refused, run
from support.paths import REPO

from stations_generator.app.games import load, share_link
from stations_generator.app.map_context import MapSources
from stations_generator.core.questions.game import Game
from stations_generator.core.questions.legal import QuestionError
from stations_generator.core.questions.photos import (
    PHOTO_KINDS,
    PhotoQuestion,
    answer_minutes,
    kinds_for,
)
from stations_generator.core.questions.rules import cost_ledger, rule_set

GAME = REPO / "examples" / "helsinki-game" / "game.json"
START = "2026-05-01T09:00:00+03:00"


def _game_file(tmp_path, photos, size=None, name="game.json"):
    data = json.loads(GAME.read_text())
    data["questions"] = data["questions"] + list(photos)
    if size is not None:
        data["game_size"] = size
    data["play_area"] = str((GAME.parent / data["play_area"]).resolve())
    data["osm"] = [str((GAME.parent / f).resolve()) for f in data["osm"]]
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _photo(kind, answer="sent", **extra):
    return {"type": "photo", "photo": kind, "answer": answer, **extra}


def _refused(tmp_path, photos, size, *messages):
    path = _game_file(tmp_path, photos, size)
    result = run("questions", "apply", path, "-o", tmp_path / "out")
    refused(result, *messages)
    assert not (tmp_path / "out").exists()  # nothing written


def test_photo_table_matches_the_rules():
    """Photos, Summary of Photo Questions: 20 kinds, 4 powerful, S ⊂ M ⊂ L."""
    assert len(PHOTO_KINDS) == 20
    powerful = {k.id for k in PHOTO_KINDS.values() if k.powerful}
    assert powerful == {
        "tallest_building",
        "tallest_structure",
        "trace_streets",
        "trace_nearest_street",
    }
    small, medium, large = (set(kinds_for(s)) for s in "SML")
    assert small < medium < large == set(PHOTO_KINDS)
    assert "tree" in small and "park" not in small and "park" in medium
    assert answer_minutes("S") == answer_minutes("M") == 10 and answer_minutes("L") == 20


def test_photo_costs_by_phase_and_repeat():
    """Photos: Draw 1 Pick 1; powerful 3/1 long game, 3/2 end game; a repeat costs n × base."""
    questions = [
        PhotoQuestion("tree", "long", "sent"),
        PhotoQuestion("tallest_structure", "long", "sent"),
        PhotoQuestion("tallest_structure", "end", "cannot answer"),
        PhotoQuestion("tree", "end", "sent"),
        PhotoQuestion("sky", "end", "sent"),
    ]
    draws = [(e.draw, e.pick, e.times_asked) for e in cost_ledger(questions)]
    assert draws == [(1, 1, 1), (3, 1, 1), (6, 4, 2), (2, 2, 2), (1, 1, 1)]
    assert [e.label for e in cost_ledger(questions)][:2] == [
        "Photo: tree",
        "Photo: tallest structure",
    ]


def test_photo_cost_on_the_command_line(tmp_path):
    """Repeating Questions: `questions cost` lists photos with their repeat cost."""
    photos = [_photo("tree"), _photo("tallest_structure", phase="end"), _photo("tree")]
    base = run("questions", "cost", GAME, "--json")
    with_photos = run("questions", "cost", _game_file(tmp_path, photos), "--json")
    assert base.exit_code == 0 and with_photos.exit_code == 0, with_photos.stderr
    before, after = json.loads(base.stdout), json.loads(with_photos.stdout)
    assert after[: len(before)] == before
    assert [(e["label"], e["draw"], e["pick"]) for e in after[len(before) :]] == [
        ("Photo: tree", 1, 1),
        ("Photo: tallest structure", 3, 2),
        ("Photo: tree", 2, 2),
    ]


def test_apply_keeps_the_area_of_the_game_without_photos(tmp_path):
    """A photo removes no area: apply leaves the same remaining area and zones."""
    plain = load(_game_file(tmp_path, [], name="plain.json"), MapSources(), lambda _m: None)
    photos = [_photo("tree"), _photo("selfie", "cannot answer"), _photo("tree", phase="end")]
    loaded = load(_game_file(tmp_path, photos), MapSources(), lambda _m: None)
    a, b = plain.game.eliminate(), loaded.game.eliminate()
    assert shapely.equals_exact(a.remaining, b.remaining, 0.0)
    assert a.remaining_km2 == b.remaining_km2
    assert all(s.removed.is_empty and s.removed_km2 == 0.0 for s in b.steps[-3:])
    assert plain.game.possible_zones(a) == loaded.game.possible_zones(b)
    # The share link carries the map questions only (the app has no photo question).
    assert share_link(plain.game) == share_link(loaded.game)
    result = run("questions", "apply", _game_file(tmp_path, photos), "-o", tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    features = json.loads((tmp_path / "out" / "remaining.geojson").read_text())["features"]
    shown = [(f["properties"]["label"], f["properties"]["answer"]) for f in features[-3:]]
    assert shown == [
        ("Photo: tree", "sent"),
        ("Photo: selfie", "cannot answer"),
        ("Photo: tree", "sent"),
    ]
    assert all(f["geometry"] is None and f["properties"]["removed_km2"] == 0 for f in features[-3:])


@pytest.mark.parametrize("kind", sorted(set(PHOTO_KINDS) - set(kinds_for("S"))))
def test_photo_not_in_small_games_is_refused_in_s_accepted_in_l(tmp_path, kind):
    """Photos, Summary of Photo Questions: a kind ❌ in Small is refused there, fine in Large."""
    small = Game(shapely.box(0, 0, 1, 1), rule_set("jltg-eu"), "S", questions=[PhotoQuestion(kind)])
    with pytest.raises(QuestionError, match="not available in S games.*use building"):
        small.check_legal()
    large = Game(shapely.box(0, 0, 1, 1), rule_set("jltg-eu"), "L", questions=[PhotoQuestion(kind)])
    large.check_legal()


def test_photo_size_refused_on_the_command_line(tmp_path):
    """Photos: the one-line error names the kinds legal in that size."""
    _refused(tmp_path, [_photo("park")], "S", "question 8", "'park'", ", ".join(kinds_for("S")))
    ok = run(
        "questions", "apply", _game_file(tmp_path, [_photo("park")], "L"), "-o", tmp_path / "o"
    )
    assert ok.exit_code == 0, ok.stderr


def test_large_game_photo_embargo(tmp_path):
    """Hiding: no photo question in the first 2 h 30 of a Large game (only checked when
    the question gives both times)."""
    early = _photo("tree", asked_at="2026-05-01T11:29:00+03:00", started_at=START)
    _refused(tmp_path, [early], "L", "149 min into a Large game", "first 2 h 30")
    on_time = _photo("tree", asked_at="2026-05-01T11:30:00+03:00", started_at=START)
    untimed = _photo("tree")
    for photos, size in (([on_time], "L"), ([untimed], "L"), ([early], "M")):
        result = run(
            "questions", "apply", _game_file(tmp_path, photos, size), "-o", tmp_path / "ok"
        )
        assert result.exit_code == 0, result.stderr
    q = PhotoQuestion("tree", asked_at=datetime(2026, 5, 1, 10), started_at=datetime(2026, 5, 1, 9))
    with pytest.raises(QuestionError, match="60 min"):
        q.check("L")


@pytest.mark.parametrize(
    ("photo", "messages"),
    [
        (_photo("unicorn"), ("unknown photo 'unicorn'", "tallest_building")),
        (_photo("tree", "maybe"), ("answer 'maybe'", "cannot answer")),
        (_photo("tree", phase="middle"), ("phase",)),
        (
            _photo("tree", asked_at="soon", started_at=START),
            ("asked_at 'soon' is not an ISO time",),
        ),
        ({"type": "photo", "answer": "sent"}, ("photo",)),
    ],
)
def test_bad_photo_questions_are_one_line_errors(tmp_path, photo, messages):
    """Bad photo questions: a one-line error naming the problem, nothing written."""
    _refused(tmp_path, [photo], "L", *messages)
