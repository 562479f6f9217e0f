"""Open curses by the JLTG.EU house rules: timeouts, blocking, clearing, immediate vetoes.

Pure values only: a curse is opened from what its card prints (timeout, veto, blocks), and
the functions here say what is still open, what it blocks, and what a veto is worth.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

GAME_SIZES = ("S", "M", "L")
#: JLTG.EU house rules, Cards: Curse Timeouts — "automatically be cleared after S 30 M 45 L 60".
DEFAULT_TIMEOUT_MIN = {"S": 30, "M": 45, "L": 60}
#: JLTG.EU house rules, Cards: Immediate Vetoes — no timeout: "S 45 M 60 L 90 minutes".
NO_TIMEOUT_VETO_MIN = {"S": 45, "M": 60, "L": 90}
#: Immediate Vetoes: "1.5 times the timeout period, rounded down to the nearest 15 minutes",
#: then "rounded up to the nearest 5 minutes".
VETO_FACTOR, VETO_FLOOR_MIN, VETO_CEIL_MIN = 1.5, 15, 5
#: What a curse can block (Cards: Blocking).
BLOCKABLE = ("questions", "transit", "curses")
#: Timeouts that are not minutes: until the end of the round, cleared by an event, or
#: printed "None" on the card page (Curse Timeouts).
TIMEOUT_KINDS = ("round", "event", "none")
#: A veto printed "None": the seekers cannot veto the curse.
NO_VETO = "none"


@dataclass(frozen=True)
class BySize:
    """A value printed per game size, e.g. ``S 30 M 45 L 60``; None where not printed."""

    S: float | None = None
    M: float | None = None
    L: float | None = None

    def get(self, size: str) -> float | None:
        """The value for game size ``size`` ("S", "M" or "L"), or None if not given."""
        if size not in GAME_SIZES:
            raise ValueError(f"size {size!r} is not a game size; use S, M or L")
        return getattr(self, size)

    @classmethod
    def of(cls, values: Mapping[str, float]) -> BySize:
        """From a mapping such as ``{"S": 30, "M": 45, "L": 60}``."""
        return cls(**{k: values[k] for k in GAME_SIZES if k in values})


def effective_blocks(blocks: Iterable[str], blocks_curses: bool | None = None) -> frozenset[str]:
    """What an open curse blocks: its card's list, plus curses by the general rule.

    JLTG.EU house rules, Cards: Blocking Further Curses — a curse that blocks questions or
    transit blocks further curses, unless its card page says otherwise (``blocks_curses``).
    """
    out = set(blocks)
    if blocks_curses is None:
        if out & {"questions", "transit"}:
            out.add("curses")
    elif blocks_curses:
        out.add("curses")
    else:
        out.discard("curses")
    return frozenset(out)


def timeout_minutes(timeout: BySize | str | None, size: str) -> float | None:
    """A curse's timeout in minutes for ``size``; None when it has none (round, event, none).

    ``timeout`` None means the card prints nothing: the general S 30 M 45 L 60 applies
    (Curse Timeouts); the card's own value wins otherwise.
    """
    if timeout is None:
        return float(DEFAULT_TIMEOUT_MIN[size])
    if isinstance(timeout, str):
        if timeout not in TIMEOUT_KINDS:
            raise ValueError(f"timeout {timeout!r} is not one of {', '.join(TIMEOUT_KINDS)}")
        return None
    value = timeout.get(size)
    return float(DEFAULT_TIMEOUT_MIN[size]) if value is None else float(value)


def veto_max_minutes(timeout_min: float | None, size: str) -> int:
    """The most an immediate veto is worth: 1.5 x the timeout rounded down to 15 minutes;
    with no timeout, S 45 M 60 L 90 (Immediate Vetoes)."""
    if size not in GAME_SIZES:
        raise ValueError(f"size {size!r} is not a game size; use S, M or L")
    if timeout_min is None:
        return NO_TIMEOUT_VETO_MIN[size]
    return int(VETO_FACTOR * timeout_min // VETO_FLOOR_MIN) * VETO_FLOOR_MIN


def veto_bonus_minutes(
    timeout_min: float | None, size: str, elapsed_min: float, *, max_min: float | None = None
) -> int:
    """The hider's time bonus for an immediate veto after ``elapsed_min`` minutes.

    The maximum (the card's printed veto ``max_min``, else :func:`veto_max_minutes`) minus
    the time elapsed since the curse was played, rounded up to the nearest 5 minutes, never
    below 0. The rules' example: Large, 60 minute timeout, 27 minutes -> 90 - 27 = 63 -> 65.

    Parameters
    ----------
    timeout_min : float or None
        The curse's timeout in minutes; None when it has none.
    size : str
        The game size, "S", "M" or "L".
    elapsed_min : float
        Minutes from the curse being played to the veto being called (>= 0).
    max_min : float, optional
        The veto printed on the card page, which takes precedence.
    """
    if not math.isfinite(elapsed_min) or elapsed_min < 0:
        raise ValueError(f"elapsed_min must be a finite number >= 0, got {elapsed_min!r}")
    top = veto_max_minutes(timeout_min, size) if max_min is None else max_min
    left = max(0.0, top - elapsed_min)
    # A tiny tolerance so 63.0000001 (float minutes from datetimes) is not 70.
    return int(math.ceil(round(left, 6) / VETO_CEIL_MIN)) * VETO_CEIL_MIN


@dataclass(frozen=True)
class OpenCurse:
    """A curse in play.

    Attributes
    ----------
    card_id : str
        The curse card's id.
    cast_at : datetime
        When it was played (the seekers received it).
    timeout_min : float or None
        Minutes after which it clears itself; None: until cleared or the round ends.
    veto_max_min : float or None
        The most an immediate veto is worth; None: it cannot be vetoed.
    blocks : frozenset of str
        What it blocks while open (after the general rule).
    """

    card_id: str
    cast_at: datetime
    timeout_min: float | None
    veto_max_min: float | None
    blocks: frozenset[str]

    @property
    def ends_at(self) -> datetime | None:
        """When the timeout clears it, or None."""
        if self.timeout_min is None:
            return None
        return self.cast_at + timedelta(minutes=self.timeout_min)

    def open_at(self, when: datetime) -> bool:
        """Whether it is still open at ``when`` (not yet timed out)."""
        end = self.ends_at
        return end is None or when < end

    def veto_bonus(self, when: datetime, size: str) -> int:
        """Minutes of time bonus for an immediate veto called at ``when``."""
        elapsed = max(0.0, (when - self.cast_at).total_seconds() / 60.0)
        return veto_bonus_minutes(self.timeout_min, size, elapsed, max_min=self.veto_max_min)


def open_curse(
    card_id: str,
    cast_at: datetime,
    size: str,
    *,
    timeout: BySize | str | None = None,
    veto: BySize | str | None = None,
    blocks: Iterable[str] = (),
    blocks_curses: bool | None = None,
) -> OpenCurse:
    """A curse opened at ``cast_at`` from what its card prints (see :class:`OpenCurse`).

    ``veto`` None takes the general rule (from the timeout); ``"none"`` means no veto.
    """
    t = timeout_minutes(timeout, size)
    if veto == NO_VETO:
        top: float | None = None
    elif isinstance(veto, BySize) and veto.get(size) is not None:
        top = veto.get(size)
    elif veto is None or isinstance(veto, BySize):
        top = float(veto_max_minutes(t, size))
    else:
        raise ValueError(f"veto {veto!r} is not minutes by size or {NO_VETO!r}")
    return OpenCurse(card_id, cast_at, t, top, effective_blocks(blocks, blocks_curses))


def still_open(curses: Iterable[OpenCurse], when: datetime) -> tuple[OpenCurse, ...]:
    """The curses not yet timed out at ``when``; timeouts clear them automatically."""
    return tuple(c for c in curses if c.open_at(when))


def blocks_at(curses: Iterable[OpenCurse], when: datetime) -> frozenset[str]:
    """What the curses open at ``when`` block together: a subset of :data:`BLOCKABLE`."""
    out: set[str] = set()
    for c in still_open(curses, when):
        out |= c.blocks
    return frozenset(out)


def close(curses: Iterable[OpenCurse], card_id: str) -> tuple[OpenCurse, ...] | None:
    """The curses without the oldest open one of ``card_id``; None if none is open."""
    items = list(curses)
    for i, c in enumerate(items):
        if c.card_id == card_id:
            return tuple(items[:i] + items[i + 1 :])
    return None
