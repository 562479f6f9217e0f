"""The one reader of ``stations.geojson`` (the station map ``generate`` writes), for every command.

The file is an RFC 7946 FeatureCollection: a feature with ``role: "play_area"``,
optional ``role: "exclusion"`` features, and one Point feature per station with
``role: "station"`` and the properties ``id``, ``name``, ``wait_min``,
``wait_max``, ``density_tier`` … (see :mod:`stations_generator.formats.geojson`).
``map``, ``roll``, ``route``, ``calibrate`` and games (``"stations": "….geojson"``) all
read it here, with the same checks: the schema :data:`~stations_generator.formats.schemas.STATION_MAP`
(whole-minute waits from 0 to 1440, a Point per station, finite coordinates), then
coordinates on the globe, ``wait_min`` ≤ ``wait_max`` and unique ids. Anything else is
an :class:`~stations_generator.errors.InputError` with a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shapely.geometry.base import BaseGeometry

from stations_generator.core.play.routes import Station
from stations_generator.errors import InputError
from stations_generator.formats import jsonio, schemas

__all__ = ["StationFile", "parse_station_map", "read_station_map"]

_HINT = (
    "make one with: stations-generator generate PLAY_AREA -o DIR (it writes DIR/stations.geojson)"
)
#: Largest station map read (a country-scale map of 10⁵ stations is ~40 MB).
MAX_STATION_MAP_BYTES = 512 * 1024**2


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
    exclusions : tuple of shapely geometries
        The ``role: "exclusion"`` features' (Multi)Polygons.
    properties : tuple of dict
        Each station feature's ``properties`` as written (same order as ``stations``).
    """

    source: str
    stations: tuple[Station, ...]
    play_area: BaseGeometry | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    exclusions: tuple[BaseGeometry, ...] = ()
    properties: tuple[dict[str, Any], ...] = ()


def _station(feature: dict[str, Any], number: int, source: str) -> Station:
    props = feature["properties"]
    sid = props["id"]
    lon, lat = (float(c) for c in feature["geometry"]["coordinates"][:2])
    if not (-180 <= lon <= 180 and -90 <= lat <= 90):
        raise InputError(
            f"{source}: $.features[{number}]: station {sid!r} has coordinates off the globe "
            f"({lon:g}, {lat:g}); {_HINT}"
        )
    wait_min, wait_max = int(props["wait_min"]), int(props["wait_max"])
    if not wait_min <= wait_max:
        raise InputError(
            f"{source}: $.features[{number}]: station {sid!r} has the wait range "
            f"{wait_min}-{wait_max}; it needs 0 ≤ wait_min ≤ wait_max"
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
        cluster_id=int(cluster) if cluster is not None else None,
    )


def _area(feature: dict[str, Any], role: str, number: int, source: str) -> BaseGeometry | None:
    from stations_generator.formats.playarea import parse_polygons

    if not feature.get("geometry"):
        return None
    return parse_polygons(
        feature["geometry"], f"{source}: $.features[{number}] ({role})", min_area_km2=0
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
        If it is not a station map (not a FeatureCollection, no station features, a
        station without id, Point or whole-minute wait range, coordinates off the globe,
        ``wait_min`` > ``wait_max``, repeated ids, a number that is not finite): one line
        with the JSON path.
    """
    jsonio.check_finite(data, source)  # (read_station_map's text was checked as it was read)
    return _station_file(data, source)


def _station_file(data: Any, source: str) -> StationFile:
    if not isinstance(data, dict) or data.get("type") != "FeatureCollection":
        raise InputError(f"{source} is not a GeoJSON FeatureCollection; {_HINT}")
    jsonio.validate(data, schemas.STATION_MAP, source)
    stations: list[Station] = []
    properties: list[dict[str, Any]] = []
    play_area: BaseGeometry | None = None
    exclusions: list[BaseGeometry] = []
    seen: set[str] = set()
    roles = []
    for number, feature in enumerate(data["features"]):
        props = feature.get("properties")
        role = props.get("role") if isinstance(props, dict) else None
        roles.append(role)
        if role == "station":
            station = _station(feature, number, source)
            if station.id in seen:
                raise InputError(f"{source}: station {station.id!r} appears twice")
            seen.add(station.id)
            stations.append(station)
            properties.append(dict(props))
        elif role == "play_area":
            play_area = _area(feature, role, number, source)
        elif role == "exclusion":
            area = _area(feature, role, number, source)
            if area is not None:
                exclusions.append(area)
    if not stations:
        hint = (
            "this looks like candidates.geojson: pass it with --candidates"
            if "candidate" in roles
            else _HINT
        )
        raise InputError(
            f'{source} is not a stations file (no station features, role "station"); {hint}'
        )
    metadata = data.get("metadata")
    return StationFile(
        source,
        tuple(stations),
        play_area,
        dict(metadata) if isinstance(metadata, dict) else {},
        tuple(exclusions),
        tuple(properties),
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
    data = jsonio.read_json_file(
        path, "JSON", limit=MAX_STATION_MAP_BYTES, hint=_HINT, fix="give the stations.geojson file"
    )
    return _station_file(data, path.name)
