"""GTFS route types as modes: numbers and words, and the OSM-like tags of a mode's stations.

A route's ``route_type`` is one of the GTFS reference's basic types (0 tram, 1 subway,
2 rail, 3 bus, 4 ferry, 5 cable tram, 6 aerial lift, 7 funicular, 11 trolleybus,
12 monorail) or an extended type of the Hierarchical Vehicle Type list most European
feeds use (100–199 railway, 200–299 coach, 400–404 urban railway and metro, 405
monorail, 700–799 bus, 800 trolleybus, 900–999 tram, 1000 water, 1200 ferry, 1300
aerial lift, 1400 funicular). Each maps to one mode word; anything else is ``other``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["MODES", "MODE_CATEGORY", "mode_of", "mode_tags", "route_type_mask"]

#: Mode words, in the order a station served by several modes is named by (the first).
MODES = (
    "rail",
    "monorail",
    "subway",
    "funicular",
    "tram",
    "cable_tram",
    "aerial_lift",
    "ferry",
    "trolleybus",
    "bus",
    "other",
)
#: Other words accepted for a mode.
_ALIASES = {"train": "rail", "metro": "subway", "gondola": "aerial_lift", "light_rail": "tram"}
_BASIC = {
    0: "tram",
    1: "subway",
    2: "rail",
    3: "bus",
    4: "ferry",
    5: "cable_tram",
    6: "aerial_lift",
    7: "funicular",
    11: "trolleybus",
    12: "monorail",
}

#: A station's ``category`` in the station map, by its mode (the catalogue's names where
#: one fits, so a game reads the file's stations as it reads OSM ones).
MODE_CATEGORY = {
    "rail": "train_station",
    "monorail": "monorail_station",
    "subway": "subway_station",
    "funicular": "funicular_station",
    "tram": "tram_stop",
    "cable_tram": "tram_stop",
    "aerial_lift": "cable_car_station",
    "ferry": "ferry_terminal",
    "trolleybus": "bus_stop",
    "bus": "bus_stop",
    "other": "transit_stop",
}

#: The OSM tags a stop of each mode would carry (what the rule sets' valid-stop checks
#: read, :mod:`stations_generator.core.questions.stops`).
_TAGS = {
    "rail": (("railway", "station"), ("train", "yes")),
    "monorail": (("railway", "station"), ("station", "monorail")),
    "subway": (("railway", "station"), ("station", "subway")),
    "funicular": (("railway", "station"), ("station", "funicular")),
    "tram": (("railway", "tram_stop"), ("station", "tram")),
    "cable_tram": (("railway", "tram_stop"), ("station", "tram")),
    "aerial_lift": (("aerialway", "station"),),
    "ferry": (("amenity", "ferry_terminal"),),
    "trolleybus": (("highway", "bus_stop"),),
    "bus": (("highway", "bus_stop"),),
    "other": (("public_transport", "station"),),
}


def mode_of(route_type: int) -> str:
    """The mode word of a GTFS route type (basic or extended; see the module docstring).

    Parameters
    ----------
    route_type : int

    Returns
    -------
    str
        One of :data:`MODES`.
    """
    t = int(route_type)
    if t in _BASIC:
        return _BASIC[t]
    if 100 <= t < 200:
        return "rail"
    if 200 <= t < 300 or 700 <= t < 800:
        return "bus"
    if 400 <= t <= 404:
        return "subway"
    if t == 405:
        return "monorail"
    if t == 800:
        return "trolleybus"
    if 900 <= t < 1000:
        return "tram"
    if t in (1000, 1200):
        return "ferry"
    if 1300 <= t < 1400:
        return "aerial_lift"
    if t == 1400:
        return "funicular"
    return "other"


def mode_tags(modes: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The OSM-like tags of a station served by ``modes``: those of the first in
    :data:`MODES` order (a station with trains and a metro is a railway station)."""
    ranked = sorted(set(modes), key=MODES.index)
    return _TAGS[ranked[0]] if ranked else ()


def route_type_mask(route_type: np.ndarray, wanted: Iterable[str]) -> np.ndarray:
    """Per route, whether its type is one of ``wanted``: GTFS numbers or mode words.

    Parameters
    ----------
    route_type : numpy.ndarray of int
        The feed's ``route_type`` column.
    wanted : iterable of str
        ``"2"``, ``"109"``, ``"rail"``, ``"train"``, ``"subway"``, ``"bus"``…

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ValueError
        A value that is neither a whole number nor a mode word (naming the words).
    """
    numbers: set[int] = set()
    words: set[str] = set()
    for value in wanted:
        text = str(value).strip().lower().replace("-", "_")
        if text.isdigit():
            numbers.add(int(text))
        elif text in MODES or text in _ALIASES:
            words.add(_ALIASES.get(text, text))
        else:
            raise ValueError(
                f"unknown route type {value!r}; give a GTFS route_type number (2, 109…) or "
                "one of: " + ", ".join(MODES[:-1])
            )
    modes = np.array([mode_of(t) for t in route_type.tolist()], dtype=object)
    return np.isin(route_type, sorted(numbers)) | np.isin(modes, sorted(words))
