"""Where can the fugitive be? The hunt team's possible-location set, exactly.

Scotland Yard's "possible locations" (Nijssen & Winands, IEEE TCIAIG 4(4), 2012)
made exact for this game: a hypothesis is the fugitive's whole hidden state —
square, the squares it has marked (a bitmask: never the same square twice), the
public-transport rides and extreme transport spent, the OFFLINE state, whether it
hitchhiked this turn, an extreme move in progress. Each action slot expands every
hypothesis by every legal action (the same rules as :class:`~.rules.BoardGame`); what
the hunters observe filters them: Drone and Calls answers at their slot, the
van's and hunters' squares at the end of a turn (the fugitive was not caught), the
reveal (or its absence: OFFLINE was used this turn).

The possible squares are the squares of the surviving hypotheses. Above ``cap``
hypotheses, dominated ones are dropped first (same state but a superset of marked
squares: nothing they can do is closed to the other), which keeps the set exact.
If still above ``cap``, hypotheses that
differ only in their marked squares are merged, keeping the squares marked in all
of them: this only removes constraints, so the set stays sound (the true square is
always in it) but may grow; :attr:`Tracker.exact` then turns False.
"""

from __future__ import annotations

from collections import defaultdict

from stations_generator.board.model import Board
from stations_generator.board.rules import HouseRules, Observation

__all__ = ["Tracker", "possible_squares"]

# Hypothesis: (square, visited_mask, pt_used, extreme_used, offline, hitched, pend_to, pend_left)
Hyp = tuple[int, int, int, bool, int, bool, int, int]


class Tracker:
    """The hunt team's knowledge, updated one observed turn at a time."""

    def __init__(self, board: Board, rules: HouseRules, start: int, cap: int = 2_000):
        self.board, self.rules, self.cap = board, rules, cap
        self.turn = 0
        self.exact = True
        self.before_reveal: set[int] = {start}
        self.hyps: set[Hyp] = {(start, 1 << start, 0, False, 0, False, -1, 0)}
        g = board.grid
        passable = board.passable
        self._steps = [
            tuple(n for n in g.neighbours(s, rules.neighbours) if passable[n])
            for s in range(g.size)
        ]
        self._junction = {s: tuple(v) for s, v in board.junction_adj.items()}
        self._rail = board.pt_targets
        self._air = tuple(sorted(board.airfields))
        self._boat = board.boat_targets
        self._cols = g.cols

    # ----------------------------------------------------------------- expand
    def _slot(self, hyps: set[Hyp], used: int, budget: int, stuck: bool = False) -> set[Hyp]:
        """Every hypothesis after one more action; ``stuck``: it may also stay as it is.

        Without the WAIT house rule a hypothesis with no legal action ends the game (the
        fugitive is trapped), so it survives only in a turn observed to end that way.
        """
        out: set[Hyp] = set()
        add = out.add
        rules = self.rules
        room = budget - used >= rules.extreme_cost
        for h in hyps:
            s, v, pt, ex, off, hit, pto, pleft = h
            if pleft:
                if pleft == 1:
                    add((pto, v | (1 << pto), pt, ex, off, hit, -1, 0))
                else:
                    add((s, v, pt, ex, off, hit, pto, pleft - 1))
                continue
            nexts = [
                (n, v | (1 << n), pt, ex, off, hit, -1, 0)
                for n in self._steps[s]
                if not (v >> n) & 1
            ]
            if not hit:
                nexts += [
                    (n, v | (1 << n), pt, ex, off, True, -1, 0)
                    for n in self._junction.get(s, ())
                    if not (v >> n) & 1
                ]
            if pt < rules.public_transport_uses:
                nexts += [
                    (n, v | (1 << n), pt + 1, ex, off, hit, -1, 0)
                    for n in self._rail.get(s, ())
                    if not (v >> n) & 1
                ]
            if not ex and room:
                targets = [n for n in self._air if n != s] if s in self.board.airfields else []
                targets += self._boat.get(s, ())
                for n in targets:
                    if not (v >> n) & 1:
                        if rules.extreme_cost == 1:
                            nexts.append((n, v | (1 << n), pt, True, off, hit, -1, 0))
                        else:
                            nexts.append((s, v, pt, True, off, hit, n, rules.extreme_cost - 1))
            out.update(nexts)
            if rules.wait or stuck:
                # WAIT (house rule); or a turn observed to end with the fugitive trapped,
                # where any hypothesis may be the one that stopped (sound, merges included).
                add(h)
        return out

    def _merge(self, hyps: set[Hyp]) -> set[Hyp]:
        groups: dict[tuple, int] = defaultdict(lambda: -1)
        for s, v, pt, ex, off, hit, pto, pleft in hyps:
            key = (s, pt, ex, off, hit, pto, pleft)
            groups[key] &= v
        self.exact = False
        return {(k[0], v, k[1], k[2], k[3], k[4], k[5], k[6]) for k, v in groups.items()}

    @staticmethod
    def _prune(hyps: set[Hyp]) -> set[Hyp]:
        """Drop dominated hypotheses (exact: the squares they can reach, a dominator can too).

        A dominates B when both agree on everything but the marked squares and A's
        marked squares are a subset of B's: every future of B is open to A.
        """
        groups: dict[tuple, list[int]] = defaultdict(list)
        for s, v, pt, ex, off, hit, pto, pleft in hyps:
            groups[(s, pt, ex, off, hit, pto, pleft)].append(v)
        out: set[Hyp] = set()
        for k, masks in groups.items():
            if 1 < len(masks) <= 12:  # quadratic: only where it is cheap
                masks.sort(key=int.bit_count)
                kept: list[int] = []
                for m in masks:
                    if not any(q & m == q for q in kept):
                        kept.append(m)
                masks = kept
            for v in masks:
                out.add((k[0], v, k[1], k[2], k[3], k[4], k[5], k[6]))
        return out

    def _keep(self, hyps: set[Hyp]) -> set[Hyp]:
        if len(hyps) > self.cap and self.exact:  # once merged, pruning cannot restore exactness
            hyps = self._prune(hyps)
        return self._merge(hyps) if len(hyps) > self.cap else hyps

    # ---------------------------------------------------------------- observe
    def observe(self, obs: Observation) -> set[int]:
        """Take one turn's observation (turns in order, from the head start, turn 0)."""
        self.advance(obs)
        self.reveal(obs)
        return self.squares()

    def advance(self, obs: Observation) -> None:
        """The moving part of :meth:`observe`: the turn's actions, narrowed by its drone
        flights and calls, up to (not including) the end-of-turn :meth:`reveal`."""
        if obs.turn != self.turn:
            raise ValueError(f"observation for turn {obs.turn}, expected turn {self.turn}")
        budget = self.rules.head_start if obs.turn == 0 else self.rules.actions
        hyps = {(s, v, pt, ex, off, False, pto, pl) for s, v, pt, ex, off, _h, pto, pl in self.hyps}
        if obs.turn > 0:
            hyps |= {
                (s, v, pt, ex, 1, hit, pto, pl)
                for s, v, pt, ex, off, hit, pto, pl in hyps
                if off == 0
            }
        drone = defaultdict(list)
        for slot, van, radius, within in obs.drone:
            drone[slot].append((van, radius, within))
        calls = defaultdict(list)
        for slot, what, index in obs.calls:
            calls[slot].append((what, index))
        for used in range(budget):
            hyps = self._keep(self._slot(hyps, used, budget, obs.trapped))
            slot = used + 1
            for van, radius, within in drone.get(slot, ()):
                vr, vc = divmod(van, self._cols)
                hyps = {
                    h
                    for h in hyps
                    if (max(abs(h[0] // self._cols - vr), abs(h[0] % self._cols - vc)) <= radius)
                    == within
                }
            for what, index in calls.get(slot, ()):
                if what == "column":
                    hyps = {h for h in hyps if h[0] % self._cols == index}
                else:
                    hyps = {h for h in hyps if h[0] // self._cols == index}
        self.hyps = hyps

    def reveal(self, obs: Observation) -> None:
        """The end-of-turn part of :meth:`observe`: not caught, then the reveal (or none)."""
        catchers = set(obs.catchers)
        # Without the house rule an OFFLINE turn (h[4] == 1) hands no location over: no capture.
        free = not self.rules.offline_capture

        def catchable(h: Hyp) -> bool:
            return h[0] in catchers and not (free and h[4] == 1)

        if obs.caught:  # on a catcher's square
            hyps = {h for h in self.hyps if catchable(h)}
        else:
            hyps = {h for h in self.hyps if not catchable(h)} if catchers else self.hyps
        #: The squares possible at the end of the turn before its reveal was heard.
        self.before_reveal = {h[0] for h in hyps}
        if obs.reveal is None:
            hyps = {
                (s, v, pt, ex, 2, hit, pto, pl)
                for s, v, pt, ex, off, hit, pto, pl in hyps
                if off == 1
            }
        else:
            r = obs.reveal
            hyps = {h for h in hyps if h[0] == r and h[4] != 1}
        self.hyps = hyps
        self.turn = obs.turn + 1

    def preview(self) -> set[int]:
        """Squares the fugitive can reach by the end of the coming turn (nothing observed yet)."""
        budget = self.rules.head_start if self.turn == 0 else self.rules.actions
        saved, exact = self.hyps, self.exact
        hyps = {(s, v, pt, ex, off, False, pto, pl) for s, v, pt, ex, off, _h, pto, pl in self.hyps}
        for used in range(budget):
            hyps = self._keep(self._slot(hyps, used, budget))
        self.hyps, self.exact = saved, exact
        return {h[0] for h in hyps}

    def squares(self) -> set[int]:
        """The squares the fugitive can be on now."""
        return {h[0] for h in self.hyps}


def possible_squares(
    board: Board, rules: HouseRules, start: int, observations: list[Observation], cap: int = 2_000
) -> tuple[set[int], bool]:
    """Run a :class:`Tracker` over ``observations``; returns ``(squares, exact)``."""
    t = Tracker(board, rules, start, cap)
    for obs in observations:
        t.observe(obs)
    return t.squares(), t.exact
