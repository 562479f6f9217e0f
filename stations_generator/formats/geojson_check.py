"""An RFC 7946 checker for GeoJSON documents: what the package writes, checked in tests.

:func:`validate_rfc7946` lists every way a document departs from RFC 7946 (and from
the package's own conventions: coordinates rounded to
:data:`~stations_generator.formats.geojson.COORD_DECIMALS` decimals, exterior rings
counter-clockwise and holes clockwise).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from stations_generator.formats.geojson import (
    COORD_DECIMALS,
    is_number,
    ring_signed_area,
)

__all__ = ["validate_rfc7946"]

_GEOMETRY_TYPES = frozenset(
    {
        "Point",
        "MultiPoint",
        "LineString",
        "MultiLineString",
        "Polygon",
        "MultiPolygon",
        "GeometryCollection",
    }
)


def _too_many_decimals(value: float) -> bool:
    return (
        isinstance(value, float) and math.isfinite(value) and value != round(value, COORD_DECIMALS)
    )


class _Validator:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def problem(self, where: str, message: str) -> None:
        self.problems.append(f"{where or '(root)'}: {message}")

    # positions / rings -------------------------------------------------

    def position(self, where: str, pos: Any) -> bool:
        if not isinstance(pos, list | tuple) or len(pos) not in (2, 3):
            self.problem(where, "a position must be an array of 2 or 3 numbers")
            return False
        if not all(is_number(c) and math.isfinite(c) for c in pos):
            self.problem(where, f"a position must contain finite numbers, got {pos!r}")
            return False
        lon, lat = pos[0], pos[1]
        if not -180 <= lon <= 180:
            self.problem(where, f"longitude {lon} is outside [-180, 180]")
        if not -90 <= lat <= 90:
            self.problem(where, f"latitude {lat} is outside [-90, 90]")
        for value in pos:
            if _too_many_decimals(value):
                self.problem(where, f"{value!r} has more than {COORD_DECIMALS} decimals")
        return True

    def positions(self, where: str, coords: Any, minimum: int) -> bool:
        if not isinstance(coords, list | tuple):
            self.problem(where, "expected an array of positions")
            return False
        ok = True
        for i, pos in enumerate(coords):
            ok = self.position(f"{where}[{i}]", pos) and ok
        if len(coords) < minimum:
            self.problem(where, f"needs at least {minimum} positions, has {len(coords)}")
            ok = False
        return ok

    def ring(self, where: str, ring: Any, *, exterior: bool) -> None:
        if not self.positions(where, ring, 4):
            if (
                isinstance(ring, list | tuple)
                and ring
                and isinstance(ring[0], list | tuple)
                and isinstance(ring[-1], list | tuple)
                and list(ring[0]) != list(ring[-1])
            ):
                self.problem(where, "linear ring is not closed (first != last position)")
            return
        if list(ring[0]) != list(ring[-1]):
            self.problem(where, "linear ring is not closed (first != last position)")
            return
        area = ring_signed_area(ring)
        if exterior and area <= 0:
            self.problem(
                where,
                "exterior ring must be counter-clockwise"
                if area < 0
                else "exterior ring has zero area",
            )
        elif not exterior and area >= 0:
            self.problem(where, "hole must be clockwise" if area > 0 else "hole has zero area")

    def polygon(self, where: str, rings: Any) -> None:
        if not isinstance(rings, list | tuple) or not rings:
            self.problem(where, "a Polygon needs an array of at least one linear ring")
            return
        for i, ring in enumerate(rings):
            self.ring(f"{where}[{i}]", ring, exterior=i == 0)

    def bbox(self, where: str, bbox: Any) -> None:
        if (
            not isinstance(bbox, list | tuple)
            or len(bbox) not in (4, 6)
            or not all(is_number(v) and math.isfinite(v) for v in bbox)
        ):
            self.problem(where, "bbox must be an array of 4 or 6 finite numbers")

    # objects -----------------------------------------------------------

    def common(self, where: str, obj: Mapping[str, Any]) -> None:
        if "crs" in obj:
            self.problem(where, 'the "crs" member was removed in RFC 7946')
        if "bbox" in obj:
            self.bbox(f"{where}.bbox", obj["bbox"])

    def geometry(self, where: str, geom: Any) -> None:
        if not isinstance(geom, Mapping):
            self.problem(where, "a geometry must be an object")
            return
        kind = geom.get("type")
        if kind not in _GEOMETRY_TYPES:
            self.problem(where, f"invalid geometry type {kind!r}")
            return
        self.common(where, geom)
        if kind == "GeometryCollection":
            members = geom.get("geometries")
            if not isinstance(members, list):
                self.problem(where, 'a GeometryCollection needs a "geometries" array')
                return
            for i, member in enumerate(members):
                self.geometry(f"{where}.geometries[{i}]", member)
            return
        if "coordinates" not in geom:
            self.problem(where, f'a {kind} needs a "coordinates" member')
            return
        coords = geom["coordinates"]
        at = f"{where}.coordinates"
        if kind == "Point":
            self.position(at, coords)
        elif kind == "MultiPoint":
            self.positions(at, coords, 0)
        elif kind == "LineString":
            self.positions(at, coords, 2)
        elif kind == "MultiLineString" or kind == "MultiPolygon":
            if not isinstance(coords, list | tuple):
                self.problem(at, f"a {kind} needs an array")
                return
            for i, part in enumerate(coords):
                if kind == "MultiLineString":
                    self.positions(f"{at}[{i}]", part, 2)
                else:
                    self.polygon(f"{at}[{i}]", part)
        else:  # Polygon
            self.polygon(at, coords)

    def feature(self, where: str, feature: Any) -> None:
        if not isinstance(feature, Mapping):
            self.problem(where, "a feature must be an object")
            return
        if feature.get("type") != "Feature":
            self.problem(where, f'expected type "Feature", got {feature.get("type")!r}')
            return
        self.common(where, feature)
        if "id" in feature and not (isinstance(feature["id"], str) or is_number(feature["id"])):
            self.problem(f"{where}.id", "a feature id must be a string or a number")
        if "geometry" not in feature:
            self.problem(where, 'a Feature needs a "geometry" member (may be null)')
        elif feature["geometry"] is not None:
            self.geometry(f"{where}.geometry", feature["geometry"])
        if "properties" not in feature:
            self.problem(where, 'a Feature needs a "properties" member (may be null)')
        elif feature["properties"] is not None and not isinstance(feature["properties"], Mapping):
            self.problem(f"{where}.properties", "properties must be an object or null")

    def root(self, obj: Any) -> None:
        if not isinstance(obj, Mapping):
            self.problem("", "a GeoJSON text must be an object")
            return
        kind = obj.get("type")
        if kind == "FeatureCollection":
            self.common("", obj)
            features = obj.get("features")
            if not isinstance(features, list):
                self.problem("", 'a FeatureCollection needs a "features" array')
                return
            for i, feature in enumerate(features):
                self.feature(f"features[{i}]", feature)
        elif kind == "Feature":
            self.feature("", obj)
        elif kind in _GEOMETRY_TYPES:
            self.geometry("", obj)
        else:
            self.problem("", f"invalid GeoJSON type {kind!r}")


def validate_rfc7946(obj: Mapping[str, Any]) -> list[str]:
    """Check a GeoJSON object against the RFC 7946 rules this project relies on.

    Checks: valid ``type`` members; no ``crs`` member anywhere; every position has
    2 or 3 finite numbers with -180 <= lon <= 180 and -90 <= lat <= 90 and at most
    :data:`COORD_DECIMALS` decimals; linear rings closed with at least 4 positions;
    exterior rings counter-clockwise and holes clockwise (shoelace signed area on
    lon/lat); every Feature has ``geometry`` and ``properties`` members; a
    FeatureCollection has a ``features`` array; ``bbox`` has 4 or 6 numbers.

    Parameters
    ----------
    obj : mapping
        A parsed GeoJSON object.

    Returns
    -------
    list of str
        Human-readable problems, each prefixed with where it was found
        (e.g. ``"features[3].geometry.coordinates[0]: ..."``). Empty when valid.
    """
    validator = _Validator()
    validator.root(obj)
    return validator.problems
