"""Progress and messages: the package's log records, and where a caller sends them.

Library and use-case modules report through ``logging.getLogger(__name__)``:

* ``info``: the one-line notes and summaries the command line prints by default;
* ``debug``: the details it prints with ``-v``;
* ``warning``: warnings (the command line prints ``warning: …``).

A *status line* is the step running now, drawn in place on a terminal and never
printed as a line: :func:`status_line` logs it as a debug record marked
:data:`STATUS`, and its clearing as a record at :data:`STATUS_CLEAR` (below debug,
so a library user's debug log shows each step once and no clearing).

Nothing here prints. The command line installs one handler on the package logger
(:mod:`stations_generator.commands.console`); the Python API and the server send the
records of one call somewhere else with :func:`routed` (a warning callback, a page's
progress line), without threading anything through the functions they call.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = [
    "PACKAGE",
    "STATUS",
    "STATUS_CLEAR",
    "Recipients",
    "is_routed",
    "is_status",
    "routed",
    "status",
    "status_line",
    "status_sink",
    "status_text",
]

#: The package logger's name: every module's logger is below it.
PACKAGE = "stations_generator"
#: The attribute (``extra``) marking a status-line record.
STATUS = "status_line"
#: The level of a record clearing the status line (below ``logging.DEBUG``).
STATUS_CLEAR = 5

_package = logging.getLogger(PACKAGE)


def status_line(logger: logging.Logger, message: str | None) -> None:
    """Show ``message`` as the status line (None clears it); silent where none is drawn.

    Parameters
    ----------
    logger : logging.Logger
        The reporting module's logger.
    message : str or None
        The step, e.g. ``"Ranking 5000 OSM objects…"``; None clears the line.
    """
    if message is None:
        logger.log(STATUS_CLEAR, "", extra={STATUS: True})
    else:
        logger.debug(message, extra={STATUS: True})


def status_sink(logger: logging.Logger) -> Callable[[str | None], None]:
    """:func:`status_line` for ``logger`` as a ``(message)`` callable (for a client's
    ``status=``).

    Parameters
    ----------
    logger : logging.Logger

    Returns
    -------
    callable
    """
    return functools.partial(status_line, logger)


@contextlib.contextmanager
def status(logger: logging.Logger, message: str) -> Iterator[None]:
    """The status line ``message`` while a step runs, cleared after.

    Parameters
    ----------
    logger : logging.Logger
        The reporting module's logger.
    message : str
        The step, e.g. ``"Timing the drives"`` (an ellipsis is added).
    """
    status_line(logger, message + "…")
    try:
        yield
    finally:
        status_line(logger, None)


def status_text(record: logging.LogRecord) -> str | None:
    """A status-line record's text (None: it clears the line).

    Parameters
    ----------
    record : logging.LogRecord
        A record :func:`is_status` accepts.

    Returns
    -------
    str or None
    """
    return None if record.levelno == STATUS_CLEAR else record.getMessage()


def is_status(record: logging.LogRecord) -> bool:
    """Whether ``record`` is a status line (or its clearing), not a message.

    Parameters
    ----------
    record : logging.LogRecord

    Returns
    -------
    bool
    """
    return bool(getattr(record, STATUS, False))


@dataclass(frozen=True)
class Recipients:
    """Where :func:`routed` sends the records of one call (None: dropped).

    Attributes
    ----------
    warn : callable or None
        Receives each warning's message.
    info : callable or None
        Receives each info message.
    status : callable or None
        Receives each status line (None clears it).
    """

    warn: Callable[[str], None] | None = None
    info: Callable[[str], None] | None = None
    status: Callable[[str | None], None] | None = None

    def level(self) -> int:
        """The lowest level of record this route takes."""
        if self.status is not None:
            return STATUS_CLEAR
        return logging.INFO if self.info is not None else logging.WARNING

    def take(self, record: logging.LogRecord) -> None:
        """Hand ``record`` to its callable."""
        if is_status(record):
            if self.status is not None:
                self.status(status_text(record))
        elif record.levelno >= logging.WARNING:
            if self.warn is not None:
                self.warn(record.getMessage())
        elif record.levelno >= logging.INFO and self.info is not None:
            self.info(record.getMessage())


_route: ContextVar[Recipients | None] = ContextVar("stations_generator_route", default=None)


def is_routed() -> bool:
    """Whether this thread's records go to a :func:`routed` block (the command line's
    handler leaves them alone: a page's messages are the page's).

    Returns
    -------
    bool
    """
    return _route.get() is not None


class _RouteHandler(logging.Handler):
    """The package logger's one handler for :func:`routed`: each record to the route of
    the context that logged it."""

    def emit(self, record: logging.LogRecord) -> None:
        route = _route.get()
        if route is not None:
            route.take(record)


class _Levels:
    """Lowers the package logger's level while routes need records below it; reference
    counted, so overlapping calls in several threads restore it once, at the end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._needs: list[int] = []
        self._saved = logging.NOTSET

    def hold(self, level: int) -> None:
        with self._lock:
            if not self._needs:
                self._saved = _package.level
            self._needs.append(level)
            self._apply()

    def release(self, level: int) -> None:
        with self._lock:
            self._needs.remove(level)
            if self._needs:
                self._apply()
            else:
                _package.setLevel(self._saved)

    def _apply(self) -> None:
        saved = self._saved
        if saved == logging.NOTSET and _package.parent is not None:
            saved = _package.parent.getEffectiveLevel()
        _package.setLevel(min(min(self._needs), saved))


_handler = _RouteHandler(level=1)
_package.addHandler(_handler)
# A library logs, the application decides where to: nothing reaches logging's "last
# resort" stderr handler. (Here, not in the package's __init__: the command line's
# --help and --version stay free of the logging import.)
_package.addHandler(logging.NullHandler())
_levels = _Levels()


@contextlib.contextmanager
def routed(
    *,
    warn: Callable[[str], None] | None = None,
    info: Callable[[str], None] | None = None,
    status: Callable[[str | None], None] | None = None,
) -> Iterator[None]:
    """Send the package's records logged in this context to these callables, until the
    block ends.

    Other threads and contexts are not affected; a nested block takes the records of
    its own time. Records still reach any other handler the application set up.

    Parameters
    ----------
    warn : callable, optional
        Receives each warning's message.
    info : callable, optional
        Receives each info message.
    status : callable, optional
        Receives each status line (None clears it).
    """
    route = Recipients(warn, info, status)
    level = route.level()
    _levels.hold(level)
    token = _route.set(route)
    try:
        yield
    finally:
        _route.reset(token)
        _levels.release(level)
