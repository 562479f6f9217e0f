"""Stations chosen from a feed: by route, by frequency, every Nth stop of a route (pure).

A station is the parent station of the stops trips serve, or the stop itself when it
has no parent. It is chosen when trips of the chosen routes depart from it in the
window (:mod:`~stations_generator.core.transit.window`) at least ``min_per_hour``
times an hour on average; with ``every_nth`` N > 1, only every Nth station along each
chosen route counts: the stations at positions 0, N, 2N… of the route's longest
pattern (the day's stop sequence with the most stations among the route's trips in the
window; ties go to the sequence more trips run, then to the first in station-row
order), so the route's first station is always kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stations_generator.core.transit.window import DayService, StationService, station_service

__all__ = ["Selection", "longest_pattern", "select_stations"]


@dataclass(frozen=True)
class Selection:
    """The chosen stations and how they are served.

    Attributes
    ----------
    service : StationService
        Of the chosen stations only.
    served : int
        Stations with a departure of the chosen routes in the window.
    below_frequency : int
        Of those, how many depart fewer than ``min_per_hour`` times an hour.
    not_nth : int
        Of the frequent ones, how many are not every Nth stop of a chosen route.
    """

    service: StationService
    served: int
    below_frequency: int
    not_nth: int


def longest_pattern(ds: DayService, route: int) -> tuple[int, ...]:
    """The stations of ``route``'s longest stop sequence in the window (module docstring).

    Parameters
    ----------
    ds : DayService
    route : int
        A route row.

    Returns
    -------
    tuple of int
        Station rows in stop order; empty when no trip of the route has a departure in
        the window.
    """
    dep = ds.departures()
    inst_ok = np.zeros(len(ds.inst_trip), dtype=bool)
    inst_ok[ds.inst[dep]] = True
    inst_ok &= ds.inst_route == route
    mine = inst_ok[ds.inst]
    stations = ds.station[ds.stop[mine]]
    bounds = np.flatnonzero(np.diff(ds.inst[mine])) + 1
    counts: dict[tuple[int, ...], int] = {}
    for part in np.split(stations, bounds) if len(stations) else []:
        seq = tuple(part.tolist())
        counts[seq] = counts.get(seq, 0) + 1
    if not counts:
        return ()
    return min(counts, key=lambda seq: (-len(seq), -counts[seq], seq))


def select_stations(
    ds: DayService, routes: np.ndarray, min_per_hour: float = 0.0, every_nth: int = 1
) -> Selection:
    """The stations of the chosen routes (module docstring).

    Parameters
    ----------
    ds : DayService
    routes : numpy.ndarray of bool
        Per route, whether it is chosen.
    min_per_hour : float
        Fewest departures an hour (of the chosen routes, in the window) [default: 0].
    every_nth : int
        Keep every Nth station along each chosen route [default: 1, all].

    Returns
    -------
    Selection
    """
    if min_per_hour < 0:
        raise ValueError(f"min_per_hour must be ≥ 0, not {min_per_hour}")
    if every_nth < 1:
        raise ValueError(f"every_nth must be ≥ 1, not {every_nth}")
    service = station_service(ds, routes)
    frequent = service.per_hour >= min_per_hour
    keep = frequent.copy()
    if every_nth > 1:
        nth: set[int] = set()
        for route in np.flatnonzero(routes).tolist():
            nth.update(longest_pattern(ds, route)[::every_nth])
        keep &= np.isin(service.stations, sorted(nth))
    rows = np.flatnonzero(keep)
    chosen = StationService(
        stations=service.stations[rows],
        departures=service.departures[rows],
        per_hour=service.per_hour[rows],
        longest_wait_s=service.longest_wait_s[rows],
        shortest_gap_s=service.shortest_gap_s[rows],
        routes=tuple(service.routes[i] for i in rows.tolist()),
    )
    return Selection(
        service=chosen,
        served=len(service.stations),
        below_frequency=int((~frequent).sum()),
        not_nth=int((frequent & ~keep).sum()),
    )
