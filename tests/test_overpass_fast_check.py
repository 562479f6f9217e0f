"""The fast element check never accepts what the Overpass element schema rejects."""

from __future__ import annotations

import copy
import json
import math

from conftest import DATA, SIOUX

from stations_generator import schemas
from stations_generator.jsonio import _validator
from stations_generator.osm.overpass import _plainly_valid

BAD_VALUES = (None, "x", math.nan, math.inf, 1e9, -1e9, True, [], {}, 3)


def _schema_ok(element) -> bool:
    schemas_id = id(schemas.OVERPASS_ELEMENT)
    from stations_generator import jsonio

    jsonio._SCHEMAS.setdefault(schemas_id, schemas.OVERPASS_ELEMENT)
    return not list(_validator(schemas_id).iter_errors(element))


def _elements():
    for path in (
        SIOUX / "pois.json",
        SIOUX / "water.json",
        DATA / "overpass" / "sioux-falls-pois-subset.json",
    ):
        raw = json.loads(path.read_text())
        yield from raw if isinstance(raw, list) else raw["elements"]


def _variants(element):
    yield element
    for key in ("type", "id", "lat", "lon", "center", "tags", "nodes", "geometry", "bounds"):
        for bad in BAD_VALUES:
            e = copy.deepcopy(element)
            e[key] = bad
            yield e
        e = copy.deepcopy(element)
        e.pop(key, None)
        yield e
    if "center" in element:
        for sub in ("lat", "lon"):
            for bad in BAD_VALUES:
                e = copy.deepcopy(element)
                e["center"][sub] = bad
                yield e
    if element.get("geometry"):
        for sub in ("lat", "lon"):
            for bad in BAD_VALUES:
                e = copy.deepcopy(element)
                e["geometry"][0][sub] = bad
                yield e
        for bad in BAD_VALUES:
            e = copy.deepcopy(element)
            e["geometry"][-1] = bad
            yield e
    if element.get("bounds"):
        for sub in ("minlat", "maxlon"):
            for bad in BAD_VALUES:
                e = copy.deepcopy(element)
                e["bounds"][sub] = bad
                yield e
    if element.get("nodes"):
        for bad in BAD_VALUES:
            e = copy.deepcopy(element)
            e["nodes"][0] = bad
            yield e
    if element.get("tags"):
        key = next(iter(element["tags"]))
        for bad in BAD_VALUES:
            e = copy.deepcopy(element)
            e["tags"][key] = bad
            yield e


def test_fast_check_implies_the_schema():
    accepted = rejected = 0
    for k, element in enumerate(_elements()):
        for variant in _variants(element) if k % 20 == 0 else (element,):
            if _plainly_valid(variant):
                accepted += 1
                assert _schema_ok(variant), variant
            else:
                rejected += 1
    assert accepted > 900 and rejected > 100  # both sides were exercised
