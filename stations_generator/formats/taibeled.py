"""Compatibility with the taibeled/JetLagHideAndSeek map generator (questions, states, links).

Players paste three things from that app in chat: one question (``{"id", "key",
"data"}``), a whole game state ("Copy Hiding Zone"), or a share link ``…?hzc=CODE``.
This module reads and writes all three, and converts questions to and from our
question model (:mod:`stations_generator.core.questions.geometry`).

Question JSON (facts read from the app's public zod schema, ``src/maps/schema.ts``):

* every question is ``{"id": kind, "key": number, "data": {...}}`` with ``kind`` one
  of ``radius``, ``thermometer``, ``tentacles``, ``matching``, ``measuring``;
* radius, tentacles, matching and measuring data start with the seeker's ``lat``,
  ``lng`` and the display fields ``drag`` (default true), ``color`` (one of eight icon
  colours, random by default), ``collapsed`` and ``hidden`` (default false);
  thermometers have ``latA``/``lngA`` (start), ``latB``/``lngB`` (end), ``colorA``,
  ``colorB`` instead of ``lat``/``lng``/``color``;
* answers: radius ``within``, thermometer ``warmer`` (true = closer to B), matching
  ``same`` (true = inside the seeker's cell / zone), measuring ``hiderCloser`` (a tie
  counts as closer), tentacles ``location`` (the hider's nearest place as a GeoJSON
  Point Feature with ``properties.name``, or ``false``);
* distances: ``radius`` with ``unit`` ``miles`` (default), ``kilometers`` or ``meters``.

Reading is lenient as in the app: missing display fields take the app's defaults and
unknown keys are dropped. Unlike the app, a missing *answer* is an error by default
(``require_answer=False`` restores the app's default answers), because a silently
assumed answer removes the wrong half of the map. Where the app picks a random value
(``key``, colours), we derive one from the question's content, so output is
reproducible.

Game states come in two shapes:

* ``"collection"`` — a drawn play area: a GeoJSON FeatureCollection of polygons in
  [lng, lat] order, with ``questions`` and the settings at the top level;
* ``"feature"`` — an OSM play area: one Feature whose ``properties`` carry
  ``isHidingZone: true``, ``questions`` and ``extent`` ([north, west, south, east]),
  and whose ``geometry.coordinates`` are in **[lat, lng]** order.

Share links are ``?hzc=`` + base64url (no padding) of the zlib-compressed compact JSON.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import json
import math
import re
import urllib.parse
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import shapely
from shapely.geometry import Point, mapping, shape
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.shapes import AzimuthalFrame, distance_m
from stations_generator.core.questions.geometry import (
    NOT_WITHIN,
    MatchingNearestQuestion,
    MatchingStationQuestion,
    MatchingZoneQuestion,
    MeasuringQuestion,
    Place,
    Question,
    QuestionError,
    RadiusQuestion,
    Station,
    TentaclesQuestion,
    ThermometerQuestion,
    Zone,
    first_letter,
)
from stations_generator.core.questions.rules import MILE_M
from stations_generator.errors import InputError
from stations_generator.formats import jsonio, schemas

__all__ = [
    "KINDS",
    "MATCHING_TYPES",
    "MEASURING_TYPES",
    "TENTACLES_TYPES",
    "UNITS_M",
    "Resolver",
    "TaibeledError",
    "TaibeledQuestion",
    "TaibeledState",
    "decode_hzc",
    "dump_question",
    "dump_state",
    "encode_hzc",
    "from_model",
    "load_any",
    "parse_question",
    "parse_state",
    "to_model",
]


#: Largest decompressed share link accepted (a state with a detailed country outline
#: is ~2 MiB; a few kB of zlib can unpack to gigabytes).
MAX_HZC_BYTES = 16 * 1024**2


class TaibeledError(InputError):
    """Taibeled JSON or a share link that cannot be read or converted (one-line message)."""


# --- schema facts -------------------------------------------------------------------

KINDS = ("radius", "thermometer", "tentacles", "matching", "measuring")
UNITS_M = {"miles": MILE_M, "kilometers": 1000.0, "meters": 1.0}
# The app's icon colours, in the order of its ICON_COLORS table.
COLORS = ("black", "blue", "gold", "green", "grey", "orange", "red", "violet")
_BASE_KEYS = ("lat", "lng", "drag", "color", "collapsed", "hidden")
_ANSWER_KEY = {
    "radius": "within",
    "thermometer": "warmer",
    "tentacles": "location",
    "matching": "same",
    "measuring": "hiderCloser",
}
_LENGTH_COMPARISONS = ("shorter", "longer", "same")
_ADMIN_LEVELS = range(2, 11)

# POI types the app queries as [tag=type]; the plain name is the "hiding zone mode"
# variant (evaluated per station in the app), "-full" the whole-map variant.
_POI_TYPES = (
    "aquarium",
    "zoo",
    "theme_park",
    "museum",
    "hospital",
    "cinema",
    "library",
    "golf_course",
    "consulate",
    "park",
)

# taibeled type -> (our kind, our subject / attribute). Subjects are catalogue subject
# names (``load_catalogue().subjects``) or the special measuring subjects.
MATCHING_TYPES: dict[str, tuple[str, str | bool | None]] = {
    "airport": ("nearest", "airport"),
    "major-city": ("nearest", "major_city"),
    **{f"{t}-full": ("nearest", t) for t in _POI_TYPES},
    **{t: ("nearest", t) for t in _POI_TYPES},
    "peak-full": ("nearest", "mountain"),
    "peak": ("nearest", "mountain"),
    "zone": ("zone", False),
    "letter-zone": ("zone", True),
    "same-first-letter-station": ("station", "letter"),
    "same-length-station": ("station", "length"),
    "same-train-line": ("station", "line"),
    "custom-zone": ("custom-zone", None),
    "custom-points": ("custom-points", None),
}
MEASURING_TYPES: dict[str, str | None] = {
    "coastline": "coastline",
    "airport": "airport",
    "city": "major_city",
    "highspeed-measure-shinkansen": "high_speed_rail",
    **{f"{t}-full": t for t in _POI_TYPES},
    **{t: t for t in _POI_TYPES},
    "peak-full": "mountain",
    "peak": "mountain",
    "mcdonalds": "mcdonalds",
    "seven11": "seven_eleven",
    "rail-measure": "train_station",
    "custom-measure": None,
}
TENTACLES_TYPES: dict[str, str | None] = {
    **{t: t for t in ("theme_park", "zoo", "aquarium", "museum", "hospital", "cinema", "library")},
    "custom": None,
}
# Our subject -> the taibeled type we write (whole-map variants for area questions).
_MATCHING_EXPORT = {
    "airport": "airport",
    "major_city": "major-city",
    **{t: f"{t}-full" for t in _POI_TYPES},
    "mountain": "peak-full",
}
_MEASURING_EXPORT = {
    "coastline": "coastline",
    "airport": "airport",
    "major_city": "city",
    "high_speed_rail": "highspeed-measure-shinkansen",
    **{t: f"{t}-full" for t in _POI_TYPES},
    "mountain": "peak-full",
    "mcdonalds": "mcdonalds",
    "seven_eleven": "seven11",
    "train_station": "rail-measure",
}
_TENTACLES_EXPORT = {s: t for t, s in TENTACLES_TYPES.items() if s is not None}
_STATION_EXPORT = {
    "letter": "same-first-letter-station",
    "length": "same-length-station",
    "line": "same-train-line",
}
# Measuring subjects that are not catalogue places (the resolver gives lines/polygons).
_FEATURE_SUBJECTS = ("coastline", "high_speed_rail", "border", "body_of_water")
_SUBJECT_MEMBER = "subject"  # foreign member naming our subject in a custom `geo`


@lru_cache(maxsize=1)
def _catalogue_subjects() -> frozenset[str]:
    from stations_generator.core.catalogue import load_catalogue

    return frozenset(load_catalogue().subjects)


# --- small readers ------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any, what: str, where: str) -> int | float:
    """A finite number (numeric strings accepted); TaibeledError otherwise."""
    out: int | float
    if _is_number(value):
        out = value
    elif isinstance(value, str):
        try:
            out = float(value.strip())
        except ValueError:
            raise TaibeledError(f"{where}: {what} {value!r} is not a number") from None
    else:
        raise TaibeledError(f"{where}: {what} {value!r} is not a number")
    if not math.isfinite(out):
        raise TaibeledError(f"{where}: {what} {value!r} is not a finite number")
    return out


def _coordinate(value: Any, what: str, where: str, limit: float) -> int | float:
    if value is None:
        raise TaibeledError(f"{where}: {what} is missing")
    v = _number(value, what, where)
    if not -limit <= v <= limit:
        raise TaibeledError(f"{where}: {what} {v:g} is out of range (-{limit:g} to {limit:g})")
    return v


def _lat(value: Any, what: str, where: str) -> int | float:
    return _coordinate(value, what, where, 90)


def _lng(value: Any, what: str, where: str) -> int | float:
    return _coordinate(value, what, where, 180)


def _flag(data: dict, key: str, default: bool) -> bool:
    value = data.get(key)
    return value if isinstance(value, bool) else default


def _answer(data: dict, key: str, where: str, require: bool, default: bool = True) -> bool:
    if key not in data or data[key] is None:
        if require:
            raise TaibeledError(f'{where} has no answer ({key!r}); add "{key}": true or false')
        return default
    value = data[key]
    if not isinstance(value, bool):
        raise TaibeledError(f"{where}: {key} must be true or false, got {value!r}")
    return value


def _unit(value: Any, where: str, what: str = "unit") -> str:
    if value is None:
        return "miles"
    if not isinstance(value, str) or value not in UNITS_M:
        raise TaibeledError(f"{where}: bad {what} {value!r}; use miles, kilometers or meters")
    return value


def _clean(value: float) -> int | float:
    """Round away float noise from a unit conversion (9 decimals); whole numbers as int."""
    r = round(float(value), 9)
    return int(r) if r.is_integer() else r


def _content_key(kind: str, data: dict) -> float:
    """A stable stand-in for the app's random key: a hash of the question in [0, 1)."""
    text = json.dumps([kind, data], sort_keys=True, default=str)
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:13], 16) / 16**13


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# --- questions ----------------------------------------------------------------------


@dataclass
class TaibeledQuestion:
    """One taibeled question, parsed leniently and independent of OSM data.

    Attributes
    ----------
    kind : str
        ``radius``, ``thermometer``, ``tentacles``, ``matching`` or ``measuring``.
    key : float
        The app's question id (a random number in the app).
    data : dict
        Normalised data: defaults filled, unknown keys dropped, units and enums
        validated, keys in the order the app writes them.
    """

    kind: str
    key: float
    data: dict

    @property
    def seeker(self) -> tuple[float, float]:
        """The seeker's (lon, lat); for a thermometer its end point B (where the seeker is now)."""
        if self.kind == "thermometer":
            return (float(self.data["lngB"]), float(self.data["latB"]))
        return (float(self.data["lng"]), float(self.data["lat"]))

    @property
    def type(self) -> str | None:
        """The app's subtype: matching/measuring ``type``, tentacles ``locationType``."""
        if self.kind == "tentacles":
            return self.data.get("locationType")
        return self.data.get("type")

    @property
    def radius_m(self) -> float | None:
        """Radius in metres (radius and tentacles questions; None otherwise)."""
        if self.kind not in ("radius", "tentacles"):
            return None
        return float(self.data["radius"]) * UNITS_M[self.data["unit"]]

    @property
    def answer(self) -> Any:
        """``within`` / ``warmer`` / ``same`` / ``hiderCloser``, or the tentacles location's name (None = not within)."""
        if self.kind == "tentacles":
            loc = self.data.get("location")
            if not loc:
                return None
            name = loc["properties"].get("name")
            return "" if name is None else str(name)
        return self.data[_ANSWER_KEY[self.kind]]


def _point_feature(obj: Any, where: str) -> dict:
    """A GeoJSON Point Feature as the app keeps it: type, geometry, id (if any), properties.name."""
    if not isinstance(obj, dict) or obj.get("type") != "Feature":
        raise TaibeledError(f"{where} must be a GeoJSON Point Feature")
    geom = obj.get("geometry")
    if (
        not isinstance(geom, dict)
        or geom.get("type") != "Point"
        or not isinstance(geom.get("coordinates"), list)
    ):
        raise TaibeledError(f"{where} must be a GeoJSON Point Feature")
    coords = geom["coordinates"]
    if len(coords) < 2:
        raise TaibeledError(f"{where}: a point needs [lng, lat] coordinates")
    _lng(coords[0], "longitude", where)
    _lat(coords[1], "latitude", where)
    out: dict[str, Any] = {
        "type": "Feature",
        "geometry": {
            "type": "Point",
            "coordinates": [_number(c, "coordinate", where) for c in coords],
        },
    }
    if isinstance(obj.get("id"), (str, int, float)) and not isinstance(obj.get("id"), bool):
        out["id"] = obj["id"]
    props = obj.get("properties")
    out["properties"] = {"name": props.get("name") if isinstance(props, dict) else None}
    return out


def _base(data: dict, key: float, where: str) -> dict:
    color = data.get("color")
    return {
        "lat": _lat(data.get("lat"), "lat", where),
        "lng": _lng(data.get("lng"), "lng", where),
        "drag": _flag(data, "drag", True),
        "color": color if color in COLORS else COLORS[int(key * len(COLORS)) % len(COLORS)],
        "collapsed": _flag(data, "collapsed", False),
        "hidden": _flag(data, "hidden", False),
    }


def _normalise(kind: str, data: dict, key: float, require_answer: bool) -> dict:
    where = f"{kind} question"
    if kind == "thermometer":
        not_green = [c for c in COLORS if c != "green"]
        color_a = data.get("colorA")
        color_b = data.get("colorB")
        out: dict[str, Any] = {
            "latA": _lat(data.get("latA"), "latA", where),
            "lngA": _lng(data.get("lngA"), "lngA", where),
            "latB": _lat(data.get("latB"), "latB", where),
            "lngB": _lng(data.get("lngB"), "lngB", where),
            "warmer": _answer(data, "warmer", where, require_answer),
            "colorA": color_a if color_a in COLORS else not_green[int(key * 7) % 7],
            "colorB": color_b if color_b in COLORS else not_green[int(key * 49) % 7],
            "drag": _flag(data, "drag", True),
            "collapsed": _flag(data, "collapsed", False),
            "hidden": _flag(data, "hidden", False),
        }
        if out["colorA"] == out["colorB"]:  # the app's own rule
            out["colorB"] = "green"
        return out

    out = _base(data, key, where)
    if kind == "radius":
        out["radius"] = _number(data.get("radius", 50), "radius", where)
        out["unit"] = _unit(data.get("unit"), where)
        out["within"] = _answer(data, "within", where, require_answer)
        if out["radius"] < 0:
            raise TaibeledError(f"{where}: radius {out['radius']:g} is negative")
        return out

    if kind == "tentacles":
        out["radius"] = _number(data.get("radius", 15), "radius", where)
        out["unit"] = _unit(data.get("unit"), where)
        if out["radius"] < 0:
            raise TaibeledError(f"{where}: radius {out['radius']:g} is negative")
        if "location" not in data or data["location"] is None:
            if require_answer:
                raise TaibeledError(
                    f"{where} has no answer ('location'); add the nearest place as a Point Feature, or false"
                )
            out["location"] = False
        elif data["location"] is False:
            out["location"] = False
        else:
            out["location"] = _point_feature(data["location"], f"{where}: location")
        loc_type = data.get("locationType", "theme_park")
        if not isinstance(loc_type, str) or loc_type not in TENTACLES_TYPES:
            raise TaibeledError(
                f"{where}: unknown locationType {loc_type!r}; use {', '.join(TENTACLES_TYPES)}"
            )
        out["locationType"] = loc_type
        places = data.get("places")
        if loc_type == "custom":
            if not isinstance(places, list):
                raise TaibeledError(
                    f"{where}: a custom tentacles question needs 'places' (Point Features)"
                )
            out["places"] = [
                _point_feature(p, f"{where}: place {i + 1}") for i, p in enumerate(places)
            ]
        elif isinstance(places, list):
            out["places"] = copy.deepcopy(places)
        return out

    if kind == "matching":
        out["same"] = _answer(data, "same", where, require_answer)
        if data.get("lengthComparison") is not None:
            lc = data["lengthComparison"]
            if lc not in _LENGTH_COMPARISONS:
                raise TaibeledError(
                    f"{where}: bad lengthComparison {lc!r}; use shorter, longer or same"
                )
            out["lengthComparison"] = lc
        mtype = data.get("type", "airport")
        if not isinstance(mtype, str) or mtype not in MATCHING_TYPES:
            raise TaibeledError(
                f"{where}: unknown matching type {mtype!r}; use {', '.join(MATCHING_TYPES)}"
            )
        out["type"] = mtype
        if mtype in ("zone", "letter-zone"):
            cat = data.get("cat")
            level = cat.get("adminLevel") if isinstance(cat, dict) else 3
            if cat is None:
                level = 3
            if not _is_number(level) or level not in _ADMIN_LEVELS or int(level) != level:
                raise TaibeledError(
                    f"{where}: bad cat.adminLevel {level!r}; use a whole number from 2 to 10"
                )
            out["cat"] = {"adminLevel": int(level)}
        elif mtype in ("custom-zone", "custom-points") and data.get("geo") is not None:
            out["geo"] = copy.deepcopy(data["geo"])
        return out

    # measuring
    out["hiderCloser"] = _answer(data, "hiderCloser", where, require_answer)
    mtype = data.get("type", "coastline")
    if not isinstance(mtype, str) or mtype not in MEASURING_TYPES:
        raise TaibeledError(
            f"{where}: unknown measuring type {mtype!r}; use {', '.join(MEASURING_TYPES)}"
        )
    out["type"] = mtype
    if isinstance(data.get("cat"), dict):
        out["cat"] = copy.deepcopy(data["cat"])
    if mtype == "custom-measure" and data.get("geo") is not None:
        out["geo"] = copy.deepcopy(data["geo"])
    return out


def parse_question(obj: dict, *, require_answer: bool = True) -> TaibeledQuestion:
    """Read one taibeled question leniently.

    Parameters
    ----------
    obj : dict
        ``{"id": kind, "key": number, "data": {...}}`` as the app writes it.
    require_answer : bool
        If True (default) a missing answer field is an error; if False it takes the
        app's default (``within``/``warmer``/``same``/``hiderCloser`` true, tentacles
        ``location`` false).

    Returns
    -------
    TaibeledQuestion

    Raises
    ------
    TaibeledError
        For an unknown question type, non-numeric or out-of-range coordinates, a bad
        unit, an unknown matching/measuring/tentacles type, or a missing answer.
    """
    if not isinstance(obj, dict):
        raise TaibeledError(f"a question must be a JSON object, got {type(obj).__name__}")
    kind = obj.get("id")
    if kind not in KINDS:
        raise TaibeledError(
            f"unknown question type {kind!r}; use radius, thermometer, tentacles, matching or measuring"
        )
    data = obj.get("data")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TaibeledError(f"{kind} question: 'data' must be a JSON object")
    key = obj.get("key")
    if not _is_number(key) or not math.isfinite(key):
        key = _content_key(kind, data)
    return TaibeledQuestion(kind, key, _normalise(kind, data, key, require_answer))


def dump_question(q: TaibeledQuestion) -> dict:
    """The question as the app writes it: ``{"id", "key", "data"}`` (a deep copy).

    Parameters
    ----------
    q : TaibeledQuestion

    Returns
    -------
    dict
    """
    return {"id": q.kind, "key": q.key, "data": copy.deepcopy(q.data)}


# --- game states --------------------------------------------------------------------

# Top-level settings the app writes, in its order, with its defaults.
_COLLECTION_ORDER = (
    "disabledStations",
    "hidingRadius",
    "hidingRadiusUnits",
    "zoneOptions",
    "useCustomStations",
    "customStations",
    "includeDefaultStations",
    "presets",
    "permanentOverlay",
)
_FEATURE_ORDER = (
    "disabledStations",
    "hidingRadius",
    "hidingRadiusUnits",
    "alternateLocations",
    "zoneOptions",
    "useCustomStations",
    "customStations",
    "includeDefaultStations",
    "presets",
    "permanentOverlay",
)
_DEFAULTS: dict[str, Any] = {
    "hidingRadius": 0.5,
    "hidingRadiusUnits": "miles",
    "alternateLocations": [],
    "useCustomStations": False,
    "includeDefaultStations": False,
    "presets": [],
    "permanentOverlay": None,
}
# Other settings the app reads from a state; kept when present.
_OTHER_KNOWN = (
    "zoneOperators",
    "displayHidingZones",
    "displayHidingZonesStyle",
    "defaultUnit",
    "headStartMinutes",
)
_EXTRA_KEYS = (
    tuple(
        k
        for k in _FEATURE_ORDER
        if k not in ("disabledStations", "hidingRadius", "customStations", "zoneOptions")
    )
    + _OTHER_KNOWN
)
_DEFAULT_ZONE_OPTIONS = ["[railway=station]"]


@dataclass
class TaibeledState:
    """A taibeled game state ("Copy Hiding Zone"), in either shape.

    Attributes
    ----------
    play_area : shapely geometry or None
        In lon/lat (converted from [lat, lng] for the Feature shape). None when the
        state carries no polygon (a bare question list, or an OSM Feature whose
        geometry is only a point: the app fetches that boundary from OSM itself).
    questions : list of TaibeledQuestion
    hiding_radius_m : float or None
        ``hidingRadius`` in metres (None when the state has none).
    disabled_stations : list of str
        ``"node/123"`` ids the players switched off.
    custom_stations : list of dict
        ``{"id", "name", "lat", "lng"}``.
    zone_options : list of str
        Overpass filters of the hiding stations, e.g. ``"[railway=station]"``.
    extras : dict
        Other known settings, kept as given (``hidingRadiusUnits``,
        ``useCustomStations``, ``includeDefaultStations``, ``presets``,
        ``permanentOverlay``, ``alternateLocations``, …).
    shape : str
        ``"feature"`` or ``"collection"``: the shape it was read from / is written in.
    properties : dict
        Feature shape: the OSM location's properties (``name``, ``osm_id``, ``extent``…)
        other than ``isHidingZone`` and ``questions``, which are written from the state.
    """

    play_area: BaseGeometry | None = None
    questions: list[TaibeledQuestion] = field(default_factory=list)
    hiding_radius_m: float | None = None
    disabled_stations: list[str] = field(default_factory=list)
    custom_stations: list[dict] = field(default_factory=list)
    zone_options: list[str] = field(default_factory=lambda: list(_DEFAULT_ZONE_OPTIONS))
    extras: dict = field(default_factory=dict)
    shape: str = "collection"
    properties: dict = field(default_factory=dict)
    # What was read, so an unchanged play area is written back exactly as it came.
    _source: tuple[BaseGeometry | None, Any] | None = field(default=None, repr=False, compare=False)
    _feature_order: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _properties_order: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _hiding_radius: tuple[float, str, float] | None = field(default=None, repr=False, compare=False)


def _swap(coords: Any) -> Any:
    """Swap the first two numbers of every position ([lat, lng] <-> [lng, lat])."""
    if isinstance(coords, (list, tuple)) and coords and all(_is_number(c) for c in coords):
        if len(coords) < 2:
            raise TaibeledError("a position needs two coordinates")
        return [coords[1], coords[0], *coords[2:]]
    if isinstance(coords, (list, tuple)):
        return [_swap(c) for c in coords]
    raise TaibeledError(f"coordinates must be numbers, got {coords!r}")


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def _geometry(geom: Any, where: str) -> BaseGeometry:
    try:
        out = shape(geom)
    except Exception as exc:  # shapely raises several types for bad GeoJSON
        raise TaibeledError(f"{where}: not a valid GeoJSON geometry ({_one_line(exc)})") from None
    return out


def _polygonal(geoms: Iterable[BaseGeometry]) -> BaseGeometry | None:
    polys = [g for g in geoms if g.geom_type in ("Polygon", "MultiPolygon") and not g.is_empty]
    if not polys:
        return None
    return polys[0] if len(polys) == 1 else shapely.union_all(polys)


def _questions(value: Any, require_answer: bool) -> list[TaibeledQuestion]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TaibeledError("'questions' must be a list of questions")
    out = []
    for i, q in enumerate(value, 1):
        try:
            out.append(parse_question(q, require_answer=require_answer))
        except TaibeledError as exc:
            raise TaibeledError(f"question {i}: {exc}") from None
    return out


def _settings(obj: dict, state: TaibeledState) -> None:
    units = _unit(obj.get("hidingRadiusUnits"), "state", "hidingRadiusUnits")
    if obj.get("hidingRadius") is not None:
        r = _number(obj["hidingRadius"], "hidingRadius", "state")
        if r <= 0:
            raise TaibeledError(f"state: hidingRadius {r:g} must be positive")
        state.hiding_radius_m = float(r) * UNITS_M[units]
        state._hiding_radius = (state.hiding_radius_m, units, r)
    disabled = obj.get("disabledStations")
    if isinstance(disabled, list):
        state.disabled_stations = [str(s) for s in disabled]
    options = obj.get("zoneOptions")
    if isinstance(options, list) or options is None:
        options = _DEFAULT_ZONE_OPTIONS if options is None else options
        state.zone_options = [str(s) for s in options]
    stations = obj.get("customStations")
    if isinstance(stations, list):
        for i, s in enumerate(stations, 1):
            where = f"state: custom station {i}"
            if not isinstance(s, dict):
                raise TaibeledError(f"{where} must be an object with lat and lng")
            lat = _lat(s.get("lat"), "lat", where)
            lng = _lng(s.get("lng"), "lng", where)
            out: dict[str, Any] = {
                "id": str(s["id"]) if s.get("id") is not None else f"{lat},{lng}"
            }
            if s.get("name") is not None:
                out["name"] = s["name"]
            out["lat"], out["lng"] = lat, lng
            state.custom_stations.append(out)
    for k in _EXTRA_KEYS:
        if k in obj:
            state.extras[k] = copy.deepcopy(obj[k])


def parse_state(
    obj: Any, *, require_answer: bool = True, source: str = "taibeled state"
) -> TaibeledState:
    """Read a taibeled game state in either shape, a bare question list, or one question.

    Parameters
    ----------
    obj : dict or list
        A FeatureCollection with top-level ``questions`` (drawn play area), a Feature
        with ``properties.isHidingZone`` (OSM play area, coordinates [lat, lng]), a
        plain GeoJSON Feature/geometry in lon/lat, a list of questions, or one question.
    require_answer : bool
        Passed to :func:`parse_question`.
    source : str
        How to name the input in messages (the file name).

    Returns
    -------
    TaibeledState

    Raises
    ------
    TaibeledError
        If ``obj`` is none of these, or a question or setting is unreadable.
    """
    if not isinstance(obj, dict | list):
        raise TaibeledError(f"not a taibeled state or question: got {type(obj).__name__}")
    jsonio.validate(obj, schemas.TAIBELED_STATE, source, TaibeledError)
    if isinstance(obj, list):
        return TaibeledState(questions=_questions(obj, require_answer))
    if "type" not in obj and ("id" in obj or "data" in obj):
        return TaibeledState(questions=[parse_question(obj, require_answer=require_answer)])
    gtype = obj.get("type")
    props = obj.get("properties") if isinstance(obj.get("properties"), dict) else {}
    state = TaibeledState()
    if gtype == "Feature" and props.get("isHidingZone") is True:
        state.shape = "feature"
        geom = obj.get("geometry")
        if not isinstance(geom, dict) or "coordinates" not in geom:
            raise TaibeledError("state: the hiding-zone Feature has no geometry")
        lonlat = {"type": geom.get("type"), "coordinates": _swap(geom["coordinates"])}
        parsed = _geometry(lonlat, "state play area")
        state.play_area = parsed if parsed.geom_type in ("Polygon", "MultiPolygon") else None
        state._source = (state.play_area, (copy.deepcopy(geom), copy.deepcopy(props.get("extent"))))
        state.properties = {
            k: copy.deepcopy(v) for k, v in props.items() if k not in ("isHidingZone", "questions")
        }
        state._properties_order = tuple(props)
        state._feature_order = tuple(k for k in obj if k in ("type", "geometry", "properties"))
        state.questions = _questions(props.get("questions"), require_answer)
    elif gtype == "FeatureCollection":
        features = obj.get("features")
        if not isinstance(features, list):
            raise TaibeledError("state: a FeatureCollection needs a 'features' list")
        geoms = []
        for i, f in enumerate(features, 1):
            if isinstance(f, dict) and isinstance(f.get("geometry"), dict):
                geoms.append(_geometry(f["geometry"], f"state feature {i}"))
        state.play_area = _polygonal(geoms)
        state._source = (state.play_area, copy.deepcopy(features))
        state.questions = _questions(obj.get("questions"), require_answer)
    elif gtype == "Feature" or gtype in ("Polygon", "MultiPolygon"):
        geom = obj.get("geometry") if gtype == "Feature" else obj
        state.play_area = _polygonal([_geometry(geom, "state play area")]) if geom else None
        feature = (
            obj if gtype == "Feature" else {"type": "Feature", "properties": {}, "geometry": obj}
        )
        state._source = (state.play_area, [copy.deepcopy(feature)])
        state.questions = _questions(obj.get("questions"), require_answer)
    else:
        raise TaibeledError(
            "not a taibeled state: expected a FeatureCollection with 'questions', a Feature with "
            "properties.isHidingZone, a question list or a question"
        )
    _settings(obj, state)
    return state


def _extent(geometry: BaseGeometry) -> list[float]:
    minx, miny, maxx, maxy = geometry.bounds
    return [maxy, minx, miny, maxx]  # [north, west, south, east]


def dump_state(state: TaibeledState, shape: str | None = None) -> dict:
    """Write a state as the app does, in either shape.

    Parameters
    ----------
    state : TaibeledState
    shape : {"feature", "collection"}, optional
        Defaults to ``state.shape``. The Feature shape writes coordinates as
        [lat, lng] and ``properties.extent`` as [north, west, south, east].

    Returns
    -------
    dict
        Every setting the app writes, with the app's defaults for missing ones.

    Raises
    ------
    TaibeledError
        For an unknown shape, or the Feature shape without a play area.
    """
    shape = shape or state.shape
    if shape not in ("feature", "collection"):
        raise TaibeledError(f"unknown state shape {shape!r}; use feature or collection")
    source = state._source if state._source and state._source[0] is state.play_area else None
    questions = [dump_question(q) for q in state.questions]
    if shape == "collection":
        if source is not None and state.shape == "collection":
            features = copy.deepcopy(source[1])
        elif state.play_area is not None:
            features = [
                {
                    "type": "Feature",
                    "properties": {},
                    "geometry": _jsonable(mapping(state.play_area)),
                }
            ]
        else:
            features = []
        out: dict[str, Any] = {
            "type": "FeatureCollection",
            "features": features,
            "questions": questions,
        }
        order = _COLLECTION_ORDER
    else:
        known = [
            k
            for k in state._properties_order
            if k in state.properties or k in ("isHidingZone", "questions")
        ]
        props = {k: None for k in known}
        props.update(copy.deepcopy(state.properties))
        if source is not None and state.shape == "feature":
            geom, extent = copy.deepcopy(source[1])
            if extent is not None:
                props["extent"] = extent
        elif state.play_area is not None:
            geom = _jsonable(mapping(state.play_area))
            geom["coordinates"] = _swap(geom["coordinates"])
            props["extent"] = _extent(state.play_area)
        else:
            raise TaibeledError(
                "state has no play area to write as a Feature; use the collection shape"
            )
        props["isHidingZone"] = True
        props["questions"] = questions
        core = {"type": "Feature", "geometry": geom, "properties": props}
        order_core = [k for k in state._feature_order if k in core] + [
            k for k in core if k not in state._feature_order
        ]
        out = {k: core[k] for k in order_core}
        order = _FEATURE_ORDER
    units = state.extras.get("hidingRadiusUnits", "miles")
    values: dict[str, Any] = {
        **_DEFAULTS,
        **state.extras,
        "disabledStations": list(state.disabled_stations),
        "customStations": copy.deepcopy(state.custom_stations),
        "zoneOptions": list(state.zone_options),
    }
    if state.hiding_radius_m is not None:
        read = state._hiding_radius
        if read is not None and read[1] == units and _same_length(read[0], state.hiding_radius_m):
            values["hidingRadius"] = read[2]  # unchanged: exactly as read
        else:
            values["hidingRadius"] = _clean(state.hiding_radius_m / UNITS_M[_unit(units, "state")])
    for k in order:
        out[k] = copy.deepcopy(values[k])
    for k in _OTHER_KNOWN:
        if k in state.extras:
            out[k] = copy.deepcopy(state.extras[k])
    return out


# --- share links --------------------------------------------------------------------


def encode_hzc(obj: dict) -> str:
    """The ``hzc`` code of a state: base64url (no padding) of zlib(compact JSON).

    Parameters
    ----------
    obj : dict
        A state as :func:`dump_state` writes it (or any JSON object).

    Returns
    -------
    str
        Append to the app's address as ``?hzc=CODE``.
    """
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    packed = zlib.compress(text.encode("utf-8"), 9)
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


_HZC_IN_LINK = re.compile(r"(?:^|[?&#])hzc=([^&#\s]*)")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")


def decode_hzc(link_or_code: str) -> dict:
    """Read a share link (``…?hzc=CODE``) or a bare code back into the state's JSON.

    Parameters
    ----------
    link_or_code : str

    Returns
    -------
    dict

    Raises
    ------
    TaibeledError
        ``malformed share link: …`` when the code is not base64url, not zlib data,
        not UTF-8 JSON, or not a JSON object.
    """
    text = str(link_or_code).strip()
    match = _HZC_IN_LINK.search(text)
    if match:
        code = urllib.parse.unquote(match.group(1))
    elif "://" in text or "?" in text:
        raise TaibeledError("malformed share link: it has no hzc= parameter")
    else:
        code = text
    if not code:
        raise TaibeledError("malformed share link: the hzc code is empty")
    if not _BASE64URL.fullmatch(code) or len(code.rstrip("=")) % 4 == 1:
        raise TaibeledError("malformed share link: the hzc code is not base64url")
    try:
        raw = base64.urlsafe_b64decode(code.rstrip("=") + "=" * (-len(code.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        raise TaibeledError("malformed share link: the hzc code is not base64url") from None
    try:
        inflater = zlib.decompressobj()
        unpacked = inflater.decompress(raw, MAX_HZC_BYTES + 1)
        if len(unpacked) > MAX_HZC_BYTES or inflater.unconsumed_tail:
            raise TaibeledError(
                f"malformed share link: it unpacks to more than {MAX_HZC_BYTES // 1024**2} MiB, "
                "far more than any game state"
            )
        text_json = unpacked.decode("utf-8")
    except zlib.error:
        raise TaibeledError(
            "malformed share link: the hzc code is not zlib-compressed data"
        ) from None
    except UnicodeDecodeError:
        raise TaibeledError(
            "malformed share link: the decompressed data is not UTF-8 text"
        ) from None
    try:
        obj = jsonio.loads(text_json, "the share link", "JSON")
    except InputError as exc:
        raise TaibeledError(
            f"malformed share link: the decompressed data is not JSON ({exc})"
        ) from None
    if not isinstance(obj, dict):
        raise TaibeledError("malformed share link: the JSON is not an object")
    return obj


def load_any(text: str) -> Any:
    """JSON text, a share link or a bare ``hzc`` code, parsed.

    Parameters
    ----------
    text : str

    Returns
    -------
    dict or list
        The JSON value (a state, question or question list).

    Raises
    ------
    TaibeledError
        For invalid JSON or a malformed share link.
    """
    stripped = str(text).strip()
    if stripped.startswith(("{", "[")):
        try:
            return jsonio.loads(stripped, "the text", "valid JSON")
        except InputError as exc:
            raise TaibeledError(str(exc)) from None
    return decode_hzc(stripped)


# --- conversion to / from our question model ----------------------------------------


class Resolver(Protocol):
    """OSM-derived data a conversion needs (see :class:`stations_generator.app.gamefile.OsmContext`)."""

    frame: AzimuthalFrame

    def places(self, subject: str) -> tuple[Place, ...]:
        """Places of a catalogue subject near the play area."""
        ...

    def features(self, subject: str) -> tuple[BaseGeometry, ...]:
        """Geometries of a measuring subject (coastline, high_speed_rail, border, body_of_water or points)."""
        ...

    def zones(self, level: int) -> tuple[Zone, ...]:
        """Named admin areas of an OSM admin level."""
        ...

    def station_near(self, lon: float, lat: float) -> Station | None:
        """The hiding station nearest a point (the seeker's station), or None."""
        ...


def _features_of(geo: Any) -> list[dict]:
    if isinstance(geo, list):
        return [f for f in geo if isinstance(f, dict)]
    if isinstance(geo, dict):
        if geo.get("type") == "FeatureCollection":
            return [f for f in geo.get("features") or [] if isinstance(f, dict)]
        if geo.get("type") == "Feature":
            return [geo]
        if geo.get("type") == "GeometryCollection":
            return [
                {"type": "Feature", "geometry": g, "properties": {}}
                for g in geo.get("geometries") or []
            ]
        if "coordinates" in geo:
            return [{"type": "Feature", "geometry": geo, "properties": {}}]
    return []


def _geo_geometries(geo: Any, where: str) -> list[BaseGeometry]:
    feats = _features_of(geo)
    out = [_geometry(f["geometry"], where) for f in feats if isinstance(f.get("geometry"), dict)]
    out = [g for g in out if not g.is_empty]
    if not out:
        raise TaibeledError(
            f"{where}: 'geo' holds no geometry; draw the custom shape in the app again"
        )
    return out


def _geo_places(features: Sequence[Any], where: str) -> tuple[Place, ...]:
    out = []
    for i, f in enumerate(features):
        if not isinstance(f, dict) or not isinstance(f.get("geometry"), dict):
            continue
        geom = f["geometry"]
        if geom.get("type") != "Point":
            continue
        coords = geom.get("coordinates") or []
        if len(coords) < 2:
            continue
        lon = float(_lng(coords[0], "longitude", where))
        lat = float(_lat(coords[1], "latitude", where))
        props = f.get("properties") if isinstance(f.get("properties"), dict) else {}
        pid = f.get("id", props.get("id"))
        name = props.get("name")
        out.append(
            Place(
                str(pid) if pid is not None else f"custom/{i}",
                "" if name is None else str(name),
                lon,
                lat,
            )
        )
    return tuple(out)


def _geo_subject(geo: Any, default: str = "custom") -> str:
    if isinstance(geo, dict) and isinstance(geo.get(_SUBJECT_MEMBER), str):
        return geo[_SUBJECT_MEMBER]
    return default


def _check_subject(subject: str, where: str, what: str, features: bool = False) -> None:
    known = _catalogue_subjects() | (frozenset(_FEATURE_SUBJECTS) if features else frozenset())
    if subject not in known:
        raise TaibeledError(
            f"{where}: {what} cannot be converted: the catalogue has no {subject!r} subject; "
            "redraw it in the app as a custom question"
        )


def _tentacles_answer(q: TaibeledQuestion, places: Sequence[Place], subject: str) -> str:
    loc = q.data["location"]
    if not loc:
        return NOT_WITHIN
    name = q.answer
    lon, lat = (float(c) for c in loc["geometry"]["coordinates"][:2])

    def dist(p: Place) -> float:
        return float(distance_m(lon, lat, p.lon, p.lat))

    named = [p for p in places if p.name == name]
    if named:
        return min(named, key=lambda p: (dist(p), p.id)).id
    near = [p for p in places if dist(p) <= 100.0]
    if near:
        return min(near, key=lambda p: (dist(p), p.id)).id
    raise TaibeledError(
        f"tentacles question: no {subject} named {name!r} at ({lat:g}, {lon:g}) in the OSM data; "
        "give OSM data that covers it"
    )


def to_model(q: TaibeledQuestion, resolver: Resolver) -> Question:
    """Convert a taibeled question to our question model, using OSM-derived data.

    Parameters
    ----------
    q : TaibeledQuestion
    resolver : Resolver
        Supplies places, measuring features, admin zones, the seeker's station and
        the azimuthal frame of the play area.

    Returns
    -------
    Question
        radius → :class:`RadiusQuestion`; thermometer → :class:`ThermometerQuestion`
        (start A, end B); tentacles → :class:`TentaclesQuestion`; matching →
        :class:`MatchingNearestQuestion`, :class:`MatchingZoneQuestion` or
        :class:`MatchingStationQuestion`; measuring → :class:`MeasuringQuestion`.

    Raises
    ------
    TaibeledError
        For what cannot be mapped: station-name-length questions answered
        "shorter" / "longer",
        a custom zone that does not contain the seeker, a tentacles location not
        found in the OSM data, or a station question without a seeker station.
    """
    d = q.data
    where = f"{q.kind} question"
    try:
        if q.kind == "radius":
            return RadiusQuestion(q.seeker, float(q.radius_m or 0.0), d["within"])
        if q.kind == "thermometer":
            start = (float(d["lngA"]), float(d["latA"]))
            end = (float(d["lngB"]), float(d["latB"]))
            return ThermometerQuestion(start, end, d["warmer"])
        if q.kind == "tentacles":
            if not q.radius_m or q.radius_m <= 0:
                raise TaibeledError(f"{where}: radius must be positive")
            loc_type = d["locationType"]
            if loc_type == "custom":
                places = _geo_places(d.get("places") or [], where)
                subject = "custom"
            else:
                subject = str(TENTACLES_TYPES[loc_type])
                places = tuple(resolver.places(subject))
            answer = _tentacles_answer(q, places, subject)
            return TentaclesQuestion(q.seeker, float(q.radius_m), subject, places, answer)
        if q.kind == "matching":
            return _matching_to_model(q, resolver)
        return _measuring_to_model(q, resolver)
    except QuestionError as exc:
        raise TaibeledError(f"{where}: {_one_line(exc)}") from None


def _matching_to_model(q: TaibeledQuestion, resolver: Resolver) -> Question:
    d = q.data
    mtype = d["type"]
    where = f"matching question ({mtype})"
    kind, arg = MATCHING_TYPES[mtype]
    if kind == "nearest":
        subject = str(arg)
        _check_subject(subject, where, f"type {mtype!r}")
        return MatchingNearestQuestion(
            q.seeker, subject, tuple(resolver.places(subject)), d["same"]
        )
    if kind == "zone":
        level = int(d["cat"]["adminLevel"])
        return MatchingZoneQuestion(
            q.seeker, level, tuple(resolver.zones(level)), d["same"], by_letter=bool(arg)
        )
    if kind == "station":
        comparison = d.get("lengthComparison")
        if arg == "length" and comparison in ("shorter", "longer"):
            raise TaibeledError(
                f"{where}: lengthComparison {comparison!r} cannot be converted; our station-name-length "
                "question only asks same or different length"
            )
        station = resolver.station_near(*q.seeker)
        if station is None:
            raise TaibeledError(
                f"{where}: no hiding station near the seeker; give OSM data with stations"
            )
        return MatchingStationQuestion(station, str(arg), d["same"])
    if kind == "custom-points":
        places = _geo_places(_features_of(d.get("geo")), where)
        if not places:
            raise TaibeledError(
                f"{where}: 'geo' holds no points; draw the custom points in the app again"
            )
        return MatchingNearestQuestion(q.seeker, _geo_subject(d.get("geo")), places, d["same"])
    # custom-zone
    geo = d.get("geo")
    region = _polygonal(_geo_geometries(geo, where))
    if region is None:
        raise TaibeledError(
            f"{where}: 'geo' holds no polygon; draw the custom zone in the app again"
        )
    if not region.covers(Point(*q.seeker)):
        raise TaibeledError(
            f"{where}: the seeker ({q.seeker[1]:g}, {q.seeker[0]:g}) is outside the custom zone; "
            "our zone question needs the seeker inside it"
        )
    feats = _features_of(geo)
    props = (
        feats[0].get("properties") if feats and isinstance(feats[0].get("properties"), dict) else {}
    )
    name = str(props.get("name") or "custom zone")
    return MatchingZoneQuestion(q.seeker, 0, (Zone("custom-zone", name, region),), d["same"])


def _measuring_to_model(q: TaibeledQuestion, resolver: Resolver) -> Question:
    d = q.data
    mtype = d["type"]
    where = f"measuring question ({mtype})"
    subject = MEASURING_TYPES[mtype]
    if subject is None:  # custom-measure
        feats = tuple(_geo_geometries(d.get("geo"), where))
        return MeasuringQuestion(
            q.seeker, _geo_subject(d.get("geo")), feats, resolver.frame, d["hiderCloser"]
        )
    _check_subject(subject, where, f"type {mtype!r}", features=True)
    return MeasuringQuestion(
        q.seeker, subject, tuple(resolver.features(subject)), resolver.frame, d["hiderCloser"]
    )


# -- from the model ---------------------------------------------------------------------


def _pick_unit(metres: float) -> tuple[str, int | float]:
    """The first of miles, kilometers, meters in which ``metres`` has at most 3 decimals."""
    for unit in ("miles", "kilometers"):
        v = metres / UNITS_M[unit]
        if abs(v * 1000 - round(v * 1000)) < 1e-6:
            return unit, _clean(v)
    return "meters", _clean(metres)


def _same_length(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9)


def _radius_value(metres: float, base: dict) -> tuple[str, int | float]:
    """(unit, value) for a radius: the unit of ``base`` (its very value if unchanged), else a round one."""
    unit = base.get("unit")
    if unit not in UNITS_M:
        return _pick_unit(metres)
    old = base.get("radius")
    if _is_number(old) and _same_length(float(old) * UNITS_M[unit], metres):
        return unit, old
    return unit, _clean(metres / UNITS_M[unit])


def _place_feature(p: Place) -> dict:
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [p.lon, p.lat]},
        "id": p.id,
        "properties": {"name": p.name},
    }


def _points_geo(places: Sequence[Place], subject: str) -> dict:
    geo: dict[str, Any] = {
        "type": "FeatureCollection",
        "features": [_place_feature(p) for p in places],
    }
    if subject != "custom":
        geo[_SUBJECT_MEMBER] = subject
    return geo


def _same_geometries(a: Sequence[BaseGeometry], b: Sequence[BaseGeometry]) -> bool:
    return len(a) == len(b) and all(
        shapely.equals_exact(x, y, 0.0) for x, y in zip(a, b, strict=True)
    )


def _same_places(a: Sequence[Place], b: Sequence[Place]) -> bool:
    return [(p.id, p.name, p.lon, p.lat) for p in a] == [(p.id, p.name, p.lon, p.lat) for p in b]


def _require(answer: Any, q: Question) -> Any:
    if answer is None:
        raise TaibeledError(f"{q.label()}: no answer recorded; the taibeled app needs one")
    return answer


def _variant(
    like: TaibeledQuestion | None, kind: str, table: dict, subject: str, default: str | None
) -> str | None:
    """Keep the app variant of ``like`` (e.g. "museum" vs "museum-full") if it means the same subject."""
    if (
        like is not None
        and like.kind == kind
        and like.type in table
        and table[like.type] == subject
    ):
        return like.type
    return default


def from_model(q: Question, like: TaibeledQuestion | None = None) -> TaibeledQuestion:
    """Convert one of our questions to a taibeled question (the inverse of :func:`to_model`).

    Parameters
    ----------
    q : Question
        Any question of :mod:`stations_generator.core.questions.geometry`, with its answer.
    like : TaibeledQuestion, optional
        The taibeled question ``q`` came from. It supplies what our model does not
        carry: ``key``, colours and display flags, the distance unit, the app's
        variant of a type ("museum" vs "museum-full"), and ``geo`` / ``places`` /
        ``location`` when they still describe the same shapes and places.

    Returns
    -------
    TaibeledQuestion
        Subjects the app has no type for are written as its custom questions
        (custom-points, custom-measure, custom tentacles, custom-zone), carrying
        the places or shapes themselves.

    Raises
    ------
    TaibeledError
        If ``q`` has no answer (the app has no "unanswered" state) or is of an
        unknown class.
    """
    same_kind = like is not None and like.kind == q.kind
    base = copy.deepcopy(like.data) if like is not None and same_kind else {}
    data: dict[str, Any] = {
        k: base[k]
        for k in ("drag", "color", "collapsed", "hidden", "colorA", "colorB")
        if k in base
    }
    if isinstance(q, RadiusQuestion):
        unit, value = _radius_value(q.radius_m, base)
        data.update(
            lat=q.seeker[1], lng=q.seeker[0], radius=value, unit=unit, within=_require(q.within, q)
        )
    elif isinstance(q, ThermometerQuestion):
        data.update(
            latA=q.start[1],
            lngA=q.start[0],
            latB=q.end[1],
            lngB=q.end[0],
            warmer=_require(q.warmer, q),
        )
    elif isinstance(q, TentaclesQuestion):
        _tentacles_from_model(q, base, like, data)
    elif isinstance(q, MatchingNearestQuestion):
        data.update(lat=q.seeker[1], lng=q.seeker[0], same=_require(q.same, q))
        old = base.get("geo") if base.get("type") == "custom-points" else None
        if old is not None and _same_places(_geo_places(_features_of(old), "geo"), q.places):
            data.update(type="custom-points", geo=old)  # still the points it came from
        else:
            nearest_types = {k: v[1] for k, v in MATCHING_TYPES.items() if v[0] == "nearest"}
            mtype = _variant(
                like, "matching", nearest_types, q.subject, _MATCHING_EXPORT.get(q.subject)
            )
            if mtype is None:
                data.update(type="custom-points", geo=_points_geo(q.places, q.subject))
            else:
                data["type"] = mtype
    elif isinstance(q, MatchingZoneQuestion):
        data.update(lat=q.seeker[1], lng=q.seeker[0], same=_require(q.same, q))
        if q.level in _ADMIN_LEVELS:
            data["type"] = "letter-zone" if q.by_letter else "zone"
            data["cat"] = {"adminLevel": int(q.level)}
        else:
            data["type"] = "custom-zone"
            try:
                mine = q.seeker_zone()
            except QuestionError as exc:
                raise TaibeledError(_one_line(exc)) from None
            letter = first_letter(mine.name)
            parts = [
                z
                for z in q.zones
                if (first_letter(z.name) == letter if q.by_letter else z.id == mine.id)
            ]
            region = shapely.union_all([z.geometry for z in parts])
            old = base.get("geo") if base.get("type") == "custom-zone" else None
            old_region = (
                _polygonal(_geo_geometries(old, "geo"))
                if old is not None and _features_of(old)
                else None
            )
            if old_region is not None and shapely.equals_exact(old_region, region, 0.0):
                data["geo"] = old
            else:
                data["geo"] = {
                    "type": "Feature",
                    "properties": {"name": mine.name},
                    "geometry": _jsonable(mapping(region)),
                }
    elif isinstance(q, MatchingStationQuestion):
        st = q.seeker_station
        data.update(
            lat=st.lat, lng=st.lon, same=_require(q.same, q), type=_STATION_EXPORT[q.attribute]
        )
        if q.attribute == "length" and base.get("lengthComparison") == "same":
            data["lengthComparison"] = "same"
    elif isinstance(q, MeasuringQuestion):
        data.update(lat=q.seeker[1], lng=q.seeker[0], hiderCloser=_require(q.hider_closer, q))
        old = base.get("geo") if base.get("type") == "custom-measure" else None
        if (
            old is not None
            and _features_of(old)
            and _same_geometries(_geo_geometries(old, "geo"), q.features)
        ):
            data.update(type="custom-measure", geo=old)  # still the shapes it came from
        else:
            mtype = _variant(
                like, "measuring", MEASURING_TYPES, q.subject, _MEASURING_EXPORT.get(q.subject)
            )
            if mtype is None:
                geo: dict[str, Any] = {
                    "type": "FeatureCollection",
                    "features": [
                        {"type": "Feature", "properties": {}, "geometry": _jsonable(mapping(g))}
                        for g in q.features
                    ],
                }
                if q.subject != "custom":
                    geo[_SUBJECT_MEMBER] = q.subject
                data.update(type="custom-measure", geo=geo)
            else:
                data["type"] = mtype
                if isinstance(base.get("cat"), dict):
                    data["cat"] = base["cat"]
    else:
        raise TaibeledError(f"cannot write a {type(q).__name__} as a taibeled question")
    key = like.key if like is not None else _content_key(q.kind, data)
    return TaibeledQuestion(q.kind, key, _normalise(q.kind, data, key, require_answer=True))


def _tentacles_from_model(
    q: TentaclesQuestion, base: dict, like: TaibeledQuestion | None, data: dict
) -> None:
    nearest = _require(q.nearest, q)
    unit, value = _radius_value(q.radius_m, base)
    data.update(lat=q.seeker[1], lng=q.seeker[0], radius=value, unit=unit)
    loc_type = _variant(
        like, "tentacles", TENTACLES_TYPES, q.subject, _TENTACLES_EXPORT.get(q.subject)
    )
    if loc_type is None or loc_type == "custom":
        inside = q.candidates()
        old = base.get("places")
        if (
            base.get("locationType") == "custom"
            and isinstance(old, list)
            and _same_places(
                [p for p in _geo_places(old, "places") if p.id in {c.id for c in inside}], inside
            )
        ):
            data["places"] = old
        else:
            data["places"] = [_place_feature(p) for p in inside]
        loc_type = "custom"
    elif isinstance(base.get("places"), list):
        data["places"] = base["places"]
    data["locationType"] = loc_type
    if nearest == NOT_WITHIN:
        data["location"] = False
        return
    place = next((p for p in q.places if p.id == nearest), None)
    if place is None:
        raise TaibeledError(f"{q.label()}: the answer {nearest!r} is not one of its places")
    old_loc = base.get("location")
    if isinstance(old_loc, dict) and (old_loc.get("properties") or {}).get("name") == place.name:
        data["location"] = old_loc
    else:
        data["location"] = {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [place.lon, place.lat]},
            "properties": {"name": place.name},
        }
