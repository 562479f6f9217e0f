"""The sea-level measuring question on a real DEM (SRTM3 around Monaco, tests/data/dem).

The answers are checked against GDAL's own reading of the file (``sample_dem``), not
against the grid the question holds.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from stations_generator.core.geo.antimeridian import shift_lon
from stations_generator.core.geo.geodesy import geodesic_area_km2
from stations_generator.core.questions.geometry import QuestionError
from stations_generator.core.questions.sea_level import ElevationGrid, SeaLevelQuestion
from stations_generator.formats.dem import read_dem, sample_dem
from tests.support.paths import DATA

DEM = DATA / "dem" / "monaco-srtm3.tif"
#: The Monaco extract's bounds (tests/data/osm-extracts/README.md): the play area here.
AREA = (7.349, 43.71, 7.491, 43.77)
EXTENT = shapely.box(*AREA)
SEEKER = (7.4200, 43.7380)
#: Seeker altitudes: at sea level, below it, and up the slopes behind Monaco.
ALTITUDES = (0.0, -12.0, 12.0, 50.0, 143.0, 400.0)


@pytest.fixture(scope="module")
def grid() -> ElevationGrid:
    return read_dem(DEM, AREA)


@pytest.fixture(scope="module")
def points() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random points of the area and GDAL's height at each (NaN in the DEM's voids)."""
    rng = np.random.default_rng(38)
    lons = rng.uniform(AREA[0], AREA[2], 4000)
    lats = rng.uniform(AREA[1], AREA[3], 4000)
    return lons, lats, sample_dem(DEM, lons, lats)


def _away_from_edges(region, lons, lats, margin_deg=1e-6) -> np.ndarray:
    """Points farther than ``margin_deg`` from the region's boundary (about 0.1 m)."""
    edge = shapely.buffer(region.boundary, margin_deg)
    shapely.prepare(edge)
    return ~shapely.intersects_xy(edge, lons, lats)


@pytest.mark.parametrize("altitude", ALTITUDES)
def test_kept_points_obey_the_rule_by_gdals_heights(grid, points, altitude):
    lons, lats, heights = points
    q = SeaLevelQuestion(SEEKER, altitude, grid, True)
    closer, further = q.kept_for(True, EXTENT), q.kept_for(False, EXTENT)
    for region, rule in ((closer, np.less_equal), (further, np.greater)):
        ok = _away_from_edges(region, lons, lats) & np.isfinite(heights)
        shapely.prepare(region)
        inside = shapely.intersects_xy(region, lons, lats) & ok
        outside = ~shapely.intersects_xy(region, lons, lats) & ok
        assert inside.sum() > 100 or altitude > 300  # both answers keep real ground
        # |height| vs |altitude|: "10 m above sea level is closer than 12 m below".
        assert rule(np.abs(heights[inside]), abs(altitude)).all()
        assert not rule(np.abs(heights[outside]), abs(altitude)).any()


@pytest.mark.parametrize("altitude", ALTITUDES)
def test_answers_match_gdals_heights_and_the_kept_regions(grid, points, altitude):
    lons, lats, heights = points
    q = SeaLevelQuestion(SEEKER, altitude, grid, True)
    answers = q.answers_for(lons, lats)
    known = np.isfinite(heights)
    assert [a is None for a in answers] == list(~known)
    assert (answers[known] == (np.abs(heights[known]) <= abs(altitude))).all()
    closer = q.kept_for(True, EXTENT)
    shapely.prepare(closer)
    ok = _away_from_edges(closer, lons, lats) & known
    in_closer = shapely.intersects_xy(closer, lons[ok], lats[ok])
    assert (in_closer == answers[ok].astype(bool)).all()
    assert q.answer_for(float(lons[0]), float(lats[0])) == answers[0]


@pytest.mark.parametrize("altitude", ALTITUDES)
def test_closer_and_further_partition_the_area_but_the_voids(grid, altitude):
    q = SeaLevelQuestion(SEEKER, altitude, grid, True)
    closer, further = q.kept_for(True, EXTENT), q.kept_for(False, EXTENT)
    unknown = q.unknown_region(EXTENT)
    assert closer.union(further).symmetric_difference(EXTENT).area < 1e-12
    assert closer.intersection(further).symmetric_difference(unknown).area < 1e-12
    # The unknown part is the DEM's void cells inside the area, and only them.
    parts = shapely.get_parts(unknown)
    assert len(parts) > 0 and shapely.area(parts).min() > 1e-8  # whole cells, no slivers
    rep = shapely.get_coordinates(shapely.point_on_surface(parts))
    assert np.isnan(sample_dem(DEM, rep[:, 0], rep[:, 1])).all()
    assert geodesic_area_km2(unknown) < 0.01 * geodesic_area_km2(EXTENT)


def test_a_higher_altitude_keeps_a_superset(grid):
    regions = [
        SeaLevelQuestion(SEEKER, a, grid).kept_for(True, EXTENT) for a in (0, 12, 50, 143, 400)
    ]
    for low, high in zip(regions, regions[1:], strict=False):
        assert low.difference(high).area < 1e-12
        assert high.area > low.area  # every step passes real ground
    further = [SeaLevelQuestion(SEEKER, a, grid).kept_for(False, EXTENT) for a in (0, 50, 400)]
    for low, high in zip(further, further[1:], strict=False):
        assert high.difference(low).area < 1e-12


def test_below_sea_level_counts_by_its_absolute_value(grid):
    above, below = (SeaLevelQuestion(SEEKER, a, grid, True) for a in (12.0, -12.0))
    assert above.kept_for(True, EXTENT).symmetric_difference(below.kept_for(True, EXTENT)).area == 0
    # The rules' example: a hider at 10 m is closer than seekers 12 m below sea level.
    rows, cols = np.nonzero(grid.heights == 10)
    assert len(rows)
    a, _, c, _, e, f = grid.transform
    lon, lat = c + a * (cols[0] + 0.5), f + e * (rows[0] + 0.5)
    assert below.answer_for(lon, lat) is True
    assert SeaLevelQuestion(SEEKER, -8.0, grid).answer_for(lon, lat) is False
    assert SeaLevelQuestion(SEEKER, 10.0, grid).answer_for(lon, lat) is True  # a tie: closer


def test_void_cells_are_unknown_and_kept_by_both_answers(grid):
    rows, cols = np.nonzero(np.isnan(grid.heights))
    assert len(rows)  # SRTM3 v2.1 has voids on Monaco's cliffs
    a, _, c, _, e, f = grid.transform
    lon, lat = c + a * (cols[0] + 0.5), f + e * (rows[0] + 0.5)
    q = SeaLevelQuestion(SEEKER, 50.0, grid, True)
    assert q.answer_for(lon, lat) is None
    assert q.answer_text(None).startswith("unknown")
    point = shapely.Point(lon, lat)
    assert q.kept_for(True, EXTENT).covers(point) and q.kept_for(False, EXTENT).covers(point)


def test_off_the_grid_is_unknown(grid):
    q = SeaLevelQuestion(SEEKER, 50.0, grid, False)
    assert q.answer_for(8.5, 43.74) is None
    far = shapely.box(8.4, 43.72, 8.5, 43.76)  # east of the DEM: nothing known, all kept
    assert q.kept_for(True, far).equals(far) and q.kept_for(False, far).equals(far)


def test_a_play_area_a_turn_of_longitude_away_gives_the_same_region(grid):
    q = SeaLevelQuestion(SEEKER, 50.0, grid, True)
    moved = q.kept_for(True, shift_lon(EXTENT, 1))
    assert moved.symmetric_difference(shift_lon(q.kept_for(True, EXTENT), 1)).area < 1e-9


def test_cost_label_and_error_bound(grid):
    q = SeaLevelQuestion(SEEKER, 12.0, grid, True)
    assert q.kind == "measuring" and q.subject == "sea-level"
    assert q.cost == (3, 1)  # measuring: draw 3, pick 1
    assert q.cost_key() == ("measuring", "sea-level")
    assert q.cost_key() == SeaLevelQuestion(SEEKER, 400.0, grid).cost_key()  # one question
    assert "12 m" in q.label()
    assert (q.answer_text(True), q.answer_text(False)) == ("closer", "further")
    # 3 arc-seconds at 43.7° N: 67 m east-west by 93 m north-south.
    assert 110 < grid.cell_diagonal_m() < 120


def test_unanswered_and_bad_altitudes(grid):
    q = SeaLevelQuestion(SEEKER, 12.0, grid)
    with pytest.raises(QuestionError, match="no answer"):
        q.kept(EXTENT)
    with pytest.raises(QuestionError, match="altitude"):
        SeaLevelQuestion(SEEKER, float("nan"), grid)
    with pytest.raises(ValueError, match="north-up"):
        ElevationGrid(grid.heights, (1.0, 0.5, 0.0, 0.0, -1.0, 0.0))
