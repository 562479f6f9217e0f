"""Points close to each other in a plane: the pairs within a distance, and per-point counts.

Small sets are done with plain numpy over all pairs; large ones with scipy's
``cKDTree``. Importing ``scipy.spatial`` costs about 0.25 s (it pulls in
``scipy.sparse`` and ``scipy.special``), more than all the work of a town-sized
game, so it is imported only when a set is large. Both ways give the same answer:
the pairs come sorted by (first, second) index whichever way found them, so
nothing downstream depends on the KD-tree's traversal order (or on the scipy
version).
"""

from __future__ import annotations

import numpy as np

# Up to this many points, every pair is measured (4 M distances, ~40 ms and 64 MB
# of scratch at the top); above it the KD-tree is cheaper even with its import.
BRUTE_MAX_POINTS = 2000


def pairs_within(x: np.ndarray, y: np.ndarray, radius: float) -> np.ndarray:
    """Index pairs ``(i, j)``, ``i < j``, of points at most ``radius`` apart.

    Parameters
    ----------
    x, y : arrays
        Planar coordinates (one unit, e.g. metres of a projection).
    radius : float
        The distance, in the same unit.

    Returns
    -------
    numpy.ndarray
        ``(m, 2)`` int32 array sorted by the first index, then the second.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = len(x)
    if n < 2:
        return np.zeros((0, 2), np.int32)
    if n <= BRUTE_MAX_POINTS:
        near = _squared_distances(x, y) <= radius * radius
        i, j = np.nonzero(np.triu(near, k=1))  # row-major: already sorted
        return np.column_stack([i, j]).astype(np.int32)
    from scipy.spatial import cKDTree

    pairs = cKDTree(np.column_stack([x, y])).query_pairs(radius, output_type="ndarray")
    keys = pairs[:, 0].astype(np.int64) * n + pairs[:, 1]
    keys.sort()  # (sorting the keys themselves is 3x faster than an argsort)
    return np.column_stack([keys // n, keys % n]).astype(np.int32)


def counts_within(x: np.ndarray, y: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """For each point ``i``, how many points (itself included) lie within ``radii[i]`` of it.

    Parameters
    ----------
    x, y : arrays
        Planar coordinates.
    radii : array
        Each point's own radius, in the same unit.

    Returns
    -------
    numpy.ndarray
        int64 counts, one per point.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    radii = np.broadcast_to(np.asarray(radii, float), x.shape)
    n = len(x)
    if n == 0:
        return np.zeros(0, np.int64)
    if n <= BRUTE_MAX_POINTS:
        near = _squared_distances(x, y) <= (radii * radii)[:, None]
        return near.sum(axis=1).astype(np.int64)
    from scipy.spatial import cKDTree

    points = np.column_stack([x, y])
    counts = cKDTree(points).query_ball_point(points, r=radii, return_length=True, workers=-1)
    return np.asarray(counts, np.int64)


def _squared_distances(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    dx = x[:, None] - x[None, :]
    dy = y[:, None] - y[None, :]
    return dx * dx + dy * dy
