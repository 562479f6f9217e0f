"""Shared games in tests: the Helsinki example game, its events, the API calls, and a real
``serve`` process (restartable on the same port and database) for the browser tests."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

from support.paths import REPO
from support.serve_support import HELSINKI_AREA, HELSINKI_GAME, HELSINKI_PBF

WS = "ws://127.0.0.1/api/shared/ws"
GAME = json.loads(HELSINKI_GAME.read_text("utf-8"))
#: The hider's position (Helsinki, Kamppi): never in a seeker's traffic.
HIDER_AT = {"lat": 60.16912, "lon": 24.93157}
HIDER_TEXT = ("60.16912", "24.93157")


def asked(n: int, at: str = "2026-07-10T10:12:00+03:00") -> dict:
    """A seeker's question-asked event with the example game's question ``n``."""
    question = {k: v for k, v in GAME["questions"][n].items() if k != "answer"}
    return {"at": at, "event": "question-asked", "id": f"q{n}", "question": question}


def answered(n: int, at: str = "2026-07-10T10:15:00+03:00") -> dict:
    """The hider's answer, with the position hider mode answered from."""
    return {
        "at": at,
        "event": "question-answered",
        "id": f"q{n}",
        "answer": GAME["questions"][n]["answer"],
        "hider": HIDER_AT,
    }


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def new_game(client, **settings) -> dict:
    answer = client.post("/api/shared/games", json={"game": GAME, "settings": settings})
    assert answer.status_code == 201, answer.text
    return answer.json()


def post(client, game: dict, token: str, event_id: str, event: dict):
    return client.post(
        f"/api/shared/games/{game['code']}/events",
        json={"id": event_id, "event": event},
        headers=bearer(token),
    )


def hello(ws, game: dict, token: str, since: int = 0) -> dict:
    ws.send_json({"type": "hello", "code": game["code"], "token": token, "since": since})
    welcome = ws.receive_json()
    assert welcome["type"] == "welcome", welcome
    return welcome


# -- a real ``serve`` process for the browser tests ---------------------------------------


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (kept across a restart)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_serve(port: int, database) -> tuple:
    """``serve`` on 127.0.0.1:``port`` with the Helsinki data, offline, its shared games in
    ``database``; returns (process, page URL) once it listens."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "stations_generator", "serve", "--offline",
         "--port", str(port), "--database", str(database),
         "--osm", str(HELSINKI_PBF), "--file", str(HELSINKI_AREA)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    line = process.stdout.readline()
    if not line.startswith(f"Serving the station map page on http://127.0.0.1:{port}"):
        process.kill()
        raise AssertionError(f"serve did not start: {line!r} {process.stderr.read()[-2000:]}")
    return process, f"http://127.0.0.1:{port}/"


def stop_serve(process) -> str:
    """Stop ``serve`` as Ctrl-C would (SIGTERM; bounded wait); returns what it wrote to stderr."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    return process.stderr.read()
