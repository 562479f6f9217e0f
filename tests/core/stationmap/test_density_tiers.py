"""Wait tiers as columns (one binary search) equal the tier picked count by count."""

from __future__ import annotations

import numpy as np
import pytest

from stations_generator.core.stationmap.density import (
    DEFAULT_TIERS,
    assign_tiers,
    parse_tiers,
    tier_columns,
)


@pytest.mark.parametrize(
    "tiers",
    [
        DEFAULT_TIERS,
        parse_tiers("dense:15:5-15,moderate:5:10-30,sparse:0:20-60"),
        parse_tiers("a:3:1-2,b:3:2-3,c:0:5-6,d:10:1-1"),  # a tie: the first listed wins
        parse_tiers("only:0:7-9"),
    ],
)
def test_tier_columns_are_assign_tiers(tiers, sioux_map_counts):
    counts = np.concatenate([sioux_map_counts, np.arange(0, 40)])
    names, low, high = tier_columns(counts, tiers)
    picked = assign_tiers(counts, tiers)
    assert names.dtype == object and low.dtype == high.dtype == np.int64
    assert names.tolist() == [t.name for t in picked]
    assert low.tolist() == [t.wait_min for t in picked]
    assert high.tolist() == [t.wait_max for t in picked]


@pytest.fixture(scope="module")
def sioux_map_counts(sioux_area, sioux_data, catalogue):
    """The real nearby counts of the Sioux Falls candidates."""
    from stations_generator import parse_play_window
    from stations_generator.core.stationmap.build import build_station_map
    from stations_generator.core.stationmap.candidates import candidate_table

    table = candidate_table(sioux_data.elements, catalogue, parse_play_window("7am-7pm", "sat,sun"))
    counts = build_station_map(sioux_area, table).candidate_table["nearby_count"]
    assert counts.max() > 15 and counts.min() < 5  # every default tier is met
    return counts
