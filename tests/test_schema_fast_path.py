"""The compiled fast path of :func:`jsonio.validate` never passes what jsonschema refuses.

The fast path (fastjsonschema over the schemas' standard keywords, plus a finiteness
check) only decides "valid"; anything else goes to jsonschema, which words the error.
So the one property that matters: every document the fast path passes has no
jsonschema error. Checked on real documents of every format and on thousands of
random mutations of them (a value replaced by a wrong type, NaN, a huge number, a
nested list, or a key removed).
"""

from __future__ import annotations

import copy
import json
import math
import random
from pathlib import Path

import pytest

from stations_generator.formats import jsonio, schemas

REPO = Path(__file__).resolve().parent.parent

JUNK = ["x", None, True, -1.0, 0, 1e9, math.nan, math.inf, [], {}, [[[]]], [1], {"type": 5}]


def _documents() -> list[tuple[str, dict, object]]:
    area = json.loads((REPO / "zones" / "sioux-falls.geojson").read_text(encoding="utf-8"))
    game = json.loads((REPO / "examples" / "helsinki-game" / "game.json").read_text())
    overpass = json.loads(
        (REPO / "tests" / "data" / "overpass" / "sioux-falls-pois-subset.json").read_text()
    )
    docs = [("geojson", schemas.GEOJSON, area), ("game", schemas.GAME, game)]
    for element in overpass["elements"][:40]:
        docs.append(("overpass element", schemas.OVERPASS_ELEMENT, element))
    return docs


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            yield from _paths(v, (*prefix, i))


def _mutate(doc, path, rng: random.Random):
    out = copy.deepcopy(doc)
    if not path:
        return rng.choice(JUNK)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and rng.random() < 0.3:
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(rng.choice(JUNK))
    return out


def _jsonschema_errors(data, schema) -> list:
    jsonio._SCHEMAS.setdefault(id(schema), schema)
    return list(jsonio._validator(id(schema)).iter_errors(data))


@pytest.mark.parametrize("name,schema,doc", _documents()[:3], ids=lambda v: str(v)[:20])
def test_real_documents_take_the_fast_path(name, schema, doc):
    jsonio._SCHEMAS.setdefault(id(schema), schema)
    assert not _jsonschema_errors(doc, schema)
    assert jsonio._fast_valid(doc, id(schema)), f"the real {name} fell back to jsonschema"


def test_fast_path_never_passes_an_invalid_document():
    rng = random.Random(9)
    checked = refused = 0
    for name, schema, doc in _documents():
        jsonio._SCHEMAS.setdefault(id(schema), schema)
        paths = list(_paths(doc))
        for path in rng.sample(paths, min(len(paths), 60)):
            for _ in range(4):
                bad = _mutate(doc, path, rng)
                invalid = bool(_jsonschema_errors(bad, schema))
                refused += invalid
                if jsonio._fast_valid(bad, id(schema)):
                    assert not invalid, f"{name}: fast path passed an invalid mutation at {path}"
                checked += 1
    assert checked > 1500 and refused > 300


def test_non_finite_numbers_are_refused_on_the_fast_path():
    area = json.loads((REPO / "zones" / "sioux-falls.geojson").read_text(encoding="utf-8"))
    schema = schemas.GEOJSON
    jsonio._SCHEMAS.setdefault(id(schema), schema)
    position = area["features"][0]["geometry"]["coordinates"]
    while isinstance(position[0], list):  # down to the first position, whatever the type
        parent, position = position, position[0]
    parent[0] = [math.nan, 43.5]
    assert not jsonio._fast_valid(area, id(schema))
    with pytest.raises(jsonio.InputError, match="finite"):
        jsonio.validate(area, schema, "area.geojson")
