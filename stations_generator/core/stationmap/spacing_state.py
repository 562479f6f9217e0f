"""The state of a spacing selection, compiled by Cython: the tallies the loops read in C.

:class:`Selection` holds which cluster each candidate is in and why the others are
not, and answers in O(1) from per-candidate tallies whether a candidate fits (the
two-tier rule of :mod:`stations_generator.core.stationmap.spacing`). setup.py compiles
this module with the C types of ``spacing_state.pxd`` beside it (Cython's "augmenting
.pxd": the source stays plain Python, and runs as such where no C compiler is at hand);
:mod:`stations_generator.core.stationmap.spacing_search` holds the loops over it.
"""

from __future__ import annotations

import math
from array import array
from typing import Protocol

import numpy as np

#: Whether this module runs compiled (setup.py builds it with Cython where a C compiler
#: is at hand, typed by spacing_state.pxd; the same source, so the same stations,
#: several times faster at scale).
IS_COMPILED = not __file__.endswith(".py")

# Reasons a candidate is not a station.
SPACING = "spacing"
GAP = "gap"
CLUSTER_CAP = "cluster_cap"
REASONS = (SPACING, GAP, CLUSTER_CAP)
# Internal: beyond the cluster radius (reported as GAP). The one rejection that adding
# stations can lift, since a new member may be a seed that reaches the candidate.
_RADIUS = "radius"


class RuleNumbers(Protocol):
    """The numbers a selection reads from its rules (a ``spacing.SpacingRules``)."""

    min_spacing_m: float
    cluster_gap_m: float
    cluster_radius_m: float
    max_per_cluster: int


#: A column of per-candidate numbers: an ``array.array`` when compiled, else a list.
Numbers = array | list
#: (indptr, indices, distances, x, y, scale) of a ``spacing.NeighbourIndex`` as numbers.
IndexArrays = tuple[Numbers, Numbers, Numbers, Numbers, Numbers, Numbers]


# The per-candidate numbers of a selection: typed arrays for the compiled module, which
# reads them as C arrays (spacing_state.pxd); lists for Python, which indexes lists fastest
# (its ints and floats are already objects there; an array makes one on every read).


def as_ints(values: np.ndarray | list[int]) -> Numbers:
    """Per-candidate integers as the selection stores them.

    Parameters
    ----------
    values : int array or list

    Returns
    -------
    Numbers
        int64 numbers: an ``array.array("q")`` when compiled, else a list.
    """
    if not IS_COMPILED:
        return np.asarray(values, np.int64).tolist()
    return array("q", np.asarray(values, np.int64).tobytes())


def as_floats(values: np.ndarray) -> Numbers:
    """Per-candidate floats as the selection stores them.

    Parameters
    ----------
    values : float array

    Returns
    -------
    Numbers
        float64 numbers: an ``array.array("d")`` when compiled, else a list.
    """
    if not IS_COMPILED:
        return np.asarray(values, np.float64).tolist()
    return array("d", np.asarray(values, np.float64).tobytes())


def as_flags(values: np.ndarray) -> Numbers:
    """Per-candidate flags as the selection stores them.

    Parameters
    ----------
    values : bool array

    Returns
    -------
    Numbers
        0/1 signed chars: an ``array.array("b")`` when compiled, else a list.
    """
    if not IS_COMPILED:
        return np.asarray(values, bool).astype(np.int8).tolist()
    return array("b", np.asarray(values, bool).astype(np.int8).tobytes())


def filled(n: int, value: int) -> Numbers:
    """A column of ``n`` equal integers.

    Parameters
    ----------
    n : int
        Its length.
    value : int
        Each entry.

    Returns
    -------
    Numbers
        int64 numbers, as :func:`as_ints` gives them.
    """
    return ([value] if not IS_COMPILED else array("q", [value])) * n


# The journal's operations (:meth:`Selection.undo`).
ADD, REMOVE, SEED, NEW = range(4)


class Selection:
    """Mutable state of a selection: which cluster each candidate is in, and why not.

    Per-candidate numbers are :data:`Numbers`: typed arrays that the compiled module
    (``spacing_state.pxd``) reads and writes as C arrays, so the loops over a few dozen
    neighbours per candidate make no Python objects; lists when run as Python. A
    cluster's *seed* is any member within
    the cluster radius of every other member; it starts as the founder and moves
    (re-seeding) when a new member is beyond the founder's radius but some member is
    within the radius of all, or when the seed itself is given up. With ``journal``
    set to a list, every change is recorded so :meth:`undo` can roll it back.
    """

    def __init__(
        self,
        rules: RuleNumbers,
        exempt: Numbers,
        arrays: IndexArrays,
        rank_list: list[int],
        rank: Numbers,
    ):
        n = len(rank_list)
        # Shared with the index and every other selection on it: never written.
        self.rules, self.exempt, self.rank_list, self.rank = rules, exempt, rank_list, rank
        self.arrays = arrays
        self.ptr, self.nb, self.dist, self.x, self.y, self.k = arrays
        self.gap, self.spacing = rules.cluster_gap_m, rules.min_spacing_m
        self.radius, self.cap = rules.cluster_radius_m, rules.max_per_cluster
        self.cluster_of = filled(n, 0)  # 0 = not a station
        self.reason = [""] * n
        self.conflict = filled(n, -1)
        self.seeds: list[int] = [-1]  # seeds[c] = seed of cluster c (1-based); -2 = dissolved
        self.sizes: list[int] = [0]  # non-exempt members per cluster
        self.mem: list[list[int]] = [[]]  # members per cluster, in joining order
        self.count = 0  # stations
        self.journal: list[tuple[int, int, int, int]] | None = None
        # Per candidate: stations closer than the gap, and closer than the spacing; and
        # the sum and the sum of squares of the near stations' cluster numbers, which
        # say in O(1) whether they are all of one cluster (and which): the variance is 0.
        self.near = filled(n, 0)
        self.close = filled(n, 0)
        self.near_sum = filled(n, 0)
        self.near_sq = filled(n, 0)
        self.radius_missed: set[int] = set()  # rejected for the radius by try_add

    @classmethod
    def empty(
        cls,
        arrays: IndexArrays,
        rules: RuleNumbers,
        exempt: np.ndarray,
        order: list[int] | None = None,
    ) -> Selection:
        """A selection with no station yet.

        Parameters
        ----------
        arrays : IndexArrays
            The neighbour index as numbers (``NeighbourIndex.as_arrays``).
        rules : RuleNumbers
            The spacing rules (a ``SpacingRules``).
        exempt : bool array
            Candidates exempt from the cluster cap (transit).
        order : list of int, optional
            Candidates best first; ranks come from it (candidates not in it rank last).
            None: every candidate, in index order.

        Returns
        -------
        Selection
        """
        n = len(arrays[3])
        rank = list(range(n)) if order is None else [n] * n
        for r, i in enumerate(order or ()):
            rank[i] = r
        return cls(rules, as_flags(exempt), arrays, rank, as_ints(rank))

    def copy(self) -> Selection:
        """An independent copy of the state (the index arrays shared; no journal)."""
        other = Selection(self.rules, self.exempt, self.arrays, self.rank_list, self.rank)
        # Every attribute by name (the compiled class has no __dict__); the numbers
        # into the new columns (a C copy when compiled).
        other.cluster_of[:] = self.cluster_of
        other.reason = list(self.reason)
        other.conflict[:] = self.conflict
        other.seeds = list(self.seeds)
        other.sizes = list(self.sizes)
        other.mem = [list(m) for m in self.mem]
        other.count = self.count
        other.near[:] = self.near
        other.close[:] = self.close
        other.near_sum[:] = self.near_sum
        other.near_sq[:] = self.near_sq
        other.radius_missed = set(self.radius_missed)
        return other

    def distance(self, i: int, j: int) -> float:
        grid = math.hypot(self.x[i] - self.x[j], self.y[i] - self.y[j])
        return grid / ((self.k[i] + self.k[j]) / 2)

    def centre(self, members: list[int]) -> int:
        """The member within the cluster radius of all others, nearest all, best-ranked; -1 if none."""
        radius, rank = self.radius, self.rank
        best, best_key = -1, (math.inf, 0)
        for s in members:
            far = 0.0
            for m in members:
                if m != s:
                    d = self.distance(s, m)
                    if d > far:
                        far = d
                        if far > radius:
                            break
            if far <= radius and (far, rank[s]) < best_key:
                best, best_key = s, (far, rank[s])
        return best

    def _mark(self, i: int, c: int, step: int) -> None:
        """Count station ``i`` of cluster ``c`` in (step 1) or out of (step -1) its neighbours' tallies."""
        gap, spacing = self.gap, self.spacing
        near, close, near_sum, near_sq = self.near, self.close, self.near_sum, self.near_sq
        by, by_sq = step * c, step * c * c
        nb, dist = self.nb, self.dist
        for k in range(self.ptr[i], self.ptr[i + 1]):
            d = dist[k]
            if d < gap:
                j = nb[k]
                near[j] += step
                near_sum[j] += by
                near_sq[j] += by_sq
                if d < spacing:
                    close[j] += step

    def _one_cluster(self, i: int) -> int:
        """The cluster of every station within the gap of ``i``; 0 if none, -1 if several."""
        k = self.near[i]
        if not k:
            return 0
        c = self.near_sum[i] // k
        if c * k != self.near_sum[i] or self.near_sq[i] != k * c * c:
            return -1
        return c

    def tallies_pass_without(self, i: int, c: int, d: float) -> bool:
        """Whether ``i`` could join the map once a station of cluster ``c`` at distance
        ``d`` from it (as the index gives it; ``math.inf``: farther than the gap), one that
        counts toward the cap, is given up: by the spacing and gap tallies, and the room
        in the one cluster it would join. Necessary for :meth:`fits` then and after any
        stations are added (adding only raises tallies and sizes), so a swap or trade
        that needs ``i`` to fit is not played when this says no: the map it would leave,
        after its undo, is the map as it is."""
        close, near = self.close[i], self.near[i]
        total, squares = self.near_sum[i], self.near_sq[i]
        if d < self.gap:
            near -= 1
            total -= c
            squares -= c * c
            if d < self.spacing:
                close -= 1
        if close:
            return False
        if not near:
            return True
        one = total // near
        if one * near != total or squares != near * one * one:
            return False
        # Joining cluster ``one``: it must have room (sizes only grow as stations are added).
        cap = self.cap
        size = self.sizes[one] - (1 if one == c else 0)
        return not (cap and not self.exempt[i] and size >= cap)

    def fits(self, i: int) -> tuple[int, int]:
        """(cluster, seed) as :meth:`fit` gives them, or (-1, -1); no reason, so faster."""
        if self.close[i]:
            return -1, -1
        c = self._one_cluster(i)
        if c == 0:
            return 0, i
        if c < 0:
            return -1, -1
        joined = self._joins(i, c)
        return joined[0], joined[1]

    def _joins(self, i: int, c0: int) -> tuple[int, int, str, int]:
        """:meth:`fit` for ``i`` whose stations within the gap are all of cluster ``c0``, none within the spacing."""
        seed = self.seeds[c0]
        if self.distance(i, seed) > self.radius:
            seed = self.centre([*self.mem[c0], i])  # re-seeding
            if seed < 0:
                return -1, -1, _RADIUS, self._nearest(i)
        cap = self.cap
        if cap and not self.exempt[i] and self.sizes[c0] >= cap:
            return -1, -1, CLUSTER_CAP, self.seeds[c0]
        return c0, seed, "", -1

    def _nearest(self, i: int) -> int:
        """The nearest station to ``i`` (within the index radius; -1 if none)."""
        cluster_of = self.cluster_of
        nb, dist = self.nb, self.dist
        best, best_d = -1, math.inf
        for k in range(self.ptr[i], self.ptr[i + 1]):
            j = nb[k]
            if cluster_of[j] and dist[k] < best_d:
                best, best_d = j, dist[k]
        return best

    def fit(self, i: int) -> tuple[int, int, str, int]:
        """Where ``i`` could go: (cluster, its seed, "", -1), cluster 0 = a new one; or (-1, -1, reason, blocker)."""
        if not self.close[i]:
            c = self._one_cluster(i)
            if c == 0:
                return 0, i, "", -1
            if c > 0:
                return self._joins(i, c)
        gap = self.gap
        cluster_of, nb, dist = self.cluster_of, self.nb, self.dist
        # The nearest station within the gap (d0, j0, cluster c0), and the nearest
        # one of any other cluster (d1, j1): one pass, no sorting needed.
        c0 = j0 = j1 = -1
        d0 = d1 = math.inf
        for k in range(self.ptr[i], self.ptr[i + 1]):
            j = nb[k]
            c = cluster_of[j]
            if not c:  # most neighbours are not stations: test that first
                continue
            d = dist[k]
            if d >= gap:
                continue
            if c == c0:
                if d < d0:
                    d0, j0 = d, j
            elif d < d0:
                d1, j1 = d0, j0  # the old nearest is of another cluster than the new one
                d0, j0, c0 = d, j, c
            elif d < d1:
                d1, j1 = d, j
        if c0 < 0:
            return 0, i, "", -1
        if j1 >= 0:
            return -1, -1, GAP, j1
        if d0 < self.spacing:
            return -1, -1, SPACING, j0
        seed = self.seeds[c0]
        if self.distance(i, seed) > self.radius:
            seed = self.centre([*self.mem[c0], i])  # re-seeding
            if seed < 0:
                return -1, -1, _RADIUS, j0
        cap = self.cap
        if cap and not self.exempt[i] and self.sizes[c0] >= cap:
            return -1, -1, CLUSTER_CAP, self.seeds[c0]
        return c0, seed, "", -1

    def add(self, i: int, c: int, seed: int = -1) -> None:
        """Make ``i`` a station of cluster ``c`` (0 = found a new one), seeded at ``seed`` if given."""
        journal = self.journal
        if c == 0:
            c = len(self.seeds)
            self.seeds.append(i)
            self.sizes.append(0)
            self.mem.append([])
            if journal is not None:
                journal.append((NEW, c, 0, 0))
        elif seed >= 0 and seed != self.seeds[c]:
            self.reseed(c, seed)
        self.cluster_of[i] = c
        self.reason[i] = ""
        self.conflict[i] = -1
        self.mem[c].append(i)
        self._mark(i, c, 1)
        self.count += 1
        if not self.exempt[i]:
            self.sizes[c] += 1
        if journal is not None:
            journal.append((ADD, i, c, 0))

    def reseed(self, c: int, seed: int) -> None:
        """Move cluster ``c``'s seed (-2 dissolves it)."""
        if self.journal is not None:
            self.journal.append((SEED, c, self.seeds[c], 0))
        self.seeds[c] = seed

    def remove(self, i: int) -> list[int]:
        """Give up station ``i``; returns every station given up.

        A seed hands over to a member within the radius of all the others; where no
        member is, the whole cluster goes.
        """
        c = self.cluster_of[i]
        gone = [i]
        self._drop(i, c)
        if self.seeds[c] == i:
            rest = self.mem[c]
            seed = self.centre(rest) if rest else -2
            if seed == -1:
                gone.extend(rest)
                for m in list(rest):
                    self._drop(m, c)
                seed = -2
            self.reseed(c, seed)
        return gone

    def _drop(self, i: int, c: int) -> None:
        members = self.mem[c]
        pos = members.index(i)
        del members[pos]
        self.cluster_of[i] = 0
        self._mark(i, c, -1)
        self.count -= 1
        if not self.exempt[i]:
            self.sizes[c] -= 1
        if self.journal is not None:
            self.journal.append((REMOVE, i, c, pos))

    def undo(self, mark: int) -> None:
        """Roll the journal back to length ``mark``."""
        journal = self.journal
        assert journal is not None
        cluster_of, exempt = self.cluster_of, self.exempt
        while len(journal) > mark:
            op, a, b, pos = journal.pop()
            if op == ADD:
                self.mem[b].pop()
                cluster_of[a] = 0
                self._mark(a, b, -1)
                self.count -= 1
                if not exempt[a]:
                    self.sizes[b] -= 1
            elif op == REMOVE:
                self.mem[b].insert(pos, a)
                cluster_of[a] = b
                self._mark(a, b, 1)
                self.count += 1
                if not exempt[a]:
                    self.sizes[b] += 1
            elif op == SEED:
                self.seeds[a] = b
            else:  # NEW: always the last cluster
                self.seeds.pop()
                self.sizes.pop()
                self.mem.pop()

    def try_add(self, i: int) -> bool:
        """Add ``i`` if it fits; otherwise record why not. Returns whether it was added."""
        c, seed, why, blocker = self.fit(i)
        if c < 0:
            if why == _RADIUS:
                self.radius_missed.add(i)
                why = GAP
            self.reason[i] = why
            self.conflict[i] = blocker
            return False
        self.add(i, c, seed)
        return True

    def rank_sum(self) -> int:
        """Sum of the stations' ranks: among maps of one size, smaller is better."""
        rank, cluster_of = self.rank, self.cluster_of
        total = 0
        for i in range(len(rank)):
            if cluster_of[i]:
                total += rank[i]
        return total
