"""The FastAPI application: the page, its assets and the JSON API (OpenAPI at ``/docs``).

Every endpoint runs the services of :mod:`.stations` and :mod:`.games` in FastAPI's
thread pool. A :class:`~stations_generator.errors.UserError` becomes a 4xx answer
``{"error": "<the CLI's one-line message>"}``; any other exception is logged and
answered 500 without taking the server down. Request bodies above ``max_body_bytes``
are refused with 413 before they are read whole; at most ``max_jobs`` builds run at
once, and a request that cannot start one within ``queue_timeout_s`` gets 503.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from stations_generator import __version__
from stations_generator.core.catalogue import load_catalogue
from stations_generator.errors import InputError, NetworkError, NoDataError, OutputError, UserError
from stations_generator.formats.gamefile import QUESTION_TYPES
from stations_generator.pages.folium_map import category_hex
from stations_generator.serve import assets
from stations_generator.serve.games import GameService
from stations_generator.serve.options import describe_options
from stations_generator.serve.stations import DOWNLOADS, ServerConfig, StationMapService

log = logging.getLogger("stations_generator.serve")

#: A drawn play area with thousands of vertices and a game file fit well within this.
MAX_BODY_BYTES = 16 * 1024**2


class Busy(Exception):
    """Too many builds are running; the client should try again."""


def _status(exc: UserError) -> int:
    if isinstance(exc, NetworkError):
        return 502
    if isinstance(exc, NoDataError):
        return 422
    if isinstance(exc, OutputError):
        return 409
    return 400


def create_app(
    config: ServerConfig | None = None,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_jobs: int = 4,
    queue_timeout_s: float = 60.0,
    request_timeout_s: float = 900.0,
) -> FastAPI:
    """The application for one server configuration.

    Parameters
    ----------
    config : ServerConfig
        The OSM files the page may use and the Overpass settings.
    max_body_bytes : int
        Largest request body accepted (413 above).
    max_jobs : int
        Builds running at once (station maps, games); further requests wait.
    queue_timeout_s : float
        How long a request waits for a free build slot before 503.
    request_timeout_s : float
        How long a request may take before it is answered 504 (the work then finishes
        in the background, in its slot, and its result is cached). Overpass and
        Nominatim requests have their own deadline (``--overpass-timeout``).
    """
    config = config or ServerConfig()
    station_maps = StationMapService(config)
    games = GameService(config, station_maps)
    app = FastAPI(
        title="stations-generator",
        version=__version__,
        description="The station map and game API behind `stations-generator serve`. "
        'Errors are 4xx with {"error": message}, the message the CLI prints.',
    )
    app.state.config = config
    app.state.station_maps = station_maps
    app.state.games = games
    _add_body_limit(app, max_body_bytes)
    call = _Runner(max_jobs, queue_timeout_s, request_timeout_s).call
    _add_page_routes(app)
    _add_station_map_routes(app, config, station_maps, call)
    _add_game_routes(app, games, call)
    return app


#: Answers one API request: ``call(request, fn)`` runs ``fn(body)`` (see :class:`_Runner`).
_Call = Callable[[Request, Callable[[Any], Any]], Awaitable[Response]]


def _add_body_limit(app: FastAPI, max_body_bytes: int) -> None:
    """The middleware: 413 above ``max_body_bytes``, 500 on a crash, ``Server-Timing``."""

    @app.middleware("http")
    async def cap_body(request: Request, call_next):
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > max_body_bytes):
            return _error(413, f"the request body is larger than {_size(max_body_bytes)}")
        if request.method == "POST" and length is None:
            body = b""
            async for chunk in request.stream():
                body += chunk
                if len(body) > max_body_bytes:
                    return _error(413, f"the request body is larger than {_size(max_body_bytes)}")
            request._body = body  # noqa: SLF001 - the stream is consumed; keep what was read
        start = time.perf_counter()
        try:
            response = await call_next(request)
        except Exception:  # noqa: BLE001 - one request's crash never ends the server
            log.exception("request %s %s failed", request.method, request.url.path)
            return _error(500, "internal error in the server; see its log")
        # The time the server spent, for the page's status and bench/bench_serve.py.
        response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - start) * 1000:.1f}"
        return response


async def _json(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"the request body is not JSON: {exc}") from None


class _Runner:
    """Runs API work in the thread pool, at most ``max_jobs`` at once, and answers it."""

    def __init__(self, max_jobs: int, queue_timeout_s: float, request_timeout_s: float) -> None:
        self.slots = threading.BoundedSemaphore(max_jobs)
        self.queue_timeout_s = queue_timeout_s
        self.request_timeout_s = request_timeout_s

    def run(self, work: Callable[[], Any]) -> Any:
        if not self.slots.acquire(timeout=self.queue_timeout_s):
            raise Busy()
        try:
            return work()
        finally:
            self.slots.release()

    async def call(self, request: Request, fn: Callable[[Any], Any]) -> Response:
        """``fn(body)`` as a response: JSON, or a 4xx/5xx ``{"error": ...}``."""
        try:
            body = await _json(request)
            result = await asyncio.wait_for(
                run_in_threadpool(self.run, lambda: fn(body)), timeout=self.request_timeout_s
            )
        except TimeoutError:
            return _error(
                504,
                f"the work took longer than {self.request_timeout_s:g} s; it goes on in the "
                "background: try again in a while, or use a smaller area or an extract",
            )
        except UserError as exc:
            return _error(_status(exc), str(exc))
        except Busy:
            return _error(503, "the server is busy; try again in a moment")
        if isinstance(result, Response):
            return result
        return JSONResponse(result)


def _add_page_routes(app: FastAPI) -> None:
    """The page and its assets (not in the OpenAPI document)."""

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        return HTMLResponse(assets.page(), headers={"Cache-Control": "no-cache"})

    @app.get("/assets/{name:path}", include_in_schema=False)
    def asset(name: str) -> Response:
        found = assets.asset(name)
        if found is None:
            return _error(404, f"no asset {name!r}")
        data, media = found
        return Response(data, media_type=media, headers={"Cache-Control": "max-age=3600"})


def _add_station_map_routes(
    app: FastAPI, config: ServerConfig, station_maps: StationMapService, call: _Call
) -> None:
    """Health, the page's configuration and the station-map API."""

    @app.get("/api/health")
    def health() -> dict:
        """Liveness: the version."""
        return {"ok": True, "version": __version__}

    @app.get("/api/config")
    def api_config() -> dict:
        """The page's choices: OSM/water files, generate options (CLI defaults and help),
        station categories, question types and subjects."""
        catalogue = load_catalogue()
        return {
            "version": __version__,
            "osm_files": [p.name for p in config.osm_files],
            "water_files": [p.name for p in config.water_files],
            "other_files": [p.name for p in config.other_files],
            "online": config.online,
            "max_online_km2": config.max_online_km2,
            "options": describe_options(),
            "categories": list(catalogue.station_names),
            "subjects": list(catalogue.subjects),
            "question_types": list(QUESTION_TYPES),
            "downloads": list(DOWNLOADS),
            "colours": {c: category_hex(c) for c in catalogue.station_names},
        }

    @app.post("/api/stationmap")
    async def api_stationmap(request: Request) -> Response:
        """Build a station map: ``{play_area | osm_relation | place, name?, exclusions?, osm?,
        water?, settings?}`` → the summary lines, counts, the stations GeoJSON (as
        ``generate`` writes it) and the rejected candidates."""
        return await call(request, lambda body: station_maps.build(body).summary())

    @app.get("/api/progress/{pid}")
    def api_progress(pid: str) -> dict:
        """The latest progress line (Overpass/Nominatim waits) of the station-map request
        that was sent with ``progress_id`` = ``pid`` (null when there is none yet)."""
        return {"message": station_maps.progress.get(pid)}

    @app.post("/api/stationmap/file/{name}")
    async def api_stationmap_file(name: str, request: Request) -> Response:
        """One of ``generate``'s files for the same body, byte-identical to the CLI's."""
        if name not in DOWNLOADS:
            return _error(404, f"no download {name!r}; choose one of: " + ", ".join(DOWNLOADS))

        def work(body):
            text = station_maps.build(body).file(name)
            return Response(
                text.encode("utf-8"),
                media_type=DOWNLOADS[name],
                headers={"Content-Disposition": f'attachment; filename="{name}"'},
            )

        return await call(request, work)


def _add_game_routes(app: FastAPI, games: GameService, call: _Call) -> None:
    """The game API: the ``questions`` and ``zones`` commands on a game file."""

    @app.post("/api/game/apply")
    async def api_game_apply(request: Request) -> Response:
        """``questions apply``: ``{game, name?, osm?}`` → remaining area, zones, summary, costs."""
        return await call(request, games.apply)

    @app.post("/api/game/answer")
    async def api_game_answer(request: Request) -> Response:
        """``questions answer --json``: ``{game, hider: "LAT,LON", station?}``."""
        return await call(request, games.answer)

    @app.post("/api/game/check")
    async def api_game_check(request: Request) -> Response:
        """``zones check --json``: ``{game, station | at}``."""
        return await call(request, games.check)

    @app.post("/api/game/cost")
    async def api_game_cost(request: Request) -> Response:
        """``questions cost --json``: ``{game}``."""
        return await call(request, games.cost)

    @app.post("/api/game/share")
    async def api_game_share(request: Request) -> Response:
        """A taibeled state and ``?hzc=`` share link: ``{game, base_url?}``."""
        return await call(request, games.share)

    @app.post("/api/game/parse")
    async def api_game_parse(request: Request) -> Response:
        """Read a game file's text (JSON, taibeled state, share link) into its JSON."""

        def work(body):
            if not isinstance(body, dict) or "game" not in body:
                raise InputError("give game: the text of a game file")
            return {"game": games.parse(body["game"], body.get("name", "game.json"))}

        return await call(request, work)


def _size(n: int) -> str:
    return f"{n / 1024**2:g} MiB" if n >= 1024**2 else f"{n:,} bytes"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)
