"""Hostile input over the shared-game API: refused with a clear reason, nothing leaks, the
server lives on.

Forged tokens, another game's token, malformed and oversized messages, replayed events,
floods, foreign hosts and origins — over HTTP (a 4xx with ``{"error"}``) and over the
WebSocket (a close code with a reason, read from the frames the phone receives).
"""

from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect
from support.serve_support import HELSINKI_GAME, api_client, config

from stations_generator.core.referee.violations import RuleViolation
from stations_generator.serve.app import create_app
from stations_generator.serve.shared import websocket
from stations_generator.serve.shared.model import MAX_EVENT_BYTES, RateLimits
from stations_generator.serve.shared.service import EVENT_BURST

WS = "ws://127.0.0.1/api/shared/ws"
GAME = json.loads(HELSINKI_GAME.read_text("utf-8"))
EVENT = {"at": "2026-07-10T10:12:00+03:00", "event": "seeking-started"}


def only_hider_answers(event: dict, role: str) -> None:
    """A check of the kind the referee gives: a seeker cannot answer a question."""
    if event["event"] == "question-answered" and role != "hider":
        raise RuleViolation("the hider answers questions", "only the hider answers")
    if event["event"] == "check-crashes":  # a bug in a check: the server must survive it
        raise RuntimeError("a bug in the check")


@pytest.fixture
def client(tmp_path):
    app = create_app(
        config(),
        temp_dir=tmp_path / "temp",
        database=tmp_path / "games.sqlite3",
        check_event=only_hider_answers,
    )
    with api_client(app) as c:
        yield c


def new_game(client) -> dict:
    answer = client.post("/api/shared/games", json={"game": GAME})
    assert answer.status_code == 201, answer.text
    return answer.json()


def post(client, code: str, token: str, body) -> tuple[int, dict]:
    kwargs = {"content": body} if isinstance(body, (str, bytes)) else {"json": body}
    answer = client.post(
        f"/api/shared/games/{code}/events",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        **kwargs,
    )
    return answer.status_code, answer.json()


def closed(client, *messages, headers=None) -> tuple[int, str, list]:
    """Open the WebSocket, send ``messages`` (text, bytes or objects); the close code and
    reason the server ends with, and the frames received before."""
    frames = []
    with client.websocket_connect(WS, headers=headers or {}) as ws:
        for message in messages:
            if isinstance(message, bytes):
                ws.send_bytes(message)
            elif isinstance(message, str):
                ws.send_text(message)
            else:
                ws.send_json(message)
        with pytest.raises(WebSocketDisconnect) as ended:
            while True:
                frames.append(ws.receive_json())
    return ended.value.code, ended.value.reason, frames


def lives_on(client, game: dict) -> None:
    """The server still answers, and the game still works for its real players."""
    assert client.get("/api/health").status_code == 200
    status, done = post(client, game["code"], game["hider_token"], {"id": "ok", "event": EVENT})
    assert status == 200 and done["duplicate"] is False


def test_forged_tokens_and_other_games_tokens_are_refused_alike(client):
    game, other = new_game(client), new_game(client)
    forged = "A" * 32
    answers = [
        post(client, game["code"], forged, {"id": "x", "event": EVENT}),
        post(client, game["code"], other["hider_token"], {"id": "x", "event": EVENT}),
        post(client, "ZZZZZZ", game["hider_token"], {"id": "x", "event": EVENT}),
    ]
    assert {status for status, _ in answers} == {403}
    reasons = [body["error"] for _, body in answers]
    assert reasons[0] == reasons[1] and reasons[0].startswith(
        f"this token does not open game {game['code']}"
    )
    joined = client.post("/api/shared/join", json={"code": game["code"], "token": forged})
    assert joined.status_code == 403
    read = client.get(
        f"/api/shared/games/{game['code']}/events",
        headers={"Authorization": f"Bearer {other['seeker_token']}"},
    )
    assert read.status_code == 403 and "events" not in read.json()
    bare = client.get(f"/api/shared/games/{game['code']}/events")
    assert bare.status_code == 401 and "Authorization: Bearer" in bare.json()["error"]
    bad_code = client.post("/api/shared/join", json={"code": "<script>", "token": forged})
    assert bad_code.status_code == 400 and "not a join code" in bad_code.json()["error"]
    for token in (other["hider_token"], other["seeker_token"], forged):
        code, reason, frames = closed(
            client, {"type": "hello", "code": game["code"], "token": token, "since": 0}
        )
        assert (code, frames) == (4403, []) and reason.startswith("this token does not open")
    everything = json.dumps([a for a in answers]) + bad_code.text + read.text
    for secret in (game["hider_token"], game["seeker_token"], other["hider_token"]):
        assert secret not in everything
    lives_on(client, game)


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ("not json", 400, "JSON"),
        ("[1, 2]", 400, "send an event as"),
        ({"event": EVENT}, 400, "give the event an id"),
        ({"id": "x" * 65, "event": EVENT}, 400, "give the event an id"),
        ({"id": "a", "event": {"at": "10:00"}}, 400, 'kind in "event"'),
        ({"id": "a", "event": {"event": "Drop Table"}}, 400, "is not an event kind"),
        ({"id": "a", "event": EVENT, "admin": True}, 400, "unknown field 'admin'"),
        ({"id": "a", "event": {**EVENT, "private": "yes"}}, 400, '"private" must be'),
        ('{"id": "a", "event": {"event": "x", "x": 1e999}}', 400, "1e999"),
        ('{"id": "a", "event": ' * 100 + "{}" + "}" * 100, 400, "deep"),
        ({"id": "a", "event": {**EVENT, "pad": "x" * MAX_EVENT_BYTES}}, 413, "larger than"),
        ({"id": "a", "event": {"event": "question-answered", "answer": "no"}}, 422, "hider"),
    ],
)
def test_malformed_and_oversized_events_are_refused_over_http(client, body, status, words):
    game = new_game(client)
    got, answer = post(client, game["code"], game["seeker_token"], body)
    assert got == status, answer
    assert words in answer["error"] and "\n" not in answer["error"]
    read = client.get(
        f"/api/shared/games/{game['code']}/events",
        headers={"Authorization": f"Bearer {game['seeker_token']}"},
    ).json()
    assert read["events"] == [] and read["last"] == 0  # nothing half-stored
    lives_on(client, game)


def test_bad_games_are_refused_and_the_guard_stands_in_front(client):
    too_big = {"game": {"pad": "x" * (9 * 1024**2)}}
    assert client.post("/api/shared/games", json=too_big).status_code == 413
    assert client.post("/api/shared/games", json={"game": "text"}).status_code == 400
    answer = client.post("/api/shared/games", json={"game": GAME, "settings": [1]})
    assert answer.status_code == 400 and answer.json()["error"] == "settings must be an object"
    foreign = client.post(
        "/api/shared/games", json={"game": GAME}, headers={"Origin": "https://evil.example"}
    )
    assert foreign.status_code == 403
    typed = client.post("/api/shared/games", content=json.dumps({"game": GAME}),
                        headers={"Content-Type": "text/plain", "Origin": "http://127.0.0.1"})  # fmt: skip
    assert typed.status_code == 415


def test_replayed_events_are_stored_once_and_a_changed_replay_is_refused(client):
    game = new_game(client)
    hider, seeker = game["hider_token"], game["seeker_token"]
    answered = {"id": "h-7", "event": {"event": "question-answered", "answer": "within",
                                       "hider": {"lat": 60.169, "lon": 24.931}}}  # fmt: skip
    assert post(client, game["code"], hider, answered)[1]["seq"] == 1
    for _ in range(5):
        assert post(client, game["code"], hider, answered)[1] == {
            "seq": 1, "id": "h-7", "duplicate": True}  # fmt: skip
    changed = {**answered, "event": {**answered["event"], "answer": "not within"}}
    status, body = post(client, game["code"], hider, changed)
    assert status == 409 and "was used for another event" in body["error"]
    # A seeker replaying what it saw of the hider's event (without the position) is refused.
    seen = client.get(
        f"/api/shared/games/{game['code']}/events", headers={"Authorization": f"Bearer {seeker}"}
    ).json()["events"][0]
    status, body = post(client, game["code"], seeker, {"id": seen["id"], "event": seen["event"]})
    assert status == 422 and "60.169" not in json.dumps(body)  # only the hider answers
    status, body = post(client, game["code"], seeker, {"id": seen["id"], "event": EVENT})
    assert status == 409 and "60.169" not in json.dumps(body)
    # Over the WebSocket: an error frame, the connection stays, nothing new is stored.
    with client.websocket_connect(WS) as ws:
        ws.send_json({"type": "hello", "code": game["code"], "token": hider, "since": 1})
        assert ws.receive_json()["last"] == 1
        ws.send_json({"type": "event", **answered})
        assert ws.receive_json() == {"type": "ack", "seq": 1, "id": "h-7", "duplicate": True}
        ws.send_json({"type": "event", **changed})
        error = ws.receive_json()
        assert (error["type"], error["status"], error["id"]) == ("error", 409, "h-7")
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
    lives_on(client, game)


@pytest.mark.parametrize(
    ("messages", "code", "words"),
    [
        ([b"\x00\x01binary"], 1003, "not binary"),
        (["{not json"], 1007, "JSON"),
        (["[1, 2, 3]"], 1007, "JSON object"),
        (["x" * (websocket.MAX_MESSAGE_BYTES + 1)], 1009, "larger than"),
        ([{"type": "event", "id": "a", "event": EVENT}], 4400, "hello"),
        ([{"type": "hello", "code": "ABCDEF", "token": "t" * 40, "since": -1}], 4400, "since"),
    ],
)
def test_malformed_websocket_messages_close_it_with_a_reason(client, messages, code, words):
    game = new_game(client)
    got, reason, frames = closed(client, *messages)
    assert (got, frames) == (code, []) and words in reason
    assert len(reason.encode()) <= websocket.MAX_REASON_BYTES
    lives_on(client, game)


def test_an_oversized_event_on_an_open_connection_closes_it(client):
    game = new_game(client)
    hello = {"type": "hello", "code": game["code"], "token": game["seeker_token"], "since": 0}
    big = {"type": "event", "id": "big", "event": {**EVENT, "pad": "x" * 70_000}}
    got, reason, frames = closed(client, hello, big)
    assert got == 1009 and "larger than" in reason
    assert [f["type"] for f in frames] == ["welcome"]
    lives_on(client, game)


def test_a_claim_beyond_the_last_event_and_a_silent_phone_are_closed(client, monkeypatch):
    game = new_game(client)
    hello = {"type": "hello", "code": game["code"], "token": game["seeker_token"], "since": 9}
    got, reason, _ = closed(client, hello)
    assert got == 4409 and "join again from 0" in reason
    monkeypatch.setattr(websocket, "HELLO_TIMEOUT_S", 0.2)
    got, reason, _ = closed(client)
    assert got == 4408 and "no hello within 0.2 s" in reason


def test_foreign_hosts_and_origins_cannot_open_the_websocket(client):
    game = new_game(client)
    hello = {"type": "hello", "code": game["code"], "token": game["hider_token"], "since": 0}
    got, reason, frames = closed(client, hello, headers={"Origin": "https://evil.example"})
    assert (got, frames) == (4403, []) and "another site" in reason
    with client.websocket_connect("ws://evil.example/api/shared/ws") as ws:
        ws.send_json(hello)
        with pytest.raises(WebSocketDisconnect) as ended:
            ws.receive_json()
    assert ended.value.code == 4403 and "does not answer to the host name" in ended.value.reason
    lives_on(client, game)


def test_a_flood_of_messages_closes_the_connection_and_http_answers_429(client, monkeypatch):
    # The buckets barely refill, so the flood is one however slowly this machine sends it.
    monkeypatch.setattr(websocket, "MESSAGE_RATE", 0.01)
    shared = client.app.state.shared_games
    monkeypatch.setattr(shared, "posting", RateLimits(0.01, EVENT_BURST))
    game = new_game(client)
    hello = {"type": "hello", "code": game["code"], "token": game["seeker_token"], "since": 0}
    flood = [{"type": "ping"}] * (websocket.MESSAGE_BURST + 40)
    got, reason, frames = closed(client, hello, *flood)
    assert got == 1008 and "too many messages" in reason
    assert 0 < sum(f["type"] == "pong" for f in frames) < len(flood)
    statuses = [
        post(client, game["code"], game["seeker_token"], {"id": f"f-{n}", "event": EVENT})[0]
        for n in range(80)
    ]
    assert statuses[0] == 200 and statuses[-1] == 429
    answer = client.post(
        f"/api/shared/games/{game['code']}/events",
        json={"id": "f-x", "event": EVENT},
        headers={"Authorization": f"Bearer {game['seeker_token']}"},
    )
    assert answer.status_code == 429 and answer.headers["Retry-After"] == "1"
    assert "too many events" in answer.json()["error"]
    assert client.get("/api/health").status_code == 200
    # The hider's bucket is its own: the flood of a seeker's phone does not silence it.
    lives_on(client, game)


def test_a_game_takes_a_bounded_number_of_phones(client):
    game = new_game(client)
    client.app.state.shared_games.store.hub.per_game = 2
    hello = {"type": "hello", "code": game["code"], "token": game["seeker_token"], "since": 0}
    with client.websocket_connect(WS) as one, client.websocket_connect(WS) as two:
        for ws in (one, two):
            ws.send_json(hello)
            assert ws.receive_json()["type"] == "welcome"
        got, reason, _ = closed(client, hello)
    assert got == 4429 and "phones connected" in reason


def test_a_crash_in_the_event_check_is_a_500_or_a_1011_and_the_server_goes_on(client):
    game = new_game(client)
    crash = {"id": "c-1", "event": {"event": "check-crashes"}}
    status, body = post(client, game["code"], game["hider_token"], crash)
    assert status == 500 and body == {"error": "internal error in the server; see its log"}
    hello = {"type": "hello", "code": game["code"], "token": game["hider_token"], "since": 0}
    got, reason, frames = closed(client, hello, {"type": "event", **crash})
    assert (got, reason) == (1011, "internal error in the server; see its log")
    assert [f["type"] for f in frames] == ["welcome"]
    lives_on(client, game)
