"""Benchmark: the exact optimizer (``generate --optimize``) against the greedy, on real data.

Cases: the four Sioux Falls settings of issue 12 (the bundled fixture), Liechtenstein
(the 2013 extract in tests/data/osm-extracts with zones/liechtenstein.geojson), and the
Sioux Falls candidates tiled to 10k (as in bench_spacing.py; say so when quoting).
Prints one JSON line per case: "greedy" is the default map without the solver (the
greedy with its swaps and the local search, as plain ``generate``) with its time, then optimized stations, the
proven bound and gap, and the optimizer's wall time (CP-SAT's deterministic-time
budget is ``--time-limit``; wall time follows machine load).

    python bench/bench_optimize.py               # every case
    python bench/bench_optimize.py sioux         # cases whose name contains "sioux"
    python bench/bench_optimize.py --limit 120   # another budget (default 60)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def _sioux():
    from stations_generator import elements_to_candidates, load_catalogue, parse_play_window
    from stations_generator.formats.playarea import load_polygons
    from stations_generator.osm.sources import read_files

    catalogue = load_catalogue()
    area = load_polygons(ROOT / "zones/sioux-falls.geojson", lambda _msg: None)
    data = read_files(
        [ROOT / "examples/sioux-falls/pois.json"],
        [ROOT / "examples/sioux-falls/water.json"],
        area,
        catalogue,
    )
    window = parse_play_window("7am-7pm", "sat,sun")
    return area, elements_to_candidates(data.elements, catalogue, window), data.water


def _liechtenstein():
    from stations_generator import elements_to_candidates, load_catalogue, parse_play_window
    from stations_generator.formats.playarea import load_polygons
    from stations_generator.osm.sources import read_files

    catalogue = load_catalogue()
    area = load_polygons(ROOT / "zones/liechtenstein.geojson", lambda _msg: None)
    data = read_files(
        [ROOT / "tests/data/osm-extracts/liechtenstein-2013-08.osm.pbf"], [], area, catalogue
    )
    window = parse_play_window("7am-7pm", "sat,sun")
    return area, elements_to_candidates(data.elements, catalogue, window), data.water


def _map_case(name, loader, radius, cap, limit):
    """A case through build_station_map (the CLI's path), timing its two steps."""
    from stations_generator import StationMapOptions, build_station_map
    from stations_generator.core.stationmap import build as stationmap

    area, cands, water = loader()
    spent = {"optimize_s": 0.0}
    real = stationmap.optimize_stations

    def timed(*args, **kwargs):
        t = time.perf_counter()
        out = real(*args, **kwargs)
        spent["optimize_s"] += time.perf_counter() - t
        return out

    t0 = time.perf_counter()
    greedy = build_station_map(
        area, cands, StationMapOptions(cluster_radius_m=radius, max_per_cluster=cap), water=water
    )
    t1 = time.perf_counter()
    stationmap.optimize_stations = timed
    try:
        options = StationMapOptions(
            cluster_radius_m=radius, max_per_cluster=cap, optimize=True, time_limit_s=limit
        )
        best = build_station_map(area, cands, options, water=water)
    finally:
        stationmap.optimize_stations = real
    return _row(
        name, greedy.rules, len(cands), len(greedy.stations), t1 - t0, best.optimization, spent
    )


def _row(name, rules, n, greedy_count, greedy_s, opt, spent):
    big = max(opt.components, key=lambda c: c.size)
    return {
        "case": name,
        "radius_m": rules.cluster_radius_m,
        "cap": rules.max_per_cluster,
        "candidates": n,
        "greedy": greedy_count,
        "greedy_s": round(greedy_s, 3),
        "optimized": opt.count,
        "bound": opt.bound,
        "gap_pct": round(100 * opt.gap, 2),
        "optimal": opt.optimal,
        "greedy_ratio_pct": round(100 * greedy_count / opt.bound, 1),
        "optimize_s": round(spent["optimize_s"], 2),
        "components": len(opt.components),
        "largest_component": big.size,
        "largest_clusters": big.clusters,
        "largest_model": big.model,
    }


def _tiled_case(name, n, radius, cap, limit):
    """The tiled benchmark through the core directly (as bench_spacing.py does)."""
    from bench_spacing import tiled_candidates

    from stations_generator.core.geo.geodesy import LocalFrame
    from stations_generator.core.stationmap.dedupe import find_duplicates
    from stations_generator.core.stationmap.optimize import optimize_stations
    from stations_generator.core.stationmap.ranking import rank_order
    from stations_generator.core.stationmap.spacing import (
        NeighbourIndex,
        SpacingRules,
        select_stations,
    )

    cands = tiled_candidates(n)
    frame = LocalFrame.for_bounds(tuple(cands.total_bounds))
    lon, lat = cands.geometry.x.to_numpy(), cands.geometry.y.to_numpy()
    x, y = frame.project(lon, lat)
    index = NeighbourIndex(x, y, frame.scale_factors(lon, lat), 1000)
    order = rank_order(cands)
    dup = find_duplicates(index, order, cands["name"].to_numpy(), cands["category"].to_numpy())
    order = order[(dup < 0)[order]]
    rules = SpacingRules(cluster_radius_m=radius, max_per_cluster=cap)
    transit = cands["transit"].to_numpy(bool)
    t0 = time.perf_counter()
    greedy = select_stations(index, order, rules, transit, improve=True, search_iterations=None)
    t1 = time.perf_counter()
    opt = optimize_stations(index, order, rules, transit, time_limit_s=limit, start=greedy)
    t2 = time.perf_counter()
    return _row(name, rules, n, greedy.count, t1 - t0, opt, {"optimize_s": t2 - t1})


def cases(limit: float):
    return {
        "sioux auto (402 m, cap 2)": lambda: _map_case("sioux auto", _sioux, None, None, limit),
        "sioux 402 m no cap": lambda: _map_case("sioux 402/0", _sioux, 402, 0, limit),
        "sioux 1000 m no cap": lambda: _map_case("sioux 1000/0", _sioux, 1000, 0, limit),
        "sioux 1000 m cap 2": lambda: _map_case("sioux 1000/2", _sioux, 1000, 2, limit),
        "liechtenstein auto": lambda: _map_case(
            "liechtenstein auto", _liechtenstein, None, None, limit
        ),
        "liechtenstein 402 m no cap": lambda: _map_case(
            "liechtenstein 402/0", _liechtenstein, 402, 0, limit
        ),
        "tiled 10k 402 m cap 2": lambda: _tiled_case("tiled 10k 402/2", 10_000, 402, 2, limit),
        "tiled 10k 402 m no cap": lambda: _tiled_case("tiled 10k 402/0", 10_000, 402, 0, limit),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("match", nargs="*", help="run only cases whose name contains this")
    parser.add_argument("--limit", type=float, default=60.0, help="solver budget per case (s)")
    args = parser.parse_args()
    for name, run in cases(args.limit).items():
        if args.match and not any(m in name for m in args.match):
            continue
        print(json.dumps(run()), flush=True)
