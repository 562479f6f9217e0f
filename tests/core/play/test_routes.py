"""Routes on real station maps: finding stations, validating routes, mid-route changes."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from support.paths import EXTRACTS, REPO, SIOUX

from stations_generator.cli import main
from stations_generator.core.play.routes import (
    Station,
    change_route,
    declare_route,
    end_route_at,
    find_station,
    normalise_name,
    plan_itinerary,
    split_itinerary,
    validate_route,
)
from stations_generator.errors import InputError
from stations_generator.formats.stationfile import parse_station_map, read_station_map

HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"


def generate(*args) -> None:
    result = CliRunner().invoke(main, ["-q", "generate", *map(str, args)], catch_exceptions=False)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def helsinki(helsinki_stations_file):
    return read_station_map(helsinki_stations_file)


@pytest.fixture(scope="module")
def sioux(tmp_path_factory):
    out = tmp_path_factory.mktemp("sioux")
    zone = REPO / "zones" / "sioux-falls.geojson"
    generate(zone, "--osm", SIOUX / "pois.json", "--water", SIOUX / "water.json", "-o", out)
    return read_station_map(out / "stations.geojson")


def by_name(stations, name) -> Station:
    return next(s for s in stations if s.name == name)


def test_station_file_reads_what_generate_writes(helsinki):
    stations = helsinki.stations
    assert len(stations) >= 15
    assert {s.density_tier for s in stations} == {"dense", "moderate", "sparse"}
    for s in stations:
        assert s.id.split("/")[0] in {"node", "way", "relation"}
        assert 0 < s.wait_min < s.wait_max
        assert 24.93 < s.lon < 24.96 and 60.16 < s.lat < 60.18
    assert helsinki.play_area is not None and helsinki.play_area.area > 0
    assert helsinki.metadata["game_size"] == "S"


def test_find_by_id_and_name(helsinki):
    stations = helsinki.stations
    station = by_name(stations, "Rautatientori")
    assert find_station(station.id, stations).station == station
    assert find_station(station.id.upper(), stations).kind == "id"
    assert find_station("rautatientori", stations).kind == "name"
    # Accents and case do not matter.
    assert normalise_name("  Eteläranta ") == "etelaranta"
    assert find_station("ETELARANTA", stations).station.name == "Eteläranta"


def test_fuzzy_and_partial_names(helsinki):
    stations = helsinki.stations
    typo = find_station("Rautatietori", stations)
    assert (typo.kind, typo.station.name) == ("fuzzy", "Rautatientori")
    part = find_station("Amos", stations)
    assert (part.kind, part.station.name) == ("part", "Amos Rex")
    word = find_station("Kaisaniemi", stations)
    assert word.station.name.startswith("Kaisaniemen")


def test_unknown_name_lists_close_matches(helsinki):
    with pytest.raises(InputError) as err:
        find_station("Frederiksgatan", helsinki.stations)
    message = str(err.value)
    assert "\n" not in message
    assert "no station 'Frederiksgatan'" in message
    assert "Fredrikinkatu (node/" in message
    with pytest.raises(InputError, match="no close name"):
        find_station("Zzzz", helsinki.stations)


def test_ambiguous_names_list_the_candidates_with_ids(helsinki, sioux):
    with pytest.raises(InputError) as err:
        find_station("kat", helsinki.stations)
    assert "matches" in str(err.value) and "give the id" in str(err.value)
    # The real Sioux Falls map has several stations named "Starbucks".
    starbucks = [s for s in sioux.stations if s.name == "Starbucks"]
    assert len(starbucks) >= 2
    with pytest.raises(InputError) as err:
        find_station("starbucks", sioux.stations)
    for s in starbucks[:5]:
        assert s.id in str(err.value)
    # ...and each one is reachable by its id.
    assert find_station(starbucks[0].id, sioux.stations).station == starbucks[0]


def test_unnamed_stations_are_found_by_id_only(sioux):
    unnamed = [s for s in sioux.stations if not s.name]
    assert unnamed
    assert find_station(unnamed[0].id, sioux.stations).station == unnamed[0]
    with pytest.raises(InputError):
        find_station("", sioux.stations)


def test_declare_and_validate_routes(helsinki):
    stations = helsinki.stations
    route, matches = declare_route(["Rautatientori", "Kiasma", "Hakaniemi"], stations)
    assert [s.name for s in route.stations] == ["Rautatientori", "Kiasma", "Hakaniemi"]
    assert route.origin.name == "Rautatientori"
    assert route.destination.name == "Hakaniemi"
    assert [s.name for s in route.stops] == ["Kiasma", "Hakaniemi"]
    assert len(route.legs) == 2
    assert [m.kind for m in matches] == ["name", "name", "name"]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["Rautatientori"], "at least 2 stations"),
        (["Rautatientori", "Kiasma", "Rautatientori"], "on the route twice"),
        (["Kiasma", "Kiasma"], "on the route twice"),
    ],
)
def test_invalid_routes(helsinki, names, message):
    with pytest.raises(InputError, match=message) as err:
        declare_route(names, helsinki.stations)
    assert "\n" not in str(err.value)


def test_route_stations_must_be_on_the_map(helsinki, sioux):
    outsider = sioux.stations[0]
    with pytest.raises(InputError, match="not a station of this map"):
        validate_route([helsinki.stations[0], outsider], known=helsinki.stations)
    with pytest.raises(InputError, match="at least 2"):
        validate_route([])


def test_mid_route_change(helsinki):
    stations = helsinki.stations
    route, _ = declare_route(["Rautatientori", "Kiasma", "Hakaniemi"], stations)
    kiasma, etelaranta = by_name(stations, "Kiasma"), by_name(stations, "Eteläranta")
    ended, new = change_route(route, [kiasma, etelaranta])
    assert [s.name for s in ended.stations] == ["Rautatientori", "Kiasma"]
    assert ended.destination == kiasma and new.origin == kiasma
    with pytest.raises(InputError, match="where the route starts"):
        end_route_at(route, route.origin)
    with pytest.raises(InputError, match="not on the route"):
        end_route_at(route, etelaranta)


def test_itinerary_of_consecutive_routes(helsinki):
    stations = helsinki.stations
    groups = split_itinerary(["Rautatientori", "Kiasma", "Hakaniemi", "/", "Kiasma", "Eteläranta"])
    assert groups == [["Rautatientori", "Kiasma", "Hakaniemi"], ["Kiasma", "Eteläranta"]]
    items, _ = plan_itinerary(groups, stations)
    assert [s.name for s in items[0].route.stations] == ["Rautatientori", "Kiasma"]
    assert [s.name for s in items[0].dropped] == ["Hakaniemi"]
    assert [s.name for s in items[1].route.stations] == ["Kiasma", "Eteläranta"]
    # Following on at the destination drops nothing.
    items, _ = plan_itinerary([["Rautatientori", "Kiasma"], ["Kiasma", "Hakaniemi"]], stations)
    assert items[0].dropped == ()
    with pytest.raises(InputError, match="not a stop of route 1"):
        plan_itinerary([["Rautatientori", "Kiasma"], ["Hakaniemi", "Eteläranta"]], stations)
    with pytest.raises(InputError, match="empty route"):
        split_itinerary(["Rautatientori", "/", "/", "Kiasma"])


def test_station_file_errors(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read_station_map(tmp_path / "missing.geojson")
    not_json = tmp_path / "stations.geojson"
    not_json.write_text("{ nope")
    with pytest.raises(InputError, match="not JSON"):
        read_station_map(not_json)
    # A play-area file is GeoJSON but not a station map.
    with pytest.raises(InputError, match="no station features"):
        read_station_map(REPO / "zones" / "sioux-falls.geojson")
    with pytest.raises(InputError, match="not a GeoJSON FeatureCollection"):
        parse_station_map([1, 2])
    bad = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {"role": "station", "id": "node/1", "wait_min": 30, "wait_max": 5},
                "geometry": {"type": "Point", "coordinates": [24.9, 60.1]},
            }
        ],
    }
    with pytest.raises(InputError, match="wait range 30-5"):
        parse_station_map(bad)
