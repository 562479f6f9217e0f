"""The fast element check never accepts what the Overpass element schema rejects."""

from __future__ import annotations

import copy
import json
import math

from support.cases import member_variants
from support.paths import DATA, SIOUX

from stations_generator.formats import schemas
from stations_generator.formats.jsonio import _validator
from stations_generator.osm.overpass_file import _plainly_valid

BAD_VALUES = (None, "x", math.nan, math.inf, 1e9, -1e9, True, [], {}, 3)


def _schema_ok(element) -> bool:
    schemas_id = id(schemas.OVERPASS_ELEMENT)
    from stations_generator.formats import jsonio

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
    keys = ("type", "id", "lat", "lon", "center", "tags", "nodes", "geometry", "bounds")
    yield from member_variants(element, keys, BAD_VALUES)
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


def _depth(value, level: int = 1) -> int:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level)
    return level - 1


def test_fast_check_passes_only_shallow_elements():
    """What the fast check accepts skips the depth check, so it must nest three levels at most."""
    nested = [[[["deep"]]]]
    for k, element in enumerate(_elements()):
        if k % 10:
            continue
        assert not _plainly_valid({**element, "extra": nested})
        if "center" in element:
            assert not _plainly_valid({**element, "center": {**element["center"], "x": nested}})
        if element.get("geometry"):
            points = [{**element["geometry"][0], "x": nested}, *element["geometry"][1:]]
            assert not _plainly_valid({**element, "geometry": points})
        if _plainly_valid(element):
            assert _depth(element) <= 3


def test_deeply_nested_element_is_refused_by_the_file_reader(tmp_path):
    import pytest

    from stations_generator.errors import InputError
    from stations_generator.osm.overpass_file import read_overpass_json_file

    element = json.loads((SIOUX / "pois.json").read_text())[0]
    deep: object = "x"
    for _ in range(40):
        deep = [deep]
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"elements": [{**element, "note": deep}]}))
    with pytest.raises(InputError, match="nested too deeply"):
        read_overpass_json_file(path)
