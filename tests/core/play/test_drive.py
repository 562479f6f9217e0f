"""Drive times on real OSM road networks, cooldowns, ride requests, timelines, calibration."""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys

import networkx as nx
import osmnx as ox
import pytest
from support.paths import EXTRACTS

from stations_generator.core.geo.geodesy import geodesic_distance
from stations_generator.core.play.calibration import calibrate, sample_pairs
from stations_generator.core.play.clock import format_clock, parse_clock
from stations_generator.core.play.cooldown import arrival_cooldown, ride_request
from stations_generator.core.play.departure import expected_wait
from stations_generator.core.play.drive import (
    GREAT_CIRCLE_SPEED_KPH,
    GreatCircleDriveTimes,
    RoadDriveTimes,
    graph_max_speed_kph,
)
from stations_generator.core.play.itinerary import plan_routes
from stations_generator.core.play.routes import plan_itinerary
from stations_generator.errors import InputError, NoDataError
from stations_generator.formats.stationfile import read_station_map
from stations_generator.osm.roads import DRIVABLE_HIGHWAYS, is_drivable, read_drive_graph

HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"
KOUVOLA = EXTRACTS / "kouvola-test.osm.pbf"


@pytest.fixture(scope="module")
def helsinki(helsinki_stations_file):
    return read_station_map(helsinki_stations_file)


@pytest.fixture(scope="module")
def helsinki_graph():
    return read_drive_graph(HELSINKI)


@pytest.fixture(scope="module")
def helsinki_times(helsinki_graph):
    return RoadDriveTimes(helsinki_graph, source=HELSINKI.name)


def _as_list(value):
    return value if isinstance(value, list) else [value]


def by_name(stations, name):
    return next(s for s in stations if s.name == name)


# --------------------------------------------------------------------------- graph


def test_drive_graph_of_a_real_extract(helsinki_graph):
    g = helsinki_graph
    assert g.graph["crs"] == "epsg:4326"
    assert g.number_of_nodes() > 100 and g.number_of_edges() > 200
    assert g.graph["ways"] > 500
    for _, _, d in g.edges(data=True):
        highway = d["highway"][0] if isinstance(d["highway"], list) else d["highway"]
        assert highway in DRIVABLE_HIGHWAYS
        assert d["length"] > 0 and d["speed_kph"] > 0
        assert d["travel_time"] == pytest.approx(d["length"] / (d["speed_kph"] / 3.6))
    # One-way streets of the centre stay one-way.
    assert any(d.get("oneway") is True for _, _, d in g.edges(data=True))


def test_clipped_ways_are_trimmed_not_lost():
    trimmed = read_drive_graph(KOUVOLA)
    dropped = read_drive_graph(KOUVOLA, clipped="drop")
    assert trimmed.graph["trimmed_ways"] > 0
    assert dropped.graph["ways"] < trimmed.graph["ways"]
    assert dropped.number_of_edges() < trimmed.number_of_edges()

    # The extract's motorway leaves it at both ends: only trimming keeps it.
    def motorway(g):
        return [d for _, _, d in g.edges(data=True) if "motorway" in _as_list(d["highway"])]

    assert motorway(trimmed)
    assert not motorway(dropped)


def test_drivable_filter():
    assert is_drivable({"highway": "residential"})
    assert not is_drivable({"highway": "footway"})
    assert not is_drivable({"highway": "service"})
    assert not is_drivable({"highway": "primary", "access": "private"})
    assert not is_drivable({"highway": "residential", "motor_vehicle": "no"})
    assert not is_drivable({"highway": "pedestrian", "area": "yes"})


def test_no_roads_in_the_box_is_a_clear_error():
    with pytest.raises(NoDataError, match="no drivable roads"):
        read_drive_graph(HELSINKI, bbox=(0.0, 0.0, 0.01, 0.01))
    with pytest.raises(InputError, match="does not exist"):
        read_drive_graph(EXTRACTS / "missing.osm.pbf")


# --------------------------------------------------------------------------- drive times


def test_drive_time_is_the_graph_shortest_path(helsinki, helsinki_graph, helsinki_times):
    a, b = by_name(helsinki.stations, "Rautatientori"), by_name(helsinki.stations, "Hakaniemi")
    est = helsinki_times.estimate(a, b)
    assert est.method == "road"
    # The nodes are the nearest ones of the routing component...
    component = helsinki_times.graph
    assert est.from_node == ox.distance.nearest_nodes(component, a.lon, a.lat)
    assert est.to_node == ox.distance.nearest_nodes(component, b.lon, b.lat)
    # ...and the time is networkx's shortest path between them on the full graph.
    shortest = nx.shortest_path_length(
        helsinki_graph, est.from_node, est.to_node, weight="travel_time"
    )
    assert est.seconds == pytest.approx(shortest, rel=1e-9)
    # No faster than the straight line at the graph's top speed.
    vmax = graph_max_speed_kph(helsinki_graph)
    nodes = helsinki_graph.nodes
    u, v = nodes[est.from_node], nodes[est.to_node]
    straight = float(geodesic_distance(u["x"], u["y"], v["x"], v["y"]))
    assert est.seconds > straight / (vmax / 3.6)
    assert est.metres >= straight


def test_every_pair_on_the_road_graph(helsinki, helsinki_graph, helsinki_times):
    stations = helsinki.stations
    vmax = graph_max_speed_kph(helsinki_graph)
    lengths = {}
    road = 0
    for a in stations:
        targets = [b for b in stations if b is not a]
        for est in helsinki_times.from_origin(a, targets):
            if est.method != "road":
                assert est.method == "great-circle" and est.reason
                continue
            road += 1
            if est.from_node not in lengths:
                lengths[est.from_node] = nx.single_source_dijkstra_path_length(
                    helsinki_graph, est.from_node, weight="travel_time"
                )
            assert est.seconds == pytest.approx(lengths[est.from_node][est.to_node])
            u, v = helsinki_graph.nodes[est.from_node], helsinki_graph.nodes[est.to_node]
            straight = float(geodesic_distance(u["x"], u["y"], v["x"], v["y"]))
            assert est.seconds > straight / (vmax / 3.6)
    assert road >= 0.8 * len(stations) * (len(stations) - 1)
    # from_origin and estimate agree.
    a, b = stations[0], stations[-1]
    assert helsinki_times.from_origin(a, [b])[0] == helsinki_times.estimate(a, b)


def test_station_off_the_graph_falls_back_to_the_great_circle(helsinki):
    # Kouvola's roads are 110 km from Helsinki's stations.
    times = RoadDriveTimes(read_drive_graph(KOUVOLA))
    a, b = helsinki.stations[:2]
    est = times.estimate(a, b)
    assert est.method == "great-circle"
    assert "from a road" in est.reason
    metres = float(geodesic_distance(a.lon, a.lat, b.lon, b.lat))
    assert est.seconds == pytest.approx(metres / (GREAT_CIRCLE_SPEED_KPH / 3.6))


def test_great_circle_without_a_graph(helsinki):
    a, b = by_name(helsinki.stations, "Rautatientori"), by_name(helsinki.stations, "Hakaniemi")
    est = GreatCircleDriveTimes(30.0).estimate(a, b)
    assert est.method == "great-circle" and est.reason == "no road graph"
    assert est.seconds == pytest.approx(est.metres / (30 / 3.6))
    assert 1000 < est.metres < 1500


# --------------------------------------------------------------------------- cooldown, clock


def test_cooldown_is_twice_the_drive():
    noon = parse_clock("12:00")
    assert arrival_cooldown(noon, noon + 12 * 60) == 24 * 60
    # Across midnight: 23:55 -> 00:07 is a 12-minute drive.
    assert arrival_cooldown(parse_clock("23:55"), parse_clock("00:07")) == 24 * 60


def test_clock_parsing_and_formatting():
    assert parse_clock("14:05") == 14 * 3600 + 5 * 60
    assert parse_clock("7:30") == 7 * 3600 + 30 * 60
    assert format_clock(parse_clock("23:59") + 120) == "00:01 +1d"
    assert format_clock(2 * 86400 + 60) == "00:01 +2d"
    assert format_clock(parse_clock("09:05") + 29) == "09:05"
    assert format_clock(parse_clock("09:05") + 30) == "09:06"
    for bad in ("24:00", "12:60", "7pm", "12:5", "ab:cd", "", "12-30"):
        with pytest.raises(ValueError, match="HH:MM"):
            parse_clock(bad)


def test_ride_request_time():
    now, leave = parse_clock("14:05"), parse_clock("14:20")
    request = ride_request(now, leave, 8 * 60)
    assert format_clock(request.request_s) == "14:12" and not request.late
    assert request.pickup_s == leave
    late = ride_request(now, now + 5 * 60, 8 * 60)
    assert late.late and late.request_s == now and late.pickup_s == now + 8 * 60


def test_route_plan_cooldown_and_timeline_across_midnight(helsinki, helsinki_times):
    groups = [["Rautatientori", "Kiasma", "Hakaniemi"], ["Hakaniemi", "Eteläranta"]]
    itinerary, _ = plan_itinerary(groups, helsinki.stations)
    start = parse_clock("23:50")
    plan = plan_routes(itinerary, helsinki_times, transit_in_play=True, start_s=start)
    for rp in plan.routes:
        assert rp.cooldown_s == pytest.approx(2 * rp.drive_s)
        origin = rp.item.route.origin
        assert rp.expected_wait_s == pytest.approx(
            float(expected_wait(origin.wait_min, origin.wait_max)) * 60
        )
        assert rp.drive_s == pytest.approx(sum(leg.seconds for leg in rp.legs))
    assert plan.total_s == pytest.approx(plan.expected_wait_s + plan.drive_s + plan.cooldown_s)
    times = [e.seconds for e in plan.timeline]
    assert times == sorted(times)
    assert times[0] == start
    assert times[-1] == pytest.approx(start + plan.total_s)
    kinds = [e.kind for e in plan.timeline]
    assert kinds == [
        "roll", "depart", "stop", "arrive", "cooldown-end",
        "roll", "depart", "arrive", "cooldown-end",
    ]  # fmt: skip
    # The game runs past midnight: the last events are on the next day.
    assert format_clock(plan.timeline[-1].seconds).endswith("+1d")
    # Without transit in play there is no cooldown.
    plain = plan_routes(itinerary, helsinki_times, start_s=start)
    assert plain.cooldown_s == 0
    assert plain.total_s == pytest.approx(plan.total_s - plan.cooldown_s)


# --------------------------------------------------------------------------- calibration


def test_sample_pairs(helsinki):
    stations = helsinki.stations[:6]
    every = sample_pairs(stations, 1000, random.Random(0))
    assert len(every) == 30 and len(set(every)) == 30
    assert all(a != b for a, b in every)
    some = sample_pairs(stations, 10, random.Random(1))
    assert len(some) == 10 and len(set(some)) == 10
    assert set(some) < set(every)
    assert some == sample_pairs(stations, 10, random.Random(1))
    assert sample_pairs(stations[:1], 10, random.Random(1)) == []


def test_calibration_arithmetic(helsinki, helsinki_times):
    pairs = list(itertools.permutations(helsinki.stations, 2))[:120]
    cal = calibrate(pairs, helsinki_times)
    assert cal.pairs and not cal.skipped
    for p in cal.pairs:
        # With the cooldown, door to door = E + 3·drive: multiple = 3 + E/drive.
        assert p.cooldown_s == pytest.approx(2 * p.drive.seconds)
        assert p.drive_multiple == pytest.approx(3 + p.expected_wait_s / p.drive.seconds)
        assert p.target_s == pytest.approx(3 * p.drive.seconds)
    assert {t.tier for t in cal.tiers} <= {"dense", "moderate", "sparse"}
    for t in cal.tiers:
        assert t.verdict in {"ok", "too slow", "too fast"}
        assert (t.suggestion is None) == (t.verdict == "ok")


def test_calibration_suggestion_lands_in_range(helsinki, helsinki_times):
    # Drives in the 1.7 km centre take ~2 min: every tier's waits are far too long.
    pairs = list(itertools.permutations(helsinki.stations, 2))
    cal = calibrate(pairs, helsinki_times, cooldown_factor=0.0)
    assert all(t.verdict == "too slow" for t in cal.tiers)
    for t in cal.tiers:
        low, high = t.suggestion
        assert 0 <= low <= high < t.wait_max
        multiple = 1 + float(expected_wait(low, high)) * 60 / t.median_drive_s
        assert 2 <= multiple <= 4


@pytest.mark.slow  # (seconds; the full suite runs it)
def test_travel_times_do_not_depend_on_the_hash_seed():
    # osmnx merges the tags of simplified ways in set order; the speeds must not follow it.
    code = (
        "import sys; from stations_generator.osm.roads import read_drive_graph; "
        "g = read_drive_graph(sys.argv[1]); "
        "print(sorted((u, v, k, round(d['travel_time'], 6)) for u, v, k, d in g.edges(keys=True, data=True)))"
    )
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", code, str(KOUVOLA)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1
