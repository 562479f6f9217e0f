"""Drive times between stations, on a road graph or along the great circle (pure).

Everything here computes on data already in memory — a road graph (an osmnx
``MultiDiGraph``, built by :mod:`stations_generator.osm.roads`) and stations — and
does no I/O. The cooldowns and rides that follow a drive are in
:mod:`~stations_generator.core.play.cooldown`, the clock in
:mod:`~stations_generator.core.play.clock`, route plans and their timelines in
:mod:`~stations_generator.core.play.itinerary`, and the calibration of the waits
against the drives in :mod:`~stations_generator.core.play.calibration`.

Drive times
-----------
With a road graph, a drive is the fastest path (by ``travel_time``) between the
graph nodes nearest the two stations, in the graph's largest strongly connected
component (so every pair has a path even in an extract clipped at its edges).
Without one — or for a station farther than :data:`MAX_SNAP_M` from any road
node — the drive is the great-circle distance at :data:`GREAT_CIRCLE_SPEED_KPH`,
labelled ``method="great-circle"``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import networkx as nx

from stations_generator.core.geo.geodesy import geodesic_distance
from stations_generator.core.play.highways import DRIVABLE_HIGHWAYS
from stations_generator.core.play.routes import Station

__all__ = [
    "DRIVABLE_HIGHWAYS",
    "GREAT_CIRCLE_SPEED_KPH",
    "MAX_SNAP_M",
    "ROAD_SPEEDS_KPH",
    "UNKNOWN_ROAD_SPEED_KPH",
    "DriveEstimate",
    "DriveTimes",
    "GreatCircleDriveTimes",
    "RoadDriveTimes",
    "add_travel_times",
    "great_circle_estimate",
    "graph_max_speed_kph",
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
