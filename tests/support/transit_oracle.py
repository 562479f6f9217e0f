"""An independent brute force for earliest arrivals: Dijkstra over a time-expanded graph.

It shares no code with the RAPTOR side (service days, frequencies, walking transfers
and routing are all done again here, plainly): it reads only the checked feed's
columns. The rules are the same as RAPTOR's, stated once more:

- the day's trips are the services running on the day, the previous day's (times
  -24 h) and the next day's (+24 h); frequencies rows become trips every headway from
  start_time while before end_time, the template trip's times shifted to each start;
- a walk joins two distinct stops served by the day's trips within ``max_m`` metres
  (WGS84 geodesic), taking ceil(metres / speed) seconds; ``transfers.txt`` type 2 sets
  a pair's time (a station standing for its platforms; rows naming stops override),
  type 3 removes it, and a stop to itself gives its change time;
- a rider may walk once from the start and once after each alighting; boarding needs
  pickup allowed and a departure at or after being ready; alighting needs drop-off
  allowed, after which the rider is ready there after the change time.
"""

from __future__ import annotations

import datetime as dt
import heapq
import math
from bisect import bisect_left

from pyproj import Geod

_GEOD = Geod(ellps="WGS84")
INF = math.inf


def _runs(feed, day: dt.date) -> set[int]:
    ymd = day.year * 10000 + day.month * 100 + day.day
    on = set()
    for i in range(len(feed.cal_service)):
        if feed.cal_start[i] <= ymd <= feed.cal_end[i] and feed.cal_days[i][day.weekday()]:
            on.add(int(feed.cal_service[i]))
    for i in range(len(feed.cd_service)):
        if feed.cd_date[i] == ymd:
            (on.add if feed.cd_added[i] else on.discard)(int(feed.cd_service[i]))
    return on


def _trip_stops(feed) -> dict[int, list[tuple[int, int, int, bool, bool]]]:
    trips: dict[int, list] = {}
    for i in range(len(feed.st_trip)):
        trips.setdefault(int(feed.st_trip[i]), []).append(
            (
                int(feed.st_stop[i]),
                int(feed.st_arr[i]),
                int(feed.st_dep[i]),
                bool(feed.st_pickup[i]),
                bool(feed.st_dropoff[i]),
            )
        )
    return trips


def day_runs(feed, day: dt.date) -> list[list[tuple[int, int, int, bool, bool]]]:
    """Every vehicle run of the day: lists of (stop, arr, dep, pickup, dropoff)."""
    stops_of = _trip_stops(feed)
    templates: dict[int, list] = {}
    for i in range(len(feed.fr_trip)):
        templates.setdefault(int(feed.fr_trip[i]), []).append(i)
    runs = []
    for offset in (-1, 0, 1):
        on = _runs(feed, day + dt.timedelta(days=offset))
        shift = offset * 86400
        for trip in range(len(feed.trip_ids)):
            if int(feed.trip_service[trip]) not in on or trip not in stops_of:
                continue
            base = stops_of[trip]
            starts = [0]
            if trip in templates:
                starts = []
                for i in templates[trip]:
                    t = int(feed.fr_start[i])
                    while t < int(feed.fr_end[i]):
                        starts.append(t - base[0][2])
                        t += int(feed.fr_headway[i])
            for s in starts:
                runs.append([(st, a + s + shift, d + s + shift, p, q) for st, a, d, p, q in base])
    return [r for r in runs if len(r) >= 2]


def walks(
    feed, served: set[int], max_m: float, speed: float
) -> tuple[dict[int, dict[int, int]], dict[int, int]]:
    """Walking times between served stops, and change times at a stop."""
    nodes = sorted(served)
    edges: dict[int, dict[int, int]] = {u: {} for u in nodes}
    for i, u in enumerate(nodes):
        for v in nodes[i + 1 :]:
            _, _, d = _GEOD.inv(
                float(feed.stop_lon[u]),
                float(feed.stop_lat[u]),
                float(feed.stop_lon[v]),
                float(feed.stop_lat[v]),
            )
            if d <= max_m:
                edges[u][v] = edges[v][u] = math.ceil(d / speed)
    change = {u: 0 for u in nodes}
    kids: dict[int, list[int]] = {}
    for s in range(len(feed.stop_ids)):
        if feed.stop_parent[s] >= 0:
            kids.setdefault(int(feed.stop_parent[s]), []).append(s)
    rows = list(range(len(feed.tr_from)))
    general = [
        r
        for r in rows
        if feed.stop_location_type[feed.tr_from[r]] == 1
        or feed.stop_location_type[feed.tr_to[r]] == 1
    ]
    for r in general + [r for r in rows if r not in general]:
        kind, secs = int(feed.tr_type[r]), max(int(feed.tr_min_time[r]), 0)
        for u in kids.get(int(feed.tr_from[r]), [int(feed.tr_from[r])]):
            for v in kids.get(int(feed.tr_to[r]), [int(feed.tr_to[r])]):
                if u not in served or v not in served or kind not in (2, 3):
                    continue
                if u == v:
                    if kind == 2:
                        change[u] = secs
                elif kind == 3:
                    edges[u].pop(v, None)
                else:
                    edges[u][v] = secs
    return edges, change


class Oracle:
    """The time-expanded graph of one day, queried by Dijkstra."""

    def __init__(self, feed, day: dt.date, max_m: float = 300.0, speed: float = 1.2) -> None:
        self.feed, self.max_m, self.speed = feed, max_m, speed
        self.runs = day_runs(feed, day)
        served = {st for run in self.runs for st, *_ in run}
        self.edges, self.change = walks(feed, served, max_m, speed)
        self.departures: dict[int, list[tuple[int, int, int]]] = {}
        for r, run in enumerate(self.runs):
            for pos, (st, _a, d, pickup, _q) in enumerate(run[:-1]):
                if pickup:
                    self.departures.setdefault(st, []).append((d, r, pos))
        for deps in self.departures.values():
            deps.sort()

    def arrivals(self, start: int, time: int, max_trips: int | None = None) -> list[float]:
        """Earliest arrival at every stop (INF if none) from ``start`` at ``time``."""
        ready = {start: time}
        for v, w in self.edges.get(start, {}).items():
            ready[v] = min(ready.get(v, INF), time + w)
        return self._search(ready, max_trips)

    def arrivals_from_position(self, lon: float, lat: float, time: int) -> list[float]:
        """Earliest arrivals from a position: one walk to any served stop within reach."""
        ready = {}
        for v in self.edges:
            _, _, d = _GEOD.inv(
                lon, lat, float(self.feed.stop_lon[v]), float(self.feed.stop_lat[v])
            )
            if d <= self.max_m:
                ready[v] = time + math.ceil(d / self.speed)
        return self._search(ready, None)

    def _search(self, ready: dict[int, int], max_trips: int | None) -> list[float]:
        best = [INF] * len(self.feed.stop_ids)
        heap: list[tuple[int, int, int]] = []
        for v, t in ready.items():
            best[v] = t
            heapq.heappush(heap, (t, v, 0))
        done: set[tuple[int, int]] = set()
        boarded: dict[tuple[int, int], int] = {}
        while heap:
            t, s, c = heapq.heappop(heap)
            layer = 0 if max_trips is None else c
            if (s, layer) in done or (max_trips is not None and c >= max_trips):
                continue
            done.add((s, layer))
            deps = self.departures.get(s, [])
            for _d, r, pos in deps[bisect_left(deps, (t, -1, -1)) :]:
                before = boarded.get((r, layer))
                if before is not None and before <= pos:
                    continue
                stop_at = len(self.runs[r]) if before is None else before + 1
                boarded[(r, layer)] = pos
                for st, a, _d, _p, dropoff in self.runs[r][pos + 1 : stop_at]:
                    if not dropoff:
                        continue
                    best[st] = min(best[st], a)
                    heapq.heappush(heap, (a + self.change.get(st, 0), st, c + 1))
                    for v, w in self.edges.get(st, {}).items():
                        best[v] = min(best[v], a + w)
                        heapq.heappush(heap, (a + w, v, c + 1))
        return best
