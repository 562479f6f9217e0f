"""Hostile board files, game logs and card files: one-line errors, bounded memory.

Every case starts from a real board (the bundled Monaco extract, as ``board generate``
makes it) or a real computer game on it, and changes one thing.
"""

from __future__ import annotations

import dataclasses
import json
import tracemalloc

import numpy as np
import pytest
from support.board_cases import AREAS, EXTRACTS, RULES8, real_board, write_area
from support.cli_runs import one_line_error
from support.cli_runs import run_caught as run

from stations_generator.board.build import dumps, load_board
from stations_generator.board.grid import MAX_SQUARES, size_problem
from stations_generator.board.model import TERRAIN_KINDS, board_to_json
from stations_generator.board.players import FAR, BoardGraphs
from stations_generator.board.render import render_pdf
from stations_generator.board.rules import HAND_SIZES, BoardGame, HouseRules, load_cards
from stations_generator.board.simulate import play_game
from stations_generator.errors import InputError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The Monaco board's board.json and a computer game's log on it."""
    folder = tmp_path_factory.mktemp("board-hostile")
    board = real_board("monaco", 36, 24)
    path = folder / "board.json"
    path.write_text(dumps(board_to_json(board)))
    graphs = BoardGraphs(board, RULES8)
    # The first seed from 3 whose game lasts beyond turn 3 (the tests change its reveals).
    game = next(
        g
        for g in (
            play_game(board, RULES8, graphs, board.starts[0][0], seed, record=True)
            for seed in range(3, 60)
        )
        if g.turn > 3
    )
    log = folder / "game.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in game.log))
    return folder, board, path, log


def _mutated(folder, path, change) -> object:
    doc = json.loads(path.read_text())
    change(doc)
    bad = folder / "mutated.json"
    bad.write_text(json.dumps(doc))
    return bad


def _first(board, kind: str) -> int:
    return next(s for s in range(board.grid.size) if board.kind(s) == kind)


# --------------------------------------------------------------------------- board files


def test_the_real_board_round_trips(files):
    _folder, board, path, log = files
    loaded = load_board(path)
    assert [loaded.kind(s) for s in range(loaded.grid.size)] == [
        board.kind(s) for s in range(board.grid.size)
    ]
    assert run("board", "play", path, log).exit_code == 0


def _set_square(i: int, **fields):
    def change(doc):
        doc["squares"][i].update(fields)

    return change


def _set_grid(**fields):
    def change(doc):
        doc["grid"].update(fields)

    return change


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_set_square(0, terrain="lava"), ["squares[0].terrain", "'lava'", "open"]),
        (_set_square(3, terrain=None), ["squares[3].terrain"]),
        (_set_square(5, flags=["water", "volcano"]), ["squares[5].flags", "volcano"]),
        (_set_square(5, flags="water"), ["squares[5].flags"]),
        (_set_grid(crs="EPSG:4326"), ["EPSG:4326", "not a projected CRS in metres"]),
        (_set_grid(crs="EPSG:999999"), ["EPSG:999999", "not a CRS pyproj knows"]),
        (_set_grid(crs="EPSG:" + "9" * 400), ["grid.crs"]),
        (_set_grid(crs="+proj=longlat"), ["grid.crs", "EPSG:<code>"]),
        (_set_grid(crs="EPSG:2240"), ["EPSG:2240", "metres"]),  # US survey feet
        (_set_grid(cols=702, rows=999), ["702 × 999 = 701298 squares", str(MAX_SQUARES)]),
        (_set_grid(cols=71, rows=71), ["5041 squares", str(MAX_SQUARES)]),
        (_set_grid(cols=703, rows=1), ["703 columns"]),
        (_set_grid(cols=True, rows=1), ["grid.cols/rows"]),
        (lambda d: d.update(starts=[]), ["starts is empty"]),
        (lambda d: d.update(name=["x"]), ["name is not a string"]),
        (lambda d: d.update(start_note=7), ["start_note"]),
        (lambda d: d["junctions"][0].update(names=[1]), ["junctions[0]"]),
        (lambda d: d["starts"][0].update(kind={"a": 1}), ["starts[0]"]),
    ],
)
def test_bad_fields_are_named(files, change, words):
    folder, _board, path, log = files
    bad = _mutated(folder, path, change)
    one_line_error(run("board", "play", bad, log), 2, "board.json", *words)


def test_stored_terrain_must_be_the_derived_one(files):
    folder, board, path, log = files
    s = _first(board, "open")
    for terrain, flags in (("water", None), ("open", ["forest"])):
        change = _set_square(s, terrain=terrain, **({"flags": flags} if flags else {}))
        bad = _mutated(folder, path, change)
        one_line_error(
            run("board", "play", bad, log), 2, f"squares[{s}]", board.grid.name(s), "'open'"
        )
    for kind in TERRAIN_KINDS:  # every kind of the real board checks out as stored
        if any(board.kind(i) == kind for i in range(board.grid.size)):
            assert load_board(path).kind(_first(board, kind)) == kind


def test_starts_must_be_on_the_board(files):
    folder, board, path, log = files
    off = next(s for s in range(board.grid.size) if not board.on_board[s])

    def change(doc):
        doc["starts"][1]["square"] = board.grid.name(off)

    bad = _mutated(folder, path, change)
    one_line_error(run("board", "play", bad, log), 2, "starts[1]", board.grid.name(off), "off")


def test_deeply_nested_board_file_is_one_line(files):
    folder, _board, _path, log = files
    deep = folder / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    r = run("board", "play", deep, log)
    assert r.exit_code == 2 and "nested too deeply" in r.stderr
    one_line_error(r, 2)


# --------------------------------------------------------------------------- size and memory


def test_the_size_limit_is_what_generate_and_load_share():
    assert size_problem(24, 36) is None and size_problem(50, 100) is None
    assert size_problem(50, 101) and size_problem(703, 1) and size_problem(1, 1000)


def test_generate_refuses_an_oversized_grid_before_reading_osm(tmp_path):
    area = write_area("monaco", tmp_path)
    ext = EXTRACTS / AREAS["monaco"]
    out = tmp_path / "out"
    for extra, words in (
        (["--cell-km", "0.01"], ["too large", "1157 columns", "--cell-km"]),
        (["--cell-km", "0.1"], ["too large", "squares is more than the 5000", "--cell-km"]),
        (["--cols", "71", "--rows", "71"], ["71 × 71 = 5041 squares"]),
    ):
        one_line_error(run("board", "generate", area, "--osm", ext, "-o", out, *extra), 2, *words)
        assert not out.exists() or not any(out.iterdir())


@pytest.mark.slow
def test_distance_table_memory_is_bounded_at_the_size_limit():
    board = real_board("north-bayreuth", 50, 100)
    n = board.grid.size
    assert n == MAX_SQUARES
    tracemalloc.start()
    try:
        graphs = BoardGraphs(board, RULES8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The int32 table (4 B a pair) plus the players' step lists; the old float64 matrix
    # and its int32 copy alone were 12 B a pair (300 MB here).
    assert peak < 4 * n * n + 40_000_000, peak
    assert graphs.dist.dtype == np.int32 and graphs.dist.shape == (n, n)
    # Distances are symmetric, zero on the diagonal, one between passable neighbours.
    sample = np.flatnonzero(board.passable)[:: max(1, n // 200)]
    assert (graphs.dist[sample][:, sample] == graphs.dist[sample][:, sample].T).all()
    assert (graphs.dist[sample, sample] == 0).all()
    for s in sample:
        assert all(graphs.dist[s, x] == 1 for x in graphs.steps[s] if x != s)
    assert graphs.dist.max() <= FAR


def test_players_refuse_a_board_over_the_limit():
    board = real_board("monaco", 36, 24)
    g = dataclasses.replace(board.grid, cols=71, rows=71)
    n = g.size
    grown = dataclasses.replace(
        board,
        grid=g,
        **{k: np.resize(getattr(board, k), n) for k in ("on_board", "motorway")},
        **{k: np.resize(getattr(board, k), n) for k in ("water", "forest", "builtup")},
    )
    with pytest.raises(ValueError, match="5041 squares is more than 5000"):
        BoardGraphs(grown, RULES8)


# --------------------------------------------------------------------------- game logs


def _reveals_log(folder, board, game_log, change_turn=None, to=None):
    """A hunt team's own log of the computer game: the reveals only, one changed."""
    from stations_generator.board.gamelog import parse_log, referee

    done = referee(board, RULES8, parse_log("".join(json.dumps(x) + "\n" for x in game_log)))
    lines = [game_log[0]]
    for r in done.results:
        reveal = r.observation.reveal
        if r.turn == change_turn:
            reveal = to
        lines.append(
            {"turn": r.turn, "reveal": None if reveal is None else board.grid.name(reveal)}
        )
    path = folder / f"reveals-{change_turn}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path, done.results


def test_impossible_reveals_are_errors_naming_the_reveal(files):
    folder, board, path, log = files
    game_log = [json.loads(x) for x in log.read_text().splitlines()]
    good, results = _reveals_log(folder, board, game_log)
    r = run("board", "track", path, good, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["now"]
    graphs = BoardGraphs(board, RULES8)
    for turn in (0, 1, 3):
        before = board.starts[0][0] if turn == 0 else results[turn - 1].observation.reveal
        if before is None:
            continue
        # The passable square farthest from the last known square: out of reach.
        far = int(np.argmax(np.where(board.passable, graphs.dist[before], -1)))
        assert graphs.dist[before, far] > RULES8.head_start
        bad, _ = _reveals_log(folder, board, game_log, turn, far)
        one_line_error(
            run("board", "track", path, bad),
            2,
            f"turn {turn}:",
            f"the reveal {board.grid.name(far)}",
            "impossible",
        )


def test_deep_log_lines_are_one_line(files, tmp_path):
    _folder, _board, path, log = files
    header = log.read_text().splitlines()[0]
    for body in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        deep = tmp_path / "deep.jsonl"
        deep.write_text(header + "\n" + body + "\n")
        one_line_error(run("board", "play", path, deep), 2, "line 2", "nests")
    nested = tmp_path / "nested.jsonl"
    nested.write_text(
        header + '\n{"turn": 0, "fugitive": "WAIT", "x": ' + "[" * 9 + "]" * 9 + "}\n"
    )
    one_line_error(run("board", "play", path, nested), 2, "line 2", "more than 8 deep")


# --------------------------------------------------------------------------- card files


def _cards(tmp_path, count: int):
    path = tmp_path / f"cards{count}.toml"
    path.write_text(f'[[card]]\ntype = "hunter"\ncount = {count}\n')
    return path


def test_a_deck_too_small_for_the_hands_is_an_error(files, tmp_path):
    _folder, _board, path, log = files
    for team, count in ((1, 2), (1, 6), (2, 7), (3, 8)):
        need = team * HAND_SIZES[team]
        r = run(
            "board",
            "simulate",
            path,
            "--games",
            "1",
            "--team",
            team,
            "--cards",
            _cards(tmp_path, count),
        )
        one_line_error(r, 2, f"{count} card(s)", f"team of {team}", f"= {need}")
    one_line_error(run("board", "play", path, log, "--cards", _cards(tmp_path, 2)), 2, "2 card(s)")
    # Exactly enough cards deals full hands, and the game runs.
    for team in (1, 2, 3):
        rules = HouseRules(cards=load_cards(_cards(tmp_path, team * HAND_SIZES[team])))
        board = real_board("monaco", 36, 24)
        game = BoardGame(board, rules, board.starts[0][0], team)
        assert all(len(h) == HAND_SIZES[team] and None not in h for h in game.hands)
    r = run("board", "simulate", path, "--games", "2", "--cards", _cards(tmp_path, 7))
    assert r.exit_code == 0, r.output


def test_hostile_card_files_are_one_line(files, tmp_path):
    _folder, _board, path, log = files
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    one_line_error(run("board", "play", path, log, "--cards", deep), 2, "too deeply")
    big = tmp_path / "big.toml"
    big.write_text("# padding\n" * 200_000)
    one_line_error(run("board", "play", path, log, "--cards", big), 2, "larger than")
    one_line_error(run("board", "play", path, log, "--cards", tmp_path), 2, "cannot be read")
    with pytest.raises(InputError, match="too deeply"):
        load_cards(deep)


# --------------------------------------------------------------------------- printed board


def test_dollar_signs_in_names_print_as_text():
    board = real_board("monaco", 36, 24)
    odd = r"$\frac{$ 5 $ {{7*7}} </script>"
    named = dataclasses.replace(board, name=odd, starts=[(s, odd, k) for s, _n, k in board.starts])
    pdf = render_pdf(named, "a4")
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
