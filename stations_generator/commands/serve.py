"""``serve``: the organiser's web page on a local server (see :mod:`stations_generator.serve`)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import click

from stations_generator.commands.console import Console
from stations_generator.commands.options import CONTEXT, FiniteFloat, overpass_options
from stations_generator.errors import InputError


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
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on (0 = any free port).",
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
    host: str,
    port: int,
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
        --osm tests/data/osm-extracts/helsinki-centre.osm.pbf --file zones/helsinki-centre.geojson
    """
    import uvicorn

    from stations_generator.serve.app import create_app
    from stations_generator.serve.stations import ServerConfig

    config = ServerConfig(
        osm_files=_files(osm_files, "--osm"),
        water_files=_files(water_files, "--water"),
        other_files=_files(other_files, "--file"),
        online=not offline,
        max_online_km2=max_online_km2,
        overpass_urls=tuple(u for text in overpass_urls for u in str(text).split()),
        overpass_timeout=overpass_timeout,
        cache_dir=cache_dir,
        use_cache=not no_cache,
    )
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # Listen before printing the address: a client that connects as soon as it reads
        # the line waits in the backlog until the app is up, instead of being refused.
        sock.listen(2048)
    except OSError as exc:
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port"
        ) from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/"
    click.echo(f"Serving the station map page on {url} (API docs: {url}docs; Ctrl-C stops)")
    sys.stdout.flush()  # the address is what scripts wait for, even through a pipe
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    app = create_app(config)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning" if console.verbosity <= 0 else "info")
    )
    server.run(sockets=[sock])
