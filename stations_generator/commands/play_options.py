"""The options ``roll``, ``route`` and ``calibrate`` share, and their parsing."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from stations_generator.app.play import RoadOptions
from stations_generator.commands.options import SPEED_KPH, overpass_options
from stations_generator.core.play.clock import parse_clock
from stations_generator.core.play.departure import (
    DEFAULT_TABLE,
    DEFAULT_TABLE_SPEC,
    DepartureTable,
    parse_table,
)
from stations_generator.core.play.drive import GREAT_CIRCLE_SPEED_KPH
from stations_generator.errors import InputError

__all__ = [
    "TRANSIT_IN_PLAY",
    "parse_clock_option",
    "parse_table_option",
    "road_options",
    "table_option",
]

#: Whether real transit is in play unless told (the same for roll, route and calibrate):
#: the arrival cooldown is a house rule for games that also use real transit, so it is
#: asked for (--transit-in-play), never assumed.
TRANSIT_IN_PLAY = False


def parse_table_option(spec: str | None) -> DepartureTable:
    """The departure table of ``--table`` (the rules' table without one).

    Parameters
    ----------
    spec : str or None
        ``LOW-HIGH:OUTCOME,…``.

    Returns
    -------
    DepartureTable

    Raises
    ------
    InputError
        The text is not a table.
    """
    if not spec:
        return DEFAULT_TABLE
    try:
        return parse_table(spec)
    except ValueError as exc:
        raise InputError(f"--table: {exc}") from None


def parse_clock_option(text: str | None, option: str = "--at") -> int | None:
    """A clock-time option (``HH:MM``) in seconds after midnight; None without one.

    Parameters
    ----------
    text : str or None
    option : str
        The option's name, for the error message.

    Returns
    -------
    int or None

    Raises
    ------
    InputError
        The text is not a clock time.
    """
    if text is None:
        return None
    try:
        return parse_clock(text)
    except ValueError as exc:
        raise InputError(f"{option}: {exc}") from None


def road_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add --osm, --online, --speed and the Overpass options; they arrive as ``roads``.

    Parameters
    ----------
    f : callable
        The command's function; it takes a ``roads`` (:class:`RoadOptions`) keyword.

    Returns
    -------
    callable
    """
    options = [
        click.option(
            "--osm",
            type=click.Path(path_type=Path),
            help="OSM extract (.osm.pbf …) with the play area's roads, for offline drive times.",
        ),
        click.option(
            "--online",
            is_flag=True,
            help="Download the road network from Overpass (cached).",
        ),
        click.option(
            "--speed",
            type=SPEED_KPH(min=1),
            default=GREAT_CIRCLE_SPEED_KPH,
            show_default=True,
            help="Assumed km/h along the great circle when there is no road path.",
        ),
    ]

    @functools.wraps(f)
    def wrapper(
        *args, osm, online, speed, overpass_urls, overpass_timeout, cache_dir, no_cache, **kwargs
    ):
        roads = RoadOptions(
            osm, online, speed, tuple(overpass_urls), cache_dir, not no_cache, overpass_timeout
        )
        return f(*args, roads=roads, **kwargs)

    wrapper = overpass_options(
        url_help="With --online: Overpass endpoint (repeatable; tried in order; "
        "env STATIONS_GENERATOR_OVERPASS_URL).",
        timeout_help="With --online: deadline in seconds for the download, every try and "
        "wait included.",
        cache_help="With --online: the Overpass cache folder [default: the user cache dir].",
        no_cache_help="With --online: do not use the cache.",
    )(wrapper)
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


table_option = click.option(
    "--table",
    "table_spec",
    metavar="SPEC",
    help=f"Departure table as LOW-HIGH:OUTCOME,… (leave/min/max/miss) [default: {DEFAULT_TABLE_SPEC}].",
)
"""``--table SPEC``: a departure table other than the rules' (:func:`parse_table_option`)."""
