"""Running the command line in-process (click's CliRunner) and checking its one-line errors."""

from __future__ import annotations

import click
from click.testing import CliRunner, Result

from stations_generator.cli import Group, main
from stations_generator.commands.console import use_console


def run(*args: object, catch_exceptions: bool = False) -> Result:
    """``stations-generator ARGS…`` in this process; an exception escapes unless caught."""
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=catch_exceptions)


def one_command(command: click.Command) -> click.Group:
    """A group holding ``command`` alone, its console set up as the real one sets it up
    (so a test can invoke the command by its name without the whole program)."""

    @click.group(cls=Group)
    @click.pass_context
    def group(ctx: click.Context) -> None:
        use_console(ctx, 0)

    group.add_command(command)
    return group


def run_caught(*args: object) -> Result:
    """:func:`run` keeping any exception on the result (``result.exception``)."""
    return run(*args, catch_exceptions=True)


def one_line_error(result: Result, code: int, *words: str) -> None:
    """The run failed with exit ``code`` and one ``error: …`` line holding every word."""
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert result.exception is None or isinstance(result.exception, SystemExit)


def refused(result: Result, *words: str) -> None:
    """The run failed (any non-zero exit) with one ``error: …`` line holding every word."""
    assert result.exit_code != 0
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    for w in words:
        assert w in result.stderr, result.stderr
