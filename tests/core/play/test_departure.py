"""The departure roll: exact probabilities, closed-form expected waits, seeded rolls."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stations_generator.core.play.calibration import Calibration, TierSummary
from stations_generator.core.play.departure import (
    DEFAULT_TABLE,
    DEFAULT_TABLE_SPEC,
    DepartureTable,
    expected_wait,
    parse_table,
    roll_departure,
    sum_distribution,
)
from stations_generator.core.play.routes import Station
from stations_generator.core.play.station_roll import (
    DAY_S,
    Cooldown,
    roll_at_station,
    roll_cooldown,
)
from stations_generator.core.play.tier_advice import suggested_tiers, tiers_spec
from stations_generator.core.stationmap.density import DEFAULT_TIERS


def test_default_table_outcome_probabilities_are_exact():
    probs = DEFAULT_TABLE.outcome_probabilities()
    assert probs == {
        "leave": Fraction(1, 12),
        "min": Fraction(1, 3),
        "max": Fraction(1, 2),
        "miss": Fraction(1, 12),
    }
    assert sum(probs.values()) == 1
    assert DEFAULT_TABLE.miss_probability() == Fraction(1, 12)
    assert DEFAULT_TABLE.expected_rolls() == Fraction(12, 11)


def test_two_dice_distribution():
    dist = sum_distribution(2, 6)
    assert list(dist) == list(range(2, 13))
    assert dist[7] == Fraction(1, 6)
    assert dist[2] == dist[12] == Fraction(1, 36)
    assert sum(dist.values()) == 1
    # Three dice: 27 of the 216 outcomes sum to 10.
    assert sum_distribution(3, 6)[10] == Fraction(27, 216)


@given(
    wait_min=st.integers(min_value=0, max_value=120),
    extra=st.integers(min_value=0, max_value=120),
)
def test_expected_wait_matches_the_closed_form(wait_min, extra):
    wait_max = wait_min + extra
    assert expected_wait(wait_min, wait_max) == Fraction(4 * wait_min + 7 * wait_max, 11)


def test_expected_wait_of_the_peer_tiers():
    assert expected_wait(5, 15) == Fraction(125, 11)  # dense: 11.36 min
    assert expected_wait(10, 30) == Fraction(250, 11)  # moderate
    assert expected_wait(20, 60) == Fraction(500, 11)  # sparse
    assert DEFAULT_TABLE.wait_coefficients() == (Fraction(4, 11), Fraction(7, 11))


def test_closed_form_agrees_with_the_series_over_misses():
    # Sum the expectation over runs of k misses exactly, k = 0..59: the
    # partial sums approach the closed form from below, within q^60 · bound.
    lo, hi = 10, 30
    probs = {row.outcome.key: p for row, p in DEFAULT_TABLE.row_probabilities()}
    q = probs["miss"]
    final = probs["min"] * lo + probs["max"] * hi  # waits of the ending roll
    partial = Fraction(0)
    for k in range(60):
        # k misses (k·hi minutes), then a roll that ends the departure.
        partial += q**k * ((1 - q) * k * hi + final)
    closed = expected_wait(lo, hi)
    assert partial < closed
    assert closed - partial < Fraction(1, 10**50)


def test_seeded_rolls_are_reproducible():
    def run(seed):
        rng = random.Random(seed)
        return [roll_departure(5, 15, rng) for _ in range(50)]

    first, again, other = run(2024), run(2024), run(2025)
    assert first == again
    assert [d.rolls for d in first] != [d.rolls for d in other]


def test_rolls_follow_the_table():
    rng = random.Random(7)
    departures = [roll_departure(10, 30, rng) for _ in range(2000)]
    for dep in departures:
        *misses, final = dep.rolls
        assert all(r.outcome.key == "miss" and r.wait_minutes == 30 for r in misses)
        assert not final.outcome.reroll
        for r in dep.rolls:
            assert len(r.dice) == 2 and all(1 <= d <= 6 for d in r.dice)
            assert r.outcome == DEFAULT_TABLE.outcome_for(r.total)
        assert dep.wait_minutes == sum(r.wait_minutes for r in dep.rolls)
        assert dep.misses == len(misses)
    # Misses can repeat: with 2000 departures, some miss twice or more.
    assert max(d.misses for d in departures) >= 2
    # A seeded sample agrees with the exact expectation (22.7 min) loosely.
    mean = sum(d.wait_minutes for d in departures) / len(departures)
    assert abs(mean - float(expected_wait(10, 30))) < 1.5


def test_system_random_rolls_work():
    dep = roll_departure(5, 15, random.SystemRandom())
    assert dep.wait_minutes in {0, 5, 15} or dep.misses > 0
    assert not dep.final.outcome.reroll


def test_custom_table_without_misses():
    table = parse_table("2-4:leave,5-9:min,10-12:max")
    assert table.outcome_probabilities() == {
        "leave": Fraction(1, 6),
        "min": Fraction(2, 3),
        "max": Fraction(1, 6),
    }
    assert table.expected_wait(6, 12) == Fraction(2, 3) * 6 + Fraction(1, 6) * 12
    assert table.expected_rolls() == 1
    assert table.spec == "2-4:leave,5-9:min,10-12:max"


def test_custom_table_one_die_with_misses():
    # 1d6: 1 leave, 2-3 lower bound, 4-5 upper bound, 6 missed.
    table = parse_table("1:leave,2-3:min,4-5:max,6:miss", dice=1, sides=6)
    assert table.miss_probability() == Fraction(1, 6)
    # (2/6·min + 2/6·max + 1/6·max) / (5/6) = (2·min + 3·max) / 5
    assert table.expected_wait(10, 20) == Fraction(2 * 10 + 3 * 20, 5)
    rng = random.Random(3)
    for _ in range(200):
        dep = roll_departure(10, 20, rng, table)
        assert all(len(r.dice) == 1 for r in dep.rolls)
        assert dep.final.outcome.key in {"leave", "min", "max"}


def test_default_spec_round_trips():
    assert parse_table(DEFAULT_TABLE_SPEC) == DEFAULT_TABLE
    assert DEFAULT_TABLE.spec == DEFAULT_TABLE_SPEC


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("2-3:leave,5-12:max", "missing"),
        ("2-6:leave,6-12:max", "covered twice"),
        ("2-3:leave,4-11:max", "last row ends at 11"),
        ("2-12:miss", "every total re-rolls"),
        ("2-3:leave,4-12:wait", "unknown outcome"),
        ("two-three:leave", "LOW-HIGH:OUTCOME"),
    ],
)
def test_invalid_tables_are_rejected(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_table(spec)


def test_invalid_wait_range_is_rejected():
    with pytest.raises(ValueError, match="0 ≤ min ≤ max"):
        roll_departure(15, 5, random.Random(0))


def test_table_is_data_not_code():
    # Same breakpoints, other outcomes: the 11-12 row no longer re-rolls.
    table = DepartureTable(
        tuple(
            type(row)(row.low, row.high, parse_table("2-12:max").rows[0].outcome)
            if row.outcome.reroll
            else row
            for row in DEFAULT_TABLE.rows
        )
    )
    assert table.miss_probability() == 0
    assert table.expected_wait(5, 15) == Fraction(1, 3) * 5 + Fraction(7, 12) * 15


# --------------------------------------------------------------------------- a roll at a station


def _station(wait_min: int = 10, wait_max: int = 30):
    return Station("node/1", "Halt", 9.5, 47.1, wait_min, wait_max, "moderate")


def test_cooldown_of_a_drive_that_arrived_before_midnight_ends_today():
    # 13:50-14:02, rolled at 14:05: 12 minutes' drive, a 24-minute cooldown to 14:26.
    cooldown = roll_cooldown(14 * 3600 + 5 * 60, 13 * 3600 + 50 * 60, 14 * 3600 + 2 * 60)
    assert cooldown.drive_s == 12 * 60
    assert cooldown.cooldown_s == 24 * 60
    assert cooldown.ends_s == 14 * 3600 + 26 * 60


def test_cooldown_of_yesterdays_arrival_counts_back_a_day():
    # Arrived 23:52 (after "now", 00:10): that was yesterday, so the cooldown ended at 00:16.
    cooldown = roll_cooldown(10 * 60, 23 * 3600 + 40 * 60, 23 * 3600 + 52 * 60)
    assert cooldown.ends_s == 23 * 3600 + 52 * 60 - DAY_S + 24 * 60
    assert cooldown.ends_s == 16 * 60


def test_roll_waits_for_the_cooldown_and_times_the_ride_request():
    at = 14 * 3600
    cooldown = Cooldown(600, 1200, at + 1200)
    result = roll_at_station(
        _station(), at, DEFAULT_TABLE, random.Random(5), cooldown=cooldown, pickup_eta_min=8
    )
    again = roll_departure(10, 30, random.Random(5), DEFAULT_TABLE)
    assert result.departure == again  # the dice are the only randomness
    assert result.roll_at_s == at + 1200
    assert result.leave_s == at + 1200 + float(again.wait_minutes) * 60
    assert result.expected_wait == expected_wait(10, 30)
    assert result.request is not None
    assert result.request.request_s == result.leave_s - 8 * 60


def test_suggested_tiers_never_let_a_sparser_tier_wait_less():
    def tier(name, wait_min, wait_max, suggestion):
        return TierSummary(
            name, 10, wait_min, wait_max, 600.0, 0.0, 0.0, 0.0, 0.5, "ok", suggestion
        )

    cal = Calibration(
        pairs=[],
        tiers=[tier("sparse", 20, 60, (8, 24)), tier("dense", 5, 15, (10, 30))],
        skipped=0,
        cooldown_factor=2.0,
        target_factor=3.0,
        drive_range=(2.0, 4.0),
    )
    proposal = suggested_tiers(cal, DEFAULT_TIERS)
    assert [(t.tier, rng) for t, rng in proposal] == [("dense", (10, 30)), ("sparse", (10, 30))]
    spec = tiers_spec(proposal, DEFAULT_TIERS)
    assert spec is not None and "dense:" in spec and ":10-30" in spec
    assert tiers_spec(proposal, None) is None
