"""Read a station map written by ``stations-generator generate`` (``stations.geojson``).

The file is an RFC 7946 FeatureCollection: a feature with ``role: "play_area"``,
optional ``role: "exclusion"`` features, and one Point feature per station with
``role: "station"`` and the properties ``id``, ``name``, ``wait_min``,
``wait_max``, ``density_tier`` … (see :mod:`stations_generator.export.geojson`).
Anything else is an :class:`~stations_generator.errors.InputError` with a
one-line message.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shapely.geometry
from shapely.geometry.base import BaseGeometry

from .core.routes import Station
from .errors import InputError

__all__ = ["StationFile", "parse_station_map", "read_station_map"]

_HINT = (
    "make one with: stations-generator generate PLAY_AREA -o DIR (it writes DIR/stations.geojson)"
)


@dataclass(frozen=True)
class StationFile:
    """A station map as read back.

    Attributes
    ----------
    source : str
        The file name, for messages.
    stations : tuple of Station
        In file order.
    play_area : shapely geometry or None
    metadata : dict
        The collection's ``metadata`` member (game size, rules …).
    """

    source: str
    stations: tuple[Station, ...]
    play_area: BaseGeometry | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def _int(value: Any, what: str, sid: str, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"{source}: station {sid!r} has no numeric {what}; {_HINT}")
    if float(value) != int(value):
        raise InputError(f"{source}: station {sid!r} has a fractional {what} ({value})")
    return int(value)


def _station(feature: dict[str, Any], number: int, source: str) -> Station:
    props = feature.get("properties") or {}
    sid = props.get("id") or feature.get("id")
    if not isinstance(sid, str) or not sid:
        raise InputError(f"{source}: station feature {number} has no id; {_HINT}")
    geometry = feature.get("geometry") or {}
    coords = geometry.get("coordinates")
    if (
        geometry.get("type") != "Point"
        or not isinstance(coords, list)
        or len(coords) < 2
        or not all(isinstance(c, int | float) and math.isfinite(c) for c in coords[:2])
    ):
        raise InputError(f"{source}: station {sid!r} is not a Point with [lon, lat]")
    lon, lat = float(coords[0]), float(coords[1])
    if not (-180 <= lon <= 180 and -90 <= lat <= 90):
        raise InputError(f"{source}: station {sid!r} has coordinates off the globe ({lon}, {lat})")
    wait_min = _int(props.get("wait_min"), "wait_min", sid, source)
    wait_max = _int(props.get("wait_max"), "wait_max", sid, source)
    if not 0 <= wait_min <= wait_max:
        raise InputError(
            f"{source}: station {sid!r} has the wait range {wait_min}-{wait_max}; "
            "it needs 0 ≤ wait_min ≤ wait_max"
        )
    cluster = props.get("cluster_id")
    return Station(
        id=sid,
        name=str(props.get("name") or ""),
        lon=lon,
        lat=lat,
        wait_min=wait_min,
        wait_max=wait_max,
        density_tier=str(props.get("density_tier") or ""),
        category=str(props.get("category") or ""),
        cluster_id=int(cluster) if isinstance(cluster, int | float) else None,
    )


def parse_station_map(data: Any, source: str = "stations.geojson") -> StationFile:
    """Read a parsed ``stations.geojson`` document.

    Parameters
    ----------
    data : Any
        The decoded JSON.
    source : str
        The file name, for messages.

    Returns
    -------
    StationFile

    Raises
    ------
    InputError
        If it is not a station map (not a FeatureCollection, no station features,
        a station without id, Point or wait range, repeated ids).
    """
    if not isinstance(data, dict) or data.get("type") != "FeatureCollection":
        raise InputError(f"{source} is not a GeoJSON FeatureCollection; {_HINT}")
    features = data.get("features")
    if not isinstance(features, list):
        raise InputError(f"{source} has no features list; {_HINT}")
    stations: list[Station] = []
    play_area: BaseGeometry | None = None
    seen: set[str] = set()
    for number, feature in enumerate(features, 1):
        if not isinstance(feature, dict):
            continue
        role = (feature.get("properties") or {}).get("role")
        if role == "station":
            station = _station(feature, number, source)
            if station.id in seen:
                raise InputError(f"{source}: station {station.id!r} appears twice")
            seen.add(station.id)
            stations.append(station)
        elif role == "play_area" and feature.get("geometry"):
            try:
                play_area = shapely.geometry.shape(feature["geometry"])
            except (ValueError, TypeError, AttributeError, KeyError):
                raise InputError(f"{source}: the play area geometry is unreadable") from None
    if not stations:
        raise InputError(f'{source} has no station features (role "station"); {_HINT}')
    metadata = data.get("metadata")
    return StationFile(
        source, tuple(stations), play_area, metadata if isinstance(metadata, dict) else {}
    )


def read_station_map(path: Path) -> StationFile:
    """Read a ``stations.geojson`` written by ``stations-generator generate``.

    Parameters
    ----------
    path : Path

    Returns
    -------
    StationFile

    Raises
    ------
    InputError
        If the file is missing, not JSON, or not a station map (one-line message).
    """
    path = Path(path)
    name = path.name
    if not path.exists():
        raise InputError(f"station map '{path}' does not exist; {_HINT}")
    if not path.is_file():
        raise InputError(f"station map '{path}' is not a file; give DIR/stations.geojson")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name} is not UTF-8 text; give the stations.geojson file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{name} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "give the stations.geojson file"
        ) from None
    return parse_station_map(data, name)
