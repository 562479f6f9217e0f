"""The settings a user gives a use case: request fields with their flag, help and type.

A request dataclass (:class:`stations_generator.app.generate.GenerateRequest`) states
each setting once, as a field whose default is the setting's default and whose
metadata is a :class:`Setting`: the command-line flag, the help text and the click
parameter type. The command line builds its options from them
(:func:`stations_generator.commands.options.request_option`) and the organiser's page
its settings panel (:mod:`stations_generator.serve.options`); both check a value with
the same click type, so they accept and refuse the same values in the same words.

The click types live here, below both, for that reason. ``click.FloatRange`` lets
``nan`` through (every comparison with NaN is false) and ``inf`` through any open
upper end; :class:`FiniteFloat` refuses both with one line naming the option and the
range, so no command ever computes with a non-finite number.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Callable
from typing import Any

import click

from stations_generator.core.geo.earth import HALF_EARTH_M

__all__ = [
    "FiniteFloat",
    "METRES",
    "MINUTES",
    "SECONDS",
    "SPEED_KPH",
    "Setting",
    "click_error_line",
    "field_defaults",
    "parse_date",
    "setting",
    "settings_of",
]


class FiniteFloat(click.FloatRange):
    """A finite float in ``[min, max]`` (open ends as in :class:`click.FloatRange`)."""

    name = "float"

    def _words(self) -> str:
        low = "" if self.min is None else f"{'above' if self.min_open else 'from'} {self.min:g}"
        high = "" if self.max is None else f"{'below' if self.max_open else 'up to'} {self.max:g}"
        return "a number " + " ".join(p for p in (low, high) if p) if low or high else "a number"

    def convert(self, value, param, ctx):
        """``value`` as a float, refusing ``nan``, infinities and numbers out of range."""
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number; give {self._words()}", param, ctx)
        return super().convert(number, param, ctx)


def METRES(min: float = 0.0, min_open: bool = False) -> FiniteFloat:  # noqa: N802
    """A distance option in metres, at most half the Earth's circumference.

    Parameters
    ----------
    min : float
        The smallest distance allowed.
    min_open : bool
        Whether ``min`` itself is refused.

    Returns
    -------
    FiniteFloat
    """
    return FiniteFloat(min=min, max=HALF_EARTH_M, min_open=min_open)


def MINUTES(min: float = 0.0) -> FiniteFloat:  # noqa: N802
    """A duration option in minutes, at most a day.

    Parameters
    ----------
    min : float
        The shortest duration allowed.

    Returns
    -------
    FiniteFloat
    """
    return FiniteFloat(min=min, max=24 * 60)


def SECONDS(min: float = 1.0) -> FiniteFloat:  # noqa: N802
    """A timeout option in seconds, at most a day.

    Parameters
    ----------
    min : float
        The shortest timeout allowed.

    Returns
    -------
    FiniteFloat
    """
    return FiniteFloat(min=min, max=86_400)


def SPEED_KPH(min: float = 1.0) -> FiniteFloat:  # noqa: N802
    """A road speed in km/h (the fastest motorways allow ~150; 300 leaves room).

    Parameters
    ----------
    min : float
        The slowest speed allowed.

    Returns
    -------
    FiniteFloat
    """
    return FiniteFloat(min=min, max=300)


def parse_date(_ctx: click.Context | None, _param: click.Parameter | None, value: str | None):
    """A click callback: ``YYYY-MM-DD`` as a :class:`datetime.date` (None stays None).

    Parameters
    ----------
    value : str or None
        The option's text.

    Returns
    -------
    datetime.date or None

    Raises
    ------
    click.BadParameter
        For a text that is not an ISO date.
    """
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date; write YYYY-MM-DD") from None


def click_error_line(exc: click.ClickException) -> str:
    """A click error (bad option, missing argument…) as one ``error:`` line like the tool's
    own, naming the command's --help instead of repeating its usage.

    Parameters
    ----------
    exc : click.ClickException
        The error; a usage error with a context names that command's ``--help``.

    Returns
    -------
    str
        ``error: …`` on one line.
    """
    message = exc.format_message().strip().replace("\n", " ")
    message = (message[:1].lower() + message[1:]).rstrip(".")
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message += f"; see '{ctx.command_path} --help'"
    return f"error: {message}"


@dataclasses.dataclass(frozen=True)
class Setting:
    """How a user gives one request field: on the command line and on the page.

    Attributes
    ----------
    option : str
        The long option, e.g. ``"--min-spacing"``.
    help : str
        The help text (the page shows it too).
    type : click.ParamType or None
        The click type that checks a value; None for text (and for a flag).
    is_flag : bool
        A flag: no value follows it (a field with a bool default).
    negated : bool
        A flag that turns the field off (``--no-transit`` for ``include_transit``).
    multiple : bool
        Repeatable; the field is a tuple of the values (a field with a tuple default).
    optional : bool
        The option has no default of its own: not given, the field keeps its default
        (which the help text states).
    short : str or None
        A short option, e.g. ``"-o"``.
    show_default : bool
        Whether ``--help`` shows the default.
    callback : callable or None
        A click callback converting the text (e.g. :func:`parse_date`).
    """

    option: str
    help: str
    type: click.ParamType | None = None
    is_flag: bool = False
    negated: bool = False
    multiple: bool = False
    optional: bool = False
    short: str | None = None
    show_default: bool = False
    callback: Callable[..., Any] | None = None

    def name(self, field_name: str) -> str:
        """The option's value name: the field's, or the flag's for a negated flag.

        Parameters
        ----------
        field_name : str
            The request field the setting sets.

        Returns
        -------
        str
            E.g. ``"min_spacing"``, or ``"no_transit"`` for ``include_transit``.
        """
        return self.option.lstrip("-").replace("-", "_") if self.negated else field_name

    def option_default(self, field_default: Any) -> Any:
        """The option's default for the field's: negated for a negated flag, None if optional.

        Parameters
        ----------
        field_default : Any
            The request field's default.

        Returns
        -------
        Any
        """
        if self.optional:
            return None
        return not field_default if self.negated else field_default

    def click_args(self, field_name: str, field_default: Any) -> tuple[list[str], dict[str, Any]]:
        """The declarations and keywords of the setting's :class:`click.Option`.

        Parameters
        ----------
        field_name : str
            The request field the setting sets.
        field_default : Any
            The field's default.

        Returns
        -------
        tuple of (list of str, dict)
            For ``click.option(*decls, **kwargs)`` or ``click.Option(decls, **kwargs)``.
        """
        decls = [d for d in (self.short, self.option) if d] + [self.name(field_name)]
        kwargs: dict[str, Any] = {"help": self.help}
        default = self.option_default(field_default)
        if not (default is None or default is False or default == ()):  # else click's own
            kwargs["default"] = default
        for key in ("is_flag", "multiple", "show_default"):
            if getattr(self, key):
                kwargs[key] = True
        if self.type is not None:
            kwargs["type"] = self.type
        if self.callback is not None:
            kwargs["callback"] = self.callback
        return decls, kwargs

    def field_value(self, value: Any) -> Any:
        """The request field's value for the option's ``value``.

        Parameters
        ----------
        value : Any
            What click (or the page) gave for the option.

        Returns
        -------
        Any
            ``not value`` for a negated flag, a tuple for a repeatable option.
        """
        if self.negated:
            return not value
        if self.multiple:
            return tuple(value)
        return value


def setting(default: Any, option: str, help: str, **details: Any) -> Any:  # noqa: A002
    """A request field with ``default`` and its :class:`Setting` (``details``: its fields).

    Parameters
    ----------
    default : Any
        The field's default: the one place it is stated. A bool default makes the
        setting a flag, a tuple default a repeatable option.
    option, help : str
        The long option and its help text.
    **details
        The other :class:`Setting` attributes.

    Returns
    -------
    dataclasses.Field
    """
    details.setdefault("is_flag", isinstance(default, bool))
    details.setdefault("multiple", isinstance(default, tuple))
    meta = {"setting": Setting(option, help, **details)}
    return dataclasses.field(default=default, metadata=meta)


def settings_of(request_type: type) -> dict[str, Setting]:
    """Every field of ``request_type`` that a user sets, by field name, in field order.

    Parameters
    ----------
    request_type : type
        A request dataclass.

    Returns
    -------
    dict of str to Setting
    """
    return {
        f.name: f.metadata["setting"]
        for f in dataclasses.fields(request_type)
        if "setting" in f.metadata
    }


def field_defaults(request_type: type) -> dict[str, Any]:
    """Every field's default, by field name.

    Parameters
    ----------
    request_type : type
        A request dataclass whose fields all have defaults.

    Returns
    -------
    dict of str to Any
    """
    return {f.name: f.default for f in dataclasses.fields(request_type)}
