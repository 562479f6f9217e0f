"""The JSON API of ``stations-generator serve`` through FastAPI's TestClient, in-process.

Every answer is compared with what the CLI prints or writes for the same input: the
station map files byte for byte, the game's files and JSON, and the one-line error
messages of bad input.
"""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path

import pytest
import shapely
from support.serve_support import (
    HELSINKI_GAME,
    SHARE_LINK,
    SIOUX_AREA,
    api_client,
    cli,
    config,
    error_line,
    generate,
    sioux_body,
)

from stations_generator.commands.generate import generate as generate_command
from stations_generator.serve.app import create_app

JSON = {"Content-Type": "application/json"}
FILES = ["stations.geojson", "stations.csv", "stations.kml", "candidates.geojson", "stations.html"]


@pytest.fixture(scope="module")
def app():
    return create_app(config())


@pytest.fixture(scope="module")
def client(app):
    return api_client(app)


@pytest.fixture(scope="module")
def sioux_cli(tmp_path_factory) -> tuple[Path, str]:
    """The CLI's Sioux Falls files (--explain --map) and its summary on stderr."""
    out = tmp_path_factory.mktemp("sioux-cli")
    result = generate(out, SIOUX_AREA, "--explain", "--map")
    return out, result.stderr


def _error(response, status: int = 400) -> str:
    assert response.status_code == status, response.text[:300]
    return response.json()["error"]


# --------------------------------------------------------------------- the page


def test_page_and_assets_are_served_and_nothing_else(client):
    page = client.get("/")
    assert page.status_code == 200
    for ref in ("assets/leaflet.js", "assets/leaflet-geoman.js", "assets/app.js", "assets/app.css"):
        assert ref in page.text
        asset = client.get("/" + ref)
        assert asset.status_code == 200 and len(asset.content) > 1000
        assert b"sourceMappingURL" not in asset.content  # nothing the server does not have
    assert client.get("/assets/images/layers.png").headers["content-type"] == "image/png"
    # No path traversal: only the listed names exist.
    for bad in ("/assets/../cli.py", "/assets/%2e%2e/cli.py", "/assets/serve/app.py", "/assets/x"):
        assert client.get(bad).status_code == 404
    assert "/api/stationmap" in client.get("/openapi.json").json()["paths"]


def test_config_offers_every_page_option_with_the_cli_help_and_default(client):
    cfg = client.get("/api/config").json()
    assert cfg["osm_files"] == ["pois.json", "helsinki-centre.osm.pbf"]
    assert cfg["water_files"] == ["water.json"]
    by_name = {o["name"]: o for o in cfg["options"]}
    params = {p.name: p for p in generate_command.params}
    for name in ("min_spacing", "cluster_gap", "cluster_radius", "max_per_cluster", "tiers"):
        assert by_name[name]["help"] == params[name].help
    assert by_name["min_spacing"]["default"] == 300.0
    assert by_name["game_size"]["choices"] == ["S", "M", "L"]
    assert "museum" in cfg["categories"] and "coastline" not in cfg["categories"]


# ----------------------------------------------------------------- station maps


def test_station_map_summary_and_files_equal_the_cli(client, sioux_cli):
    out, stderr = sioux_cli
    answer = client.post("/api/stationmap", json=sioux_body(explain=True))
    assert answer.status_code == 200, answer.text
    data = answer.json()
    for line in data["summary"]:
        assert line in stderr
    assert (
        data["stations"] == len(json.loads((out / "stations.geojson").read_text())["features"]) - 1
    )
    assert data["station_map"] == json.loads((out / "stations.geojson").read_text("utf-8"))
    assert sum(data["rejected"].values()) == len(data["rejected_candidates"])
    candidates = json.loads((out / "candidates.geojson").read_text("utf-8"))["features"]
    rejected = [f for f in candidates if f["properties"]["status"] == "rejected"]
    assert sorted((c[0], c[1], c[3]) for c in data["rejected_candidates"]) == sorted(
        (*f["geometry"]["coordinates"], f["properties"]["reason"]) for f in rejected
    )
    for name in FILES:
        got = client.post(f"/api/stationmap/file/{name}", json=sioux_body(explain=True))
        assert got.status_code == 200, got.text
        assert got.content == (out / name).read_bytes(), name
        assert got.headers["content-disposition"] == f'attachment; filename="{name}"'


def test_a_settings_change_reuses_the_area_and_osm_data(app, client, tmp_path):
    service = app.state.station_maps
    client.post("/api/stationmap", json=sioux_body())
    reads = service._data.misses
    answer = client.post("/api/stationmap", json=sioux_body(cluster_radius=600, max_per_cluster=3))
    assert answer.status_code == 200, answer.text
    assert service._data.misses == reads  # the OSM data was not read again
    result = generate(tmp_path, SIOUX_AREA, "--cluster-radius", "600", "--max-per-cluster", "3")
    assert answer.json()["summary"][0] in result.stderr
    kml = client.post(
        "/api/stationmap/file/stations.kml", json=sioux_body(cluster_radius=600, max_per_cluster=3)
    )
    assert kml.content == (tmp_path / "stations.kml").read_bytes()


def test_exclusions_drop_every_station_inside_as_the_cli_does(client, tmp_path):
    # Downtown Sioux Falls, about 4 km by 4 km.
    zone = shapely.box(-96.755, 43.525, -96.705, 43.560)
    exclusion = {"type": "Feature", "properties": {}, "geometry": shapely.geometry.mapping(zone)}
    exclusion = json.loads(json.dumps(exclusion))
    body = {**sioux_body(), "exclusions": exclusion}
    answer = client.post("/api/stationmap/file/stations.geojson", json=body)
    assert answer.status_code == 200, answer.text
    points = [
        shapely.Point(f["geometry"]["coordinates"])
        for f in answer.json()["features"]
        if f["geometry"]["type"] == "Point"
    ]
    assert points and not any(zone.contains(p) for p in points)
    (tmp_path / "exclude.geojson").write_text(json.dumps(exclusion), "utf-8")
    generate(tmp_path / "out", SIOUX_AREA, "--exclude", tmp_path / "exclude.geojson")
    assert answer.content == (tmp_path / "out" / "stations.geojson").read_bytes()


def test_search_rounds_from_the_page_match_the_cli(client, tmp_path):
    """The local search's budget is a page setting: same map as generate --search, and the
    CLI's refusal of --search with --strict-priority in the CLI's words."""
    answer = client.post("/api/stationmap/file/stations.geojson", json=sioux_body(search_rounds=0))
    assert answer.status_code == 200, answer.text
    generate(tmp_path, SIOUX_AREA, "--search", "0")
    assert answer.content == (tmp_path / "stations.geojson").read_bytes()
    default = client.post("/api/stationmap/file/stations.geojson", json=sioux_body())
    assert len(default.json()["features"]) > len(answer.json()["features"])
    message = _error(
        client.post("/api/stationmap", json=sioux_body(search_rounds=5, strict_priority=True))
    )
    assert (
        message == "--search re-packs the map and --strict-priority forbids that; drop one of them"
    )


@pytest.mark.parametrize(
    "settings, flags",
    [
        ({"min_spacing": "nan"}, ["--min-spacing", "nan"]),
        ({"min_spacing": 2000}, ["--min-spacing", "2000"]),
        ({"max_per_cluster": -1}, ["--max-per-cluster", "-1"]),
        ({"game_size": "XL"}, ["--game-size", "XL"]),
        ({"tiers": "dense:x:5-15"}, ["--tiers", "dense:x:5-15"]),
        ({"playing_hours": "25am-7pm"}, ["--playing-hours", "25am-7pm"]),
        ({"play_date": "2026-13-01"}, ["--play-date", "2026-13-01"]),
        ({"only_categories": ["coastline"]}, ["--category", "coastline"]),
    ],
)
def test_bad_settings_get_the_cli_message(client, tmp_path, settings, flags):
    message = _error(client.post("/api/stationmap", json=sioux_body(**settings)))
    result = cli("generate", SIOUX_AREA, "--osm", "x.json", "-o", tmp_path, *flags)
    assert result.exit_code != 0
    assert message in result.stderr, (message, result.stderr)


def test_bad_play_areas_get_the_cli_message(client, tmp_path):
    point = {"type": "Point", "coordinates": [-96.7, 43.5]}
    swapped = json.loads(SIOUX_AREA.read_text())
    ring = swapped["features"][0]["geometry"]["coordinates"][0]
    swapped["features"][0]["geometry"]["coordinates"][0] = [[y, x] for x, y in ring]
    for name, data in (("point.geojson", point), ("swapped.geojson", swapped)):
        (tmp_path / name).write_text(json.dumps(data), "utf-8")
        body = {**sioux_body(), "play_area": data, "name": name}
        message = _error(client.post("/api/stationmap", json=body))
        assert message == error_line(cli("generate", tmp_path / name, "-o", tmp_path / "o"))


@pytest.mark.parametrize(
    "body, words",
    [
        ({"settings": {}}, "give exactly one of play_area"),
        ({**sioux_body(), "place": "Sioux Falls"}, "give exactly one of play_area"),
        ({**sioux_body(), "osm": ["elsewhere.pbf"]}, "restart it with --osm elsewhere.pbf"),
        ({**sioux_body(), "water": "water.json"}, "must be a list of file names"),
        ({**sioux_body(), "settings": {"output_dir": "/"}}, "unknown setting 'output_dir'"),
        ({**sioux_body(), "settings": {"no_transit": "yes"}}, "give true or false"),
        ({**sioux_body(), "settings": []}, "settings must be a JSON object"),
        ([1, 2], "must be a JSON object"),
        ({"place": "Sioux Falls"}, "works offline"),
    ],
)
def test_bad_requests_are_400_with_one_line(client, body, words):
    message = _error(client.post("/api/stationmap", json=body))
    assert words in message and "\n" not in message


def test_bodies_that_are_not_json_or_too_large_are_refused():
    small = api_client(create_app(config(), max_body_bytes=300))
    assert "not JSON" in _error(small.post("/api/stationmap", content=b"{nope", headers=JSON))
    assert "larger than 0 MiB" not in _error(
        small.post("/api/stationmap", content=b"x" * 400, headers=JSON), 413
    )
    assert "larger than" in _error(small.post("/api/stationmap", json=sioux_body()), 413)
    assert small.post("/api/stationmap/file/secret.txt", json={}).status_code == 404


def test_online_areas_are_capped_before_any_fetch():
    online = api_client(create_app(config(online=True, max_online_km2=100.0)))
    body = {**sioux_body(), "osm": []}
    message = _error(online.post("/api/stationmap", json=body))
    assert "more than the 100 km² fetched online" in message


def test_a_crash_in_one_request_does_not_stop_the_server(monkeypatch):
    app = create_app(config())
    quiet = api_client(app, raise_server_exceptions=False)

    def boom(_body):
        raise RuntimeError("a bug")

    monkeypatch.setattr(app.state.station_maps, "build", boom)
    assert "internal error" in _error(quiet.post("/api/stationmap", json=sioux_body()), 500)
    monkeypatch.undo()
    assert quiet.get("/api/health").json()["ok"] is True
    assert quiet.post("/api/game/cost", json={"game": HELSINKI_GAME.read_text()}).status_code == 200


# ------------------------------------------------------------------------- games


@pytest.fixture(scope="module")
def helsinki_cli(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("helsinki-cli")
    result = cli("questions", "apply", HELSINKI_GAME, "-o", out)
    assert result.exit_code == 0, result.stderr
    (out / "stderr.txt").write_text(result.stderr, "utf-8")
    return out


def _game(**extra) -> dict:
    return {"game": HELSINKI_GAME.read_text("utf-8"), "name": "game.json", **extra}


def test_game_apply_equals_questions_apply(client, helsinki_cli):
    answer = client.post("/api/game/apply", json=_game())
    assert answer.status_code == 200, answer.text
    data = answer.json()
    for name in ("remaining.geojson", "zones.geojson"):
        assert data["files"][name] == (helsinki_cli / name).read_text("utf-8")
    assert data["summary"][-1] in (helsinki_cli / "stderr.txt").read_text("utf-8")
    assert data["possible"] == 14 and data["zones_total"] == 30
    # The same game as a parsed object, and with a question less (the map part cached).
    doc = json.loads(HELSINKI_GAME.read_text("utf-8"))
    doc["play_area"], doc["osm"] = "helsinki-centre.geojson", ["helsinki-centre.osm.pbf"]
    again = client.post("/api/game/apply", json={"game": doc}).json()
    assert again["files"] == data["files"]
    doc["questions"] = doc["questions"][:2]
    fewer = client.post("/api/game/apply", json={"game": doc}).json()
    assert fewer["remaining_km2"] > data["remaining_km2"] and len(fewer["labels"]) == 2


def test_answer_check_cost_equal_the_cli(client):
    rows = client.post("/api/game/answer", json=_game(hider="60.1665,24.9490")).json()
    cli_rows = cli("questions", "answer", HELSINKI_GAME, "--hider", "60.1665,24.9490", "--json")
    assert rows == json.loads(cli_rows.stdout)
    check = client.post("/api/game/check", json=_game(station="Rautatientori")).json()
    cli_check = cli("zones", "check", HELSINKI_GAME, "--station", "Rautatientori", "--json")
    assert cli_check.exit_code == 1 and check == json.loads(cli_check.stdout)
    assert check["ruled_out_by"][0]["question"] == 5
    cost = client.post("/api/game/cost", json=_game()).json()
    assert cost == json.loads(cli("questions", "cost", HELSINKI_GAME, "--json").stdout)


def test_share_link_round_trips_and_taibeled_games_apply(client):
    link = client.post("/api/game/share", json=_game()).json()["link"]
    assert link.split("?hzc=")[1] == SHARE_LINK.read_text("utf-8").strip().split("?hzc=")[1]
    body = {"game": link, "name": "link.txt", "osm": ["helsinki-centre.osm.pbf"]}
    applied = client.post("/api/game/apply", json=body).json()
    assert (applied["possible"], applied["zones_total"]) == (14, 30)
    # A link carries no OSM data: without an extract (and offline) it cannot be applied.
    alone = client.post("/api/game/apply", json={"game": link, "name": "share-link.txt"})
    assert "give OSM data that covers it" in _error(alone)
    parsed = client.post("/api/game/parse", json={"game": link}).json()["game"]
    assert parsed["type"] == "FeatureCollection" and len(parsed["questions"]) == 7


def test_a_game_on_the_station_map_just_made(client):
    built = client.post("/api/stationmap", json=sioux_body()).json()
    doc = {
        "format": "stations-generator-game/1",
        "game_size": built["game_size"],
        "play_area": json.loads(SIOUX_AREA.read_text("utf-8")),
        "osm": ["pois.json"],
        "stations": "generated:" + built["key"],
        "questions": [
            {
                "type": "radius",
                "seeker": {"lat": 43.5446, "lon": -96.7311},
                "radius": "5 km",
                "answer": "within",
            }
        ],
    }
    data = client.post("/api/game/apply", json={"game": doc}).json()
    assert data["zones_total"] == built["stations"]
    assert 0 < data["possible"] < built["stations"]


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d.update(osm=["other.osm.pbf"]), "restart it with --osm other.osm.pbf"),
        (lambda d: d.update(play_area="/etc/passwd"), "restart it with --file passwd"),
        (lambda d: d["questions"][0].update(radius="far"), "question 1 radius"),
        (lambda d: d["questions"][0].update(type="compass"), "unknown question type 'compass'"),
        (lambda d: d.update(rules="house"), "house"),
    ],
)
def test_bad_games_get_one_line(client, edit, words):
    doc = json.loads(HELSINKI_GAME.read_text("utf-8"))
    doc["play_area"], doc["osm"] = "helsinki-centre.geojson", ["helsinki-centre.osm.pbf"]
    edit(doc)
    message = _error(client.post("/api/game/apply", json={"game": doc}))
    assert words in message and "\n" not in message


def test_bad_game_requests_get_the_cli_message(client, tmp_path):
    outside = client.post("/api/game/answer", json=_game(hider="10,10"))
    cli_outside = cli("questions", "answer", HELSINKI_GAME, "--hider", "10,10")
    assert _error(outside) == error_line(cli_outside)
    assert "exactly one of" in _error(client.post("/api/game/check", json=_game()))
    nobody = client.post("/api/game/check", json=_game(station="Nowhere"))
    assert _error(nobody) == error_line(
        cli("zones", "check", HELSINKI_GAME, "--station", "Nowhere")
    )
    (tmp_path / "bad.json").write_text("hello there", "utf-8")
    not_game = client.post("/api/game/apply", json={"game": "hello there", "name": "bad.json"})
    assert _error(not_game) == error_line(
        cli("questions", "apply", tmp_path / "bad.json", "-o", tmp_path)
    )
    assert "give game" in _error(client.post("/api/game/apply", json={}))


def test_concurrent_requests_are_safe(client):
    """Station maps and games from 8 threads at once: every answer right."""
    expected_map = client.post("/api/stationmap/file/stations.csv", json=sioux_body()).content
    expected_game = client.post("/api/game/apply", json=_game()).json()["files"]
    failures: list[str] = []

    def work(k: int) -> None:
        if k % 2:
            got = client.post("/api/stationmap/file/stations.csv", json=sioux_body()).content
            ok = got == expected_map
        else:
            ok = client.post("/api/game/apply", json=_game()).json()["files"] == expected_game
        if not ok:
            failures.append(str(k))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


# --------------------------------------------------------------- play-area files


@pytest.mark.parametrize("fmt", ["kml", "kmz", "gpx"])
def test_area_files_are_read_by_the_cli_reader(client, tmp_path, fmt):
    from support.area_files import write_format

    path = write_format(SIOUX_AREA, tmp_path, fmt)
    spec = {"name": path.name, "base64": base64.b64encode(path.read_bytes()).decode()}
    body = {**sioux_body(), "play_area": None, "name": None, "play_area_file": spec}
    answer = client.post("/api/stationmap/file/stations.kml", json=body)
    assert answer.status_code == 200, answer.text[:300]
    generate(tmp_path / "out", path)
    assert answer.content == (tmp_path / "out" / "stations.kml").read_bytes()


@pytest.mark.parametrize("name", ["empty.kml", "nothing.kml", "pins.kml", "broken.kml", "bomb.kml"])
def test_bad_area_files_get_the_cli_message(client, tmp_path, name):
    from support.area_files import BAD

    raw = BAD[name][0]
    (tmp_path / name).write_bytes(raw)
    spec = {"name": "../../" + name, "base64": base64.b64encode(raw).decode()}
    body = {**sioux_body(), "play_area": None, "play_area_file": spec}
    message = _error(client.post("/api/stationmap", json=body), 400)
    assert message == error_line(cli("generate", tmp_path / name, "-o", tmp_path / "o"))
    bad = {**body, "play_area_file": {"name": name, "base64": "%%%"}}
    assert "not base64" in _error(client.post("/api/stationmap", json=bad))


def test_a_taibeled_question_list_with_a_registered_play_area(client, tmp_path):
    from support.serve_support import HELSINKI_AREA, HELSINKI_PBF

    question = {
        "id": "radius",
        "key": 1,
        "data": {"lat": 60.1700, "lng": 24.9440, "radius": 1, "unit": "kilometers", "within": True},
    }
    body = {
        "game": [question],
        "name": "questions.json",
        "osm": ["helsinki-centre.osm.pbf"],
        "play_area": "helsinki-centre.geojson",
    }
    answer = client.post("/api/game/apply", json=body)
    assert answer.status_code == 200, answer.text[:300]
    (tmp_path / "questions.json").write_text(json.dumps([question]), "utf-8")
    result = cli(
        "questions", "apply", tmp_path / "questions.json", "--osm", HELSINKI_PBF,
        "--play-area", HELSINKI_AREA, "-o", tmp_path / "out",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    for name in ("remaining.geojson", "zones.geojson"):
        assert answer.json()["files"][name] == (tmp_path / "out" / name).read_text("utf-8")
    # Without a map: the CLI's message.
    alone = client.post("/api/game/apply", json={"game": [question], "name": "questions.json"})
    cli_alone = cli("questions", "apply", tmp_path / "questions.json", "-o", tmp_path / "o2")
    assert _error(alone) == error_line(cli_alone)


def test_slow_work_times_out_with_504_and_the_server_goes_on(monkeypatch):
    import time

    app = create_app(config(), request_timeout_s=0.3)
    quick = api_client(app)
    real = app.state.games.cost

    def slow(body):
        time.sleep(1.0)
        return real(body)

    monkeypatch.setattr(app.state.games, "cost", slow)
    answer = quick.post("/api/game/cost", json=_game())
    assert "took longer than 0.3 s" in _error(answer, 504)
    assert quick.get("/api/health").status_code == 200


# ------------------------------------------------------------------ the command


def test_serve_command_prints_its_address_and_serves(tmp_path):
    """The real command in a subprocess: the address line, an answer, a clean stop."""
    import os
    import signal
    import subprocess
    import sys

    import httpx2 as httpx
    from support.paths import REPO, SIOUX

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "stations_generator", "serve", "--port", "0", "--offline",
         "--osm", str(SIOUX / "pois.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        line = process.stdout.readline()
        assert line.startswith("Serving the station map page on http://127.0.0.1:"), line
        url = line.split(" on ", 1)[1].split(" ", 1)[0]
        answer = httpx.get(url + "api/config", timeout=120)
        assert answer.json()["osm_files"] == ["pois.json"]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(120)
    assert "Traceback" not in process.stderr.read()


def test_serve_command_refuses_bad_options(tmp_path):
    missing = cli("serve", "--osm", tmp_path / "nope.pbf")
    assert error_line(missing) == f"--osm {tmp_path / 'nope.pbf'}: no such file; check the path"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "x.json").write_text("{}", "utf-8")
    twins = cli("serve", "--osm", tmp_path / "a" / "x.json", "--osm", tmp_path / "b" / "x.json")
    assert "also called 'x.json'" in error_line(twins)
