"""Issue 40 on the bundled real boards: cities over their built-up area, the names on the
board, the title, the warnings for missing terrain, the tracker's colour, player order."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from support.board_cases import AREAS, EXTRACTS, RULES8, real_board, write_area
from support.cli_runs import one_line_error
from support.cli_runs import run_caught as run

from stations_generator.board.build import dumps
from stations_generator.board.model import board_from_json, board_to_json
from stations_generator.board.page import POSSIBLE_COLOUR, POSSIBLE_LABEL, highlight_page
from stations_generator.board.render import COLOURS
from stations_generator.board.rules import BoardGame, RuleError
from stations_generator.board.tracker import Tracker
from stations_generator.cli import main
from stations_generator.errors import InputError

MONACO = ("monaco", 36, 24)
BAYREUTH = ("north-bayreuth", 24, 36)
BOARDS = [MONACO, BAYREUTH, ("liechtenstein", 24, 36), ("krems", 36, 24)]


# ----------------------------------------------------------------- city areas
@pytest.mark.parametrize("case", BOARDS, ids=lambda c: c[0])
def test_city_squares_are_joined_built_up_and_their_own(case):
    board = real_board(*case)
    g = board.grid
    owner: dict[int, int] = {}
    for centre, squares in board.city_squares.items():
        assert squares[0] == centre and centre in board.cities
        for s in squares:
            assert s not in owner, f"{g.name(s)} in two cities"
            owner[s] = centre
            assert board.kind(s) == "city" and "city" in board.flags(s)
            assert board.passable[s]
        # Joined to the node's square by 8-neighbour steps inside the city.
        seen, stack = {centre}, [centre]
        while stack:
            for n in g.neighbours(stack.pop(), 8):
                if n in squares and n not in seen:
                    seen.add(n)
                    stack.append(n)
        assert seen == set(squares)
        # Off the node's square a city square is built-up by the threshold, or lies in
        # an OSM outline of the city (a place area is used as it is).
        assert all(board.on_board[s] for s in squares)
    assert set(owner) == {s for s in range(g.size) if board.kind(s) == "city"}
    assert len(set(board.cities.values())) == len(board.cities)  # no city twice


def test_monaco_covers_its_built_up_area_not_one_square():
    board = real_board(*MONACO)
    by_name = {n: board.city_squares[s] for s, n in board.cities.items()}
    # OSM has Monaco's outline (place=town, admin_level 8) and Beausoleil's built-up area.
    assert len(by_name["Monaco"]) >= 10 and len(by_name["Beausoleil"]) >= 5
    # Both Monaco nodes (place=city and place=town) lie in the one city.
    assert list(by_name).count("Monaco") == 1


def test_public_transport_from_any_square_of_a_city_to_any_of_a_linked_one():
    board = real_board(*MONACO)
    a, b = next((a, b) for a, b in board.rail_links if len(board.city_squares[a]) > 1)
    edge_a = board.city_squares[a][-1]
    edge_b = board.city_squares[b][-1]
    assert edge_b in board.pt_targets[edge_a]
    start = board.starts[0][0]
    game = BoardGame(board, RULES8, start, 1, 0)
    game.visited, game.fugitive = {edge_a}, edge_a
    game.fugitive_action("PUBLIC_TRANSPORT", edge_b)
    assert game.fugitive == edge_b and game.pt_used == 1
    outside = next(
        s for s in range(board.grid.size) if board.passable[s] and s not in board.city_of
    )
    game.fugitive = outside
    with pytest.raises(RuleError, match="not a big city"):
        game.fugitive_action("PUBLIC_TRANSPORT", edge_a)
    tracker = Tracker(board, RULES8, edge_a)
    assert edge_b in tracker.preview()


def test_city_squares_and_labels_survive_board_json_and_are_checked():
    board = real_board(*MONACO)
    doc = json.loads(dumps(board_to_json(board)))
    again = board_from_json(doc)
    assert again.city_squares == board.city_squares and again.labels == board.labels
    centres = sorted(board.city_squares)
    bad = json.loads(json.dumps(doc))
    other = next(c for c in bad["cities"] if c["square"] != bad["cities"][0]["square"])
    other["squares"].append(bad["cities"][0]["squares"][-1])
    with pytest.raises(InputError, match="belongs to another city"):
        board_from_json(bad)
    bad = json.loads(json.dumps(doc))
    bad["labels"][0]["kind"] = "castle"
    with pytest.raises(InputError, match="labels\\[0\\]"):
        board_from_json(bad)
    assert len(centres) == len(board.cities)


# --------------------------------------------------------------------- labels
@pytest.mark.parametrize(
    "case, wanted",
    [(BAYREUTH, {"A 9", "A 70", "Roter Main"}), (MONACO, {"A 8"})],
    ids=["bayreuth", "monaco"],
)
def test_labels_name_motorways_and_rivers(case, wanted):
    board = real_board(*case)
    texts = {t for _s, t, _k in board.labels}
    assert wanted <= texts
    for s, text, kind in board.labels:
        assert board.on_board[s]
        if kind == "motorway":
            assert board.motorway[s], text  # on the road it numbers
        assert s not in board.city_of or kind in ("motorway", "river", "lake")


def test_title_is_the_regions_name(tmp_path):
    # The area file's name first; else OSM: Liechtenstein's box has Vaduz as its city.
    assert real_board("liechtenstein", 24, 36).name == "Vaduz"
    assert real_board(*MONACO).name == "Monaco"
    area = tmp_path / "zone-1.geojson"
    area.write_text(
        json.dumps(
            {
                "type": "Feature",
                "properties": {"name": "Fürstentum Liechtenstein"},
                "geometry": json.loads(write_area("liechtenstein", tmp_path).read_text()),
            }
        )
    )
    out = tmp_path / "out"
    ext = EXTRACTS / AREAS["liechtenstein"]
    r = CliRunner().invoke(
        main,
        [
            "board",
            "generate",
            str(area),
            "--osm",
            str(ext),
            "-o",
            str(out),
            "--cols",
            "12",
            "--rows",
            "18",
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads((out / "board.json").read_text())["name"] == "Fürstentum Liechtenstein"


# ------------------------------------------------------------------- warnings
def test_generate_warns_about_every_missing_terrain_with_the_option(tmp_path):
    area = write_area("liechtenstein", tmp_path)
    ext = EXTRACTS / AREAS["liechtenstein"]
    r = CliRunner().invoke(
        main, ["board", "generate", str(area), "--osm", str(ext), "-o", str(tmp_path / "o")]
    )
    assert r.exit_code == 0, r.output
    warnings = [x for x in r.stderr.splitlines() if x.startswith("warning: ")]
    text = "\n".join(warnings)
    # Liechtenstein: no motorway, no place=city (its towns need --towns-above), no water.
    assert "no motorway between two junctions" in text and "HITCHHIKE" in text
    assert "no big city" in text and "--towns-above" in text
    assert "no water" in text and ("--water-share" in text or "larger area" in text)
    # With its towns as cities the city warning goes (and no other appears in its place).
    r2 = CliRunner().invoke(
        main,
        ["board", "generate", str(area), "--osm", str(ext), "-o", str(tmp_path / "p")]
        + ["--towns-above", "0"],
    )
    assert r2.exit_code == 0 and "no big city" not in r2.stderr
    assert "no rail link between big cities" in r2.stderr and "--station-km" in r2.stderr


def test_monaco_warns_only_about_what_it_lacks(tmp_path):
    area = tmp_path / "monaco.geojson"
    area.write_text(
        json.dumps(
            {
                "type": "Polygon",
                "coordinates": [
                    [[7.349, 43.71], [7.491, 43.71], [7.491, 43.77], [7.349, 43.77], [7.349, 43.71]]
                ],
            }
        )
    )
    ext = EXTRACTS / AREAS["monaco"]
    r = CliRunner().invoke(
        main,
        ["board", "generate", str(area), "--osm", str(ext), "-o", str(tmp_path / "o")]
        + ["--towns-above", "0"],
    )
    assert r.exit_code == 0, r.output
    warnings = [x for x in r.stderr.splitlines() if x.startswith("warning: no ")]
    assert len(warnings) == 1 and "airfield" in warnings[0], warnings


# ------------------------------------------------------------------- tracker
def _rgb(c: str) -> np.ndarray:
    return np.array([int(c[i : i + 2], 16) for i in (1, 3, 5)], dtype=float)


def test_possible_squares_have_their_own_colour_and_legend_entry():
    for kind, colour in COLOURS.items():
        assert np.abs(_rgb(POSSIBLE_COLOUR) - _rgb(colour)).max() >= 100, kind
    board = real_board(*MONACO)
    page = highlight_page(board, {board.starts[0][0]}, "Possible squares", "1 square")
    assert POSSIBLE_COLOUR in page and POSSIBLE_LABEL in page
    assert page.count(COLOURS["motorway"]) >= 1  # the legend's own motorway row


# --------------------------------------------------------------- player order
def test_player_order_is_enforced_when_the_log_names_players(tmp_path):
    board = real_board(*MONACO)
    path = tmp_path / "board.json"
    path.write_text(dumps(board_to_json(board)))
    start = board.starts[0][0]
    quiet = ("drone", "calls")

    def dealt(seed):
        return BoardGame(board, RULES8, start, 2, seed)

    # The first deck seed that deals both players a Drone or Calls card (no pawn to move).
    seed = next(k for k in range(100) if all(set(h) & set(quiet) for h in dealt(k).hands))
    game = dealt(seed)
    name = board.grid.name
    lines, here = [], start
    for turn, budget in ((0, 10), (1, 5)):
        for _ in range(budget):
            here = next(n for n in board.steps(8)[here] if n not in game.visited)
            game.fugitive_action("STEP", here)
            lines.append({"turn": turn, "fugitive": "STEP", "to": name(here)})
        if turn == 0:
            game.end_turn()
    p1, p2 = (next(c for c in h if c in quiet) for h in game.hands)
    head = {"start": name(start), "team": 2, "seed": seed}
    cards = [
        {"turn": 1, "team": "CARD", "card": p2, "player": 2},
        {"turn": 1, "team": "CARD", "card": p1, "player": 1},
    ]
    van = {"turn": 1, "team": "VAN", "to": [name(board.steps(8)[start][0])]}

    def log(file, *extra):
        rows = [head, *lines, *cards, *extra]
        (tmp_path / file).write_text("".join(json.dumps(x) + "\n" for x in rows))
        return tmp_path / file

    # Player 2 begins, player 1 follows clockwise; an unnamed line is player 1's.
    r = run("board", "play", path, log("good.jsonl", van))
    assert r.exit_code == 0, r.output
    one_line_error(
        run("board", "play", path, log("bad.jsonl", {**van, "player": 2})),
        6,
        "turn 1, team action 3",
        "player 2 after player 1",
        "clockwise",
    )


# ------------------------------------------------ the rulebook's fugitive, real boards
def _cul_de_sac(board):
    """A square with one way in (one passable neighbour) and no ride out, and a path to it.

    Returns ``(start, path)``: the path from the start location ends on the square, each
    step to a passable 8-neighbour, no square twice.
    """
    from collections import deque

    steps = board.steps(8)
    special = set(board.junctions) | set(board.city_of) | set(board.airfields)
    special |= set(board.water_body) | {s for s, _n, _k in board.starts}
    pockets = [s for s in range(board.grid.size) if len(steps[s]) == 1 and s not in special]
    for start, _n, _k in board.starts:
        back = {start: None}
        queue = deque([start])
        while queue:
            x = queue.popleft()
            for y in steps[x]:
                if y not in back:
                    back[y] = x
                    queue.append(y)
        for pocket in pockets:
            if pocket in back:
                path = [pocket]
                while back[path[-1]] is not None:
                    path.append(back[path[-1]])
                return start, path[::-1][1:]
    return None


def test_a_fugitive_walking_into_a_cul_de_sac_is_trapped_and_loses():
    trapped = 0
    for case in (BAYREUTH, MONACO, ("krems", 36, 24)):
        board = real_board(*case)
        found = _cul_de_sac(board)
        if found is None:
            continue
        start, path = found
        game = BoardGame(board, RULES8, start, 1, 0)
        for to in path:
            game.fugitive_action("STEP", to)
            if game.slots == game.budget:
                assert game.end_turn().winner is None
        assert game.trapped and all(a == "OFFLINE" for a, _to in game.fugitive_moves())
        with pytest.raises(RuleError, match="not a fugitive action of the rulebook"):
            game.fugitive_action("WAIT")
        result = game.end_turn()
        assert result.winner == "hunters" and result.observation.trapped and not result.captured
        trapped += 1
    assert trapped >= 1  # at least one bundled board has a cul-de-sac (Bayreuth's forests)


def test_an_offline_turn_catches_no_one_on_a_real_board():
    from stations_generator.board.rules import HouseRules, load_cards

    board = real_board(*MONACO)
    results = {}
    for capture in (False, True):
        rules = HouseRules(cards=load_cards(), offline_capture=capture)
        start = board.starts[0][0]
        game = BoardGame(board, rules, start, 1, 0)
        here = start
        for turn in (0, 1):
            if turn:
                game.fugitive_action("OFFLINE")
            while game.slots < game.budget:
                here = next(n for n in board.steps(8)[here] if n not in game.visited)
                game.fugitive_action("STEP", here)
            if turn:
                game.van = here  # the van ends the OFFLINE turn on the fugitive's square
            results[capture, turn] = game.end_turn()
    rulebook, house = results[False, 1], results[True, 1]
    assert rulebook.observation.reveal is None and house.observation.reveal is None
    assert not rulebook.captured and rulebook.winner is None  # no location handed over
    assert house.captured and house.winner == "hunters"  # --house-offline-capture


def test_board_play_names_a_trapped_fugitive(tmp_path):
    board = real_board(*BAYREUTH)
    start, path = _cul_de_sac(board)
    name = board.grid.name
    lines = [{"start": name(start), "team": 1, "seed": 0}]
    slots = [0] * 10 + [t for t in range(1, 30) for _ in range(5)]  # each step's turn
    lines += [
        {"turn": t, "fugitive": "STEP", "to": name(s)}
        for t, s in zip(slots[: len(path)], path, strict=True)
    ]
    trap_turn = slots[len(path)]  # the turn of the action it cannot take
    if trap_turn > lines[-1]["turn"]:  # that turn has no fugitive line: the team's one
        lines.append({"turn": trap_turn, "team": "VAN", "to": [name(board.steps(8)[start][0])]})
    path_file = tmp_path / "board.json"
    path_file.write_text(dumps(board_to_json(board)))
    log = tmp_path / "trapped.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = run("board", "play", path_file, log, "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["winner"] == "hunters" and "trapped" in doc["status"]
    assert doc["turns"][-1]["trapped"] and not doc["turns"][-1]["captured"]
