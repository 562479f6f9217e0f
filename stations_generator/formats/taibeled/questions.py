"""One taibeled question (``{"id", "key", "data"}``): read, checked, normalised and written back."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

from stations_generator.formats.taibeled.fields import (
    ADMIN_LEVELS,
    ANSWER_KEY,
    COLORS,
    KINDS,
    LENGTH_COMPARISONS,
    MATCHING_TYPES,
    MEASURING_TYPES,
    TENTACLES_TYPES,
    UNITS_M,
    TaibeledError,
    answer_field,
    content_key,
    flag,
    is_number,
    lat_field,
    lng_field,
    number_field,
    unit_field,
)


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
        return self.data[ANSWER_KEY[self.kind]]


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
    lng_field(coords[0], "longitude", where)
    lat_field(coords[1], "latitude", where)
    out: dict[str, Any] = {
        "type": "Feature",
        "geometry": {
            "type": "Point",
            "coordinates": [number_field(c, "coordinate", where) for c in coords],
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
        "lat": lat_field(data.get("lat"), "lat", where),
        "lng": lng_field(data.get("lng"), "lng", where),
        "drag": flag(data, "drag", True),
        "color": color if color in COLORS else COLORS[int(key * len(COLORS)) % len(COLORS)],
        "collapsed": flag(data, "collapsed", False),
        "hidden": flag(data, "hidden", False),
    }


def normalise(kind: str, data: dict, key: float, require_answer: bool) -> dict:
    """A question's ``data`` as the app would hold it: checked, with the app's defaults.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    data : dict
        The question's ``data`` as read.
    key : float
        The question's key (the app derives default colours from it).
    require_answer : bool
        Whether a missing answer is an error (else the app's default answer).

    Returns
    -------
    dict
    """
    where = f"{kind} question"
    if kind == "thermometer":
        return _thermometer_data(data, key, where, require_answer)
    out = _base(data, key, where)
    if kind == "radius":
        out["radius"] = number_field(data.get("radius", 50), "radius", where)
        out["unit"] = unit_field(data.get("unit"), where)
        out["within"] = answer_field(data, "within", where, require_answer)
        if out["radius"] < 0:
            raise TaibeledError(f"{where}: radius {out['radius']:g} is negative")
        return out
    if kind == "tentacles":
        return _tentacles_data(out, data, where, require_answer)
    if kind == "matching":
        return _matching_data(out, data, where, require_answer)
    return _measuring_data(out, data, where, require_answer)


def _thermometer_data(data: dict, key: float, where: str, require_answer: bool) -> dict:
    not_green = [c for c in COLORS if c != "green"]
    color_a = data.get("colorA")
    color_b = data.get("colorB")
    out: dict[str, Any] = {
        "latA": lat_field(data.get("latA"), "latA", where),
        "lngA": lng_field(data.get("lngA"), "lngA", where),
        "latB": lat_field(data.get("latB"), "latB", where),
        "lngB": lng_field(data.get("lngB"), "lngB", where),
        "warmer": answer_field(data, "warmer", where, require_answer),
        "colorA": color_a if color_a in COLORS else not_green[int(key * 7) % 7],
        "colorB": color_b if color_b in COLORS else not_green[int(key * 49) % 7],
        "drag": flag(data, "drag", True),
        "collapsed": flag(data, "collapsed", False),
        "hidden": flag(data, "hidden", False),
    }
    if out["colorA"] == out["colorB"]:  # the app's own rule
        out["colorB"] = "green"
    return out


def _tentacles_data(out: dict, data: dict, where: str, require_answer: bool) -> dict:
    out["radius"] = number_field(data.get("radius", 15), "radius", where)
    out["unit"] = unit_field(data.get("unit"), where)
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
        out["places"] = [_point_feature(p, f"{where}: place {i + 1}") for i, p in enumerate(places)]
    elif isinstance(places, list):
        out["places"] = copy.deepcopy(places)
    return out


def _matching_data(out: dict, data: dict, where: str, require_answer: bool) -> dict:
    out["same"] = answer_field(data, "same", where, require_answer)
    if data.get("lengthComparison") is not None:
        lc = data["lengthComparison"]
        if lc not in LENGTH_COMPARISONS:
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
        if not is_number(level) or level not in ADMIN_LEVELS or int(level) != level:
            raise TaibeledError(
                f"{where}: bad cat.adminLevel {level!r}; use a whole number from 2 to 10"
            )
        out["cat"] = {"adminLevel": int(level)}
    elif mtype in ("custom-zone", "custom-points") and data.get("geo") is not None:
        out["geo"] = copy.deepcopy(data["geo"])
    return out


def _measuring_data(out: dict, data: dict, where: str, require_answer: bool) -> dict:
    out["hiderCloser"] = answer_field(data, "hiderCloser", where, require_answer)
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
    if not is_number(key) or not math.isfinite(key):
        key = content_key(kind, data)
    return TaibeledQuestion(kind, key, normalise(kind, data, key, require_answer))


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
