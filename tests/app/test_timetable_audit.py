"""``timetable audit``: zones by game size, lines, the house rules' stop validity.

Departures and waits are checked against the independent oracle's day
(``tests/support/transit_oracle.py``: its own service days and departures), the zone
counts by game size against the reach query, and the command's outputs for reruns.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import cache

import numpy as np
import shapely
from pyproj import Geod
from support.cli_runs import refused, run, run_caught
from support.paths import DATA
from support.transit_oracle import Oracle

from stations_generator.app.timetable_audit import AuditRequest, run_audit
from stations_generator.core.transit.timetable import build_timetable
from stations_generator.formats.gtfs.reader import read_feed

CAIRNS = DATA / "gtfs" / "cairns_gtfs.zip"
DAY = dt.date(2014, 6, 10)
START = "145.7746,-16.9237"  # Cairns city centre
GEOD = Geod(ellps="WGS84")


@cache
def setup():
    feed = read_feed(CAIRNS)
    return build_timetable(feed, DAY), Oracle(feed, DAY)


def wait(times: list[int], a: int, b: int) -> int | None:
    """The longest time in [a, b] without a departure; None if nothing departs."""
    inside = sorted(t for t in times if a <= t < b)
    return max(np.diff([a, *inside, b])) if inside else None


@cache
def audited():
    return run_audit(AuditRequest(CAIRNS, START, "08:00", date="2014-06-10", use_cache=False))


def test_invalid_stops_equal_waits_from_the_oracle_departures():
    """The house rules' validity, brute force: the oracle's departures (its own day, not
    the timetable's), the centre station's platforms, and the stations whose position
    lies within the radius (pyproj) for the zone."""
    tt, oracle = setup()
    f = tt.feed
    doc = audited().document
    a, b = (dt.datetime.fromisoformat(doc["window"][k]) for k in ("from", "to"))
    a, b = (int((t - dt.datetime(2014, 6, 10)).total_seconds()) for t in (a, b))
    station = f.station_of()
    at_station: dict[int, list[int]] = {}
    for s, deps in oracle.departures.items():
        at_station.setdefault(int(station[s]), []).extend(d for d, *_ in deps)
    busy = [s for s, v in at_station.items() if wait(v, a, b) is not None]
    index = f.stop_index()
    bad = {row["id"]: row for row in doc["invalid_stops"]}
    features = doc["zones"]["features"]
    radius = doc["zones"]["query"]["radius_m"]
    for feature in features[::29]:
        c = index[feature["properties"]["id"]]
        _, _, d = GEOD.inv([f.stop_lon[c]] * len(busy), [f.stop_lat[c]] * len(busy),
                           f.stop_lon[busy], f.stop_lat[busy])  # fmt: skip
        members = [s for s, m in zip(busy, d, strict=True) if m <= radius]
        centre = wait(at_station.get(c, []), a, b)
        zone = wait([t for s in members for t in at_station[s]], a, b)
        ok = centre is not None and centre <= 3600 and zone is not None and zone <= 900
        assert (feature["properties"]["id"] not in bad) == ok
        if not ok:
            row = bad[feature["properties"]["id"]]
            assert row["centre_wait_min"] == (None if centre is None else round(centre / 60, 1))
            assert row["zone_wait_min"] == (None if zone is None else round(zone / 60, 1))
            assert row["reason"]
    assert 0 < len(bad) < len(features)


def centre_area(tt, km: float = 3.0):
    """A square play area of about ``km`` around the Cairns centre (from the feed)."""
    lon, lat = (float(v) for v in START.split(","))
    d = km / 111.0 / 2
    return shapely.box(
        lon - d / np.cos(np.radians(lat)), lat - d, lon + d / np.cos(np.radians(lat)), lat + d
    )


def test_audit_counts_by_size_and_the_area(tmp_path):
    area = tmp_path / "cairns-centre.geojson"
    tt, _ = setup()
    box = centre_area(tt)
    area.write_text(
        json.dumps({"type": "Feature", "properties": {}, "geometry": shapely.geometry.mapping(box)})
    )
    whole = audited()
    part = run_audit(
        AuditRequest(CAIRNS, START, "08:00", date="2014-06-10", play_area=area, use_cache=False)
    )
    for result in (whole, part):
        sizes = {s["game_size"]: s for s in result.document["sizes"]}
        assert sizes["S"]["reachable"] <= sizes["M"]["reachable"] <= sizes["L"]["reachable"]
        assert sizes["S"]["hiding_min"] < sizes["M"]["hiding_min"] < sizes["L"]["hiding_min"]
        m = result.document["zones"]
        assert sizes["M"]["reachable"] == m["query"]["reachable"]
        assert sizes["M"]["zones"] == len(m["features"]) == sizes["S"]["zones"]
        bad = result.document["invalid_stops"]
        assert len(bad) + result.document["valid_stops"] == len(m["features"])
        assert all(b["reason"] for b in bad)
    inside = part.document["zones"]["features"]
    assert 0 < len(inside) < len(whole.document["zones"]["features"])
    assert all(box.contains(shapely.Point(f["geometry"]["coordinates"])) for f in inside)
    whole_lines = {ln["route_id"]: ln for ln in whole.document["lines"]}
    for ln in part.document["lines"]:
        assert ln["trips"] <= whole_lines[ln["route_id"]]["trips"]


def test_audit_command_outputs_rerun_identically_and_bad_inputs(tmp_path):
    out, page = tmp_path / "audit.json", tmp_path / "audit.html"
    args = ["audit", CAIRNS, "--from", START, "--at", "08:00", "--date", "2014-06-10"]
    args += ["--until", "10:00", "--no-cache", "-o", out, "--html", page]
    assert run("timetable", *args).exit_code == 0
    doc = json.loads(out.read_text())
    assert doc["window"] == {"from": "2014-06-10T08:00:00", "to": "2014-06-10T10:00:00"}
    assert doc["lines"] and all(0 < ln["longest_wait_min"] <= 120 for ln in doc["lines"])
    text = page.read_text()
    assert "Zones by game size" in text and "Stops that fail" in text
    before = out.read_bytes(), page.read_bytes()
    assert run("timetable", *args).exit_code == 0
    assert (out.read_bytes(), page.read_bytes()) == before
    base = ["audit", str(CAIRNS), "--from", START, "--date", "2014-06-10", "--no-cache"]
    refused(run_caught("timetable", *base, "--at", "08:00", "--until", "07:00"), "--until")
    refused(
        run_caught("timetable", *base, "--at", "08:00", "--play-area", tmp_path / "no.geojson"),
        "no.geojson",
    )
