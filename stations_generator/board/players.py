"""Computer players (seeded): a fugitive, a hunt team, and a random hunt team.

* :class:`FugitivePlayer` sees what the real fugitive sees: its own state and its
  last revealed square, never the hunters (the rulebook: "the fugitive may not see
  what the hunt team is doing"). Each action it picks, among the legal ones, the
  one that best combines distance from the last revealed square (where the hunt
  will come), room to move next (free, passable neighbours: no dead ends, since it
  can never re-enter a square), and seeded noise; it rides public transport or
  flies when a ride takes it far from the reveal, and goes OFFLINE once, at a
  seeded random turn in the middle of the game. With no legal action left it is
  trapped (:meth:`FugitivePlayer.choose` returns None); WAIT only under the house rule.
* :class:`HuntTeamPlayer` plays against the possible-location set with
  determinization (Nijssen & Winands 2012): it samples fugitive continuations from
  the last reveal with a model of the fugitive (the same policy, other seeds, over
  the possible states), and sends the van and both hunter pawns to the squares
  where the samples end most often among those they can reach this turn (else
  towards the samples' centre). Drone and Calls cards are played only to cycle the
  hand when it holds no Hunter card. Its players act in the round's clockwise order.
* :class:`RandomHuntTeam` moves the van and the pawns at random (the baseline).
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from stations_generator.board.grid import MAX_SQUARES
from stations_generator.board.model import Board
from stations_generator.board.rules import BoardGame, HouseRules

__all__ = ["BoardGraphs", "FugitivePlayer", "HuntTeamPlayer", "RandomHuntTeam"]

FAR = 10_000
#: Free squares the computer fugitive wants within reach (on foot) before a move: 25
#: actions = 5 turns of room, so it never walks into a pocket it cannot leave.
LOOKAHEAD = 25
#: Sources per call of the all-pairs search: its float64 rows stay under 256 × 5000 × 8 B
#: = 10 MB beside the int32 table (at most 5000² × 4 B = 100 MB, see ``MAX_SQUARES``).
_DIST_CHUNK = 256


def _distances(adj: csr_matrix, n: int) -> np.ndarray:
    """Steps between every pair of squares (int32, ``FAR`` when unreachable), in chunks."""
    out = np.empty((n, n), dtype=np.int32)
    for lo in range(0, n, _DIST_CHUNK):
        hi = min(n, lo + _DIST_CHUNK)
        d = shortest_path(adj, unweighted=True, directed=False, indices=np.arange(lo, hi))
        d[~np.isfinite(d)] = FAR
        out[lo:hi] = d
    return out


class BoardGraphs:
    """Precomputed movement graphs and distances of a board (shared by all players)."""

    def __init__(self, board: Board, rules: HouseRules):
        self.board, self.rules = board, rules
        g = board.grid
        n = g.size
        if n > MAX_SQUARES:  # the distance table is n² entries
            raise ValueError(
                f"board: {g.cols} × {g.rows} = {n} squares is more than {MAX_SQUARES}; "
                "use a coarser grid"
            )
        passable = board.passable
        self.steps = [
            tuple(x for x in g.neighbours(s, rules.neighbours) if passable[x]) for s in range(n)
        ]
        rows, cols = [], []
        for s in range(n):
            if passable[s]:
                for x in self.steps[s]:
                    rows.append(s)
                    cols.append(x)
        adj = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
        self.dist = _distances(adj, n)
        # The van's one-action destinations: 1 step, 2 steps outside built-up, motorway.
        self.van_moves: list[list[tuple[int, ...]]] = []
        for s in range(n):
            moves = {(x,) for x in self.steps[s]}
            if not board.is_builtup[s]:
                for x in self.steps[s]:
                    if not board.is_builtup[x]:
                        for y in self.steps[x]:
                            if y != s:
                                moves.add((x, y))
            self.van_moves.append(sorted(moves))
        self.stepsets = [frozenset(x) for x in self.steps]


class FugitivePlayer:
    """The computer fugitive (see the module docstring)."""

    def __init__(self, graphs: BoardGraphs, seed: int = 0, noise: float = 1.5):
        self.g = graphs
        self.rng = random.Random(seed)
        self.noise = noise
        self.offline_turn = self.rng.randint(4, max(5, graphs.rules.turns - 4))

    def choose(self, game: BoardGame, reveal: int) -> tuple[str, int | None] | None:
        """The next action, or None when no legal action is left (the fugitive is trapped)."""
        moves = game.fugitive_moves()
        if game.turn == self.offline_turn and any(m[0] == "OFFLINE" for m in moves):
            return ("OFFLINE", None)
        dist = self.g.dist[reveal]
        best: tuple[str, int | None] | None = None
        best_score = -1e9
        visited = game.visited
        rules = game.rules
        # Without WAIT a pocket smaller than the actions still to play traps the fugitive.
        left = game.budget - game.slots + rules.actions * max(0, rules.turns - game.turn)
        need = 0 if rules.wait else min(left, LOOKAHEAD)
        floods: list[set[int]] = []  # free squares joined to each other: one flood serves all
        for action, to in moves:
            if action == "OFFLINE":
                continue
            if to is None:
                score = -3.0
            else:
                d = min(int(dist[to]), 40)
                room = len(self.g.stepsets[to] - visited)
                score = d + 0.6 * room - (4.0 if room == 0 else 0.0)
                if action in ("PUBLIC_TRANSPORT", "HELICOPTER", "BOAT"):
                    score -= 3.0  # keep the rides for when they take it far
                if need:
                    flood = next((f for f in floods if to in f), None)
                    if flood is None:
                        flood = self._region(to, visited, need)
                        floods.append(flood)
                    if len(flood) < need:
                        score -= 20.0 + (need - len(flood))
            score += self.rng.random() * self.noise
            if score > best_score:
                best, best_score = (action, to), score
        return best

    def _region(self, start: int, visited: set[int], cap: int) -> set[int]:
        """Free squares reachable on foot from ``start`` (``start`` included), up to ``cap``
        of them (any square of it reaches as many)."""
        seen = {start}
        queue = [start]  # breadth first: the squares next to ``start`` come in first
        steps = self.g.steps
        i = 0
        while i < len(queue) and len(seen) < cap:
            for y in steps[queue[i]]:
                if y not in seen and y not in visited:
                    seen.add(y)
                    queue.append(y)
            i += 1
        return seen


class HuntTeamPlayer:
    """The computer hunt team (see the module docstring)."""

    def __init__(self, graphs: BoardGraphs, seed: int = 0, samples: int = 12):
        self.g = graphs
        self.rng = random.Random(seed)
        self.samples = samples

    def _predict(self, game: BoardGame, reveal: int, known: set[int]) -> Counter:
        """End-of-turn squares of sampled fugitive continuations from the reveal."""
        ends: Counter = Counter()
        rules = game.rules
        for i in range(self.samples):
            sim = _Shadow(game, reveal, known)
            model = FugitivePlayer(self.g, seed=self.rng.randrange(1 << 30))
            model.offline_turn = -1
            for _ in range(rules.actions):
                choice = model.choose(sim, reveal)
                if choice is None:
                    break
                sim.apply(*choice)
            ends[sim.square] += 1
            del i
        return ends

    def play_turn(self, game: BoardGame, reveal: int, known: set[int] | None = None) -> None:
        """Play the team's actions of this turn; ``known``: squares known to be marked."""
        ends = self._predict(game, reveal, known or {reveal})
        rules = game.rules
        hand = [c for h in game.hands for c in h]
        hunter_cards = sum(1 for c in hand if c == "hunter")
        pawns = min(2, hunter_cards)
        van_actions = rules.actions - pawns
        taken: set[int] = set()
        # The van: best reachable end square within its actions.
        target = self._target(game.van, ends, taken, lambda s, k=van_actions: self._van_reach(s, k))
        taken.add(target)
        self._drive(game, target, van_actions)
        for pawn in range(1, pawns + 1):
            origin = game.hunters[pawn - 1]
            origin = game.van if origin is None else origin
            reach = self._hunter_reach(origin)
            t = self._target(origin, ends, taken, lambda s, r=reach: r)
            taken.add(t)
            player = next((i for i in game.players_left() if "hunter" in game.hands[i - 1]), None)
            path = self._hunter_path(origin, t)
            if path and player is not None:
                game.team_action("CARD", path, card="hunter", player=player, pawn=pawn)
            else:
                self._cycle(game)
        while game.team_actions < rules.actions and not any(
            "hunter" in game.hands[i - 1] for i in game.players_left()
        ):
            if not self._cycle(game):
                break

    def _cycle(self, game: BoardGame) -> bool:
        for i in game.players_left():
            h = game.hands[i - 1]
            for kind in ("drone", "calls"):
                if kind in h and game.team_actions < game.rules.actions:
                    game.team_action("CARD", None, card=kind, player=i)
                    return True
        return False

    # -------------------------------------------------------------- movement
    def _van_reach(self, s: int, k: int) -> set[int]:
        """Squares the van can likely reach with ``k`` actions (2 steps an action)."""
        return set(np.flatnonzero(self.g.dist[s] <= 2 * k).tolist())

    def _hunter_reach(self, s: int) -> dict[int, int]:
        out = {s: 0}
        for x in self.g.steps[s]:
            out.setdefault(x, 1)
            for y in self.g.steps[x]:
                out.setdefault(y, 2)
        return out

    def _target(self, origin: int, ends: Counter, taken: set[int], reach_of) -> int:
        reach = reach_of(origin)
        best = max((c for s, c in ends.items() if s in reach and s not in taken), default=0)
        if best:
            return min(s for s, c in ends.items() if c == best and s in reach and s not in taken)
        # Towards the samples: the reachable square nearest to them in total.
        squares = np.array(list(ends.elements())) if ends else np.array([origin])
        cand = sorted(reach)
        cost = self.g.dist[np.ix_(cand, squares)].sum(axis=1)
        return cand[int(np.argmin(cost))]

    def _drive(self, game: BoardGame, target: int, actions: int) -> None:
        """Drive the van greedily towards ``target`` (each action: the move that gets closest)."""
        b = self.g.board
        dist = self.g.dist[:, target]
        for _ in range(actions):
            here = game.van
            if here == target:
                return
            best = None
            for m in self.g.van_moves[here]:
                key = (int(dist[m[-1]]), len(m), m)
                if best is None or key < best[0]:
                    best = (key, "VAN", list(m))
            for j in b.junction_adj.get(here, ()):
                key = (int(dist[j]), 1, (j,))
                if best is None or key < best[0]:
                    best = (key, "MOTORWAY", [j])
            if best is None or best[0][0] >= int(dist[here]):
                return
            game.team_action(best[1], best[2])

    def _hunter_path(self, origin: int, target: int) -> list[int]:
        if origin == target:
            return []
        if target in self.g.steps[origin]:
            return [target]
        for x in self.g.steps[origin]:
            if target in self.g.steps[x]:
                return [x, target]
        return []


class _Shadow:
    """A light copy of the fugitive's side of a game, for sampled continuations."""

    def __init__(self, game: BoardGame, reveal: int, known: set[int]):
        self.board, self.rules = game.board, game.rules
        self.square = reveal
        self.visited = set(known) | {reveal}
        self.winner = None
        self.turn = game.turn
        self.slots = 0
        self.hitchhiked = False
        self.pt_used = 0
        self.extreme = None
        self.offline = 2

    @property
    def budget(self) -> int:
        return self.rules.actions

    def fugitive_moves(self):
        return BoardGame.fugitive_moves(self)  # same rules, on this light state

    @property
    def fugitive(self) -> int:
        return self.square

    def apply(self, action: str, to: int | None) -> None:
        cost = (
            self.rules.extreme_cost
            if action in ("HELICOPTER", "BOAT")
            else (0 if action == "OFFLINE" else 1)
        )
        if action == "HITCHHIKE":
            self.hitchhiked = True
        elif action == "PUBLIC_TRANSPORT":
            self.pt_used += 1
        elif action in ("HELICOPTER", "BOAT"):
            self.extreme = action
        if to is not None:
            self.square = to
            self.visited.add(to)
        self.slots += cost


class RandomHuntTeam:
    """Random legal hunt-team actions (the baseline the computer team must beat)."""

    def __init__(self, graphs: BoardGraphs, seed: int = 0):
        self.g = graphs
        self.rng = random.Random(seed)

    def play_turn(self, game: BoardGame, reveal: int, known: set[int] | None = None) -> None:
        b = self.g.board
        for _ in range(game.rules.actions):
            options: list[tuple] = [("VAN", list(m)) for m in self.g.van_moves[game.van]]
            options += [("MOTORWAY", [j]) for j in b.junction_adj.get(game.van, ())]
            for i in game.players_left():
                if "hunter" in game.hands[i - 1]:
                    for pawn in (1, 2):
                        origin = game.hunters[pawn - 1]
                        origin = game.van if origin is None else origin
                        for x in self.g.steps[origin]:
                            options.append(("CARD", [x], i, pawn))
                    break
            if not options:
                return
            choice = self.rng.choice(options)
            if choice[0] == "CARD":
                game.team_action("CARD", choice[1], card="hunter", player=choice[2], pawn=choice[3])
            else:
                game.team_action(choice[0], choice[1])
