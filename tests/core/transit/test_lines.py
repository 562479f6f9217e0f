"""Departures, direct links and stop validity against a brute force over the real feeds.

The brute force walks the feed's stop times trip by trip in plain Python (its own day:
the services running on the day before, the day and the day after, times shifted by
∓24 h), and counts departures and waits with sorted lists; the code under test works
on numpy columns (core/transit/window.py, lines.py, selection.py).
"""

from __future__ import annotations

import datetime as dt
import random
from functools import cache

import numpy as np
import pytest
from pyproj import Geod
from support.paths import DATA

from stations_generator.core.transit.frequencies import expand_frequencies
from stations_generator.core.transit.lines import direct_links, stop_validity
from stations_generator.core.transit.modes import mode_of, route_type_mask
from stations_generator.core.transit.selection import longest_pattern, select_stations
from stations_generator.core.transit.service import running_services
from stations_generator.core.transit.window import (
    NO_WAIT,
    Window,
    day_service,
    longest_waits,
    station_service,
)
from stations_generator.formats.gtfs.reader import read_feed

GTFS = DATA / "gtfs"
DAYS = {"nyc_subway": dt.date(2025, 1, 8), "cairns": dt.date(2014, 6, 10)}
WINDOW = Window(7 * 3600, 19 * 3600)
GEOD = Geod(ellps="WGS84")


@cache
def feed(name: str):
    return read_feed(GTFS / f"{name}_gtfs.zip")


@cache
def service(name: str, start: int = WINDOW.start_s, end: int = WINDOW.end_s):
    return day_service(feed(name), DAYS[name], Window(start, end))


@cache
def brute_trips(name: str, start: int = WINDOW.start_s, end: int = WINDOW.end_s):
    """Per trip instance of the day: (route, [(station, dep, pickup, dropoff)…])."""
    f = expand_frequencies(feed(name))
    station = f.station_of().tolist()
    rows: dict[int, list[int]] = {}
    for i, trip in enumerate(f.st_trip.tolist()):
        rows.setdefault(trip, []).append(i)
    out = []
    for offset in (-1, 0, 1):
        runs = running_services(f, DAYS[name] + dt.timedelta(days=offset))
        for trip, idx in rows.items():
            if not runs[f.trip_service[trip]]:
                continue
            stops = [
                (
                    station[f.st_stop[i]],
                    int(f.st_dep[i]) + offset * 86400,
                    bool(f.st_pickup[i]),
                    bool(f.st_dropoff[i]),
                )
                for i in idx
            ]
            out.append((int(f.trip_route[trip]), stops))
    return out


def brute_wait(times: list[int], start: int, end: int) -> int:
    if not times:
        return NO_WAIT
    points = [start, *sorted(set(times)), end]
    return max(b - a for a, b in zip(points, points[1:], strict=False))


def brute_departures(name: str, stations: set[int], start: int, end: int) -> list[int]:
    return [
        dep
        for _route, stops in brute_trips(name, start, end)
        for k, (s, dep, pickup, _drop) in enumerate(stops)
        if s in stations and pickup and k < len(stops) - 1 and start <= dep < end
    ]


@cache
def brute_direct(name: str, a: int, b: int) -> list[int]:
    times = []
    for _route, stops in brute_trips(name):
        for i, (s, dep, pickup, _d) in enumerate(stops):
            if s == a and pickup and WINDOW.start_s <= dep < WINDOW.end_s:
                if any(t == b and drop for t, _, _, drop in stops[i + 1 :]):
                    times.append(dep)
    return times


@pytest.mark.parametrize("name", list(DAYS))
def test_station_departures_and_waits_equal_a_count(name):
    ds = service(name)
    result = station_service(ds)
    rng = random.Random(42)
    for k in rng.sample(range(len(result.stations)), 25):
        s = int(result.stations[k])
        times = brute_departures(name, {s}, WINDOW.start_s, WINDOW.end_s)
        assert result.departures[k] == len(times)
        assert result.per_hour[k] == pytest.approx(len(times) / 12)
        assert result.longest_wait_s[k] == brute_wait(times, WINDOW.start_s, WINDOW.end_s)
        distinct = sorted(set(times))
        gaps = [b - a for a, b in zip(distinct, distinct[1:], strict=False)]
        assert result.shortest_gap_s[k] == (min(gaps) if gaps else result.longest_wait_s[k])


def test_a_window_past_midnight_counts_the_late_trips():
    """22:00–26:00 holds the day's trips after midnight (times past 24:00:00)."""
    start, end = 22 * 3600, 26 * 3600
    ds = service("nyc_subway", start, end)
    result = station_service(ds)
    after_midnight = 0
    for k, s in enumerate(result.stations.tolist()[:20]):
        times = brute_departures("nyc_subway", {s}, start, end)
        assert result.departures[k] == len(times)
        assert result.longest_wait_s[k] == brute_wait(times, start, end)
        after_midnight += sum(t >= 86400 for t in times)
    assert after_midnight > 0


@pytest.mark.parametrize("name", list(DAYS))
def test_direct_links_equal_a_brute_force_of_direct_trips(name):
    ds = service(name)
    links = direct_links(ds)
    rng = random.Random(7)
    linked = list(zip(links.src.tolist(), links.dst.tolist(), strict=True))
    served = sorted({int(s) for s in station_service(ds).stations})
    pairs = rng.sample(linked, 15) + [tuple(rng.sample(served, 2)) for _ in range(15)]
    for a, b in pairs:
        times = brute_direct(name, a, b)
        assert links.wait(a, b) == brute_wait(times, WINDOW.start_s, WINDOW.end_s), (a, b)
    for every in (600, 7200):
        got = links.linked(every)
        for a, b in pairs:
            waits = [
                brute_wait(brute_direct(name, u, v), WINDOW.start_s, WINDOW.end_s)
                for u, v in ((a, b), (b, a))
            ]
            expected = any(w != NO_WAIT and w <= every for w in waits)
            assert ((min(a, b), max(a, b)) in got) == expected


def test_route_filter_keeps_only_that_routes_links():
    """Links of route 1 alone are a subset of all links, with waits no shorter."""
    ds = service("nyc_subway")
    f = feed("nyc_subway")
    one = np.array([r == "1" for r in f.route_ids])
    all_links, one_links = direct_links(ds), direct_links(ds, one)
    assert 0 < len(one_links.src) < len(all_links.src)
    for a, b, w in list(zip(one_links.src, one_links.dst, one_links.longest_wait_s, strict=True))[
        :200
    ]:
        assert all_links.wait(int(a), int(b)) <= w


@pytest.mark.parametrize("name", list(DAYS))
def test_stop_validity_agrees_with_a_count_of_departures(name):
    ds = service(name)
    f = feed(name)
    radius = 500.0
    result = stop_validity(ds, radius)
    served = sorted({int(s) for s in station_service(ds).stations})
    rng = random.Random(3)
    for k in rng.sample(range(len(result.stations)), 20):
        c = int(result.stations[k])
        _, _, d = GEOD.inv(
            [f.stop_lon[c]] * len(served), [f.stop_lat[c]] * len(served),
            f.stop_lon[served], f.stop_lat[served],
        )  # fmt: skip
        zone = {s for s, dist in zip(served, d, strict=True) if dist <= radius} | {c}
        centre = brute_wait(brute_departures(name, {c}, *_w()), *_w())
        inside = brute_wait(brute_departures(name, zone, *_w()), *_w())
        assert result.centre_wait_s[k] == centre
        assert result.zone_wait_s[k] == inside
        assert result.zone_stations[k] == len(zone)
        valid = centre != NO_WAIT and centre <= 3600 and inside != NO_WAIT and inside <= 900
        assert bool(result.valid[k]) == valid
    assert 0 < result.valid.sum() < len(result.valid)  # the rule separates stops on both feeds


def _w() -> tuple[int, int]:
    return WINDOW.start_s, WINDOW.end_s


@pytest.mark.parametrize("name", list(DAYS))
def test_every_nth_stop_follows_the_longest_pattern(name):
    ds = service(name)
    f = feed(name)
    routes = np.zeros(len(f.route_ids), dtype=bool)
    routes[:2] = True
    whole = select_stations(ds, routes)
    for n in (2, 3):
        picked = select_stations(ds, routes, every_nth=n)
        expected = set()
        for r in (0, 1):
            pattern = longest_pattern(ds, r)
            lengths = [
                len(stops)
                for route, stops in brute_trips(name)
                if route == r
                and any(p and WINDOW.start_s <= t < WINDOW.end_s for _, t, p, _ in stops[:-1])
            ]
            # the longest sequence a trip with a departure in the window runs
            assert len(pattern) == max(lengths, default=0)
            expected |= set(pattern[::n])
        got = set(picked.service.stations.tolist())
        assert got == expected & set(whole.service.stations.tolist())
        assert picked.not_nth == len(whole.service.stations) - len(got)


def test_min_per_hour_keeps_exactly_the_frequent_stations():
    ds = service("cairns")
    routes = np.ones(len(feed("cairns").route_ids), dtype=bool)
    whole = select_stations(ds, routes)
    picked = select_stations(ds, routes, min_per_hour=4)
    assert set(picked.service.stations.tolist()) == {
        int(s)
        for s, p in zip(whole.service.stations, whole.service.per_hour, strict=True)
        if p >= 4
    }
    assert picked.below_frequency == len(whole.service.stations) - len(picked.service.stations)
    assert (picked.service.per_hour >= 4).all()


def test_route_type_words_and_numbers():
    types = np.array([0, 1, 2, 3, 109, 700, 900, 12, 1400])
    assert route_type_mask(types, ["rail"]).tolist() == [0, 0, 1, 0, 1, 0, 0, 0, 0]
    assert route_type_mask(types, ["train", "3"]).tolist() == [0, 0, 1, 1, 1, 0, 0, 0, 0]
    assert route_type_mask(types, ["bus", "tram"]).tolist() == [1, 0, 0, 1, 0, 1, 1, 0, 0]
    assert [mode_of(t) for t in (12, 1400, 405, 800, 4000)] == [
        "monorail", "funicular", "monorail", "trolleybus", "other",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="unknown route type 'boat'"):
        route_type_mask(types, ["boat"])


def test_longest_waits_match_sorted_gaps():
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 6, 300)
    times = rng.integers(WINDOW.start_s, WINDOW.end_s, 300)
    longest, shortest = longest_waits(keys, times, 8, WINDOW)
    for k in range(8):
        mine = times[keys == k].tolist()
        assert longest[k] == brute_wait(mine, *_w())
    assert longest[6] == longest[7] == shortest[7] == NO_WAIT
    with pytest.raises(ValueError, match="window"):
        Window(19 * 3600, 7 * 3600)
