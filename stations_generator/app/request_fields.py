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

The Python API gives values, not text: :meth:`Setting.check` checks a value's Python type
(a bool is no number, a float no whole number, a string no list) and then runs the same
click type on it, so a value the command line refuses the API refuses too, and a request
type checks every field this way when it is made (:func:`check_fields`). The errors are
:class:`ArgumentValueError` and :class:`ArgumentTypeError`: the ValueError and TypeError a
library user expects, and :class:`~stations_generator.errors.InputError` errors the command
line and the server print as one line; each names its parameter first.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import math
import numbers
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from stations_generator.core.geo.earth import HALF_EARTH_M
from stations_generator.errors import (
    ArgumentError,
    ArgumentTypeError,
    ArgumentValueError,
    InputError,
)
from stations_generator.pages.palette import PALETTES

__all__ = [
    "ArgumentTypeError",
    "ArgumentValueError",
    "FiniteFloat",
    "MAP_PALETTE",
    "METRES",
    "MINUTES",
    "SECONDS",
    "SPEED_KPH",
    "Setting",
    "argument",
    "check_fields",
    "check_flag",
    "check_items",
    "check_number",
    "check_path",
    "check_text",
    "click_error_line",
    "describe",
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


@contextlib.contextmanager
def argument(name: str) -> Iterator[None]:
    """The errors raised while reading the value of ``name`` (a file that is no play
    area, an unknown category, a point outside the map, a bad geometry) as an
    :class:`ArgumentValueError` naming it, on one line.

    Parameters
    ----------
    name : str
        The parameter whose value the block reads.

    Yields
    ------
    None
    """
    from shapely.errors import ShapelyError

    try:
        yield
    except ArgumentError:
        raise
    except (InputError, ValueError, ShapelyError) as exc:
        message = " ".join(str(exc).split())
        problem = message[len(name) :] if message.startswith(name) else f": {message}"
        raise ArgumentValueError(name, problem) from None


def describe(value: Any) -> str:
    """A value's type, and the value itself if it is short and scalar (for one line).

    Parameters
    ----------
    value : Any

    Returns
    -------
    str
        E.g. ``"str '300'"``, ``"NoneType"``, ``"GeoDataFrame"``.
    """
    kind = type(value).__name__
    if value is None or not isinstance(value, str | bytes | numbers.Number | Path):
        return kind
    text = repr(str(value) if isinstance(value, Path) else value).replace("\n", " ")
    return f"{kind} {text if len(text) <= 60 else text[:57] + '...'}"


def check_flag(name: str, value: Any) -> bool:
    """``value`` if it is True or False (a truthy string is no flag).

    Parameters
    ----------
    name : str
        The parameter, for the message.
    value : Any

    Returns
    -------
    bool

    Raises
    ------
    ArgumentTypeError
    """
    if not isinstance(value, bool):
        raise ArgumentTypeError(name, f" must be True or False, not {describe(value)}")
    return value


def check_text(name: str, value: Any, *, empty: bool = True) -> str:
    """``value`` if it is a str (and not empty unless ``empty``).

    Parameters
    ----------
    name : str
        The parameter, for the message.
    value : Any
    empty : bool
        Whether ``""`` is allowed.

    Returns
    -------
    str

    Raises
    ------
    ArgumentTypeError, ArgumentValueError
    """
    if not isinstance(value, str):
        raise ArgumentTypeError(name, f" must be a str, not {describe(value)}")
    if not empty and not value.strip():
        raise ArgumentValueError(name, " must not be empty")
    return value


def check_path(name: str, value: Any) -> Path:
    """``value`` as a Path if it is a str or a path.

    Parameters
    ----------
    name : str
        The parameter, for the message.
    value : Any

    Returns
    -------
    Path

    Raises
    ------
    ArgumentTypeError
    """
    if not isinstance(value, str | os.PathLike):
        raise ArgumentTypeError(name, f" must be a file path (str or Path), not {describe(value)}")
    return Path(value)


def check_items(name: str, value: Any, check: Callable[[str, Any], Any], what: str) -> tuple:
    """``value``'s items, each checked, as a tuple; a str (or one area) is not a list.

    Parameters
    ----------
    name : str
        The parameter, for the message.
    value : Any
        A list, tuple or other iterable.
    check : callable
        ``check(name, item)`` -> the item checked (:func:`check_text`, :func:`check_path`…).
    what : str
        The items in words, e.g. ``"file paths"``.

    Returns
    -------
    tuple

    Raises
    ------
    ArgumentTypeError
        For a str, bytes, dict, Path or geometry (one thing, not a list of them), a
        non-iterable, or an item ``check`` refuses.
    """
    one = isinstance(value, str | bytes | dict | os.PathLike) or hasattr(value, "__geo_interface__")
    if one or not hasattr(value, "__iter__"):
        raise ArgumentTypeError(
            name, f" must be a list of {what} (for one, give [it]), not {describe(value)}"
        )
    return tuple(check(f"{name}[{k}]", item) for k, item in enumerate(value))


def check_number(name: str, value: Any, kind: click.ParamType) -> int | float:
    """``value`` checked by the click number type ``kind`` (a range, finiteness).

    Parameters
    ----------
    name : str
        The parameter, for the message.
    value : Any
        An int or float; an int type takes no float (1.5 or 2.0) and no type a bool.
    kind : click.ParamType
        :class:`FiniteFloat`, :class:`click.IntRange`, ``click.INT``…

    Returns
    -------
    int or float

    Raises
    ------
    ArgumentTypeError, ArgumentValueError
    """
    whole = isinstance(kind, click.types.IntParamType)
    wanted = numbers.Integral if whole else numbers.Real
    if isinstance(value, bool) or not isinstance(value, wanted):
        words = "a whole number (int)" if whole else "a number"
        raise ArgumentTypeError(name, f" must be {words}, not {describe(value)}")
    return _converted(name, int(value) if whole else float(value), kind)


def _converted(name: str, value: Any, kind: click.ParamType) -> Any:
    try:
        return kind.convert(value, None, None)
    except click.BadParameter as exc:
        raise ArgumentValueError(name, f": {exc.message.rstrip('.')}") from None


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
    value_type : type or None
        With ``callback``: the type the callback makes (e.g. :class:`datetime.date`),
        which a value from Python may have instead of the text.
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
    value_type: type | None = None

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

    def check(self, name: str, value: Any, default: Any = None) -> Any:
        """A value from Python for the field, checked as the option checks its text.

        The value's type first (a flag takes True or False, a repeatable option a list,
        a number option a number, a whole-number option an int), then the option's click
        type or callback on it: the same range, finiteness, choices and date form.

        Parameters
        ----------
        name : str
            The field (or keyword) the message names.
        value : Any
            The value given.
        default : Any
            The field's default: None is allowed where it is None.

        Returns
        -------
        Any
            The value as the field holds it (a float, a tuple, a Path, a choice's own case).

        Raises
        ------
        ArgumentTypeError, ArgumentValueError
            Naming ``name``.
        """
        if value is None and default is None and not self.is_flag:
            return None
        if self.is_flag:
            return check_flag(name, value)
        if self.multiple:
            what = "file paths" if isinstance(self.type, click.Path) else "names (str)"
            return check_items(name, value, self._check_one, what)
        return self._check_one(name, value)

    def _check_one(self, name: str, value: Any) -> Any:
        if self.callback is not None:
            if self.value_type is not None and isinstance(value, self.value_type):
                return value
            text = check_text(name, value)
            try:
                return self.callback(None, None, text)
            except click.BadParameter as exc:
                raise ArgumentValueError(name, f": {exc.message}") from None
        if isinstance(self.type, click.Path):
            return check_path(name, value)
        if isinstance(self.type, click.types.IntParamType | click.types.FloatParamType):
            return check_number(name, value, self.type)
        text = check_text(name, value)
        return text if self.type is None else _converted(name, text, self.type)


def check_fields(request: Any) -> None:
    """Check every field of a (frozen) request dataclass that has a :class:`Setting`, as
    the command line checks its option, and store the value as checked.

    Parameters
    ----------
    request : dataclass instance
        Called from its ``__post_init__``.

    Raises
    ------
    ArgumentTypeError, ArgumentValueError
        Naming the field.
    """
    for f in dataclasses.fields(request):
        if "setting" in f.metadata:
            value = f.metadata["setting"].check(f.name, getattr(request, f.name), f.default)
            object.__setattr__(request, f.name, value)


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


MAP_PALETTE = Setting(
    "--palette",
    "Colours of the HTML map: default, or okabe-ito (safe with colour-blindness). Either "
    "way clusters' rings also differ in dash pattern and removed areas carry their "
    "question's number.",
    type=click.Choice(PALETTES),
    show_default=True,
)
"""``--palette``, the colours of every HTML map (``generate --map``, ``map``, ``questions
apply --map``), stated once: each command's option is made from it
(:func:`stations_generator.commands.options.palette_option`), and a request field or API
keyword checks its value with :meth:`Setting.check` (default ``"default"``)."""
