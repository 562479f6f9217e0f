"""Exact station maps: the two-tier rule solved as a set-packing problem.

The station map is a packing problem (the game's "Vehicle stations" rules): choose as many
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
over station and seed variables (:func:`.packing.solve_seeds`) finds good maps but bounds them
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

from stations_generator import settings
from stations_generator.core.stationmap.cluster_graph import (
    MAX_CLUSTERS_PER_COMPONENT,
    MAX_EDGES_FOR_CLIQUES,
    Geometry,
    enumerate_clusters,
    gap_components,
    gap_edges,
    maximal_cliques,
)
from stations_generator.core.stationmap.packing import (
    Cluster,
    cp_solver,
    packing_model,
    solve_colgen,
    solve_packing,
    solve_seeds,
    spacing_bound,
)
from stations_generator.core.stationmap.spacing import (
    NeighbourIndex,
    SpacingResult,
    SpacingRules,
    select_stations,
    selection_result,
)
from stations_generator.core.stationmap.spacing_search import settle
from stations_generator.core.stationmap.spacing_state import Selection

__all__ = [
    "DEFAULT_TIME_LIMIT_S",
    "MAX_CLUSTERS_PER_COMPONENT",
    "MAX_EDGES_FOR_CLIQUES",
    "ComponentReport",
    "OptimizeResult",
    "explain_optimal",
    "optimize_stations",
]

DEFAULT_TIME_LIMIT_S = settings.SOLVER_TIME_LIMIT_S


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
    geo = Geometry(index, order, rules)
    problem = _Problem(geo, rank, len(order_list) + 1, exempt)
    comps = gap_components(geo, order) if len(order) else []
    comps.sort(key=lambda c: min(rank[i] for i in c.tolist()))
    starts = _greedy_starts(problem, order_list, start)
    listed = [
        [(c[0], (c[0],))] if len(c) == 1 else enumerate_clusters(c, geo, rank, exempt)
        for c in (comp.tolist() for comp in comps)
    ]
    weight = [
        len(c) if c is not None else MAX_CLUSTERS_PER_COMPONENT
        for c, comp in zip(listed, comps, strict=True)
    ]
    total_weight = sum(w for w, comp in zip(weight, comps, strict=True) if len(comp) > 1) or 1

    chosen_clusters: list[Cluster] = []
    reports: list[ComponentReport] = []
    proven: list[tuple[list[int], list, list, int]] = []
    bound_total = 0
    for done, (comp, clusters) in enumerate(zip(comps, listed, strict=True)):
        part = _component(
            comp.tolist(), clusters, starts, time_limit_s * weight[done] / total_weight
        )
        got, bound, report, optimum = _solve_component(part, problem)
        chosen_clusters.extend(got)
        bound_total += bound
        reports.append(report)
        if optimum is not None:
            proven.append(optimum)
        if progress is not None:
            progress(done + 1, len(comps))

    result = _as_result(index, order_list, rules, exempt, chosen_clusters, rank)
    return OptimizeResult(
        result, max(bound_total, result.count), start.count, reports, proven, order_list
    )


@dataclass(frozen=True)
class _Problem:
    """What every component's solve shares: the geometry, the ranks and the transit flags."""

    geo: Geometry
    rank: dict[int, int]
    n_rank: int  # one more than the last rank position
    exempt: np.ndarray


@dataclass(frozen=True)
class _Component:
    """One component of the gap graph to solve, with its greedy floor and its budget."""

    cl: list[int]
    clusters: list[Cluster] | None  # every feasible cluster; None: too many to list
    greedy: list[Cluster]  # the better greedy map on it (the hint and the floor)
    g_count: int
    plain_count: int  # stations of the plain greedy (the map without --optimize)
    budget: float


#: A component's solve: its clusters, its share of the bound, its report, and
#: (candidates, clusters, cliques, optimum) where the packing proved it optimal.
_Solved = tuple[list[Cluster], int, ComponentReport, tuple | None]


def _greedy_starts(
    problem: _Problem, order_list: list[int], start: SpacingResult
) -> list[list[Cluster]]:
    """Greedy maps (the hint and the floor): the given one, and the same greedy taking
    candidates with the fewest rivals within the gap first, which packs more stations
    where the cap binds (issue 12 measurements); per component, the better is used."""
    geo, rank = problem.geo, problem.rank
    rivals = np.diff(geo.index.indptr)
    sparse_first = np.asarray(sorted(order_list, key=lambda i: (int(rivals[i]), rank[i])))
    sparse = select_stations(geo.index, sparse_first, geo.rules, problem.exempt, improve=True)
    return [_clusters_of(start, order_list), _clusters_of(sparse, order_list)]


def _component(
    cl: list[int], clusters: list[Cluster] | None, starts: list[list[Cluster]], budget: float
) -> _Component:
    """A component with the greedy maps' clusters on it."""
    members = set(cl)
    tries = [[c for c in st if c[0] in members] for st in starts]
    plain_count = sum(len(m) for _, m in tries[0])
    greedy = max(tries, key=lambda t: sum(len(m) for _, m in t))  # first on ties
    g_count = sum(len(m) for _, m in greedy)
    return _Component(cl, clusters, greedy, g_count, plain_count, budget)


def _solve_component(part: _Component, problem: _Problem) -> _Solved:
    """The best model the component allows: listed clusters are packed exactly; too many
    to list, column generation, then the compact seed model (radius = gap), then the
    greedy's map or a packed subset of the clusters."""
    cl, rules = part.cl, problem.geo.rules
    if len(cl) == 1:
        report = ComponentReport(1, 1, part.plain_count, 1, 1, True, 0.0, "trivial")
        return part.clusters, 1, report, None
    if part.clusters is not None:
        return _by_packing(part, problem)
    p = problem
    cg = solve_colgen(cl, p.geo, p.rank, p.n_rank, p.exempt, part.greedy, part.budget)
    if cg:
        got, bound, wall = cg
        got, count = _floored(got, part.greedy, part.g_count)
        report = (part.plain_count, count, max(bound, count), count >= bound, wall, "colgen")
        return got, max(bound, count), ComponentReport(len(cl), 0, *report), None
    if rules.cluster_radius_m == rules.cluster_gap_m:
        got, bound, optimal, wall = solve_seeds(
            cl, p.geo, p.rank, p.n_rank, p.exempt, part.greedy, part.budget
        )
        got, count = _floored(got, part.greedy, part.g_count)
        report = (part.plain_count, count, max(bound, count), optimal, wall, "seeds")
        return got, max(bound, count), ComponentReport(len(cl), 0, *report), None
    if gap_edges(cl, p.geo.index, rules) > MAX_EDGES_FOR_CLIQUES:
        # So dense that even listing the cliques is slow: the greedy's map stays, and
        # the bound is the minimum spacing's alone.
        bound, wall = spacing_bound(cl, p.geo, part.budget)
        g_count = part.g_count
        report = (part.plain_count, g_count, max(bound, g_count), g_count >= bound, wall)
        return (
            part.greedy,
            max(bound, g_count),
            ComponentReport(len(cl), 0, *report, "fallback"),
            None,
        )
    return _by_restricted(part, problem)


def _by_restricted(part: _Component, problem: _Problem) -> _Solved:
    """Too many clusters to list: pack a subset of them (the greedy's among them) for a
    better map, and bound it by the minimum spacing alone."""
    cl, p = part.cl, problem
    bound, wall = spacing_bound(cl, p.geo, part.budget / 2)
    some = enumerate_clusters(
        cl, p.geo, p.rank, p.exempt, per_seed=max(8, MAX_CLUSTERS_PER_COMPONENT // len(cl))
    )
    known = {m for _, m in some}
    some += [(sd, m) for sd, m in part.greedy if m not in known]
    cliques = maximal_cliques(cl, p.geo, p.rank)
    hint = {m for _, m in part.greedy}
    picks, _, _, wall2 = solve_packing(some, cliques, p.rank, p.n_rank, hint, part.budget / 2)
    got, count = _floored([some[k] for k in picks], part.greedy, part.g_count)
    report = ComponentReport(
        len(cl),
        len(some),
        part.plain_count,
        count,
        max(bound, count),
        count >= bound,
        wall + wall2,
        "restricted",
    )
    return got, max(bound, count), report, None


def _by_packing(part: _Component, problem: _Problem) -> _Solved:
    """Every feasible cluster listed: the exact set packing."""
    cl, clusters, p = part.cl, part.clusters, problem
    assert clusters is not None
    cliques = maximal_cliques(cl, p.geo, p.rank)
    hint = {tuple(sorted(m, key=p.rank.__getitem__)) for _, m in part.greedy}
    picks, bound, optimal, wall = solve_packing(
        clusters, cliques, p.rank, p.n_rank, hint, part.budget
    )
    got = [clusters[k] for k in picks]
    count = sum(len(m) for _, m in got)
    if count < part.g_count or (count == part.g_count and not optimal and not picks):
        got, count = part.greedy, part.g_count
    optimum = (cl, clusters, cliques, count) if optimal and count >= bound else None
    report = ComponentReport(
        len(cl),
        len(clusters),
        part.plain_count,
        count,
        max(bound, count),
        optimal,
        wall,
        "packing",
    )
    return got, max(bound, count), report, optimum


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
            model, x, count = packing_model(clusters, cliques)
            model.AddBoolOr([x[k] for k in with_i[i]])
            model.Maximize(count)
            solver = cp_solver(time_limit_s / total)
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
    state = Selection.empty(index.as_arrays(), rules, exempt)
    for seed, members in sorted(clusters, key=lambda sm: min(rank[m] for m in sm[1])):
        state.add(seed, 0)
        c = state.cluster_of[seed]
        for m in members:
            if m != seed:
                state.add(m, c)
    settle(state, order)
    return selection_result(state, order)
