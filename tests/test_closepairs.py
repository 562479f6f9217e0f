"""Close pairs and counts: the plain-numpy way (small sets) and the KD-tree way agree.

On the real Sioux Falls candidates, and on the Liechtenstein extract's points, every
pair and count is the same whichever way is taken, and both agree with a plain
per-point loop.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import EXTRACTS

from stations_generator.core import closepairs
from stations_generator.core.density import nearby_counts
from stations_generator.core.geodesy import LocalFrame
from stations_generator.core.spacing import NeighbourIndex


@pytest.fixture(scope="module", params=["sioux-falls", "liechtenstein"])
def real_points(request, sioux_candidates, catalogue):
    """(x, y, scale) of real candidate places, projected in their local frame."""
    if request.param == "sioux-falls":
        lon = sioux_candidates.geometry.x.to_numpy()
        lat = sioux_candidates.geometry.y.to_numpy()
    else:
        from stations_generator.osm.extracts import read_points

        points = read_points(
            EXTRACTS / "liechtenstein-2013-08.osm.pbf",
            catalogue.keeps,
            prefilter=catalogue.prefilter(),
        )
        lon = np.array([p.lon for p in points])
        lat = np.array([p.lat for p in points])
    frame = LocalFrame.for_bounds((lon.min(), lat.min(), lon.max(), lat.max()))
    x, y = frame.project(lon, lat)
    return np.asarray(x), np.asarray(y), frame.scale_factors(lon, lat)


def _by_tree(monkeypatch):
    monkeypatch.setattr(closepairs, "BRUTE_MAX_POINTS", 1)


@pytest.mark.parametrize("radius", [300.0, 1000.0, 1609.344])
def test_pairs_same_either_way_and_as_a_loop(real_points, radius, monkeypatch):
    x, y, _ = real_points
    assert 2 < len(x) <= closepairs.BRUTE_MAX_POINTS
    brute = closepairs.pairs_within(x, y, radius)
    _by_tree(monkeypatch)
    tree = closepairs.pairs_within(x, y, radius)
    assert len(brute) > 0
    np.testing.assert_array_equal(brute, tree)
    assert brute.dtype == tree.dtype == np.int32
    # Sorted by (first, second), first < second.
    assert (brute[:, 0] < brute[:, 1]).all()
    keys = brute[:, 0].astype(np.int64) * len(x) + brute[:, 1]
    assert (np.diff(keys) > 0).all()
    # The same pairs as a per-point loop over every other point.
    loop = {
        (i, j)
        for i in range(len(x))
        for j in range(i + 1, len(x))
        if math.hypot(x[i] - x[j], y[i] - y[j]) <= radius
    }
    assert set(map(tuple, brute.tolist())) == loop


def test_counts_same_either_way(real_points, monkeypatch):
    x, y, scale = real_points
    radii = 1609.344 * scale
    brute = closepairs.counts_within(x, y, radii)
    _by_tree(monkeypatch)
    tree = closepairs.counts_within(x, y, radii)
    np.testing.assert_array_equal(brute, tree)
    assert (brute >= 1).all()  # each point counts itself
    assert brute.max() > 1
    i = int(np.argmax(brute))
    assert brute[i] == int((np.hypot(x - x[i], y - y[i]) <= radii[i]).sum())


def test_neighbour_index_and_density_same_either_way(real_points, monkeypatch):
    x, y, scale = real_points
    small = NeighbourIndex(x, y, scale, 1000)
    counts = nearby_counts(x, y, scale)
    _by_tree(monkeypatch)
    large = NeighbourIndex(x, y, scale, 1000)
    for name in ("indptr", "indices", "distances"):
        np.testing.assert_array_equal(getattr(small, name), getattr(large, name))
    np.testing.assert_array_equal(counts, nearby_counts(x, y, scale))
    # Each candidate's neighbours in index order.
    for i in range(len(small)):
        nb, _ = small.neighbours(i)
        assert (np.diff(nb) > 0).all()


def test_empty_and_single_point():
    one = np.array([5.0])
    assert closepairs.pairs_within(one, one, 10).shape == (0, 2)
    assert closepairs.counts_within(one, one, np.array([1.0])).tolist() == [1]
    none = np.zeros(0)
    assert closepairs.counts_within(none, none, none).shape == (0,)
