"""The console every command reports through (the main group's ``ctx.obj``)."""

from __future__ import annotations

import shutil
import sys

import click

__all__ = ["Console", "ProgressBar"]


class Console:
    """Messages to stderr by verbosity: -q shows errors only, -v adds details."""

    def __init__(self, verbosity: int = 0):
        self.verbosity = verbosity

    def info(self, message: str) -> None:
        """A message shown unless -q."""
        if self.verbosity >= 0:
            click.echo(message, err=True)

    def detail(self, message: str) -> None:
        """A message shown with -v."""
        if self.verbosity > 0:
            click.echo(message, err=True)

    def warn(self, message: str) -> None:
        """``warning: message`` unless -q."""
        if self.verbosity >= 0:
            click.echo(f"warning: {message}", err=True)

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
