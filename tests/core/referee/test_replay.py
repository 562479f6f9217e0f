"""Replaying a game log: questions, their cost and legality, power-ups, cards, violations.

Each test is one rule of the JLTG.EU house rules (the section in its docstring).
"""

from __future__ import annotations

import pytest
from support.referee_events import (
    SEEKER,
    answer,
    ask,
    at,
    ev,
    matching,
    photo,
    radius,
    run,
    start,
    table,
    thermometer,
)

from stations_generator.core.questions.geometry import TentaclesQuestion
from stations_generator.core.referee import rule_names
from stations_generator.core.referee.events import Event
from stations_generator.core.referee.replay import Settings
from stations_generator.core.referee.violations import RuleViolation


def _violation(events, rule: str, size: str = "S", **kw) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        run(events, size, **kw)
    assert info.value.rule == rule, str(info.value)
    return info.value


# --- the log itself -----------------------------------------------------------------------


def test_events_out_of_time_order_are_refused():
    exc = _violation([*start(), ask("09:50", "q1", radius())], rule_names.ORDER)
    assert "event 3" in str(exc) and "before event 2" in str(exc)


def test_an_event_out_of_order_after_the_state_time_is_still_refused():
    events = [*start(), ev("11:00", "break-started"), ev("10:30", "break-ended")]
    _violation(events, rule_names.ORDER, when="10:10")


def test_events_need_a_time_zone_and_a_known_kind():
    with pytest.raises(ValueError, match="time zone"):
        Event(at=at("10:00").replace(tzinfo=None), kind="hider-found")
    with pytest.raises(ValueError, match="unknown event"):
        Event(at=at("10:00"), kind="hider-lost")
    with pytest.raises(ValueError, match="size"):
        Settings("XL")


def test_hiding_and_seeking_start_once():
    _violation([*start(), ev("10:05", "seeking-started")], rule_names.GAME_TIME)
    _violation([*start(), ev("10:05", "hiding-started")], rule_names.HIDING)


# --- asking and answering -----------------------------------------------------------------


def test_answering_a_question_never_asked_is_refused():
    exc = _violation([*start(), answer("10:05", "q9", "within")], rule_names.ASKED)
    assert "never asked" in str(exc)


def test_answering_twice_is_refused():
    events = [*start(), ask("10:05", "q1", radius()), answer("10:06", "q1", "within")]
    _violation([*events, answer("10:07", "q1", "within")], rule_names.ASKED)


def test_one_question_at_a_time():
    """Time to answer: "They cannot start the timer on three questions in parallel"."""
    events = [*start(), ask("10:05", "q1", radius()), ask("10:06", "q2", matching())]
    exc = _violation(events, rule_names.ONE_QUESTION)
    assert "q1" in str(exc)


def test_no_question_before_seeking():
    _violation([ev("09:30", "hiding-started"), ask("09:40", "q1", radius())], rule_names.GAME_TIME)


def test_answers_must_fit_the_question():
    events = [*start(), ask("10:05", "q1", radius()), answer("10:06", "q1", "hotter")]
    exc = _violation(events, rule_names.ANSWERS)
    assert "within" in str(exc)


def test_repeats_cost_cumulatively():
    """Repeating Questions: the n-th asking draws and picks n times the base."""
    events = [*start()]
    for k, t in enumerate(("10:05", "10:10", "10:15"), 1):
        events += [ask(t, f"q{k}", radius()), answer(t, f"q{k}", "within")]
    s = run(events, table=table())
    assert [(r.times_asked, r.draw, r.pick) for r in s.ledger] == [(1, 2, 1), (2, 4, 2), (3, 6, 3)]
    assert s.cards.pending_rewards == 1 + 2 + 3  # each a Draw 2, Pick 1 in sequence
    again = next(c for c in s.next_costs if c.label == "again: Radius 1 km")
    assert (again.draw, again.pick) == (8, 4)


def test_custom_radii_repeat_each_other():
    """Radius: every custom radius is the same question for the repeat cost."""
    events = [*start(), ask("10:05", "q1", radius(3)), answer("10:06", "q1", "within")]
    events += [ask("10:10", "q2", radius(7)), answer("10:11", "q2", "within")]
    assert run(events).ledger[1].times_asked == 2


# --- thermometers -------------------------------------------------------------------------


def test_a_thermometer_counts_as_asked_when_it_ends():
    """Thermometer Mechanics: other questions may be asked while it runs."""
    events = [*start(), ev("10:05", "thermometer-started", id="t1")]
    events += [ask("10:06", "q1", radius()), answer("10:07", "q1", "within")]
    s = run(events)
    assert s.thermometer["id"] == "t1" and s.can_ask
    s = run([*events, ask("10:20", "t1", thermometer()), answer("10:21", "t1", "hotter")])
    assert s.thermometer is None and [r.id for r in s.ledger] == ["q1", "t1"]


def test_one_thermometer_at_a_time():
    events = [*start(), ev("10:05", "thermometer-started", id="t1")]
    _violation([*events, ev("10:06", "thermometer-started", id="t2")], rule_names.THERMOMETER)
    _violation([*events, ask("10:07", "t2", thermometer())], rule_names.THERMOMETER)
    s = run([*events, ev("10:08", "thermometer-cancelled", id="t1")])
    assert s.thermometer is None and not s.ledger


def test_a_thermometer_starts_at_lunch_but_ends_after_it():
    """Lunch Time: a thermometer may be started during lunch (it is not asked yet)."""
    events = [*start("L", "09:00", "10:00"), ev("12:00", "lunch-started")]
    events.append(ev("12:10", "thermometer-started", id="t1"))
    assert run(events, "L").thermometer is not None
    _violation([*events, ask("12:20", "t1", thermometer())], rule_names.LUNCH, "L")
    assert run([*events, ask("12:31", "t1", thermometer())], "L").open_question.id == "t1"


def test_thermometer_distances_by_size():
    """Thermometer: 15 km only in M and L games, 75 km only in L."""
    events = [*start("M", "09:00", "10:00"), ask("10:05", "q1", thermometer(75000.0))]
    exc = _violation(events, rule_names.THERMOMETER_DISTANCE, "M")
    assert "15 km" in str(exc)
    assert run(events, "L").ledger[0].label == "Thermometer 75 km"


def test_a_thermometer_ended_too_early_is_asked_with_a_warning():
    events = [*start(), ask("10:05", "q1", thermometer(5000.0))]
    assert any("travelled only" in w for w in run(events).warnings)


def test_tentacles_radius_by_subject():
    """Tentacles: you cannot use a 2 km tentacle for a 25 km question."""
    wrong = TentaclesQuestion(SEEKER, 2000.0, "zoo", ())
    _violation([*start(), ask("10:05", "q1", wrong)], rule_names.TENTACLES)


# --- photos -------------------------------------------------------------------------------


def test_large_game_photo_embargo_runs_from_seeking_started():
    """Large Games: no photo questions in the first 2 h 30, measured from the seekers' start."""
    events = [*start("L", "07:00", "09:00")]
    exc = _violation([*events, ask("11:20", "q1", photo())], rule_names.PHOTOS, "L")
    assert "140 min" in str(exc)
    assert run([*events, ask("11:30", "q1", photo())], "L").open_question.id == "q1"


def test_photo_embargo_only_in_large_games():
    assert run([*start("M", "09:00", "10:00"), ask("10:05", "q1", photo())], "M").open_question


def test_photo_kinds_by_size():
    """Photos: e.g. the park photo only in Medium and Large games."""
    _violation([*start(), ask("10:05", "q1", photo("park"))], rule_names.PHOTOS)


def test_powerful_photos_cost_more_in_the_end_game():
    """Photos: Draw 3, Pick 1 in the long game, Draw 3, Pick 2 in the end game."""
    events = [
        *start(),
        ask("10:05", "q1", photo("tallest_structure")),
        answer("10:06", "q1", "sent"),
    ]
    assert (run(events).ledger[0].draw, run(events).ledger[0].pick) == (3, 1)
    events += [ev("10:30", "end-game-started"), ask("10:31", "q2", photo("tallest_structure"))]
    row = run(events).ledger[1]
    assert (row.times_asked, row.draw, row.pick) == (2, 6, 4)


# --- power-ups instead of an answer -------------------------------------------------------

HAND = (
    "veto-question",
    "double-or-nothing",
    "randomize-question",
    "veto-question-or-15-minute-time-bonus",
)


def test_veto_question_no_reward_and_never_again():
    """Veto Question: no answer, no reward; the question can no longer be asked."""
    events = [*start(), ask("10:05", "q1", radius()), answer("10:06", "q1", card="veto-question")]
    s = run(events, table=table(hand=HAND))
    assert s.ledger[0].reward == "vetoed: none" and s.cards.pending_rewards == 0
    assert "veto-question" not in s.cards.hand
    assert s.vetoed == ("Radius 1 km",)
    _violation([*events, ask("10:10", "q2", radius())], rule_names.VETO, table=table(hand=HAND))
    assert run([*events, ask("10:10", "q2", radius(2))], table=table(hand=HAND)).open_question


def test_veto_or_time_bonus_vetoes_too():
    card = "veto-question-or-15-minute-time-bonus"
    events = [*start(), ask("10:05", "q1", matching()), answer("10:06", "q1", card=card)]
    _violation([*events, ask("10:10", "q2", matching())], rule_names.VETO, table=table(hand=HAND))


def test_double_or_nothing_doubles_the_next_asking():
    """Double or Nothing: no reward; if asked again the cost is doubled."""
    events = [
        *start(),
        ask("10:05", "q1", radius()),
        answer("10:06", "q1", card="double-or-nothing"),
    ]
    events += [ask("10:10", "q2", radius()), answer("10:11", "q2", "within")]
    s = run(events, table=table(hand=HAND))
    assert s.ledger[0].reward == "double or nothing: none"
    assert (s.ledger[1].times_asked, s.ledger[1].draw, s.ledger[1].pick) == (2, 8, 4)
    assert s.cards.pending_rewards == 4


def test_randomize_question_replaces_it_and_restarts_the_timing():
    """Randomize Question: the original is not asked; timing counts from the card."""
    new = matching("museum")
    events = [
        *start(),
        ask("10:05", "q1", matching()),
        answer("10:09", "q1", card="randomize-question", question=new),
    ]
    s = run(events, table=table(hand=HAND))
    row = s.open_question
    assert row.label == "Matching nearest museum" and row.deadline == at("10:14")
    assert [r.label for r in s.ledger] == ["Matching nearest museum"]
    # The library question was not asked: asking it later costs the base again.
    later = [*events, answer("10:12", "q1", "same"), ask("10:20", "q2", matching())]
    assert run(later, table=table(hand=HAND)).ledger[-1].times_asked == 1


def test_randomize_needs_another_question_of_the_same_category():
    events = [*start(), ask("10:05", "q1", matching())]
    same = answer("10:06", "q1", card="randomize-question", question=matching())
    _violation([*events, same], rule_names.RANDOMIZE, table=table(hand=HAND))
    other = answer("10:06", "q1", card="randomize-question", question=radius())
    _violation([*events, other], rule_names.RANDOMIZE, table=table(hand=HAND))


def test_a_power_up_not_in_the_hand_is_refused():
    events = [*start(), ask("10:05", "q1", radius()), answer("10:06", "q1", card="veto-question")]
    with pytest.raises(RuleViolation, match="not in the hand"):
        run(events, table=table())


# --- cards and curses ---------------------------------------------------------------------

TROLL = "curse-of-the-bridge-troll"


def test_a_curse_blocks_questions_until_it_times_out():
    """Curses: Blocking — questions blocked while the curse is open; S timeout 30 min."""
    events = [*start(), ev("10:05", "curse-cast", card=TROLL)]
    s = run(events, when="10:10", table=table(hand=(TROLL,)))
    assert not s.can_ask and s.cards.curses[0]["times_out_at"] == at("10:35")
    assert s.cards.curses[0]["veto_min"] is not None
    _violation(
        [*events, ask("10:20", "q1", radius())],
        rule_names.BLOCKED_QUESTIONS,
        table=table(hand=(TROLL,)),
    )
    assert run([*events, ask("10:36", "q1", radius())], table=table(hand=(TROLL,))).open_question


def test_a_cleared_curse_unblocks_questions():
    events = [
        *start(),
        ev("10:05", "curse-cast", card=TROLL),
        ev("10:15", "curse-cleared", card=TROLL),
    ]
    assert run([*events, ask("10:16", "q1", radius())], table=table(hand=(TROLL,))).open_question


def test_no_curse_while_curses_are_blocked():
    """Playing a card: a blocked card type cannot be played."""
    hand = (TROLL, "curse-of-the-cairn")
    events = [
        *start(),
        ev("10:05", "curse-cast", card=TROLL),
        ev("10:06", "curse-cast", card="curse-of-the-cairn"),
    ]
    with pytest.raises(RuleViolation, match="block"):
        run(events, table=table(hand=hand))


def test_a_vetoed_curse_gives_the_hider_a_bonus():
    events = [
        *start(),
        ev("10:05", "curse-cast", card=TROLL),
        ev("10:10", "curse-vetoed", card=TROLL),
    ]
    events.append(ev("10:30", "hider-found"))
    s = run(events, table=table(hand=(TROLL,)))
    assert s.clock.bonus_min > 0 and s.clock.total_min == s.clock.game_min + s.clock.bonus_min


def test_cards_drawn_and_kept_for_a_reward():
    """Card Mechanics: draw x, pick y after the answer."""
    events = [*start(), ask("10:05", "q1", radius()), answer("10:06", "q1", "within")]
    events += [ev("10:07", "cards-drawn", cards=("time-bonus-5", "move"))]
    events += [ev("10:08", "cards-kept", cards=("time-bonus-5",))]
    s = run(events, table=table())
    assert s.cards.hand == ("time-bonus-5",) and s.cards.pending_rewards == 0


def test_card_events_need_a_card_table():
    _violation([*start(), ev("10:05", "cards-drawn", cards=("move",))], rule_names.CARDS)


def test_answer_cards_are_not_played_on_their_own():
    events = [*start(), ev("10:05", "card-played", card="veto-question")]
    _violation(events, rule_names.CARDS, table=table(hand=HAND))


def test_cards_may_be_drawn_before_the_answer():
    """Reward: the cards may be picked any time after the question is asked."""
    events = [*start(), ask("10:05", "q1", radius())]
    events += [ev("10:06", "cards-drawn", cards=("time-bonus-5", "move"))]
    events += [ev("10:07", "cards-kept", cards=("move",)), answer("10:08", "q1", "within")]
    s = run(events, table=table())
    assert s.cards.hand == ("move",) and s.cards.pending_rewards == 0
    assert s.ledger[0].reward == "earned" and not s.warnings


def test_drawing_early_then_answering_late_is_warned():
    events = [*start(), ask("10:05", "q1", radius())]
    events += [ev("10:06", "cards-drawn", cards=("time-bonus-5", "move"))]
    events += [answer("10:20", "q1", "within")]
    s = run(events, table=table())
    assert s.ledger[0].reward == "late: none"
    assert any("not earned" in w for w in s.warnings)


def test_the_next_costs_show_the_photo_embargo():
    """Large Games: the state says until when no photo may be asked."""
    events = [*start("L", "07:00", "09:00")]
    row = next(c for c in run(events, "L", when="10:00").next_costs if c.label == "new photo")
    assert not row.allowed and "11:30" in row.note
    row = next(c for c in run(events, "L", when="11:30").next_costs if c.label == "new photo")
    assert row.allowed and (row.draw, row.pick) == (1, 1)


def test_the_hand_limit_holds_before_the_next_reward():
    """Card Mechanics, Hand Limit: over 6 cards, discard or play down before drawing again."""
    hand = ("time-bonus-5", "time-bonus-10", "move", "nothing", "time-trap", "discard-me")
    events = [*start(), ask("10:05", "q1", radius()), answer("10:06", "q1", "within")]
    events += [ask("10:10", "q2", radius()), answer("10:11", "q2", "within")]  # two rewards
    events += [ev("10:12", "cards-drawn", cards=("curse-of-the-cairn", "time-bonus-60"))]
    events += [ev("10:13", "cards-kept", cards=("time-bonus-60",))]
    over = ev("10:14", "cards-drawn", cards=("curse-of-the-queue", "time-bonus-4-33"))
    with pytest.raises(RuleViolation, match="hand limit"):
        run([*events, over], table=table(hand=hand))
    down = ev("10:14", "cards-discarded", cards=("nothing",))
    again = ev("10:15", "cards-drawn", cards=("curse-of-the-queue", "time-bonus-4-33"))
    s = run([*events, down, again], table=table(hand=hand))
    # Three rewards (1 + 2 for the repeat): one kept, one being drawn, one to come.
    assert len(s.cards.hand) == 6 and s.cards.pending_rewards == 2


def test_a_card_the_card_file_lacks_is_named_with_its_event():
    events = [*start(), ask("10:05", "q1", radius()), answer("10:06", "q1", "within")]
    with pytest.raises(ValueError, match=r"event 5 \(cards-drawn.*not in the card file"):
        run([*events, ev("10:07", "cards-drawn", cards=("joker", "move"))], table=table())
