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
from dataclasses import dataclass
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
from stations_generator.core.questions.legal import (  # noqa: F401  (re-exported)
    ALL_THERMOMETER_DISTANCES_M,
    CUSTOM,
    TENTACLES_RADIUS_M,
    THERMOMETER_DISTANCES_M,
    THERMOMETER_SLACK,
    QuestionError,
    check_thermometer_distance,
    radius_class,
    thermometer_class,
)
from stations_generator.core.questions.legal import fmt_distance as _fmt_distance
from stations_generator.core.questions.places import (  # noqa: F401  (re-exported)
    Place,
    Station,
    Zone,
    ZoneIndex,
    first_letter,
    max_distance_from,
    nearest_place,
    place_index,
    voronoi_cell,
    zone_of,
)

LonLat = tuple[float, float]
# Distances equal to within a micrometre are a tie (an edge point, an equidistant
# point): floating-point round trips of GeographicLib are good to ~1e-9 m.
TIE_M = 1e-6


def _arrays(lons, lats) -> tuple[np.ndarray, np.ndarray]:
    return np.atleast_1d(np.asarray(lons, float)), np.atleast_1d(np.asarray(lats, float))


def _circle(centre: LonLat, radius_m: float, near_lon: float | None) -> BaseGeometry:
    lon = centre[0] if near_lon is None else wrap_lon(centre[0], near_lon)
    return geodesic_circle(lon, centre[1], radius_m, EDGE_TOLERANCE_M)


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
        # Every custom radius repeats the same question (JLTG.EU house rules, Radius).
        return (self.kind, radius_class(self.radius_m))

    def label(self) -> str:
        custom = " (custom)" if radius_class(self.radius_m) == CUSTOM else ""
        return f"Radius {_fmt_distance(self.radius_m)}{custom}"

    def answer_text(self, answer: bool) -> str:
        return "within" if answer else "not within"


# --- thermometer ----------------------------------------------------------------------


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
        return None if self.too_early() else self.warmer  # null when asked too early

    def travelled_m(self) -> float:
        return float(distance_m(self.start[0], self.start[1], self.end[0], self.end[1]))

    def class_m(self) -> float:
        """The thermometer distance this is, for the repeat cost: the declared one, else
        the largest listed distance not longer than the travel (400 m if shorter)."""
        if self.distance_m is not None:
            return self.distance_m
        found = thermometer_class(self.travelled_m())
        return ALL_THERMOMETER_DISTANCES_M[0] if found is None else found

    def too_early(self) -> str:
        """Why the question has no answer when asked before travelling its distance, or "".

        JLTG.EU house rules, Thermometer ("Thermometer Mechanics"): it is considered
        asked, the reward is given, and the hider returns a null answer.
        """
        travelled = self.travelled_m()
        nominal = self.class_m()
        if travelled >= nominal * (1 - THERMOMETER_SLACK):
            return ""
        return (
            f"thermometer {_fmt_distance(nominal)}: travelled only "
            f"{_fmt_distance(round(travelled))}; counted as asked, no answer"
        )

    def nominal_m(self, game_size: str) -> float:
        """The thermometer distance this question uses; QuestionError if not allowed in
        ``game_size`` (JLTG.EU house rules, Thermometer: 15 km M/L only, 75 km L only)."""
        if self.distance_m is not None:
            check_thermometer_distance(self.distance_m, game_size)
            return self.distance_m
        allowed = THERMOMETER_DISTANCES_M[game_size]
        found = thermometer_class(self.travelled_m(), allowed)
        return allowed[0] if found is None else found

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
        # Repeats by distance class (JLTG.EU house rules, Thermometer).
        return (self.kind, self.class_m())

    def label(self) -> str:
        return f"Thermometer {_fmt_distance(self.class_m())}"

    def answer_text(self, answer: bool | None) -> str:
        if answer is None:
            return "no answer (too early)" if self.too_early() else "no answer"
        return "hotter" if answer else "colder"


# --- tentacles ------------------------------------------------------------------------

NOT_WITHIN = "not within"


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
        place, _ = nearest_place(self._candidates, lon, lat)
        return place.id if place else NOT_WITHIN

    def answers_for(self, lons, lats) -> np.ndarray:
        lons, lats = _arrays(lons, lats)
        n = len(lons)
        out = np.full(n, NOT_WITHIN, dtype=object)
        d = distance_m(np.full(n, self.seeker[0]), np.full(n, self.seeker[1]), lons, lats)
        inside = np.asarray(d) <= self.radius_m + TIE_M
        if self._candidates and inside.any():
            idx, _ = place_index(self._candidates).nearest(lons[inside], lats[inside])
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
        place, _ = nearest_place(self.places, *self.seeker)
        if place is None:
            raise QuestionError(f"{self.label()}: no {self.subject} known near the play area")
        return place

    def answer_for(self, lon: float, lat: float) -> bool:
        place, _ = nearest_place(self.places, lon, lat)
        return place is not None and place.id == self.seeker_place().id

    @cached_property
    def _index(self) -> PlaceIndex:
        return place_index(self.places)

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
    def _index(self) -> ZoneIndex:
        return ZoneIndex(self.zones)

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
    #: For ``border``: the OSM admin level measured to (2 = the international border).
    #: Each level is its own question (JLTG.EU house rules, Measuring).
    level: int | None = None
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
            reach = max_distance_from(extent, Place("", "", centre.x, centre.y))
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
        return (
            (self.kind, self.subject)
            if self.level is None
            else (self.kind, self.subject, self.level)
        )

    def label(self) -> str:
        level = "" if self.level is None else f" (level {self.level})"
        return f"Measuring {self.subject}{level}"

    def answer_text(self, answer: bool) -> str:
        return "closer" if answer else "further"
