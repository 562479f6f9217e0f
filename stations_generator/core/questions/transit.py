"""Transit-line tentacles: "on which line is the transit stop nearest to you?" (pure).

JLTG.EU house rules, Tentacles ("Transit Lines"): 25 km; lines on tracks count
(train, S-Bahn, metro/U-Bahn, Stadtbahn, tram, monorail) when part of them is within
the radius; the hider names a line through the transit stop nearest to them (any stop
of those lines, not necessarily their hiding stop), and when several lines go through
it, or several stops are equally near, the hider chooses. Outside the radius the answer
is "not within".

Geometry: for the answer line L, the kept region is the circle ∩ the union of the
Voronoi cells (among every stop of the lines that count) of the stops L serves. A line
"partly within the radius" is a line with a stop within it (routes are known by their
stops).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.antimeridian import centre_lon, wrap_lon
from stations_generator.core.geo.shapes import EDGE_TOLERANCE_M, distance_m, geodesic_circle
from stations_generator.core.questions.geometry import NOT_WITHIN, TIE_M, AreaQuestion
from stations_generator.core.questions.legal import QuestionError, fmt_distance
from stations_generator.core.questions.places import Place, place_index, voronoi_cell

#: OSM ``route=*`` values of lines on tracks (JLTG.EU house rules, Tentacles, "Transit Lines").
TRACK_ROUTES = ("train", "subway", "light_rail", "tram", "monorail", "funicular")


@dataclass(frozen=True)
class Line:
    """A transit line: its id (``relation/123``), a short name, and its stop positions."""

    id: str
    name: str
    stops: tuple[tuple[float, float], ...]


def lines_within(
    lines: Sequence[Line], seeker: tuple[float, float], radius_m: float
) -> tuple[Line, ...]:
    """The lines with a stop within ``radius_m`` of the seeker, by id."""
    out = []
    for line in lines:
        if not line.stops:
            continue
        pts = np.asarray(line.stops, float)
        n = len(pts)
        d = distance_m(np.full(n, seeker[0]), np.full(n, seeker[1]), pts[:, 0], pts[:, 1])
        if float(np.min(d)) <= radius_m + TIE_M:
            out.append(line)
    return tuple(sorted(out, key=lambda x: x.id))


@dataclass
class TransitLineTentaclesQuestion(AreaQuestion):
    """Tentacles on transit lines; the answer is a line id or :data:`NOT_WITHIN`."""

    seeker: tuple[float, float]
    radius_m: float
    lines: tuple[Line, ...]  # the lines that count (see :func:`lines_within`)
    line: str | None = None
    subject: ClassVar[str] = "transit_line"
    kind: ClassVar[str] = "tentacles"
    cost: ClassVar[tuple[int, int]] = (4, 2)

    @property
    def answer(self) -> str | None:
        return self.line

    @cached_property
    def _stops(self) -> tuple[tuple[Place, ...], tuple[frozenset[str], ...]]:
        served: dict[tuple[float, float], set[str]] = {}
        for line in self.lines:
            for stop in line.stops:
                served.setdefault((float(stop[0]), float(stop[1])), set()).add(line.id)
        keys = sorted(served)
        places = tuple(Place(f"stop/{k}", "", lon, lat) for k, (lon, lat) in enumerate(keys))
        return places, tuple(frozenset(served[k]) for k in keys)

    def _choices(self, lons: np.ndarray, lats: np.ndarray) -> list[frozenset[str]]:
        """The lines a hider at each point may name (empty outside the radius)."""
        places, served = self._stops
        n = len(lons)
        d = distance_m(np.full(n, self.seeker[0]), np.full(n, self.seeker[1]), lons, lats)
        out: list[frozenset[str]] = [frozenset()] * n
        inside = np.flatnonzero(np.asarray(d) <= self.radius_m + TIE_M)
        if not places or not len(inside):
            return out
        _, nearest_d = place_index(places).nearest(lons[inside], lats[inside])
        pts = np.array([[p.lon, p.lat] for p in places])
        for i, best in zip(inside, nearest_d, strict=True):
            m = len(pts)
            dd = distance_m(np.full(m, lons[i]), np.full(m, lats[i]), pts[:, 0], pts[:, 1])
            tied = np.flatnonzero(np.asarray(dd) <= best + TIE_M)  # equally near stops
            out[i] = frozenset().union(*(served[k] for k in tied))
        return out

    def answers_for(self, lons, lats) -> np.ndarray:
        """The recorded line where the hider may name it, else the smallest id they may name."""
        lons = np.atleast_1d(np.asarray(lons, float))
        lats = np.atleast_1d(np.asarray(lats, float))
        out = np.empty(len(lons), dtype=object)
        for i, choices in enumerate(self._choices(lons, lats)):
            if not choices:
                out[i] = NOT_WITHIN
            else:
                out[i] = self.line if self.line in choices else min(choices)
        return out

    def answer_for(self, lon: float, lat: float) -> Any:
        return self.answers_for([lon], [lat])[0]

    def kept_for(self, answer: Any, extent: BaseGeometry) -> BaseGeometry:
        centre = wrap_lon(self.seeker[0], centre_lon(extent))
        circle = geodesic_circle(centre, self.seeker[1], self.radius_m, EDGE_TOLERANCE_M)
        if answer == NOT_WITHIN:
            return extent.difference(circle) if self.lines else extent
        if answer not in {line.id for line in self.lines}:
            raise QuestionError(
                f"{self.label()}: {answer!r} is not one of the {len(self.lines)} lines with a "
                "stop within the radius"
            )
        places, served = self._stops
        inner = extent.intersection(circle)
        cells = [
            voronoi_cell(places, p, inner)
            for p, lines in zip(places, served, strict=True)
            if answer in lines
        ]
        return shapely.union_all(cells) if cells else shapely.Polygon()

    def cost_key(self) -> tuple:
        return (self.kind, self.subject, round(self.radius_m, 1))

    def label(self) -> str:
        return f"Tentacles transit line {fmt_distance(self.radius_m)}"

    def answer_text(self, answer: Any) -> str:
        if answer == NOT_WITHIN or answer is None:
            return str(answer)
        name = next((line.name for line in self.lines if line.id == answer), "")
        return f"line {name or answer}"
