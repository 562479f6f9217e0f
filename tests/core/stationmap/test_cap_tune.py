"""The auto-tuned cluster cap on real data: the sweep that stops above the band picks what
sweeping every cap of AUTO_TUNE_CAPS picks (the first cap in the game size's band, else
the first nearest miss)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.paths import HELSINKI

from stations_generator import StationMapOptions, build_station_map
from stations_generator.core.gamesize import STATION_BANDS
from stations_generator.core.stationmap.build import AUTO_TUNE_CAPS


def _full_sweep(area, candidates, options: StationMapOptions) -> tuple[int, list[int]]:
    """The cap the full sweep picks and the greedy count of every cap, each map built
    with that cap given (no search: the cap is chosen by the greedy)."""
    lo, hi = STATION_BANDS[options.game_size]
    counts = []
    for cap in AUTO_TUNE_CAPS:
        fixed = replace(options, max_per_cluster=cap)
        counts.append(len(build_station_map(area, candidates, fixed).stations))
    in_band = [cap for cap, n in zip(AUTO_TUNE_CAPS, counts, strict=True) if lo <= n <= hi]
    if in_band:
        return in_band[0], counts
    misses = [max(lo - n, n - hi, 0) for n in counts]
    return AUTO_TUNE_CAPS[misses.index(min(misses))], counts


def _check(area, candidates, options: StationMapOptions) -> tuple[int, list[int]]:
    """The auto-tuned map is the full sweep's: its cap, its stations, a trail that is a
    prefix of the full one and stops in the band, above it, or at the last cap."""
    chosen, counts = _full_sweep(area, candidates, options)
    tuned = build_station_map(area, candidates, options)
    assert tuned.cap_auto
    assert tuned.rules.max_per_cluster == chosen
    fixed = replace(options, max_per_cluster=chosen)
    same = build_station_map(area, candidates, fixed)
    assert list(tuned.stations["id"]) == list(same.stations["id"])
    assert list(tuned.stations["cluster_id"]) == list(same.stations["cluster_id"])
    trail = tuned.cap_trail
    assert trail == list(zip(AUTO_TUNE_CAPS, counts, strict=True))[: len(trail)]
    lo, hi = STATION_BANDS[options.game_size]
    last = trail[-1][1]
    assert lo <= last <= hi or last > hi or len(trail) == len(AUTO_TUNE_CAPS)
    assert all(n < lo for _, n in trail[:-1])  # nothing before the stop was in or above
    return chosen, [n for _, n in trail]


@pytest.fixture(scope="module")
def helsinki(catalogue):
    from shapely.geometry import box

    from stations_generator import elements_to_candidates, parse_play_window
    from stations_generator.osm.extracts import read_points

    elements = read_points(HELSINKI, catalogue.keeps)
    found = elements_to_candidates(elements, catalogue, parse_play_window("7am-7pm", "sat,sun"))
    return box(*found.total_bounds).buffer(0.001), found


@pytest.mark.parametrize("game_size", ["S", "M", "L"])
def test_sioux_falls_every_game_size(sioux_area, sioux_candidates, game_size):
    options = StationMapOptions(game_size=game_size, search_rounds=0)
    _check(sioux_area, sioux_candidates, options)


def test_stops_at_the_first_cap_above_the_band(sioux_area, sioux_candidates):
    # Close spacing rules put Sioux Falls above the S band (30-100) from cap 1: one
    # greedy instead of twelve, and the nearest miss is that cap.
    options = StationMapOptions(
        game_size="S", min_spacing_m=100.0, cluster_gap_m=400.0, search_rounds=0
    )
    chosen, trail = _check(sioux_area, sioux_candidates, options)
    assert chosen == 1
    assert len(trail) == 1 and trail[0] > STATION_BANDS["S"][1]


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,  # the same real subsets every run
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    which=st.sampled_from(["sioux", "helsinki"]),
    frac=st.floats(0.1, 1.0),
    seed=st.integers(0, 2**16),
    spacing=st.floats(50, 500),
    gap_extra=st.floats(0, 1500),
    radius=st.one_of(st.none(), st.floats(0, 2000)),
    game_size=st.sampled_from(["S", "M", "L"]),
    strict=st.booleans(),
)
def test_sweep_equals_full_sweep_on_real_subsets(
    sioux_area, sioux_candidates, helsinki, which, frac, seed, spacing, gap_extra, radius,
    game_size, strict,
):  # fmt: skip
    area, pool = (sioux_area, sioux_candidates) if which == "sioux" else helsinki
    subset = pool.sample(frac=frac, random_state=seed).reset_index(drop=True)
    assume(subset.geometry.covered_by(area).any())
    options = StationMapOptions(
        min_spacing_m=spacing,
        cluster_gap_m=spacing + gap_extra,
        cluster_radius_m=radius,
        game_size=game_size,
        strict_priority=strict,
        search_rounds=0,
    )
    _check(area, subset, options)
