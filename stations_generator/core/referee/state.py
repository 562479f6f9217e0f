"""What the referee knows at one moment of a round: the snapshot a replay returns (pure).

:class:`GameState` holds the clock, the open question and its deadline, the cost
ledger, the hider's cards and open curses, what the seekers may ask now and what it
costs, and the warnings; :meth:`GameState.to_dict` is its JSON form.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


@dataclass(frozen=True)
class Clock:
    """The round's times at ``at`` (minutes are floats).

    ``game_min`` is the game (seeking) time counted for the hider: from seeking-started
    to the hider found (or the maximum game time), less unscheduled breaks and the
    time paused by late answers; ``total_min`` adds the time bonuses in the hand.
    """

    at: datetime
    phase: str  # "before", "hiding", "seeking", "end game", "found", "over"
    hiding_started: datetime | None
    hiding_ends: datetime | None
    hiding_left_min: float | None
    seeking_started: datetime | None
    seeking_wall_min: float
    breaks_min: float
    paused_min: float
    game_min: float
    max_game_min: float | None
    round_ends: datetime | None
    lunch: dict[str, datetime]  # team -> start
    in_lunch: bool
    in_break: bool
    bonus_min: float | None
    total_min: float | None


@dataclass(frozen=True)
class LedgerRow:
    """One question asked, with what it costs and what the hider got for it."""

    id: str
    label: str
    kind: str
    asked_at: datetime
    deadline: datetime
    times_asked: int
    draw: int
    pick: int
    answered_at: datetime | None = None
    answer: str | None = None
    card: str | None = None
    reward: str = "open"  # "open", "earned", "late: none", "vetoed: none", …


@dataclass(frozen=True)
class NextCost:
    """What asking a question of this kind (or this repeat) costs now."""

    label: str
    draw: int
    pick: int
    allowed: bool = True
    note: str = ""


@dataclass(frozen=True)
class CardsView:
    """The hider's cards: the hand, the deck and discard counts, the open curses."""

    hand: tuple[str, ...]
    deck: int
    discard: int
    hand_limit: int | None
    curses: tuple[dict[str, Any], ...]  # {"card", "cast_at", "timeout", "veto_min"}
    blocks: tuple[str, ...]
    pending_rewards: int | None = None


@dataclass(frozen=True)
class HintRow:
    """A hint the hider gave: accepted by the seekers (Draw 1, Pick 1) or unasked (free)."""

    at: datetime
    accepted: bool
    reward: str  # "draw 1 pick 1" or "free"
    note: str | None = None


@dataclass(frozen=True)
class FreeRow:
    """A free question (no reward, no time to answer, not in the one-question slot)."""

    at: datetime
    free: str  # a key of events.FREE_QUESTIONS
    question: str  # its words
    answer: str | None = None
    exit_blue_lines: bool | None = None  # "Are you within the blue lines?" only


@dataclass(frozen=True)
class GameState:
    """The referee's view of the round at ``clock.at``."""

    size: str
    clock: Clock
    open_question: LedgerRow | None
    thermometer: dict[str, Any] | None
    ledger: tuple[LedgerRow, ...]
    can_ask: bool
    cannot_ask_because: tuple[str, ...]
    next_costs: tuple[NextCost, ...]
    vetoed: tuple[str, ...]
    cards: CardsView | None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    hints: tuple[HintRow, ...] = ()
    free_questions: tuple[FreeRow, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data (times as ISO strings)."""
        return _jsonable(asdict(self))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime):
        return _iso(value)
    if isinstance(value, float):
        return round(value, 2)
    return value
