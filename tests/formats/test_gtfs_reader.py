"""The GTFS reader: the real feeds read whole; each bad feed (a real feed's copy with one
broken row or file, written here) is one line naming the file, the row and the fix."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from support.paths import DATA

from stations_generator.errors import InputError
from stations_generator.formats.gtfs.reader import read_feed

GTFS = DATA / "gtfs"


@pytest.mark.parametrize("name", ["nyc_subway", "cairns"])
def test_real_feeds_read_whole(name, tmp_path):
    feed = read_feed(GTFS / f"{name}_gtfs.zip")
    with zipfile.ZipFile(GTFS / f"{name}_gtfs.zip") as archive:
        rows = archive.read("stop_times.txt").decode("utf-8-sig").strip().count("\n")
        archive.extractall(tmp_path)
    assert len(feed.st_trip) == rows
    assert np.all(np.diff(feed.st_trip) >= 0)
    same = feed.st_trip[1:] == feed.st_trip[:-1]
    assert np.all(feed.st_arr[1:][same] >= feed.st_dep[:-1][same])
    assert np.isfinite(feed.stop_lon).all() and (np.abs(feed.stop_lat) <= 90).all()
    folder = read_feed(tmp_path)  # the same feed as a folder
    assert folder.trip_ids == feed.trip_ids and np.array_equal(folder.st_dep, feed.st_dep)


def test_times_past_24_hours_are_legal():
    feed = read_feed(GTFS / "nyc_subway_gtfs.zip")
    assert feed.st_arr.max() == 27 * 3600 + 40 * 60 + 30  # 27:40:30
    parents = feed.stop_parent[feed.stop_parent >= 0]
    assert (feed.stop_location_type[parents] == 1).all() and len(set(parents.tolist())) == 91


def copy_feed(tmp_path, name="cairns"):
    folder = tmp_path / name
    with zipfile.ZipFile(GTFS / f"{name}_gtfs.zip") as archive:
        archive.extractall(folder)
    return folder


def edit_line(file, line: int, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` on the 1-based ``line`` of ``file``."""
    lines = file.read_text(encoding="utf-8-sig").splitlines()
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")


def one_line_error(folder) -> str:
    with pytest.raises(InputError) as info:
        read_feed(folder)
    message = str(info.value)
    assert "\n" not in message and "; " in message  # the problem, then the fix
    return message


def test_bad_time_names_file_line_and_value(tmp_path):
    folder = copy_feed(tmp_path)
    edit_line(folder / "stop_times.txt", 7, "05:5", "2x:5")
    message = one_line_error(folder)
    assert "stop_times.txt line 7" in message and "'2x:5" in message and "H:MM:SS" in message


def test_unknown_stop_id_in_stop_times(tmp_path):
    folder = copy_feed(tmp_path)
    edit_line(folder / "stop_times.txt", 12, ",7500", ",X7500")
    message = one_line_error(folder)
    assert "stop_times.txt line 12" in message and "not in stops.txt" in message


@pytest.mark.parametrize(
    ("column", "old", "new", "target"),
    [
        ("route", "110-423,", "nope-423,", "routes.txt"),
        ("service", "CNS2014-CNS_MUL-Weekday-00,", "Someday,", "calendar"),
    ],
)
def test_trips_with_unknown_route_or_service(tmp_path, column, old, new, target):
    folder = copy_feed(tmp_path)
    edit_line(folder / "trips.txt", 3, old, new)
    message = one_line_error(folder)
    assert "trips.txt line 3" in message and target in message


def test_calendar_range_that_never_runs(tmp_path):
    folder = copy_feed(tmp_path)
    # the Friday-only service, from a Monday to the Wednesday after: never a Friday
    edit_line(folder / "calendar.txt", 3, "20140530,20141226", "20140526,20140528")
    message = one_line_error(folder)
    assert "calendar.txt line 3" in message and "never runs" in message


def test_calendar_range_that_ends_before_it_starts(tmp_path):
    folder = copy_feed(tmp_path)
    edit_line(folder / "calendar.txt", 2, "20140526,20141226", "20141226,20140526")
    assert "calendar.txt line 2" in one_line_error(folder)


def test_missing_file_and_missing_column(tmp_path):
    folder = copy_feed(tmp_path)
    (folder / "stops.txt").unlink()
    assert "no stops.txt" in one_line_error(folder)
    folder = copy_feed(tmp_path / "b")
    edit_line(folder / "stop_times.txt", 1, "arrival_time", "arrival")
    message = one_line_error(folder)
    assert "stop_times.txt has no column arrival_time" in message


def test_row_of_too_many_cells(tmp_path):
    folder = copy_feed(tmp_path)
    edit_line(folder / "trips.txt", 5, ",0,", ",0,extra,")
    message = one_line_error(folder)
    assert "trips.txt line 5" in message and "not valid CSV" in message


def test_times_going_backwards_and_duplicate_ids(tmp_path):
    folder = copy_feed(tmp_path)
    edit_line(folder / "stop_times.txt", 4, "05:52:00,05:52:00", "05:40:00,05:40:00")
    assert "stop_times.txt line 4" in one_line_error(folder)
    folder = copy_feed(tmp_path / "b")
    stops = (folder / "stops.txt").read_text().splitlines()
    (folder / "stops.txt").write_text("\n".join([*stops, stops[1]]) + "\n")
    message = one_line_error(folder)
    assert f"stops.txt line {len(stops) + 1}" in message and "appears twice" in message


def test_zip_bomb_member_is_refused_by_its_unpacked_size(tmp_path):
    """A member that inflates beyond the limit is stopped while unpacking (10 MB of one
    byte squeezed to kilobytes stands for the 10 GB one; the limit is lowered to match)."""
    bomb = tmp_path / "bomb.zip"
    with (
        zipfile.ZipFile(GTFS / "cairns_gtfs.zip") as src,
        zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        for name in src.namelist():
            if name != "stop_times.txt":
                out.writestr(name, src.read(name))
        out.writestr("stop_times.txt", b"trip_id" + b"\0" * 10_000_000)
    assert bomb.stat().st_size < 1_000_000
    with pytest.raises(InputError, match=r"bomb.zip: stop_times.txt is larger than 4 MiB"):
        read_feed(bomb, max_member_bytes=4 * 1024**2)


def test_not_a_feed(tmp_path):
    with pytest.raises(InputError, match="not found"):
        read_feed(tmp_path / "absent.zip")
    (tmp_path / "x.zip").write_bytes(b"not a zip")
    with pytest.raises(InputError, match="x.zip"):
        read_feed(tmp_path / "x.zip")


def test_stop_time_naming_a_station(tmp_path):
    folder = copy_feed(tmp_path, "nyc_subway")
    edit_line(folder / "stop_times.txt", 2, ",101S,", ",101,")
    message = one_line_error(folder)
    assert "stop_times.txt line 2" in message and "'101' is a station" in message


def test_untimed_stops_are_interpolated_between_timed_ones(tmp_path):
    folder = copy_feed(tmp_path)
    # stop 3 of the first trip (05:52:00) loses its times; stops 2 and 4 keep 05:50, 05:54
    lines = (folder / "stop_times.txt").read_text().splitlines()
    assert "05:50:00,05:50:00" in lines[2] and "05:54:00,05:54:00" in lines[4]
    edit_line(folder / "stop_times.txt", 4, "05:52:00,05:52:00", ",")
    feed = read_feed(folder)
    assert feed.st_arr[2] == feed.st_dep[2] == 5 * 3600 + 52 * 60
    edit_line(folder / "stop_times.txt", 2, "05:50:00,05:50:00", ",")  # a trip's first stop
    assert "first and last stops need times" in one_line_error(folder)


def test_only_the_files_read_are_unpacked(tmp_path):
    """A bomb in a file the reader does not use (shapes.txt) is never opened."""
    feed = tmp_path / "feed.zip"
    with (
        zipfile.ZipFile(GTFS / "cairns_gtfs.zip") as src,
        zipfile.ZipFile(feed, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        for name in src.namelist():
            if name != "shapes.txt":
                out.writestr(name, src.read(name))
        out.writestr("shapes.txt", b"\0" * 10_000_000)
    assert read_feed(feed, max_member_bytes=4 * 1024**2).n_stops == 416


def test_feed_with_calendar_dates_only(tmp_path):
    """GTFS allows calendar_dates.txt alone, every service day listed: the Cairns feed
    rewritten so (each service's dates as type-1 rows) runs the same services every day."""
    import datetime as dt

    from stations_generator.core.transit.service import running_services, service_dates

    folder = copy_feed(tmp_path)
    (folder / "calendar.txt").unlink()
    message = one_line_error(folder)  # the trips' services are defined nowhere now
    assert "trips.txt line" in message and "is not in calendar.txt or calendar_dates.txt" in message
    original = read_feed(GTFS / "cairns_gtfs.zip")
    rows = [
        f"{sid},{day},1"
        for i, sid in enumerate(original.service_ids)
        for day in service_dates(original, i)
    ]
    (folder / "calendar_dates.txt").write_text(
        "service_id,date,exception_type\n" + "\n".join(rows) + "\n"
    )
    feed = read_feed(folder)
    assert len(feed.cal_service) == 0 and len(feed.cd_date) == len(rows) > 100
    names = list(feed.service_ids)
    moved = [names.index(s) for s in original.service_ids]
    for day in (
        dt.date(2014, 6, 9),
        dt.date(2014, 6, 14),
        dt.date(2014, 12, 25),
        dt.date(2015, 1, 5),
    ):
        assert np.array_equal(running_services(feed, day)[moved], running_services(original, day))
    (folder / "calendar_dates.txt").unlink()
    assert "neither calendar.txt nor calendar_dates.txt" in one_line_error(folder)
