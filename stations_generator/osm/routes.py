"""Transit lines from OSM route relations (for "same transit line" matching).

A line is one ``type=route`` relation (``route=train``, ``subway``, ``light_rail``,
``tram``, ``bus``, ``monorail``, ``ferry``…) — one route, not the whole network, so
"same line" means the two stations share a route. A station is served by a route
when one of the route's stop/platform member nodes is the station itself or lies
within :data:`SERVED_WITHIN_M` of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import osmium
import osmium.filter

from ..core.shapes import distance_m
from .extracts import _iterate, _open

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


def read_routes(path: Path, kinds: tuple[str, ...] = TRANSIT_ROUTES) -> list[Route]:
    """Route relations of an extract with their stop positions (members missing from a
    clipped extract are skipped). Sorted by relation id."""
    relations: dict[int, tuple[dict[str, str], list[int]]] = {}
    # osmium's C++ filters pick what reaches Python: route relations, then their stops.
    routes = osmium.FileProcessor(_open(path), osmium.osm.RELATION).with_filter(
        osmium.filter.TagFilter(("type", "route"))
    )
    for obj in _iterate(routes, path):
        tags = {t.k: t.v for t in obj.tags}
        if tags.get("type") != "route" or tags.get("route") not in kinds:
            continue
        nodes = [
            m.ref
            for m in obj.members
            if m.type == "n" and (m.role.startswith("stop") or m.role.startswith("platform"))
        ]
        relations[obj.id] = (tags, nodes)
    wanted = {n for _, nodes in relations.values() for n in nodes}
    where: dict[int, tuple[float, float]] = {}
    if wanted:
        stops = osmium.FileProcessor(_open(path), osmium.osm.NODE).with_filter(
            osmium.filter.IdFilter(wanted)
        )
        for obj in _iterate(stops, path):
            if obj.id in wanted and obj.location.valid():
                where[obj.id] = (obj.location.lon, obj.location.lat)
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


def routes_serving(lon: float, lat: float, osm_id: int | None, routes: list[Route]) -> list[Route]:
    """The routes that stop at a station (its own node, or a stop within 100 m)."""
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
