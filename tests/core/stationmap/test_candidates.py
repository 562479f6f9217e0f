"""The candidates table on real Sioux Falls elements, whatever order they come in."""

from __future__ import annotations

import random

import numpy as np
import pytest

from stations_generator import parse_play_window
from stations_generator.core.elements import OsmElement
from stations_generator.core.stationmap.candidates import CANDIDATE_COLUMNS, candidate_table

WINDOW = parse_play_window("7am-7pm", "sat,sun")


@pytest.fixture(scope="module")
def ordered(sioux_data, catalogue):
    return candidate_table(sioux_data.elements, catalogue, WINDOW)


def _assert_same(table, other) -> None:
    assert list(table.columns) == list(other.columns) == list(CANDIDATE_COLUMNS)
    for name in CANDIDATE_COLUMNS:
        assert table[name].dtype == other[name].dtype, name
        assert table[name].tolist() == other[name].tolist(), name
    assert table.lon.tolist() == other.lon.tolist() and table.lat.tolist() == other.lat.tolist()


def test_rows_are_ordered_by_type_then_id(ordered):
    types = ordered["osm_type"].tolist()
    keys = [
        ({"node": 0, "way": 1}.get(t, 2), i) for t, i in zip(types, ordered["osm_id"], strict=True)
    ]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert {"node", "way"} <= set(types)
    assert ordered["id"].tolist() == [
        f"{t}/{i}" for t, i in zip(types, ordered["osm_id"], strict=True)
    ]


def test_shuffled_and_repeated_elements_give_the_same_table(sioux_data, catalogue, ordered):
    elements = list(sioux_data.elements)
    shuffled = elements + elements[::3]  # (the same objects read twice, e.g. two files)
    random.Random(7).shuffle(shuffled)
    _assert_same(candidate_table(shuffled, catalogue, WINDOW), ordered)
    # Out of order only from the middle on: the rows before are kept as they came.
    half = len(elements) // 2
    late = elements[:half] + elements[half:][::-1] + elements[: half // 2]
    _assert_same(candidate_table(late, catalogue, WINDOW), ordered)


def test_the_first_of_a_repeated_id_is_kept(sioux_data, catalogue, ordered):
    first = next(e for e in sioux_data.elements if e.tags.get("name"))
    renamed = OsmElement(first.osm_type, first.osm_id, first.lat, first.lon, dict(first.tags))
    renamed.tags["name"] = "Renamed"
    for elements, name in (
        ([renamed, *sioux_data.elements], "Renamed"),
        ([*sioux_data.elements, renamed], first.tags["name"].strip()),
    ):
        table = candidate_table(elements, catalogue, WINDOW)
        assert len(table) == len(ordered)
        row = table["id"].tolist().index(f"{first.osm_type}/{first.osm_id}")
        assert table["name"][row] == name


def test_candidate_match_is_station_match_for_the_table(sioux_data, catalogue):
    seen = 0
    for element in sioux_data.elements:
        category, subjects = catalogue.station_match(element.tags)
        got = catalogue.candidate_match(element.tags)
        if category is None:
            assert got is None
            continue
        seen += 1
        assert got == (category.name, category.priority, category.transit, ",".join(subjects))
        assert catalogue.candidate_match(element.tags) is got  # memoised
    assert seen > 100
    assert catalogue.candidate_match({"amenity": ["unhashable"]}) is None


def test_numbers_and_text_have_their_types(ordered):
    assert ordered["osm_id"].dtype == np.int64 and ordered["transit"].dtype == bool
    assert ordered["name"].dtype == object
    assert all(type(v) is str for v in ordered["subjects"].tolist())
