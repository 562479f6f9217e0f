"""`board generate` online: Overpass's answer (served on 127.0.0.1) gives the extract's board.

The answer is the real Liechtenstein extract in Overpass ``out geom`` form, built with
the project's stand-in helper from the objects the board query asks for.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import osmium
import pytest
from click.testing import CliRunner
from support.board_cases import AREAS, EXTRACTS, write_area
from support.osm_services import _out_geom

from stations_generator.board.build import load_board
from stations_generator.board.osmdata import classify_area, classify_line, classify_point
from stations_generator.cli import main


def _answer() -> bytes:
    path = EXTRACTS / AREAS["liechtenstein"]
    ways, relations = _out_geom(
        path,
        lambda _i, t: bool(classify_line(t) or classify_area(t) or classify_point(t)),
        lambda _i, t: bool(classify_area(t) or classify_point(t)),
    )
    nodes = []
    for n in osmium.FileProcessor(str(path), osmium.osm.NODE):
        tags = dict(n.tags)
        if tags and classify_point(tags) and n.location.valid():
            nodes.append(
                {
                    "type": "node",
                    "id": n.id,
                    "lat": round(n.location.lat, 7),
                    "lon": round(n.location.lon, 7),
                    "tags": tags,
                }
            )
    return json.dumps({"version": 0.6, "elements": nodes + ways + relations}).encode()


@pytest.fixture(scope="module")
def overpass():
    body = _answer()
    queries = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            queries.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/interpreter", queries
    server.shutdown()


def test_online_board_matches_the_offline_board(overpass, tmp_path):
    url, queries = overpass
    area = write_area("liechtenstein", tmp_path)
    common = ["board", "generate", str(area), "--towns-above", "0", "--cols", "12", "--rows", "18"]
    online = CliRunner().invoke(
        main,
        [
            *common,
            "-o",
            str(tmp_path / "on"),
            "--overpass-url",
            url,
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
    )
    assert online.exit_code == 0, online.output
    assert len(queries) == 1 and b"motorway_junction" in queries[0]
    offline = CliRunner().invoke(
        main,
        [*common, "-o", str(tmp_path / "off"), "--osm", str(EXTRACTS / AREAS["liechtenstein"])],
    )
    assert offline.exit_code == 0, offline.output
    a, b = load_board(tmp_path / "on" / "board.json"), load_board(tmp_path / "off" / "board.json")
    assert a.grid == b.grid
    assert a.cities == b.cities and a.airfields == b.airfields and a.junctions == b.junctions
    assert [s for s, _n, _k in a.starts] == [s for s, _n, _k in b.starts]
    for kind in ("water", "forest", "builtup"):
        # Overpass has every node of a way; the extract clips a few at its edge.
        assert np.abs(getattr(a, kind) - getattr(b, kind)).max() <= 0.05, kind
    # A second run is answered from the cache.
    again = CliRunner().invoke(
        main,
        [
            *common,
            "-o",
            str(tmp_path / "on2"),
            "--overpass-url",
            url,
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
    )
    assert again.exit_code == 0 and len(queries) == 1
    assert (tmp_path / "on2" / "board.json").read_bytes() == (
        tmp_path / "on" / "board.json"
    ).read_bytes()
