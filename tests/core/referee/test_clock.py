"""The referee's clock: hiding time, game time, time to answer, lunch, breaks, maximum time.

Each test is one rule of the JLTG.EU house rules (the section in its docstring).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from support.referee_events import answer, ask, at, ev, matching, photo, radius, run, start, table

from stations_generator.core.referee import clock, rule_names
from stations_generator.core.referee.violations import RuleViolation


def test_hiding_and_answer_times_by_size():
    """Hiding: Summary — hiding S 30 min M 1 h L 3 h; questions 5 min, photos 10/10/20."""
    assert [clock.minutes(clock.hiding_time(s)) for s in "SML"] == [30, 60, 180]
    assert {clock.minutes(clock.answer_time("radius", s)) for s in "SML"} == {5}
    assert [clock.minutes(clock.answer_time("photo", s)) for s in "SML"] == [10, 10, 20]


def test_hiding_time_left_runs_from_the_hiders_start():
    """Large Games, and Time and Location Shifting: on the train at 9:37, ends 12:37."""
    s = run(start("L", "09:37", "10:00"), "L", when="11:00")
    assert s.clock.hiding_ends == at("12:37")
    assert s.clock.hiding_left_min == pytest.approx(97)
    assert s.clock.phase == "seeking"


def test_small_game_seekers_starting_early_is_warned():
    """Hiding: Summary — S/M seekers set off when the 30 min / 1 h hiding time is over."""
    s = run(start("S", "09:45", "10:00"), "S")
    assert any("before the hiding time ended" in w for w in s.warnings)
    assert not run(start("S", "09:30", "10:00"), "S").warnings


def test_intervals_merge_and_clip():
    a, b, c = at("10:00"), at("10:30"), at("11:00")
    parts = [(a, b), (at("10:20"), c), (at("12:00"), at("13:00"))]
    assert clock.clip(parts, at("10:10"), at("12:30")) == [
        (at("10:10"), c),
        (at("12:00"), at("12:30")),
    ]
    assert clock.minutes(clock.measure(parts, a, at("12:30"))) == 90


def test_a_late_answer_pauses_the_hiding_time_and_earns_no_reward():
    """Questions: Time to answer — late: the hiding time is paused until answered, no cards."""
    events = [*start(), ask("10:10", "q1", radius()), answer("10:22", "q1", "within")]
    s = run(events, when="10:30", table=table())
    assert s.ledger[0].reward == "late: none"
    assert s.clock.paused_min == pytest.approx(7)  # due 10:15, answered 10:22
    assert s.clock.game_min == pytest.approx(30 - 7)
    assert s.cards is not None and s.cards.pending_rewards == 0
    assert any("7 min late" in w for w in s.warnings)


def test_an_answer_in_time_earns_the_reward():
    events = [*start(), ask("10:10", "q1", radius()), answer("10:15", "q1", "within")]
    s = run(events, table=table())
    assert s.ledger[0].reward == "earned" and s.clock.paused_min == 0
    assert s.cards is not None and s.cards.pending_rewards == 1


def test_an_open_late_question_keeps_the_clock_paused():
    """Time to answer: the pause lasts until the answer comes."""
    s = run([*start(), ask("10:10", "q1", matching())], when="10:40")
    assert s.open_question is not None and s.open_question.deadline == at("10:15")
    assert s.clock.paused_min == pytest.approx(25)
    assert any("late" in w for w in s.warnings)


def test_photo_answer_time_is_longer():
    """Photos: S/M 10 minutes, L 20 minutes to answer."""
    small = run([*start(), ask("10:10", "q1", photo())])
    assert small.open_question.deadline == at("10:20")
    large = run([*start("L", "06:00", "07:00"), ask("10:10", "q1", photo())], "L")
    assert large.open_question.deadline == at("10:30")


def test_lunch_is_declared_automatically_at_13_30():
    """Lunch Time — not taken by 13:30: automatically declared; 30 min, counts as game time."""
    events = [*start("L", "09:00", "10:00")]
    s = run(events, "L", when="13:45")
    assert s.clock.lunch == {"seekers": at("13:30"), "hider": at("13:30")}
    assert s.clock.in_lunch and not s.can_ask
    assert any(rule_names.LUNCH in r for r in s.cannot_ask_because)
    assert s.clock.game_min == pytest.approx(225)  # lunch counts as game time
    after = run(events, "L", when="14:01")
    assert after.can_ask and not after.clock.in_lunch


def test_a_question_in_the_automatic_lunch_is_refused():
    with pytest.raises(RuleViolation, match="Lunch Time"):
        run([*start("L", "09:00", "10:00"), ask("13:40", "q1", radius())], "L")


def test_lunch_is_taken_once_per_team():
    """Lunch Time: one 30-minute break, whole; each team once (they may differ)."""
    events = [*start("L", "09:00", "10:00"), ev("11:45", "lunch-started", team="seekers")]
    s = run([*events, ev("12:30", "lunch-started", team="hider")], "L", when="13:40")
    assert s.clock.lunch == {"seekers": at("11:45"), "hider": at("12:30")}
    with pytest.raises(RuleViolation, match="already had lunch"):
        run([*events, ev("12:30", "lunch-started", team="both")], "L")


def test_lunch_outside_the_usual_hours_is_warned():
    s = run([*start("L", "08:00", "09:00"), ev("10:00", "lunch-started")], "L")
    assert any("11:30 and 14:00" in w for w in s.warnings)


def test_no_cards_are_played_at_lunch():
    """Lunch Time: the hider cannot play cards against the seekers."""
    events = [
        *start(),
        ev("12:00", "lunch-started"),
        ev("12:10", "curse-cast", card="curse-of-the-bridge-troll"),
    ]
    with pytest.raises(RuleViolation, match="Lunch Time"):
        run(events, table=table(hand=("curse-of-the-bridge-troll",)))


def test_a_break_does_not_count_as_game_time():
    """Unscheduled Breaks: not game time; no questions or cards during one."""
    events = [*start(), ev("11:00", "break-started"), ev("11:40", "break-ended")]
    s = run(events, when="12:00")
    assert s.clock.breaks_min == pytest.approx(40)
    assert s.clock.game_min == pytest.approx(120 - 40)
    with pytest.raises(RuleViolation, match="Unscheduled Breaks"):
        run([*events[:3], ask("11:10", "q1", radius())])


def test_a_break_stops_the_time_to_answer():
    """Unscheduled Breaks: taken by all players at once, so the answer is due later."""
    events = [*start(), ask("10:58", "q1", radius()), ev("11:00", "break-started")]
    events += [ev("11:30", "break-ended"), answer("11:32", "q1", "within")]
    s = run(events, table=table())
    assert s.ledger[0].deadline == at("11:33")
    assert s.ledger[0].reward == "earned"


def test_short_breaks_are_warned_and_breaks_do_not_nest():
    events = [*start(), ev("11:00", "break-started")]
    assert any("at least 30" in w for w in run([*events, ev("11:10", "break-ended")]).warnings)
    with pytest.raises(RuleViolation, match="already on"):
        run([*events, ev("11:05", "break-started")])


def test_large_games_end_at_the_maximum_game_time():
    """Game Time: Large games end after (normally) 9 hours, found or not."""
    events = [*start("L", "08:00", "09:00")]
    s = run(events, "L", when="19:00")
    assert s.clock.phase == "over" and s.clock.game_min == pytest.approx(540)
    assert s.clock.round_ends == at("18:00")
    with pytest.raises(RuleViolation, match="round is over"):
        run([*events, ask("18:10", "q1", radius())], "L")
    shorter = run(events, "L", when="19:00", max_game_minutes=360)
    assert shorter.clock.round_ends == at("15:00")
    assert run(events, "S", when="19:00").clock.round_ends is None


def test_game_time_ends_when_the_hider_is_found():
    """Game Time: counted from the seekers' start to the moment the hider is found."""
    events = [*start(), ev("11:30", "hider-found")]
    s = run(events, when="12:00", table=table(hand=("time-bonus-10-percent",)))
    assert s.clock.phase == "found" and s.clock.game_min == pytest.approx(90)
    # Percentage Time Bonuses: of the seeking minutes.
    assert s.clock.total_min == pytest.approx(90 * 1.1)
    with pytest.raises(RuleViolation, match="round is over"):
        run([*events, ask("11:40", "q1", radius())])


def test_deadline_extension_only_counts_breaks_inside_it():
    start_, due = at("10:00"), at("10:05")
    breaks = [(at("09:00"), at("09:30")), (at("10:03"), at("10:13"))]
    assert clock.extend_past(due, start_, breaks) == due + timedelta(minutes=10)
