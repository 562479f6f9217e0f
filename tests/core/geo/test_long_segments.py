"""Measuring to lines drawn with long straight segments, exactly and without a blow-up.

The border is the 49th parallel, the US-Canada border from the Strait of Georgia to the
Lake of the Woods, given as a custom measuring line with a node every 2.5° (183 km
geodesic segments), and the play area 590 × 333 km north of it (the issue's case:
27 s before). A long segment is indexed as short pieces but measured whole, once per
point: the tests count the exact foot computations (no timing) and check the region
against the GeographicLib oracle.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, box
from support import question_oracle as oracle

from stations_generator.core.geo import features as features_module
from stations_generator.core.geo.buffers import distance_region
from stations_generator.core.geo.features import GeodesicFeatures
from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.core.questions.geometry import MeasuringQuestion

AREA = box(-101.25, 50.0, -92.75, 53.0)
LONS = [-123.32, *np.arange(-122.5, -95.15, 2.5), -95.15]
BORDER = LineString([(lon, 49.0) for lon in LONS])
SEEKERS = [(-97.0, 52.9), (-99.0, 50.3)]


@pytest.fixture
def feet(monkeypatch):
    """Counts the (point, segment) pairs measured exactly, as (points, pairs) per call."""
    calls: list[tuple[int, int]] = []
    real = features_module.foot_on_segments

    def counting(plon, *args, **kwargs):
        calls.append((len(np.unique(np.asarray(plon))), len(plon)))
        return real(plon, *args, **kwargs)

    monkeypatch.setattr(features_module, "foot_on_segments", counting)
    return calls


def _features() -> GeodesicFeatures:
    return GeodesicFeatures([BORDER], AzimuthalFrame.around(AREA))


def test_a_long_segment_is_measured_once_per_point(feet):
    f = _features()
    assert len(f.spans) == len(LONS) - 1  # every segment is one span (< 250 km)
    assert len(f) > 100 * len(f.spans)  # ... indexed as many short pieces
    pts = oracle.sample_points(AREA, 400, 3)
    d = f.distance(pts[:, 0], pts[:, 1])
    assert (d > 100_000).all()
    # One foot per span near a point (two where a node is nearest), never one per piece.
    (points, pairs) = feet[-1]
    assert points == len(pts) and pairs <= 2 * len(pts)
    truth = oracle.Lines([BORDER]).distance(pts[:, 0], pts[:, 1])
    assert np.abs(d - truth).max() < 1e-3


def test_the_region_is_built_from_a_bounded_number_of_exact_distances(feet):
    f = _features()
    seeker_d = float(f.distance([SEEKERS[0][0]], [SEEKERS[0][1]])[0])
    feet.clear()
    region = distance_region(f, seeker_d, AREA)
    vertices = len(shapely.get_coordinates(region))
    pairs = sum(p for _, p in feet)
    # Each vertex is measured a few times (first guess, a recheck when moved outwards, the
    # middles of its chords), each time against one or two spans: the old path measured
    # every 1 km piece within the frame's error bound of every vertex (~230 per vertex here).
    assert 0 < pairs <= 20 * vertices, (pairs, vertices)
    # Its edge is on the exact distance: vertices and chord middles within 50 cm.
    ring = shapely.get_coordinates(region.exterior)
    pts = np.vstack([ring, (ring[1:] + ring[:-1]) / 2])
    edge = np.abs(f.distance(pts[:, 0], pts[:, 1]) - seeker_d) < 1_000
    assert edge.sum() > 20
    truth = oracle.Lines([BORDER]).distance(pts[edge, 0], pts[edge, 1])
    assert np.abs(truth - seeker_d).max() < 0.5


def test_a_wrong_hint_still_gives_the_exact_distance():
    f = _features()
    pts = oracle.sample_points(AREA, 200, 4)
    exact = f.nearest(pts[:, 0], pts[:, 1])
    for hint in (1.0, np.full(len(pts), 150_000.0), 10_000_000.0):
        got = f.nearest(pts[:, 0], pts[:, 1], within=hint)
        for a, b in zip(got, exact, strict=True):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("seeker", SEEKERS)
def test_measuring_to_the_long_border_matches_the_oracle(seeker):
    frame = AzimuthalFrame.around(AREA)
    pts = oracle.sample_points(AREA, 3000, 5)
    lines = oracle.Lines([BORDER])
    for closer in (True, False):
        q = MeasuringQuestion(seeker, "border", (BORDER,), frame, closer)
        kept = q.kept(AREA)
        shapely.prepare(kept)
        inside = shapely.intersects_xy(kept, pts[:, 0], pts[:, 1])
        truth = oracle.measuring(None, lines, seeker, pts[:, 0], pts[:, 1], closer)
        assert 0 < truth.keep.sum() < len(pts)
        miss = np.flatnonzero(inside != truth.keep)
        assert (truth.margins(miss) <= 1.0).all()
        hider = np.asarray(q.answers_for(pts[:, 0], pts[:, 1]) == closer, bool)
        wrong = np.flatnonzero(hider != truth.keep)
        assert (truth.margins(wrong) <= 1e-3).all()
