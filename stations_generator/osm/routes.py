"""Transit lines from OSM route relations (for "same transit line" matching).

A line is one ``type=route`` relation (``route=train``, ``subway``, ``light_rail``,
``tram``, ``bus``, ``monorail``, ``ferry``…) — one route, not the whole network, so
"same line" means the two stations share a route. Under the ``jltg-eu`` rules only
train services are lines (:func:`lines_under`). A station is served by a route
when one of the route's stop/platform member nodes is the station itself or lies
within :data:`SERVED_WITHIN_M` of it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import osmium
import osmium.filter

from stations_generator.core.geo.shapes import distance_m
from stations_generator.core.questions.transit_lines import counts_as_line
from stations_generator.osm.extract_io import all_items, iterate, open_extract, tags_of

TRANSIT_ROUTES = ("train", "subway", "light_rail", "tram", "bus", "trolleybus", "monorail", "ferry")
SERVED_WITHIN_M = 100.0  # a stop position or platform this close belongs to the station


@dataclass(frozen=True)
class Route:
    """One route relation with the positions of its stops."""

    id: str
    ref: str
    network: str
    name: str
    route: str
    stops: tuple[tuple[float, float], ...] = field(repr=False)
    stop_ids: frozenset[int] = field(repr=False, default=frozenset())

    @property
    def line_ref(self) -> str:
        """``network:ref``, e.g. ``HSL:6``."""
        return f"{self.network}:{self.ref}"


def lines_under(routes: Iterable[Route], rules: str) -> list[Route]:
    """The routes that count as a transit line under rule set ``rules``.

    Under ``jltg-eu`` only train services do (``route=train``, ``light_rail``,
    ``monorail``; JLTG.EU house rules, "Matching: Transit Line", see
    :mod:`stations_generator.core.questions.transit_lines`); under other rule sets,
    every route read.

    Parameters
    ----------
    routes : iterable of Route
    rules : str
        The rule set's name.

    Returns
    -------
    list of Route
        In the given order.
    """
    return [r for r in routes if counts_as_line(r.route, rules)]


def is_route(tags: Mapping[str, str], kinds: tuple[str, ...] = TRANSIT_ROUTES) -> bool:
    """Whether a relation's tags make it a route of ``kinds``."""
    return tags.get("type") == "route" and tags.get("route") in kinds


def stop_nodes(members: Iterable[tuple[str, int, str]]) -> list[int]:
    """The stop / platform node ids among a route's ``(type, ref, role)`` members, in order."""
    return [
        ref
        for kind, ref, role in members
        if kind == "n" and (role.startswith("stop") or role.startswith("platform"))
    ]


def route_stops(rel: Any, kinds: tuple[str, ...] = TRANSIT_ROUTES) -> tuple[dict, list] | None:
    """A relation's tags and stop/platform member nodes, if it is a route of ``kinds``."""
    tags = tags_of(rel)
    if not is_route(tags, kinds):
        return None
    return tags, stop_nodes((m.type, m.ref, m.role) for m in all_items(rel.members))


def make_routes(
    relations: dict[int, tuple[dict[str, str], list[int]]], where: dict[int, tuple[float, float]]
) -> list[Route]:
    """Routes from :func:`route_stops` of each relation id and the (lon, lat) of stop nodes.

    A stop not in ``where`` (clipped extract) is skipped, a route without stops left
    too. Sorted by relation id.
    """
    out = []
    for rid in sorted(relations):
        tags, nodes = relations[rid]
        stops = tuple(where[n] for n in nodes if n in where)
        if not stops:
            continue
        out.append(
            Route(
                id=f"relation/{rid}",
                ref=tags.get("ref", ""),
                network=tags.get("network", ""),
                name=tags.get("name", ""),
                route=tags["route"],
                stops=stops,
                stop_ids=frozenset(n for n in nodes if n in where),
            )
        )
    return out


def read_routes(path: Path, kinds: tuple[str, ...] = TRANSIT_ROUTES) -> list[Route]:
    """Route relations of an extract with their stop positions (members missing from a
    clipped extract are skipped). Sorted by relation id.

    (The extract cache reads them in its one pass instead: :mod:`.one_pass`.)"""
    relations: dict[int, tuple[dict[str, str], list[int]]] = {}
    # osmium's C++ filters pick what reaches Python: route relations, then their stops.
    routes = osmium.FileProcessor(open_extract(path), osmium.osm.RELATION).with_filter(
        osmium.filter.TagFilter(("type", "route"))
    )
    for obj in iterate(routes, path):
        found = route_stops(obj, kinds)
        if found is not None:
            relations[obj.id] = found
    wanted = {n for _, nodes in relations.values() for n in nodes}
    where: dict[int, tuple[float, float]] = {}
    if wanted:
        stops = osmium.FileProcessor(open_extract(path), osmium.osm.NODE).with_filter(
            osmium.filter.IdFilter(wanted)
        )
        for obj in iterate(stops, path):
            if obj.id in wanted and obj.location.valid():
                where[obj.id] = (obj.location.lon, obj.location.lat)
    return make_routes(relations, where)


@dataclass(frozen=True)
class StopIndex:
    """Every stop of a list of routes, sorted by latitude, for :func:`routes_serving`."""

    routes: tuple[Route, ...]
    lat: np.ndarray
    lon: np.ndarray
    route: np.ndarray  # index into ``routes`` of each stop
    by_node: dict[int, tuple[int, ...]]  # stop node id -> the routes stopping there


def stop_index(routes: list[Route]) -> StopIndex:
    """Index the routes' stops once, so each station's look-up is a window, not a scan."""
    lat, lon, route = [], [], []
    by_node: dict[int, list[int]] = {}
    for k, r in enumerate(routes):
        for x, y in r.stops:
            lon.append(x)
            lat.append(y)
            route.append(k)
        for n in r.stop_ids:
            by_node.setdefault(n, []).append(k)
    order = np.argsort(np.asarray(lat, dtype=np.float64), kind="stable")
    return StopIndex(
        tuple(routes),
        np.asarray(lat, dtype=np.float64)[order],
        np.asarray(lon, dtype=np.float64)[order],
        np.asarray(route, dtype=np.int64)[order],
        {n: tuple(ks) for n, ks in by_node.items()},
    )


# Degrees of latitude that surely hold 100 m (a meridian degree is >= 110.5 km): the
# window only picks candidates, the geodesic distance decides.
_WINDOW_DEG = 0.0011


def routes_serving(
    lon: float,
    lat: float,
    osm_id: int | None,
    routes: list[Route],
    index: StopIndex | None = None,
) -> list[Route]:
    """The routes that stop at a station (its own node, or a stop within 100 m).

    With ``index`` (:func:`stop_index` of ``routes``) only the stops in a small
    window around the station are measured; the answer is the same.
    """
    if index is not None:
        return _served_indexed(lon, lat, osm_id, index)
    served = []
    for route in routes:
        if osm_id is not None and osm_id in route.stop_ids:
            served.append(route)
            continue
        pts = np.asarray(route.stops)
        d = distance_m(np.full(len(pts), lon), np.full(len(pts), lat), pts[:, 0], pts[:, 1])
        if d.min() <= SERVED_WITHIN_M:
            served.append(route)
    return served


def _served_indexed(lon: float, lat: float, osm_id: int | None, index: StopIndex) -> list[Route]:
    found = set(index.by_node.get(osm_id, ())) if osm_id is not None else set()
    lo = int(np.searchsorted(index.lat, lat - _WINDOW_DEG, side="left"))
    hi = int(np.searchsorted(index.lat, lat + _WINDOW_DEG, side="right"))
    if hi > lo:
        cos = math.cos(math.radians(min(89.9, abs(lat) + 0.01)))
        dlon = (index.lon[lo:hi] - lon + 180.0) % 360.0 - 180.0
        near = np.flatnonzero(np.abs(dlon) <= _WINDOW_DEG / cos) + lo
        if len(near):
            d = distance_m(
                np.full(len(near), lon), np.full(len(near), lat), index.lon[near], index.lat[near]
            )
            found.update(index.route[near[d <= SERVED_WITHIN_M]].tolist())
    return [index.routes[k] for k in sorted(found)]
