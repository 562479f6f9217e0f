"""One GTFS file as a table of strings, and the checks of its cells.

Files are read with ``pandas.read_csv`` (every cell a string, empty cells empty
strings, a UTF-8 byte-order mark dropped, surrounding blanks in column names
ignored; a row with more cells than the header is an error); only the columns the
reader uses are kept. Every error is one line naming
the feed, the file, the row as a spreadsheet numbers it (the header is line 1), the
problem and the fix.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from stations_generator.errors import InputError
from stations_generator.formats.gtfs.source import FeedSource
from stations_generator.formats.gtfs.times import BadValue

__all__ = ["Table", "read_table"]

_LINE = re.compile(r"line (\d+)")


class Table:
    """The kept columns of one file, and its name for messages.

    Parameters
    ----------
    source : FeedSource
    name : str
        The file name, e.g. ``"stops.txt"``.
    frame : pandas.DataFrame
        Its cells, strings.
    """

    def __init__(self, source: FeedSource, name: str, frame: pd.DataFrame) -> None:
        self.where = f"{source.label}: {name}"
        self.frame = frame

    def __len__(self) -> int:
        return len(self.frame)

    def col(self, name: str) -> pd.Series:
        """The column ``name`` (empty strings where the file lacks it)."""
        if name in self.frame.columns:
            return self.frame[name]
        return pd.Series([""] * len(self.frame), dtype=object)

    def coded(self, name: str) -> tuple[np.ndarray, list[str]]:
        """The column as codes into its distinct values, blanks around them stripped.

        Factorising first strips each distinct value once, not each of millions of cells.
        """
        if name not in self.frame.columns:
            return np.zeros(len(self.frame), dtype=np.int64), [""]
        codes, uniques = pd.factorize(self.frame[name], sort=False)
        stripped = [str(u).strip() for u in uniques.tolist()]
        if len(set(stripped)) < len(stripped):  # " a" and "a" are one value
            again, merged = pd.factorize(np.array(stripped, dtype=object), sort=False)
            return again[codes], [str(m) for m in merged.tolist()]
        return codes, stripped

    def first(self, codes: np.ndarray, code: int) -> int:
        """The first data row whose code is ``code``."""
        return int(np.argmax(codes == code))

    def fail(self, row: int, problem: str, fix: str) -> InputError:
        """The error for data row ``row`` (0-based): line ``row + 2``."""
        return InputError(f"{self.where} line {row + 2}: {problem}; {fix}")

    def ints(self, name: str, allowed: Sequence[int], default: int, fix: str) -> np.ndarray:
        """An enumerated integer column (empty cells ``default``), as int64."""
        codes, uniques = self.coded(name)
        values = np.empty(len(uniques), dtype=np.int64)
        for i, text in enumerate(uniques):
            if text == "":
                values[i] = default
            elif text.lstrip("-").isdigit() and int(text) in allowed:
                values[i] = int(text)
            else:
                problem = f"{name} {text!r} is not one of {list(allowed)}"
                raise self.fail(self.first(codes, i), problem, fix)
        return values[codes]

    def whole(self, name: str, fix: str, *, empty: int | None = None) -> np.ndarray:
        """A column of whole numbers >= 0, as int64 (empty cells ``empty``, if not None)."""
        codes, uniques = self.coded(name)
        values = np.empty(len(uniques), dtype=np.int64)
        for i, text in enumerate(uniques):
            if text.isdigit() and len(text) < 10:
                values[i] = int(text)
            elif text == "" and empty is not None:
                values[i] = empty
            else:
                problem = f"{name} {text!r} is not a whole number"
                raise self.fail(self.first(codes, i), problem, fix)
        return values[codes]

    def floats(self, name: str, low: float, high: float, rows: np.ndarray) -> np.ndarray:
        """A number column; the cells of ``rows`` must be numbers in [low, high], others NaN."""
        values = pd.to_numeric(self.col(name).str.strip(), errors="coerce").to_numpy(float)
        bad = rows & ~((values >= low) & (values <= high))
        if bad.any():
            row = int(np.argmax(bad))
            text = self.col(name).iloc[row]
            raise self.fail(
                row,
                f"{name} {text!r} is not a number from {low:g} to {high:g}",
                f"give the {name} in degrees",
            )
        return np.where(rows, values, np.nan)

    def refs(
        self, name: str, index: dict[str, int], target: str, *, optional: bool = False
    ) -> np.ndarray:
        """The rows (int32) of ``target`` that column ``name`` names; -1 for empty if optional."""
        codes, uniques = self.coded(name)
        rows = np.empty(len(uniques), dtype=np.int32)
        for i, text in enumerate(uniques):
            found = index.get(text, -1)
            if found < 0 and not (optional and text == ""):
                what = f"{name} {text!r} is not in {target}" if text else f"{name} is empty"
                raise self.fail(self.first(codes, i), what, f"add it to {target} or remove the row")
            rows[i] = found
        return rows[codes]

    def parsed(
        self, name: str, parse: Callable[..., np.ndarray], fix: str, **kwargs: object
    ) -> np.ndarray:
        """A column through ``parse`` (times or dates), its first bad cell an error."""
        try:
            return parse(self.col(name), **kwargs)
        except BadValue as bad:
            raise self.fail(bad.row, f"{name} {bad.value!r} is not valid", fix) from None


def read_table(
    source: FeedSource, name: str, required: Sequence[str], optional: Sequence[str] = ()
) -> Table | None:
    """The file ``name`` of the feed, or None if the feed has none.

    Raises
    ------
    InputError
        Not CSV, a row of the wrong number of cells, or a required column missing.
    """
    if not source.has(name):
        return None
    data = source.read(name)
    wanted = {*required, *optional}
    try:
        frame = pd.read_csv(
            io.BytesIO(data),
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            encoding="utf-8-sig",
            skipinitialspace=False,
        )
    except pd.errors.EmptyDataError:
        frame = pd.DataFrame(columns=[])
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        line = _LINE.search(str(exc))
        at = f" line {line.group(1)}" if line else ""
        text = " ".join(str(exc).split())[:160]
        raise InputError(
            f"{source.label}: {name}{at} is not valid CSV ({text}); save it as UTF-8 CSV "
            "with one cell per column on every row"
        ) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    frame = frame[[c for c in frame.columns if c in wanted]]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise InputError(
            f"{source.label}: {name} has no column {', '.join(missing)}; add it (GTFS requires it)"
        )
    return Table(source, name, frame)
