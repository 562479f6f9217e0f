"""Point tables (core/pointtable.py): the pandas-free form of the station map, and its
GeoDataFrame form at the edges, on the real Sioux Falls data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stations_generator import parse_play_window
from stations_generator.core.stationmap.build import STATION_COLUMNS, build_station_map
from stations_generator.core.stationmap.candidates import CANDIDATE_COLUMNS, candidate_table
from stations_generator.core.stationmap.pointtable import PointTable, text_column


@pytest.fixture(scope="module")
def sioux_table(sioux_data, catalogue):
    return candidate_table(sioux_data.elements, catalogue, parse_play_window("7am-7pm", "sat,sun"))


@pytest.fixture(scope="module")
def sioux_map(sioux_area, sioux_table, sioux_data):
    return build_station_map(sioux_area, sioux_table, water=sioux_data.water)


def test_the_candidate_frame_is_the_table_in_frame_form(sioux_table, sioux_candidates):
    frame = sioux_candidates
    assert list(frame.columns) == [*CANDIDATE_COLUMNS, "geometry"]
    assert frame.crs.to_epsg() == 4326
    assert len(frame) == len(sioux_table) > 600
    for name in ("osm_id", "priority", "quality"):
        assert frame[name].dtype == np.int64, name
    assert frame["transit"].dtype == bool
    assert frame["id"].tolist() == sioux_table["id"].tolist()
    assert frame.geometry.x.tolist() == sioux_table.lon.tolist()
    assert frame.geometry.y.tolist() == sioux_table.lat.tolist()
    # And back: a frame read into a table and out again is the same frame.
    pd.testing.assert_frame_equal(PointTable.from_frame(frame).to_frame(), frame)


def test_a_frame_keeps_its_column_order_through_a_table(sioux_candidates):
    frame = sioux_candidates.iloc[:40].reset_index(drop=True)
    frame.insert(0, "note", text_column([f"n{i}" for i in range(len(frame))]))
    frame = frame[["note", "id", "geometry", "name", "osm_id"]]
    table = PointTable.from_frame(frame)
    assert table.geometry_at == 2 and list(table) == ["note", "id", "name", "osm_id"]
    pd.testing.assert_frame_equal(table.to_frame(), frame)
    # Only some columns: geometry goes last.
    assert list(table.to_frame(["osm_id", "id"]).columns) == ["osm_id", "id", "geometry"]


def test_take_and_with_columns(sioux_table):
    rows = np.array([5, 0, 5, 3])
    taken = sioux_table.take(rows)
    assert len(taken) == 4
    assert taken["id"].tolist() == [sioux_table["id"][i] for i in rows]
    assert taken.lon.tolist() == [sioux_table.lon[i] for i in rows]
    mask = sioux_table["transit"]
    assert len(sioux_table.take(mask)) == int(mask.sum()) > 0
    marked = taken.with_columns(mark=np.arange(4))
    assert list(marked)[-1] == "mark" and "mark" not in taken
    assert marked["mark"].tolist() == [0, 1, 2, 3]


def test_a_map_from_the_table_equals_one_from_the_frame(
    sioux_area, sioux_candidates, sioux_data, sioux_map
):
    from_frame = build_station_map(sioux_area, sioux_candidates, water=sioux_data.water)
    pd.testing.assert_frame_equal(from_frame.stations, sioux_map.stations)
    pd.testing.assert_frame_equal(from_frame.candidates, sioux_map.candidates)


def test_the_station_frame_is_the_kept_candidates_by_cluster_then_id(sioux_map):
    """The stations, as pandas would pick and sort them from the candidates."""
    stations = sioux_map.stations
    assert list(stations.columns) == [*STATION_COLUMNS, "geometry"]
    cands = sioux_map.candidates
    kept = cands[cands["status"] == "kept"].sort_values(["cluster_id", "id"], kind="stable")
    assert len(stations) == len(sioux_map.station_table) > 50
    assert stations["id"].tolist() == kept["id"].tolist()
    assert stations.geometry.x.tolist() == kept.geometry.x.tolist()
    for name in STATION_COLUMNS:
        assert stations[name].tolist() == kept[name].tolist(), name
    assert sioux_map.cluster_count == kept["cluster_id"].nunique()
    # The frame is made once; a caller's change to it stays.
    assert sioux_map.stations is stations


def test_candidates_are_best_ranked_first_with_their_fate(sioux_map):
    cands = sioux_map.candidates
    assert list(cands.columns[: len(CANDIDATE_COLUMNS) + 1]) == [*CANDIDATE_COLUMNS, "geometry"]
    assert set(cands["status"]) == {"kept", "rejected"}
    assert (cands.loc[cands["status"] == "kept", "reason"] == "").all()
    assert (cands.loc[cands["status"] == "rejected", "reason"] != "").all()
    # Best ranked first: known-closed non-transit candidates only after the others, and
    # the priority tiers ascending among the open ones.
    closed = ((cands["open_during_play"] == "no") & ~cands["transit"]).to_numpy(int)
    assert (np.diff(closed) >= 0).all()
    open_rows = len(cands) - int(closed.sum())
    assert (np.diff(cands["priority"].to_numpy()[:open_rows]) >= 0).all()


def test_writers_read_the_table_as_they_read_its_frame(sioux_map):
    """Station records (what the GeoJSON, CSV and KML writers read) are the same from a
    table and from its frame, for the stations and for every candidate field."""
    from stations_generator.formats import geojson

    fields = (*geojson.STATION_PROPERTIES, *geojson._CANDIDATE_EXTRA)
    for table, frame in (
        (sioux_map.station_table, sioux_map.stations),
        (sioux_map.candidate_table, sioux_map.candidates),
    ):
        assert geojson.station_records(table, fields) == geojson.station_records(frame, fields)


def test_a_column_of_mixed_values_is_normalised_value_by_value(sioux_map):
    """Whole-column shortcuts apply only to all-text or all-int columns; anything else
    (a float cluster id, a missing name, a number where text is due) is made plain one
    value at a time, as before."""
    from stations_generator.formats import geojson

    table = sioux_map.station_table.take(np.arange(3))
    cluster = np.array([2.0, float("nan"), 7], dtype=object)
    name = np.array([None, 12, "Café"], dtype=object)
    records = geojson.station_records(table.with_columns(cluster_id=cluster, name=name))
    by_id = {r.properties["id"]: r.properties for r in records}
    first, second, third = (by_id[i] for i in table["id"].tolist())
    assert type(first["cluster_id"]) is int and first["cluster_id"] == 2
    assert second["cluster_id"] is None and third["cluster_id"] == 7
    assert (first["name"], second["name"], third["name"]) == ("", "12", "Café")
    # A missing cluster sorts last.
    assert records[-1].properties["cluster_id"] is None
