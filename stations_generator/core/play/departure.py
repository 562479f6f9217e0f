"""The departure roll: dice against a station's wait range (pure: no I/O).

At a vehicle station the players roll 2d6 against the station's wait range
``wait_min``–``wait_max`` (the game's rules, "Vehicle stations")::

    2–3    leave now
    4–6    wait the lower bound
    7–10   wait the upper bound
    11–12  missed: wait the upper bound, then roll again (misses can repeat)

The table is data (:class:`DepartureTable`), not code branches: any number of
dice, any sides, any breakpoints, and any outcome may be marked as a re-roll.

Exact numbers
-------------
For ``k`` dice with ``s`` sides, the probability of each total is counted
exactly (:func:`sum_distribution`, as :class:`fractions.Fraction`). An outcome's
probability ``p_o`` is the sum over its totals. Let ``w_o`` be its wait and
``q = Σ p_o`` over the re-roll outcomes (``q < 1``). A departure is a run of
re-rolls followed by one final roll, so the expected wait is a geometric series::

    E[W] = Σ_{n≥0} q^n · Σ_o p_o·w_o = (Σ_o p_o·w_o) / (1 − q)

and the expected number of rolls is ``1 / (1 − q)``. For the default table,
``p = 1/12, 1/3, 1/2, 1/12`` and ``q = 1/12``, so::

    E[W] = (min/3 + max/2 + max/12) / (11/12) = (4·min + 7·max) / 11
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

__all__ = [
    "DEFAULT_TABLE",
    "DEFAULT_TABLE_SPEC",
    "OUTCOMES",
    "Departure",
    "DepartureTable",
    "Outcome",
    "Roll",
    "TableRow",
    "describe_table",
    "expected_wait",
    "parse_table",
    "roll_departure",
    "roll_dice",
    "sum_distribution",
]

WaitBound = Literal["none", "min", "max"]


@dataclass(frozen=True)
class Outcome:
    """What a roll means: which bound of the range to wait, and whether to roll again.

    Attributes
    ----------
    key : str
        Short name used in table specs and JSON (``"leave"``, ``"min"``, ``"max"``, ``"miss"``).
    label : str
        Human text, e.g. ``"wait the lower bound"``.
    wait : {"none", "min", "max"}
        Wait nothing, the range's lower bound or its upper bound.
    reroll : bool
        After the wait, roll again (a missed departure).
    """

    key: str
    label: str
    wait: WaitBound
    reroll: bool = False

    def wait_minutes(self, wait_min: int | Fraction, wait_max: int | Fraction) -> int | Fraction:
        """The wait this outcome asks for at a station with the given range.

        Parameters
        ----------
        wait_min, wait_max : int or Fraction
            The station's wait range in minutes.

        Returns
        -------
        int or Fraction
            0, ``wait_min`` or ``wait_max``.
        """
        if self.wait == "min":
            return wait_min
        if self.wait == "max":
            return wait_max
        return 0


OUTCOMES: dict[str, Outcome] = {
    "leave": Outcome("leave", "leave now", "none"),
    "min": Outcome("min", "wait the lower bound", "min"),
    "max": Outcome("max", "wait the upper bound", "max"),
    "miss": Outcome("miss", "missed: wait the upper bound, roll again", "max", reroll=True),
}
"""The outcomes a table spec can name."""


@dataclass(frozen=True)
class TableRow:
    """Dice totals ``low``–``high`` (inclusive) give ``outcome``."""

    low: int
    high: int
    outcome: Outcome


def sum_distribution(dice: int, sides: int) -> dict[int, Fraction]:
    """Exact probability of every total of ``dice`` fair dice with ``sides`` sides.

    Parameters
    ----------
    dice : int
        Number of dice (≥ 1).
    sides : int
        Sides per die (≥ 2), numbered 1..sides.

    Returns
    -------
    dict[int, Fraction]
        Total -> probability, for every total from ``dice`` to ``dice * sides``.

    Raises
    ------
    ValueError
        If ``dice < 1`` or ``sides < 2``.
    """
    if dice < 1 or sides < 2:
        raise ValueError(f"need at least 1 die with at least 2 sides, got {dice}d{sides}")
    # Count the ways to reach each total, one die at a time (a convolution).
    ways: dict[int, int] = {0: 1}
    for _ in range(dice):
        nxt: dict[int, int] = {}
        for total, count in ways.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + count
        ways = nxt
    outcomes = sides**dice
    return {total: Fraction(count, outcomes) for total, count in sorted(ways.items())}


@dataclass(frozen=True)
class DepartureTable:
    """Breakpoints -> outcomes for a roll of ``dice``d``sides``.

    The rows must cover every possible total exactly once, in increasing order,
    and re-rolls must not be certain (else a departure would never end).

    Attributes
    ----------
    rows : tuple of TableRow
    dice, sides : int
        The dice rolled (2d6 by default).
    """

    rows: tuple[TableRow, ...]
    dice: int = 2
    sides: int = 6

    def __post_init__(self) -> None:
        lowest, highest = self.dice, self.dice * self.sides
        if self.dice < 1 or self.sides < 2:
            raise ValueError(
                f"need at least 1 die with at least 2 sides, got {self.dice}d{self.sides}"
            )
        if not self.rows:
            raise ValueError("a departure table needs at least one row")
        expected = lowest
        for row in self.rows:
            if row.low > row.high:
                raise ValueError(f"row {row.low}-{row.high}: the low total is above the high one")
            if row.low != expected:
                what = "missing" if row.low > expected else "covered twice"
                where = f"{expected}-{row.low - 1}" if row.low > expected else f"{row.low}"
                raise ValueError(
                    f"totals {where} are {what}; rows must cover {lowest}-{highest} once, in order"
                )
            expected = row.high + 1
        if expected != highest + 1:
            raise ValueError(
                f"the last row ends at {expected - 1}; rows must cover {lowest}-{highest} "
                f"for {self.dice}d{self.sides}"
            )
        if self.miss_probability() >= 1:
            raise ValueError("every total re-rolls; at least one outcome must end the departure")

    # -- lookups -------------------------------------------------------------

    def outcome_for(self, total: int) -> Outcome:
        """The outcome of a dice total.

        Parameters
        ----------
        total : int
            Sum of the dice.

        Returns
        -------
        Outcome

        Raises
        ------
        ValueError
            If no row covers ``total`` (it cannot come from these dice).
        """
        for row in self.rows:
            if row.low <= total <= row.high:
                return row.outcome
        raise ValueError(f"{total} cannot be rolled with {self.dice}d{self.sides}")

    @property
    def spec(self) -> str:
        """The table as a spec string, e.g. ``"2-3:leave,4-6:min,7-10:max,11-12:miss"``."""
        parts = []
        for row in self.rows:
            span = str(row.low) if row.low == row.high else f"{row.low}-{row.high}"
            parts.append(f"{span}:{row.outcome.key}")
        return ",".join(parts)

    # -- exact probabilities ------------------------------------------------

    def outcome_probabilities(self) -> dict[str, Fraction]:
        """Exact probability of each outcome of one roll, keyed by outcome key.

        Returns
        -------
        dict[str, Fraction]
            In the order outcomes first appear in the table; they sum to 1.
        """
        dist = sum_distribution(self.dice, self.sides)
        probs: dict[str, Fraction] = {}
        for row in self.rows:
            p = sum((dist[t] for t in range(row.low, row.high + 1)), Fraction(0))
            probs[row.outcome.key] = probs.get(row.outcome.key, Fraction(0)) + p
        return probs

    def row_probabilities(self) -> list[tuple[TableRow, Fraction]]:
        """Exact probability of each row of the table.

        Returns
        -------
        list of (TableRow, Fraction)
        """
        dist = sum_distribution(self.dice, self.sides)
        return [
            (row, sum((dist[t] for t in range(row.low, row.high + 1)), Fraction(0)))
            for row in self.rows
        ]

    def miss_probability(self) -> Fraction:
        """Probability ``q`` that one roll asks for another roll.

        Returns
        -------
        Fraction
        """
        return sum((p for row, p in self.row_probabilities() if row.outcome.reroll), Fraction(0))

    def expected_rolls(self) -> Fraction:
        """Expected number of rolls per departure, ``1 / (1 − q)`` (geometric).

        Returns
        -------
        Fraction
        """
        return 1 / (1 - self.miss_probability())

    def expected_wait(self, wait_min: int | Fraction, wait_max: int | Fraction) -> Fraction:
        """Exact expected total wait, re-rolls included, in closed form.

        ``E[W] = (Σ_o p_o·w_o) / (1 − q)`` — see the module docstring.

        Parameters
        ----------
        wait_min, wait_max : int or Fraction
            The station's wait range in minutes.

        Returns
        -------
        Fraction
            Minutes; ``(4·min + 7·max) / 11`` for the default table.
        """
        wait_min, wait_max = Fraction(wait_min), Fraction(wait_max)
        per_roll = sum(
            (p * Fraction(row.outcome.wait_minutes(wait_min, wait_max)))
            for row, p in self.row_probabilities()
        )
        return Fraction(per_roll) / (1 - self.miss_probability())

    def wait_coefficients(self) -> tuple[Fraction, Fraction]:
        """``(a, b)`` with ``E[W] = a·min + b·max`` for any range.

        Returns
        -------
        tuple[Fraction, Fraction]
            ``(4/11, 7/11)`` for the default table.
        """
        return self.expected_wait(1, 0), self.expected_wait(0, 1)


def parse_table(text: str, dice: int = 2, sides: int = 6) -> DepartureTable:
    """Read a table spec such as ``"2-3:leave,4-6:min,7-10:max,11-12:miss"``.

    Parameters
    ----------
    text : str
        Comma-separated ``LOW-HIGH:OUTCOME`` (or ``TOTAL:OUTCOME``) rows, in
        increasing order; outcomes are the keys of :data:`OUTCOMES`.
    dice, sides : int
        The dice rolled.

    Returns
    -------
    DepartureTable

    Raises
    ------
    ValueError
        With a one-line message showing the expected form.
    """
    rows: list[TableRow] = []
    for part in text.split(","):
        part = part.strip()
        try:
            span, key = (s.strip() for s in part.split(":"))
            low_text, _, high_text = span.partition("-")
            low = int(low_text)
            high = int(high_text) if high_text else low
        except ValueError:
            raise ValueError(
                f"cannot read table row {part!r}; write LOW-HIGH:OUTCOME, e.g. {DEFAULT_TABLE_SPEC}"
            ) from None
        outcome = OUTCOMES.get(key.lower())
        if outcome is None:
            raise ValueError(
                f"unknown outcome {key!r} in table row {part!r}; use one of: " + ", ".join(OUTCOMES)
            )
        rows.append(TableRow(low, high, outcome))
    return DepartureTable(tuple(rows), dice, sides)


DEFAULT_TABLE_SPEC = "2-3:leave,4-6:min,7-10:max,11-12:miss"
"""The rules' 2d6 table (the game's "Departure roll")."""

DEFAULT_TABLE = parse_table(DEFAULT_TABLE_SPEC)


def expected_wait(
    wait_min: int | Fraction, wait_max: int | Fraction, table: DepartureTable = DEFAULT_TABLE
) -> Fraction:
    """Exact expected wait with re-rolls; see :meth:`DepartureTable.expected_wait`.

    Parameters
    ----------
    wait_min, wait_max : int or Fraction
        The station's wait range in minutes.
    table : DepartureTable
        Defaults to the rules' 2d6 table.

    Returns
    -------
    Fraction
        Minutes.
    """
    return table.expected_wait(wait_min, wait_max)


# --------------------------------------------------------------------------- rolling


@dataclass(frozen=True)
class Roll:
    """One roll of the dice and what it means at this station.

    Attributes
    ----------
    dice : tuple of int
        The faces rolled.
    outcome : Outcome
    wait_minutes : int or Fraction
        The wait this roll adds.
    """

    dice: tuple[int, ...]
    outcome: Outcome
    wait_minutes: int | Fraction

    @property
    def total(self) -> int:
        """Sum of the dice."""
        return sum(self.dice)


@dataclass(frozen=True)
class Departure:
    """The rolls of one departure, the last of which ends it.

    Attributes
    ----------
    rolls : tuple of Roll
    wait_min, wait_max : int or Fraction
        The station's range the rolls were made against.
    """

    rolls: tuple[Roll, ...]
    wait_min: int | Fraction
    wait_max: int | Fraction

    @property
    def wait_minutes(self) -> int | Fraction:
        """Total wait of every roll (missed departures included)."""
        return sum((r.wait_minutes for r in self.rolls), 0)

    @property
    def misses(self) -> int:
        """How many rolls asked for another roll."""
        return sum(1 for r in self.rolls if r.outcome.reroll)

    @property
    def final(self) -> Roll:
        """The roll that ended the departure."""
        return self.rolls[-1]


def roll_dice(rng: random.Random, dice: int = 2, sides: int = 6) -> tuple[int, ...]:
    """Roll ``dice`` fair dice with ``sides`` sides.

    Parameters
    ----------
    rng : random.Random
        Injected: ``random.Random(seed)`` for reproducible tests,
        ``random.SystemRandom()`` for play.
    dice, sides : int

    Returns
    -------
    tuple of int
        The faces, in the order rolled.
    """
    return tuple(rng.randint(1, sides) for _ in range(dice))


def roll_departure(
    wait_min: int | Fraction,
    wait_max: int | Fraction,
    rng: random.Random,
    table: DepartureTable = DEFAULT_TABLE,
    *,
    max_rolls: int = 1000,
) -> Departure:
    """Roll for a departure until an outcome ends it.

    Parameters
    ----------
    wait_min, wait_max : int or Fraction
        The station's wait range in minutes (``0 ≤ wait_min ≤ wait_max``).
    rng : random.Random
        Injected random source (see :func:`roll_dice`).
    table : DepartureTable
        Defaults to the rules' 2d6 table.
    max_rolls : int
        Safety stop for tables whose misses are very likely; with the default
        table 1000 misses in a row has probability 12⁻¹⁰⁰⁰.

    Returns
    -------
    Departure

    Raises
    ------
    ValueError
        If the range is invalid or ``max_rolls`` rolls all missed.
    """
    if not 0 <= wait_min <= wait_max:
        raise ValueError(f"wait range {wait_min}-{wait_max} must have 0 ≤ min ≤ max")
    rolls: list[Roll] = []
    for _ in range(max_rolls):
        faces = roll_dice(rng, table.dice, table.sides)
        outcome = table.outcome_for(sum(faces))
        rolls.append(Roll(faces, outcome, outcome.wait_minutes(wait_min, wait_max)))
        if not outcome.reroll:
            return Departure(tuple(rolls), wait_min, wait_max)
    raise ValueError(f"{max_rolls} missed departures in a row; check the table")


def describe_table(table: DepartureTable = DEFAULT_TABLE) -> list[tuple[str, str, Fraction]]:
    """Rows as ``(totals, outcome label, probability)`` for display.

    Parameters
    ----------
    table : DepartureTable

    Returns
    -------
    list of (str, str, Fraction)
    """
    out = []
    for row, p in table.row_probabilities():
        span = str(row.low) if row.low == row.high else f"{row.low}–{row.high}"
        out.append((span, row.outcome.label, p))
    return out
