"""Is a POI open while the game is played?

OSM ``opening_hours`` values are evaluated with the ``opening-hours-py`` parser (the
full OSM specification, not regexes). A POI is "no" only when it is *known* closed
for the whole playing window on every playing day; a missing, unparsable or
"unknown" value is "unknown" and is not penalised (the game's rules).

Evaluation needs real dates. Without ``play_date`` the playing days are taken from a
fixed reference week (Monday 8 – Sunday 14 September 2025, no public holidays in
the US or Europe) so results never depend on the day the tool runs; pass the
game's first day to honour seasonal rules.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

import opening_hours as _oh

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_DAY_ALIASES = {
    **{name: i for i, name in enumerate(DAY_NAMES)},
    **{name: i for i, name in enumerate(("mo", "tu", "we", "th", "fr", "sa", "su"))},
    **{
        name: i
        for i, name in enumerate(
            ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
        )
    },
    "tues": 1,
    "weds": 2,
    "thur": 3,
    "thurs": 3,
}
REFERENCE_MONDAY = dt.date(2025, 9, 8)

YES, NO, UNKNOWN = "yes", "no", "unknown"


@dataclass(frozen=True)
class PlayWindow:
    """When the game is played.

    Attributes
    ----------
    start, end : datetime.time
        Daily playing hours (end after start, same day).
    weekdays : tuple of int
        Playing days, Monday = 0.
    play_date : datetime.date or None
        First day of the game; None uses the fixed reference week.
    """

    start: dt.time
    end: dt.time
    weekdays: tuple[int, ...]
    play_date: dt.date | None = None

    def dates(self) -> list[dt.date]:
        """The calendar dates evaluated: each playing day in the week from the first day."""
        first = self.play_date or REFERENCE_MONDAY
        week = [first + dt.timedelta(days=k) for k in range(7)]
        return sorted(d for d in week if d.weekday() in self.weekdays)


def parse_time_of_day(text: str) -> dt.time:
    """Parse ``7am``, ``7:30pm``, ``19:00`` or ``0700``; ValueError with a clear message otherwise."""
    t = text.strip().lower().replace(" ", "")
    m = re.fullmatch(r"(\d{1,2})(?::?(\d{2}))?(am|pm)?", t)
    if not m:
        raise ValueError(f"cannot read time {text!r}; write it like 7am, 7:30pm or 19:00")
    hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3)
    if half:
        if not 1 <= hour <= 12:
            raise ValueError(f"hour {hour} is not valid with {half}")
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour == 24 and minute == 0:
        return dt.time(23, 59, 59)
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise ValueError(f"time {text!r} is out of range")
    return dt.time(hour, minute)


def parse_play_window(hours: str, days: str, play_date: dt.date | None = None) -> PlayWindow:
    """Build a :class:`PlayWindow` from ``"7am-7pm"`` and ``"sat,sun"`` (ranges like ``mon-fri`` work).

    Raises
    ------
    ValueError
        With a message saying what to write instead.
    """
    parts = hours.split("-")
    if len(parts) != 2:
        raise ValueError(f"playing hours {hours!r} must be a range like 7am-7pm")
    start, end = parse_time_of_day(parts[0]), parse_time_of_day(parts[1])
    if end <= start:
        raise ValueError(f"playing hours {hours!r} end before they start")
    weekdays: set[int] = set()
    for item in days.lower().replace(" ", "").split(","):
        if not item:
            continue
        if "-" in item:
            a, b = item.split("-", 1)
            if a not in _DAY_ALIASES or b not in _DAY_ALIASES:
                raise ValueError(f"unknown day in {item!r}; use mon, tue, … sun")
            i, j = _DAY_ALIASES[a], _DAY_ALIASES[b]
            k = i
            while True:
                weekdays.add(k)
                if k == j:
                    break
                k = (k + 1) % 7
        elif item in _DAY_ALIASES:
            weekdays.add(_DAY_ALIASES[item])
        else:
            raise ValueError(f"unknown day {item!r}; use mon, tue, … sun")
    if not weekdays:
        raise ValueError("no playing days given; use e.g. sat,sun")
    return PlayWindow(start, end, tuple(sorted(weekdays)), play_date)


def open_during_play(value: str | None, window: PlayWindow) -> str:
    """``"yes"`` if open at some time in the window, ``"no"`` if known closed throughout, else ``"unknown"``.

    Parameters
    ----------
    value : str or None
        The OSM ``opening_hours`` value.
    window : PlayWindow
    """
    if not value or not value.strip():
        return UNKNOWN
    try:
        rules = _oh.OpeningHours(value)
    except Exception:  # the parser raises its own ParserError and others on odd input
        return UNKNOWN
    seen_unknown = False
    try:
        for day in window.dates():
            begin = dt.datetime.combine(day, window.start)
            finish = dt.datetime.combine(day, window.end)
            for interval in rules.intervals(begin, finish):
                state = interval[2]
                if state == _oh.State.OPEN:
                    return YES
                if state != _oh.State.CLOSED:
                    seen_unknown = True
    except Exception:
        return UNKNOWN
    return UNKNOWN if seen_unknown else NO
