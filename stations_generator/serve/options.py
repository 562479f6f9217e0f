"""The ``generate`` options the page offers, taken from the CLI command itself.

The settings panel shows each option's CLI help text and default, and the server
converts the page's values with the option's own click type, so the page and the CLI
accept and refuse exactly the same values, with the same words.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import click

from stations_generator.errors import InputError

#: ``generate`` options the page sets per request (the rest are the server's: its
#: output folder, Overpass endpoints, cache; or the page's own inputs: area, sources).
PAGE_OPTIONS = (
    "game_size",
    "cluster_radius",
    "max_per_cluster",
    "min_spacing",
    "cluster_gap",
    "density_radius",
    "tiers",
    "playing_hours",
    "playing_days",
    "play_date",
    "only_categories",
    "no_transit",
    "no_water_subtract",
    "strict_priority",
    "search_rounds",
    "optimize",
    "time_limit",
    "explain",
    "map_name",
)


def _command() -> click.Command:
    from stations_generator.cli import generate

    return generate


def _param(name: str) -> click.Option:
    for p in _command().params:
        if p.name == name:
            assert isinstance(p, click.Option)
            return p
    raise KeyError(name)


def _kind(p: click.Option) -> str:
    if p.is_flag:
        return "flag"
    if p.multiple:
        return "list"
    if isinstance(p.type, click.Choice):
        return "choice"
    if isinstance(p.type, click.types.IntParamType | click.IntRange):
        return "int"
    if isinstance(p.type, click.types.FloatParamType | click.FloatRange):
        return "float"
    return "text"


def describe_options() -> list[dict[str, Any]]:
    """Every page option: name, CLI flag, kind, default, help text (and choices)."""
    out = []
    for name in PAGE_OPTIONS:
        p = _param(name)
        entry: dict[str, Any] = {
            "name": name,
            "flag": max(p.opts, key=len),
            "kind": _kind(p),
            "default": p.default if isinstance(p.default, str | int | float | bool) else None,
            "help": p.help or "",
        }
        if isinstance(p.type, click.Choice):
            entry["choices"] = list(p.type.choices)
        out.append(entry)
    return out


def convert_settings(settings: Any) -> dict[str, Any]:
    """The page's settings as ``GenerateRequest`` keyword values, checked as the CLI checks them.

    Missing or ``null`` settings take the CLI's default. Raises :class:`InputError` with
    click's own message (``invalid value for '--min-spacing': …``) for a bad value, or
    for a setting the page does not know.
    """
    if settings is None:
        settings = {}
    if not isinstance(settings, dict):
        raise InputError("settings must be a JSON object of generate options")
    unknown = sorted(set(settings) - set(PAGE_OPTIONS))
    if unknown:
        raise InputError(
            f"unknown setting {unknown[0]!r}; the settings are: " + ", ".join(PAGE_OPTIONS)
        )
    ctx = click.Context(_command())
    values: dict[str, Any] = {}
    for name in PAGE_OPTIONS:
        p = _param(name)
        raw = settings.get(name)
        if raw == "" and not p.is_flag:
            raw = None
        if p.is_flag:
            if raw is not None and not isinstance(raw, bool):
                raise InputError(f"invalid value for {p.opts[0]!r}: give true or false")
            raw = bool(raw)
        elif p.multiple:
            if raw is None:
                raw = ()
            if not isinstance(raw, list | tuple) or not all(isinstance(v, str) for v in raw):
                raise InputError(f"invalid value for {p.opts[0]!r}: give a list of names")
        elif raw is not None and not isinstance(raw, str | int | float) or isinstance(raw, bool):
            raise InputError(f"invalid value for {p.opts[0]!r}: give a number or a text")
        if raw is None:
            default = p.get_default(ctx)
            raw = default if isinstance(default, str | int | float | tuple | list) else None
        try:
            value = p.process_value(ctx, raw)
        except click.BadParameter as exc:
            from stations_generator.cli import click_error_line

            exc.ctx = None  # the page has no --help to point to
            exc.param = exc.param or p
            raise InputError(click_error_line(exc).removeprefix("error: ")) from None
        values[name] = (
            value if isinstance(value, str | int | float | tuple | list | dt.date) else None
        )
    return values
