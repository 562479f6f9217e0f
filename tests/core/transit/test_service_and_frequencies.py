"""Service days (calendar + calendar_dates), and frequencies.txt expanded into trips.

Neither real feed has a frequencies.txt: :func:`with_frequencies` derives one from the
Cairns feed, taking two real weekday trips as templates, one run every 20 min from
06:00 to 09:00 (``exact_times`` 1) and one every 15 min from 10:00 to 12:00 (0).
"""

from __future__ import annotations

import datetime as dt
import zipfile

import numpy as np
from support.paths import DATA
from support.transit_oracle import INF, Oracle

from stations_generator.core.transit.frequencies import expand_frequencies
from stations_generator.core.transit.raptor import UNREACHED, earliest_arrival
from stations_generator.core.transit.service import running_services, service_dates
from stations_generator.core.transit.timetable import build_timetable
from stations_generator.formats.gtfs.reader import read_feed

GTFS = DATA / "gtfs"
HOLIDAY = dt.date(2014, 6, 9)  # Queen's Birthday in Queensland: weekday service removed


def test_calendar_dates_remove_and_add_services():
    feed = read_feed(GTFS / "cairns_gtfs.zip")
    names = list(feed.service_ids)
    weekday = names.index("CNS2014-CNS_MUL-Weekday-00")
    assert running_services(feed, HOLIDAY - dt.timedelta(days=7))[weekday]
    assert not running_services(feed, HOLIDAY)[weekday]  # removed by calendar_dates
    added = feed.cd_service[feed.cd_added & (feed.cd_date == 20140609)]
    assert len(added) and running_services(feed, HOLIDAY)[added].all()
    dates = service_dates(feed, weekday)
    assert 20140609 not in dates and 20140602 in dates and 20140607 not in dates  # a Saturday
    tt = build_timetable(feed, HOLIDAY)
    day_trips = set(tt.trip_of[tt.trip_shift == 0].tolist())
    assert not any(int(feed.trip_service[t]) == weekday for t in day_trips)
    start = int(np.flatnonzero(tt.served)[0])
    got = earliest_arrival(tt, 9 * 3600, from_stops=[start]).arrival
    want = Oracle(feed, HOLIDAY).arrivals(start, 9 * 3600)
    assert [INF if a >= UNREACHED else int(a) for a in got] == want


def with_frequencies(tmp_path):
    folder = tmp_path / "cairns"
    with zipfile.ZipFile(GTFS / "cairns_gtfs.zip") as archive:
        archive.extractall(folder)
    feed = read_feed(folder)
    weekday = list(feed.service_ids).index("CNS2014-CNS_MUL-Weekday-00")
    trips = np.flatnonzero(feed.trip_service == weekday)
    a, b = feed.trip_ids[trips[0]], feed.trip_ids[trips[40]]
    (folder / "frequencies.txt").write_text(
        "trip_id,start_time,end_time,headway_secs,exact_times\n"
        f"{a},06:00:00,09:00:00,1200,1\n{b},10:00:00,12:00:00,900,0\n"
    )
    return folder, trips[0], trips[40]


def test_frequencies_expand_to_one_trip_per_headway(tmp_path):
    folder, a, b = with_frequencies(tmp_path)
    feed = read_feed(folder)
    assert len(feed.fr_trip) == 2 and feed.fr_exact.tolist() == [True, False]
    expanded = expand_frequencies(feed)
    assert (
        expanded.n_trips == feed.n_trips - 2 + 9 + 8
    )  # 06:00..08:40 by 20 min; 10:00..11:45 by 15
    ids = expanded.trip_ids
    runs = [i for i, t in enumerate(ids) if t.startswith(f"{feed.trip_ids[a]}#")]
    firsts = [int(expanded.st_dep[expanded.st_trip == r][0]) for r in runs]
    assert firsts == list(range(6 * 3600, 9 * 3600, 1200))
    run_time = lambda f, t: np.diff(f.st_arr[f.st_trip == t]).tolist()  # noqa: E731
    assert all(run_time(expanded, r) == run_time(feed, a) for r in runs)
    assert feed.trip_ids[a] not in ids  # the template runs only as expanded


def test_raptor_over_frequencies_equals_brute_force(tmp_path):
    folder, a, _ = with_frequencies(tmp_path)
    feed = read_feed(folder)
    day = dt.date(2014, 6, 10)
    tt, oracle = build_timetable(feed, day), Oracle(feed, day)
    start = int(feed.st_stop[feed.st_trip == a][0])
    for time in (6 * 3600 + 300, 10 * 3600 + 60):
        got = earliest_arrival(tt, time, from_stops=[start]).arrival
        assert [INF if x >= UNREACHED else int(x) for x in got] == oracle.arrivals(start, time)
