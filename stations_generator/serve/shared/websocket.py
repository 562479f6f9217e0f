"""The live connection of a shared game: the WebSocket ``/api/shared/ws``.

Every message is a JSON object in a text frame. The phone speaks first::

    -> {"type": "hello", "code": "ABC234", "token": TOKEN, "since": 12}
    <- {"type": "welcome", "code": "ABC234", "role": "seeker", "last": 15}
    <- {"type": "event", "seq": 13, "id": …, "role": …, "received": …, "event": {…}}  (13-15)
    -> {"type": "event", "id": "p1-0042", "event": {"event": "question-asked", …}}
    <- {"type": "ack", "seq": 16, "id": "p1-0042", "duplicate": false}
    <- {"type": "event", "seq": 16, …}          (to every phone of the game, this one too)
    -> {"type": "ping"}    <- {"type": "pong"}

``since`` is the number of the last event the phone has (0 for none): it first gets those
it missed, then every new one as soon as it is stored (the store wakes the connection; no
polling). A refused event is answered ``{"type": "error", "id", "status", "error"}`` and
the connection stays. The connection is closed, with a reason, for: a host or origin
this server does not serve (4403); no hello within :data:`HELLO_TIMEOUT_S` (4408); a
wrong token, an unknown game or another game's token (4403, one message for all three);
a ``since`` beyond the game's last event (4409); too many phones in the game (4429); a
binary frame (1003); a frame that is not a JSON object (1007); a frame over
:data:`MAX_MESSAGE_BYTES` (1009); more than :data:`MESSAGE_RATE` messages a second on
average (1008); a database that stopped answering (1011).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import anyio
from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from stations_generator.errors import InputError
from stations_generator.formats import jsonio
from stations_generator.serve.security import Guard
from stations_generator.serve.shared.model import MAX_EVENT_BYTES, RateLimit, Refused
from stations_generator.serve.shared.service import SharedGames, whole
from stations_generator.serve.shared.store import READ_BATCH, Subscription

log = logging.getLogger("stations_generator.serve")

#: Seconds a new connection has to say hello.
HELLO_TIMEOUT_S = 10.0
#: The largest message: one event and its envelope.
MAX_MESSAGE_BYTES = MAX_EVENT_BYTES + 1024
#: Messages one connection may send a second on average, and at once (a phone back
#: online sends what it did offline in a burst).
MESSAGE_RATE = 20.0
MESSAGE_BURST = 60
#: A close reason is at most 123 bytes (RFC 6455, 5.5: 125-byte control frames).
MAX_REASON_BYTES = 123


class Close(Exception):
    """End the connection with a close code and reason."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _closing(exc: Refused) -> Close:
    return Close(1011 if exc.status == 503 else exc.close_code, exc.message)


def _short(reason: str) -> str:
    data = reason.encode("utf-8")
    if len(data) <= MAX_REASON_BYTES:
        return reason
    return data[: MAX_REASON_BYTES - 3].decode("utf-8", "ignore") + "..."


def foreign(scope: dict, guard: Guard) -> str | None:
    """Why this connection's Host or Origin is refused, or None (as the HTTP guard)."""
    refused = guard.refusal({"headers": scope["headers"], "method": "GET"})
    if refused is not None:
        return json.loads(refused["body"])["error"]
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    origin = headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin)
        if (
            parts.scheme not in ("http", "https")
            or parts.netloc.lower() != headers.get("host", "").lower()
        ):
            return f"connections from another site ({origin[:60]}) are refused"
    return None


async def receive(ws: WebSocket) -> dict[str, Any]:
    """The next message as a JSON object (Close for anything else)."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise Close(1003, "send JSON text messages, not binary ones")
    if len(text) > MAX_MESSAGE_BYTES or len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
        raise Close(1009, f"a message is larger than the {MAX_MESSAGE_BYTES:,} bytes accepted")
    try:
        data = jsonio.loads(text, "the message", "JSON")
    except InputError as exc:
        raise Close(1007, str(exc)) from None
    if not isinstance(data, dict):
        raise Close(1007, "send each message as a JSON object")
    return data


class Connection:
    """One phone's connection, once it has said hello: pushes events, reads messages."""

    def __init__(self, ws: WebSocket, games: SharedGames, code: str, role: str) -> None:
        self.ws = ws
        self.games = games
        self.code = code
        self.role = role
        self.sending = asyncio.Lock()
        self.rate = RateLimit(MESSAGE_RATE, MESSAGE_BURST)

    async def send(self, data: dict[str, Any]) -> None:
        """Send one message (the pushing and reading sides take turns)."""
        async with self.sending:
            await self.ws.send_json(data)

    async def push(self, sub: Subscription, since: int) -> None:
        """Send the events after ``since``, then each new one when the store wakes us."""
        last = since
        while True:
            while True:
                try:
                    events = await run_in_threadpool(self.games.store.since, self.code, last)
                except Refused as exc:
                    raise _closing(exc) from None
                for event in events:
                    await self.send({"type": "event", **event.view(self.role)})
                    last = event.seq
                if len(events) < READ_BATCH:
                    break
            await sub.wait()

    async def read(self) -> None:
        """Answer the phone's messages until it leaves (or is closed)."""
        while True:
            message = await receive(self.ws)
            if not self.rate.allow():
                raise Close(1008, f"too many messages: at most {MESSAGE_RATE:g} a second")
            kind = message.get("type")
            if kind == "event":
                try:
                    done = await run_in_threadpool(self.games.post, self.code, self.role, message)
                    reply = {"type": "ack", **done}
                except Refused as exc:
                    given = message.get("id")
                    reply = {
                        "type": "error",
                        "id": given if isinstance(given, str) and len(given) <= 64 else None,
                        "status": exc.status,
                        "error": exc.message,
                    }
            elif kind == "ping":
                reply = {"type": "pong"}
            else:
                reply = {
                    "type": "error",
                    "id": None,
                    "status": 400,
                    "error": "unknown message type; send event or ping",
                }
            await self.send(reply)


async def _first(*steps: Callable[[], Awaitable[None]]) -> None:
    """Run the steps until one ends; cancel the others; raise what that one raised."""
    try:
        async with anyio.create_task_group() as group:

            async def run(step: Callable[[], Awaitable[None]]) -> None:
                await step()
                group.cancel_scope.cancel()

            for step in steps:
                group.start_soon(run, step)
    except BaseExceptionGroup as failed:
        first = failed.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


async def _session(ws: WebSocket, games: SharedGames, guard: Guard) -> None:
    refused = foreign(ws.scope, guard)
    if refused is not None:
        raise Close(4403, refused)
    try:
        with anyio.fail_after(HELLO_TIMEOUT_S):
            hello = await receive(ws)
    except TimeoutError:
        raise Close(4408, f"no hello within {HELLO_TIMEOUT_S:g} s") from None
    if hello.get("type") != "hello":
        raise Close(4400, 'send {"type": "hello", "code", "token", "since"} first')
    try:
        since = whole(hello.get("since", 0), "since", 0)
        code, role = await run_in_threadpool(
            games.store.role, hello.get("code"), hello.get("token")
        )
        sub = games.store.hub.subscribe(code)
    except Refused as exc:
        raise _closing(exc) from None
    try:
        try:
            last = await run_in_threadpool(games.store.last, code)
        except Refused as exc:
            raise _closing(exc) from None
        if since > last:
            raise Close(4409, f"game {code} has {last} events, not {since}: join again from 0")
        connection = Connection(ws, games, code, role)
        await connection.send({"type": "welcome", "code": code, "role": role, "last": last})
        await _first(lambda: connection.push(sub, since), connection.read)
    finally:
        sub.close()


def mount(app: FastAPI, games: SharedGames, hosts: Any, any_ip: bool) -> None:
    """Add ``/api/shared/ws`` to ``app`` (see the module docstring)."""
    guard = Guard(None, hosts, any_ip)

    @app.websocket("/api/shared/ws")
    async def shared_ws(ws: WebSocket) -> None:
        await ws.accept()
        try:
            await _session(ws, games, guard)
        except Close as close:
            with contextlib.suppress(RuntimeError, OSError, WebSocketDisconnect):
                await ws.close(close.code, _short(close.reason))  # unless the phone left first
        except (OSError, WebSocketDisconnect):
            pass  # the phone left (or its network did)
        except Exception:  # noqa: BLE001 - one connection's crash never ends the server
            log.exception("shared game connection failed")
            with contextlib.suppress(RuntimeError, OSError, WebSocketDisconnect):
                await ws.close(1011, "internal error in the server; see its log")
