"""The question geometry against an independent GeographicLib oracle, at any scale.

For every case of ``support/oracle_cases.py`` (the bundled extracts; a 330 km play area of
tiled real data; 69–70° N with the nearest places far outside the area; an area
across ±180° given split as RFC 7946 asks), every question type and every answer,
over 5,000 points sampled uniformly by area:

* the remaining-area polygon misclassifies no point more than 1 m from the true
  boundary (the oracle computes that distance);
* hider mode agrees with the oracle everywhere (exact ties within 1 mm aside);
* hider mode, ``remaining.geojson`` (written and read back, split at ±180°) and zone
  checks agree on the sampled points of a whole game.

The three large cases are marked slow. ``python tests/support/oracle_cases.py`` prints the
mismatch table.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import shapely
from shapely.geometry import shape
from support import oracle_cases as oc

CASES = [pytest.param(c.name, marks=pytest.mark.slow) if c.slow else c.name for c in oc.CASES]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("oracle")


_BUILT: dict = {}


def built(name, folder):
    if name not in _BUILT:
        _BUILT[name] = oc.build(oc.BY_NAME[name], folder)
    return _BUILT[name]


@pytest.mark.parametrize("name", CASES)
def test_every_question_and_answer_matches_the_oracle(name, folder):
    b = built(name, folder)
    assert len(b.points) >= 5000
    rows = oc.check(b)
    kinds = {r.question.split()[0] for r in rows}
    assert len(rows) >= 2 * len(b.questions)
    bad = [r for r in rows if r.far_misses or r.hider_misses]
    assert not bad, "\n" + oc.table(bad)
    # Both answers of a question split the points between them.
    assert all(0 < r.kept < r.points or r.question.startswith("Tentacles") for r in rows), kinds


def _answered(b, hider):
    """The case's questions, answered as a hider at ``hider`` would."""
    from stations_generator.core.questions.geometry import NOT_WITHIN
    from stations_generator.formats.gamefile import question_from_dict

    words = {
        "radius": ("within", "not within"),
        "thermometer": ("hotter", "colder"),
        "matching": ("same", "different"),
        "measuring": ("closer", "further"),
    }
    out = []
    for k, (raw, q) in enumerate(b.questions, 1):
        a = q.answer_for(*hider)
        if raw["type"] == "tentacles":
            text = NOT_WITHIN if a == NOT_WITHIN else a
        else:
            text = words[raw["type"]][0 if a else 1]
        out.append(question_from_dict({**raw, "answer": text}, b.context, [], f"question {k}"))
    return out


@pytest.mark.parametrize("name", CASES)
def test_hider_mode_remaining_geojson_and_zone_checks_agree(name, folder):
    from stations_generator.commands.questions import elimination_geojson
    from stations_generator.core.geo.antimeridian import join_antimeridian, wrap_lon
    from stations_generator.core.geo.shapes import geodesic_circles
    from stations_generator.core.questions.game import Game
    from stations_generator.core.questions.rules import rule_set

    b = built(name, folder)
    hider = oc._w(b, {"lon": b.case.hider[0], "lat": b.case.hider[1]})
    game = Game(b.area, rule_set("official"), "L", [], _answered(b, hider))
    elimination = game.eliminate()
    assert elimination.remaining.covers(shapely.Point(hider))
    text = json.dumps(elimination_geojson(game, elimination))
    features = json.loads(text)["features"]
    remaining = shape(features[0]["geometry"])
    coords = shapely.get_coordinates(remaining)
    assert (np.abs(coords[:, 0]) <= 180).all()  # RFC 7946 longitudes
    lons, lats = b.points[:, 0], b.points[:, 1]
    shapely.prepare(remaining)
    in_file = shapely.intersects_xy(remaining, wrap_lon(lons), lats)
    possible = game.possible_many(lons, lats)
    assert 0 < possible.sum() < len(lons)
    assert np.array_equal(in_file, possible), np.flatnonzero(in_file != possible)
    # Zone checks: the 60 points whose zones come nearest the remaining area's edge, and 40 more.
    joined = join_antimeridian(remaining)
    zones = geodesic_circles(lons, lats, game.hiding_radius_m)
    edge = shapely.distance(joined.boundary, shapely.points(lons, lats))
    rng = np.random.default_rng(7)
    pick = np.concatenate(
        [np.argsort(np.abs(edge - 0.0))[:60], rng.choice(len(lons), 40, replace=False)]
    )
    for i in pick:
        check = game.check_zone(point=(float(lons[i]), float(lats[i])))
        assert check.valid == bool(joined.intersects(zones[i])), (i, lons[i], lats[i])
        if possible[i]:
            assert check.valid
