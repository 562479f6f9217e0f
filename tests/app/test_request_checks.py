"""The command line and the Python API refuse the same values: one check, from the metadata.

For every :class:`GenerateRequest` field with a Setting, values at and beyond the edges of
its click type (the range's ends and one past them, NaN and infinities for a number, a
half for a whole number, each choice in both cases and one that is none, dates real and
not) are given to ``generate`` as text and to the request (what the API builds) as
Python values: the one refuses exactly what the other refuses, and what both accept ends
up the same in the request. The API's verbs refuse them too, naming their keyword.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from support.paths import REPO

import stations_generator as sg
from stations_generator.app.request_fields import (
    FiniteFloat,
    Setting,
    settings_of,
)
from stations_generator.app.requests import GenerateRequest
from stations_generator.commands.generate import generate, request_from_options
from stations_generator.errors import ArgumentError, ArgumentTypeError, ArgumentValueError

SETTINGS = settings_of(GenerateRequest)
DEFAULTS = {f.name: f.default for f in dataclasses.fields(GenerateRequest)}
SIOUX = REPO / "zones" / "sioux-falls.geojson"
POIS = REPO / "examples" / "sioux-falls" / "pois.json"
#: The verb and keyword of the Python API that take each field; optimize=True goes with
#: time_limit (the API refuses a budget without the solver, as the CLI's usage check).
VERB_KEYWORDS = {
    "osm_relation": ("read_play_area", "osm_relation"),
    "place": ("read_play_area", "place"),
    "search_rounds": ("make_station_map", "search"),
    **{
        name: ("make_station_map", name)
        for name in (
            "min_spacing",
            "cluster_gap",
            "cluster_radius",
            "max_per_cluster",
            "game_size",
            "density_radius",
            "tiers",
            "playing_hours",
            "playing_days",
            "play_date",
            "water_subtract",
            "strict_priority",
            "optimize",
            "time_limit",
        )
    },
    "only_categories": ("load_osm", "categories"),
    "include_transit": ("load_osm", "include_transit"),
    "osm_files": ("load_osm", "files"),
    "water_files": ("load_osm", "water_files"),
    "category_files": ("load_osm", "category_files"),
}


def _numbers(kind: click.ParamType) -> Iterator[Any]:
    """Values at and past the ends of a number type, and the non-finite ones."""
    whole = isinstance(kind, click.types.IntParamType)
    low, high = getattr(kind, "min", None), getattr(kind, "max", None)
    step = 1 if whole else 0.5
    for end, out in ((low, -step), (high, step)):
        if end is not None:
            yield end
            yield end + out
    if low is not None and high is not None:
        yield (low + high) // 2 if whole else (low + high) / 2
    if whole:
        yield (low or 0) + 0.5  # a float for an int: the CLI's "0.5" and the API's 0.5
    else:
        yield from (math.nan, math.inf, -math.inf)


def _values(setting: Setting) -> Iterator[Any]:
    """The values derived from a setting's metadata (its click type or callback)."""
    kind = setting.type
    if setting.callback is not None:  # a date
        yield from ("2026-07-04", "2026-02-30", "soon", "", dt.date(2026, 7, 4))
    elif isinstance(kind, click.Choice):
        for choice in kind.choices:
            yield from (choice, choice.lower(), choice + "X")
    elif isinstance(kind, click.types.IntParamType | click.types.FloatParamType):
        yield from _numbers(kind)
    elif isinstance(kind, click.Path):
        yield "some/file.json"
    elif not setting.is_flag:
        yield from ("dense:15:5-15", "", "x")


def _text(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


CASES = [
    pytest.param(field_name, value, id=f"{field_name}={_text(value)}")
    for field_name, setting in SETTINGS.items()
    for value in _values(setting)
]


def _cli(field_name: str, value: Any) -> GenerateRequest | None:
    """The request ``generate`` makes with the value as its option's text; None = refused."""
    setting = SETTINGS[field_name]
    args = ["area.geojson", setting.option, _text(value)]
    if setting.multiple:
        args += [setting.option, _text(value)]
    try:
        params = dict(generate.make_context("generate", args).params)
    except click.UsageError:
        return None
    return request_from_options(params.pop("play_area"), params)


def _api(field_name: str, value: Any) -> GenerateRequest | None:
    """The request the API makes with the value; None = refused (TypeError/ValueError)."""
    given = [value, value] if SETTINGS[field_name].multiple else value
    try:
        return GenerateRequest(**{field_name: given})
    except (TypeError, ValueError) as exc:
        assert isinstance(exc, ArgumentError), repr(exc)
        assert str(exc).startswith(field_name) and "\n" not in str(exc)
        return None


def test_every_setting_has_values_to_try():
    tried = {c.values[0] for c in CASES}
    flags = {f for f, s in SETTINGS.items() if s.is_flag}
    assert tried | flags == set(SETTINGS)
    assert len(CASES) > 4 * len(tried)


@pytest.mark.parametrize(("field_name", "value"), CASES)
def test_the_cli_and_the_api_refuse_the_same_values(field_name, value):
    if isinstance(value, dt.date):  # a Python date: the CLI's text of it
        from_text = _cli(field_name, value.isoformat())
        assert from_text is not None and from_text.play_date == _api(field_name, value).play_date
        return
    cli, api = _cli(field_name, value), _api(field_name, value)
    assert (cli is None) == (api is None), (cli, api)
    if cli is not None:
        assert getattr(cli, field_name) == getattr(api, field_name)


@pytest.mark.parametrize("field_name", sorted(f for f, s in SETTINGS.items() if s.is_flag))
def test_a_flag_takes_only_true_or_false(field_name):
    for value in (True, False):
        assert getattr(GenerateRequest(**{field_name: value}), field_name) is value
    for value in ("no", 0, None, "False"):
        with pytest.raises(ArgumentTypeError, match=f"^{field_name} must be True or False"):
            GenerateRequest(**{field_name: value})


@pytest.mark.parametrize(
    "field_name", sorted(f for f, s in SETTINGS.items() if s.multiple or s.type is not None)
)
def test_a_wrong_type_is_a_type_error(field_name):
    setting = SETTINGS[field_name]
    wrong = ["x"] if not setting.multiple else "x"  # a list for one value, a str for many
    with pytest.raises(ArgumentTypeError, match=f"^{field_name}"):
        GenerateRequest(**{field_name: wrong})


@pytest.fixture(scope="module")
def sioux() -> tuple[sg.PlayArea, sg.OsmLayers]:
    area = sg.read_play_area(SIOUX)
    return area, sg.load_osm(area, [POIS])


def _call(verb: str, keyword: str, value: Any, sioux) -> None:
    area, osm = sioux
    if verb == "read_play_area":
        sg.read_play_area(**{keyword: value})
    elif verb == "load_osm":
        sg.load_osm(area, **{keyword: value})
    else:
        extra = {"optimize": True} if keyword == "time_limit" else {}
        sg.make_station_map(area, osm, **{keyword: value}, **extra)


@pytest.mark.parametrize(("field_name", "value"), CASES)
def test_a_value_the_cli_refuses_the_api_s_verbs_refuse_naming_their_keyword(
    field_name, value, sioux
):
    if _cli(field_name, value) is not None or field_name not in VERB_KEYWORDS:
        return
    verb, keyword = VERB_KEYWORDS[field_name]
    given = [value] if SETTINGS[field_name].multiple else value
    with pytest.raises((ArgumentValueError, ArgumentTypeError)) as info:
        _call(verb, keyword, given, sioux)
    assert str(info.value).startswith(keyword), str(info.value)


def test_the_refused_cases_cover_every_kind_of_check():
    refused = {(f, _text(v)) for f, v in (c.values for c in CASES) if _cli(f, v) is None}
    assert ("min_spacing", "nan") in refused and ("min_spacing", "inf") in refused
    assert ("max_per_cluster", "0.5") in refused and ("density_radius", "0.5") in refused
    assert ("play_date", "soon") in refused and ("game_size", "SX") in refused
    assert ("osm_relation", "0") in refused  # OSM ids start at 1
    assert isinstance(SETTINGS["min_spacing"].type, FiniteFloat)


def test_the_request_keeps_the_cli_s_forms():
    request = GenerateRequest(
        game_size="m",
        play_date="2026-07-04",
        osm_files=["a.json"],
        min_spacing=300,
        max_per_cluster=3,
    )
    assert request.game_size == "M" and request.play_date == dt.date(2026, 7, 4)
    assert request.osm_files == (Path("a.json"),)
    assert isinstance(request.min_spacing, float) and request.max_per_cluster == 3
