"""Shared games on ``serve`` with the embedded SQLite store: create, join, post, read, live.

In-process through FastAPI's TestClient (HTTP and WebSocket), on the Helsinki example
game; the events are the referee's game-log events, with the hider's position where a
phone in hider mode would put it. A restart of the real ``serve`` command is at the end.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from support.paths import REPO
from support.serve_support import api_client, cli, config, error_line
from support.shared_games import (
    GAME,
    HIDER_AT,
    HIDER_TEXT,
    WS,
    answered,
    asked,
    bearer,
    hello,
    new_game,
    post,
)

from stations_generator.serve.app import create_app
from stations_generator.serve.shared.database import open_store
from stations_generator.serve.shared.model import seeker_view


@pytest.fixture
def client(tmp_path):
    app = create_app(config(), temp_dir=tmp_path / "temp", database=tmp_path / "games.sqlite3")
    with api_client(app) as c:
        yield c


def test_a_game_gives_a_code_and_two_tokens_that_open_their_roles(client):
    game = new_game(client, size="M", hider_position=HIDER_AT)
    assert len(game["code"]) == 6 and game["seeker_token"] != game["hider_token"]
    assert len(game["seeker_token"]) >= 32  # 192 random bits
    assert game["links"]["seeker"].endswith(f"#game={game['code']}&token={game['seeker_token']}")
    roles = {}
    for token in (game["seeker_token"], game["hider_token"]):
        # The code as typed on a phone: lower case, with a space.
        typed = game["code"][:3].lower() + " " + game["code"][3:]
        joined = client.post("/api/shared/join", json={"code": typed, "token": token}).json()
        roles[joined["role"]] = joined
    assert set(roles) == {"seeker", "hider"}
    assert roles["hider"]["game"] == GAME and roles["seeker"]["game"] == GAME
    assert roles["hider"]["settings"] == {"size": "M", "hider_position": HIDER_AT}
    assert roles["seeker"]["settings"] == {"size": "M"}
    assert all(r["last"] == 0 and r["code"] == game["code"] for r in roles.values())


def test_events_are_numbered_in_order_of_arrival_and_a_replay_is_stored_once(client):
    game = new_game(client)
    seeker, hider = game["seeker_token"], game["hider_token"]
    seqs = [
        post(client, game, seeker, "s-1", asked(0)).json()["seq"],
        post(client, game, hider, "h-1", answered(0)).json()["seq"],
        post(client, game, seeker, "s-2", asked(1)).json()["seq"],
    ]
    assert seqs == [1, 2, 3]
    again = post(client, game, hider, "h-1", answered(0)).json()
    assert again == {"seq": 2, "id": "h-1", "duplicate": True}
    read = client.get(
        f"/api/shared/games/{game['code']}/events?since=1", headers=bearer(hider)
    ).json()
    assert read["last"] == 3 and read["role"] == "hider"
    assert [(e["seq"], e["id"], e["role"]) for e in read["events"]] == [
        (2, "h-1", "hider"),
        (3, "s-2", "seeker"),
    ]
    assert read["events"][0]["event"] == answered(0)  # the hider sees all of it


def test_offline_events_merge_in_order_of_arrival_with_their_own_times(client):
    """A phone offline from 10:20 to 10:40 sends what it did when back: after what the
    others stored meanwhile, in its order, each with the time it was made."""
    game = new_game(client)
    seeker, hider = game["seeker_token"], game["hider_token"]
    post(client, game, seeker, "s-1", asked(0, "2026-07-10T10:12:00+03:00"))
    post(client, game, hider, "h-late", answered(0, "2026-07-10T10:35:00+03:00"))
    made_offline = [("s-off-1", asked(1, "2026-07-10T10:21:00+03:00")),
                    ("s-off-2", asked(2, "2026-07-10T10:30:00+03:00"))]  # fmt: skip
    for event_id, event in made_offline:
        post(client, game, seeker, event_id, event)
    # The connection dropped before the phone saw its acknowledgements: it sends them again.
    for event_id, event in made_offline:
        assert post(client, game, seeker, event_id, event).json()["duplicate"] is True
    events = client.get(f"/api/shared/games/{game['code']}/events", headers=bearer(seeker)).json()[
        "events"
    ]
    assert [e["id"] for e in events] == ["s-1", "h-late", "s-off-1", "s-off-2"]
    assert [e["event"]["at"][11:16] for e in events] == ["10:12", "10:35", "10:21", "10:30"]
    received = [e["received"] for e in events]
    assert received == sorted(received)


def test_a_seeker_never_receives_the_hiders_position_over_the_websocket(client):
    game = new_game(client, hider=HIDER_AT)
    seeker, hider = game["seeker_token"], game["hider_token"]
    post(client, game, seeker, "s-1", asked(0))
    post(client, game, hider, "h-1", answered(0))  # before the seeker connects
    frames: list[str] = []
    with (
        client.websocket_connect(WS) as seeker_ws,
        client.websocket_connect(WS) as hider_ws,
    ):
        hello(seeker_ws, game, seeker)
        hello(hider_ws, game, hider, since=2)
        frames += [seeker_ws.receive_text() for _ in range(2)]
        # After the seeker connected: an answer, the hider's hand (declared private), a
        # fully private event, all sent by the hider's phone over its WebSocket.
        for event_id, event in [
            ("h-2", answered(1)),
            ("h-3", {"event": "cards-drawn", "cards": ["time-bonus-5"], "private": ["cards"]}),
            ("h-4", {"event": "hider-note", "at": "2026-07-10T10:40:00+03:00",
                     "text": "behind the kiosk", "private": True}),
        ]:  # fmt: skip
            hider_ws.send_json({"type": "event", "id": event_id, "event": event})
        hider_frames = [hider_ws.receive_json() for _ in range(6)]
        frames += [seeker_ws.receive_text() for _ in range(3)]
    seen = [json.loads(f) for f in frames]
    assert [f["seq"] for f in seen] == [1, 2, 3, 4, 5]
    for text in frames:
        assert "hider" not in json.loads(text)["event"]
        assert not any(value in text for value in HIDER_TEXT), text
        assert "kiosk" not in text and "time-bonus-5" not in text
    assert seen[1]["event"]["answer"] == "within" and seen[1]["role"] == "hider"
    assert seen[3]["event"] == {"event": "cards-drawn"}
    assert seen[4]["event"] == {"event": "hider-note", "at": "2026-07-10T10:40:00+03:00",
                                "private": True}  # fmt: skip
    # The hider's own phone gets everything back, its position included.
    pushed = {f["seq"]: f["event"] for f in hider_frames if f["type"] == "event"}
    assert pushed[3]["hider"] == HIDER_AT and pushed[5]["text"] == "behind the kiosk"
    assert sorted(f["seq"] for f in hider_frames if f["type"] == "ack") == [3, 4, 5]


def test_the_seeker_view_strips_at_any_depth():
    event = {"event": "x", "answer": {"hider": [1, 2], "ok": [{"hider_position": 3, "k": 4}]}}
    assert seeker_view(event) == {"event": "x", "answer": {"ok": [{"k": 4}]}}


def test_a_phone_catches_up_then_gets_each_new_event_within_a_second(client):
    game = new_game(client)
    seeker, hider = game["seeker_token"], game["hider_token"]
    for n in range(3):
        post(client, game, seeker, f"s-{n}", asked(n))
    with client.websocket_connect(WS) as ws:
        assert hello(ws, game, hider, since=1)["last"] == 3
        assert [ws.receive_json()["seq"] for _ in range(2)] == [2, 3]  # only the missed ones
        delays = []
        for n in range(3):
            start = time.perf_counter()
            assert post(client, game, seeker, f"s-new-{n}", asked(n)).status_code == 200
            frame = ws.receive_json()
            delays.append(time.perf_counter() - start)
            assert frame["seq"] == 4 + n and frame["id"] == f"s-new-{n}"
    assert max(delays) < 1.0, delays


def test_an_event_sent_on_one_phone_reaches_the_others(client):
    game = new_game(client)
    with (
        client.websocket_connect(WS) as asker,
        client.websocket_connect(WS) as other_seeker,
        client.websocket_connect(WS) as hider,
    ):
        for ws, token in ((asker, "seeker_token"), (other_seeker, "seeker_token"),
                          (hider, "hider_token")):  # fmt: skip
            hello(ws, game, game[token])
        asker.send_json({"type": "event", "id": "a-1", "event": asked(3)})
        first = [asker.receive_json() for _ in range(2)]
        assert {f["type"] for f in first} == {"ack", "event"}
        for ws in (other_seeker, hider):
            frame = ws.receive_json()
            assert (
                frame["seq"] == 1
                and frame["event"]["question"]["type"] == GAME["questions"][3]["type"]
            )
        asker.send_json({"type": "ping"})
        assert asker.receive_json() == {"type": "pong"}


def test_the_store_keeps_games_across_a_reopening(tmp_path):
    path = tmp_path / "games.sqlite3"
    store = open_store(path)
    made = store.create(json.dumps(GAME), "{}")
    for n in range(3):
        store.append(made.code, "seeker", f"s-{n}", json.dumps(asked(n)))
    store.close()
    again = open_store(f"sqlite:///{path}")
    assert again.role(made.code, made.hider_token) == (made.code, "hider")
    assert [e.client_id for e in again.since(made.code, 0)] == ["s-0", "s-1", "s-2"]
    assert again.append(made.code, "seeker", "s-3", "{}").event.seq == 4
    again.close()


def test_the_database_option_refuses_an_unknown_kind(tmp_path):
    result = cli("serve", "--offline", "--database", "mysql://root@localhost/games")
    assert "unknown kind of database 'mysql'" in error_line(result)
    folder = tmp_path / "not-a-db"
    folder.write_text("plain text, not SQLite", "utf-8")
    assert "cannot open it as a game store" in error_line(
        cli("serve", "--offline", "--database", folder)
    )


class _LoopbackSocket(socket.socket):
    """A socket that binds to 127.0.0.1 whatever address it is given (no test listens
    beyond this machine)."""

    def bind(self, address):
        super().bind(("127.0.0.1", address[1]))


def test_serve_says_when_it_listens_beyond_this_machine(monkeypatch, tmp_path):
    from stations_generator.commands import serve as command

    monkeypatch.setattr(command.socket, "socket", _LoopbackSocket)

    def run(app, sock, verbosity):
        sock.close()
        app.state.close()

    monkeypatch.setattr(command, "_run", run)
    database = ["--database", str(tmp_path / "games.sqlite3")]
    wide = cli("serve", "--offline", "--host", "0.0.0.0", "--port", "0", *database)
    assert wide.exit_code == 0, wide.stderr
    assert "Listening beyond this machine (0.0.0.0)" in wide.stderr
    assert "join link (its token)" in wide.stderr
    local = cli("serve", "--offline", "--port", "0", *database)
    assert local.exit_code == 0 and "beyond" not in local.stderr
    assert local.stdout.startswith("Serving the station map page on http://127.0.0.1:")


def _start(database) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-m", "stations_generator", "serve", "--port", "0", "--offline",
         "--database", str(database)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    line = process.stdout.readline()
    assert line.startswith("Serving the station map page on http://127.0.0.1:"), line
    return process, line.split(" on ", 1)[1].split(" ", 1)[0]


def _stop(process: subprocess.Popen) -> str:
    process.send_signal(signal.SIGTERM)
    process.wait(60)
    return process.stderr.read()


@pytest.mark.slow
def test_a_restarted_server_has_every_event(tmp_path):
    import httpx2 as httpx

    database = tmp_path / "games.sqlite3"
    process, url = _start(database)
    try:
        game = httpx.post(url + "api/shared/games", json={"game": GAME}, timeout=60).json()
        for n in range(4):
            token = game["seeker_token"] if n % 2 == 0 else game["hider_token"]
            event = asked(n) if n % 2 == 0 else answered(n - 1)
            done = httpx.post(url + f"api/shared/games/{game['code']}/events",
                              json={"id": f"e-{n}", "event": event}, headers=bearer(token),
                              timeout=60)  # fmt: skip
            assert done.json()["seq"] == n + 1
    finally:
        assert "Traceback" not in _stop(process)
    process, url = _start(database)
    try:
        read = httpx.get(url + f"api/shared/games/{game['code']}/events",
                         headers=bearer(game["hider_token"]), timeout=60).json()  # fmt: skip
        assert [e["id"] for e in read["events"]] == ["e-0", "e-1", "e-2", "e-3"]
        assert read["events"][1]["event"]["hider"] == HIDER_AT
    finally:
        assert "Traceback" not in _stop(process)
