"""Arrival cooldowns and by-request rides (pure).

When real transit is in play, players wait ``2 ×`` the drive time at the
destination, counted from the actual departure, before the next roll
(drive + cooldown ≈ 3 × drive ≈ transit, the game's rules). A by-request ride (taxi,
ride-share) may be requested at ``departure − pickup ETA`` so it arrives when
the rolled wait ends.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "COOLDOWN_FACTOR",
    "TRANSIT_FACTOR",
    "TRANSIT_RANGE",
    "RideRequest",
    "arrival_cooldown",
    "ride_request",
]

COOLDOWN_FACTOR = 2.0
"""Arrival cooldown = 2 × the drive time when real transit is in play (the game's rules)."""

TRANSIT_FACTOR = 3.0
"""Transit-equivalent time ≈ 3 × the drive time: drive + 2 × cooldown (the game's rules)."""

TRANSIT_RANGE = (2.0, 4.0)
"""The rules' range for transit against driving: 2–4 × the drive time."""


def arrival_cooldown(departed_s: float, arrived_s: float, factor: float = COOLDOWN_FACTOR) -> float:
    """Cooldown at the destination: ``factor ×`` the drive from the actual departure.

    Parameters
    ----------
    departed_s, arrived_s : float
        Clock times in seconds; an arrival "before" the departure is read as the
        next day (a drive across midnight).
    factor : float
        2 when real transit is in play (the game's rules).

    Returns
    -------
    float
        Seconds to wait after arriving before the next roll.
    """
    drive = arrived_s - departed_s
    if drive < 0:
        drive += 86400
    return factor * drive


@dataclass(frozen=True)
class RideRequest:
    """When to request a by-request ride so it arrives as the wait ends.

    Attributes
    ----------
    request_s : float
        Clock time to request the ride.
    pickup_s : float
        When the ride arrives.
    late : bool
        The pickup ETA is longer than the wait: request now, the ride is late.
    """

    request_s: float
    pickup_s: float
    late: bool


def ride_request(now_s: float, departure_s: float, pickup_eta_s: float) -> RideRequest:
    """Request time for a by-request ride: ``departure − pickup ETA``, not before now.

    Parameters
    ----------
    now_s : float
        Clock time of the roll.
    departure_s : float
        When the rolled wait ends.
    pickup_eta_s : float
        How long the ride takes to arrive once requested.

    Returns
    -------
    RideRequest
    """
    request = departure_s - pickup_eta_s
    if request < now_s:
        return RideRequest(now_s, now_s + pickup_eta_s, True)
    return RideRequest(request, departure_s, False)


# --------------------------------------------------------------------------- drive times
