"""Drive times, arrival cooldowns, ride requests, route timelines and calibration (pure).

Everything here computes on data already in memory — a road graph (an osmnx
``MultiDiGraph``, built by :mod:`stations_generator.osm.roads`), stations and
clock times — and does no I/O.

Drive times
-----------
With a road graph, a drive is the fastest path (by ``travel_time``) between the
graph nodes nearest the two stations, in the graph's largest strongly connected
component (so every pair has a path even in an extract clipped at its edges).
Without one — or for a station farther than :data:`MAX_SNAP_M` from any road
node — the drive is the great-circle distance at :data:`GREAT_CIRCLE_SPEED_KPH`,
labelled ``method="great-circle"``.

Cooldown and by-request rides (DESIGN §1)
-----------------------------------------
When real transit is in play, players wait ``2 ×`` the drive time at the
destination, counted from the actual departure, before the next roll
(drive + cooldown ≈ 3 × drive ≈ transit). A by-request ride (taxi,
ride-share) may be requested at ``departure − pickup ETA`` so it arrives when
the rolled wait ends.
"""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, Protocol

import networkx as nx

from stations_generator.core.geo.geodesy import geodesic_distance
from stations_generator.core.play.departure import DEFAULT_TABLE, DepartureTable
from stations_generator.core.play.routes import ItineraryRoute, Station

__all__ = [
    "COOLDOWN_FACTOR",
    "GREAT_CIRCLE_SPEED_KPH",
    "MAX_SNAP_M",
    "ROAD_SPEEDS_KPH",
    "TRANSIT_FACTOR",
    "TRANSIT_RANGE",
    "UNKNOWN_ROAD_SPEED_KPH",
    "Calibration",
    "CalibrationPair",
    "DriveEstimate",
    "DriveTimes",
    "GreatCircleDriveTimes",
    "ItineraryPlan",
    "RideRequest",
    "RoadDriveTimes",
    "RoutePlan",
    "TierSummary",
    "TimelineEvent",
    "add_travel_times",
    "arrival_cooldown",
    "calibrate",
    "clock_json",
    "format_clock",
    "great_circle_estimate",
    "graph_max_speed_kph",
    "parse_clock",
    "plan_routes",
    "ride_request",
    "sample_pairs",
    "timeline_json",
]

Method = Literal["road", "great-circle"]

GREAT_CIRCLE_SPEED_KPH = 40.0
"""Assumed average speed along the straight line when there is no road path.

An assumption, not a measurement: roads are ~1.3× longer than the straight line,
so 40 km/h on the great circle is ~50 km/h on the road — between town streets
(30–50 km/h) and rural roads (60–80 km/h).
"""

ROAD_SPEEDS_KPH: dict[str, float] = {
    "motorway": 100.0,
    "motorway_link": 60.0,
    "trunk": 80.0,
    "trunk_link": 50.0,
    "primary": 60.0,
    "primary_link": 40.0,
    "secondary": 50.0,
    "secondary_link": 40.0,
    "tertiary": 50.0,
    "tertiary_link": 40.0,
    "unclassified": 40.0,
    "residential": 30.0,
    "living_street": 20.0,
    "road": 40.0,
}
"""Speeds (km/h) assumed for a road class none of whose roads in the graph has a
numeric ``maxspeed``; classes with some keep osmnx's imputation (their mean).
Typical European urban/rural limits; assumptions, stated so they can be changed."""

UNKNOWN_ROAD_SPEED_KPH = 40.0
"""Speed for road classes in neither the data nor :data:`ROAD_SPEEDS_KPH`."""

MAX_SNAP_M = 500.0
"""A station farther than this from the road graph is off it (great-circle fallback)."""

COOLDOWN_FACTOR = 2.0
"""Arrival cooldown = 2 × the drive time when real transit is in play (DESIGN §1)."""

TRANSIT_FACTOR = 3.0
"""Transit-equivalent time ≈ 3 × the drive time: drive + 2 × cooldown (DESIGN §1)."""

TRANSIT_RANGE = (2.0, 4.0)
"""The rules' range for transit against driving: 2–4 × the drive time."""


# --------------------------------------------------------------------------- clock


def parse_clock(text: str) -> int:
    """Read a 24-hour ``HH:MM`` clock time as seconds after midnight.

    Parameters
    ----------
    text : str
        ``"14:05"``, ``"7:30"``, ``"00:00"``.

    Returns
    -------
    int
        Seconds after midnight, 0–86340.

    Raises
    ------
    ValueError
        With a one-line message if ``text`` is not such a time.
    """
    hours, sep, minutes = text.strip().partition(":")
    ok = (
        sep == ":"
        and hours.isdigit()
        and minutes.isdigit()
        and 1 <= len(hours) <= 2
        and len(minutes) == 2
        and int(hours) < 24
        and int(minutes) < 60
    )
    if not ok:
        raise ValueError(f"{text!r} is not a clock time; write HH:MM (24-hour), e.g. 14:05")
    return int(hours) * 3600 + int(minutes) * 60


def format_clock(seconds: float) -> str:
    """Format seconds after midnight of day 0 as ``HH:MM``, with ``+Nd`` on later days.

    Rounded to the nearest minute (half a minute rounds up).

    Parameters
    ----------
    seconds : float
        May exceed a day: ``86400 + 600`` is ``"00:10 +1d"``.

    Returns
    -------
    str
    """
    minutes = math.floor(seconds / 60 + 0.5)
    day, minute_of_day = divmod(minutes, 24 * 60)
    text = f"{minute_of_day // 60:02d}:{minute_of_day % 60:02d}"
    if day > 0:
        text += f" +{day}d"
    elif day < 0:
        text += f" {day}d"
    return text


def clock_json(seconds: float) -> dict[str, object]:
    """A clock time as ``{"time": "HH:MM", "day": N}`` (day 0 = the day play started).

    Parameters
    ----------
    seconds : float
        Seconds after midnight of day 0; rounded to the minute as :func:`format_clock`.

    Returns
    -------
    dict
    """
    minutes = math.floor(seconds / 60 + 0.5)
    day, minute_of_day = divmod(minutes, 24 * 60)
    return {"time": f"{minute_of_day // 60:02d}:{minute_of_day % 60:02d}", "day": day}


# --------------------------------------------------------------------------- cooldown, rides


def arrival_cooldown(departed_s: float, arrived_s: float, factor: float = COOLDOWN_FACTOR) -> float:
    """Cooldown at the destination: ``factor ×`` the drive from the actual departure.

    Parameters
    ----------
    departed_s, arrived_s : float
        Clock times in seconds; an arrival "before" the departure is read as the
        next day (a drive across midnight).
    factor : float
        2 when real transit is in play (DESIGN §1).

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


@dataclass(frozen=True)
class DriveEstimate:
    """One drive between two stations.

    Attributes
    ----------
    seconds : float
    metres : float
        Along the roads, or along the great circle.
    method : {"road", "great-circle"}
    reason : str
        Why the great circle was used ("" for roads).
    from_node, to_node : int or None
        The road graph nodes the stations were snapped to.
    snap_m : tuple of float
        Station-to-node distances (0 for great-circle estimates).
    off_road : tuple of str
        Labels of the stations too far from the road graph, if that is the reason.
    """

    seconds: float
    metres: float
    method: Method
    reason: str = ""
    from_node: int | None = None
    to_node: int | None = None
    snap_m: tuple[float, float] = (0.0, 0.0)
    off_road: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        """Plain values for ``--json`` output."""
        out: dict[str, object] = {
            "seconds": round(self.seconds, 1),
            "metres": round(self.metres, 1),
            "method": self.method,
        }
        if self.reason:
            out["reason"] = self.reason
        return out


def great_circle_estimate(
    a: Station, b: Station, speed_kph: float = GREAT_CIRCLE_SPEED_KPH, reason: str = ""
) -> DriveEstimate:
    """Drive estimate along the great circle at an assumed speed.

    Parameters
    ----------
    a, b : Station
    speed_kph : float
        Assumed average speed (:data:`GREAT_CIRCLE_SPEED_KPH`).
    reason : str
        Why there is no road estimate.

    Returns
    -------
    DriveEstimate
        ``method="great-circle"``.
    """
    metres = float(geodesic_distance(a.lon, a.lat, b.lon, b.lat))
    return DriveEstimate(metres / (speed_kph / 3.6), metres, "great-circle", reason)


class DriveTimes(Protocol):
    """Anything that estimates drives between stations."""

    def estimate(self, a: Station, b: Station) -> DriveEstimate:
        """Drive from ``a`` to ``b``.

        Parameters
        ----------
        a, b : Station

        Returns
        -------
        DriveEstimate
        """
        ...

    def from_origin(self, a: Station, targets: Sequence[Station]) -> list[DriveEstimate]:
        """Drives from ``a`` to each of ``targets``, in their order.

        Parameters
        ----------
        a : Station
        targets : sequence of Station

        Returns
        -------
        list of DriveEstimate
        """
        ...

    def describe(self) -> str:
        """One line saying where the drive times come from."""
        ...


@dataclass
class GreatCircleDriveTimes:
    """Great-circle drive times at an assumed average speed (no road graph).

    Attributes
    ----------
    speed_kph : float
    reason : str
    """

    speed_kph: float = GREAT_CIRCLE_SPEED_KPH
    reason: str = "no road graph"

    def estimate(self, a: Station, b: Station) -> DriveEstimate:
        """Great-circle estimate from ``a`` to ``b``.

        Parameters
        ----------
        a, b : Station

        Returns
        -------
        DriveEstimate
        """
        return great_circle_estimate(a, b, self.speed_kph, self.reason)

    def from_origin(self, a: Station, targets: Sequence[Station]) -> list[DriveEstimate]:
        """Great-circle estimates from ``a`` to each target.

        Parameters
        ----------
        a : Station
        targets : sequence of Station

        Returns
        -------
        list of DriveEstimate
        """
        return [self.estimate(a, b) for b in targets]

    def describe(self) -> str:
        """One line for the output header."""
        return f"great circle at {self.speed_kph:g} km/h ({self.reason})"


def _first(value: object) -> object:
    return value[0] if isinstance(value, list) and value else value


def _has_number(value: object) -> bool:
    values = value if isinstance(value, list) else [value]
    return any(isinstance(v, str) and v.strip()[:1].isdigit() for v in values)


_ROAD_RANK = {name: i for i, name in enumerate(ROAD_SPEEDS_KPH)}


def _order_merged_tags(graph: nx.MultiDiGraph) -> None:
    """Give list-valued ``highway`` / ``maxspeed`` tags a fixed order.

    osmnx's simplification merges the tags of the ways it joins into lists whose
    order follows a set's (it changes with the string hash seed), and osmnx then
    takes the first ``highway`` as the edge's road class. Putting the highest
    road class first makes the speeds, and so every drive time, reproducible.
    """
    for _, _, data in graph.edges(data=True):
        highway = data.get("highway")
        if isinstance(highway, list):
            data["highway"] = sorted(highway, key=lambda h: (_ROAD_RANK.get(h, 99), str(h)))
        maxspeed = data.get("maxspeed")
        if isinstance(maxspeed, list):
            data["maxspeed"] = sorted(maxspeed, key=str)


def add_travel_times(
    graph: nx.MultiDiGraph,
    speeds: Mapping[str, float] = ROAD_SPEEDS_KPH,
    fallback_kph: float = UNKNOWN_ROAD_SPEED_KPH,
) -> nx.MultiDiGraph:
    """Add ``speed_kph`` and ``travel_time`` (seconds) to every edge, with osmnx.

    Road classes with numeric ``maxspeed`` data keep osmnx's imputation (edges
    without a limit get their class's mean); classes without any get ``speeds``,
    and classes in neither get ``fallback_kph``.

    Parameters
    ----------
    graph : networkx.MultiDiGraph
        An osmnx road graph with ``length`` on its edges; modified in place.
    speeds : Mapping[str, float]
        km/h per ``highway`` value (:data:`ROAD_SPEEDS_KPH`).
    fallback_kph : float

    Returns
    -------
    networkx.MultiDiGraph
        The same graph.
    """
    import osmnx as ox

    if graph.number_of_edges() == 0:
        return graph
    _order_merged_tags(graph)
    observed = {
        _first(d.get("highway"))
        for _, _, d in graph.edges(data=True)
        if _has_number(d.get("maxspeed"))
    }
    imputed = {k: float(v) for k, v in speeds.items() if k not in observed}
    ox.routing.add_edge_speeds(graph, hwy_speeds=imputed or None, fallback=fallback_kph)
    ox.routing.add_edge_travel_times(graph)
    return graph


def graph_max_speed_kph(graph: nx.MultiDiGraph) -> float:
    """The highest ``speed_kph`` of any edge (0 for a graph without edges).

    Parameters
    ----------
    graph : networkx.MultiDiGraph

    Returns
    -------
    float
    """
    return max((float(d["speed_kph"]) for _, _, d in graph.edges(data=True)), default=0.0)


def _path_metres(graph: nx.MultiDiGraph, path: Sequence[int], weight: str) -> float:
    total = 0.0
    for u, v in zip(path[:-1], path[1:], strict=True):
        edges = graph.get_edge_data(u, v)
        best = min(edges.values(), key=lambda d: d[weight])
        total += float(best["length"])
    return total


class RoadDriveTimes:
    """Fastest-path drive times on a road graph.

    Parameters
    ----------
    graph : networkx.MultiDiGraph
        An unprojected osmnx graph with ``travel_time`` on its edges (see
        :func:`add_travel_times`).
    max_snap_m : float
        Stations farther than this from the graph fall back to the great circle.
    fallback_speed_kph : float
        Speed for those great-circle estimates.
    source : str
        Where the graph came from, for :meth:`describe`.
    """

    weight = "travel_time"

    def __init__(
        self,
        graph: nx.MultiDiGraph,
        *,
        max_snap_m: float = MAX_SNAP_M,
        fallback_speed_kph: float = GREAT_CIRCLE_SPEED_KPH,
        source: str = "road graph",
    ) -> None:
        import osmnx as ox

        self.full_graph = graph
        if graph.number_of_nodes() == 0:
            raise ValueError("the road graph is empty")
        self.graph = ox.truncate.largest_component(graph, strongly=True)
        self.max_snap_m = max_snap_m
        self.fallback_speed_kph = fallback_speed_kph
        self.source = source
        self._snaps: dict[str, tuple[int, float]] = {}

    def describe(self) -> str:
        """One line for the output header."""
        g = self.graph
        return f"roads of {self.source} ({g.number_of_nodes()} nodes, {g.number_of_edges()} edges)"

    def snap_all(self, stations: Iterable[Station]) -> None:
        """Find the nearest graph node of many stations in one vectorised query.

        Parameters
        ----------
        stations : iterable of Station
        """
        import osmnx as ox

        todo = [s for s in stations if s.id not in self._snaps]
        if not todo:
            return
        nodes, dists = ox.distance.nearest_nodes(
            self.graph, [s.lon for s in todo], [s.lat for s in todo], return_dist=True
        )
        for s, n, d in zip(todo, nodes, dists, strict=True):
            self._snaps[s.id] = (int(n), float(d))

    def snap(self, station: Station) -> tuple[int, float]:
        """The nearest node of the graph and its distance in metres.

        Parameters
        ----------
        station : Station

        Returns
        -------
        (int, float)
        """
        self.snap_all([station])
        return self._snaps[station.id]

    def _fallback(
        self, a: Station, b: Station, snaps: tuple[tuple[int, float], tuple[int, float]]
    ) -> DriveEstimate | None:
        (na, da), (nb, db) = snaps
        far = [s for s, d in ((a, da), (b, db)) if d > self.max_snap_m]
        if far:
            names = " and ".join(s.label for s in far)
            estimate = great_circle_estimate(
                a, b, self.fallback_speed_kph, f"{names} over {self.max_snap_m:g} m from a road"
            )
            return dataclasses.replace(estimate, off_road=tuple(s.label for s in far))
        if na == nb:
            return great_circle_estimate(
                a, b, self.fallback_speed_kph, "both nearest the same road node"
            )
        return None

    def estimate(self, a: Station, b: Station) -> DriveEstimate:
        """Fastest drive from ``a`` to ``b``.

        Parameters
        ----------
        a, b : Station

        Returns
        -------
        DriveEstimate
            ``method="road"``, or a labelled great-circle estimate when a station is
            off the graph or no path exists.
        """
        self.snap_all([a, b])
        snaps = (self._snaps[a.id], self._snaps[b.id])
        fallback = self._fallback(a, b, snaps)
        if fallback is not None:
            return fallback
        (na, da), (nb, db) = snaps
        try:
            seconds, path = nx.single_source_dijkstra(self.graph, na, nb, weight=self.weight)
        except nx.NetworkXNoPath:
            return great_circle_estimate(a, b, self.fallback_speed_kph, "no road path")
        metres = _path_metres(self.graph, path, self.weight)
        return DriveEstimate(float(seconds), metres, "road", "", na, nb, (da, db))

    def from_origin(self, a: Station, targets: Sequence[Station]) -> list[DriveEstimate]:
        """Fastest drives from ``a`` to each target, with one Dijkstra search.

        Parameters
        ----------
        a : Station
        targets : sequence of Station

        Returns
        -------
        list of DriveEstimate
            In the order of ``targets``.
        """
        self.snap_all([a, *targets])
        na, da = self._snaps[a.id]
        seconds, paths = nx.single_source_dijkstra(self.graph, na, weight=self.weight)
        out = []
        for b in targets:
            nb, db = self._snaps[b.id]
            fallback = self._fallback(a, b, ((na, da), (nb, db)))
            if fallback is not None:
                out.append(fallback)
            elif nb not in seconds:
                out.append(great_circle_estimate(a, b, self.fallback_speed_kph, "no road path"))
            else:
                metres = _path_metres(self.graph, paths[nb], self.weight)
                out.append(DriveEstimate(float(seconds[nb]), metres, "road", "", na, nb, (da, db)))
        return out


# --------------------------------------------------------------------------- route plans


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


@dataclass(frozen=True)
class CalibrationPair:
    """Expected door-to-door time by vehicle for one ordered station pair.

    Attributes
    ----------
    origin, destination : Station
    drive : DriveEstimate
    expected_wait_s : float
        At the origin, re-rolls included.
    cooldown_s : float
    target_factor : float
        The transit-equivalent target is ``target_factor ×`` the drive time.
    """

    origin: Station
    destination: Station
    drive: DriveEstimate
    expected_wait_s: float
    cooldown_s: float
    target_factor: float = TRANSIT_FACTOR

    @property
    def vehicle_s(self) -> float:
        """Expected wait + drive + cooldown."""
        return self.expected_wait_s + self.drive.seconds + self.cooldown_s

    @property
    def target_s(self) -> float:
        """Transit-equivalent time, ``target_factor ×`` the drive."""
        return self.target_factor * self.drive.seconds

    @property
    def ratio(self) -> float:
        """Vehicle time over the target (1 = on target)."""
        return self.vehicle_s / self.target_s

    @property
    def drive_multiple(self) -> float:
        """Vehicle time over the drive time (the rules want 2–4)."""
        return self.vehicle_s / self.drive.seconds


@dataclass(frozen=True)
class TierSummary:
    """Calibration of one density tier (pairs grouped by their origin's tier).

    Attributes
    ----------
    tier : str
    pairs : int
    wait_min, wait_max : int
        The tier's (most common) wait range.
    expected_wait_s : float
    median_drive_s, median_vehicle_s, median_multiple : float
        Medians over the tier's pairs; ``median_multiple`` is vehicle / drive.
    in_range : float
        Share of pairs whose vehicle time is 2–4 × their drive.
    verdict : str
        ``"ok"``, ``"too slow"`` (waits too long for these drives) or ``"too fast"``.
    suggestion : tuple of int or None
        A wait range that puts the median pair in the middle of the reachable
        part of the range, when the verdict is not ok.
    """

    tier: str
    pairs: int
    wait_min: int
    wait_max: int
    expected_wait_s: float
    median_drive_s: float
    median_vehicle_s: float
    median_multiple: float
    in_range: float
    verdict: str
    suggestion: tuple[int, int] | None


@dataclass(frozen=True)
class Calibration:
    """Result of :func:`calibrate`.

    Attributes
    ----------
    pairs : list of CalibrationPair
    tiers : list of TierSummary
    skipped : int
        Pairs without a usable drive time (zero seconds).
    cooldown_factor, target_factor : float
    drive_range : tuple of float
        The acceptable vehicle/drive multiples (2, 4).
    """

    pairs: list[CalibrationPair]
    tiers: list[TierSummary]
    skipped: int
    cooldown_factor: float
    target_factor: float
    drive_range: tuple[float, float]

    @property
    def methods(self) -> Counter[str]:
        """How many drive times came from roads / the great circle."""
        return Counter(p.drive.method for p in self.pairs)


def sample_pairs(
    stations: Sequence[Station], n: int, rng: random.Random
) -> list[tuple[Station, Station]]:
    """Up to ``n`` distinct ordered pairs of different stations, drawn at random.

    Parameters
    ----------
    stations : sequence of Station
    n : int
        Number of pairs; all pairs when there are fewer.
    rng : random.Random
        Seeded for reproducible reports.

    Returns
    -------
    list of (Station, Station)
        Sorted by origin id, then destination id.
    """
    ordered = sorted(stations, key=lambda s: s.id)
    count = len(ordered) * (len(ordered) - 1)
    if count == 0:
        return []
    picks = range(count) if n >= count else sorted(rng.sample(range(count), n))
    out = []
    for k in picks:
        i, j = divmod(k, len(ordered) - 1)
        out.append((ordered[i], ordered[j + (j >= i)]))
    return out


def _suggest(
    wait_min: int,
    wait_max: int,
    table: DepartureTable,
    median_drive_s: float,
    cooldown_factor: float,
    target_factor: float,
    drive_range: tuple[float, float],
) -> tuple[int, int]:
    # Vehicle/drive multiple m = E/d + 1 + c. The range lo ≤ m ≤ hi allows
    # E/d in [max(0, lo − 1 − c), hi − 1 − c]; aim for the middle of it.
    lo, hi = drive_range
    top = hi - 1 - cooldown_factor
    if top <= 0:
        return (0, 0)
    bottom = max(0.0, lo - 1 - cooldown_factor)
    goal_min = (bottom + top) / 2 * median_drive_s / 60
    a, b = table.wait_coefficients()
    # Keep the tier's min:max proportion (1:3 if it had none).
    ratio = Fraction(wait_max, wait_min) if wait_min > 0 else Fraction(3)
    new_min = goal_min / float(a + b * ratio)
    low = max(0, round(new_min))
    high = max(low, round(new_min * float(ratio)), 1)
    return (low, high)


def calibrate(
    pairs: Sequence[tuple[Station, Station]],
    drive_times: DriveTimes,
    *,
    table: DepartureTable = DEFAULT_TABLE,
    cooldown_factor: float = COOLDOWN_FACTOR,
    target_factor: float = TRANSIT_FACTOR,
    drive_range: tuple[float, float] = TRANSIT_RANGE,
) -> Calibration:
    """Compare expected door-to-door vehicle times with the transit-equivalent target.

    For each pair: vehicle = expected wait at the origin (closed form) + drive +
    cooldown (``cooldown_factor ×`` drive); target = ``target_factor ×`` drive.
    Per density tier of the origin: medians, the share of pairs within
    ``drive_range`` × drive, and a suggested wait range when the median pair is
    outside it.

    With the cooldown (c = 2) the multiple is ``3 + E/d``, inside 2–4 when the
    expected wait is at most the drive; without it (c = 0) ``1 + E/d``, inside
    when ``d ≤ E ≤ 3d``.

    Parameters
    ----------
    pairs : sequence of (Station, Station)
    drive_times : DriveTimes
    table : DepartureTable
    cooldown_factor : float
        2 with real transit in play, 0 without.
    target_factor : float
    drive_range : (float, float)

    Returns
    -------
    Calibration
    """
    by_origin: dict[str, list[Station]] = {}
    origins: dict[str, Station] = {}
    for a, b in pairs:
        by_origin.setdefault(a.id, []).append(b)
        origins[a.id] = a
    results: list[CalibrationPair] = []
    skipped = 0
    for oid, targets in by_origin.items():
        a = origins[oid]
        wait_s = float(table.expected_wait(a.wait_min, a.wait_max) * 60)
        for b, drive in zip(targets, drive_times.from_origin(a, targets), strict=True):
            if drive.seconds <= 0:
                skipped += 1
                continue
            results.append(
                CalibrationPair(a, b, drive, wait_s, cooldown_factor * drive.seconds, target_factor)
            )
    lo, hi = drive_range
    tiers: list[TierSummary] = []
    groups: dict[str, list[CalibrationPair]] = {}
    for p in results:
        groups.setdefault(p.origin.density_tier or "(none)", []).append(p)
    for tier, group in sorted(groups.items(), key=lambda kv: _tier_order(kv[0])):
        wait_min, wait_max = Counter(
            (p.origin.wait_min, p.origin.wait_max) for p in group
        ).most_common(1)[0][0]
        multiples = [p.drive_multiple for p in group]
        median_multiple = statistics.median(multiples)
        median_drive = statistics.median(p.drive.seconds for p in group)
        verdict = "ok"
        if median_multiple > hi:
            verdict = "too slow"
        elif median_multiple < lo:
            verdict = "too fast"
        suggestion = None
        if verdict != "ok":
            suggestion = _suggest(
                wait_min, wait_max, table, median_drive, cooldown_factor, target_factor, drive_range
            )
        tiers.append(
            TierSummary(
                tier,
                len(group),
                wait_min,
                wait_max,
                float(table.expected_wait(wait_min, wait_max) * 60),
                median_drive,
                statistics.median(p.vehicle_s for p in group),
                median_multiple,
                sum(lo <= m <= hi for m in multiples) / len(multiples),
                verdict,
                suggestion,
            )
        )
    return Calibration(results, tiers, skipped, cooldown_factor, target_factor, drive_range)


_TIER_ORDER = {"dense": 0, "moderate": 1, "sparse": 2}


def _tier_order(tier: str) -> tuple[int, str]:
    return (_TIER_ORDER.get(tier, 3), tier)
