"""Question geometry on real OSM data: hider mode and elimination agree point by point.

For each question type and each answer, a grid of ≥ 1000 points over the play area:
a point is kept by the elimination polygon iff the hider there gives that answer.
Points within TOL_M of a region boundary are where the polygon approximates the
geodesic curve (≤ 1 m, see core/shapes.py); they are checked by the exact rule
instead: points exactly on boundaries and ties follow the conventions (edge inside,
tie hotter, tie hider-closer).
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import Point, box
from support.geodesic_checks import GEOD
from support.paths import EXTRACTS

from stations_generator.core.geo.shapes import AzimuthalFrame, _refine_equidistant, geodesic_circle
from stations_generator.core.questions.geometry import (
    NOT_WITHIN,
    MatchingNearestQuestion,
    MatchingZoneQuestion,
    MeasuringQuestion,
    Place,
    QuestionError,
    RadiusQuestion,
    TentaclesQuestion,
    ThermometerQuestion,
    Zone,
    voronoi_cell,
)
from stations_generator.osm.extracts import read_areas, read_lines, read_points

TOL_M = 1.5
HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"
LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
MONACO = EXTRACTS / "monaco-2016.osm.pbf"
HELSINKI_AREA = box(24.9360, 60.1648, 24.9520, 60.1782)
CENTRAL = (24.94146, 60.17132)  # Helsinki central railway station


def grid(area, n=36):
    """≥ 1000 grid points inside ``area`` (the grid is refined until enough fall inside)."""
    minx, miny, maxx, maxy = area.bounds
    while True:
        xs, ys = np.meshgrid(np.linspace(minx, maxx, n), np.linspace(miny, maxy, n))
        pts = [
            (x, y) for x, y in zip(xs.ravel(), ys.ravel(), strict=True) if area.covers(Point(x, y))
        ]
        if len(pts) >= 1000:
            return pts
        n += 10


def boundary_distance_m(region, frame, lon, lat):
    if region.is_empty:
        return np.inf
    x, y = frame.project_xy([lon], [lat])
    return frame.project(region.boundary).distance(Point(x[0], y[0]))


def assert_agreement(question, answers, area):
    frame = AzimuthalFrame.around(area)
    checked = 0
    for answer in answers:
        kept = question.kept_for(answer, area)
        for lon, lat in grid(area):
            hider = question.answer_for(lon, lat)
            if boundary_distance_m(kept, frame, lon, lat) <= TOL_M:
                continue
            assert kept.covers(Point(lon, lat)) == (hider == answer), (
                question.label(),
                answer,
                lon,
                lat,
            )
            checked += 1
    assert checked >= 1000 * len(answers) * 0.95


@pytest.fixture(scope="module")
def helsinki_places():
    els = read_points(
        HELSINKI, lambda t: t.get("tourism") == "museum" or t.get("amenity") == "library"
    )
    museums = tuple(
        Place(e.key, e.tags.get("name", ""), e.lon, e.lat)
        for e in els
        if e.tags.get("tourism") == "museum"
    )
    libraries = tuple(
        Place(e.key, e.tags.get("name", ""), e.lon, e.lat)
        for e in els
        if e.tags.get("amenity") == "library"
    )
    assert len(museums) >= 5 and len(libraries) >= 5
    return {"museum": museums, "library": libraries}


def test_radius_agreement_and_edge():
    q = RadiusQuestion(CENTRAL, 600.0)
    assert_agreement(q, [True, False], HELSINKI_AREA)
    # Exactly on the edge: inside, and kept by "within".
    lon, lat, _ = GEOD.fwd([CENTRAL[0]] * 72, [CENTRAL[1]] * 72, np.arange(0, 360, 5), [600.0] * 72)
    circle = q.kept_for(True, box(24.9, 60.15, 25.0, 60.19))
    for x, y in zip(lon, lat, strict=True):
        assert q.answer_for(x, y) is True
        assert circle.covers(Point(x, y))


def test_circle_within_one_metre_at_160_km():
    c = geodesic_circle(*CENTRAL, 160_000)
    ring = np.asarray(c.exterior.coords)
    # vertices and edge midpoints
    probe = np.vstack([ring, (ring[:-1] + ring[1:]) / 2])
    _, _, d = GEOD.inv(
        np.full(len(probe), CENTRAL[0]), np.full(len(probe), CENTRAL[1]), probe[:, 0], probe[:, 1]
    )
    assert np.all(d >= 160_000) and np.all(d - 160_000 <= 1.0)


def test_thermometer_agreement_and_tie():
    q = ThermometerQuestion(CENTRAL, (24.94600, 60.16800))
    assert_agreement(q, [True, False], HELSINKI_AREA)
    # Exact tie by symmetry: start and end mirrored across a meridian.
    sym = ThermometerQuestion((24.940, 60.170), (24.948, 60.170))
    for lat in np.linspace(60.165, 60.178, 20):
        assert sym.answer_for(24.944, lat) is True  # tie counts as hotter
    # Equidistant points found by Newton iteration lie on the kept region's edge.
    lon, lat = _refine_equidistant(
        np.full(10, 24.944), np.linspace(60.166, 60.177, 10), q.end, q.start
    )
    hot = q.kept_for(True, HELSINKI_AREA)
    frame = AzimuthalFrame.around(HELSINKI_AREA)
    on_edge = [(x, y) for x, y in zip(lon, lat, strict=True) if HELSINKI_AREA.covers(Point(x, y))]
    assert len(on_edge) >= 4
    assert all(boundary_distance_m(hot, frame, x, y) < 0.05 for x, y in on_edge)


def test_thermometer_distances_by_game_size():
    q = ThermometerQuestion(CENTRAL, (24.94600, 60.16800), True)
    assert q.nominal_m("S") == 400.0
    far = ThermometerQuestion((9.52, 47.14), (9.52 + 0.99, 47.14), True, distance_m=75_000.0)
    with pytest.raises(QuestionError, match="not allowed in a S game"):
        far.nominal_m("S")
    assert far.nominal_m("L") == 75_000.0
    # Asked too early: counted as a 400 m thermometer with a null answer (the house
    # rules, Thermometer), not an error.
    short = ThermometerQuestion(CENTRAL, (24.9420, 60.1714), True)
    assert short.nominal_m("M") == 400.0
    assert short.answer is None
    assert "counted as asked, no answer" in short.too_early()


def test_tentacles_agreement(helsinki_places):
    museums = helsinki_places["museum"]
    q = TentaclesQuestion((24.9460, 60.1680), 550.0, "museum", museums)
    inside = q.candidates()
    assert 2 <= len(inside) < len(museums)  # some museums are beyond the radius
    assert_agreement(q, [p.id for p in inside] + [NOT_WITHIN], HELSINKI_AREA)


def test_matching_nearest_agreement(helsinki_places):
    q = MatchingNearestQuestion((24.9460, 60.1680), "library", helsinki_places["library"])
    assert_agreement(q, [True, False], HELSINKI_AREA)


def test_voronoi_cells_tile_the_area(helsinki_places):
    libs = helsinki_places["library"]
    cells = [voronoi_cell(libs, p, HELSINKI_AREA) for p in libs]
    total = sum(c.area for c in cells)
    # Neighbouring cells sample their shared edge separately: slivers of ~1 cm width.
    assert total == pytest.approx(HELSINKI_AREA.area, rel=1e-5)
    union = shapely.union_all(cells)
    assert union.symmetric_difference(HELSINKI_AREA).area < HELSINKI_AREA.area * 1e-5


@pytest.fixture(scope="module")
def liechtenstein():
    areas = read_areas(
        LIECHTENSTEIN,
        lambda t: (
            t.get("boundary") == "administrative"
            and t.get("admin_level") in ("2", "8")
            and "name" in t
        ),
    )
    country = next(g for _, t, g in areas if t["admin_level"] == "2")
    zones = tuple(Zone(z, t["name"], g) for z, t, g in areas if t["admin_level"] == "8")
    assert len(zones) == 11
    return country, zones


@pytest.mark.slow  # (seconds; the full suite runs it)
def test_matching_zone_agreement(liechtenstein):
    country, zones = liechtenstein
    vaduz = (9.5209, 47.1410)
    q = MatchingZoneQuestion(vaduz, 8, zones)
    assert q.seeker_zone().name == "Vaduz"
    assert_agreement(q, [True, False], country)
    letter = MatchingZoneQuestion((9.5061, 47.1747), 8, zones, by_letter=True)  # Schaan: S…
    names = {z.name for z in letter._matching_zones()}
    assert {n[0] for n in names} == {"S"} and len(names) >= 2  # Schaan, Schellenberg, …
    assert_agreement(letter, [True, False], country)


@pytest.fixture(scope="module")
def monaco_coast():
    lines = tuple(g for _, _, g in read_lines(MONACO, lambda t: t.get("natural") == "coastline"))
    assert lines
    return lines


def test_measuring_line_agreement(monaco_coast):
    area = box(7.405, 43.725, 7.440, 43.752)
    frame = AzimuthalFrame.around(area)
    q = MeasuringQuestion((7.4200, 43.7380), "coastline", monaco_coast, frame)
    d = q.seeker_distance()
    assert 100 < d < 3000
    assert_agreement(q, [True, False], area)
    # Tie: the seeker's own position is exactly as far as the seeker → hider closer.
    assert q.answer_for(*q.seeker) is True


def test_measuring_points_agreement_and_tie(helsinki_places):
    museums = helsinki_places["museum"]
    q = MeasuringQuestion(
        (24.9460, 60.1680),
        "museum",
        tuple(Point(p.lon, p.lat) for p in museums),
        AzimuthalFrame.around(HELSINKI_AREA),
    )
    assert_agreement(q, [True, False], HELSINKI_AREA)
    d = q.seeker_distance()
    nearest = min(museums, key=lambda p: GEOD.inv(p.lon, p.lat, *q.seeker)[2])
    lon, lat, _ = GEOD.fwd(nearest.lon, nearest.lat, 200.0, d)
    if q.distance_from(lon, lat) == pytest.approx(d, abs=1e-6):
        assert q.answer_for(lon, lat) is True


def test_measuring_polygon_is_distance_to_edge():
    water = [g for _, _, g in read_areas(MONACO, lambda t: t.get("natural") == "water")]
    assert water
    lake = max(water, key=lambda g: g.area)
    frame = AzimuthalFrame.around(lake)
    q = MeasuringQuestion(
        (lake.centroid.x + 0.01, lake.centroid.y), "body_of_water", (lake,), frame
    )
    assert q.distance_from(lake.representative_point().x, lake.representative_point().y) == 0.0
    assert q.seeker_distance() > 0


def test_frame_distances_match_geodesic():
    # The azimuthal frame's error bound (core/shapes.py): ≤ ρ²/(6R²) relative.
    frame = AzimuthalFrame(24.944, 60.171)
    rng = np.random.default_rng(3)
    lon = 24.944 + rng.uniform(-0.3, 0.3, 200)
    lat = 60.171 + rng.uniform(-0.15, 0.15, 200)
    x, y = frame.project_xy(lon, lat)
    grid_d = np.hypot(x[1:] - x[:-1], y[1:] - y[:-1])
    _, _, true = GEOD.inv(lon[:-1], lat[:-1], lon[1:], lat[1:])
    rho = np.maximum(np.hypot(x[1:], y[1:]), np.hypot(x[:-1], y[:-1]))
    bound = true * (rho / 6_371_000) ** 2 / 6 * 4 + 1e-3  # ×4: the bound is for tangential scale
    assert np.all(np.abs(grid_d - true) <= bound)


def test_answer_required():
    with pytest.raises(QuestionError, match="no answer recorded"):
        RadiusQuestion(CENTRAL, 500).kept(HELSINKI_AREA)
