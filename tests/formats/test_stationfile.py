"""Station maps (``stations.geojson``) are checked by their schema alone: every bad value
is one line naming the JSON path and the fix, and a map as written reads back whole."""

from __future__ import annotations

import copy
import json
import math

import pytest

from stations_generator.errors import InputError
from stations_generator.formats.stationfile import parse_station_map, read_station_map

FIX = "regenerate the map with stations-generator generate"


def _station(number: int, **props) -> dict:
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [-96.73 + number / 100, 43.55]},
        "properties": {
            "role": "station",
            "id": f"node/{number}",
            "name": f"Stop {number}",
            "wait_min": 5,
            "wait_max": 20,
            "category": "bus_stop",
            "cluster_id": None,
            "osm_id": number,
            **props,
        },
    }


def _map(*stations: dict) -> dict:
    square = [[-96.8, 43.5], [-96.6, 43.5], [-96.6, 43.6], [-96.8, 43.6], [-96.8, 43.5]]
    area = {
        "type": "Feature",
        "properties": {"role": "play_area"},
        "geometry": {"type": "Polygon", "coordinates": [square]},
    }
    return {
        "type": "FeatureCollection",
        "metadata": {"game_size": "M"},
        "features": [area, *(stations or (_station(1), _station(2)))],
    }


def _message(data) -> str:
    with pytest.raises(InputError) as info:
        parse_station_map(data, "stations.geojson")
    assert "\n" not in str(info.value)
    return str(info.value)


def test_a_map_reads_back_whole(tmp_path):
    path = tmp_path / "stations.geojson"
    path.write_text(json.dumps(_map()))
    read = read_station_map(path)
    assert [s.id for s in read.stations] == ["node/1", "node/2"]
    assert read.stations[0].wait_min == 5 and read.stations[0].name == "Stop 1"
    assert read.metadata == {"game_size": "M"} and read.play_area.area > 0


@pytest.mark.parametrize("bad", [None, "", "x", -1, 1441, 10.5, True, [], {}])
@pytest.mark.parametrize("key", ["wait_min", "wait_max"])
def test_a_wait_outside_whole_minutes_names_its_path(key, bad):
    message = _message(_map(_station(1, **{key: bad})))
    where = f"stations.geojson: $.features[1].properties.{key}"
    assert message.startswith(f"{where}: expected a whole number of minutes from 0 to 1440, such")


@pytest.mark.parametrize("key", ["id", "wait_min", "wait_max"])
def test_a_missing_property_names_the_fix(key):
    station = _station(1)
    del station["properties"][key]
    assert _message(_map(station)) == (
        f'stations.geojson: $.features[1].properties: "{key}" is missing; {FIX}'
    )


@pytest.mark.parametrize(
    "key,bad", [("id", ""), ("id", 7), ("name", 3), ("cluster_id", "a"), ("osm_id", 1.5)]
)
def test_a_property_of_the_wrong_kind_is_refused(key, bad):
    message = _message(_map(_station(1, **{key: bad})))
    assert message.startswith(f"stations.geojson: $.features[1].properties.{key}: expected ")


@pytest.mark.parametrize("bad", [None, "x", [1.0], [1, 2, 3, 4, 5], ["a", "b"], [math.nan, 1]])
def test_a_station_position_must_be_two_to_four_numbers(bad):
    station = _station(1)
    station["geometry"]["coordinates"] = bad
    message = _message(_map(station))
    assert message.startswith("stations.geojson: $.features[1].geometry.coordinates")


def test_a_station_must_be_a_point():
    station = _station(1)
    station["geometry"] = {"type": "LineString", "coordinates": [[1, 2], [3, 4]]}
    assert _message(_map(station)) == (
        'stations.geojson: $.features[1].geometry.type: expected a Point, got "LineString"'
    )


@pytest.mark.parametrize("key", ["name", "cluster_id", "osm_id", "density_tier"])
def test_non_finite_numbers_from_python_are_refused_even_where_null_is_allowed(key):
    assert _message(_map(_station(1, **{key: math.nan}))) == (
        f"stations.geojson: $.features[1].properties.{key}: NaN is not a finite number; "
        "JSON numbers must be finite"
    )


def test_features_other_than_stations_are_checked_too():
    data = _map()
    data["features"][0]["geometry"]["coordinates"] = [[[-96.8, "north"]]]
    assert _message(data).startswith(
        "stations.geojson: $.features[0].geometry.coordinates[0][0]: expected a position"
    )
    data = copy.deepcopy(_map())
    data["metadata"] = []
    assert _message(data) == "stations.geojson: $.metadata: expected an object, got an array"
