"""The hider's cards by the JLTG.EU house rules, on the shipped ``jltg-eu`` card file."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stations_generator.core.referee.cards import HAND_LIMIT, CardTable, card_id, new_table
from stations_generator.core.referee.violations import RuleViolation
from stations_generator.formats.cardfile import read_card_file

T0 = datetime(2026, 7, 10, 10, 0, tzinfo=UTC)
SHIPPED = read_card_file("jltg-eu").cards
FOG = "curse-of-the-impenetrable-fog"
CLIMATE = "curse-of-climate-change"  # discard at least S 5 M 10 L 15 minutes; blocks transit
TROLL = "curse-of-the-bridge-troll"  # blocks curses and questions
D1 = "discard-1-draw-2"


def _at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def _catalogue(**counts: int):
    """The shipped catalogue with some counts raised (ids with "_" for "-")."""
    out = dict(SHIPPED)
    for key, n in counts.items():
        cid = key.replace("_", "-")
        out[cid] = replace(out[cid], count=n)
    return out


def _table(hand=(), size="L", **counts) -> CardTable:
    return new_table(_catalogue(**counts), size, hand=hand)


def _total(t: CardTable) -> Counter:
    return Counter({cid: c.count for cid, c in t.catalogue.items() if c.count})


# ---- ids ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cid"),
    [
        ("Curse Of The Bridge Troll", "curse-of-the-bridge-troll"),
        ("Curse Of The Gambler’s Feet", "curse-of-the-gamblers-feet"),
        ("Curse Of The Gambler's Feet", "curse-of-the-gamblers-feet"),
        ("Discard 1, Draw 2", "discard-1-draw-2"),
        ("Veto Question or 15 Minute Time Bonus", "veto-question-or-15-minute-time-bonus"),
        ("4’33“ Time Bonus", "433-time-bonus"),
        ("Curse Of The 5-minütige Verspätung", "curse-of-the-5-minutige-verspatung"),
        ("Curse of the Wurst-Käse Scenario", "curse-of-the-wurst-kase-scenario"),
    ],
)
def test_card_id_is_the_contract_s_slug(name, cid):
    assert card_id(name) == cid


def test_shipped_ids_are_slugs_of_names_except_named_time_bonuses():
    for cid, card in SHIPPED.items():
        assert cid == card.id
        if card.kind != "time-bonus":
            assert cid == card_id(card.name)
    assert {"time-bonus-5", "time-bonus-10-percent", "time-bonus-4-33"} <= set(SHIPPED)


# ---- the four collections ---------------------------------------------------------------


def test_a_new_table_holds_every_copy_once_and_excluded_cards_apart():
    setup = read_card_file("jltg-eu").excluded("germany-2026-07")
    t = new_table(SHIPPED, "L", hand=[FOG], excluded=setup)
    assert t.counts() == _total(t)
    assert Counter(t.excluded) == Counter(setup) and t.discard_pile == ()
    assert not set(setup) & set(t.deck) - {"veto-question", "time-bonus-60"}
    assert t.hand == (FOG,) and t.deck.count(FOG) == SHIPPED[FOG].count - 1


def test_a_new_table_refuses_more_copies_than_the_count():
    with pytest.raises(ValueError, match="no copy of 'curse-of-the-bridge-troll'"):
        new_table(SHIPPED, "L", hand=[TROLL], excluded=[TROLL])
    with pytest.raises(ValueError, match="not in the card file"):
        new_table(SHIPPED, "L", hand=["no-such-card"])
    with pytest.raises(ValueError, match="size"):
        new_table(SHIPPED, "XL")


# ---- Card Mechanics: draw x, pick y -------------------------------------------------------


def test_a_reward_is_drawn_then_picked_and_the_rest_discarded():
    t = _table().reward(3, 1, "q1")
    t = t.draw([TROLL, CLIMATE, "time-bonus-5"], _at(1))
    assert t.drawn is not None and t.counts() == _total(t)
    t = t.keep(["time-bonus-5"], _at(2))
    assert t.hand == ("time-bonus-5",)
    assert sorted(t.discard_pile) == sorted([TROLL, CLIMATE]) and t.rewards == ()


def test_draws_and_picks_of_the_wrong_size_are_refused():
    t = _table().reward(3, 1)
    with pytest.raises(RuleViolation, match="draws 3 cards, got 2"):
        t.draw([TROLL, CLIMATE], _at(1))
    t = t.draw([TROLL, CLIMATE, FOG], _at(1))
    with pytest.raises(RuleViolation, match="pick 1"):
        t.keep([TROLL, CLIMATE], _at(2))
    with pytest.raises(RuleViolation, match="not among the cards drawn"):
        t.keep(["time-bonus-5"], _at(2))


def test_no_draw_without_a_reward_and_no_second_draw_before_the_pick():
    with pytest.raises(RuleViolation, match="no reward owed"):
        _table().draw([TROLL], _at(1))
    t = _table().reward(1, 1).reward(1, 1).draw([TROLL], _at(1))
    with pytest.raises(RuleViolation, match="before picking"):
        t.draw([FOG], _at(2))
    with pytest.raises(RuleViolation, match="none drawn"):
        _table().keep([TROLL], _at(1))


def _full_hand() -> list[str]:
    return ["time-bonus-5", "time-bonus-10", "time-bonus-4-33", FOG, CLIMATE, D1]


def test_the_next_reward_waits_until_the_hand_is_back_to_the_limit():
    t = _table(hand=_full_hand()).reward(1, 1).reward(1, 1)
    t = t.draw([TROLL], _at(1)).keep([TROLL], _at(1))
    assert len(t.hand) == HAND_LIMIT + 1 and t.over_limit
    with pytest.raises(RuleViolation, match="hand limit"):
        t.draw(["time-bonus-60"], _at(2))
    t = t.discard([TROLL], _at(3))
    t = t.draw(["time-bonus-60"], _at(4)).keep(["time-bonus-60"], _at(4))
    assert len(t.hand) == HAND_LIMIT + 1


def test_a_draw_power_up_in_step_3_is_part_of_the_same_sequence():
    t = _table(hand=_full_hand()).reward(1, 1).reward(1, 1)
    t = t.draw([TROLL], _at(1)).keep([TROLL], _at(1))
    t = t.play(D1, _at(2), discards=[TROLL], draws=["move", "nothing"])
    assert "move" in t.hand and D1 in t.discard_pile and TROLL in t.discard_pile
    assert len(t.hand) == HAND_LIMIT + 1  # discard 1, draw 2, this 1 discarded


def test_an_expansion_is_effective_at_once_during_step_3():
    hand = [*_full_hand()[:5], "draw-1-expand-1"]
    t = _table(hand=hand).reward(1, 1).reward(1, 1)
    t = t.draw([TROLL], _at(1)).keep([TROLL], _at(1))
    assert t.over_limit
    t = t.play("draw-1-expand-1", _at(2), draws=["move"])
    assert t.hand_limit == HAND_LIMIT + 1 and len(t.hand) == HAND_LIMIT + 1
    assert not t.over_limit
    t = t.draw(["nothing"], _at(3))  # the next reward may start
    assert t.drawn == ("nothing",)


def test_a_power_up_s_draws_may_follow_later():
    t = _table(hand=["draw-2-expand-2"]).play("draw-2-expand-2", _at(1))
    assert t.owed_draws == 2 and t.hand_limit == HAND_LIMIT + 2
    t = t.draw([TROLL, FOG], _at(2))
    assert t.owed_draws == 0 and sorted(t.hand) == sorted([TROLL, FOG])


def test_discard_n_needs_exactly_n_other_cards():
    t = _table(hand=[D1])
    with pytest.raises(RuleViolation, match="discards exactly 1"):
        t.play(D1, _at(1), discards=[], draws=[TROLL, FOG])
    t = _table(hand=["discard-2-draw-3", TROLL])
    with pytest.raises(RuleViolation, match="discards exactly 2"):
        t.play("discard-2-draw-3", _at(1), discards=[TROLL], draws=[FOG, CLIMATE, "move"])


# ---- Entropy: the deck, the discard pile, copies --------------------------------------------


def test_a_card_with_no_copy_left_is_refused():
    t = _table().reward(3, 1)
    with pytest.raises(RuleViolation, match="no copy of 'curse-of-the-bridge-troll'"):
        t.draw([TROLL, TROLL, FOG], _at(1))


def test_the_discard_pile_is_shuffled_in_only_when_the_deck_is_empty():
    t = _table().reward(2, 1).reward(1, 1)
    t = t.draw([TROLL, FOG], _at(1)).keep([FOG], _at(1))
    assert TROLL in t.discard_pile
    with pytest.raises(RuleViolation, match="only when the deck is empty"):
        t.draw([TROLL], _at(2))
    empty = replace(t, deck=())
    drawn = empty.draw([TROLL], _at(2))
    assert drawn.drawn == (TROLL,) and drawn.discard_pile == () and len(drawn.deck) == 0


def test_inappropriate_drawn_cards_are_replaced_before_the_pick():
    t = _table().reward(2, 1).draw([TROLL, FOG], _at(1))
    t = t.replace_inappropriate([TROLL], [CLIMATE], _at(1))
    assert sorted(t.drawn or ()) == sorted([FOG, CLIMATE]) and TROLL in t.discard_pile
    t = t.keep([CLIMATE], _at(2))
    with pytest.raises(RuleViolation, match="before the pick"):
        t.replace_inappropriate([CLIMATE], [FOG], _at(3))


# ---- Playing a card ---------------------------------------------------------------------------


def test_a_card_played_must_be_in_the_hand_and_time_bonuses_cannot_be_played():
    with pytest.raises(RuleViolation, match="not in the hand"):
        _table().play(TROLL, _at(1))
    with pytest.raises(RuleViolation, match="cannot be played"):
        _table(hand=["time-bonus-5"]).play("time-bonus-5", _at(1))


def test_a_played_curse_is_discarded_and_opened():
    t = _table(hand=[TROLL]).play(TROLL, _at(1))
    assert t.hand == () and TROLL in t.discard_pile
    assert t.blocks(_at(2)) == {"curses", "questions"}
    assert t.blocks(_at(61)) == frozenset()  # Large: 60 minutes
    assert t.at(_at(61)).curses == ()


def test_curses_are_refused_while_a_curse_blocking_curse_is_open_power_ups_are_not():
    hand = [TROLL, "curse-of-the-chasm", D1, "move", "nothing"]
    t = _table(hand=hand).play(TROLL, _at(0))
    with pytest.raises(RuleViolation, match="blocks further curses"):
        t.play("curse-of-the-chasm", _at(10))
    t = t.play(D1, _at(11), discards=["move"], draws=[FOG, CLIMATE])
    assert t.clear_curse(TROLL, _at(20)).play("curse-of-the-chasm", _at(21)).curses
    assert t.play("curse-of-the-chasm", _at(60)).curses  # timed out at 60


def test_a_transit_blocking_curse_blocks_curses_unless_its_page_says_otherwise():
    hand = [CLIMATE, "time-bonus-10", "time-bonus-5", TROLL]
    t = _table(hand=hand).play(CLIMATE, _at(0), paid=["time-bonus-10", "time-bonus-5"])
    assert t.blocks(_at(1)) == {"transit"}  # its page lists Transit only
    assert t.play(TROLL, _at(1)).curses
    # A card that leaves blocks_curses out takes the general rule.
    cat = _catalogue()
    cat[CLIMATE] = replace(cat[CLIMATE], blocks_curses=None)
    t = new_table(cat, "L", hand=hand).play(CLIMATE, _at(0), paid=hand[1:3])
    assert t.blocks(_at(1)) == {"transit", "curses"}
    with pytest.raises(RuleViolation, match="blocks further curses"):
        t.play(TROLL, _at(1))


def test_once_per_round_cards_are_played_once_even_duplicated():
    t = _table(hand=[FOG, FOG, "duplicate-another-card"])
    t = t.play(FOG, _at(0))
    with pytest.raises(RuleViolation, match="already played this round"):
        t.play(FOG, _at(70))
    with pytest.raises(RuleViolation, match="already played this round"):
        t.play("duplicate-another-card", _at(70), target=FOG)
    assert FOG in t.discard(["curse-of-the-impenetrable-fog"], _at(71)).discard_pile


def test_duplicate_plays_the_target_and_is_discarded_instead():
    hand = ["duplicate-another-card", TROLL, "time-bonus-10", "time-bonus-5"]
    t = _table(hand=[*hand, CLIMATE])
    t = t.play("duplicate-another-card", _at(0), target=CLIMATE, paid=hand[2:])
    assert CLIMATE in t.hand and "duplicate-another-card" in t.discard_pile
    assert [c.card_id for c in t.curses] == [CLIMATE]
    with pytest.raises(RuleViolation, match="another card in the hand"):
        _table(hand=["duplicate-another-card"]).play("duplicate-another-card", _at(0), target=TROLL)


# ---- Casting Cost -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("paid", "ok"),
    [
        (["time-bonus-10", "time-bonus-5"], True),  # 15
        (["time-bonus-10", "time-bonus-4-33"], True),  # 4'33" counts as 5
        (["time-bonus-60"], True),  # at least 15, whole cards
        (["time-bonus-10"], False),  # no making up the remaining 5 minutes
        (["time-bonus-10", "time-bonus-10-percent"], False),  # percentages do not count
        (["time-bonus-10", "veto-question-or-15-minute-time-bonus"], False),
        ([], False),
    ],
)
def test_time_bonus_casting_cost_large(paid, ok):
    hand = [CLIMATE, "time-bonus-10", "time-bonus-5", "time-bonus-4-33", "time-bonus-60"]
    hand += ["time-bonus-10-percent", "veto-question-or-15-minute-time-bonus"]
    t = _table(hand=hand)
    if ok:
        after = t.play(CLIMATE, _at(0), paid=paid)
        assert Counter(after.discard_pile) == Counter([CLIMATE, *paid])
    else:
        with pytest.raises(RuleViolation, match="casting cost"):
            t.play(CLIMATE, _at(0), paid=paid)


def test_time_bonus_cost_counts_the_game_size_s_values():
    # Medium: 10 minutes needed; the 5 minute bonus is worth 3 and so is 4'33".
    t = _table(hand=[CLIMATE, "time-bonus-5", "time-bonus-4-33"], size="M")
    with pytest.raises(RuleViolation, match="paid 6"):
        t.play(CLIMATE, _at(0), paid=["time-bonus-5", "time-bonus-4-33"])
    # Small: 5 minutes needed; 2 + 2 is short, 2 + 2 + 2 is enough.
    hand = [CLIMATE, "time-bonus-5", "time-bonus-5", "time-bonus-4-33"]
    small = _table(hand=hand, size="S", time_bonus_5=2)
    with pytest.raises(RuleViolation, match="paid 4"):
        small.play(CLIMATE, _at(0), paid=["time-bonus-5", "time-bonus-4-33"])
    assert small.play(CLIMATE, _at(0), paid=hand[1:]).curses
    with pytest.raises(ValueError, match="no minutes for size M"):
        _table(hand=[CLIMATE, "time-bonus-10"], size="M").play(
            CLIMATE, _at(0), paid=["time-bonus-10"]
        )


def test_the_5_minute_monarch_wants_two_5_minute_bonuses_not_4_33():
    monarch = "curse-of-the-5-minute-monarch"
    t = _table(hand=[monarch, "time-bonus-5", "time-bonus-5", "time-bonus-4-33"], time_bonus_5=2)
    assert t.play(monarch, _at(0), paid=["time-bonus-5", "time-bonus-5"]).curses
    with pytest.raises(RuleViolation, match="casting cost"):
        t.play(monarch, _at(0), paid=["time-bonus-5", "time-bonus-4-33"])


def test_card_discard_costs():
    erection = "curse-of-the-notable-erection"  # a curse and another card
    t = _table(hand=[erection, TROLL, "move", "nothing"])
    assert t.play(erection, _at(0), paid=[TROLL, "move"]).curses
    with pytest.raises(RuleViolation, match="casting cost"):
        t.play(erection, _at(0), paid=["move", "nothing"])
    with pytest.raises(RuleViolation, match="not in the hand"):
        t.play(erection, _at(0), paid=[FOG, "move"])
    with pytest.raises(RuleViolation, match="discards no cards"):
        _table(hand=["curse-of-the-divisive-dijk", "move"]).play(
            "curse-of-the-divisive-dijk", _at(0), paid=["move"]
        )


# ---- Clearing, vetoes -------------------------------------------------------------------------


def test_clear_and_veto_need_an_open_curse():
    t = _table(hand=[TROLL]).play(TROLL, _at(0))
    assert t.clear_curse(TROLL, _at(5)).curses == ()
    with pytest.raises(RuleViolation, match="not an open curse"):
        t.clear_curse(TROLL, _at(60))  # timed out
    with pytest.raises(RuleViolation, match="not an open curse"):
        t.veto_curse(TROLL, _at(61))


def test_a_veto_clears_the_curse_and_pays_the_rules_bonus():
    t = _table(hand=[TROLL]).play(TROLL, _at(0))
    after, bonus = t.veto_curse(TROLL, _at(27))
    assert bonus == 65 and after.curses == ()
    gc = "curse-of-the-game-changer"
    with pytest.raises(RuleViolation, match="cannot be vetoed"):
        _table(hand=[gc]).play(gc, _at(0)).veto_curse(gc, _at(1))


# ---- Time bonuses at the end of the round -----------------------------------------------------


def test_time_bonus_total_by_size_percentages_not_compounding():
    hand = ["time-bonus-5", "time-bonus-4-33", "time-bonus-10-percent", "time-bonus-5-percent"]
    hand += ["veto-question-or-15-minute-time-bonus", "duplicate-another-card"]
    t = _table(hand=hand, size="M")
    # 3 + 3 + 10% and 5% of 200 + 9 + a duplicated 3.
    assert t.time_bonus_minutes(200) == pytest.approx(3 + 3 + 20 + 10 + 9 + 3)
    assert _table(hand=hand).time_bonus_minutes(0) == pytest.approx(5 + 5 + 15 + 5)
    with pytest.raises(ValueError, match="seeking_minutes"):
        t.time_bonus_minutes(-1)


def test_naive_times_are_refused():
    with pytest.raises(ValueError, match="timezone-aware"):
        _table().reward(1, 1).draw([TROLL], datetime(2026, 7, 10, 10, 0))


# ---- properties -------------------------------------------------------------------------------

_OPS = ("reward", "draw", "keep", "discard", "play", "clear", "veto", "late")


def _step(t: CardTable, data, now: datetime) -> CardTable:
    """One random event, legal or not; a RuleViolation leaves the table as it was."""
    ids = sorted(t.catalogue)
    op = data.draw(st.sampled_from(_OPS))
    pool = list(t.deck) or list(t.discard_pile) or ids
    if op == "reward":
        n = data.draw(st.integers(1, 4))
        return t.reward(n, data.draw(st.integers(1, n)), "q")
    if op == "draw":
        want = t.owed_draws or (t.rewards[0].draw if t.rewards else 1)
        return t.draw(data.draw(st.lists(st.sampled_from(pool), min_size=want, max_size=want)), now)
    if op == "keep" and t.drawn:
        return t.keep(data.draw(st.permutations(t.drawn))[: t.rewards[0].pick], now)
    hand = list(t.hand) or ids
    if op == "discard":
        return t.discard(data.draw(st.lists(st.sampled_from(hand), max_size=3)), now)
    if op == "play":
        return t.play(
            data.draw(st.sampled_from(hand)),
            now,
            discards=data.draw(st.lists(st.sampled_from(hand), max_size=3)),
            paid=data.draw(st.lists(st.sampled_from(hand), max_size=2)),
            draws=data.draw(st.lists(st.sampled_from(pool), max_size=4)),
            target=data.draw(st.one_of(st.none(), st.sampled_from(hand))),
        )
    if op in ("clear", "veto") and t.curses:
        cid = t.curses[0].card_id
        return t.clear_curse(cid, now) if op == "clear" else t.veto_curse(cid, now)[0]
    return t.at(now)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), hand=st.lists(st.sampled_from(sorted(SHIPPED)), max_size=6, unique=True))
def test_any_sequence_keeps_every_copy_and_rewards_start_within_the_limit(data, hand):
    t = new_table(SHIPPED, "L", hand=hand)
    total = t.counts()
    now = T0
    for _ in range(40):
        now += timedelta(minutes=data.draw(st.integers(0, 20)))
        before = t
        try:
            t = _step(t, data, now)
        except (RuleViolation, ValueError):
            t = before
        assert t.counts() == total
        if t.drawn is not None and before.drawn is None and not before.owed_draws:
            assert len(before.hand) <= before.hand_limit  # the last reward was completed
        assert all(c.open_at(now) for c in t.at(now).curses)
