"""The Python API refuses bad arguments at its edge (issue "hostile inputs").

Every public verb and class of :mod:`stations_generator.api`, given a wrong argument
(None, a wrong type, a path/dict/polygon where another object belongs, NaN, inf, a
negative or zero number, a bool or float for an int, a string for a list, swapped
arguments), raises TypeError or ValueError whose one-line message names the parameter:
never an AttributeError or GEOSException from inside, never a silently wrong map. And
the forms a GIS user tries first are accepted: GeoDataFrames and GeoSeries in any CRS
as play areas, points as ``"LAT,LON"`` or ``(lat, lon)``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from shapely.geometry import Point, Polygon
from support.paths import REPO

import stations_generator as sg
from stations_generator import api

SIOUX = REPO / "zones" / "sioux-falls.geojson"
POIS = REPO / "examples" / "sioux-falls" / "pois.json"
GAME = REPO / "examples" / "helsinki-game" / "game.json"
#: Sioux Falls' UTM zone (14N): a projected CRS a GIS user's frame may come in.
SIOUX_UTM = "EPSG:32614"
NAN, INF = math.nan, math.inf


@pytest.fixture(scope="module")
def c(tmp_path_factory) -> SimpleNamespace:
    """The real objects the verbs take: Sioux Falls' area, data and map; the Helsinki game."""
    area = sg.read_play_area(SIOUX)
    osm = sg.load_osm(area, [POIS])
    game = sg.read_game(GAME)
    return SimpleNamespace(
        area=area,
        osm=osm,
        smap=sg.make_station_map(area, osm, search=0),
        game=game,
        result=sg.apply_game(game),
        out=tmp_path_factory.mktemp("out"),
        missing=tmp_path_factory.mktemp("gone") / "missing.geojson",
        station=game.stations[0],
    )


def _nan_polygon() -> Polygon:
    with warnings.catch_warnings():  # shapely's own "invalid value" while it builds it
        warnings.simplefilter("ignore", RuntimeWarning)
        return Polygon([(0.0, 0.0), (1.0, 0.0), (1.0, NAN), (0.0, 0.0)])


def _frame_without_crs(c: SimpleNamespace):
    import geopandas as gpd

    return gpd.GeoDataFrame(geometry=[c.area.polygon])


Call = Callable[[SimpleNamespace], Any]

#: (parameter the message must name, the call). Grouped by verb; each row one hostile
#: argument: None, a wrong type, an object swapped for another, a bad number or text.
CASES: list[tuple[str, Call]] = [
    # read_play_area
    ("source", lambda c: sg.read_play_area()),
    ("source", lambda c: sg.read_play_area(None)),
    ("source", lambda c: sg.read_play_area(5)),
    ("source", lambda c: sg.read_play_area([1.0, 2.0])),
    ("source", lambda c: sg.read_play_area(c.area)),
    ("source", lambda c: sg.read_play_area(c.missing)),
    ("source", lambda c: sg.read_play_area(str(c.missing))),
    ("source", lambda c: sg.read_play_area({"foo": 1})),
    ("source", lambda c: sg.read_play_area({"type": "Point", "coordinates": [9.5, 47.1]})),
    ("source", lambda c: sg.read_play_area(Point(9.5, 47.1))),
    ("source", lambda c: sg.read_play_area(_nan_polygon())),
    ("source", lambda c: sg.read_play_area(Polygon())),
    ("source", lambda c: sg.read_play_area(_frame_without_crs(c))),
    ("source", lambda c: sg.read_play_area(SIOUX, place="Sioux Falls")),
    ("place", lambda c: sg.read_play_area(place=5)),
    ("place", lambda c: sg.read_play_area(place="")),
    ("osm_relation", lambda c: sg.read_play_area(osm_relation="123abc")),
    ("osm_relation", lambda c: sg.read_play_area(osm_relation=-5)),
    ("osm_relation", lambda c: sg.read_play_area(osm_relation=True)),
    ("osm_relation", lambda c: sg.read_play_area(osm_relation=1.5)),
    ("exclude", lambda c: sg.read_play_area(SIOUX, exclude=str(SIOUX))),
    ("exclude", lambda c: sg.read_play_area(SIOUX, exclude=None)),
    ("exclude", lambda c: sg.read_play_area(SIOUX, exclude=[5])),
    ("exclude", lambda c: sg.read_play_area(SIOUX, exclude=[_nan_polygon()])),
    ("name", lambda c: sg.read_play_area(SIOUX, name=5)),
    ("overpass", lambda c: sg.read_play_area(osm_relation=1, overpass={"timeout": 5})),
    ("warn", lambda c: sg.read_play_area(SIOUX, warn="print")),
    # OverpassSettings and PlayArea (built by hand)
    ("timeout", lambda c: sg.OverpassSettings(timeout=NAN)),
    ("timeout", lambda c: sg.OverpassSettings(timeout=0)),
    ("timeout", lambda c: sg.OverpassSettings(timeout="300")),
    ("urls", lambda c: sg.OverpassSettings(urls="https://overpass.example/api")),
    ("cache_dir", lambda c: sg.OverpassSettings(cache_dir=5)),
    ("use_cache", lambda c: sg.OverpassSettings(use_cache="no")),
    ("polygon", lambda c: sg.PlayArea(str(SIOUX))),
    ("polygon", lambda c: sg.PlayArea(Point(1, 2))),
    ("exclusions", lambda c: sg.PlayArea(c.area.polygon, exclusions=[5])),
    ("name", lambda c: sg.PlayArea(c.area.polygon, name=None)),
    # load_osm
    ("area", lambda c: sg.load_osm(None, [POIS])),
    ("area", lambda c: sg.load_osm(SIOUX, [POIS])),
    ("area", lambda c: sg.load_osm(c.area.polygon, [POIS])),
    ("area", lambda c: sg.load_osm({"type": "Polygon"}, [POIS])),
    ("area", lambda c: sg.load_osm([POIS], c.area)),
    ("files", lambda c: sg.load_osm(c.area, str(POIS))),
    ("files", lambda c: sg.load_osm(c.area, None)),
    ("files", lambda c: sg.load_osm(c.area, [5])),
    ("files", lambda c: sg.load_osm(c.area, [c.missing])),
    ("water_files", lambda c: sg.load_osm(c.area, [POIS], water_files=str(POIS))),
    ("water", lambda c: sg.load_osm(c.area, [POIS], water="no")),
    ("categories", lambda c: sg.load_osm(c.area, [POIS], categories="museum")),
    ("categories", lambda c: sg.load_osm(c.area, [POIS], categories=["no-such-category"])),
    ("categories", lambda c: sg.load_osm(c.area, [POIS], categories=[5])),
    ("category_files", lambda c: sg.load_osm(c.area, [POIS], category_files="x.toml")),
    ("include_transit", lambda c: sg.load_osm(c.area, [POIS], include_transit=None)),
    ("overpass", lambda c: sg.load_osm(c.area, overpass=5)),
    # make_station_map: the objects
    ("area", lambda c: sg.make_station_map(c.osm, c.area)),
    ("area", lambda c: sg.make_station_map(c.area.polygon, c.osm)),
    ("area", lambda c: sg.make_station_map(None, c.osm)),
    ("osm", lambda c: sg.make_station_map(c.area, None)),
    ("osm", lambda c: sg.make_station_map(c.area, [POIS])),
    ("warn", lambda c: sg.make_station_map(c.area, c.osm, warn=5)),
    # make_station_map: the settings (every one; tests/app checks them against the CLI)
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing=NAN)),
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing=INF)),
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing=-300)),
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing=0)),
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing=1e12)),
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing="300")),
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing=None)),
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing=True)),
    ("min_spacing", lambda c: sg.make_station_map(c.area, c.osm, min_spacing=2000)),
    ("cluster_gap", lambda c: sg.make_station_map(c.area, c.osm, cluster_gap=NAN)),
    ("cluster_gap", lambda c: sg.make_station_map(c.area, c.osm, cluster_gap=-INF)),
    ("cluster_radius", lambda c: sg.make_station_map(c.area, c.osm, cluster_radius=-1)),
    ("cluster_radius", lambda c: sg.make_station_map(c.area, c.osm, cluster_radius=NAN)),
    ("max_per_cluster", lambda c: sg.make_station_map(c.area, c.osm, max_per_cluster=1.5)),
    ("max_per_cluster", lambda c: sg.make_station_map(c.area, c.osm, max_per_cluster=-1)),
    ("max_per_cluster", lambda c: sg.make_station_map(c.area, c.osm, max_per_cluster=True)),
    ("max_per_cluster", lambda c: sg.make_station_map(c.area, c.osm, max_per_cluster="3")),
    ("game_size", lambda c: sg.make_station_map(c.area, c.osm, game_size="XL")),
    ("game_size", lambda c: sg.make_station_map(c.area, c.osm, game_size=5)),
    ("density_radius", lambda c: sg.make_station_map(c.area, c.osm, density_radius=0)),
    ("density_radius", lambda c: sg.make_station_map(c.area, c.osm, density_radius=NAN)),
    ("tiers", lambda c: sg.make_station_map(c.area, c.osm, tiers=5)),
    ("tiers", lambda c: sg.make_station_map(c.area, c.osm, tiers="dense:x:1-2")),
    ("playing_hours", lambda c: sg.make_station_map(c.area, c.osm, playing_hours="25am-7pm")),
    ("playing_hours", lambda c: sg.make_station_map(c.area, c.osm, playing_hours=None)),
    ("playing_days", lambda c: sg.make_station_map(c.area, c.osm, playing_days="funday")),
    ("playing_days", lambda c: sg.make_station_map(c.area, c.osm, playing_days=["sat"])),
    ("play_date", lambda c: sg.make_station_map(c.area, c.osm, play_date="soon")),
    ("play_date", lambda c: sg.make_station_map(c.area, c.osm, play_date="2026-13-01")),
    ("play_date", lambda c: sg.make_station_map(c.area, c.osm, play_date=20260704)),
    ("water_subtract", lambda c: sg.make_station_map(c.area, c.osm, water_subtract="no")),
    ("strict_priority", lambda c: sg.make_station_map(c.area, c.osm, strict_priority=1)),
    ("optimize", lambda c: sg.make_station_map(c.area, c.osm, optimize="yes")),
    ("time_limit", lambda c: sg.make_station_map(c.area, c.osm, optimize=True, time_limit=NAN)),
    ("time_limit", lambda c: sg.make_station_map(c.area, c.osm, optimize=True, time_limit=0)),
    ("time_limit", lambda c: sg.make_station_map(c.area, c.osm, time_limit=5)),
    ("search", lambda c: sg.make_station_map(c.area, c.osm, search=-1)),
    ("search", lambda c: sg.make_station_map(c.area, c.osm, search=2.5)),
    ("search", lambda c: sg.make_station_map(c.area, c.osm, search=True)),
    ("search", lambda c: sg.make_station_map(c.area, c.osm, search=5, strict_priority=True)),
    # summary, write_station_map, map_html
    ("station_map", lambda c: sg.summary(None)),
    ("station_map", lambda c: sg.summary(c.area)),
    ("station_map", lambda c: sg.write_station_map(None, c.out)),
    ("station_map", lambda c: sg.write_station_map(c.out, c.smap)),
    ("output_dir", lambda c: sg.write_station_map(c.smap, None)),
    ("output_dir", lambda c: sg.write_station_map(c.smap, {"dir": "out"})),
    ("name", lambda c: sg.write_station_map(c.smap, c.out, name=5)),
    ("explain", lambda c: sg.write_station_map(c.smap, c.out, explain="yes")),
    ("html_map", lambda c: sg.write_station_map(c.smap, c.out, html_map=None)),
    ("palette", lambda c: sg.write_station_map(c.smap, c.out, palette="viridis")),
    ("palette", lambda c: sg.write_station_map(c.smap, c.out, html_map=True, palette=5)),
    ("result", lambda c: sg.map_html(None)),
    ("result", lambda c: sg.map_html(c.game)),
    ("result", lambda c: sg.map_html(c.area)),
    ("title", lambda c: sg.map_html(c.smap, title=5)),
    ("candidates", lambda c: sg.map_html(c.smap, candidates="no")),
    # read_game
    ("path", lambda c: sg.read_game(None)),
    ("path", lambda c: sg.read_game({"format": "stations-generator-game/1"})),
    ("path", lambda c: sg.read_game(c.game)),
    ("path", lambda c: sg.read_game(c.missing)),
    ("osm", lambda c: sg.read_game(GAME, osm=str(POIS))),
    ("osm", lambda c: sg.read_game(GAME, osm=[5])),
    ("play_area", lambda c: sg.read_game(GAME, play_area=5)),
    ("play_area", lambda c: sg.read_game(GAME, play_area=c.area)),
    ("stations", lambda c: sg.read_game(GAME, stations=c.smap)),
    ("overpass", lambda c: sg.read_game(GAME, overpass="https://overpass.example/api")),
    ("dem", lambda c: sg.read_game(GAME, dem=5)),
    ("dem", lambda c: sg.read_game(GAME, dem=c.missing)),
    ("warn", lambda c: sg.read_game(GAME, warn=5)),
    # apply_game, write_game_result
    ("game", lambda c: sg.apply_game(None)),
    ("game", lambda c: sg.apply_game(GAME)),
    ("game", lambda c: sg.apply_game({"questions": []})),
    ("game", lambda c: sg.apply_game(c.result)),
    ("warn", lambda c: sg.apply_game(c.game, warn=5)),
    ("result", lambda c: sg.write_game_result(None, c.out)),
    ("result", lambda c: sg.write_game_result(c.out, c.result)),
    ("result", lambda c: sg.write_game_result(c.game, c.out)),
    ("output_dir", lambda c: sg.write_game_result(c.result, None)),
    ("html_map", lambda c: sg.write_game_result(c.result, c.out, html_map="yes")),
    # check_zone
    ("game", lambda c: sg.check_zone(None, station="Kamppi")),
    ("game", lambda c: sg.check_zone(GAME, station="Kamppi")),
    ("station", lambda c: sg.check_zone(c.game)),
    ("station", lambda c: sg.check_zone(c.game, station="x", at=(60.17, 24.93))),
    ("station", lambda c: sg.check_zone(c.game, station=5)),
    ("station", lambda c: sg.check_zone(c.game, station="no such station")),
    ("at", lambda c: sg.check_zone(c.game, at=(NAN, 24.93))),
    ("at", lambda c: sg.check_zone(c.game, at=(60.17, INF))),
    ("at", lambda c: sg.check_zone(c.game, at=(c.station.lon, c.station.lat))),
    ("at", lambda c: sg.check_zone(c.game, at=(0.0, 0.0))),
    ("at", lambda c: sg.check_zone(c.game, at=(160.0, 24.93))),
    ("at", lambda c: sg.check_zone(c.game, at=(60.17, 24.93, 0.0))),
    ("at", lambda c: sg.check_zone(c.game, at="60.17")),
    ("at", lambda c: sg.check_zone(c.game, at="north,east")),
    ("at", lambda c: sg.check_zone(c.game, at=60.17)),
    ("at", lambda c: sg.check_zone(c.game, at=(True, False))),
    ("at", lambda c: sg.check_zone(c.game, at=Point(24.93, 60.17))),
    # hider_answers
    ("game", lambda c: sg.hider_answers(None, (60.17, 24.93))),
    ("game", lambda c: sg.hider_answers((60.17, 24.93), c.game)),
    ("hider", lambda c: sg.hider_answers(c.game, None)),
    ("hider", lambda c: sg.hider_answers(c.game, (NAN, NAN))),
    ("hider", lambda c: sg.hider_answers(c.game, (c.station.lon, c.station.lat))),
    ("hider", lambda c: sg.hider_answers(c.game, f"{c.station.lon},{c.station.lat}")),
    ("hider", lambda c: sg.hider_answers(c.game, (0.0, 0.0))),
    ("hider", lambda c: sg.hider_answers(c.game, (200.0, 24.93))),
    ("hider", lambda c: sg.hider_answers(c.game, "60.17 24.93")),
    ("hider", lambda c: sg.hider_answers(c.game, ("60.17", "24.93"))),
    ("station", lambda c: sg.hider_answers(c.game, (60.17, 24.93), station=5)),
    # share_link
    ("game", lambda c: sg.share_link(None)),
    ("game", lambda c: sg.share_link("https://taibeled.example")),
    ("base_url", lambda c: sg.share_link(c.game, base_url=5)),
    ("base_url", lambda c: sg.share_link(c.game, base_url="")),
    ("zone_options", lambda c: sg.share_link(c.game, zone_options="[railway=station]")),
    ("zone_options", lambda c: sg.share_link(c.game, zone_options=[5])),
    # GameResult, summary of a wrong object
    ("game", lambda c: sg.GameResult(None, c.result.elimination, c.result.zones)),
]


def names(parameter: str, message: str) -> bool:
    """Whether ``message`` names ``parameter`` (as the keyword, in words, or as its flag)."""
    return any(
        form in message
        for form in (parameter, parameter.replace("_", " "), "--" + parameter.replace("_", "-"))
    )


@pytest.mark.parametrize(
    ("parameter", "call"),
    [pytest.param(p, call, id=f"{i:03d}-{p}") for i, (p, call) in enumerate(CASES)],
)
def test_hostile_argument_is_refused_naming_the_parameter(c, parameter, call):
    with pytest.raises((TypeError, ValueError)) as info:
        call(c)
    message = str(info.value)
    assert message and "\n" not in message, repr(message)
    assert names(parameter, message), message


def test_the_table_covers_every_public_verb_and_its_parameters():
    import inspect

    named: dict[str, set[str]] = {}
    for parameter, call in CASES:
        verb = inspect.getsource(call).split("sg.", 1)[1].split("(", 1)[0]
        named.setdefault(verb, set()).add(parameter)
    verbs = {n for n in api.__all__ if n[0].islower()}
    assert verbs <= set(named), verbs - set(named)
    for verb in verbs:
        parameters = set(inspect.signature(getattr(api, verb)).parameters)
        assert parameters <= named[verb], (verb, parameters - named[verb])


def test_swapped_coordinates_are_named_as_swapped(c):
    s = c.station
    for call in (
        lambda: sg.check_zone(c.game, at=(s.lon, s.lat)),
        lambda: sg.hider_answers(c.game, f"{s.lon},{s.lat}"),
    ):
        with pytest.raises(ValueError, match="latitude first"):
            call()


# --- the accepted forms ---------------------------------------------------------------


def _stations(area: sg.PlayArea, c: SimpleNamespace) -> list[tuple[str, float, float]]:
    smap = sg.make_station_map(area, sg.load_osm(area, [POIS]), search=0)
    return [
        (s.id, round(s.geometry.y, 9), round(s.geometry.x, 9)) for s in smap.stations.itertuples()
    ]


@pytest.mark.parametrize("crs", ["EPSG:4326", SIOUX_UTM])
@pytest.mark.parametrize("kind", ["GeoDataFrame", "GeoSeries"])
def test_geopandas_play_areas_give_the_file_s_stations(c, kind, crs):
    import geopandas as gpd

    frame = gpd.read_file(SIOUX).to_crs(crs)
    given = frame if kind == "GeoDataFrame" else frame.geometry
    area = sg.read_play_area(given, name="sioux")
    assert area.polygon.geom_type in ("Polygon", "MultiPolygon")
    # a projected round trip moves a vertex by nanometres, never more than 1e-9 degrees
    assert area.polygon.symmetric_difference(c.area.polygon).area < 1e-12
    assert _stations(area, c) == _stations(c.area, c)


def test_geopandas_exclusions_are_reprojected_too(c):
    import geopandas as gpd

    hole = gpd.GeoSeries([c.area.polygon.centroid.buffer(0.02)], crs="EPSG:4326")
    area = sg.read_play_area(SIOUX, exclude=[hole.to_crs(SIOUX_UTM)])
    assert len(area.exclusions) == 1
    assert area.exclusions[0].symmetric_difference(hole.iloc[0]).area < 1e-10


def test_a_frame_without_crs_asks_for_one(c):
    with pytest.raises(ValueError, match="set_crs"):
        sg.read_play_area(_frame_without_crs(c))


def test_points_as_text_or_lat_lon_pairs_agree(c):
    s = c.station
    forms = [f"{s.lat},{s.lon}", (s.lat, s.lon), [s.lat, s.lon], f" {s.lat} , {s.lon} "]
    checks = [sg.check_zone(c.game, at=at) for at in forms]
    assert len({(k.valid, k.point, len(k.conflicts)) for k in checks}) == 1
    # the point comes back in the order it was given: (lat, lon)
    assert checks[0].point == pytest.approx((s.lat, s.lon))
    assert sg.check_zone(c.game, station=s.id).point == pytest.approx((s.lat, s.lon))
    rows = [sg.hider_answers(c.game, hider) for hider in forms]
    assert all(r == rows[0] for r in rows) and rows[0]


def test_the_cli_s_text_forms_of_a_date_and_a_size_are_accepted(c):
    date = dt.date(2026, 7, 4)
    by_value = sg.make_station_map(c.area, c.osm, search=0, play_date=date, game_size="M")
    by_text = sg.make_station_map(c.area, c.osm, search=0, play_date="2026-07-04", game_size="m")
    assert by_text.game_size == "M"
    assert list(by_text.stations["id"]) == list(by_value.stations["id"])


def test_a_numpy_number_is_a_number(c):
    import numpy as np

    a = sg.make_station_map(c.area, c.osm, search=0, min_spacing=np.float64(400))
    b = sg.make_station_map(c.area, c.osm, search=0, min_spacing=400)
    assert list(a.stations["id"]) == list(b.stations["id"])
    assert dataclasses.asdict(sg.OverpassSettings(timeout=np.int64(30)))["timeout"] == 30.0


def test_paths_are_accepted_as_str_or_path(c):
    assert sg.read_play_area(str(SIOUX)).polygon.equals(sg.read_play_area(Path(SIOUX)).polygon)
    assert sg.load_osm(c.area, (str(POIS),)).sources == sg.load_osm(c.area, [POIS]).sources
