"""Station maps from a GTFS feed, merged with another station map, and games on them.

Real feeds (tests/data/gtfs): the NYC subway 1 and 2 lines, Cairns buses. The outputs
are read back with the one station-map reader, checked against RFC 7946, drawn with
``map``, and written twice; the game's transit-line answers are checked against the
direct links of the feed.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from support.cli_runs import run
from support.paths import DATA

from stations_generator.app.game_loader import load_game
from stations_generator.app.timetable_feed import FeedChoice, open_feed, resolve
from stations_generator.app.timetable_lines import check_line
from stations_generator.app.timetable_stations import (
    SAME_PLACE_M,
    run_timetable_stations,
)
from stations_generator.core.transit.lines import direct_links, stop_validity
from stations_generator.core.transit.selection import select_stations
from stations_generator.errors import InputError
from stations_generator.formats.geojson_check import validate_rfc7946
from stations_generator.formats.stationfile import read_station_map

NYC = DATA / "gtfs" / "nyc_subway_gtfs.zip"
CAIRNS = DATA / "gtfs" / "cairns_gtfs.zip"
WEDNESDAY = "2025-01-08"
#: The attribution the MTA's terms ask for (tests/data/gtfs/README.md).
MTA = "Data provided by the Metropolitan Transportation Authority"
#: Midtown and Lower Manhattan: the 1 and 2 lines' shared trunk and the 1's west side.
MANHATTAN = [[-74.02, 40.70], [-73.93, 40.70], [-73.93, 40.82], [-74.02, 40.82], [-74.02, 40.70]]


def choice(**kw) -> FeedChoice:
    return FeedChoice(**{"feed": NYC, "date": WEDNESDAY, "attribution": MTA, **kw})


@cache
def nyc_feed():
    return open_feed(NYC, use_cache=False)


def station_ids(folder: Path) -> dict[str, dict]:
    m = read_station_map(folder / "stations.geojson")
    return {p["id"]: p for p in m.properties}


def test_outputs_load_in_the_readers_and_rerun_byte_identical(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "stations.html").write_text("an earlier generate --map")
    pick = choice(routes=("1",), min_per_hour=6, every_nth=2)
    result = run_timetable_stations(pick, tmp_path / "a", use_cache=False)
    run_timetable_stations(pick, tmp_path / "b", use_cache=False)
    files = ("stations.geojson", "stations.csv", "stations.kml")
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert not (tmp_path / "a" / "stations.html").exists()  # generate's output set, replaced
    data = json.loads((tmp_path / "a" / "stations.geojson").read_text("utf-8"))
    assert validate_rfc7946(data) == []
    assert data["metadata"]["attribution"] == MTA
    kml_text = (tmp_path / "a" / "stations.kml").read_text("utf-8")
    assert MTA in kml_text and "Routes: 1" in kml_text
    props = station_ids(tmp_path / "a")
    assert len(props) == len(result.selection.service.stations) > 0
    csv_rows = (tmp_path / "a" / "stations.csv").read_text("utf-8").splitlines()
    assert len(csv_rows) == len(props) + 1
    for p in props.values():
        assert p["routes"] == "1" and p["category"] == "subway_station"
        assert p["departures_per_hour"] >= 6 and 0 <= p["wait_min"] <= p["wait_max"]
    html = tmp_path / "map.html"
    shown = run("map", tmp_path / "a" / "stations.geojson", "-o", html)
    assert shown.exit_code == 0, shown.output
    names = [p["name"] for p in props.values()]
    assert html.stat().st_size > 10_000 and all(n in html.read_text("utf-8") for n in names)


def test_every_station_is_served_at_the_asked_frequency():
    fd = resolve(nyc_feed(), choice(min_per_hour=12, start="08:00", end="10:00"))
    ds, service = fd.service, select_stations(fd.service, fd.routes, 12).service
    dep = ds.departures(fd.routes)
    stations = ds.station[ds.stop[dep]]
    for s, per_hour in zip(service.stations.tolist(), service.per_hour.tolist(), strict=True):
        count = int((stations == s).sum())
        assert count / 2 == per_hour >= 12
    served = set(stations.tolist())
    frequent = {s for s in served if (stations == s).sum() / 2 >= 12}
    assert set(service.stations.tolist()) == frequent


def test_route_filters_keep_only_their_routes(tmp_path):
    fd = resolve(open_feed(CAIRNS, use_cache=False), FeedChoice(CAIRNS, routes=("110", "123-423")))
    assert [fd.feed.route_ids[r] for r in np.flatnonzero(fd.routes)] == ["110-423", "123-423"]
    run_timetable_stations(
        FeedChoice(CAIRNS, routes=("110", "123-423"), date="2014-06-10"), tmp_path, use_cache=False
    )
    props = station_ids(tmp_path)
    assert props and all(set(p["routes"].split(";")) <= {"110", "123"} for p in props.values())
    assert all(p["category"] == "bus_stop" for p in props.values())


def test_merging_with_a_station_map_counts_the_shared_stations(tmp_path):
    """Route 2's stations merged into route 1's map: the stations both lines serve are
    one station each (same point), the others added."""
    run_timetable_stations(choice(routes=("1",)), tmp_path / "one", use_cache=False)
    two = run_timetable_stations(choice(routes=("2",)), tmp_path / "two", use_cache=False)
    merged = run_timetable_stations(
        choice(routes=("2",)),
        tmp_path / "both",
        osm_stations=tmp_path / "one" / "stations.geojson",
        use_cache=False,
    )
    one_ids, two_ids = set(station_ids(tmp_path / "one")), set(station_ids(tmp_path / "two"))
    shared = one_ids & two_ids
    assert shared and merged.merged == len(shared)
    assert len(two.table) == len(two_ids)
    both = station_ids(tmp_path / "both")
    assert set(both) == one_ids | two_ids
    for sid in shared:
        assert both[sid]["routes"] == "2"  # route 1 is in the first map's own properties
    meta = read_station_map(tmp_path / "both" / "stations.geojson").metadata
    assert meta["merged_stations"] == len(shared) and meta["same_place_m"] == SAME_PLACE_M
    assert "OpenStreetMap" in meta["attribution"] and MTA in meta["attribution"]


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"routes": ("7",)}, ["--route '7'", "1, 2"]),
        ({"date": "2030-01-01"}, ["--date 2030-01-01", "2024-12-15 – 2025-01-17"]),
        ({"start": "19:00", "end": "07:00"}, ["--window 19:00-07:00"]),
        ({"start": "7pm"}, ["--window start '7pm'", "HH:MM"]),
        ({"route_types": ("boat",)}, ["unknown route type 'boat'"]),
        ({"min_per_hour": 1000}, ["widen --window"]),
    ],
)
def test_bad_choices_are_one_line(tmp_path, kw, words):
    with pytest.raises(InputError) as err:
        run_timetable_stations(choice(**kw), tmp_path / "out", use_cache=False)
    text = str(err.value)
    assert "\n" not in text and all(w in text for w in words), text
    assert not (tmp_path / "out" / "stations.geojson").exists()


def write_game(tmp_path: Path, rules: str, stations: dict, answer: str = "same") -> Path:
    game = {
        "format": "stations-generator-game/1",
        "rules": rules,
        "game_size": "S",
        "play_area": {"type": "Polygon", "coordinates": [MANHATTAN]},
        "stations": stations,
        "questions": [
            {
                "type": "matching",
                "seeker": {"lat": 40.7553, "lon": -73.9872},  # at Times Sq-42 St
                "subject": "transit-line",
                "answer": answer,
            }
        ],
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game), "utf-8")
    return path


@pytest.mark.parametrize("every_min", [6, 9])
def test_the_games_transit_line_question_follows_the_direct_trips(tmp_path, every_min):
    spec = {"gtfs": str(NYC), "date": WEDNESDAY, "line_every_min": every_min}
    loaded = load_game(write_game(tmp_path, "official", spec))
    g = loaded.game
    fd = resolve(nyc_feed(), choice())
    rows = {f"gtfs:{fd.feed.stop_ids[s]}": s for s in np.unique(fd.feed.station_of()).tolist()}
    seeker = g.nearest_station(-73.9872, 40.7553)
    assert seeker.name == "Times Sq-42 St"
    question = g.questions[0]
    same = {s.id for s in g.stations if question.answer_for_station(s)}
    links = direct_links(fd.service, fd.routes)
    waits = {
        s.id: [links.wait(rows[seeker.id], rows[s.id]), links.wait(rows[s.id], rows[seeker.id])]
        for s in g.stations
    }
    expected = {
        sid
        for sid, both in waits.items()
        if sid != seeker.id and any(0 <= w <= every_min * 60 for w in both)
    }
    # the command's check says the same for one of them
    some = sorted(expected)[0]
    assert check_line(fd, rows[seeker.id], rows[some], every_min * 60).same_line
    assert same - {seeker.id} == expected
    assert expected
    if every_min == 6:  # the 1 runs every 6 min at most, the 2 less often: it separates them
        assert len(expected) < len(g.stations) - 1
    possible = {z.station.id for z in g.possible_zones() if z.possible}
    assert possible <= same


def test_zones_check_and_house_rule_stops_on_feed_stations(tmp_path):
    spec = {"gtfs": str(NYC), "date": WEDNESDAY}
    path = write_game(tmp_path, "official", spec)
    ok = run("zones", "check", path, "--station", "Chambers St")
    assert ok.exit_code == 0 and "Chambers St (gtfs:137): VALID" in ok.output
    # Under jltg-eu a metro station is no valid hiding stop (its tags say subway).
    path = write_game(tmp_path, "jltg-eu", {**spec, "valid_stops_only": True})
    checked = run("zones", "check", path, "--station", "Chambers St")
    assert checked.exit_code == 1 and "not a valid hiding stop under jltg-eu" in checked.output
    loaded = load_game(path)
    fd = resolve(nyc_feed(), choice())
    validity = stop_validity(fd.service, 500.0)
    valid_ids = {
        f"gtfs:{fd.feed.stop_ids[s]}"
        for s, v in zip(validity.stations, validity.valid, strict=True)
        if v
    }
    assert {s.id for s in loaded.game.stations} <= valid_ids


def test_a_game_feed_key_without_the_feed_is_refused(tmp_path):
    path = write_game(tmp_path, "official", {"routes": ["1"]})
    with pytest.raises(InputError, match="'routes' needs \"gtfs\""):
        load_game(path)
    path = write_game(tmp_path, "official", {"gtfs": str(NYC), "date": "2030-01-01"})
    with pytest.raises(InputError, match=r"stations.gtfs \(nyc_subway_gtfs.zip\): --date 2030"):
        load_game(path)
    assert dt.date(2025, 1, 8).isoformat() == WEDNESDAY
