"""``timetable lines`` and ``timetable check-stops``: routes and their frequencies, the
transit-line rule between two stations, and the stops failing the house rules' validity.

The measures are :mod:`stations_generator.core.transit.window` (departures, longest
waits) and :mod:`stations_generator.core.transit.lines` (direct links, stop validity).
A route's frequency is read at its busiest station (the one where the route has the
most departures in the window, the first in station-row order of a tie): its
departures an hour there, in both directions, and the longest wait there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from stations_generator.app.timetable_feed import FeedDay
from stations_generator.core.transit.lines import (
    CENTRE_MAX_WAIT_S,
    ZONE_MAX_WAIT_S,
    StopValidity,
    direct_links,
    stop_validity,
)
from stations_generator.core.transit.modes import mode_of
from stations_generator.core.transit.window import NO_WAIT, longest_waits
from stations_generator.errors import InputError

__all__ = [
    "LineCheck",
    "RouteFrequency",
    "check_line",
    "check_stops",
    "find_station",
    "minutes_text",
    "route_frequencies",
]


@dataclass(frozen=True)
class RouteFrequency:
    """One route's service in the window (module docstring).

    Attributes
    ----------
    route_id, name, mode : str
    trips : int
        Trips of the route with a departure in the window.
    stations : int
        Stations it departs from in the window.
    busiest : str
        The busiest station's name.
    per_hour : float
        Departures an hour at the busiest station.
    longest_wait_s : int
        The longest wait there (:data:`~stations_generator.core.transit.window.NO_WAIT`: none).
    """

    route_id: str
    name: str
    mode: str
    trips: int
    stations: int
    busiest: str
    per_hour: float
    longest_wait_s: int


def minutes_text(seconds: int) -> str:
    """A wait in minutes (``-`` for none)."""
    return "-" if seconds == NO_WAIT else f"{seconds / 60:.0f} min"


def route_frequencies(fd: FeedDay) -> list[RouteFrequency]:
    """Every chosen route with a departure in the window, in route-id order.

    Returns
    -------
    list of RouteFrequency
    """
    ds, feed = fd.service, fd.feed
    dep = ds.departures(fd.routes)
    route = ds.inst_route[ds.inst[dep]].astype(np.int64)
    station = ds.station[ds.stop[dep]].astype(np.int64)
    times = ds.dep[dep]
    out = []
    for r in np.unique(route).tolist():
        mine = route == r
        counts = np.bincount(station[mine], minlength=feed.n_stops)
        busiest = int(np.argmax(counts))
        at = mine & (station == busiest)
        wait, _ = longest_waits(np.zeros(int(at.sum()), dtype=np.int64), times[at], 1, fd.window)
        out.append(
            RouteFrequency(
                route_id=feed.route_ids[r],
                name=feed.route_short_names[r] or feed.route_ids[r],
                mode=mode_of(int(feed.route_type[r])),
                trips=len(np.unique(ds.inst[dep][mine])),
                stations=int((counts > 0).sum()),
                busiest=feed.stop_names[busiest],
                per_hour=float(counts[busiest]) / fd.window.hours,
                longest_wait_s=int(wait[0]),
            )
        )
    return sorted(out, key=lambda f: f.route_id)


def _key(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def find_station(fd: FeedDay, text: str) -> int:
    """A station's row by its stop id (``gtfs:`` prefix optional) or its exact name.

    Raises
    ------
    InputError
        No such station, or a name several stations share (naming their ids).
    """
    feed = fd.feed
    stations = np.unique(feed.station_of())
    sid = text.removeprefix("gtfs:")
    index = feed.stop_index()
    if sid in index:
        return int(feed.station_of()[index[sid]])
    hits = [int(s) for s in stations.tolist() if _key(feed.stop_names[s]) == _key(text)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        ids = ", ".join(feed.stop_ids[h] for h in hits[:8])
        raise InputError(
            f"station {text!r} names {len(hits)} stations of {fd.name}; give its id: {ids}"
        )
    raise InputError(
        f"station {text!r} is not in {fd.name}; give a stop id or a station's exact name "
        "(timetable stations lists them)"
    )


@dataclass(frozen=True)
class LineCheck:
    """The transit-line rule between two stations.

    Attributes
    ----------
    a, b : int
        Station rows.
    wait_ab_s, wait_ba_s : int
        The longest wait for a direct trip each way (NO_WAIT: none in the window).
    trips_ab, trips_ba : int
        Direct trips each way in the window.
    max_wait_s : int
        The rule's longest wait.
    same_line : bool
    """

    a: int
    b: int
    wait_ab_s: int
    wait_ba_s: int
    trips_ab: int
    trips_ba: int
    max_wait_s: int
    same_line: bool


def check_line(fd: FeedDay, a: int, b: int, max_wait_s: int) -> LineCheck:
    """Whether ``a`` and ``b`` are on the same transit line (a direct trip of the chosen
    routes at least every ``max_wait_s``, either way; :mod:`~stations_generator.core.transit.lines`).

    Returns
    -------
    LineCheck
    """
    links = direct_links(fd.service, fd.routes)
    keys = links.src.astype(np.int64) * (1 << 32) + links.dst

    def trips(u: int, v: int) -> int:
        at = np.searchsorted(keys, u * (1 << 32) + v)
        return int(links.trips[at]) if at < len(keys) and keys[at] == u * (1 << 32) + v else 0

    ab, ba = links.wait(a, b), links.wait(b, a)
    same = any(w != NO_WAIT and w <= max_wait_s for w in (ab, ba))
    return LineCheck(a, b, ab, ba, trips(a, b), trips(b, a), max_wait_s, same)


def check_stops(
    fd: FeedDay,
    radius_m: float,
    centre_max_s: int = CENTRE_MAX_WAIT_S,
    zone_max_s: int = ZONE_MAX_WAIT_S,
) -> StopValidity:
    """The house rules' timetable validity of every station the chosen routes serve
    (:func:`~stations_generator.core.transit.lines.stop_validity`).

    Raises
    ------
    InputError
        A radius that is not above 0.
    """
    if not radius_m > 0:
        raise InputError(f"--radius {radius_m:g}: give a distance above 0 m, e.g. 500")
    return stop_validity(
        fd.service, radius_m, routes=fd.routes, centre_max_s=centre_max_s, zone_max_s=zone_max_s
    )
