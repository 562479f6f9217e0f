"""Shared set-up of the ``serve`` tests: the server's configuration and the CLI's answers.

Everything runs on the bundled real data: the Sioux Falls play area and its frozen
Overpass JSON, the Helsinki game on the Helsinki extract.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from click.testing import CliRunner

from stations_generator.cli import main
from stations_generator.serve.stations import ServerConfig
from support.paths import EXTRACTS, REPO, SIOUX

SIOUX_AREA = REPO / "zones" / "sioux-falls.geojson"
HELSINKI_PBF = EXTRACTS / "helsinki-centre.osm.pbf"
HELSINKI_AREA = REPO / "zones" / "helsinki-centre.geojson"
HELSINKI_GAME = REPO / "examples" / "helsinki-game" / "game.json"
SHARE_LINK = REPO / "examples" / "helsinki-game" / "share-link.txt"
SIOUX_SOURCES = ["--osm", str(SIOUX / "pois.json"), "--water", str(SIOUX / "water.json")]


def config(**overrides) -> ServerConfig:
    """The configuration of ``serve --osm pois.json --water water.json --osm helsinki… --file …``."""
    fields = dict(
        osm_files=(SIOUX / "pois.json", HELSINKI_PBF),
        water_files=(SIOUX / "water.json",),
        other_files=(HELSINKI_AREA,),
        online=False,
    )
    fields.update(overrides)
    return ServerConfig(**fields)


def api_client(app, **kwargs):
    """A FastAPI TestClient on ``app`` as a script on the machine uses it (host 127.0.0.1:
    the server answers only to its own names)."""
    from fastapi.testclient import TestClient

    return TestClient(app, base_url="http://127.0.0.1", **kwargs)


def sioux_body(**settings) -> dict:
    """The page's request for the bundled Sioux Falls area (as loaded from its file)."""
    return {
        "play_area": json.loads(SIOUX_AREA.read_text("utf-8")),
        "name": SIOUX_AREA.name,
        "osm": ["pois.json"],
        "water": ["water.json"],
        "settings": settings,
    }


def cli(*args: str):
    """Run the CLI in-process; the click result (stdout and stderr apart)."""
    return CliRunner().invoke(main, [str(a) for a in args])


def generate(out: Path, area: Path, *flags: str):
    """``generate AREA --osm pois.json --water water.json -o OUT FLAGS…`` (must succeed)."""
    result = cli("generate", area, *SIOUX_SOURCES, "-o", out, *flags)
    assert result.exit_code == 0, result.stderr
    return result


def error_line(result) -> str:
    """The one-line message of a failed CLI run, without its ``error: `` prefix."""
    assert result.exit_code != 0
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.stderr
    return lines[0].removeprefix("error: ")


@contextmanager
def running_server(app) -> Iterator[str]:
    """``app`` on uvicorn at 127.0.0.1 on a free port, in a thread; yields its address."""
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
