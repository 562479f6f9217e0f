"""RFC 7946 GeoJSON output: the station map and the ``--explain`` candidate map.

Conventions (all outputs)
-------------------------
* WGS84 longitude/latitude positions rounded to :data:`COORD_DECIMALS` decimals;
  no ``crs`` member.
* Polygon exterior rings counter-clockwise, holes clockwise (checked on the rounded
  coordinates, so what is written is what is oriented).
* Deterministic: features are built in a fixed order with a fixed member order,
  so the same stations in any row order give byte-identical files.
* Property values are plain Python types (no numpy scalars, no NaN).
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from shapely.geometry import MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry

from stations_generator.core.stationmap.pointtable import PointTable
from stations_generator.formats.atomic import atomic_write_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ATTRIBUTION",
    "COORD_DECIMALS",
    "GENERATOR",
    "STATION_PROPERTIES",
    "StationRecord",
    "candidates_feature_collection",
    "dumps_geojson",
    "is_number",
    "polygon_rings",
    "positions",
    "ring_signed_area",
    "round_coord",
    "station_records",
    "stations_feature_collection",
    "write_geojson",
]

COORD_DECIMALS = 7
"""Decimals kept in every coordinate (1e-7 degree is about 1 cm)."""

GENERATOR = "stations-generator"
ATTRIBUTION = "© OpenStreetMap contributors, ODbL 1.0"

STATION_PROPERTIES: tuple[str, ...] = (
    "id",
    "name",
    "category",
    "cluster_id",
    "wait_min",
    "wait_max",
    "density_tier",
    "nearby_count",
    "open_during_play",
    "opening_hours",
    "osm_type",
    "osm_id",
)
"""Station properties written to GeoJSON (and KML ExtendedData), in this order."""

_CANDIDATE_EXTRA: tuple[str, ...] = ("priority", "status", "reason", "conflict_with")
_TEXT_FIELDS = frozenset(
    {"id", "name", "category", "opening_hours", "reason", "conflict_with", "in_optimal_map"}
)
_INT_FIELDS = frozenset(
    {"cluster_id", "wait_min", "wait_max", "nearby_count", "osm_id", "priority"}
)


# --------------------------------------------------------------------------- values


def _is_missing(value: Any) -> bool:
    pd = sys.modules.get("pandas")  # pandas' missing values exist only once it is loaded
    if value is None or (pd is not None and (value is pd.NA or value is pd.NaT)):
        return True
    return isinstance(value, float) and math.isnan(value)


def _plain(value: Any) -> Any:
    """Convert numpy / pandas scalars and containers to plain JSON-able Python values."""
    if isinstance(value, np.generic):
        value = value.item()
    if _is_missing(value):
        return None
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return None if math.isinf(value) else value
    if isinstance(value, Path):
        return value.as_posix()
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, list | tuple | np.ndarray):
        return [_plain(v) for v in value]
    return value  # left as is: json.dumps will reject it loudly


def _field(name: str, value: Any) -> Any:
    """Normalise one station field: missing text -> "", integral counts -> int."""
    if type(value) is str:  # the common case, already plain and text
        return value
    value = _plain(value)
    if name in _TEXT_FIELDS:
        return "" if value is None else str(value)
    if name in _INT_FIELDS and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _column(name: str, values: list[Any]) -> list[Any]:
    """:func:`_field` of every value of one column (a column of text, or of whole
    numbers outside the text fields, is already plain: one type check for all)."""
    kinds = set(map(type, values))
    if kinds <= {str} or (kinds <= {int} and name not in _TEXT_FIELDS):
        return values
    return [_field(name, value) for value in values]


def round_coord(value: float) -> float:
    """Round one coordinate to :data:`COORD_DECIMALS` decimals (and turn -0.0 into 0.0).

    Parameters
    ----------
    value : float
        Longitude or latitude in degrees.

    Returns
    -------
    float
        The rounded value.
    """
    return round(float(value), COORD_DECIMALS) + 0.0


# --------------------------------------------------------------------------- geometry


def ring_signed_area(ring: Sequence[Sequence[float]]) -> float:
    """Shoelace signed area (positive = counter-clockwise) of a lon/lat ring.

    Coordinates are taken relative to the first position, which keeps the
    products small and the sign trustworthy for small rings far from (0, 0).
    """
    if len(ring) < 3:
        return 0.0
    x0, y0 = ring[0][0], ring[0][1]
    total = 0.0
    n = len(ring)
    for i in range(n):
        xa, ya = ring[i][0] - x0, ring[i][1] - y0
        xb, yb = ring[(i + 1) % n][0] - x0, ring[(i + 1) % n][1] - y0
        total += xa * yb - xb * ya
    return total / 2.0


def _rounded_ring(coords: Iterable[Sequence[float]], *, ccw: bool) -> list[list[float]]:
    ring = [[round_coord(c[0]), round_coord(c[1])] for c in coords]
    if ring and ring[0] != ring[-1]:
        ring.append(list(ring[0]))
    area = ring_signed_area(ring)
    if (ccw and area < 0) or (not ccw and area > 0):
        ring.reverse()
    return ring


def polygon_rings(polygon: Polygon) -> list[list[list[float]]]:
    """Rounded, RFC 7946-oriented rings of one polygon.

    Parameters
    ----------
    polygon : shapely.geometry.Polygon
        A polygon in lon/lat (any orientation; z values are dropped).

    Returns
    -------
    list of rings
        ``[exterior, *holes]``; each ring is a closed list of ``[lon, lat]``
        positions, the exterior counter-clockwise and the holes clockwise.
    """
    rings = [_rounded_ring(polygon.exterior.coords, ccw=True)]
    rings.extend(_rounded_ring(hole.coords, ccw=False) for hole in polygon.interiors)
    return rings


def _polygons(geometry: BaseGeometry) -> list[Polygon]:
    if isinstance(geometry, Polygon):
        return [] if geometry.is_empty else [geometry]
    if isinstance(geometry, MultiPolygon):
        return [p for p in geometry.geoms if not p.is_empty]
    raise TypeError(f"expected a Polygon or MultiPolygon, got {geometry.geom_type}")


def _area_geometry(geometry: BaseGeometry) -> dict[str, Any] | None:
    """GeoJSON geometry of a (multi)polygon area; None when it is empty."""
    polygons = _polygons(geometry)
    if not polygons:
        return None
    if isinstance(geometry, Polygon):
        return {"type": "Polygon", "coordinates": polygon_rings(polygons[0])}
    return {"type": "MultiPolygon", "coordinates": [polygon_rings(p) for p in polygons]}


# --------------------------------------------------------------------------- stations


@dataclass(frozen=True, slots=True)
class StationRecord:
    """One station (or candidate) as plain Python values, ready for any writer.

    Attributes
    ----------
    properties : dict
        Field name -> plain value, for every field the writer asked for.
    lon, lat : float
        Position rounded to :data:`COORD_DECIMALS` decimals.
    lon_raw, lat_raw : float
        Position as given (for writers that round differently, e.g. CSV).
    """

    properties: dict[str, Any]
    lon: float
    lat: float
    lon_raw: float
    lat_raw: float


def _to_wgs84(frame: pd.DataFrame) -> pd.DataFrame:
    crs = getattr(frame, "crs", None)
    if crs is not None and crs.to_epsg() != 4326:
        return frame.to_crs(4326)
    return frame


def _sort_key(record: StationRecord) -> tuple[Any, ...]:
    props = record.properties
    cluster = props.get("cluster_id")
    cluster_missing = not isinstance(cluster, int | float)
    return (
        cluster_missing,
        0 if cluster_missing else cluster,
        str(props.get("id", "")),
        record.lon,
        record.lat,
        str(props.get("name", "")),
        str(props.get("category", "")),
    )


def station_records(
    stations: pd.DataFrame | PointTable, fields: Sequence[str] = STATION_PROPERTIES
) -> list[StationRecord]:
    """Stations as plain records in the stable output order (cluster_id, then id).

    Parameters
    ----------
    stations : geopandas.GeoDataFrame or PointTable
        One row per station with Point geometries; a frame is reprojected to EPSG:4326
        if it carries another CRS. Columns missing from ``fields`` are filled with ``""``
        (text fields) or ``None``.
    fields : sequence of str
        Properties to extract, in output order.

    Returns
    -------
    list of StationRecord
        Sorted by ``(cluster_id, id)`` with position/name ties broken, so the
        result does not depend on the input row order.

    Raises
    ------
    ValueError
        If a geometry is missing, empty or not a Point, or a coordinate is not finite.
    """
    if isinstance(stations, PointTable):
        values = {f: stations[f].tolist() for f in fields if f in stations}
        positions: list[Any] = list(zip(stations.lon.tolist(), stations.lat.tolist(), strict=True))
    else:
        frame = _to_wgs84(stations)
        columns = [f for f in fields if f in frame.columns and f != frame.geometry.name]
        values = {f: frame[f].tolist() for f in columns}
        positions = frame.geometry.tolist()
    n = len(positions)
    columns = [_column(f, values[f]) if f in values else [_field(f, None)] * n for f in fields]
    rows = zip(*columns, strict=True) if columns else [()] * n
    records: list[StationRecord] = []
    for position, row in zip(positions, rows, strict=True):
        props = dict(zip(fields, row, strict=True))
        if isinstance(position, tuple):
            lon, lat = position
        elif not isinstance(position, Point) or position.is_empty:
            kind = "missing" if position is None else position.geom_type
            raise ValueError(f"station {props.get('id')!r}: geometry must be a Point, got {kind}")
        else:
            lon, lat = float(position.x), float(position.y)
        if not (math.isfinite(lon) and math.isfinite(lat)):
            raise ValueError(f"station {props.get('id')!r}: non-finite coordinates")
        records.append(StationRecord(props, round_coord(lon), round_coord(lat), lon, lat))
    records.sort(key=_sort_key)
    return records


def _point_feature(record: StationRecord, role: str) -> dict[str, Any]:
    properties = {"role": role, **record.properties}
    feature: dict[str, Any] = {"type": "Feature"}
    if properties.get("id"):
        feature["id"] = properties["id"]
    feature["properties"] = properties
    feature["geometry"] = {"type": "Point", "coordinates": [record.lon, record.lat]}
    return feature


def _area_features(play_area: BaseGeometry | None, exclusions: Iterable[BaseGeometry]):
    features: list[dict[str, Any]] = []
    if play_area is not None:
        geometry = _area_geometry(play_area)
        if geometry is None:
            raise ValueError("the play area is empty")
        features.append(
            {
                "type": "Feature",
                "id": "play_area",
                "properties": {"role": "play_area"},
                "geometry": geometry,
            }
        )
    number = 0
    for exclusion in exclusions:
        geometry = _area_geometry(exclusion)
        if geometry is None:
            continue
        number += 1
        features.append(
            {
                "type": "Feature",
                "id": f"exclusion/{number}",
                "properties": {"role": "exclusion"},
                "geometry": geometry,
            }
        )
    return features


def _generator_version() -> str:
    try:
        return importlib.metadata.version(GENERATOR)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _metadata_member(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if metadata is None:
        return None
    member: dict[str, Any] = {
        "generator": GENERATOR,
        "version": _generator_version(),
        "attribution": ATTRIBUTION,
    }
    member.update(_plain(dict(metadata)))
    return member


def _bbox(features: Sequence[Mapping[str, Any]]) -> list[float] | None:
    lons: list[float] = []
    lats: list[float] = []
    for feature in features:
        geometry = feature.get("geometry")
        if geometry is None:
            continue
        coordinates = geometry.get("coordinates")
        if type(coordinates) is list and len(coordinates) == 2:  # a station's point, mostly
            lon, lat = coordinates
            if type(lon) is float and type(lat) is float:
                lons.append(lon)
                lats.append(lat)
                continue
        for position in positions(coordinates):
            lons.append(position[0])
            lats.append(position[1])
    if not lons:
        return None
    return [min(lons), min(lats), max(lons), max(lats)]


def _collection(
    features: list[dict[str, Any]], metadata: Mapping[str, Any] | None
) -> dict[str, Any]:
    collection: dict[str, Any] = {"type": "FeatureCollection"}
    member = _metadata_member(metadata)
    if member is not None:
        collection["metadata"] = member
    bbox = _bbox(features)
    if bbox is not None:
        collection["bbox"] = bbox
    collection["features"] = features
    return collection


def stations_feature_collection(
    stations: pd.DataFrame,
    play_area: BaseGeometry | None,
    exclusions: Iterable[BaseGeometry] = (),
    *,
    metadata: Mapping[str, Any] | None = None,
    records: list[StationRecord] | None = None,
) -> dict[str, Any]:
    """Build the station map as an RFC 7946 FeatureCollection.

    Feature order: the play area (``{"role": "play_area"}``), then one feature per
    non-empty exclusion (``{"role": "exclusion"}``), then the stations
    (``{"role": "station"}`` plus :data:`STATION_PROPERTIES`) ordered by
    ``(cluster_id, id)``. Each station's feature ``id`` member is its station id.

    Parameters
    ----------
    stations : geopandas.GeoDataFrame
        The stations (EPSG:4326, Point geometries).
    records : list of StationRecord, optional
        :func:`~stations_generator.formats.geojson.station_records` of ``stations``
        when the caller already has them (one conversion for every output file);
        ``stations`` is then not read.
    play_area : shapely Polygon or MultiPolygon, or None
        The play area in WGS84; holes allowed, any ring orientation. ``None`` omits it.
    exclusions : iterable of shapely Polygon or MultiPolygon
        Excluded areas in WGS84; empty geometries are skipped.
    metadata : mapping, optional
        When given, a top-level ``"metadata"`` foreign member is written with
        ``generator``, ``version`` and ``attribution`` followed by these entries
        (which may override them), e.g. ``{"options": {...}}``.

    Returns
    -------
    dict
        The FeatureCollection, ready for :func:`dumps_geojson`.

    Raises
    ------
    ValueError
        If the play area is empty or a station geometry is not a Point.
    TypeError
        If an area is not a Polygon or MultiPolygon.
    """
    features = _area_features(play_area, exclusions)
    if records is None:
        records = station_records(stations)
    features.extend(_point_feature(r, "station") for r in records)
    return _collection(features, metadata)


def candidates_feature_collection(
    candidates: pd.DataFrame | PointTable, *, metadata: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Build the ``--explain`` map: every candidate, kept or rejected, with the reason.

    Each feature has ``{"role": "candidate"}``, the :data:`STATION_PROPERTIES`
    (missing ones as ``null``, missing text as ``""``), then ``priority``,
    ``status`` (``"kept"``/``"rejected"``), ``reason`` and ``conflict_with``, and with
    ``generate --optimize`` ``in_optimal_map`` (``"yes"``/``"no"``/``"unknown"``).
    Kept candidates come first, each group ordered by ``(cluster_id, id)``.

    Parameters
    ----------
    candidates : geopandas.GeoDataFrame or PointTable
        Candidates in EPSG:4326 with Point geometries and a ``status`` column.
    metadata : mapping, optional
        As in :func:`stations_feature_collection`.

    Returns
    -------
    dict
        The FeatureCollection.

    Raises
    ------
    ValueError
        If a geometry is not a Point.
    """
    fields = (*STATION_PROPERTIES, *_CANDIDATE_EXTRA)
    if "in_optimal_map" in candidates:  # generate --optimize --explain
        fields = (*fields, "in_optimal_map")
    records = station_records(candidates, fields)
    records.sort(key=lambda r: r.properties.get("status") != "kept")  # stable sort
    features = [_point_feature(r, "candidate") for r in records]
    return _collection(features, metadata)


# --------------------------------------------------------------------------- output


# The settings of every value written; one encoder for all (json.dumps makes one a call,
# 13,600 calls for the features of a large map).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _compact(value: Any) -> str:
    return _ENCODER.encode(value)


def dumps_geojson(obj: Mapping[str, Any]) -> str:
    """Serialise a GeoJSON object deterministically.

    Members are written in the order they were built (no key sorting), without
    ASCII escaping, compactly, with one feature per line for a FeatureCollection,
    and with a trailing newline.

    Parameters
    ----------
    obj : mapping
        A GeoJSON object (usually a FeatureCollection).

    Returns
    -------
    str
        The JSON text.

    Raises
    ------
    TypeError
        If a value is not JSON-serialisable.
    ValueError
        If a number is NaN or infinite (not valid JSON).
    """
    features = obj.get("features")
    if obj.get("type") != "FeatureCollection" or not isinstance(features, list):
        return _compact(obj) + "\n"
    # The pieces joined once: the text of a large map is MBs, and each concatenation
    # copies it all.
    pieces: list[str] = []
    for key, value in obj.items():
        pieces += (",\n" if pieces else "{", _compact(key), ":")
        if key == "features" and value:
            pieces += ("[\n", ",\n".join(map(_compact, value)), "\n]")
        else:
            pieces.append("[]" if key == "features" else _compact(value))
    pieces.append("}\n")
    return "".join(pieces)


def write_geojson(path: Path, obj: Mapping[str, Any]) -> None:
    """Serialise ``obj`` with :func:`dumps_geojson` and write it atomically.

    The text is fully built before anything touches the disk, so a value that
    cannot be serialised leaves ``path`` untouched.

    Parameters
    ----------
    path : Path
        Destination file (parent directories are created).
    obj : mapping
        The GeoJSON object.
    """
    atomic_write_text(Path(path), dumps_geojson(obj))


def is_number(value: Any) -> bool:
    """Whether ``value`` is a JSON number (an int or a float, not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def positions(coordinates: Any) -> Iterator[Sequence[float]]:
    """Every position (list of numbers) nested anywhere in ``coordinates``."""
    if isinstance(coordinates, list | tuple):
        if coordinates and all(is_number(c) for c in coordinates):
            yield coordinates
        else:
            for item in coordinates:
                yield from positions(item)
