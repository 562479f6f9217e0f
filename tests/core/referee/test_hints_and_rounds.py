"""Replaying a game log: hints, free questions, inappropriate cards, Duplicate Another Card,
randomised thermometers and the round after another.

Each test is one rule of the JLTG.EU house rules (the section in its docstring).
"""

from __future__ import annotations

import pytest
from support.referee_events import (
    answer,
    ask,
    at,
    ev,
    radius,
    run,
    start,
    table,
    thermometer,
)

from stations_generator.core.referee import rule_names
from stations_generator.core.referee.violations import RuleViolation

TROLL = "curse-of-the-bridge-troll"
DUPLICATE = "duplicate-another-card"
RANDOMIZE = "randomize-question"


def _violation(events, rule: str, size: str = "S", **kw) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        run(events, size, **kw)
    assert info.value.rule == rule, str(info.value)
    return info.value


# --- hints --------------------------------------------------------------------------------


def test_an_accepted_hint_earns_draw_1_pick_1_and_an_unasked_one_is_free():
    """Questions: Hints — accepted: Draw 1, Pick 1; given without permission: free."""
    events = [*start(), ev("10:05", "hint-given", accepted=True, note="near water")]
    s = run(events, table=table())
    assert s.cards.pending_rewards == 1
    assert [(h.accepted, h.reward, h.note) for h in s.hints] == [
        (True, "draw 1 pick 1", "near water")
    ]
    # The reward is a Draw 1, Pick 1: one card drawn, that card kept.
    drawn = run([*events, ev("10:06", "cards-drawn", cards=("move",))], table=table())
    assert drawn.cards.pending_rewards == 1  # owed until picked
    kept = [*events, ev("10:06", "cards-drawn", cards=("move",))]
    assert run([*kept, ev("10:07", "cards-kept", cards=("move",))], table=table()).cards.hand == (
        "move",
    )
    free = run([*start(), ev("10:05", "hint-given", accepted=False)], table=table())
    assert free.cards.pending_rewards == 0 and free.hints[0].reward == "free"


def test_a_hint_says_whether_it_was_accepted():
    exc = _violation([*start(), ev("10:05", "hint-given")], rule_names.HINTS)
    assert "accepted" in str(exc)


def test_a_hint_takes_no_question_slot_but_an_accepted_one_waits_out_a_break():
    """Questions: Hints; Unscheduled Breaks; Lunch Time."""
    events = [*start(), ask("10:05", "q1", radius()), ev("10:06", "hint-given", accepted=True)]
    s = run(events, table=table())
    assert s.open_question.id == "q1" and len(s.hints) == 1
    pause = [*start(), ev("10:05", "break-started")]
    _violation([*pause, ev("10:10", "hint-given", accepted=True)], rule_names.BREAKS)
    _violation([*pause, ev("10:10", "hint-given", accepted=False)], rule_names.BREAKS)
    lunch = [*start(), ev("12:00", "lunch-started")]
    _violation([*lunch, ev("12:10", "hint-given", accepted=True)], rule_names.LUNCH)
    assert run([*lunch, ev("12:10", "hint-given", accepted=False)]).hints[0].reward == "free"


# --- free questions -----------------------------------------------------------------------


def test_free_questions_earn_nothing_and_do_not_hold_the_question_slot():
    """Questions: Free questions — "always free"; no time to answer, so a free question
    may be asked while a question is open (one question at a time is about timers)."""
    events = [*start(), ask("10:05", "q1", radius())]
    events.append(ev("10:06", "free-question", free="passed-by", answer="no"))
    events.append(ev("10:07", "free-question", free="map-correct"))
    s = run(events, table=table())
    assert s.open_question.id == "q1" and s.cards.pending_rewards == 0
    assert [f.question for f in s.free_questions] == [
        "Have we already passed in front of you?",
        "Can you check this map is correct?",
    ]
    s = run([*events, answer("10:08", "q1", "within"), ask("10:09", "q2", radius(2))])
    assert [r.id for r in s.ledger] == ["q1", "q2"]
    _violation([*start(), ev("10:05", "free-question", free="weather")], rule_names.FREE_QUESTIONS)


def test_blue_lines_states_whether_the_seekers_must_exit_them():
    """Questions: Free questions — "this must be stated when this last question is asked"."""
    exc = _violation(
        [*start(), ev("10:05", "free-question", free="blue-lines")], rule_names.FREE_QUESTIONS
    )
    assert "exit_blue_lines" in str(exc)
    s = run([*start(), ev("10:05", "free-question", free="blue-lines", exit_blue_lines=True)])
    assert s.free_questions[0].exit_blue_lines is True
    other = ev("10:05", "free-question", free="map-correct", exit_blue_lines=False)
    _violation([*start(), other], rule_names.FREE_QUESTIONS)


def test_free_questions_about_the_hider_wait_out_breaks_and_blocking_curses():
    """Unscheduled Breaks; Curses: Blocking ("they won't be able to find out more
    information until it's cleared"); the map and what to ask are not about the hider."""
    pause = [*start(), ev("10:05", "break-started")]
    _violation([*pause, ev("10:10", "free-question", free="passed-by")], rule_names.BREAKS)
    assert len(run([*pause, ev("10:10", "free-question", free="what-to-ask")]).free_questions) == 1
    cursed = [*start(), ev("10:05", "curse-cast", card=TROLL)]
    blocked = ev("10:10", "free-question", free="blue-lines", exit_blue_lines=False)
    _violation([*cursed, blocked], rule_names.BLOCKED_QUESTIONS, table=table(hand=(TROLL,)))
    # During the hiding time (the round on, seeking not started) a free question is fine.
    hiding = [ev("09:30", "hiding-started"), ev("09:35", "free-question", free="map-correct")]
    assert run(hiding).free_questions[0].free == "map-correct"


# --- cards --------------------------------------------------------------------------------


def test_inappropriate_cards_are_replaced_before_the_pick():
    """Cards: Inappropriate Cards — discard and draw anew, only before picking."""
    touristic = "curse-of-the-touristic-consumerism"
    events = [*start(), ask("10:05", "q1", radius()), answer("10:06", "q1", "within")]
    events.append(ev("10:07", "cards-drawn", cards=(touristic, "move")))
    replaced = ev("10:07", "cards-replaced", cards=(touristic,), draws=("time-bonus-5",))
    kept = ev("10:08", "cards-kept", cards=("time-bonus-5",))
    s = run([*events, replaced, kept], table=table())
    assert s.cards.hand == ("time-bonus-5",) and s.cards.discard == 2  # touristic and move
    late = ev("10:09", "cards-replaced", cards=("move",), draws=("veto-question",))
    _violation(
        [*events, ev("10:08", "cards-kept", cards=("move",)), late],
        rule_names.INAPPROPRIATE,
        table=table(),
    )


def test_duplicate_another_card_through_the_log():
    """Power Ups: Duplicate Another Card — the target is played as normal (costs paid
    again), the duplicate discarded instead; a veto duplicated answers a question."""
    hand = (DUPLICATE, TROLL)
    s = run(
        [*start(), ev("10:05", "curse-cast", card=DUPLICATE, target=TROLL)], table=table(hand=hand)
    )
    assert s.cards.hand == (TROLL,) and s.cards.curses[0]["card"] == TROLL
    hand = (DUPLICATE, "veto-question")
    asked = [*start(), ask("10:05", "q1", radius())]
    vetoed = answer("10:06", "q1", card=DUPLICATE, target="veto-question")
    s = run([*asked, vetoed], table=table(hand=hand))
    assert s.ledger[0].reward == "vetoed: none" and s.cards.hand == ("veto-question",)
    played = ev("10:06", "card-played", card=DUPLICATE, target="veto-question")
    exc = _violation([*asked, played], rule_names.DUPLICATE, table=table(hand=hand))
    assert "question-answered" in str(exc)
    untargeted = answer("10:06", "q1", card=DUPLICATE)
    _violation([*asked, untargeted], rule_names.DUPLICATE, table=table(hand=hand))
    with pytest.raises(RuleViolation, match="another card in the hand"):
        run(
            [*start(), ev("10:05", "card-played", card=DUPLICATE, target="move")],
            table=table(hand=(DUPLICATE,)),
        )


# --- randomising thermometers --------------------------------------------------------------

_ENDED = [*start(), ev("10:05", "thermometer-started", id="t1")]


def test_a_smaller_randomised_thermometer_is_used_up_instead():
    """Randomising Thermometers: smaller than the original — the seekers use it up: it is
    asked from the card and answered as usual, for its reward."""
    events = [*_ENDED, ask("10:20", "t1", thermometer(1000.0))]
    events.append(answer("10:22", "t1", card=RANDOMIZE, question=thermometer(400.0)))
    s = run(events, table=table(hand=(RANDOMIZE,)))
    assert s.open_question.label.endswith("400 m") and s.open_question.deadline == at("10:27")
    s = run([*events, answer("10:24", "t1", "hotter")], table=table(hand=(RANDOMIZE,)))
    assert s.ledger[0].reward == "earned" and s.cards.pending_rewards == 1


def test_a_larger_randomised_thermometer_is_retracted_or_taken_with_a_null_answer():
    """Randomising Thermometers: larger — the seekers retract it (the thermometer runs on
    to the new distance) or take it as asked with a null answer; "Either way the hider
    gets the reward"."""
    events = [*_ENDED, ask("10:20", "t1", thermometer(400.0))]
    undecided = answer("10:22", "t1", card=RANDOMIZE, question=thermometer(1000.0))
    exc = _violation(
        [*events, undecided], rule_names.RANDOM_THERMOMETER, table=table(hand=(RANDOMIZE,))
    )
    assert "retract" in str(exc)
    asked = answer("10:22", "t1", card=RANDOMIZE, question=thermometer(1000.0), retract=False)
    s = run([*events, asked], table=table(hand=(RANDOMIZE,)))
    assert s.ledger[0].answer == "none" and s.ledger[0].reward == "earned"
    assert s.cards.pending_rewards == 1 and s.open_question is None and s.can_ask
    retracted = answer("10:22", "t1", card=RANDOMIZE, question=thermometer(1000.0), retract=True)
    s = run([*events, retracted], table=table(hand=(RANDOMIZE,)))
    assert s.thermometer["id"] == "t1" and s.thermometer["started_at"] == at("10:05")
    assert s.cards.pending_rewards == 1 and s.ledger[0].reward == "earned (retracted)"
    # Reaching the new distance, the seekers end it: asked then, a reward again.
    later = [
        *events,
        retracted,
        ask("10:40", "t1", thermometer(1000.0)),
        answer("10:42", "t1", "colder"),
    ]
    s = run(later, table=table(hand=(RANDOMIZE,)))
    assert s.thermometer is None and s.cards.pending_rewards == 2
    other = [*events, retracted, ask("10:40", "t1", thermometer(400.0))]
    assert any(
        "retracted, but ends as 400 m" in w
        for w in run(other, table=table(hand=(RANDOMIZE,))).warnings
    )
    smaller = answer("10:22", "t1", card=RANDOMIZE, question=radius(), retract=True)
    _violation([*events, smaller], rule_names.RANDOMIZE, table=table(hand=(RANDOMIZE,)))
    plain = answer("10:22", "t1", "hotter", retract=True)
    _violation([*events, plain], rule_names.RANDOM_THERMOMETER, table=table(hand=(RANDOMIZE,)))
    used_up = answer("10:22", "t1", card=RANDOMIZE, question=thermometer(400.0), retract=True)
    big = [*_ENDED, ask("10:20", "t1", thermometer(1000.0))]
    _violation([*big, used_up], rule_names.RANDOM_THERMOMETER, table=table(hand=(RANDOMIZE,)))


# --- the next round -----------------------------------------------------------------------


def test_the_next_round_starts_after_the_previous_one_with_a_15_minute_rest():
    """Hiding: Small and Medium games — "15 minutes to rest, and do the card exchange,
    though this may be extended if the other players agree"."""
    ended = at("13:20")
    early = [ev("13:10", "hiding-started")]
    _violation(early, rule_names.NEXT_ROUND, previous_end=ended)
    s = run([ev("13:35", "hiding-started")], previous_end=ended)
    assert not s.warnings
    s = run([ev("13:50", "hiding-started")], previous_end=ended)
    assert any("30 min after the previous round" in w for w in s.warnings)
    assert not run([ev("13:50", "hiding-started")], "L", previous_end=ended).warnings
    # No event of the round comes before the previous one ended (here a Large game's
    # seekers, who may set off before the hider).
    _violation([ev("13:00", "seeking-started")], rule_names.NEXT_ROUND, "L", previous_end=ended)
