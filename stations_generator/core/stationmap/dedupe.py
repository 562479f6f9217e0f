"""Same-site duplicates: one real place mapped twice.

Two candidates within ``radius_m`` (50 m by default) are one site when they share a
name (case- and space-insensitive), or when their categories are a known same-site
pair (a fuel station and its convenience shop). The better-ranked one stays.
"""

from __future__ import annotations

import numpy as np

from stations_generator.core.stationmap.spacing import NeighbourIndex

DEFAULT_RADIUS_M = 50.0
# Category pairs that are one site when close: the peer lists a fuel station
# tagged shop=convenience twice.
SAME_SITE_PAIRS = frozenset({frozenset({"gas_station", "convenience_store"})})


def _norm(name: str) -> str:
    return " ".join(name.casefold().split())


def find_duplicates(
    index: NeighbourIndex,
    order: np.ndarray,
    names: np.ndarray,
    categories: np.ndarray,
    radius_m: float = DEFAULT_RADIUS_M,
) -> np.ndarray:
    """For each candidate, the index of the better-ranked candidate it duplicates, or -1.

    Parameters
    ----------
    index : NeighbourIndex
        Neighbourhoods of radius at least ``radius_m``.
    order : int array
        Candidate indices, best first.
    names, categories : arrays of str
    radius_m : float

    Returns
    -------
    int array
    """
    n = len(index)
    dup_of = np.full(n, -1, np.int64)
    order = np.asarray(order, np.int64)
    rank = np.full(n, n, np.int64)  # n = not taking part (e.g. excluded)
    rank[order] = np.arange(len(order))
    # Only pairs this close matter: a small subset of the neighbourhoods.
    rows = np.repeat(np.arange(n), np.diff(index.indptr))
    close = index.distances <= radius_m
    rows, cols = rows[close], index.indices[close]
    later = (rank[cols] > rank[rows]) & (rank[cols] < n)
    rows, cols = rows[later], cols[later]
    if not len(rows):
        return dup_of
    pairs = sorted(
        zip(rank[rows].tolist(), rank[cols].tolist(), rows.tolist(), cols.tolist(), strict=True)
    )
    # (Sorted, each once; not np.unique, which imports numpy.ma, ~18 ms, on first use.)
    involved = np.flatnonzero(np.bincount(np.concatenate([rows, cols]), minlength=n))
    texts = [str(name) for name in np.asarray(names, object)[involved].tolist()]
    norm_of = {text: _norm(text) for text in set(texts)}  # chains repeat names
    normed = dict(zip(involved.tolist(), map(norm_of.__getitem__, texts), strict=True))
    found: dict[int, int] = {}  # duplicate -> the candidate it duplicates
    for _, _, i, j in pairs:
        if i in found or j in found:
            continue
        same_name = normed[i] != "" and normed[i] == normed[j]
        if same_name or frozenset({categories[i], categories[j]}) in SAME_SITE_PAIRS:
            found[j] = i
    if found:
        dup_of[list(found)] = list(found.values())
    return dup_of
