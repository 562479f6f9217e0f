"""Computer against computer: a board's balance (``board simulate``).

Game ``i`` starts at start location ``i mod (number of starts)`` and uses seeds
derived from ``(seed, i)``, so a run is reproducible and any game can be replayed
alone. The fugitive's win rate per start comes with a Wilson 95 % interval.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field

from stations_generator.board.model import Board
from stations_generator.board.players import (
    BoardGraphs,
    FugitivePlayer,
    HuntTeamPlayer,
    RandomHuntTeam,
)
from stations_generator.board.rules import BoardGame, HouseRules

__all__ = ["GameRecord", "play_game", "simulate", "wilson"]

SPECIALS = ("HITCHHIKE", "PUBLIC_TRANSPORT", "HELICOPTER", "BOAT", "OFFLINE")


@dataclass
class GameRecord:
    start: int
    winner: str
    turn: int  # capture turn, or the last turn
    specials: Counter = field(default_factory=Counter)
    log: list[dict] = field(default_factory=list)
    trapped: bool = False  # lost with actions left and no legal one


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


class _Recorder:
    """Wraps a BoardGame to log every action as a game-log line."""

    def __init__(self, game: BoardGame, record: bool):
        self.game, self.lines, self.record = game, [], record
        name = game.board.grid.name
        self._name = name
        orig_f, orig_t = game.fugitive_action, game.team_action

        def fugitive_action(action, to=None):
            orig_f(action, to)
            if record:
                line = {"turn": game.turn, "fugitive": action}
                if to is not None:
                    line["to"] = name(to)
                self.lines.append(line)

        def team_action(action, to=None, **kw):
            out = orig_t(action, to, **kw)
            if record:
                path = [to] if isinstance(to, int) else list(to or [])
                line = {"turn": game.turn, "team": action}
                if path:
                    line["to"] = [name(s) for s in path]
                for k in ("card", "player", "pawn"):
                    if kw.get(k) is not None:
                        line[k] = kw[k]
                self.lines.append(line)
            return out

        game.fugitive_action = fugitive_action  # type: ignore[method-assign]
        game.team_action = team_action  # type: ignore[method-assign]


def play_game(
    board: Board,
    rules: HouseRules,
    graphs: BoardGraphs,
    start: int,
    seed: int,
    *,
    hunters: str = "computer",
    team: int = 1,
    record: bool = False,
) -> GameRecord:
    """One computer-against-computer game."""
    rng = random.Random(seed)
    deck_seed = rng.randrange(1 << 30)
    game = BoardGame(board, rules, start, team, deck_seed)
    rec = _Recorder(game, record)
    fugitive = FugitivePlayer(graphs, rng.randrange(1 << 30))
    team_ai = (HuntTeamPlayer if hunters == "computer" else RandomHuntTeam)(
        graphs, rng.randrange(1 << 30)
    )
    specials: Counter = Counter()
    reveal = start
    known = {start}
    while True:
        while game.slots < game.budget:
            choice = fugitive.choose(game, reveal)
            if choice is None:  # trapped: no legal action left (the turn ends it)
                break
            action, to = choice
            game.fugitive_action(action, to)
            if action in SPECIALS:
                specials[action] += 1
        if game.turn > 0:
            team_ai.play_turn(game, reveal, known)
        result = game.end_turn()
        if result.observation.reveal is not None:
            reveal = result.observation.reveal
            known.add(reveal)
        if result.winner:
            log = (
                [{"start": board.grid.name(start), "team": team, "seed": deck_seed}] + rec.lines
                if record
                else []
            )
            trapped = result.observation.trapped
            return GameRecord(start, result.winner, result.turn, specials, log, trapped)


def game_seed(seed: int, i: int) -> int:
    """The seed of game ``i`` of a run seeded ``seed``."""
    return seed * 1_000_003 + i


def simulate(
    board: Board,
    rules: HouseRules,
    games: int,
    seed: int,
    *,
    hunters: str = "computer",
    team: int = 1,
) -> dict:
    """Play ``games`` games; the balance report (see the module docstring)."""
    graphs = BoardGraphs(board, rules)
    starts = [s for s, _n, _k in board.starts]
    per: dict[int, list[int]] = {s: [0, 0] for s in starts}
    capture_turns: list[int] = []
    trapped = 0
    used: Counter = Counter()
    used_games: Counter = Counter()
    for i in range(games):
        start = starts[i % len(starts)]
        rec = play_game(
            board, rules, graphs, start, seed * 1_000_003 + i, hunters=hunters, team=team
        )
        per[start][1] += 1
        if rec.winner == "fugitive":
            per[start][0] += 1
        else:
            capture_turns.append(rec.turn)
        trapped += rec.trapped
        used.update(rec.specials)
        used_games.update(set(rec.specials))
    name = board.grid.name
    names = {s: n for s, n, _k in board.starts}
    rows = []
    for s in starts:
        wins, n = per[s]
        lo, hi = wilson(wins, n)
        rows.append(
            {
                "start": name(s),
                "name": names[s],
                "games": n,
                "fugitive_wins": wins,
                "win_rate": round(wins / n, 4) if n else None,
                "ci95": [round(lo, 4), round(hi, 4)],
            }
        )
    total_wins = sum(v[0] for v in per.values())
    lo, hi = wilson(total_wins, games)
    return {
        "games": games,
        "seed": seed,
        "hunters": hunters,
        "fugitive_win_rate": round(total_wins / games, 4) if games else None,
        "ci95": [round(lo, 4), round(hi, 4)],
        "mean_capture_turn": round(sum(capture_turns) / len(capture_turns), 2)
        if capture_turns
        else None,
        "trapped_share": round(trapped / games, 4) if games else None,
        "per_start": rows,
        "specials_per_game": {k: round(used[k] / games, 3) for k in SPECIALS} if games else {},
        "specials_share_of_games": {k: round(used_games[k] / games, 3) for k in SPECIALS}
        if games
        else {},
    }
