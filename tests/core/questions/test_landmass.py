"""The matching landmass question on real extracts (JLTG.EU house rules, Matching: Landmass).

Monaco: the sea coast and two islets (closed coastline rings); Liechtenstein: the Rhine
(a river line) between Liechtenstein and Switzerland, bridged, and a pond with three
islands; Krems: the Danube, bridged; Helsinki centre: a sea bay, no island in the extract.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import box
from support.paths import HELSINKI, KREMS, LIECHTENSTEIN, MONACO

from stations_generator.app.map_context import OsmContext
from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.core.questions.landmass import (
    LandData,
    Landmasses,
    MatchingLandmassQuestion,
    coast_land,
    cuts_land,
)
from stations_generator.formats.gamefile import question_from_dict
from stations_generator.osm import layers


def _data(path, area) -> tuple[OsmContext, LandData]:
    context = OsmContext(area, [path])
    return context, context.land([])


@pytest.fixture(scope="module")
def monaco():
    return _data(MONACO, box(7.40, 43.72, 7.44, 43.75))


@pytest.fixture(scope="module")
def liechtenstein():
    return _data(LIECHTENSTEIN, box(9.47, 47.05, 9.63, 47.27))


def _landmass(lands: Landmasses, lon: float, lat: float) -> int:
    return int(lands.index_of([lon], [lat])[0])


def test_window_is_cut_to_the_extract(monaco):
    context, data = monaco
    held = box(*layers.data_box(MONACO))
    assert data.window.equals(held.intersection(data.window))
    assert data.window.covers(context.play_area)


def test_land_is_left_of_the_coastline(monaco):
    _, data = monaco
    land = coast_land(data.window, data.coastlines)
    shapely.prepare(land)
    left = right = 0
    for line in data.coastlines:
        c = shapely.get_coordinates(line)
        for (x1, y1), (x2, y2) in zip(c[:-1], c[1:], strict=True):
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            if not data.window.contains(shapely.Point(mx, my)):
                continue
            nx, ny = -(y2 - y1) * 1e-3, (x2 - x1) * 1e-3
            left += land.contains(shapely.Point(mx + nx, my + ny))
            right += land.contains(shapely.Point(mx - nx, my - ny))
    assert left > 1000 and right < left * 0.01  # the rare misses: segments a hair apart


def test_monaco_islets_are_their_own_landmasses(monaco):
    _, data = monaco
    lands = Landmasses(data)
    mainland = _landmass(lands, 7.4236, 43.7311)  # Monaco-Ville, on its rock
    assert mainland >= 0
    assert _landmass(lands, 7.4270, 43.7400) == mainland  # Monte Carlo
    assert _landmass(lands, 7.4300, 43.7200) == -1  # the sea south of Monaco
    islets = [g for g in data.coastlines if g.is_closed]
    assert len(islets) >= 2
    found = {_landmass(lands, *g.representative_point().coords[0]) for g in islets}
    assert -1 not in found and mainland not in found and len(found) == len(islets)


def test_rhine_splits_land_and_bridges_join_nothing(liechtenstein):
    _, data = liechtenstein
    lands = Landmasses(data)
    vaduz = _landmass(lands, 9.5215, 47.1410)
    schaan = _landmass(lands, 9.5096, 47.1650)
    sevelen = _landmass(lands, 9.4866, 47.1217)  # Switzerland, across the Rhine
    assert vaduz >= 0 and sevelen >= 0
    assert schaan == vaduz and sevelen != vaduz
    bridges = [
        g
        for _, tags, g in layers.lines(LIECHTENSTEIN, "marked_path")
        if tags.get("name") in ("Rheinbrücke", "Holzbrücke")
    ]
    assert len(bridges) >= 2
    for g in bridges:  # each bridge's two ends: either side of the river
        a, b = g.coords[0], g.coords[-1]
        assert _landmass(lands, *a) != _landmass(lands, *b)


def test_island_in_a_pond_is_surrounded(liechtenstein):
    context, data = liechtenstein
    pond = next(
        g
        for key, tags, g in layers.areas(LIECHTENSTEIN, "water")
        if tags.get("name") == "Wasserpark Walserbünt"
    )
    island = shapely.Polygon(shapely.get_parts(pond)[0].interiors[0]).representative_point()
    vaduz = (9.5215, 47.1410)
    on_island = MatchingLandmassQuestion(island.coords[0], data, context.frame, True)
    from_vaduz = MatchingLandmassQuestion(vaduz, data, context.frame, True)
    # The island is another landmass, entirely surrounded by the seekers': a match.
    lands = from_vaduz.landmasses
    assert _landmass(lands, *island.coords[0]) != _landmass(lands, *vaduz)
    assert from_vaduz.answer_for(*island.coords[0])
    # Seekers on the island: the land around it does not match (it is not surrounded).
    assert not on_island.answer_for(*vaduz)
    assert on_island.answer_for(*island.coords[0])
    assert not from_vaduz.answer_for(9.4866, 47.1217)  # across the Rhine
    # The three islands of the pond are the landmasses Vaduz's landmass surrounds.
    mine = _landmass(lands, *vaduz)
    islands = [
        _landmass(lands, *shapely.Polygon(r).representative_point().coords[0])
        for r in shapely.get_parts(pond)[0].interiors
    ]
    assert sorted(lands.surrounded_by(mine)) == sorted({mine, *islands})
    # The pond's water is surrounded too: a hider beside the islands is on Vaduz's side.
    in_pond = shapely.get_parts(pond)[0].representative_point().coords[0]
    assert _landmass(lands, *in_pond) == -1 and from_vaduz.answer_for(*in_pond)


def test_krems_danube_bridge():
    context, data = _data(KREMS, box(15.61, 48.39, 15.66, 48.41))
    bridge = [
        g
        for _, tags, g in layers.lines(KREMS, "marked_path")
        if tags.get("name") == "St. Pöltner Brücke"
    ]
    assert bridge
    south, north = (15.6250, 48.3960), (15.6250, 48.4090)
    q = MatchingLandmassQuestion(north, data, context.frame, True)
    assert q.answer_for(*north) and not q.answer_for(*south)


def test_region_and_answers_agree(liechtenstein):
    context, data = liechtenstein
    extent = context.play_area
    for seeker, answer in (((9.5215, 47.1410), True), ((9.4866, 47.1217), False)):
        q = MatchingLandmassQuestion(seeker, data, context.frame, answer)
        kept, dropped = q.kept_for(True, extent), q.kept_for(False, extent)
        assert kept.intersection(dropped).area < 1e-12
        assert kept.union(dropped).area == pytest.approx(extent.area, rel=1e-9)
        rng = np.random.default_rng(7)
        lon = rng.uniform(9.47, 9.63, 2000)
        lat = rng.uniform(47.05, 47.27, 2000)
        inside = shapely.contains_xy(kept, lon, lat)
        assert (q.answers_for(lon, lat) == inside).all()
        assert q.answer_for(*seeker)


def test_helsinki_centre_is_one_mainland_and_the_bay_is_sea():
    context, data = _data(HELSINKI, box(24.936, 60.1648, 24.952, 60.1782))
    lands = Landmasses(data)
    kamppi, kruununhaka = (24.9330 + 0.006, 60.1690), (24.9520, 60.1710)
    assert _landmass(lands, *kamppi) == _landmass(lands, *kruununhaka) >= 0
    assert _landmass(lands, 24.9480, 60.1770) == -1  # Kaisaniemenlahti, a sea bay
    assert len(data.coastlines) >= 1


def test_water_that_does_not_cut_land():
    assert cuts_land({"natural": "water", "water": "lake"})
    assert cuts_land({"waterway": "riverbank"})
    assert not cuts_land({"natural": "bay"})
    assert not cuts_land({"natural": "water", "covered": "yes"})
    assert not cuts_land({"natural": "water", "intermittent": "yes"})


def test_no_coastline_means_all_land_and_same_build_same_bytes():
    window = box(9.5, 47.1, 9.55, 47.15)
    assert coast_land(window, ()).equals(window)
    _, data = _data(LIECHTENSTEIN, box(9.47, 47.05, 9.63, 47.27))
    a, b = Landmasses(data), Landmasses(data)
    assert [shapely.to_wkb(p) for p in a.pieces] == [shapely.to_wkb(p) for p in b.pieces]


def test_game_file_reads_the_landmass_question(monaco):
    context, _ = monaco
    raw = {
        "type": "matching",
        "seeker": {"lat": 43.7311, "lon": 7.4236},
        "subject": "landmass",
        "answer": "same",
    }
    q = question_from_dict(raw, context, [], "question 1")
    assert isinstance(q, MatchingLandmassQuestion)
    assert q.cost == (3, 1) and q.cost_key() == ("matching", "landmass")
    assert q.answer_for(7.4270, 43.7400)
    assert isinstance(q.frame, AzimuthalFrame)


def test_seekers_at_sea_are_on_the_nearest_landmass(monaco):
    context, data = monaco
    at_sea = (7.4300, 43.7200)
    q = MatchingLandmassQuestion(at_sea, data, context.frame, True)
    assert _landmass(q.landmasses, *at_sea) == -1
    assert q.answer_for(7.4236, 43.7311)  # the mainland is nearest
    assert not q.answer_for(*at_sea)  # a hider at sea is on no landmass
    islet = next(g for g in data.coastlines if g.is_closed)
    assert not q.answer_for(*islet.representative_point().coords[0])


def test_data_box_of_a_broken_extract_is_one_line(tmp_path):
    from stations_generator.errors import InputError

    broken = tmp_path / "broken.osm.pbf"
    broken.write_bytes(HELSINKI.read_bytes()[64:4096])  # a real file, its head cut off
    with pytest.raises(InputError) as err:
        layers.data_box(broken)
    assert "broken.osm.pbf" in str(err.value) and "\n" not in str(err.value)
    assert layers.data_box(HELSINKI) == pytest.approx(
        (24.9351762, 60.164155, 24.9534145, 60.179113)
    )
