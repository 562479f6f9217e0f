"""The curses' map conditions (core/referee/curse_map.py), measured on the bundled real extracts.

For every curse the map checks: a position that meets it and one that does not, chosen
from the data (stand on a bridge way, then 2 km away), the distances checked against
pyproj.Geod by brute force (tests/support/geodesic_checks.py's GEOD, none of the
package's own distance code).
"""

from __future__ import annotations

import math
import re
import tomllib

import numpy as np
import pytest
import shapely
from shapely.geometry import Point
from support.geodesic_checks import GEOD
from support.paths import BAYREUTH, HELSINKI, KREMS, LIECHTENSTEIN, REPO

from stations_generator.app.curse_checks import ExtractCurseLayers
from stations_generator.core.referee.cards import card_id
from stations_generator.core.referee.curse_map import (
    CURSE_CONDITIONS,
    FEATURE_KINDS,
    NEXT_TO_M,
    NOT_ON_THE_MAP,
    ON_M,
    CurseNotCheckable,
    check_curse,
)
from stations_generator.osm import curse_layers, layers

CARDS = REPO / "stations_generator" / "data" / "jltg-eu-cards.toml"


def _move(lat: float, lon: float, azimuth: float, metres: float) -> tuple[float, float]:
    lon2, lat2, _ = GEOD.fwd(lon, lat, azimuth, metres)
    return float(lat2), float(lon2)


def _geod_to(lat: float, lon: float, geometry) -> float:
    """Brute force: the Geod distance to the geometry's vertices and 0.25 m steps between."""
    if geometry.geom_type in ("Polygon", "MultiPolygon") and geometry.covers(Point(lon, lat)):
        return 0.0
    best = math.inf
    lines = shapely.get_parts(geometry.boundary if hasattr(geometry, "exterior") else geometry)
    if geometry.geom_type == "MultiPolygon":
        lines = [ring for poly in geometry.geoms for ring in shapely.get_parts(poly.boundary)]
    for line in lines:
        xy = shapely.get_coordinates(line)
        pts = [xy[0]]
        for a, b in zip(xy[:-1], xy[1:], strict=True):
            _, _, length = GEOD.inv(a[0], a[1], b[0], b[1])
            n = int(length / 0.25)
            if n:
                pts += [np.array(p) for p in GEOD.npts(a[0], a[1], b[0], b[1], n)]
            pts.append(b)
        pts = np.array(pts)
        _, _, d = GEOD.inv(np.full(len(pts), lon), np.full(len(pts), lat), pts[:, 0], pts[:, 1])
        best = min(best, float(d.min()))
    return best


def _first(path, kind: str, geom_type: str | None = None):
    rows = curse_layers.features(path, kind)
    rows = [r for r in rows if geom_type is None or r[2].geom_type == geom_type]
    assert rows, f"no {kind} in {path.name}"
    return rows[0]


@pytest.fixture(scope="module")
def helsinki():
    return ExtractCurseLayers([HELSINKI])


@pytest.fixture(scope="module")
def liechtenstein():
    return ExtractCurseLayers([LIECHTENSTEIN])


def _one(check):
    assert len(check.results) == 1
    return check.results[0]


# --- standing at features ----------------------------------------------------------------


def test_bridge_troll_on_a_bridge_way_and_2_km_away(helsinki):
    oid, tags, line = next(
        r for r in curse_layers.features(HELSINKI, "bridge") if "highway" in r[1]
    )
    (a, b) = shapely.get_coordinates(line)[:2]
    mid_lon, mid_lat = GEOD.npts(a[0], a[1], b[0], b[1], 1)[0]
    azimuth, _, _ = GEOD.inv(a[0], a[1], b[0], b[1])
    beside = _move(mid_lat, mid_lon, azimuth + 90, 4.0)  # 4 m off the centre line
    on = _one(check_curse("curse-of-the-bridge-troll", "M", helsinki, seekers=beside))
    assert on.met and on.distance_m <= 4.0 + 1e-3
    assert on.osm_id in {r[0] for r in curse_layers.features(HELSINKI, "bridge")}
    assert on.distance_m == pytest.approx(
        min(_geod_to(*beside, g) for _, _, g in curse_layers.features(HELSINKI, "bridge")),
        abs=0.05,
    )
    far = _move(mid_lat, mid_lon, 200.0, 2000.0)
    off = _one(check_curse("curse-of-the-bridge-troll", "M", helsinki, seekers=far))
    assert not off.met and off.distance_m > ON_M
    nearest = next(g for k, _, g in curse_layers.features(HELSINKI, "bridge") if k == off.osm_id)
    assert off.distance_m == pytest.approx(_geod_to(*far, nearest), abs=0.05)
    assert "bridge" in off.explanation and off.osm_id in off.explanation


def test_monumental_task_next_to_the_monument_node(helsinki):
    oid, tags, point = _first(HELSINKI, "monument", "Point")
    near = _move(point.y, point.x, 0.0, 30.0)
    met = _one(check_curse("curse-of-the-monumental-task", "S", helsinki, seekers=near))
    assert met.met and met.osm_id == oid and met.feature_name == tags["name"]
    assert met.distance_m == pytest.approx(30.0, abs=1e-6)
    away = _move(point.y, point.x, 0.0, 2000.0)
    missed = _one(check_curse("curse-of-the-monumental-task", "S", helsinki, seekers=away))
    assert not missed.met
    assert missed.distance_m is None or missed.distance_m > NEXT_TO_M


def test_quixotic_quest_by_a_wind_turbine():
    layers = ExtractCurseLayers([BAYREUTH])
    oid, _, turbine = _first(BAYREUTH, "windmill")
    for metres, met in ((100.0, True), (500.0, False)):
        at = _move(turbine.y, turbine.x, 90.0, metres)
        result = _one(check_curse("curse-of-the-quixotic-quest", "L", layers, seekers=at))
        assert result.met is met and result.osm_id == oid
        _, _, expected = GEOD.inv(at[1], at[0], turbine.x, turbine.y)
        assert result.distance_m == pytest.approx(expected, abs=1e-6)


def test_ratatouille_at_the_town_hall_outline(liechtenstein):
    oid, _, hall = _first(LIECHTENSTEIN, "town_hall", "Polygon")
    inside = hall.representative_point()
    at = _one(check_curse("curse-of-ratatouille", "M", liechtenstein, seekers=(inside.y, inside.x)))
    assert at.met and at.distance_m == 0.0 and at.osm_id == oid
    away = _move(inside.y, inside.x, 270.0, 2000.0)
    missed = _one(check_curse("curse-of-ratatouille", "M", liechtenstein, seekers=away))
    assert not missed.met


def test_longest_rest_in_a_graveyard(liechtenstein):
    oid, _, yard = _first(LIECHTENSTEIN, "graveyard", "Polygon")
    inside = yard.representative_point()
    check = check_curse(
        "curse-of-the-longest-rest", "M", liechtenstein, seekers=(inside.y, inside.x)
    )
    assert check.met and _one(check).distance_m == 0.0
    # outside every graveyard and place of worship by more than ON_M, measured by Geod
    out = _move(inside.y, inside.x, 180.0, 1500.0)
    missed = _one(check_curse("curse-of-the-longest-rest", "M", liechtenstein, seekers=out))
    kinds = ("graveyard", "place_of_worship")
    truth = min(
        _geod_to(*out, g) for k in kinds for _, _, g in curse_layers.features(LIECHTENSTEIN, k)
    )
    assert missed.met is (truth <= ON_M)
    assert missed.distance_m == pytest.approx(truth, abs=0.05)


def test_unknown_deity_measures_the_casting_cost_and_the_clearing(liechtenstein):
    oid, _, church = _first(LIECHTENSTEIN, "place_of_worship", "Point")
    hider = _move(church.y, church.x, 45.0, 20.0)
    seekers = _move(church.y, church.x, 45.0, 3000.0)
    check = check_curse(
        "curse-of-the-unknown-deity", "M", liechtenstein, seekers=seekers, hider=hider
    )
    cast, clear = check.results
    assert (cast.condition.part, clear.condition.part) == ("cast", "clear")
    assert cast.met and cast.distance_m <= 20.0 + 1e-6
    assert not check.met  # the seekers are not at a place of worship
    only_hider = check_curse("curse-of-the-unknown-deity", "M", liechtenstein, hider=hider)
    assert [r.condition.who for r in only_hider.results] == ["hider"]


# --- keeping away from features ---------------------------------------------------------


def test_grass_toucher_on_a_street_and_far_enough_from_every_named_one(liechtenstein):
    streets = curse_layers.features(LIECHTENSTEIN, "named_street")
    oid, tags, line = streets[len(streets) // 2]
    start = line.interpolate(0.5, normalized=True)
    on = _one(
        check_curse("curse-of-the-grass-toucher", "S", liechtenstein, seekers=(start.y, start.x))
    )
    assert not on.met and on.distance_m < 1.0
    met = None
    for step in range(1, 80):  # walk north from the street until 75 m from every named one
        at = _move(start.y, start.x, 0.0, 25.0 * step)
        result = _one(check_curse("curse-of-the-grass-toucher", "S", liechtenstein, seekers=at))
        if result.met:
            met = (at, result)
            break
    assert met is not None, "no point 75 m from a named street within 2 km north"
    at, result = met
    # a 0.02° box (over 1 km) picks the streets worth the brute force
    near = [g for _, _, g in streets if g.distance(Point(at[1], at[0])) < 0.02]
    truth = min(_geod_to(*at, g) for g in near)
    assert truth >= 75.0 and result.distance_m == pytest.approx(truth, abs=0.05)


def test_ill_advised_gamble_counts_valid_stops_only(helsinki):
    station = next(s for s in helsinki.stations((60.17, 24.94), 3000) if s.name == "Helsinki")
    at = _move(station.lat, station.lon, 225.0, 150.0)
    # 150 m from the railway station: farther than M's 100 m, within L's 200 m
    assert check_curse("curse-of-the-ill-advised-gamble", "M", helsinki, seekers=at).met
    large = _one(check_curse("curse-of-the-ill-advised-gamble", "L", helsinki, seekers=at))
    assert not large.met and large.osm_id == station.id
    assert large.distance_m == pytest.approx(150.0, abs=1e-6)
    # at a metro station (not valid for hiding) the distance is to the railway station
    metro = next(s for s in helsinki.stations((60.17, 24.94), 3000) if s.tag("station") == "subway")
    result = _one(
        check_curse(
            "curse-of-the-ill-advised-gamble", "S", helsinki, seekers=(metro.lat, metro.lon)
        )
    )
    assert result.osm_id != metro.id and result.distance_m > 0
    _, _, expected = GEOD.inv(metro.lon, metro.lat, station.lon, station.lat)
    assert result.distance_m <= expected + 1e-6


def test_urban_explorer_inside_the_station_outline(helsinki):
    oid, _, hall = _first(HELSINKI, "train_station", "Polygon")
    inside = hall.representative_point()
    for curse in ("curse-of-the-urban-explorer", "curse-of-climate-change"):
        check = check_curse(curse, "M", helsinki, seekers=(inside.y, inside.x))
        assert not check.met and _one(check).osm_id == oid
        out = _move(inside.y, inside.x, 0.0, 500.0)
        assert check_curse(curse, "M", helsinki, seekers=out).met


def test_seabird_in_the_water_and_at_the_station(helsinki):
    oid, _, water = next(
        r for r in curse_layers.features(HELSINKI, "body_of_water") if r[2].geom_type == "Polygon"
    )
    wet = water.representative_point()
    assert check_curse("curse-of-the-seabird", "M", helsinki, seekers=(wet.y, wet.x)).met
    station = (60.1713198, 24.9414566)  # Helsinki railway station (node/25389429)
    dry = _one(check_curse("curse-of-the-seabird", "M", helsinki, seekers=station))
    truth = min(
        _geod_to(*station, g) for _, _, g in curse_layers.features(HELSINKI, "body_of_water")
    )
    assert not dry.met and dry.distance_m == pytest.approx(truth, abs=0.05)


def test_divisive_dijk_no_dyke_is_mapped_on_the_danube():
    # No bundled extract holds a man_made=dyke; the Danube at Krems has none mapped either.
    layers = ExtractCurseLayers([KREMS])
    assert curse_layers.features(KREMS, "dyke") == []
    result = _one(check_curse("curse-of-the-divisive-dijk", "M", layers, seekers=(48.40, 15.60)))
    assert not result.met and result.distance_m is None and "dyke" in result.explanation


def test_distant_road_trip_compares_the_plates_regions_borders(liechtenstein):
    zones = {t["name"]: g for _, t, g in layers.areas(LIECHTENSTEIN, "admin")}
    inside = zones["Vaduz"].representative_point()
    at = (inside.y, inside.x)
    curse = "curse-of-the-distant-road-trip"
    farther = check_curse(curse, "M", liechtenstein, seekers=at, plates=("Schaan", "Ruggell"))
    result = _one(farther)
    assert farther.met and result.feature_name == "Ruggell"
    assert result.distance_m == pytest.approx(_geod_to(*at, zones["Ruggell"]), abs=0.05)
    assert result.limit_m == pytest.approx(_geod_to(*at, zones["Schaan"]), abs=0.05)
    assert result.distance_m > result.limit_m > 0
    nearer = check_curse(curse, "M", liechtenstein, seekers=at, plates=("Ruggell", "Schaan"))
    assert not nearer.met
    local = _one(check_curse(curse, "S", liechtenstein, seekers=at, plates=("Schaan", "Vaduz")))
    assert local.distance_m == 0.0 and not local.met
    with pytest.raises(ValueError, match="no admin area named 'Atlantis'"):
        check_curse(curse, "M", liechtenstein, seekers=at, plates=("Schaan", "Atlantis"))


# --- distances between positions ---------------------------------------------------------


@pytest.mark.parametrize(
    ("curse", "metres", "met_by_size"),
    [
        ("curse-of-the-freewheeler", 3000.0, {"S": True, "M": False, "L": False}),
        ("curse-of-the-landline", 4000.0, {"S": True, "M": True, "L": False}),
        ("curse-of-the-long-shot", 3000.0, {"S": False, "M": True, "L": True}),
    ],
)
def test_distance_between_the_teams(curse, metres, met_by_size):
    seekers = (47.14, 9.52)
    hider = _move(*seekers, 30.0, metres)
    for size, met in met_by_size.items():
        result = _one(check_curse(curse, size, seekers=seekers, hider=hider))
        assert result.met is met, size
        assert result.distance_m == pytest.approx(metres, abs=1e-6)


@pytest.mark.parametrize(
    ("curse", "metres", "met_by_size"),
    [
        ("curse-of-the-history-obsessed-squirrel", 800.0, {"S": False, "M": True, "L": True}),
        ("curse-of-the-mediocre-travel-agent", 400.0, {"S": False, "M": False, "L": True}),
        ("curse-of-the-plagued-word", 1000.0, {"S": True, "M": False, "L": False}),
    ],
)
def test_distance_to_the_named_place(curse, metres, met_by_size):
    seekers = (60.17, 24.94)
    place = _move(*seekers, 100.0, metres)
    for size, met in met_by_size.items():
        result = _one(check_curse(curse, size, seekers=seekers, place=place))
        assert result.met is met, size
        assert result.distance_m == pytest.approx(metres, abs=1e-6)


def test_unreliable_railway_next_station_closer_to_the_hider():
    hider, seekers = (47.14, 9.52), _move(47.14, 9.52, 0.0, 5000.0)
    towards = _move(*seekers, 180.0, 1000.0)
    away = _move(*seekers, 0.0, 1000.0)
    curse = "curse-of-the-unreliable-railway"
    assert check_curse(curse, "M", seekers=seekers, hider=hider, place=towards).met
    assert not check_curse(curse, "M", seekers=seekers, hider=hider, place=away).met


# --- what the map cannot check, and bad input -------------------------------------------


@pytest.mark.parametrize(
    ("curse", "words"),
    [
        (
            "curse-of-the-moral-high-ground",
            ("curse-of-the-moral-high-ground", "cannot check", "altitude"),
        ),
        ("curse-of-the-oracle", ("curse-of-the-oracle", "cannot check", "players' word")),
        ("bridge troll", ("unknown curse", "bridge troll")),
    ],
)
def test_a_curse_the_map_cannot_check_is_one_line_naming_it(curse, words):
    with pytest.raises(CurseNotCheckable) as caught:
        check_curse(curse, "M", seekers=(60.17, 24.94))
    message = str(caught.value)
    assert "\n" not in message and all(w in message for w in words)


def test_bad_size_positions_and_missing_map_name_the_parameter(helsinki):
    with pytest.raises(ValueError, match="size"):
        check_curse("curse-of-the-bridge-troll", "XL", helsinki, seekers=(60.17, 24.94))
    with pytest.raises(ValueError, match="seekers"):
        check_curse("curse-of-the-bridge-troll", "M", helsinki, seekers=(95.0, 24.94))
    with pytest.raises(TypeError, match="hider"):
        check_curse("curse-of-the-long-shot", "M", seekers=(60.17, 24.94), hider="60,24")
    with pytest.raises(ValueError, match="hider"):
        check_curse("curse-of-the-long-shot", "M", seekers=(60.17, 24.94))
    with pytest.raises(ValueError, match="OSM"):
        check_curse("curse-of-the-bridge-troll", "M", seekers=(60.17, 24.94))


# --- the data: the rules' numbers, the card ids -------------------------------------------


def test_every_curse_id_is_its_sections_card_id():
    for curse_id, (section, conditions) in CURSE_CONDITIONS.items():
        assert card_id(section) == curse_id
        assert conditions


def test_every_limit_is_the_rules_number_for_each_size():
    for curse_id, (_, conditions) in CURSE_CONDITIONS.items():
        for c in conditions:
            assert set(c.features) <= set(FEATURE_KINDS), curse_id
            if c.measure in ("closer-to-hider", "plates"):  # compared with a measured distance
                continue
            assert set(c.limit_m) == {"S", "M", "L"}, curse_id
            numbers = re.search(r"S ([\d.]+) M ([\d.]+) L ([\d.]+) (k?m)", c.rule)
            if numbers:  # the rule's "S x M y L z km" is the limit
                scale = 1000.0 if numbers.group(4) == "km" else 1.0
                by_size = {s: float(numbers.group(i + 1)) * scale for i, s in enumerate("SML")}
                assert dict(c.limit_m) == by_size, curse_id
            plain = re.search(r"(\d+) m\b", c.rule)
            if not numbers and plain:
                assert set(c.limit_m.values()) == {float(plain.group(1))}, curse_id


def test_every_curse_id_is_a_card_of_the_card_file():
    # The card file's [[card]] tables, named by their printed names (or an id).
    assert CARDS.exists(), f"{CARDS.name} is missing"
    data = tomllib.loads(CARDS.read_text(encoding="utf-8"))
    ids = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("id"), str):
                ids.add(node["id"])
            elif isinstance(node.get("name"), str):
                ids.add(card_id(node["name"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data)
    missing = sorted((set(CURSE_CONDITIONS) | set(NOT_ON_THE_MAP)) - ids)
    assert missing == []
