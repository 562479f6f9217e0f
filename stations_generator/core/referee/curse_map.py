"""The curses' map conditions, checked on the OSM data (pure).

Some curses of the JLTG.EU house rules say where the seekers (or the hider) must be:
"from on or under a bridge", "at least 75 m from any named street", "within S 250
M 250 L 500 m of the seekers' current location", "seekers must be at least S 2 M 4
L 40 km from you". :data:`CURSE_CONDITIONS` holds those conditions as data, each with
the rule's own numbers by game size; :func:`check_curse` measures them on the map.

What the map checks, and how:

* **features** — the distance from a position to the nearest feature of some kinds
  (:data:`FEATURE_KINDS`: bridges, dykes, named streets, bodies of water, valid
  hiding stops, monuments, windmills, town halls, graveyards, places of worship,
  train stations), exact on WGS84: points by ``pyproj.Geod``, lines and polygons by
  :class:`~stations_generator.core.geo.features.GeodesicFeatures` (0 inside a
  polygon). Bodies of water are those of the measuring question
  (:mod:`~stations_generator.core.questions.water_bodies`), valid stops those of the
  hiding zones (:mod:`~stations_generator.core.questions.stops`);
* **teams** — the geodesic distance between the hider and the seekers;
* **place** — the geodesic distance from the seekers to a place named in the check
  (the sight the seekers chose, the spot of an earlier question, their next station);
* **plates** — the distances from the seekers to two named regions (admin areas, the
  border question's), 0 inside one (Curse of the Distant Road Trip).

Where a rule says "on", "at" or "next to" without a number, the map needs one:
:data:`ON_M` for standing on (or under) a line such as a bridge, :data:`NEXT_TO_M`
for being next to a mapped place. They are this module's reading, not the rules'.
Everything else a curse asks (a photo, a prayer, a die, being off transit) stays the
players' word; each condition says which part that is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from stations_generator.core.gamesize import GAME_SIZES
from stations_generator.core.geo.features import GeodesicFeatures
from stations_generator.core.geo.geodesy import geodesic_distance
from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.core.questions.places import Station
from stations_generator.core.questions.rules import RULE_SETS

__all__ = [
    "CURSE_CONDITIONS",
    "FEATURE_KINDS",
    "NEXT_TO_M",
    "NOT_ON_THE_MAP",
    "ON_M",
    "STREET_CLASSES",
    "ConditionResult",
    "CurseCheck",
    "CurseLayers",
    "CurseNotCheckable",
    "MapCondition",
    "MapFeature",
    "check_curse",
    "feature_kind_matches",
    "reach_m",
]

LatLon = tuple[float, float]

#: "On or under" a feature mapped as a line (a bridge's or a dyke's centre line): a deck
#: or a dyke's crest reaches some metres either side of the line, and a phone's position
#: is good to about 5 m. This module's reading; the rules give no number.
ON_M = 10.0
#: "At" or "next to" a mapped place (a monument, a town hall, a place of worship): within
#: 50 m of its node or outline. This module's reading; the rules give no number.
NEXT_TO_M = 50.0
#: Next to a windmill or a wind turbine: the rules ask the seekers to keep a safe distance
#: from a working one, and a turbine's own exclusion zone can be 100 m or more.
WINDMILL_M = 150.0

#: Feature kinds and what a person reads; ``valid_stop`` comes from the layers' stations.
FEATURE_KINDS: dict[str, str] = {
    "bridge": "a bridge",
    "dyke": "a dyke",
    "named_street": "a named street",
    "body_of_water": "a body of water",
    "valid_stop": "a transit stop valid for hiding",
    "monument": "a monument",
    "windmill": "a windmill or wind turbine",
    "town_hall": "a town hall",
    "graveyard": "a graveyard",
    "place_of_worship": "a place of worship",
    "train_station": "a train station",
}


#: Road classes that make a street (``highway=*``); paths, footways, cycleways, tracks and
#: steps are not streets (JLTG.EU house rules, Definitions of Terms: Street Intersection).
STREET_CLASSES = frozenset(
    {
        "motorway",
        "trunk",
        "primary",
        "secondary",
        "tertiary",
        "unclassified",
        "residential",
        "living_street",
        "pedestrian",
        "service",
        "road",
        "busway",
        "motorway_link",
        "trunk_link",
        "primary_link",
        "secondary_link",
        "tertiary_link",
    }
)


def _bridge(tags: Mapping[str, str]) -> bool:
    # JLTG.EU house rules, Definitions of Terms: Bridge — a path, road or railway on an
    # elevated structure; aqueducts only when vehicles use them (a waterway on a bridge
    # is left out); underpasses and tunnels are not bridges.
    if tags.get("man_made") == "bridge":
        return True
    if tags.get("bridge", "no") in ("no", "aqueduct") or tags.get("tunnel", "no") != "no":
        return False
    return "highway" in tags or "railway" in tags


#: What each feature kind is, read from an OSM object's tags.
_KIND_TAGS = {
    "bridge": _bridge,
    # a dyke (dijk, levee): an earthwork for water management, as OSM tags it
    "dyke": lambda t: t.get("man_made") == "dyke",
    "named_street": lambda t: t.get("highway") in STREET_CLASSES and bool(t.get("name")),
    "monument": lambda t: t.get("historic") == "monument",
    "windmill": lambda t: (
        t.get("man_made") in ("windmill", "wind_turbine")
        or (t.get("power") == "generator" and t.get("generator:source") == "wind")
    ),
    "town_hall": lambda t: t.get("amenity") == "townhall",
    "graveyard": lambda t: t.get("landuse") == "cemetery" or t.get("amenity") == "grave_yard",
    "place_of_worship": lambda t: t.get("amenity") == "place_of_worship",
    "train_station": lambda t: (
        t.get("building") == "train_station"
        or t.get("railway") == "station"
        or (t.get("public_transport") == "station" and t.get("train") == "yes")
    ),
}


def feature_kind_matches(kind: str, tags: Mapping[str, str]) -> bool:
    """Whether an OSM object with these tags is a feature of ``kind``.

    Bodies of water and valid stops are not read by tags here: the layers give the
    measuring question's bodies of water and the catalogue's stations
    (:class:`CurseLayers`).

    Parameters
    ----------
    kind : str
        A key of :data:`FEATURE_KINDS` other than ``"body_of_water"`` and ``"valid_stop"``.
    tags : Mapping[str, str]
        The object's tags.

    Returns
    -------
    bool
    """
    try:
        return _KIND_TAGS[kind](tags)
    except KeyError:
        raise ValueError(f"kind: unknown map feature kind {kind!r}") from None


@dataclass(frozen=True)
class MapFeature:
    """One mapped feature: its OSM id (``"way/123"``), name and lon/lat geometry."""

    osm_id: str
    name: str
    geometry: BaseGeometry


class CurseLayers(Protocol):
    """What checking a curse needs from the OSM data (``app/curse_checks.py`` gives it)."""

    def map_features(self, kind: str, near: LatLon, reach: float) -> Sequence[MapFeature]:
        """Every feature of ``kind`` (a :data:`FEATURE_KINDS` key) within ``reach`` metres
        of ``near`` (lat, lon) -- more is fine."""
        ...

    def stations(self, near: LatLon, reach: float) -> Sequence[Station]:
        """The railway stations and halts within ``reach`` metres of ``near`` (lat, lon)."""
        ...

    def regions(self, name: str) -> Sequence[MapFeature]:
        """The admin areas (``boundary=administrative``, any level) whose name is ``name``."""
        ...


@dataclass(frozen=True)
class MapCondition:
    """One place or distance a curse asks for, by the rule's words and numbers.

    Attributes
    ----------
    part : str
        ``"cast"`` (the casting cost, checked when the hider plays it) or ``"clear"``
        (what the seekers must do).
    who : str
        Whose position is measured: ``"seekers"`` or ``"hider"``.
    measure : str
        ``"feature"`` (to the nearest feature of ``features``), ``"teams"`` (hider to
        seekers), ``"place"`` (seekers to the given place), ``"closer-to-hider"``
        (the place is nearer the hider than the seekers are) or ``"plates"`` (the
        seekers' plate region as far from them as the hider's, or farther).
    op : str
        ``"<="``, ``">="``, ``">"`` or ``"<"``: the distance compared with the limit.
    limit_m : Mapping[str, float]
        The limit by game size (``{}`` for ``closer-to-hider``).
    features : tuple of str
        Feature kinds (:data:`FEATURE_KINDS`) for ``measure="feature"``.
    rule : str
        The rule's condition in a few words.
    players_word : str
        What of the curse the map cannot check.
    """

    part: str
    who: str
    measure: str
    op: str
    limit_m: Mapping[str, float]
    features: tuple[str, ...] = ()
    rule: str = ""
    players_word: str = ""


def _sizes(s: float, m: float, large: float) -> dict[str, float]:
    return {"S": s, "M": m, "L": large}


def _same(value: float) -> dict[str, float]:
    return _sizes(value, value, value)


_NEXT = _same(NEXT_TO_M)

#: curse id -> (section of the JLTG.EU house rules, its map conditions).
# fmt: off
CURSE_CONDITIONS: dict[str, tuple[str, tuple[MapCondition, ...]]] = {
    "curse-of-the-bridge-troll": ("Curse Of The Bridge Troll", (
        MapCondition("clear", "seekers", "feature", "<=", _same(ON_M), ("bridge",),
                     "the next question asked from on or under a bridge",
                     "that every seeker is under or on it when the question is asked"),
    )),
    "curse-of-the-divisive-dijk": ("Curse Of The Divisive Dijk", (
        MapCondition("clear", "seekers", "feature", "<=", _same(ON_M), ("dyke",),
                     "the next question asked from on top of a dijk",
                     "an earthwork for water management the map does not tag as a dyke"),
    )),
    "curse-of-the-grass-toucher": ("Curse Of The Grass-Toucher", (
        MapCondition("clear", "seekers", "feature", ">=", _same(75.0), ("named_street",),
                     "the next question asked at least 75 m from any named street",
                     "no trespassing"),
    )),
    "curse-of-the-ill-advised-gamble": ("Curse of the Ill-Advised Gamble", (
        MapCondition("clear", "seekers", "feature", ">", _sizes(50.0, 100.0, 200.0),
                     ("valid_stop",),
                     "no attempt within S 50 M 100 L 200 m of a transit stop valid for hiding",
                     "the dice"),
    )),
    "curse-of-the-monumental-task": ("Curse Of The Monumental Task", (
        MapCondition("clear", "seekers", "feature", "<=", _NEXT, ("monument",),
                     "the next question asked next to a monument marked as such on the map",
                     "the hider's photo of a monument in the hiding area"),
    )),
    "curse-of-the-quixotic-quest": ("Curse Of The Quixotic Quest", (
        MapCondition("clear", "seekers", "feature", "<=", _same(WINDMILL_M), ("windmill",),
                     "the next question asked next to a windmill (wind turbines count)",
                     "depictions of windmills (murals and the like), which the map does not hold"),
    )),
    "curse-of-ratatouille": ("Curse Of Ratatouille", (
        MapCondition("clear", "seekers", "feature", "<=", _NEXT, ("town_hall",),
                     "the next question asked next to a Rathaus or town hall",
                     "that no internet-connected device was used to find it"),
    )),
    "curse-of-the-seabird": ("Curse Of The Seabird", (
        MapCondition("clear", "seekers", "feature", "<=", _same(3.0), ("body_of_water",),
                     "a bird photographed within 3 m of a body of water"
                     " (the position of the photo)",
                     "the bird; a river mapped only as a line has no bank in the data"),
    )),
    "curse-of-the-longest-rest": ("Curse Of The Longest Rest", (
        MapCondition("clear", "seekers", "feature", "<=", _same(ON_M),
                     ("graveyard", "place_of_worship"),
                     "a tombstone in a graveyard or cemetery, or at a place of worship",
                     "the dates of death on the tombstones"),
    )),
    "curse-of-the-unknown-deity": ("Curse of the Unknown Deity", (
        MapCondition("cast", "hider", "feature", "<=", _NEXT, ("place_of_worship",),
                     "the hider at or near a place of worship",
                     ""),
        MapCondition("clear", "seekers", "feature", "<=", _NEXT, ("place_of_worship",),
                     "the seekers pray outside a place of worship",
                     "the prayer and the die"),
    )),
    "curse-of-the-freewheeler": ("Curse Of The Freewheeler", (
        MapCondition("cast", "seekers", "teams", ">=", _sizes(2000.0, 4000.0, 40000.0), (),
                     "the seekers at least S 2 M 4 L 40 km from the hider",
                     ""),
    )),
    "curse-of-the-landline": ("Curse Of The Landline", (
        MapCondition("cast", "seekers", "teams", ">=", _sizes(2000.0, 4000.0, 40000.0), (),
                     "the seekers at least S 2 M 4 L 40 km from the hider",
                     ""),
    )),
    "curse-of-the-long-shot": ("Curse Of The Long Shot", (
        MapCondition("cast", "seekers", "teams", "<=", _sizes(1500.0, 4000.0, 40000.0), (),
                     "the seekers within S 1.5 M 4 L 40 km of the hider",
                     ""),
    )),
    "curse-of-the-unreliable-railway": ("Curse of the Unreliable Railway", (
        MapCondition("cast", "seekers", "closer-to-hider", "<", {}, (),
                     "the seekers' next station (the place) closer to the hider than they are",
                     "which station is next on their route"),
    )),
    "curse-of-the-distant-road-trip": ("Curse of the Distant Road Trip", (
        MapCondition("clear", "seekers", "plates", ">=", {}, (),
                     "a plate from a region at least as far from the seekers (to its nearest"
                " border) as the region of the hider's plate",
                     "which region each plate is from (the photos)"),
    )),
    "curse-of-the-history-obsessed-squirrel": ("Curse Of The History-Obsessed Squirrel", (
        MapCondition("clear", "seekers", "place", "<=", _sizes(500.0, 1000.0, 3000.0), (),
                     "the chosen sight (the place) within S 0.5 M 1 L 3 km of the seekers"
                " (their position, or their next stop)",
                     "that it is a top thing to see, and the summary or video"),
    )),
    "curse-of-the-mediocre-travel-agent": ("Curse Of The Mediocre Travel Agent", (
        MapCondition("cast", "seekers", "place", "<=", _sizes(250.0, 250.0, 500.0), (),
                     "the chosen place within S 250 M 250 L 500 m of the seekers",
                     "that it is publicly accessible and the seekers are not on transit"),
    )),
    "curse-of-the-plagued-word": ("Curse Of The Plagued Word", (
        MapCondition("clear", "seekers", "place", ">", _sizes(500.0, 2000.0, 8000.0), (),
                     "no question within S 0.5 M 2 L 8 km of where an earlier one was asked"
                     " (the place)",
                     ""),
    )),
    "curse-of-the-urban-explorer": ("Curse Of The Urban Explorer", (
        MapCondition("clear", "seekers", "feature", ">", _same(0.0), ("train_station",),
                     "no question asked in a train station (its mapped outline)",
                     "being on transit; a station mapped only as a point has no outline"),
    )),
    "curse-of-climate-change": ("Curse of Climate Change", (
        MapCondition("clear", "seekers", "feature", ">", _same(0.0), ("train_station",),
                     "the climate-controlled location not a station or inside one",
                     "the climate control; a station mapped only as a point has no outline"),
    )),
}
# fmt: on

#: Curses whose conditions sound like a map's but that the map cannot check, and why.
NOT_ON_THE_MAP: dict[str, str] = {
    "curse-of-the-moral-high-ground": "altitude is not in the OSM data",
    "curse-of-the-notable-erection": "notability is Wikipedia's, not the map's",
    "curse-of-the-impenetrable-fog": "the seekers' path is a route walked, not a position",
    "blessing-of-the-left-turn": "turns are made along a route walked, not at a position",
    "curse-of-the-right-turn": "turns are made along a route walked, not at a position",
    "curse-of-the-strider": "the distance walked is a track, not a position",
    "curse-of-the-endless-tumble": "a die rolled 15 m is not on the map",
}


class CurseNotCheckable(ValueError):
    """A curse id the map has no condition for; the message is one line naming it."""


@dataclass(frozen=True)
class ConditionResult:
    """One condition measured: met or not, the distance, the nearest feature, why.

    Attributes
    ----------
    condition : MapCondition
    met : bool
    distance_m : float or None
        The distance measured (to the nearest feature, between the teams, to the place,
        to the seekers' plate region); None when no feature is within the reach read.
    limit_m : float or None
        What it is compared with: the rule's limit for the game size; for
        ``closer-to-hider`` the seekers' distance to the hider, for ``plates`` the
        distance to the hider's plate region.
    feature_name, osm_id : str
        The nearest feature's name and OSM id (``"way/123"``), or ``""``.
    explanation : str
        One line saying what was measured and against what.
    """

    condition: MapCondition
    met: bool
    distance_m: float | None
    limit_m: float | None
    feature_name: str = ""
    osm_id: str = ""
    explanation: str = ""


@dataclass(frozen=True)
class CurseCheck:
    """A curse's map conditions measured for one game size and the positions given."""

    curse_id: str
    section: str
    size: str
    results: tuple[ConditionResult, ...]

    @property
    def met(self) -> bool:
        """Whether every condition measured is met."""
        return all(r.met for r in self.results)

    @property
    def rule(self) -> str:
        """The rule cited: ``"JLTG.EU house rules, Curse Of The ..."``."""
        return f"JLTG.EU house rules, {self.section}"


def _latlon(name: str, value: object) -> LatLon | None:
    if value is None:
        return None
    try:
        lat, lon = (float(v) for v in value)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise TypeError(f"{name}: a (lat, lon) pair of numbers, got {value!r}") from None
    if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
        raise ValueError(f"{name}: ({lat}, {lon}) is not a lat, lon position on the globe")
    return lat, lon


def _plates(value: object) -> tuple[str, str] | None:
    if value is None:
        return None
    if (
        not isinstance(value, (tuple, list))
        or len(value) != 2
        or not all(isinstance(v, str) and v.strip() for v in value)
    ):
        raise TypeError(f"plates: (the hider's plate region, the seekers'), got {value!r}")
    return value[0].strip(), value[1].strip()


def _conditions(curse_id: str) -> tuple[str, tuple[MapCondition, ...]]:
    if not isinstance(curse_id, str):
        raise TypeError(f"curse_id: a card id (str), got {type(curse_id).__name__}")
    if curse_id in CURSE_CONDITIONS:
        return CURSE_CONDITIONS[curse_id]
    why = NOT_ON_THE_MAP.get(curse_id)
    if why is None and not re.fullmatch(r"(curse|blessing)-[a-z0-9-]+", curse_id):
        raise CurseNotCheckable(
            f"unknown curse {curse_id!r}: use a curse's card id, e.g. curse-of-the-bridge-troll"
        )
    why = why or "its conditions are the players' word"
    raise CurseNotCheckable(f"the map cannot check curse {curse_id!r}: {why}")


def reach_m(condition: MapCondition, size: str) -> float:
    """How far from the position features are read for a condition (metres).

    Twice the limit and at least 2 km: every feature that can decide the condition,
    and the nearest one reported when none is within the limit.
    """
    return max(2.0 * condition.limit_m.get(size, 0.0), 2000.0)


def _compare(distance: float, op: str, limit: float) -> bool:
    return {
        "<=": distance <= limit,
        ">=": distance >= limit,
        ">": distance > limit,
        "<": distance < limit,
    }[op]


def _nearest(features: Sequence[MapFeature], at: LatLon) -> tuple[float, MapFeature | None]:
    """The exact geodesic distance (m) from ``at`` to the nearest feature, and that feature."""
    if not features:
        return math.inf, None
    lat, lon = at
    is_point = [f.geometry.geom_type in ("Point", "MultiPoint") for f in features]
    points = [f for f, p in zip(features, is_point, strict=True) if p]
    shapes = [f for f, p in zip(features, is_point, strict=True) if not p]
    best, found = math.inf, None
    if points:
        xy = shapely.get_coordinates([f.geometry for f in points])
        owner = np.repeat(
            np.arange(len(points)), shapely.get_num_coordinates([f.geometry for f in points])
        )
        d = geodesic_distance(np.full(len(xy), lon), np.full(len(xy), lat), xy[:, 0], xy[:, 1])
        k = int(np.argmin(d))
        best, found = float(d[k]), points[int(owner[k])]
    if shapes:
        index = GeodesicFeatures([f.geometry for f in shapes], AzimuthalFrame(lon, lat))
        dist, flon, flat = index.nearest([lon], [lat])
        if float(dist[0]) < best:
            # the feature the nearest point lies on: the nearest geometry to that foot
            foot = Point(float(flon[0]), float(flat[0]))
            gaps = [f.geometry.distance(foot) for f in shapes]
            best, found = float(dist[0]), shapes[int(np.argmin(gaps))]
    return best, found


def _valid_stops(
    layers: CurseLayers, at: LatLon, reach: float, country: str | None
) -> list[MapFeature]:
    rules = RULE_SETS["jltg-eu"]  # the curse is a JLTG.EU house rule: its valid stops
    return [
        MapFeature(s.id, s.name, Point(s.lon, s.lat))
        for s in layers.stations(at, reach)
        if rules.is_valid_stop(s, country)
    ]


def _measure_feature(
    cond: MapCondition, at: LatLon, size: str, layers: CurseLayers, country: str | None
) -> ConditionResult:
    reach = reach_m(cond, size)
    found: list[MapFeature] = []
    for kind in cond.features:
        if kind == "valid_stop":
            found += _valid_stops(layers, at, reach, country)
        else:
            found += list(layers.map_features(kind, at, reach))
    distance, feature = _nearest(found, at)
    limit = cond.limit_m[size]
    met = _compare(distance, cond.op, limit)
    what = " or ".join(FEATURE_KINDS[k] for k in cond.features)
    if feature is None:
        text = f"nothing within {reach:.0f} m of the {cond.who} is {what} on the map"
        return ConditionResult(cond, met, None, limit, explanation=text)
    label = f"{feature.name or 'unnamed'} ({feature.osm_id})"
    verb = "is" if cond.who == "hider" else "are"
    text = f"the {cond.who} {verb} {distance:.1f} m from {what}, {label}"
    if cond.op in ("<=", "<"):
        text += f"; {cond.rule}: within {limit:g} m"
    else:
        text += f"; {cond.rule}: farther than {limit:g} m"
    return ConditionResult(cond, met, distance, limit, feature.name, feature.osm_id, text)


def _between(a: LatLon, b: LatLon) -> float:
    return float(geodesic_distance(a[1], a[0], b[1], b[0]))


def _measure_points(
    cond: MapCondition, size: str, seekers: LatLon, hider: LatLon | None, place: LatLon | None
) -> ConditionResult:
    if cond.measure == "closer-to-hider":
        seekers_m = _between(seekers, hider)
        place_m = _between(place, hider)
        met = place_m < seekers_m
        text = (
            f"the place is {place_m:.0f} m from the hider, the seekers {seekers_m:.0f} m;"
            f" {cond.rule}"
        )
        return ConditionResult(cond, met, place_m, seekers_m, explanation=text)
    other, name = (hider, "hider") if cond.measure == "teams" else (place, "place")
    distance = _between(seekers, other)
    limit = cond.limit_m[size]
    met = _compare(distance, cond.op, limit)
    text = f"the seekers are {distance:.0f} m from the {name}; {cond.rule}"
    return ConditionResult(cond, met, distance, limit, explanation=text)


def _region(layers: CurseLayers, name: str, at: LatLon) -> tuple[float, MapFeature]:
    distance, found = _nearest(list(layers.regions(name)), at)
    if found is None:
        raise ValueError(
            f"plates: no admin area named {name!r} on the map; name the region as OSM does"
            " (its name tag) and give an extract that holds it"
        )
    return distance, found


def _measure_plates(
    cond: MapCondition, seekers: LatLon, plates: tuple[str, str], layers: CurseLayers
) -> ConditionResult:
    hider_m, hider_region = _region(layers, plates[0], seekers)
    seekers_m, seekers_region = _region(layers, plates[1], seekers)
    met = _compare(seekers_m, cond.op, hider_m)
    text = (
        f"the seekers are {seekers_m:.0f} m from {plates[1]} ({seekers_region.osm_id}),"
        f" {hider_m:.0f} m from {plates[0]} ({hider_region.osm_id}), the hider's plate; {cond.rule}"
    )
    return ConditionResult(
        cond, met, seekers_m, hider_m, seekers_region.name, seekers_region.osm_id, text
    )


def _needs(cond: MapCondition) -> set[str]:
    need = {cond.who}
    if cond.measure == "plates":
        need |= {"plates"}
    if cond.measure in ("teams", "closer-to-hider"):
        need |= {"seekers", "hider"}
    if cond.measure in ("place", "closer-to-hider"):
        need |= {"seekers", "place"}
    return need


def check_curse(
    curse_id: str,
    size: str,
    layers: CurseLayers | None = None,
    *,
    seekers: LatLon | None = None,
    hider: LatLon | None = None,
    place: LatLon | None = None,
    country: str | None = None,
    plates: tuple[str, str] | None = None,
) -> CurseCheck:
    """Measure a curse's map conditions for a game size and the positions given.

    Every condition whose positions are all given is measured; a curse with a casting
    cost and a clearing condition (Curse of the Unknown Deity) measures both when both
    positions are given.

    Parameters
    ----------
    curse_id : str
        The card id (a slug of its printed name), e.g. ``"curse-of-the-bridge-troll"``.
    size : str
        The game size, ``"S"``, ``"M"`` or ``"L"``.
    layers : CurseLayers, optional
        The OSM features (needed by the conditions measured to features).
    seekers, hider, place : (lat, lon), optional
        The seekers' and the hider's positions; ``place`` is the place the curse names
        (the chosen sight, an earlier question's spot, the seekers' next station).
    country : str, optional
        The game's country code: which stops are valid for hiding (``"DE"``, ``"NL"``…).
    plates : (str, str), optional
        The regions (admin area names) of the hider's and the seekers' licence plates
        (Curse of the Distant Road Trip).

    Returns
    -------
    CurseCheck

    Raises
    ------
    CurseNotCheckable
        An unknown curse id, or a curse without a map condition (one line naming it).
    ValueError, TypeError
        A bad size or position, or no position for any condition (naming the parameter).
    """
    section, conditions = _conditions(curse_id)
    if size not in GAME_SIZES:
        raise ValueError(f"size: the game size is S, M or L, got {size!r}")
    if country is not None and not isinstance(country, str):
        raise TypeError(f"country: a country code (str) or None, got {type(country).__name__}")
    given = {
        name: pos
        for name, pos in (
            ("seekers", _latlon("seekers", seekers)),
            ("hider", _latlon("hider", hider)),
            ("place", _latlon("place", place)),
            ("plates", _plates(plates)),
        )
        if pos is not None
    }
    todo = [c for c in conditions if _needs(c) <= set(given)]
    if not todo:
        need = " and ".join(sorted(_needs(conditions[0])))
        raise ValueError(f"{curse_id}: give the {need} ({conditions[0].rule})")
    if layers is None and any(c.measure in ("feature", "plates") for c in todo):
        raise ValueError(f"{curse_id} is measured to map features: give the map (OSM extracts)")
    results = []
    for cond in todo:
        if cond.measure == "feature":
            results.append(_measure_feature(cond, given[cond.who], size, layers, country))
        elif cond.measure == "plates":
            results.append(_measure_plates(cond, given["seekers"], given["plates"], layers))
        else:
            results.append(
                _measure_points(
                    cond, size, given["seekers"], given.get("hider"), given.get("place")
                )
            )
    return CurseCheck(curse_id, section, size, tuple(results))
