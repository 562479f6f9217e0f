"""The loops of a spacing selection, compiled by Cython: the greedy, the search, the swaps.

Each works in place on a :class:`~stations_generator.core.stationmap.spacing_state.Selection`
and keeps every rule of the two-tier spacing by construction (:meth:`Selection.fit`);
:func:`stations_generator.core.stationmap.spacing.select_stations` runs them in turn.
setup.py compiles this module with the C types of ``spacing_search.pxd`` beside it, which
reads the selection's columns as C arrays; it runs as the same Python without a compiler.
"""

from __future__ import annotations

import math
import random

import numpy as np

from stations_generator.core.stationmap.spacing_state import (
    ADD,
    REMOVE,
    IndexArrays,
    RuleNumbers,
    Selection,
)

#: Whether this module runs compiled (setup.py, typed by spacing_search.pxd).
IS_COMPILED = not __file__.endswith(".py")
#: The journal of :class:`Selection`: (operation, a, b, position) entries.
Journal = list[tuple[int, int, int, int]]


def greedy(
    arrays: IndexArrays,
    rules: RuleNumbers,
    exempt: np.ndarray,
    order: list[int],
    start: list[int],
    reasons: bool = True,
) -> Selection:
    """The greedy: offer each candidate of ``start`` once, in that order.

    Parameters
    ----------
    arrays : IndexArrays
        The neighbour index as numbers (``NeighbourIndex.as_arrays``).
    rules : RuleNumbers
        The spacing rules (a ``SpacingRules``).
    exempt : bool array
        Candidates exempt from the cluster cap (transit).
    order : list of int
        The eligible candidates, best first: the ranks.
    start : list of int
        The order the candidates are offered in.
    reasons : bool
        Whether to work out why each rejected candidate does not fit (the costly part
        of a rejection). Without: for maps that :func:`settle` finishes in full,
        which records every reason again.

    Returns
    -------
    Selection
        A maximal map of the candidates of ``start``.
    """
    state = Selection.empty(arrays, rules, exempt, order)
    if reasons:
        for i in start:
            state.try_add(i)
        return state
    for i in start:
        c, seed = state.fits(i)
        if c >= 0:
            state.add(i, c, seed)
    return state


def settle(state: Selection, order: list[int], full: bool = True) -> None:
    """Make the map maximal and every reason current, in place.

    With ``full``, every non-station is offered again in rank order (adding what fits,
    recording why the rest do not), as after the swaps and the search, which leave
    reasons stale. Adding stations only ever makes the spacing, the gap and the cap
    harder to meet, so those reasons hold to the end; a candidate beyond the cluster
    radius, though, may be reached by a seed that joined later (re-seeding), so those
    are offered again, in rank order, until a pass adds nothing.

    Parameters
    ----------
    state : Selection
        The map, changed in place.
    order : list of int
        The eligible candidates, best first.
    full : bool
        Offer every non-station again (else only those missed for the radius).
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


def search(
    state: Selection, order: list[int], crowd: list[int], iterations: int, seed: int = 0
) -> set[int]:
    """Large-neighbourhood search with plateau moves, in place; never loses a station.

    Each round picks a candidate ``s`` (seeded RNG over the rank order, so the input
    order does not matter) and gives up either every cluster with a station within
    the gap of ``s`` or only the stations within a random reach (between the minimum
    spacing and the gap) of it; a cluster that loses its seed re-seeds or goes whole.
    Transit (cap-exempt) stations are never given up: a round that would take one with
    a falling cluster is not played. Then it offers every eligible candidate within the
    gap of a given-up station again (:func:`_offer_freed`). Rounds that end with fewer
    stations are undone; ties are kept (walking plateaus is what finds the better maps).
    Every rule holds by construction (:meth:`Selection.fit`).

    Parameters
    ----------
    state : Selection
        The map, changed in place.
    order : list of int
        The eligible candidates, best first.
    crowd : list of int
        Per candidate, the eligible candidates closer than the minimum spacing.
    iterations : int
        Rounds to play.
    seed : int
        Seed of the random choices: the same seed, the same map.

    Returns
    -------
    set of int
        The candidates that are stations now and were not before, or the reverse.
    """
    was_station: dict[int, bool] = {}  # first status of each candidate the kept rounds touched
    if not order or iterations <= 0:
        return set()
    rng = random.Random(seed)
    cluster_of = state.cluster_of
    noise = max(1.0, len(order) / 3)
    journal: Journal = []
    state.journal = journal
    for _ in range(iterations):
        s = order[rng.randrange(len(order))]
        count = state.count
        targets = _round_targets(state, s, rng)
        if not targets:
            continue
        removed = _give_up(state, targets)
        if removed is None:  # a cluster fell apart around a transit station
            state.undo(0)
            journal.clear()
            continue
        _offer_freed(state, removed, crowd, rng, noise)
        if state.count < count:
            state.undo(0)
        else:
            for op, a, _, _ in journal:
                if op == ADD or op == REMOVE:
                    was_station.setdefault(a, op == REMOVE)
        journal.clear()
    state.journal = None
    # Plateau moves often give up and take back the same stations: only net changes count.
    changed: set[int] = set()
    for a, was in was_station.items():
        if was != bool(cluster_of[a]):
            changed.add(a)
    return changed


def _round_targets(state: Selection, s: int, rng: random.Random) -> list[int]:
    """The stations a search round around ``s`` gives up: whole clusters, or those within a reach."""
    gap, spacing = state.gap, state.spacing
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    if rng.random() < 0.5:
        clusters = {cluster_of[s]} if cluster_of[s] else set()
        for k in range(ptr[s], ptr[s + 1]):
            c = cluster_of[nb[k]]
            if c and dist[k] < gap:
                clusters.add(c)
        targets = []
        for c in sorted(clusters):
            targets.extend(state.mem[c])
        return targets
    reach = spacing + rng.random() * (gap - spacing)
    targets = [s] if cluster_of[s] else []
    for k in range(ptr[s], ptr[s + 1]):
        if dist[k] < reach and cluster_of[nb[k]]:
            targets.append(nb[k])
    return targets


def _give_up(state: Selection, targets: list[int]) -> list[int] | None:
    """Give up the non-transit ``targets``; every station that went, or None if a transit one did."""
    # Rank order, not neighbour-list order (which follows the input order): which
    # member re-seeds a cluster depends on the order its stations go.
    exempt, cluster_of = state.exempt, state.cluster_of
    givable = []
    for i in targets:
        if not exempt[i]:
            givable.append(i)
    givable.sort(key=state.rank_list.__getitem__)
    removed: list[int] = []
    for i in givable:
        if cluster_of[i]:
            removed.extend(state.remove(i))
    for i in removed:
        if exempt[i]:
            return None
    return removed


def _offer_freed(
    state: Selection, removed: list[int], crowd: list[int], rng: random.Random, noise: float
) -> None:
    """Offer the given-up stations and the eligible candidates within the gap of them again.

    Shuffled, in noisy rank order or least crowded first (``crowd``: eligible candidates
    closer than the minimum spacing), the mode drawn at random; adds whatever fits.
    """
    rank, by_rank = state.rank, state.rank_list.__getitem__
    n = len(rank)
    gap = state.gap
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
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


def improve_by_swaps(state: Selection, order: list[int], changed: set[int] | None = None) -> None:
    """Give up one station for two or more others while that pays, in place.

    Passes, worst-ranked station first, until no swap adds a station: the result is a
    local optimum of this move. The first pass tries every station, or with ``changed``
    only those near a changed candidate (whether a swap pays depends only on what lies
    within twice the gap); each later pass only those near the previous pass's swaps.
    Transit stations are never given up; a seed may be, where another member
    re-centres the rest (:meth:`Selection.remove`).

    Parameters
    ----------
    state : Selection
        The map, changed in place.
    order : list of int
        The eligible candidates, best first.
    changed : set of int, optional
        Candidates the search changed: only the stations near them are tried first.
    """
    rank, by_rank = state.rank, state.rank_list.__getitem__
    n = len(rank)
    gap, cap = state.gap, state.cap
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    journal: Journal = []
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


def improve_ranks(state: Selection, order: list[int]) -> None:
    """Trade stations for better-ranked candidates where the count holds, in place.

    The second part of the objective (the most stations, then the best ranks, so a museum
    beats a fuel station where the count ties): give up one station, offer the
    candidates within the gap of it in rank order, and keep the change if the map has as
    many stations and a lower sum of ranks. Passes, worst-ranked station first, until none
    pays; the sum falls with every change, so it ends. After the first pass only the
    stations near the previous pass's trades are tried again (as in the swaps). Transit
    stations stay.

    Parameters
    ----------
    state : Selection
        The map, changed in place.
    order : list of int
        The eligible candidates, best first.
    """
    rank, by_rank = state.rank, state.rank_list.__getitem__
    n = len(rank)
    gap = state.gap
    cluster_of, nb, dist, ptr = state.cluster_of, state.nb, state.dist, state.ptr
    journal: Journal = []
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
                if op == ADD:
                    delta += rank[a]
                elif op == REMOVE:
                    delta -= rank[a]
            if state.count >= count and delta < 0:
                traded.update(_touched(journal))
            else:
                state.undo(0)
            journal.clear()
        todo = _near(state, traded) if traded else []
    state.journal = None


def _worst_first(state: Selection, order: list[int]) -> list[int]:
    """The stations, worst-ranked first."""
    cluster_of = state.cluster_of
    stations = []
    for i in reversed(order):
        if cluster_of[i]:
            stations.append(i)
    return stations


def _touched(journal: Journal) -> list[int]:
    """Candidates added to or removed from the map by the journalled changes."""
    return [a for op, a, _, _ in journal if op == ADD or op == REMOVE]


def _near(state: Selection, changed: set[int]) -> list[int]:
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
