"""Messages as log records: a routed block gets its own records, and only those."""

from __future__ import annotations

import logging
import threading
import warnings

import pytest
from support.paths import REPO, SIOUX

import stations_generator as sg
from stations_generator.app import reporting
from stations_generator.app.reporting import routed, status, status_line

log = logging.getLogger("stations_generator.tests_reporting")
PACKAGE = logging.getLogger("stations_generator")


def test_a_routed_block_gets_warnings_notes_and_status_lines():
    warned, said, shown = [], [], []
    with routed(warn=warned.append, info=said.append, status=shown.append):
        log.warning("a ring was closed")
        log.info("Wrote out/stations.geojson")
        log.debug("read 5 OSM objects")  # a -v detail: no callable takes it
        with status(log, "Ranking 5 OSM objects"):
            pass
    assert warned == ["a ring was closed"]
    assert said == ["Wrote out/stations.geojson"]
    assert shown == ["Ranking 5 OSM objects…", None]
    log.warning("after the block")
    assert warned == ["a ring was closed"]


def test_a_nested_block_takes_the_records_of_its_own_time():
    outer, inner = [], []
    with routed(warn=outer.append):
        log.warning("one")
        with routed(warn=inner.append):
            log.warning("two")
        log.warning("three")
    assert (outer, inner) == (["one", "three"], ["two"])


def test_other_threads_keep_their_own_route():
    mine, theirs = [], []
    started, logged = threading.Event(), threading.Event()

    def other() -> None:
        with routed(warn=theirs.append):
            started.set()
            logged.wait(5)
            log.warning("from the other thread")

    worker = threading.Thread(target=other)
    worker.start()
    started.wait(5)
    with routed(warn=mine.append):
        log.warning("from this thread")
        logged.set()
        worker.join(5)
    assert mine == ["from this thread"]
    assert theirs == ["from the other thread"]


def test_the_logger_level_is_lowered_for_the_block_only():
    before = PACKAGE.level
    said = []
    with routed(info=said.append, status=lambda _m: None):
        assert PACKAGE.isEnabledFor(reporting.STATUS_CLEAR)
        log.info("seen")
    assert PACKAGE.level == before
    assert said == ["seen"]


def test_a_status_line_is_one_debug_record_and_a_clearing_below_debug(caplog):
    caplog.set_level(1, logger="stations_generator")
    status_line(log, "Reading x.osm.pbf…")
    status_line(log, None)
    start, clear = caplog.records
    assert (start.levelno, start.getMessage()) == (logging.DEBUG, "Reading x.osm.pbf…")
    assert clear.levelno == reporting.STATUS_CLEAR < logging.DEBUG
    assert reporting.is_status(start) and reporting.is_status(clear)
    assert reporting.status_text(start) == "Reading x.osm.pbf…"
    assert reporting.status_text(clear) is None


def test_the_api_turns_a_logged_warning_into_its_callback_or_a_python_warning():
    """The band warning is logged deep in the build; the API hands it to ``warn=`` or,
    without it, to :mod:`warnings` - and outside a call it is only a log record."""
    area = sg.read_play_area(REPO / "zones" / "sioux-falls.geojson")
    osm = sg.load_osm(area, files=[SIOUX / "pois.json"], categories=["museum"])
    seen: list[str] = []
    sg.make_station_map(area, osm, game_size="L", warn=seen.append)
    assert len(seen) == 1 and seen[0].startswith("only 6 stations, far below the 500–")
    with pytest.warns(sg.StationsGeneratorWarning, match="far below the 500"):
        sg.make_station_map(area, osm, game_size="L")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log.warning("outside any call: only a log record")
