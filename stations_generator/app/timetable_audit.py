"""``timetable audit``: a play area's timetable audit for Hide + Seek.

From a feed, a start (stop or position) and time, and a game size, optionally within a
play area (only the stations inside it are zones; only the lines departing inside it
are listed):

* for each game size (S, M, L): the hiding radius (of the rule set), the hiding period
  (JLTG.EU house rules), the zones and how many are reachable in the hiding period,
  all from one earliest-arrival query;
* the lines departing in the window and their frequencies
  (:func:`~stations_generator.app.timetable_lines.route_frequencies`: departures an hour
  and the longest wait at each line's busiest station);
* the zones of the chosen size whose hiding stop fails the house rules' validity
  (:func:`~stations_generator.core.transit.lines.stop_validity`: a vehicle an hour at
  the centre station, transit every 15 minutes among the stations inside the zone).

The window starts at the start time (to the minute) and lasts the chosen size's hiding
period, at least the hour the centre-stop rule speaks of, unless ``--until`` says
otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.app.timetable_feed import FeedChoice, FeedDay, parse_clock, resolve
from stations_generator.app.timetable_lines import route_frequencies
from stations_generator.app.timetable_reach import (
    FeedQuery,
    ReachResult,
    Start,
    checked_size,
    clock_text,
    deadline_for,
    load_feed,
    parse_time,
    resolve_start,
)
from stations_generator.core.gamesize import GAME_SIZES
from stations_generator.core.questions.rules import RULE_SETS
from stations_generator.core.transit.lines import (
    CENTRE_MAX_WAIT_S,
    ZONE_MAX_WAIT_S,
    StopValidity,
    stop_validity,
)
from stations_generator.core.transit.raptor import earliest_arrival
from stations_generator.core.transit.reach import (
    feed_station_rows,
    hiding_deadline,
    zones_at,
    zones_reached,
)
from stations_generator.core.transit.timetable import Timetable, build_timetable
from stations_generator.core.transit.window import NO_WAIT
from stations_generator.errors import InputError

__all__ = ["AuditRequest", "AuditResult", "failure_reason", "run_audit"]


@dataclass(frozen=True)
class AuditRequest(FeedQuery):
    """What ``timetable audit`` was asked."""

    play_area: Path | None = None
    until: str | None = None


@dataclass(frozen=True)
class AuditResult:
    """The audit: the chosen size's zones (as ``reach`` gives them) and the document."""

    reach: ReachResult
    document: dict[str, object]
    area: BaseGeometry | None


def _zones_in(tt: Timetable, radius: float, area: BaseGeometry | None):
    """The feed's zones (and their station rows), only those centred in the area."""
    rows = feed_station_rows(tt)
    f = tt.feed
    if area is not None:
        rows = rows[shapely.intersects_xy(area, f.stop_lon[rows], f.stop_lat[rows])]
    zones = zones_at(
        tt,
        [f.stop_ids[r] for r in rows],
        [f.stop_names[r] for r in rows],
        f.stop_lon[rows],
        f.stop_lat[rows],
        radius,
    )
    return zones, rows


def _minute_text(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}"


def _area_routes(fd: FeedDay, area: BaseGeometry | None) -> FeedDay:
    """The feed day with only the routes departing inside the area in the window."""
    if area is None:
        return fd
    ds, f = fd.service, fd.feed
    dep = ds.departures()
    stop = ds.stop[dep]
    inside = shapely.intersects_xy(area, f.stop_lon[stop], f.stop_lat[stop])
    routes = np.zeros(len(f.route_ids), dtype=bool)
    routes[ds.inst_route[ds.inst[dep][inside]]] = True
    return FeedDay(fd.name, f, fd.day, fd.window, routes & fd.routes, ds, fd.attribution)


def _feed_day(request: AuditRequest, at: int, size: str) -> FeedDay:
    """The feed, its day (``--date`` or the busiest) and the window's trips."""
    if request.until is not None:
        end = parse_clock(request.until, "--until")
        if end <= at:
            raise InputError(
                f"--until {request.until} is not after --at {request.at}; give a later time"
            )
    else:
        hiding = hiding_deadline(at, size) - at
        end = at + max(hiding, CENTRE_MAX_WAIT_S)  # the centre-stop rule speaks of an hour
    feed = load_feed(request.feed_path, request.cache_dir, request.use_cache)
    choice = FeedChoice(
        feed=Path(request.feed_path),
        date=request.date,
        start=_minute_text(at),
        end=_minute_text(math.ceil(end / 60) * 60),
    )
    return resolve(feed, choice)


def run_audit(request: AuditRequest) -> AuditResult:
    """Audit a play area's timetable (see the module docstring).

    Raises
    ------
    InputError
        A bad feed, play area, date, time, start, size or rule set: one line.
    """
    from stations_generator.formats.playarea import load_polygons

    size = checked_size(request.game_size, request.rules)
    at = parse_time(request.at)
    area = load_polygons(request.play_area) if request.play_area is not None else None
    fd = _area_routes(_feed_day(request, at, size), area)
    tt = build_timetable(fd.feed, fd.day)
    start = resolve_start(fd.feed, tt, request.start)
    arrivals = earliest_arrival(
        tt, at, from_stops=list(start.stops) or None, from_position=start.position
    )
    rules = RULE_SETS[request.rules]
    sizes, chosen = [], None
    for s in GAME_SIZES:
        zones, rows = _zones_in(tt, rules.radius_m(s), area)
        reach = zones_reached(arrivals, zones, start.position)
        end = hiding_deadline(at, s)
        sizes.append(
            {
                "game_size": s,
                "radius_m": zones.radius_m,
                "hiding_min": (end - at) // 60,
                "zones": len(zones),
                "reachable": int(reach.within(end).sum()),
            }
        )
        if s == size:
            deadline, note = deadline_for(at, s, None)
            chosen = ReachResult(fd.name, fd.day, start, reach, rows, deadline, note, s, rules.name)
    assert chosen is not None  # noqa: S101 - size is one of GAME_SIZES
    validity = stop_validity(
        fd.service, chosen.reach.zones.radius_m, stations=chosen.station_rows, routes=fd.routes
    )
    document = _document(request, fd, chosen, start, sizes, validity)
    return AuditResult(chosen, document, area)


def _wait_min(seconds: int) -> float | None:
    return None if seconds == NO_WAIT else round(seconds / 60, 1)


def failure_reason(centre_wait_s: int, zone_wait_s: int) -> str:
    """Why a hiding stop fails the house rules' validity ('' if it does not).

    Returns
    -------
    str
    """
    out = []
    if centre_wait_s == NO_WAIT:
        out.append("nothing departs at the centre stop in the window")
    elif centre_wait_s > CENTRE_MAX_WAIT_S:
        out.append(f"a {centre_wait_s / 60:.0f}-minute wait at the centre stop")
    if zone_wait_s == NO_WAIT:
        out.append("nothing departs inside the zone in the window")
    elif zone_wait_s > ZONE_MAX_WAIT_S:
        out.append(f"a {zone_wait_s / 60:.0f}-minute wait inside the zone")
    return "; ".join(out)


def _document(
    request: AuditRequest,
    fd: FeedDay,
    chosen: ReachResult,
    start: Start,
    sizes: list[dict[str, object]],
    validity: StopValidity,
) -> dict[str, object]:
    """The audit's JSON document (deterministic)."""
    zones = chosen.reach.zones
    invalid = [
        {
            "id": zones.ids[z],
            "name": zones.names[z],
            "reason": failure_reason(int(validity.centre_wait_s[z]), int(validity.zone_wait_s[z])),
            "centre_wait_min": _wait_min(int(validity.centre_wait_s[z])),
            "zone_wait_min": _wait_min(int(validity.zone_wait_s[z])),
            "zone_stations": int(validity.zone_stations[z]),
        }
        for z in np.flatnonzero(~validity.valid).tolist()
    ]
    lines = [
        {
            "route_id": r.route_id,
            "name": r.name,
            "mode": r.mode,
            "trips": r.trips,
            "stations": r.stations,
            "busiest_station": r.busiest,
            "per_hour": round(r.per_hour, 2),
            "longest_wait_min": _wait_min(r.longest_wait_s),
        }
        for r in route_frequencies(fd)
    ]
    return {
        "feed": fd.name,
        "play_area": request.play_area.name if request.play_area is not None else None,
        "date": fd.day.isoformat(),
        "from": start.label,
        "start": clock_text(fd.day, chosen.reach.start_time),
        "game_size": chosen.game_size,
        "rules": chosen.rules,
        "window": {
            "from": clock_text(fd.day, fd.window.start_s),
            "to": clock_text(fd.day, fd.window.end_s),
        },
        "limits": {
            "centre_max_wait_min": CENTRE_MAX_WAIT_S // 60,
            "zone_max_wait_min": ZONE_MAX_WAIT_S // 60,
        },
        "sizes": sizes,
        "lines": lines,
        "valid_stops": int(validity.valid.sum()),
        "invalid_stops": invalid,
        "zones": chosen.geojson(),
    }
