"""The taibeled app's vocabulary and the readers of its JSON fields (numbers, coordinates, flags, units)."""

from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache
from typing import Any

from stations_generator.core.questions.rules import MILE_M
from stations_generator.errors import InputError

APP_URL = "https://taibeled.github.io/JetLagHideAndSeek/"
"""The taibeled app's address: the default base of share links."""
MAX_HZC_BYTES = 16 * 1024**2


class TaibeledError(InputError):
    """Taibeled JSON or a share link that cannot be read or converted (one-line message)."""


# --- schema facts -------------------------------------------------------------------

KINDS = ("radius", "thermometer", "tentacles", "matching", "measuring")
UNITS_M = {"miles": MILE_M, "kilometers": 1000.0, "meters": 1.0}
# The app's icon colours, in the order of its ICON_COLORS table.
COLORS = ("black", "blue", "gold", "green", "grey", "orange", "red", "violet")
_BASE_KEYS = ("lat", "lng", "drag", "color", "collapsed", "hidden")
ANSWER_KEY = {
    "radius": "within",
    "thermometer": "warmer",
    "tentacles": "location",
    "matching": "same",
    "measuring": "hiderCloser",
}
LENGTH_COMPARISONS = ("shorter", "longer", "same")
ADMIN_LEVELS = range(2, 11)

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
MATCHING_EXPORT = {
    "airport": "airport",
    "major_city": "major-city",
    **{t: f"{t}-full" for t in _POI_TYPES},
    "mountain": "peak-full",
}
MEASURING_EXPORT = {
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
TENTACLES_EXPORT = {s: t for t, s in TENTACLES_TYPES.items() if s is not None}
STATION_EXPORT = {
    "letter": "same-first-letter-station",
    "length": "same-length-station",
    "line": "same-train-line",
}
# Measuring subjects that are not catalogue places (the resolver gives lines/polygons).
FEATURE_SUBJECTS = ("coastline", "high_speed_rail", "border", "body_of_water")
SUBJECT_MEMBER = "subject"  # foreign member naming our subject in a custom `geo`


@lru_cache(maxsize=1)
def catalogue_subjects() -> frozenset[str]:
    from stations_generator.core.catalogue import load_catalogue

    return frozenset(load_catalogue().subjects)


# --- small readers ------------------------------------------------------------------


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def number_field(value: Any, what: str, where: str) -> int | float:
    """A finite number (numeric strings accepted); TaibeledError otherwise."""
    out: int | float
    if is_number(value):
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
    v = number_field(value, what, where)
    if not -limit <= v <= limit:
        raise TaibeledError(f"{where}: {what} {v:g} is out of range (-{limit:g} to {limit:g})")
    return v


def lat_field(value: Any, what: str, where: str) -> int | float:
    return _coordinate(value, what, where, 90)


def lng_field(value: Any, what: str, where: str) -> int | float:
    return _coordinate(value, what, where, 180)


def flag(data: dict, key: str, default: bool) -> bool:
    value = data.get(key)
    return value if isinstance(value, bool) else default


def answer_field(data: dict, key: str, where: str, require: bool, default: bool = True) -> bool:
    if key not in data or data[key] is None:
        if require:
            raise TaibeledError(f'{where} has no answer ({key!r}); add "{key}": true or false')
        return default
    value = data[key]
    if not isinstance(value, bool):
        raise TaibeledError(f"{where}: {key} must be true or false, got {value!r}")
    return value


def unit_field(value: Any, where: str, what: str = "unit") -> str:
    if value is None:
        return "miles"
    if not isinstance(value, str) or value not in UNITS_M:
        raise TaibeledError(f"{where}: bad {what} {value!r}; use miles, kilometers or meters")
    return value


def clean(value: float) -> int | float:
    """Round away float noise from a unit conversion (9 decimals); whole numbers as int."""
    r = round(float(value), 9)
    return int(r) if r.is_integer() else r


def content_key(kind: str, data: dict) -> float:
    """A stable stand-in for the app's random key: a hash of the question in [0, 1)."""
    text = json.dumps([kind, data], sort_keys=True, default=str)
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:13], 16) / 16**13


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def same_length(a: float, b: float) -> bool:
    """Two lengths in metres equal but for float rounding (a round trip through units)."""
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9)
