"""``serve`` online: play areas and OSM data from the local Overpass and Nominatim stand-ins.

The stand-ins (tests/support/osm_services.py) answer with recorded real data on 127.0.0.1;
each answer is compared with the CLI's for the same online request.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from support.serve_support import SIOUX_AREA, api_client, config, error_line

from stations_generator.serve.app import create_app


@pytest.fixture
def online(local_services, tmp_path, monkeypatch):
    running, env = local_services
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    app = create_app(
        config(online=True, overpass_urls=(running.overpass_url,), cache_dir=tmp_path / "cache")
    )
    return api_client(app), running, env


def _body(**extra) -> dict:
    return {"osm": [], "water": [], "settings": {}, **extra}


def test_a_drawn_area_fetched_online_equals_the_cli(online, tmp_path):
    client, _running, env = online
    area = json.loads(SIOUX_AREA.read_text("utf-8"))
    got = client.post("/api/stationmap/file/stations.kml", json=_body(play_area=area))
    assert got.status_code == 200, got.text[:300]
    from click.testing import CliRunner

    from stations_generator.cli import main

    result = CliRunner().invoke(
        main,
        ["generate", str(SIOUX_AREA), "-o", str(tmp_path / "cli"), "--name", "play-area"],
        env=env,
    )
    assert result.exit_code == 0, result.stderr
    assert got.content == (tmp_path / "cli" / "stations.kml").read_bytes()


def test_relation_and_place_equal_the_cli(online, tmp_path):
    client, _running, env = online
    from click.testing import CliRunner

    from stations_generator.cli import main

    for body, flags in (
        (_body(osm_relation=1155955), ["--osm-relation", "1155955"]),
        (_body(place="Sioux Falls, South Dakota"), ["--place", "Sioux Falls, South Dakota"]),
    ):
        answer = client.post("/api/stationmap", json=body)
        assert answer.status_code == 200, answer.text[:300]
        out = tmp_path / flags[0].strip("-")
        result = CliRunner().invoke(main, ["generate", *flags, "-o", str(out)], env=env)
        assert result.exit_code == 0, result.stderr
        assert answer.json()["summary"][0] in result.stderr
        kml = client.post("/api/stationmap/file/stations.kml", json=body)
        assert kml.content == (out / "stations.kml").read_bytes()


def test_an_overpass_failure_is_502_with_the_cli_message(local_services, tmp_path, monkeypatch):
    running, env = local_services
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    # A short deadline: the retries of a 504 end within it, in the server as in the CLI.
    client = api_client(
        create_app(config(online=True, overpass_urls=(running.overpass_url,), overpass_timeout=2.0))
    )
    running.fault("overpass", "504")
    answer = client.post("/api/stationmap", json=_body(osm_relation=1155955))
    assert answer.status_code == 502
    from click.testing import CliRunner

    from stations_generator.cli import main

    result = CliRunner().invoke(
        main,
        [
            "generate",
            *("--osm-relation", "1155955", "--overpass-timeout", "2"),
            *("-o", str(tmp_path / "o"), "--no-cache"),
        ],
        env=env,
    )
    assert answer.json()["error"] == error_line(result)


@pytest.mark.slow  # (seconds; the full suite runs it)
def test_a_slow_fetch_reports_progress(local_services, tmp_path, monkeypatch):
    running, env = local_services
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    app = create_app(
        config(
            online=True,
            overpass_urls=(running.overpass_url,),
            cache_dir=tmp_path / "cache",
            overpass_timeout=4.0,
        )
    )
    client = api_client(app)
    running.fault("overpass", "drip")
    answers = []
    request = threading.Thread(
        target=lambda: answers.append(
            client.post("/api/stationmap", json=_body(osm_relation=1155955, progress_id="slow-1"))
        )
    )
    request.start()
    seen = None
    deadline = time.monotonic() + 10
    while seen is None and time.monotonic() < deadline:
        seen = client.get("/api/progress/slow-1").json()["message"]
        time.sleep(0.2)
    request.join(30)
    assert seen is not None and "Overpass" in seen
    assert answers[0].status_code == 502 and "Overpass" in answers[0].json()["error"]
    assert client.get("/api/progress/other").json()["message"] is None
