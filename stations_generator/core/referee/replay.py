"""Replaying a game log to the referee's state (pure: events in, :class:`GameState` out).

:func:`replay` folds the events of one round, in time order, checking each against
the JLTG.EU house rules; an event the rules forbid raises
:class:`~.violations.RuleViolation` naming the rule. The clock rules (hiding time,
game time, time to answer, lunch, unscheduled breaks, maximum game time) are in
:mod:`.clock`, the question rules in :mod:`.asking`; the hider's cards are a card
table (:mod:`.cards`, the ``CardTable`` API) the replay calls: a reward after an answer
in time, draws, keeps, discards, plays, curses and their blocks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from stations_generator.core.questions.geometry import Question, ThermometerQuestion
from stations_generator.core.questions.photos import LARGE_EMBARGO
from stations_generator.core.referee import clock, rule_names
from stations_generator.core.referee.asking import (
    check_answer,
    check_legal,
    next_costs,
    price,
    with_timing,
)
from stations_generator.core.referee.cards_view import cards_view
from stations_generator.core.referee.events import (
    ANSWER_CARDS,
    DOUBLE_OR_NOTHING,
    DUPLICATE,
    FREE_QUESTIONS,
    RANDOMIZE,
    VETO,
    VETO_OR_BONUS,
    Event,
)
from stations_generator.core.referee.rounds import Round
from stations_generator.core.referee.state import (
    FreeRow,
    GameState,
    HintRow,
    LedgerRow,
    NextCost,
)
from stations_generator.core.referee.violations import RuleViolation

VETOES = (VETO, VETO_OR_BONUS)
DRAWN_EARLY = "drawn before the answer"
#: JLTG.EU house rules, Questions: Hints — an accepted hint counts as Draw 1, Pick 1.
HINT_COST = (1, 1)
#: Free questions whose answer tells the seekers about the hider's whereabouts: they are
#: game questions for lunch, breaks and curses blocking questions (see docs/referee.md).
FREE_INFORMATION = ("passed-by", "blue-lines")


class CardTableLike(Protocol):
    """The part of ``core.referee.cards.CardTable`` the replay calls (see the contract)."""

    rewards: tuple[Any, ...]  # the rewards owed, the first one open
    drawn: tuple[str, ...] | None  # cards drawn for the open reward, not yet picked
    owed_draws: int  # cards a played power-up still has to draw

    def reward(self, draw: int, pick: int, source: str) -> Any: ...
    def draw(self, card_ids: Sequence[str], at: datetime) -> Any: ...
    def keep(self, card_ids: Sequence[str], at: datetime) -> Any: ...
    def discard(self, card_ids: Sequence[str], at: datetime) -> Any: ...
    def replace_inappropriate(
        self, card_ids: Sequence[str], replacements: Sequence[str], at: datetime
    ) -> Any: ...
    def play(self, card_id: str, at: datetime, **kwargs: Any) -> Any: ...
    def clear_curse(self, card_id: str, at: datetime) -> Any: ...
    def veto_curse(self, card_id: str, at: datetime) -> tuple[Any, int]: ...
    def at(self, when: datetime) -> Any: ...
    def blocks(self, when: datetime) -> frozenset[str]: ...
    def time_bonus_minutes(self, seeking_minutes: float) -> float: ...


@dataclass(frozen=True)
class Settings:
    """A log's settings: game size, rule set, maximum game time (minutes; None: by size)."""

    size: str
    rules: str = "jltg-eu"
    max_game_minutes: float | None = None
    previous_end: datetime | None = None  # when the previous round of the game ended

    def __post_init__(self) -> None:
        if self.size not in ("S", "M", "L"):
            raise ValueError(f"size: {self.size!r} is not a game size; use S, M or L")
        end = self.previous_end
        if end is not None and (end.tzinfo is None or end.utcoffset() is None):
            raise ValueError("previous_end: give a timezone-aware time")


@dataclass
class Asked:
    """A question asked in the round, while it is open and after."""

    id: str
    question: Question
    asked_at: datetime
    limit: timedelta
    times_asked: int
    rewards: int
    answered_at: datetime | None = None
    answer: str | None = None
    card: str | None = None
    reward: str = "open"


@dataclass
class Referee:
    """The round being replayed (mutable; :func:`replay` drives it)."""

    settings: Settings
    table: CardTableLike | None = None
    round: Round = field(init=False)
    asked: dict[str, Asked] = field(default_factory=dict)
    counted: list[Question] = field(default_factory=list)
    vetoed: set[tuple] = field(default_factory=set)
    doubled: set[tuple] = field(default_factory=set)
    thermometer: dict[str, Any] | None = None
    open_id: str | None = None
    pauses: list[clock.Interval] = field(default_factory=list)
    curse_veto_min: float = 0.0
    last: Event | None = None
    hints: list[HintRow] = field(default_factory=list)
    free: list[FreeRow] = field(default_factory=list)
    thermometer_starts: dict[str, datetime] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.round = Round(
            self.settings.size, self.settings.max_game_minutes, self.settings.previous_end
        )

    @property
    def warnings(self) -> list[str]:
        """Warnings so far (the round's and the questions')."""
        return self.round.warnings

    # --- driving ---------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Check ``event`` against the rules and fold it in; RuleViolation if forbidden."""
        if self.last is not None and event.at < self.last.at:
            raise RuleViolation(
                rule_names.ORDER,
                f"{event.describe()} is before {self.last.describe()}; record events in "
                "the order they happened",
            )
        self.advance(event.at)
        handler = _HANDLERS.get(event.kind, Referee.on_round)
        try:
            self.round.check_after_previous(event)
            handler(self, event)
        except RuleViolation as exc:
            raise RuleViolation(exc.rule, f"{event.describe()}: {exc.problem}") from None
        except ValueError as exc:  # e.g. a card id the card file does not have
            raise ValueError(f"{event.describe()}: {exc}") from None
        self.last = event

    def advance(self, when: datetime) -> None:
        """Move the clock to ``when``: automatic lunch, curses timing out."""
        self.round.advance(when)
        if self.table is not None:
            self.table = self.table.at(when)

    # --- the round -------------------------------------------------------------------

    def on_round(self, e: Event) -> None:
        """Round, lunch and break events (see :class:`.rounds.Round`)."""
        self.round.apply(e)

    # --- questions -------------------------------------------------------------------

    def _may_ask(self, at: datetime) -> None:
        reasons = self.cannot_ask(at)
        if reasons:
            rule, problem = reasons[0]
            raise RuleViolation(rule, problem)

    def cannot_ask(self, at: datetime) -> list[tuple[str, str]]:
        """(rule, why) for every reason the seekers cannot ask a question at ``at``."""
        out = [(r, w) for r, w in self.round.cannot_play(at, "ask a question")]
        if self.open_id is not None:
            q = self.asked[self.open_id]
            out.append(
                (
                    rule_names.ONE_QUESTION,
                    f"question {q.id} ({q.question.label()}) is still open (answer due "
                    f"{self.deadline(q, at):%H:%M}); answer it first",
                )
            )
        if self.table is not None and "questions" in self.table.blocks(at):
            out.append(
                (
                    rule_names.BLOCKED_QUESTIONS,
                    "an open curse blocks questions; clear it first (curse-cleared)",
                )
            )
        return out

    def deadline(self, q: Asked, now: datetime) -> datetime:
        """When the answer to ``q`` is due: its time to answer, pushed back by breaks."""
        return clock.extend_past(q.asked_at + q.limit, q.asked_at, self.round.breaks_until(now))

    def on_thermometer_started(self, e: Event) -> None:
        """A thermometer starts: not a question yet (JLTG.EU house rules, Thermometer Mechanics)."""
        self.round.require_seeking(e.at, "start a thermometer")
        if e.id in self.asked:
            raise RuleViolation(
                rule_names.ASKED, f"question id {e.id!r} is already used; give a new id"
            )
        if self.thermometer is not None:
            raise RuleViolation(
                rule_names.THERMOMETER,
                f"thermometer {self.thermometer['id']} is running; end or cancel it first",
            )
        self.thermometer = {"id": e.id, "started_at": e.at}
        self.thermometer_starts[e.id or ""] = e.at

    def on_thermometer_cancelled(self, e: Event) -> None:
        """A running thermometer is cancelled: nothing was asked."""
        if self.thermometer is None or self.thermometer["id"] != e.id:
            raise RuleViolation(rule_names.THERMOMETER, f"no thermometer {e.id} is running")
        self.thermometer = None

    def on_question_asked(self, e: Event) -> None:
        """A question is asked (a thermometer: ended); checks, then prices it."""
        assert e.id is not None and e.question is not None  # the log reader ensures it
        if e.id in self.asked:
            raise RuleViolation(
                rule_names.ASKED, f"question id {e.id!r} is already used; give a new id"
            )
        self._may_ask(e.at)
        is_thermometer = isinstance(e.question, ThermometerQuestion)
        if self.thermometer is not None and is_thermometer and self.thermometer["id"] != e.id:
            raise RuleViolation(
                rule_names.THERMOMETER,
                f"thermometer {self.thermometer['id']} is running; end it (ask it) or cancel it",
            )
        question = self._checked(e, e.question)
        if is_thermometer:
            self._check_retracted(e, question)
            self.thermometer = None
            if question.too_early():
                self.warnings.append(f"{e.describe()}: {question.too_early()}")
        self._ask(e.id, question, e.at)

    def _check_retracted(self, e: Event, question: Question) -> None:
        """Warn when a retracted randomised thermometer is ended at another distance."""
        want = (self.thermometer or {}).get("distance_m")
        if want is not None and isinstance(question, ThermometerQuestion):
            if abs(question.class_m() - want) > 1.0:
                self.warnings.append(
                    f"{e.describe()}: the thermometer was randomised to {want:.0f} m and "
                    f"retracted, but ends as {question.class_m():.0f} m "
                    "(JLTG.EU house rules, Thermometer Mechanics: Randomising Thermometers)"
                )

    def _checked(self, e: Event, question: Question) -> Question:
        """The question with its timing, checked for the game size and the vetoes."""
        phase = None if "phase" in e.question_data else self.round.phase_of_photos
        question = with_timing(question, e.at, self.round.seeking_started, phase)
        check_legal(question, self.settings.size, self.settings.rules)
        if question.cost_key() in self.vetoed:
            raise RuleViolation(
                rule_names.VETO,
                f"{question.label()} was vetoed: it cannot be asked again this round",
            )
        return question

    def _ask(self, qid: str, question: Question, at: datetime) -> None:
        key = question.cost_key()
        p = price(self.counted, question, key in self.doubled)
        self.doubled.discard(key)
        self.counted.append(question)
        limit = clock.answer_time(question.kind, self.settings.size)
        self.asked[qid] = Asked(qid, question, at, limit, p.times_asked, p.rewards)
        self.open_id = qid

    def on_question_answered(self, e: Event) -> None:
        """The hider answers, or plays a power-up instead (JLTG.EU house rules, Power Ups)."""
        q = self.asked.get(e.id or "")
        if q is None:
            raise RuleViolation(rule_names.ASKED, f"question {e.id!r} was never asked")
        if q.answered_at is not None:
            raise RuleViolation(rule_names.ASKED, f"question {e.id!r} is already answered")
        if e.card is not None:
            self._answer_with_card(q, e)
            return
        if e.retract is not None:
            raise RuleViolation(
                rule_names.RANDOM_THERMOMETER,
                "retract goes with a Randomize Question's larger thermometer, not an answer",
            )
        check_answer(q.question, e.answer)
        deadline = self.deadline(q, e.at)
        q.answered_at, q.answer = e.at, e.answer
        self.open_id = None
        if e.at > deadline:
            # Late: the hiding time is paused until answered, no reward (Time to answer).
            self._drew_early(q, e, "the answer came late")
            self.pauses.append((deadline, e.at))
            q.reward = "late: none"
            late = clock.minutes(e.at - deadline)
            self.warnings.append(
                f"{e.describe()}: answered {late:.0f} min late (due {deadline:%H:%M}): "
                "the hiding time was paused and the hider gets no cards"
            )
            return
        if q.reward != DRAWN_EARLY:
            self._reward(q)
        q.reward = "earned"

    def _reward(self, q: Asked) -> None:
        """Queue the question's rewards: its base Draw x, Pick y, once per asking."""
        if self.table is not None:
            draw, pick = q.question.cost
            for _ in range(q.rewards):
                self.table = self.table.reward(draw, pick, q.id)

    def _drew_early(self, q: Asked, e: Event, why: str) -> None:
        """Warn when the hider drew for a question that then earns no reward."""
        if q.reward == DRAWN_EARLY:
            self.warnings.append(
                f"{e.describe()}: the hider drew cards for {q.id} before answering, and {why}: "
                "those cards were not earned (JLTG.EU house rules, Questions: Time to answer)"
            )

    def _answer_with_card(self, q: Asked, e: Event) -> None:
        # A Duplicate Another Card plays its target as normal (Power Ups).
        if e.card == DUPLICATE and not e.target:
            raise RuleViolation(rule_names.DUPLICATE, "name the card it duplicates (target)")
        card = (e.target or "") if e.card == DUPLICATE else e.card or ""
        if card not in ANSWER_CARDS:
            raise RuleViolation(
                rule_names.CARDS,
                f"{card!r} is not played instead of an answer; use {', '.join(ANSWER_CARDS)}"
                + (f", or {DUPLICATE} with one of them as its target" if e.card else ""),
            )
        self.round.require_play(e.at, f"play {card}")
        if self.table is not None:
            kwargs = {} if e.target is None else {"target": e.target}
            self.table = self.table.play(e.card or "", e.at, **kwargs)
        self._drew_early(q, e, f"{card} was played instead of an answer")
        if card == RANDOMIZE:
            self._randomize(q, e)
            return
        q.answered_at, q.card = e.at, card
        self.open_id = None
        key = q.question.cost_key()
        if card in VETOES:
            self.vetoed.add(key)
            q.reward = "vetoed: none"
        elif card == DOUBLE_OR_NOTHING:
            self.doubled.add(key)
            q.reward = "double or nothing: none"

    def _randomize(self, q: Asked, e: Event) -> None:
        """Randomize Question: the original is not asked; the new one is, from now."""
        new = e.question
        if new is None:
            raise RuleViolation(
                rule_names.RANDOMIZE, "give the question drawn at random (question)"
            )
        if new.kind != q.question.kind:
            raise RuleViolation(
                rule_names.RANDOMIZE,
                f"the new question must be of the same category ({q.question.kind}), "
                f"not {new.kind}",
            )
        self.counted.remove(q.question)
        new = self._checked(e, new)
        asked_keys = {x.cost_key() for x in self.counted}
        if new.cost_key() == q.question.cost_key() or new.cost_key() in asked_keys:
            raise RuleViolation(
                rule_names.RANDOMIZE,
                f"{new.label()} is not a different unanswered question; draw another",
            )
        del self.asked[q.id]
        larger = self._larger_thermometer(q.question, new, e)
        if not larger:
            self._ask(q.id, new, e.at)
        elif e.retract:
            self._retract(q, new, e)
        else:  # taken as asked: a null answer, and the reward
            self._ask(q.id, new, e.at)
            done = self.asked[q.id]
            done.answered_at, done.answer, done.reward = e.at, "none", "earned"
            self.open_id = None
            self._reward(done)

    def _larger_thermometer(self, old: Question, new: Question, e: Event) -> bool:
        """Whether a randomised thermometer is larger than the original (Randomising
        Thermometers); a smaller one is used up instead, asked from the card."""
        if not isinstance(old, ThermometerQuestion) or not isinstance(new, ThermometerQuestion):
            if e.retract is not None:
                raise RuleViolation(
                    rule_names.RANDOM_THERMOMETER, "retract is only for a larger thermometer"
                )
            return False
        larger = new.class_m() > old.class_m()
        if larger and e.retract is None:
            raise RuleViolation(
                rule_names.RANDOM_THERMOMETER,
                f"the randomised thermometer ({new.class_m():.0f} m) is larger than the "
                f"original ({old.class_m():.0f} m): say whether the seekers retract the "
                "question (retract: true) or take it as asked with a null answer (false)",
            )
        if not larger and e.retract is not None:
            raise RuleViolation(
                rule_names.RANDOM_THERMOMETER,
                "a smaller randomised thermometer is used up instead: no retract",
            )
        return larger

    def _retract(self, q: Asked, new: Question, e: Event) -> None:
        """A larger randomised thermometer retracted: not asked, the thermometer runs on to
        the new distance, and "either way the hider gets the reward" (now)."""
        p = price(self.counted, new, new.cost_key() in self.doubled)
        row = Asked(f"{q.id}-retracted", new, e.at, timedelta(0), p.times_asked, p.rewards)
        row.answered_at, row.card, row.reward = e.at, RANDOMIZE, "earned (retracted)"
        self.asked[row.id] = row
        self._reward(row)
        self.open_id = None
        started = self.thermometer_starts.get(q.id, q.asked_at)
        self.thermometer = {
            "id": q.id,
            "started_at": started,
            "retracted_at": e.at,
            "distance_m": new.class_m() if isinstance(new, ThermometerQuestion) else None,
        }

    def on_hint(self, e: Event) -> None:
        """A hint (Questions: Hints): Draw 1, Pick 1 if the seekers accepted it, else free.

        It is recorded when given, so it starts no time to answer and takes no place in
        "one question at a time"; an accepted one is taken up like a question (not at
        lunch, in a break or while a curse blocks questions), any hint needs the round on.
        """
        if e.accepted is None:
            raise RuleViolation(
                rule_names.HINTS,
                "say whether the seekers accepted the hint (accepted: true, Draw 1, Pick 1) "
                "or it came without their permission (false: free)",
            )
        self.round.require_seeking(e.at, "give a hint")
        stops = (rule_names.BREAKS,)
        if e.accepted:
            stops = (rule_names.BREAKS, rule_names.LUNCH, rule_names.BLOCKED_QUESTIONS)
        reasons = [r for r in self.cannot_ask(e.at) if r[0] in stops]
        if reasons:
            rule, why = reasons[0]
            raise RuleViolation(rule, why.replace("ask a question", "give an accepted hint"))
        reward = "draw 1 pick 1" if e.accepted else "free"
        if e.accepted and self.table is not None:
            self.table = self.table.reward(*HINT_COST, f"hint {len(self.hints) + 1}")
        self.hints.append(HintRow(e.at, e.accepted, reward, e.note))

    def on_free_question(self, e: Event) -> None:
        """A free question (Questions: Free questions): no reward, no time to answer, so it
        does not hold the one-question slot; one telling where the hider is waits out lunch,
        breaks and curses blocking questions like any question."""
        if e.free not in FREE_QUESTIONS:
            raise RuleViolation(
                rule_names.FREE_QUESTIONS,
                f"free question {e.free!r}; use {', '.join(FREE_QUESTIONS)}",
            )
        if (e.free == "blue-lines") != (e.exit_blue_lines is not None):
            raise RuleViolation(
                rule_names.FREE_QUESTIONS,
                "state with blue-lines (and only with it) whether the seekers must exit the "
                "blue lines to reach the hider (exit_blue_lines: true or false)",
            )
        if self.round.hiding_started is None and self.round.seeking_started is None:
            raise RuleViolation(rule_names.GAME_TIME, "the round has not started")
        if self.round.over(e.at):
            raise RuleViolation(rule_names.GAME_TIME, "the round is over; no more questions")
        if e.free in FREE_INFORMATION:
            stops = (rule_names.LUNCH, rule_names.BREAKS, rule_names.BLOCKED_QUESTIONS)
            reasons = [r for r in self.cannot_ask(e.at) if r[0] in stops]
            if reasons:
                raise RuleViolation(*reasons[0])
        self.free.append(FreeRow(e.at, e.free, FREE_QUESTIONS[e.free], e.answer, e.exit_blue_lines))

    # --- cards -----------------------------------------------------------------------

    def _cards(self, e: Event) -> CardTableLike:
        if self.table is None:
            raise RuleViolation(
                rule_names.CARDS, "this log has no card table; start it with a card set"
            )
        return self.table

    def on_cards(self, e: Event) -> None:
        """Cards drawn, kept or discarded by the hider."""
        table = self._cards(e)
        if e.kind == "cards-drawn":
            self._early_reward(e.at)
            self.table = self._cards(e).draw(e.cards, e.at)
        elif e.kind == "cards-replaced":
            # Inappropriate Cards: "quietly discard it and replace it with a newly-drawn
            # card", only before the pick of that draw (the card table checks it).
            self.table = table.replace_inappropriate(e.cards, e.draws, e.at)
        elif e.kind == "cards-kept":
            self.table = table.keep(e.cards, e.at)
        else:
            self.table = table.discard(e.cards, e.at)

    def _early_reward(self, at: datetime) -> None:
        """Reward: "The cards may be picked any time after the question is asked, even
        before responding" — a draw with nothing owed is for the open question."""
        t = self.table
        q = self.asked.get(self.open_id or "")
        if t is None or q is None or q.reward != "open" or at > self.deadline(q, at):
            return
        if not t.rewards and t.drawn is None and not t.owed_draws:
            self._reward(q)
            q.reward = DRAWN_EARLY

    def on_card_played(self, e: Event) -> None:
        """A power-up (or other card) played; not during lunch or a break."""
        table = self._cards(e)
        if e.card in ANSWER_CARDS:
            raise RuleViolation(
                rule_names.CARDS,
                f"{e.card} is played instead of an answer: record it as question-answered "
                "with its card",
            )
        if e.card == DUPLICATE and e.target in ANSWER_CARDS:
            raise RuleViolation(
                rule_names.DUPLICATE,
                f"{e.target} is played instead of an answer: record question-answered with "
                f"card {DUPLICATE} and target {e.target}",
            )
        self.round.require_play(e.at, f"play {e.card}")
        kwargs: dict[str, Any] = {"discards": e.discards, "draws": e.draws, "paid": e.paid}
        if e.target is not None:
            kwargs["target"] = e.target
        self.table = table.play(e.card or "", e.at, **kwargs)

    def on_curse(self, e: Event) -> None:
        """A curse cast, cleared or vetoed."""
        table = self._cards(e)
        card = e.card or ""
        if e.kind == "curse-cast":
            self.round.require_play(e.at, f"cast {card}")
            if "curses" in table.blocks(e.at):
                raise RuleViolation(
                    rule_names.BLOCKED_CURSES,
                    f"an open curse blocks further curses; {card} cannot be cast now",
                )
            kwargs: dict[str, Any] = {"paid": e.paid, "draws": e.draws}
            if e.target is not None:  # Duplicate Another Card: the curse it duplicates
                kwargs["target"] = e.target
            self.table = table.play(card, e.at, **kwargs)
        elif e.kind == "curse-cleared":
            self.table = table.clear_curse(card, e.at)
        else:
            self.table, bonus = table.veto_curse(card, e.at)
            self.curse_veto_min += bonus

    # --- the state -------------------------------------------------------------------

    def state(self, at: datetime) -> GameState:
        """The referee's view at ``at`` (not before the last event)."""
        self.advance(at)
        rows = tuple(self._row(q, at) for q in self.asked.values())
        open_row = next((r for r in rows if r.id == self.open_id), None)
        if open_row is not None and at > open_row.deadline:
            late = clock.minutes(at - open_row.deadline)
            self.warnings.append(
                f"question {open_row.id} is {late:.0f} min late (due {open_row.deadline:%H:%M}): "
                "the hiding time is paused until it is answered; no cards for it"
            )
        pauses = list(self.pauses)
        if open_row is not None and at > open_row.deadline:
            pauses.append((open_row.deadline, at))
        bonus = self._bonus
        game_clock = self.round.clock(at, pauses, bonus)
        reasons = self.cannot_ask(at)
        costs = next_costs(
            self.counted, self.doubled, self.vetoed, self.round.phase_of_photos, self._no_photos(at)
        )
        return GameState(
            size=self.settings.size,
            clock=game_clock,
            open_question=open_row,
            thermometer=self.thermometer,
            ledger=rows,
            can_ask=not reasons,
            cannot_ask_because=tuple(f"{why} — {rule}" for rule, why in reasons),
            next_costs=tuple(NextCost(*c) for c in costs),
            vetoed=tuple(
                sorted({q.question.label() for q in self.asked.values() if q.card in VETOES})
            ),
            cards=cards_view(self.table, at, self.settings.size),
            warnings=tuple(self.warnings),
            hints=tuple(self.hints),
            free_questions=tuple(self.free),
        )

    def _no_photos(self, at: datetime) -> str:
        """Why no photo may be asked at ``at`` (the Large-game embargo), or ""."""
        started = self.round.seeking_started
        if self.settings.size != "L" or started is None or at >= started + LARGE_EMBARGO:
            return ""
        return f"no photo questions until {started + LARGE_EMBARGO:%H:%M} (Large-game embargo)"

    def _bonus(self, game_min: float) -> float | None:
        """The hand's time bonuses for ``game_min`` plus the curse vetoes' (None: unknown)."""
        if self.table is None:
            return None
        try:
            return self.table.time_bonus_minutes(game_min) + self.curse_veto_min
        except ValueError as exc:  # a bonus whose value the card file does not give
            self.warnings.append(f"time bonuses not counted: {exc}")
            return None

    def _row(self, q: Asked, at: datetime) -> LedgerRow:
        draw, pick = q.question.cost
        return LedgerRow(
            q.id,
            q.question.label(),
            q.question.kind,
            q.asked_at,
            self.deadline(q, q.answered_at or at),
            q.times_asked,
            draw * q.rewards,
            pick * q.rewards,
            q.answered_at,
            q.answer,
            q.card,
            q.reward,
        )


_HANDLERS: dict[str, Callable[[Referee, Event], None]] = {
    "thermometer-started": Referee.on_thermometer_started,
    "thermometer-cancelled": Referee.on_thermometer_cancelled,
    "question-asked": Referee.on_question_asked,
    "question-answered": Referee.on_question_answered,
    "cards-drawn": Referee.on_cards,
    "cards-kept": Referee.on_cards,
    "cards-replaced": Referee.on_cards,
    "hint-given": Referee.on_hint,
    "free-question": Referee.on_free_question,
    "cards-discarded": Referee.on_cards,
    "card-played": Referee.on_card_played,
    "curse-cast": Referee.on_curse,
    "curse-cleared": Referee.on_curse,
    "curse-vetoed": Referee.on_curse,
}


def replay(
    events: Sequence[Event],
    settings: Settings,
    table: CardTableLike | None = None,
    at: datetime | None = None,
) -> GameState:
    """Fold a round's events into the referee's state at ``at``.

    Parameters
    ----------
    events : sequence of Event
        The log's events, in time order.
    settings : Settings
        The game size, rule set and maximum game time.
    table : CardTable, optional
        The hider's cards at the start (``core.referee.cards.new_table``); without it
        card events are refused and the state has no cards.
    at : datetime, optional
        The moment of the state: events after it are not replayed. Default: the last
        event's time.

    Returns
    -------
    GameState

    Raises
    ------
    RuleViolation
        The first event the house rules forbid, naming the rule.
    """
    referee = Referee(settings, table)
    # Events built without their place in the log are numbered by it (for messages).
    events = [e if e.number else dataclasses.replace(e, number=k) for k, e in enumerate(events, 1)]
    for before, event in zip(events, events[1:], strict=False):
        if event.at < before.at:  # the whole log, also past ``at``
            raise RuleViolation(
                rule_names.ORDER,
                f"{event.describe()} is before {before.describe()}; record events in the "
                "order they happened",
            )
    for event in events:
        if at is not None and event.at > at:
            break
        referee.apply(event)
    if at is None:
        if not events:
            raise ValueError("events: an empty log has no time; give at")
        at = events[-1].at
    return referee.state(at)
