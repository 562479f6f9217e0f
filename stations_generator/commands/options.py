"""What every command shares: the click context settings, parameter types, option sets.

The parameter types are :mod:`stations_generator.app.request_fields`' (the organiser's page
checks its settings with the same ones); they are re-exported here for the commands.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from stations_generator.app.request_fields import (
    MAP_PALETTE,
    METRES,
    MINUTES,
    SECONDS,
    SPEED_KPH,
    FiniteFloat,
    parse_date,
)
from stations_generator.errors import InputError
from stations_generator.formats.atomic import output_set
from stations_generator.settings import CACHE_DIR_ENV, DEFAULT_TIMEOUT_S, OVERPASS_URL_ENV

__all__ = [
    "CONTEXT",
    "METRES",
    "MINUTES",
    "SECONDS",
    "SPEED_KPH",
    "FiniteFloat",
    "check_outputs",
    "overpass_options",
    "palette_option",
    "parse_date",
    "request_option",
]

#: Every command's click context settings: -h as --help, help text up to 100 columns.
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def request_option(request_type: type, field_name: str) -> Decorator:
    """The click option of a request field, from the field's default and its Setting.

    Parameters
    ----------
    request_type : type
        A request dataclass, e.g. :class:`~stations_generator.app.generate.GenerateRequest`.
    field_name : str
        One of its fields with a :class:`~stations_generator.app.request_fields.Setting`.

    Returns
    -------
    callable
        The ``click.option`` decorator.
    """
    field = {f.name: f for f in dataclasses.fields(request_type)}[field_name]
    decls, kwargs = field.metadata["setting"].click_args(field_name, field.default)
    return click.option(*decls, **kwargs)


def palette_option() -> Decorator:
    """``--palette``, the HTML map's colours (:data:`~stations_generator.app.request_fields.MAP_PALETTE`),
    for the commands that write a map (``map``, ``questions apply --map``).

    Returns
    -------
    callable
        The ``click.option`` decorator; the value is named ``palette``, default
        ``"default"``.
    """
    decls, kwargs = MAP_PALETTE.click_args("palette", MAP_PALETTE.type.choices[0])
    return click.option(*decls, **kwargs)


def overpass_options(
    *, url_help: str, timeout_help: str, cache_help: str, no_cache_help: str
) -> Decorator:
    """``--overpass-url``, ``--overpass-timeout``, ``--cache-dir``, ``--no-cache``: the same
    names, types, defaults and environment variables on every command that fetches; each
    command words the help for what it fetches.

    Parameters
    ----------
    url_help, timeout_help, cache_help, no_cache_help : str
        The four options' help texts.

    Returns
    -------
    callable
        A decorator adding the four options.
    """
    options = [
        click.option(
            "--overpass-url",
            "overpass_urls",
            multiple=True,
            envvar=OVERPASS_URL_ENV,
            help=url_help,
        ),
        click.option(
            "--overpass-timeout",
            type=SECONDS(min=1),
            default=DEFAULT_TIMEOUT_S,
            show_default=True,
            help=timeout_help,
        ),
        click.option(
            "--cache-dir",
            type=click.Path(path_type=Path),
            envvar=CACHE_DIR_ENV,
            help=cache_help,
        ),
        click.option("--no-cache", is_flag=True, help=no_cache_help),
    ]

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            f = option(f)
        return f

    return decorate


def check_outputs(output: Path | None, html_file: Path | None) -> list[Path]:
    """The files a command writes with ``-o`` and ``--html`` (which must differ), in order.

    Raises
    ------
    InputError
        When both name the same file.
    """
    if output is not None and html_file is not None and output.resolve() == html_file.resolve():
        raise InputError(f"-o and --html both name {output}; give two different files")
    return [f for f in (output, html_file) if f is not None]


def document_options(document: str, page: str) -> Decorator:
    """``-o/--output FILE`` (the command's ``document``: stdout without it) and
    ``--html FILE`` (a ``page`` besides), as :func:`write_document` writes them."""

    def decorate(command: Callable) -> Callable:
        command = click.option(
            "--html",
            "html_file",
            type=click.Path(path_type=Path),
            help=f"Also write an HTML page: {page}.",
        )(command)
        return click.option(
            "-o",
            "--output",
            type=click.Path(path_type=Path),
            help=f"{document} file [default: stdout].",
        )(command)

    return decorate


def write_document(
    output: Path | None,
    html_file: Path | None,
    make: Callable[[], tuple[str, Callable[[], str]]],
    logger: Any,
) -> None:
    """Make a command's document and page and write them: both files or neither.

    Parameters
    ----------
    output, html_file : Path or None
        ``-o`` (without it the document goes to stdout) and ``--html``.
    make : callable
        Returns the document's text and a function that makes the page (called only
        with ``--html``); it runs inside the output set, so a failure leaves no file.
    logger : logging.Logger
        The command's logger, for the "Wrote FILE" lines.

    Raises
    ------
    InputError
        When ``-o`` and ``--html`` name the same file (before anything is made).
    """
    files = check_outputs(output, html_file)
    # Both files (they may be in two folders) appear together, or not at all.
    with output_set(Path(), files) as outputs:
        text, page = make()
        if html_file is not None:
            outputs.write_text(html_file, page())
        if output is not None:
            outputs.write_text(output, text)
    for path in files[::-1]:
        logger.info(f"Wrote {path}")
    if output is None:
        click.echo(text, nl=False)
