"""The measuring question "Sea Level", on an elevation grid (pure: numpy and shapely).

JLTG.EU house rules, "Measuring: Sea Level": *"Compared to me, are you closer to or
further from sea level?"* The seekers supply their altitude as measured on one of
their GPSes, and *"10m above sea level is closer than 12m below sea level"*: the
comparison is of the absolute altitude. As for every measuring question a tie counts as
"hider closer".

The hider's height comes from an elevation model (a DEM the user gives, read by
:mod:`stations_generator.formats.dem` into an :class:`ElevationGrid`); the seeker's
comes from the question (their GPS), never from the DEM.

Error bound: each grid cell is taken as one height over its whole area, so the regions
follow cell edges. Where the true ground crosses the seeker's height inside a cell, the
region's edge can be off by up to one cell (its diagonal,
:meth:`ElevationGrid.cell_diagonal_m`: about 114 m for SRTM3 at 44° N). On top of that
come the DEM's own height errors (SRTM: ±16 m, 90 % of points) and the GPS altitude's.

Cells without a height (the DEM's nodata, voids) and points off the grid are *unknown*:
:meth:`SeaLevelQuestion.answers_for` gives ``None`` there, and both answers keep them
(nothing is eliminated on a height nobody knows).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.antimeridian import centre_lon, shift_lon, wrap_lon
from stations_generator.core.geo.geodesy import LocalFrame
from stations_generator.core.geo.shapes import distance_m
from stations_generator.core.questions.geometry import AreaQuestion, LonLat, QuestionError

__all__ = ["SUBJECT", "ElevationGrid", "SeaLevelQuestion"]

#: The measuring subject, and the second part of the question's cost key.
SUBJECT = "sea-level"

Affine6 = tuple[float, float, float, float, float, float]


@dataclass(frozen=True, eq=False)
class ElevationGrid:
    """A window of a DEM as plain data: heights, where the cells are, in which CRS.

    Attributes
    ----------
    heights : numpy.ndarray
        ``(rows, cols)`` heights in metres above sea level; NaN where unknown.
    transform : tuple of 6 floats
        The affine transform ``(a, b, c, d, e, f)`` of the top-left cell corner (GDAL
        and rasterio order): ``x = a * col + b * row + c``, ``y = d * col + e * row + f``.
        North-up grids only (``b == d == 0``).
    frame : LocalFrame or None
        The grid's coordinate system (any pyproj CRS, projected or geographic); None
        for WGS84 lon/lat.
    name : str
        Names the DEM in messages (its file name).
    """

    heights: np.ndarray
    transform: Affine6
    frame: LocalFrame | None = None
    name: str = "DEM"
    known: np.ndarray = field(init=False, repr=False)  # where the height is known

    def __post_init__(self) -> None:
        heights = np.asarray(self.heights, float)
        if heights.ndim != 2 or heights.size == 0:
            raise ValueError(f"heights must be a non-empty 2-D array, got shape {heights.shape}")
        a, b, _, d, e, _ = (float(v) for v in self.transform)
        if b != 0 or d != 0 or a == 0 or e == 0:
            raise ValueError(
                f"transform must be north-up with non-zero cell sides, got {a, b, d, e}"
            )
        object.__setattr__(self, "heights", heights)
        object.__setattr__(self, "transform", tuple(float(v) for v in self.transform))
        object.__setattr__(self, "known", np.isfinite(heights))

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)``."""
        return self.heights.shape  # type: ignore[return-value]

    def centre_xy(self) -> tuple[float, float]:
        """The grid's centre in its own x/y."""
        a, _, c, _, e, f = self.transform
        rows, cols = self.shape
        return c + a * cols / 2, f + e * rows / 2

    def to_grid(self, lons, lats) -> tuple[np.ndarray, np.ndarray]:
        """Lon/lat (WGS84) to the grid's x/y (longitudes wrapped to the grid's turn)."""
        lons, lats = np.asarray(lons, float), np.asarray(lats, float)
        if self.frame is None:
            return np.asarray(wrap_lon(lons, self.centre_xy()[0]), float), lats
        return self.frame.project(lons, lats)

    def to_lonlat(self, geometry: BaseGeometry) -> BaseGeometry:
        """A geometry in the grid's x/y, in WGS84 lon/lat (vertex by vertex)."""
        if self.frame is None or geometry.is_empty:
            return geometry
        frame = self.frame

        def back(coords: np.ndarray) -> np.ndarray:
            lon, lat = frame.unproject(coords[:, 0], coords[:, 1])
            return np.column_stack([lon, lat])

        return shapely.transform(geometry, back)

    def cells_of(self, x, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row and column of the cell holding each grid point, and whether it is on the grid."""
        a, _, c, _, e, f = self.transform
        cols = np.floor((np.asarray(x, float) - c) / a)
        rows = np.floor((np.asarray(y, float) - f) / e)
        n_rows, n_cols = self.shape
        on = (rows >= 0) & (rows < n_rows) & (cols >= 0) & (cols < n_cols)
        return np.where(on, rows, 0).astype(int), np.where(on, cols, 0).astype(int), on

    def heights_at(self, lons, lats) -> np.ndarray:
        """The height (m) of the cell under each lon/lat point; NaN where unknown or off the grid."""
        x, y = self.to_grid(np.atleast_1d(lons), np.atleast_1d(lats))
        rows, cols, on = self.cells_of(x, y)
        return np.where(on, self.heights[rows, cols], np.nan)

    def cell_diagonal_m(self) -> float:
        """The longest cell diagonal in metres (the regions' error bound), measured in the
        middle column at the top, middle and bottom rows (cells shrink towards the poles)."""
        a, _, c, _, e, f = self.transform
        rows, cols = self.shape
        x = c + a * (cols // 2)
        ys = [f + e * r for r in (0, rows // 2, rows - 1)]
        diagonals = shapely.linestrings([[(x, y), (x + a, y + e)] for y in ys])
        ends = shapely.get_coordinates(self.to_lonlat(shapely.multilinestrings(diagonals)))
        return float(np.max(distance_m(ends[0::2, 0], ends[0::2, 1], ends[1::2, 0], ends[1::2, 1])))

    def region(self, mask: np.ndarray, bounds: tuple[float, float, float, float]) -> BaseGeometry:
        """The cells where ``mask`` is true, within grid-space ``bounds``, as one grid-space
        (multi)polygon: runs of cells along each row, then their union (cell edges exact)."""
        a, _, c, _, e, f = self.transform
        r0, r1, c0, c1 = self._window(bounds)
        if r0 >= r1 or c0 >= c1:
            return shapely.Polygon()
        sub = np.zeros((r1 - r0, c1 - c0 + 2), np.int8)
        sub[:, 1:-1] = mask[r0:r1, c0:c1]
        steps = np.diff(sub, axis=1)
        starts, ends = np.argwhere(steps == 1), np.argwhere(steps == -1)  # paired, row-major
        if not len(starts):
            return shapely.Polygon()
        rows = starts[:, 0] + r0
        xa, xb = c + a * (starts[:, 1] + c0), c + a * (ends[:, 1] + c0)
        ya, yb = f + e * rows, f + e * (rows + 1)
        boxes = shapely.box(
            np.minimum(xa, xb), np.minimum(ya, yb), np.maximum(xa, xb), np.maximum(ya, yb)
        )
        return shapely.union_all(boxes)

    def _window(self, bounds: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        """Rows ``r0:r1`` and columns ``c0:c1`` of the cells meeting grid-space ``bounds``,
        with one more cell each side (a projected extent's edges bulge between vertices)."""
        a, _, c, _, e, f = self.transform
        minx, miny, maxx, maxy = bounds
        cols = sorted(((minx - c) / a, (maxx - c) / a))
        rows = sorted(((miny - f) / e, (maxy - f) / e))
        n_rows, n_cols = self.shape
        c0, c1 = max(int(np.floor(cols[0])) - 1, 0), min(int(np.floor(cols[1])) + 2, n_cols)
        r0, r1 = max(int(np.floor(rows[0])) - 1, 0), min(int(np.floor(rows[1])) + 2, n_rows)
        return r0, r1, c0, c1


@dataclass(eq=False)
class SeaLevelQuestion(AreaQuestion):
    """ "Compared to me, are you closer to or further from sea level?"

    "Closer" keeps the cells whose absolute height is at most the absolute altitude of
    the seeker (a tie counts as "hider closer"); "further" keeps the cells above it.
    Both keep the cells of unknown height. The regions follow cell edges: their error is
    at most one cell diagonal (:meth:`ElevationGrid.cell_diagonal_m`), see the module
    docstring.

    Parameters
    ----------
    seeker : (float, float)
        Where the seekers asked (lon, lat): shown on the map, not used for the answer.
    altitude_m : float
        The seekers' GPS altitude in metres (negative below sea level).
    grid : ElevationGrid
        The hider's heights.
    hider_closer : bool or None
        The recorded answer (None: not answered yet).
    """

    seeker: LonLat
    altitude_m: float
    grid: ElevationGrid
    hider_closer: bool | None = None
    kind: ClassVar[str] = "measuring"
    subject: ClassVar[str] = SUBJECT
    cost: ClassVar[tuple[int, int]] = (3, 1)  # measuring: draw 3, pick 1

    def __post_init__(self) -> None:
        if not np.isfinite(self.altitude_m):
            raise QuestionError(
                f"sea level: the seeker's altitude must be a number, got {self.altitude_m}"
            )

    @property
    def answer(self) -> bool | None:
        return self.hider_closer

    @cached_property
    def _closer_cells(self) -> np.ndarray:
        """Cells known to answer "closer" (|height| <= |altitude|)."""
        return self.grid.known & (np.abs(np.nan_to_num(self.grid.heights)) <= abs(self.altitude_m))

    @cached_property
    def _further_cells(self) -> np.ndarray:
        return self.grid.known & ~self._closer_cells

    def answers_for(self, lons, lats) -> np.ndarray:
        """True (closer), False (further) or None (no height there) at each point."""
        heights = self.grid.heights_at(lons, lats)
        out = np.full(len(heights), None, dtype=object)
        known = np.isfinite(heights)
        out[known] = np.abs(heights[known]) <= abs(self.altitude_m)
        return out

    def answer_for(self, lon: float, lat: float) -> bool | None:
        return self.answers_for([lon], [lat])[0]

    def known_region(self, answer: bool, extent: BaseGeometry) -> BaseGeometry:
        """The cells meeting ``extent`` whose height is known to give ``answer`` (lon/lat)."""
        return self._cells(self._closer_cells if answer else self._further_cells, extent)

    def _cells(self, mask: np.ndarray, extent: BaseGeometry) -> BaseGeometry:
        """The cells of ``mask`` meeting ``extent``, in lon/lat near ``extent``."""
        if extent.is_empty:
            return shapely.Polygon()
        turns = 0
        if self.grid.frame is None:  # move the extent to the grid's turn of longitude
            turns = round((self.grid.centre_xy()[0] - centre_lon(extent)) / 360.0)
        moved = shift_lon(extent, turns)
        x, y = self.grid.to_grid(*shapely.get_coordinates(moved).T)
        bounds = (float(x.min()), float(y.min()), float(x.max()), float(y.max()))
        return shift_lon(self.grid.to_lonlat(self.grid.region(mask, bounds)), -turns)

    def kept_for(self, answer: bool, extent: BaseGeometry) -> BaseGeometry:
        other = self.known_region(not answer, extent)
        return extent if other.is_empty else extent.difference(other)

    def unknown_region(self, extent: BaseGeometry) -> BaseGeometry:
        """The part of ``extent`` of unknown height (nodata cells, off the grid): kept by
        both answers."""
        known = self._cells(self.grid.known, extent)
        return extent if known.is_empty else extent.difference(known)

    def cost_key(self) -> tuple:
        return (self.kind, SUBJECT)

    def label(self) -> str:
        return f"Measuring sea level ({self.altitude_m:g} m)"

    def answer_text(self, answer: bool | None) -> str:
        if answer is None:
            return "unknown (no height in the DEM there)"
        return "closer" if answer else "further"
