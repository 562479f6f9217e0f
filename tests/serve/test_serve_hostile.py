"""``serve`` against a hostile network: foreign sites and hosts, floods, bad bodies, signals.

Every refusal is a 4xx (or a 503 when busy) with a one-line ``{"error": ...}`` and never
a 500. The in-process cases use FastAPI's TestClient; the flood and the stop use the
real server on 127.0.0.1 (uvicorn in a thread, or the command in a subprocess).
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest
from support.paths import REPO, SIOUX
from support.serve_support import (
    HELSINKI_AREA,
    SIOUX_AREA,
    api_client,
    config,
    running_server,
    sioux_body,
)

from stations_generator.serve.app import create_app
from stations_generator.serve.security import TILE_ORIGIN, allowed_hosts, host_name

JSON = {"Content-Type": "application/json"}
SELF = "http://127.0.0.1"
#: A station map that takes seconds (a Sioux Falls map with the default search: ~0.6 s;
#: search rounds are a count, ~60 µs each on one core).
SLOW_ROUNDS = 60_000


@pytest.fixture(scope="module")
def client():
    return api_client(create_app(config()), raise_server_exceptions=False)


def refused(response, status: int) -> str:
    """The one-line error of a refusal with this status."""
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"].startswith("application/json")
    message = response.json()["error"]
    assert isinstance(message, str) and message and "\n" not in message
    return message


# ------------------------------------------------------------- cross-site requests


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example", "Content-Type": "text/plain"},
        {"Origin": "https://evil.example", "Content-Type": "application/json"},
        {"Origin": "null", "Content-Type": "application/json"},
        {"Origin": "http://127.0.0.1.evil.example", "Content-Type": "application/json"},
        {"Content-Type": "text/plain"},
        {"Content-Type": "application/x-www-form-urlencoded"},
        {"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"},
    ],
)
@pytest.mark.parametrize("path", ["/api/stationmap", "/api/game/parse"])
def test_cross_site_posts_are_refused(client, headers, path):
    body = json.dumps({"game": "{}", **sioux_body()}).encode()
    message = refused(client.post(path, content=body, headers=headers), 403)
    assert "Origin" in message or "another site" in message


def test_the_page_itself_and_scripts_are_served(client):
    body = {"game": HELSINKI_AREA.read_text("utf-8")}
    same = client.post("/api/game/parse", json=body, headers={"Origin": SELF})
    script = client.post("/api/game/parse", json=body)  # no Origin: a script, JSON
    assert same.status_code == script.status_code == 200
    assert same.json() == script.json() == {"game": json.loads(body["game"])}
    assert client.get("/api/health", headers={"Origin": "https://evil.example"}).json()["ok"]


def test_a_body_that_is_not_json_is_415(client):
    message = refused(
        client.post(
            "/api/stationmap",
            content=b"play_area=x",
            headers={"Origin": SELF, "Content-Type": "text/plain"},
        ),
        415,
    )
    assert "application/json" in message


def test_an_uploaded_play_area_from_the_page_is_read(client):
    """The page sends a loaded file as JSON (name + base64), from its own origin."""
    raw = SIOUX_AREA.read_bytes()
    body = {
        "play_area_file": {"name": SIOUX_AREA.name, "base64": base64.b64encode(raw).decode()},
        "osm": ["pois.json"],
        "water": ["water.json"],
    }
    answer = client.post("/api/stationmap", json=body, headers={"Origin": SELF})
    drawn = client.post("/api/stationmap", json=sioux_body())
    assert answer.status_code == 200, answer.text[:300]
    assert answer.json()["stations"] == drawn.json()["stations"] > 0


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "localhost.evil", ""])
@pytest.mark.parametrize("method", ["GET /", "GET /api/config", "POST /api/stationmap"])
def test_foreign_host_names_are_refused(client, host, method):
    verb, path = method.split()
    answer = client.request(verb, path, headers={"Host": host, **JSON}, content=b"{}")
    assert "--allowed-host" in refused(answer, 400)


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST"])
def test_loopback_names_are_served(client, host):
    assert client.get("/api/health", headers={"Host": host}).json()["ok"] is True


def test_lan_names_and_addresses():
    assert host_name("[::1]:80") == "::1" and host_name("Box.Local:8000") == "box.local"
    hosts = allowed_hosts("0.0.0.0", ["game-box.local"])
    assert {"localhost", "127.0.0.1", "::1", "game-box.local"} <= set(hosts)
    assert "192.168.1.5" in allowed_hosts("192.168.1.5")
    assert {"box.local", "fe80::1"} <= set(allowed_hosts("::1", ["Box.local:8000", "[fe80::1]"]))
    lan = api_client(create_app(config(), hosts=hosts, any_ip_host=True))
    only = api_client(create_app(config(), hosts=allowed_hosts("127.0.0.1")))
    for name in ("game-box.local:8000", "192.168.1.5:8000", "[fe80::1]:8000"):
        assert lan.get("/api/health", headers={"Host": name}).status_code == 200
    for name in ("game-box.local", "192.168.1.5", "evil.example"):
        refused(only.get("/api/health", headers={"Host": name}), 400)
    refused(lan.get("/api/health", headers={"Host": "evil.example"}), 400)


# ----------------------------------------------------------------- the headers


@pytest.mark.parametrize("path", ["/", "/assets/app.js", "/api/health", "/nope", "/docs"])
def test_every_answer_has_the_security_headers(client, path):
    answer = client.get(path)
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    policy = answer.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    if path != "/docs":  # the API page's Swagger UI (vendored) allows its inline script by hash
        assert "script-src 'self';" in policy and TILE_ORIGIN in policy


def test_the_page_uses_only_its_own_assets_and_the_tile_server(client):
    html = client.get("/").text
    assert "<script>" not in html and "style=" not in html and "<style" not in html
    app_js = client.get("/assets/app.js").text
    tiles = [w for w in app_js.split('"') if w.startswith("https://") and "{z}" in w]
    assert tiles and all(t.startswith(TILE_ORIGIN + "/") for t in tiles)
    refused(client.get("/", headers={"Host": "evil.example"}), 400)
    assert "x-content-type-options" in client.get("/", headers={"Host": "evil.example"}).headers


# ---------------------------------------------------------------- bad bodies


def _post(client, body: bytes):
    return client.post("/api/stationmap", content=body, headers=JSON)


def test_deep_json_is_400(client):
    deep = b"[" * 5000 + b"]" * 5000
    assert "nested too deeply" in refused(_post(client, deep), 400)
    game = b'{"game": ' + deep + b"}"
    assert "nested too deeply" in refused(
        client.post("/api/game/apply", content=game, headers=JSON), 400
    )
    text = json.dumps({"game": "[" * 5000 + "]" * 5000})
    assert "nested too deeply" in refused(
        client.post("/api/game/apply", content=text, headers=JSON), 400
    )


@pytest.mark.parametrize(
    "setting", ["cluster_radius", "max_per_cluster", "search_rounds", "time_limit", "min_spacing"]
)
@pytest.mark.parametrize("value", ["1" + "0" * 400, "-1" + "0" * 400, str(2**63), "1e300"])
def test_huge_numbers_in_settings_are_400(client, setting, value):
    text = json.dumps(sioux_body()).replace(
        '"settings": {}', f'"settings": {{"{setting}": {value}}}'
    )
    message = refused(_post(client, text.encode()), 400)
    assert "too large" in message or "invalid value" in message or "not a finite" in message


@pytest.mark.parametrize(
    "body, words",
    [
        (b'{"play_area": "\xff"}', "not UTF-8"),
        (b"{nope", "not JSON"),
        (b'{"settings": NaN}', "not a finite number"),
        (b"[1, 2]", "JSON object"),
    ],
)
def test_broken_bodies_are_400(client, body, words):
    assert words in refused(_post(client, body), 400)


@pytest.mark.parametrize(
    "name, words",
    [
        ("area\x00.geojson", "control character"),
        ("area\n.kml", "control character"),
        ("a" * 300 + ".geojson", "longer than 255 bytes"),
        ("é" * 128 + ".kml", "longer than 255 bytes"),
    ],
)
def test_bad_upload_names_are_400(client, name, words):
    raw = base64.b64encode(SIOUX_AREA.read_bytes()).decode()
    body = {"play_area_file": {"name": name, "base64": raw}, "osm": ["pois.json"]}
    assert words in refused(client.post("/api/stationmap", json=body), 400)


# -------------------------------------------------------- maps in the temp folder


def test_map_files_leave_the_temp_folder_with_the_cache(tmp_path):
    app = create_app(config(), maps_cached=2, temp_dir=tmp_path)
    client = api_client(app)
    keys = []
    for radius in (500, 600, 700, 800):
        built = client.post("/api/stationmap", json=sioux_body(cluster_radius=radius)).json()
        keys.append(built["key"])
        doc = {
            "format": "stations-generator-game/1",
            "game_size": built["game_size"],
            "play_area": json.loads(SIOUX_AREA.read_text("utf-8")),
            "osm": ["pois.json"],
            "stations": "generated:" + built["key"],
            "questions": [],
        }
        applied = client.post("/api/game/apply", json={"game": doc})
        assert applied.status_code == 200, applied.text[:300]
        files = sorted(p.stem for p in (tmp_path / "maps").iterdir())
        assert files == sorted(keys[-2:])  # only the cached maps' files
    stale = {"format": "stations-generator-game/1", "stations": "generated:" + keys[0]}
    assert "no longer on the server" in refused(
        client.post("/api/game/apply", json={"game": {**doc, **stale}}), 400
    )
    escape = {**doc, "stations": "generated:../../etc/passwd"}
    assert "no longer on the server" in refused(
        client.post("/api/game/apply", json={"game": escape}), 400
    )


# ------------------------------------------------------------------ saturation


@pytest.mark.slow
def test_a_flood_of_builds_is_refused_at_once_and_the_page_still_answers():
    """One worker, one place in line: of many long builds at once, two are taken and
    the others are 503 with Retry-After at once; the page and health answer meanwhile."""
    app = create_app(config(), max_jobs=1, max_queue=1)
    body = sioux_body(search_rounds=SLOW_ROUNDS)
    with running_server(app) as url:

        def build(_k: int) -> tuple[int, float, httpx.Response]:
            start = time.monotonic()
            with httpx.Client(base_url=url, timeout=300) as c:
                r = c.post("api/stationmap", json=body)
            return r.status_code, time.monotonic() - start, r

        with ThreadPoolExecutor(12) as pool:
            futures = [pool.submit(build, k) for k in range(12)]
            time.sleep(1.0)
            page_waits = []
            for path in ("", "api/health", "assets/app.js", "api/config"):
                start = time.monotonic()
                assert httpx.get(url + path, timeout=30).status_code == 200
                page_waits.append(time.monotonic() - start)
            busy_while = app.state.jobs.running
            answers = [f.result() for f in futures]
    statuses = sorted(status for status, _t, _r in answers)
    assert statuses == [200, 200] + [503] * 10
    assert busy_while == 1  # the page was answered while a build ran
    assert max(page_waits) < 2.0, page_waits
    for status, took, r in answers:
        if status == 503:
            assert took < 5.0 and int(r.headers["retry-after"]) > 0
            assert "busy" in r.json()["error"]
    built = [r.json() for status, _t, r in answers if status == 200]
    assert built[0] == built[1]


# -------------------------------------------------------------------- the stop


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_during_a_long_build_is_prompt_and_leaves_no_temp_folder(tmp_path, signum):
    """SIGTERM or Ctrl-C while a build of a minute runs: out in seconds, the waiting
    request answered 503, the temporary folder (TMPDIR here) left empty."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(temp)}
    process = subprocess.Popen(
        [sys.executable, "-m", "stations_generator", "serve", "--port", "0", "--offline",
         "--osm", str(SIOUX / "pois.json"), "--water", str(SIOUX / "water.json"),
         "--allowed-host", "game-box.local"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        line = process.stdout.readline()
        url = line.split(" on ", 1)[1].split(" ", 1)[0]
        named = httpx.get(url + "api/health", headers={"Host": "game-box.local"}, timeout=60)
        assert named.status_code == 200
        assert httpx.get(url, headers={"Host": "evil.example"}, timeout=60).status_code == 400
        # A build of a minute or more (a million search rounds), started and then left.
        body = sioux_body(search_rounds=1_000_000)
        outcome: list = []

        def build() -> None:
            try:
                outcome.append(httpx.post(url + "api/stationmap", json=body, timeout=120))
            except httpx.HTTPError as exc:
                outcome.append(exc)

        thread = threading.Thread(target=build, daemon=True)
        thread.start()
        time.sleep(2.0)
        assert any(temp.iterdir())  # the server's own folder is there while it runs
        start = time.monotonic()
        process.send_signal(signum)
        process.wait(30)
        took = time.monotonic() - start
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    stderr = process.stderr.read()
    assert took < 8.0, took
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert list(temp.iterdir()) == []
    thread.join(30)
    # The request waiting for the build was answered, not dropped.
    assert outcome[0].status_code == 503, outcome
    assert "stopping" in outcome[0].json()["error"]
