"""Which candidates lie in the play area: the coordinates tested as the points they are."""

from __future__ import annotations

import numpy as np
import shapely

from stations_generator.core.stationmap.build import _covered_by
from stations_generator.core.stationmap.pointtable import PointTable


def test_covered_by_is_covers_on_and_near_the_real_boundary(sioux_area, sioux_data):
    ring = shapely.get_coordinates(sioux_area.boundary)
    middles = (ring[1:] + ring[:-1]) / 2  # on the edges
    nudged = middles + np.array([1e-9, -1e-9])  # just off them, on either side
    candidates = np.array([(e.lon, e.lat) for e in sioux_data.elements])
    points = np.vstack([ring, middles, nudged, candidates, [[0.0, 0.0], [-96.7, 43.5]]])
    table = PointTable({}, points[:, 0], points[:, 1])
    got = _covered_by(table, sioux_area)
    want = shapely.covers(sioux_area, shapely.points(points))
    assert got.tolist() == want.tolist()
    assert got[: len(ring) + len(middles)].all()  # the boundary is in the area
    assert 0 < got.sum() < len(points)
