"""GTFS times (``H:MM:SS``, hours may pass 24) and dates (``YYYYMMDD``) as ints.

A feed's times repeat (a day has 86,400 seconds; a feed millions of stop times), so
each column is factorised first and only its distinct values are parsed.
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd

__all__ = ["BadValue", "parse_dates", "parse_times"]

_TIME = re.compile(r"\s*(\d{1,3}):([0-5]\d):([0-5]\d)\s*")


class BadValue(ValueError):
    """A value that does not parse: ``row`` is its 0-based data row, ``value`` the text."""

    def __init__(self, row: int, value: str) -> None:
        super().__init__(value)
        self.row, self.value = row, value


def parse_times(column: pd.Series, *, allow_empty: bool) -> np.ndarray:
    """Seconds after midnight (int32), -1 for an empty cell where ``allow_empty``.

    Raises
    ------
    BadValue
        The first cell that is not ``H:MM:SS`` (or empty where not allowed).
    """
    codes, uniques = pd.factorize(column, sort=False)
    values = np.empty(len(uniques), dtype=np.int32)
    for i, text in enumerate(uniques.tolist()):
        match = _TIME.fullmatch(text)
        if match:
            h, m, s = (int(g) for g in match.groups())
            values[i] = h * 3600 + m * 60 + s
        elif allow_empty and not text.strip():
            values[i] = -1
        else:
            raise BadValue(int(np.argmax(codes == i)), text)
    return values[codes]


def parse_dates(column: pd.Series) -> np.ndarray:
    """``YYYYMMDD`` dates as int32.

    Raises
    ------
    BadValue
        The first cell that is not a real date ``YYYYMMDD``.
    """
    codes, uniques = pd.factorize(column, sort=False)
    values = np.empty(len(uniques), dtype=np.int32)
    for i, text in enumerate(uniques.tolist()):
        try:
            text = text.strip()
            if len(text) != 8 or not text.isdigit():
                raise ValueError(text)
            dt.date(int(text[:4]), int(text[4:6]), int(text[6:]))
        except ValueError:
            raise BadValue(int(np.argmax(codes == i)), text) from None
        values[i] = int(text)
    return values[codes]
