"""Questions in a refereed round: legality by game size, the repeat cost, answers (pure).

The cost is the project's cost ledger
(:func:`stations_generator.core.questions.rules.cost_ledger`): the n-th asking of the
same question draws and picks n × its base cost (JLTG.EU house rules, Questions:
Repeating Questions), custom radii and thermometer distance classes as the question
classes define them. On top of it, the power-ups played instead of an answer
(JLTG.EU house rules, Power Ups): a vetoed question may not be asked again; after a
Double or Nothing the next asking of that question costs double; a randomized
question does not count as asked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from stations_generator.core.questions.geometry import (
    MatchingNearestQuestion,
    MeasuringQuestion,
    Question,
    QuestionError,
    RadiusQuestion,
    TentaclesQuestion,
    ThermometerQuestion,
)
from stations_generator.core.questions.legal import check_tentacles, check_thermometer_distance
from stations_generator.core.questions.photos import PhotoQuestion
from stations_generator.core.questions.rules import cost_ledger
from stations_generator.core.referee import rule_names
from stations_generator.core.referee.violations import RuleViolation

#: The answers each kind of question takes (JLTG.EU house rules, Questions: each
#: question's "Valid answers"); tentacles take the name or id of a place, or "not within".
VALID_ANSWERS = {
    "radius": ("within", "not within", "inside", "outside"),
    "thermometer": ("hotter", "colder", "none"),
    "matching": ("same", "different"),
    "measuring": ("closer", "further"),
    "photo": ("sent", "cannot answer"),
}
#: One question of each kind, for the base cost of "a new question of this kind".
_BASE_COSTS = (
    ("matching", MatchingNearestQuestion.cost),
    ("measuring", MeasuringQuestion.cost),
    ("thermometer", ThermometerQuestion.cost),
    ("radius", RadiusQuestion.cost),
    ("tentacles", TentaclesQuestion.cost),
)


@dataclass(frozen=True)
class Price:
    """What the hider gets for one asking: ``rewards`` times Draw ``draw``, Pick ``pick``."""

    label: str
    times_asked: int
    draw: int  # one reward's draw (the question's base cost)
    pick: int
    rewards: int  # how many rewards in sequence (n-th asking: n; doubled: 2 n)

    @property
    def total(self) -> tuple[int, int]:
        """All the cards drawn and picked: (draw × rewards, pick × rewards)."""
        return self.draw * self.rewards, self.pick * self.rewards


def price(counted: Sequence[Question], question: Question, doubled: bool) -> Price:
    """The price of asking ``question`` after the questions ``counted`` (in order).

    Parameters
    ----------
    counted : sequence of Question
        The questions asked so far that count for the repeat cost.
    question : Question
        The question being asked.
    doubled : bool
        Whether a Double or Nothing doubled the next asking of this question.
    """
    entry = cost_ledger([*counted, question])[-1]
    draw, pick = question.cost
    rewards = entry.times_asked * (2 if doubled else 1)
    return Price(entry.label, entry.times_asked, draw, pick, rewards)


def with_timing(
    question: Question, at: datetime, seeking_started: datetime | None, phase: str | None
) -> Question:
    """A photo question with its ask time, the game's start and (if not given) its phase.

    The Large-game photo embargo runs from seeking-started (JLTG.EU house rules, Large
    Games, and Time and Location Shifting).
    """
    if not isinstance(question, PhotoQuestion):
        return question
    changes: dict = {"asked_at": at, "started_at": seeking_started}
    if phase is not None:
        changes["phase"] = phase
    return dataclasses.replace(question, **changes)


def check_legal(question: Question, size: str, rules: str) -> None:
    """RuleViolation if ``question`` may not be asked in a game of size ``size``.

    Thermometer distances by size, photo kinds by size and the Large-game photo
    embargo, tentacles radii (JLTG.EU house rules, Thermometer, Photos, Tentacles).
    """
    try:
        if isinstance(question, ThermometerQuestion):
            if question.distance_m is not None:
                check_thermometer_distance(question.distance_m, size)
        elif isinstance(question, PhotoQuestion):
            question.check(size)
        elif isinstance(question, TentaclesQuestion):
            check_tentacles(question.subject, question.radius_m, rules)
    except QuestionError as exc:
        rule = {
            "thermometer": rule_names.THERMOMETER_DISTANCE,
            "photo": rule_names.PHOTOS,
            "tentacles": rule_names.TENTACLES,
        }[question.kind]
        raise RuleViolation(rule, str(exc)) from None


def check_answer(question: Question, answer: str | None) -> None:
    """RuleViolation if ``answer`` is not a valid answer to ``question``."""
    valid = VALID_ANSWERS.get(question.kind)
    text = (answer or "").strip().lower()
    if valid is None:
        if not text:
            raise RuleViolation(
                rule_names.ANSWERS, f"no answer to a {question.kind} question; give one"
            )
        return
    if text not in valid:
        raise RuleViolation(
            rule_names.ANSWERS,
            f"answer {answer!r} to a {question.kind} question; use {', '.join(valid)}",
        )


def next_costs(
    counted: Sequence[Question],
    doubled: set[tuple],
    vetoed: set[tuple],
    photo_phase: str,
    no_photos: str = "",
) -> list[tuple[str, int, int, bool, str]]:
    """(label, draw, pick, allowed, note) of a new question of each kind and of each repeat.

    A repeat's draw and pick are the totals over its sequence of rewards; ``no_photos``
    says why no photo may be asked now (the Large-game embargo), if so.
    """
    out = [(f"new {kind} question", d, p, True, "") for kind, (d, p) in _BASE_COSTS]
    draw, pick = PhotoQuestion("tallest_structure", photo_phase).cost
    note = f"tallest building or structure, traces: draw {draw} pick {pick}"
    photo = PhotoQuestion("tree", photo_phase).cost
    out.append(("new photo", *photo, not no_photos, no_photos or note))
    seen: dict[tuple, Question] = {}
    for q in counted:
        seen[q.cost_key()] = q
    for key, q in seen.items():
        if key in vetoed:
            out.append((f"again: {q.label()}", 0, 0, False, "vetoed: cannot be asked again"))
            continue
        p = price(counted, q, key in doubled)
        note = "doubled (Double or Nothing)" if key in doubled else ""
        if no_photos and q.kind == "photo":
            out.append((f"again: {p.label}", *p.total, False, no_photos))
            continue
        out.append((f"again: {p.label}", *p.total, True, note))
    return out
