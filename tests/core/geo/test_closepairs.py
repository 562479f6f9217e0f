"""Close pairs and counts (``core/closepairs.py``'s strip sweep) on real points.

On the real Sioux Falls candidates and the Liechtenstein extract's points, every pair
and count is the one scipy's KD-tree finds and the one a per-point scan finds; cutting
the work into tiny batches, or into fewer strips than radii, changes nothing; points
that coincide and a zero radius are handled.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import cKDTree
from support.paths import EXTRACTS

from stations_generator.core.geo import closepairs
from stations_generator.core.geo.geodesy import LocalFrame
from stations_generator.core.stationmap.density import nearby_counts
from stations_generator.core.stationmap.spacing import NeighbourIndex


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


def _scanned_pairs(x: np.ndarray, y: np.ndarray, radius: float) -> np.ndarray:
    """Each point against every later one, one point at a time."""
    rows = []
    for i in range(len(x) - 1):
        later = np.nonzero(np.hypot(x[i + 1 :] - x[i], y[i + 1 :] - y[i]) <= radius)[0] + i + 1
        rows.extend((i, int(j)) for j in later)
    return np.array(rows, np.int32).reshape(-1, 2)


def _tree_pairs(x: np.ndarray, y: np.ndarray, radius: float) -> np.ndarray:
    pairs = cKDTree(np.column_stack([x, y])).query_pairs(radius, output_type="ndarray")
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))].astype(np.int32)


@pytest.mark.parametrize("radius", [300.0, 1000.0, 1609.344])
def test_pairs_are_the_kdtree_and_scan_pairs(real_points, radius):
    x, y, _ = real_points
    pairs = closepairs.pairs_within(x, y, radius)
    assert len(pairs) > 0
    assert pairs.dtype == np.int32
    np.testing.assert_array_equal(pairs, _tree_pairs(x, y, radius))
    np.testing.assert_array_equal(pairs, _scanned_pairs(x, y, radius))
    # Sorted by (first, second), first < second, each pair once.
    assert (pairs[:, 0] < pairs[:, 1]).all()
    keys = pairs[:, 0].astype(np.int64) * len(x) + pairs[:, 1]
    assert (np.diff(keys) > 0).all()


def test_counts_are_the_kdtree_counts(real_points):
    x, y, scale = real_points
    radii = 1609.344 * scale
    counts = closepairs.counts_within(x, y, radii)
    tree = cKDTree(np.column_stack([x, y])).query_ball_point(
        np.column_stack([x, y]), r=radii, return_length=True
    )
    np.testing.assert_array_equal(counts, tree)
    assert counts.dtype == np.int64
    assert (counts >= 1).all()  # each point counts itself
    assert counts.max() > 1
    i = int(np.argmax(counts))
    assert counts[i] == int((np.hypot(x - x[i], y - y[i]) <= radii[i]).sum())


def test_own_radii_count_one_way(real_points):
    """A point with a larger radius can count a neighbour that does not count it back."""
    x, y, _ = real_points
    radii = np.where(np.arange(len(x)) % 2 == 0, 2000.0, 200.0)
    counts = closepairs.counts_within(x, y, radii)
    expected = [int((np.hypot(x - x[i], y - y[i]) <= radii[i]).sum()) for i in range(len(x))]
    assert counts.tolist() == expected


def test_tiny_batches_and_few_strips_change_nothing(real_points, monkeypatch):
    x, y, scale = real_points
    pairs = closepairs.pairs_within(x, y, 1000.0)
    counts = closepairs.counts_within(x, y, 1609.344 * scale)
    monkeypatch.setattr(closepairs, "BATCH_PAIRS", 7)
    monkeypatch.setattr(closepairs, "MAX_STRIPS", 3)  # strips far taller than the radius
    np.testing.assert_array_equal(closepairs.pairs_within(x, y, 1000.0), pairs)
    np.testing.assert_array_equal(closepairs.counts_within(x, y, 1609.344 * scale), counts)


def test_coincident_points_and_zero_radius(real_points):
    x, y, _ = real_points
    n = len(x)
    twice_x = np.concatenate([x, x])
    twice_y = np.concatenate([y, y])
    at_zero = closepairs.pairs_within(twice_x, twice_y, 0.0)
    np.testing.assert_array_equal(at_zero, _scanned_pairs(twice_x, twice_y, 0.0))
    assert {(i, i + n) for i in range(n)} <= set(map(tuple, at_zero.tolist()))
    counts = closepairs.counts_within(twice_x, twice_y, np.zeros(2 * n))
    assert (counts >= 2).all()
    np.testing.assert_array_equal(
        closepairs.pairs_within(twice_x, twice_y, 500.0), _scanned_pairs(twice_x, twice_y, 500.0)
    )


def test_points_on_one_line(real_points):
    """All points in one strip (equal y), or one above another (equal x)."""
    x, _, _ = real_points
    flat = np.zeros_like(x)
    np.testing.assert_array_equal(
        closepairs.pairs_within(x, flat, 50.0), _scanned_pairs(x, flat, 50.0)
    )
    np.testing.assert_array_equal(
        closepairs.pairs_within(flat, x, 50.0), _scanned_pairs(flat, x, 50.0)
    )


def test_neighbour_index_and_density_counts(real_points):
    """The spacing rule's neighbour rows and the density counts, against a scan in true metres."""
    x, y, scale = real_points
    index = NeighbourIndex(x, y, scale, 1000)
    counts = nearby_counts(x, y, scale)
    for i in range(len(index)):
        grid = np.hypot(x - x[i], y - y[i])
        true = grid / ((scale + scale[i]) / 2)
        expected = np.nonzero(true <= 1000)[0]
        nb, dist = index.neighbours(i)
        np.testing.assert_array_equal(nb, expected[expected != i])  # in index order
        np.testing.assert_allclose(dist, true[nb], rtol=0, atol=1e-9)
        assert counts[i] == int((grid <= 1609.0 * scale[i]).sum()) - 1


def test_empty_and_single_point():
    one = np.array([5.0])
    assert closepairs.pairs_within(one, one, 10).shape == (0, 2)
    assert closepairs.counts_within(one, one, np.array([1.0])).tolist() == [1]
    none = np.zeros(0)
    assert closepairs.pairs_within(none, none, 10).shape == (0, 2)
    assert closepairs.counts_within(none, none, none).shape == (0,)
