"""One Overpass JSON file read in two halves on two cores (``stations_generator.app.read_in_two``).

Reading it in halves must give exactly what reading it whole gives -- the same elements
in the same order, the same candidate table, the same output bytes -- and anything the
cut could get wrong (a cut outside the element list, a byte that makes the whole file
invalid, a duplicated element across the halves) must either read the same or give up
(None), never give other elements.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import SIOUX

import stations_generator.app.read_in_two as rit
from stations_generator import parse_play_window
from stations_generator.core.stationmap.candidates import (
    candidate_rows,
    candidate_table,
    table_of_rows,
)
from stations_generator.osm import overpass
from stations_generator.osm.overpass import read_simple_document, split_in_two
from stations_generator.osm.sources import json_element_filter

DATA = Path(__file__).parent / "data" / "overpass"
WINDOW = parse_play_window("7am-7pm", "sat,sun")


@pytest.fixture(scope="module")
def envelope() -> bytes:
    """Every Sioux Falls element in the envelope Overpass writes (its header, 2-space
    indents), from the recorded response's header and the bundled example's elements."""
    recorded = json.loads((DATA / "sioux-falls-pois-subset.json").read_text())
    recorded["elements"] = json.loads((SIOUX / "pois.json").read_text())
    return json.dumps(recorded, indent=2, ensure_ascii=False).encode()


@pytest.fixture(scope="module")
def bare() -> bytes:
    """The bundled example as it is: a bare list of elements on one line."""
    return (SIOUX / "pois.json").read_bytes()


def _halves_read(content: bytes, at: float, keep=None) -> list | None:
    halves = split_in_two(content, at)
    if halves is None:
        return None
    first, second = halves.read_first(keep), halves.read_second(keep)
    if first is None or second is None:
        return None
    return first["elements"] + second["elements"]


@pytest.mark.parametrize("form", ["envelope", "bare"])
@pytest.mark.parametrize("at", [0.05, 0.3, 0.5, 0.52, 0.77, 0.95])
def test_the_halves_hold_the_documents_elements_in_order(form, at, request):
    content = request.getfixturevalue(form)
    whole = read_simple_document(content, None)
    assert whole is not None and len(whole["elements"]) > 500
    read = _halves_read(content, at)
    assert read == whole["elements"]
    halves = split_in_two(content, at)
    # The cut is near where it was asked for, between two elements.
    assert abs(halves.cut / len(content) - at) < 0.01
    assert content[halves.cut - 1 : halves.cut] == b"}"
    assert content[halves.resume : halves.resume + 1] == b"{"


def test_the_keep_filter_applies_to_each_half(bare, catalogue):
    def parks(element):
        return element.get("tags", {}).get("leisure") == "park"

    for keep in (json_element_filter(catalogue), parks):
        whole = read_simple_document(bare, keep)
        assert _halves_read(bare, 0.5, keep) == whole["elements"]
    assert 0 < len(whole["elements"]) < len(json.loads(bare))  # parks: some dropped


def test_a_response_with_a_remark_after_its_elements_is_not_cut():
    content = (DATA / "runtime-error-remark.json").read_bytes()
    assert b'"remark"' in content[content.rindex(b"]") :]
    assert split_in_two(content, 0.1) is None


def test_a_cut_in_a_list_after_the_elements_gives_up(envelope):
    # Another top-level list of element-like objects after "elements": the whole file's
    # elements are only the first list's, and a cut in the second list must not read.
    doc = json.loads(envelope)
    tail = doc["elements"][: len(doc["elements"]) * 3]
    doc = {"elements": doc["elements"][:50], "other": tail * 3}
    content = json.dumps(doc, indent=2).encode()
    whole = read_simple_document(content, None)
    assert len(whole["elements"]) == 50
    halves = split_in_two(content, 0.5)
    assert halves is not None and halves.cut > content.index(b'"other"')
    assert halves.read_first(None) is None
    assert _halves_read(content, 0.5) is None


def test_text_that_looks_like_a_cut_inside_a_string_is_never_cut(bare):
    elements = json.loads(bare)
    middle = len(elements) // 2
    # A name holding the very text between two elements: inside a JSON string its quote
    # is escaped, so the cut cannot be there.
    elements[middle]["tags"]["name"] = 'Odd }, {"type": "node", "id": 1} name'
    content = json.dumps(elements).encode()
    for at in (0.49, 0.5, 0.51):
        assert _halves_read(content, at) == read_simple_document(content, None)["elements"]


def test_a_byte_json_does_not_allow_between_elements_is_never_dropped(bare):
    # Form feed is blank to a regular expression's \s but not to JSON: the whole file is
    # invalid, so the halves must not read as if it were not there.
    cut = split_in_two(bare, 0.5)
    spoiled = bare[: cut.resume] + b"\x0c" + bare[cut.resume :]
    assert read_simple_document(spoiled, None) is None
    for at in (0.3, 0.5, 0.7):
        assert _halves_read(spoiled, at) is None


def test_a_second_elements_member_in_the_second_half_gives_up(bare):
    elements = json.loads(bare)
    elements[-1]["tags"]["note"] = "elements"
    content = json.dumps(elements).encode()
    # The whole-file reader takes a second "elements" for a repeated member and streams
    # the file instead; the halves give up alike.
    assert _halves_read(content, 0.5) is None


def test_an_element_of_another_shape_in_either_half_gives_up(bare):
    elements = json.loads(bare)
    for where in (10, len(elements) - 10):
        changed = [dict(e) for e in elements]
        changed[where]["members"] = [{"type": "node", "ref": 1, "role": ""}]
        content = json.dumps(changed).encode()
        assert read_simple_document(content, None) is None
        assert _halves_read(content, 0.5) is None


def test_tables_of_consecutive_pieces_are_the_table_of_the_whole(sioux_data, catalogue):
    elements = sioux_data.elements
    third = len(elements) // 3
    assert third > 100
    whole = candidate_table(elements, catalogue, WINDOW)
    # In order (as Overpass writes), out of order, and with every element read twice.
    cases = {
        "in order": [elements[:third], elements[third:]],
        "out of order": [elements[2 * third :], elements[: 2 * third]],
        "three pieces": [elements[:third], elements[third : 2 * third], elements[2 * third :]],
        "duplicated": [elements, elements],
        "duplicated, shuffled": [elements[::2] + elements[1::2], elements[::-1]],
    }
    for label, pieces in cases.items():
        joined = candidate_table([e for p in pieces for e in p], catalogue, WINDOW)
        merged = table_of_rows(*(candidate_rows(p, catalogue, WINDOW) for p in pieces))
        assert list(merged.columns) == list(joined.columns), label
        for name in joined.columns:
            assert np.array_equal(np.asarray(merged[name]), np.asarray(joined[name])), (
                label,
                name,
            )
        if label in ("in order", "duplicated"):
            assert len(merged) == len(whole)
            assert np.array_equal(np.asarray(merged["id"]), np.asarray(whole["id"]))


def _same_table(a, b) -> None:
    assert list(a.columns) == list(b.columns)
    for name in a.columns:
        assert np.array_equal(np.asarray(a[name]), np.asarray(b[name])), name


@pytest.mark.parametrize("form", ["envelope", "bare"])
def test_the_candidates_read_in_two_are_those_read_whole(
    form, request, tmp_path, monkeypatch, catalogue
):
    content = request.getfixturevalue(form)
    path = tmp_path / "pois.json"
    path.write_bytes(content)
    monkeypatch.setattr(rit, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(rit, "can_fork", lambda: True)  # (one core: the child's half runs here)
    read = rit.read_candidates_in_two(path, catalogue, WINDOW)
    assert read is not None
    raw = overpass.read_overpass_json_file(path, keep=json_element_filter(catalogue))
    elements, _ = overpass.parse_overpass(raw, path.name)
    _same_table(read.candidates, candidate_table(elements, catalogue, WINDOW))
    assert read.objects == len(elements)
    lons, lats = [e.lon for e in elements], [e.lat for e in elements]
    assert read.extent == (min(lons), min(lats), max(lons), max(lats))
    assert read.corners == [(min(lons), min(lats)), (max(lons), max(lats))]
    # The coverage check sees the same data extent from the corners as from every object:
    # a play area beside the data, or with latitude and longitude swapped, gets the same
    # one-line error.
    from shapely.geometry import box

    from stations_generator.core.geo.coverage import check_coverage
    from stations_generator.errors import NoDataError

    beside = box(max(lons) + 0.01, min(lats), max(lons) + 0.2, max(lats))
    swapped = box(min(lats), min(lons), max(lats), max(lons))
    for area in (beside, swapped):
        said = []
        for points in (read.corners, list(zip(lons, lats, strict=True))):
            with pytest.raises(NoDataError) as error:
                check_coverage(area, [path], points)
            said.append(str(error.value))
        assert said[0] == said[1]
    assert "swapped" in said[1]


def test_files_it_does_not_read_in_two(tmp_path, monkeypatch, catalogue, bare):
    monkeypatch.setattr(rit, "can_fork", lambda: True)
    small = tmp_path / "small.json"
    small.write_bytes(bare)
    assert len(bare) < rit.SPLIT_MIN_BYTES  # the bundled example is read whole
    assert rit.read_candidates_in_two(small, catalogue, WINDOW) is None
    monkeypatch.setattr(rit, "SPLIT_MIN_BYTES", 0)
    # Water with its geometry (not an ordinary file), a response cut short by a runtime
    # error, a file that is not there: each read the ordinary way.
    for path in (SIOUX / "water.json", DATA / "runtime-error-remark.json", tmp_path / "no.json"):
        assert rit.read_candidates_in_two(path, catalogue, WINDOW) is None, path.name
    # More elements in all than a file may hold (each half within it): read whole, the
    # file is streamed and the limit words the error.
    read = rit.read_candidates_in_two(small, catalogue, WINDOW)
    assert read is not None and read.objects == len(json.loads(bare))
    monkeypatch.setattr(overpass, "MAX_KEPT_ELEMENTS", read.objects - 1)
    assert rit.read_candidates_in_two(small, catalogue, WINDOW) is None
    monkeypatch.setattr(overpass, "MAX_KEPT_ELEMENTS", read.objects)
    assert rit.read_candidates_in_two(small, catalogue, WINDOW) is not None
    monkeypatch.setattr(rit, "can_fork", lambda: False)
    assert rit.read_candidates_in_two(small, catalogue, WINDOW) is None


def test_generate_writes_the_same_bytes_from_a_file_read_in_two(
    tmp_path, monkeypatch, envelope, bare
):
    from click.testing import CliRunner

    import stations_generator.app.generate as gen
    from stations_generator.cli import main

    read_in_two: list[bool] = []

    def counted(path, catalogue, window):
        found = rit.read_candidates_in_two(path, catalogue, window)
        read_in_two.append(found is not None)
        return found

    monkeypatch.setattr(gen, "read_candidates_in_two", counted)
    monkeypatch.setattr(rit, "can_fork", lambda: True)
    # Every element twice, each time in the same half: read in two as read whole.
    elements = json.loads(bare)
    half = len(elements) // 2
    twice = elements[:half] * 2 + elements[half:] * 2
    doubled = json.dumps(twice).encode()
    boundary = len(json.dumps(elements[:half] * 2)) - 2  # the first copies' last "}"
    monkeypatch.setattr(rit, "CUT_AT", (boundary + 0.5) / len(doubled))
    assert split_in_two(doubled, rit.CUT_AT).cut == boundary + 1
    for label, content in (("envelope", envelope), ("doubled", doubled)):
        osm = tmp_path / f"{label}.json"
        osm.write_bytes(content)
        args = [
            "-v", "generate", str(SIOUX / "polygon.geojson"), "--osm", str(osm), "--explain",
        ]  # fmt: skip
        runs = {}
        for split, threshold in (("whole", 10**12), ("in two", 0)):
            monkeypatch.setattr(rit, "SPLIT_MIN_BYTES", threshold)
            out = tmp_path / f"{label}-{split.replace(' ', '-')}"
            result = CliRunner().invoke(main, [*args, "-o", str(out)], catch_exceptions=False)
            assert result.exit_code == 0, result.output
            summary = result.output.replace(str(out), "OUT")
            runs[split] = ({p.name: p.read_bytes() for p in sorted(out.iterdir())}, summary)
        assert runs["in two"] == runs["whole"], label
        # (-v: the summary's "read N OSM objects" line counts both halves' objects)
        assert re.search(r"read [1-9]\d* OSM objects", runs["in two"][1])
    # The whole runs did not split (threshold), the others did.
    assert read_in_two == [False, True, False, True]


def test_an_object_in_both_halves_is_read_whole(tmp_path, monkeypatch, catalogue, bare):
    # Read whole, the listings of one object are merged into one element (the first's
    # values winning, the others' filling in): halves read apart cannot do that.
    elements = json.loads(bare)
    path = tmp_path / "twice.json"
    path.write_text(json.dumps(elements + elements[:5]))
    monkeypatch.setattr(rit, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(rit, "can_fork", lambda: True)
    halves = split_in_two(path.read_bytes())
    assert halves.read_first(None) is not None and halves.read_second(None) is not None
    assert rit.read_candidates_in_two(path, catalogue, WINDOW) is None
