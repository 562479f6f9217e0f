"""The board commands end to end (in-process), and bad input: one line, nothing half-written."""

from __future__ import annotations

import json

import pytest
from support.board_cases import AREAS, EXTRACTS, real_board, write_area
from support.cli_runs import one_line_error
from support.cli_runs import run_caught as run

from stations_generator.board.build import dumps
from stations_generator.board.model import board_to_json
from stations_generator.board.players import BoardGraphs
from stations_generator.board.rules import HouseRules, load_cards
from stations_generator.board.simulate import play_game, simulate

RULES = HouseRules(cards=load_cards())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("board-cli")
    board = real_board("monaco", 36, 24)
    path = folder / "board.json"
    path.write_text(dumps(board_to_json(board)))
    graphs = BoardGraphs(board, RULES)
    logs = {}
    # A game the fugitive wins and one the hunt team wins after turn 5 (the first seeds).
    for seed in range(3, 60):
        rec = play_game(
            board, RULES, graphs, board.starts[seed % len(board.starts)][0], seed, record=True
        )
        kind = "long" if rec.winner == "fugitive" else "caught" if rec.turn > 5 else None
        if kind and kind not in logs:
            logs[kind] = rec
            (folder / f"game-{kind}.jsonl").write_text(
                "".join(json.dumps(x) + "\n" for x in rec.log)
            )
        if len(logs) == 2:
            break
    assert set(logs) == {"long", "caught"}
    return folder, board, path, logs


def test_play_referees_a_computer_game(files):
    folder, board, path, logs = files
    for kind, rec in logs.items():
        r = run("board", "play", path, folder / f"game-{kind}.jsonl")
        assert r.exit_code == 0, r.output
        last = r.stdout.strip().splitlines()[-1]
        assert last.startswith("legal; ")
        assert ("hunt team won" in last) == (rec.winner == "hunters")


def _tamper(folder, log, index, change, name):
    lines = [dict(x) for x in log]
    lines[index].update(change)
    p = folder / name
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return p


def test_illegal_actions_stop_with_the_rule(files):
    folder, board, path, logs = files
    log = logs["long"].log
    # Turn 0's first action made into a jump across the board.
    far = board.grid.name(board.grid.size - 1)
    p = _tamper(folder, log, 1, {"fugitive": "STEP", "to": far}, "bad1.jsonl")
    one_line_error(run("board", "play", path, p), 6, "turn 0, action 1:", "(line 2)")
    # Hitchhiking from a square that is no junction.
    p = _tamper(folder, log, 1, {"fugitive": "HITCHHIKE"}, "bad2.jsonl")
    one_line_error(run("board", "play", path, p), 6, "HITCHHIKE from", "not a motorway junction")

    # A turn's last fugitive line dropped (a turn of five 1-action moves): one action
    # short with legal actions left.
    def five_moves(t: int) -> bool:
        moves = [x["fugitive"] for x in log if x.get("turn") == t and "fugitive" in x]
        return len(moves) == 5 and set(moves) <= {"STEP", "HITCHHIKE", "PUBLIC_TRANSPORT"}

    turn = next(t for t in range(1, 26) if five_moves(t))
    last = max(i for i, x in enumerate(log) if x.get("turn") == turn and "fugitive" in x)
    lines = [x for i, x in enumerate(log) if i != last]
    p = folder / "bad3.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    one_line_error(run("board", "play", path, p), 6, "the fugitive took 4 of 5", "spends them all")
    # WAIT is the opt-in house rule only.
    p = _tamper(folder, log, 1, {"fugitive": "WAIT"}, "bad4.jsonl")
    one_line_error(run("board", "play", path, p), 6, "turn 0, action 1:", "--house-wait")


def test_hitchhike_twice_is_named_like_the_issue(tmp_path):
    from support.board_cases import small_board

    board = small_board()
    path = tmp_path / "small.json"
    path.write_text(dumps(board_to_json(board)))
    lines = [{"start": "A01"}]
    lines += [{"turn": 0, "fugitive": "STEP", "to": t} for t in ("B01", "C01", "D01")]
    lines += [{"turn": 0, "fugitive": "WAIT"}] * 7
    lines += [
        {"turn": 1, "fugitive": "HITCHHIKE", "to": "E03"},
        {"turn": 1, "fugitive": "HITCHHIKE", "to": "F06"},
    ]
    log = tmp_path / "g.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in lines))
    one_line_error(
        run("board", "play", path, log, "--house-wait"),
        6,
        "turn 1, action 2: HITCHHIKE used twice this turn",
    )


@pytest.mark.parametrize(
    "text, words",
    [
        ("", ["is empty"]),
        ("not json\n", ["line 1 is not JSON"]),
        ('{"team": 1}\n', ["header", "start"]),
        ('{"start": "ZZ04"}\n', ["off the board"]),
        ('{"start": "K04"}\n', ["not a start location"]),
        (
            '{"start": "AB04"}\n{"turn": 0, "fugitive": "STEP", "to": "ZZ99"}\n',
            ["ZZ99", "off the board"],
        ),
        ('{"start": "AB04"}\n{"turn": 0, "fugitive": "STEP", "to": 7}\n', ["not a coordinate"]),
        (
            '{"start": "AB04"}\n{"turn": 2, "fugitive": "WAIT"}\n{"turn": 1, "fugitive": "WAIT"}\n',
            ["turn order"],
        ),
        ('{"start": "AB04"}\n{"turn": 0, "fugitive": "WAIT", "team": "VAN"}\n', ["exactly one of"]),
        ('{"start": "AB04", "team": 5}\n', ["team", "1–3"]),
        ('{"start": "AB04"}\n[1, 2]\n', ["not a JSON object"]),
        ('{"start": "AB04"}\n{"turn": NaN, "fugitive": "WAIT"}\n', ["turn"]),
        (
            '{"start": "AB04"}\n'
            + '{"turn": 0, "fugitive": "WAIT"}\n' * 10
            + '{"turn": 1, "team": "CARD", "card": 5}\n',
            ["not a card type"],
        ),
        (
            '{"start": "AB04"}\n'
            + '{"turn": 0, "fugitive": "WAIT"}\n' * 10
            + '{"turn": 1, "team": "CARD", "card": "hunter", "pawn": "1", "to": "AB05"}\n',
            ["pawn"],
        ),
    ],
)
def test_malformed_logs_are_one_line_errors(files, tmp_path, text, words):
    _folder, _board, path, _logs = files
    log = tmp_path / "g.jsonl"
    log.write_text(text)
    r = run("board", "play", path, log, "--house-wait")
    assert r.exit_code in (2, 6)
    one_line_error(r, r.exit_code, *words)


def test_bad_board_files(files, tmp_path):
    _folder, _board, path, logs = files
    log = tmp_path / "g.jsonl"
    log.write_text(json.dumps(logs["long"].log[0]) + "\n")
    one_line_error(run("board", "play", tmp_path / "missing.json", log), 2, "does not exist")
    doc = json.loads(path.read_text())
    for change, words in (
        ({"version": 9}, ["version 9"]),
        ({"format": "x"}, ["format"]),
        ({"grid": {**doc["grid"], "cell_m": float("inf")}}, ["not a finite number"]),
        ({"grid": {**doc["grid"], "cell_m": -5}}, ["grid.cell_m"]),
        ({"squares": doc["squares"][:-1]}, ["squares has"]),
        ({"motorway": [["A01", "B01"]]}, ["does not join two junctions"]),
        ({"starts": [{"square": "ZZ1", "name": "x"}]}, ["starts[0].square"]),
    ):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**doc, **change}))
        one_line_error(run("board", "play", bad, log), 2, *words)


def test_track_prints_sets_and_writes_a_map(files):
    folder, board, path, logs = files
    page = folder / "track.html"
    r = run(
        "board",
        "track",
        path,
        folder / "game-long.jsonl",
        "--json",
        "--map",
        page,
        "--after-turn",
        5,
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["after_turn"] == 5 and len(doc["now"]) == 1 and doc["game_over"] is None
    assert len(doc["end_of_next_turn"]) > 10  # five actions from the reveal
    assert "Possible squares" in page.read_text()
    r = run("board", "track", path, folder / "game-long.jsonl", "--json")
    doc = json.loads(r.stdout)
    assert doc["game_over"] == logs["long"].winner and doc["end_of_next_turn"] == []


def test_generate_errors_leave_nothing(tmp_path):
    area = write_area("liechtenstein", tmp_path)
    far = write_area("monaco", tmp_path)
    ext = EXTRACTS / AREAS["liechtenstein"]
    out = tmp_path / "out"
    one_line_error(
        run("board", "generate", far, "--osm", ext, "-o", out), 2, "lies outside the extract"
    )
    assert not out.exists() or not any(out.iterdir())
    one_line_error(
        run("board", "generate", area, "--osm", ext, "-o", out, "--cell-km", "400"), 3, "no square"
    )
    assert not out.exists() or not any(out.iterdir())
    one_line_error(
        run("board", "generate", area, "--osm", tmp_path / "nope.osm.pbf", "-o", out),
        2,
        "does not exist",
    )
    one_line_error(
        run("board", "generate", area, "--osm", ext, "--cols", "10", "-o", out),
        2,
        "both --cols and --rows",
    )
    tiny = tmp_path / "tiny.geojson"  # ~0.7 km² of mountain forest: nothing named
    tiny.write_text(
        json.dumps(
            {
                "type": "Polygon",
                "coordinates": [
                    [[9.60, 47.10], [9.61, 47.10], [9.61, 47.108], [9.60, 47.108], [9.60, 47.10]]
                ],
            }
        )
    )
    r = run("board", "generate", tiny, "--osm", ext, "-o", out, "--cols", "4", "--rows", "4")
    one_line_error(r, 3, "start location", "choose a larger area")
    assert not out.exists() or not any(out.iterdir())
    bad_area = tmp_path / "bad.geojson"
    bad_area.write_text("{")
    r = run("board", "generate", bad_area, "--osm", ext, "-o", out)
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_cards_file_errors(files, tmp_path):
    _folder, _board, path, logs = files
    cards = tmp_path / "cards.toml"
    cards.write_text('[[card]]\ntype = "joker"\ncount = 3\n')
    one_line_error(
        run("board", "play", path, _folder / "game-long.jsonl", "--cards", cards), 2, "joker"
    )
    cards.write_text("[[card")
    one_line_error(
        run("board", "play", path, _folder / "game-long.jsonl", "--cards", cards), 2, "not TOML"
    )


def test_simulate_is_deterministic_and_beats_random(files):
    _folder, board, path, _logs = files
    r1 = run("board", "simulate", path, "--games", "12", "--seed", "4", "--json")
    r2 = run("board", "simulate", path, "--games", "12", "--seed", "4", "--json")
    assert r1.exit_code == 0, r1.output
    assert r1.stdout == r2.stdout
    doc = json.loads(r1.stdout)
    assert len(doc["per_start"]) == len(board.starts)
    assert all(0 <= row["ci95"][0] <= row["ci95"][1] <= 1 for row in doc["per_start"])
    text = run("board", "simulate", path, "--games", "6")
    assert "95 % CI" in text.stdout and "special moves per game" in text.stdout


@pytest.mark.slow
def test_computer_hunt_team_beats_random_by_a_wide_margin():
    board = real_board("monaco", 36, 24)
    smart = simulate(board, RULES, 240, 1, hunters="computer")
    rand = simulate(board, RULES, 240, 1, hunters="random")
    # The hunters' capture rate: computer at least 25 points above random, intervals apart.
    assert (1 - smart["fugitive_win_rate"]) >= (1 - rand["fugitive_win_rate"]) + 0.25
    assert smart["ci95"][1] < rand["ci95"][0]


def hunters_log(board, full_log, results):
    """The hunt team's own log of a game: its lines, the reveals, the card answers."""
    name = board.grid.name
    out = [full_log[0]]
    answers = {}
    for r in results:
        o = r.observation
        for slot, _van, _radius, within in o.drone:
            answers[(r.turn, slot)] = within
        for slot, what, index in o.calls:
            answers[(r.turn, slot)] = board.grid.name(index)[:-2] if what == "column" else index + 1
    counts = {}
    for line in full_log[1:]:
        if "team" in line:
            counts[line["turn"]] = counts.get(line["turn"], 0) + 1
            line = dict(line)
            if line.get("card") in ("drone", "calls"):
                line["answer"] = answers[(line["turn"], counts[line["turn"]])]
            out.append(line)
    for r in results:
        out.append(
            {
                "turn": r.turn,
                "reveal": None if r.observation.reveal is None else name(r.observation.reveal),
            }
        )
    out.sort(key=lambda x: x.get("turn", -1))
    return out


def test_track_from_the_hunters_own_log_equals_the_full_log(files):
    from stations_generator.board.gamelog import parse_log, referee

    folder, board, path, logs = files
    for seed, rec in list(logs.items())[:1]:
        text = "".join(json.dumps(x) + "\n" for x in rec.log)
        done = referee(board, RULES, parse_log(text))
        own = folder / f"hunters{seed}.jsonl"
        own.write_text(
            "".join(json.dumps(x) + "\n" for x in hunters_log(board, rec.log, done.results))
        )
        for turn in (6,):
            a = run(
                "board",
                "track",
                path,
                folder / f"game-{seed}.jsonl",
                "--after-turn",
                turn,
                "--json",
            )
            b = run("board", "track", path, own, "--after-turn", turn, "--json")
            assert a.exit_code == 0 and b.exit_code == 0, b.output
            assert json.loads(a.stdout) == json.loads(b.stdout)
    bad = folder / "hunters-bad.jsonl"
    lines = [
        x
        for x in hunters_log(board, rec.log, done.results)
        if x.get("turn") != 2 or "reveal" not in x
    ]
    bad.write_text("".join(json.dumps(x) + "\n" for x in lines))
    one_line_error(run("board", "track", path, bad), 2, "turn 2", "reveal")


def test_board_help_lists_only_its_commands():
    r = run("board", "--help")
    assert r.exit_code == 0
    listed = [line.split()[0] for line in r.stdout.split("Commands:")[1].strip().splitlines()]
    assert listed == ["generate", "play", "simulate", "track"]
    for sub in listed:
        assert run("board", sub, "--help").exit_code == 0
