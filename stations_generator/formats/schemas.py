"""JSON Schemas (draft 2020-12) of the file formats we read, one per format.

Checked by :func:`stations_generator.formats.jsonio.validate` at each format's reader. They
are standard JSON Schema; validators ignore the annotations of ours, which word the
messages: ``x-expected`` (how to say what was expected), ``x-message`` (the whole
message), ``x-fix`` / ``x-required-fix`` (what to do about it) and, on GeoJSON
coordinates, ``x-position`` (the nesting level: 1 is one ``[lon, lat]`` position) and
``x-in-position`` (a number of a position: the message names the whole position).

Semantic checks a schema cannot express (a latitude that looks swapped, a hole outside
its shell, ``wait_min`` ≤ ``wait_max``) stay in the readers, with messages of the same
shape.
"""

from __future__ import annotations

from typing import Any

from stations_generator.core.referee.events import EVENT_KINDS, FREE_QUESTIONS

__all__ = [
    "GAME",
    "GAME_LOG",
    "GEOJSON",
    "OVERPASS_ELEMENT",
    "OVERPASS_RESPONSE",
    "POSITION_DEPTH",
    "STATION_MAP",
    "TAIBELED_QUESTION",
    "TAIBELED_STATE",
]

#: GeoJSON geometry type -> how many levels deep its coordinates nest.
POSITION_DEPTH = {
    "Point": 1,
    "MultiPoint": 2,
    "LineString": 2,
    "MultiLineString": 3,
    "Polygon": 3,
    "MultiPolygon": 4,
}
_GEOMETRY_TYPES = [*POSITION_DEPTH, "GeometryCollection"]
_FLOAT_MAX = 1.7976931348623157e308  # the largest double: a larger integer is no coordinate

#: One GeoJSON position: longitude, latitude and an optional altitude (RFC 7946 3.1.1),
#: plus the measure value some GIS tools add: two to four finite numbers.
_POSITION: dict[str, Any] = {
    "type": "array",
    "minItems": 2,
    "maxItems": 4,
    "items": {
        "type": "number",
        "minimum": -_FLOAT_MAX,
        "maximum": _FLOAT_MAX,
        "x-in-position": True,
    },
    "x-position": 1,
}


def _positions(depth: int) -> dict[str, Any]:
    """GeoJSON coordinates: arrays ``depth`` levels deep, positions at the bottom."""
    schema = _POSITION
    for level in range(2, depth + 1):
        schema = {"type": "array", "items": schema, "x-position": level}
    return schema


_GEOJSON_TYPES = [*_GEOMETRY_TYPES, "Feature", "FeatureCollection"]


def _when(prop: str, value: Any, then: dict) -> dict:
    return {"if": {"properties": {prop: {"const": value}}, "required": [prop]}, "then": then}


_GEOMETRY: dict[str, Any] = {
    "type": "object",
    "x-expected": "a GeoJSON geometry object",
    "required": ["type"],
    "properties": {
        "type": {
            "enum": _GEOMETRY_TYPES,
            "x-expected": "a GeoJSON geometry type (Polygon, MultiPolygon, …)",
        }
    },
    "allOf": [
        *(
            _when(
                "type",
                name,
                {
                    "required": ["coordinates"],
                    "properties": {"coordinates": _positions(depth)},
                },
            )
            for name, depth in POSITION_DEPTH.items()
        ),
        _when(
            "type",
            "GeometryCollection",
            {
                "required": ["geometries"],
                "properties": {
                    "geometries": {"type": "array", "items": {"$ref": "#/$defs/geometry"}}
                },
            },
        ),
    ],
}

_FEATURE: dict[str, Any] = {
    "type": "object",
    "x-expected": "a GeoJSON Feature object",
    "required": ["type"],
    "properties": {
        "type": {"const": "Feature"},
        "geometry": {
            "type": ["object", "null"],
            "if": {"type": "object"},
            "then": {"$ref": "#/$defs/geometry"},
        },
        "properties": {"type": ["object", "null"]},
    },
}

_GEOJSON_DEFS = {"geometry": _GEOMETRY, "feature": _FEATURE}

#: Any GeoJSON object (RFC 7946): a geometry, a Feature or a FeatureCollection.
GEOJSON: dict[str, Any] = {
    "$defs": _GEOJSON_DEFS,
    "type": "object",
    "x-expected": "a GeoJSON object (Polygon, Feature or FeatureCollection)",
    "required": ["type"],
    "properties": {
        "type": {
            "enum": _GEOJSON_TYPES,
            "x-expected": "a GeoJSON type (Polygon, MultiPolygon, Feature, FeatureCollection)",
        }
    },
    "allOf": [
        _when(
            "type",
            "FeatureCollection",
            {
                "required": ["features"],
                "properties": {"features": {"type": "array", "items": {"$ref": "#/$defs/feature"}}},
            },
        ),
        _when("type", "Feature", {"$ref": "#/$defs/feature"}),
        {
            "if": {"properties": {"type": {"enum": _GEOMETRY_TYPES}}, "required": ["type"]},
            "then": {"$ref": "#/$defs/geometry"},
        },
    ],
}

# --------------------------------------------------------------------------- game files

_POINT = {
    "type": ["object", "string"],
    "x-expected": 'a point {"lat": …, "lon": …} or "LAT,LON"',
    "if": {"type": "object"},
    "then": {
        "required": ["lat"],
        "x-required-fix": {"lat": 'write the point as {"lat": 60.17, "lon": 24.94}'},
        "properties": {
            "lat": {"type": "number", "x-expected": "a latitude in degrees such as 60.17"},
            "lon": {"type": "number", "x-expected": "a longitude in degrees such as 24.94"},
            "lng": {"type": "number", "x-expected": "a longitude in degrees such as 24.94"},
        },
        "anyOf": [{"required": ["lon"]}, {"required": ["lng"]}],
        "x-expected": 'a point with "lat" and "lon"',
    },
}
_DISTANCE = {
    "type": ["number", "string"],
    "x-expected": 'a distance such as 500, "500 m", "2 km" or "3 mi"',
    "if": {"type": "number"},
    "then": {"exclusiveMinimum": 0, "x-expected": "a distance above 0"},
}
_ANSWER = {"type": ["string", "boolean", "null"], "x-expected": "an answer such as a string"}
_QUESTION_KEYS = {
    "type": {
        "enum": ["radius", "thermometer", "tentacles", "matching", "measuring", "photo"],
        "x-message": "unknown question type {value}; use radius, thermometer, tentacles, "
        "matching, measuring or photo",
    },
    "id": {"type": "string"},
    "seeker": _POINT,
    "start": _POINT,
    "end": _POINT,
    "radius": _DISTANCE,
    "distance": _DISTANCE,
    "subject": {"type": "string", "x-expected": 'a subject name such as "museum"'},
    "level": {
        "type": "integer",
        "minimum": 1,
        "maximum": 12,
        "x-expected": "an integer admin level such as 8",
    },
    "seeker_station": {"type": "string", "x-expected": 'a station id such as "node/123"'},
    "altitude": {
        "type": ["number", "string"],
        "x-expected": 'the seekers\' GPS altitude such as 12, "12 m" or "-3 m"',
    },
    "photo": {"type": "string", "x-expected": 'a photo kind such as "tree"'},
    "phase": {"enum": ["long", "end"], "x-expected": "a game phase: long or end"},
    "asked_at": {"type": "string", "x-expected": 'an ISO time such as "2026-05-01T10:30:00+02:00"'},
    "started_at": {
        "type": "string",
        "x-expected": 'an ISO time such as "2026-05-01T08:00:00+02:00"',
    },
    "answer": _ANSWER,
    "note": {"type": "string"},
    "comment": {"type": "string"},
}


def _requires(kind: str, *keys: str, fix: dict | None = None) -> dict:
    return _when("type", kind, {"required": list(keys), "x-required-fix": fix or {}})


_SEEKER_FIX = {"seeker": 'add "seeker": {"lat": …, "lon": …}, where the seeker stood'}

_QUESTION: dict[str, Any] = {
    "type": "object",
    "x-expected": "a question object",
    "required": ["type"],
    "x-required-fix": {"type": "add the question type: radius, thermometer, …"},
    "properties": _QUESTION_KEYS,
    "additionalProperties": False,
    "allOf": [
        _requires("radius", "seeker", "radius", fix={**_SEEKER_FIX, "radius": 'add "radius"'}),
        _requires(
            "thermometer",
            "start",
            "end",
            fix={"start": 'add "start": {"lat": …, "lon": …}', "end": 'add "end"'},
        ),
        _requires(
            "tentacles", "seeker", "subject", fix={**_SEEKER_FIX, "subject": 'add "subject"'}
        ),
        _requires("matching", "seeker", "subject", fix={**_SEEKER_FIX, "subject": 'add "subject"'}),
        _requires(
            "measuring", "seeker", "subject", fix={**_SEEKER_FIX, "subject": 'add "subject"'}
        ),
        _requires("photo", "photo", fix={"photo": 'add "photo": a photo kind such as "tree"'}),
        {
            "if": {"properties": {"subject": {"const": "sea-level"}}, "required": ["subject"]},
            "then": {
                "required": ["altitude"],
                "x-required-fix": {"altitude": 'add "altitude": the seekers\' GPS altitude'},
            },
        },
        {
            "if": {
                "properties": {"subject": {"enum": ["zone", "zone-letter"]}},
                "required": ["subject"],
            },
            "then": {
                "required": ["level"],
                "x-required-fix": {"level": 'add "level": the admin level, such as 8'},
            },
        },
    ],
}

#: Our game file, ``"format": "stations-generator-game/1"`` (see gamefile.py).

_TEXT_LIST = {"type": "array", "items": {"type": "string"}, "x-expected": "a list of texts"}
#: A game's stations from a GTFS feed (docs/timetables.md, app/timetable_game.py).
_FEED_STATIONS: dict[str, Any] = {
    "gtfs": {"type": "string", "x-expected": "the path of a GTFS .zip or folder"},
    "route_types": {
        "type": "array",
        "items": {"type": ["string", "integer"]},
        "x-expected": 'a list of route types such as ["rail", 109]',
    },
    "routes": _TEXT_LIST,
    "date": {"type": "string", "x-expected": "a date YYYY-MM-DD"},
    "window": {
        "type": "string",
        "pattern": "^[0-9]{1,2}:[0-9]{2}-[0-9]{1,2}:[0-9]{2}$",
        "x-expected": "the hours HH:MM-HH:MM",
    },
    "min_per_hour": {"type": "number", "minimum": 0, "x-expected": "a number ≥ 0"},
    "every_nth": {"type": "integer", "minimum": 1, "x-expected": "a whole number ≥ 1"},
    "attribution": {"type": "string", "x-expected": "the feed's credit"},
    "line_every_min": {"type": "integer", "minimum": 1, "x-expected": "whole minutes ≥ 1"},
    "valid_stops_only": {"type": "boolean", "x-expected": "true or false"},
    # Where and when the hider started: zones not reachable in the hiding period are ruled out.
    "hider_start": {
        "type": ["string", "array"],
        "minLength": 1,
        "items": {"type": "number"},
        "minItems": 2,
        "maxItems": 2,
        "x-expected": 'a stop id or name, or [lon, lat], such as "Times Sq-42 St"',
    },
    "hiding_started": {
        "type": "string",
        "pattern": "^[0-9]{1,2}:[0-9]{2}$",
        "x-expected": "the time the hiding period began, HH:MM",
    },
}

GAME: dict[str, Any] = {
    "$defs": _GEOJSON_DEFS,
    "type": "object",
    "x-expected": "a game object",
    "required": ["play_area"],
    "x-required-fix": {"play_area": 'add "play_area": a GeoJSON file path or object'},
    "additionalProperties": False,
    "properties": {
        "format": {"const": "stations-generator-game/1"},
        "name": {"type": "string"},
        "note": {"type": "string"},
        "rules": {"type": "string", "x-expected": 'a rule set name such as "official"'},
        "country": {
            "type": ["string", "null"],
            "pattern": "^[A-Za-z]{2}$",
            "x-expected": 'a two-letter country code such as "DE"',
        },
        "game_size": {
            "type": ["string", "null"],
            "enum": ["S", "M", "L", "s", "m", "l", None],
            "x-expected": "a game size: S, M or L",
        },
        "modifiers": {
            "type": "array",
            "items": {"enum": ["prosperous", "tiny"], "x-expected": "prosperous or tiny"},
        },
        "play_area": {
            "type": ["string", "object"],
            "x-expected": "a GeoJSON file path or a GeoJSON object",
        },
        "dem": {
            "type": "string",
            "minLength": 1,
            "x-expected": "an elevation file path (GeoTIFF or SRTM .hgt)",
        },
        "osm": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "x-expected": "an OSM file path"},
            "x-expected": 'a list of OSM file paths, such as ["area.osm.pbf"]',
        },
        "stations": {
            "type": ["string", "object"],
            "x-expected": 'a stations.geojson path, {"categories": […]} or {"gtfs": "feed.zip", …}',
            "if": {"type": "object"},
            "then": {
                "additionalProperties": False,
                "properties": {
                    "categories": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"type": "string", "x-expected": "a category name"},
                        "x-expected": 'a list of category names such as ["train_station"]',
                    },
                    **_FEED_STATIONS,
                },
            },
        },
        "questions": {
            "type": "array",
            "items": _QUESTION,
            "x-expected": "a list of questions",
        },
    },
}

# --------------------------------------------------------------------------- station maps

_STATION_FEATURE = {
    "required": ["geometry"],
    "properties": {
        "geometry": {
            "type": "object",
            "x-expected": "a Point geometry",
            "required": ["type", "coordinates"],
            "properties": {"type": {"const": "Point", "x-expected": "a Point"}},
            "if": {"properties": {"type": {"const": "Point"}}},
            "then": {"properties": {"coordinates": _positions(1)}},
        },
        "properties": {
            "type": "object",
            "required": ["id", "wait_min", "wait_max"],
            "x-fix": "regenerate the map with stations-generator generate",
            "properties": {
                "id": {"type": "string", "minLength": 1, "x-expected": 'an id such as "node/123"'},
                "name": {"type": ["string", "null"]},
                "wait_min": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 1440,
                    "x-expected": "a whole number of minutes from 0 to 1440, such as 10",
                },
                "wait_max": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 1440,
                    "x-expected": "a whole number of minutes from 0 to 1440, such as 30",
                },
                "density_tier": {"type": ["string", "null"]},
                "category": {"type": ["string", "null"]},
                "cluster_id": {"type": ["integer", "null"]},
                "osm_id": {"type": ["integer", "null"]},
                "osm_type": {"type": ["string", "null"]},
            },
        },
    },
}


def _feature_collection(role: str, feature: dict[str, Any]) -> dict[str, Any]:
    """A GeoJSON FeatureCollection whose features of ``role`` also match ``feature``."""
    has_role = {
        "properties": {
            "properties": {
                "type": "object",
                "properties": {"role": {"const": role}},
                "required": ["role"],
            }
        },
        "required": ["properties"],
    }
    return {
        "$defs": _GEOJSON_DEFS,
        "type": "object",
        "x-expected": "a GeoJSON FeatureCollection",
        "required": ["type", "features"],
        "properties": {
            "type": {"const": "FeatureCollection", "x-expected": '"FeatureCollection"'},
            "metadata": {"type": "object"},
            "features": {
                "type": "array",
                "items": {
                    "type": "object",
                    "x-expected": "a GeoJSON Feature",
                    "allOf": [{"$ref": "#/$defs/feature"}, {"if": has_role, "then": feature}],
                },
            },
        },
    }


#: ``stations.geojson`` as ``generate`` writes it.
STATION_MAP: dict[str, Any] = _feature_collection("station", _STATION_FEATURE)

_TEXT_OR_NULL = {"type": ["string", "null"]}

_CANDIDATE_FEATURE = {
    "required": ["geometry", "properties"],
    "properties": {
        "geometry": _STATION_FEATURE["properties"]["geometry"],
        "properties": {
            "type": "object",
            "required": ["status"],
            "x-fix": "regenerate it with stations-generator generate --explain",
            "properties": {
                "id": _TEXT_OR_NULL,
                "name": _TEXT_OR_NULL,
                "category": _TEXT_OR_NULL,
                "opening_hours": _TEXT_OR_NULL,
                "open_during_play": _TEXT_OR_NULL,
                "density_tier": _TEXT_OR_NULL,
                "osm_type": _TEXT_OR_NULL,
                "cluster_id": {"type": ["integer", "null"]},
                "osm_id": {"type": ["integer", "null"]},
                "wait_min": {"type": ["integer", "null"]},
                "wait_max": {"type": ["integer", "null"]},
                "nearby_count": {"type": ["integer", "null"]},
                "priority": {"type": ["number", "null"]},
                "status": {
                    "enum": ["kept", "rejected"],
                    "x-expected": '"kept" or "rejected"',
                },
                "reason": _TEXT_OR_NULL,
                "conflict_with": _TEXT_OR_NULL,
                "in_optimal_map": _TEXT_OR_NULL,
            },
        },
    },
}

#: ``candidates.geojson`` as ``generate --explain`` writes it.
CANDIDATE_MAP: dict[str, Any] = _feature_collection("candidate", _CANDIDATE_FEATURE)

# --------------------------------------------------------------------------- Overpass JSON


def _coordinate(what: str, limit: int) -> dict:
    return {
        "type": "number",
        "x-message": f"non-numeric {what} {{value}}",
        "allOf": [
            {
                "minimum": -limit,
                "maximum": limit,
                "x-message": f"out-of-range {what} {{value}} (expected -{limit} to {limit})",
            }
        ],
    }


_LAT = _coordinate("latitude", 90)
_LON = _coordinate("longitude", 180)
_LATLON_OR_NULL = {
    "type": ["object", "null"],
    "if": {"type": "object"},
    "then": {
        "properties": {
            "lat": {**_LAT, "type": ["number", "null"]},
            "lon": {**_LON, "type": ["number", "null"]},
        }
    },
}
_GEOMETRY_LIST = {"type": "array", "items": _LATLON_OR_NULL, "x-expected": "a list of points"}

#: One element of an Overpass ``[out:json]`` response.
OVERPASS_ELEMENT: dict[str, Any] = {
    "type": "object",
    "x-expected": "an OSM element object",
    "required": ["type", "id"],
    "properties": {
        "type": {"type": "string", "x-expected": 'an element type such as "node"'},
        "id": {"type": "integer", "x-expected": "an integer OSM id"},
        "lat": _LAT,
        "lon": _LON,
        "tags": {
            "type": "object",
            "additionalProperties": {"type": ["string", "number"], "x-expected": "a tag value"},
            "x-expected": 'an object of tags such as {"amenity": "cafe"}',
        },
        "center": {
            "type": "object",
            "required": ["lat", "lon"],
            "properties": {"lat": _LAT, "lon": _LON},
        },
        "bounds": {
            "type": "object",
            "properties": {"minlat": _LAT, "maxlat": _LAT, "minlon": _LON, "maxlon": _LON},
        },
        "nodes": {"type": "array", "items": {"type": "integer"}},
        "geometry": _GEOMETRY_LIST,
        "members": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["type", "ref"],
                "properties": {
                    "type": {"enum": ["node", "way", "relation"]},
                    "ref": {"type": "integer"},
                    "role": {"type": "string"},
                    "lat": _LAT,
                    "lon": _LON,
                    "geometry": _GEOMETRY_LIST,
                },
            },
        },
    },
}

#: The envelope of a response (``elements`` are checked one by one, as they stream in).
OVERPASS_RESPONSE: dict[str, Any] = {
    "type": ["object", "array"],
    "x-expected": 'an Overpass response {"elements": […]} or a list of elements',
    "if": {"type": "object"},
    "then": {
        "required": ["elements"],
        "properties": {"elements": {"type": "array"}, "remark": {"type": "string"}},
    },
}

# --------------------------------------------------------------------------- taibeled

#: One taibeled question ``{"id", "key", "data"}``. The app's importer is lenient (unknown
#: keys are dropped, missing display fields take defaults), so the schema checks the
#: containers; taibeled.py checks each value with the app's own wording.
TAIBELED_QUESTION: dict[str, Any] = {
    "type": "object",
    "x-expected": 'a taibeled question {"id": …, "data": {…}}',
    "properties": {
        "key": {"type": ["number", "string", "null"]},
        "data": {"type": ["object", "null"], "x-expected": "an object of question data"},
    },
}

#: A taibeled game state (either shape), a question or a question list.
TAIBELED_STATE: dict[str, Any] = {
    "type": ["object", "array"],
    "x-expected": "a taibeled state, question or question list",
    "if": {"type": "array"},
    "then": {"items": TAIBELED_QUESTION},
    "else": {
        "properties": {
            "questions": {"type": ["array", "null"], "items": TAIBELED_QUESTION},
            "features": {"type": "array", "items": {"type": "object"}},
            "properties": {
                "type": ["object", "null"],
                "properties": {
                    "questions": {"type": ["array", "null"], "items": TAIBELED_QUESTION}
                },
            },
            "disabledStations": {
                "type": ["array", "null"],
                "items": {"type": ["string", "integer"]},
            },
            "customStations": {"type": ["array", "null"], "items": {"type": "object"}},
            "zoneOptions": {"type": ["array", "null"], "items": {"type": "string"}},
        },
    },
}

# --------------------------------------------------------------------------- game logs

_CARD_ID = {"type": "string", "minLength": 1, "x-expected": 'a card id such as "veto-question"'}
_CARD_IDS = {"type": "array", "items": _CARD_ID, "x-expected": "a list of card ids"}
_EVENT_NAMES = list(EVENT_KINDS)
_ID_FIX = {"id": 'add "id": the id of the question, such as "q3"'}


def _event_requires(names: list[str], *keys: str, fix: dict) -> dict:
    return {
        "if": {"properties": {"event": {"enum": names}}, "required": ["event"]},
        "then": {"required": list(keys), "x-required-fix": fix},
    }


_GAME_EVENT: dict[str, Any] = {
    "type": "object",
    "x-expected": 'an event {"at": …, "event": …}',
    "required": ["at", "event"],
    "x-required-fix": {
        "at": 'add "at": an ISO time with its zone, such as "2026-07-10T10:00:00+02:00"',
        "event": 'add "event": what happened, such as "question-asked"',
    },
    "additionalProperties": False,
    "properties": {
        "at": {"type": "string", "x-expected": 'an ISO time such as "2026-07-10T10:00:00+02:00"'},
        "event": {
            "enum": _EVENT_NAMES,
            "x-message": "unknown event {value}; use " + ", ".join(_EVENT_NAMES),
        },
        "id": {"type": "string", "minLength": 1, "x-expected": 'a question id such as "q3"'},
        "question": _QUESTION,
        "answer": {"type": "string", "x-expected": 'an answer such as "within"'},
        "card": _CARD_ID,
        "cards": _CARD_IDS,
        "discards": _CARD_IDS,
        "paid": _CARD_IDS,
        "draws": _CARD_IDS,
        "target": _CARD_ID,
        "team": {"enum": ["seekers", "hider", "both"], "x-expected": "seekers, hider or both"},
        "accepted": {"type": "boolean", "x-expected": "true (the seekers accepted) or false"},
        "free": {
            "enum": list(FREE_QUESTIONS),
            "x-expected": "a free question: map-correct, what-to-ask, passed-by or blue-lines",
        },
        "exit_blue_lines": {"type": "boolean", "x-expected": "true or false"},
        "retract": {"type": "boolean", "x-expected": "true (retracted) or false (asked)"},
        "note": {"type": "string"},
    },
    "allOf": [
        _event_requires(
            ["hint-given"],
            "accepted",
            fix={"accepted": 'add "accepted": true (Draw 1, Pick 1) or false (free)'},
        ),
        _event_requires(
            ["free-question"],
            "free",
            fix={"free": 'add "free": map-correct, what-to-ask, passed-by or blue-lines'},
        ),
        _event_requires(
            ["cards-replaced"],
            "cards",
            "draws",
            fix={
                "cards": 'add "cards": the inappropriate cards just drawn',
                "draws": 'add "draws": the cards drawn to replace them',
            },
        ),
        _event_requires(
            ["question-asked"],
            "id",
            "question",
            fix={**_ID_FIX, "question": 'add "question": a GAME.json question'},
        ),
        _event_requires(
            ["question-answered", "thermometer-started", "thermometer-cancelled"], "id", fix=_ID_FIX
        ),
        _event_requires(
            ["cards-drawn", "cards-kept", "cards-discarded"],
            "cards",
            fix={"cards": 'add "cards": the card ids, such as ["time-bonus-5"]'},
        ),
        _event_requires(
            ["card-played", "curse-cast", "curse-cleared", "curse-vetoed"],
            "card",
            fix={"card": 'add "card": the card id, such as "curse-of-the-bridge-troll"'},
        ),
        {
            "if": {"properties": {"event": {"const": "question-answered"}}, "required": ["event"]},
            "then": {
                "anyOf": [{"required": ["answer"]}, {"required": ["card"]}],
                "x-message": 'a question-answered event needs "answer", or "card": the power-up played instead',
            },
        },
    ],
}

#: A referee's game log, ``"format": "stations-generator/game-log"`` (see gamelog.py).
GAME_LOG: dict[str, Any] = {
    "type": "object",
    "x-expected": "a game log object",
    "required": ["format", "version", "size", "events"],
    "x-required-fix": {
        "format": 'add "format": "stations-generator/game-log"',
        "version": 'add "version": 1',
        "size": 'add "size": the game size, S, M or L',
        "events": 'add "events": []',
    },
    "additionalProperties": False,
    "properties": {
        "format": {"const": "stations-generator/game-log"},
        "version": {"const": 1, "x-expected": "version 1"},
        "size": {"enum": ["S", "M", "L"], "x-expected": "a game size: S, M or L"},
        "rules": {"enum": ["jltg-eu", "official"], "x-expected": "jltg-eu or official"},
        "cards": {"type": ["string", "null"], "x-expected": 'a card file such as "jltg-eu"'},
        "setup": {
            "type": ["string", "null"],
            "x-expected": 'a game setup of the card file, such as "germany-2026-07"',
        },
        "game": {"type": ["string", "null"], "x-expected": "the game file's path"},
        "max_game_minutes": {
            "type": ["number", "null"],
            "exclusiveMinimum": 0,
            "x-expected": "minutes above 0, such as 540",
        },
        "note": {"type": "string"},
        "hand": {**_CARD_IDS, "x-expected": "the card ids the hider starts the round with"},
        "previous": {
            "type": ["object", "null"],
            "x-expected": 'the previous round {"log": …, "ended": …}',
            "required": ["log", "ended"],
            "additionalProperties": False,
            "properties": {
                "log": {"type": "string", "x-expected": "the previous round's log file"},
                "ended": {
                    "type": "string",
                    "x-expected": 'an ISO time such as "2026-07-10T13:20:00+02:00"',
                },
                "round": {"type": "integer", "minimum": 1, "x-expected": "a round number"},
                "hand": {**_CARD_IDS, "x-expected": "the hand at the end of that round"},
            },
        },
        "events": {"type": "array", "items": _GAME_EVENT, "x-expected": "a list of events"},
    },
}
