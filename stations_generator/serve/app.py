"""The FastAPI application: the page, its assets and the JSON API (OpenAPI at ``/docs``).

The API's work (the services of :mod:`.stations` and :mod:`.games`) runs on the build
queue of :mod:`.jobs`, apart from the thread pool that answers the page and
``/api/health``. A :class:`~stations_generator.errors.UserError` becomes a 4xx answer
``{"error": "<the CLI's one-line message>"}``; any other exception is logged and
answered 500 without taking the server down. :mod:`.security` refuses foreign hosts,
origins and content types first. Request bodies above ``max_body_bytes`` are refused
with 413 before they are read whole and are read by the project's JSON reader
(:mod:`~stations_generator.formats.jsonio`); at most ``max_jobs`` builds run at once and
``max_queue`` wait; beyond, and for a request that cannot start within
``queue_timeout_s``, the answer is 503 with Retry-After.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import shutil
import tempfile
import time
from asyncio import FIRST_COMPLETED as FIRST
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from stations_generator import __version__
from stations_generator.core.catalogue import load_catalogue
from stations_generator.core.questions.legal import THERMOMETER_DISTANCES_M
from stations_generator.errors import InputError, NetworkError, NoDataError, OutputError, UserError
from stations_generator.formats import jsonio
from stations_generator.formats.gamefile import QUESTION_TYPES
from stations_generator.pages.folium_map import category_hex
from stations_generator.serve import assets, timetable
from stations_generator.serve.games import GameService
from stations_generator.serve.jobs import Busy, Jobs
from stations_generator.serve.options import describe_options
from stations_generator.serve.referee import (
    MAX_LOG_BYTES,
    RefereeService,
    check_shared_event,
    referee_header,
)
from stations_generator.serve.security import Guard, allowed_hosts
from stations_generator.serve.shared import routes as shared_routes
from stations_generator.serve.shared.database import DATABASE_NAME, open_store
from stations_generator.serve.shared.model import EventCheck, Refused, basic_event_check
from stations_generator.serve.shared.service import GameRules, SharedGames
from stations_generator.serve.shared.store import GameStore
from stations_generator.serve.stations import (
    DOWNLOADS,
    MAPS_CACHED,
    ServerConfig,
    StationMapService,
)

log = logging.getLogger("stations_generator.serve")

#: A drawn play area with thousands of vertices and a game file fit well within this.
MAX_BODY_BYTES = 16 * 1024**2
#: Builds that may wait for a worker (a waiting request holds no thread, only its body):
#: the 20 concurrent requests of tests/serve/test_serve_load.py fit with 4 workers, and
#: 16 long builds (~10 s each on a large extract) drain within QUEUE_TIMEOUT_S.
MAX_QUEUE = 16
#: How long a build may wait in line before its request is answered 503.
QUEUE_TIMEOUT_S = 120.0
#: The Retry-After of a 503 (a Sioux Falls map takes ~1 s; a large extract ~10 s).
RETRY_AFTER_S = 10


def _status(exc: UserError) -> int:
    if isinstance(exc, NetworkError):
        return 502
    if isinstance(exc, NoDataError):
        return 422
    if isinstance(exc, OutputError):
        return 409
    return 400


def _kept_map(store: GameStore, key: str) -> str | None:
    """A station map kept in the game store; a store that cannot answer is a 502."""
    try:
        return store.kept_map(key)
    except Refused as exc:
        raise NetworkError(exc.message) from None


def create_app(
    config: ServerConfig | None = None,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_jobs: int = 4,
    max_queue: int = MAX_QUEUE,
    queue_timeout_s: float = QUEUE_TIMEOUT_S,
    request_timeout_s: float = 900.0,
    hosts: Sequence[str] | None = None,
    any_ip_host: bool = False,
    temp_dir: Path | None = None,
    maps_cached: int = MAPS_CACHED,
    database: str | Path | GameStore | None = None,
    check_event: EventCheck | None = None,
) -> FastAPI:
    """The application for one server configuration.

    Parameters
    ----------
    config : ServerConfig
        The OSM files and GTFS feeds the page may use and the Overpass settings.
    max_body_bytes : int
        Largest request body accepted (413 above).
    max_jobs : int
        Builds running at once (station maps, games), in threads of their own.
    max_queue : int
        Builds waiting for one of those; beyond, a request is answered 503 at once.
    queue_timeout_s : float
        How long a request waits for a free build slot before 503.
    request_timeout_s : float
        How long a request may take before it is answered 504 (the work then finishes
        in the background, in its slot, and its result is cached). Overpass and
        Nominatim requests have their own deadline (``--overpass-timeout``).
    hosts : sequence of str, optional
        Host names the server answers to [default: ``security.allowed_hosts()``, the
        loopback names].
    any_ip_host : bool
        Also answer to any IP address as the host (the server listens on every address).
    temp_dir : Path, optional
        The server's own temporary folder (station maps a game names, uploaded play-area
        files); removed when the app shuts down [default: a new one].
    maps_cached : int
        Station maps kept in memory (and their files in ``temp_dir``).
    database : str, Path or GameStore, optional
        The shared games' store: a SQLite file, a ``postgresql://`` URL or an open store
        (closed with the app) [default: a SQLite file in ``temp_dir``, gone with it;
        ``serve`` gives a lasting one].
    check_event : callable, optional
        ``check(event, role)`` of a shared game's event, raising ValueError to refuse it
        [default: any event kind from either role].
    """
    config = config or ServerConfig()
    owned = temp_dir is None
    temp_dir = Path(tempfile.mkdtemp(prefix="stations-generator-serve-")) if owned else temp_dir
    station_maps = StationMapService(config, temp_dir, maps_cached)
    games = GameService(config, station_maps)
    referee = RefereeService()
    runner = _Runner(Jobs(max_jobs, max_queue), queue_timeout_s, request_timeout_s)
    if isinstance(database, GameStore):
        store = database
    else:
        store = open_store(temp_dir / DATABASE_NAME if database is None else database)
    rules = GameRules(referee_header, check_shared_event)  # games with settings.referee
    # A game started from a station map built on the page keeps that map in the store.
    shared = SharedGames(store, check_event or basic_event_check, rules, station_maps.stations_text)
    station_maps.kept = lambda key: _kept_map(store, key)

    def close() -> None:
        runner.jobs.close()
        store.close()
        if owned:
            shutil.rmtree(temp_dir, ignore_errors=True)

    if owned:  # also when the app is never started or stopped (an in-process client)
        atexit.register(shutil.rmtree, temp_dir, ignore_errors=True)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        runner.stopping = False
        runner.jobs.reopen()  # an app may be started again (an in-process client)
        temp_dir.mkdir(parents=True, exist_ok=True)
        store.open()
        yield
        close()

    app = FastAPI(
        title="stations-generator",
        version=__version__,
        description="The station map and game API behind `stations-generator serve`. "
        'Errors are 4xx with {"error": message}, the message the CLI prints. POST '
        "bodies are application/json, sent by the page itself or without an Origin.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.config = config
    app.state.station_maps = station_maps
    app.state.games = games
    app.state.referee = referee
    app.state.shared_games = shared
    app.state.jobs = runner.jobs
    app.state.temp_dir = temp_dir
    app.state.close = close
    app.state.stop = runner.stop
    _add_body_limit(app, max_body_bytes)
    _add_page_routes(app)
    _add_station_map_routes(app, config, station_maps, runner.call)
    _add_game_routes(app, games, runner.call)
    _add_referee_routes(app, referee, runner.call)
    timetable.mount(app, config, runner.call)  # reads the --gtfs feeds (app.state.timetables)
    hosts = allowed_hosts() if hosts is None else hosts
    shared_routes.mount(app, shared, hosts, any_ip_host)
    # Outermost: refuses foreign hosts, origins and content types before anything runs,
    # and adds the security headers to every answer.
    app.add_middleware(Guard, hosts=hosts, any_ip=any_ip_host)
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


def _parse_body(raw: bytes) -> Any:
    """The body as JSON, read by the project's reader (bounded depth, finite numbers)."""
    if not raw.strip():
        return None
    text = jsonio.decode_text(raw, "the request body", "send it as UTF-8")
    return jsonio.loads(text, "the request body", "JSON")


class _Runner:
    """Runs API work on the build queue and answers it (the request waits on the loop)."""

    def __init__(self, jobs: Jobs, queue_timeout_s: float, request_timeout_s: float) -> None:
        self.jobs = jobs
        self.queue_timeout_s = queue_timeout_s
        self.request_timeout_s = request_timeout_s
        self.stopping = False
        self._waiting: set[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = set()

    def stop(self) -> None:
        """The server is stopping: refuse new work and answer the waiting requests now
        (503), so that their connections close without being cancelled. Thread-safe."""
        self.stopping = True
        for loop, signal_ in list(self._waiting):
            loop.call_soon_threadsafe(lambda s=signal_: s.done() or s.set_result(None))

    async def _result(self, work: Callable[[], Any]) -> Any:
        """``work()``'s result, run on the build queue (Busy, TimeoutError as the API's)."""
        if self.stopping:
            raise Busy()
        future = self.jobs.submit(work)
        waiting = asyncio.wrap_future(future)
        waiting.add_done_callback(lambda f: f.cancelled() or f.exception())  # never unread
        loop = asyncio.get_running_loop()
        stop = loop.create_future()
        entry = (loop, stop)
        self._waiting.add(entry)
        start = loop.time()
        try:
            first = min(self.queue_timeout_s, self.request_timeout_s)
            done, _ = await asyncio.wait({waiting, stop}, timeout=first, return_when=FIRST)
            if stop in done or (not done and future.cancel()):  # it never starts
                future.cancel()
                if stop in done or self.queue_timeout_s <= self.request_timeout_s:
                    raise Busy()
                raise TimeoutError()
            # Started: it finishes (and is cached) even if this request gives up.
            left = self.request_timeout_s - (loop.time() - start)
            done, _ = await asyncio.wait({waiting, stop}, timeout=max(0.0, left), return_when=FIRST)
        except asyncio.CancelledError:  # the client left
            future.cancel()
            raise
        finally:
            self._waiting.discard(entry)
        if waiting not in done:
            raise Busy() if stop in done else TimeoutError()
        return waiting.result()

    async def call(
        self, request: Request, fn: Callable[[Any], Any], *, light: bool = False
    ) -> Response:
        """``fn(body)`` as a response: JSON, or a 4xx/5xx ``{"error": ...}``.

        ``light`` work (bounded and quick, e.g. a referee replay) runs on the thread pool
        that answers the page, not on the build queue: a long build never makes it wait.
        """
        try:
            body = await run_in_threadpool(_parse_body, await request.body())
            if light:
                result = await run_in_threadpool(fn, body)
            else:
                result = await self._result(lambda: fn(body))
        except TimeoutError:
            return _error(
                504,
                f"the work took longer than {self.request_timeout_s:g} s; it goes on in the "
                "background: try again in a while, or use a smaller area or an extract",
            )
        except UserError as exc:
            return _error(_status(exc), str(exc))
        except Busy:
            message = (
                "the server is stopping; try again when it is back"
                if self.stopping
                else "the server is busy with other maps; try again in a moment"
            )
            response = _error(503, message)
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
            return response
        if isinstance(result, Response):
            return result
        return JSONResponse(result)


def _add_page_routes(app: FastAPI) -> None:
    """The page, its assets and the API docs (not in the OpenAPI document)."""

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(assets.page(), headers={"Cache-Control": "no-cache"})

    @app.get("/assets/{name:path}", include_in_schema=False)
    async def asset(name: str) -> Response:
        found = assets.asset(name)
        if found is None:
            return _error(404, f"no asset {name[:100]!r}")
        data, media = found
        return Response(data, media_type=media, headers={"Cache-Control": "max-age=3600"})

    @app.get("/manifest.webmanifest", include_in_schema=False)
    async def manifest() -> Response:
        return Response(assets.manifest(), media_type=assets.MANIFEST_TYPE)

    # At the root, so its scope is the whole page; no-cache: a new release is seen at once.
    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        headers = {"Cache-Control": "no-cache", "Content-Security-Policy": assets.WORKER_CSP}
        return Response(assets.service_worker(), media_type="text/javascript", headers=headers)

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return assets.docs_page(app.openapi_url or "/openapi.json", app.title)


def _add_station_map_routes(
    app: FastAPI, config: ServerConfig, station_maps: StationMapService, call: _Call
) -> None:
    """Health, the page's configuration and the station-map API."""

    @app.get("/api/health")
    async def health() -> dict:
        """Liveness: the version."""
        return {"ok": True, "version": __version__}

    @app.get("/api/config")
    def api_config() -> dict:
        """The page's choices: OSM/water files, generate options (CLI defaults and help),
        station categories, question types and subjects, thermometer distances."""
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
            # The thermometer's legal distances by game size (the page snaps a drag to them).
            "thermometer_distances_m": {k: list(v) for k, v in THERMOMETER_DISTANCES_M.items()},
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
            return _error(
                404, f"no download {name[:100]!r}; choose one of: " + ", ".join(DOWNLOADS)
            )

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


def _add_referee_routes(
    app: FastAPI, referee: RefereeService, call: Callable[..., Awaitable[Response]]
) -> None:
    """The referee API on a game log the page keeps and sends whole (see :mod:`.referee`)."""

    async def answer(request: Request, fn: Callable[[Any], Any]) -> Response:
        # A log is far smaller than the page's other bodies (play areas): its own cap.
        if len(await request.body()) > MAX_LOG_BYTES:
            return _error(413, f"the request body is larger than {_size(MAX_LOG_BYTES)}")
        # A replay of at most MAX_EVENTS events (~0.2 s): never behind a station-map build.
        return await call(request, fn, light=True)

    @app.get("/api/referee/cards")
    def api_referee_cards() -> dict:
        """The shipped card deck (jltg-eu): ids, names, kinds, counts; its setups."""
        return referee.cards()

    @app.post("/api/referee/start")
    async def api_referee_start(request: Request) -> Response:
        """``referee start``: ``{size, rules?, setup?, hand?, max_hours?}`` → ``{log, state}``."""
        return await answer(request, referee.start)

    @app.post("/api/referee/record")
    async def api_referee_record(request: Request) -> Response:
        """``referee record``: ``{log, event}`` → ``{log, state}``, or 400 naming the rule."""
        return await answer(request, referee.record)

    @app.post("/api/referee/state")
    async def api_referee_state(request: Request) -> Response:
        """``referee state --json``: ``{log, at?}`` → the state (clock, costs, cards, …)."""
        return await answer(request, referee.state)


def _size(n: int) -> str:
    return f"{n / 1024**2:g} MiB" if n >= 1024**2 else f"{n:,} bytes"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)
