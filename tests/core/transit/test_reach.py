"""Hiding zones' earliest times equal a brute force over the oracle's stop arrivals.

The oracle (``tests/support/transit_oracle.py``, a time-expanded Dijkstra) gives every
stop's earliest arrival; here each zone's time is then taken plainly, every zone
against every stop measured with pyproj, no k-d tree: the least of "arrived at a stop
in the circle" and "arrived at a stop, then walked straight to the circle within the
walking distance".
"""

from __future__ import annotations

import datetime as dt
import math
import random
from functools import cache

import numpy as np
import pytest
from pyproj import Geod
from support.paths import DATA
from support.transit_oracle import INF, Oracle

from stations_generator.core.referee.clock import HIDING_TIME
from stations_generator.core.transit.raptor import UNREACHED, earliest_arrival
from stations_generator.core.transit.reach import (
    feed_station_rows,
    feed_zones,
    hiding_deadline,
    reach_zones,
    reachable_zone_filter,
    zones_at,
)
from stations_generator.core.transit.timetable import build_timetable
from stations_generator.formats.gtfs.reader import read_feed

GTFS = DATA / "gtfs"
DAYS = {"nyc_subway": dt.date(2025, 1, 8), "cairns": dt.date(2014, 6, 10)}
GEOD = Geod(ellps="WGS84")


@cache
def setup(name: str):
    feed = read_feed(GTFS / f"{name}_gtfs.zip")
    return build_timetable(feed, DAYS[name]), Oracle(feed, DAYS[name])


def brute_zone_times(zones, stop_arrival, feed, start=None, position=None) -> list[float]:
    """Per zone: the least over every reached stop (and the start position) of the time
    to be in the circle."""
    walk = zones.walking
    out = []
    for z in range(len(zones)):
        best = INF
        points = [(s, stop_arrival[s]) for s in range(feed.n_stops) if stop_arrival[s] < INF]
        for s, at in points:
            _, _, d = GEOD.inv(zones.lon[z], zones.lat[z], feed.stop_lon[s], feed.stop_lat[s])
            gap = max(d - zones.radius_m, 0.0)
            if gap <= walk.max_distance_m:
                best = min(best, at + math.ceil(gap / walk.speed_mps))
        if position is not None:
            _, _, d = GEOD.inv(zones.lon[z], zones.lat[z], *position)
            gap = max(d - zones.radius_m, 0.0)
            if gap <= walk.max_distance_m:
                best = min(best, start + math.ceil(gap / walk.speed_mps))
        out.append(best)
    return out


def as_list(values: np.ndarray) -> list[float]:
    return [INF if v >= UNREACHED else int(v) for v in values]


@pytest.mark.parametrize("name", sorted(DAYS))
def test_zone_times_equal_brute_force_on_random_starts(name):
    tt, oracle = setup(name)
    rng = random.Random(11)
    served = np.flatnonzero(tt.served).tolist()
    for radius in (500.0, 1000.0):
        zones = feed_zones(tt, radius)
        picked = sorted(rng.sample(range(len(zones)), min(len(zones), 40)))
        start, time = rng.choice(served), rng.randrange(5 * 3600, 23 * 3600)
        reach = reach_zones(tt, zones, time, from_stops=[start])
        want = brute_zone_times(zones, oracle.arrivals(start, time), tt.feed)
        got = as_list(reach.arrival)
        assert [got[z] for z in picked] == [want[z] for z in picked]
        assert sum(g < INF for g in got) > len(zones) // 4
        # the zone's time is that of the stop it was entered from, plus the walk in
        for z in picked:
            via = int(reach.via_stop[z])
            if got[z] < INF:
                pair = (zones.pair_zone == z) & (zones.pair_stop == via)
                assert reach.arrivals.arrival[via] + zones.pair_walk[pair][0] == got[z]


def test_zone_times_from_a_position_equal_brute_force():
    tt, oracle = setup("cairns")
    f = tt.feed
    stop = int(np.flatnonzero(tt.served)[60])
    position = (float(f.stop_lon[stop]) + 0.004, float(f.stop_lat[stop]))  # ~430 m east
    zones = feed_zones(tt, 500.0)
    reach = reach_zones(tt, zones, 9 * 3600, from_position=position)
    want = brute_zone_times(
        zones, oracle.arrivals_from_position(*position, 9 * 3600), f, 9 * 3600, position
    )
    assert as_list(reach.arrival) == want
    on_foot = np.flatnonzero((reach.via_stop == -1) & (reach.arrival < UNREACHED))
    assert (reach.arrival[reach.arrival < UNREACHED] >= 9 * 3600).all()
    assert len(on_foot) >= 1  # the zones around the start are walked into


def test_properties_of_zone_times():
    tt, _ = setup("nyc_subway")
    start = int(np.flatnonzero(tt.served)[20])
    small = reach_zones(tt, feed_zones(tt, 400.0), 8 * 3600, from_stops=[start])
    large = reach_zones(tt, feed_zones(tt, 1000.0), 8 * 3600, from_stops=[start])
    assert np.all(large.arrival <= small.arrival)  # a wider circle is entered no later
    assert (large.arrival < small.arrival).any()
    # a zone is entered no later than its station is reached
    rows = feed_station_rows(tt)
    station = small.arrivals.station_arrival()[rows]
    assert np.all(small.arrival <= station)
    # the hiding period: more zones in a longer one, each size's from the house rules
    counts = [small.within(hiding_deadline(8 * 3600, s)).sum() for s in ("S", "M", "L")]
    assert counts == sorted(counts) and counts[0] < counts[2]
    assert hiding_deadline(0, "m") == HIDING_TIME["M"].total_seconds()
    minutes = small.minutes()
    assert np.nanmin(minutes) == 0 and np.isnan(minutes).sum() == (small.arrival >= UNREACHED).sum()


def test_seekers_from_a_position_by_a_deadline_and_the_filter():
    """How far the seekers get in an hour; the filter on any stations equals the zones'."""
    tt, _ = setup("nyc_subway")
    f = tt.feed
    stop = int(np.flatnonzero(tt.served)[50])
    position = (float(f.stop_lon[stop]), float(f.stop_lat[stop]))
    zones = feed_zones(tt, 500.0)
    reach = reach_zones(tt, zones, 17 * 3600, from_position=position)
    in_hour = reach.within(18 * 3600)
    in_half = reach.within(17 * 3600 + 1800)
    assert np.all(in_half <= in_hour) and in_half.sum() < in_hour.sum()
    keep = reachable_zone_filter(
        tt, zones.lon, zones.lat, 500.0, 17 * 3600, 18 * 3600, from_position=position
    )
    assert np.array_equal(keep, in_hour)


def test_every_zone_from_one_query_equals_one_query_per_zone():
    tt, _ = setup("cairns")
    zones = feed_zones(tt, 500.0)
    start = int(np.flatnonzero(tt.served)[200])
    one = reach_zones(tt, zones, 7 * 3600, from_stops=[start]).arrival
    arrival = earliest_arrival(tt, 7 * 3600, from_stops=[start]).arrival
    for z in range(0, len(zones), 37):
        inside = zones.pair_stop[(zones.pair_zone == z) & (zones.pair_metres <= 500.0)]
        if len(inside):
            assert one[z] <= arrival[inside].min()


def test_bad_zone_inputs_name_the_parameter():
    tt, _ = setup("cairns")
    with pytest.raises(ValueError, match="radius_m"):
        feed_zones(tt, -5.0)
    with pytest.raises(TypeError, match="radius_m"):
        feed_zones(tt, "500")
    with pytest.raises(ValueError, match="one entry per zone"):
        zones_at(tt, ["a"], ["A"], [145.7, 145.8], [-16.9], 500.0)
    with pytest.raises(ValueError, match="game_size"):
        hiding_deadline(0, "XL")


def test_the_filter_rules_out_a_game_s_unreachable_zones():
    """The optional filter on a game's possible zones, on the game's own zone statuses."""
    from stations_generator.core.questions.game import ZoneStatus
    from stations_generator.core.questions.places import Station
    from stations_generator.core.transit.reach import UNREACHABLE_REASON, rule_out_unreachable

    tt, _ = setup("cairns")
    f = tt.feed
    rows = feed_station_rows(tt)[::10]
    stations = [
        Station(f.stop_ids[r], f.stop_names[r], float(f.stop_lon[r]), float(f.stop_lat[r]))
        for r in rows
    ]
    statuses = [
        ZoneStatus(s, i % 7 != 3, 1.0 if i % 7 != 3 else 0.0, "") for i, s in enumerate(stations)
    ]
    start = int(np.flatnonzero(tt.served)[200])
    keep = reachable_zone_filter(
        tt,
        [s.lon for s in stations],
        [s.lat for s in stations],
        500.0,
        8 * 3600,
        hiding_deadline(8 * 3600, "S"),
        from_stops=[start],
    )
    assert 0 < keep.sum() < len(keep)
    out = rule_out_unreachable(statuses, keep)
    for before, after, ok in zip(statuses, out, keep, strict=True):
        assert after.possible == (before.possible and ok)
        assert after.reason == ("" if ok or not before.possible else UNREACHABLE_REASON)
    with pytest.raises(ValueError, match="one entry per zone status"):
        rule_out_unreachable(statuses, keep[:-1])


def test_zone_times_after_midnight_equal_brute_force():
    """At 00:20 the NYC subway runs on the previous day's trips (times past 24:00)."""
    tt, oracle = setup("nyc_subway")
    zones = feed_zones(tt, 500.0)
    start = int(np.flatnonzero(tt.served)[30])
    reach = reach_zones(tt, zones, 20 * 60, from_stops=[start])
    want = brute_zone_times(zones, oracle.arrivals(start, 20 * 60), tt.feed)
    assert as_list(reach.arrival) == want
    assert (reach.arrival[reach.arrival < UNREACHED] > 20 * 60).sum() > 20
