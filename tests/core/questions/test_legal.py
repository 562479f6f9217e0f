"""The JLTG.EU house rules on question costs and legal values, on the bundled real data.

Each test names the rule (house-rules section) it checks; docs/questions.md has the table.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import shapely
from shapely.geometry import Point
from support.cli_runs import refused, run
from support.geodesic_checks import GEOD
from support.paths import EXTRACTS, REPO

from stations_generator.app.game_loader import load_game
from stations_generator.core.geo.shapes import distance_m
from stations_generator.core.questions.geometry import (
    MatchingZoneQuestion,
    MeasuringQuestion,
    QuestionError,
    RadiusQuestion,
    ThermometerQuestion,
)
from stations_generator.core.questions.legal import (
    RADII_M,
    TENTACLES_RADIUS_M,
    check_tentacles,
    check_thermometer_distance,
    radius_class,
    thermometer_class,
)
from stations_generator.core.questions.rules import cost_ledger
from stations_generator.core.questions.transit import TransitLineTentaclesQuestion

EU_GAME = REPO / "examples" / "helsinki-game" / "jltg-eu.json"
LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
START = (24.94146, 60.17132)  # the example's seeker


def _draws(questions):
    return [(e.draw, e.pick) for e in cost_ledger(questions)]


def _walk(metres: float, azimuth: float = 135.0) -> tuple[float, float]:
    lon, lat, _ = GEOD.fwd(START[0], START[1], azimuth, metres)
    return float(lon), float(lat)


def _game_file(tmp_path, mutate, base=EU_GAME, name="game.json"):
    data = json.loads(base.read_text())
    mutate(data)
    data["play_area"] = str((base.parent / data["play_area"]).resolve())
    data["osm"] = [str((base.parent / f).resolve()) for f in data["osm"]]
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _refused(tmp_path, mutate, *messages):
    path = _game_file(tmp_path, mutate)
    result = run("questions", "apply", path, "-o", tmp_path / "out")
    refused(result, *messages)
    assert not (tmp_path / "out").exists()  # nothing written
    return path


# --- Repeating Questions + Radius: every custom radius repeats "custom" ----------------


def test_custom_radii_repeat_as_one_question():
    custom_a = RadiusQuestion(START, 1234.0, True)
    custom_b = RadiusQuestion(_walk(3000), 3300.0, False)
    assert radius_class(1234.0) == radius_class(3300.0) == "custom"
    assert _draws([custom_a, custom_b]) == [(2, 1), (4, 2)]
    assert custom_b.label() == "Radius 3.3 km (custom)"


def test_listed_radii_repeat_by_value():
    assert [radius_class(r) for r in RADII_M] == list(RADII_M)
    one = RadiusQuestion(START, 1000.0, True)
    two = RadiusQuestion(START, 2000.0, True)
    custom = RadiusQuestion(START, 1100.0, True)
    # 1 km twice is a repeat; 2 km and a custom 1.1 km are other questions.
    assert _draws([one, two, custom, one]) == [(2, 1), (2, 1), (2, 1), (4, 2)]


# --- Repeating Questions + Thermometer: by distance class ------------------------------


def test_undeclared_thermometers_repeat_by_distance_class():
    travelled = (446.0, 557.0, 457.0)
    thermometers = [ThermometerQuestion(START, _walk(d), True) for d in travelled]
    for q, d in zip(thermometers, travelled, strict=True):
        assert q.travelled_m() == pytest.approx(d, abs=1e-3)
        assert q.class_m() == 400.0
    assert _draws(thermometers) == [(2, 1), (4, 2), (6, 3)]
    assert {q.label() for q in thermometers} == {"Thermometer 400 m"}
    longer = ThermometerQuestion(START, _walk(1200.0), True)
    assert longer.class_m() == 1000.0 and _draws([*thermometers, longer])[-1] == (2, 1)


def test_thermometer_class_is_the_largest_listed_distance_travelled():
    for travelled in (400.0, 999.0, 4000.0, 20_000.0, 100_000.0):
        found = thermometer_class(travelled)
        assert found is not None and found <= travelled / 0.98
        if found < 75_000.0:  # the next class is at most 5× away
            assert thermometer_class(travelled * 5.1) > found
    assert thermometer_class(300.0) is None


def test_questions_cost_on_a_taibeled_question_list(tmp_path):
    def thermometer(d):
        end = _walk(d)
        data = {"latA": START[1], "lngA": START[0], "latB": end[1], "lngB": end[0]}
        return {"id": "thermometer", "key": d / 1000, "data": {**data, "warmer": True}}

    def radius(km):
        data = {"lat": START[1], "lng": START[0], "radius": km, "unit": "kilometers"}
        return {"id": "radius", "key": km, "data": {**data, "within": True}}

    questions = [thermometer(446), thermometer(557), thermometer(457), radius(1.234), radius(3.3)]
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(questions))
    result = run("questions", "cost", path, "--json")
    assert result.exit_code == 0, result.stderr
    ledger = json.loads(result.stdout)
    assert [(e["draw"], e["pick"]) for e in ledger] == [(2, 1), (4, 2), (6, 3), (2, 1), (4, 2)]
    assert ledger[4]["times_asked"] == 2 and "custom" in ledger[4]["label"]


# --- Thermometer: legal distances by game size ----------------------------------------


@pytest.mark.parametrize(
    ("distance", "size", "legal"),
    [(15_000.0, "S", False), (15_000.0, "M", True), (75_000.0, "M", False), (75_000.0, "L", True)],
)
def test_thermometer_distances_by_size(distance, size, legal):
    if legal:
        check_thermometer_distance(distance, size)
        return
    with pytest.raises(QuestionError, match=r"use 400 m, 1 km, 5 km") as exc:
        check_thermometer_distance(distance, size)
    assert "JLTG.EU house rules, Thermometer" in str(exc.value)


def test_illegal_thermometer_is_refused_but_still_priced(tmp_path):
    def mutate(d):
        d["questions"][1]["distance"] = "15 km"

    path = _refused(tmp_path, mutate, "question 2", "not allowed in a S game", "use 400 m, 1 km")
    cost = run("questions", "cost", path, "--json")
    assert cost.exit_code == 0, cost.stderr
    assert json.loads(cost.stdout)[1]["label"] == "Thermometer 15 km"


# --- Thermometer Mechanics: asked too early --------------------------------------------


def test_thermometer_asked_too_early_counts_with_no_answer(tmp_path):
    def mutate(d):
        d["questions"][1]["distance"] = "1 km"  # start and end are 448 m apart

    path = _game_file(tmp_path, mutate)
    result = run("questions", "apply", path, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    assert "question 2: thermometer 1 km: travelled only 448 m; counted as asked" in result.stderr
    steps = json.loads((tmp_path / "out" / "remaining.geojson").read_text())["features"]
    early = next(f["properties"] for f in steps if f["id"] == "question/2")
    assert early["removed_km2"] == 0 and "no answer" in early["note"]
    assert early["answer"] == "no answer (too early)"
    # It eliminates nothing: the game without it leaves the same area.
    game = load_game(path).game
    without = load_game(_game_file(tmp_path, lambda d: d["questions"].pop(1), name="b.json")).game
    assert shapely.equals(game.eliminate().remaining, without.eliminate().remaining)
    cost = json.loads(run("questions", "cost", path, "--json").stdout)
    assert (cost[1]["draw"], cost[1]["pick"]) == (2, 1)  # the reward is given


# --- Tentacles: subjects and their radius ---------------------------------------------


@pytest.mark.parametrize(
    ("subject", "radius", "message"),
    [
        ("museum", "25 km", "a 25 km tentacle takes zoo, aquarium, theme_park, transit_line"),
        ("zoo", "2 km", "a 2 km tentacle takes museum, library, cinema, hospital"),
        ("park", "2 km", "'park' is not a tentacles subject"),
    ],
)
def test_tentacles_outside_the_rules_are_refused(tmp_path, subject, radius, message):
    def mutate(d):
        seeker = {"lat": 60.168, "lon": 24.946}
        d["questions"].append(
            {
                "type": "tentacles",
                "seeker": seeker,
                "subject": subject,
                "radius": radius,
                "answer": "not within",
            }
        )

    _refused(tmp_path, mutate, "question 3", message, "JLTG.EU house rules, Tentacles")


def test_tentacles_subjects_at_their_own_radius_are_legal():
    for subject, radius in TENTACLES_RADIUS_M.items():
        check_tentacles(subject, radius, "jltg-eu")
    check_tentacles("park", 2000.0, "taibeled")  # the app's own games: any subject


def _transit_game(tmp_path, answer, radius="25 km"):
    def mutate(d):
        seeker = {"lat": 60.168, "lon": 24.946}
        d["questions"].append(
            {
                "type": "tentacles",
                "seeker": seeker,
                "subject": "transit_line",
                "radius": radius,
                "answer": answer,
            }
        )

    return _game_file(tmp_path, mutate, name=f"transit-{answer}.json")


def test_transit_line_tentacles_agree_with_the_hider(tmp_path):
    game = load_game(_transit_game(tmp_path, "2")).game
    q = game.questions[-1]
    assert isinstance(q, TransitLineTentaclesQuestion) and q.answer == "HSL:2"
    assert q.cost == (4, 2) and q.label() == "Tentacles transit line 25 km"
    # Only lines on tracks, each with a stop within 25 km of the seeker.
    assert q.lines and all(line.stops for line in q.lines)
    area = game.play_area
    kept = q.kept(area)
    assert 0 < kept.area < area.area
    lon0, lat0, lon1, lat1 = area.bounds
    lons, lats = np.meshgrid(np.linspace(lon0, lon1, 40), np.linspace(lat0, lat1, 40))
    lons, lats = lons.ravel(), lats.ravel()
    inside = shapely.contains_xy(area, lons, lats)
    lons, lats = lons[inside], lats[inside]
    says = q.answers_for(lons, lats) == "HSL:2"
    kept_pts = shapely.covers(kept, shapely.points(lons, lats))
    # Away from the cell edges (≤ 2 m: the polygons' tolerance) the map and the hider agree.
    edge = shapely.distance(kept.boundary, shapely.points(lons, lats)) * 111_000 * 0.5
    far = edge > 2.0
    assert far.sum() > 500
    assert np.array_equal(says[far], kept_pts[far])
    # Eliminating with it keeps exactly where the hider could have named line 2.
    assert game.eliminate().remaining.area <= kept.area + 1e-12


def test_transit_line_tentacles_name_a_line_in_reach(tmp_path):
    path = _transit_game(tmp_path, "no such line")
    result = run("questions", "apply", path, "-o", tmp_path / "out")
    assert result.exit_code != 0 and "no transit lines 'no such line'" in result.stderr
    _refused(
        tmp_path,
        lambda d: d["questions"].append(
            {
                "type": "tentacles",
                "seeker": {"lat": 60.168, "lon": 24.946},
                "subject": "transit_line",
                "radius": "2 km",
                "answer": "2",
            }
        ),
        "transit_line is a 25 km tentacle",
    )


# --- Measuring: international / OSM zone border, each level its own question ------------


@pytest.fixture(scope="module")
def liechtenstein_game(tmp_path_factory):
    vaduz = {"lat": 47.1410, "lon": 9.5209}
    schaan = {"lat": 47.1650, "lon": 9.5090}
    data = {
        "format": "stations-generator-game/1",
        "rules": "jltg-eu",
        "play_area": str((REPO / "zones" / "liechtenstein.geojson").resolve()),
        "osm": [str(LIECHTENSTEIN.resolve())],
        "questions": [
            {
                "type": "measuring",
                "seeker": vaduz,
                "subject": "border",
                "level": 8,
                "answer": "closer",
            },
            {
                "type": "measuring",
                "seeker": schaan,
                "subject": "border",
                "level": 8,
                "answer": "closer",
            },
            {"type": "measuring", "seeker": vaduz, "subject": "border", "answer": "closer"},
            {"type": "matching", "seeker": vaduz, "subject": "zone", "level": 8, "answer": "same"},
        ],
    }
    path = tmp_path_factory.mktemp("li") / "game.json"
    path.write_text(json.dumps(data))
    return path, load_game(path).game


def test_border_measures_to_its_admin_level(liechtenstein_game):
    _, game = liechtenstein_game
    level8, _, national, zone = game.questions
    assert isinstance(level8, MeasuringQuestion) and isinstance(zone, MatchingZoneQuestion)
    assert (level8.level, national.level) == (8, 2)
    # The distance to the nearest level-8 border is the distance to the edge of the
    # municipality the seeker is in (the zones the matching question reads).
    home = zone.seeker_zone().geometry
    lon, lat = level8.seeker
    edge = shapely.ops.nearest_points(home.boundary, Point(lon, lat))[0]
    assert level8.seeker_distance() == pytest.approx(
        float(distance_m(lon, lat, edge.x, edge.y)), abs=2.0
    )
    assert level8.seeker_distance() < national.seeker_distance()


def test_border_levels_are_separate_questions(liechtenstein_game):
    path, game = liechtenstein_game
    labels = [q.label() for q in game.questions[:3]]
    assert labels == ["Measuring border (level 8)"] * 2 + ["Measuring border (level 2)"]
    assert _draws(game.questions[:3]) == [(3, 1), (6, 2), (3, 1)]
    cost = run("questions", "cost", path)
    assert cost.exit_code == 0 and "Total: draw 15, pick 5" in cost.stdout


def test_border_level_follows_country(tmp_path):
    def mutate(d):
        d["country"] = "NL"
        d["questions"].append(
            {
                "type": "measuring",
                "seeker": d["questions"][0]["seeker"],
                "subject": "border",
                "level": 6,
                "answer": "closer",
            }
        )

    _refused(tmp_path, mutate, "admin level 6 is not a zone level in NL; use 2, 4, 8")


def test_border_level_survives_a_share_link(liechtenstein_game, tmp_path):
    from stations_generator.app.games import share_link

    _, game = liechtenstein_game
    link = tmp_path / "link.txt"
    link.write_text(share_link(game))
    again = load_game(link, [LIECHTENSTEIN]).game
    assert [q.label() for q in again.questions[:3]] == [q.label() for q in game.questions[:3]]
    assert _draws(again.questions[:3]) == [(3, 1), (6, 2), (3, 1)]


@pytest.mark.parametrize(
    "name, letter",
    [("’s-Hertogenbosch", "s"), ("'s-Gravenhage", "s"), ("1. Mai", "m"), ("Älvsjö", "ä")],
)
def test_station_first_letter_skips_what_is_not_a_letter(name, letter):
    """“’” as in ’s-Hertogenbosch is not a letter, so the first letter is “s” (JLTG.EU house
    rules, Matching: Same First Letter)."""
    from stations_generator.core.questions.places import first_letter

    assert first_letter(name) == letter
