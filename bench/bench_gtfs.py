"""Benchmark: a GTFS feed of ~472 stations and ~2 M stop times, read, cached, queried.

The real NYC subway feed (``tests/data/gtfs/nyc_subway_gtfs.zip``: 91 stations, 86,150
stop times) is copied ``--copies`` times side by side (each copy 0.003° of longitude,
about 250 m, east of the last, so walking transfers join neighbouring copies), ids
prefixed ``c<i>-``; within each copy every trip runs ``--repeats`` times, each repeat
one minute later (ids prefixed ``r<j>-``). 5 copies x 5 repeats: 455 stations, 2.15 M
stop times. The feed is written as a zip to a temporary folder. Reported, in one run:

* load: reading and checking the zip (an empty cache, so it is read and stored);
* cached load: the same through the cache;
* the timetable of a weekday (patterns, walking transfers), built once per day;
* one reachability query (RAPTOR, unlimited rounds) from a station at 08:00, and the
  arrival at every station from it (the same query: all stations' times at once);
* every hiding zone's earliest time from that start in one query (:func:`bench_zones`):
  the zones (a 500 m circle around each station, the JLTG.EU S/M radius) built once
  per timetable, then the query and each zone's least time over its stops.

    python bench/bench_gtfs.py [--copies 5] [--repeats 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
FEED = REPO / "tests" / "data" / "gtfs" / "nyc_subway_gtfs.zip"
FILES = ("agency.txt", "routes.txt", "calendar.txt", "calendar_dates.txt")


def scaled_feed(out: Path, copies: int, repeats: int) -> Path:
    """Write the scaled feed (see the module docstring) as ``out``."""
    with zipfile.ZipFile(FEED) as src:
        read = {
            n: pd.read_csv(io.BytesIO(src.read(n)), dtype=str, keep_default_na=False)
            for n in src.namelist()
        }
    stops, trips, times, transfers = [], [], [], []
    for c in range(copies):
        p = f"c{c}-"
        s = read["stops.txt"].copy()
        s["stop_id"] = p + s["stop_id"]
        s["parent_station"] = s["parent_station"].where(
            s["parent_station"] == "", p + s["parent_station"]
        )
        s["stop_lon"] = (s["stop_lon"].astype(float) + 0.003 * c).map("{:.6f}".format)
        stops.append(s)
        t = read["transfers.txt"].copy()
        t["from_stop_id"], t["to_stop_id"] = p + t["from_stop_id"], p + t["to_stop_id"]
        transfers.append(t)
        for r in range(repeats):
            q = f"{p}r{r}-"
            tr = read["trips.txt"].copy()
            tr["trip_id"] = q + tr["trip_id"]
            trips.append(tr)
            st = read["stop_times.txt"].copy()
            st["trip_id"], st["stop_id"] = q + st["trip_id"], p + st["stop_id"]
            for col in ("arrival_time", "departure_time"):
                codes, uniques = pd.factorize(st[col])
                secs = (
                    np.array(
                        [
                            sum(
                                int(x) * m for x, m in zip(u.split(":"), (3600, 60, 1), strict=True)
                            )
                            for u in uniques
                        ]
                    )
                    + 60 * r
                )
                text = np.array(
                    [f"{x // 3600:02d}:{x // 60 % 60:02d}:{x % 60:02d}" for x in secs.tolist()],
                    dtype=object,
                )
                st[col] = text[codes]
            times.append(st)
    tables = {
        "stops.txt": stops,
        "trips.txt": trips,
        "stop_times.txt": times,
        "transfers.txt": transfers,
    }
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in FILES:
            z.writestr(name, read[name].to_csv(index=False))
        for name, parts in tables.items():
            z.writestr(name, pd.concat(parts).to_csv(index=False))
    return out


def bench_zones(tt, platforms: list[int]) -> None:
    """All hiding zones' earliest times for one start, one query (printed)."""
    from stations_generator.core.questions.rules import RULE_SETS
    from stations_generator.core.transit.reach import feed_zones, hiding_deadline, reach_zones

    radius = RULE_SETS["jltg-eu"].radius_m("M")
    t0 = time.perf_counter()
    zones = feed_zones(tt, radius)
    built = time.perf_counter() - t0
    t0 = time.perf_counter()
    reach = reach_zones(tt, zones, 8 * 3600, from_stops=platforms)
    query = time.perf_counter() - t0
    reached = int(reach.within(10**9).sum())
    in_hour = int(reach.within(hiding_deadline(8 * 3600, "M")).sum())
    print(
        f"zones ({radius:g} m) built:          {built:.3f} s   ({len(zones)} zones, {len(zones.pair_zone):,} zone-stop pairs)"
    )
    print(
        f"all zones' times, one query: {query:.3f} s   [target <= 1 s], {reached}/{len(zones)} reached, {in_hour} in an M game's hiding period"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from stations_generator.core.transit.raptor import UNREACHED, earliest_arrival
    from stations_generator.core.transit.timetable import build_timetable
    from stations_generator.formats.gtfs.cache import read_feed_cached
    from stations_generator.osm.extract_cache import ExtractCache

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        path = scaled_feed(Path(tmp) / "nyc_scaled.zip", args.copies, args.repeats)
        print(
            f"scaled feed written: {path.stat().st_size / 1e6:.1f} MB zip in {time.perf_counter() - t0:.1f} s"
        )
        cache = ExtractCache(Path(tmp) / "cache")
        t0 = time.perf_counter()
        feed = read_feed_cached(path, cache)
        load = time.perf_counter() - t0
        t0 = time.perf_counter()
        feed = read_feed_cached(path, cache)
        cached = time.perf_counter() - t0
        stations = int((feed.stop_location_type == 1).sum())
        print(
            f"feed: {stations} stations, {feed.n_stops} stops, {feed.n_trips} trips, {len(feed.st_trip):,} stop times"
        )
        print(f"load (read + check + store): {load:.2f} s   [target <= 10 s]")
        print(f"cached load:                 {cached:.3f} s   [target <= 1 s]")
        t0 = time.perf_counter()
        tt = build_timetable(feed, dt.date(2025, 1, 8))
        built = time.perf_counter() - t0
        print(
            f"timetable of a weekday:      {built:.2f} s   ({tt.n_stop_times:,} stop times, {tt.n_patterns} patterns, {len(tt.paths.src)} walks)"
        )
        start = int(np.flatnonzero(feed.stop_location_type == 1)[0])
        platforms = np.flatnonzero(feed.stop_parent == start).tolist()
        t0 = time.perf_counter()
        result = earliest_arrival(tt, 8 * 3600, from_stops=platforms)
        by_station = result.station_arrival()[feed.stop_location_type == 1]
        query = time.perf_counter() - t0
        reached = int((by_station < UNREACHED).sum())
        last = int(by_station[by_station < UNREACHED].max())
        print(
            f"one query from {feed.stop_ids[start]} at 08:00: {query:.3f} s   [target <= 1 s], {result.rounds} rounds"
        )
        print(
            f"  all stations' arrival times in it: {reached}/{stations} reached, the last at {last // 3600:02d}:{last // 60 % 60:02d}"
        )
        bench_zones(tt, platforms)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
