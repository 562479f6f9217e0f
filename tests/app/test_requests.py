"""One request type per use case: ``generate``'s options, ``make_station_map``'s keywords
and the page's settings all take their defaults from ``GenerateRequest``."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import click
import pytest

from stations_generator import api
from stations_generator.app.request_fields import settings_of
from stations_generator.app.requests import GenerateRequest
from stations_generator.commands.generate import generate, request_from_options
from stations_generator.serve.options import PAGE_OPTIONS, convert_settings, describe_options

FIELDS = {f.name: f for f in dataclasses.fields(GenerateRequest)}
SETTINGS = settings_of(GenerateRequest)
OPTIONS = {p.name: p for p in generate.params if isinstance(p, click.Option)}
#: The Overpass options every fetching command shares, and the fields they set.
OVERPASS = {
    "overpass_urls": "overpass_urls",
    "overpass_timeout": "overpass_timeout",
    "cache_dir": "cache_dir",
    "no_cache": "use_cache",
}
#: ``make_station_map`` keywords named otherwise than their field.
API_NAMES = {"search": "search_rounds"}


def _cli_default(name: str):
    """What ``generate`` gets for option ``name`` when it is not given."""
    return generate.make_context("generate", ["area.geojson"]).params[name]


def test_every_generate_option_is_a_request_field():
    fields = {s.name(f) for f, s in SETTINGS.items()} | set(OVERPASS)
    assert set(OPTIONS) == fields
    assert set(SETTINGS) | set(OVERPASS.values()) | {"play_area"} == set(FIELDS)


@pytest.mark.parametrize("field_name", sorted(SETTINGS))
def test_cli_option_defaults_are_the_request_defaults(field_name):
    setting = SETTINGS[field_name]
    option = OPTIONS[setting.name(field_name)]
    default = FIELDS[field_name].default
    assert option.help == setting.help
    assert setting.option in option.opts
    if setting.optional:  # not given: the field keeps its default, which the help states
        assert _cli_default(option.name) is None
        assert f"[default: {default:g}]" in option.help
    elif setting.negated:
        assert option.is_flag and _cli_default(option.name) is (not default)
    else:
        assert _cli_default(option.name) == default


def test_the_overpass_defaults_are_the_request_defaults():
    assert _cli_default("overpass_timeout") == FIELDS["overpass_timeout"].default == 300.0
    assert _cli_default("no_cache") is (not FIELDS["use_cache"].default)
    assert FIELDS["overpass_urls"].default == () and FIELDS["cache_dir"].default is None


def test_generate_without_options_asks_for_the_request_defaults():
    ctx = generate.make_context("generate", ["area.geojson"])
    params = dict(ctx.params)
    area = params.pop("play_area")
    assert request_from_options(area, params) == GenerateRequest(play_area=Path("area.geojson"))


def test_generate_options_set_their_fields():
    args = ["a.geojson", "--no-transit", "--min-spacing", "250", "--search", "3"]
    args += ["--category", "museum", "--optimize", "--time-limit", "5", "--name", "x"]
    params = dict(generate.make_context("generate", args).params)
    request = request_from_options(params.pop("play_area"), params)
    assert request.include_transit is False and request.water_subtract is True
    assert (request.min_spacing, request.search_rounds, request.time_limit) == (250.0, 3, 5.0)
    assert request.only_categories == ("museum",) and request.map_name == "x"


def test_make_station_map_keyword_defaults_are_the_request_defaults():
    keywords = inspect.signature(api.make_station_map).parameters
    checked = 0
    for name, parameter in keywords.items():
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY or name == "warn":
            continue
        field_name = API_NAMES.get(name, name)
        default = FIELDS[field_name].default
        if SETTINGS[field_name].optional:
            assert parameter.default is None, name  # None: the field's default
        else:
            assert parameter.default == default, name
        checked += 1
    assert checked == 15


def test_page_settings_are_the_request_settings():
    described = {o["name"]: o for o in describe_options()}
    assert list(described) == list(PAGE_OPTIONS)
    by_name = {s.name(f): (f, s) for f, s in SETTINGS.items()}
    for name, entry in described.items():
        field_name, setting = by_name[name]
        assert entry["help"] == setting.help == OPTIONS[name].help
        assert entry["flag"] == setting.option
        default = FIELDS[field_name].default
        if setting.optional or not isinstance(default, str | int | float | bool):
            assert entry["default"] is None, name
        else:
            assert entry["default"] == (not default if setting.negated else default), name


def test_page_without_settings_asks_for_the_request_defaults():
    fields = convert_settings({})
    assert "time_limit" not in fields  # optional: the request's default applies
    assert GenerateRequest(**fields) == GenerateRequest()
    assert convert_settings({"no_transit": True, "min_spacing": "250"}) == {
        **fields,
        "include_transit": False,
        "min_spacing": 250.0,
    }
