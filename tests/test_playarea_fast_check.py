"""The fast GeoJSON check never accepts what the GeoJSON schema rejects, and passes the
real play areas (so they skip compiling the schema's validator)."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import REPO, SIOUX, member_variants

from stations_generator.formats import jsonio, schemas
from stations_generator.formats.jsonio import _validator
from stations_generator.formats.playarea import _plainly_geojson, parse_polygons

REAL = [
    *sorted((REPO / "zones").glob("*.geojson")),
    SIOUX / "polygon.geojson",
    REPO / "examples" / "board" / "monaco.geojson",
]
BAD_NUMBERS = (None, "1", True, math.nan, math.inf, -math.inf, 10**400, [], {}, (1, 2))
BAD_OBJECTS = (None, "x", 3, True, [], (), {"type": "Foo"})


def _schema_ok(data: Any) -> bool:
    schema_id = id(schemas.GEOJSON)
    jsonio._SCHEMAS.setdefault(schema_id, schemas.GEOJSON)
    return not list(_validator(schema_id).iter_errors(data))


def _forms(path) -> Iterator[dict]:
    """The file, and each of its geometries bare, as a Feature and as a collection."""
    data = json.loads(path.read_text())
    yield data
    features = data["features"] if data["type"] == "FeatureCollection" else [data]
    for feature in features:
        geometry = feature.get("geometry", feature)
        yield copy.deepcopy(geometry)
        yield {"type": "Feature", "properties": None, "geometry": copy.deepcopy(geometry)}
        yield {"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": None}]}


def _first_position(coordinates: list) -> list:
    while isinstance(coordinates[0], list):
        coordinates = coordinates[0]
    return coordinates


def _variants(data: dict) -> Iterator[Any]:
    yield data
    keys = ("type", "features", "properties", "geometry", "coordinates")
    yield from member_variants(data, keys, BAD_OBJECTS)
    for bad in ("GeometryCollection", "Point", "LineString", "Feature", "FeatureCollection"):
        yield {**copy.deepcopy(data), "type": bad}
    if data.get("type") == "FeatureCollection":
        for bad in BAD_OBJECTS:
            yield {**data, "features": [*copy.deepcopy(data["features"]), bad]}
        for feature_variant in _variants(data["features"][0]):
            yield {**data, "features": [feature_variant, *copy.deepcopy(data["features"][1:])]}
        return
    if data.get("type") == "Feature":
        if isinstance(data.get("geometry"), dict):
            for geometry_variant in _variants(data["geometry"]):
                yield {**data, "geometry": geometry_variant}
        return
    coordinates = data.get("coordinates")
    if not isinstance(coordinates, list) or not coordinates:
        return
    for bad in BAD_NUMBERS:
        changed = copy.deepcopy(data)
        _first_position(changed["coordinates"])[1] = bad
        yield changed
    for position in ([1.0], [1.0, 2.0, 3.0, 4.0, 5.0], [], (9.5, 47.1)):
        changed = copy.deepcopy(data)
        ring = changed["coordinates"][0] if data["type"] == "Polygon" else changed["coordinates"]
        ring[0] = position
        yield changed
    for extra in (1, [[1.0, 2.0]]):  # one level too shallow, or too deep
        changed = copy.deepcopy(data)
        changed["coordinates"] = [extra, *changed["coordinates"][1:]]
        yield changed
    changed = copy.deepcopy(data)
    changed["coordinates"] = [changed["coordinates"]]
    yield changed


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_fast_check_accepts_only_what_the_schema_accepts(path):
    accepted = rejected = 0
    for form in _forms(path):
        assert _plainly_geojson(form), form.get("type")  # real files take the fast path
        for variant in _variants(form):
            if not isinstance(variant, dict):
                continue
            if _plainly_geojson(variant):
                assert _schema_ok(variant), json.dumps(variant, default=str)[:300]
                accepted += 1
            else:
                rejected += 1
    assert accepted > 3 and rejected > 30  # both ways were taken


def test_every_bad_number_is_caught_and_worded_by_the_schema():
    data = json.loads((REPO / "zones" / "sioux-falls.geojson").read_text())
    geometry = data["features"][0]["geometry"] if "features" in data else data
    for bad in BAD_NUMBERS:
        changed = copy.deepcopy(geometry)
        _first_position(changed["coordinates"])[0] = bad
        assert not _plainly_geojson(changed) or bad == 10**400
        with pytest.raises(Exception) as info:
            parse_polygons(changed, "area.geojson")
        assert "area.geojson" in str(info.value)
