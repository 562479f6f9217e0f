"""Boards from the bundled real extracts, checked against independent counts of the same data.

The independent counts read the extract with their own pyosmium handler and sample
points (motorways every 2 m along each segment; water and forest on a 20 × 20
lattice per square), where the board uses shapely's exact intersections.
"""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import osmium
import pyproj
import pytest
from click.testing import CliRunner
from shapely import contains_xy, from_wkb
from shapely.ops import unary_union
from support.board_cases import AREAS, EXTRACTS, real_board, write_area

from stations_generator.board.build import BOARD_FILES
from stations_generator.board.model import board_from_json, board_to_json
from stations_generator.cli import main


def _cell(grid, x, y):
    col = np.floor((x - grid.west) / grid.cell_m).astype(int)
    row = np.floor((grid.north - y) / grid.cell_m).astype(int)
    ok = (col >= 0) & (col < grid.cols) & (row >= 0) & (row < grid.rows)
    return set((row[ok] * grid.cols + col[ok]).tolist())


class _Count(osmium.SimpleHandler):
    def __init__(self):
        super().__init__()
        self.motorways, self.junctions = [], []
        self.areas = defaultdict(list)
        self.wkb = osmium.geom.WKBFactory()

    def node(self, n):
        if n.tags.get("highway") == "motorway_junction":
            self.junctions.append(
                (n.location.lon, n.location.lat, n.tags.get("name") or n.tags.get("ref", ""))
            )

    def way(self, w):
        if w.tags.get("highway") == "motorway":
            self.motorways.append([(n.lon, n.lat) for n in w.nodes if n.location.valid()])

    def area(self, a):
        t = a.tags
        kind = None
        if (
            t.get("natural") in ("water", "bay")
            or t.get("waterway") in ("riverbank", "dock")
            or t.get("landuse") in ("reservoir", "basin")
        ):
            kind = "water"
        elif t.get("landuse") == "forest" or t.get("natural") == "wood":
            kind = "forest"
        if kind:
            try:
                self.areas[kind].append(from_wkb(self.wkb.create_multipolygon(a)))
            except RuntimeError:
                pass


def independent(name: str, grid):
    h = _Count()
    h.apply_file(str(EXTRACTS / AREAS[name]), locations=True)
    tf = pyproj.Transformer.from_crs(4326, grid.epsg, always_xy=True)
    motorway = set()
    for way in h.motorways:
        xs, ys = tf.transform([p[0] for p in way], [p[1] for p in way])
        for x0, y0, x1, y1 in zip(xs, ys, xs[1:], ys[1:], strict=False):
            n = max(2, int(np.hypot(x1 - x0, y1 - y0) / 2.0) + 2)
            t = np.linspace(0, 1, n)
            motorway |= _cell(grid, x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
    # Junctions: one per name within 1.5 km, at the mean of its nodes.
    groups = defaultdict(list)
    for lon, lat, name_ in h.junctions:
        groups[name_].append(tf.transform(lon, lat))
    junctions = set()
    for pts in groups.values():
        clusters = []
        for p in pts:
            for c in clusters:
                if any(np.hypot(p[0] - q[0], p[1] - q[1]) <= 1500 for q in c):
                    c.append(p)
                    break
            else:
                clusters.append([p])
        for c in clusters:
            junctions |= _cell(
                grid, np.array([np.mean([q[0] for q in c])]), np.array([np.mean([q[1] for q in c])])
            )
    # Coverage by sampling 20 × 20 points per square (all squares at once).
    k = 20
    off = (np.arange(k) + 0.5) / k * grid.cell_m
    ox, oy = (a.ravel() for a in np.meshgrid(off, off))
    rows, cols = np.divmod(np.arange(grid.size), grid.cols)
    px = (grid.west + cols * grid.cell_m)[:, None] + ox[None, :]
    py = (grid.north - (rows + 1) * grid.cell_m)[:, None] + oy[None, :]
    lon, lat = pyproj.Transformer.from_crs(grid.epsg, 4326, always_xy=True).transform(
        px.ravel(), py.ravel()
    )
    shares = {}
    for kind, geoms in h.areas.items():
        inside = contains_xy(unary_union(geoms), lon, lat)
        shares[kind] = inside.reshape(grid.size, -1).mean(axis=1)
    return motorway, junctions, shares


@pytest.fixture(scope="module")
def bayreuth():
    b = real_board("north-bayreuth", 12, 18)
    return b, independent("north-bayreuth", b.grid)


@pytest.fixture(scope="module")
def krems():
    b = real_board("krems", 18, 12)
    return b, independent("krems", b.grid)


def test_motorway_squares_match_an_independent_count(bayreuth):
    board, (motorway, _j, _s) = bayreuth
    ours = set(np.flatnonzero(board.motorway).tolist())
    theirs = motorway & set(np.flatnonzero(board.on_board).tolist())
    assert len(ours) >= 10  # the A9 crosses the board
    assert ours == theirs


def test_junction_squares_and_graph_follow_the_a9(bayreuth):
    board, (_m, junctions, _s) = bayreuth
    assert set(board.junctions) == junctions & set(np.flatnonzero(board.on_board).tolist())
    assert len(board.junctions) >= 3
    names = {n for v in board.junctions.values() for n in v}
    assert {"Bindlacher Berg", "Kulmbach/Neudrossenfeld"} <= names
    # Along the A9 the junctions form a chain: every junction has a next one.
    assert all(board.junction_adj.get(s) for s in board.junctions)
    assert all(
        board.motorway[s] or any(board.motorway[n] for n in board.grid.neighbours(s))
        for s in board.junctions
    )


@pytest.mark.parametrize("fixture", ["bayreuth", "krems"])
@pytest.mark.parametrize("kind", ["water", "forest"])
def test_coverage_matches_independent_sampling(fixture, kind, request):
    board, (_m, _j, shares) = request.getfixturevalue(fixture)
    ours = getattr(board, kind)
    theirs = shares.get(kind, np.zeros(board.grid.size))
    assert np.abs(ours - theirs).max() <= 0.06  # 20 × 20 samples: ±1 row of 20 (0.05)
    share = board.thresholds[f"{kind}_share"]
    clear = np.abs(theirs - share) > 0.06
    assert np.array_equal((ours >= share)[clear], (theirs >= share)[clear])


def test_real_boards_have_the_features_of_their_maps():
    krems = real_board("krems", 18, 12)
    assert any(
        board_kind == "water" for board_kind in map(krems.kind, range(krems.grid.size))
    )  # the Danube
    assert "Krems an der Donau" in krems.cities.values()  # a town, with --towns-above 0
    monaco = real_board("monaco", 36, 24)
    g = monaco.grid
    assert monaco.rail_links and len(monaco.cities) >= 3  # the coast line joins the towns
    south = [monaco.kind(s) for s in range((g.rows - 6) * g.cols, g.size) if monaco.on_board[s]]
    assert south.count("water") > 0.8 * len(south)  # the Mediterranean, from the coastline
    north = [monaco.water[s] for s in range(3 * g.cols)]
    assert max(north) < 0.5
    assert monaco.boat_targets  # waterside squares along the coast


def test_start_locations_fall_back_to_landmarks_and_say_so():
    b = real_board("liechtenstein")
    assert len(b.starts) >= 2 and all(k != "prison" for _s, _n, k in b.starts)
    assert "0 prison(s)" in b.start_note and "landmark" in b.start_note


def test_board_json_round_trips():
    b = real_board("monaco", 36, 24)
    doc = board_to_json(b)
    again = board_to_json(board_from_json(json.loads(json.dumps(doc))))
    assert again == doc
    assert doc["format"] == "het-jachtseizoen-board" and doc["version"] == 1
    assert doc["grid"]["first"] == "A01" and doc["grid"]["last"] == "AJ24"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board-gen")
    area = write_area("liechtenstein", folder)
    ext = str(EXTRACTS / AREAS["liechtenstein"])
    outs = []
    for run in ("a", "b"):
        out = folder / run
        r = CliRunner().invoke(main, ["board", "generate", str(area), "--osm", ext, "-o", str(out)])
        assert r.exit_code == 0, r.output
        outs.append(out)
    return outs, r


def test_generate_writes_every_file_deterministically(generated):
    (a, b), result = generated
    for name in BOARD_FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert "landmark(s) added as start locations" in result.stderr
    geo = json.loads((a / "board.geojson").read_text())
    assert len(geo["features"]) == 24 * 36 and geo["features"][0]["properties"]["square"] == "A01"
    page = (a / "board.html").read_text()
    assert '<script src="http' not in page and "OpenStreetMap" in page
    assert (a / "board.pdf").read_bytes().startswith(b"%PDF")
    assert (a / "board.png").read_bytes().startswith(b"\x89PNG")
