"""A saved Overpass response's runtime-error ``remark`` refuses the file wherever it stands.

Overpass writes ``remark`` after ``elements``; a response re-serialised by another
tool may put it first. Either way the file holds an incomplete answer and is refused
with the same one-line message, while a remark that is not an error reads as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.paths import DATA

from stations_generator.core.catalogue import load_catalogue
from stations_generator.errors import InputError
from stations_generator.osm.overpass_file import read_overpass_json_file
from stations_generator.osm.sources import read_files

SUBSET = DATA / "overpass" / "sioux-falls-pois-subset.json"
# The remark of the recorded timed-out answer in tests/data/overpass.
RECORDED_REMARK = json.loads((DATA / "overpass" / "runtime-error-remark.json").read_text())[
    "remark"
]


def _write(path: Path, remark: str, first: bool) -> Path:
    """The real subset re-serialised with ``remark`` before or after its elements."""
    data = json.loads(SUBSET.read_text())
    elements = data.pop("elements")
    ordered = {**data, "remark": remark, "elements": elements}
    if not first:
        ordered = {**data, "elements": elements, "remark": remark}
    path.write_text(json.dumps(ordered, indent=1))
    return path


def _refusal(path: Path) -> str:
    with pytest.raises(InputError) as info:
        read_overpass_json_file(path)
    return str(info.value)


@pytest.mark.parametrize("indent", [None, 1])
def test_runtime_error_remark_first_is_refused_like_one_after(tmp_path: Path, indent) -> None:
    assert RECORDED_REMARK.lower().startswith("runtime error")
    path = tmp_path / "saved.json"
    after = _refusal(_write(path, RECORDED_REMARK, first=False))
    first_path = _write(path, RECORDED_REMARK, first=True)
    if indent is None:  # compact, as a tool that re-serialises might write it
        first_path.write_text(json.dumps(json.loads(first_path.read_text())))
    text = first_path.read_text()
    assert text.index('"remark"') < text.index('"elements"')
    first = _refusal(first_path)
    assert first == after
    assert "incomplete Overpass response" in first and str(path) in first
    assert "\n" not in first


def test_runtime_error_remark_first_stops_generate_input(tmp_path: Path) -> None:
    """The offline reader of ``generate`` refuses the file too (no partial station map)."""
    from shapely.geometry import box

    path = _write(tmp_path / "saved.json", RECORDED_REMARK, first=True)
    elements = json.loads(SUBSET.read_text())["elements"]
    lons = [e.get("lon", e.get("center", {}).get("lon")) for e in elements]
    lats = [e.get("lat", e.get("center", {}).get("lat")) for e in elements]
    area = box(min(lons), min(lats), max(lons), max(lats))
    with pytest.raises(InputError, match="incomplete Overpass response"):
        read_files([path], [], area, load_catalogue(), water=False)


def test_remark_that_is_no_error_reads_the_elements(tmp_path: Path) -> None:
    expected = json.loads(SUBSET.read_text())["elements"]
    for first in (True, False):
        read = read_overpass_json_file(_write(tmp_path / "saved.json", "note: data is old", first))
        assert read["elements"] == expected
        assert read["remark"] == "note: data is old"
