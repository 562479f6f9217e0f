"""Shared games in tests: the Helsinki example game, its events, and the API calls."""

from __future__ import annotations

import json

from support.serve_support import HELSINKI_GAME

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
