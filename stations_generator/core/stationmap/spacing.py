"""Two-tier station spacing: the heart of the vehicle-station map.

Rules (DESIGN.md §1, "Vehicle stations"):

* every two stations of one cluster are at least ``min_spacing_m`` apart
  (300 m, urban bus-stop spacing);
* every two stations of different clusters are at least ``cluster_gap_m`` apart
  (1000 m, light-rail / metro spacing);
* a cluster is a group of stations around the station that founded it (its
  *seed*); every member lies within ``cluster_radius_m`` of the seed, so a cluster
  cannot chain across a whole town;
* at most ``max_per_cluster`` stations per cluster (0 = no cap); real transit is
  exempt from the cap, as in the rural-jet-lag generator.

Selection is a gap-aware greedy over the candidates in rank order. A candidate
*founds* a new cluster when no station is within the gap of it, *joins* a cluster
when every station within the gap belongs to that one cluster, none is closer than
the minimum spacing, the seed is within the cluster radius and the cluster has room;
otherwise it is rejected with the first rule it breaks. Both rules therefore hold by
construction. The result is maximal: stations are only ever added, so each test that
rejected a candidate still fails at the end, and no rejected candidate could be
added without breaking a rule or the cap.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass

import numpy as np

from stations_generator.core.geo.closepairs import pairs_within

#: Whether this module runs compiled (setup.py builds it with Cython where a C compiler
#: is at hand, typed by spacing.pxd; the same source, so the same stations, several
#: times faster at scale).
IS_COMPILED = not __file__.endswith(".py")

# Reasons a candidate is not a station.
SPACING = "spacing"
GAP = "gap"
CLUSTER_CAP = "cluster_cap"
REASONS = (SPACING, GAP, CLUSTER_CAP)
# Internal: beyond the cluster radius (reported as GAP). The one rejection that adding
# stations can lift, since a new member may be a seed that reaches the candidate.
_RADIUS = "radius"


@dataclass(frozen=True)
class SpacingRules:
    """The numbers of the two-tier rule.

    Attributes
    ----------
    min_spacing_m : float
        Minimum distance between stations of one cluster (300 m: urban bus stops).
    cluster_gap_m : float
        Minimum distance between stations of different clusters (1000 m: metro).
    cluster_radius_m : float
        Maximum distance of a member from its cluster's seed.
    max_per_cluster : int
        Cap on non-transit stations per cluster; 0 means no cap.
    """

    min_spacing_m: float = 300.0
    cluster_gap_m: float = 1000.0
    cluster_radius_m: float = 402.0
    max_per_cluster: int = 0

    def __post_init__(self) -> None:
        if self.min_spacing_m <= 0 or self.cluster_gap_m <= 0 or self.cluster_radius_m < 0:
            raise ValueError("spacing distances must be positive")
        if self.min_spacing_m > self.cluster_gap_m:
            raise ValueError(
                f"min spacing {self.min_spacing_m:g} m is larger than the cluster gap "
                f"{self.cluster_gap_m:g} m; the gap must be the larger distance"
            )
        if self.max_per_cluster < 0:
            raise ValueError("max per cluster must be 0 (no cap) or more")


@dataclass(frozen=True)
class SpacingResult:
    """What the spacing pass decided for each candidate (arrays in input order).

    Attributes
    ----------
    kept : bool array
    cluster_id : int array
        1-based cluster number of kept candidates, numbered in founding order; 0 otherwise.
    reason : object array of str
        "" for kept candidates, else one of :data:`REASONS`.
    conflict : int array
        Index of the station that blocked a rejected candidate (the nearest one
        breaking the rule, or the cluster's seed for the cap); -1 for kept ones.
    seed : bool array
        The station that founded each cluster (cluster extent is measured from it).
    """

    kept: np.ndarray
    cluster_id: np.ndarray
    reason: np.ndarray
    conflict: np.ndarray
    seed: np.ndarray

    @property
    def count(self) -> int:
        """Number of stations kept."""
        return int(self.kept.sum())


#: A column of per-candidate numbers: an ``array.array`` when compiled, else a list.
Numbers = array | list
#: (indptr, indices, distances, x, y, scale) of a :class:`NeighbourIndex` as numbers.
IndexArrays = tuple[Numbers, Numbers, Numbers, Numbers, Numbers, Numbers]


class NeighbourIndex:
    """Candidates within a fixed radius of each other, precomputed once.

    Pairs come from a strip sweep over projected coordinates (see
    :mod:`stations_generator.core.geo.closepairs`); distances are grid
    distances in the conformal projection divided by the mean point scale factor
    of the pair, i.e. true lengths to well under a millimetre at these ranges (see
    :mod:`stations_generator.core.geo.geodesy`).

    Parameters
    ----------
    x, y : arrays
        Projected coordinates in metres.
    scale : array
        The projection's point scale factor at each candidate.
    radius_m : float
        True-distance radius of the neighbourhoods.
    """

    def __init__(self, x: np.ndarray, y: np.ndarray, scale: np.ndarray, radius_m: float):
        self.x = np.asarray(x, float)
        self.y = np.asarray(y, float)
        self.scale = np.asarray(scale, float)
        self.radius_m = float(radius_m)
        n = len(self.x)
        pairs = np.zeros((0, 2), np.int32)
        if n > 1:
            # Search a little wider in grid units, then keep pairs by true distance.
            grid_radius = self.radius_m * float(self.scale.max()) * (1 + 1e-9)
            pairs = pairs_within(self.x, self.y, grid_radius)
        # Keep the pairs within the true radius, then store both directions of each,
        # grouped by the first and in index order within a group: the pairs come
        # sorted by (i, j), so a stable sort by row of the (j, i) pairs followed by
        # the (i, j) ones puts each row's smaller neighbours (ascending) before its
        # larger ones (ascending).
        i, j = pairs[:, 0], pairs[:, 1]
        grid = np.hypot(self.x[i] - self.x[j], self.y[i] - self.y[j])
        true = grid / ((self.scale[i] + self.scale[j]) / 2)
        keep = true <= self.radius_m
        i, j, true = i[keep], j[keep], true[keep]
        rows = np.concatenate([j, i])
        order = np.argsort(rows, kind="stable")
        self.indices = np.concatenate([i, j])[order]
        self.distances = np.concatenate([true, true])[order]
        self.indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=self.indptr[1:])
        self._arrays: IndexArrays | None = None
        # Greedy + swaps maps by (rules, start order, exempt): the cap tune and the
        # search that follows it start from the same map (see select_stations).
        self._swapped: dict[tuple, _Selection] = {}

    def as_arrays(self) -> IndexArrays:
        """(indptr, indices, distances, x, y, scale) as :data:`Numbers`, made once; read-only."""
        if self._arrays is None:
            self._arrays = (
                _ints(self.indptr),
                _ints(self.indices),
                _floats(self.distances),
                _floats(self.x),
                _floats(self.y),
                _floats(self.scale),
            )
        return self._arrays

    def __len__(self) -> int:
        return len(self.x)

    def neighbours(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices and true distances (m) of the candidates within the radius of ``i``."""
        lo, hi = self.indptr[i], self.indptr[i + 1]
        return self.indices[lo:hi], self.distances[lo:hi]

    def distance(self, i: int, j: int) -> float:
        """True distance between candidates ``i`` and ``j`` in metres."""
        grid = float(np.hypot(self.x[i] - self.x[j], self.y[i] - self.y[j]))
        return grid / ((self.scale[i] + self.scale[j]) / 2)


# The per-candidate numbers of a selection: typed arrays for the compiled module, which
# reads them as C arrays (spacing.pxd); lists for Python, which indexes lists fastest
# (its ints and floats are already objects there; an array makes one on every read).


def _ints(values: np.ndarray | list[int]) -> Numbers:
    """``values`` as int64 numbers."""
    if not IS_COMPILED:
        return np.asarray(values, np.int64).tolist()
    return array("q", np.asarray(values, np.int64).tobytes())


def _floats(values: np.ndarray) -> Numbers:
    """``values`` as float64 numbers."""
    if not IS_COMPILED:
        return np.asarray(values, np.float64).tolist()
    return array("d", np.asarray(values, np.float64).tobytes())


def _flags(values: np.ndarray) -> Numbers:
    """``values`` as 0/1 bytes (signed char)."""
    if not IS_COMPILED:
        return np.asarray(values, bool).astype(np.int8).tolist()
    return array("b", np.asarray(values, bool).astype(np.int8).tobytes())


def _filled(n: int, value: int) -> Numbers:
    """``n`` int64 numbers, each ``value``."""
    return ([value] if not IS_COMPILED else array("q", [value])) * n


_ADD, _REMOVE, _SEED, _NEW = range(4)


class _Selection:
    """Mutable state of a selection: which cluster each candidate is in, and why not.

    Per-candidate numbers are :data:`Numbers`: typed arrays that the compiled module
    (``spacing.pxd``) reads and writes as C arrays, so the loops over a few dozen
    neighbours per candidate make no Python objects; lists when run as Python. A
    cluster's *seed* is any member within
    the cluster radius of every other member; it starts as the founder and moves
    (re-seeding) when a new member is beyond the founder's radius but some member is
    within the radius of all, or when the seed itself is given up. With ``journal``
    set to a list, every change is recorded so :meth:`undo` can roll it back.
    """

    def __init__(
        self,
        rules: SpacingRules,
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
        self.cluster_of = _filled(n, 0)  # 0 = not a station
        self.reason = [""] * n
        self.conflict = _filled(n, -1)
        self.seeds: list[int] = [-1]  # seeds[c] = seed of cluster c (1-based); -2 = dissolved
        self.sizes: list[int] = [0]  # non-exempt members per cluster
        self.mem: list[list[int]] = [[]]  # members per cluster, in joining order
        self.count = 0  # stations
        self.journal: list[tuple[int, int, int, int]] | None = None
        # Per candidate: stations closer than the gap, and closer than the spacing; and
        # the sum and the sum of squares of the near stations' cluster numbers, which
        # say in O(1) whether they are all of one cluster (and which): the variance is 0.
        self.near = _filled(n, 0)
        self.close = _filled(n, 0)
        self.near_sum = _filled(n, 0)
        self.near_sq = _filled(n, 0)
        self.radius_missed: set[int] = set()  # rejected for the radius by try_add

    @classmethod
    def empty(
        cls,
        index: NeighbourIndex,
        rules: SpacingRules,
        exempt: np.ndarray,
        order: list[int] | None = None,
    ) -> _Selection:
        """No station yet; ranks from ``order`` (candidates not in it rank last)."""
        n = len(index)
        rank = list(range(n)) if order is None else [n] * n
        for r, i in enumerate(order or ()):
            rank[i] = r
        return cls(rules, _flags(exempt), index.as_arrays(), rank, _ints(rank))

    def copy(self) -> _Selection:
        """An independent copy of the state (the index arrays shared; no journal)."""
        other = _Selection(self.rules, self.exempt, self.arrays, self.rank_list, self.rank)
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
                journal.append((_NEW, c, 0, 0))
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
            journal.append((_ADD, i, c, 0))

    def reseed(self, c: int, seed: int) -> None:
        """Move cluster ``c``'s seed (-2 dissolves it)."""
        if self.journal is not None:
            self.journal.append((_SEED, c, self.seeds[c], 0))
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
            self.journal.append((_REMOVE, i, c, pos))

    def undo(self, mark: int) -> None:
        """Roll the journal back to length ``mark``."""
        journal = self.journal
        assert journal is not None
        cluster_of, exempt = self.cluster_of, self.exempt
        while len(journal) > mark:
            op, a, b, pos = journal.pop()
            if op == _ADD:
                self.mem[b].pop()
                cluster_of[a] = 0
                self._mark(a, b, -1)
                self.count -= 1
                if not exempt[a]:
                    self.sizes[b] -= 1
            elif op == _REMOVE:
                self.mem[b].insert(pos, a)
                cluster_of[a] = b
                self._mark(a, b, 1)
                self.count += 1
                if not exempt[a]:
                    self.sizes[b] += 1
            elif op == _SEED:
                self.seeds[a] = b
            else:  # _NEW: always the last cluster
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


# Default search budget (issue 12, measured on the Sioux Falls fixture: with three
# starts of 2000 rounds, 98.4-99.1 % of the proven optima, and 98.4-100 % with other
# random seeds): per start, ten blocks of search rounds, each followed by the swaps;
# the rounds scale with the eligible candidates up to SEARCH_ROUNDS_MAX per start, so
# 100k candidates stay within seconds (bench/bench_spacing.py).
SEARCH_BLOCKS = 10
SEARCH_ROUNDS_PER_CANDIDATE = 4
SEARCH_ROUNDS_MAX = 2000
# Up to this many eligible candidates the search runs from all three greedy starts;
# above, from the rank-order start only (each start costs a greedy and a full swap
# pass: 2.2 s at 100k candidates).
MULTI_START_MAX = 3000


def default_search_rounds(n_eligible: int) -> int:
    """The search rounds per start that :func:`select_stations` runs when none are given."""
    return min(SEARCH_ROUNDS_MAX, SEARCH_ROUNDS_PER_CANDIDATE * n_eligible)


def select_stations(
    index: NeighbourIndex,
    order: np.ndarray,
    rules: SpacingRules,
    cap_exempt: np.ndarray | None = None,
    *,
    improve: bool = False,
    search_iterations: int | None = 0,
) -> SpacingResult:
    """Pick stations by the two-tier rule: a rank-order greedy, then optionally improved.

    Parameters
    ----------
    index : NeighbourIndex
        Neighbourhoods of radius at least ``rules.cluster_gap_m``.
    order : int array
        Candidate indices, best first (see :func:`stations_generator.core.stationmap.ranking.rank_order`);
        candidates not listed take no part.
    rules : SpacingRules
    cap_exempt : bool array, optional
        Candidates that do not count toward (and are not stopped by) the cap (transit).
    improve : bool
        Follow the greedy with swaps (:func:`_improve_by_swaps`): give up one station
        for two or more candidates whenever every rule still holds; never a cap-exempt
        (transit) station. Each swap adds a station, so it ends.
    search_iterations : int or None
        With ``improve``: rounds of large-neighbourhood search (:func:`_search`) per
        start, run as :data:`SEARCH_BLOCKS` blocks (each followed by the swaps) from each of
        three greedy starts (rank order, the candidates with the fewest rivals within the
        gap first, the least crowded first; above :data:`MULTI_START_MAX` eligible
        candidates rank order only); the map with the most stations wins, then the best
        ranks. None = :func:`default_search_rounds`; 0 = swaps only. A count and
        fixed random seeds, not a clock: the same input gives the same map.

    Returns
    -------
    SpacingResult
        Maximal (no rejected candidate fits), every rule holding by construction; the
        reasons are those of the final map, offered again in rank order.
    """
    if index.radius_m < rules.cluster_gap_m:
        raise ValueError("the neighbour index radius must be at least the cluster gap")
    n = len(index)
    exempt = np.zeros(n, bool) if cap_exempt is None else np.asarray(cap_exempt, bool)
    order_list = np.asarray(order, np.int64).tolist()
    if not improve or not n:
        state = _greedy(index, rules, exempt, order_list, order_list)
        _settle(state, order_list, full=False)
        return selection_result(state, order_list)
    rounds = (
        default_search_rounds(len(order_list)) if search_iterations is None else search_iterations
    )
    # The search finds a cluster's members among its seed's neighbours.
    if rules.cluster_radius_m > index.radius_m:
        rounds = 0
    best: _Selection | None = None
    best_key: tuple[int, int] = (0, 0)
    crowd = _crowding(index, rules, order_list)
    starts = [order_list]
    if rounds and len(order_list) <= MULTI_START_MAX:
        starts = _start_orders(index, order_list, crowd, exempt)
    blocks = min(SEARCH_BLOCKS, rounds)
    for s, start in enumerate(starts):
        state = _swapped_greedy(index, rules, exempt, order_list, start)
        for block in range(blocks):
            size = rounds // blocks + (block < rounds % blocks)
            changed = _search(state, order_list, crowd, size, seed=1000 * s + block)
            _improve_by_swaps(state, order_list, changed)
        key = (-state.count, state.rank_sum())
        if best is None or key < best_key:
            best, best_key = state, key
    assert best is not None
    _improve_ranks(best, order_list)
    _settle(best, order_list)
    return selection_result(best, order_list)


def _greedy(
    index: NeighbourIndex,
    rules: SpacingRules,
    exempt: np.ndarray,
    order: list[int],
    start: list[int],
    reasons: bool = True,
) -> _Selection:
    """The greedy: offer each candidate of ``start`` once (ranks from ``order``).

    Without ``reasons`` the rejected candidates' reasons are not worked out (the
    costly part of a rejection): for maps that :func:`_settle` finishes in full, which
    records every reason again.
    """
    state = _Selection.empty(index, rules, exempt, order)
    if reasons:
        for i in start:
            state.try_add(i)
        return state
    for i in start:
        c, seed = state.fits(i)
        if c >= 0:
            state.add(i, c, seed)
    return state


def _swapped_greedy(
    index: NeighbourIndex,
    rules: SpacingRules,
    exempt: np.ndarray,
    order: list[int],
    start: list[int],
) -> _Selection:
    """The greedy from ``start`` followed by the swaps; a fresh copy of a remembered map.

    Deterministic in its arguments, so the index remembers the map (a few lists per
    candidate) for the next call: ``build_station_map`` runs it once per cap while
    tuning, and again for the search under the chosen cap.
    """
    key = (rules, exempt.tobytes(), tuple(order), tuple(start))
    known = index._swapped.get(key)
    if known is None:
        # Every caller ends with the full settle, which words the reasons.
        known = _greedy(index, rules, exempt, order, start, reasons=False)
        _improve_by_swaps(known, order)
        index._swapped[key] = known
    return known.copy()


def _settle(state: _Selection, order: list[int], full: bool = True) -> None:
    """Make the map maximal and every reason current, in place.

    With ``full``, every non-station is offered again in rank order (adding what fits,
    recording why the rest do not), as after the swaps and the search, which leave
    reasons stale. Adding stations only ever makes the spacing, the gap and the cap
    harder to meet, so those reasons hold to the end; a candidate beyond the cluster
    radius, though, may be reached by a seed that joined later (re-seeding), so those
    are offered again, in rank order, until a pass adds nothing.
    """
    cluster_of = state.cluster_of
    if full:
        state.radius_missed = set()
        for i in order:
            if not cluster_of[i]:
                state.try_add(i)
    while state.radius_missed:
        retry = sorted(state.radius_missed, key=state.rank_list.__getitem__)
        state.radius_missed = set()
        added = False
        for i in retry:
            if not cluster_of[i]:
                added |= state.try_add(i)
        if not added:
            break


def _start_orders(
    index: NeighbourIndex, order: list[int], crowd: list[int], exempt: np.ndarray
) -> list[list[int]]:
    """The three greedy starts: rank order, fewest rivals within the gap, least crowded.

    Transit (cap-exempt) candidates come first in rank order in each, so every start
    keeps the transit stations the rank-order greedy keeps (transit ranks first).
    """
    rank = {i: r for r, i in enumerate(order)}
    rivals = np.diff(index.indptr).tolist()
    transit = exempt.tolist()
    first = [i for i in order if transit[i]]
    rest = [i for i in order if not transit[i]]
    return [
        order,
        first + sorted(rest, key=lambda i: (rivals[i], rank[i])),
        first + sorted(rest, key=lambda i: (crowd[i], rank[i])),
    ]


def _crowding(index: NeighbourIndex, rules: SpacingRules, order: list[int]) -> list[int]:
    """For each candidate, the eligible candidates closer than the minimum spacing."""
    n = len(index)
    eligible = np.zeros(n, bool)
    eligible[order] = True
    rows = np.repeat(np.arange(n), np.diff(index.indptr))
    close = (index.distances < rules.min_spacing_m) & eligible[index.indices]
    return np.bincount(rows[close], minlength=n).tolist()


def _search(
    state: _Selection, order: list[int], crowd: list[int], iterations: int, seed: int = 0
) -> set[int]:
    """Large-neighbourhood search with plateau moves, in place; never loses a station.

    Each round picks a candidate ``s`` (seeded RNG over the rank order, so the input
    order does not matter) and gives up either every cluster with a station within
    the gap of ``s`` or only the stations within a random reach (between the minimum
    spacing and the gap) of it; a cluster that loses its seed re-seeds or goes whole.
    Transit (cap-exempt) stations are never given up: a round that would take one with
    a falling cluster is not played. Then it offers every eligible candidate within the
    gap of a given-up station again, shuffled, in noisy rank order or least crowded
    first (``crowd``: eligible candidates closer than the minimum spacing, see
    :func:`_crowding`). Rounds that end with fewer stations are undone; ties are kept
    (walking plateaus is what finds the better maps). Every rule holds by construction (:meth:`fit`).
    Returns the candidates that are stations now and were not before, or the reverse.
    """
    import random

    was_station: dict[int, bool] = {}  # first status of each candidate the kept rounds touched
    if not order or iterations <= 0:
        return set()
    rng = random.Random(seed)
    rank, by_rank = state.rank, state.rank_list.__getitem__
    n = len(rank)
    gap, spacing = state.gap, state.spacing
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    noise = max(1.0, len(order) / 3)
    exempt = state.exempt
    journal: list[tuple[int, int, int, int]] = []
    state.journal = journal
    for _ in range(iterations):
        s = order[rng.randrange(len(order))]
        count = state.count
        if rng.random() < 0.5:
            clusters = {cluster_of[s]} if cluster_of[s] else set()
            for k in range(ptr[s], ptr[s + 1]):
                c = cluster_of[nb[k]]
                if c and dist[k] < gap:
                    clusters.add(c)
            targets = []
            for c in sorted(clusters):
                targets.extend(state.mem[c])
        else:
            reach = spacing + rng.random() * (gap - spacing)
            targets = [s] if cluster_of[s] else []
            for k in range(ptr[s], ptr[s + 1]):
                if dist[k] < reach and cluster_of[nb[k]]:
                    targets.append(nb[k])
        if not targets:
            continue
        # Rank order, not neighbour-list order (which follows the input order): which
        # member re-seeds a cluster depends on the order its stations go.
        givable = []
        for i in targets:
            if not exempt[i]:
                givable.append(i)
        givable.sort(key=by_rank)
        removed: list[int] = []
        for i in givable:
            if cluster_of[i]:
                removed.extend(state.remove(i))
        transit_gone = False
        for i in removed:
            if exempt[i]:
                transit_gone = True
                break
        if transit_gone:  # a cluster fell apart around a transit station
            state.undo(0)
            journal.clear()
            continue
        free_set = set(removed)
        for i in removed:
            for k in range(ptr[i], ptr[i + 1]):
                j = nb[k]
                if dist[k] < gap and not cluster_of[j] and rank[j] < n:
                    free_set.add(j)
        free = sorted(free_set, key=by_rank)
        mode = rng.randrange(3)
        if mode == 0:
            rng.shuffle(free)
        elif mode == 1:
            keys = {}
            for j in free:
                keys[j] = rank[j] + rng.random() * noise
            free.sort(key=keys.__getitem__)
        else:  # least crowded first, then by rank (ranks differ: no ties left)
            keyed = []
            for j in free:
                keyed.append((crowd[j], rank[j], j))
            keyed.sort()
            free = [key[2] for key in keyed]
        for j in free:
            if not cluster_of[j]:
                c, seed_c = state.fits(j)
                if c >= 0:
                    state.add(j, c, seed_c)
        if state.count < count:
            state.undo(0)
        else:
            for op, a, _, _ in journal:
                if op == _ADD or op == _REMOVE:
                    was_station.setdefault(a, op == _REMOVE)
        journal.clear()
    state.journal = None
    # Plateau moves often give up and take back the same stations: only net changes count.
    changed: set[int] = set()
    for a, was in was_station.items():
        if was != bool(cluster_of[a]):
            changed.add(a)
    return changed


def _improve_by_swaps(state: _Selection, order: list[int], changed: set[int] | None = None) -> None:
    """Give up one station for two or more others while that pays, in place.

    Passes, worst-ranked station first, until no swap adds a station: the result is a
    local optimum of this move. The first pass tries every station, or with ``changed``
    only those near a changed candidate (whether a swap pays depends only on what lies
    within twice the gap); each later pass only those near the previous pass's swaps.
    Transit stations are never given up; a seed may be, where another member
    re-centres the rest (:meth:`_Selection.remove`).
    """
    rank, by_rank = state.rank, state.rank_list.__getitem__
    n = len(rank)
    gap, cap = state.gap, state.cap
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    journal: list[tuple[int, int, int, int]] = []
    state.journal = journal
    todo = _worst_first(state, order) if changed is None else _near(state, changed)
    while todo:
        swapped: set[int] = set()
        for b in todo:
            c = cluster_of[b]
            if not c or state.exempt[b]:
                continue
            freed: dict[int, float] = {}  # candidate: its distance from b (inf: beyond)
            for k in range(ptr[b], ptr[b + 1]):
                j = nb[k]
                if dist[k] < gap and not cluster_of[j] and rank[j] < n:
                    freed[j] = dist[k]
            if cap and state.sizes[c] >= cap:  # room in the cluster: its capped candidates
                seed = state.seeds[c]
                for k in range(ptr[seed], ptr[seed + 1]):
                    j = nb[k]
                    if dist[k] < gap and not cluster_of[j] and rank[j] < n and j not in freed:
                        freed[j] = math.inf
            if len(freed) < 2:
                continue
            # The swap pays only if two of them fit once b is given up: not played when
            # fewer than two could (the same map as playing it and undoing it).
            hopeful = 0
            for j, d in freed.items():
                if state.tallies_pass_without(j, c, d):
                    hopeful += 1
                    if hopeful == 2:
                        break
            if hopeful < 2:
                continue
            count = state.count
            gone = state.remove(b)
            if len(gone) > 1:  # the cluster would fall apart: not this move
                state.undo(0)
                journal.clear()
                continue
            for j in sorted(freed, key=by_rank):
                c_j, seed_j = state.fits(j)
                if c_j >= 0:
                    state.add(j, c_j, seed_j)
            if state.count > count:
                if not cluster_of[b]:
                    c_b, seed_b = state.fits(b)
                    if c_b >= 0:
                        state.add(b, c_b, seed_b)
                swapped.update(_touched(journal))
            else:
                state.undo(0)
            journal.clear()
        todo = _near(state, swapped) if swapped else []
    state.journal = None


def _improve_ranks(state: _Selection, order: list[int]) -> None:
    """Trade stations for better-ranked candidates where the count holds, in place.

    The second part of the objective (the most stations, then the best ranks, so a museum
    beats a fuel station where the count ties): give up one station, offer the
    candidates within the gap of it in rank order, and keep the change if the map has as
    many stations and a lower sum of ranks. Passes, worst-ranked station first, until none
    pays; the sum falls with every change, so it ends. After the first pass only the
    stations near the previous pass's trades are tried again (as in the swaps). Transit
    stations stay.
    """
    rank, by_rank = state.rank, state.rank_list.__getitem__
    n = len(rank)
    gap = state.gap
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    journal: list[tuple[int, int, int, int]] = []
    state.journal = journal
    todo = _worst_first(state, order)
    while todo:
        traded: set[int] = set()
        for b in todo:
            if not cluster_of[b] or state.exempt[b]:
                continue
            # The trade pays only if a better-ranked candidate fits once b is given up:
            # not played when none passes the tallies (the same map as playing, undoing).
            c = cluster_of[b]
            hopeful = False
            for k in range(ptr[b], ptr[b + 1]):
                j = nb[k]
                if (
                    dist[k] < gap
                    and not cluster_of[j]
                    and rank[j] < rank[b]
                    and state.tallies_pass_without(j, c, dist[k])
                ):
                    hopeful = True
                    break
            if not hopeful:
                continue
            count = state.count
            if len(state.remove(b)) > 1:
                state.undo(0)
                journal.clear()
                continue
            freed = {b}
            for k in range(ptr[b], ptr[b + 1]):
                j = nb[k]
                if dist[k] < gap and not cluster_of[j] and rank[j] < n:
                    freed.add(j)
            for j in sorted(freed, key=by_rank):
                if not cluster_of[j]:
                    c_j, seed_j = state.fits(j)
                    if c_j >= 0:
                        state.add(j, c_j, seed_j)
            delta = 0
            for op, a, _, _ in journal:
                if op == _ADD:
                    delta += rank[a]
                elif op == _REMOVE:
                    delta -= rank[a]
            if state.count >= count and delta < 0:
                traded.update(_touched(journal))
            else:
                state.undo(0)
            journal.clear()
        todo = _near(state, traded) if traded else []
    state.journal = None


def _worst_first(state: _Selection, order: list[int]) -> list[int]:
    """The stations, worst-ranked first."""
    cluster_of = state.cluster_of
    stations = []
    for i in reversed(order):
        if cluster_of[i]:
            stations.append(i)
    return stations


def _touched(journal: list[tuple[int, int, int, int]]) -> list[int]:
    """Candidates added to or removed from the map by the journalled changes."""
    return [a for op, a, _, _ in journal if op == _ADD or op == _REMOVE]


def _near(state: _Selection, changed: set[int]) -> list[int]:
    """Stations within twice the gap (two neighbour hops) of ``changed``, worst-ranked first."""
    gap = state.gap
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    hop = set(changed)
    for i in changed:
        for k in range(ptr[i], ptr[i + 1]):
            if dist[k] < gap:
                hop.add(nb[k])
    near: set[int] = set()
    for i in hop:
        if cluster_of[i]:
            near.add(i)
        for k in range(ptr[i], ptr[i + 1]):
            if dist[k] < gap and cluster_of[nb[k]]:
                near.add(nb[k])
    return sorted(near, key=state.rank_list.__getitem__, reverse=True)


def selection_result(state: _Selection, order: list[int]) -> SpacingResult:
    """The :class:`SpacingResult` of a finished selection, clusters numbered in ``order``."""
    cluster_of = _renumber(np.array(state.cluster_of, np.int64), order)
    seed = np.zeros(len(cluster_of), bool)
    seed[[s for s in state.seeds[1:] if s >= 0]] = True
    return SpacingResult(
        kept=cluster_of > 0,
        cluster_id=cluster_of,
        reason=np.asarray(state.reason, dtype=object),
        conflict=np.array(state.conflict, np.int64),
        seed=seed & (cluster_of > 0),
    )


def _renumber(cluster_of: np.ndarray, order: list[int]) -> np.ndarray:
    """Number clusters 1..k by the rank of their best station (stable, gap-free)."""
    lookup = np.zeros(int(cluster_of.max(initial=0)) + 1, np.int64)
    count = 0
    for i in order:
        c = int(cluster_of[i])
        if c and not lookup[c]:
            count += 1
            lookup[c] = count
    return lookup[cluster_of]


def closest_distances(
    index: NeighbourIndex, cluster_id: np.ndarray
) -> tuple[float | None, float | None]:
    """The smallest distance between two stations of one cluster, and of different clusters.

    Only pairs within the index radius are seen; None means no pair that close.

    Parameters
    ----------
    index : NeighbourIndex
        Built over the stations only.
    cluster_id : int array
        Cluster of each station.

    Returns
    -------
    (within, between) : floats in metres, or None
    """
    if not len(index.indices):
        return None, None
    # Every stored pair (both directions), with the row it belongs to.
    rows = np.repeat(np.arange(len(index)), np.diff(index.indptr))
    same = cluster_id[index.indices] == cluster_id[rows]
    within = float(index.distances[same].min()) if same.any() else None
    between = float(index.distances[~same].min()) if not same.all() else None
    return within, between
