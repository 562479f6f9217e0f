"""The one JSON Schema validator of the input formats: its one-line messages name the
file, the JSON path and the fix, from the wording the schemas carry."""

from __future__ import annotations

import math

import jsonschema_rs
import numpy as np
import pytest

from stations_generator.formats import jsonio, schemas
from stations_generator.formats.jsonio import InputError

SCHEMAS = {name: getattr(schemas, name) for name in schemas.__all__ if name != "POSITION_DEPTH"}
QUESTION = {"type": "matching", "seeker": {"lat": 60.17, "lon": 24.94}, "subject": "museum"}


def _message(data, schema, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        jsonio.validate(data, schema, "game.json", **kwargs)
    assert "\n" not in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_schema_is_standard_json_schema(name):
    assert jsonschema_rs.meta.is_valid(SCHEMAS[name])


def test_a_valid_game_passes():
    jsonio.validate({"play_area": "area.geojson", "questions": [QUESTION]}, schemas.GAME, "g")


def test_the_deepest_failure_is_named_with_the_schemas_wording():
    bad = {**QUESTION, "subject": "zone", "level": "eight"}
    game = {"play_area": "area.geojson", "rules": 5, "questions": [QUESTION, bad]}
    assert _message(game, schemas.GAME) == (
        'game.json: $.questions[1].level: expected an integer admin level such as 8, got "eight"'
    )


def test_a_missing_key_names_its_fix():
    assert _message({"questions": []}, schemas.GAME) == (
        'game.json: $: "play_area" is missing; add "play_area": a GeoJSON file path or object'
    )
    question = {"type": "radius", "radius": "2 km"}
    assert _message({"play_area": "a", "questions": [question]}, schemas.GAME) == (
        'game.json: $.questions[0]: "seeker" is missing; add "seeker": {"lat": …, "lon": …}, '
        "where the seeker stood"
    )


def test_an_unknown_key_lists_the_known_ones():
    message = _message({"play_area": "a", "colour": "red"}, schemas.GAME)
    assert message.startswith('game.json: $: unknown key "colour"; use country, dem, format, ')


def test_a_whole_message_from_the_schema():
    question = {**QUESTION, "type": "compass"}
    assert _message({"play_area": "a", "questions": [question]}, schemas.GAME) == (
        "game.json: $.questions[0].type: unknown question type 'compass'; use radius, "
        "thermometer, tentacles, matching, measuring or photo"
    )


def test_an_element_of_a_stream_is_named_by_its_place():
    element = {"type": "node", "id": 1, "lat": 95.0, "lon": 9.5}
    message = _message(element, schemas.OVERPASS_ELEMENT, path_prefix="$.elements[3]")
    assert message == (
        "game.json: $.elements[3].lat: out-of-range latitude 95.0 (expected -90 to 90)"
    )


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused_and_shown_as_given(bad):
    # The validator reads NaN and ±inf as null; the message shows the value given.
    seeker = {"lat": bad, "lon": 24.94}
    message = _message(
        {"play_area": "a", "questions": [{**QUESTION, "seeker": seeker}]}, schemas.GAME
    )
    shown = "NaN" if math.isnan(bad) else ("Infinity" if bad > 0 else "-Infinity")
    assert message == (
        f"game.json: $.questions[0].seeker.lat: expected a latitude in degrees such as 60.17, "
        f"got {shown}"
    )


def test_python_values_of_json_kinds_are_read_as_json():
    seeker = {"lat": np.float64(60.17), "lon": 24.94}  # a float subclass
    game = {"play_area": "a", "questions": ({**QUESTION, "seeker": seeker},)}  # a tuple
    jsonio.validate(game, schemas.GAME, "g")


def test_values_of_no_json_kind_are_refused_in_one_line():
    assert "game.json is not JSON data" in _message({"play_area": {1, 2}}, schemas.GAME)


def test_deep_python_data_never_reaches_the_validator():
    deep: list = []
    inner = deep
    for _ in range(100_000):
        inner.append([])
        inner = inner[0]
    assert "nested too deeply" in _message({"play_area": "a", "osm": deep}, schemas.GAME)


@pytest.mark.parametrize("bad", [math.nan, -math.inf, 10**400])
def test_check_finite_names_the_path(bad):
    with pytest.raises(InputError, match=r"^x: \$\.a\[1\]\.b: .* is not a finite number"):
        jsonio.check_finite({"a": [1, {"b": bad}]}, "x")
    jsonio.check_finite({"a": [1, {"b": -1e308, "c": 10**300}]}, "x")


def test_schema_paths_through_a_ref_are_followed():
    # The validator reports resolved places (``$defs/…``); a path through ``$ref`` resolves too.
    through_ref = jsonio._resolve(schemas.GEOJSON, ["allOf", 1, "then", "$ref", "required"])
    assert through_ref == jsonio._resolve(schemas.GEOJSON, ["$defs", "feature", "required"])
    assert through_ref == ["type"]
