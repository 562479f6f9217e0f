"""Plain elements (read without overpy) give exactly what overpy's path gives."""

from __future__ import annotations

import copy
import itertools
import json

import pytest
from support.paths import DATA, SIOUX
from test_overpass_fast_check import _schema_ok, _variants

from stations_generator.errors import InputError
from stations_generator.osm.overpass_json import _is_plain, parse_overpass


def _through_overpy(elements: list[dict]) -> list[dict]:
    """The same elements, each with a member that sends it down overpy's path."""
    return [{**copy.deepcopy(e), "version": 1} for e in elements]


def _outcome(elements: list[dict]):
    try:
        records, water = parse_overpass(elements)
    except InputError:
        return "refused"
    return [(r.osm_type, r.osm_id, r.lat, r.lon, r.tags) for r in records], [w.wkt for w in water]


@pytest.mark.parametrize(
    "path",
    [SIOUX / "pois.json", SIOUX / "water.json", DATA / "overpass" / "sioux-falls-pois-subset.json"],
    ids=lambda p: p.name,
)
def test_plain_elements_read_as_overpy_reads_them(path):
    raw = json.loads(path.read_text())
    elements = raw if isinstance(raw, list) else raw["elements"]
    plain = sum(_is_plain(e) for e in elements)
    assert plain > 0 or path.name == "water.json"
    assert not any(_is_plain(e) for e in _through_overpy(elements))
    assert _outcome(elements) == _outcome(_through_overpy(elements))


def test_plain_and_overpy_paths_agree_on_odd_elements():
    """Every schema-valid variant (bad centre, bounds, tags, ...) of real elements reads
    the same, or is refused by both paths."""
    raw = json.loads((SIOUX / "pois.json").read_text())
    nodes = [e for e in raw if e["type"] == "node"]
    others = [e for e in raw if e["type"] != "node"]
    sample = nodes[:3] + others[:3]
    checked = 0
    for element in sample:
        for variant in itertools.islice(_variants(element), 400):
            if not _schema_ok(variant):
                continue
            assert _outcome([variant]) == _outcome(_through_overpy([variant])), variant
            checked += 1
    assert checked > 50
