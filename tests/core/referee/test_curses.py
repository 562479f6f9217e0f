"""Open curses by the JLTG.EU house rules: timeouts, blocks, clearing, immediate vetoes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stations_generator.core.referee import curses as cu
from stations_generator.core.referee.curses import BySize, open_curse

T0 = datetime(2026, 7, 10, 10, 0, tzinfo=UTC)
SIZES = ("S", "M", "L")


# ---- Immediate Vetoes -------------------------------------------------------------------


def test_the_rules_worked_example_large_60_minutes_27_elapsed_is_65():
    # Curse of the Unguided Tourist, Large: 90 - 27 = 63, rounded up to 65.
    assert cu.veto_bonus_minutes(60, "L", 27) == 65


@pytest.mark.parametrize(("size", "minutes"), [("S", 45), ("M", 60), ("L", 90)])
def test_the_rules_event_based_example_u_turn_costs_s45_m60_l90(size, minutes):
    # Curse of the U-Turn is event-based: no timeout, so the maximum applies at once.
    assert cu.veto_bonus_minutes(None, size, 0) == minutes


@pytest.mark.parametrize(("timeout", "top"), [(30, 45), (45, 60), (60, 90), (10, 15), (20, 30)])
def test_veto_maximum_is_one_and_a_half_timeouts_rounded_down_to_15(timeout, top):
    assert cu.veto_max_minutes(timeout, "M") == top


@given(
    timeout=st.one_of(st.none(), st.integers(1, 240)),
    size=st.sampled_from(SIZES),
    elapsed=st.floats(0, 400, allow_nan=False),
)
def test_veto_bonus_is_a_multiple_of_5_within_5_of_max_minus_elapsed(timeout, size, elapsed):
    top = cu.veto_max_minutes(timeout, size)
    bonus = cu.veto_bonus_minutes(timeout, size, elapsed)
    assert bonus % 5 == 0
    assert bonus >= 0
    assert max(0.0, top - elapsed) <= bonus + 1e-6 < max(0.0, top - elapsed) + 5 + 1e-6


@given(st.floats(0, 200, allow_nan=False), st.floats(0, 200, allow_nan=False))
def test_veto_bonus_never_grows_with_time(a, b):
    early, late = sorted((a, b))
    assert cu.veto_bonus_minutes(60, "L", early) >= cu.veto_bonus_minutes(60, "L", late)


def test_a_card_s_printed_veto_wins_over_the_formula():
    # Curse of the Long Shot prints S 18 M 27 L 45 with no timeout.
    assert cu.veto_bonus_minutes(None, "L", 0, max_min=45) == 45
    c = open_curse("x", T0, "L", timeout="none", veto=BySize(18, 27, 45))
    assert c.veto_bonus(T0 + timedelta(minutes=12), "L") == 35


def test_veto_none_means_no_veto():
    c = open_curse("curse-of-the-game-changer", T0, "L", timeout="round", veto="none")
    assert c.veto_max_min is None


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_a_bad_elapsed_time_is_refused(bad):
    with pytest.raises(ValueError, match="elapsed_min"):
        cu.veto_bonus_minutes(60, "L", bad)


def test_a_bad_size_is_refused():
    with pytest.raises(ValueError, match="size"):
        cu.veto_max_minutes(None, "XL")


# ---- Curse Timeouts ---------------------------------------------------------------------


@pytest.mark.parametrize(("size", "minutes"), [("S", 30), ("M", 45), ("L", 60)])
def test_the_general_timeout_is_s30_m45_l60(size, minutes):
    assert cu.timeout_minutes(None, size) == minutes


def test_a_card_s_timeout_wins_and_round_or_event_have_none():
    # Curse of the Plagued Word prints S 30 M 40 L 60.
    assert cu.timeout_minutes(BySize(30, 40, 60), "M") == 40
    for kind in cu.TIMEOUT_KINDS:
        assert cu.timeout_minutes(kind, "L") is None
    with pytest.raises(ValueError, match="timeout"):
        cu.timeout_minutes("forever", "L")


@given(st.integers(1, 300), st.integers(0, 600))
def test_a_curse_clears_itself_exactly_at_its_timeout(timeout, after):
    c = open_curse("x", T0, "L", timeout=BySize(timeout, timeout, timeout), blocks=["questions"])
    when = T0 + timedelta(minutes=after)
    assert c.open_at(when) == (after < timeout)
    assert (cu.blocks_at([c], when) == frozenset()) == (after >= timeout)


def test_a_curse_without_timeout_stays_open():
    c = open_curse("x", T0, "L", timeout="event", blocks=["transit"])
    assert c.ends_at is None
    assert c.open_at(T0 + timedelta(days=2))


# ---- Blocking ---------------------------------------------------------------------------


@given(st.sets(st.sampled_from(("questions", "transit"))))
def test_blocking_questions_or_transit_blocks_curses_by_the_general_rule(blocks):
    out = cu.effective_blocks(blocks)
    assert ("curses" in out) == bool(blocks)
    assert out - {"curses"} == blocks


def test_a_card_page_takes_precedence_over_the_general_rule():
    assert cu.effective_blocks(["questions"], blocks_curses=False) == {"questions"}
    assert cu.effective_blocks([], blocks_curses=True) == {"curses"}
    # Curse of the Seabird: blocks curses only.
    assert cu.effective_blocks(["curses"]) == {"curses"}


def test_blocks_are_the_union_of_the_open_curses():
    a = open_curse("a", T0, "S", blocks=["transit"])  # 30 min
    b = open_curse("b", T0, "S", timeout=BySize(60, 60, 60), blocks=[])
    c = open_curse("c", T0, "S", timeout="event", blocks=["questions"], blocks_curses=False)
    assert cu.blocks_at([a, b, c], T0) == {"transit", "curses", "questions"}
    assert cu.blocks_at([a, b, c], T0 + timedelta(minutes=30)) == {"questions"}


# ---- Clearing ---------------------------------------------------------------------------


def test_close_removes_the_oldest_open_copy_only():
    a1 = open_curse("a", T0, "L")
    a2 = open_curse("a", T0 + timedelta(minutes=5), "L")
    assert cu.close([a1, a2], "a") == (a2,)
    assert cu.close([a1], "b") is None
