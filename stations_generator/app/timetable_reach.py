"""``timetable reach``: the earliest time in every hiding zone from a start, over a feed.

Reads the feed (through the extract cache), picks the service day, turns ``--from``
into start stops or a position and ``--at`` into seconds, runs one query
(:func:`stations_generator.core.transit.reach.reach_zones`) and gives the zones as a
GeoJSON document (RFC 7946): one Point feature per zone, at its station, with the
earliest ``arrival`` (ISO 8601 local time of the feed) and ``minutes`` after the start.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from stations_generator.app.timetable_feed import FeedChoice, open_feed, resolve
from stations_generator.core.gamesize import GAME_SIZES
from stations_generator.core.questions.rules import RULE_SETS
from stations_generator.core.transit.feed import Feed
from stations_generator.core.transit.raptor import UNREACHED
from stations_generator.core.transit.reach import (
    ZoneReach,
    feed_station_rows,
    feed_zones,
    hiding_deadline,
    reach_zones,
)
from stations_generator.core.transit.timetable import Timetable, build_timetable
from stations_generator.errors import InputError

__all__ = [
    "FeedQuery",
    "ReachRequest",
    "ReachResult",
    "Start",
    "checked_size",
    "clock_text",
    "deadline_for",
    "load_feed",
    "parse_time",
    "pick_day",
    "resolve_start",
    "run_reach",
]

_TIME = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")
_POSITION = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")


def parse_time(text: str, option: str = "--at") -> int:
    """``HH:MM`` or ``HH:MM:SS`` (hours up to 47, as GTFS allows) as seconds after midnight.

    Raises
    ------
    InputError
        One line naming the option and the form.
    """
    match = _TIME.match(text.strip())
    if match is None:
        raise InputError(f"{option} {text!r} is not a time; give HH:MM or HH:MM:SS, e.g. 08:30")
    h, m, s = (int(g or 0) for g in match.groups())
    if h > 47 or m > 59 or s > 59:
        raise InputError(f"{option} {text!r} is out of range; hours 0-47, minutes and seconds 0-59")
    return h * 3600 + m * 60 + s


def load_feed(path: Path, cache_dir: Path | None, use_cache: bool) -> Feed:
    """Read a GTFS feed (zip or folder) through the extract cache.

    Raises
    ------
    InputError
        The path is missing, or the feed fails the reader's checks.
    """
    if not Path(path).exists():
        raise InputError(f"no GTFS feed at {path}; give a feed's .zip or folder")
    return open_feed(Path(path), cache_dir, use_cache)


def pick_day(feed: Feed, path: Path, date: str | None) -> dt.date:
    """The service day: ``date`` (``YYYY-MM-DD``) if a trip runs on it, else the feed's
    busiest day, as every ``timetable`` command takes it
    (:func:`~stations_generator.app.timetable_feed.resolve`).

    Raises
    ------
    InputError
        A bad date, or one on which nothing runs.
    """
    return resolve(feed, FeedChoice(feed=Path(path), date=date)).day


@dataclass(frozen=True)
class Start:
    """Where the query starts: stop rows, or a position (lon, lat)."""

    label: str
    stops: tuple[int, ...] = ()
    position: tuple[float, float] | None = None


def resolve_start(feed: Feed, tt: Timetable, text: str) -> Start:
    """``--from``: a stop or station id, a stop name (exact, any case), or ``LON,LAT``.

    A station stands for its platforms; a name for every stop of that name, when they
    are all of one station.

    Raises
    ------
    InputError
        Nothing matches, or a position off the globe.
    """
    match = _POSITION.match(text)
    if match is not None:
        lon, lat = float(match.group(1)), float(match.group(2))
        if not (abs(lon) <= 180 and abs(lat) <= 90):
            raise InputError(f"--from {text!r}: give LON,LAT in degrees, e.g. -73.99,40.75")
        return Start(f"{lon:.6f},{lat:.6f}", position=(lon, lat))
    index = feed.stop_index()
    if text in index:
        rows = [index[text]]
    else:
        wanted = text.strip().casefold()
        rows = [i for i, name in enumerate(feed.stop_names) if name.casefold() == wanted]
    if not rows:
        raise InputError(
            f"--from {text!r} is no stop id or stop name of the feed; give one from stops.txt "
            "or LON,LAT"
        )
    stations = sorted({feed.stop_ids[s] for s in feed.station_of()[rows].tolist()})
    if len(stations) > 1:
        raise InputError(
            f"--from {text!r} names {len(stations)} stations ({', '.join(stations[:5])}); "
            "give one's stop id"
        )
    with_children = set(rows)
    for r in rows:
        with_children.update(np.flatnonzero(feed.stop_parent == r).tolist())
    served = sorted(s for s in with_children if tt.served[s])
    if not served:
        raise InputError(f"--from {text!r}: no trip stops there on {tt.day.isoformat()}")
    return Start(feed.stop_names[rows[0]] or feed.stop_ids[rows[0]], stops=tuple(served))


def clock_text(day: dt.date, seconds: int) -> str:
    """Seconds after the service day's midnight as an ISO 8601 local date and time.

    Returns
    -------
    str
        E.g. ``2025-01-08T08:23:00`` (the next day's date past 24:00).
    """
    moment = dt.datetime.combine(day, dt.time()) + dt.timedelta(seconds=int(seconds))
    return moment.isoformat(timespec="seconds")


@dataclass(frozen=True)
class FeedQuery:
    """The start of a timetable query and the feed it runs on (``reach`` and ``audit``)."""

    feed_path: Path
    start: str
    at: str
    date: str | None = None
    game_size: str = "M"
    rules: str = "jltg-eu"
    cache_dir: Path | None = None
    use_cache: bool = True


@dataclass(frozen=True)
class ReachRequest(FeedQuery):
    """What ``timetable reach`` was asked."""

    within_min: float | None = None


@dataclass(frozen=True)
class ReachResult:
    """The answer: the query, its zones, the deadline and the station rows of the zones."""

    feed_name: str
    day: dt.date
    start: Start
    reach: ZoneReach
    station_rows: np.ndarray
    deadline: int
    deadline_note: str
    game_size: str
    rules: str

    def rows(self) -> list[dict[str, object]]:
        """Per zone, its JSON properties (see :meth:`geojson`).

        Returns
        -------
        list of dict
        """
        r, zones, feed = self.reach, self.reach.zones, self.reach.arrivals.timetable.feed
        station = r.arrivals.station_arrival()
        minutes = r.minutes()
        out = []
        for z in range(len(zones)):
            at = int(r.arrival[z])
            st = int(station[self.station_rows[z]])
            via = int(r.via_stop[z])
            out.append(
                {
                    "id": zones.ids[z],
                    "name": zones.names[z],
                    "radius_m": zones.radius_m,
                    "arrival": clock_text(self.day, at) if at < UNREACHED else None,
                    "minutes": round(float(minutes[z]), 2) if at < UNREACHED else None,
                    "reachable": bool(at <= self.deadline),
                    "station_arrival": clock_text(self.day, st) if st < UNREACHED else None,
                    "via_stop": feed.stop_ids[via] if via >= 0 else None,
                }
            )
        return out

    def geojson(self) -> dict[str, object]:
        """The zones as an RFC 7946 FeatureCollection (deterministic).

        Returns
        -------
        dict
            One Point feature per zone, at its station, properties ``id``, ``name``,
            ``radius_m``, ``arrival`` (ISO local time, null if unreached), ``minutes``
            after the start, ``reachable`` (by the deadline), ``station_arrival`` and
            ``via_stop``; and a ``query`` member with the start, the day and the deadline.
        """
        zones = self.reach.zones
        features = [
            {
                "type": "Feature",
                "geometry": {
                    "type": "Point",
                    "coordinates": [round(float(zones.lon[z]), 7), round(float(zones.lat[z]), 7)],
                },
                "properties": props,
            }
            for z, props in enumerate(self.rows())
        ]
        return {"type": "FeatureCollection", "query": self.query(), "features": features}

    def query(self) -> dict[str, object]:
        """The query's description (feed, day, start, deadline, counts).

        Returns
        -------
        dict
        """
        reached = self.reach.arrival < UNREACHED
        return {
            "feed": self.feed_name,
            "date": self.day.isoformat(),
            "from": self.start.label,
            "start": clock_text(self.day, self.reach.start_time),
            "deadline": clock_text(self.day, self.deadline),
            "deadline_note": self.deadline_note,
            "game_size": self.game_size,
            "rules": self.rules,
            "radius_m": self.reach.zones.radius_m,
            "zones": len(self.reach.zones),
            "reached": int(reached.sum()),
            "reachable": int(self.reach.within(self.deadline).sum()),
        }


def deadline_for(start: int, game_size: str, within_min: float | None) -> tuple[int, str]:
    """The deadline: ``within_min`` after the start, else the game size's hiding period."""
    if within_min is not None:
        return start + round(within_min * 60), f"{within_min:g} min after the start"
    end = hiding_deadline(start, game_size)
    return end, f"the hiding period of a size-{game_size} game, {(end - start) // 60} min"


def checked_size(game_size: str, rules: str) -> str:
    """``game_size`` in capitals, once it and ``rules`` are known.

    Raises
    ------
    InputError
        An unknown game size or rule set (one line naming the option).
    """
    size = game_size.upper()
    if size not in GAME_SIZES:
        raise InputError(f"--game-size {game_size!r}: give S, M or L")
    if rules not in RULE_SETS:
        raise InputError(f"--rules {rules!r}: give one of {', '.join(sorted(RULE_SETS))}")
    return size


def run_reach(request: ReachRequest) -> ReachResult:
    """Answer ``timetable reach`` (see the module docstring).

    Raises
    ------
    InputError
        A bad feed, date, time, start, size or rule set: one line.
    """
    size = checked_size(request.game_size, request.rules)
    # The timetable holds the day and the next one's trips: a deadline a day on is the most.
    if request.within_min is not None and not (0 < request.within_min <= 24 * 60):
        raise InputError(f"--within {request.within_min:g}: give minutes above 0, at most 1440")
    at = parse_time(request.at)
    feed = load_feed(request.feed_path, request.cache_dir, request.use_cache)
    day = pick_day(feed, request.feed_path, request.date)
    tt = build_timetable(feed, day)
    start = resolve_start(feed, tt, request.start)
    radius = RULE_SETS[request.rules].radius_m(size)
    zones = feed_zones(tt, radius)
    reach = reach_zones(
        tt, zones, at, from_stops=list(start.stops) or None, from_position=start.position
    )
    deadline, note = deadline_for(at, size, request.within_min)
    return ReachResult(
        feed_name=Path(request.feed_path).name,
        day=day,
        start=start,
        reach=reach,
        station_rows=feed_station_rows(tt),
        deadline=deadline,
        deadline_note=note,
        game_size=size,
        rules=request.rules,
    )
