"""A GTFS feed and the part of it a user chooses: routes, a service day, a time window.

Shared by ``timetable stations | lines | check-stops`` and by game files that name a
feed as their stations. Every bad choice is an :class:`~stations_generator.errors.InputError`
of one line naming the option and the fix: an unknown route or route type, a date on
which nothing of the feed runs, a window that is not ``HH:MM`` to a later ``HH:MM``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from stations_generator.core.transit.feed import Feed
from stations_generator.core.transit.modes import route_type_mask
from stations_generator.core.transit.service import running_services, service_dates
from stations_generator.core.transit.window import DayService, Window, day_service
from stations_generator.errors import InputError
from stations_generator.formats.gtfs.cache import read_feed_cached
from stations_generator.formats.gtfs.source import FeedSource
from stations_generator.osm.extract_cache import ExtractCache

__all__ = [
    "DEFAULT_END",
    "DEFAULT_START",
    "FeedChoice",
    "FeedDay",
    "feed_attribution",
    "open_feed",
    "parse_clock",
    "resolve",
]

#: The window's default: the playing hours ``generate`` assumes (7am–7pm).
DEFAULT_START, DEFAULT_END = "07:00", "19:00"
_CLOCK = re.compile(r"^(\d{1,2}):([0-5]\d)$")


@dataclass(frozen=True)
class FeedChoice:
    """What to take of a feed.

    Attributes
    ----------
    feed : Path
        A GTFS .zip or folder.
    route_types : tuple of str
        GTFS route_type numbers or mode words (``rail``, ``subway``, ``bus``…); empty: all.
    routes : tuple of str
        Route ids or short names; empty: all (of ``route_types``).
    date : str or None
        ``YYYY-MM-DD``; None: the feed's busiest date (most trips; the earliest of a tie).
    start, end : str
        The window, ``HH:MM`` (hours may pass 24 for after midnight).
    min_per_hour : float
        Fewest departures an hour at a station.
    every_nth : int
        Every Nth station along each route.
    attribution : str or None
        The credit the feed's terms ask for; None: its agencies' names.
    """

    feed: Path
    route_types: tuple[str, ...] = ()
    routes: tuple[str, ...] = ()
    date: str | None = None
    start: str = DEFAULT_START
    end: str = DEFAULT_END
    min_per_hour: float = 0.0
    every_nth: int = 1
    attribution: str | None = None


@dataclass(frozen=True)
class FeedDay:
    """A feed resolved against a :class:`FeedChoice`.

    Attributes
    ----------
    name : str
        The feed's file name.
    feed : Feed
    day : datetime.date
    window : Window
    routes : numpy.ndarray of bool
        Per route, chosen.
    service : DayService
    attribution : str
    """

    name: str
    feed: Feed
    day: dt.date
    window: Window
    routes: np.ndarray
    service: DayService
    attribution: str

    def window_text(self) -> str:
        """The window as ``HH:MM-HH:MM``."""
        return f"{clock_text(self.window.start_s)}-{clock_text(self.window.end_s)}"

    def route_names(self, rows: tuple[int, ...] | list[int]) -> list[str]:
        """The routes' short names (their ids where a name is empty), sorted."""
        f = self.feed
        return sorted({f.route_short_names[r] or f.route_ids[r] for r in rows})


def clock_text(seconds: int) -> str:
    """Seconds after midnight as ``HH:MM``."""
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}"


def parse_clock(text: str, option: str) -> int:
    """``HH:MM`` (hours 0–47) as seconds after midnight.

    Raises
    ------
    InputError
        Naming ``option``.
    """
    match = _CLOCK.match(str(text).strip())
    if not match or int(match.group(1)) > 47:
        raise InputError(
            f"{option} {text!r} is not a time of day; write HH:MM, e.g. 07:30 (25:30 is "
            "01:30 after midnight)"
        )
    return int(match.group(1)) * 3600 + int(match.group(2)) * 60


def open_feed(path: Path, cache_dir: Path | None = None, use_cache: bool = True) -> Feed:
    """The feed, read through the extract cache (InputError on a bad feed)."""
    return read_feed_cached(Path(path), ExtractCache.for_command(cache_dir, use_cache))


def feed_attribution(path: Path) -> str:
    """A credit from the feed's ``agency.txt`` names (``Transit data: …``), or its file name."""
    names: list[str] = []
    source = FeedSource(Path(path))
    try:
        if source.has("agency.txt"):
            text = source.read("agency.txt").decode("utf-8-sig", errors="replace")
            for row in csv.DictReader(io.StringIO(text)):
                name = (row.get("agency_name") or "").strip()
                if name and name not in names:
                    names.append(name)
    finally:
        source.close()
    return "Transit data: " + ("; ".join(names) if names else Path(path).name) + " (GTFS)"


def _route_mask(feed: Feed, choice: FeedChoice) -> np.ndarray:
    mask = np.ones(len(feed.route_ids), dtype=bool)
    if choice.route_types:
        try:
            mask &= route_type_mask(feed.route_type, choice.route_types)
        except ValueError as exc:
            raise InputError(f"--route-type: {exc}") from None
    if choice.routes:
        named = np.zeros(len(feed.route_ids), dtype=bool)
        for route in choice.routes:
            hits = [
                i
                for i, (rid, short) in enumerate(
                    zip(feed.route_ids, feed.route_short_names, strict=True)
                )
                if route in (rid, short)
            ]
            if not hits:
                known = sorted(
                    {s or r for r, s in zip(feed.route_ids, feed.route_short_names, strict=True)}
                )
                shown = ", ".join(known[:20]) + (" …" if len(known) > 20 else "")
                raise InputError(
                    f"--route {route!r} is not a route of {Path(choice.feed).name}; give a "
                    f"route id or short name: {shown}"
                )
            named[hits] = True
        mask &= named
    if not mask.any():
        raise InputError(
            f"no route of {Path(choice.feed).name} is of --route-type "
            f"{', '.join(choice.route_types)}; drop it or pick another"
        )
    return mask


def _busiest_day(feed: Feed) -> dt.date:
    trips = np.bincount(feed.trip_service, minlength=len(feed.service_ids))
    per_date: dict[int, int] = {}
    for service in np.flatnonzero(trips).tolist():
        for ymd in service_dates(feed, service):
            per_date[ymd] = per_date.get(ymd, 0) + int(trips[service])
    if not per_date:
        raise InputError("the feed's calendar never runs a trip; check calendar.txt")
    best = min(per_date, key=lambda d: (-per_date[d], d))
    return dt.date(best // 10000, best // 100 % 100, best % 100)


def _calendar_span(feed: Feed) -> str:
    dates = [
        int(d) for d in (*feed.cal_start.tolist(), *feed.cal_end.tolist(), *feed.cd_date.tolist())
    ]
    if not dates:
        return "no dates"
    lo, hi = min(dates), max(dates)
    return f"{lo // 10000}-{lo // 100 % 100:02d}-{lo % 100:02d} – {hi // 10000}-{hi // 100 % 100:02d}-{hi % 100:02d}"


def _day(feed: Feed, choice: FeedChoice) -> dt.date:
    if choice.date is None:
        return _busiest_day(feed)
    try:
        day = dt.date.fromisoformat(str(choice.date))
    except ValueError:
        raise InputError(f"--date {choice.date!r} is not a date; write YYYY-MM-DD") from None
    if not running_services(feed, day)[feed.trip_service].any():
        raise InputError(
            f"--date {day.isoformat()}: no trip of {Path(choice.feed).name} runs that day (its "
            f"calendar spans {_calendar_span(feed)}); pick a date in it, or leave --date out "
            "for the busiest day"
        )
    return day


def resolve(feed: Feed, choice: FeedChoice) -> FeedDay:
    """The feed's day, window, routes and trips for ``choice``.

    Parameters
    ----------
    feed : Feed
    choice : FeedChoice

    Returns
    -------
    FeedDay

    Raises
    ------
    InputError
        A bad window, date, route or route type (one line naming the option).
    """
    start = parse_clock(choice.start, "--window start")
    end = parse_clock(choice.end, "--window end")
    if end <= start:
        raise InputError(
            f"--window {choice.start}-{choice.end}: the window ends before it starts; "
            "give a later end (25:00 is 01:00 after midnight)"
        )
    if not choice.min_per_hour >= 0:
        raise InputError(f"--min-per-hour {choice.min_per_hour}: give a number ≥ 0")
    if isinstance(choice.every_nth, bool) or not int(choice.every_nth) >= 1:
        raise InputError(f"--every-nth {choice.every_nth}: give a whole number ≥ 1")
    routes = _route_mask(feed, choice)
    day = _day(feed, choice)
    window = Window(start, end)
    attribution = choice.attribution or feed_attribution(Path(choice.feed))
    return FeedDay(
        name=Path(choice.feed).name,
        feed=feed,
        day=day,
        window=window,
        routes=routes,
        service=day_service(feed, day, window),
        attribution=attribution,
    )
