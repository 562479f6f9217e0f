"""Benchmarks of the Het Jachtseizoen board (issue 14), on real extracts.

    python bench/bench_board.py generate   # board generate from Liechtenstein (target < 10 s)
    python bench/bench_board.py track      # tracker update after a reveal, 24 × 36 (< 10 ms)
    python bench/bench_board.py simulate   # simulate 1000 games on 24 × 36 (< 60 s)
    python bench/bench_board.py            # all three

Wall-clock seconds; a busy machine shows in the figures (run it on an idle one).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EXTRACTS = ROOT / "tests" / "data" / "osm-extracts"


def bench_generate() -> dict:
    from click.testing import CliRunner

    from stations_generator.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "board",
            "generate",
            str(ROOT / "zones" / "liechtenstein.geojson"),
            "--osm",
            str(EXTRACTS / "liechtenstein-2013-08.osm.pbf"),
            "-o",
            tmp,
        ]
        start = time.perf_counter()
        result = CliRunner().invoke(main, ["-q", *args])
        seconds = time.perf_counter() - start
        assert result.exit_code == 0, result.output
    return {
        "bench": "generate liechtenstein 24x36 (all 5 files)",
        "seconds": round(seconds, 2),
        "target_s": 10,
    }


def _board_24x36(name: str = "north-bayreuth"):
    sys.path.insert(0, str(ROOT / "tests"))
    from support.board_cases import real_board

    return real_board(name, 24, 36)


def bench_track() -> dict:
    from stations_generator.board.gamelog import parse_log, referee
    from stations_generator.board.players import BoardGraphs
    from stations_generator.board.rules import HouseRules, load_cards
    from stations_generator.board.simulate import play_game
    from stations_generator.board.tracker import Tracker

    board = _board_24x36()
    rules = HouseRules(cards=load_cards())
    graphs = BoardGraphs(board, rules)
    reveal_ms, turn_ms = [], []
    for seed in range(6):
        start = board.starts[seed % len(board.starts)][0]
        rec = play_game(board, rules, graphs, start, seed, record=True)
        done = referee(board, rules, parse_log("".join(json.dumps(x) + "\n" for x in rec.log)))
        tracker = Tracker(board, rules, start)
        for r in done.results:
            t0 = time.perf_counter()
            tracker.advance(r.observation)  # the turn's actions
            t1 = time.perf_counter()
            tracker.reveal(r.observation)  # the update a reveal triggers
            t2 = time.perf_counter()
            reveal_ms.append((t2 - t1) * 1000)
            turn_ms.append((t2 - t0) * 1000)
    return {
        "bench": "tracker on north-bayreuth 24x36, 6 computer games",
        "turns": len(reveal_ms),
        "reveal_update_ms_median": round(statistics.median(reveal_ms), 3),
        "reveal_update_ms_max": round(max(reveal_ms), 3),
        "whole_turn_ms_median": round(statistics.median(turn_ms), 1),
        "whole_turn_ms_max": round(max(turn_ms), 1),
        "target_ms": 10,
    }


def bench_simulate(games: int = 1000) -> dict:
    from stations_generator.board.rules import HouseRules, load_cards
    from stations_generator.board.simulate import simulate

    board = _board_24x36("north-bayreuth")
    rules = HouseRules(cards=load_cards())
    start = time.perf_counter()
    smart = simulate(board, rules, games, 1, hunters="computer")
    seconds = time.perf_counter() - start
    rand = simulate(board, rules, games, 1, hunters="random")
    return {
        "bench": f"simulate {games} games on north-bayreuth 24x36",
        "seconds": round(seconds, 1),
        "target_s": 60,
        "fugitive_win_rate_vs_computer": smart["fugitive_win_rate"],
        "ci95_vs_computer": smart["ci95"],
        "fugitive_win_rate_vs_random": rand["fugitive_win_rate"],
        "ci95_vs_random": rand["ci95"],
        "mean_capture_turn": smart["mean_capture_turn"],
        "specials_per_game": smart["specials_per_game"],
    }


BENCHES = {"generate": bench_generate, "track": bench_track, "simulate": bench_simulate}

if __name__ == "__main__":
    names = sys.argv[1:] or list(BENCHES)
    for name in names:
        print(json.dumps(BENCHES[name]()), flush=True)
