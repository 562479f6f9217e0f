"""Every network wait is bounded, said, and never leaves bad data behind.

``generate`` online (Overpass) and ``generate --place`` (Nominatim) against the local
stand-ins of ``osm_services`` in their fault modes: a server that drips one byte
every 2 s, one that answers 429 with ``Retry-After: 3600``, one that answers 504
forever, one whose first answer holds a poisoned element, and an address nothing
listens on. Each run must end within the stated deadline (``--overpass-timeout``)
+ 5 s with a one-line error naming the service and its URL, exit 4 (a network
failure), cache nothing bad and write no output.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.osm_services import PLACE_QUERY
from support.paths import REPO
from support.quickstart import readme_summary, summary

from stations_generator.cli import main

ZONE = REPO / "zones" / "sioux-falls.geojson"
DEADLINE_S = 5


@pytest.fixture
def services(local_services):
    return local_services


def timed(*args, env):
    started = time.monotonic()
    result = CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)
    return result, time.monotonic() - started


def cached(tmp_path: Path) -> list[Path]:
    return sorted(p for p in tmp_path.rglob("*.json") if p.parent.name in ("overpass", "nominatim"))


def online(*extra):
    return ("generate", ZONE, "-o", "out", "--overpass-timeout", DEADLINE_S, *extra)


def place(*extra):
    return (
        "generate",
        "--place",
        PLACE_QUERY,
        "-o",
        "out",
        "--overpass-timeout",
        DEADLINE_S,
        *extra,
    )


def run_fault(services, service: str, mode: str, times: int | None = None):
    """A run of generate (overpass) or generate --place (nominatim) with ``service`` in ``mode``."""
    running, env = services
    running.fault(service, mode, times)
    result, elapsed = timed(*(online() if service == "overpass" else place()), env=env)
    url = running.overpass_url if service == "overpass" else running.nominatim_url + "/search"
    return result, elapsed, "Overpass" if service == "overpass" else "Nominatim", url


def assert_network_failure(result, elapsed: float, tmp_path: Path, *fragments: str) -> str:
    lines = result.output.splitlines()
    assert result.exit_code == 4, result.output
    assert lines[-1].startswith("error: ") and all(f in lines[-1] for f in fragments), lines[-1]
    assert elapsed <= DEADLINE_S + 5, elapsed
    assert not (tmp_path / "out").exists()  # nothing written, not even the folder
    assert cached(tmp_path) == []
    return lines[-1]


@pytest.mark.slow  # (seconds; the full suite runs it)
@pytest.mark.parametrize("service", ["overpass", "nominatim"])
def test_dripping_server(services, tmp_path, service):
    result, elapsed, name, url = run_fault(services, service, "drip")
    assert_network_failure(
        result,
        elapsed,
        tmp_path,
        f"{name} at {url} gave no complete answer within the 5 s deadline",
    )
    assert elapsed >= DEADLINE_S - 0.5  # it did wait, up to the deadline
    # The wait was said on stderr (once, in a pipe: no status line drawn).
    assert f"waiting for {name} at {url} (up to " in result.output
    assert "\r" not in result.output


@pytest.mark.parametrize("service", ["overpass", "nominatim"])
def test_retry_after_an_hour_fails_at_once(services, tmp_path, service):
    result, elapsed, name, url = run_fault(services, service, "retry-after")
    line = assert_network_failure(
        result, elapsed, tmp_path, f"{name} at {url} answered 429",
        "asks to be asked again in 3600 s (after ",
    )  # fmt: skip
    # The hour ahead may be tomorrow (from 23:00 UTC on): then the date is named too.
    assert re.search(
        r"\(after \d\d:\d\d UTC( on \d{4}-\d\d-\d\d)?\), beyond the 5 s deadline "
        r"\(--overpass-timeout\)",
        line,
    )
    assert elapsed < 3  # at once, not after a wait


@pytest.mark.parametrize("service", ["overpass", "nominatim"])
def test_504_forever(services, tmp_path, service):
    result, elapsed, name, url = run_fault(services, service, "504")
    assert_network_failure(
        result, elapsed, tmp_path, f"{name} at {url} answered 504",
        "the next try would start after the 5 s deadline",
    )  # fmt: skip
    assert url in result.output and "retrying in 2.0 s (try 2/4)" in result.output  # said


def test_quiet_run_says_only_the_error(services, tmp_path):
    running, env = services
    running.fault("overpass", "504")
    result, _ = timed("-q", *online(), env=env)
    assert result.exit_code == 4
    assert len(result.output.splitlines()) == 1 and result.output.startswith("error: ")


def test_poisoned_overpass_answer_is_never_cached_and_a_poisoned_entry_heals(services, tmp_path):
    from support.osm_services import poisoned_overpass, sioux_falls_response

    from stations_generator.osm.overpass import OverpassClient

    running, env = services
    result, elapsed, _, url = run_fault(services, "overpass", "poisoned", times=1)
    line = assert_network_failure(
        result, elapsed, tmp_path, f"Overpass at {url} returned data that cannot"
    )
    assert "out-of-range latitude 95.0" in line and "nothing was cached" in line
    # The server has recovered, but an older version had cached the poisoned answer:
    # the entry is dropped and fetched again, the run works, the cache is healed.
    path = OverpassClient(running.overpass_url, cache_dir=tmp_path / "overpass").cache_path(
        running.overpass_queries[0]
    )
    path.parent.mkdir(parents=True)
    path.write_bytes(poisoned_overpass(sioux_falls_response()))
    again, _ = timed(*online(), env=env)
    assert again.exit_code == 0, again.output
    # The quick start's map, fetched online: the README's summary.
    assert summary(again.output).line == readme_summary().line
    dropped = next(line for line in again.output.splitlines() if "dropping the unusable" in line)
    assert "latitude 95.0" in dropped and str(path) in dropped, dropped
    assert len(running.overpass_queries) == 2
    assert cached(tmp_path) == [path] and path.read_bytes() == sioux_falls_response()


def test_poisoned_nominatim_answer_is_never_cached(services, tmp_path):
    running, env = services
    result, elapsed, _, url = run_fault(services, "nominatim", "poisoned", times=1)
    assert_network_failure(
        result, elapsed, tmp_path, f"Nominatim at {url} answered with unusable data",
        "off the globe", "nothing was cached",
    )  # fmt: skip
    assert running.overpass_queries == []
    again, _ = timed(*place(), env=env)
    assert again.exit_code == 0, again.output
    assert len(cached(tmp_path)) == 2  # the Nominatim answer and the Overpass one


def test_refused_overpass(services, tmp_path):
    running, env = services
    env = {**env, "STATIONS_GENERATOR_OVERPASS_URL": running.refused_url + "/api/interpreter"}
    result, elapsed = timed(*online(), env=env)
    assert_network_failure(
        result, elapsed, tmp_path, f"could not connect to Overpass at {running.refused_url}",
        "check your internet connection",
    )  # fmt: skip
    assert elapsed < 3


def test_refused_nominatim_is_a_network_failure(services, tmp_path):
    """Issue 13: offline, --place said 'could not find a polygon for place'."""
    running, env = services
    env = {**env, "STATIONS_GENERATOR_NOMINATIM_URL": running.refused_url}
    result, elapsed = timed(*place(), env=env)
    line = assert_network_failure(
        result, elapsed, tmp_path, f"could not connect to Nominatim at {running.refused_url}/search"
    )
    assert "could not find a polygon" not in line
    assert elapsed < 3


def test_place_does_not_import_osmnx(services, tmp_path):
    """The Nominatim path no longer goes through osmnx (it retried a 504 every 55 s)."""
    import subprocess
    import sys

    _, env = services
    code = (
        "import sys; from stations_generator.cli import main; "
        "sys.argv = ['stations-generator', '-q', 'generate', '--place', sys.argv[1], '-o', 'out']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n"
        "assert 'osmnx' not in sys.modules, 'osmnx was imported'"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, PLACE_QUERY],
        env={**__import__("os").environ, **env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "stations.geojson").exists()


# --------------------------------------------------------------------------- #
# route --online: the road download goes through the same client
# --------------------------------------------------------------------------- #

LIECHTENSTEIN_EXTRACT = REPO / "tests" / "data" / "osm-extracts" / "liechtenstein-2013-08.osm.pbf"
ROUTE = ("route", "Schaan-Vaduz", "Walsermuseum", "--at", "18:00")


@pytest.fixture(scope="module")
def liechtenstein_map(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("li")
    args = ["-q", "generate", REPO / "zones" / "liechtenstein.geojson"]
    result = CliRunner().invoke(
        main, [str(a) for a in [*args, "--osm", LIECHTENSTEIN_EXTRACT, "-o", out]]
    )
    assert result.exit_code == 0, result.output
    return out / "stations.geojson"


@pytest.mark.slow  # two road graphs of a country (~10 s)
def test_route_online_matches_the_extract(services, tmp_path, liechtenstein_map):
    running, env = services
    offline, _ = timed(*ROUTE, "--map", liechtenstein_map, "--osm", LIECHTENSTEIN_EXTRACT, env=env)
    online, _ = timed(*ROUTE, "--map", liechtenstein_map, "--online", env=env)
    assert offline.exit_code == online.exit_code == 0, online.output
    # The same roads give the same graph and the same drive; only the source differs.
    flat = " ".join(offline.output.split())
    size = flat[flat.index("(") : flat.index(")") + 1]  # "(… nodes, … edges)"
    assert f"Drive times: roads of Overpass {size}" in " ".join(online.output.split())
    tail = lambda out: out[out.index("Route 1:") :]  # noqa: E731
    assert tail(online.output) == tail(offline.output)
    (query,) = running.overpass_queries
    assert 'way["highway"~"^(living_street|motorway|' in query and "poly:" in query
    assert len(cached(tmp_path)) == 1  # the answer parsed, so it was cached


@pytest.mark.slow  # (seconds; the full suite runs it)
def test_route_online_is_bounded(services, tmp_path, liechtenstein_map):
    running, env = services
    running.fault("overpass", "drip")
    result, elapsed = timed(
        *ROUTE, "--map", liechtenstein_map, "--online", "--overpass-timeout", DEADLINE_S, env=env
    )
    assert result.exit_code == 4, result.output
    assert "gave no complete answer within the 5 s deadline" in result.output
    assert elapsed <= DEADLINE_S + 5
    assert cached(tmp_path) == []


def test_the_status_line_is_drawn_on_a_terminal_only(monkeypatch, capsys):
    import sys

    from stations_generator.commands.console import Console

    Console(0).status("Overpass at x: 3 s of 5 s, 1 kB received")
    assert capsys.readouterr().err == ""  # a pipe: nothing drawn
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    Console(-1).status("quiet")
    assert capsys.readouterr().err == ""  # -q: nothing either
    Console(0).status("Overpass at x: 3 s of 5 s, 1 kB received")
    Console(0).status(None)
    assert (
        capsys.readouterr().err
        == "\r" + "Overpass at x: 3 s of 5 s, 1 kB received" + "\x1b[K\r\x1b[K"
    )


def test_nominatim_unknown_host_is_a_network_failure(monkeypatch, tmp_path):
    import socket

    from stations_generator.errors import NominatimError
    from stations_generator.osm.nominatim import NominatimClient

    def no_such_host(*args, **kwargs):
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    client = NominatimClient("http://nominatim.invalid", cache_dir=tmp_path)
    with pytest.raises(NominatimError) as info:
        client.place_polygon(PLACE_QUERY)
    assert info.value.exit_code == 4
    assert str(info.value).startswith(
        "could not connect to Nominatim at http://nominatim.invalid/search "
        "(unknown host: Name or service not known); check your internet connection"
    )
    assert list(tmp_path.iterdir()) == []
