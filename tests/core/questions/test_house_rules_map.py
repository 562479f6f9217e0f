"""The JLTG.EU house rules on the map, on real OSM extracts: valid hiding stops, stops
beyond the game map, transit lines (trains only) and bodies of water (open water, rivers
drawn as lines)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import osmium
import pytest
import shapely
from support.paths import BAYREUTH, EXTRACTS, HELSINKI, KREMS, LIECHTENSTEIN, SIOUX

from stations_generator.core.catalogue import load_catalogue
from stations_generator.core.elements import OsmElement
from stations_generator.core.geo.shapes import geodesic_circle
from stations_generator.core.questions.game import Game
from stations_generator.core.questions.geometry import MatchingStationQuestion, Station
from stations_generator.core.questions.rules import RULE_SETS
from stations_generator.core.questions.stops import de_stop, nl_stop, other_stop, stop_kind
from stations_generator.core.questions.transit_lines import (
    FREQUENCY_NOTE,
    JLTG_EU_LINE_ROUTES,
    line_notes,
)
from stations_generator.core.questions.water_bodies import is_line_waterway, is_open_water
from stations_generator.osm import layers
from stations_generator.osm.routes import lines_under, routes_serving

ALL = sorted(p for p in EXTRACTS.iterdir() if p.name.endswith((".pbf", ".osm.gz")))
EU = RULE_SETS["jltg-eu"]


def station_of(e: OsmElement, routes=()) -> Station:
    """A Station with every real tag of the OSM object and the routes serving it."""
    served = routes_serving(e.lon, e.lat, e.osm_id if e.osm_type == "node" else None, list(routes))
    return Station(
        e.key,
        e.tags.get("name", ""),
        e.lon,
        e.lat,
        tuple(sorted(e.tags.items())),
        frozenset(r.id for r in served),
        frozenset(r.line_ref for r in served),
    )


@cache
def stops(path: Path) -> tuple[Station, ...]:
    """Every railway / tram stop of a real extract (the catalogue's stations)."""
    found = [
        e
        for e in layers.points(path, load_catalogue())
        if e.tags.get("railway") in ("station", "halt", "tram_stop")
    ]
    return tuple(station_of(e, layers.routes(path)) for e in found)


def named(path: Path, name: str) -> Station:
    return next(s for s in stops(path) if s.name == name and s.id.startswith("node/"))


# --- 7. valid hiding stops -------------------------------------------------------------


def test_main_railway_station_is_valid_and_metro_and_tram_are_not():
    """JLTG.EU house rules, Hiding Zones: railway stations yes, metro and tram stops no."""
    main = named(HELSINKI, "Helsinki")
    metro = [s for s in stops(HELSINKI) if s.tag("station") == "subway"]
    trams = [s for s in stops(HELSINKI) if s.tag("railway") == "tram_stop"]
    assert metro and trams
    for country in ("DE", "NL", "FI"):
        assert EU.is_valid_stop(main, country)
        assert not any(EU.is_valid_stop(s, country) for s in metro + trams)
    assert RULE_SETS["official"].is_valid_stop(trams[0], "FI")  # the official rules: any


def test_german_halts_of_the_interrail_network_are_valid():
    """The real German halts north of Bayreuth (railway=halt, train=yes) are valid in DE."""
    german = [s for s in stops(BAYREUTH) if s.tag("railway") in ("station", "halt")]
    assert {"Bindlach", "Ramsenthal", "Harsdorf"} <= {s.name for s in german}
    assert all(stop_kind(s) == "train" and de_stop(s) for s in german)


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_valid_stop_is_a_railway_station_neither_metro_nor_tram(path):
    """A property of every stop of every extract, for each country's predicate."""
    for s in stops(path):
        for check in (de_stop, nl_stop, other_stop):
            if check(s) and "RET:B" not in s.line_refs:
                assert s.tag("railway") in ("station", "halt"), (s, check)
                assert stop_kind(s) not in ("subway", "tram"), (s, check)


def test_rotterdam_metro_line_b_only_in_the_netherlands():
    """Helsinki's metro stations carry their real routes; give one the line refs of
    Rotterdam's line B and only NL takes it (JLTG.EU house rules, Hiding Zones, NL)."""
    metro = next(s for s in stops(HELSINKI) if s.tag("station") == "subway")
    assert not nl_stop(metro)
    on_b = Station(
        metro.id, metro.name, metro.lon, metro.lat, metro.tags, metro.lines, frozenset({"RET:B"})
    )
    assert nl_stop(on_b) and not de_stop(on_b) and not other_stop(on_b)


# --- 7. stops beyond the game map ------------------------------------------------------


def test_stops_outside_the_play_area_are_never_possible_zones():
    """Play area Schaan (a real municipality); the stops: every railway stop of the
    Liechtenstein extract, some of them beyond Schaan with zones reaching into it."""
    schaan = next(
        g
        for _, t, g in layers.areas(LIECHTENSTEIN, "admin")
        if t.get("name") == "Schaan" and t.get("admin_level") == "8"
    )
    rail = [s for s in stops(LIECHTENSTEIN) if s.tag("railway") in ("station", "halt")]
    game = Game(schaan, EU, "L", rail)
    zones = game.possible_zones()
    inside = [z for z in zones if schaan.covers(shapely.Point(z.station.lon, z.station.lat))]
    outside = [z for z in zones if z not in inside]
    reaching = [
        z
        for z in outside
        if geodesic_circle(z.station.lon, z.station.lat, game.hiding_radius_m).intersects(schaan)
    ]
    assert inside and reaching  # the case the rule is about is in the data
    assert all(z.possible for z in inside)
    assert not any(z.possible for z in outside)
    assert {z.reason for z in outside} == {"its stop is outside the play area"}


# --- 6. transit lines ------------------------------------------------------------------


def test_only_train_routes_are_lines_under_jltg_eu():
    routes = layers.routes(HELSINKI)
    kept = lines_under(routes, "jltg-eu")
    assert {r.route for r in routes} > {r.route for r in kept}  # buses, trams, metro dropped
    assert kept and all(r.route in JLTG_EU_LINE_ROUTES for r in kept)
    assert lines_under(routes, "official") == routes


def test_metro_stations_share_a_line_only_under_the_official_rules():
    """Two real metro stations on the same real metro routes: the same line when every
    route counts, different lines under jltg-eu (a metro is not a train)."""
    routes = layers.routes(HELSINKI)
    metro = [s for s in stops(HELSINKI) if s.tag("station") == "subway"]
    assert len(metro) >= 2 and metro[0].lines & metro[1].lines

    def under(rules: str, s: Station) -> Station:
        served = lines_under(routes_serving(s.lon, s.lat, None, routes), rules)
        return Station(s.id, s.name, s.lon, s.lat, s.tags, frozenset(r.id for r in served))

    for rules, same in (("official", True), ("jltg-eu", False)):
        q = MatchingStationQuestion(under(rules, metro[0]), "line")
        assert q.answer_for_station(under(rules, metro[1])) is same
    main = under("jltg-eu", named(HELSINKI, "Helsinki"))
    assert main.lines  # the main station's trains stay lines
    assert MatchingStationQuestion(main, "line").answer_for_station(main)


def test_the_frequency_note_is_given_under_jltg_eu():
    main = named(HELSINKI, "Helsinki")
    labels = [MatchingStationQuestion(main, "line").label()]
    assert line_notes("jltg-eu", labels) == (FREQUENCY_NOTE,)
    assert "2 hours" in FREQUENCY_NOTE and "not checked" in FREQUENCY_NOTE
    assert line_notes("official", labels) == ()
    assert line_notes("jltg-eu", [MatchingStationQuestion(main, "letter").label()]) == ()


# --- 8. bodies of water ----------------------------------------------------------------


def waterways(path: Path) -> dict[int, dict[str, str]]:
    """Every river and canal way of a real extract, with its tags (read with osmium)."""
    found = {}
    for obj in osmium.FileProcessor(str(path), osmium.osm.WAY):
        tags = {t.k: t.v for t in obj.tags}
        if tags.get("waterway") in ("river", "canal"):
            found[obj.id] = tags
    return found


@pytest.mark.parametrize("path", [LIECHTENSTEIN, BAYREUTH, KREMS], ids=lambda p: p.name)
def test_open_rivers_and_canals_drawn_as_lines_count_tunnelled_ones_do_not(path):
    ways = waterways(path)
    tunnelled = {k for k, t in ways.items() if t.get("tunnel", "no") != "no"}
    kept = {int(k.split("/")[-1]) for k, _, _ in layers.lines(path, "waterway")}
    assert kept and kept == set(ways) - tunnelled
    lines = [g for g in layers.bodies_of_water(path) if g.geom_type == "LineString"]
    assert len(lines) == len(kept)


def test_tunnelled_rivers_exist_in_the_data():
    """Liechtenstein has a river in a tunnel, Bayreuth one under a building."""
    assert any(t.get("tunnel") == "yes" for t in waterways(LIECHTENSTEIN).values())
    assert any(t.get("tunnel") == "building_passage" for t in waterways(BAYREUTH).values())


def test_intermittent_water_is_not_a_body_of_water():
    """The real Sioux Falls water (Overpass JSON): its intermittent ponds do not count."""
    elements = json.loads((SIOUX / "water.json").read_text(encoding="utf-8"))
    tags = [e.get("tags", {}) for e in elements]
    dry = [t for t in tags if t.get("intermittent") == "yes"]
    assert dry and not any(is_open_water(t) for t in dry)
    assert all(is_open_water(t) for t in tags if t not in dry and "tunnel" not in t)


def test_water_areas_of_the_question_are_the_open_water_areas():
    for path in (LIECHTENSTEIN, BAYREUTH, KREMS):
        every = layers.areas(path, "water")
        kept = [g for g in layers.bodies_of_water(path) if g.geom_type != "LineString"]
        assert kept and kept == [g for _, t, g in every if is_open_water(t)]


def test_a_river_drawn_only_as_a_line_is_a_body_of_water():
    """Krems: a river with no water area is now something to measure to."""
    lines = [g for g in layers.bodies_of_water(KREMS) if g.geom_type == "LineString"]
    areas = [g for g in layers.bodies_of_water(KREMS) if g.geom_type != "LineString"]
    bare = [
        line
        for line in lines
        if not any(a.covers(line.interpolate(0.5, normalized=True)) for a in areas)
    ]
    assert bare  # a river with no water area around its middle: missed before
    probe = bare[0].interpolate(0.5, normalized=True)
    assert bare[0].dwithin(probe, 1e-9)  # on the river line (a coordinate check)
    assert not any(a.intersects(probe) for a in areas)  # the water areas miss it


def test_line_waterways_follow_the_open_water_rule():
    """Every river and canal way of the real extracts is kept iff it is open water."""
    for path in (LIECHTENSTEIN, BAYREUTH, KREMS):
        for tags in waterways(path).values():
            assert is_line_waterway(tags) == (tags.get("tunnel", "no") == "no")
