"""Exact station maps: the two-tier rule solved as a set-packing problem.

The station map is a packing problem (DESIGN.md §1, "Vehicle stations"): choose as many
stations as the rules allow. A *cluster* is a seed and members within the cluster radius
of it, every two members at least the minimum spacing apart, at most ``max_per_cluster``
non-transit members. Two chosen clusters must be at least the cluster gap apart, and
that is exactly "at most one chosen cluster touches each maximal clique of the graph
*closer than the gap*": two clusters closer than the gap share an edge of that graph,
every edge lies in a maximal clique, and two clusters touching one clique are closer
than the gap (or share a station). So the map is

    maximise  sum |C| x_C   subject to  sum_{C touches Q} x_C <= 1  for every clique Q,

over every feasible cluster C. Its LP bound is nearly tight on real data, and OR-Tools
CP-SAT proves the optimum in seconds.

The problem splits into the connected components of the gap graph (clusters never
span two of them, and components never interact), each solved on its own, warm
started (a solution hint) from the greedy of :mod:`.spacing`, with a share of the time
limit. A component the solver does not finish keeps the better of the greedy and the
solver's best, so the result is never worse than the greedy.

Objective (lexicographic): the most stations; among maps with that many, the lowest
sum of the stations' rank positions (:func:`.ranking.rank_order`), so that where the
count ties a museum still beats a fuel station. Solved in two phases: the count, then
the rank sum with the count fixed at its best.

Determinism: one search worker, a fixed seed, and the time limit counted in CP-SAT's
*deterministic time* (work units that do not depend on machine load), so the same input
and options give the same map. One deterministic second is roughly one wall second
here (measured in bench/bench_optimize.py).

When a component has too many feasible clusters to list (more than
:data:`MAX_CLUSTERS_PER_COMPONENT`) but its cliques can be listed, column generation
(:mod:`.colgen`) proves the LP bound over every cluster and the restricted master over
the generated clusters is solved as an integer program (price and branch; Sioux Falls
1000 m / no cap: 186, proven, ~60 CPU s). If the pricing does not converge in its half
of the budget: with the radius equal to the gap, a compact model
over station and seed variables (:func:`_solve_seeds`) finds good maps but bounds them
weakly; otherwise a listed subset of the clusters is packed (a heuristic) and bounded by
the largest set of candidates at least the minimum spacing apart (which ignores the gap,
the radius and the cap, so it is a valid upper bound); components too dense even to list
their cliques keep the greedy's map with that bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from stations_generator.core.stationmap.spacing import (
    NeighbourIndex,
    SpacingResult,
    SpacingRules,
    _Selection,
    _settle,
    select_stations,
    selection_result,
)

DEFAULT_TIME_LIMIT_S = 60.0
#: Above this many gap-graph edges (both directions) in a component whose clusters are
#: too many to list, its maximal cliques are not listed either (Helsinki centre: 512
#: candidates, ~100k edges, 40 s in networkx); Sioux Falls' largest has ~11k.
#: Above this many feasible clusters in one component the exact model is not built
#: (listing them in Python and the model's size grow with it: ~2 s to list 50k).
MAX_CLUSTERS_PER_COMPONENT = 50_000
MAX_EDGES_FOR_CLIQUES = 40_000
_SEED = 0


@dataclass
class ComponentReport:
    """How one connected component of the gap graph was solved."""

    size: int  # eligible candidates
    clusters: int  # feasible clusters listed (0: too many, fallback model)
    greedy: int  # stations of the plain greedy (the map without --optimize)
    stations: int
    bound: int
    optimal: bool
    solve_s: float  # CP-SAT wall time, both phases
    model: str  # "packing", "fallback", "trivial"


@dataclass
class OptimizeResult:
    """The optimized selection and what was proven about it.

    Attributes
    ----------
    result : SpacingResult
        The map, in the same form as :func:`.spacing.select_stations` returns.
    bound : int
        Proven upper bound on the number of stations any map can have under the rules.
    greedy_count : int
        Stations the greedy start had.
    components : list of ComponentReport
    """

    result: SpacingResult
    bound: int
    greedy_count: int
    components: list[ComponentReport] = field(default_factory=list)
    #: Proven-optimal packing components: (candidates, clusters, cliques, optimum).
    _proven: list[tuple[list[int], list, list, int]] = field(default_factory=list, repr=False)
    _eligible: list[int] = field(default_factory=list, repr=False)

    @property
    def count(self) -> int:
        """Number of stations."""
        return self.result.count

    @property
    def optimal(self) -> bool:
        """Whether the station count is proven the best possible."""
        return self.count >= self.bound

    @property
    def gap(self) -> float:
        """Relative distance to the bound: (bound - count) / bound (0 when optimal)."""
        return 0.0 if self.bound <= 0 else max(0.0, (self.bound - self.count) / self.bound)

    def summary(self) -> str:
        """'186 stations, optimal' or '184 stations, within 2.1 % of the best possible'."""
        if self.optimal:
            return f"{self.count} stations, optimal"
        return (
            f"{self.count} stations, within {100 * self.gap:.1f} % of the best possible "
            f"(at most {self.bound})"
        )


class _Geometry:
    """Distances among the eligible candidates, by the index's own exact formula."""

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


def _components(geo: _Geometry, eligible: np.ndarray) -> list[np.ndarray]:
    """Connected components of the graph joining candidates closer than the gap (or
    within the cluster radius, when that is larger: such a pair may share a cluster)."""
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
    geo: _Geometry,
    rank: dict[int, int],
    exempt: np.ndarray,
    limit: int = MAX_CLUSTERS_PER_COMPONENT,
    per_seed: int | None = None,
) -> list[tuple[int, tuple[int, ...]]] | None:
    """Every feasible cluster of a component as (seed, members sorted by rank).

    A member set reachable from several seeds is listed once (with its best-ranked
    seed). Returns None when there are more than ``limit``; with ``per_seed``, lists
    at most that many clusters per seed instead (a subset: no longer exact).
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


def _gap_edges(comp: list[int], index: NeighbourIndex, rules: SpacingRules) -> int:
    """Pairs of the component closer than the gap (both directions)."""
    members = np.zeros(len(index), bool)
    members[comp] = True
    count = 0
    for i in comp:
        nb, d = index.neighbours(i)
        count += int((members[nb] & (d < rules.cluster_gap_m)).sum())
    return count


def _cliques(comp: list[int], geo: _Geometry, rank: dict[int, int]) -> list[tuple[int, ...]]:
    """The maximal cliques of the gap graph, each and all in rank order.

    Rank order, not index order: the model's rows (and so which of several equally good
    maps the solver returns, and the LP duals of column generation) must not depend on the
    order of the input.
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


def _solver(time_limit: float):
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    p = solver.parameters
    p.num_workers = 1  # one worker + a deterministic-time limit: reproducible maps
    p.random_seed = _SEED
    # The LP relaxation of the packing is nearly tight: linearising it fully makes
    # CP-SAT prove Sioux Falls 3-4x faster (1.5 s / 4.0 s instead of 5.3 s / 15.9 s).
    p.linearization_level = 2
    p.max_deterministic_time = max(time_limit, 0.05)
    # A wall-clock safety net well above the deterministic budget: deterministic seconds
    # track wall seconds on an idle machine but fall behind under load (measured up to
    # 4x for the compact model at load 8). Only when this net is what stops a solve can
    # a run depend on machine load, so it is generous.
    p.max_time_in_seconds = 4 * max(time_limit, 0.05) + 10
    # CP-SAT's own Ctrl-C handler resets SIGINT to the default action when a solve ends,
    # behind Python's back: an ignored SIGINT (nohup, a background job) then kills the
    # process, and the output set's handler is skipped (Python still thinks it ignored).
    # Ctrl-C is the process's to handle: an output set ends the run cleanly.
    p.catch_sigint_signal = False
    return solver


def _packing_model(clusters: list[tuple[int, tuple[int, ...]]], cliques: list[tuple[int, ...]]):
    """The set-packing model: (model, cluster variables, station count expression)."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = [model.NewBoolVar(f"c{k}") for k in range(len(clusters))]
    clique_of: dict[int, list[int]] = {}
    for q, members in enumerate(cliques):
        for m in members:
            clique_of.setdefault(m, []).append(q)
    touching: list[list[int]] = [[] for _ in cliques]
    for k, (_, members) in enumerate(clusters):
        for q in sorted({q for m in members for q in clique_of[m]}):
            touching[q].append(k)
    for ks in touching:
        if len(ks) > 1:
            model.AddAtMostOne(x[k] for k in ks)
    count = sum(len(m) * x[k] for k, (_, m) in enumerate(clusters))
    return model, x, count


def _solve_packing(
    clusters: list[tuple[int, tuple[int, ...]]],
    cliques: list[tuple[int, ...]],
    rank: dict[int, int],
    n_rank: int,
    hint: set[tuple[int, ...]],
    time_limit: float,
    known_bound: int | None = None,
) -> tuple[list[int], int, bool, float]:
    """Chosen cluster positions, the count bound, whether optimal, wall seconds.

    ``known_bound``: a proven bound on the count over *all* clusters (column
    generation's); the solve stops as soon as it reaches it.
    """
    from ortools.sat.python import cp_model

    model, x, count = _packing_model(clusters, cliques)
    if known_bound is not None:
        model.Add(count <= known_bound)
    for k, (_, members) in enumerate(clusters):
        model.AddHint(x[k], members in hint)
    model.Maximize(count)
    solver = _solver(0.8 * time_limit)
    status = solver.Solve(model)
    wall = solver.WallTime()
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return [], len({m for _, ms in clusters for m in ms}), False, wall
    best = round(solver.ObjectiveValue())
    bound = math.floor(solver.BestObjectiveBound() + 1e-6)
    optimal = status == cp_model.OPTIMAL
    chosen = [k for k in range(len(x)) if solver.Value(x[k])]
    # Phase 2: the count held at its best, the lowest rank sum.
    model.ClearHints()
    for k in range(len(x)):
        model.AddHint(x[k], k in set(chosen))
    model.Add(count >= best)
    value = [sum(n_rank - rank[m] for m in members) for _, members in clusters]
    model.Maximize(sum(value[k] * x[k] for k in range(len(x))))
    solver2 = _solver(0.2 * time_limit)
    status2 = solver2.Solve(model)
    wall += solver2.WallTime()
    if status2 in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = [k for k in range(len(x)) if solver2.Value(x[k])]
    return chosen, bound, optimal, wall


def _solve_seeds(
    comp: list[int],
    geo: _Geometry,
    rank: dict[int, int],
    n_rank: int,
    exempt: np.ndarray,
    greedy: list[tuple[int, tuple[int, ...]]],
    time_limit: float,
) -> tuple[list[tuple[int, tuple[int, ...]]], int, bool, float]:
    """The compact model for radius = gap, where clusters are too many to list.

    With the radius equal to the gap, a cluster is exactly the stations closer than the
    gap to its seed (any such station must share the seed's cluster, and no member is
    farther). Variables: ``x_i`` (station) and ``z_j`` (seed). Every station has
    exactly one seed closer than the gap (itself included; a candidate that is not a
    station may have several); stations closer than the
    minimum spacing exclude each other; two adjacent stations i, k (closer than the
    gap) must share their seed, so no seed j near i but not near k may hold with both;
    a seed's non-exempt members respect the cap. A station exactly at the gap from a
    seed is not counted as its member: a restriction only on a measure-zero case.
    """
    from ortools.sat.python import cp_model

    rules = geo.rules
    gap = rules.cluster_gap_m
    near = {i: geo.within(i, gap, strict=True) for i in comp}
    ball = {i: set(near[i]) | {i} for i in comp}
    model = cp_model.CpModel()
    x = {i: model.NewBoolVar(f"x{i}") for i in comp}
    z = {i: model.NewBoolVar(f"z{i}") for i in comp}
    for i in comp:
        model.AddImplication(z[i], x[i])
        model.Add(sum(z[j] for j in sorted(ball[i])) == 1).OnlyEnforceIf(x[i])
        for k in near[i]:
            if k < i:
                continue
            if geo.index.distance(i, k) < rules.min_spacing_m:
                model.AddBoolOr([x[i].Not(), x[k].Not()])
                continue
            for j in sorted(ball[i] ^ ball[k]):
                model.AddBoolOr([z[j].Not(), x[i].Not(), x[k].Not()])
        if rules.max_per_cluster:
            counted = [x[m] for m in sorted(ball[i]) if not exempt[m]]
            if len(counted) > rules.max_per_cluster:
                model.Add(sum(counted) <= rules.max_per_cluster).OnlyEnforceIf(z[i])
    on = {m for _, ms in greedy for m in ms}
    seeds = {s for s, _ in greedy}
    for i in comp:
        model.AddHint(x[i], i in on)
        model.AddHint(z[i], i in seeds)
    count = sum(x[i] for i in comp)
    model.Maximize(count)
    # This model's deterministic seconds run ~4x slower than wall seconds (Sioux Falls,
    # 1000 m: 60 deterministic s took 250 s), so it gets a quarter of its share: the
    # --time-limit stays about wall seconds.
    time_limit = time_limit / 4
    solver = _solver(0.8 * time_limit)
    status = solver.Solve(model)
    wall = solver.WallTime()
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return [], len(comp), False, wall
    best = round(solver.ObjectiveValue())
    bound = math.floor(solver.BestObjectiveBound() + 1e-6)
    optimal = status == cp_model.OPTIMAL
    values = {i: (solver.Value(x[i]), solver.Value(z[i])) for i in comp}
    model.ClearHints()
    for i in comp:
        model.AddHint(x[i], values[i][0])
        model.AddHint(z[i], values[i][1])
    model.Add(count >= best)
    model.Maximize(sum((n_rank - rank[i]) * x[i] for i in comp))
    solver2 = _solver(0.2 * time_limit)
    status2 = solver2.Solve(model)
    wall += solver2.WallTime()
    if status2 in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        values = {i: (solver2.Value(x[i]), solver2.Value(z[i])) for i in comp}
    clusters = []
    for j in comp:
        if values[j][1]:
            members = [m for m in ball[j] if values[m][0]]
            clusters.append((j, tuple(sorted(members, key=rank.__getitem__))))
    return clusters, bound, optimal, wall


def _solve_colgen(
    comp: list[int],
    geo: _Geometry,
    rank: dict[int, int],
    n_rank: int,
    exempt: np.ndarray,
    greedy: list[tuple[int, tuple[int, ...]]],
    time_limit: float,
) -> tuple[list[tuple[int, tuple[int, ...]]], int, float] | None:
    """Column generation (:mod:`.colgen`), then the restricted master as an integer
    program (price and branch). Returns (clusters, bound, seconds), or None when the
    cliques are too many to list or the pricing does not converge in the budget (the
    caller then falls back to the older models)."""
    from stations_generator.core.stationmap.colgen import generate_columns

    if _gap_edges(comp, geo.index, geo.rules) > MAX_EDGES_FOR_CLIQUES:
        return None
    cliques = _cliques(comp, geo, rank)
    cg = generate_columns(comp, geo, rank, exempt, cliques, greedy, _solver, 0.5 * time_limit)
    if not math.isfinite(cg.lp_bound):
        return None
    bound = math.floor(cg.lp_bound + 1e-6)
    hint = {m for _, m in greedy}
    picks, _, _, wall = _solve_packing(
        cg.columns, cliques, rank, n_rank, hint, 0.5 * time_limit, known_bound=bound
    )
    return [cg.columns[k] for k in picks], bound, cg.cpu_s + wall


def _spacing_bound(comp: list[int], geo: _Geometry, time_limit: float) -> tuple[int, float]:
    """Upper bound for a component: most candidates at least the minimum spacing apart."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = {i: model.NewBoolVar(f"s{i}") for i in comp}
    for i in comp:
        for j in geo.within(i, geo.rules.min_spacing_m, strict=True):
            if i < j and j in x:
                model.AddBoolOr([x[i].Not(), x[j].Not()])
    model.Maximize(sum(x.values()))
    solver = _solver(time_limit)
    solver.Solve(model)
    bound = solver.BestObjectiveBound()  # valid even when no solution was found
    if not math.isfinite(bound):
        return len(comp), solver.WallTime()
    return min(len(comp), math.floor(bound + 1e-6)), solver.WallTime()


def optimize_stations(
    index: NeighbourIndex,
    order: np.ndarray,
    rules: SpacingRules,
    cap_exempt: np.ndarray | None = None,
    *,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    start: SpacingResult | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> OptimizeResult:
    """Pick the most stations the two-tier rule, the radius and the cap allow.

    Parameters
    ----------
    index : NeighbourIndex
        Neighbourhoods of radius at least ``rules.cluster_gap_m``.
    order : int array
        Eligible candidates, best first (as for :func:`.spacing.select_stations`).
    rules : SpacingRules
    cap_exempt : bool array, optional
        Candidates that do not count toward the cap (transit).
    time_limit_s : float
        Solver budget over all components, in CP-SAT deterministic seconds.
    start : SpacingResult, optional
        The greedy map to warm-start from and never fall below (computed if absent).
    progress : callable, optional
        ``progress(done, total)`` over the components.

    Returns
    -------
    OptimizeResult
    """
    if index.radius_m < rules.cluster_gap_m:
        raise ValueError("the neighbour index radius must be at least the cluster gap")
    if not math.isfinite(time_limit_s) or time_limit_s <= 0:
        raise ValueError("the time limit must be a positive number of seconds")
    n = len(index)
    exempt = np.zeros(n, bool) if cap_exempt is None else np.asarray(cap_exempt, bool)
    order = np.asarray(order, np.int64)
    order_list = order.tolist()
    if start is None:
        start = select_stations(index, order, rules, exempt, improve=True)
    rank = {i: r for r, i in enumerate(order_list)}
    n_rank = len(order_list) + 1
    geo = _Geometry(index, order, rules)
    comps = _components(geo, order) if len(order) else []
    comps.sort(key=lambda c: min(rank[i] for i in c.tolist()))

    # Greedy maps (the hint and the floor): the given one, and the same greedy taking
    # candidates with the fewest rivals within the gap first, which packs more
    # stations where the cap binds (issue 12 measurements); per component, the better.
    rivals = np.diff(index.indptr)
    sparse_first = np.asarray(sorted(order_list, key=lambda i: (int(rivals[i]), rank[i])))
    starts = [
        _clusters_of(start, order_list),
        _clusters_of(select_stations(index, sparse_first, rules, exempt, improve=True), order_list),
    ]

    listed: list[list[tuple[int, tuple[int, ...]]] | None] = []
    for comp in comps:
        cl = comp.tolist()
        if len(cl) == 1:
            listed.append([(cl[0], (cl[0],))])
        else:
            listed.append(enumerate_clusters(cl, geo, rank, exempt))
    weight = [
        len(c) if c is not None else MAX_CLUSTERS_PER_COMPONENT
        for c, comp in zip(listed, comps, strict=True)
    ]
    total_weight = sum(w for w, comp in zip(weight, comps, strict=True) if len(comp) > 1) or 1

    chosen_clusters: list[tuple[int, tuple[int, ...]]] = []
    reports: list[ComponentReport] = []
    proven: list[tuple[list[int], list, list, int]] = []
    bound_total = 0
    for done, (comp, clusters) in enumerate(zip(comps, listed, strict=True)):
        cl = comp.tolist()
        members = set(cl)
        tries = [[c for c in st if c[0] in members] for st in starts]
        plain_count = sum(len(m) for _, m in tries[0])
        greedy = max(tries, key=lambda t: sum(len(m) for _, m in t))  # first on ties
        g_count = sum(len(m) for _, m in greedy)
        budget = time_limit_s * weight[done] / total_weight
        if len(cl) == 1:
            chosen_clusters.extend(clusters)
            bound_total += 1
            reports.append(ComponentReport(1, 1, plain_count, 1, 1, True, 0.0, "trivial"))
        elif clusters is None and (
            cg := _solve_colgen(cl, geo, rank, n_rank, exempt, greedy, budget)
        ):
            got, bound, wall = cg
            got, count = _floored(got, greedy, g_count)
            chosen_clusters.extend(got)
            bound_total += max(bound, count)
            report = (plain_count, count, max(bound, count), count >= bound, wall, "colgen")
            reports.append(ComponentReport(len(cl), 0, *report))
        elif clusters is None and rules.cluster_radius_m == rules.cluster_gap_m:
            got, bound, optimal, wall = _solve_seeds(cl, geo, rank, n_rank, exempt, greedy, budget)
            got, count = _floored(got, greedy, g_count)
            chosen_clusters.extend(got)
            bound_total += max(bound, count)
            reports.append(
                ComponentReport(
                    len(cl), 0, plain_count, count, max(bound, count), optimal, wall, "seeds"
                )
            )
        elif clusters is None and _gap_edges(cl, index, rules) > MAX_EDGES_FOR_CLIQUES:
            # So dense that even listing the cliques is slow: the greedy's map stays, and
            # the bound is the minimum spacing's alone.
            bound, wall = _spacing_bound(cl, geo, budget)
            chosen_clusters.extend(greedy)
            bound_total += max(bound, g_count)
            reports.append(
                ComponentReport(
                    len(cl),
                    0,
                    plain_count,
                    g_count,
                    max(bound, g_count),
                    g_count >= bound,
                    wall,
                    "fallback",
                )
            )
        elif clusters is None:
            # Too many clusters to list: pack a subset of them (the greedy's among them)
            # for a better map, and bound it by the minimum spacing alone.
            bound, wall = _spacing_bound(cl, geo, budget / 2)
            some = enumerate_clusters(
                cl, geo, rank, exempt, per_seed=max(8, MAX_CLUSTERS_PER_COMPONENT // len(cl))
            )
            known = {m for _, m in some}
            some += [(sd, m) for sd, m in greedy if m not in known]
            cliques = _cliques(cl, geo, rank)
            hint = {m for _, m in greedy}
            picks, _, _, wall2 = _solve_packing(some, cliques, rank, n_rank, hint, budget / 2)
            got, count = _floored([some[k] for k in picks], greedy, g_count)
            chosen_clusters.extend(got)
            bound_total += max(bound, count)
            reports.append(
                ComponentReport(
                    len(cl),
                    len(some),
                    plain_count,
                    count,
                    max(bound, count),
                    count >= bound,
                    wall + wall2,
                    "restricted",
                )
            )
        else:
            cliques = _cliques(cl, geo, rank)
            hint = {tuple(sorted(m, key=rank.__getitem__)) for _, m in greedy}
            picks, bound, optimal, wall = _solve_packing(
                clusters, cliques, rank, n_rank, hint, budget
            )
            got = [clusters[k] for k in picks]
            count = sum(len(m) for _, m in got)
            if count < g_count or (count == g_count and not optimal and not picks):
                got, count = greedy, g_count
            chosen_clusters.extend(got)
            bound_total += max(bound, count)
            if optimal and count >= bound:
                proven.append((cl, clusters, cliques, count))
            reports.append(
                ComponentReport(
                    len(cl),
                    len(clusters),
                    plain_count,
                    count,
                    max(bound, count),
                    optimal,
                    wall,
                    "packing",
                )
            )
        if progress is not None:
            progress(done + 1, len(comps))

    result = _as_result(index, order_list, rules, exempt, chosen_clusters, rank)
    return OptimizeResult(
        result, max(bound_total, result.count), start.count, reports, proven, order_list
    )


def _floored(got: list, greedy: list, g_count: int) -> tuple[list, int]:
    """A component's solved clusters and their count, never below the greedy's map."""
    count = sum(len(m) for _, m in got)
    return (greedy, g_count) if count < g_count else (got, count)


YES, NO, UNKNOWN = "yes", "no", "unknown"


def explain_optimal(
    opt: OptimizeResult, time_limit_s: float = DEFAULT_TIME_LIMIT_S
) -> dict[int, str]:
    """For each candidate, whether any optimal map could include it.

    "yes": some map with the most stations has it (every station of the map does);
    "no": proven impossible (forcing it in, the component's best falls below its
    optimum); "unknown": the component was not solved to proven optimality, or the
    forced solve did not finish in its share of the budget. Components of one
    candidate are trivially "yes".

    Parameters
    ----------
    opt : OptimizeResult
    time_limit_s : float
        Budget over all forced solves (deterministic seconds).

    Returns
    -------
    dict
        Candidate index -> "yes" / "no" / "unknown", for every eligible candidate.
    """
    from ortools.sat.python import cp_model

    kept = set(np.flatnonzero(opt.result.kept).tolist())
    answer: dict[int, str] = {}
    for i in opt._eligible:
        answer[i] = YES if i in kept else UNKNOWN
    todo = []
    for cl, clusters, cliques, optimum in opt._proven:
        in_some = {m for m in cl if m in kept}
        rest = [i for i in cl if i not in in_some]
        todo.append((cl, clusters, cliques, optimum, in_some, rest))
    total = sum(len(t[5]) for t in todo) or 1
    for _cl, clusters, cliques, optimum, in_some, rest in todo:
        with_i: dict[int, list[int]] = {}
        for k, (_, members) in enumerate(clusters):
            for m in members:
                with_i.setdefault(m, []).append(k)
        for i in rest:
            if i in in_some:
                answer[i] = YES
                continue
            model, x, count = _packing_model(clusters, cliques)
            model.AddBoolOr([x[k] for k in with_i[i]])
            model.Maximize(count)
            solver = _solver(time_limit_s / total)
            status = solver.Solve(model)
            if (
                status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
                and round(solver.ObjectiveValue()) >= optimum
            ):
                members = {
                    m for k, (_, ms) in enumerate(clusters) if solver.Value(x[k]) for m in ms
                }
                in_some |= members
                answer[i] = YES
            elif status == cp_model.INFEASIBLE or solver.BestObjectiveBound() < optimum - 1e-6:
                answer[i] = NO
            else:
                answer[i] = UNKNOWN
        for m in in_some:
            answer[m] = YES
    return answer


def _clusters_of(result: SpacingResult, order: list[int]) -> list[tuple[int, tuple[int, ...]]]:
    """A selection's clusters as (seed, members in rank order)."""
    members: dict[int, list[int]] = {}
    for i in order:
        c = int(result.cluster_id[i])
        if c:
            members.setdefault(c, []).append(i)
    seed = {int(result.cluster_id[i]): i for i in np.flatnonzero(result.seed).tolist()}
    return [(seed[c], tuple(ms)) for c, ms in sorted(members.items())]


def _as_result(
    index: NeighbourIndex,
    order: list[int],
    rules: SpacingRules,
    exempt: np.ndarray,
    clusters: list[tuple[int, tuple[int, ...]]],
    rank: dict[int, int],
) -> SpacingResult:
    """The chosen clusters as a SpacingResult; every other candidate gets its reason.

    Rejected candidates are offered once more in rank order, so the map is maximal
    even where a component's solve stopped early.
    """
    state = _Selection.empty(index, rules, exempt)
    for seed, members in sorted(clusters, key=lambda sm: min(rank[m] for m in sm[1])):
        state.add(seed, 0)
        c = state.cluster_of[seed]
        for m in members:
            if m != seed:
                state.add(m, c)
    _settle(state, order)
    return selection_result(state, order)
