"""The local metric frame against GeographicLib (pyproj.Geod)."""

from __future__ import annotations

import numpy as np
import pytest

from stations_generator.core.geo.geodesy import LocalFrame, geodesic_area_km2, utm_crs_for
from stations_generator.core.stationmap.spacing import NeighbourIndex

GEOD_TOL_M = 1e-3


@pytest.mark.parametrize(
    "bounds",
    [
        (-96.82, 43.44, -96.55, 43.63),  # Sioux Falls fixture
        (24.93, 60.16, 24.96, 60.18),  # Helsinki extract
        (9.47, 47.04, 9.64, 47.27),  # Liechtenstein
        (-101.0, 43.0, -96.0, 44.0),  # a wide L game straddling UTM zones 14 and 15
    ],
)
def test_neighbour_distances_are_geodesic(bounds, sioux_candidates):
    rng = np.random.default_rng(1)
    lon = rng.uniform(bounds[0], bounds[2], 400)
    lat = rng.uniform(bounds[1], bounds[3], 400)
    frame = LocalFrame.for_bounds(bounds)
    x, y = frame.project(lon, lat)
    index = NeighbourIndex(x, y, frame.scale_factors(lon, lat), 5000)
    from support.geodesic_checks import GEOD

    checked = 0
    for i in range(len(lon)):
        nb, dist = index.neighbours(i)
        if len(nb):
            _, _, true = GEOD.inv(
                np.full(len(nb), lon[i]), np.full(len(nb), lat[i]), lon[nb], lat[nb]
            )
            assert np.abs(dist - true).max() < GEOD_TOL_M
            checked += len(nb)
    assert checked > 0


def test_index_finds_every_pair_within_radius():
    from support.geodesic_checks import pairwise

    rng = np.random.default_rng(2)
    lon = rng.uniform(-96.82, -96.70, 300)
    lat = rng.uniform(43.44, 43.50, 300)
    frame = LocalFrame.for_bounds((-96.82, 43.44, -96.70, 43.50))
    x, y = frame.project(lon, lat)
    index = NeighbourIndex(x, y, frame.scale_factors(lon, lat), 1000)
    d = pairwise(lon, lat)
    for i in range(len(lon)):
        expected = set(np.flatnonzero((d[i] <= 1000 - GEOD_TOL_M) & (np.arange(len(lon)) != i)))
        assert expected <= set(index.neighbours(i)[0].tolist())


def test_utm_zone_choice():
    assert utm_crs_for((-96.82, 43.44, -96.55, 43.63)).to_epsg() == 32614
    assert utm_crs_for((24.93, 60.16, 24.96, 60.18)).to_epsg() == 32635
    assert utm_crs_for((151.1, -33.9, 151.3, -33.8)).to_epsg() == 32756  # Sydney: southern


def test_geodesic_area(sioux_area):
    # Sioux Falls play area ~330 km² (fixture README); compare with an equal-area projection.
    import geopandas as gpd

    km2 = geodesic_area_km2(sioux_area)
    ea = gpd.GeoSeries([sioux_area], crs=4326).to_crs("ESRI:102003").area.iloc[0] / 1e6
    assert km2 == pytest.approx(ea, rel=1e-3)
    assert 300 < km2 < 360
