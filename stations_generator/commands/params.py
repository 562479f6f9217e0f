"""Click parameter types shared by every command: finite numbers within stated ranges.

``click.FloatRange`` lets ``nan`` through (every comparison with NaN is false) and
``inf`` through any open upper end; :class:`FiniteFloat` refuses both with one line
naming the option and the range, so no command ever computes with a non-finite number.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

__all__ = ["FiniteFloat", "METRES", "MINUTES", "SECONDS", "SPEED_KPH", "overpass_options"]


class FiniteFloat(click.FloatRange):
    """A finite float in ``[min, max]`` (open ends as in :class:`click.FloatRange`)."""

    name = "float"

    def _words(self) -> str:
        low = "" if self.min is None else f"{'above' if self.min_open else 'from'} {self.min:g}"
        high = "" if self.max is None else f"{'below' if self.max_open else 'up to'} {self.max:g}"
        return "a number " + " ".join(p for p in (low, high) if p) if low or high else "a number"

    def convert(self, value, param, ctx):
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number; give {self._words()}", param, ctx)
        return super().convert(number, param, ctx)


#: The longest distance that makes sense on Earth (half its circumference), in metres.
HALF_EARTH_M = 20_037_508.0


def METRES(min: float = 0.0, min_open: bool = False) -> FiniteFloat:  # noqa: N802
    """A distance option in metres, at most half the Earth's circumference."""
    return FiniteFloat(min=min, max=HALF_EARTH_M, min_open=min_open)


def MINUTES(min: float = 0.0) -> FiniteFloat:  # noqa: N802
    """A duration option in minutes, at most a day."""
    return FiniteFloat(min=min, max=24 * 60)


def SECONDS(min: float = 1.0) -> FiniteFloat:  # noqa: N802
    """A timeout option in seconds, at most a day."""
    return FiniteFloat(min=min, max=86_400)


def SPEED_KPH(min: float = 1.0) -> FiniteFloat:  # noqa: N802
    """A road speed in km/h (the fastest motorways allow ~150; 300 leaves room)."""
    return FiniteFloat(min=min, max=300)


def overpass_options(
    *, url_help: str, timeout_help: str, cache_help: str, no_cache_help: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--overpass-url``, ``--overpass-timeout``, ``--cache-dir``, ``--no-cache``: the same
    names, types, defaults and environment variables on every command that fetches; each
    command words the help for what it fetches."""
    options = [
        click.option(
            "--overpass-url",
            "overpass_urls",
            multiple=True,
            envvar="STATIONS_GENERATOR_OVERPASS_URL",
            help=url_help,
        ),
        click.option(
            "--overpass-timeout",
            type=SECONDS(min=1),
            default=300.0,
            show_default=True,
            help=timeout_help,
        ),
        click.option(
            "--cache-dir",
            type=click.Path(path_type=Path),
            envvar="STATIONS_GENERATOR_CACHE_DIR",
            help=cache_help,
        ),
        click.option("--no-cache", is_flag=True, help=no_cache_help),
    ]

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            f = option(f)
        return f

    return decorate
