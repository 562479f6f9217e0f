"""Shared boards for the board-game tests.

Real boards come from the bundled OSM extracts (built once per session). The small
hand-drawn board is not OSM data: it is a 6 × 6 board drawn square by square so
that every rule of the engine has a square to be tested on.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np

from stations_generator.board.build import BoardRequest, build_board, grid_bbox, plan_grid
from stations_generator.board.grid import Grid
from stations_generator.board.model import Board
from stations_generator.board.osmdata import extract_extent, features_from_extract
from stations_generator.board.rules import HouseRules, load_cards
from stations_generator.board.terrain import Thresholds
from stations_generator.formats.playarea import parse_polygons
from support.paths import EXTRACTS

#: Areas inside the extracts' own bounds (the header boxes), as GeoJSON polygons.
AREAS = {
    "north-bayreuth": "north-bayreuth.osm.gz",
    "krems": "krems.osm.gz",
    "monaco": "monaco-2016.osm.pbf",
    "liechtenstein": "liechtenstein-2013-08.osm.pbf",
}


def area_geojson(name: str) -> dict:
    """The extract's header box as a GeoJSON polygon (the area the tests play on)."""
    w, s, e, n = extract_extent(EXTRACTS / AREAS[name])
    return {"type": "Polygon", "coordinates": [[[w, s], [e, s], [e, n], [w, n], [w, s]]]}


def write_area(name: str, folder: Path) -> Path:
    path = folder / f"{name}.geojson"
    path.write_text(json.dumps(area_geojson(name)))
    return path


@cache
def real_board(name: str, cols: int = 24, rows: int = 36, town_population: int | None = 0) -> Board:
    """The board ``board generate`` makes of the extract's box (without the files)."""
    area = parse_polygons(area_geojson(name), name)
    request = BoardRequest(
        area=Path(f"{name}.geojson"),
        output_dir=Path("unused"),
        cols=cols,
        rows=rows,
        thresholds=Thresholds(town_population=town_population),
    )
    grid, _ = plan_grid(area, request)
    feats = features_from_extract(EXTRACTS / AREAS[name], area, grid_bbox(grid))
    return build_board(area, feats, request, AREAS[name])


RULES8 = HouseRules(neighbours=8, cards=load_cards())
RULES4 = HouseRules(neighbours=4, cards=load_cards())

# The hand-drawn board (A..F × 01..06):
#    A  B  C  D  E  F
# 01 S  .  .  J  .  S     S start, J junction
# 02 .  W  W  .  .  .     W water
# 03 C  .  F  .  J  .     C city, F forest
# 04 .  .  .  A  .  C     A airfield
# 05 .  B  B  .  .  .     B built-up
# 06 A  .  .  .  .  J
SMALL_MAP = [
    "S..J.S",
    ".WW...",
    "C.F.J.",
    "...A.C",
    ".BB...",
    "A....J",
]


def small_board() -> Board:
    g = Grid(32632, 500000.0, 5000000.0, 1000.0, 6, 6)
    n = g.size
    water, forest, builtup = np.zeros(n), np.zeros(n), np.zeros(n)
    junctions, cities, airfields, starts = {}, {}, {}, []
    for r, row in enumerate(SMALL_MAP):
        for c, ch in enumerate(row):
            s = r * 6 + c
            if ch == "W":
                water[s] = 1.0
            elif ch == "F":
                forest[s] = 0.9
            elif ch == "B":
                builtup[s] = 0.8
            elif ch == "J":
                junctions[s] = [f"junction {g.name(s)}"]
            elif ch == "C":
                cities[s] = f"city {g.name(s)}"
            elif ch == "A":
                airfields[s] = f"airfield {g.name(s)}"
            elif ch == "S":
                starts.append((s, f"prison {g.name(s)}", "prison"))
    idx = g.index
    return Board(
        grid=g,
        name="hand-drawn",
        on_board=np.ones(n, dtype=bool),
        motorway=np.zeros(n, dtype=bool),
        water=water,
        forest=forest,
        builtup=builtup,
        junctions=junctions,
        motorway_edges=sorted([(idx("D01"), idx("E03")), (idx("E03"), idx("F06"))]),
        cities=cities,
        airfields=airfields,
        rail_links=[(idx("A03"), idx("F04"))],
        starts=starts,
        thresholds={"water_share": 0.5, "forest_share": 0.5, "builtup_share": 0.3},
    )
