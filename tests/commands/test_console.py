"""The command line's stderr: log records as today's lines, by -q / default / -v."""

from __future__ import annotations

import logging
import sys

import click
import pytest
from click.testing import CliRunner

from stations_generator.app.reporting import routed, status
from stations_generator.cli import Group
from stations_generator.commands.console import Console, attach, use_console

log = logging.getLogger("stations_generator.tests_console")
PACKAGE = logging.getLogger("stations_generator")


@click.command()
def talk() -> None:
    """Every kind of record, and one stdout line."""
    log.debug("a detail")
    log.info("a note")
    log.warning("a warning")
    log.error("an error")
    with status(log, "Working"):
        pass
    click.echo("the result")


def _group() -> click.Group:
    @click.group(cls=Group)
    @click.option("-v", "--verbose", count=True)
    @click.option("-q", "--quiet", is_flag=True)
    @click.pass_context
    def group(ctx: click.Context, verbose: int, quiet: bool) -> None:
        use_console(ctx, -1 if quiet else verbose)

    group.add_command(talk)
    return group


@pytest.mark.parametrize(
    ("flags", "stderr"),
    [
        ([], "a note\nwarning: a warning\nan error\n"),
        (["-v"], "a detail\na note\nwarning: a warning\nan error\n"),
        (["-q"], "an error\n"),
    ],
)
def test_records_become_the_lines_of_the_verbosity(flags, stderr):
    result = CliRunner().invoke(_group(), [*flags, "talk"])
    assert result.exit_code == 0, result.output
    assert result.stderr == stderr  # no status line off a terminal
    assert result.stdout == "the result\n"


def test_the_handler_goes_when_the_command_ends():
    before = (list(PACKAGE.handlers), PACKAGE.level)
    CliRunner().invoke(_group(), ["-v", "talk"])
    assert (list(PACKAGE.handlers), PACKAGE.level) == before


def test_status_lines_are_drawn_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with attach(Console(0)):
        log.info("a note")
        with status(log, "Working"):
            pass
    assert capsys.readouterr().err == "a note\n\rWorking…\x1b[K\r\x1b[K"


def test_a_routed_block_is_not_printed(capsys):
    """A server request's messages go to its page, not to the serve command's stderr."""
    kept: list[str] = []
    with attach(Console(0)):
        with routed(warn=kept.append):
            log.warning("for the page")
        log.warning("for the terminal")
    assert kept == ["for the page"]
    assert capsys.readouterr().err == "warning: for the terminal\n"


def test_an_error_keeps_its_traceback(capsys):
    with attach(Console(-1)):
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("request GET /x failed")
    err = capsys.readouterr().err
    assert err.startswith("request GET /x failed\nTraceback (most recent call last):")
    assert err.rstrip().endswith("ValueError: boom")
