"""The tracker: sound over many simulated turns, and equal to brute force on small boards."""

from __future__ import annotations

import random

import pytest
from support.board_cases import RULES8, real_board, small_board

from stations_generator.board.rules import BoardGame, HouseRules, load_cards
from stations_generator.board.tracker import Tracker

CARDS = load_cards()


def random_turn(game: BoardGame, rng: random.Random, team_cards: bool = True) -> None:
    """Random legal fugitive actions, then random team actions (cards included)."""
    while game.slots < game.budget:
        moves = game.fugitive_moves()
        if game.trapped:
            break  # trapped: no legal action left, the turn ends the game
        action, to = rng.choice(moves)
        game.fugitive_action(action, to)
    if game.turn == 0:
        return
    b = game.board
    for _ in range(game.rules.actions):
        options = [("VAN", [n]) for n in b.steps(game.rules.neighbours)[game.van]]
        hand = game.hands[0]
        if team_cards and "drone" in hand:
            options.append(("drone", None))
        if team_cards and "calls" in hand:
            options.append(("calls", None))
        if "hunter" in hand:
            origin = game.hunters[0] if game.hunters[0] is not None else game.van
            options += [("hunter", [n]) for n in b.steps(game.rules.neighbours)[origin]]
        if not options:
            break
        kind, path = rng.choice(options)
        if kind == "VAN":
            game.team_action("VAN", path)
        else:
            game.team_action("CARD", path, card=kind, pawn=1 if kind == "hunter" else None)


def play_and_track(board, rules, start, seed, cap, check) -> int:
    rng = random.Random(seed)
    game = BoardGame(board, rules, start, 1, seed)
    tracker = Tracker(board, rules, start, cap)
    turns = 0
    while not game.winner:
        random_turn(game, rng)
        result = game.end_turn()
        tracker.observe(result.observation)
        check(game, tracker, result)
        turns += 1
    return turns


def _play_and_track(board, rules, start, seed):
    """One random game: the tracker, every observation and the tracker's set after each."""
    observations, tracked, trackers = [], [], []

    def record(game, tracker, result):
        observations.append(result.observation)
        tracked.append(set(tracker.before_reveal))
        trackers[:] = [tracker]

    play_and_track(board, rules, start, seed, 10**9, record)
    return trackers[0], observations, tracked


def _sound(game, tracker, result):
    if result.captured:  # the team sees the catch
        assert game.fugitive in result.observation.catchers
    assert game.fugitive in tracker.before_reveal, f"turn {result.turn}: true square not in the set"
    assert game.fugitive in tracker.squares()


#: The house rules the project had before issue 40: WAIT, and capture in an OFFLINE turn.
HOUSE8 = HouseRules(neighbours=8, cards=CARDS, wait=True, offline_capture=True)


def test_sound_on_real_and_small_boards_quick():
    turns = 0
    monaco = real_board("monaco", 36, 24)
    for seed in range(6):
        turns += play_and_track(
            monaco, RULES8, monaco.starts[seed % len(monaco.starts)][0], seed, 400, _sound
        )
    small = small_board()
    for seed in range(20):
        rules = RULES8 if seed % 2 else HOUSE8
        turns += play_and_track(small, rules, small.starts[seed % 2][0], seed, 400, _sound)
    assert turns >= 250


@pytest.mark.slow
def test_sound_over_10000_simulated_turns():
    """Over 10,000 turns of random games the true square is always in the set.

    1,500 turns on three real boards (with a small cap, so merging is exercised), the
    rest on the hand-drawn board (every special move available), 4 and 8 neighbours.
    """
    boards = [
        real_board("monaco", 36, 24),
        real_board("north-bayreuth", 24, 36),
        real_board("krems", 36, 24),
    ]
    turns, seed = 0, 100
    while turns < 1_500:
        b = boards[seed % len(boards)]
        rules = (RULES8, HouseRules(neighbours=4, cards=CARDS), HOUSE8)[seed % 3]
        turns += play_and_track(b, rules, b.starts[seed % len(b.starts)][0], seed, 150, _sound)
        seed += 1
    small = small_board()
    while turns < 10_000:
        rules = (RULES8, HouseRules(neighbours=4, cards=CARDS), HOUSE8)[seed % 3]
        turns += play_and_track(small, rules, small.starts[seed % 2][0], seed, 300, _sound)
        seed += 1
    assert turns >= 10_000


# ------------------------------------------------------------- brute force
def _clone(g: BoardGame) -> BoardGame:
    c = object.__new__(BoardGame)
    c.board, c.rules, c.turn, c.winner = g.board, g.rules, g.turn, None
    c.fugitive, c.visited, c.trail = g.fugitive, set(g.visited), list(g.trail)
    c.slots, c.hitchhiked, c.pt_used, c.extreme, c.offline = (
        g.slots,
        g.hitchhiked,
        g.pt_used,
        g.extreme,
        g.offline,
    )
    return c


def _key(g: BoardGame):
    return (g.fugitive, frozenset(g.visited), g.pt_used, g.extreme is not None, g.offline)


def _turn_sequences(g: BoardGame):
    """Every complete turn from state ``g`` (all action orders), through the engine itself.

    A trapped state (actions left, no legal one) ends its turn where it stands.
    """
    if g.slots >= g.budget or g.trapped:
        yield g
        return
    for action, to in g.fugitive_moves():
        c = _clone(g)
        c.fugitive_action(action, to)
        yield from _turn_sequences(c)


def _consistent(end: BoardGame, obs, board) -> bool:
    cols = board.grid.cols
    for slot, van, radius, within in obs.drone:
        s = end.trail[min(slot, len(end.trail) - 1)]
        d = max(abs(s // cols - van // cols), abs(s % cols - van % cols))
        if (d <= radius) != within:
            return False
    for slot, what, index in obs.calls:
        s = end.trail[min(slot, len(end.trail) - 1)]
        if (s % cols if what == "column" else s // cols) != index:
            return False
    if end.trapped != obs.trapped:
        return False
    handed_over = end.offline != 1 or end.rules.offline_capture
    return (end.fugitive in obs.catchers and handed_over) == obs.caught


def brute_force(board, rules, start, observations):
    """Square sets (before each reveal) by enumerating every fugitive history."""
    root = object.__new__(BoardGame)
    root.board, root.rules, root.turn, root.winner = board, rules, 0, None
    root.fugitive, root.visited, root.trail = start, {start}, [start]
    root.slots, root.hitchhiked, root.pt_used, root.extreme, root.offline = 0, False, 0, None, 0
    states = {_key(root): root}
    sets = []
    for obs in observations:
        ends = {}
        for st in states.values():
            for end in _turn_sequences(st):
                if _consistent(end, obs, board):
                    ends.setdefault(_key(end), end)
        sets.append({e.fugitive for e in ends.values()})
        nxt = {}
        for _k, e in ends.items():
            if obs.reveal is None:
                if e.offline != 1:
                    continue
                e.offline = 2
            elif e.fugitive != obs.reveal or e.offline == 1:
                continue
            e.turn, e.slots, e.hitchhiked, e.trail = e.turn + 1, 0, False, [e.fugitive]
            nxt[_key(e)] = e
        states = nxt
    return sets


SMALL_RULES = HouseRules(
    neighbours=8, cards=CARDS, head_start=3, actions=2, extreme_cost=2, turns=6
)


@pytest.mark.parametrize("seed", range(8))
def test_equals_brute_force_on_the_small_board(seed):
    board = small_board()
    rules = (
        SMALL_RULES
        if seed % 2
        else HouseRules(neighbours=4, cards=CARDS, head_start=4, actions=3, extreme_cost=3, turns=5)
    )
    start = board.starts[seed % 2][0]
    tracker, observations, tracked = _play_and_track(board, rules, start, seed)
    assert tracker.exact
    _same_as_brute_force(tracked, brute_force(board, rules, start, observations), observations)
    assert any(len(s) > 1 for s in tracked)  # the sets were not trivial


def _same_as_brute_force(tracked, exact, observations) -> None:
    """Equal turn by turn; in a turn that ends with the fugitive trapped, a superset."""
    assert len(tracked) == len(exact)
    for got, want, obs in zip(tracked, exact, observations, strict=True):
        assert got >= want if obs.trapped else got == want, obs.turn


def test_equals_brute_force_with_offline_and_rides_on_a_real_board():
    board = real_board("monaco", 36, 24)
    rules = HouseRules(neighbours=4, cards=CARDS, head_start=3, actions=2, extreme_cost=2, turns=8)
    for seed in range(3):
        start = board.starts[seed][0]
        _, observations, tracked = _play_and_track(board, rules, start, seed)
        _same_as_brute_force(tracked, brute_force(board, rules, start, observations), observations)


def test_offline_turn_widens_the_set_and_reveal_narrows_it():
    board = small_board()
    sq = board.grid.index
    g = BoardGame(board, HOUSE8, sq("A01"), 1, 0)
    t = Tracker(board, HOUSE8, sq("A01"))
    for to in ("B01", "C01"):
        g.fugitive_action("STEP", sq(to))
    while g.slots < g.budget:
        g.fugitive_action("WAIT")
    t.observe(g.end_turn().observation)
    assert t.squares() == {sq("C01")}
    g.fugitive_action("OFFLINE")
    for to in ("D01", "E01"):
        g.fugitive_action("STEP", sq(to))
    for _ in range(3):
        g.fugitive_action("WAIT")
    t.observe(g.end_turn().observation)
    assert sq("E01") in t.squares() and len(t.squares()) > 5
    assert sq("C01") in t.squares()  # waiting all turn is possible
    assert len(t.preview()) >= len(t.squares())


@pytest.mark.parametrize("seed", range(4))
def test_equals_brute_force_under_the_old_house_rules(seed):
    """WAIT and capture in an OFFLINE turn, opt-in, tracked exactly as well."""
    board = small_board()
    rules = HouseRules(
        neighbours=8 if seed % 2 else 4,
        cards=CARDS,
        head_start=3,
        actions=2,
        extreme_cost=2,
        turns=6,
        wait=True,
        offline_capture=True,
    )
    start = board.starts[seed % 2][0]
    tracker, observations, tracked = _play_and_track(board, rules, start, seed)
    assert tracker.exact
    _same_as_brute_force(tracked, brute_force(board, rules, start, observations), observations)


def test_without_wait_the_set_holds_no_parked_fugitive():
    """Rulebook: a fugitive on C01 after the head start is not on C01 a turn later."""
    board = small_board()
    sq = board.grid.index
    t = Tracker(board, RULES8, sq("A01"))
    g = BoardGame(board, RULES8, sq("A01"), 1, 0)
    for to in ("B01", "C01", "D02", "E02", "F02", "F03", "E04", "E05", "D05", "D06"):
        g.fugitive_action("STEP", sq(to))
    t.observe(g.end_turn().observation)
    assert t.squares() == {sq("D06")}
    assert sq("D06") not in t.preview()  # never the same square twice, and no WAIT
    house = Tracker(board, HOUSE8, sq("A01"))
    house.hyps = {(sq("D06"), next(iter(t.hyps))[1], 0, False, 0, False, -1, 0)}
    house.turn = 1
    assert sq("D06") in house.preview()
