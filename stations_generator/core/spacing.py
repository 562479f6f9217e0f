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
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

# Reasons a candidate is not a station.
SPACING = "spacing"
GAP = "gap"
CLUSTER_CAP = "cluster_cap"
REASONS = (SPACING, GAP, CLUSTER_CAP)


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


class NeighbourIndex:
    """Candidates within a fixed radius of each other, precomputed once.

    Pairs come from a KD-tree over projected coordinates; distances are grid
    distances in the conformal projection divided by the mean point scale factor
    of the pair, i.e. true lengths to well under a millimetre at these ranges (see
    :mod:`stations_generator.core.geodesy`).

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
            tree = cKDTree(np.column_stack([self.x, self.y]))
            # Search a little wider in grid units, then keep pairs by true distance.
            grid_radius = self.radius_m * float(self.scale.max()) * (1 + 1e-9)
            pairs = tree.query_pairs(grid_radius, output_type="ndarray").astype(np.int32)
        # Both directions of every pair, grouped by the first (a stable integer sort).
        m = len(pairs)
        both = np.empty((2 * m, 2), np.int32)
        both[:m] = pairs
        both[m:] = pairs[:, ::-1]
        both = both[np.argsort(both[:, 0], kind="stable")]
        rows, cols = both[:, 0], both[:, 1]
        grid = np.hypot(self.x[rows] - self.x[cols], self.y[rows] - self.y[cols])
        true = grid / ((self.scale[rows] + self.scale[cols]) / 2)
        keep = true <= self.radius_m
        rows, self.indices, self.distances = rows[keep], cols[keep], true[keep]
        self.indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=self.indptr[1:])

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


class _Selection:
    """Mutable state of a selection: which cluster each candidate is in, and why not.

    Plain Python lists: the loop touches a few dozen neighbours per candidate, where
    per-call numpy overhead would dominate.
    """

    def __init__(self, index: NeighbourIndex, rules: SpacingRules, exempt: np.ndarray):
        n = len(index)
        self.rules, self.exempt = rules, [bool(e) for e in exempt]
        self.ptr = index.indptr.tolist()
        self.nb = index.indices.tolist()
        self.dist = index.distances.tolist()
        self.x, self.y, self.k = index.x.tolist(), index.y.tolist(), index.scale.tolist()
        self.cluster_of = [0] * n  # 0 = not a station
        self.reason = [""] * n
        self.conflict = [-1] * n
        self.seeds: list[int] = [-1]  # seeds[c] = founding candidate of cluster c (1-based)
        self.sizes: list[int] = [0]  # non-exempt members per cluster
        self.members: list[int] = [0]  # all members per cluster

    def distance(self, i: int, j: int) -> float:
        grid = math.hypot(self.x[i] - self.x[j], self.y[i] - self.y[j])
        return grid / ((self.k[i] + self.k[j]) / 2)

    def fit(self, i: int) -> tuple[int, str, int]:
        """Where candidate ``i`` could go: (cluster or 0 for a new one, "", -1) or (-1, reason, blocker)."""
        rules = self.rules
        gap = rules.cluster_gap_m
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
            return 0, "", -1
        if j1 >= 0:
            return -1, GAP, j1
        if d0 < rules.min_spacing_m:
            return -1, SPACING, j0
        seed = self.seeds[c0]
        if self.distance(i, seed) > rules.cluster_radius_m:
            return -1, GAP, j0
        cap = rules.max_per_cluster
        if cap and not self.exempt[i] and self.sizes[c0] >= cap:
            return -1, CLUSTER_CAP, seed
        return c0, "", -1

    def add(self, i: int, c: int) -> None:
        """Make ``i`` a station of cluster ``c`` (0 = found a new cluster)."""
        if c == 0:
            c = len(self.seeds)
            self.seeds.append(i)
            self.sizes.append(0)
            self.members.append(0)
        self.cluster_of[i] = c
        self.reason[i] = ""
        self.conflict[i] = -1
        self.members[c] += 1
        if not self.exempt[i]:
            self.sizes[c] += 1

    def remove(self, i: int) -> None:
        """Undo :meth:`add` for ``i`` (a seed only when it is alone in its cluster)."""
        c = self.cluster_of[i]
        self.cluster_of[i] = 0
        self.members[c] -= 1
        if not self.exempt[i]:
            self.sizes[c] -= 1
        if self.seeds[c] == i:
            self.seeds[c] = -2  # dissolved; its number is not reused

    def try_add(self, i: int) -> bool:
        """Add ``i`` if it fits; otherwise record why not. Returns whether it was added."""
        c, why, blocker = self.fit(i)
        if c < 0:
            self.reason[i] = why
            self.conflict[i] = blocker
            return False
        self.add(i, c)
        return True


def select_stations(
    index: NeighbourIndex,
    order: np.ndarray,
    rules: SpacingRules,
    cap_exempt: np.ndarray | None = None,
    *,
    improve: bool = False,
    search_iterations: int = 0,
) -> SpacingResult:
    """Pick stations by the two-tier rule, greedily in rank order.

    Parameters
    ----------
    index : NeighbourIndex
        Neighbourhoods of radius at least ``rules.cluster_gap_m``.
    order : int array
        Candidate indices, best first (see :func:`stations_generator.core.ranking.rank_order`);
        candidates not listed take no part.
    rules : SpacingRules
    cap_exempt : bool array, optional
        Candidates that do not count toward (and are not stopped by) the cap (transit).
    improve : bool
        Follow the greedy pass with a local search that gives up one station for
        two or more rejected candidates whenever every rule still holds. It never
        gives up a cap-exempt (transit) station or the seed of a cluster with other
        members; each swap adds a station, so it ends, and the result stays maximal.
    search_iterations : int
        After the swaps, this many rounds of a large-neighbourhood search
        (:func:`_search`): dissolve the clusters around one candidate, refill the
        freed candidates in a shuffled order, keep the result if it has at least as
        many stations. A count, not a time budget, and a fixed random seed: the
        same input gives the same map. 0 = off.

    Returns
    -------
    SpacingResult
    """
    if index.radius_m < rules.cluster_gap_m:
        raise ValueError("the neighbour index radius must be at least the cluster gap")
    n = len(index)
    exempt = np.zeros(n, bool) if cap_exempt is None else np.asarray(cap_exempt, bool)
    order_list = np.asarray(order, np.int64).tolist()
    state = _Selection(index, rules, exempt)
    for i in order_list:
        state.try_add(i)
    if improve and n:
        _improve_by_swaps(state, order_list)
    # The search finds a cluster's members among its seed's neighbours.
    if search_iterations > 0 and n and rules.cluster_radius_m <= index.radius_m:
        _search(state, order_list, search_iterations)
    return selection_result(state, order_list)


def _search(state: _Selection, order: list[int], iterations: int, seed: int = 0) -> None:
    """Large-neighbourhood search with plateau moves, in place; never loses a station.

    Each round picks a candidate (seeded RNG over the rank order, so the input order
    does not matter), dissolves every cluster with a station within the gap of it,
    and offers every candidate within the gap of a removed station again, in a
    shuffled or noisily ranked order. Rounds that end with fewer stations are
    undone; ties are kept (walking plateaus is what finds the better maps). Every
    candidate whose rejection involved a removed station is offered again, so the
    map stays maximal and every rule holds by construction (``try_add``).
    """
    import random

    rng = random.Random(seed)
    n = len(state.cluster_of)
    rank = [n] * n
    for r, i in enumerate(order):
        rank[i] = r
    gap = state.rules.cluster_gap_m
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    reason, conflict = state.reason, state.conflict
    noise = max(1.0, len(order) / 3)
    for _ in range(iterations):
        s = order[rng.randrange(len(order))]
        clusters = {cluster_of[s]} if cluster_of[s] else set()
        for k in range(ptr[s], ptr[s + 1]):
            c = cluster_of[nb[k]]
            if c and dist[k] < gap:
                clusters.add(c)
        if not clusters:
            continue
        removed = []
        for c in clusters:
            seed_c = state.seeds[c]
            for k in range(ptr[seed_c], ptr[seed_c + 1]):
                if cluster_of[nb[k]] == c:
                    removed.append(nb[k])
            removed.append(seed_c)
        if any(state.exempt[i] for i in removed):
            continue  # transit stations are never given up (as in the swaps)
        removed.sort(key=rank.__getitem__)
        free_set = set()
        for i in removed:
            for k in range(ptr[i], ptr[i + 1]):
                j = nb[k]
                if not cluster_of[j] and rank[j] < n:
                    free_set.add(j)
        free_set.update(removed)
        free = sorted(free_set, key=rank.__getitem__)
        saved = [(j, cluster_of[j], reason[j], conflict[j]) for j in free]
        saved_clusters = [(c, state.seeds[c], state.sizes[c], state.members[c]) for c in clusters]
        n_seeds = len(state.seeds)
        for i in removed:
            cluster_of[i] = 0
        for c in clusters:
            state.seeds[c], state.sizes[c], state.members[c] = -2, 0, 0
        if rng.random() < 0.5:
            rng.shuffle(free)
        else:
            keys = {j: rank[j] + rng.random() * noise for j in free}
            free.sort(key=keys.__getitem__)
        added = 0
        for j in free:
            added += state.try_add(j)
        if added >= len(removed):
            continue
        for j in free:  # undo: fewer stations than before
            c = cluster_of[j]
            if c and c < n_seeds and c not in clusters:  # joined a kept cluster
                state.members[c] -= 1
                if not state.exempt[j]:
                    state.sizes[c] -= 1
            cluster_of[j] = 0
        del state.seeds[n_seeds:], state.sizes[n_seeds:], state.members[n_seeds:]
        for j, c, why, blocker in saved:
            cluster_of[j], reason[j], conflict[j] = c, why, blocker
        for c, seed_c, size, members in saved_clusters:
            state.seeds[c], state.sizes[c], state.members[c] = seed_c, size, members


def selection_result(state: _Selection, order: list[int]) -> SpacingResult:
    """The :class:`SpacingResult` of a finished selection, clusters numbered in ``order``."""
    cluster_of = _renumber(np.asarray(state.cluster_of, np.int64), order)
    seed = np.zeros(len(cluster_of), bool)
    seed[[s for s in state.seeds[1:] if s >= 0]] = True
    return SpacingResult(
        kept=cluster_of > 0,
        cluster_id=cluster_of,
        reason=np.asarray(state.reason, dtype=object),
        conflict=np.asarray(state.conflict, np.int64),
        seed=seed & (cluster_of > 0),
    )


def _improve_by_swaps(state: _Selection, order: list[int]) -> None:
    n = len(state.cluster_of)
    eligible = [False] * n
    rank = [n] * n
    for r, i in enumerate(order):
        eligible[i] = True
        rank[i] = r
    gap = state.rules.cluster_gap_m
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    reason, conflict = state.reason, state.conflict
    improved = True
    while improved:  # full passes until no swap pays: the result is a local optimum
        improved = False
        capped: dict[int, list[int]] = {}
        if state.rules.max_per_cluster:
            for i in order:
                if reason[i] == CLUSTER_CAP:
                    capped.setdefault(conflict[i], []).append(i)
        todo = [i for i in reversed(order) if cluster_of[i]]  # worst-ranked first: given up first
        for b in todo:
            c = cluster_of[b]
            if not c or state.exempt[b]:
                continue
            if state.seeds[c] == b and state.members[c] > 1:
                continue
            freed = []
            for k in range(ptr[b], ptr[b + 1]):
                j = nb[k]
                if dist[k] < gap and not cluster_of[j] and eligible[j]:
                    # A spacing rejection blocked by another station stays blocked.
                    if reason[j] == SPACING and conflict[j] != b:
                        continue
                    freed.append(j)
            freed.extend(j for j in capped.get(state.seeds[c], ()) if not cluster_of[j])
            if len(set(freed)) < 2:
                continue
            freed = sorted(set(freed), key=rank.__getitem__)
            saved = [(reason[j], conflict[j]) for j in freed]
            state.remove(b)
            added = []
            for m, j in enumerate(freed):
                if len(added) + len(freed) - m < 2:
                    break  # too few left to make the swap pay
                if state.try_add(j):
                    added.append(j)
            if len(added) >= 2:
                state.try_add(b)  # records why b no longer fits (or keeps it if it does)
                improved = True
                continue
            for j in reversed(added):
                state.remove(j)
            for j, (why, blocker) in zip(freed, saved, strict=True):
                reason[j], conflict[j] = why, blocker
            if state.seeds[c] == -2:  # b was a lone seed: restore its cluster
                state.seeds[c] = b
            cluster_of[b] = c
            state.members[c] += 1
            state.sizes[c] += 1


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
    within = between = None
    for i in range(len(index)):
        nb, dist = index.neighbours(i)
        if not len(nb):
            continue
        same = cluster_id[nb] == cluster_id[i]
        if same.any():
            d = float(dist[same].min())
            within = d if within is None else min(within, d)
        if (~same).any():
            d = float(dist[~same].min())
            between = d if between is None else min(between, d)
    return within, between
