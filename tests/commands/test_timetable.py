"""``timetable stations | lines | check-stops`` on the real feeds: help, outputs, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.cli_runs import refused, run
from support.paths import DATA

from stations_generator.app.timetable_feed import FeedChoice, open_feed, resolve
from stations_generator.app.timetable_lines import check_stops, route_frequencies
from stations_generator.commands import timetable as command

NYC = DATA / "gtfs" / "nyc_subway_gtfs.zip"
CAIRNS = DATA / "gtfs" / "cairns_gtfs.zip"


@pytest.mark.parametrize("sub", ["stations", "lines", "check-stops"])
def test_each_subcommand_has_help_with_an_example(sub):
    shown = run("timetable", sub, "--help")
    assert shown.exit_code == 0 and "Example" in shown.output
    assert f"stations-generator timetable {sub}" in shown.output


def test_the_group_lists_reach_and_audit_without_importing_them(monkeypatch):
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from stations_generator.cli import main\n"
        "r = CliRunner().invoke(main, ['timetable', '--help'])\n"
        "assert r.exit_code == 0, r.output\n"
        "assert 'reach' in r.output and 'audit' in r.output, r.output\n"
        "print(sorted(m for m in sys.modules if 'timetable_' in m))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (
        "commands.timetable_reach" not in out.stdout
        and "commands.timetable_audit" not in out.stdout
    )
    # Until the modules exist, the list still shows: it names them without importing.
    monkeypatch.setitem(command._LAZY, "reach", "stations_generator.no_such_module:reach")
    shown = run("timetable", "--help")
    assert shown.exit_code == 0 and "reach" in shown.output


def test_stations_writes_the_station_map(tmp_path):
    out = tmp_path / "nyc"
    done = run(
        "timetable", "stations", NYC, "-o", out, "--route", "1", "--min-per-hour", "6",
        "--every-nth", "2", "--date", "2025-01-08", "--no-cache",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    data = json.loads((out / "stations.geojson").read_text("utf-8"))
    stations = [f for f in data["features"] if f["properties"]["role"] == "station"]
    assert stations and all(f["properties"]["routes"] == "1" for f in stations)
    assert f"Stations: {len(stations)} of nyc_subway_gtfs.zip on 2025-01-08" in done.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--route", "7"], ["--route '7'", "route id or short name"]),
        (["--date", "2030-01-01"], ["--date 2030-01-01", "pick a date in it"]),
        (["--window", "19:00-07:00"], ["window ends before it starts"]),
        (["--window", "07:00-9am"], ["--window end '9am'", "HH:MM"]),
        (["--window", "07:00"], ["--window '07:00'", "HH:MM-HH:MM"]),
        (["--route-type", "zeppelin"], ["unknown route type 'zeppelin'"]),
        (["--every-nth", "0"], ["--every-nth"]),
    ],
)
def test_bad_input_is_one_line(tmp_path, args, words):
    refused(run("timetable", "stations", NYC, "-o", tmp_path / "o", "--no-cache", *args), *words)
    refused(run("timetable", "lines", NYC, "--no-cache", *args), *words)
    assert not (tmp_path / "o").exists()


def test_lines_lists_the_routes_and_checks_two_stations():
    shown = run("timetable", "lines", CAIRNS, "--date", "2014-06-10", "--json", "--no-cache")
    assert shown.exit_code == 0, shown.output
    rows = json.loads(shown.stdout)
    fd = resolve(open_feed(CAIRNS, use_cache=False), FeedChoice(CAIRNS, date="2014-06-10"))
    assert rows == [r.__dict__ for r in route_frequencies(fd)]
    assert all(r["trips"] > 0 and r["per_hour"] > 0 for r in rows)
    near = run(
        "timetable", "lines", NYC, "--between", "Times Sq-42 St", "Chambers St",
        "--every", "10", "--date", "2025-01-08", "--no-cache",
    )  # fmt: skip
    assert near.exit_code == 0 and "same transit line" in near.stdout
    far = run(
        "timetable", "lines", NYC, "--between", "Times Sq-42 St", "New Lots Av",
        "--every", "10", "--date", "2025-01-08", "--no-cache",
    )  # fmt: skip
    assert far.exit_code == 1 and "not the same transit line" in far.stdout
    refused(run("timetable", "lines", NYC, "--between", "Nowhere", "Chambers St"), "'Nowhere'")


def test_check_stops_lists_exactly_the_failing_stops():
    shown = run("timetable", "check-stops", CAIRNS, "--date", "2014-06-10", "--json", "--no-cache")
    assert shown.exit_code == 0, shown.output
    rows = json.loads(shown.stdout)
    fd = resolve(open_feed(CAIRNS, use_cache=False), FeedChoice(CAIRNS, date="2014-06-10"))
    result = check_stops(fd, 500.0)
    failing = {
        fd.feed.stop_ids[s] for s, v in zip(result.stations, result.valid, strict=True) if not v
    }
    assert {r["id"] for r in rows} == failing and failing
    assert all(
        r["centre_wait_s"] > 3600
        or r["zone_wait_s"] > 900
        or -1 in (r["centre_wait_s"], r["zone_wait_s"])
        for r in rows
    )
    refused(run("timetable", "check-stops", CAIRNS, "--radius", "0"), "--radius")
