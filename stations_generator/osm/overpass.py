"""The Overpass API client.

:class:`OverpassClient` POSTs a query, retries politely, falls back to other
instances and caches successful responses on disk. Answers are parsed by
:mod:`stations_generator.osm.overpass_json`; responses saved on disk are read by
:mod:`stations_generator.osm.overpass_file`.

Retry policy of :meth:`OverpassClient.fetch`: one overall deadline (``timeout``,
``--overpass-timeout``) bounds the whole call, every try at every endpoint and every
wait between them, however slowly a server sends (see
:mod:`stations_generator.osm.transport`). Per endpoint, up to ``max_tries`` requests:

* HTTP 429, 502, 503, 504, dropped connections, tries past ``try_timeout`` and 200
  responses whose ``remark`` starts with ``"runtime error"`` are retried after
  ``min(backoff * 2**k, max_backoff)`` seconds (``k`` = 0 for the first retry), or
  after ``Retry-After`` seconds when the server sends that header. A wait that would
  end after the deadline is not started: a ``Retry-After`` beyond it fails that
  endpoint at once, saying when to come back.
* A refused connection, an unknown host name, a redirect, any other HTTP error
  status (403, 404, 500...) and an answer the caller's parse rejects (bad
  coordinates, broken elements) give up on that endpoint at once and move on to the
  next one, while time is left.
* HTTP 400 (Overpass's answer to a query it cannot parse) and a 200 response that
  is not JSON, or not shaped like an Overpass response, raise
  :class:`~stations_generator.errors.OverpassError` at once: every instance
  would answer the same query the same way, so neither a retry nor another
  endpoint can help (a non-JSON answer usually means the query lacks
  ``[out:json]``).

Caching: an answer is written to the cache only after the caller's parse accepted
it (:meth:`OverpassClient.fetch_parsed`; :meth:`OverpassClient.fetch` uses
:func:`~stations_generator.osm.overpass_json.parse_overpass_json`), so no error page,
truncated body, runtime-error remark or poisoned element is ever cached; a cached
answer the parse rejects is dropped and fetched again. Errors name the endpoint the data came from.
"""

from __future__ import annotations

import html
import json
import math
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any, TypeVar

from stations_generator import settings
from stations_generator.core.elements import OsmElement
from stations_generator.errors import InputError, OverpassError
from stations_generator.osm.overpass_json import (
    one_line,
    parse_overpass_json,
    runtime_error,
    shape_problem,
)
from stations_generator.osm.transport import (
    RETRY_STATUSES,
    Deadline,
    DeadlineExceeded,
    JsonCache,
    Reply,
    Waits,
    come_back_at,
    exchange,
    network_failure,
)
from stations_generator.osm.transport import retry_after as parse_retry_after

T = TypeVar("T")

__all__ = [
    "DEFAULT_ENDPOINTS",
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_USER_AGENT",
    "OverpassClient",
    "client",
]

#: Public Overpass instances, tried in this order (see :mod:`stations_generator.settings`).
DEFAULT_ENDPOINTS: tuple[str, ...] = settings.DEFAULT_OVERPASS_URLS

#: Seconds one Overpass call may take in all (``--overpass-timeout``).
DEFAULT_TIMEOUT_S = settings.DEFAULT_TIMEOUT_S

#: Sent as ``User-Agent``.
DEFAULT_USER_AGENT = settings.user_agent()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Surface redirects as errors: following them would turn the POST into a GET."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> None:
        """Refuse every redirect; the caller reports it."""
        return None


@dataclass
class _Failure:
    """Why one endpoint gave up."""

    endpoint: str
    # "status", "timeout", "deadline", "runtime", "connection", "hard", "redirect",
    # "data" (the answer does not parse), "later" (Retry-After beyond the deadline)
    kind: str
    detail: str  # e.g. "429 Too Many Requests", "Connection refused", "0.3 s"
    tries: int
    out_of_time: str = ""  # set when the deadline left no time for another try

    def describe(self) -> str:
        tries = f"{self.tries} {'try' if self.tries == 1 else 'tries'}"
        url = self.endpoint
        text = {
            "status": f"Overpass at {url} answered {self.detail} after {tries}",
            "timeout": f"Overpass at {url} timed out after {self.detail} ({tries})",
            "deadline": f"Overpass at {url} gave no complete answer within the {self.detail} "
            f"deadline ({tries})",
            "runtime": f"Overpass at {url} reported '{self.detail}' after {tries}",
            "connection": f"could not connect to Overpass at {url} ({self.detail}; {tries})",
            "redirect": f"Overpass at {url} redirects to {self.detail}",
            "data": f"Overpass at {url} returned data that cannot be used ({self.detail}); "
            "nothing was cached",
            "later": f"Overpass at {url} answered {self.detail}",
        }.get(self.kind, f"Overpass at {url} answered {self.detail}")
        return text + self.out_of_time

    @property
    def hint(self) -> str:
        return {
            "status": "wait a few minutes, or pass --overpass-url to use another instance",
            "timeout": "try again later or raise --overpass-timeout",
            "deadline": "try again later or raise --overpass-timeout",
            "runtime": "try a smaller area, raise --overpass-timeout, or try again later",
            "connection": "check your internet connection, or pass --overpass-url "
            "to use another instance",
            "redirect": "pass the new URL with --overpass-url",
            "hard": "check the Overpass URL (--overpass-url)",
            "data": "try again later, or pass --overpass-url to use another instance",
            "later": "try again then, or pass --overpass-url to use another instance",
        }[self.kind]


@dataclass
class _Retry:
    """A try that may be repeated: why it failed, and how to say it."""

    failure: _Failure
    what: str  # e.g. "429 Too Many Requests", "timed out after 5 s"
    retry_after: float | None = None  # the server's Retry-After, in seconds


def _status_text(code: int, reason: str | None = None) -> str:
    try:
        phrase = HTTPStatus(code).phrase
    except ValueError:
        phrase = reason or ""
    return f"{code} {phrase}".strip()


def _overpass_error_text(body: bytes) -> str:
    """The ``Error: ...`` lines of an Overpass HTML error page, as one line."""
    text = body.decode("utf-8", errors="replace")
    messages = []
    for paragraph in re.findall(r"<p\b[^>]*>(.*?)</p>", text, flags=re.S | re.I):
        if re.search(r"<strong[^>]*>\s*Error\s*</strong>", paragraph, flags=re.I):
            plain = html.unescape(re.sub(r"<[^>]+>", "", paragraph))
            plain = re.sub(r"^\s*Error\s*:\s*", "", plain)
            messages.append(one_line(plain, 200))
    if messages:
        return one_line(" / ".join(messages))
    plain = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<\?.*?\?>", "", text, flags=re.S)))
    return one_line(plain, 200) or "(empty body)"


def _checked(data: dict[str, Any]) -> dict[str, Any]:
    """The answer itself, once :func:`parse_overpass_json` accepts it."""
    parse_overpass_json(data)
    return data


class OverpassClient:
    """Query Overpass with retries, endpoint fallback, a deadline and an on-disk cache.

    Parameters
    ----------
    endpoints : sequence of str
        Interpreter URLs (``.../api/interpreter``), tried in order.
    timeout : float
        The deadline of one call (:meth:`fetch`), in seconds: every try at every
        endpoint and every wait between them must end within it, however slowly a
        server sends. A ``Retry-After`` beyond what is left fails that endpoint at once.
    try_timeout : float, optional
        A shorter limit for each single try, after which the try is abandoned and
        retried (default: none, a try may use what is left of ``timeout``).
    max_tries : int
        Requests per endpoint before moving on to the next one.
    backoff, max_backoff : float
        The wait before retry ``k`` (0-based) is ``min(backoff * 2**k, max_backoff)``
        seconds; a ``Retry-After`` header replaces it (honoured as sent).
    cache_dir : pathlib.Path, optional
        Where responses are cached; ``None`` means
        :func:`stations_generator.settings.overpass_cache_dir`.
    use_cache : bool
        ``False`` neither reads nor writes the cache.
    user_agent : str
        Sent as ``User-Agent``.
    sleep : callable
        Called with the number of seconds to wait between tries.
    log : callable, optional
        Receives short progress messages (cache hits, fallbacks; and the waits, unless
        ``notify`` is given).
    notify : callable, optional
        Receives one line for each wait: a request still unanswered after a second,
        a pause before a retry, a dropped cache entry.
    status : callable, optional
        Receives a status line to draw in place while waiting (None clears it).

    Raises
    ------
    InputError
        If no endpoint is given, an endpoint is not an http(s) URL, or a numeric
        option is out of range.
    """

    def __init__(
        self,
        endpoints: Sequence[str] = DEFAULT_ENDPOINTS,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        try_timeout: float | None = None,
        max_tries: int = 4,
        backoff: float = 2.0,
        max_backoff: float = 120.0,
        cache_dir: Path | None = None,
        use_cache: bool = True,
        user_agent: str = DEFAULT_USER_AGENT,
        sleep: Callable[[float], None] = time.sleep,
        log: Callable[[str], None] | None = None,
        notify: Callable[[str], None] | None = None,
        status: Callable[[str | None], None] | None = None,
    ) -> None:
        if isinstance(endpoints, str):
            endpoints = (endpoints,)
        self.endpoints: tuple[str, ...] = tuple(endpoints)
        if not self.endpoints:
            raise InputError("no Overpass URL given; pass --overpass-url")
        for url in self.endpoints:
            if urllib.parse.urlsplit(url).scheme not in ("http", "https") or not (
                urllib.parse.urlsplit(url).netloc
            ):
                raise InputError(
                    f"Overpass URL {url!r} is not an http(s) URL; expected something like "
                    "https://overpass-api.de/api/interpreter"
                )
        for value in (timeout, try_timeout):
            if value is not None and not (value > 0 and math.isfinite(value)):
                raise InputError(
                    f"Overpass timeout must be a positive number of seconds, not {value}"
                )
        if max_tries < 1:
            raise InputError(f"Overpass max tries must be at least 1, not {max_tries}")
        if backoff < 0 or max_backoff < 0:
            raise InputError("Overpass backoff times cannot be negative")
        self.timeout = float(timeout)
        self.try_timeout = float(try_timeout) if try_timeout is not None else None
        self.max_tries = int(max_tries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else settings.overpass_cache_dir()
        self.use_cache = use_cache
        self.user_agent = user_agent
        self._sleep = sleep
        self._log = log
        self._waits = Waits(say=notify or log, show=status)
        self._cache = JsonCache(self.cache_dir, log=log, warn=notify or log)
        self._opener = urllib.request.build_opener(_NoRedirect)

    # -- public --------------------------------------------------------------

    def cache_path(self, query: str) -> Path:
        """Return the cache file for ``query``: ``<cache_dir>/<sha256(query)>.json``.

        Parameters
        ----------
        query : str
            The Overpass QL text.

        Returns
        -------
        pathlib.Path
            The cache file (which may not exist).
        """
        return self._cache.path(query)

    def fetch(self, query: str) -> dict[str, Any]:
        """Run ``query`` and return Overpass's JSON response.

        The answer is cached only once :func:`parse_overpass_json` accepts it; a
        cached answer it rejects is dropped and fetched again.

        Parameters
        ----------
        query : str
            Overpass QL asking for JSON output (``[out:json]``).

        Returns
        -------
        dict
            The decoded response (``version``, ``osm3s``, ``elements``, ...),
            from the cache when it holds this query.

        Raises
        ------
        OverpassError
            One line naming the endpoint(s), what went wrong and the fix, when
            every endpoint failed or the deadline passed, Overpass rejected the query
            (HTTP 400), or the answer is not Overpass JSON or holds unusable data.
        """
        return self.fetch_parsed(query, _checked)

    def fetch_parsed(self, query: str, parse: Callable[[dict[str, Any]], T]) -> T:
        """Run ``query`` and return ``parse(answer)``; cache the answer only if it parses.

        Parameters
        ----------
        query : str
            Overpass QL asking for JSON output.
        parse : callable
            Turns the decoded answer into what the caller needs, raising
            :class:`~stations_generator.errors.InputError` for data it cannot use
            (e.g. :func:`parse_overpass_json`). An answer it rejects is never
            cached: from the network it fails that endpoint (the next one is tried),
            from the cache the entry is dropped and fetched again.

        Returns
        -------
        object
            What ``parse`` returned.

        Raises
        ------
        OverpassError
            See :meth:`fetch`.
        """
        if self.use_cache:
            hit = self._cache.load(query, parse, "Overpass response")
            if hit is not None:
                return hit[0]
        deadline = Deadline(self.timeout)
        failures: list[_Failure] = []
        for index, endpoint in enumerate(self.endpoints):
            if failures and deadline.expired:
                failures[-1].out_of_time = "; no time was left for the other instances"
                break
            outcome = self._fetch_from(endpoint, query, deadline, parse)
            if isinstance(outcome, _Failure):
                failures.append(outcome)
                if index + 1 < len(self.endpoints) and not deadline.expired:
                    self._say(f"{outcome.describe()}; trying {self.endpoints[index + 1]}")
                continue
            result, raw = outcome
            if self.use_cache:
                self._cache.store(query, raw)
            return result
        parts = [failure.describe() for failure in failures]
        hints = list(dict.fromkeys(failure.hint for failure in failures))
        raise OverpassError("; ".join(parts) + "; " + "; ".join(hints) + ".")

    def fetch_elements(self, query: str) -> list[OsmElement]:
        """Run ``query`` and parse the answer with :func:`parse_overpass_json`.

        Parameters
        ----------
        query : str
            Overpass QL asking for JSON output.

        Returns
        -------
        list of OsmElement
            See :func:`parse_overpass_json`.

        Raises
        ------
        OverpassError
            See :meth:`fetch`.
        """
        return self.fetch_parsed(query, parse_overpass_json)

    # -- internals -----------------------------------------------------------

    def _say(self, message: str) -> None:
        if self._log is not None:
            self._log(message)

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after  # the server's own word; a deadline check follows
        return min(self.backoff * 2 ** (attempt - 1), self.max_backoff)

    def _post(self, endpoint: str, query: str, deadline: Deadline) -> Reply:
        """One POST, bounded by the call's deadline (and ``try_timeout``)."""
        request = urllib.request.Request(
            endpoint,
            data=urllib.parse.urlencode({"data": query}).encode("utf-8"),
            headers={
                "User-Agent": self.user_agent,
                "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
                "Accept": "application/json",
            },
            method="POST",
        )
        limit = deadline.remaining()
        if self.try_timeout is not None and self.try_timeout < limit:
            try:
                return exchange(
                    self._opener,
                    request,
                    Deadline(self.try_timeout),
                    label=f"Overpass at {endpoint}",
                    waits=self._waits,
                )
            except DeadlineExceeded:
                raise _TryTimeout from None
        return exchange(
            self._opener, request, deadline, label=f"Overpass at {endpoint}", waits=self._waits
        )

    def _fetch_from(
        self, endpoint: str, query: str, deadline: Deadline, parse: Callable[[dict[str, Any]], T]
    ) -> tuple[T, bytes] | _Failure:
        """Up to ``max_tries`` requests to one endpoint, within ``deadline``."""
        for attempt in range(1, self.max_tries + 1):
            outcome = self._try(endpoint, query, deadline, parse, attempt)
            if not isinstance(outcome, _Retry):
                return outcome
            failure, retry_after = outcome.failure, outcome.retry_after
            if attempt == self.max_tries:
                return failure
            wait = self._wait(attempt, retry_after)
            left = deadline.remaining()
            if wait > left:
                if retry_after is not None:
                    return _Failure(
                        endpoint,
                        "later",
                        f"{failure.detail} and asks to be asked again "
                        f"{come_back_at(retry_after)}, beyond the {self.timeout:g} s deadline "
                        "(--overpass-timeout)",
                        attempt,
                    )
                failure.out_of_time = (
                    f"; the next try would start after the {self.timeout:g} s deadline"
                )
                return failure
            self._waits.pause(
                wait,
                f"Overpass {outcome.what} at {endpoint}, retrying in {wait:.1f} s "
                f"(try {attempt + 1}/{self.max_tries})",
                self._sleep,
            )
        raise AssertionError("unreachable")  # pragma: no cover

    def _try(
        self,
        endpoint: str,
        query: str,
        deadline: Deadline,
        parse: Callable[[dict[str, Any]], T],
        attempt: int,
    ) -> tuple[T, bytes] | _Failure | _Retry:
        """One request: the parsed answer, a failure that ends this endpoint, or a retry."""
        try:
            reply = self._post(endpoint, query, deadline)
        except _TryTimeout:
            assert self.try_timeout is not None
            failure = _Failure(endpoint, "timeout", f"{self.try_timeout:g} s", attempt)
            return _Retry(failure, f"timed out after {self.try_timeout:g} s")
        except DeadlineExceeded:
            return _Failure(endpoint, "deadline", f"{self.timeout:g} s", attempt)
        except Exception as exc:  # classified below; anything else re-raised
            classified = network_failure(exc)
            if classified is None:
                raise
            kind, detail = classified
            failure = _Failure(endpoint, "connection", detail, attempt)
            if kind == "unreachable":
                return failure  # nothing listens there: next endpoint
            return _Retry(failure, f"connection error ({detail})")
        return self._judge(endpoint, reply, parse, attempt)

    def _judge(
        self, endpoint: str, reply: Reply, parse: Callable[[dict[str, Any]], T], attempt: int
    ) -> tuple[T, bytes] | _Failure | _Retry:
        """What one HTTP answer means (see the module docstring)."""
        status = reply.status
        if 200 <= status < 300:
            data = self._decode(endpoint, reply.body)
            remark = runtime_error(data)
            if remark is None:
                try:
                    return parse(data), reply.body
                except InputError as exc:
                    return _Failure(endpoint, "data", one_line(str(exc), 200), attempt)
            return _Retry(_Failure(endpoint, "runtime", remark, attempt), f"'{remark}'")
        if status in RETRY_STATUSES:
            text = _status_text(status)
            retry_after = parse_retry_after(reply.headers.get("Retry-After"))
            return _Retry(_Failure(endpoint, "status", text, attempt), text, retry_after)
        if status == 400:
            raise OverpassError(
                f"Overpass at {endpoint} rejected the query (400 Bad Request): "
                f"{_overpass_error_text(reply.body)}; check any custom tag filter or "
                "Overpass QL you passed"
            )
        if 300 <= status < 400:
            location = reply.headers.get("Location") or "another URL"
            return _Failure(endpoint, "redirect", urllib.parse.urljoin(endpoint, location), attempt)
        return _Failure(endpoint, "hard", _status_text(status), attempt)

    def _decode(self, endpoint: str, body: bytes) -> dict[str, Any]:
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            start = one_line(body[:40].decode("utf-8", errors="replace"), 40)
            more = " ..." if len(body) > 40 else ""
            raise OverpassError(
                f"Overpass at {endpoint} returned a response that is not JSON "
                f"(starts with {start + more!r}); the query must ask for [out:json]"
            ) from None
        problem = shape_problem(data) if isinstance(data, dict) else "not a JSON object"
        if problem is not None:
            raise OverpassError(
                f"Overpass at {endpoint} returned JSON that is not an Overpass response "
                f"({problem}); check the Overpass URL (--overpass-url)"
            )
        return data


class _TryTimeout(Exception):
    """One try outlived ``try_timeout`` (the call's deadline may leave time for more)."""


def client(
    urls: Iterable[str] | str | None = None,
    *,
    timeout: float | None = None,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    log: Callable[[str], None] | None = None,
    notify: Callable[[str], None] | None = None,
    status: Callable[[str | None], None] | None = None,
) -> OverpassClient:
    """An :class:`OverpassClient` as the commands, the API and the server make one.

    What is not given comes from :mod:`stations_generator.settings`.

    Parameters
    ----------
    urls : str or iterable of str, optional
        Endpoints tried in order; None or empty means
        :data:`~stations_generator.settings.DEFAULT_OVERPASS_URLS`.
    timeout : float, optional
        The deadline of one call in seconds [default:
        :data:`~stations_generator.settings.DEFAULT_TIMEOUT_S`].
    cache_dir : pathlib.Path, optional
        Where answers are cached [default:
        :func:`~stations_generator.settings.overpass_cache_dir`].
    use_cache : bool
        ``False`` neither reads nor writes the cache (``--no-cache``).
    log, notify, status : callable, optional
        As for :class:`OverpassClient`.

    Returns
    -------
    OverpassClient

    Raises
    ------
    InputError
        If an endpoint is not an http(s) URL or ``timeout`` is not a positive number.
    """
    endpoints = (urls,) if isinstance(urls, str) and urls else tuple(urls or ())
    return OverpassClient(
        endpoints or settings.DEFAULT_OVERPASS_URLS,
        timeout=settings.DEFAULT_TIMEOUT_S if timeout is None else timeout,
        cache_dir=cache_dir,
        use_cache=use_cache,
        log=log,
        notify=notify,
        status=status,
    )
