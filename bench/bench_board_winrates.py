"""The fugitive's win rate under the rulebook and under the opt-in house rules (issue 40).

Computer hunt team against computer fugitive, 1000 games a board (seed 1), on two
bundled boards built from real OSM data:

* **Bayreuth**: the north-bayreuth extract's box, 24 × 36 squares;
* **Monaco**: ``examples/board/monaco.geojson`` on the Monaco extract, 36 × 24 squares,
  towns of any population as big cities (``--towns-above 0``, as in docs/board.md).

Each board is played under the rulebook (no WAIT, no capture in an OFFLINE turn), with
the WAIT house rule, with capture in an OFFLINE turn, and with both (the project's rules
before issue 40); and under the rulebook against random hunt-team moves (the baseline).
Win rates come with Wilson 95 % intervals.

    python bench/bench_board_winrates.py                 # 1000 games, 2 processes
    python bench/bench_board_winrates.py --games 200 --jobs 1

At most 2 processes (the machine is shared); a 1000-game run takes about a minute.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EXTRACTS = ROOT / "tests" / "data" / "osm-extracts"

#: name → (extract, area file or None for the extract's own box, cols, rows, towns above)
BOARDS = {
    "Bayreuth": ("north-bayreuth.osm.gz", None, 24, 36, None),
    "Monaco": ("monaco-2016.osm.pbf", ROOT / "examples" / "board" / "monaco.geojson", 36, 24, 0),
}
#: configuration → (WAIT, capture in an OFFLINE turn, hunt team)
CONFIGS = {
    "rulebook": (False, False, "computer"),
    "house WAIT": (True, False, "computer"),
    "house OFFLINE capture": (False, True, "computer"),
    "both (before issue 40)": (True, True, "computer"),
    "rulebook, random hunt team": (False, False, "random"),
}


@cache
def board(name: str):
    """The board of ``name`` as ``board generate`` makes it (without writing files)."""
    from stations_generator.board.build import BoardRequest, build_board, grid_bbox, plan_grid
    from stations_generator.board.osmdata import extract_extent, features_from_extract
    from stations_generator.board.terrain import Thresholds
    from stations_generator.formats.areafiles import read_area_file
    from stations_generator.formats.playarea import parse_polygons

    extract, area_file, cols, rows, towns = BOARDS[name]
    if area_file is None:
        w, s, e, n = extract_extent(EXTRACTS / extract)
        data = {"type": "Polygon", "coordinates": [[[w, s], [e, s], [e, n], [w, n], [w, s]]]}
        path = Path(f"{name}.geojson")
    else:
        data, path = read_area_file(area_file, area_file.name), area_file
    area = parse_polygons(data, name)
    request = BoardRequest(
        area=path,
        output_dir=Path("unused"),
        cols=cols,
        rows=rows,
        thresholds=Thresholds(town_population=towns),
        name=name,
    )
    grid, _ = plan_grid(area, request)
    features = features_from_extract(EXTRACTS / extract, area, grid_bbox(grid))
    return build_board(area, features, request, extract)


def run(task: tuple[str, str, int, int]) -> dict:
    """One board under one configuration: the simulate report and the seconds it took."""
    from stations_generator.board.rules import HouseRules, load_cards
    from stations_generator.board.simulate import simulate

    name, config, games, seed = task
    wait, offline_capture, hunters = CONFIGS[config]
    rules = HouseRules(cards=load_cards(), wait=wait, offline_capture=offline_capture)
    b = board(name)
    start = time.perf_counter()
    report = simulate(b, rules, games, seed, hunters=hunters)
    return {
        "board": name,
        "config": config,
        "games": games,
        "seed": seed,
        "fugitive_win_rate": report["fugitive_win_rate"],
        "ci95": report["ci95"],
        "trapped_share": report["trapped_share"],
        "mean_capture_turn": report["mean_capture_turn"],
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    args = parser.parse_args()
    tasks = [(b, c, args.games, args.seed) for b in BOARDS for c in CONFIGS]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(run, tasks))
    print("| board | rules | fugitive wins (95 % CI) | trapped | mean capture turn | s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in results:
        lo, hi = r["ci95"]
        print(
            f"| {r['board']} | {r['config']} | {r['fugitive_win_rate']:.1%} "
            f"({lo:.1%}–{hi:.1%}) | {r['trapped_share']:.1%} | {r['mean_capture_turn']} "
            f"| {r['seconds']} |"
        )
    print(json.dumps(results, ensure_ascii=False))


if __name__ == "__main__":
    main()
