"""Work on a second core: ``stations_generator.app.forked`` and the places that use it.

The forked path must give exactly what the one-process path gives (the station map,
every output byte), fall back to the calling process whenever a child fails, and
leave no child behind.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from functools import partial

import numpy as np
import pytest

from stations_generator import StationMapOptions, build_station_map
from stations_generator.app.forked import SERIAL_ENV, ForkedTask, can_fork
from stations_generator.core.stationmap.build import Deferred

forking = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@forking
def test_the_result_comes_from_a_child():
    with ForkedTask(os.getpid, fork=True) as task:
        assert task.forked
        child = task.result()
    assert child != os.getpid()
    assert not task.forked
    assert task.result() == child  # asked again: the same result, not a new run


def test_without_fork_the_function_runs_here_when_asked():
    calls = []
    task = ForkedTask(lambda: calls.append(os.getpid()) or "done", fork=False)
    assert calls == [] and not task.forked
    assert task.result() == "done"
    assert calls == [os.getpid()]


@forking
def test_a_large_result_comes_back_whole():
    data = np.random.default_rng(7).integers(0, 256, 12_000_000, np.uint8).tobytes()
    with ForkedTask(lambda: data, fork=True) as task:
        assert task.result() == data


@forking
def test_an_error_in_the_child_is_raised_here_with_its_own_traceback():
    runs = []

    def fails():
        runs.append(os.getpid())  # lost in the child; kept when run here
        raise ValueError("the real error")

    with ForkedTask(fails, fork=True) as task, pytest.raises(ValueError, match="the real error"):
        task.result()
    assert runs == [os.getpid()]


@forking
def test_a_child_killed_by_a_signal_is_replaced_by_a_run_here():
    parent = os.getpid()

    def dies_in_a_child():
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return "computed here"

    with ForkedTask(dies_in_a_child, fork=True) as task:
        assert task.result() == "computed here"


@forking
def test_a_result_that_does_not_pickle_is_computed_here():
    parent = os.getpid()
    with ForkedTask(lambda: lambda: os.getpid(), fork=True) as task:
        made = task.result()
    assert made() == parent


@forking
def test_leaving_the_block_kills_and_reaps_a_running_child():
    started = time.monotonic()
    with ForkedTask(partial(time.sleep, 60), fork=True) as task:
        pid = task.pid
        assert pid is not None
    assert time.monotonic() - started < 10
    assert _reaped(pid)


@forking
def test_a_child_ends_on_ctrl_c_even_where_the_parent_handles_it(tmp_path):
    parent = os.getpid()
    ready = tmp_path / "ready"

    def slow_in_a_child():
        if os.getpid() != parent:
            ready.touch()  # (the child resets its handlers before it runs this)
            time.sleep(60)
        return "computed here"

    previous = signal.signal(signal.SIGINT, lambda *_: None)  # e.g. the output set's handler
    try:
        with ForkedTask(slow_in_a_child, fork=True) as task:
            deadline = time.monotonic() + 30
            while not ready.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert ready.exists()
            os.kill(task.pid, signal.SIGINT)
            started = time.monotonic()
            assert task.result() == "computed here"  # the child is gone: run here
            assert time.monotonic() - started < 10
    finally:
        signal.signal(signal.SIGINT, previous)


def test_the_serial_switch_turns_forking_off(monkeypatch):
    monkeypatch.setenv(SERIAL_ENV, "1")
    assert not can_fork()
    task = ForkedTask(os.getpid)
    assert not task.forked and task.result() == os.getpid()
    monkeypatch.setenv(SERIAL_ENV, "0")
    linux = sys.platform.startswith("linux")
    assert can_fork() == (linux and len(os.sched_getaffinity(0)) >= 2)


# --- the station map: the same with its work aside -----------------------------


class _Spy:
    """An ``aside`` that forks every task and records what was started and collected."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.collected: list[str] = []

    def __call__(self, function):
        name = getattr(function.func, "__name__", "?")
        self.started.append(name)
        task = ForkedTask(function, fork=True)
        spy = self

        class Recorded:
            def result(self):
                spy.collected.append(name)
                return task.result()

            def cancel(self):
                task.cancel()

        return Recorded()


def _same_map(a, b) -> None:
    assert a.cap_trail == b.cap_trail and a.search == b.search and a.rules == b.rules
    for column in a.candidate_table.columns:
        assert np.array_equal(
            np.asarray(a.candidate_table[column]), np.asarray(b.candidate_table[column])
        ), column
    assert a.station_table["id"].tolist() == b.station_table["id"].tolist()


@forking
@pytest.mark.parametrize(
    "options, caps",
    [
        (StationMapOptions(), 2),  # cap 1 misses the band: its search is cancelled
        (StationMapOptions(game_size="S"), 1),  # cap 1 is chosen
        (StationMapOptions(game_size="L"), 12),  # no cap reaches the band: nearest miss
        (StationMapOptions(max_per_cluster=3), 0),  # a fixed cap: greedy and search
        (StationMapOptions(strict_priority=True), 3),  # no search at all
    ],
    ids=["auto", "first-cap", "no-cap-fits", "fixed-cap", "strict"],
)
def test_the_station_map_is_the_same_with_its_work_forked(
    sioux_area, sioux_candidates, sioux_data, options, caps
):
    here = build_station_map(sioux_area, sioux_candidates, options, water=sioux_data.water)
    spy = _Spy()
    aside = build_station_map(
        sioux_area, sioux_candidates, options, water=sioux_data.water, aside=spy
    )
    _same_map(here, aside)
    assert len(here.cap_trail) == caps
    searches = 0 if options.strict_priority else max(caps, 1) + (caps == 12)
    assert spy.started == ["_density_counts"] + ["search"] * searches
    # The counts and the chosen cap's search only: the others were cancelled.
    assert spy.collected == ["search"] * (searches > 0) + ["_density_counts"]


def test_the_deferred_default_runs_only_what_is_asked_for():
    calls = []
    task = Deferred(lambda: calls.append(1) or 5)
    task.cancel()
    assert calls == []
    assert task.result() == 5 and calls == [1]


# --- generate: the same files from one process and from two ------------------------


@forking
def test_generate_writes_the_same_bytes_with_its_work_forked(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from conftest import SIOUX

    import stations_generator.app.generate as gen
    from stations_generator.cli import main

    args = [
        "-q", "generate", str(SIOUX / "polygon.geojson"), "--osm", str(SIOUX / "pois.json"),
        "--water", str(SIOUX / "water.json"), "--explain", "--map",
    ]  # fmt: skip
    started: list[object] = []

    class Counted(ForkedTask):
        def __init__(self, function, *, fork=None):
            started.append(function)
            super().__init__(function, fork=fork)

    monkeypatch.setattr(gen, "ForkedTask", Counted)
    monkeypatch.setattr(gen, "can_fork", lambda: True)
    runs = {}
    for label, threshold in (("one process", 10**9), ("forked", 0)):
        monkeypatch.setattr(gen, "FORK_MIN_STATIONS", threshold)
        monkeypatch.setattr(gen, "FORK_MIN_CANDIDATES", threshold)
        out = tmp_path / label.replace(" ", "-")
        result = CliRunner().invoke(main, [*args, "-o", str(out)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        runs[label] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert len(runs["forked"]) == 5
    assert runs["forked"] == runs["one process"]
    # Forked: KML, candidates and the HTML map; the density counts and every cap's search.
    assert len(started) >= 3 + 1 + 1


def test_output_files_are_output_texts_in_utf8(sioux_area, sioux_candidates, sioux_data):
    from stations_generator.app.generate import output_files, output_texts

    result = build_station_map(sioux_area, sioux_candidates, water=sioux_data.water)
    texts = output_texts(result, "Sioux Falls – ünïcode", explain=True, html_map=False)
    files = output_files(result, "Sioux Falls – ünïcode", explain=True, html_map=False)
    assert list(files) == list(texts)
    assert files == {name: text.encode("utf-8") for name, text in texts.items()}
