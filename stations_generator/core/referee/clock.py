"""The game clock of one round: hiding time, game time, answer deadlines, lunch, breaks.

Pure functions and constants; every number is from the JLTG.EU house rules, the
section named next to it. Times are timezone-aware :class:`~datetime.datetime` s,
durations :class:`~datetime.timedelta` s (minutes as floats where shown to people).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, time, timedelta

from stations_generator.core.questions.photos import answer_minutes as photo_answer_minutes

#: Hiding time by game size (JLTG.EU house rules, Hiding: Summary): S 30 min, M 1 h, L 3 h.
HIDING_TIME = {"S": timedelta(minutes=30), "M": timedelta(hours=1), "L": timedelta(hours=3)}
#: Time to answer a question (JLTG.EU house rules, Questions: Summary): 5 min; photos
#: S 10, M 10, L 20 min (:data:`~stations_generator.core.questions.photos.ANSWER_MINUTES`).
ANSWER_TIME = timedelta(minutes=5)
#: Maximum game time of a Large game (JLTG.EU house rules, Game Time: "normally 9 hours").
LARGE_MAX_GAME = timedelta(hours=9)
#: Lunch (JLTG.EU house rules, Lunch Time): 30 min whole, normally 11:30–14:00, declared
#: automatically at 13:30 for a team that has not taken it.
LUNCH_LENGTH = timedelta(minutes=30)
LUNCH_WINDOW = (time(11, 30), time(14, 0))
LUNCH_AUTOMATIC = time(13, 30)
TEAMS = ("seekers", "hider")

Interval = tuple[datetime, datetime]


def minutes(delta: timedelta) -> float:
    """A duration in minutes (a float)."""
    return delta.total_seconds() / 60.0


def hiding_time(size: str) -> timedelta:
    """The hiding time of a game of size ``size`` (S, M or L)."""
    return HIDING_TIME[size.upper()]


def answer_time(question_kind: str, size: str) -> timedelta:
    """How long the hider has to answer a question of kind ``question_kind``.

    Parameters
    ----------
    question_kind : str
        The question's ``kind`` (``"radius"``, ``"photo"``, …).
    size : str
        The game size, S, M or L.

    Returns
    -------
    timedelta
        5 minutes; a photo 10 minutes in S and M games, 20 in L games.
    """
    if question_kind == "photo":
        return timedelta(minutes=photo_answer_minutes(size))
    return ANSWER_TIME


def max_game_time(size: str, max_minutes: float | None) -> timedelta | None:
    """The maximum game time: ``max_minutes`` if given, else 9 h in Large games, else none."""
    if max_minutes is not None:
        return timedelta(minutes=max_minutes)
    return LARGE_MAX_GAME if size.upper() == "L" else None


def clip(intervals: Iterable[Interval], start: datetime, end: datetime) -> list[Interval]:
    """The parts of ``intervals`` within ``[start, end]``, merged and sorted."""
    parts = sorted((max(a, start), min(b, end)) for a, b in intervals if b > start and a < end)
    merged: list[Interval] = []
    for a, b in parts:
        if b <= a:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def measure(intervals: Iterable[Interval], start: datetime, end: datetime) -> timedelta:
    """The total length of the union of ``intervals`` within ``[start, end]``."""
    return sum((b - a for a, b in clip(intervals, start, end)), timedelta())


def extend_past(deadline: datetime, start: datetime, stops: Sequence[Interval]) -> datetime:
    """A deadline pushed back by the stops (breaks) that began before it and after ``start``.

    An unscheduled break stops the game for everyone (JLTG.EU house rules, Unscheduled
    Breaks), so the time to answer does not run during it.
    """
    for a, b in sorted(stops):
        if b <= start or a >= deadline:
            continue
        deadline += b - max(a, start)
    return deadline


def automatic_lunch(seeking_started: datetime) -> datetime:
    """13:30 on the day seeking started, in the time zone seeking started in."""
    return datetime.combine(seeking_started.date(), LUNCH_AUTOMATIC, seeking_started.tzinfo)


def in_lunch_window(start: datetime) -> bool:
    """Whether a lunch starting at ``start`` lies within 11:30–14:00 local time."""
    end = start + LUNCH_LENGTH
    first, last = LUNCH_WINDOW
    return start.time() >= first and (end.date() == start.date() and end.time() <= last)
