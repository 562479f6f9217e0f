"""Points with named columns: the form a station map is made in, without pandas.

``generate`` used to carry its candidates in a GeoDataFrame. Importing pandas and
geopandas costs ~0.4 s, half of a small run, and each row-wise frame step (copy,
``iloc``, ``sort_values``) is a pass of pandas machinery for what numpy does directly.
A :class:`PointTable` holds the same data (numpy columns of one length, and a WGS84
longitude/latitude per row) and converts to and from a GeoDataFrame at the edges
(:meth:`PointTable.from_frame`, :meth:`PointTable.to_frame`), where geopandas is
imported only when a caller asks for a frame.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import geopandas as gpd

GEOMETRY = "geometry"


@dataclass(frozen=True)
class PointTable:
    """Rows of named numpy columns, each row a WGS84 point.

    Attributes
    ----------
    columns : dict of str to numpy array
        Every column has one value per row; text columns are object arrays of str
        (:func:`text_column`).
    lon, lat : numpy float arrays
        Each row's position (EPSG:4326).
    geometry_at : int
        Where the geometry column stands among ``columns`` in the frame form (so a
        frame converted in and out keeps its column order); -1 = last.
    """

    columns: dict[str, np.ndarray]
    lon: np.ndarray
    lat: np.ndarray
    geometry_at: int = -1

    def __len__(self) -> int:
        return len(self.lon)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def __contains__(self, name: object) -> bool:
        return name in self.columns

    def __iter__(self) -> Iterator[str]:
        return iter(self.columns)

    @classmethod
    def from_frame(cls, frame: gpd.GeoDataFrame) -> PointTable:
        """The table of a GeoDataFrame of points (taken as EPSG:4326, as given)."""
        geometry = frame.geometry
        names = list(frame.columns)
        columns = {c: frame[c].to_numpy() for c in names if c != geometry.name}
        x, y = geometry.x.to_numpy(float), geometry.y.to_numpy(float)
        return cls(columns, x, y, names.index(geometry.name))

    def to_frame(self, names: Sequence[str] | None = None) -> gpd.GeoDataFrame:
        """The GeoDataFrame (EPSG:4326) of this table, with only ``names`` if given
        (geometry last then)."""
        import geopandas as gpd

        if names is None:
            names = list(self.columns)
            at = self.geometry_at if 0 <= self.geometry_at <= len(names) else len(names)
        else:
            names, at = list(names), len(names)
        data: dict[str, Any] = {n: self.columns[n] for n in names[:at]}
        data[GEOMETRY] = gpd.points_from_xy(self.lon, self.lat)
        data.update((n, self.columns[n]) for n in names[at:])
        return gpd.GeoDataFrame(data, geometry=GEOMETRY, crs="EPSG:4326")

    def take(self, rows: np.ndarray) -> PointTable:
        """The rows at positions ``rows`` (an int array, or a bool mask), in that order."""
        return PointTable(
            {n: v[rows] for n, v in self.columns.items()},
            self.lon[rows],
            self.lat[rows],
            self.geometry_at,
        )

    def with_columns(self, **columns: np.ndarray) -> PointTable:
        """A table with ``columns`` added (or replaced), after the existing ones."""
        return PointTable(
            {**self.columns, **columns},
            self.lon,
            self.lat,
            self.geometry_at,
        )


def text_column(values: Sequence[str]) -> np.ndarray:
    """Text values as an object array of Python str (numpy's own str type is fixed-width)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out
