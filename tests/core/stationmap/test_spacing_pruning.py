"""The swaps and rank trades skip trials that cannot pay, and that changes no map.

``Selection.tallies_pass_without`` lets ``improve_by_swaps`` and ``improve_ranks``
skip a trial (give a station up, offer its neighbours, undo) when too few neighbours
could join once it is gone. It must be a necessary condition only: here every selection
is made twice on real candidates, with the check and with it answering "maybe" always
(every trial played, as before it existed), under many rules, and the two must agree
in every array.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from stations_generator.core.geo.geodesy import LocalFrame
from stations_generator.core.stationmap.ranking import rank_order


@pytest.fixture(scope="module")
def pure(pure_spacing):
    """The spacing core as Python, so the check can be switched off on its class."""
    return pure_spacing


@pytest.fixture(scope="module")
def pools(sioux_candidates, catalogue):
    from support.paths import EXTRACTS

    from stations_generator import elements_to_candidates, parse_play_window
    from stations_generator.osm.extracts import read_points

    helsinki = elements_to_candidates(
        read_points(EXTRACTS / "helsinki-centre.osm.pbf", catalogue.keeps),
        catalogue,
        parse_play_window("7am-7pm", "sat,sun"),
    )
    out = {}
    # Half of central Helsinki: dense enough to cap, small enough to select as Python.
    helsinki = helsinki.sample(frac=0.5, random_state=11).reset_index(drop=True)
    for name, frame in (("sioux", sioux_candidates), ("helsinki", helsinki)):
        lon, lat = frame.geometry.x.to_numpy(), frame.geometry.y.to_numpy()
        local = LocalFrame.for_bounds(tuple(frame.total_bounds))
        x, y = local.project(lon, lat)
        out[name] = (x, y, local.scale_factors(lon, lat), rank_order(frame), frame["transit"])
    return out


RULES = [
    dict(min_spacing_m=s, cluster_gap_m=g, cluster_radius_m=r, max_per_cluster=cap)
    for (s, g), r, cap in itertools.product(
        [(300.0, 1000.0), (150.0, 400.0)], [402.0, 805.0], [0, 1, 3]
    )
]


def _select(module, pool, rules, rounds):
    x, y, scale, order, transit = pool
    index = module.NeighbourIndex(x, y, scale, max(1000.0, rules["cluster_gap_m"]))
    return module.select_stations(
        index,
        order,
        module.SpacingRules(**rules),
        transit.to_numpy(bool),
        improve=True,
        search_iterations=rounds,
    )


@pytest.mark.slow  # (seconds; the full suite runs it)
@pytest.mark.parametrize("rounds", [0, 60], ids=["swaps", "search"])
@pytest.mark.parametrize("which", ["sioux", "helsinki"])
def test_skipped_trials_change_no_map(pure, pools, monkeypatch, which, rounds):
    pruned_any = 0
    for rules in RULES:
        calls = {"said no": 0}
        check = pure.Selection.tallies_pass_without

        def counting(self, i, c, d, check=check, calls=calls):
            answer = check(self, i, c, d)
            calls["said no"] += not answer
            return answer

        monkeypatch.setattr(pure.Selection, "tallies_pass_without", counting)
        with_check = _select(pure, pools[which], rules, rounds)
        monkeypatch.setattr(pure.Selection, "tallies_pass_without", lambda *a: True)
        every_trial = _select(pure, pools[which], rules, rounds)
        monkeypatch.undo()
        for field in ("kept", "cluster_id", "seed", "reason", "conflict"):
            left, right = getattr(with_check, field), getattr(every_trial, field)
            assert np.array_equal(left, right), (rules, field)
        assert with_check.count > 0
        pruned_any += calls["said no"] > 0
    assert pruned_any >= len(RULES) // 2  # the check did skip trials, under most rules
