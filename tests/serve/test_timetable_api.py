"""The timetable API of ``serve --gtfs FEED`` through FastAPI's TestClient, in-process.

On the bundled real feeds (the NYC subway, January 2025; the Cairns buses, 2014): the
reach answer is the GeoJSON ``timetable reach`` writes for the same choices, plus the
``--html`` page's colour bands; the feeds are chosen by index or name among those given
at start, and hostile requests get one line and a 4xx, leaving nothing kept.
"""

from __future__ import annotations

import json

import pytest
from support.paths import REPO
from support.serve_support import api_client, cli, config, error_line

from stations_generator.app.timetable_reach import load_feed
from stations_generator.pages.timetable_page import BAND_COLOURS, band_of, bands
from stations_generator.serve.app import create_app
from stations_generator.serve.timetable import MAX_REQUEST_BYTES, TimetableService

GTFS = REPO / "tests" / "data" / "gtfs"
NYC, CAIRNS = GTFS / "nyc_subway_gtfs.zip", GTFS / "cairns_gtfs.zip"
JSON = {"Content-Type": "application/json"}
TIMES_SQ = {"feed": 0, "from": "Times Sq-42 St", "at": "08:00", "date": "2025-01-08"}


@pytest.fixture(scope="module")
def app():
    """The app of ``serve … --gtfs nyc_subway_gtfs.zip --gtfs cairns_gtfs.zip``."""
    return create_app(config(gtfs_files=(NYC, CAIRNS)))


@pytest.fixture(scope="module")
def service(app) -> TimetableService:
    """The feeds, read when the app was made."""
    return app.state.timetables


@pytest.fixture(scope="module")
def client(app):
    return api_client(app)


def _error(response, status: int = 400) -> str:
    assert response.status_code == status, response.text[:300]
    message = response.json()["error"]
    assert "\n" not in message and message.strip() == message
    return message


def _cli_reach(tmp_path, *args: str) -> dict:
    out = tmp_path / "reach.geojson"
    result = cli("timetable", "reach", *args, "-o", out)
    assert result.exit_code == 0, result.stderr
    return json.loads(out.read_text("utf-8"))


def test_the_feeds_for_the_picker(client):
    data = client.get("/api/timetable/feeds").json()
    assert [f["name"] for f in data["feeds"]] == [NYC.name, CAIRNS.name]
    assert data["game_sizes"] == ["S", "M", "L"] and "jltg-eu" in data["rules"]
    for index, (entry, path) in enumerate(zip(data["feeds"], (NYC, CAIRNS), strict=True)):
        feed = load_feed(path, None, True)
        assert entry["index"] == index
        assert entry["first_date"] <= entry["busiest_date"] <= entry["last_date"]
        assert entry["attribution"].startswith("Transit data: ")
        stations = entry["stations"]
        # Each a stop of the feed (stations, not their platforms), sorted by name, once.
        ids = [s["id"] for s in stations]
        assert len(set(ids)) == len(ids) > 50
        index_of = feed.stop_index()
        for s in stations:
            row = index_of[s["id"]]
            assert feed.stop_names[row] == s["name"] and feed.station_of()[row] == row
            assert abs(s["lon"]) <= 180 and abs(s["lat"]) <= 90
        keys = [(s["name"].casefold(), s["id"]) for s in stations]
        assert keys == sorted(keys)
    assert "Times Sq-42 St" in {s["name"] for s in data["feeds"][0]["stations"]}


def test_reach_is_the_cli_answer_with_its_bands(client, tmp_path):
    answer = client.post("/api/timetable/reach", json={**TIMES_SQ, "game_size": "M"})
    assert answer.status_code == 200, answer.text[:300]
    doc = answer.json()
    expected = _cli_reach(
        tmp_path, NYC, "--from", "Times Sq-42 St", "--at", "08:00", "--date", "2025-01-08"
    )
    assert {k: v for k, v in doc.items() if k not in ("bands", "zone_bands")} == expected
    # The bands are the --html page's: quarters of the hiding time, late, not reached.
    deadline_min = 60  # a size-M game's hiding time
    table = bands(deadline_min)
    assert [b["label"] for b in doc["bands"]] == [label for _, label in table]
    assert [b["colour"] for b in doc["bands"]] == list(BAND_COLOURS)
    assert [b["upper_min"] for b in doc["bands"][:4]] == [15, 30, 45, 60]
    assert doc["bands"][4]["upper_min"] is None and doc["bands"][5]["upper_min"] is None
    features = doc["features"]
    assert len(doc["zone_bands"]) == len(features) == doc["query"]["zones"]
    for f, band in zip(features, doc["zone_bands"], strict=True):
        p = f["properties"]
        assert band == band_of(p["minutes"], deadline_min)
        assert (band < 4) == p["reachable"]
    counts = [b["count"] for b in doc["bands"]]
    assert sum(counts) == len(features)
    assert sum(counts[:4]) == doc["query"]["reachable"]
    # The start's own zone is entered at once; farther zones later.
    start = next(f for f in features if f["properties"]["name"] == "Times Sq-42 St")
    assert start["properties"]["minutes"] == 0 and counts[0] >= 1


def test_a_position_and_the_seekers_hour_as_the_cli(client, tmp_path):
    body = {"feed": CAIRNS.name, "from": [145.7746, -16.9237], "at": "17:00"}
    doc = client.post("/api/timetable/reach", json={**body, "within_min": 60}).json()
    expected = _cli_reach(
        tmp_path, CAIRNS, "--from", "145.7746,-16.9237", "--at", "17:00", "--within", "60"
    )
    assert {k: v for k, v in doc.items() if k not in ("bands", "zone_bands")} == expected
    assert (
        doc["query"]["date"]
        == client.get("/api/timetable/feeds").json()["feeds"][1]["busiest_date"]
    )
    assert doc["bands"][3]["label"] == "45 to 60 min"
    # By index or by name: the same feed, the same answer.
    assert (
        client.post("/api/timetable/reach", json={**body, "feed": 1, "within_min": 60}).json()
        == doc
    )


def test_game_size_sets_radius_and_deadline(client):
    small = client.post("/api/timetable/reach", json={**TIMES_SQ, "game_size": "s"}).json()
    large = client.post("/api/timetable/reach", json={**TIMES_SQ, "game_size": "L"}).json()
    assert small["query"]["game_size"] == "S" and small["query"]["deadline"].endswith("08:30:00")
    assert large["query"]["deadline"].endswith("11:00:00")
    assert small["query"]["radius_m"] < large["query"]["radius_m"]
    assert small["query"]["reachable"] <= large["query"]["reachable"]
    assert small["bands"][0]["label"] == "within 7.5 min"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({**TIMES_SQ, "feed": 2}, "is not one of the server's feeds"),
        ({**TIMES_SQ, "feed": True}, "is not one of the server's feeds"),
        ({**TIMES_SQ, "feed": str(NYC)}, "is not one of the server's feeds"),
        ({**TIMES_SQ, "feed": "../../etc/passwd"}, "is not one of the server's feeds"),
        ({**TIMES_SQ, "at": "2x:00"}, "at '2x:00' is not a time"),
        ({**TIMES_SQ, "at": "48:00"}, "at '48:00' is out of range"),
        ({**TIMES_SQ, "at": 800}, "at must be text"),
        ({**TIMES_SQ, "date": "2030-01-01"}, "date 2030-01-01: no trip"),
        ({**TIMES_SQ, "date": "yesterday"}, "is not a date"),
        ({**TIMES_SQ, "from": "<img src=x onerror=alert(1)>"}, "is no stop id or stop name"),
        ({**TIMES_SQ, "from": "Nowhere St"}, "or [lon, lat]"),
        ({**TIMES_SQ, "from": "x" * 1000}, "at most 200 characters"),
        ({**TIMES_SQ, "from": [200, 40]}, "off the globe"),
        ({**TIMES_SQ, "from": [1, 2, 3]}, "must be [lon, lat]"),
        ({**TIMES_SQ, "from": None}, "give from"),
        ({**TIMES_SQ, "game_size": "XL"}, "game_size 'XL'"),
        ({**TIMES_SQ, "rules": "house"}, "rules 'house'"),
        ({**TIMES_SQ, "within_min": 0}, "within_min must be minutes"),
        ({**TIMES_SQ, "within_min": 1e9}, "within_min must be minutes"),
        ({**TIMES_SQ, "within_min": "60"}, "within_min must be minutes"),
        ({**TIMES_SQ, "path": "/etc/passwd"}, "unknown field 'path'"),
        ({"from": "Times Sq-42 St", "at": "08:00"}, "give feed"),
        ([TIMES_SQ], "must be a JSON object"),
    ],
)
def test_hostile_requests_get_one_line_and_leave_nothing_kept(client, service, body, words):
    kept = service.kept_days
    assert words in _error(client.post("/api/timetable/reach", json=body))
    assert service.kept_days == kept


def test_a_name_two_stations_share_is_refused(client):
    # Some names belong to several stations (NYC's "125 St"): which one is not guessed.
    stations = client.get("/api/timetable/feeds").json()["feeds"][0]["stations"]
    names = [s["name"] for s in stations]
    name = next(n for n in names if names.count(n) > 1)
    assert "give one's stop id" in _error(
        client.post("/api/timetable/reach", json={**TIMES_SQ, "from": name})
    )
    first = next(s["id"] for s in stations if s["name"] == name)
    ok = client.post("/api/timetable/reach", json={**TIMES_SQ, "from": first})
    assert ok.status_code == 200 and ok.json()["query"]["from"] == name


def test_bodies_that_are_too_large_or_not_json(client, service):
    kept = service.kept_days
    big = json.dumps({**TIMES_SQ, "from": "x" * MAX_REQUEST_BYTES}).encode()
    assert "larger than" in _error(
        client.post("/api/timetable/reach", content=big, headers=JSON), 413
    )
    assert "JSON" in _error(client.post("/api/timetable/reach", content=b"{not json", headers=JSON))
    # NaN is no JSON number: the project's reader refuses it.
    nan = b'{"feed": 0, "from": "Times Sq-42 St", "at": "08:00", "within_min": NaN}'
    assert _error(client.post("/api/timetable/reach", content=nan, headers=JSON))
    assert service.kept_days == kept


def test_good_requests_keep_a_few_days(client, service):
    client.post("/api/timetable/reach", json=TIMES_SQ).raise_for_status()
    assert (NYC.name, "2025-01-08", 500.0) in service.kept_days
    for day in ("2025-01-06", "2025-01-07", "2025-01-09", "2025-01-10", "2025-01-13"):
        client.post("/api/timetable/reach", json={**TIMES_SQ, "date": day}).raise_for_status()
    kept = service.kept_days
    assert len(kept) <= 4 and kept[-1] == (NYC.name, "2025-01-13", 500.0)


def test_a_server_without_feeds():
    client = api_client(create_app(config()))
    assert client.get("/api/timetable/feeds").json()["feeds"] == []
    assert "serve --gtfs FEED" in _error(client.post("/api/timetable/reach", json=TIMES_SQ))


def test_the_page_loads_the_timetable_script(client):
    page = client.get("/").text
    assert '<script src="assets/timetable.js"></script>' in page
    script = client.get("/assets/timetable.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "api/timetable/reach" in script.text
    # Stop names are hostile: the script never writes HTML (text nodes and elements only).
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert sink not in script.text
    assert "/assets/timetable.js" in client.get("/sw.js").text  # kept for offline use


def test_the_feeds_are_read_when_the_app_is_made(service):
    assert service.paths == (NYC, CAIRNS) and service.loaded == 2


def test_serve_refuses_a_bad_feed_before_listening(tmp_path):
    assert "no such feed" in error_line(cli("serve", "--gtfs", tmp_path / "none.zip"))
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    assert "bad.zip" in error_line(cli("serve", "--gtfs", bad, "--no-cache"))
    other = tmp_path / "other"
    other.mkdir()
    twin = other / NYC.name
    twin.write_bytes(NYC.read_bytes())
    assert "also called" in error_line(cli("serve", "--gtfs", NYC, "--gtfs", twin))
