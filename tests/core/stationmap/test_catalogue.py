"""The POI catalogue: coverage of the rural rules' vehicle-station kinds, matching, Overpass filters, user overrides."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from support.paths import SIOUX

from stations_generator import load_catalogue
from stations_generator.core.catalogue import Clause
from stations_generator.errors import InputError

# The peer's (ramblin-dev/rural-jet-lag) priority tiers.
PEER_TIERS = {
    0: {
        "train_station",
        "train_halt",
        "tram_stop",
        "bus_station",
        "ferry_terminal",
        "cable_car_station",
        "transit_station",
    },
    1: {"museum", "attraction", "bookstore", "comic_store", "board_game_store"},
    2: {"cafe", "arcade"},
    3: {"mall", "department_store"},
    4: {"park", "nature_reserve", "national_park", "rest_area"},
    5: {"convenience_store", "supermarket", "gas_station", "fast_food"},
    6: {"bar", "pub"},
    7: {"restaurant"},
}
QUESTION_SUBJECTS = {
    "zoo",
    "aquarium",
    "theme_park",
    "museum",
    "hospital",
    "cinema",
    "library",
    "golf_course",
    "consulate",
    "park",
    "airport",
    "mountain",
    "mcdonalds",
    "seven_eleven",
    "train_station",
}


def test_station_tiers_match_the_peer(catalogue):
    for tier, names in PEER_TIERS.items():
        for name in names:
            assert catalogue[name].priority == tier, name
            assert catalogue[name].station
        assert all(catalogue[n].transit == (tier == 0) for n in names)


def test_every_question_subject_is_served(catalogue):
    assert QUESTION_SUBJECTS <= set(catalogue.subjects)


@pytest.mark.parametrize(
    ("tags", "category"),
    [
        (
            {"amenity": "fuel", "shop": "convenience"},
            "convenience_store",
        ),  # tier 5 both; first in order
        ({"tourism": "museum", "amenity": "cafe"}, "museum"),
        ({"railway": "station", "public_transport": "station"}, "train_station"),
        ({"highway": "services"}, "rest_area"),
        ({"amenity": "hospital"}, None),  # a question subject, not a station
    ],
)
def test_station_category(catalogue, tags, category):
    found = catalogue.station_category(tags)
    assert (found.name if found else None) == category


def test_subject_matching(catalogue):
    mcd = {"amenity": "fast_food", "brand:wikidata": "Q38076", "name": "McDonald's"}
    assert {c.name for c in catalogue.matching(mcd)} == {"fast_food", "mcdonalds"}
    assert catalogue.matching({"aeroway": "aerodrome"}) == []  # no IATA: not an airport subject
    assert [c.name for c in catalogue.matching({"aeroway": "aerodrome", "iata": "FSD"})] == [
        "airport"
    ]
    assert [
        c.name
        for c in catalogue.matching({"office": "diplomatic", "diplomatic": "consulate_general"})
    ] == ["consulate"]
    assert catalogue.matching({"diplomatic": "embassy"}) == []


def test_clause_syntax():
    assert Clause.parse("iata").overpass() == '["iata"]'
    assert Clause.parse("!name").holds({"amenity": "cafe"})
    assert not Clause.parse("!name").holds({"name": "x"})
    assert Clause.parse("cuisine!=pizza").holds({"cuisine": "burger"})
    assert Clause.parse("diplomatic~^consulate").overpass() == '["diplomatic"~"^consulate"]'


def test_overpass_filters_are_sorted_and_unique(catalogue):
    filters = catalogue.overpass_filters()
    assert filters == sorted(set(filters))
    assert '["aeroway"="aerodrome"]["iata"]' in filters


def test_matches_real_fixture(catalogue):
    elements = json.loads((SIOUX / "pois.json").read_text())
    counts = Counter()
    for el in elements:
        cat = catalogue.station_category(el.get("tags", {}))
        counts[cat.name if cat else None] += 1
    # Every element of the peer's fixture was fetched for one of its categories.
    assert counts[None] == 0
    assert counts["restaurant"] > 50 and counts["park"] > 50


def test_user_override_and_extension(tmp_path):
    extra = tmp_path / "mine.toml"
    extra.write_text(
        '[[category]]\nname = "cafe"\npriority = 1\nmatch = [["amenity=cafe"], ["shop=coffee"]]\n\n'
        '[[category]]\nname = "climbing_gym"\nlabel = "Climbing gym"\npriority = 2\n'
        'match = [["leisure=sports_centre", "sport=climbing"]]\n'
    )
    cat = load_catalogue([extra])
    assert cat["cafe"].priority == 1
    assert cat.station_category({"shop": "coffee"}).name == "cafe"
    assert (
        cat.station_category({"leisure": "sports_centre", "sport": "climbing"}).name
        == "climbing_gym"
    )
    assert cat["climbing_gym"].station


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not toml [", "not valid TOML"),
        ("[x]\na = 1\n", "no [[category]]"),
        ('[[category]]\nname = "a"\n', "has no 'match'"),
        ('[[category]]\nname = "a"\nmatch = "amenity=cafe"\n', "list of lists"),
        ('[[category]]\nname = "a"\nmatch = [["name~("]]\n', "bad regular expression"),
    ],
)
def test_bad_category_files(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=message.replace("[", r"\[")):
        load_catalogue([path])


def test_unknown_category(catalogue):
    with pytest.raises(InputError, match="unknown category 'cafes'"):
        catalogue.select(["cafes"])
