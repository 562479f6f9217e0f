"""``timetable reach``: GeoJSON of the zones' earliest times, the page, one-line errors.

Run through the command line in-process: ``stations-generator timetable reach``.
"""

from __future__ import annotations

import datetime as dt
import json
import zipfile

import pandas as pd
import pytest
from support.cli_runs import refused, run_caught
from support.cli_runs import run as cli_run
from support.paths import DATA

NYC = DATA / "gtfs" / "nyc_subway_gtfs.zip"
CAIRNS = DATA / "gtfs" / "cairns_gtfs.zip"
HOSTILE = "<img src=x onerror=alert(1)>"


def run(*args: object):
    return cli_run("timetable", *args)


def reach_args(tmp_path, feed=NYC, start="Times Sq-42 St", **more):
    args = ["reach", feed, "--from", start, "--at", "08:00", "--date", "2025-01-08"]
    for k, v in more.items():
        args += [f"--{k.replace('_', '-')}", v]
    return args


def test_geojson_has_every_zone_with_its_arrival_and_reruns_are_byte_identical(tmp_path):
    out, page = tmp_path / "reach.geojson", tmp_path / "reach.html"
    args = [*reach_args(tmp_path), "--cache-dir", tmp_path / "cache", "-o", out, "--html", page]
    first = run(*args)
    assert first.exit_code == 0, first.output
    doc = json.loads(out.read_text())
    assert doc["type"] == "FeatureCollection" and doc["query"]["zones"] == len(doc["features"])
    start = dt.datetime.fromisoformat(doc["query"]["start"])
    deadline = dt.datetime.fromisoformat(doc["query"]["deadline"])
    assert deadline - start == dt.timedelta(hours=1)  # an M game's hiding period
    reachable = 0
    for f in doc["features"]:
        assert f["geometry"]["type"] == "Point" and len(f["geometry"]["coordinates"]) == 2
        p = f["properties"]
        at = dt.datetime.fromisoformat(p["arrival"])
        assert at >= start and p["minutes"] == round((at - start).total_seconds() / 60, 2)
        assert p["reachable"] == (at <= deadline)
        assert at <= dt.datetime.fromisoformat(p["station_arrival"])
        reachable += p["reachable"]
    assert reachable == doc["query"]["reachable"] > 0
    zero = [f for f in doc["features"] if f["properties"]["minutes"] == 0]
    assert [f["properties"]["name"] for f in zero] == ["Times Sq-42 St"]
    before = out.read_bytes(), page.read_bytes()
    assert run(*args).exit_code == 0  # cached feed this time
    assert (out.read_bytes(), page.read_bytes()) == before
    assert "Times Sq-42 St" in page.read_text() and "not reached" in page.read_text()


def test_seekers_within_an_hour_from_a_position_on_stdout(tmp_path):
    args = reach_args(tmp_path, start="-73.9875,40.7553", within="30")
    result = run(*args, "--no-cache")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["query"]["deadline_note"] == "30 min after the start"
    minutes = [f["properties"]["minutes"] for f in doc["features"]]
    assert sum(m is not None and m <= 30 for m in minutes) == doc["query"]["reachable"]
    assert 0 < doc["query"]["reachable"] < doc["query"]["zones"]


def hostile_feed(tmp_path):
    """The Cairns feed with one served stop renamed to an HTML injection."""
    folder = tmp_path / "cairns"
    with zipfile.ZipFile(CAIRNS) as archive:
        archive.extractall(folder)
    stops = pd.read_csv(folder / "stops.txt", dtype=str, keep_default_na=False)
    times = pd.read_csv(folder / "stop_times.txt", dtype=str, keep_default_na=False)
    victim = times["stop_id"].value_counts().index[0]  # the busiest stop
    stops.loc[stops["stop_id"] == victim, "stop_name"] = HOSTILE
    stops.to_csv(folder / "stops.txt", index=False)
    return folder, victim


def test_the_page_escapes_a_hostile_stop_name(tmp_path):
    folder, victim = hostile_feed(tmp_path)
    page = tmp_path / "reach.html"
    result = run(
        "reach", folder, "--from", victim, "--at", "08:00", "--date", "2014-06-10",
        "--no-cache", "-o", tmp_path / "r.geojson", "--html", page,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert HOSTILE not in text and "<img" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    names = [
        f["properties"]["name"]
        for f in json.loads((tmp_path / "r.geojson").read_text())["features"]
    ]
    assert HOSTILE in names  # the data keeps the name; only the page escapes it
    audit_page = tmp_path / "audit.html"
    result = run(
        "audit", folder, "--from", victim, "--at", "08:00", "--date", "2014-06-10",
        "--no-cache", "-o", tmp_path / "a.json", "--html", audit_page,
    )  # fmt: skip
    assert result.exit_code == 0
    text = audit_page.read_text()
    assert HOSTILE not in text and "<img" not in text
    assert text.count("&lt;img src=x onerror=alert(1)&gt;") >= 2  # the zone and its tables


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"at": "8h"}, ["--at", "HH:MM"]),
        ({"at": "25:61"}, ["--at", "out of range"]),
        ({"date": "2025-13-01"}, ["--date", "YYYY-MM-DD"]),
        ({"date": "2030-01-01"}, ["no trip", "--date"]),
        ({"from": "Nowhere Junction"}, ["--from", "stops.txt"]),
        ({"from": "125 st"}, ["--from", "2 stations", "116, 225", "stop id"]),
        ({"from": "200,95"}, ["--from", "LON,LAT"]),
    ],
)
def test_bad_inputs_are_one_line(tmp_path, change, words):
    values = {"from": "Times Sq-42 St", "at": "08:00", "date": "2025-01-08", **change}
    args = ["reach", NYC, *[x for k, v in values.items() for x in (f"--{k}", v)], "--no-cache"]
    refused(run_caught("timetable", *args), *words)
    assert not list(tmp_path.iterdir())


def test_missing_feed_and_same_outputs_are_one_line(tmp_path):
    refused(
        run_caught("timetable", "reach", tmp_path / "nope.zip", "--from", "x", "--at", "8:00"),
        "no GTFS feed",
    )
    same = tmp_path / "x.json"
    args = [*reach_args(tmp_path), "-o", same, "--html", same]
    refused(run_caught("timetable", *args), "two different files")
    assert not same.exists()


def test_help_has_an_example():
    for name in ("reach", "audit"):
        result = run(name, "--help")
        assert result.exit_code == 0 and "Example:" in result.output
        assert f"stations-generator timetable {name}" in result.output
