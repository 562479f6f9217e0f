"""Benchmark: the spacing core on 10k / 30k / 100k real candidates.

The Sioux Falls fixture's candidates (real OSM POIs, ~650) are tiled over a larger
area — copies shifted by whole tiles east and north — to reach each size; say so
when quoting the numbers. Each size runs in its own process so peak memory (max
RSS) is its own.

    python bench/bench_spacing.py            # all sizes
    python bench/bench_spacing.py 100000     # one size
"""

from __future__ import annotations

import gc
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (10_000, 30_000, 100_000)
# The default improvement of ``generate`` (select_stations with improve=True and the
# default search budget, core.spacing.default_search_rounds).


def tiled_candidates(n: int):
    import geopandas as gpd
    import numpy as np
    import pandas as pd

    from stations_generator import elements_to_candidates, load_catalogue, parse_play_window
    from stations_generator.osm.overpass_json import parse_overpass_json

    catalogue = load_catalogue()
    raw = json.loads((ROOT / "examples/sioux-falls/pois.json").read_text())
    base = elements_to_candidates(
        [e for e in parse_overpass_json(raw) if catalogue.keeps(e.tags)],
        catalogue,
        parse_play_window("7am-7pm", "sat,sun"),
    )
    minx, miny, maxx, maxy = base.total_bounds
    dx, dy = (maxx - minx) * 1.05, (maxy - miny) * 1.05
    side = int(np.ceil(np.sqrt(n / len(base))))
    tiles = []
    for k in range(side * side):
        i, j = divmod(k, side)
        t = base.copy()
        t["geometry"] = t.geometry.translate(i * dx, j * dy)
        t["osm_id"] = t["osm_id"] + k * 10**11
        t["id"] = t["osm_type"] + "/" + t["osm_id"].astype(str)
        tiles.append(t)
        if sum(len(x) for x in tiles) >= n:
            break
    frame = gpd.GeoDataFrame(pd.concat(tiles, ignore_index=True), crs="EPSG:4326").iloc[:n]
    return frame.reset_index(drop=True)


def run_one(n: int) -> dict:
    import numpy as np

    from stations_generator.core.geo.geodesy import LocalFrame
    from stations_generator.core.stationmap.dedupe import find_duplicates
    from stations_generator.core.stationmap.density import nearby_counts
    from stations_generator.core.stationmap.ranking import rank_order
    from stations_generator.core.stationmap.spacing import (
        IS_COMPILED,
        NeighbourIndex,
        SpacingRules,
        default_search_rounds,
        select_stations,
    )

    cands = tiled_candidates(n)
    # As ``generate`` runs it: the cycle collector paused (generate._no_cycle_collection).
    gc.disable()
    t0 = time.perf_counter()
    frame = LocalFrame.for_bounds(tuple(cands.total_bounds))
    lon, lat = cands.geometry.x.to_numpy(), cands.geometry.y.to_numpy()
    x, y = frame.project(lon, lat)
    scale = frame.scale_factors(lon, lat)
    order = rank_order(cands)
    t1 = time.perf_counter()
    index = NeighbourIndex(x, y, scale, 1000)
    t2 = time.perf_counter()
    dup = find_duplicates(index, order, cands["name"].to_numpy(), cands["category"].to_numpy())
    order = order[(dup < 0)[order]]
    t3 = time.perf_counter()
    nearby_counts(x, y, scale)
    t4 = time.perf_counter()
    rules = SpacingRules(cluster_radius_m=402, max_per_cluster=0)
    transit = cands["transit"].to_numpy(bool)
    greedy = select_stations(index, order, rules, transit)
    t5 = time.perf_counter()
    swapped = select_stations(index, order, rules, transit, improve=True, search_iterations=0)
    t6 = time.perf_counter()
    searched = select_stations(index, order, rules, transit, improve=True, search_iterations=None)
    t7 = time.perf_counter()
    return {
        "n": n,
        "prepare_s": round(t1 - t0, 3),
        "index_s": round(t2 - t1, 3),
        "dedupe_s": round(t3 - t2, 3),
        "density_s": round(t4 - t3, 3),
        "greedy_s": round(t5 - t4, 3),
        "greedy_plus_swaps_s": round(t6 - t5, 3),
        "core_total_s": round((t4 - t0) + (t7 - t6), 3),
        "stations_greedy": greedy.count,
        "stations_swaps": swapped.count,
        "search_iterations": default_search_rounds(len(order)),
        "default_s": round(t7 - t6, 3),
        "stations_search": searched.count,
        "mean_neighbours": round(float(np.diff(index.indptr).mean()), 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        # setup.py's Cython build, or the same source as Python (STATIONS_GENERATOR_PURE_PYTHON).
        "compiled": IS_COMPILED,
    }


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(run_one(int(sys.argv[2]))))
        sys.exit(0)
    sizes = [int(a) for a in sys.argv[1:]] or list(SIZES)
    for n in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(n)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(out.stdout.strip())
