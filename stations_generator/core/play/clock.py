"""Clock times of play: ``HH:MM`` in and out, and as JSON (pure).

Seconds after midnight of the day play started (day 0); later days show as ``+Nd``.
"""

from __future__ import annotations

import math

__all__ = ["clock_json", "format_clock", "parse_clock"]


def parse_clock(text: str) -> int:
    """Read a 24-hour ``HH:MM`` clock time as seconds after midnight.

    Parameters
    ----------
    text : str
        ``"14:05"``, ``"7:30"``, ``"00:00"``.

    Returns
    -------
    int
        Seconds after midnight, 0–86340.

    Raises
    ------
    ValueError
        With a one-line message if ``text`` is not such a time.
    """
    hours, sep, minutes = text.strip().partition(":")
    ok = (
        sep == ":"
        and hours.isdigit()
        and minutes.isdigit()
        and 1 <= len(hours) <= 2
        and len(minutes) == 2
        and int(hours) < 24
        and int(minutes) < 60
    )
    if not ok:
        raise ValueError(f"{text!r} is not a clock time; write HH:MM (24-hour), e.g. 14:05")
    return int(hours) * 3600 + int(minutes) * 60


def format_clock(seconds: float) -> str:
    """Format seconds after midnight of day 0 as ``HH:MM``, with ``+Nd`` on later days.

    Rounded to the nearest minute (half a minute rounds up).

    Parameters
    ----------
    seconds : float
        May exceed a day: ``86400 + 600`` is ``"00:10 +1d"``.

    Returns
    -------
    str
    """
    minutes = math.floor(seconds / 60 + 0.5)
    day, minute_of_day = divmod(minutes, 24 * 60)
    text = f"{minute_of_day // 60:02d}:{minute_of_day % 60:02d}"
    if day > 0:
        text += f" +{day}d"
    elif day < 0:
        text += f" {day}d"
    return text


def clock_json(seconds: float) -> dict[str, object]:
    """A clock time as ``{"time": "HH:MM", "day": N}`` (day 0 = the day play started).

    Parameters
    ----------
    seconds : float
        Seconds after midnight of day 0; rounded to the minute as :func:`format_clock`.

    Returns
    -------
    dict
    """
    minutes = math.floor(seconds / 60 + 0.5)
    day, minute_of_day = divmod(minutes, 24 * 60)
    return {"time": f"{minute_of_day // 60:02d}:{minute_of_day % 60:02d}", "day": day}
