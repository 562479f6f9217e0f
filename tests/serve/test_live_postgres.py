"""Shared games kept in a real PostgreSQL server, fanned out across processes by LISTEN/NOTIFY.

The server is started by the tests (:mod:`support.postgres_server`, Debian's
``postgresql`` package that ``scripts/install-test-services.sh`` installs), one per
module, with a fresh database per test. Two stores on one database stand for two ``serve``
processes in-process; the slow test runs two real ``serve`` processes on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from support.paths import REPO
from support.postgres_server import new_database, running_postgres
from support.serve_support import HELSINKI_GAME, api_client, cli, config, error_line

from stations_generator.serve.app import create_app
from stations_generator.serve.shared.database import open_store

GAME = json.loads(HELSINKI_GAME.read_text("utf-8"))
HIDER_AT = {"lat": 60.16912, "lon": 24.93157}
ANSWER = {"at": "2026-07-10T10:15:00+03:00", "event": "question-answered", "id": "q0",
          "answer": "within", "hider": HIDER_AT}  # fmt: skip


@pytest.fixture(scope="module")
def postgres():
    with running_postgres() as url:
        yield url


@pytest.fixture
def database(postgres, request):
    return new_database(postgres, f"t_{abs(hash(request.node.nodeid)) % 10**12}")


def test_two_stores_on_one_database_number_events_together_and_wake_each_other(database):
    one, two = open_store(database), open_store(database)
    try:
        made = one.create(json.dumps(GAME), "{}")
        assert two.role(made.code, made.seeker_token) == (made.code, "seeker")

        async def woken() -> float:
            sub = two.hub.subscribe(made.code)
            start = time.perf_counter()
            threading.Thread(
                target=one.append, args=(made.code, "hider", "h-1", json.dumps(ANSWER))
            ).start()
            await asyncio.wait_for(sub.wait(), 5)
            sub.close()
            return time.perf_counter() - start

        assert asyncio.run(woken()) < 1.0
        assert [e.client_id for e in two.since(made.code, 0)] == ["h-1"]

        def append_many(store, prefix: str) -> None:
            for n in range(15):
                store.append(made.code, "seeker", f"{prefix}-{n}", json.dumps({"event": "x"}))

        threads = [threading.Thread(target=append_many, args=(s, p))
                   for s, p in ((one, "a"), (two, "b"))]  # fmt: skip
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        events = one.since(made.code, 0)
        assert [e.seq for e in events] == list(range(1, 32))
        assert [e.client_id for e in events if e.client_id.startswith("a")] == [
            f"a-{n}" for n in range(15)
        ]
        assert one.append(made.code, "hider", "h-1", json.dumps(ANSWER)).duplicate
    finally:
        one.close()
        two.close()


def test_a_dropped_listening_connection_is_made_again_and_misses_nothing(database, postgres):
    import psycopg

    one, two = open_store(database), open_store(database)
    try:
        made = one.create(json.dumps(GAME), "{}")

        async def woken_after_the_drop() -> None:
            sub = two.hub.subscribe(made.code)
            name = database.rsplit("/", 1)[1]
            with psycopg.connect(postgres, autocommit=True) as admin:
                killed = admin.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = %s AND query LIKE 'LISTEN%%'",
                    (name,),
                ).fetchone()[0]
            assert killed == 2  # both stores' listening connections
            # Appended while the second store is not listening: its hub is woken on reconnect.
            await asyncio.to_thread(one.append, made.code, "hider", "h-1", json.dumps(ANSWER))
            await asyncio.wait_for(sub.wait(), 10)
            sub.close()

        asyncio.run(woken_after_the_drop())
        assert [e.client_id for e in two.since(made.code, 0)] == ["h-1"]
    finally:
        one.close()
        two.close()


def test_the_app_on_postgresql_keeps_the_seekers_view(database, tmp_path):
    app = create_app(config(), temp_dir=tmp_path / "temp", database=database)
    with api_client(app) as client:
        game = client.post("/api/shared/games", json={"game": GAME}).json()
        with client.websocket_connect("ws://127.0.0.1/api/shared/ws") as ws:
            ws.send_json({"type": "hello", "code": game["code"],
                          "token": game["seeker_token"], "since": 0})  # fmt: skip
            assert ws.receive_json()["last"] == 0
            answer = client.post(
                f"/api/shared/games/{game['code']}/events",
                json={"id": "h-1", "event": ANSWER},
                headers={"Authorization": f"Bearer {game['hider_token']}"},
            )
            assert answer.json() == {"seq": 1, "id": "h-1", "duplicate": False}
            frame = ws.receive_text()
    assert json.loads(frame)["event"]["answer"] == "within"
    assert "hider" not in json.loads(frame)["event"] and "60.16912" not in frame


def test_an_unreachable_database_is_one_error_line():
    # Port 1 on loopback: nothing listens there, the connection is refused at once.
    result = cli("serve", "--offline", "--database", "postgresql://nobody:secret@127.0.0.1:1/games")
    line = error_line(result)
    assert line.startswith("--database PostgreSQL nobody@127.0.0.1:1/games: ")
    assert "check the URL" in line and "secret" not in line


def _serve(database: str) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "stations_generator", "serve", "--port", "0", "--offline",
         "--database", database],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    line = process.stdout.readline()
    assert line.startswith("Serving the station map page on http://127.0.0.1:"), line
    return process, line.split(" on ", 1)[1].split(" ", 1)[0]


@pytest.mark.slow
def test_two_serve_processes_share_one_game_through_postgresql(database):
    """An answer posted to one process reaches a seeker's WebSocket on the other within
    1 s, without the hider's position; a seeker's question on the other reaches the hider."""
    import httpx2 as httpx
    from websockets.sync.client import connect

    first, url_a = _serve(database)
    second, url_b = _serve(database)
    try:
        game = httpx.post(url_a + "api/shared/games", json={"game": GAME}, timeout=60).json()
        ws_url = url_b.replace("http://", "ws://") + "api/shared/ws"
        with (
            connect(ws_url, open_timeout=30) as seeker,
            connect(url_a.replace("http://", "ws://") + "api/shared/ws", open_timeout=30) as hider,
        ):
            for ws, token in ((seeker, "seeker_token"), (hider, "hider_token")):
                ws.send(json.dumps({"type": "hello", "code": game["code"],
                                    "token": game[token], "since": 0}))  # fmt: skip
                assert json.loads(ws.recv(30))["type"] == "welcome"
            start = time.perf_counter()
            posted = httpx.post(
                url_a + f"api/shared/games/{game['code']}/events",
                json={"id": "h-1", "event": ANSWER},
                headers={"Authorization": f"Bearer {game['hider_token']}"},
                timeout=60,
            )
            assert posted.json()["seq"] == 1
            frame = seeker.recv(5)
            delay = time.perf_counter() - start
            assert delay < 1.0, delay
            assert json.loads(frame)["event"]["answer"] == "within"
            assert "60.16912" not in frame and "hider" not in json.loads(frame)["event"]
            assert json.loads(hider.recv(5))["event"]["hider"] == HIDER_AT
            question = {"event": "question-asked", "id": "q1", "question": GAME["questions"][1]}
            seeker.send(json.dumps({"type": "event", "id": "s-1", "event": question}))
            got = json.loads(hider.recv(5))
            assert (got["seq"], got["role"], got["event"]) == (2, "seeker", question)
    finally:
        for process in (first, second):
            process.send_signal(signal.SIGTERM)
        for process in (first, second):
            process.wait(60)
            assert "Traceback" not in process.stderr.read()
