"""Route plans: drive time per leg, expected waits, cooldowns and a timeline (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from stations_generator.core.play.clock import clock_json
from stations_generator.core.play.cooldown import COOLDOWN_FACTOR, arrival_cooldown
from stations_generator.core.play.departure import DEFAULT_TABLE, DepartureTable
from stations_generator.core.play.drive import DriveEstimate, DriveTimes
from stations_generator.core.play.routes import ItineraryRoute, Station

__all__ = ["ItineraryPlan", "RoutePlan", "TimelineEvent", "plan_routes", "timeline_json"]


@dataclass(frozen=True)
class TimelineEvent:
    """One line of a timeline.

    Attributes
    ----------
    seconds : float
        Clock time (seconds after midnight of day 0).
    kind : str
        ``"roll"``, ``"depart"``, ``"stop"``, ``"arrive"``, ``"cooldown-end"``.
    station : Station
    text : str
    """

    seconds: float
    kind: str
    station: Station
    text: str


@dataclass(frozen=True)
class RoutePlan:
    """One route's drives, expected wait and cooldown.

    Attributes
    ----------
    item : ItineraryRoute
    legs : list of DriveEstimate
        One per leg of the route as ridden.
    expected_wait_s : float
        At the origin, re-rolls included.
    cooldown_s : float
        At the destination (0 unless transit is in play).
    """

    item: ItineraryRoute
    legs: list[DriveEstimate]
    expected_wait_s: float
    cooldown_s: float

    @property
    def drive_s(self) -> float:
        """Total drive time of the route."""
        return sum(leg.seconds for leg in self.legs)

    @property
    def total_s(self) -> float:
        """Expected wait + drive + cooldown."""
        return self.expected_wait_s + self.drive_s + self.cooldown_s


@dataclass(frozen=True)
class ItineraryPlan:
    """Plans of consecutive routes, with an optional timeline.

    Attributes
    ----------
    routes : list of RoutePlan
    transit_in_play : bool
    start_s : float or None
    timeline : list of TimelineEvent
        Empty without a start time.
    """

    routes: list[RoutePlan]
    transit_in_play: bool
    start_s: float | None = None
    timeline: list[TimelineEvent] = field(default_factory=list)

    @property
    def drive_s(self) -> float:
        """Total drive time."""
        return sum(r.drive_s for r in self.routes)

    @property
    def expected_wait_s(self) -> float:
        """Total expected wait."""
        return sum(r.expected_wait_s for r in self.routes)

    @property
    def cooldown_s(self) -> float:
        """Total cooldown."""
        return sum(r.cooldown_s for r in self.routes)

    @property
    def total_s(self) -> float:
        """Expected door-to-door time."""
        return sum(r.total_s for r in self.routes)


def plan_routes(
    itinerary: Sequence[ItineraryRoute],
    drive_times: DriveTimes,
    *,
    table: DepartureTable = DEFAULT_TABLE,
    transit_in_play: bool = False,
    cooldown_factor: float = COOLDOWN_FACTOR,
    start_s: float | None = None,
) -> ItineraryPlan:
    """Drive time per leg, expected waits and cooldowns, and a timeline.

    Each route rolls once at its origin (expected wait in closed form), drives its
    legs stopping at each station, and — with transit in play — waits
    ``cooldown_factor ×`` its drive time, counted from the departure, at the
    destination. The next route rolls when that cooldown ends.

    Parameters
    ----------
    itinerary : sequence of ItineraryRoute
        From :func:`stations_generator.core.play.routes.plan_itinerary`.
    drive_times : DriveTimes
    table : DepartureTable
    transit_in_play : bool
        Apply the arrival cooldown.
    cooldown_factor : float
    start_s : float, optional
        Clock time of the first roll (seconds after midnight); builds the timeline.

    Returns
    -------
    ItineraryPlan
    """
    plans: list[RoutePlan] = []
    timeline: list[TimelineEvent] = []
    t = start_s
    for item in itinerary:
        route = item.route
        origin = route.origin
        wait_s = float(table.expected_wait(origin.wait_min, origin.wait_max) * 60)
        legs = [drive_times.estimate(a, b) for a, b in route.legs]
        drive = sum(leg.seconds for leg in legs)
        cooldown = cooldown_factor * drive if transit_in_play else 0.0
        plans.append(RoutePlan(item, legs, wait_s, cooldown))
        if t is None:
            continue
        timeline.append(
            TimelineEvent(
                t, "roll", origin, f"roll at {origin.label} (expect {wait_s / 60:.0f} min)"
            )
        )
        t += wait_s
        departed = t
        timeline.append(TimelineEvent(t, "depart", origin, f"leave {origin.label}"))
        for (_, stop), leg in zip(route.legs, legs, strict=True):
            t += leg.seconds
            last = stop.id == route.destination.id
            timeline.append(
                TimelineEvent(
                    t,
                    "arrive" if last else "stop",
                    stop,
                    f"arrive at {stop.label}" if last else f"stop at {stop.label}",
                )
            )
        if transit_in_play:
            t += arrival_cooldown(departed, t, cooldown_factor)
            timeline.append(TimelineEvent(t, "cooldown-end", route.destination, "cooldown ends"))
    return ItineraryPlan(plans, transit_in_play, start_s, timeline)


def timeline_json(plan: ItineraryPlan) -> list[dict[str, object]]:
    """The timeline as plain values for ``--json``.

    Parameters
    ----------
    plan : ItineraryPlan

    Returns
    -------
    list of dict
    """
    return [
        {
            **clock_json(e.seconds),
            "seconds": round(e.seconds, 1),
            "event": e.kind,
            "station": e.station.id,
            "text": e.text,
        }
        for e in plan.timeline
    ]


# --------------------------------------------------------------------------- calibration
