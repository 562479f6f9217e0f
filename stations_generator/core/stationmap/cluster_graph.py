"""The gap graph of the exact optimizer: its components, its cliques and every feasible cluster.

Two candidates closer than the cluster gap are joined; the exact model of
:mod:`.optimize` packs clusters so that at most one touches each maximal clique of
that graph, component by component. Distances come from the neighbour index's own
exact formula (:meth:`.spacing.NeighbourIndex.distance`).
"""

from __future__ import annotations

import numpy as np

from stations_generator.core.stationmap.spacing import NeighbourIndex, SpacingRules

#: Above this many gap-graph edges (both directions) in a component whose clusters are
#: too many to list, its maximal cliques are not listed either (Helsinki centre: 512
#: candidates, ~100k edges, 40 s in networkx); Sioux Falls' largest has ~11k.
#: Above this many feasible clusters in one component the exact model is not built
#: (listing them in Python and the model's size grow with it: ~2 s to list 50k).
MAX_CLUSTERS_PER_COMPONENT = 50_000
MAX_EDGES_FOR_CLIQUES = 40_000


class Geometry:
    """Distances among the eligible candidates, by the index's own exact formula.

    Parameters
    ----------
    index : NeighbourIndex
    eligible : int array
        The candidates taking part.
    rules : SpacingRules
    """

    def __init__(self, index: NeighbourIndex, eligible: np.ndarray, rules: SpacingRules):
        self.index = index
        self.rules = rules
        from scipy.spatial import cKDTree  # (imported only when optimizing: ~0.25 s)

        pts = np.column_stack([index.x, index.y])
        self.tree = cKDTree(pts[eligible]) if len(eligible) else None
        self.eligible = eligible
        self.kmax = float(index.scale.max()) if len(index) else 1.0

    def within(self, i: int, radius: float, strict: bool) -> list[int]:
        """Eligible candidates (not i) closer than (strict) or within ``radius`` of i."""
        idx = self.index
        grid_r = radius * self.kmax * (1 + 1e-9)
        hits = self.tree.query_ball_point([idx.x[i], idx.y[i]], grid_r)
        out = []
        for h in sorted(hits):
            j = int(self.eligible[h])
            if j == i:
                continue
            d = idx.distance(i, j)
            if d < radius or (not strict and d == radius):
                out.append(j)
        return out


def gap_components(geo: Geometry, eligible: np.ndarray) -> list[np.ndarray]:
    """Connected components of the graph joining candidates closer than the gap (or
    within the cluster radius, when that is larger: such a pair may share a cluster).

    Parameters
    ----------
    geo : Geometry
    eligible : int array

    Returns
    -------
    list of int arrays
        Each component's candidates, in the order of ``eligible``.
    """
    index, rules = geo.index, geo.rules
    n = len(index)
    if rules.cluster_radius_m <= rules.cluster_gap_m:
        mask = np.zeros(n, bool)
        mask[eligible] = True
        rows = np.repeat(np.arange(n), np.diff(index.indptr))
        keep = (index.distances < rules.cluster_gap_m) & mask[rows] & mask[index.indices]
        rows, cols = rows[keep], index.indices[keep]
    else:
        pairs = [
            (i, j)
            for i in eligible.tolist()
            for j in geo.within(i, rules.cluster_radius_m, strict=False)
        ]
        rows = np.asarray([p[0] for p in pairs], np.int64)
        cols = np.asarray([p[1] for p in pairs], np.int64)
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    groups: dict[int, list[int]] = {}
    for i in eligible.tolist():
        groups.setdefault(int(labels[i]), []).append(i)
    return [np.asarray(g, np.int64) for g in groups.values()]


def enumerate_clusters(
    comp: list[int],
    geo: Geometry,
    rank: dict[int, int],
    exempt: np.ndarray,
    limit: int = MAX_CLUSTERS_PER_COMPONENT,
    per_seed: int | None = None,
) -> list[tuple[int, tuple[int, ...]]] | None:
    """Every feasible cluster of a component as (seed, members sorted by rank).

    A member set reachable from several seeds is listed once (with its best-ranked
    seed).

    Parameters
    ----------
    comp : list of int
        The component's candidates.
    geo : Geometry
    rank : dict
        Candidate -> rank position.
    exempt : bool array
        Candidates exempt from the cap (transit).
    limit : int
        Give up (None) above this many clusters.
    per_seed : int, optional
        List at most this many clusters per seed instead (a subset: no longer exact).

    Returns
    -------
    list of (seed, members) or None
        Sorted by the seed's rank, then the members' ranks.
    """
    rules = geo.rules
    cap = rules.max_per_cluster
    seen: dict[tuple[int, ...], int] = {}
    for s in sorted(comp, key=rank.__getitem__):
        near = geo.within(s, rules.cluster_radius_m, strict=False) if rules.cluster_radius_m else []
        near.sort(key=rank.__getitem__)
        # Pairs closer than the minimum spacing may not share a cluster.
        close = {j: set() for j in near}
        for a in range(len(near)):
            for b in range(a + 1, len(near)):
                if geo.index.distance(near[a], near[b]) < rules.min_spacing_m:
                    close[near[a]].add(near[b])
                    close[near[b]].add(near[a])
        near = [j for j in near if geo.index.distance(s, j) >= rules.min_spacing_m]
        used0 = 0 if exempt[s] else 1
        if cap and used0 > cap:
            continue
        stack: list[tuple[tuple[int, ...], int, int]] = [((s,), 0, used0)]
        visited = 0
        while stack:
            members, start, used = stack.pop()
            visited += 1
            if per_seed is not None and visited > per_seed:
                break
            key = tuple(sorted(members, key=rank.__getitem__))
            if key not in seen:
                seen[key] = s
                if per_seed is None and len(seen) > limit:
                    return None
            for p in range(start, len(near)):
                j = near[p]
                u = used + (0 if exempt[j] else 1)
                if cap and u > cap:
                    continue
                if any(m in close[j] for m in members[1:]):
                    continue
                stack.append((members + (j,), p + 1, u))
    out = [(seed, members) for members, seed in seen.items()]
    out.sort(key=lambda sm: (rank[sm[0]], [rank[m] for m in sm[1]]))
    return out


def gap_edges(comp: list[int], index: NeighbourIndex, rules: SpacingRules) -> int:
    """Pairs of the component closer than the gap (both directions).

    Parameters
    ----------
    comp : list of int
    index : NeighbourIndex
    rules : SpacingRules

    Returns
    -------
    int
    """
    members = np.zeros(len(index), bool)
    members[comp] = True
    count = 0
    for i in comp:
        nb, d = index.neighbours(i)
        count += int((members[nb] & (d < rules.cluster_gap_m)).sum())
    return count


def maximal_cliques(comp: list[int], geo: Geometry, rank: dict[int, int]) -> list[tuple[int, ...]]:
    """The maximal cliques of the gap graph, each and all in rank order.

    Rank order, not index order: the model's rows (and so which of several equally good
    maps the solver returns, and the LP duals of column generation) must not depend on the
    order of the input.

    Parameters
    ----------
    comp : list of int
    geo : Geometry
    rank : dict
        Candidate -> rank position.

    Returns
    -------
    list of tuple of int
    """
    import networkx as nx  # lazy: only the optimizer needs it

    graph = nx.Graph()
    graph.add_nodes_from(comp)
    for i in comp:
        for j in geo.within(i, geo.rules.cluster_gap_m, strict=True):
            if i < j:
                graph.add_edge(i, j)
    return sorted(
        (tuple(sorted(q, key=rank.__getitem__)) for q in nx.find_cliques(graph)),
        key=lambda q: [rank[m] for m in q],
    )
