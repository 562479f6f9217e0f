"""The board's grid: square cells in a projected CRS, named like the original board.

Columns are lettered ``A, B, … Z, AA, AB, …`` from west to east, rows numbered
``01, 02, …`` from north to south, so the north-west square is ``A01``. Rows are
zero-padded to the width of the largest row number (at least 2 digits, as on the
original board: ``K04``, ``X36``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = [
    "MAX_COLS",
    "MAX_ROWS",
    "MAX_SQUARES",
    "Grid",
    "column_index",
    "column_name",
    "size_problem",
    "utm_epsg",
]

#: Most columns: the letters ``A`` … ``ZZ``.
MAX_COLS = 702
#: Most rows: the three-digit row numbers.
MAX_ROWS = 999
#: Most squares on a board. The original board has 24 × 36 = 864 squares; 5,000 is almost
#: six times that (e.g. 50 × 100 or 70 × 70). The computer players keep a square-to-square
#: distance table (4 bytes a pair), so this bounds ``board simulate`` to 100 MB for it.
MAX_SQUARES = 5_000

_NAME = re.compile(r"^([A-Z]+)(\d+)$")


def column_name(index: int) -> str:
    """Spreadsheet-style column letters: 0 → ``A``, 25 → ``Z``, 26 → ``AA``."""
    if index < 0:
        raise ValueError(f"column index {index} < 0")
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def column_index(letters: str) -> int:
    """Inverse of :func:`column_name`."""
    value = 0
    for char in letters:
        value = value * 26 + (ord(char) - ord("A") + 1)
    return value - 1


def size_problem(cols: int, rows: int) -> str | None:
    """Why a ``cols`` × ``rows`` grid is too large for a board, or None when it is not.

    Parameters
    ----------
    cols, rows : int
        The grid's shape.

    Returns
    -------
    str or None
        E.g. ``"702 × 999 = 701298 squares is more than the 5000 a board may have"``.
    """
    if cols > MAX_COLS:
        return f"{cols} columns is more than the {MAX_COLS} a board may have (A…ZZ)"
    if rows > MAX_ROWS:
        return f"{rows} rows is more than the {MAX_ROWS} a board may have"
    if cols * rows > MAX_SQUARES:
        return (
            f"{cols} × {rows} = {cols * rows} squares is more than the {MAX_SQUARES} "
            "a board may have"
        )
    return None


def utm_epsg(lon: float, lat: float) -> int:
    """EPSG code of the WGS84 UTM zone holding ``(lon, lat)`` (326xx north, 327xx south)."""
    zone = min(60, max(1, int(math.floor((lon + 180.0) / 6.0)) + 1))
    return (32600 if lat >= 0 else 32700) + zone


@dataclass(frozen=True)
class Grid:
    """``cols`` × ``rows`` square cells of ``cell_m`` metres in ``epsg``.

    ``west`` / ``north`` are the projected coordinates of the grid's north-west
    corner. Square index ``i = row * cols + col``.
    """

    epsg: int
    west: float
    north: float
    cell_m: float
    cols: int
    rows: int

    @property
    def size(self) -> int:
        return self.cols * self.rows

    @property
    def row_digits(self) -> int:
        return max(2, len(str(self.rows)))

    def name(self, index: int) -> str:
        """The coordinate of square ``index``, e.g. ``K04``."""
        row, col = divmod(index, self.cols)
        return f"{column_name(col)}{row + 1:0{self.row_digits}d}"

    def index(self, name: str) -> int:
        """The square of a coordinate such as ``K04`` (case-insensitive, ``K4`` accepted).

        Raises
        ------
        ValueError
            If ``name`` is not a coordinate of this grid (the message says why).
        """
        text = str(name).strip().upper()
        match = _NAME.match(text)
        if not match:
            raise ValueError(f"{name!r} is not a coordinate (write e.g. K04)")
        col, row = column_index(match.group(1)), int(match.group(2)) - 1
        if not (0 <= col < self.cols and 0 <= row < self.rows):
            last = self.name(self.size - 1)
            raise ValueError(f"{name!r} is off the board (A01…{last})")
        return row * self.cols + col

    def bounds(self, index: int) -> tuple[float, float, float, float]:
        """``(minx, miny, maxx, maxy)`` of square ``index`` in the grid's CRS."""
        row, col = divmod(index, self.cols)
        x0 = self.west + col * self.cell_m
        y1 = self.north - row * self.cell_m
        return (x0, y1 - self.cell_m, x0 + self.cell_m, y1)

    def locate(self, x: float, y: float) -> int | None:
        """The square holding projected point ``(x, y)``, or None off the grid."""
        col = math.floor((x - self.west) / self.cell_m)
        row = math.floor((self.north - y) / self.cell_m)
        if 0 <= col < self.cols and 0 <= row < self.rows:
            return row * self.cols + col
        return None

    def neighbours(self, index: int, mode: int = 8) -> list[int]:
        """Squares one step away: the 4 edge neighbours, or 8 with the diagonals."""
        row, col = divmod(index, self.cols)
        out = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr, dc) == (0, 0) or (mode == 4 and dr and dc):
                    continue
                r, c = row + dr, col + dc
                if 0 <= r < self.rows and 0 <= c < self.cols:
                    out.append(r * self.cols + c)
        return out

    @staticmethod
    def fit(
        epsg: int,
        bounds: tuple[float, float, float, float],
        *,
        cols: int | None = None,
        rows: int | None = None,
        cell_m: float | None = None,
    ) -> Grid:
        """A grid covering projected ``bounds``, centred on them.

        Either ``cols`` and ``rows`` (the cell is the smallest square that lets
        that many cover the bounds) or ``cell_m`` (as many cells as needed).
        """
        minx, miny, maxx, maxy = bounds
        width, height = maxx - minx, maxy - miny
        if cell_m is None:
            if not cols or not rows:
                raise ValueError("give cols and rows, or a cell size")
            cell_m = max(width / cols, height / rows)
            if not cell_m > 0:
                raise ValueError("the area has no extent")
        else:
            cols = max(1, math.ceil(width / cell_m - 1e-9))
            rows = max(1, math.ceil(height / cell_m - 1e-9))
        # Round the cell to the millimetre so board.json round-trips exactly.
        cell_m = math.ceil(cell_m * 1000.0) / 1000.0
        west = (minx + maxx) / 2 - cols * cell_m / 2
        north = (miny + maxy) / 2 + rows * cell_m / 2
        return Grid(epsg, round(west, 3), round(north, 3), cell_m, int(cols), int(rows))
