"""The ``roll``, ``route`` and ``calibrate`` commands on a real Helsinki station map."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from support.paths import EXTRACTS, REPO

from stations_generator.cli import Group
from stations_generator.commands.calibrate import calibrate
from stations_generator.commands.console import use_console
from stations_generator.commands.play_text import WIDTH
from stations_generator.commands.roll import roll
from stations_generator.commands.route import route
from stations_generator.core.play.clock import format_clock, parse_clock
from stations_generator.core.play.departure import expected_wait

HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"


@click.group(cls=Group)
@click.pass_context
def play(ctx: click.Context) -> None:
    """The play commands on a group like the main one (errors become one line, log
    records stderr lines)."""
    use_console(ctx, 0)


for command in (roll, route, calibrate):
    play.add_command(command)


def run(*args):
    return CliRunner().invoke(play, [str(a) for a in args])


@pytest.fixture(scope="module")
def stations_file(helsinki_stations_file) -> Path:
    return helsinki_stations_file


def assert_one_line_error(result, *fragments):
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def assert_narrow(text):
    too_wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not too_wide


# --------------------------------------------------------------------------- roll


def test_roll_is_reproducible_with_a_seed(stations_file):
    args = ("roll", "Rautatientori", "--map", stations_file, "--at", "14:05", "--seed", 9)
    first, again = run(*args), run(*args)
    assert first.exit_code == 0, first.output
    assert first.stdout == again.stdout
    assert "Rautatientori (node/418089207)" in first.stdout
    assert "leave at" in first.stdout and "Roll 1:" in first.stdout
    assert_narrow(first.stdout)


def test_roll_json_is_consistent(stations_file):
    for seed in range(12):
        result = run(
            "roll", "Kiasma", "--map", stations_file, "--at", "23:50", "--seed", seed, "--json"
        )
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["station"]["name"] == "Kiasma"
        assert (data["station"]["wait_min"], data["station"]["wait_max"]) == (10, 30)
        assert data["expected_wait_minutes"] == pytest.approx(
            float(expected_wait(10, 30)), abs=1e-3
        )
        waits = {"leave": 0, "min": 10, "max": 30, "miss": 30}
        for r in data["rolls"]:
            assert sum(r["dice"]) == r["total"]
            assert r["wait_minutes"] == waits[r["outcome"]]
        assert [r["outcome"] == "miss" for r in data["rolls"]][-1] is False
        assert data["wait_minutes"] == sum(r["wait_minutes"] for r in data["rolls"])
        leave = parse_clock("23:50") + data["wait_minutes"] * 60
        assert data["leave_at"] == format_clock(leave)  # "00:20 +1d" after midnight


def test_roll_with_a_custom_table(stations_file):
    # 2d6 where everything from 4 up waits the lower bound, and nothing misses.
    args = ("roll", "Kiasma", "--map", stations_file, "--at", "10:00", "--json")
    table = ("--table", "2-3:leave,4-12:min")
    for seed in range(10):
        data = json.loads(run(*args, "--seed", seed, *table).stdout)
        assert len(data["rolls"]) == 1
        assert data["wait_minutes"] in (0, 10)
        assert data["table"] == "2-3:leave,4-12:min"
        assert data["expected_wait_minutes"] == pytest.approx(10 * 11 / 12, abs=1e-3)


def test_roll_cooldown_after_a_drive_across_midnight(stations_file):
    result = run(
        "roll", "Hakaniemi", "--map", stations_file, "--at", "00:10", "--seed", 1,
        "--transit-in-play", "--drove", "23:55-00:07+1", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["cooldown"]["drive_minutes"] == 12
    assert data["cooldown"]["cooldown_minutes"] == 24
    assert data["cooldown"]["ends_at"] == "00:31"
    assert data["roll_at"] == "00:31"  # not before the cooldown ends
    assert data["leave_at"] == format_clock(parse_clock("00:31") + data["wait_minutes"] * 60)
    # Crossing midnight must be written so (+1): an arrival before the departure is an error.
    for drove in ("23:55-00:07", "14:00-13:00"):
        result = run(
            "roll", "Hakaniemi", "--map", stations_file, "--at", "14:10",
            "--transit-in-play", "--drove", drove,
        )  # fmt: skip
        assert_one_line_error(result, "arrival is before the departure", "+1")


def test_roll_by_request_ride(stations_file):
    result = run(
        "roll", "Hakaniemi", "--map", stations_file, "--at", "14:05", "--seed", 4,
        "--pickup-eta", "8", "--json",
    )  # fmt: skip
    data = json.loads(result.stdout)
    leave = parse_clock("14:05") + data["wait_minutes"] * 60
    if data["wait_minutes"] >= 8:
        assert data["ride"] == {
            "pickup_eta_minutes": 8.0,
            "request_at": format_clock(leave - 8 * 60),
            "pickup_at": format_clock(leave),
            "late": False,
        }
    else:
        assert data["ride"]["late"] is True
    text = run(
        "roll", "Hakaniemi", "--map", stations_file, "--at", "14:05", "--seed", 4,
        "--pickup-eta", "8",
    ).stdout  # fmt: skip
    assert "Request the ride" in text
    assert_narrow(text)


# --------------------------------------------------------------------------- route


def test_route_on_the_road_graph(stations_file):
    result = run(
        "route", "Rautatientori", "Kiasma", "Hakaniemi", "--map", stations_file,
        "--osm", HELSINKI, "--transit-in-play", "--at", "23:50", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["transit_in_play"] is True
    (r,) = data["routes"]
    assert [s["name"] for s in r["stations"]] == ["Rautatientori", "Kiasma", "Hakaniemi"]
    assert all(leg["method"] == "road" for leg in r["legs"])
    assert r["drive_s"] == pytest.approx(sum(leg["seconds"] for leg in r["legs"]), abs=0.2)
    assert r["cooldown_s"] == pytest.approx(2 * r["drive_s"], abs=0.2)
    assert r["expected_wait_s"] == pytest.approx(float(expected_wait(5, 15)) * 60, abs=0.1)
    total = data["total"]
    assert total["total_s"] == pytest.approx(
        total["expected_wait_s"] + total["drive_s"] + total["cooldown_s"], abs=0.2
    )
    timeline = data["timeline"]
    assert [e["event"] for e in timeline] == ["roll", "depart", "stop", "arrive", "cooldown-end"]
    assert timeline[0]["time"] == "23:50" and timeline[0]["day"] == 0
    # 11.4 min of expected wait takes the departure past midnight.
    assert all(e["day"] == 1 for e in timeline[1:])
    seconds = [e["seconds"] for e in timeline]
    assert seconds == sorted(seconds)


def test_route_text_is_narrow(stations_file):
    result = run(
        "route", "Kaisaniemen kasvitieteellinen puutarha", "Ravintolalaiva M/S Maria",
        "Töölönlahden puisto", "/", "Ravintolalaiva M/S Maria", "robert's coffee gelato factory",
        "--map", stations_file, "--osm", HELSINKI, "--transit-in-play", "--at", "23:30",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert_narrow(result.stdout)
    assert "Route 2:" in result.stdout
    assert "+1d" in result.stdout
    assert "not ridden:" in result.stdout and "Töölönlahden puisto" in result.stdout


def test_route_without_roads_is_labelled_great_circle(stations_file):
    result = run("route", "Rautatientori", "Hakaniemi", "--map", stations_file, "--json")
    assert result.exit_code == 0, result.output
    assert "great-circle estimates" in result.stderr
    leg = json.loads(result.stdout)["routes"][0]["legs"][0]
    assert leg["method"] == "great-circle" and leg["reason"] == "no road graph"


def test_fuzzy_station_names_are_reported(stations_file):
    result = run("route", "Rautatietori", "Hakanimi", "--map", stations_file, "--json")
    assert result.exit_code == 0, result.output
    assert "taking Rautatientori" in result.stderr
    names = [s["name"] for s in json.loads(result.stdout)["routes"][0]["stations"]]
    assert names == ["Rautatientori", "Hakaniemi"]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("route", "Rautatientori", "Nowhere Street"), ("no station 'Nowhere Street'",)),
        (("route", "Rautatientori", "Kiasma", "Rautatientori"), ("on the route twice",)),
        (("route", "Rautatientori"), ("at least 2 stations",)),
        (("route", "Rautatientori", "Kiasma", "--at", "7pm"), ("--at", "HH:MM")),
        (("roll", "Kiasma", "--at", "25:61"), ("not a clock time",)),
        (("roll", "Helsingin"), ("matches 2 stations", "way/122595198")),
        (("roll", "Kiasma", "--table", "2-3:leave"), ("--table",)),
        (("route", "Kiasma", "Hakaniemi", "/", "Rautatientori", "Kiasma"), ("not a stop",)),
    ],
)
def test_bad_input_is_one_line(stations_file, args, fragments):
    result = run(*args, "--map", stations_file)
    assert_one_line_error(result, *fragments)


def test_bad_map_files_are_one_line(tmp_path):
    assert_one_line_error(
        run("roll", "Kiasma", "--map", tmp_path / "nope.geojson"), "does not exist"
    )
    area = REPO / "zones" / "sioux-falls.geojson"
    assert_one_line_error(run("roll", "Kiasma", "--map", area), "no station features")
    assert_one_line_error(run("calibrate", HELSINKI), "give the stations.geojson")


def test_osm_and_online_together_is_an_error(stations_file):
    result = run(
        "route", "Kiasma", "Hakaniemi", "--map", stations_file, "--osm", HELSINKI, "--online"
    )
    assert_one_line_error(result, "not both")


# --------------------------------------------------------------------------- calibrate


def test_calibrate_writes_plot_and_table(stations_file, tmp_path):
    out = tmp_path / "cal"
    args = ("calibrate", stations_file, "--osm", HELSINKI, "--pairs", 60, "--seed", 5,
            "--transit-in-play", "-o", out)  # fmt: skip
    result = run(*args)
    assert result.exit_code == 0, result.output
    png = (out / "calibration.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    rows = list(csv.DictReader(io.StringIO((out / "calibration.csv").read_text())))
    assert len(rows) == 60
    assert len({(r["origin_id"], r["destination_id"]) for r in rows}) == 60
    for r in rows:
        drive, wait = float(r["drive_s"]), float(r["expected_wait_s"])
        assert float(r["cooldown_s"]) == pytest.approx(2 * drive, abs=0.2)
        assert float(r["vehicle_s"]) == pytest.approx(wait + 3 * drive, abs=0.3)
        assert r["method"] in {"road", "great-circle"}
    assert sum(r["method"] == "road" for r in rows) > 40
    text = result.stdout
    assert_narrow(text)
    for tier in ("dense", "moderate", "sparse"):
        assert any(line.startswith(tier) for line in text.splitlines())
    # Two-minute drives against 5-60 minute waits: the map is far off.
    assert "too slow" in text and "Suggested wait ranges" in text
    # Same seed, same pairs.
    again = run(*args[:-1], tmp_path / "again")
    assert (tmp_path / "again" / "calibration.csv").read_text() == (
        out / "calibration.csv"
    ).read_text()
    assert again.stdout == result.stdout.replace(str(out), str(tmp_path / "again"))


def test_calibrate_refuses_an_output_file(stations_file, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run("calibrate", stations_file, "--pairs", 5, "-o", blocker)
    assert_one_line_error(result, "is a file")
