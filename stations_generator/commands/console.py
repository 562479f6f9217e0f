"""The command line's stderr: the package's log records as lines, a status line and
progress bars on a terminal.

The main group makes one :class:`Console` (its ``ctx.obj``) and attaches it to the
``stations_generator`` logger for the command's run (:func:`attach`); the library and
the commands only log (:mod:`stations_generator.app.reporting`).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import sys
from collections.abc import Iterator

import click

from stations_generator.app.reporting import (
    PACKAGE,
    STATUS_CLEAR,
    is_routed,
    is_status,
    status_text,
)

__all__ = ["Console", "ConsoleHandler", "ProgressBar", "attach", "use_console"]


class Console:
    """Messages on stderr by verbosity: -q shows errors only, -v adds details."""

    def __init__(self, verbosity: int = 0):
        self.verbosity = verbosity

    @property
    def threshold(self) -> int:
        """The lowest level printed as a line: errors with -q, details with -v."""
        if self.verbosity < 0:
            return logging.ERROR
        return logging.DEBUG if self.verbosity > 0 else logging.INFO

    @property
    def show_progress(self) -> bool:
        """Progress bars only on an interactive terminal, never in pipes or with -q."""
        return self.verbosity >= 0 and sys.stderr.isatty()

    def status(self, message: str | None) -> None:
        """Draw a status line in place on a terminal (None clears it); silent otherwise."""
        if not self.show_progress:
            return
        width = max(10, shutil.get_terminal_size().columns - 1)
        click.echo(
            "\r" + ("" if message is None else message[:width]) + "\x1b[K", err=True, nl=False
        )

    def progress(self, label: str) -> ProgressBar:
        """A ``(done, total)`` callback drawing a bar on a terminal, silent otherwise."""
        return ProgressBar(label, self.show_progress)


class ConsoleHandler(logging.Handler):
    """Writes the package's records as today's stderr lines: ``warning: `` before a
    warning, the message alone otherwise (errors with their traceback); status-line
    records go to the console's status line."""

    def __init__(self, console: Console) -> None:
        super().__init__(level=1)
        self.console = console
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if is_routed():  # a server request's messages are its page's
            return
        try:
            if is_status(record):
                self.console.status(status_text(record))
            elif record.levelno >= self.console.threshold:
                click.echo(self._line(record), err=True)
        except Exception:  # noqa: BLE001 - logging's own convention: report, go on
            self.handleError(record)

    def _line(self, record: logging.LogRecord) -> str:
        if record.levelno == logging.WARNING:
            return f"warning: {record.getMessage()}"
        return self.format(record)


@contextlib.contextmanager
def attach(console: Console) -> Iterator[ConsoleHandler]:
    """Print the package's log records through ``console`` until the block ends.

    Parameters
    ----------
    console : Console

    Yields
    ------
    ConsoleHandler
        The handler on the ``stations_generator`` logger (removed at the end, and the
        logger's level restored).
    """
    logger = logging.getLogger(PACKAGE)
    handler = ConsoleHandler(console)
    before = logger.level
    # Status lines are records below DEBUG; they are drawn only on a terminal.
    logger.setLevel(STATUS_CLEAR if console.show_progress else console.threshold)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(before)


def use_console(ctx: click.Context, verbosity: int) -> Console:
    """Make the command's :class:`Console` (``ctx.obj``), attached until ``ctx`` closes.

    Parameters
    ----------
    ctx : click.Context
        The main group's context.
    verbosity : int
        -1 with -q, 0 by default, the count of -v.

    Returns
    -------
    Console
    """
    console = Console(verbosity)
    ctx.obj = console
    ctx.with_resource(attach(console))
    return console


class ProgressBar:
    """A click progress bar fed by ``(done, total)`` calls; a no-op when not on a terminal."""

    def __init__(self, label: str, enabled: bool):
        self.label, self.enabled = label, enabled
        self._bar = None
        self._done = 0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            self._bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._done)
        self._done = done
        if done >= total:
            self.close()

    def close(self) -> None:
        """End the bar (its line stays on the terminal)."""
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
