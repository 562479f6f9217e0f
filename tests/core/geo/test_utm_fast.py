"""The UTM zone picked without the database search is the one the search picks."""

from __future__ import annotations

import random

import pytest
from pyproj.aoi import AreaOfInterest
from pyproj.database import query_utm_crs_info

from stations_generator.core.geo import geodesy


def _searched(w, s, e, n) -> int:
    infos = query_utm_crs_info(datum_name="WGS 84", area_of_interest=AreaOfInterest(w, s, e, n))
    centre = (w + e) / 2
    best = min(infos, key=lambda i: (abs(-183 + 6 * (int(i.code) % 100) - centre), i.code))
    return int(best.code)


@pytest.mark.slow  # (seconds; the full suite runs it)
def test_plain_zone_matches_the_search():
    rng = random.Random(11)
    boxes = [(-96.8, 43.45, -96.55, 43.63), (9.47, 47.04, 9.64, 47.27), (-1.0, -0.5, 1.0, 0.5)]
    for _ in range(60):
        w, s = rng.uniform(-180, 179), rng.uniform(-79, 83)
        boxes.append((w, s, min(180, w + rng.choice([0.01, 2, 20])), min(83.9, s + 3)))
    checked = 0
    for box in boxes:
        code = geodesy._plain_utm_epsg(*box)
        if code is not None:
            checked += 1
            assert code == _searched(*box), box
            assert geodesy.utm_crs_for(box).to_epsg() == code
    assert checked >= 55
    assert geodesy._plain_utm_epsg(6.0, 1.0, 6.0, 2.0) is None  # on a zone edge: the search
    assert geodesy._plain_utm_epsg(0.5, -1.0, 1.0, 0.0) is None  # on the equator: the search
