"""Valid hiding stops of the ``jltg-eu`` rule set, read from a station's OSM tags (pure).

JLTG.EU house rules, "Hiding Zones":

* **Germany (DE)** — any railway station included in an Interrail ticket, S-Bahn
  stations included; the Wuppertal Schwebebahn, the Düsseldorf SkyTrain and the
  Dortmund H-Bahn count as railway lines (``station=monorail``); funiculars only where
  their stops are in the standard taibeled filters (``railway=station`` and
  ``railway=halt``, the filters the game setup names); detached and heritage railway
  lines when the round trip costs at most 20 €; metro and tram stops are not allowed.
* **Netherlands (NL)** — any railway station, plus Rotterdam Metro line B; other metro
  and tram stops are not allowed; detached and heritage lines as in Germany.
* **Other countries** — the rules name none; the rules both countries share apply:
  railway stations and halts, no metro, no tram, light rail only as S-Bahn.

What the tags can tell, and how:

* a stop is a railway station when ``railway=station`` or ``railway=halt`` (a tram
  stop, a platform or a subway entrance is not);
* metro: ``station=subway``, or ``subway=yes`` without ``train=yes``;
* tram: ``station=tram``, or ``tram=yes`` without ``train=yes``;
* light rail (``station=light_rail``, or ``light_rail=yes`` without ``train=yes``) is
  the S-Bahn in Germany's tagging and a Stadtbahn elsewhere: it passes when the stop
  has ``train=yes``, is served by an S-line (a route ref ``S`` + digits, e.g.
  ``VBB:S1``), or when no route serves it in the data (unknown: kept, as ruling out
  the hider's true zone is worse than keeping one zone too many);
* heritage (``usage=tourism`` or ``railway:preserved=yes``, see :func:`is_heritage`)
  passes: the rules allow it, and the 20 € round-trip limit is not in OSM.
"""

from __future__ import annotations

import re

from stations_generator.core.questions.geometry import Station

__all__ = ["de_stop", "is_heritage", "nl_stop", "other_stop", "stop_kind"]

#: The standard taibeled filters of the game setup: railway stations and halts.
RAILWAY_STOPS = ("station", "halt")
#: A route ref of an S-Bahn line: ``S`` and a number (``S1``, ``S 41``, ``S5X``).
_S_LINE = re.compile(r"S\s?\d")  # matched at the start of the ref
#: The network and ref of Rotterdam Metro line B, as the routes give them.
ROTTERDAM_B = "RET:B"


def stop_kind(station: Station) -> str:
    """What the tags say a railway stop is served by.

    Returns
    -------
    str
        ``"subway"``, ``"tram"``, ``"light_rail"``, ``"monorail"``, ``"funicular"`` or
        ``"train"`` (the default for a railway station or halt).
    """
    kind = station.tag("station")
    if kind in ("subway", "tram", "light_rail", "monorail", "funicular"):
        return kind
    if station.tag("train") == "yes":
        return "train"
    for mode in ("subway", "tram", "light_rail", "monorail", "funicular"):
        if station.tag(mode) == "yes":
            return mode
    return "train"


def is_heritage(station: Station) -> bool:
    """Whether a stop is on a heritage (tourist) railway: ``usage=tourism`` or
    ``railway:preserved=yes``."""
    return station.tag("usage") == "tourism" or station.tag("railway:preserved") == "yes"


def _s_bahn(station: Station) -> bool:
    """Whether a light-rail stop is an S-Bahn stop (or nothing says otherwise)."""
    if station.tag("train") == "yes":
        return True
    if not station.line_refs and not station.lines:
        return True  # no route serves it in the data: unknown, kept
    return any(_S_LINE.match(ref.rpartition(":")[2].strip()) for ref in station.line_refs)


def other_stop(station: Station) -> bool:
    """A valid hiding stop where the rules name no country (see the module docstring)."""
    if station.tag("railway") not in RAILWAY_STOPS:
        return False
    kind = stop_kind(station)
    if kind in ("subway", "tram"):
        return False
    return _s_bahn(station) if kind == "light_rail" else True


def de_stop(station: Station) -> bool:
    """A valid hiding stop in Germany (JLTG.EU house rules, "Hiding Zones", DE).

    Railway stations and halts (Interrail, S-Bahn, the Schwebebahn-type monorails,
    funiculars tagged as railway stations, heritage lines); no metro, no tram, and
    light rail only as S-Bahn.
    """
    return other_stop(station)


def nl_stop(station: Station) -> bool:
    """A valid hiding stop in the Netherlands (JLTG.EU house rules, "Hiding Zones", NL).

    Any railway station or halt that is not a metro, tram or light-rail stop, plus the
    stops of Rotterdam Metro line B (a route with network ``RET`` and ref ``B``).
    """
    if ROTTERDAM_B in station.line_refs:
        return True
    if station.tag("railway") not in RAILWAY_STOPS:
        return False
    return stop_kind(station) not in ("subway", "tram", "light_rail")
