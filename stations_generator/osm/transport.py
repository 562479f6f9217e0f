"""HTTP for the network services (Overpass, Nominatim): deadlines, waits said, a cache that heals.

Shared by :class:`stations_generator.osm.overpass.OverpassClient` and
:class:`stations_generator.osm.nominatim.NominatimClient`:

* :class:`Deadline` — one overall budget per call: every try, every instance and every
  wait between them must fit in it.
* :func:`exchange` — one HTTP request/response, bounded by the deadline however the
  server behaves: a server that drips a byte every 2 s, or that never answers, cannot
  stretch it (a socket timeout alone is per read and would). The exchange runs in a
  worker thread; the calling thread waits for it until the deadline and reports the
  wait while it lasts.
* :class:`Waits` — how waits are said: one line on stderr when a request has waited
  a second, and before each pause between tries; a live status line on a terminal.
* :class:`JsonCache` — answers on disk, keyed by the request, written only after the
  caller's parse accepted them; an entry the parse rejects is dropped and fetched again.
* :func:`retry_after` and :func:`network_failure` — reading ``Retry-After`` and telling
  a refused connection or unknown host (give up on that server) from a timeout.
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import http.client
import json
import math
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from stations_generator.errors import InputError

__all__ = [
    "RETRY_STATUSES",
    "Deadline",
    "DeadlineExceeded",
    "JsonCache",
    "Reply",
    "Waits",
    "come_back_at",
    "exchange",
    "network_failure",
    "retry_after",
]

T = TypeVar("T")

#: Seconds a request waits before the wait is said on stderr.
SAY_AFTER_S = 1.0
#: Seconds between updates of the status line on a terminal.
TICK_S = 0.25
_CHUNK = 1 << 16
#: HTTP statuses that mean "busy, try again later".
RETRY_STATUSES = frozenset({429, 502, 503, 504})


class DeadlineExceeded(TimeoutError):
    """The call's overall deadline passed while waiting for a server."""


@dataclass
class Deadline:
    """An overall time budget, measured on the monotonic clock.

    Parameters
    ----------
    seconds : float
        The budget.
    """

    seconds: float
    start: float = field(default_factory=time.monotonic)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def remaining(self) -> float:
        """Seconds left (0 when the deadline has passed)."""
        return max(0.0, self.seconds - self.elapsed)

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0.0


@dataclass(frozen=True)
class Reply:
    """An HTTP response of any status, its body read in full."""

    status: int
    headers: Mapping[str, str]
    body: bytes


@dataclass
class Waits:
    """Where waits are said.

    Parameters
    ----------
    say : callable, optional
        Gets one line per wait (the command line prints it on stderr unless ``-q``).
    show : callable, optional
        Gets a status line to draw in place, or None to clear it (the command line
        draws it only on a terminal).
    """

    say: Callable[[str], None] | None = None
    show: Callable[[str | None], None] | None = None

    def line(self, message: str) -> None:
        if self.show is not None:
            self.show(None)
        if self.say is not None:
            self.say(message)

    def status(self, message: str | None) -> None:
        if self.show is not None:
            self.show(message)

    def pause(self, seconds: float, what: str, sleep: Callable[[float], None]) -> None:
        """Say ``what`` and sleep ``seconds``, counting down on the status line."""
        self.line(what)
        if self.show is None or sleep is not time.sleep:
            sleep(seconds)
            return
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self.status(f"{what}: {left:.0f} s left")
            sleep(min(TICK_S * 2, left))
        self.status(None)


def _short(label: str) -> str:
    """``"Overpass at https://host/api/interpreter"`` -> ``"Overpass host"`` (status lines)."""
    return re.sub(r"\s+at\s+(\w+)://([^/\s]+)\S*", r" \2", label)


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 100_000 else f"{count / 1e3:.0f} kB"


def exchange(
    opener: urllib.request.OpenerDirector,
    request: urllib.request.Request,
    deadline: Deadline,
    *,
    label: str,
    waits: Waits | None = None,
) -> Reply:
    """Send ``request`` and read the whole response before ``deadline`` passes.

    Parameters
    ----------
    opener : urllib.request.OpenerDirector
        Its handlers (proxies, redirects) apply as usual.
    request : urllib.request.Request
    deadline : Deadline
        When it passes the exchange is abandoned, however slowly bytes still come.
    label : str
        The service and URL, for the wait messages ("Overpass at https://…").
    waits : Waits, optional
        A request still waiting after :data:`SAY_AFTER_S` is said once, and shown
        on the status line with the time and bytes so far.

    Returns
    -------
    Reply
        Any HTTP status (4xx/5xx included), with its body.

    Raises
    ------
    DeadlineExceeded
        The deadline passed first.
    urllib.error.URLError, OSError, http.client.HTTPException
        The connection failed (refused, unknown host, reset…).
    """
    transfer = _Transfer(opener, request, deadline)
    worker = threading.Thread(target=transfer.run, name="stations-generator-http", daemon=True)
    worker.start()
    _wait_for(worker, transfer, label, waits)
    late = DeadlineExceeded(f"{label}: no complete answer within {deadline.seconds:g} s")
    error = transfer.error
    if error is not None:
        if isinstance(error, TimeoutError | socket.timeout) or (
            isinstance(error, urllib.error.URLError) and isinstance(error.reason, TimeoutError)
        ):
            raise late
        raise error
    if transfer.reply is None:  # the worker saw the deadline pass between two chunks
        raise late
    return transfer.reply


class _Transfer:
    """One request and its whole response, read in a worker thread (:meth:`run`)
    until it is complete or the deadline passes."""

    def __init__(
        self,
        opener: urllib.request.OpenerDirector,
        request: urllib.request.Request,
        deadline: Deadline,
    ) -> None:
        self.opener, self.request, self.deadline = opener, request, deadline
        self.received = 0
        self.reply: Reply | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        """Send the request and read the response; any exception is kept in ``error``."""
        deadline = self.deadline
        try:
            timeout = max(0.05, deadline.remaining())
            try:
                response = self.opener.open(self.request, timeout=timeout)
            except urllib.error.HTTPError as exc:
                response = exc
            with response:
                chunks = []
                while not deadline.expired:
                    chunk = response.read(_CHUNK)
                    if not chunk:
                        break
                    chunks.append(chunk)
                    self.received += len(chunk)
                else:
                    return  # the caller has given up already
                status = response.status if hasattr(response, "status") else response.code
                self.reply = Reply(int(status), response.headers, b"".join(chunks))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            self.error = exc


def _wait_for(
    worker: threading.Thread, transfer: _Transfer, label: str, waits: Waits | None
) -> None:
    """Wait for ``worker`` until the deadline, saying the wait once it lasts."""
    deadline = transfer.deadline
    said = False
    while worker.is_alive():
        worker.join(min(TICK_S, max(deadline.remaining(), 0.01)))
        if not worker.is_alive():
            break
        if deadline.expired:
            if waits is not None:
                waits.status(None)
            raise DeadlineExceeded(f"{label}: no complete answer within {deadline.seconds:g} s")
        if waits is not None and deadline.elapsed >= SAY_AFTER_S:
            if not said:
                waits.line(f"waiting for {label} (up to {deadline.remaining():.0f} s more)")
                said = True
            waits.status(
                f"{_short(label)}: waiting, {deadline.elapsed:.0f} s of {deadline.seconds:.0f} s, "
                f"{_size(transfer.received)} received"
            )
    if waits is not None and said:
        waits.status(None)


def network_failure(exc: BaseException) -> tuple[str, str] | None:
    """Classify a failed exchange: ``("unreachable" | "connection", detail)`` or None.

    "unreachable" (connection refused, unknown host name) means nothing answers at
    that address, so retrying it is pointless; "connection" (reset, dropped, broken
    response) may pass. None: not a network failure (a bug; let it propagate).
    """
    if isinstance(exc, urllib.error.URLError):
        reason: object = exc.reason
    elif isinstance(exc, OSError | http.client.HTTPException):
        reason = exc
    else:
        return None
    text = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    detail = " ".join(str(text).split())[:120]
    if isinstance(reason, socket.gaierror):
        return "unreachable", f"unknown host: {detail}"
    if isinstance(reason, ConnectionRefusedError):
        return "unreachable", detail
    return "connection", detail


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def come_back_at(seconds: float) -> str:
    """``"in 3600 s (after 14:05 UTC)"``: when a server asked to be asked again."""
    when = datetime.now(UTC) + timedelta(seconds=seconds)
    day = "" if when.date() == datetime.now(UTC).date() else when.strftime(" on %Y-%m-%d")
    return f"in {seconds:.0f} s (after {when:%H:%M} UTC{day})"


class JsonCache:
    """JSON answers on disk, one file per request key, kept only when they parse.

    Parameters
    ----------
    folder : Path
        Where the files go (created on the first write).
    log : callable, optional
        Gets a line for each cache hit.
    warn : callable, optional
        Gets a line for each dropped entry or failed write.
    """

    def __init__(
        self,
        folder: Path,
        log: Callable[[str], None] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.folder = Path(folder)
        self._log = log
        self._warn = warn

    def _say(self, message: str) -> None:
        if self._log is not None:
            self._log(message)

    def _complain(self, message: str) -> None:
        if self._warn is not None:
            self._warn(message)

    def path(self, key: str) -> Path:
        """The file for ``key``: ``<folder>/<sha256(key)>.json``."""
        return self.folder / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()}.json"

    def load(self, key: str, parse: Callable[[Any], T], what: str) -> tuple[T] | None:
        """The parsed cached answer for ``key`` as a 1-tuple, or None (absent or dropped).

        An entry that is not JSON, or that ``parse`` rejects (``InputError``), is
        deleted, so the caller fetches it again and the bad entry never comes back.
        """
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            self._drop(path, f"unreadable ({exc})", what)
            return None
        try:
            data = json.loads(text)
        except ValueError:
            self._drop(path, "corrupt (not JSON)", what)
            return None
        try:
            result = parse(data)
        except InputError as exc:
            self._drop(path, f"unusable ({exc})", what)
            return None
        self._say(f"{what} from cache {path}")
        return (result,)

    def _drop(self, path: Path, why: str, what: str) -> None:
        self._complain(f"dropping the {why} {what} cache file {path}; fetching it again")
        with contextlib.suppress(OSError):
            path.unlink()

    def store(self, key: str, raw: bytes) -> None:
        """Write ``raw`` for ``key`` atomically (a failure is logged, not raised)."""
        from stations_generator.formats.atomic import atomic_write_bytes

        path = self.path(key)
        try:
            atomic_write_bytes(path, raw)
        except OSError as exc:
            self._complain(f"could not write cache file {path} ({exc.strerror or exc})")
