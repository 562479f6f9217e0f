"""The CP-SAT models of the exact optimizer: set packing, the compact seed model, the bounds.

Each solves one component of the gap graph (:mod:`.cluster_graph`) in two phases: the
most stations, then, with the count held at its best, the lowest sum of rank positions.
Deterministic: one search worker, a fixed seed, and a budget in CP-SAT's deterministic
seconds (see :mod:`.optimize`).
"""

from __future__ import annotations

import math

import numpy as np

from stations_generator.core.stationmap.cluster_graph import (
    MAX_EDGES_FOR_CLIQUES,
    Geometry,
    gap_edges,
    maximal_cliques,
)
from stations_generator.core.stationmap.colgen import generate_columns

#: CP-SAT's random seed: the same input, the same map.
_SEED = 0


#: A cluster: (seed, members sorted by rank).
Cluster = tuple[int, tuple[int, ...]]


def cp_solver(time_limit: float):
    """A CP-SAT solver set up for reproducible maps.

    Parameters
    ----------
    time_limit : float
        Budget in deterministic seconds (at least 0.05).

    Returns
    -------
    ortools.sat.python.cp_model.CpSolver
    """
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


def packing_model(clusters: list[Cluster], cliques: list[tuple[int, ...]]):
    """The set-packing model: at most one chosen cluster touches each clique.

    Parameters
    ----------
    clusters : list of (seed, members)
    cliques : list of tuple of int
        The maximal cliques of the gap graph (:func:`.cluster_graph.maximal_cliques`).

    Returns
    -------
    (model, x, count)
        The CP-SAT model, one variable per cluster and the station-count expression.
    """
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


def solve_packing(
    clusters: list[Cluster],
    cliques: list[tuple[int, ...]],
    rank: dict[int, int],
    n_rank: int,
    hint: set[tuple[int, ...]],
    time_limit: float,
    known_bound: int | None = None,
) -> tuple[list[int], int, bool, float]:
    """Pack the most stations, then the best ranks, from listed clusters.

    Parameters
    ----------
    clusters : list of (seed, members)
    cliques : list of tuple of int
    rank : dict
        Candidate -> rank position.
    n_rank : int
        One more than the last rank position.
    hint : set of tuple of int
        Member sets of the warm start (the greedy's clusters).
    time_limit : float
        Deterministic seconds, 80 % for the count and 20 % for the ranks.
    known_bound : int, optional
        A proven bound on the count over *all* clusters (column generation's); the
        solve stops as soon as it reaches it.

    Returns
    -------
    (chosen, bound, optimal, wall)
        Chosen cluster positions, the count bound, whether optimal, wall seconds.
    """
    from ortools.sat.python import cp_model

    model, x, count = packing_model(clusters, cliques)
    if known_bound is not None:
        model.Add(count <= known_bound)
    for k, (_, members) in enumerate(clusters):
        model.AddHint(x[k], members in hint)
    model.Maximize(count)
    solver = cp_solver(0.8 * time_limit)
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
    solver2 = cp_solver(0.2 * time_limit)
    status2 = solver2.Solve(model)
    wall += solver2.WallTime()
    if status2 in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = [k for k in range(len(x)) if solver2.Value(x[k])]
    return chosen, bound, optimal, wall


def solve_seeds(
    comp: list[int],
    geo: Geometry,
    rank: dict[int, int],
    n_rank: int,
    exempt: np.ndarray,
    greedy: list[Cluster],
    time_limit: float,
) -> tuple[list[Cluster], int, bool, float]:
    """The compact model for radius = gap, where clusters are too many to list.

    With the radius equal to the gap, a cluster is exactly the stations closer than the
    gap to its seed (any such station must share the seed's cluster, and no member is
    farther). Variables: ``x_i`` (station) and ``z_j`` (seed); the constraints are
    :func:`_seeds_model`'s.

    Parameters
    ----------
    comp : list of int
        The component's candidates.
    geo : Geometry
    rank : dict
        Candidate -> rank position.
    n_rank : int
        One more than the last rank position.
    exempt : bool array
        Candidates exempt from the cap (transit).
    greedy : list of (seed, members)
        The warm start.
    time_limit : float
        Deterministic seconds (a quarter of it is used: see below).

    Returns
    -------
    (clusters, bound, optimal, wall)
        The chosen clusters, the count bound, whether optimal, wall seconds.
    """
    from ortools.sat.python import cp_model

    model, x, z, ball = _seeds_model(comp, geo, exempt, greedy)
    count = sum(x[i] for i in comp)
    model.Maximize(count)
    # This model's deterministic seconds run ~4x slower than wall seconds (Sioux Falls,
    # 1000 m: 60 deterministic s took 250 s), so it gets a quarter of its share: the
    # --time-limit stays about wall seconds.
    time_limit = time_limit / 4
    solver = cp_solver(0.8 * time_limit)
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
    solver2 = cp_solver(0.2 * time_limit)
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


def _seeds_model(comp: list[int], geo: Geometry, exempt: np.ndarray, greedy: list[Cluster]):
    """The compact model's constraints and warm start: (model, x, z, ball).

    Every station has exactly one seed closer than the gap (itself included; a
    candidate that is not a station may have several); stations closer than the
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
    return model, x, z, ball


def solve_colgen(
    comp: list[int],
    geo: Geometry,
    rank: dict[int, int],
    n_rank: int,
    exempt: np.ndarray,
    greedy: list[Cluster],
    time_limit: float,
) -> tuple[list[Cluster], int, float] | None:
    """Column generation (:mod:`.colgen`), then the restricted master as an integer
    program (price and branch).

    Parameters
    ----------
    comp, geo, rank, n_rank, exempt, greedy
        As for :func:`solve_seeds`.
    time_limit : float
        Deterministic seconds: half for the pricing, half for the master.

    Returns
    -------
    (clusters, bound, seconds) or None
        None when the cliques are too many to list or the pricing does not converge in
        the budget (the caller then falls back to the older models).
    """
    if gap_edges(comp, geo.index, geo.rules) > MAX_EDGES_FOR_CLIQUES:
        return None
    cliques = maximal_cliques(comp, geo, rank)
    cg = generate_columns(comp, geo, rank, exempt, cliques, greedy, cp_solver, 0.5 * time_limit)
    if not math.isfinite(cg.lp_bound):
        return None
    bound = math.floor(cg.lp_bound + 1e-6)
    hint = {m for _, m in greedy}
    picks, _, _, wall = solve_packing(
        cg.columns, cliques, rank, n_rank, hint, 0.5 * time_limit, known_bound=bound
    )
    return [cg.columns[k] for k in picks], bound, cg.cpu_s + wall


def spacing_bound(comp: list[int], geo: Geometry, time_limit: float) -> tuple[int, float]:
    """Upper bound for a component: most candidates at least the minimum spacing apart.

    It ignores the gap, the radius and the cap, so it is a valid (if loose) bound.

    Parameters
    ----------
    comp : list of int
    geo : Geometry
    time_limit : float
        Deterministic seconds.

    Returns
    -------
    (bound, wall)
        The bound on the stations, and the solve's wall seconds.
    """
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = {i: model.NewBoolVar(f"s{i}") for i in comp}
    for i in comp:
        for j in geo.within(i, geo.rules.min_spacing_m, strict=True):
            if i < j and j in x:
                model.AddBoolOr([x[i].Not(), x[j].Not()])
    model.Maximize(sum(x.values()))
    solver = cp_solver(time_limit)
    solver.Solve(model)
    bound = solver.BestObjectiveBound()  # valid even when no solution was found
    if not math.isfinite(bound):
        return len(comp), solver.WallTime()
    return min(len(comp), math.floor(bound + 1e-6)), solver.WallTime()
