"""A departure roll at one station, after the arrival cooldown (pure).

What ``roll`` computes before it prints: the cooldown the ride that brought the
players here imposes (when real transit is in play), the dice, when they leave,
and when to request a by-request ride.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from stations_generator.core.play.cooldown import (
    COOLDOWN_FACTOR,
    RideRequest,
    arrival_cooldown,
    ride_request,
)
from stations_generator.core.play.departure import Departure, DepartureTable, roll_departure
from stations_generator.core.play.routes import Station

__all__ = ["DAY_S", "Cooldown", "StationRoll", "roll_at_station", "roll_cooldown"]

DAY_S = 86400
"""Seconds in a day: clock times past midnight are ``DAY_S`` and more."""


@dataclass(frozen=True)
class Cooldown:
    """The arrival cooldown before a roll.

    Attributes
    ----------
    drive_s : float
        The drive that brought the players here.
    cooldown_s : float
        The wait it imposes (:data:`~stations_generator.core.play.cooldown.COOLDOWN_FACTOR`
        × the drive).
    ends_s : float
        Clock time the cooldown ends (negative: it ended the day before).
    """

    drive_s: float
    cooldown_s: float
    ends_s: float


def roll_cooldown(now_s: int, departed_s: int, arrived_s: int) -> Cooldown:
    """The cooldown of a drive that arrived at or before ``now_s``.

    Parameters
    ----------
    now_s : int
        Clock time of the roll, seconds after midnight.
    departed_s, arrived_s : int
        The drive's departure and arrival, seconds after the departure's midnight
        (an arrival the next day is ``DAY_S`` or more).

    Returns
    -------
    Cooldown
        The arrival is taken as the latest such clock time at or before ``now_s``.
    """
    drive_s = arrived_s - departed_s
    arrived = arrived_s % DAY_S
    arrived_abs = arrived if arrived <= now_s else arrived - DAY_S
    wait_s = arrival_cooldown(arrived_abs - drive_s, arrived_abs, COOLDOWN_FACTOR)
    return Cooldown(drive_s, wait_s, arrived_abs + wait_s)


@dataclass(frozen=True)
class StationRoll:
    """A roll at a station and what follows from it.

    Attributes
    ----------
    station : Station
    table : DepartureTable
        The table rolled against.
    at_s : int
        Clock time the players asked to roll.
    roll_at_s : float
        When they may roll: ``at_s``, or the end of the cooldown if later.
    departure : Departure
        The rolls.
    leave_s : float
        When they leave: ``roll_at_s`` + the rolled wait.
    expected_wait : Fraction
        The station's expected wait in minutes under ``table``.
    cooldown : Cooldown or None
    pickup_eta_min : float or None
        A by-request ride's pickup ETA in minutes.
    request : RideRequest or None
        When to request that ride.
    """

    station: Station
    table: DepartureTable
    at_s: int
    roll_at_s: float
    departure: Departure
    leave_s: float
    expected_wait: Fraction
    cooldown: Cooldown | None
    pickup_eta_min: float | None
    request: RideRequest | None


def roll_at_station(
    station: Station,
    at_s: int,
    table: DepartureTable,
    rng: random.Random,
    *,
    cooldown: Cooldown | None = None,
    pickup_eta_min: float | None = None,
) -> StationRoll:
    """Roll for a departure at ``station``.

    Parameters
    ----------
    station : Station
        Its ``wait_min`` / ``wait_max`` are rolled against.
    at_s : int
        Clock time of the roll, seconds after midnight.
    table : DepartureTable
    rng : random.Random
        The dice (the only randomness used).
    cooldown : Cooldown, optional
        From :func:`roll_cooldown`; the roll waits for its end.
    pickup_eta_min : float, optional
        A by-request ride's pickup ETA: the result says when to request it.

    Returns
    -------
    StationRoll
    """
    roll_at = float(at_s)
    if cooldown is not None:
        roll_at = max(roll_at, cooldown.ends_s)
    departure = roll_departure(station.wait_min, station.wait_max, rng, table)
    leave = roll_at + float(departure.wait_minutes) * 60
    expected = table.expected_wait(station.wait_min, station.wait_max)
    request = (
        ride_request(roll_at, leave, pickup_eta_min * 60) if pickup_eta_min is not None else None
    )
    return StationRoll(
        station, table, at_s, roll_at, departure, leave, expected, cooldown, pickup_eta_min, request
    )
