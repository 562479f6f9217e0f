"""Games on real data: elimination, possible zones, zone checks, hider mode, the cost ledger, the CLI."""

from __future__ import annotations

import json
import shutil

import pytest
from shapely.geometry import Point
from support.cli_runs import run
from support.paths import REPO

from stations_generator.app.game_loader import load_game
from stations_generator.core.questions.geometry import RadiusQuestion
from stations_generator.core.questions.rules import RULE_SETS, cost_ledger

GAME = REPO / "examples" / "helsinki-game" / "game.json"
HIDER = (24.9490, 60.1665)  # where the example's answers were given from


@pytest.fixture(scope="module")
def loaded():
    return load_game(GAME)


def test_example_loads_real_data(loaded):
    g = loaded.game
    assert len(g.stations) >= 30  # railway stations and tram stops of Helsinki centre
    assert any(s.lines for s in g.stations)  # tram routes from the extract's relations
    assert [q.kind for q in g.questions] == [
        "radius",
        "thermometer",
        "matching",
        "tentacles",
        "measuring",
        "matching",
        "radius",
    ]


def test_hider_is_consistent_with_every_answer(loaded):
    g = loaded.game
    answers = g.hider_answers(*HIDER)
    assert all(a == q.answer for q, a in answers)
    elimination = g.eliminate()
    assert elimination.remaining.covers(Point(HIDER))
    assert 0 < elimination.remaining_km2 < 0.5


def test_steps_account_for_the_area(loaded):
    g = loaded.game
    e = g.eliminate()
    from stations_generator.core.geo.geodesy import geodesic_area_km2

    start = geodesic_area_km2(g.play_area)
    removed = sum(s.removed_km2 for s in e.steps)
    assert start - removed == pytest.approx(e.remaining_km2, abs=1e-4)


def test_possible_zones(loaded):
    g = loaded.game
    zones = g.possible_zones()
    hider_station = g.nearest_station(*HIDER)
    status = {z.station.id: z for z in zones}
    assert status[hider_station.id].possible
    assert 0 < status[hider_station.id].fraction <= 1
    impossible = [z for z in zones if not z.possible]
    assert impossible and all(z.reason for z in impossible)
    assert all(z.fraction == 0 for z in impossible)


def test_zone_check_names_the_eliminating_question(loaded):
    from stations_generator.core.geo.shapes import geodesic_circle

    g = loaded.game
    ruled_out = 0
    for station in g.stations:
        check = g.check_zone(station=station)
        zone = geodesic_circle(station.lon, station.lat, g.hiding_radius_m).intersection(
            g.play_area
        )
        area_conflicts = [
            c
            for c in check.conflicts
            if c.question.kind != "matching" or hasattr(c.question, "kept")
        ]
        if not area_conflicts:
            continue
        ruled_out += 1
        first = area_conflicts[0]
        # Every earlier area question leaves part of the zone; the named one removes the rest.
        region = zone
        for q in g.questions[: first.index]:
            if hasattr(q, "kept"):
                region = q.kept(region)
        assert region.area > 0
        assert first.question.kept(region).area == 0
        assert first.needed == first.question.answer_for(station.lon, station.lat)
        assert first.needed != first.recorded
    assert ruled_out >= 5
    # The example's Rautatientori (metro) zone: only the coastline measuring rules it out.
    metro = next(s for s in g.stations if s.name == "Rautatientori")
    labels = [c.question.label() for c in g.check_zone(station=metro).conflicts]
    assert labels[0] == "Measuring coastline"
    ok = g.check_zone(station=g.nearest_station(*HIDER))
    assert ok.valid and ok.conflicts == ()


def test_station_question_filters_stations(loaded):
    g = loaded.game
    line_q = g.questions[5]
    e = g.eliminate()
    removed = set(e.steps[5].stations_removed)
    assert removed
    for s in g.stations:
        if s.id in removed:
            assert not (s.lines & line_q.seeker_station.lines)


def test_cost_ledger_repeats():
    q1 = RadiusQuestion((24.94, 60.17), 500, True)
    q2 = RadiusQuestion((24.95, 60.17), 500, False)  # the same question elsewhere
    q3 = RadiusQuestion((24.95, 60.17), 1000, False)  # another question
    ledger = cost_ledger([q1, q2, q3, q1])
    assert [(e.draw, e.pick, e.times_asked) for e in ledger] == [
        (2, 1, 1),
        (4, 2, 2),
        (2, 1, 1),
        (6, 3, 3),
    ]


def test_rule_presets():
    eu, official = RULE_SETS["jltg-eu"], RULE_SETS["official"]
    assert eu.radius_m("M") == 500 and eu.radius_m("L") == 1000
    assert official.radius_m("S") == pytest.approx(402.336) and official.radius_m(
        "L"
    ) == pytest.approx(804.672)
    assert eu.radius_m("M", ["prosperous"]) == 750
    assert eu.radius_m("M", ["tiny"]) == 250
    assert eu.radius_m("M", ["prosperous", "tiny"]) == 375


def test_jltg_eu_valid_stops(loaded):
    g = loaded.game
    kinds = {s.id: dict(s.tags) for s in g.stations}
    tram = next(s for s in g.stations if kinds[s.id].get("railway") == "tram_stop")
    subway = next(s for s in g.stations if kinds[s.id].get("station") == "subway")
    rail = next(
        s
        for s in g.stations
        if kinds[s.id].get("railway") == "station" and kinds[s.id].get("station") != "subway"
    )
    eu = RULE_SETS["jltg-eu"]
    assert (
        eu.is_valid_stop(rail, "DE")
        and not eu.is_valid_stop(tram, "DE")
        and not eu.is_valid_stop(subway, "DE")
    )
    assert RULE_SETS["official"].is_valid_stop(tram, "FI")


# --- CLI -------------------------------------------------------------------------


def test_cli_apply(tmp_path):
    result = run("questions", "apply", GAME, "-o", tmp_path)
    assert result.exit_code == 0, result.stderr
    remaining = json.loads((tmp_path / "remaining.geojson").read_text())
    zones = json.loads((tmp_path / "zones.geojson").read_text())
    assert remaining["features"][0]["properties"]["role"] == "remaining"
    assert len(remaining["features"]) == 1 + 7
    assert any(f["properties"]["possible"] for f in zones["features"])
    assert "hiding zones still possible" in result.stderr
    again = run("questions", "apply", GAME, "-o", tmp_path / "b")
    assert again.exit_code == 0
    assert (tmp_path / "b" / "remaining.geojson").read_bytes() == (
        tmp_path / "remaining.geojson"
    ).read_bytes()


def test_cli_answer_and_check_and_cost():
    out = run("questions", "answer", GAME, "--hider", f"{HIDER[1]},{HIDER[0]}", "--json")
    rows = json.loads(out.stdout)
    assert all(r["answer"] == r["recorded"] for r in rows)
    check = run("zones", "check", GAME, "--station", "Rautatientori")
    assert check.exit_code == 1 and "ruled out by question" in check.stdout
    cost = run("questions", "cost", GAME)
    assert cost.exit_code == 0 and "Total: draw 19, pick 8" in cost.stdout


def _bad_game(tmp_path, mutate, message):
    data = json.loads(GAME.read_text())
    mutate(data)
    path = tmp_path / "game.json"
    for key in ("play_area",):
        data[key] = str((GAME.parent / data[key]).resolve())
    data["osm"] = [str((GAME.parent / f).resolve()) for f in data["osm"]]
    path.write_text(json.dumps(data))
    result = run("questions", "apply", path, "-o", tmp_path / "out")
    assert result.exit_code != 0
    assert "Traceback" not in result.stderr and result.stderr.startswith("error: ")
    assert message in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_bad_question_type(tmp_path):
    _bad_game(
        tmp_path,
        lambda d: d["questions"][0].update(type="compass"),
        "unknown question type 'compass'",
    )


def test_missing_answer(tmp_path):
    _bad_game(tmp_path, lambda d: d["questions"][0].pop("answer"), "no answer recorded")


def test_thermometer_distance_not_allowed(tmp_path):
    _bad_game(
        tmp_path, lambda d: d["questions"][1].update(distance="15 km"), "not allowed in a S game"
    )


def test_swapped_seeker(tmp_path):
    _bad_game(
        tmp_path,
        lambda d: (
            d["questions"][0].update(seeker={"lat": 24.94, "lon": 60.17})
            or d["questions"][0].update(seeker={"lat": 124.94, "lon": 60.17})
        ),
        "out of range",
    )


def test_hider_outside_play_area():
    result = run("questions", "answer", GAME, "--hider", "60.30,24.94")
    assert result.exit_code != 0 and "outside the play area" in result.stderr


def test_relative_paths_follow_the_game_file(tmp_path):
    shutil.copytree(GAME.parent, tmp_path / "g")
    # the copy's relative paths no longer resolve
    result = run("questions", "apply", tmp_path / "g" / "game.json", "-o", tmp_path / "o")
    assert result.exit_code != 0 and "does not exist" in result.stderr


def test_zone_level_follows_country_preset(tmp_path):
    def mutate(d):
        d["country"] = "DE"
        d["questions"].append(
            {
                "type": "matching",
                "seeker": {"lat": 60.17, "lon": 24.94},
                "subject": "zone",
                "level": 5,
                "answer": "same",
            }
        )

    _bad_game(tmp_path, mutate, "admin level 5 is not a zone level in DE; use 4, 6, 8")


def test_not_a_game_file(tmp_path):
    result = run(
        "questions", "apply", REPO / "examples/sioux-falls/peer-output.csv", "-o", tmp_path
    )
    assert result.exit_code == 2 and "is not a game file" in result.stderr
    result = run(
        "questions", "apply", REPO / "examples/sioux-falls/polygon.geojson", "-o", tmp_path
    )
    assert result.exit_code == 2 and "not a game (no play area polygon)" in result.stderr


def test_zone_check_point_outside_play_area():
    result = run("zones", "check", GAME, "--at", "61.0,25.0")
    assert result.exit_code == 2 and "outside the play area" in result.stderr


def test_contradictory_answers_are_set_aside_and_named(loaded):
    """Two 250 m radius answers at opposite corners leave nothing: the second is set aside,
    both are named, and the other questions still apply to the area before it."""
    import dataclasses

    g = loaded.game
    corner_a = RadiusQuestion((24.9375, 60.1655), 250.0, True)
    corner_b = RadiusQuestion((24.951, 60.1775), 250.0, True)
    game = dataclasses.replace(g, questions=[corner_a, *g.questions[:2], corner_b])
    e = game.eliminate()
    (found,) = e.contradictions
    assert found.question == 4 and len(found.together) == 2 and found.together[-1] == 4
    other = found.together[0]
    assert f"check questions {other} and 4" in found.message()
    assert [s.set_aside for s in e.steps] == [False, False, False, True]
    # Minimal and true: the pair alone leaves nothing, each alone leaves some area.
    pair = [game.questions[other - 1], corner_b]
    assert dataclasses.replace(g, questions=pair).eliminate().contradictions
    for q in pair:
        assert not dataclasses.replace(g, questions=[q]).eliminate().contradictions
    without = dataclasses.replace(g, questions=[corner_a, *g.questions[:2]]).eliminate()
    assert e.remaining.equals(without.remaining) and e.remaining_km2 > 0
    assert game.possible_zones(e)  # no crash on what follows


def test_answer_impossible_on_its_own_is_named_alone(loaded):
    import dataclasses

    far = RadiusQuestion((23.7, 61.5), 500.0, True)  # the seeker was 150 km away
    game = dataclasses.replace(loaded.game, questions=[*loaded.game.questions[:1], far])
    e = game.eliminate()
    assert [c.together for c in e.contradictions] == [(2,)]
    assert "on its own" in e.contradictions[0].message()


def test_zone_centred_outside_the_map_is_not_valid(loaded):
    """A zone must be centred on a stop in the game map (JLTG.EU house rules, Exiting the
    Game Map): a centre just outside whose circle still reaches in is not inside the map."""
    from pyproj import Geod
    from shapely.geometry import Point

    g = loaded.game
    polygon = max(getattr(g.play_area, "geoms", [g.play_area]), key=lambda p: p.area)
    boundary = polygon.exterior
    edge = boundary.interpolate(0.37, normalized=True)
    # Step 100 m outwards along the boundary's normal: try both sides, keep the outside one.
    geod = Geod(ellps="WGS84")
    ahead = boundary.interpolate(0.3701, normalized=True)
    azimuth, _, _ = geod.inv(edge.x, edge.y, ahead.x, ahead.y)
    outside = None
    for turn in (90, -90):
        lon, lat, _ = geod.fwd(edge.x, edge.y, azimuth + turn, 100)
        if not g.play_area.covers(Point(lon, lat)):
            outside = (lon, lat)
    assert outside is not None
    check = g.check_zone(point=outside)
    assert not check.inside_map and not check.valid
    hider_stop = g.nearest_station(*HIDER)
    assert g.check_zone(point=(hider_stop.lon, hider_stop.lat)).inside_map
