"""The shared-game HTTP API, mounted by ``serve/app.py`` behind its security guard.

* ``POST /api/shared/games`` ``{game, settings?}`` -> 201 ``{code, seeker_token,
  hider_token, links}``.
* ``POST /api/shared/join`` ``{code, token}`` -> ``{code, role, last, game, settings}``.
* ``POST /api/shared/games/{code}/events`` ``{id, event}`` with ``Authorization: Bearer
  TOKEN`` -> ``{seq, id, duplicate}``.
* ``GET /api/shared/games/{code}/events?since=N&limit=M`` with the same header ->
  ``{code, role, last, events}``.
* ``/api/shared/ws``: the live connection (:mod:`.websocket`).

A refusal is ``{"error": "<one line>"}`` with its 4xx status (429 and 503 with
Retry-After). A seeker's answers never hold the hider's position (:mod:`.model`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from stations_generator.errors import InputError
from stations_generator.formats import jsonio
from stations_generator.serve.shared import websocket
from stations_generator.serve.shared.model import MAX_EVENT_BYTES, MAX_GAME_BYTES, Refused
from stations_generator.serve.shared.service import SharedGames

#: Request bodies: a game with its settings; one event with its envelope.
MAX_CREATE_BYTES = MAX_GAME_BYTES + 128 * 1024
MAX_POST_BYTES = MAX_EVENT_BYTES + 1024
MAX_JOIN_BYTES = 1024


def refusal(exc: Refused) -> JSONResponse:
    """The HTTP answer of a refusal."""
    response = JSONResponse({"error": exc.message}, status_code=exc.status)
    if exc.status in (429, 503):
        response.headers["Retry-After"] = "1"
    return response


async def _body(request: Request, limit: int) -> Any:
    raw = await request.body()
    if len(raw) > limit:
        raise Refused(413, f"the request body is larger than the {limit:,} bytes accepted here")
    try:
        text = jsonio.decode_text(raw, "the request body", "send it as UTF-8")
        return jsonio.loads(text, "the request body", "JSON") if text.strip() else None
    except InputError as exc:
        raise Refused(400, str(exc)) from None


def _token(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused(401, "send the game's token as the header Authorization: Bearer TOKEN")
    return token.strip()


async def _answer(work: Callable[[], Any], status: int = 200) -> Response:
    try:
        return JSONResponse(await work(), status_code=status)
    except Refused as exc:
        return refusal(exc)


def mount(app: FastAPI, games: SharedGames, hosts: Any, any_ip: bool) -> None:
    """Add the shared-game routes (and the WebSocket) to ``app``.

    Parameters
    ----------
    app : FastAPI
    games : SharedGames
        The service.
    hosts : iterable of str
        The host names the server answers to (the WebSocket checks them itself: the
        HTTP guard sees only HTTP requests).
    any_ip : bool
        Also accept any IP address as the host.
    """

    @app.post("/api/shared/games", status_code=201)
    async def shared_create(request: Request) -> Response:
        """Create a shared game: ``{game: GAME.json, settings?}`` -> its join code and the
        seeker's and hider's tokens (and links carrying them)."""

        async def work():
            body = await _body(request, MAX_CREATE_BYTES)
            return await run_in_threadpool(games.create, body)

        return await _answer(work, 201)

    @app.post("/api/shared/join")
    async def shared_join(request: Request) -> Response:
        """``{code, token}`` -> the role the token opens, the game and the last event's number."""

        async def work():
            body = await _body(request, MAX_JOIN_BYTES)
            if not isinstance(body, dict):
                raise Refused(400, 'send {"code": JOIN CODE, "token": TOKEN}')
            return await run_in_threadpool(games.join, body.get("code"), body.get("token"))

        return await _answer(work)

    @app.post("/api/shared/games/{code}/events")
    async def shared_post(code: str, request: Request) -> Response:
        """Add an event ``{id, event}`` (Authorization: Bearer TOKEN); an id sent again
        gives the stored event's number (``duplicate``: true)."""

        async def work():
            token = _token(request)
            body = await _body(request, MAX_POST_BYTES)
            canonical, role = await run_in_threadpool(games.store.role, code, token)
            return await run_in_threadpool(games.post, canonical, role, body)

        return await _answer(work)

    @app.get("/api/shared/games/{code}/events")
    async def shared_read(
        code: str, request: Request, since: str = "0", limit: str = "500"
    ) -> Response:
        """The events after number ``since`` (Authorization: Bearer TOKEN), as the token's
        role may see them."""

        async def work():
            token = _token(request)
            canonical, role = await run_in_threadpool(games.store.role, code, token)
            return await run_in_threadpool(games.read, canonical, role, since, limit)

        return await _answer(work)

    websocket.mount(app, games, hosts, any_ip)
