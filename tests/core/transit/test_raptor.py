"""RAPTOR's earliest arrivals equal an independent brute force (time-expanded Dijkstra).

Both real feeds, seeded random start stops and times; the same rules (one walk between
two trips, transfers.txt, change times) are written twice, once in
``stations_generator.core.transit`` and once in ``tests/support/transit_oracle.py``.
"""

from __future__ import annotations

import datetime as dt
import random
import zipfile
from functools import cache

import numpy as np
import pytest
from support.paths import DATA
from support.transit_oracle import INF, Oracle

from stations_generator.core.transit.raptor import UNREACHED, earliest_arrival
from stations_generator.core.transit.timetable import DAY_S, build_timetable
from stations_generator.formats.gtfs.reader import read_feed

GTFS = DATA / "gtfs"
#: A weekday of each feed (the NYC one a Wednesday; Cairns' 9 June 2014 is a holiday
#: removed from the weekday service by calendar_dates.txt, 10 June a plain Tuesday).
DAYS = {"nyc_subway": dt.date(2025, 1, 8), "cairns": dt.date(2014, 6, 10)}


@cache
def feed(name: str):
    return read_feed(GTFS / f"{name}_gtfs.zip")


@cache
def setup(name: str, day: dt.date):
    return build_timetable(feed(name), day), Oracle(feed(name), day)


def as_list(arrival: np.ndarray) -> list[float]:
    return [INF if a >= UNREACHED else int(a) for a in arrival]


def check_journey(result, stop: int) -> None:
    legs = result.journey(stop)
    if stop in result_starts(result):
        return
    assert legs, stop
    assert legs[-1].to_stop == stop and legs[-1].arrive == result.arrival[stop]
    assert legs[0].depart >= result.start_time
    for a, b in zip(legs, legs[1:], strict=False):
        assert b.from_stop == a.to_stop and b.depart >= a.arrive
    rides = [leg for leg in legs if leg.kind == "ride"]
    assert len(rides) == result.trips[stop]


def result_starts(result) -> set[int]:
    return {int(s) for s in np.flatnonzero(result.arrival == result.start_time)}


@pytest.mark.parametrize("name", sorted(DAYS))
def test_raptor_equals_brute_force_on_random_starts(name):
    tt, oracle = setup(name, DAYS[name])
    rng = random.Random(42)
    served = np.flatnonzero(tt.served).tolist()
    for _ in range(3):
        start, time = rng.choice(served), rng.randrange(4 * 3600, 24 * 3600)
        result = earliest_arrival(tt, time, from_stops=[start])
        assert as_list(result.arrival) == oracle.arrivals(start, time)
        reached = np.flatnonzero(result.arrival < UNREACHED)
        assert len(reached) > 10
        for stop in rng.sample(reached.tolist(), 5):
            check_journey(result, stop)


@pytest.mark.parametrize("rounds", [1, 2])
def test_max_rounds_equals_brute_force_with_as_many_trips(rounds):
    tt, oracle = setup("cairns", DAYS["cairns"])
    start, time = int(np.flatnonzero(tt.served)[7]), 8 * 3600
    result = earliest_arrival(tt, time, from_stops=[start], max_rounds=rounds)
    assert as_list(result.arrival) == oracle.arrivals(start, time, max_trips=rounds)
    assert result.trips.max() <= rounds
    unlimited = earliest_arrival(tt, time, from_stops=[start])
    assert np.all(unlimited.arrival <= result.arrival)


def test_after_midnight_trips_of_the_previous_day_are_ridden():
    """At 00:20 the NYC subway still runs on the previous day's trips (times past 24:00)."""
    tt, oracle = setup("nyc_subway", DAYS["nyc_subway"])
    start, time = int(np.flatnonzero(tt.served)[0]), 20 * 60
    result = earliest_arrival(tt, time, from_stops=[start])
    assert as_list(result.arrival) == oracle.arrivals(start, time)
    reached = np.flatnonzero((result.arrival < UNREACHED) & (result.arrival > time))
    assert len(reached) > 50  # the night service reaches the line at 00:20
    f = tt.feed
    rides = [leg for s in reached.tolist() for leg in result.journey(s) if leg.kind == "ride"]
    late = [leg for leg in rides if f.st_dep[f.st_trip == leg.trip].max() >= DAY_S]
    assert late and all(leg.depart < DAY_S for leg in late)  # yesterday's trips, shifted


def test_late_evening_goes_on_into_the_next_day():
    tt, oracle = setup("cairns", DAYS["cairns"])
    start, time = int(np.flatnonzero(tt.served)[3]), 23 * 3600
    result = earliest_arrival(tt, time, from_stops=[start])
    assert as_list(result.arrival) == oracle.arrivals(start, time)
    finite = result.arrival[result.arrival < UNREACHED]
    assert (finite > DAY_S).any()  # buses stop at night: the next morning's reach them


def test_several_starts_are_the_best_of_each():
    tt, _ = setup("nyc_subway", DAYS["nyc_subway"])
    a, b = (int(s) for s in np.flatnonzero(tt.served)[[5, 150]])
    both = earliest_arrival(tt, 9 * 3600, from_stops=[a, b]).arrival
    one = earliest_arrival(tt, 9 * 3600, from_stops=[a]).arrival
    two = earliest_arrival(tt, 9 * 3600, from_stops=[b]).arrival
    assert np.array_equal(both, np.minimum(one, two))


def test_start_at_a_position_walks_to_the_stops_near_it():
    tt, _ = setup("nyc_subway", DAYS["nyc_subway"])
    f = tt.feed
    stop = int(np.flatnonzero(tt.served)[40])
    result = earliest_arrival(
        tt, 9 * 3600, from_position=(float(f.stop_lon[stop]), float(f.stop_lat[stop]))
    )
    assert result.arrival[stop] == 9 * 3600  # standing on it: no walk
    walk = result.journey(int(np.argmax(result.arrival * (result.arrival < UNREACHED))))
    assert walk and walk[0].from_stop in (-1, stop)
    station = result.station_arrival()
    assert np.all(station <= result.arrival)
    parent = f.stop_parent[stop]
    assert station[parent] == min(
        result.arrival[c] for c in np.flatnonzero(f.stop_parent == parent)
    )


def test_bad_queries_name_the_parameter():
    tt, _ = setup("cairns", DAYS["cairns"])
    with pytest.raises(ValueError, match="from_stops or from_position"):
        earliest_arrival(tt, 0)
    with pytest.raises(ValueError, match="from_stops"):
        earliest_arrival(tt, 0, from_stops=[10**6])
    with pytest.raises(TypeError, match="time"):
        earliest_arrival(tt, 8.5, from_stops=[0])
    with pytest.raises(ValueError, match="max_rounds"):
        earliest_arrival(tt, 0, from_stops=[0], max_rounds=-1)


@pytest.mark.parametrize("name", sorted(DAYS))
def test_walking_transfers_equal_brute_force(name):
    tt, oracle = setup(name, DAYS[name])
    paths = tt.paths
    got = {
        (u, v): s
        for u, v, s in zip(
            paths.src.tolist(), paths.dst.tolist(), paths.seconds.tolist(), strict=True
        )
    }
    want = {(u, v): s for u, row in oracle.edges.items() for v, s in row.items()}
    assert got == want and len(got) > 50
    assert {u: int(paths.change[u]) for u in oracle.change} == oracle.change


def test_start_at_a_position_equals_brute_force():
    tt, oracle = setup("cairns", DAYS["cairns"])
    f = tt.feed
    stop = int(np.flatnonzero(tt.served)[100])
    lon, lat = float(f.stop_lon[stop]) + 0.001, float(f.stop_lat[stop])  # ~107 m east
    result = earliest_arrival(tt, 7 * 3600, from_position=(lon, lat))
    assert as_list(result.arrival) == oracle.arrivals_from_position(lon, lat, 7 * 3600)
    assert 7 * 3600 < result.arrival[stop] < 7 * 3600 + 300
    for s in np.flatnonzero(result.arrival < UNREACHED)[::20].tolist():
        check_journey(result, s)
    with pytest.raises(ValueError, match="from_position"):
        earliest_arrival(tt, 0, from_position=(200.0, 0.0))
    with pytest.raises(TypeError, match="from_position"):
        earliest_arrival(tt, 0, from_position="here")


def edited_nyc(tmp_path):
    """The NYC feed with boarding rules and transfers added: no pickup on every 5th stop
    time, no drop-off on every 7th; between two platforms of different stations within
    walking distance no transfer (type 3); between two far stations a 10-minute one."""
    import pandas as pd

    folder = tmp_path / "nyc"
    with zipfile.ZipFile(GTFS / "nyc_subway_gtfs.zip") as archive:
        archive.extractall(folder)
    st = pd.read_csv(folder / "stop_times.txt", dtype=str, keep_default_na=False)
    st["pickup_type"] = np.where(np.arange(len(st)) % 5 == 3, "1", "0")
    st["drop_off_type"] = np.where(np.arange(len(st)) % 7 == 2, "1", "")
    st.to_csv(folder / "stop_times.txt", index=False)
    tt, _ = setup("nyc_subway", DAYS["nyc_subway"])
    f = tt.feed
    station = f.station_of()
    near = [
        (u, v)
        for u, v in zip(tt.paths.src.tolist(), tt.paths.dst.tolist(), strict=True)
        if station[u] != station[v]
    ]
    (u, v), (a, b) = near[0], (int(station[tt.row_stop[0]]), int(station[tt.row_stop[30]]))
    with open(folder / "transfers.txt", "a") as out:
        out.write(f"{f.stop_ids[u]},{f.stop_ids[v]},3,\n{f.stop_ids[a]},{f.stop_ids[b]},2,600\n")
    return folder, (u, v)


def test_boarding_rules_and_transfers_equal_brute_force(tmp_path):
    folder, (u, v) = edited_nyc(tmp_path)
    feed = read_feed(folder)
    assert (~feed.st_pickup).sum() > 10_000 and (~feed.st_dropoff).sum() > 10_000
    day = DAYS["nyc_subway"]
    tt, oracle = build_timetable(feed, day), Oracle(feed, day)
    pairs = set(zip(tt.paths.src.tolist(), tt.paths.dst.tolist(), strict=True))
    assert (u, v) not in pairs and (v, u) in pairs  # type 3 removes one direction only
    rng = random.Random(7)
    served = np.flatnonzero(tt.served).tolist()
    for _ in range(3):
        start, time = rng.choice(served), rng.randrange(5 * 3600, 23 * 3600)
        assert as_list(earliest_arrival(tt, time, from_stops=[start]).arrival) == oracle.arrivals(
            start, time
        )
