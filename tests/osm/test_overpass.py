"""Tests for the Overpass client and the Overpass JSON parsers.

Every HTTP test talks to a scripted ``ThreadingHTTPServer`` on 127.0.0.1; sleeping
goes through an injected recorder, so retries cost no wall-clock time.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from pyproj import Geod
from shapely.geometry import Polygon, box, shape
from support.paths import TESTS

from stations_generator import settings
from stations_generator.core.elements import OsmElement
from stations_generator.errors import InputError, OverpassError
from stations_generator.osm import overpass
from stations_generator.osm.overpass import DEFAULT_ENDPOINTS, OverpassClient
from stations_generator.osm.overpass_file import read_overpass_json_file
from stations_generator.osm.overpass_json import (
    parse_overpass_json,
    water_polygons_from_overpass_json,
)

HERE = TESTS
RECORDED = HERE / "data" / "overpass"
SIOUX = HERE.parent / "examples" / "sioux-falls"
QUERY = '[out:json][timeout:25];\nnode["amenity"="cafe"](43.45,-96.85,43.65,-96.6);\nout center;'
GEOD = Geod(ellps="WGS84")


def recorded(name: str) -> bytes:
    return (RECORDED / name).read_bytes()


# --------------------------------------------------------------------------- #
# Scripted local Overpass
# --------------------------------------------------------------------------- #


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drip: float = 0.0  # > 0: send the body one byte every `drip` seconds


@dataclass
class Seen:
    path: str
    method: str
    headers: dict[str, str]
    body: bytes


class ScriptedOverpass:
    """Serves a queue of replies per path; the last reply repeats forever."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[Reply]] = {}
        self.seen: list[Seen] = []
        self.stop = threading.Event()
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with lock:
                    outer.seen.append(Seen(self.path, "POST", dict(self.headers), body))
                    queue = outer.scripts.get(self.path)
                    if not queue:
                        reply = Reply(404, b"no script for this path")
                    elif len(queue) > 1:
                        reply = queue.pop(0)
                    else:
                        reply = queue[0]
                if reply.delay:
                    outer.stop.wait(reply.delay)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    if not reply.drip:
                        self.wfile.write(reply.body)
                    for k in range(len(reply.body) if reply.drip else 0):
                        self.wfile.write(reply.body[k : k + 1])
                        self.wfile.flush()
                        if outer.stop.wait(reply.drip):
                            break
                except OSError:  # the client gave up (timeout test)
                    pass

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def url(self, name: str = "a") -> str:
        return f"http://127.0.0.1:{self.port}/{name}/api/interpreter"

    def script(self, name: str, *replies: Reply) -> str:
        self.scripts[f"/{name}/api/interpreter"] = list(replies)
        return self.url(name)

    def count(self, name: str | None = None) -> int:
        if name is None:
            return len(self.seen)
        return sum(1 for s in self.seen if s.path == f"/{name}/api/interpreter")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedOverpass]:
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("ALL_PROXY", raising=False)
    srv = ScriptedOverpass()
    srv.thread.start()
    yield srv
    srv.stop.set()
    srv.httpd.shutdown()
    srv.httpd.server_close()


@dataclass
class Harness:
    cache_dir: Path
    sleeps: list[float] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)

    def client(self, endpoints: str | list[str], **kwargs: Any) -> OverpassClient:
        if isinstance(endpoints, str):
            endpoints = [endpoints]
        kwargs.setdefault("cache_dir", self.cache_dir)
        kwargs.setdefault("timeout", 5.0)
        kwargs.setdefault("sleep", self.sleeps.append)
        kwargs.setdefault("log", self.logs.append)
        return OverpassClient(endpoints, **kwargs)

    def cached_files(self) -> list[Path]:
        return sorted(self.cache_dir.glob("*")) if self.cache_dir.exists() else []


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    return Harness(cache_dir=tmp_path / "cache")


SUBSET = recorded("sioux-falls-pois-subset.json")
JSON_HEADERS = {"Content-Type": "application/json"}
HTML_HEADERS = {"Content-Type": "text/html; charset=utf-8"}


def ok() -> Reply:
    return Reply(200, SUBSET, JSON_HEADERS)


def assert_one_line(message: str) -> None:
    assert message and "\n" not in message and "\r" not in message


# --------------------------------------------------------------------------- #
# Requests and retries
# --------------------------------------------------------------------------- #


def test_posts_query_as_form_field(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", ok())
    data = harness.client(url).fetch(QUERY)
    assert data == json.loads(SUBSET)
    assert server.count() == 1
    seen = server.seen[0]
    assert seen.method == "POST"
    assert parse_qs(seen.body.decode())["data"] == [QUERY]
    assert seen.headers["Content-Type"].startswith("application/x-www-form-urlencoded")
    assert seen.headers["User-Agent"].startswith("stations-generator/")
    assert harness.sleeps == []


def test_429_with_retry_after_then_success(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script(
        "a",
        Reply(429, recorded("429-too-many-requests.html"), {**HTML_HEADERS, "Retry-After": "3"}),
        ok(),
    )
    elements = harness.client(url).fetch_elements(QUERY)
    assert elements == parse_overpass_json(json.loads(SUBSET))
    assert len(elements) == 40
    assert harness.sleeps == [3.0]
    assert server.count() == 2
    assert any("429" in m and url in m and "retrying in 3.0 s (try 2/4)" in m for m in harness.logs)


def test_retry_after_is_honoured_beyond_max_backoff(
    server: ScriptedOverpass, harness: Harness
) -> None:
    url = server.script("a", Reply(429, b"", {"Retry-After": "8"}), ok())
    harness.client(url, max_backoff=2.0, timeout=30.0).fetch(QUERY)
    assert harness.sleeps == [8.0]  # the server's word, not an earlier, pointless retry


def test_retry_after_beyond_the_deadline_fails_at_once(
    server: ScriptedOverpass, harness: Harness
) -> None:
    url = server.script("a", Reply(429, b"", {"Retry-After": "600"}), ok())
    started = time.monotonic()
    with pytest.raises(OverpassError) as info:
        harness.client(url, max_backoff=10.0, timeout=5.0).fetch(QUERY)
    assert time.monotonic() - started < 2.0
    message = str(info.value)
    assert_one_line(message)
    assert (
        f"Overpass at {url} answered 429 Too Many Requests and asks to be asked again in 600 s "
        "(after " in message
    )
    # (in the last 10 minutes of a UTC day, the time to come back is on the next day)
    assert re.search(
        r"\(after \d\d:\d\d UTC( on \d{4}-\d\d-\d\d)?\), beyond the 5 s deadline "
        r"\(--overpass-timeout\); try again then",
        message,
    )
    assert harness.sleeps == [] and server.count() == 1


def test_504_then_success_uses_backoff(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(504, recorded("504-gateway-timeout.html"), HTML_HEADERS), ok())
    data = harness.client(url, backoff=2.0).fetch(QUERY)
    assert len(data["elements"]) == 40
    assert harness.sleeps == [2.0]
    assert server.count() == 2


def test_backoff_doubles_and_is_capped(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(503), Reply(502), Reply(503), ok())
    harness.client(url, backoff=1.5, max_backoff=4.0, max_tries=4).fetch(QUERY)
    assert harness.sleeps == [1.5, 3.0, 4.0]
    assert server.count() == 4


def test_429_every_time_gives_one_line_error(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(429, recorded("429-too-many-requests.html"), HTML_HEADERS))
    with pytest.raises(OverpassError) as info:
        harness.client(url, max_tries=3).fetch(QUERY)
    message = str(info.value)
    assert_one_line(message)
    assert f"Overpass at {url} answered 429 Too Many Requests after 3 tries" in message
    assert "wait a few minutes, or pass --overpass-url" in message
    assert server.count() == 3
    assert len(harness.sleeps) == 2  # no pointless wait after the last try
    assert harness.cached_files() == []  # failures are never cached


def test_timeout_then_success(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(200, SUBSET, JSON_HEADERS, delay=3.0), ok())
    started = time.monotonic()
    data = harness.client(url, try_timeout=0.3, backoff=1.0).fetch(QUERY)
    elapsed = time.monotonic() - started
    assert len(data["elements"]) == 40
    assert server.count() == 2
    assert harness.sleeps == [1.0]
    assert elapsed < 2.5  # the slow reply was abandoned, not waited for
    assert any("timed out after 0.3 s" in m for m in harness.logs)


def test_always_slow_raises_timed_out(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(200, SUBSET, JSON_HEADERS, delay=2.0))
    with pytest.raises(OverpassError) as info:
        harness.client(url, try_timeout=0.3, max_tries=2).fetch(QUERY)
    message = str(info.value)
    assert_one_line(message)
    assert f"Overpass at {url} timed out after 0.3 s (2 tries)" in message
    assert "try again later or raise --overpass-timeout" in message
    assert server.count() == 2


def test_runtime_error_remark_is_retried(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(200, recorded("runtime-error-remark.json"), JSON_HEADERS), ok())
    data = harness.client(url).fetch(QUERY)
    assert "remark" not in data
    assert len(data["elements"]) == 40
    assert server.count() == 2
    assert harness.sleeps == [2.0]


def test_runtime_error_remark_every_time(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(200, recorded("runtime-error-remark.json"), JSON_HEADERS))
    with pytest.raises(OverpassError) as info:
        harness.client(url, max_tries=2).fetch(QUERY)
    message = str(info.value)
    assert_one_line(message)
    assert "runtime error: Query timed out" in message and url in message
    assert harness.cached_files() == []


def test_truncated_json_is_a_clear_error(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(200, recorded("truncated.json"), JSON_HEADERS))
    with pytest.raises(OverpassError) as info:
        harness.client(url).fetch(QUERY)
    message = str(info.value)
    assert_one_line(message)
    assert f"Overpass at {url} returned a response that is not JSON (starts with '{{" in message
    assert server.count() == 1  # not retried: the same query gets the same answer
    assert harness.cached_files() == []


def test_xml_instead_of_json_names_the_fix(server: ScriptedOverpass, harness: Harness) -> None:
    xml = b'<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="Overpass API">'
    url = server.script("a", Reply(200, xml, {"Content-Type": "application/osm3s+xml"}))
    with pytest.raises(OverpassError) as info:
        harness.client(url).fetch(QUERY)
    assert "starts with '<?xml version=" in str(info.value)
    assert "[out:json]" in str(info.value)


def test_json_that_is_not_overpass(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(200, b'{"status": "ok"}', JSON_HEADERS))
    with pytest.raises(OverpassError, match="not an Overpass response"):
        harness.client(url).fetch(QUERY)


def test_400_reports_overpass_parse_error(server: ScriptedOverpass, harness: Harness) -> None:
    url_a = server.script("a", Reply(400, recorded("400-parse-error.html"), HTML_HEADERS))
    url_b = server.script("b", ok())
    with pytest.raises(OverpassError) as info:
        harness.client([url_a, url_b]).fetch("[out:json];nod[amenity=cafe];out;")
    message = str(info.value)
    assert_one_line(message)
    assert f"Overpass at {url_a} rejected the query (400 Bad Request)" in message
    assert 'line 1: parse error: Unknown type "nod"' in message
    assert "line 2: parse error: ')' expected - ';' found." in message
    assert server.count("a") == 1
    assert server.count("b") == 0  # every instance would reject it the same way
    assert harness.sleeps == []


@pytest.mark.parametrize("status", [404, 500])
def test_other_errors_move_to_next_endpoint_without_retry(
    server: ScriptedOverpass, harness: Harness, status: int
) -> None:
    url_a = server.script("a", Reply(status, b"nope"))
    url_b = server.script("b", ok())
    data = harness.client([url_a, url_b]).fetch(QUERY)
    assert len(data["elements"]) == 40
    assert (server.count("a"), server.count("b")) == (1, 1)
    assert harness.sleeps == []


def test_redirect_is_reported_not_followed(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(301, b"", {"Location": "https://example.invalid/api/x"}))
    with pytest.raises(OverpassError) as info:
        harness.client(url).fetch(QUERY)
    assert "redirects to https://example.invalid/api/x" in str(info.value)
    assert server.count() == 1


# --------------------------------------------------------------------------- #
# Several endpoints
# --------------------------------------------------------------------------- #


def test_fallback_to_second_endpoint(server: ScriptedOverpass, harness: Harness) -> None:
    url_a = server.script("a", Reply(503, recorded("504-gateway-timeout.html"), HTML_HEADERS))
    url_b = server.script("b", ok())
    data = harness.client([url_a, url_b], max_tries=2).fetch(QUERY)
    assert len(data["elements"]) == 40
    assert (server.count("a"), server.count("b")) == (2, 1)
    assert harness.sleeps == [2.0]
    assert any(f"trying {url_b}" in m for m in harness.logs)


def test_all_endpoints_failing_names_each(server: ScriptedOverpass, harness: Harness) -> None:
    url_a = server.script("a", Reply(503))
    url_b = server.script("b", Reply(429, recorded("429-too-many-requests.html"), HTML_HEADERS))
    with pytest.raises(OverpassError) as info:
        harness.client([url_a, url_b], max_tries=2).fetch(QUERY)
    message = str(info.value)
    assert_one_line(message)
    assert f"Overpass at {url_a} answered 503 Service Unavailable after 2 tries" in message
    assert f"Overpass at {url_b} answered 429 Too Many Requests after 2 tries" in message
    assert (server.count("a"), server.count("b")) == (2, 2)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_refused_moves_on_at_once(server: ScriptedOverpass, harness: Harness) -> None:
    refused = f"http://127.0.0.1:{closed_port()}/api/interpreter"
    url_b = server.script("b", ok())
    data = harness.client([refused, url_b]).fetch(QUERY)
    assert len(data["elements"]) == 40
    assert harness.sleeps == []
    assert server.count("b") == 1


def test_connection_refused_only(harness: Harness) -> None:
    refused = f"http://127.0.0.1:{closed_port()}/api/interpreter"
    with pytest.raises(OverpassError) as info:
        harness.client(refused).fetch(QUERY)
    message = str(info.value)
    assert_one_line(message)
    assert f"could not connect to Overpass at {refused}" in message
    assert "check your internet connection" in message


# --------------------------------------------------------------------------- #
# Deadlines
# --------------------------------------------------------------------------- #


def test_a_dripping_server_cannot_stretch_the_deadline(
    server: ScriptedOverpass, harness: Harness
) -> None:
    """One byte every 0.5 s: no read ever times out, the call's deadline still holds."""
    url = server.script("a", Reply(200, SUBSET, JSON_HEADERS, drip=0.5))
    shown: list[str | None] = []
    client = harness.client(url, timeout=2.0, status=shown.append)
    started = time.monotonic()
    with pytest.raises(OverpassError) as info:
        client.fetch(QUERY)
    elapsed = time.monotonic() - started
    assert 1.9 < elapsed < 4.0
    message = str(info.value)
    assert_one_line(message)
    assert f"Overpass at {url} gave no complete answer within the 2 s deadline (1 try" in message
    assert "try again later or raise --overpass-timeout" in message
    assert server.count() == 1 and harness.cached_files() == []
    # The wait was said once, and drawn as a status line (cleared at the end).
    assert [m for m in harness.logs if m.startswith("waiting for")] == [
        f"waiting for Overpass at {url} (up to 1 s more)"
    ]
    host = f"127.0.0.1:{server.port}"
    assert any(m and m.startswith(f"Overpass {host}: waiting, ") and "received" in m for m in shown)
    assert shown[-1] is None


def test_a_server_that_never_answers(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(200, SUBSET, JSON_HEADERS, delay=30.0))
    started = time.monotonic()
    with pytest.raises(OverpassError, match="no complete answer within the 1.5 s deadline"):
        harness.client(url, timeout=1.5).fetch(QUERY)
    assert time.monotonic() - started < 3.5


def test_504_forever_stops_at_the_deadline(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(504, recorded("504-gateway-timeout.html"), HTML_HEADERS))
    # Backoff 1 s, then 2 s: the second wait would end after the 2.5 s deadline.
    slept: list[float] = []
    started = time.monotonic()
    with pytest.raises(OverpassError) as info:
        harness.client(
            url,
            timeout=2.5,
            backoff=1.0,
            max_tries=10,
            sleep=lambda s: (slept.append(s), time.sleep(s)),
        ).fetch(QUERY)
    assert time.monotonic() - started < 2.5
    message = str(info.value)
    assert f"Overpass at {url} answered 504 Gateway Timeout after 2 tries" in message
    assert "the next try would start after the 2.5 s deadline" in message
    assert slept == [1.0] and server.count() == 2


def test_the_deadline_covers_every_endpoint(server: ScriptedOverpass, harness: Harness) -> None:
    url_a = server.script("a", Reply(200, SUBSET, JSON_HEADERS, delay=30.0))
    url_b = server.script("b", ok())
    with pytest.raises(OverpassError) as info:
        harness.client([url_a, url_b], timeout=1.0).fetch(QUERY)
    assert server.count("b") == 0  # no time was left for it
    assert "no time was left for the other instances" in str(info.value)


def test_unknown_host_is_a_network_failure(harness: Harness, monkeypatch) -> None:
    def no_such_host(*args, **kwargs):
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    with pytest.raises(OverpassError) as info:
        harness.client("http://overpass.invalid/api/interpreter").fetch(QUERY)
    message = str(info.value)
    assert message.startswith(
        "could not connect to Overpass at http://overpass.invalid/api/interpreter "
        "(unknown host: Name or service not known; 1 try)"
    )
    assert harness.sleeps == []


# --------------------------------------------------------------------------- #
# Nothing bad is cached
# --------------------------------------------------------------------------- #


def poisoned() -> bytes:
    """The recorded answer with one element's latitude off the globe."""
    data = json.loads(SUBSET)
    data["elements"][0]["lat"] = 95.0
    return json.dumps(data).encode()


def test_a_poisoned_answer_is_not_cached(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", Reply(200, poisoned(), JSON_HEADERS), ok())
    with pytest.raises(OverpassError) as info:
        harness.client(url).fetch(QUERY)
    message = str(info.value)
    assert_one_line(message)
    assert message.startswith(f"Overpass at {url} returned data that cannot be used (")
    assert (
        "$.elements[0]" in message
        and "latitude 95.0" in message
        and "nothing was cached" in message
    )
    assert harness.cached_files() == []
    # The server has recovered: the next run gets (and caches) the good answer.
    assert harness.client(url).fetch(QUERY) == json.loads(SUBSET)
    assert len(harness.cached_files()) == 1


def test_a_poisoned_answer_moves_on_to_the_next_endpoint(
    server: ScriptedOverpass, harness: Harness
) -> None:
    url_a = server.script("a", Reply(200, poisoned(), JSON_HEADERS))
    url_b = server.script("b", ok())
    elements = harness.client([url_a, url_b]).fetch_elements(QUERY)
    assert len(elements) == 40 and (server.count("a"), server.count("b")) == (1, 1)


def test_a_poisoned_cache_entry_heals(server: ScriptedOverpass, harness: Harness) -> None:
    """An entry cached by an older version before validation: dropped and fetched again."""
    url = server.script("a", ok())
    client = harness.client(url)
    path = client.cache_path(QUERY)
    path.parent.mkdir(parents=True)
    path.write_bytes(poisoned())
    assert client.fetch_elements(QUERY) == parse_overpass_json(json.loads(SUBSET))
    assert server.count() == 1
    assert any(
        m.startswith("dropping the unusable (") and "latitude 95.0" in m and str(path) in m
        for m in harness.logs
    )
    assert json.loads(path.read_bytes()) == json.loads(SUBSET)  # healed
    client.fetch(QUERY)
    assert server.count() == 1


def test_the_callers_parse_decides_what_is_cached(
    server: ScriptedOverpass, harness: Harness
) -> None:
    url = server.script("a", ok())

    def refuse(data):
        raise InputError("no water in this answer")

    with pytest.raises(OverpassError, match=r"cannot be used \(no water in this answer\)"):
        harness.client(url).fetch_parsed(QUERY, refuse)
    assert harness.cached_files() == []
    assert harness.client(url).fetch_parsed(QUERY, lambda d: len(d["elements"])) == 40
    assert len(harness.cached_files()) == 1


@pytest.mark.parametrize(
    ("endpoints", "kwargs", "fragment"),
    [
        ([], {}, "no Overpass URL"),
        (["ftp://127.0.0.1/api/interpreter"], {}, "not an http(s) URL"),
        (["127.0.0.1/api/interpreter"], {}, "not an http(s) URL"),
        (["http://127.0.0.1/api/interpreter"], {"timeout": 0}, "timeout"),
        (["http://127.0.0.1/api/interpreter"], {"max_tries": 0}, "max tries"),
    ],
)
def test_bad_client_options(
    tmp_path: Path, endpoints: list[str], kwargs: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(InputError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        OverpassClient(endpoints, cache_dir=tmp_path, **kwargs)


def test_default_endpoints_are_https_interpreters() -> None:
    assert len(DEFAULT_ENDPOINTS) >= 2
    for url in DEFAULT_ENDPOINTS:
        assert url.startswith("https://") and url.endswith("/api/interpreter")


# --------------------------------------------------------------------------- #
# Cache
# --------------------------------------------------------------------------- #


def test_cache_hit_makes_no_request(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", ok())
    first = harness.client(url).fetch(QUERY)
    assert server.count() == 1
    digest = hashlib.sha256(QUERY.encode("utf-8")).hexdigest()
    assert harness.cached_files() == [harness.cache_dir / f"{digest}.json"]  # no temp leftovers
    second = harness.client(url).fetch(QUERY)
    assert server.count() == 1
    assert second == first
    # The key is the query, not the endpoint.
    other = server.script("b", Reply(503))
    assert harness.client(other).fetch(QUERY) == first
    assert server.count() == 1
    # Another query is another entry.
    harness.client(url).fetch(QUERY + "\n")
    assert server.count() == 2
    assert len(harness.cached_files()) == 2


def test_use_cache_false_always_asks(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", ok())
    client = harness.client(url, use_cache=False)
    assert client.fetch(QUERY) == client.fetch(QUERY)
    assert server.count() == 2
    assert harness.cached_files() == []
    # ...and does not read an existing entry either.
    harness.client(url).fetch(QUERY)
    assert server.count() == 3
    client.fetch(QUERY)
    assert server.count() == 4


def test_corrupt_cache_file_is_replaced(server: ScriptedOverpass, harness: Harness) -> None:
    url = server.script("a", ok())
    client = harness.client(url)
    path = client.cache_path(QUERY)
    path.parent.mkdir(parents=True)
    path.write_text('{"elements": [{"type": "node", "id"', encoding="utf-8")
    data = client.fetch(QUERY)
    assert server.count() == 1
    assert json.loads(path.read_text(encoding="utf-8")) == data
    assert any("corrupt" in m for m in harness.logs)
    assert client.fetch(QUERY) == data
    assert server.count() == 1


def test_client_defaults_to_user_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(settings.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    client = OverpassClient(["http://127.0.0.1/api/interpreter"])
    assert client.cache_dir == tmp_path / "stations-generator" / "overpass"


# --------------------------------------------------------------------------- #
# parse_overpass_json
# --------------------------------------------------------------------------- #


def raw_position(element: dict[str, Any]) -> tuple[float, float] | None:
    if "lat" in element and "lon" in element:
        return element["lat"], element["lon"]
    if "center" in element:
        return element["center"]["lat"], element["center"]["lon"]
    return None


def test_parse_sioux_falls_pois() -> None:
    raw = json.loads((SIOUX / "pois.json").read_text(encoding="utf-8"))
    elements = parse_overpass_json(raw)
    positioned = [e for e in raw if raw_position(e) is not None]
    assert len(elements) == len(positioned)
    assert {e.osm_type for e in elements} == {"node", "way", "relation"}
    by_key = {f"{e['type']}/{e['id']}": e for e in raw}
    for element in elements:
        source = by_key[element.key]
        assert (element.lat, element.lon) == raw_position(source)
        assert element.tags == source.get("tags", {})
    assert sum(e.osm_type != "node" for e in elements) == sum("center" in e for e in raw)
    order = {"node": 0, "way": 1, "relation": 2}
    keys = [(order[e.osm_type], e.osm_id) for e in elements]
    assert keys == sorted(keys)
    shuffled = list(raw)
    random.Random(7).shuffle(shuffled)
    again = parse_overpass_json(shuffled)
    assert [(e.key, e.lat, e.lon, e.tags) for e in again] == [
        (e.key, e.lat, e.lon, e.tags) for e in elements
    ]


def test_parse_envelope_equals_bare_list() -> None:
    envelope = json.loads(SUBSET)
    assert {"version", "generator", "osm3s", "elements"} <= set(envelope)
    pois = json.loads((SIOUX / "pois.json").read_text(encoding="utf-8"))
    pois_by_key = {(e["type"], e["id"]): e for e in pois}
    assert all(pois_by_key[(e["type"], e["id"])] == e for e in envelope["elements"])
    from_envelope = parse_overpass_json(envelope)
    from_list = parse_overpass_json(envelope["elements"])
    assert [(e.key, e.lat, e.lon, e.tags) for e in from_envelope] == [
        (e.key, e.lat, e.lon, e.tags) for e in from_list
    ]
    assert [e.osm_type for e in from_envelope].count("way") == 6
    assert [e.osm_type for e in from_envelope].count("relation") == 4


def test_parse_positions_from_bounds_and_geometry() -> None:
    data = {
        "elements": [
            {
                "type": "relation",
                "id": 5,
                "bounds": {"minlat": 1, "minlon": 2, "maxlat": 3, "maxlon": 6},
                "tags": {"a": "b"},
            },
            {
                "type": "way",
                "id": 9,
                "geometry": [{"lat": 10, "lon": 20}, None, {"lat": 12, "lon": 26}],
            },
            {
                "type": "relation",
                "id": 4,
                "members": [
                    {
                        "type": "way",
                        "ref": 1,
                        "role": "outer",
                        "geometry": [{"lat": -2, "lon": 0}, None, {"lat": 2, "lon": 8}],
                    },
                ],
            },
            {"type": "node", "id": 3},  # out ids: no position
            {"type": "way", "id": 2, "tags": {"x": "y"}},  # out tags: no position
            {"type": "area", "id": 3600000001, "tags": {"name": "x"}},
            {"type": "node", "id": 1, "lat": 0.5, "lon": 0.25, "tags": {"k": 1}},
            {"type": "node", "id": 1, "lat": 9.0, "lon": 9.0},  # duplicate: first wins
        ]
    }
    elements = parse_overpass_json(data)
    assert [(e.key, e.lat, e.lon) for e in elements] == [
        ("node/1", 0.5, 0.25),
        ("way/9", 11.0, 23.0),
        ("relation/4", 0.0, 4.0),
        ("relation/5", 2.0, 4.0),
    ]
    assert elements[0].tags == {"k": "1"}
    assert elements[-1].tags == {"a": "b"}
    assert all(isinstance(e, OsmElement) for e in elements)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"foo": 1}, "without an 'elements' list"),
        ("text", "not an object or a list"),
        ([{"type": "node"}], "element #0"),
        ([1], "element #0 is not an object"),
        (json.loads(recorded("runtime-error-remark.json")), "runtime error"),
        ([{"type": "node", "id": 1, "lat": 91.0, "lon": 0.0}], "out-of-range latitude"),
        ([{"type": "node", "id": 1, "lat": "north", "lon": 0.0}], "non-numeric latitude"),
    ],
)
def test_parse_rejects_bad_data(data: Any, fragment: str) -> None:
    with pytest.raises(InputError, match=fragment):
        parse_overpass_json(data)


# --------------------------------------------------------------------------- #
# read_overpass_json_file
# --------------------------------------------------------------------------- #


def test_read_saved_responses(tmp_path: Path) -> None:
    # Streamed: the elements are kept (the envelope's version/generator/osm3s are not).
    read = read_overpass_json_file(RECORDED / "sioux-falls-pois-subset.json")
    assert read["elements"] == json.loads(SUBSET)["elements"]
    bare = read_overpass_json_file(SIOUX / "pois.json")
    assert bare["elements"] == json.loads((SIOUX / "pois.json").read_text())
    assert len(bare["elements"]) == 649
    # keep= filters while streaming.
    cafes = read_overpass_json_file(
        SIOUX / "pois.json", keep=lambda e: (e.get("tags") or {}).get("amenity") == "cafe"
    )
    assert 0 < len(cafes["elements"]) < 649
    assert all(e["tags"]["amenity"] == "cafe" for e in cafes["elements"])


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "does not exist"),
        ("{not json", "is not valid JSON"),
        ('{"type": "FeatureCollection", "features": []}', "is not an Overpass JSON response"),
        (json.dumps({"elements": [{"type": "node", "id": "x"}]}), "integer 'id'"),
        (recorded("runtime-error-remark.json").decode(), "incomplete Overpass response"),
    ],
)
def test_read_rejects_bad_files(tmp_path: Path, content: str | None, fragment: str) -> None:
    path = tmp_path / "saved.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_overpass_json_file(path)
    assert fragment in str(info.value)
    assert str(path) in str(info.value)
    assert_one_line(str(info.value))


def test_read_rejects_directory_and_binary(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        read_overpass_json_file(tmp_path)
    binary = tmp_path / "x.pbf"
    binary.write_bytes(b"\xff\xfe\x00\x81\x82")
    with pytest.raises(InputError, match="not a text file"):
        read_overpass_json_file(binary)


# --------------------------------------------------------------------------- #
# water_polygons_from_overpass_json
# --------------------------------------------------------------------------- #


def geodesic_area(polygon: Polygon) -> float:
    return abs(GEOD.geometry_area_perimeter(polygon)[0])


def test_water_polygons_sioux_falls() -> None:
    raw = json.loads((SIOUX / "water.json").read_text(encoding="utf-8"))
    polygons = water_polygons_from_overpass_json(raw)
    closed = [w for w in raw if w["type"] == "way" and w["nodes"][0] == w["nodes"][-1]]
    assert len(polygons) == len(closed) > 0
    assert all(p.is_valid and not p.is_empty and p.area > 0 for p in polygons)
    # Independent measure: geodesic area of each raw ring, straight from the JSON.
    expected = 0.0
    for way in closed:
        lats = [g["lat"] for g in way["geometry"]]
        lons = [g["lon"] for g in way["geometry"]]
        expected += abs(GEOD.polygon_area_perimeter(lons, lats)[0])
    total = sum(geodesic_area(p) for p in polygons)
    assert total > 0
    assert total == pytest.approx(expected, rel=1e-9)
    # Each polygon lies in its way's bounds, in (lon, lat) order.
    for polygon, way in zip(polygons, sorted(closed, key=lambda w: w["id"]), strict=True):
        b = way["bounds"]
        frame = box(b["minlon"], b["minlat"], b["maxlon"], b["maxlat"])
        assert frame.buffer(1e-9).covers(polygon)
        assert geodesic_area(polygon) <= geodesic_area(frame)
    # All the water is less than the play area it was clipped to.
    play = json.loads((SIOUX / "polygon.geojson").read_text(encoding="utf-8"))
    play_area = sum(geodesic_area(shape(f["geometry"])) for f in play["features"])
    assert total < play_area


def ring(x0: float, y0: float, x1: float, y1: float) -> list[dict[str, float]]:
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
    return [{"lat": y, "lon": x} for x, y in corners]


def test_water_multipolygon_relation() -> None:
    outer = ring(0, 0, 10, 10)
    data = {
        "elements": [
            # An open way on its own (a river centre line): ignored.
            {
                "type": "way",
                "id": 50,
                "nodes": [1, 2],
                "tags": {"waterway": "river"},
                "geometry": [{"lat": 0, "lon": 0}, {"lat": 5, "lon": 5}],
            },
            {
                "type": "relation",
                "id": 7,
                "tags": {"type": "multipolygon", "natural": "water"},
                "members": [
                    # Outer ring split over two open ways, the second reversed.
                    {"type": "way", "ref": 1, "role": "outer", "geometry": outer[:3]},
                    {"type": "way", "ref": 2, "role": "outer", "geometry": outer[2:][::-1]},
                    {"type": "way", "ref": 3, "role": "inner", "geometry": ring(2, 2, 8, 8)},
                    # Island in the lake's hole: an outer inside an inner.
                    {"type": "way", "ref": 4, "role": "outer", "geometry": ring(4, 4, 6, 6)},
                    {"type": "node", "ref": 9, "role": "label", "lat": 1, "lon": 1},
                ],
            },
            {
                "type": "relation",
                "id": 8,
                "tags": {"type": "route"},
                "members": [
                    {"type": "way", "ref": 5, "role": "", "geometry": ring(20, 20, 30, 30)}
                ],
            },
        ]
    }
    polygons = water_polygons_from_overpass_json(data)
    assert len(polygons) == 2
    assert sum(p.area for p in polygons) == pytest.approx(100 - 36 + 4)
    lake = max(polygons, key=lambda p: p.area)
    assert len(lake.interiors) == 1 and lake.area == pytest.approx(64)
    assert all(p.is_valid for p in polygons)


def test_water_repairs_invalid_rings_and_skips_gaps() -> None:
    bowtie = [
        {"lat": 0, "lon": 0},
        {"lat": 2, "lon": 2},
        {"lat": 0, "lon": 2},
        {"lat": 2, "lon": 0},
        {"lat": 0, "lon": 0},
    ]
    data = {
        "elements": [
            {"type": "way", "id": 1, "tags": {"natural": "water"}, "geometry": bowtie},
            # Clipped by the query bbox: not a usable ring.
            {
                "type": "way",
                "id": 2,
                "tags": {"natural": "water"},
                "geometry": [
                    {"lat": 0, "lon": 5},
                    None,
                    {"lat": 1, "lon": 6},
                    {"lat": 0, "lon": 5},
                ],
            },
            # Untagged closed member way of a returned relation: not water by itself.
            {"type": "way", "id": 3, "geometry": ring(10, 10, 11, 11)},
            {
                "type": "relation",
                "id": 4,
                "tags": {"type": "multipolygon"},
                "members": [
                    {"type": "way", "ref": 3, "role": "outer", "geometry": ring(10, 10, 11, 11)},
                    {
                        "type": "way",
                        "ref": 6,
                        "role": "outer",
                        "geometry": [{"lat": 20, "lon": 20}, None, {"lat": 21, "lon": 21}],
                    },
                ],
            },
        ]
    }
    polygons = water_polygons_from_overpass_json(data)
    assert all(p.is_valid and p.area > 0 for p in polygons)
    bowtie_parts = [p for p in polygons if p.bounds[2] <= 2]
    assert len(bowtie_parts) == 2 and sum(p.area for p in bowtie_parts) == pytest.approx(2.0)
    assert [p.area for p in polygons if p.bounds[0] >= 10] == [pytest.approx(1.0)]
    assert not [p for p in polygons if 4 <= p.bounds[0] < 10]


def test_object_listed_twice_keeps_centre_and_geometry() -> None:
    """A batched query lists a lake that is also a POI twice: out center, then out geom."""
    lake = ring(-96.72, 43.50, -96.71, 43.51)
    data = {
        "elements": [
            {
                "type": "way",
                "id": 77,
                "center": {"lat": 43.505, "lon": -96.715},
                "tags": {"leisure": "swimming_area", "natural": "water"},
            },
            {"type": "node", "id": 3, "lat": 43.5, "lon": -96.7, "tags": {"amenity": "cafe"}},
            {
                "type": "way",
                "id": 77,
                "bounds": {"minlat": 43.50, "minlon": -96.72, "maxlat": 43.51, "maxlon": -96.71},
                "nodes": [1, 2, 3, 4, 1],
                "geometry": lake,
                "tags": {"leisure": "swimming_area", "natural": "water"},
            },
        ]
    }
    elements = parse_overpass_json(data)
    assert [(e.key, e.lat, e.lon) for e in elements] == [
        ("node/3", 43.5, -96.7),
        ("way/77", 43.505, -96.715),
    ]
    polygons = water_polygons_from_overpass_json(data)
    assert len(polygons) == 1
    assert polygons[0].equals(Polygon([(p["lon"], p["lat"]) for p in lake]))


def test_client_factory_fills_in_the_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(settings.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for urls in (None, (), ""):
        made = overpass.client(urls)
        assert made.endpoints == settings.DEFAULT_OVERPASS_URLS
        assert made.timeout == settings.DEFAULT_TIMEOUT_S
        assert made.cache_dir == tmp_path / "stations-generator" / "overpass"
        assert made.use_cache
    one = "http://127.0.0.1:9/api/interpreter"
    made = overpass.client(one, timeout=5, cache_dir=tmp_path / "c", use_cache=False)
    assert made.endpoints == (one,)
    assert (made.timeout, made.cache_dir, made.use_cache) == (5.0, tmp_path / "c", False)
    assert overpass.client([one, one + "2"]).endpoints == (one, one + "2")
    with pytest.raises(InputError, match="not an http"):
        overpass.client(["ftp://example.org"])
