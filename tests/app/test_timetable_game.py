"""A game on a GTFS feed: "reachable in the hiding period", the feed's credit, the example.

Real data: the bundled NYC subway feed (tests/data/gtfs) and the example game on it
(examples/nyc-game). The zones the game's timetable filter rules out are checked against
an independent brute force: the time-expanded Dijkstra of ``support.transit_oracle``
gives every stop's earliest arrival, and each zone's time is then taken plainly (every
zone against every stop, measured with pyproj).
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import math
from functools import cache
from pathlib import Path

import pytest
from pyproj import Geod
from support.cli_runs import run
from support.paths import DATA, REPO
from support.transit_oracle import INF, Oracle

from stations_generator.app.game_loader import load_game
from stations_generator.app.games import (
    ELIMINATION_HTML,
    ZONES_GEOJSON,
    apply_texts,
    check_zone,
    zone_payload,
)
from stations_generator.core.referee.clock import HIDING_TIME
from stations_generator.core.transit.reach import UNREACHABLE_REASON
from stations_generator.core.transit.walking import Walking
from stations_generator.errors import InputError
from stations_generator.formats.geojson_check import validate_rfc7946
from stations_generator.formats.gtfs.reader import read_feed

NYC = DATA / "gtfs" / "nyc_subway_gtfs.zip"
EXAMPLE = REPO / "examples" / "nyc-game"
DAY = dt.date(2025, 1, 8)
MTA = "Data provided by the Metropolitan Transportation Authority"
GEOD = Geod(ellps="WGS84")


@cache
def oracle() -> Oracle:
    return Oracle(read_feed(NYC), DAY)


def write_game(tmp_path: Path, questions: bool = False, size: str = "S", **keys) -> Path:
    """The example game with absolute paths, other start keys, and its questions or none."""
    game = json.loads((EXAMPLE / "game.json").read_text("utf-8"))
    game["play_area"] = str(EXAMPLE / "play-area.geojson")
    game["game_size"] = size
    stations = {
        k: v for k, v in game["stations"].items() if k not in ("hider_start", "hiding_started")
    }
    game["stations"] = {**stations, "gtfs": str(NYC), **keys}
    if not questions:
        game["questions"] = []
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game), "utf-8")
    return path


def brute_zone_time(lon: float, lat: float, radius: float, arrival: list, start=None) -> float:
    """The earliest time in the zone: arrived at a stop inside, or walked straight to the
    circle from a stop reached (or from the start position) within the walking distance."""
    walk = Walking()
    feed = oracle().feed
    best = INF
    points = [(feed.stop_lon[s], feed.stop_lat[s], t) for s, t in enumerate(arrival) if t < INF]
    if start is not None:
        points.append(start)
    for x, y, t in points:
        _, _, d = GEOD.inv(lon, lat, x, y)
        gap = max(d - radius, 0.0)
        if gap <= walk.max_distance_m:
            best = min(best, t + math.ceil(gap / walk.speed_mps))
    return best


def stop_rows(name: str) -> list[int]:
    """The stops a station name stands for: the station and its platforms."""
    feed = oracle().feed
    station = [i for i, n in enumerate(feed.stop_names) if n == name and feed.stop_parent[i] < 0]
    return [i for i in range(feed.n_stops) if i in station or feed.stop_parent[i] in station]


CASES = [
    # (hider_start, hiding_started, game size)
    ("South Ferry", "08:00", "S"),
    ("215 St", "17:45", "S"),
    ([-73.9857, 40.7580], "23:50", "M"),  # a position near Times Square, past midnight
]


@pytest.mark.parametrize(("start", "at", "size"), CASES)
def test_the_timetable_filter_equals_a_brute_force(tmp_path, start, at, size):
    loaded = load_game(write_game(tmp_path, size=size, hider_start=start, hiding_started=at))
    game = loaded.game
    assert game.zone_filter is not None and game.timetable_lines and game.credits == (MTA,)
    zones = game.possible_zones()
    t0 = int(at[:2]) * 3600 + int(at[3:]) * 60
    deadline = t0 + int(HIDING_TIME[size].total_seconds())
    o = oracle()
    if isinstance(start, list):
        arrival = o.arrivals_from_position(start[0], start[1], t0)
        position = (start[0], start[1], t0)
    else:
        runs = [o.arrivals(s, t0) for s in stop_rows(start)]
        arrival = [min(times) for times in zip(*runs, strict=True)]
        position = None
    radius = game.hiding_radius_m
    ruled_out = set()
    for z in zones:
        late = brute_zone_time(z.station.lon, z.station.lat, radius, arrival, position) > deadline
        if late:
            ruled_out.add(z.station.id)
        assert z.possible == (not late), z
        assert z.reason == (game.zone_filter.reason if late else "")
    assert 0 < len(ruled_out) < len(zones)  # the filter separates the zones
    assert game.zone_filter.reason.startswith(UNREACHABLE_REASON)
    assert "nyc_subway_gtfs.zip" in game.zone_filter.reason
    # zones check on one of them says NOT VALID naming the timetable; on the others VALID
    some = next(z.station for z in zones if z.station.id in ruled_out)
    result = check_zone(game, station=some.id)
    assert not result.valid and result.filtered_out == game.zone_filter.reason
    assert zone_payload(game, result, some.name)["timetable"] == result.filtered_out
    other = next(z.station for z in zones if z.station.id not in ruled_out)
    assert check_zone(game, station=other.id).valid
    assert "timetable" not in zone_payload(game, check_zone(game, station=other.id), "")


def test_every_surface_says_what_the_timetable_rules_out(tmp_path):
    path = write_game(tmp_path, hider_start="South Ferry", hiding_started="08:00")
    game = load_game(path).game
    zones = game.possible_zones()
    out = [z for z in zones if z.reason == game.zone_filter.reason]
    assert out and any(game.zone_filter.note in n for n in game.notes())
    texts = apply_texts(game, game.eliminate(), zones, html_map=False, title="nyc")
    doc = json.loads(texts[ZONES_GEOJSON])
    validate_rfc7946(doc)
    marked = [f for f in doc["features"] if f["properties"]["reason"] == game.zone_filter.reason]
    assert {f["id"] for f in marked} == {z.station.id for z in out}
    assert all(not f["properties"]["possible"] for f in marked)
    applied = run("questions", "apply", path, "-o", tmp_path / "out")
    assert applied.exit_code == 0, applied.output
    assert f"{len(out)} ruled out by the timetable" in applied.output
    name = out[0].station.name
    checked = run("zones", "check", path, "--station", out[0].station.id)
    assert checked.exit_code == 1 and f"{name} ({out[0].station.id}): NOT VALID" in checked.output
    assert f"NOT VALID\n  {game.zone_filter.reason}\n" in checked.stdout
    as_json = run("zones", "check", path, "--station", out[0].station.id, "--json")
    assert json.loads(as_json.stdout)["timetable"] == game.zone_filter.reason


def test_without_a_start_no_zone_is_filtered(tmp_path):
    game = load_game(write_game(tmp_path)).game
    assert game.zone_filter is None
    assert all(z.possible for z in game.possible_zones())
    assert not any(n.startswith("timetable") for n in game.notes())


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ({"hider_start": "South Ferry"}, ['"hider_start" needs "hiding_started"']),
        ({"hiding_started": "08:00"}, ['"hiding_started" needs "hider_start"']),
        (
            {"hider_start": "Nowhere St", "hiding_started": "08:00"},
            ["stations.hider_start: 'Nowhere St' is no stop id or stop name", "[lon, lat]"],
        ),
        ({"hider_start": "South Ferry", "hiding_started": "48:00"}, ["hiding_started", "HH:MM"]),
        ({"hider_start": "South Ferry", "hiding_started": "8am"}, ["hiding_started", "HH:MM"]),
        (
            {"hider_start": [40.7, -74.0, 1], "hiding_started": "08:00"},
            ["hider_start", "[lon, lat]"],
        ),
        ({"hider_start": [-74.0, 95.0], "hiding_started": "08:00"}, ["longitude first"]),
    ],
)
def test_bad_start_keys_are_one_line(tmp_path, keys, words):
    with pytest.raises(InputError) as err:
        load_game(write_game(tmp_path, **keys))
    text = str(err.value)
    assert "\n" not in text and all(w in text for w in words), text


def test_the_feed_s_credit_is_in_the_game_s_outputs(tmp_path):
    credit = 'Transit <b>"A" & B</b>'
    path = write_game(tmp_path, attribution=credit)
    game = load_game(path).game
    assert game.credits == (credit,)
    zones = game.possible_zones()
    texts = apply_texts(game, game.eliminate(), zones, html_map=True, title="nyc")
    assert json.loads(texts[ZONES_GEOJSON])["metadata"] == {"attribution": credit}
    page = texts[ELIMINATION_HTML]
    # escaped: no markup from the credit gets into the page, and the tiles' credit stays
    assert '"Transit &lt;b&gt;&quot;A&quot; &amp; B&lt;/b&gt;"' in page
    assert "<b>" not in page.split("addAttribution(")[-1]
    assert "OpenStreetMap" in page
    # without "attribution" the feed's agencies are credited; byte-identical on a rerun
    plain = load_game(write_game(tmp_path)).game
    assert plain.credits == (MTA,)
    again = apply_texts(game, game.eliminate(), zones, html_map=True, title="nyc")
    assert again == texts


def test_a_game_without_a_feed_carries_no_feed_credit():
    from shapely.geometry import box

    from stations_generator.app.games import zones_geojson
    from stations_generator.core.questions.game import Game
    from stations_generator.core.questions.places import Station
    from stations_generator.core.questions.rules import rule_set

    g = Game(
        box(-74.02, 40.70, -73.93, 40.82),
        rule_set("official"),
        "S",
        [Station("a", "A", -74.0, 40.75)],
    )
    assert "metadata" not in zones_geojson(g, g.possible_zones())


def load_script():
    spec = importlib.util.spec_from_file_location(
        "nyc_play_area", REPO / "scripts" / "nyc_play_area.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_nyc_example_runs_and_its_answers_are_the_hider_s(tmp_path):
    """The example's play area is the script's, its answers those of a hider at 96 St who
    could get there, and ``questions apply`` says what the timetable rules out."""
    text, count = load_script().build()
    assert text == (EXAMPLE / "play-area.geojson").read_text("utf-8") and count > 30
    game = load_game(EXAMPLE / "game.json").game
    hider = next(s for s in game.stations if s.name == "96 St")
    answers = game.hider_answers(hider.lon, hider.lat, hider)
    assert [a for _, a in answers] == [q.answer for q in game.questions]
    zones = {z.station.id: z for z in game.possible_zones()}
    assert zones[hider.id].possible and check_zone(game, station=hider.id).valid
    ruled = [z for z in zones.values() if z.reason == game.zone_filter.reason]
    assert ruled
    applied = run("questions", "apply", EXAMPLE / "game.json", "-o", tmp_path / "out", "--map")
    assert applied.exit_code == 0, applied.output
    assert f"{len(ruled)} ruled out by the timetable" in applied.output
    page = (tmp_path / "out" / ELIMINATION_HTML).read_text("utf-8")
    assert f'addAttribution("{MTA}")' in page


def test_a_feed_game_under_jltg_eu_has_no_unchecked_frequency_note(tmp_path):
    from stations_generator.core.questions.transit_lines import FREQUENCY_NOTE

    path = write_game(tmp_path, questions=True)
    game = json.loads(path.read_text("utf-8"))
    game["rules"] = "jltg-eu"
    path.write_text(json.dumps(game), "utf-8")
    loaded = load_game(path).game
    assert any(q.label() == "Matching transit line" for q in loaded.questions)
    assert loaded.timetable_lines and FREQUENCY_NOTE not in loaded.notes()
    loaded.timetable_lines = False  # the same game on OSM-like lines would carry it
    assert FREQUENCY_NOTE in loaded.notes()


def test_the_schema_knows_every_feed_key():
    from stations_generator.app.timetable_game import SPEC_KEYS
    from stations_generator.formats import schemas

    stations = schemas.GAME["properties"]["stations"]["then"]["properties"]
    assert set(SPEC_KEYS) <= set(stations)
    assert {"hider_start", "hiding_started"} <= set(SPEC_KEYS)
