"""The events of a game log, as the referee replays them (pure).

A game log (see :mod:`stations_generator.formats.gamelog`) is a list of timestamped
events; each becomes an :class:`Event`. The kinds:

* the round: ``hiding-started``, ``seeking-started``, ``end-game-started``,
  ``end-game-left``, ``hider-found``;
* pauses: ``lunch-started`` (``team``: seekers or hider), ``break-started``,
  ``break-ended``;
* questions: ``thermometer-started`` / ``thermometer-cancelled`` (``id``),
  ``question-asked`` (``id``, ``question``: a GAME.json question), and
  ``question-answered`` (``id`` and ``answer``, or ``card``: a power-up played instead
  of an answer — ``veto-question``, ``double-or-nothing``, ``randomize-question`` with
  the new ``question``, ``veto-question-or-15-minute-time-bonus``; a randomised
  thermometer larger than the original also ``retract``), ``hint-given`` (``accepted``),
  ``free-question`` (``free``: one of :data:`FREE_QUESTIONS`, ``exit_blue_lines``);
* cards: ``cards-drawn``, ``cards-kept``, ``cards-discarded`` (``cards``),
  ``cards-replaced`` (``cards``: inappropriate ones just drawn, ``draws``: their
  replacements), ``card-played`` (``card``, ``discards``, ``draws``, ``target``),
  ``curse-cast`` (``card``, ``paid``, ``target``), ``curse-cleared``, ``curse-vetoed``
  (``card``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stations_generator.core.questions.geometry import Question

ROUND_EVENTS = (
    "hiding-started",
    "seeking-started",
    "end-game-started",
    "end-game-left",
    "hider-found",
)
PAUSE_EVENTS = ("lunch-started", "break-started", "break-ended")
QUESTION_EVENTS = (
    "thermometer-started",
    "thermometer-cancelled",
    "question-asked",
    "question-answered",
    "hint-given",
    "free-question",
)
CARD_EVENTS = (
    "cards-drawn",
    "cards-replaced",
    "cards-kept",
    "cards-discarded",
    "card-played",
    "curse-cast",
    "curse-cleared",
    "curse-vetoed",
)
EVENT_KINDS = (*ROUND_EVENTS, *PAUSE_EVENTS, *QUESTION_EVENTS, *CARD_EVENTS)

#: Power-ups played instead of answering a question (JLTG.EU house rules, Power Ups).
VETO = "veto-question"
DOUBLE_OR_NOTHING = "double-or-nothing"
RANDOMIZE = "randomize-question"
VETO_OR_BONUS = "veto-question-or-15-minute-time-bonus"
ANSWER_CARDS = (VETO, DOUBLE_OR_NOTHING, RANDOMIZE, VETO_OR_BONUS)
DUPLICATE = "duplicate-another-card"

#: The fields each kind of event takes (besides ``at``, ``event`` and ``note``).
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    **{kind: () for kind in ROUND_EVENTS},
    "lunch-started": ("team",),
    "break-started": (),
    "break-ended": (),
    "thermometer-started": ("id",),
    "thermometer-cancelled": ("id",),
    "question-asked": ("id", "question"),
    "question-answered": ("id", "answer", "card", "target", "question", "retract"),
    "hint-given": ("accepted",),
    "free-question": ("free", "answer", "exit_blue_lines"),
    "cards-drawn": ("cards",),
    "cards-kept": ("cards",),
    "cards-discarded": ("cards",),
    "cards-replaced": ("cards", "draws"),
    "card-played": ("card", "discards", "draws", "paid", "target"),
    "curse-cast": ("card", "paid", "draws", "target"),
    "curse-cleared": ("card",),
    "curse-vetoed": ("card",),
}

#: The questions that are always free (JLTG.EU house rules, Questions: Free questions).
FREE_QUESTIONS = {
    "map-correct": "Can you check this map is correct?",
    "what-to-ask": "What question should we ask?",
    "passed-by": "Have we already passed in front of you?",
    "blue-lines": "Are you within the blue lines?",
}


@dataclass(frozen=True)
class Event:
    """One event of the log.

    Parameters
    ----------
    at : datetime
        When it happened (timezone-aware).
    kind : str
        One of :data:`EVENT_KINDS`.
    number : int
        Its place in the log, from 1 (for messages).
    id : str, optional
        The question it is about.
    question : Question, optional
        The question asked (or the new one of a Randomize Question): a cost model, no
        OSM data needed.
    question_data : Mapping
        The question as the log has it (a GAME.json question).
    answer : str, optional
        The hider's answer.
    card : str, optional
        The card played (a card id, e.g. ``"veto-question"``).
    cards, discards, paid, draws : tuple of str
        Cards drawn/kept/discarded; discarded, paid and drawn with a played card.
    team : str, optional
        ``"seekers"``, ``"hider"`` or ``"both"`` (lunch).
    target : str, optional
        The card a Duplicate Another Card duplicates.
    accepted : bool, optional
        A hint: whether the seekers accepted it (Draw 1, Pick 1) or it came unasked (free).
    free : str, optional
        A free question: a key of :data:`FREE_QUESTIONS`.
    exit_blue_lines : bool, optional
        "Are you within the blue lines?": whether the seekers must leave the blue lines to
        reach the hider (stated with it).
    retract : bool, optional
        A randomised thermometer larger than the original: whether the seekers retract the
        question (the thermometer runs on) or take it as asked with a null answer.
    note : str, optional
        The log's note on the event (e.g. a hint's words).
    """

    at: datetime
    kind: str
    number: int = 0
    id: str | None = None
    question: Question | None = None
    question_data: Mapping[str, Any] = field(default_factory=dict, compare=False)
    answer: str | None = None
    card: str | None = None
    cards: tuple[str, ...] = ()
    discards: tuple[str, ...] = ()
    paid: tuple[str, ...] = ()
    draws: tuple[str, ...] = ()
    team: str | None = None
    target: str | None = None
    accepted: bool | None = None
    free: str | None = None
    exit_blue_lines: bool | None = None
    retract: bool | None = None
    note: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"kind: unknown event {self.kind!r}; use {', '.join(EVENT_KINDS)}")
        if self.at.tzinfo is None or self.at.utcoffset() is None:
            raise ValueError(f"at: {self.at.isoformat()} has no time zone; add e.g. +02:00")

    def describe(self) -> str:
        """A short name for messages: ``"event 4 (question-asked q2 at 10:42)"``."""
        what = f" {self.id}" if self.id else f" {self.card}" if self.card else ""
        return f"event {self.number} ({self.kind}{what} at {self.at:%H:%M})"
