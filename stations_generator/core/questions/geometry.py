"""The questions seekers ask, each with the geometry of its answer (pure: no I/O).

Every question answers two things with the *same* geometry:

* :meth:`Question.answer_for` — hider mode: what a hider at a point would answer;
* :meth:`Question.kept` — elimination: the part of a region consistent with the
  recorded answer.

Area questions (radius, thermometer, tentacles, matching nearest-X or admin zone,
measuring) cut the map; station questions (station first letter, name length, transit
line) filter the list of hiding stations (:class:`StationQuestion`).

Conventions (the game's rules): a point on a radius edge is inside; a thermometer tie
counts as "hotter" (closer to the end, inclusive); a measuring tie counts as "hider
closer"; ties between places go to the smaller id. Coordinates are (lon, lat).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.antimeridian import centre_lon, wrap_lon
from stations_generator.core.geo.buffers import distance_region
from stations_generator.core.geo.features import GeodesicFeatures, PlaceIndex
from stations_generator.core.geo.shapes import (
    EDGE_TOLERANCE_M,
    AzimuthalFrame,
    closer_region,
    distance_m,
    geodesic_circle,
    geodesic_circles,
)

LonLat = tuple[float, float]
# Distances equal to within a micrometre are a tie (an edge point, an equidistant
# point): floating-point round trips of GeographicLib are good to ~1e-9 m.
TIE_M = 1e-6


class QuestionError(ValueError):
    """A question that cannot be evaluated as given (missing answer, bad distance, …)."""


@dataclass(frozen=True)
class Place:
    """A point of interest a question refers to (a museum, a station…)."""

    id: str
    name: str
    lon: float
    lat: float


@dataclass(frozen=True)
class Zone:
    """An admin area (or any named polygon)."""

    id: str
    name: str
    geometry: BaseGeometry = field(compare=False, repr=False)


@dataclass(frozen=True)
class Station:
    """A hiding station: where a hiding zone is centred."""

    id: str
    name: str
    lon: float
    lat: float
    tags: tuple[tuple[str, str], ...] = ()  # the OSM tags that say what kind of stop it is
    lines: frozenset[str] = frozenset()  # ids of the route relations serving it
    line_refs: frozenset[str] = frozenset()  # "network:ref" of those routes, e.g. "RET:B"

    def tag(self, key: str) -> str | None:
        """The value of an OSM tag of the station, or None."""
        return dict(self.tags).get(key)


def _fmt_distance(metres: float) -> str:
    if metres >= 1000:
        km = metres / 1000
        return f"{km:g} km" if km == round(km, 3) else f"{km:.2f} km"
    return f"{metres:g} m"


def _nearest(places: Sequence[Place], lon: float, lat: float) -> tuple[Place | None, float]:
    if not places:
        return None, math.inf
    d = distance_m(
        np.full(len(places), lon),
        np.full(len(places), lat),
        np.array([p.lon for p in places]),
        np.array([p.lat for p in places]),
    )
    tied = np.flatnonzero(d == d.min())
    best = int(min(tied, key=lambda i: places[i].id)) if len(tied) > 1 else int(tied[0])
    return places[best], float(d[best])


def _place_index(places: Sequence[Place]) -> PlaceIndex:
    """An exact nearest-place index; ties go to the smaller id, as in :func:`_nearest`."""
    ids = [p.id for p in places]
    rank = np.empty(len(ids), int)
    rank[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
    return PlaceIndex([p.lon for p in places], [p.lat for p in places], rank)


def _arrays(lons, lats) -> tuple[np.ndarray, np.ndarray]:
    return np.atleast_1d(np.asarray(lons, float)), np.atleast_1d(np.asarray(lats, float))


def _circle(centre: LonLat, radius_m: float, near_lon: float | None) -> BaseGeometry:
    lon = centre[0] if near_lon is None else wrap_lon(centre[0], near_lon)
    return geodesic_circle(lon, centre[1], radius_m, EDGE_TOLERANCE_M)


def voronoi_cell(places: Sequence[Place], chosen: Place, extent: BaseGeometry) -> BaseGeometry:
    """The part of ``extent`` whose nearest place (geodesic; ties to the smaller id) is ``chosen``.

    The intersection of the "closer to chosen than to q" regions for every other
    place q (see :func:`stations_generator.core.geo.shapes.closer_region`). Places far
    enough that their bisector cannot reach ``extent`` are skipped.
    """
    cell = extent
    others = [q for q in places if q.id != chosen.id and (q.lon, q.lat) != (chosen.lon, chosen.lat)]
    if not others:
        return cell
    d = distance_m(
        np.full(len(others), chosen.lon),
        np.full(len(others), chosen.lat),
        np.array([q.lon for q in others]),
        np.array([q.lat for q in others]),
    )
    for k in np.argsort(d, kind="stable"):
        if cell.is_empty:
            break
        q = others[int(k)]
        # Every point of the cell is within `reach` of the chosen place; a place more
        # than 2·reach away cannot be nearer to any of them.
        reach = _max_distance_from(cell, chosen)
        if d[k] > 2 * reach:
            break
        cell = closer_region((chosen.lon, chosen.lat), (q.lon, q.lat), cell)
    return cell


def _max_distance_from(geometry: BaseGeometry, place: Place) -> float:
    coords = shapely.get_coordinates(shapely.convex_hull(geometry))
    if len(coords) == 0:
        return 0.0
    d = distance_m(
        np.full(len(coords), place.lon), np.full(len(coords), place.lat), coords[:, 0], coords[:, 1]
    )
    return float(d.max())


class Question(ABC):
    """Base class of every question."""

    kind: ClassVar[str]
    cost: ClassVar[tuple[int, int]]  # (cards drawn, cards picked) by the hider, the game's rules

    @property
    @abstractmethod
    def answer(self) -> Any:
        """The recorded answer (None if not answered yet)."""

    @abstractmethod
    def answer_for(self, lon: float, lat: float) -> Any:
        """What a hider at (lon, lat) answers."""

    def answers_for(self, lons, lats) -> np.ndarray:
        """:meth:`answer_for` for many points at once (an array of answers)."""
        lons, lats = _arrays(lons, lats)
        out = np.empty(len(lons), dtype=object)
        for i, (lon, lat) in enumerate(zip(lons, lats, strict=True)):
            out[i] = self.answer_for(float(lon), float(lat))
        return out

    @abstractmethod
    def cost_key(self) -> tuple:
        """Identity for the cost ledger: the same question asked again repeats its cost."""

    @abstractmethod
    def label(self) -> str:
        """A short human description, e.g. "Radius 5 km"."""

    def answer_text(self, answer: Any) -> str:
        """A short human form of an answer."""
        return str(answer)

    def require_answer(self) -> Any:
        if self.answer is None:
            raise QuestionError(f"{self.label()}: no answer recorded; add the hider's answer")
        return self.answer


class AreaQuestion(Question):
    """A question whose answer keeps part of the map."""

    @abstractmethod
    def kept_for(self, answer: Any, extent: BaseGeometry) -> BaseGeometry:
        """The part of ``extent`` consistent with ``answer``."""

    def kept(self, extent: BaseGeometry) -> BaseGeometry:
        """The part of ``extent`` consistent with the recorded answer."""
        return self.kept_for(self.require_answer(), extent)


class StationQuestion(Question):
    """A question that filters hiding stations (the hider answers about their station)."""

    @abstractmethod
    def answer_for_station(self, station: Station) -> Any:
        """What a hider whose station is ``station`` answers."""

    def station_keeps(self, station: Station) -> bool:
        """Whether ``station`` is consistent with the recorded answer."""
        return self.answer_for_station(station) == self.require_answer()


# --- radius ---------------------------------------------------------------------------


@dataclass
class RadiusQuestion(AreaQuestion):
    """ "Are you within X of me?" — a geodesic circle; a point on the edge is inside."""

    seeker: LonLat
    radius_m: float
    within: bool | None = None
    kind: ClassVar[str] = "radius"
    cost: ClassVar[tuple[int, int]] = (2, 1)

    def __post_init__(self) -> None:
        if not self.radius_m > 0:
            raise QuestionError(f"radius must be positive, got {self.radius_m}")

    @property
    def answer(self) -> bool | None:
        return self.within

    def circle(self, near_lon: float | None = None) -> BaseGeometry:
        """The circle (edges within EDGE_TOLERANCE_M), around the seeker moved near ``near_lon``."""
        return _circle(self.seeker, self.radius_m, near_lon)

    def answer_for(self, lon: float, lat: float) -> bool:
        return bool(self.answers_for([lon], [lat])[0])

    def answers_for(self, lons, lats) -> np.ndarray:
        lons, lats = _arrays(lons, lats)
        d = distance_m(
            np.full(len(lons), self.seeker[0]), np.full(len(lons), self.seeker[1]), lons, lats
        )
        return np.asarray(d) <= self.radius_m + TIE_M

    def kept_for(self, answer: bool, extent: BaseGeometry) -> BaseGeometry:
        circle = self.circle(centre_lon(extent))
        return extent.intersection(circle) if answer else extent.difference(circle)

    def cost_key(self) -> tuple:
        return (self.kind, round(self.radius_m, 1))

    def label(self) -> str:
        return f"Radius {_fmt_distance(self.radius_m)}"

    def answer_text(self, answer: bool) -> str:
        return "within" if answer else "not within"


# --- thermometer ----------------------------------------------------------------------

# Distances a thermometer may use, by game size (the game's rules).
THERMOMETER_DISTANCES_M = {
    "S": (400.0, 1000.0, 5000.0),
    "M": (400.0, 1000.0, 5000.0, 15000.0),
    "L": (400.0, 1000.0, 5000.0, 15000.0, 75000.0),
}
THERMOMETER_SLACK = 0.02  # start–end may fall 2 % short of the nominal distance (GPS noise)


@dataclass
class ThermometerQuestion(AreaQuestion):
    """ "After travelling X, am I hotter or colder?" — hotter = at least as close to the end."""

    start: LonLat
    end: LonLat
    warmer: bool | None = None
    distance_m: float | None = None  # the nominal distance, if declared
    kind: ClassVar[str] = "thermometer"
    cost: ClassVar[tuple[int, int]] = (2, 1)

    @property
    def answer(self) -> bool | None:
        return self.warmer

    def travelled_m(self) -> float:
        return float(distance_m(self.start[0], self.start[1], self.end[0], self.end[1]))

    def nominal_m(self, game_size: str) -> float:
        """The thermometer distance this question uses; QuestionError if not allowed."""
        allowed = THERMOMETER_DISTANCES_M[game_size]
        travelled = self.travelled_m()
        if self.distance_m is not None:
            if self.distance_m not in allowed:
                raise QuestionError(
                    f"a {_fmt_distance(self.distance_m)} thermometer is not allowed in a {game_size} "
                    f"game; use {', '.join(_fmt_distance(a) for a in allowed)}"
                )
            if travelled < self.distance_m * (1 - THERMOMETER_SLACK):
                raise QuestionError(
                    f"thermometer start and end are {_fmt_distance(round(travelled))} apart, "
                    f"short of the declared {_fmt_distance(self.distance_m)}"
                )
            return self.distance_m
        fits = [a for a in allowed if travelled >= a * (1 - THERMOMETER_SLACK)]
        if not fits:
            raise QuestionError(
                f"thermometer start and end are only {_fmt_distance(round(travelled))} apart; the "
                f"shortest thermometer is {_fmt_distance(allowed[0])}"
            )
        return fits[-1]

    def answer_for(self, lon: float, lat: float) -> bool:
        return bool(self.answers_for([lon], [lat])[0])

    def answers_for(self, lons, lats) -> np.ndarray:
        lons, lats = _arrays(lons, lats)
        n = len(lons)
        d_start = distance_m(np.full(n, self.start[0]), np.full(n, self.start[1]), lons, lats)
        d_end = distance_m(np.full(n, self.end[0]), np.full(n, self.end[1]), lons, lats)
        return np.asarray(d_end) <= np.asarray(d_start) + TIE_M

    def kept_for(self, answer: bool, extent: BaseGeometry) -> BaseGeometry:
        hot = closer_region(self.end, self.start, extent)
        return hot if answer else extent.difference(hot)

    def cost_key(self) -> tuple:
        return (self.kind, self.distance_m or round(self.travelled_m(), -2))

    def label(self) -> str:
        d = self.distance_m or self.travelled_m()
        return f"Thermometer {_fmt_distance(round(d))}"

    def answer_text(self, answer: bool) -> str:
        return "hotter" if answer else "colder"


# --- tentacles ------------------------------------------------------------------------

NOT_WITHIN = "not within"
TENTACLES_RADIUS_M = {  # the game's rules
    "zoo": 25000.0,
    "aquarium": 25000.0,
    "theme_park": 25000.0,
    "transit_line": 25000.0,
    "museum": 2000.0,
    "library": 2000.0,
    "cinema": 2000.0,
    "hospital": 2000.0,
}


@dataclass
class TentaclesQuestion(AreaQuestion):
    """ "Are you within R of me? If so, which X (of those within R) are you nearest to?"

    The answer is the id of a place, or :data:`NOT_WITHIN`.
    """

    seeker: LonLat
    radius_m: float
    subject: str
    places: tuple[Place, ...]
    nearest: str | None = None  # a place id, or NOT_WITHIN; None = not answered
    kind: ClassVar[str] = "tentacles"
    cost: ClassVar[tuple[int, int]] = (4, 2)

    @property
    def answer(self) -> str | None:
        return self.nearest

    def candidates(self) -> list[Place]:
        """The places within the radius of the seeker."""
        return list(self._candidates)

    @cached_property
    def _candidates(self) -> tuple[Place, ...]:
        if not self.places:
            return ()
        d = distance_m(
            np.full(len(self.places), self.seeker[0]),
            np.full(len(self.places), self.seeker[1]),
            np.array([p.lon for p in self.places]),
            np.array([p.lat for p in self.places]),
        )
        return tuple(
            p for p, dist in zip(self.places, d, strict=True) if dist <= self.radius_m + TIE_M
        )

    def answer_for(self, lon: float, lat: float) -> Any:
        if float(distance_m(self.seeker[0], self.seeker[1], lon, lat)) > self.radius_m + TIE_M:
            return NOT_WITHIN
        place, _ = _nearest(self._candidates, lon, lat)
        return place.id if place else NOT_WITHIN

    def answers_for(self, lons, lats) -> np.ndarray:
        lons, lats = _arrays(lons, lats)
        n = len(lons)
        out = np.full(n, NOT_WITHIN, dtype=object)
        d = distance_m(np.full(n, self.seeker[0]), np.full(n, self.seeker[1]), lons, lats)
        inside = np.asarray(d) <= self.radius_m + TIE_M
        if self._candidates and inside.any():
            idx, _ = _place_index(self._candidates).nearest(lons[inside], lats[inside])
            out[inside] = [self._candidates[i].id for i in idx]
        return out

    def kept_for(self, answer: Any, extent: BaseGeometry) -> BaseGeometry:
        circle = _circle(self.seeker, self.radius_m, centre_lon(extent))
        if answer == NOT_WITHIN:
            inside = self.candidates()
            return extent.difference(circle) if inside else extent
        inside = self.candidates()
        chosen = next((p for p in inside if p.id == answer), None)
        if chosen is None:
            raise QuestionError(
                f"{self.label()}: {answer!r} is not one of the {len(inside)} {self.subject} places "
                "within the radius"
            )
        return voronoi_cell(inside, chosen, extent.intersection(circle))

    def cost_key(self) -> tuple:
        return (self.kind, self.subject, round(self.radius_m, 1))

    def label(self) -> str:
        return f"Tentacles {self.subject} {_fmt_distance(self.radius_m)}"

    def answer_text(self, answer: Any) -> str:
        if answer == NOT_WITHIN:
            return NOT_WITHIN
        name = next((p.name for p in self.places if p.id == answer), "")
        return f"nearest {name or answer}"


# --- matching -------------------------------------------------------------------------


@dataclass
class MatchingNearestQuestion(AreaQuestion):
    """ "Is your nearest X the same as mine?" — the seeker's nearest-X Voronoi cell."""

    seeker: LonLat
    subject: str
    places: tuple[Place, ...]
    same: bool | None = None
    kind: ClassVar[str] = "matching"
    cost: ClassVar[tuple[int, int]] = (3, 1)

    @property
    def answer(self) -> bool | None:
        return self.same

    def seeker_place(self) -> Place:
        return self._seeker_place

    @cached_property
    def _seeker_place(self) -> Place:
        place, _ = _nearest(self.places, *self.seeker)
        if place is None:
            raise QuestionError(f"{self.label()}: no {self.subject} known near the play area")
        return place

    def answer_for(self, lon: float, lat: float) -> bool:
        place, _ = _nearest(self.places, lon, lat)
        return place is not None and place.id == self.seeker_place().id

    @cached_property
    def _index(self) -> PlaceIndex:
        return _place_index(self.places)

    def answers_for(self, lons, lats) -> np.ndarray:
        lons, lats = _arrays(lons, lats)
        mine = self.seeker_place().id
        idx, _ = self._index.nearest(lons, lats)
        return np.array([self.places[i].id == mine for i in idx], bool)

    def kept_for(self, answer: bool, extent: BaseGeometry) -> BaseGeometry:
        cell = voronoi_cell(self.places, self.seeker_place(), extent)
        return cell if answer else extent.difference(cell)

    def cost_key(self) -> tuple:
        return (self.kind, self.subject)

    def label(self) -> str:
        return f"Matching nearest {self.subject}"

    def answer_text(self, answer: bool) -> str:
        return "same" if answer else "different"


class _ZoneIndex:
    """Which zone covers a point (the smallest id where zones overlap), by STRtree."""

    def __init__(self, zones: Sequence[Zone]) -> None:
        self.zones = sorted(zones, key=lambda z: z.id)
        geoms = [z.geometry for z in self.zones]
        self.tree = shapely.STRtree(geoms)
        self.centre = centre_lon(shapely.GeometryCollection(geoms)) if geoms else 0.0

    def zone_of(self, lon: float, lat: float) -> Zone | None:
        return self.zones_of([lon], [lat])[0]

    def zones_of(self, lons, lats) -> list[Zone | None]:
        pts = shapely.points(
            wrap_lon(np.asarray(lons, float), self.centre), np.asarray(lats, float)
        )
        qi, zi = self.tree.query(pts, predicate="covered_by")
        best = np.full(len(pts), len(self.zones))
        np.minimum.at(best, qi, zi)
        return [self.zones[int(b)] if b < len(self.zones) else None for b in best]


def _zone_of(zones: Sequence[Zone], lon: float, lat: float) -> Zone | None:
    return _ZoneIndex(zones).zone_of(lon, lat)


def first_letter(name: str) -> str:
    """The first letter of a name, case-folded (digits and punctuation skipped)."""
    for ch in name.casefold():
        if ch.isalpha():
            return ch
    return ""


@dataclass
class MatchingZoneQuestion(AreaQuestion):
    """ "Is your admin zone (at a level) the same as mine?", or its first letter."""

    seeker: LonLat
    level: int
    zones: tuple[Zone, ...]
    same: bool | None = None
    by_letter: bool = False
    kind: ClassVar[str] = "matching"
    cost: ClassVar[tuple[int, int]] = (3, 1)

    @property
    def answer(self) -> bool | None:
        return self.same

    @cached_property
    def _index(self) -> _ZoneIndex:
        return _ZoneIndex(self.zones)

    def seeker_zone(self) -> Zone:
        zone = self._index.zone_of(*self.seeker)
        if zone is None:
            raise QuestionError(
                f"{self.label()}: the seeker is in no admin zone of level {self.level}"
            )
        return zone

    def _matching_zones(self) -> list[Zone]:
        mine = self.seeker_zone()
        if not self.by_letter:
            return [mine]
        letter = first_letter(mine.name)
        return [z for z in self.zones if first_letter(z.name) == letter]

    @cached_property
    def _matching_ids(self) -> frozenset[str]:
        return frozenset(z.id for z in self._matching_zones())

    @cached_property
    def _region(self) -> BaseGeometry:
        region = shapely.union_all([z.geometry for z in self._matching_zones()])
        shapely.prepare(region)
        return region

    def answer_for(self, lon: float, lat: float) -> bool:
        zone = self._index.zone_of(lon, lat)
        return zone is not None and zone.id in self._matching_ids

    def answers_for(self, lons, lats) -> np.ndarray:
        lons, lats = _arrays(lons, lats)
        zones = self._index.zones_of(lons, lats)
        return np.array([z is not None and z.id in self._matching_ids for z in zones], bool)

    def kept_for(self, answer: bool, extent: BaseGeometry) -> BaseGeometry:
        region = self._region
        if region.contains(extent):
            return extent if answer else shapely.Polygon()
        if not region.intersects(extent):
            return shapely.Polygon() if answer else extent
        return extent.intersection(region) if answer else extent.difference(region)

    def cost_key(self) -> tuple:
        return (self.kind, "zone-letter" if self.by_letter else "zone", self.level)

    def label(self) -> str:
        what = "zone first letter" if self.by_letter else "zone"
        return f"Matching {what} (level {self.level})"

    def answer_text(self, answer: bool) -> str:
        return "same" if answer else "different"


# --- station questions ----------------------------------------------------------------


@dataclass
class MatchingStationQuestion(StationQuestion):
    """Matching on the hider's station: first letter, name length, or transit line.

    ``attribute`` is ``"letter"``, ``"length"`` or ``"line"``. Transit lines are the
    OSM route relations serving a station (not whole networks): "same" means the two
    stations share at least one route.
    """

    seeker_station: Station
    attribute: str
    same: bool | None = None
    kind: ClassVar[str] = "matching"
    cost: ClassVar[tuple[int, int]] = (3, 1)

    def __post_init__(self) -> None:
        if self.attribute not in ("letter", "length", "line"):
            raise QuestionError(
                f"unknown station matching {self.attribute!r}; use letter, length or line"
            )

    @property
    def answer(self) -> bool | None:
        return self.same

    def answer_for_station(self, station: Station) -> bool:
        mine = self.seeker_station
        if self.attribute == "letter":
            return first_letter(station.name) == first_letter(mine.name) != ""
        if self.attribute == "length":
            return len(station.name) == len(mine.name)
        return bool(station.lines & mine.lines)

    def answer_for(self, lon: float, lat: float) -> bool:
        raise QuestionError("station questions are answered about the hider's station")

    def cost_key(self) -> tuple:
        return (self.kind, "station-" + self.attribute)

    def label(self) -> str:
        what = {
            "letter": "station first letter",
            "length": "station name length",
            "line": "transit line",
        }
        return f"Matching {what[self.attribute]}"

    def answer_text(self, answer: bool) -> str:
        return "same" if answer else "different"


# --- measuring ------------------------------------------------------------------------


@dataclass
class MeasuringQuestion(AreaQuestion):
    """ "Compared to me, are you closer to or further from X?"

    Region = points whose distance to the nearest X is at most the seeker's (a tie
    counts as "hider closer"). Every distance is an exact WGS84 geodesic: to points
    directly, to lines and polygons (the nearest edge, 0 inside) through
    :class:`~.features.GeodesicFeatures`. The region's edges are within
    :data:`~.shapes.EDGE_TOLERANCE_M` of the truth at any size (:mod:`.buffers`);
    ``frame`` (centred on the play area) only picks candidates and first guesses.
    """

    seeker: LonLat
    subject: str
    features: tuple[BaseGeometry, ...]
    frame: AzimuthalFrame
    hider_closer: bool | None = None
    kind: ClassVar[str] = "measuring"
    cost: ClassVar[tuple[int, int]] = (3, 1)

    @property
    def answer(self) -> bool | None:
        return self.hider_closer

    def _points(self) -> np.ndarray:
        return self._point_array

    @cached_property
    def _point_array(self) -> np.ndarray:
        pts = [g for g in self.features if g.geom_type == "Point"]
        return np.array([[p.x, p.y] for p in pts]) if pts else np.zeros((0, 2))

    @cached_property
    def _point_index(self) -> PlaceIndex:
        return PlaceIndex(self._point_array[:, 0], self._point_array[:, 1])

    @cached_property
    def _shapes(self) -> GeodesicFeatures | None:
        others = [g for g in self.features if g.geom_type not in ("Point", "MultiPoint")]
        index = GeodesicFeatures(others, self.frame) if others else None
        return None if index is None or index.is_empty else index

    def distances(self, lons, lats) -> np.ndarray:
        """Exact distance in metres from each point to the nearest feature (vectorised)."""
        lons = np.atleast_1d(np.asarray(lons, float))
        lats = np.atleast_1d(np.asarray(lats, float))
        best = np.full(len(lons), np.inf)
        if len(self._point_array) and len(lons):
            best = self._point_index.nearest(lons, lats)[1]
        if self._shapes is not None and len(lons):
            best = np.minimum(best, self._shapes.distance(lons, lats))
        return best

    def distance_from(self, lon: float, lat: float) -> float:
        """Distance in metres from a point to the nearest feature."""
        return float(self.distances([lon], [lat])[0])

    def seeker_distance(self) -> float:
        return self._seeker_distance

    @cached_property
    def _seeker_distance(self) -> float:
        d = self.distance_from(*self.seeker)
        if math.isinf(d):
            raise QuestionError(f"{self.label()}: no {self.subject} known near the play area")
        return d

    def answer_for(self, lon: float, lat: float) -> bool:
        return self.distance_from(lon, lat) <= self.seeker_distance() + TIE_M

    def answers_for(self, lons, lats) -> np.ndarray:
        return self.distances(lons, lats) <= self.seeker_distance() + TIE_M

    def region(self, extent: BaseGeometry) -> BaseGeometry:
        """Points of ``extent`` at most the seeker's distance from the nearest feature."""
        cached = self.__dict__.get("_last_region")
        if cached is not None and cached[0] is extent:  # both answers of one extent
            return cached[1]
        region = self._region(extent)
        self.__dict__["_last_region"] = (extent, region)
        return region

    def _region(self, extent: BaseGeometry) -> BaseGeometry:
        d = self.seeker_distance()
        parts = []
        pts = self._point_array
        if len(pts) and d > 0 and not extent.is_empty:
            # Only points whose circle can reach the extent.
            centre = shapely.centroid(extent)
            reach = _max_distance_from(extent, Place("", "", centre.x, centre.y))
            dc = distance_m(np.full(len(pts), centre.x), np.full(len(pts), centre.y), *pts.T)
            near = pts[dc <= reach + d]
            if len(near):
                lons = wrap_lon(near[:, 0], centre.x)
                # Coarse circumscribed circles first: only those touching the extent are drawn finely.
                shapely.prepare(extent)
                coarse = geodesic_circles(lons, near[:, 1], d, tolerance_m=max(d * 0.02, 1.0))
                touch = shapely.intersects(extent, coarse)
                fine = geodesic_circles(lons[touch], near[touch, 1], d, EDGE_TOLERANCE_M)
                if len(fine) and shapely.contains(fine, extent).any():
                    return extent
                parts.extend(fine)
        if self._shapes is not None:
            parts.append(distance_region(self._shapes, d, extent))
        if not parts:
            return shapely.Polygon()
        return extent.intersection(shapely.union_all(parts))

    def kept_for(self, answer: bool, extent: BaseGeometry) -> BaseGeometry:
        region = self.region(extent)
        return region if answer else extent.difference(region)

    def cost_key(self) -> tuple:
        return (self.kind, self.subject)

    def label(self) -> str:
        return f"Measuring {self.subject}"

    def answer_text(self, answer: bool) -> str:
        return "closer" if answer else "further"
