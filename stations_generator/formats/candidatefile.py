"""The reader of ``candidates.geojson`` (every candidate ``generate --explain`` weighed).

The file is an RFC 7946 FeatureCollection of Point features with ``role: "candidate"``,
the station properties, and ``priority``, ``status`` (``"kept"`` or ``"rejected"``),
``reason`` and ``conflict_with``. It is checked against
:data:`~stations_generator.formats.schemas.CANDIDATE_MAP` (each property of its JSON type,
a Point per candidate, finite coordinates) and the coordinates must lie on the globe;
anything else is an :class:`~stations_generator.errors.InputError` with a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stations_generator.errors import InputError
from stations_generator.formats import jsonio, schemas
from stations_generator.formats.stationfile import MAX_STATION_MAP_BYTES

__all__ = ["CANDIDATES_HINT", "CandidateFile", "read_candidate_map"]

CANDIDATES_HINT = "give the candidates.geojson that `stations-generator generate --explain` wrote"


@dataclass(frozen=True)
class CandidateFile:
    """A candidate map as read back.

    Attributes
    ----------
    source : str
        The file name, for messages.
    properties : tuple of dict
        Each candidate feature's ``properties``, in file order.
    points : tuple of (float, float)
        Each candidate's (lon, lat), in the same order.
    """

    source: str
    properties: tuple[dict[str, Any], ...]
    points: tuple[tuple[float, float], ...]


def read_candidate_map(path: Path) -> CandidateFile:
    """Read a ``candidates.geojson`` written by ``stations-generator generate --explain``.

    Parameters
    ----------
    path : Path

    Returns
    -------
    CandidateFile

    Raises
    ------
    InputError
        If the file is missing, a folder, not JSON, not a candidate map, has no candidate
        features, or a candidate lies off the globe (one-line message).
    """
    path = Path(path)
    if not path.is_file():
        problem = "does not exist" if not path.exists() else "is a folder, not a file"
        raise InputError(f"candidates file {str(path)!r} {problem}; {CANDIDATES_HINT}")
    data = jsonio.read_json_file(
        path,
        "JSON",
        limit=MAX_STATION_MAP_BYTES,
        label=repr(str(path)),
        hint=CANDIDATES_HINT,
        fix=CANDIDATES_HINT,
    )
    source = repr(str(path))
    if not isinstance(data, dict) or data.get("type") != "FeatureCollection":
        raise InputError(f"{source} is not a GeoJSON FeatureCollection; {CANDIDATES_HINT}")
    jsonio.validate(data, schemas.CANDIDATE_MAP, source)
    properties: list[dict[str, Any]] = []
    points: list[tuple[float, float]] = []
    for number, feature in enumerate(data["features"]):
        props = feature.get("properties")
        if not isinstance(props, dict) or props.get("role") != "candidate":
            continue
        lon, lat = (float(c) for c in feature["geometry"]["coordinates"][:2])
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            raise InputError(
                f"{source}: $.features[{number}]: a candidate has coordinates off the globe "
                f"({lon:g}, {lat:g}); {CANDIDATES_HINT}"
            )
        properties.append(dict(props))
        points.append((lon, lat))
    if not properties:
        raise InputError(f"{source} has no candidate features; {CANDIDATES_HINT}")
    return CandidateFile(source, tuple(properties), tuple(points))
