"""Questions where games get big or real: ±180°, places far outside, exact edges, holes.

The oracle (``test_question_oracle.py``) checks every question type on 5,000 points; these
tests pin the individual mechanisms, quickly, on real data moved into place by
``shifted_osm.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import shapely
from shapely.geometry import MultiPolygon, Point, box, mapping, shape
from support.cli_runs import run
from support.geodesic_checks import GEOD
from support.paths import EXTRACTS
from support.shifted_osm import write_copies

from stations_generator.app.map_context import OsmContext
from stations_generator.core.geo.antimeridian import (
    join_antimeridian,
    split_antimeridian,
    to_window,
    wrap_lon,
)
from stations_generator.core.geo.buffers import _drop_spurious, distance_region
from stations_generator.core.geo.features import GeodesicFeatures, foot_on_segments
from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.formats.gamefile import question_from_dict
from stations_generator.osm.extracts import read_areas, read_lines

HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"
MONACO = EXTRACTS / "monaco-2016.osm.pbf"
LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
H0 = (24.944, 60.171)


# --- the antimeridian ---------------------------------------------------------------------


def test_split_area_is_joined_and_split_again():
    rfc = MultiPolygon([box(178.9, -17.6, 180.0, -16.4), box(-180.0, -17.6, -178.9, -16.4)])
    joined = join_antimeridian(rfc)
    assert joined.geom_type == "Polygon" and joined.bounds == (178.9, -17.6, 181.1, -16.4)
    again = split_antimeridian(joined)
    assert again.geom_type == "MultiPolygon"
    assert shapely.get_coordinates(again)[:, 0].min() >= -180
    assert shapely.get_coordinates(again)[:, 0].max() <= 180
    assert shapely.equals(shapely.normalize(again), shapely.normalize(rfc))
    # Two areas that merely sit at both ends of the map are not one area.
    apart = MultiPolygon([box(170, 0, 180, 1), box(-180, 40, -170, 41), box(0, 0, 1, 1)])
    assert join_antimeridian(apart) is apart
    assert wrap_lon(-179.5, 180.0) == 180.5 and wrap_lon(10.25, 0.0) == 10.25
    piece = to_window(MultiPolygon([box(179, 0, 180, 1), box(-180, 0, -179, 1)]), 180.0)
    assert piece.geom_type == "Polygon" and piece.bounds == (179.0, 0.0, 181.0, 1.0)


@pytest.fixture(scope="module")
def fiji(tmp_path_factory):
    """Monaco's coast moved onto 180° (cut there as OSM cuts it) and Helsinki beside it."""
    folder = tmp_path_factory.mktemp("fiji")
    write_copies(
        folder / "fiji.osm.pbf",
        [
            (MONACO, 180.0 - 7.42, -16.9 - 43.74, True),
            (HELSINKI, 179.85 - H0[0], -17.05 - H0[1]),
            (HELSINKI, 180.2 - H0[0], -16.8 - H0[1]),
        ],
    )
    area = MultiPolygon([box(179.5, -17.3, 180.0, -16.5), box(-180.0, -17.3, -179.5, -16.5)])
    (folder / "area.geojson").write_text(json.dumps(mapping(area)))
    questions = [
        {"type": "measuring", "seeker": {"lat": -16.7, "lon": 179.7}, "subject": "coastline"},
        {
            "type": "thermometer",
            "start": {"lat": -17.0, "lon": 179.7},
            "end": {"lat": -17.0, "lon": -179.8},
        },
        {"type": "matching", "seeker": {"lat": -16.8, "lon": -179.8}, "subject": "museum"},
        {"type": "radius", "seeker": {"lat": -16.9, "lon": -179.9}, "radius": "20 km"},
    ]
    game = {
        "format": "stations-generator-game/1",
        "play_area": "area.geojson",
        "osm": ["fiji.osm.pbf"],
        "game_size": "L",
        "questions": questions,
    }
    hider = (-179.95, -16.85)
    path = folder / "game.json"
    path.write_text(json.dumps(game))
    result = run("questions", "answer", path, "--hider", f"{hider[1]},{hider[0]}", "--json")
    assert result.exit_code == 0, result.output
    for q, row in zip(questions, json.loads(result.stdout), strict=True):
        q["answer"] = row["answer"]
    path.write_text(json.dumps(game))
    return path, hider


def test_game_across_the_antimeridian(fiji, tmp_path):
    path, hider = fiji
    coast = read_lines(path.parent / "fiji.osm.pbf", lambda t: t.get("natural") == "coastline")
    ends = shapely.get_coordinates(shapely.union_all([g for _, _, g in coast]))[:, 0]
    assert ends.max() == 180.0 and ends.min() == -180.0  # the line was cut at 180°, as in OSM
    result = run("questions", "apply", path, "-o", tmp_path)
    assert result.exit_code == 0, result.output
    features = json.loads((tmp_path / "remaining.geojson").read_text())["features"]
    remaining = shape(features[0]["geometry"])
    xs = shapely.get_coordinates(remaining)[:, 0]
    assert xs.min() >= -180 and xs.max() <= 180  # RFC 7946
    assert remaining.covers(Point(hider))
    for f in features[1:]:
        if f["geometry"]:
            assert np.abs(shapely.get_coordinates(shape(f["geometry"]))[:, 0]).max() <= 180
    # Both sides of 180° are in the answer; the hider's zone and a far-west point check out.
    assert (xs > 179).any() and (xs < -179).any()
    check = run("zones", "check", path, "--at", f"{hider[1]},{hider[0]}")
    assert check.exit_code == 0 and "VALID" in check.stdout
    answer = run("questions", "answer", path, "--hider", f"{hider[1]},{hider[0]}", "--json")
    assert all(r["answer"] == r["recorded"] for r in json.loads(answer.stdout))


# --- places far outside the play area -------------------------------------------------------


def test_nearest_places_beyond_50_km_count(tmp_path):
    # Helsinki centre copied to 69.25° N (inside) and 71° N, 67 km beyond the area's edge.
    osm = write_copies(
        tmp_path / "north.osm.pbf",
        [
            (HELSINKI, 24.0 - H0[0], 69.25 - H0[1]),
            (HELSINKI, 24.0 - H0[0], 71.0 - H0[1]),
        ],
    )
    area = box(22.0, 69.0, 26.0, 70.4)
    context = OsmContext(area, [osm])
    seeker = {"lat": 70.35, "lon": 24.0}
    q = question_from_dict(
        {"type": "matching", "seeker": seeker, "subject": "major_city"}, context, [], "q"
    )
    assert [round(p.lat, 2) for p in q.places] == [69.25, 71.0]
    assert round(q.seeker_place().lat, 2) == 71.0  # the seeker's nearest city is outside
    # Near the north edge the outside city is nearer: it cuts the area in two.
    cell = q.kept_for(True, area)
    assert 0 < cell.area < area.area and cell.covers(Point(24.0, 70.3))
    # Every point within a margin of the area is inside the boxes read, at 70° N.
    boxes = context.bboxes(150_000)
    ring = np.asarray(area.exterior.coords)
    for az in range(0, 360, 15):
        lon, lat, _ = GEOD.fwd(
            ring[:, 0], ring[:, 1], np.full(len(ring), az), np.full(len(ring), 149_000)
        )
        assert all(
            any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in boxes)
            for x, y in zip(lon, lat, strict=True)
        )


# --- exact geodesic distances and edges ------------------------------------------------------


def test_foot_on_a_long_geodesic_segment_is_exact():
    # A 400 km segment at 69° N and points 30–80 km off it: the foot is where the
    # distance is smallest along the segment (checked by sampling it every metre nearby).
    a, b = (15.0, 69.0), (25.0, 69.5)
    rng = np.random.default_rng(1)
    az, _, length = GEOD.inv(*a, *b)
    s = rng.uniform(0.1, 0.9, 20) * length
    mlon, mlat, back = GEOD.fwd(np.full(20, a[0]), np.full(20, a[1]), np.full(20, az), s)
    off = rng.uniform(30_000, 80_000, 20)
    plon, plat, _ = GEOD.fwd(mlon, mlat, back + 180 + 90, off)
    d, flon, flat = foot_on_segments(plon, plat, *(np.full(20, v) for v in (*a, *b)))
    _, _, df = GEOD.inv(plon, plat, flon, flat)
    assert np.allclose(d, df)
    _, _, along = GEOD.inv(np.full(20, a[0]), np.full(20, a[1]), flon, flat)
    for k in (-1.0, 1.0):
        xlon, xlat, _ = GEOD.fwd(np.full(20, a[0]), np.full(20, a[1]), np.full(20, az), along + k)
        assert (GEOD.inv(plon, plat, xlon, xlat)[2] >= d - 1e-6).all()


def test_region_edges_are_within_the_tolerance_on_a_large_area():
    lines = [g for _, _, g in read_lines(MONACO, lambda t: t.get("natural") == "coastline")]
    extent = box(6.5, 43.5, 8.5, 45.0)  # 160 × 165 km: the frame alone is metres off
    features = GeodesicFeatures(lines, AzimuthalFrame.around(extent))
    region = distance_region(features, 30_000.0, extent, tolerance_m=0.05)
    rings = [np.asarray(r.coords) for r in shapely.get_parts(shapely.get_rings(region))]
    pts = np.vstack(
        [np.vstack([r, (r[1:] + r[:-1]) / 2]) for r in rings]
    )  # vertices and chord middles
    d = features.distance(pts[:, 0], pts[:, 1])
    edge = np.abs(d - 30_000) < 100  # (the rest lies on the extent's own edge)
    assert edge.sum() > 500
    assert np.abs(d[edge] - 30_000).max() < 0.05


def test_spurious_holes_are_filled_and_real_ones_kept():
    # Liechtenstein's border at 2 km: a ring-shaped region whose hole (the country's
    # middle, farther than 2 km from the border) is real.
    country = next(
        g
        for _, t, g in read_areas(
            LIECHTENSTEIN,
            lambda t: t.get("admin_level") == "2" and t.get("name") == "Liechtenstein",
        )
    )
    features = GeodesicFeatures([country.boundary], AzimuthalFrame.around(country))
    extent = country.envelope.buffer(0.05)
    region = distance_region(features, 2000.0, extent)
    holes = [h for p in shapely.get_parts(region) for h in p.interiors]
    assert holes  # the middle of the country
    # A hole punched where every point is nearer than 2 km (as a GEOS buffer may leave one).
    lon, lat = shapely.get_coordinates(country.boundary)[40]
    fake = Point(lon, lat).buffer(0.001)
    assert features.distance([lon], [lat])[0] < 100
    broken = region.difference(fake)
    assert sum(len(p.interiors) for p in shapely.get_parts(broken)) == len(holes) + 1
    fixed = _drop_spurious(broken, features, 2000.0, 0.05)
    assert sum(len(p.interiors) for p in shapely.get_parts(fixed)) == len(holes)
    assert fixed.covers(Point(lon, lat))
