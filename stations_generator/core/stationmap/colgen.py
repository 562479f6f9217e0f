"""Column generation for the cluster set-packing model (components too big to list).

The set-packing model of :mod:`.optimize` (at most one chosen cluster touches each
maximal clique of the "closer than the gap" graph) has too many feasible clusters to
list when the radius is large and there is no cap (Sioux Falls, 1000 m: millions). Its
LP relaxation is still nearly tight, so it is solved by column generation:

- *master*: the LP over the clusters generated so far (OR-Tools GLOP), one row per
  maximal clique; its duals ``d_Q >= 0`` price the cliques;
- *pricing*: for every seed, the cluster of most ``|C| - sum d_Q`` over the cliques
  ``Q`` that ``C`` touches (``C`` holds the seed, its members lie within the radius of it,
  at least the minimum spacing apart, at most ``cap`` non-transit). All seeds are
  priced in one CP-SAT model of independent blocks (maximising the sum maximises each
  block), built once and re-solved with new objective coefficients each round;
- stop when no cluster has a positive reduced cost: the LP optimum is then proven over
  *every* cluster, and its floor bounds every map.

The bound stays honest with rounded duals: pricing uses duals rounded *down* to
``1/SCALE`` (so a reduced cost can only be overestimated); when the largest reduced
cost ``r`` is in ``[0, 1)``, ``d / (1 - r)`` is dual feasible (every cluster has
``|C| >= 1``, so ``d(C) >= |C| - r >= |C| (1 - r)``), and ``sum d / (1 - r)`` bounds the LP.

The map itself comes from the restricted master over every generated column, solved
as an integer program by the caller (price and branch); it is proven optimal only when
its count reaches the floor of the bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

#: Duals are rounded down to multiples of 1 / SCALE for the integer pricing model.
SCALE = 1_000_000
#: At most this many pricing rounds (Sioux Falls 1000 m / no cap converges in ~20).
MAX_ROUNDS = 200


@dataclass
class ColumnGeneration:
    """What column generation proved for one component."""

    columns: list[tuple[int, tuple[int, ...]]]  # (seed, members sorted by rank)
    lp_bound: float  # valid upper bound on the component's station count (inf: none)
    converged: bool
    rounds: int
    cpu_s: float


def _pricing_base(comp, geo, rank, exempt):
    """The pricing blocks' fixed part (one per seed): members, spacing, cap.

    Returns the model and per seed ``(seed, [(member, variable index)])`` (the seed
    first, index None: it is always a member). The cliques' variables are added per
    round, only for cliques with a positive dual (the others cost nothing), on a copy.
    """
    from ortools.sat.python import cp_model

    rules = geo.rules
    model = cp_model.CpModel()
    blocks = []
    for s in sorted(comp, key=rank.__getitem__):
        near = geo.within(s, rules.cluster_radius_m, strict=False) if rules.cluster_radius_m else []
        near = [j for j in near if geo.index.distance(s, j) >= rules.min_spacing_m]
        near.sort(key=rank.__getitem__)
        ys = [(j, model.NewBoolVar(f"y{s}_{j}")) for j in near]
        for a in range(len(ys)):
            for b in range(a + 1, len(ys)):
                if geo.index.distance(ys[a][0], ys[b][0]) < rules.min_spacing_m:
                    model.AddBoolOr([ys[a][1].Not(), ys[b][1].Not()])
        if rules.max_per_cluster:
            counted = [y for j, y in ys if not exempt[j]]
            room = rules.max_per_cluster - (0 if exempt[s] else 1)
            if room < 0:
                continue
            if len(counted) > room:
                model.Add(sum(counted) <= room)
        blocks.append((s, [(s, None)] + [(j, y.Index()) for j, y in ys]))
    return model, blocks


def _priced_model(base, blocks, cliques_of, dint):
    """A copy of the base with this round's objective: ``SCALE`` per member minus the
    rounded dual of every clique touched (a variable per block and positive-dual clique;
    the seed's own cliques are a constant)."""
    model = base.clone()
    terms = []
    for s, ys in blocks:
        fixed = {q for q in cliques_of[s] if dint[q] > 0}
        ts: dict[int, object] = {}
        for m, index in ys[1:]:
            y = model.GetBoolVarFromProtoIndex(index)
            terms.append((y, SCALE))
            for q in cliques_of[m]:
                if dint[q] <= 0 or q in fixed:
                    continue
                if q not in ts:
                    ts[q] = model.NewBoolVar("")
                    terms.append((ts[q], -dint[q]))
                model.AddImplication(y, ts[q])
    model.Maximize(sum(c * v for v, c in terms))
    return model


class _Master:
    """The restricted master LP (OR-Tools GLOP): a row per maximal clique, a column per
    generated cluster (its members' count, 1 in each clique it touches)."""

    def __init__(self, cliques: list[tuple[int, ...]], cliques_of: dict, rank: dict[int, int]):
        from ortools.linear_solver import pywraplp

        self.lp = pywraplp.Solver.CreateSolver("GLOP")
        self.rows = [self.lp.Constraint(-self.lp.infinity(), 1.0) for _ in cliques]
        self.objective = self.lp.Objective()
        self.objective.SetMaximization()
        self.columns: list[tuple[int, tuple[int, ...]]] = []
        self.known: set[tuple[int, ...]] = set()
        self.variables: list = []
        self.cliques_of, self.rank = cliques_of, rank

    def add(self, seed: int, members: tuple[int, ...]) -> bool:
        """Add a cluster as a column; False if its members are already one."""
        key = tuple(sorted(members, key=self.rank.__getitem__))
        if key in self.known:
            return False
        self.known.add(key)
        self.columns.append((seed, key))
        v = self.lp.NumVar(0.0, self.lp.infinity(), f"x{len(self.variables)}")
        self.variables.append(v)
        for q in sorted({q for m in key for q in self.cliques_of[m]}):
            self.rows[q].SetCoefficient(v, 1.0)
        self.objective.SetCoefficient(v, float(len(key)))
        return True


def generate_columns(
    comp: list[int],
    geo,
    rank: dict[int, int],
    exempt: np.ndarray,
    cliques: list[tuple[int, ...]],
    start: list[tuple[int, tuple[int, ...]]],
    solver_factory,
    time_limit: float,
) -> ColumnGeneration:
    """Column generation on one component; see the module docstring.

    Parameters
    ----------
    comp : list of int
        The component's candidates.
    geo : Geometry
        Its distances (:class:`.cluster_graph.Geometry`).
    rank : dict
        Candidate -> rank position.
    exempt : bool array
        Candidates exempt from the cap (transit).
    cliques : list of tuple of int
        The maximal cliques of the gap graph: the master's rows.
    start : list of (seed, members)
        Clusters (the greedy's) that seed the master.
    solver_factory : callable
        ``solver_factory(limit)`` gives a configured deterministic CP-SAT solver.
    time_limit : float
        Deterministic seconds over all pricing rounds.

    Returns
    -------
    ColumnGeneration
    """
    from ortools.linear_solver import pywraplp
    from ortools.sat.python import cp_model

    t0 = time.process_time()
    cliques_of: dict[int, list[int]] = {m: [] for m in comp}
    for q, members in enumerate(cliques):
        for m in members:
            cliques_of[m].append(q)
    base, blocks = _pricing_base(comp, geo, rank, exempt)
    master = _Master(cliques, cliques_of, rank)
    for seed, members in start:
        master.add(seed, members)
    for i in sorted(comp, key=rank.__getitem__):
        master.add(i, (i,))

    spent = 0.0
    bound = math.inf
    converged = False
    rounds = 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        if master.lp.Solve() != pywraplp.Solver.OPTIMAL:
            break
        lp_value = master.objective.Value()
        duals = [max(0.0, r.dual_value()) for r in master.rows]
        dint = [math.floor(d * SCALE) for d in duals]
        model = _priced_model(base, blocks, cliques_of, dint)
        solver = solver_factory(max(time_limit - spent, 0.05))
        status = solver.Solve(model)
        spent += solver.deterministic_time
        if status != cp_model.OPTIMAL:
            break  # pricing not proven: no bound from this round
        best_r, added = _add_priced(master, model, solver, blocks, cliques_of, dint)
        if best_r < 1.0:
            # Every cluster: |C| - d(C) <= best_r (d rounded down only raises it).
            bound = min(bound, sum(duals) / (1.0 - best_r) if best_r > 0 else sum(duals))
        if added == 0:
            converged = best_r <= 1e-9
            if converged:
                bound = min(bound, max(lp_value, sum(duals)))
            break
        if spent >= time_limit:
            break
    return ColumnGeneration(master.columns, bound, converged, rounds, time.process_time() - t0)


def _add_priced(master: _Master, model, solver, blocks, cliques_of, dint) -> tuple[float, int]:
    """Each seed's priced cluster, added to the master where its reduced cost is positive;
    returns the largest reduced cost and how many columns were added."""
    best_r = 0.0
    added = 0
    for s, ys in blocks:
        members = (s,) + tuple(
            m for m, index in ys[1:] if solver.Value(model.GetBoolVarFromProtoIndex(index))
        )
        cost = sum(dint[q] for q in {q for m in members for q in cliques_of[m]})
        r = (len(members) * SCALE - cost) / SCALE
        best_r = max(best_r, r)
        if r > 1e-9 and master.add(s, members):
            added += 1
    return best_r, added
