"""The landmass and marked-path matching questions end to end on the Helsinki example.

The example's map (Helsinki centre: one mainland and the sea bay Kaisaniemenlahti, its
street network) with the two questions added: loading, elimination, hider answers, zone
checks, the cost ledger and the command line (JLTG.EU house rules, Matching: Landmass,
Marked Path).
"""

from __future__ import annotations

import json

import pytest
from shapely.geometry import Point
from support.cli_runs import run
from support.paths import REPO

from stations_generator.app.game_loader import load_game
from stations_generator.core.questions.landmass import MatchingLandmassQuestion
from stations_generator.core.questions.marked_paths import MatchingMarkedPathQuestion
from stations_generator.core.questions.rules import cost_ledger

EXAMPLE = REPO / "examples" / "helsinki-game" / "game.json"
HIDER = (24.9490, 60.1665)  # the example's hider, on the mainland
KAMPPI = {"lat": 60.1690, "lon": 24.9384}
KLUUVIKATU = {"lat": 60.1685, "lon": 24.9480}
BAY = (24.9480, 60.1770)  # Kaisaniemenlahti, sea inside the play area


def _game(tmp_path, landmass: str = "same", name: str = "game.json"):
    data = json.loads(EXAMPLE.read_text())
    data["play_area"] = str((EXAMPLE.parent / data["play_area"]).resolve())
    data["osm"] = [str((EXAMPLE.parent / f).resolve()) for f in data["osm"]]
    data["questions"] = [
        {"type": "matching", "seeker": KAMPPI, "subject": "landmass", "answer": landmass},
        {"type": "matching", "seeker": KLUUVIKATU, "subject": "marked-path", "answer": "different"},
        {"type": "matching", "seeker": KLUUVIKATU, "subject": "marked-path", "answer": "different"},
    ]
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    return load_game(_game(tmp_path_factory.mktemp("game")))


def test_questions_are_read_and_priced(loaded):
    g = loaded.game
    assert isinstance(g.questions[0], MatchingLandmassQuestion)
    assert isinstance(g.questions[1], MatchingMarkedPathQuestion)
    ledger = cost_ledger(g.questions)
    assert [(e.draw, e.pick, e.times_asked) for e in ledger] == [(3, 1, 1), (3, 1, 1), (6, 2, 2)]


def test_elimination_keeps_the_mainland_and_drops_the_sea(loaded):
    g = loaded.game
    e = g.eliminate()
    assert e.remaining.covers(Point(HIDER))
    assert not e.remaining.covers(Point(BAY))
    assert e.steps[0].removed_km2 > 0  # the bay
    assert e.steps[1].removed_km2 > 0  # Kluuvikatu's cell
    assert e.steps[2].removed_km2 == pytest.approx(0.0, abs=1e-9)  # asked again: nothing new
    assert not e.remaining.covers(Point(KLUUVIKATU["lon"], KLUUVIKATU["lat"]))


def test_hider_answers_agree_and_zones_check(loaded):
    g = loaded.game
    answers = g.hider_answers(*HIDER)
    assert all(a == q.answer for q, a in answers)
    ok = g.check_zone(station=g.nearest_station(*HIDER))
    assert ok.valid


def test_different_landmass_eliminates_the_mainland(tmp_path):
    g = load_game(_game(tmp_path, landmass="different")).game
    e = g.eliminate()
    assert not e.remaining.covers(Point(HIDER))
    assert e.remaining_km2 < 0.1 * e.steps[0].removed_km2
    # Stations stand on land: none is left; only zones reaching the bay stay possible.
    assert not any(e.remaining.covers(Point(s.lon, s.lat)) for s in g.stations)
    possible = [z for z in g.possible_zones() if z.possible]
    assert 0 < len(possible) < len(g.stations) // 2
    metro = next(s for s in g.stations if s.name == "Rautatientori")
    check = g.check_zone(station=metro)
    assert not check.valid and check.conflicts[0].question.label() == "Matching landmass"


def test_cli_apply_answer_cost(tmp_path):
    game = _game(tmp_path)
    first = run("questions", "apply", game, "-o", tmp_path / "a")
    assert first.exit_code == 0, first.stderr
    again = run("questions", "apply", game, "-o", tmp_path / "b")
    assert again.exit_code == 0
    assert (tmp_path / "a" / "remaining.geojson").read_bytes() == (
        tmp_path / "b" / "remaining.geojson"
    ).read_bytes()
    out = run("questions", "answer", game, "--hider", f"{HIDER[1]},{HIDER[0]}", "--json")
    rows = json.loads(out.stdout)
    assert [r["answer"] for r in rows] == [r["recorded"] for r in rows]
    cost = run("questions", "cost", game)
    assert "Matching landmass: draw 3, pick 1" in cost.stdout
    assert "Matching marked path (asked 2×): draw 6, pick 2" in cost.stdout


def test_marked_path_without_extract_is_refused(tmp_path):
    data = json.loads(_game(tmp_path).read_text())
    data["osm"] = [str(REPO / "tests" / "data" / "no-such.osm.pbf")]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = run("questions", "apply", path, "-o", tmp_path / "out", catch_exceptions=True)
    assert result.exit_code != 0 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: ") and "no-such.osm.pbf" in result.stderr
