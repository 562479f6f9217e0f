"""The ``generate`` settings the page offers, made from :class:`GenerateRequest`'s fields.

The settings panel shows each setting's help text and default, as the command line's
``--help`` does, and the server checks the page's values with the setting's own click
type, so the page and the CLI accept and refuse exactly the same values, with the
same words.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import click

from stations_generator.app.request_fields import Setting, click_error_line, settings_of
from stations_generator.app.requests import GenerateRequest
from stations_generator.errors import InputError

__all__ = [
    "LABELS",
    "PAGE_FIELDS",
    "PAGE_OPTIONS",
    "convert_settings",
    "describe_options",
    "page_text",
]

#: ``GenerateRequest`` fields the page sets per request (the rest are the server's: its
#: output folder, Overpass endpoints, cache; or the page's own inputs: area, sources).
PAGE_FIELDS = (
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
    "include_transit",
    "water_subtract",
    "strict_priority",
    "search_rounds",
    "optimize",
    "time_limit",
    "explain",
    "map_name",
)

#: The largest whole number a setting takes: counts go to C ``ssize_t`` in the Cython
#: kernel, which overflows beyond 2**63 (the page's counts are far below 2**31).
MAX_COUNT = 2**31 - 1

_SETTINGS: dict[str, Setting] = {f: settings_of(GenerateRequest)[f] for f in PAGE_FIELDS}
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(GenerateRequest)}

#: The page's names of the settings: the options' value names (``no_transit``, …).
PAGE_OPTIONS = tuple(s.name(f) for f, s in _SETTINGS.items())


def _option(field_name: str) -> click.Option:
    decls, kwargs = _SETTINGS[field_name].click_args(field_name, _DEFAULTS[field_name])
    return click.Option(decls, **kwargs)


_OPTIONS = {f: _option(f) for f in PAGE_FIELDS}

#: The page's label of each setting, in a player's words (the CLI flag is its tooltip).
LABELS = {
    "game_size": "Game size",
    "cluster_radius": "Cluster radius (m)",
    "max_per_cluster": "Stations per cluster, at most",
    "min_spacing": "Spacing within a cluster (m)",
    "cluster_gap": "Gap between clusters (m)",
    "density_radius": "Neighbourhood radius for wait times (m)",
    "tiers": "Wait tiers",
    "playing_hours": "Playing hours",
    "playing_days": "Playing days",
    "play_date": "First day of play",
    "only_categories": "Only these station categories",
    "include_transit": "Leave out transit stations",
    "water_subtract": "Keep water in the play area",
    "strict_priority": "Strict rank order (no swaps)",
    "search_rounds": "Local search rounds",
    "optimize": "Solve exactly (slower)",
    "time_limit": "Solver time limit (s)",
    "explain": "Explain every candidate (in the downloads)",
    "map_name": "Map name",
}
#: Upper ends not worth stating on the page: half the Earth (a distance), a day (a time).
_NO_UPPER = (20037508.0, 1440.0, 86400.0, 1_000_000)


_DEFAULT_NOTE = re.compile(r"\[default: ([^\]]*)\]")


def _limits(p: click.Option) -> str:
    """A number option's range in words ("0 or more", "from 1 to 300"), or ""."""
    low, high = getattr(p.type, "min", None), getattr(p.type, "max", None)
    if high is not None and any(abs(high - n) < 1 for n in _NO_UPPER):
        high = None
    if low is None and high is None:
        return ""
    if high is None:
        return f"{low:g} or more" if not getattr(p.type, "min_open", False) else f"above {low:g}"
    if low is None:
        return f"at most {high:,g}"
    return f"from {low:g} to {high:,g}"


def page_text(text: str) -> str:
    """A help text in the page's words: every CLI flag of a page setting as its label.

    Parameters
    ----------
    text : str
        A help text or message that may name ``--cluster-radius`` and the like.

    Returns
    -------
    str
        ``--optimize`` as "Solve exactly (slower)" (in quotes), and so on.
    """
    for field_name in sorted(PAGE_FIELDS, key=lambda f: -len(_SETTINGS[f].option)):
        text = text.replace(_SETTINGS[field_name].option, f"“{LABELS[field_name]}”")
    text = _DEFAULT_NOTE.sub(r"(default: \1)", text.replace(" (repeatable)", ""))
    return text


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
    """Every page setting: name, CLI flag, kind, default, help text (and choices); the
    page's label, the help in its words and a number's range in words.

    Returns
    -------
    list of dict
        One per setting, in the panel's order.
    """
    out = []
    for field_name, p in _OPTIONS.items():
        entry: dict[str, Any] = {
            "name": p.name,
            "flag": _SETTINGS[field_name].option,
            "kind": _kind(p),
            "default": p.default if isinstance(p.default, str | int | float | bool) else None,
            "help": p.help or "",
            "label": LABELS[field_name],
            "page_help": page_text(p.help or ""),
            "limits": _limits(p),
        }
        if isinstance(p.type, click.Choice):
            entry["choices"] = list(p.type.choices)
        out.append(entry)
    return out


def _raw(p: click.Option, raw: Any) -> Any:
    """The page's value for ``p`` as click would get it (None: not given)."""
    if raw == "" and not p.is_flag:
        raw = None
    if p.is_flag:
        if raw is not None and not isinstance(raw, bool):
            raise InputError(f"invalid value for {p.opts[0]!r}: give true or false")
        return bool(raw)
    if p.multiple:
        if raw is None:
            raw = ()
        if not isinstance(raw, list | tuple) or not all(isinstance(v, str) for v in raw):
            raise InputError(f"invalid value for {p.opts[0]!r}: give a list of names")
        return raw
    if raw is not None and not isinstance(raw, str | int | float) or isinstance(raw, bool):
        raise InputError(f"invalid value for {p.opts[0]!r}: give a number or a text")
    return raw


def convert_settings(settings: Any) -> dict[str, Any]:
    """The page's settings as ``GenerateRequest`` fields, checked as the CLI checks them.

    Parameters
    ----------
    settings : dict or None
        The page's settings by name (``min_spacing``, ``no_transit``, …); a missing or
        ``null`` one takes the CLI's default.

    Returns
    -------
    dict
        ``GenerateRequest`` keyword values (an optional setting not given is left out,
        so the field keeps its default).

    Raises
    ------
    InputError
        With click's own message (``invalid value for '--min-spacing': …``) for a bad
        value, or for a setting the page does not know.
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
    ctx = click.Context(click.Command("generate"))
    fields: dict[str, Any] = {}
    for field_name, p in _OPTIONS.items():
        setting = _SETTINGS[field_name]
        raw = _raw(p, settings.get(p.name))
        if raw is None:  # the CLI's default (click marks "no default" with a sentinel)
            default = p.get_default(ctx)
            raw = default if isinstance(default, str | int | float | tuple | list) else None
        try:
            value = p.process_value(ctx, raw)
        except click.BadParameter as exc:
            exc.ctx = None  # the page has no --help to point to
            exc.param = exc.param or p
            raise InputError(click_error_line(exc).removeprefix("error: ")) from None
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_COUNT:
            raise InputError(
                f"invalid value for {p.opts[0]!r}: {_shown(value)} is too large "
                f"(at most {MAX_COUNT:,})"
            )
        if not (setting.optional and value is None):
            fields[field_name] = setting.field_value(value)
    return fields


def _shown(value: int) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"{text[:12]}… ({len(text)} digits)"
