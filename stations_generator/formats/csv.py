"""CSV output in the column layout of the peer tool ramblin-dev/rural-jet-lag.

Using the peer's exact header lets its users switch tools without touching the
spreadsheets or scripts that read the file.
"""

from __future__ import annotations

import csv
import io
import operator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stations_generator.formats.atomic import atomic_write_text
from stations_generator.formats.geojson import STATION_PROPERTIES, StationRecord, station_records

if TYPE_CHECKING:
    import pandas as pd

    from stations_generator.core.stationmap.pointtable import PointTable

__all__ = ["CSV_DECIMALS", "PEER_COLUMNS", "stations_csv", "write_stations_csv"]

PEER_COLUMNS: tuple[str, ...] = (
    "name",
    "category",
    "cluster_id",
    "latitude",
    "longitude",
    "wait_min_minutes",
    "wait_max_minutes",
    "density_tier",
    "nearby_poi_count",
    "open_during_play",
    "opening_hours",
    "osm_type",
    "osm_id",
)
"""The peer's CSV header, in its order."""

CSV_DECIMALS = 6
"""Decimals written for latitude/longitude (the peer's precision, about 0.1 m)."""

# Peer column -> station field (latitude/longitude come from the geometry).
_FIELD_FOR_COLUMN = {
    "name": "name",
    "category": "category",
    "cluster_id": "cluster_id",
    "wait_min_minutes": "wait_min",
    "wait_max_minutes": "wait_max",
    "density_tier": "density_tier",
    "nearby_poi_count": "nearby_count",
    "open_during_play": "open_during_play",
    "opening_hours": "opening_hours",
    "osm_type": "osm_type",
    "osm_id": "osm_id",
}


# The columns read from a station's properties, in order; the position columns are put in
# at these places (the earlier first).
_PROPERTY_COLUMNS = tuple(c for c in PEER_COLUMNS if c in _FIELD_FOR_COLUMN)
_LATITUDE_AT, _LONGITUDE_AT = PEER_COLUMNS.index("latitude"), PEER_COLUMNS.index("longitude")
assert _LATITUDE_AT < _LONGITUDE_AT and len(_PROPERTY_COLUMNS) == len(PEER_COLUMNS) - 2


def _degrees(value: float) -> str:
    return f"{round(value, CSV_DECIMALS) + 0.0:.{CSV_DECIMALS}f}"


def stations_csv(
    stations: pd.DataFrame | PointTable, *, records: list[StationRecord] | None = None
) -> str:
    """Render the stations as CSV text with the peer's columns.

    Columns are exactly :data:`PEER_COLUMNS`; latitude and longitude have
    :data:`CSV_DECIMALS` decimals; quoting is the :mod:`csv` module's minimal
    quoting; lines end with ``"\\n"``; rows are ordered by ``(cluster_id, id)``.
    Missing values are written as empty cells.

    Parameters
    ----------
    stations : geopandas.GeoDataFrame or PointTable
        The stations (EPSG:4326, Point geometries).
    records : list of StationRecord, optional
        :func:`~stations_generator.formats.geojson.station_records` of ``stations``
        when the caller already has them (one conversion for every output file);
        ``stations`` is then not read.

    Returns
    -------
    str
        The CSV text including the header line.

    Raises
    ------
    ValueError
        If a station geometry is not a Point.
    """
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(PEER_COLUMNS)
    if records is None:
        records = station_records(stations, STATION_PROPERTIES)
    writer.writerows(map(_row, records))
    return buffer.getvalue()


_TAKE = operator.itemgetter(*(_FIELD_FOR_COLUMN[c] for c in _PROPERTY_COLUMNS))


def _row(record: StationRecord) -> list[Any]:
    """One station's cells, in :data:`PEER_COLUMNS` order."""
    row = list(_TAKE(record.properties))  # (csv writes None as an empty cell)
    row.insert(_LATITUDE_AT, _degrees(record.lat_raw))
    row.insert(_LONGITUDE_AT, _degrees(record.lon_raw))
    return row


def write_stations_csv(path: Path, stations: pd.DataFrame) -> None:
    """Write :func:`stations_csv` output to ``path`` atomically (UTF-8, no BOM).

    Parameters
    ----------
    path : Path
        Destination file (parent directories are created).
    stations : geopandas.GeoDataFrame
        The stations.
    """
    atomic_write_text(Path(path), stations_csv(stations))
