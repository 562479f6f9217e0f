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

from stations_generator.formats.taibeled.convert import Resolver, from_model, to_model
from stations_generator.formats.taibeled.fields import (
    APP_URL,
    COLORS,
    KINDS,
    MATCHING_TYPES,
    MAX_HZC_BYTES,
    MEASURING_TYPES,
    TENTACLES_TYPES,
    UNITS_M,
    TaibeledError,
)
from stations_generator.formats.taibeled.links import decode_hzc, encode_hzc, load_any
from stations_generator.formats.taibeled.questions import (
    TaibeledQuestion,
    dump_question,
    parse_question,
)
from stations_generator.formats.taibeled.states import TaibeledState, dump_state, parse_state

__all__ = [
    "COLORS",
    "APP_URL",
    "MAX_HZC_BYTES",
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
