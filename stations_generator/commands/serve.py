"""``serve``: the organiser's web page on a local server (see :mod:`stations_generator.serve`)."""

from __future__ import annotations

import os
import signal
import socket
import sys
import tempfile
from pathlib import Path

import click

from stations_generator.commands.console import Console
from stations_generator.commands.options import CONTEXT, FiniteFloat, overpass_options
from stations_generator.errors import InputError

#: Seconds the requests in flight get to finish when the server is told to stop.
GRACE_S = 2
#: The largest WebSocket message uvicorn reads (the app's own limit is lower).
WS_MAX_BYTES = 1024**2


def _files(paths, flag: str) -> tuple[Path, ...]:
    out = []
    names: dict[str, Path] = {}
    for p in paths:
        p = Path(p)
        if not p.is_file():
            raise InputError(f"{flag} {p}: no such file; check the path")
        if p.name in names and names[p.name].resolve() != p.resolve():
            raise InputError(
                f"{flag} {p}: another file given is also called {p.name!r}; the page names "
                "files by their name, so rename one"
            )
        names[p.name] = p
        out.append(p.resolve())
    return tuple(dict.fromkeys(out))


def _feeds(paths) -> tuple[Path, ...]:
    """``--gtfs``: feeds (a .zip or a folder), named apart by their names like ``_files``."""
    out: dict[str, Path] = {}
    for p in map(Path, paths):
        if not p.exists():
            raise InputError(f"--gtfs {p}: no such feed; give a GTFS .zip or folder")
        if p.name in out and out[p.name] != p.resolve():
            raise InputError(
                f"--gtfs {p}: another feed given is also called {p.name!r}; the page names "
                "feeds by their name, so rename one"
            )
        out[p.name] = p.resolve()
    return tuple(out.values())


@click.command("serve", context_settings=CONTEXT)
@click.option(
    "--osm",
    "osm_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="OSM extract or saved Overpass JSON the page may use for stations and games (repeatable).",
)
@click.option(
    "--water",
    "water_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Water areas (Overpass JSON out geom, or an extract) the page may subtract (repeatable).",
)
@click.option(
    "--file",
    "other_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Play areas and stations.geojson files a loaded game may name (repeatable).",
)
@click.option(
    "--gtfs",
    "gtfs_feeds",
    multiple=True,
    type=click.Path(path_type=Path),
    help="GTFS feed (.zip or folder) the page may show timetable reach on: where the hider "
    "can be by when (repeatable; read at start).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on (0 = any free port).",
)
@click.option(
    "--allowed-host",
    "extra_hosts",
    multiple=True,
    metavar="NAME",
    help="Another host name the page may be opened as, e.g. the machine's name on the LAN "
    "(repeatable; localhost, 127.0.0.1, ::1 and --host are always allowed).",
)
@click.option(
    "--database",
    metavar="URL",
    help="Where shared games are kept: a SQLite file (one serve process) or a PostgreSQL "
    "URL (several processes or machines), e.g. --database games.sqlite3 or --database "
    "postgresql://USER:PASSWORD@HOST/NAME [default: games.sqlite3 in the user data folder].",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the web browser.")
@click.option("--offline", is_flag=True, help="Never fetch from Overpass or Nominatim.")
@click.option(
    "--max-online-km2",
    type=FiniteFloat(min=1, max=1e8),
    default=20000.0,
    show_default=True,
    help="Largest play area fetched online with one Overpass query, in km².",
)
@overpass_options(
    url_help="Overpass endpoint (repeatable; tried in order; env STATIONS_GENERATOR_OVERPASS_URL).",
    timeout_help="Deadline in seconds for each Overpass / Nominatim request.",
    cache_help="Overpass cache folder [default: the user cache dir; env STATIONS_GENERATOR_CACHE_DIR].",
    no_cache_help="Neither read nor write the Overpass cache.",
)
@click.pass_obj
def serve(
    console: Console,
    osm_files,
    water_files,
    other_files,
    gtfs_feeds,
    host: str,
    port: int,
    extra_hosts: tuple[str, ...],
    database: str | None,
    open_browser: bool,
    offline: bool,
    max_online_km2: float,
    overpass_urls,
    overpass_timeout: float,
    cache_dir,
    no_cache: bool,
) -> None:
    """Serve the organiser's web page: draw a play area, get the station map, run the game.

    Binds to 127.0.0.1 unless --host says otherwise and prints the address. The JSON
    API the page uses is documented at /docs on the same address.

    \b
    Example (the bundled Sioux Falls and Helsinki data, offline):
      stations-generator serve --osm examples/sioux-falls/pois.json \\
        --water examples/sioux-falls/water.json \\
        --osm tests/data/osm-extracts/helsinki-centre.osm.pbf --file zones/helsinki-centre.geojson \\
        --gtfs tests/data/gtfs/nyc_subway_gtfs.zip
    """
    from stations_generator.serve.app import create_app
    from stations_generator.serve.security import allowed_hosts
    from stations_generator.serve.shared.database import default_database, open_store
    from stations_generator.serve.stations import ServerConfig

    config = ServerConfig(
        osm_files=_files(osm_files, "--osm"),
        water_files=_files(water_files, "--water"),
        other_files=_files(other_files, "--file"),
        gtfs_files=_feeds(gtfs_feeds),
        online=not offline,
        max_online_km2=max_online_km2,
        overpass_urls=tuple(u for text in overpass_urls for u in str(text).split()),
        overpass_timeout=overpass_timeout,
        cache_dir=cache_dir,
        use_cache=not no_cache,
    )
    # Opened before listening: a wrong URL or an unreachable database is one error line.
    store = open_store(database or default_database())
    wildcard = host.strip("[]") in ("", "0.0.0.0", "::")  # noqa: S104 - compared, not bound
    hosts = allowed_hosts(host, extra_hosts)
    try:  # made before listening too: it reads the --gtfs feeds (a bad one is one line)
        app = create_app(config, hosts=hosts, any_ip_host=wildcard, database=store)
    except InputError:
        store.close()
        raise
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # Listen before printing the address: a client that connects as soon as it reads
        # the line waits in the backlog until the app is up, instead of being refused.
        sock.listen(2048)
    except OSError as exc:
        app.state.close()  # the store and the app's temporary folder
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port"
        ) from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/"
    click.echo(f"Serving the station map page on {url} (API docs: {url}docs; Ctrl-C stops)")
    if not _loopback(host):
        click.echo(
            f"Listening beyond this machine ({host}): anyone on the network can open the page; "
            "a shared game opens only with its join link (its token). Shared games are kept "
            f"in {store.description}.",
            err=True,
        )
    sys.stdout.flush()  # the address is what scripts wait for, even through a pipe
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    if wildcard:
        click.echo(
            f"On the LAN, open http://ADDRESS:{bound}/ with this machine's IP address or one "
            f"of: {', '.join(hosts)} (more with --allowed-host NAME)",
            err=True,
        )
    _run(app, sock, console.verbosity)


def _loopback(host: str) -> bool:
    """Whether ``host`` (``--host``) is a loopback address or name."""
    import ipaddress

    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _stop(signum: int, _frame: object) -> None:
    raise _Stopped(signum)


class _Stopped(Exception):
    """SIGTERM, raised again by uvicorn once it has shut the app down."""


def _run(app, sock: socket.socket, verbosity: int) -> None:
    """Serve until Ctrl-C or SIGTERM; then stop within seconds, whatever is building.

    The requests waiting for a build are answered 503 at once; uvicorn gives the others
    :data:`GRACE_S`, then cancels them and shuts the app down (its temporary folder is
    removed); a build still running in its worker thread cannot be interrupted, so it is
    abandoned with the process.
    """
    import uvicorn

    # Every temporary file of this process (extract reads, uploads) goes in the app's own
    # folder, which the shutdown removes, whatever a build was doing.
    tempfile.tempdir = str(app.state.temp_dir)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: object) -> None:
            app.state.stop()  # the waiting requests are answered 503 at once
            super().handle_exit(sig, frame)

    server = Server(
        uvicorn.Config(
            app,
            log_level="warning" if verbosity <= 0 else "info",
            timeout_graceful_shutdown=GRACE_S,
            # A shared game's messages are small (serve/shared/websocket.py refuses any
            # above 65 KiB with a reason); uvicorn drops anything far beyond at once.
            ws_max_size=WS_MAX_BYTES,
        )
    )
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        server.run(sockets=[sock])
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        app.state.close()
    if app.state.jobs.running:
        # A daemon thread in a Cython loop or a CP-SAT solve would stall the interpreter's
        # exit: leave at once (everything this process wrote is written or removed).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
