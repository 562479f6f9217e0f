"""Overpass API client and the one parser for Overpass JSON.

Everything that talks to Overpass, or reads an Overpass response saved on disk,
goes through this module:

* :class:`OverpassClient` POSTs a query, retries politely, falls back to other
  instances and caches successful responses on disk.
* :func:`parse_overpass_json` turns a response (or a bare list of elements) into
  :class:`~stations_generator.core.elements.OsmElement` records.
* :func:`water_polygons_from_overpass_json` turns an ``out geom`` water response
  into shapely polygons.
* :func:`read_overpass_json_file` loads a saved response with friendly errors.

Retry policy of :meth:`OverpassClient.fetch`: one overall deadline (``timeout``,
``--overpass-timeout``) bounds the whole call, every try at every endpoint and every
wait between them, however slowly a server sends (see
:mod:`stations_generator.osm.transport`). Per endpoint, up to ``max_tries`` requests:

* HTTP 429, 502, 503, 504, dropped connections, tries past ``try_timeout`` and 200
  responses whose ``remark`` starts with ``"runtime error"`` are retried after
  ``min(backoff * 2**k, max_backoff)`` seconds (``k`` = 0 for the first retry), or
  after ``Retry-After`` seconds when the server sends that header. A wait that would
  end after the deadline is not started: a ``Retry-After`` beyond it fails that
  endpoint at once, saying when to come back.
* A refused connection, an unknown host name, a redirect, any other HTTP error
  status (403, 404, 500...) and an answer the caller's parse rejects (bad
  coordinates, broken elements) give up on that endpoint at once and move on to the
  next one, while time is left.
* HTTP 400 (Overpass's answer to a query it cannot parse) and a 200 response that
  is not JSON, or not shaped like an Overpass response, raise
  :class:`~stations_generator.errors.OverpassError` at once: every instance
  would answer the same query the same way, so neither a retry nor another
  endpoint can help (a non-JSON answer usually means the query lacks
  ``[out:json]``).

Caching: an answer is written to the cache only after the caller's parse accepted
it (:meth:`OverpassClient.fetch_parsed`; :meth:`OverpassClient.fetch` uses
:func:`parse_overpass_json`), so no error page, truncated body, runtime-error remark
or poisoned element is ever cached; a cached answer the parse rejects is dropped
and fetched again. Errors name the endpoint the data came from.
"""

from __future__ import annotations

import collections
import html
import json
import math
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polygonize, unary_union

from stations_generator.core.elements import OsmElement
from stations_generator.errors import InputError, OverpassError
from stations_generator.formats import jsonio, schemas
from stations_generator.osm.transport import (
    Deadline,
    DeadlineExceeded,
    JsonCache,
    Reply,
    Waits,
    come_back_at,
    exchange,
    network_failure,
)
from stations_generator.osm.transport import retry_after as parse_retry_after

# overpy is imported where elements it converts turn up, not here: 13 ms of every
# command, and most responses (the POIs of ``out center tags``) never need it.
if TYPE_CHECKING:
    import overpy

T = TypeVar("T")

__all__ = [
    "DEFAULT_ENDPOINTS",
    "DEFAULT_USER_AGENT",
    "OverpassClient",
    "default_cache_dir",
    "parse_overpass_json",
    "read_overpass_json_file",
    "water_polygons_from_overpass_json",
]

#: Public Overpass instances, tried in this order.
DEFAULT_ENDPOINTS: tuple[str, ...] = (
    "https://overpass-api.de/api/interpreter",
    "https://overpass.private.coffee/api/interpreter",
)

#: Appended to the User-Agent as ``(+URL)`` when set; Overpass operators ask
#: clients to identify themselves. Left empty until the project has a public home.
PROJECT_URL = ""

#: Seconds one Overpass call may take in all (``--overpass-timeout``): every try, every
#: instance and every wait. Overpass stops a query itself after its ``[timeout:180]``;
#: the rest leaves room for a retry or the next instance.
DEFAULT_TIMEOUT_S = 300.0

#: HTTP statuses that mean "busy, try again later".
RETRY_STATUSES = frozenset({429, 502, 503, 504})

_TYPE_ORDER = {"node": 0, "way": 1, "relation": 2}
_AREA_RELATION_TYPES = frozenset({"multipolygon", "boundary"})


def _package_version() -> str:
    try:
        return metadata.version("stations-generator")
    except metadata.PackageNotFoundError:
        return "dev"


def _default_user_agent() -> str:
    agent = f"stations-generator/{_package_version()}"
    return f"{agent} (+{PROJECT_URL})" if PROJECT_URL else agent


DEFAULT_USER_AGENT = _default_user_agent()


def default_cache_dir() -> Path:
    """Return the per-user directory where Overpass responses are cached.

    Returns
    -------
    pathlib.Path
        ``<base>/stations-generator/overpass`` where ``<base>`` is
        ``%LOCALAPPDATA%`` on Windows (falling back to ``~/AppData/Local``) and
        ``$XDG_CACHE_HOME`` elsewhere (falling back to ``~/.cache``; a relative
        ``XDG_CACHE_HOME`` is ignored, as the XDG spec requires). The directory is
        not created here.
    """
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        base = Path(local) if local else Path.home() / "AppData" / "Local"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "stations-generator" / "overpass"


# --------------------------------------------------------------------------- #
# Response shape checks shared by the client, the file reader and the parsers
# --------------------------------------------------------------------------- #


def _elements_of(data: object) -> list[Any] | None:
    """The element list of a response envelope or bare list, or None if neither."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("elements"), list):
        return data["elements"]
    return None


def _shape_problem(data: object) -> str | None:
    """Describe why ``data`` is not Overpass JSON, or return None when it is."""
    elements = _elements_of(data)
    if elements is None:
        if isinstance(data, dict):
            return "a JSON object without an 'elements' list"
        return f"a JSON {type(data).__name__}, not an object or a list of elements"
    for index, element in enumerate(elements):
        if not isinstance(element, dict):
            return f"element #{index} is not an object"
        osm_type, osm_id = element.get("type"), element.get("id")
        if not isinstance(osm_type, str) or isinstance(osm_id, bool) or not isinstance(osm_id, int):
            return f"element #{index} has no string 'type' and integer 'id'"
    return None


def _runtime_error(data: object) -> str | None:
    """Overpass's ``remark`` when it reports a runtime error (timeout, out of memory)."""
    if isinstance(data, dict):
        remark = data.get("remark")
        if isinstance(remark, str) and remark.strip().lower().startswith("runtime error"):
            return _one_line(remark)
    return None


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _to_overpy(
    data: dict[str, Any] | list[Any], source: str = "Overpass JSON"
) -> tuple[overpy.Result, list[dict[str, Any]]]:
    """Validate Overpass JSON and load it with overpy (the single Overpass path).

    Returns the overpy result and the plain elements (:func:`_is_plain`: the POIs of
    ``out center tags``), which overpy would only copy (0.6 s per 100k elements) and
    which are read as they are, to the same records. Repeated ``type``/``id`` pairs
    are merged into one element. Null entries in relation-member geometries (nodes
    outside the query's bbox in ``out geom(bbox)`` output) become ``(None, None)``
    points, which the water assembler treats as gaps; overpy cannot take a bare
    ``null`` there.
    """
    checked = getattr(data, "checked", False)  # read_overpass_json_file screened each element
    problem = None if checked else _shape_problem(data)
    if problem is not None:
        raise InputError(f"{source} is not Overpass JSON: {problem}")
    remark = _runtime_error(data)
    if remark is not None:
        raise InputError(
            f"Overpass response is incomplete ({remark}); re-run the query, "
            "for a smaller area if it keeps failing"
        )
    elements = _elements_of(data) or []
    if not checked:
        for index, element in enumerate(elements):
            jsonio.validate(
                element, schemas.OVERPASS_ELEMENT, source, path_prefix=f"$.elements[{index}]"
            )
    # One response may list an object twice (``out center tags`` for the POIs, then
    # ``out geom`` for the water): merge the occurrences, the first one's values
    # winning, so neither the centre nor the geometry is lost (overpy keeps only one).
    merged: dict[tuple[str, int], dict[str, Any]] = {}
    for element in elements:
        key = (element["type"], element["id"])
        merged[key] = {**element, **merged[key]} if key in merged else element
    plain: list[dict[str, Any]] = []
    deep: list[dict[str, Any]] = []
    if getattr(data, "simple", False):
        # Every element passed _simply_valid: no members to mend, and of the plain keys,
        # so a node, way or relation is plain.
        for element in merged.values():
            (plain if element["type"] in _PLAIN_TYPES else deep).append(element)
        return _overpy_result(deep), plain
    prepared = []
    for element in merged.values():
        members = element.get("members")
        if isinstance(members, list) and any(
            isinstance(m, dict) and isinstance(m.get("geometry"), list) and None in m["geometry"]
            for m in members
        ):
            element = dict(element)
            element["members"] = [
                {
                    **m,
                    "geometry": [
                        p if p is not None else {"lat": None, "lon": None} for p in m["geometry"]
                    ],
                }
                if isinstance(m, dict) and isinstance(m.get("geometry"), list)
                else m
                for m in members
            ]
        prepared.append(element)
    for element in prepared:
        (plain if _is_plain(element) else deep).append(element)
    return _overpy_result(deep), plain


@dataclass(frozen=True)
class _NoElements:
    """What overpy reads from no elements, without importing overpy."""

    nodes: tuple = ()
    ways: tuple = ()
    relations: tuple = ()


def _overpy_result(deep: list[dict[str, Any]]) -> overpy.Result:
    """overpy's reading of the elements that are not plain."""
    if not deep:
        return _NoElements()  # type: ignore[return-value]
    import overpy

    try:
        return overpy.Result.from_json({"elements": deep})
    except (
        ValueError,
        TypeError,
        AttributeError,
        KeyError,
        overpy.exception.OverPyException,
    ) as exc:
        raise InputError(f"malformed element in Overpass JSON: {_one_line(str(exc))}") from exc


# --------------------------------------------------------------------------- #
# Elements
# --------------------------------------------------------------------------- #


def _coordinate(value: object, what: str, osm_type: str, osm_id: object) -> float:
    """``value`` as a float latitude / longitude (``what``) of ``osm_type/osm_id``, or InputError."""
    limit = 90.0 if what == "latitude" else 180.0
    if type(value) is float and -limit <= value <= limit:  # the common case (NaN fails)
        return value
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{osm_type}/{osm_id} has a non-numeric {what} {value!r}") from None
    if not math.isfinite(number) or abs(number) > limit:
        raise InputError(f"{osm_type}/{osm_id} has an out-of-range {what} {value!r}")
    return number


def _bounds_centre(bounds: object) -> tuple[object, object] | None:
    if not isinstance(bounds, Mapping):
        return None
    try:
        lat = (float(bounds["minlat"]) + float(bounds["maxlat"])) / 2.0
        lon = (float(bounds["minlon"]) + float(bounds["maxlon"])) / 2.0
    except (KeyError, TypeError, ValueError):
        return None
    return lat, lon


def _points_centre(points: Iterable[tuple[object, object]]) -> tuple[object, object] | None:
    lats: list[float] = []
    lons: list[float] = []
    for lat, lon in points:
        if lat is None or lon is None:
            continue
        try:
            lats.append(float(lat))  # type: ignore[arg-type]
            lons.append(float(lon))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
    if not lats:
        return None
    return (min(lats) + max(lats)) / 2.0, (min(lons) + max(lons)) / 2.0


def _raw_points(geometry: object) -> list[tuple[object, object]]:
    if not isinstance(geometry, list):
        return []
    return [(p.get("lat"), p.get("lon")) if isinstance(p, dict) else (None, None) for p in geometry]


def _member_points(relation: overpy.Relation) -> list[tuple[object, object]]:
    points: list[tuple[object, object]] = []
    for member in relation.members:
        for value in member.geometry or ():
            points.append((value.lat, value.lon))
        attributes = member.attributes or {}
        if "lat" in attributes and "lon" in attributes:  # node members of out geom
            points.append((attributes["lat"], attributes["lon"]))
    return points


# Members a plain element may have: none that overpy converts (its attribute modifiers:
# timestamp, version, ...) or assembles (geometry, members), so reading the dict as it
# is gives what overpy would.
_PLAIN_KEYS = frozenset({"type", "id", "lat", "lon", "tags", "center", "bounds", "nodes"})
_PLAIN_TYPES = frozenset({"node", "way", "relation"})


def _is_plain(element: dict[str, Any]) -> bool:
    """Whether ``element`` is read without overpy: a node, way or relation with only
    :data:`_PLAIN_KEYS`, and a ``center``, if any, of two numbers (else overpy words the
    error)."""
    if element.get("type") not in _PLAIN_TYPES or not _PLAIN_KEYS.issuperset(element):
        return False
    centre = element.get("center")
    if isinstance(centre, dict):
        lat, lon = centre.get("lat"), centre.get("lon")
        if type(lat) is float and type(lon) is float:  # the common case
            return True
        return all(isinstance(v, int | float) and not isinstance(v, bool) for v in (lat, lon))
    return True


def _plain_position(element: dict[str, Any]) -> tuple[object, object] | None:
    """:func:`_position` of a plain element."""
    if element["type"] == "node":
        lat, lon = element.get("lat"), element.get("lon")
        return None if lat is None or lon is None else (lat, lon)
    centre = element.get("center")
    if isinstance(centre, dict):
        return centre["lat"], centre["lon"]
    return _bounds_centre(element.get("bounds"))  # no geometry and no members


def _position(element: overpy.Element) -> tuple[object, object] | None:
    """Where an overpy element is: node position, ``center``, or centre of its bounds."""
    import overpy

    attributes = element.attributes or {}
    if isinstance(element, overpy.Node):
        if element.lat is None or element.lon is None:
            return None
        return element.lat, element.lon
    if element.center_lat is not None and element.center_lon is not None:
        return element.center_lat, element.center_lon
    centre = _bounds_centre(attributes.get("bounds"))
    if centre is not None:
        return centre
    if isinstance(element, overpy.Way):
        return _points_centre(_raw_points(attributes.get("geometry")))
    return _points_centre(_member_points(element))


def parse_overpass_json(data: dict[str, Any] | list[Any]) -> list[OsmElement]:
    """Turn Overpass JSON into :class:`OsmElement` records.

    Parameters
    ----------
    data : dict or list
        A full Overpass JSON response (``{"version": ..., "elements": [...]}``)
        or a bare list of its elements, e.g. from :func:`read_overpass_json_file`
        or :meth:`OverpassClient.fetch`.

    Returns
    -------
    list of OsmElement
        One record per node, way and relation that has a position: nodes keep
        their ``lat``/``lon``; ways and relations take their ``center``
        (``out center``), else the centre of their ``bounds`` (``out bb`` /
        ``out geom``), else the centre of their geometry's extent. Elements
        without any position (``out ids``, ``out tags``) and other types
        (areas, counts) are skipped; the occurrences of a repeated
        ``type/id`` are merged, the first one's values winning. Sorted by type
        (node, way, relation) then id.

    Raises
    ------
    InputError
        If ``data`` is not shaped like Overpass JSON, carries an Overpass
        runtime-error remark (the response is incomplete), or has a
        non-numeric / out-of-range coordinate.
    """
    return _records(*_to_overpy(data), simple=getattr(data, "simple", False))


def parse_overpass(
    data: dict[str, Any] | list[Any], source: str = "Overpass JSON"
) -> tuple[list[OsmElement], list[Polygon]]:
    """Elements and water polygons of one response, converted by overpy once.

    Parameters
    ----------
    data : dict or list
        As for :func:`parse_overpass_json`.
    source : str
        How to name the data in messages.

    Returns
    -------
    (list of OsmElement, list of Polygon)
        What :func:`parse_overpass_json` and :func:`water_polygons_from_overpass_json`
        return, from one overpy conversion.
    """
    result, plain = _to_overpy(data, source)
    return _records(result, plain, simple=getattr(data, "simple", False)), _water(result)


def _string_tags(tags: dict[str, Any]) -> dict[str, str]:
    """A copy of tags with every key and value a string (numbers as their text)."""
    if _ONLY_STR.issuperset(map(type, tags.values())) and _ONLY_STR.issuperset(map(type, tags)):
        return dict(tags)
    return {str(k): str(v) for k, v in tags.items()}


def _simple_records(plain: list[dict[str, Any]], records: list[OsmElement]) -> None:
    """:func:`_records` of plain elements that passed :func:`_simply_valid`, appended
    to ``records``: their coordinates are JSON numbers in range and their tags text, so
    positions need no checks (a way or relation has a ``center`` or no position)."""
    append = records.append
    for element in plain:
        osm_type = element["type"]
        if osm_type == "node":
            lat, lon = element.get("lat"), element.get("lon")
            if lat is None or lon is None:
                continue
        else:
            centre = element.get("center")
            if centre is None:
                continue
            lat, lon = centre["lat"], centre["lon"]
        tags = element.get("tags")
        append(OsmElement(osm_type, element["id"], float(lat), float(lon), dict(tags or ())))


def _plain_records(plain: list[dict[str, Any]], records: list[OsmElement]) -> None:
    """:func:`_records` of plain elements, appended to ``records``: positions and tags
    checked and turned into floats and text."""
    for element in plain:
        position = _plain_position(element)
        if position is None:
            continue
        osm_type = element["type"]
        oid = element["id"]
        records.append(
            OsmElement(
                osm_type,
                int(oid),
                _coordinate(position[0], "latitude", osm_type, oid),
                _coordinate(position[1], "longitude", osm_type, oid),
                _string_tags(element.get("tags") or {}),
            )
        )


def _records(
    result: overpy.Result, plain: list[dict[str, Any]], simple: bool = False
) -> list[OsmElement]:
    """The records of overpy's elements and the plain ones, sorted by type then id.

    With ``simple``, every plain element passed :func:`_simply_valid` (its tags are
    already all text) and its tags are only copied."""
    records: list[OsmElement] = []
    (_simple_records if simple else _plain_records)(plain, records)
    groups: list[tuple[str, Sequence[overpy.Element]]] = [
        ("node", result.nodes),
        ("way", result.ways),
        ("relation", result.relations),
    ]
    for osm_type, elements in groups:
        for element in elements:
            position = _position(element)
            if position is None:
                continue
            tags = _string_tags(element.tags or {})
            records.append(
                OsmElement(
                    osm_type=osm_type,
                    osm_id=int(element.id),
                    lat=_coordinate(position[0], "latitude", osm_type, element.id),
                    lon=_coordinate(position[1], "longitude", osm_type, element.id),
                    tags=tags,
                )
            )
    records.sort(key=lambda e: (_TYPE_ORDER[e.osm_type], e.osm_id))
    return records


# --------------------------------------------------------------------------- #
# Water polygons
# --------------------------------------------------------------------------- #


def _segments(points: Sequence[tuple[object, object]]) -> list[list[tuple[float, float]]]:
    """Split a geometry at missing points into runs of ``(lon, lat)``."""
    runs: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] = []
    for lat, lon in points:
        if lat is None or lon is None:
            if len(current) >= 2:
                runs.append(current)
            current = []
            continue
        current.append((float(lon), float(lat)))  # type: ignore[arg-type]
    if len(current) >= 2:
        runs.append(current)
    return runs


def _polygon_parts(geometry: BaseGeometry) -> list[Polygon]:
    """Valid, non-empty polygons in ``geometry`` (after make_valid)."""
    if geometry.is_empty:
        return []
    if not geometry.is_valid:
        geometry = shapely.make_valid(geometry)
    parts: list[Polygon] = []
    stack = [geometry]
    while stack:
        geom = stack.pop()
        if isinstance(geom, Polygon):
            if not geom.is_empty and geom.area > 0:
                parts.append(geom)
        elif hasattr(geom, "geoms"):
            stack.extend(geom.geoms)
    parts.sort(key=lambda p: p.bounds)
    return parts


def _faces(lines: list[LineString]) -> list[Polygon]:
    if not lines:
        return []
    noded = unary_union(lines)  # nodes crossings and joins segments end to end
    faces: list[Polygon] = []
    for face in polygonize(noded):
        faces.extend(_polygon_parts(face))
    return faces


def _multipolygon_area(outer: list[LineString], inner: list[LineString]) -> list[Polygon]:
    outer_faces = _faces(outer)
    if not outer_faces:
        return []
    outer_union = unary_union(outer_faces)
    inner_faces = _faces(inner)
    if not inner_faces:
        return _polygon_parts(outer_union)
    inner_union = unary_union(inner_faces)
    # Outers minus inners; an outer ring nested inside an inner one (island in a
    # lake in an island) is added back.
    nested = [face for face in outer_faces if inner_union.covers(face)]
    return _polygon_parts(unary_union([outer_union.difference(inner_union), *nested]))


def water_polygons_from_overpass_json(data: dict[str, Any] | list[Any]) -> list[Polygon]:
    """Build water polygons from an Overpass ``out geom`` response.

    Parameters
    ----------
    data : dict or list
        Overpass JSON (envelope or bare element list) with geometries, e.g. the
        answer to ``(way[natural=water](...); relation[natural=water](...);); out geom;``.

    Returns
    -------
    list of shapely.geometry.Polygon
        Valid polygons in ``(lon, lat)`` coordinates: one per closed way, and the
        area of each multipolygon / boundary relation (members' geometries
        assembled into rings with ``polygonize``; ``outer`` and empty roles
        minus ``inner``). Open ways are ignored (their area is defined by the
        relation they belong to), as are untagged closed ways that are members
        of a returned relation (recursed members, not water in their own right).
        Every closed way that carries a geometry counts as water, so ``data`` must
        carry geometry only for water; elements fetched with ``out center`` (the
        POIs of a batched query) carry none and are ignored, even when the same
        object comes again later with ``out geom``. Invalid rings are repaired with
        :func:`shapely.make_valid`. Polygons from
        a way and from a relation it belongs to may overlap: union them before
        measuring a total area. Ways come first, then relations, each by id.

    Raises
    ------
    InputError
        If ``data`` is not shaped like Overpass JSON.
    """
    return _water(_to_overpy(data)[0])  # plain elements have no geometry


def _water(result: overpy.Result) -> list[Polygon]:
    if not result.relations and not result.ways:
        return []
    import overpy

    relations = [
        r
        for r in result.relations
        if (r.tags or {}).get("type", "multipolygon") in _AREA_RELATION_TYPES
    ]
    member_way_ids = {
        m.ref for r in relations for m in r.members if isinstance(m, overpy.RelationWay)
    }
    polygons: list[Polygon] = []
    for way in sorted(result.ways, key=lambda w: w.id):
        if not way.tags and way.id in member_way_ids:
            continue
        points = _raw_points((way.attributes or {}).get("geometry"))
        if len(points) < 4 or any(lat is None or lon is None for lat, lon in points):
            continue
        ring = _segments(points)[0]
        if ring[0] != ring[-1]:
            continue  # open way
        polygons.extend(_polygon_parts(Polygon(ring)))
    for relation in sorted(relations, key=lambda r: r.id):
        outer: list[LineString] = []
        inner: list[LineString] = []
        for member in relation.members:
            if not isinstance(member, overpy.RelationWay) or not member.geometry:
                continue
            role = (member.role or "").strip().lower()
            target = inner if role == "inner" else outer if role in ("outer", "") else None
            if target is None:
                continue
            for run in _segments([(g.lat, g.lon) for g in member.geometry]):
                target.append(LineString(run))
        polygons.extend(_multipolygon_area(outer, inner))
    return polygons


# --------------------------------------------------------------------------- #
# Files
# --------------------------------------------------------------------------- #


#: Largest Overpass JSON file read. It is streamed (memory follows what is kept, not the
#: file), so the limit bounds the time: ~2 s per 100 MB. Larger areas: use an extract.
MAX_OVERPASS_JSON_BYTES = 2 * 1024**3
#: Most elements kept from one file (each costs ~2 kB once converted by overpy).
MAX_KEPT_ELEMENTS = 2_000_000
_CHUNK = 1 << 20
#: Files up to this size are parsed whole, by orjson: 2.5x faster than streaming them (and
#: than the standard library), holding ~7x the file in memory at the peak; larger files are
#: streamed. Measured on 100,000 Sioux Falls elements tiled (31 MB): 0.40 s against 1.1 s.
WHOLE_PARSE_MAX_BYTES = 64 * 1024**2


class OverpassJSON(dict):
    """A response read by :func:`read_overpass_json_file`: its kept elements, already
    checked against :data:`~stations_generator.formats.schemas.OVERPASS_ELEMENT`; ``simple`` when
    each passed :func:`_simply_valid` too."""

    checked = True
    simple = False


def has_geometry(element: dict[str, Any]) -> bool:
    """Whether an element carries ``out geom`` geometry (what the water assembler reads)."""
    if isinstance(element.get("geometry"), list):
        return True
    members = element.get("members")
    return isinstance(members, list) and any(
        isinstance(m, dict) and isinstance(m.get("geometry"), list) for m in members
    )


def _screen(element: object, index: int, path: Path, prefix: str) -> dict[str, Any]:
    """The checks every streamed element gets, kept or not (cheap: identity and tags)."""
    if (
        not isinstance(element, dict)
        or not isinstance(element.get("type"), str)
        or type(element.get("id")) is not int
    ):
        raise InputError(
            f"{path} is not an Overpass JSON response (element #{index} has no string 'type' "
            'and integer \'id\'); expected {"elements": [...]} or a list of {"type", "id", ...} objects'
        )
    tags = element.get("tags")
    if tags is not None and not isinstance(tags, dict):
        jsonio.validate(
            element, schemas.OVERPASS_ELEMENT, str(path), path_prefix=f"{prefix}[{index}]"
        )
    return element


def _first_bytes(path: Path, handle) -> tuple[bytes, bool]:
    """The first chunk (a UTF-8 BOM dropped) and whether the document is a bare list."""
    head = handle.read(_CHUNK)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the chunk's end
            byte = head[exc.start : exc.start + 1].hex().upper()
            raise InputError(
                f"{path} is not a text file in UTF-8 (byte 0x{byte} at offset {exc.start}); "
                "expected Overpass JSON"
            ) from None
    start = head.lstrip()[:1]
    if not start:
        raise InputError(f"{path} is empty; expected a saved Overpass [out:json] response")
    return head, start == b"["


# Keys of OVERPASS_ELEMENT whose values _plainly_valid leaves to the schema.
_DEEP_KEYS = frozenset({"members"})
# The members _plainly_valid checks the shape of; any other must be a scalar.
_SHAPED_KEYS = frozenset({"center", "bounds", "nodes", "geometry", "tags"})
_ONLY_STR = frozenset({str})
# The members of the two shapes _plainly_valid decides inline.
_SIMPLE_KEYS = frozenset({"type", "id", "lat", "lon", "center", "tags"})


def _flat(obj: dict) -> bool:
    """No list or object among ``obj``'s values."""
    return not any(isinstance(v, dict | list) for v in obj.values())


def _number_in(value: object, limit: float) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and -limit <= value <= limit
    )


def _in_range(value: object, limit: float) -> bool:
    """A JSON number (exactly an int or a float) within ``[-limit, limit]`` (NaN is not)."""
    kind = type(value)
    return (kind is float or kind is int) and -limit <= value <= limit  # type: ignore[operator]


def _simply_valid(element: dict) -> bool:
    """True for the two shapes of nearly every POI (a node; a way or relation with its
    centre) with values of exactly the JSON types; False sends an element to the
    member-by-member checks of :func:`_plainly_valid`."""
    if not _SIMPLE_KEYS.issuperset(element):
        return False
    if type(element.get("type")) is not str or type(element.get("id")) is not int:
        return False
    tags = element.get("tags", {})
    if type(tags) is not dict or not _ONLY_STR.issuperset(map(type, tags.values())):
        return False
    if ("lat" in element and not _in_range(element["lat"], 90)) or (
        "lon" in element and not _in_range(element["lon"], 180)
    ):
        return False
    if "center" not in element:
        return True
    centre = element["center"]
    return (
        type(centre) is dict
        and len(centre) == 2
        and _in_range(centre.get("lat"), 90)
        and _in_range(centre.get("lon"), 180)
    )


def _plainly_valid(element: dict) -> bool:
    """A fast sufficient test of :data:`~stations_generator.formats.schemas.OVERPASS_ELEMENT`.

    True only for the common ``out center tags`` shapes (type, id, lat/lon or
    center, tags) when every value is plainly right; anything else -- including
    every invalid element -- goes to the JSON Schema, which words the error. The
    schema check costs ~1 ms an element, longer than the rest of ``generate``.
    """
    if _simply_valid(element):
        return True
    kind, oid = element.get("type"), element.get("id")
    if not isinstance(kind, str) or not isinstance(oid, int) or isinstance(oid, bool):
        return False
    if not _DEEP_KEYS.isdisjoint(element):
        return False
    if "lat" in element and not _number_in(element["lat"], 90):
        return False
    if "lon" in element and not _number_in(element["lon"], 180):
        return False
    if "center" in element:
        c = element["center"]
        if not (
            isinstance(c, dict)
            and _number_in(c.get("lat"), 90)
            and _number_in(c.get("lon"), 180)
            and _flat(c)
        ):
            return False
    if "bounds" in element:
        b = element["bounds"]
        if not isinstance(b, dict) or not _flat(b):
            return False
        for key, limit in (("minlat", 90), ("maxlat", 90), ("minlon", 180), ("maxlon", 180)):
            if key in b and not _number_in(b[key], limit):
                return False
    if "nodes" in element:
        nodes = element["nodes"]
        if not isinstance(nodes, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in nodes
        ):
            return False
    if "geometry" in element:
        points = element["geometry"]
        if not isinstance(points, list):
            return False
        for pt in points:
            if pt is None:
                continue
            if not isinstance(pt, dict) or not _flat(pt):
                return False
            lat, lon = pt.get("lat"), pt.get("lon")
            if (lat is not None and not _number_in(lat, 90)) or (
                lon is not None and not _number_in(lon, 180)
            ):
                return False
    if "tags" in element:
        tags = element["tags"]
        if not isinstance(tags, dict):
            return False
        if not _ONLY_STR.issuperset(map(type, tags.values())):  # (the common case, in C)
            for v in tags.values():
                if not isinstance(v, str) and not (
                    isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                ):
                    return False
    # Any other member a scalar: the element nests at most three levels (geometry points).
    for key, value in element.items():
        if key not in _SHAPED_KEYS and isinstance(value, dict | list):
            return False
    return True


def read_overpass_json_file(
    path: Path, keep: Callable[[dict[str, Any]], bool] | None = None
) -> dict[str, Any]:
    """Stream an Overpass response saved on disk, keeping only the elements wanted.

    Parameters
    ----------
    path : pathlib.Path
        A JSON file holding an Overpass response envelope or a bare list of
        elements.
    keep : callable, optional
        Called with each raw element (a dict with a string ``type``, an integer ``id``
        and ``tags`` an object if present); only elements it accepts are kept. Default:
        keep all. A file of up to :data:`WHOLE_PARSE_MAX_BYTES` is parsed whole (the
        peak holds ~7x the file); a larger one, or one out of the ordinary (see
        :func:`_read_whole`), is read once, in chunks, and memory follows what is kept.

    Returns
    -------
    OverpassJSON
        ``{"elements": [...]}`` (plus ``remark`` if the response had one), ready for
        :func:`parse_overpass`, :func:`parse_overpass_json` or
        :func:`water_polygons_from_overpass_json`. Kept elements have been checked
        against :data:`~stations_generator.formats.schemas.OVERPASS_ELEMENT`.

    Raises
    ------
    InputError
        One line naming the file and the problem, if it is missing, larger than
        :data:`MAX_OVERPASS_JSON_BYTES`, unreadable, not UTF-8 JSON (``NaN`` and
        numbers that overflow a float included), not shaped like an Overpass response,
        an incomplete response (runtime-error remark), or has an element that breaks
        the schema (with its JSON path).
    """
    import ijson

    path = Path(path)
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "does not exist"
        raise InputError(f"Overpass JSON file {path} {what}")
    size = path.stat().st_size
    if size > MAX_OVERPASS_JSON_BYTES:
        raise InputError(
            f"{path} is {size / 1024**3:.1f} GiB, more than the "
            f"{MAX_OVERPASS_JSON_BYTES / 1024**3:.0f} GiB of Overpass JSON read; "
            "use an .osm.pbf extract of the area instead"
        )
    if size <= WHOLE_PARSE_MAX_BYTES:
        whole = _read_whole(path, keep)
        if whole is not None:
            return whole
    kept: list[dict[str, Any]] = []

    def take(index: int, element: object) -> None:
        element = _screen(element, index, path, prefix)
        if keep is None or keep(element):
            # A plainly valid element nests three levels at most; any other is measured
            # before the schema decides (and words any error).
            if not _plainly_valid(element):
                jsonio.check_depth(element, f"{path}: {prefix}[{index}]", "an OSM element", 16)
                jsonio.validate(
                    element, schemas.OVERPASS_ELEMENT, str(path), path_prefix=f"{prefix}[{index}]"
                )
            kept.append(element)
            if len(kept) > MAX_KEPT_ELEMENTS:
                raise InputError(
                    f"{path} holds more than {MAX_KEPT_ELEMENTS:,} elements to keep; split the "
                    "area or use an .osm.pbf extract"
                )

    index = -1
    try:
        with path.open("rb") as handle:
            head, bare = _first_bytes(path, handle)
            prefix = "$" if bare else "$.elements"
            reader = _TailReader(handle, head)
            # ijson's C parser builds one element at a time; nothing else is held.
            for index, element in enumerate(
                ijson.items(reader, "item" if bare else "elements.item", use_float=True)
            ):
                take(index, element)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ijson.JSONError, ijson.IncompleteJSONError) as exc:
        raise InputError(
            f"{path} is not valid JSON ({_one_line(str(exc), 120)}); "
            "expected a saved Overpass [out:json] response"
        ) from None
    except RecursionError:
        raise InputError(f"{path} is nested too deeply to be Overpass JSON") from None
    out = OverpassJSON(elements=kept)
    if bare:
        return out
    if index < 0 and not _has_elements_key(head):
        raise InputError(
            f"{path} is not an Overpass JSON response (a JSON object without an 'elements' "
            'list); expected {"elements": [...]} or a list of {"type", "id", ...} objects'
        )
    remark = _trailing_members(reader.tail).get("remark")
    if remark is not None:
        out["remark"] = remark
        problem = _runtime_error(out)
        if problem is not None:
            raise InputError(f"{path} holds an incomplete Overpass response ({problem}); re-run it")
    return out


# Members only elements outside _SIMPLE_KEYS have, as they appear in the JSON text.
_NOT_SIMPLE = (b'"geometry"', b'"members"', b'"nodes"', b'"bounds"')


def _read_whole(path: Path, keep: Callable[[dict[str, Any]], bool] | None) -> OverpassJSON | None:
    """:func:`read_overpass_json_file` of an ordinary file parsed whole by orjson, or None
    (see :func:`read_simple_document`)."""
    try:
        content = path.read_bytes()
    except OSError:
        return None
    return read_simple_document(content, keep)


def read_simple_document(
    content: bytes,
    keep: Callable[[dict[str, Any]], bool] | None,
    *,
    elements_last: bool = False,
) -> OverpassJSON | None:
    """:func:`read_overpass_json_file` of an ordinary document's bytes, or None.

    An ordinary document is UTF-8 JSON (no byte-order mark) holding a bare element list
    or an envelope with one ``elements`` list and no ``remark``, every element of the two
    shapes :func:`_simply_valid` decides. Those are values the streaming parser reads
    alike, so the result is the same; anything else (errors included, which the
    streaming reader words) gives None, and the file is streamed instead. With
    ``elements_last``, an envelope must also end with its ``elements`` member (the first
    part of :func:`split_in_two`).
    """
    import orjson

    # A member no simple element has (geometries, bounds, node lists, relations) or a
    # byte-order mark: stream it at once rather than parse it twice.
    if content.startswith(b"\xef\xbb\xbf") or any(m in content for m in _NOT_SIMPLE):
        return None
    try:
        data = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None
    if type(data) is list:
        elements = data
    elif (
        type(data) is dict
        and type(data.get("elements")) is list
        and "remark" not in data
        # Streamed, a repeated top-level "elements" yields the items of every copy.
        and content.count(b'"elements"') == 1
        and (not elements_last or next(reversed(data)) == "elements")
    ):
        elements = data["elements"]
    else:
        return None
    del data, content
    kept: list[dict[str, Any]] = []
    for element in elements:
        if type(element) is not dict or not _simply_valid(element):
            return None
        if keep is None or keep(element):
            kept.append(element)
    if len(kept) > MAX_KEPT_ELEMENTS:
        return None
    out = OverpassJSON(elements=kept)
    out.simple = True
    return out


# Between two elements of a list as Overpass (and json.dumps) writes it: a closing brace,
# a comma, and an element opening with its "type". Never inside a JSON string: there a
# '"' is escaped, so no '{' and blanks can stand before one.
# (JSON's four blanks only: a cut must not drop a byte that makes the whole invalid.)
_BETWEEN_ELEMENTS = re.compile(rb'\}[ \t\n\r]*,[ \t\n\r]*(?=\{[ \t\n\r]*"type"[ \t\n\r]*:)')
_LEADING_BLANKS = re.compile(rb"[ \t\n\r]*")
_LIST_END = re.compile(rb"\][ \t\n\r]*\Z")
_ENVELOPE_END = re.compile(rb"\][ \t\n\r]*\}[ \t\n\r]*\Z")


@dataclass(frozen=True)
class Halves:
    """An ordinary Overpass JSON document cut between two elements (:func:`split_in_two`).

    Each half is read on its own (:meth:`read_first`, :meth:`read_second`), e.g. in two
    processes. The cut is found in the text, so it is checked by reading: where both
    halves read, their elements are the document's, in order, and each half is what
    :func:`read_simple_document` gives for its elements. The first half reads only if
    the cut lies in the top-level list of elements: its closing brackets end the
    document at exactly that depth, outside any string, and its last member is
    ``elements``; the rest of the text then holds elements and the document's end.
    """

    content: bytes
    cut: int
    """Where the first half's text ends: just after its last element's ``}``."""
    resume: int
    """Where the second half's first element starts."""
    end: int
    """Where the list of elements closes (its ``]``)."""
    closing: bytes
    """What closes the first half: ``]``, or ``]}`` for an envelope."""

    def read_first(self, keep: Callable[[dict[str, Any]], bool] | None) -> OverpassJSON | None:
        """The first half's elements, as :func:`read_simple_document` gives them, or None."""
        text = self.content[: self.cut] + self.closing
        return read_simple_document(text, keep, elements_last=True)

    def read_second(self, keep: Callable[[dict[str, Any]], bool] | None) -> OverpassJSON | None:
        """The second half's elements (a bare list), or None."""
        text = b"[" + self.content[self.resume : self.end] + b"]"
        if b'"elements"' in text:  # as the whole document's one "elements" (above)
            return None
        return read_simple_document(text, keep)


def split_in_two(content: bytes, at: float = 0.5) -> Halves | None:
    """An ordinary Overpass JSON document cut between two elements near ``at`` of its length.

    Returns None when no cut is found from there on, or the document does not end with
    its element list (Overpass writes a ``remark`` after it). Whether the document is
    ordinary is found when its halves are read (:class:`Halves`).
    """
    start = _LEADING_BLANKS.match(content).end()  # type: ignore[union-attr]
    opening = content[start : start + 1]
    tail = max(0, len(content) - 4096)  # (where the end is: not the whole text)
    if opening == b"[":
        end, closing = _LIST_END.search(content, tail), b"]"
    elif opening == b"{":
        end, closing = _ENVELOPE_END.search(content, tail), b"]}"
    else:
        return None
    if end is None:
        return None
    gap = _BETWEEN_ELEMENTS.search(content, int(len(content) * at), end.start())
    if gap is None:
        return None
    return Halves(content, gap.start() + 1, gap.end(), end.start(), closing)


class _TailReader:
    """A binary file for ijson that starts with an already-read head and keeps the last
    bytes (at least ``keep_bytes`` of them, as whole chunks: no copy per read)."""

    def __init__(self, handle, head: bytes, keep_bytes: int = 2 * _CHUNK) -> None:
        self._handle, self._head, self._keep = handle, head, keep_bytes
        self._chunks: collections.deque[bytes] = collections.deque()
        self._kept = 0

    @property
    def tail(self) -> bytes:
        """The last bytes read: all of the last ``keep_bytes``, and maybe a few more."""
        return b"".join(self._chunks)

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson probes bytes vs text with read(0)
            return b""
        if self._head:
            chunk, self._head = self._head, b""
        else:
            chunk = self._handle.read(size if size and size > 0 else _CHUNK)
        if chunk:
            self._chunks.append(chunk)
            self._kept += len(chunk)
            while self._kept - len(self._chunks[0]) >= self._keep:
                self._kept -= len(self._chunks.popleft())
        return chunk


def _has_elements_key(head: bytes) -> bool:
    """Whether the document's first bytes open a top-level ``elements`` member."""
    import io

    import ijson

    opened = False
    try:
        for prefix, event, value in ijson.parse(io.BytesIO(head)):
            if opened:
                return event == "start_array"
            opened = prefix == "" and event == "map_key" and value == "elements"
    except (ijson.JSONError, ijson.IncompleteJSONError):
        pass
    return False


def _trailing_members(tail: bytes) -> dict[str, Any]:
    """The top-level members after the ``elements`` array (Overpass writes ``remark`` there).

    The tail of the file is tried from each ``]`` backwards: the first one after which
    the rest reads as the end of a JSON object closes the elements array.
    """
    text = tail.decode("utf-8", errors="replace")
    end = len(text)
    for _ in range(1000):
        end = text.rfind("]", 0, end)
        if end < 0:
            return {}
        rest = text[end + 1 :].lstrip().removeprefix(",")
        try:
            members = json.loads("{" + rest)
        except ValueError:
            continue
        return members if isinstance(members, dict) else {}
    return {}


# --------------------------------------------------------------------------- #
# HTTP client
# --------------------------------------------------------------------------- #


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Surface redirects as errors: following them would turn the POST into a GET."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> None:
        """Refuse every redirect; the caller reports it."""
        return None


@dataclass
class _Failure:
    """Why one endpoint gave up."""

    endpoint: str
    # "status", "timeout", "deadline", "runtime", "connection", "hard", "redirect",
    # "data" (the answer does not parse), "later" (Retry-After beyond the deadline)
    kind: str
    detail: str  # e.g. "429 Too Many Requests", "Connection refused", "0.3 s"
    tries: int
    out_of_time: str = ""  # set when the deadline left no time for another try

    def describe(self) -> str:
        tries = f"{self.tries} {'try' if self.tries == 1 else 'tries'}"
        url = self.endpoint
        text = {
            "status": f"Overpass at {url} answered {self.detail} after {tries}",
            "timeout": f"Overpass at {url} timed out after {self.detail} ({tries})",
            "deadline": f"Overpass at {url} gave no complete answer within the {self.detail} "
            f"deadline ({tries})",
            "runtime": f"Overpass at {url} reported '{self.detail}' after {tries}",
            "connection": f"could not connect to Overpass at {url} ({self.detail}; {tries})",
            "redirect": f"Overpass at {url} redirects to {self.detail}",
            "data": f"Overpass at {url} returned data that cannot be used ({self.detail}); "
            "nothing was cached",
            "later": f"Overpass at {url} answered {self.detail}",
        }.get(self.kind, f"Overpass at {url} answered {self.detail}")
        return text + self.out_of_time

    @property
    def hint(self) -> str:
        return {
            "status": "wait a few minutes, or pass --overpass-url to use another instance",
            "timeout": "try again later or raise --overpass-timeout",
            "deadline": "try again later or raise --overpass-timeout",
            "runtime": "try a smaller area, raise --overpass-timeout, or try again later",
            "connection": "check your internet connection, or pass --overpass-url "
            "to use another instance",
            "redirect": "pass the new URL with --overpass-url",
            "hard": "check the Overpass URL (--overpass-url)",
            "data": "try again later, or pass --overpass-url to use another instance",
            "later": "try again then, or pass --overpass-url to use another instance",
        }[self.kind]


def _status_text(code: int, reason: str | None = None) -> str:
    try:
        phrase = HTTPStatus(code).phrase
    except ValueError:
        phrase = reason or ""
    return f"{code} {phrase}".strip()


def _overpass_error_text(body: bytes) -> str:
    """The ``Error: ...`` lines of an Overpass HTML error page, as one line."""
    text = body.decode("utf-8", errors="replace")
    messages = []
    for paragraph in re.findall(r"<p\b[^>]*>(.*?)</p>", text, flags=re.S | re.I):
        if re.search(r"<strong[^>]*>\s*Error\s*</strong>", paragraph, flags=re.I):
            plain = html.unescape(re.sub(r"<[^>]+>", "", paragraph))
            plain = re.sub(r"^\s*Error\s*:\s*", "", plain)
            messages.append(_one_line(plain, 200))
    if messages:
        return _one_line(" / ".join(messages))
    plain = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<\?.*?\?>", "", text, flags=re.S)))
    return _one_line(plain, 200) or "(empty body)"


def _checked(data: dict[str, Any]) -> dict[str, Any]:
    """The answer itself, once :func:`parse_overpass_json` accepts it."""
    parse_overpass_json(data)
    return data


class OverpassClient:
    """Query Overpass with retries, endpoint fallback, a deadline and an on-disk cache.

    Parameters
    ----------
    endpoints : sequence of str
        Interpreter URLs (``.../api/interpreter``), tried in order.
    timeout : float
        The deadline of one call (:meth:`fetch`), in seconds: every try at every
        endpoint and every wait between them must end within it, however slowly a
        server sends. A ``Retry-After`` beyond what is left fails that endpoint at once.
    try_timeout : float, optional
        A shorter limit for each single try, after which the try is abandoned and
        retried (default: none, a try may use what is left of ``timeout``).
    max_tries : int
        Requests per endpoint before moving on to the next one.
    backoff, max_backoff : float
        The wait before retry ``k`` (0-based) is ``min(backoff * 2**k, max_backoff)``
        seconds; a ``Retry-After`` header replaces it (honoured as sent).
    cache_dir : pathlib.Path, optional
        Where responses are cached; ``None`` means :func:`default_cache_dir`.
    use_cache : bool
        ``False`` neither reads nor writes the cache.
    user_agent : str
        Sent as ``User-Agent``.
    sleep : callable
        Called with the number of seconds to wait between tries.
    log : callable, optional
        Receives short progress messages (cache hits, fallbacks; and the waits, unless
        ``notify`` is given).
    notify : callable, optional
        Receives one line for each wait: a request still unanswered after a second,
        a pause before a retry, a dropped cache entry.
    status : callable, optional
        Receives a status line to draw in place while waiting (None clears it).

    Raises
    ------
    InputError
        If no endpoint is given, an endpoint is not an http(s) URL, or a numeric
        option is out of range.
    """

    def __init__(
        self,
        endpoints: Sequence[str] = DEFAULT_ENDPOINTS,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        try_timeout: float | None = None,
        max_tries: int = 4,
        backoff: float = 2.0,
        max_backoff: float = 120.0,
        cache_dir: Path | None = None,
        use_cache: bool = True,
        user_agent: str = DEFAULT_USER_AGENT,
        sleep: Callable[[float], None] = time.sleep,
        log: Callable[[str], None] | None = None,
        notify: Callable[[str], None] | None = None,
        status: Callable[[str | None], None] | None = None,
    ) -> None:
        if isinstance(endpoints, str):
            endpoints = (endpoints,)
        self.endpoints: tuple[str, ...] = tuple(endpoints)
        if not self.endpoints:
            raise InputError("no Overpass URL given; pass --overpass-url")
        for url in self.endpoints:
            if urllib.parse.urlsplit(url).scheme not in ("http", "https") or not (
                urllib.parse.urlsplit(url).netloc
            ):
                raise InputError(
                    f"Overpass URL {url!r} is not an http(s) URL; expected something like "
                    "https://overpass-api.de/api/interpreter"
                )
        for value in (timeout, try_timeout):
            if value is not None and not (value > 0 and math.isfinite(value)):
                raise InputError(
                    f"Overpass timeout must be a positive number of seconds, not {value}"
                )
        if max_tries < 1:
            raise InputError(f"Overpass max tries must be at least 1, not {max_tries}")
        if backoff < 0 or max_backoff < 0:
            raise InputError("Overpass backoff times cannot be negative")
        self.timeout = float(timeout)
        self.try_timeout = float(try_timeout) if try_timeout is not None else None
        self.max_tries = int(max_tries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.use_cache = use_cache
        self.user_agent = user_agent
        self._sleep = sleep
        self._log = log
        self._waits = Waits(say=notify or log, show=status)
        self._cache = JsonCache(self.cache_dir, log=log, warn=notify or log)
        self._opener = urllib.request.build_opener(_NoRedirect)

    # -- public --------------------------------------------------------------

    def cache_path(self, query: str) -> Path:
        """Return the cache file for ``query``: ``<cache_dir>/<sha256(query)>.json``.

        Parameters
        ----------
        query : str
            The Overpass QL text.

        Returns
        -------
        pathlib.Path
            The cache file (which may not exist).
        """
        return self._cache.path(query)

    def fetch(self, query: str) -> dict[str, Any]:
        """Run ``query`` and return Overpass's JSON response.

        The answer is cached only once :func:`parse_overpass_json` accepts it; a
        cached answer it rejects is dropped and fetched again.

        Parameters
        ----------
        query : str
            Overpass QL asking for JSON output (``[out:json]``).

        Returns
        -------
        dict
            The decoded response (``version``, ``osm3s``, ``elements``, ...),
            from the cache when it holds this query.

        Raises
        ------
        OverpassError
            One line naming the endpoint(s), what went wrong and the fix, when
            every endpoint failed or the deadline passed, Overpass rejected the query
            (HTTP 400), or the answer is not Overpass JSON or holds unusable data.
        """
        return self.fetch_parsed(query, _checked)

    def fetch_parsed(self, query: str, parse: Callable[[dict[str, Any]], T]) -> T:
        """Run ``query`` and return ``parse(answer)``; cache the answer only if it parses.

        Parameters
        ----------
        query : str
            Overpass QL asking for JSON output.
        parse : callable
            Turns the decoded answer into what the caller needs, raising
            :class:`~stations_generator.errors.InputError` for data it cannot use
            (e.g. :func:`parse_overpass_json`). An answer it rejects is never
            cached: from the network it fails that endpoint (the next one is tried),
            from the cache the entry is dropped and fetched again.

        Returns
        -------
        object
            What ``parse`` returned.

        Raises
        ------
        OverpassError
            See :meth:`fetch`.
        """
        if self.use_cache:
            hit = self._cache.load(query, parse, "Overpass response")
            if hit is not None:
                return hit[0]
        deadline = Deadline(self.timeout)
        failures: list[_Failure] = []
        for index, endpoint in enumerate(self.endpoints):
            if failures and deadline.expired:
                failures[-1].out_of_time = "; no time was left for the other instances"
                break
            outcome = self._fetch_from(endpoint, query, deadline, parse)
            if isinstance(outcome, _Failure):
                failures.append(outcome)
                if index + 1 < len(self.endpoints) and not deadline.expired:
                    self._say(f"{outcome.describe()}; trying {self.endpoints[index + 1]}")
                continue
            result, raw = outcome
            if self.use_cache:
                self._cache.store(query, raw)
            return result
        parts = [failure.describe() for failure in failures]
        hints = list(dict.fromkeys(failure.hint for failure in failures))
        raise OverpassError("; ".join(parts) + "; " + "; ".join(hints) + ".")

    def fetch_elements(self, query: str) -> list[OsmElement]:
        """Run ``query`` and parse the answer with :func:`parse_overpass_json`.

        Parameters
        ----------
        query : str
            Overpass QL asking for JSON output.

        Returns
        -------
        list of OsmElement
            See :func:`parse_overpass_json`.

        Raises
        ------
        OverpassError
            See :meth:`fetch`.
        """
        return self.fetch_parsed(query, parse_overpass_json)

    # -- internals -----------------------------------------------------------

    def _say(self, message: str) -> None:
        if self._log is not None:
            self._log(message)

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after  # the server's own word; a deadline check follows
        return min(self.backoff * 2 ** (attempt - 1), self.max_backoff)

    def _post(self, endpoint: str, query: str, deadline: Deadline) -> Reply:
        """One POST, bounded by the call's deadline (and ``try_timeout``)."""
        request = urllib.request.Request(
            endpoint,
            data=urllib.parse.urlencode({"data": query}).encode("utf-8"),
            headers={
                "User-Agent": self.user_agent,
                "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
                "Accept": "application/json",
            },
            method="POST",
        )
        limit = deadline.remaining()
        if self.try_timeout is not None and self.try_timeout < limit:
            try:
                return exchange(
                    self._opener,
                    request,
                    Deadline(self.try_timeout),
                    label=f"Overpass at {endpoint}",
                    waits=self._waits,
                )
            except DeadlineExceeded:
                raise _TryTimeout from None
        return exchange(
            self._opener, request, deadline, label=f"Overpass at {endpoint}", waits=self._waits
        )

    def _fetch_from(
        self, endpoint: str, query: str, deadline: Deadline, parse: Callable[[dict[str, Any]], T]
    ) -> tuple[T, bytes] | _Failure:
        """Up to ``max_tries`` requests to one endpoint, within ``deadline``."""
        for attempt in range(1, self.max_tries + 1):
            retry_after: float | None = None
            try:
                reply = self._post(endpoint, query, deadline)
            except _TryTimeout:
                assert self.try_timeout is not None
                failure = _Failure(endpoint, "timeout", f"{self.try_timeout:g} s", attempt)
                what = f"timed out after {self.try_timeout:g} s"
            except DeadlineExceeded:
                return _Failure(endpoint, "deadline", f"{self.timeout:g} s", attempt)
            except Exception as exc:  # classified below; anything else re-raised
                classified = network_failure(exc)
                if classified is None:
                    raise
                kind, detail = classified
                failure = _Failure(endpoint, "connection", detail, attempt)
                if kind == "unreachable":
                    return failure  # nothing listens there: next endpoint
                what = f"connection error ({detail})"
            else:
                status = reply.status
                if 200 <= status < 300:
                    data = self._decode(endpoint, reply.body)
                    remark = _runtime_error(data)
                    if remark is None:
                        try:
                            return parse(data), reply.body
                        except InputError as exc:
                            detail = _one_line(str(exc), 200)
                            return _Failure(endpoint, "data", detail, attempt)
                    failure = _Failure(endpoint, "runtime", remark, attempt)
                    what = f"'{remark}'"
                elif status in RETRY_STATUSES:
                    text = _status_text(status)
                    failure = _Failure(endpoint, "status", text, attempt)
                    what = text
                    retry_after = parse_retry_after(reply.headers.get("Retry-After"))
                elif status == 400:
                    raise OverpassError(
                        f"Overpass at {endpoint} rejected the query (400 Bad Request): "
                        f"{_overpass_error_text(reply.body)}; check any custom tag filter or "
                        "Overpass QL you passed"
                    )
                elif 300 <= status < 400:
                    location = reply.headers.get("Location") or "another URL"
                    return _Failure(
                        endpoint, "redirect", urllib.parse.urljoin(endpoint, location), attempt
                    )
                else:
                    return _Failure(endpoint, "hard", _status_text(status), attempt)
            if attempt == self.max_tries:
                return failure
            wait = self._wait(attempt, retry_after)
            left = deadline.remaining()
            if wait > left:
                if retry_after is not None:
                    return _Failure(
                        endpoint,
                        "later",
                        f"{failure.detail} and asks to be asked again "
                        f"{come_back_at(retry_after)}, beyond the {self.timeout:g} s deadline "
                        "(--overpass-timeout)",
                        attempt,
                    )
                failure.out_of_time = (
                    f"; the next try would start after the {self.timeout:g} s deadline"
                )
                return failure
            self._waits.pause(
                wait,
                f"Overpass {what} at {endpoint}, retrying in {wait:.1f} s "
                f"(try {attempt + 1}/{self.max_tries})",
                self._sleep,
            )
        raise AssertionError("unreachable")  # pragma: no cover

    def _decode(self, endpoint: str, body: bytes) -> dict[str, Any]:
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            start = _one_line(body[:40].decode("utf-8", errors="replace"), 40)
            more = " ..." if len(body) > 40 else ""
            raise OverpassError(
                f"Overpass at {endpoint} returned a response that is not JSON "
                f"(starts with {start + more!r}); the query must ask for [out:json]"
            ) from None
        problem = _shape_problem(data) if isinstance(data, dict) else "not a JSON object"
        if problem is not None:
            raise OverpassError(
                f"Overpass at {endpoint} returned JSON that is not an Overpass response "
                f"({problem}); check the Overpass URL (--overpass-url)"
            )
        return data


class _TryTimeout(Exception):
    """One try outlived ``try_timeout`` (the call's deadline may leave time for more)."""
