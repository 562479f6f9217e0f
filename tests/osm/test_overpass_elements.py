"""``read_overpass_elements`` (one pass over an ordinary file) reads what the two steps do.

The fused reader checks, keeps and converts the elements of an ordinary file in one
loop; anything it does not decide (other shapes, repeated objects, errors) goes the
general way. Either way the records, the water and the one-line errors must be those
of ``parse_overpass(read_overpass_json_file(path, keep), source)``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import shapely
from support.paths import DATA, SIOUX
from test_overpass_fast_check import _variants

from stations_generator.core.catalogue import load_catalogue
from stations_generator.errors import InputError
from stations_generator.osm import overpass_file
from stations_generator.osm.overpass_file import (
    has_geometry,
    read_overpass_elements,
    read_overpass_json_file,
)
from stations_generator.osm.overpass_json import parse_overpass
from stations_generator.osm.sources import json_element_filter

REAL_FILES = (
    SIOUX / "pois.json",
    SIOUX / "water.json",
    DATA / "overpass" / "sioux-falls-pois-subset.json",
    DATA / "overpass" / "runtime-error-remark.json",
    DATA / "overpass" / "truncated.json",
)


def _records(elements) -> list[tuple]:
    return [(e.osm_type, e.osm_id, e.lat.hex(), e.lon.hex(), e.tags) for e in elements]


def _outcome(read) -> object:
    try:
        elements, water = read()
    except InputError as exc:
        return ("error", str(exc))
    return _records(elements), [shapely.to_wkb(p) for p in water]


def _same(path: Path, keep) -> object:
    """Both readings of ``path``, asserted equal; the outcome."""
    fused = _outcome(lambda: read_overpass_elements(path, keep, "saved.json"))
    general = _outcome(
        lambda: parse_overpass(read_overpass_json_file(path, keep=keep), "saved.json")
    )
    assert fused == general
    return fused


@pytest.fixture(scope="module")
def keeps():
    catalogue = load_catalogue()
    return [
        None,
        json_element_filter(catalogue),
        json_element_filter(catalogue, with_water=True),
        has_geometry,
    ]


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_real_files_read_the_same_in_one_pass(path, keeps):
    outcomes = [_same(path, keep) for keep in keeps]
    if path.name == "pois.json":  # (an ordinary file: read in the one pass)
        assert overpass_file._simple_records(overpass_file._whole_elements(path), None)
        records, water = outcomes[0]
        assert len(records) == 649 and not water
        assert [r[:2] for r in records] == sorted(
            (r[:2] for r in records), key=lambda k: ({"node": 0, "way": 1}.get(k[0], 2), k[1])
        )
    if path.name == "water.json":
        assert outcomes[0][1]  # water polygons, from the general path


def test_repeated_objects_are_merged_as_before(tmp_path, keeps):
    """A response listing objects twice (e.g. two queries saved together) is merged."""
    pois = json.loads((SIOUX / "pois.json").read_text())
    node = next(e for e in pois if e["type"] == "node" and "name" in e.get("tags", {}))
    bare = {k: v for k, v in node.items() if k != "tags"}
    path = tmp_path / "twice.json"
    for elements in (pois + pois[:40], [bare, *pois], [*pois, bare]):
        path.write_text(json.dumps({"elements": elements}))
        assert overpass_file._simple_records(elements, None) is None  # (the general way)
        for keep in keeps:
            outcome = _same(path, keep)
            assert isinstance(outcome, tuple)
            assert len({r[:2] for r in outcome[0]}) == len(outcome[0])


def test_water_in_the_middle_of_an_ordinary_file(tmp_path, keeps, monkeypatch):
    """Geometries past the first and last chunk: parsed whole, then read the general way."""
    monkeypatch.setattr(overpass_file, "_CHUNK", 4096)
    pois = json.loads((SIOUX / "pois.json").read_text())
    water = json.loads((SIOUX / "water.json").read_text())[:3]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"elements": pois[:300] + water + pois[300:]}))
    assert overpass_file._whole_elements(path) is not None  # (not turned away by the scan)
    outcomes = [_same(path, keep) for keep in keeps]
    assert outcomes[2][1] and outcomes[3][1]  # the water is read with_water / by geometry
    assert len(outcomes[1][0]) > 100


def test_every_wrong_element_reads_the_same_in_one_pass(tmp_path, keeps):
    """Each member of a real node and way made wrong in each way: same records or error."""
    good = json.loads((SIOUX / "pois.json").read_text())[:20]
    node = next(e for e in good if e["type"] == "node")
    way = next(e for e in json.loads((SIOUX / "pois.json").read_text()) if "center" in e)
    path = tmp_path / "variant.json"
    errors = 0
    for element in (node, way):
        for variant in _variants(element):
            try:
                path.write_text(json.dumps({"elements": [*good, variant]}))
            except ValueError:
                continue
            for keep in keeps[:2]:
                errors += _same(path, keep)[0] == "error"
    assert errors > 20
