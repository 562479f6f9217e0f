"""Two-tier station spacing: the heart of the vehicle-station map.

Rules (the vehicle stations of the game's station map):

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

This module is the plain-Python side: the rules, the neighbour index, the result and
:func:`select_stations`, which runs the loops of
:mod:`~stations_generator.core.stationmap.spacing_search` over the state of
:mod:`~stations_generator.core.stationmap.spacing_state`, the two modules setup.py
compiles with Cython.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from stations_generator.core.geo.closepairs import pairs_within
from stations_generator.core.stationmap.spacing_search import IS_COMPILED as SEARCH_COMPILED
from stations_generator.core.stationmap.spacing_search import (
    greedy,
    improve_by_swaps,
    improve_ranks,
    search,
    settle,
)
from stations_generator.core.stationmap.spacing_state import (
    CLUSTER_CAP,
    GAP,
    REASONS,
    SPACING,
    IndexArrays,
    Selection,
    as_floats,
    as_ints,
)
from stations_generator.core.stationmap.spacing_state import IS_COMPILED as STATE_COMPILED

__all__ = [
    "CLUSTER_CAP",
    "GAP",
    "IS_COMPILED",
    "REASONS",
    "SPACING",
    "NeighbourIndex",
    "SpacingResult",
    "SpacingRules",
    "closest_distances",
    "default_search_rounds",
    "select_stations",
    "selection_result",
]

#: Whether the spacing core runs compiled: setup.py builds spacing_state and
#: spacing_search with Cython where a C compiler is at hand (the same source, so the
#: same stations, several times faster at scale).
IS_COMPILED = STATE_COMPILED and SEARCH_COMPILED


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
        self._swapped: dict[tuple, Selection] = {}

    def as_arrays(self) -> IndexArrays:
        """(indptr, indices, distances, x, y, scale) as :data:`Numbers`, made once; read-only."""
        if self._arrays is None:
            self._arrays = (
                as_ints(self.indptr),
                as_ints(self.indices),
                as_floats(self.distances),
                as_floats(self.x),
                as_floats(self.y),
                as_floats(self.scale),
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
        Follow the greedy with swaps (:func:`.spacing_search.improve_by_swaps`): give up one station
        for two or more candidates whenever every rule still holds; never a cap-exempt
        (transit) station. Each swap adds a station, so it ends.
    search_iterations : int or None
        With ``improve``: rounds of large-neighbourhood search (:func:`.spacing_search.search`) per
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
        state = greedy(index.as_arrays(), rules, exempt, order_list, order_list)
        settle(state, order_list, full=False)
        return selection_result(state, order_list)
    best = _best_search(index, rules, exempt, order_list, search_iterations)
    improve_ranks(best, order_list)
    settle(best, order_list)
    return selection_result(best, order_list)


def _best_search(
    index: NeighbourIndex,
    rules: SpacingRules,
    exempt: np.ndarray,
    order_list: list[int],
    search_iterations: int | None,
) -> Selection:
    """The best map of the searches from each greedy start (see :func:`select_stations`)."""
    rounds = (
        default_search_rounds(len(order_list)) if search_iterations is None else search_iterations
    )
    # The search finds a cluster's members among its seed's neighbours.
    if rules.cluster_radius_m > index.radius_m:
        rounds = 0
    best: Selection | None = None
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
            changed = search(state, order_list, crowd, size, seed=1000 * s + block)
            improve_by_swaps(state, order_list, changed)
        key = (-state.count, state.rank_sum())
        if best is None or key < best_key:
            best, best_key = state, key
    assert best is not None
    return best


def _swapped_greedy(
    index: NeighbourIndex,
    rules: SpacingRules,
    exempt: np.ndarray,
    order: list[int],
    start: list[int],
) -> Selection:
    """The greedy from ``start`` followed by the swaps; a fresh copy of a remembered map.

    Deterministic in its arguments, so the index remembers the map (a few lists per
    candidate) for the next call: ``build_station_map`` runs it once per cap while
    tuning, and again for the search under the chosen cap.
    """
    key = (rules, exempt.tobytes(), tuple(order), tuple(start))
    known = index._swapped.get(key)
    if known is None:
        # Every caller ends with the full settle, which words the reasons.
        known = greedy(index.as_arrays(), rules, exempt, order, start, reasons=False)
        improve_by_swaps(known, order)
        index._swapped[key] = known
    return known.copy()


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


def selection_result(state: Selection, order: list[int]) -> SpacingResult:
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
    ranked = cluster_of[np.asarray(order, np.int64)]
    clusters, first = np.unique(ranked[ranked > 0], return_index=True)
    lookup[clusters[np.argsort(first)]] = np.arange(1, len(clusters) + 1)
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
