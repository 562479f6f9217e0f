"""Overpass JSON files parsed whole (orjson) read exactly as when streamed (ijson).

``read_overpass_json_file`` parses an ordinary file of up to
``WHOLE_PARSE_MAX_BYTES`` whole and streams anything else; both must give the same
elements (same values, same JSON types) or the same one-line error, on real files and
on real elements made wrong in each way the reader guards against.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from support.paths import DATA, SIOUX
from test_overpass_fast_check import _variants

from stations_generator.core.catalogue import load_catalogue
from stations_generator.errors import InputError
from stations_generator.osm import overpass_file
from stations_generator.osm.overpass_file import _read_whole, read_overpass_json_file
from stations_generator.osm.overpass_json import parse_overpass

REAL_FILES = (
    SIOUX / "pois.json",
    SIOUX / "water.json",
    DATA / "overpass" / "sioux-falls-pois-subset.json",
    DATA / "overpass" / "runtime-error-remark.json",
    DATA / "overpass" / "truncated.json",
)


def _typed(value: object) -> object:
    """``value`` with every number tagged by its type (1 and 1.0 differ; -0.0 and 0.0 too)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_typed(v) for v in value]
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def _outcome(path: Path, keep, monkeypatch: pytest.MonkeyPatch, whole: bool) -> object:
    monkeypatch.setattr(overpass_file, "WHOLE_PARSE_MAX_BYTES", 1 << 40 if whole else -1)
    try:
        read = read_overpass_json_file(path, keep=keep)
    except InputError as exc:
        return ("error", str(exc))
    assert read.simple is (whole and _read_whole(path, keep) is not None)
    # And parsed (the whole parse's elements skip checks they already passed): the
    # same records, water, or error.
    try:
        elements, water = parse_overpass(read)
        parsed = ([(e.osm_type, e.osm_id, e.lat, e.lon, e.tags) for e in elements], water)
    except InputError as exc:
        parsed = ("error", str(exc))
    return {**_typed(dict(read)), "parsed": _typed(parsed)}


def _both(path: Path, monkeypatch: pytest.MonkeyPatch, keep=None) -> object:
    whole = _outcome(path, keep, monkeypatch, whole=True)
    streamed = _outcome(path, keep, monkeypatch, whole=False)
    assert whole == streamed
    return whole


@pytest.fixture(scope="module")
def keeps():
    catalogue = load_catalogue()
    return lambda element: bool(element.get("tags")) and catalogue.keeps(element["tags"])


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_real_files_read_the_same_whole_and_streamed(path, keeps, monkeypatch):
    for keep in (None, keeps):
        outcome = _both(path, monkeypatch, keep)
        if path.name in ("pois.json", "sioux-falls-pois-subset.json"):
            assert isinstance(outcome, dict) and len(outcome["elements"]) >= 20


def test_ordinary_files_are_parsed_whole_and_others_streamed(tmp_path, keeps):
    # The POI files (nodes, and ways with their centre) take the whole parse...
    for path in (SIOUX / "pois.json", DATA / "overpass" / "sioux-falls-pois-subset.json"):
        whole = _read_whole(path, keeps)
        assert whole is not None and whole["elements"]
        assert whole["elements"] == read_overpass_json_file(path, keep=keeps)["elements"]
    # ... geometries, remarks, a truncated file, a byte-order mark and a repeated
    # "elements" member go to the streaming reader.
    assert _read_whole(SIOUX / "water.json", None) is None
    assert _read_whole(DATA / "overpass" / "runtime-error-remark.json", None) is None
    assert _read_whole(DATA / "overpass" / "truncated.json", None) is None
    text = (DATA / "overpass" / "sioux-falls-pois-subset.json").read_bytes()
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + text)
    assert _read_whole(bom, None) is None
    assert read_overpass_json_file(bom)["elements"] == json.loads(text)["elements"]
    elements = json.loads(text)["elements"]
    twice = tmp_path / "twice.json"
    twice.write_text(
        '{"elements": '
        + json.dumps(elements[:3])
        + ', "elements": '
        + json.dumps(elements[3:6])
        + "}"
    )
    assert _read_whole(twice, None) is None
    assert len(read_overpass_json_file(twice)["elements"]) == 6  # every copy, as streamed


def _real_elements() -> list[dict]:
    pois = json.loads((SIOUX / "pois.json").read_text())
    node = next(e for e in pois if e["type"] == "node" and e.get("tags"))
    way = next(e for e in pois if e["type"] == "way" and "center" in e)
    water = json.loads((SIOUX / "water.json").read_text())[0]
    return [node, way, water]


def test_every_wrong_element_reads_the_same_whole_and_streamed(tmp_path, keeps, monkeypatch):
    """Each field of real elements made wrong (types, NaN, ranges, missing): same result."""
    good = json.loads((SIOUX / "pois.json").read_text())[:20]
    path = tmp_path / "variant.json"
    outcomes = {"error": 0, "read": 0}
    for element in _real_elements():
        for variant in _variants(element):
            try:
                text = json.dumps({"elements": [*good, variant]})
            except ValueError:
                continue
            path.write_text(text)
            for keep in (None, keeps):
                outcome = _both(path, monkeypatch, keep)
                outcomes["read" if isinstance(outcome, dict) else "error"] += 1
    assert outcomes["error"] > 50 and outcomes["read"] > 50  # both sides were exercised


@pytest.mark.parametrize(
    "raw",
    [
        '"id": 123456789012345678901234567890',  # beyond 64 bits: orjson would make it a float
        '"lat": 1e400',  # overflows a float
        '"lat": NaN',
        '"tags": {"name": "\\ud800"}',  # a lone surrogate
        '"tags": {"name": "Caf\\u00e9", "amenity": "cafe", "level": 12345678901234567890123}',
        '"lat": -0.0',
        '"lat": 43',
    ],
)
def test_number_and_text_edge_cases_read_the_same(tmp_path, raw, keeps, monkeypatch):
    element = copy.deepcopy(_real_elements()[0])  # a real node, one member written by hand
    element.pop(raw.split(":")[0].strip('"'), None)
    path = tmp_path / "edge.json"
    path.write_text('{"elements": [' + json.dumps(element)[:-1] + ", " + raw + "}]}")
    for keep in (None, keeps):
        _both(path, monkeypatch, keep)
