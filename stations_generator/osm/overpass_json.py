"""The one parser of Overpass JSON: elements into records, ``out geom`` water into polygons.

* :func:`parse_overpass_json` turns a response (or a bare list of elements) into
  :class:`~stations_generator.core.elements.OsmElement` records.
* :func:`water_polygons_from_overpass_json` turns an ``out geom`` water response
  into shapely polygons.
* :func:`parse_overpass` gives both from one overpy conversion.

Elements of the common ``out center tags`` shapes are read as they are ("plain"
elements); only the others go through overpy. Responses are usually fetched by
:class:`~stations_generator.osm.overpass.OverpassClient` or read from disk by
:func:`~stations_generator.osm.overpass_file.read_overpass_json_file`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polygonize, unary_union

from stations_generator.core.elements import OsmElement
from stations_generator.errors import InputError
from stations_generator.formats import jsonio, schemas

# overpy is imported where elements it converts turn up, not here: 13 ms of every
# command, and most responses (the POIs of ``out center tags``) never need it.
if TYPE_CHECKING:
    import overpy

__all__ = [
    "one_line",
    "parse_overpass",
    "parse_overpass_json",
    "runtime_error",
    "shape_problem",
    "water_polygons_from_overpass_json",
]

_TYPE_ORDER = {"node": 0, "way": 1, "relation": 2}
_AREA_RELATION_TYPES = frozenset({"multipolygon", "boundary"})
_ONLY_STR = frozenset({str})


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


def shape_problem(data: object) -> str | None:
    """Describe why ``data`` is not Overpass JSON, or return None when it is.

    Parameters
    ----------
    data : object
        A decoded JSON document.

    Returns
    -------
    str or None
        A short phrase (e.g. ``"element #3 is not an object"``), or None when ``data``
        is an envelope with an ``elements`` list, or a bare list, of objects with a
        string ``type`` and an integer ``id``.
    """
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


def runtime_error(data: object) -> str | None:
    """Overpass's ``remark`` when it reports a runtime error (timeout, out of memory).

    Parameters
    ----------
    data : object
        A decoded Overpass response.

    Returns
    -------
    str or None
        The remark on one line, or None when there is no runtime-error remark (the
        response is complete).
    """
    if isinstance(data, dict):
        remark = data.get("remark")
        if isinstance(remark, str) and remark.strip().lower().startswith("runtime error"):
            return one_line(remark)
    return None


def one_line(text: str, limit: int = 300) -> str:
    """``text`` with its runs of blanks as single spaces, cut to ``limit`` characters.

    Parameters
    ----------
    text : str
        Any text, e.g. an error message or an HTML page.
    limit : int
        The most characters returned; longer text ends with ``...``.

    Returns
    -------
    str
        The text on one line.
    """
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
    problem = None if checked else shape_problem(data)
    if problem is not None:
        raise InputError(f"{source} is not Overpass JSON: {problem}")
    remark = runtime_error(data)
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
        # Every element passed the file reader's simple-shape check: no members to mend, and of the plain keys,
        # so a node, way or relation is plain.
        for element in merged.values():
            (plain if element["type"] in _PLAIN_TYPES else deep).append(element)
        return _overpy_result(deep), plain
    for element in map(_mended, merged.values()):
        (plain if _is_plain(element) else deep).append(element)
    return _overpy_result(deep), plain


def _mended(element: dict[str, Any]) -> dict[str, Any]:
    """``element`` with the null points of its members' geometries as ``(None, None)``
    points (a copy; the element itself when it has none)."""
    members = element.get("members")
    if not (
        isinstance(members, list)
        and any(
            isinstance(m, dict) and isinstance(m.get("geometry"), list) and None in m["geometry"]
            for m in members
        )
    ):
        return element
    element = dict(element)
    element["members"] = [
        {
            **m,
            "geometry": [p if p is not None else {"lat": None, "lon": None} for p in m["geometry"]],
        }
        if isinstance(m, dict) and isinstance(m.get("geometry"), list)
        else m
        for m in members
    ]
    return element


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
        raise InputError(f"malformed element in Overpass JSON: {one_line(str(exc))}") from exc


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
        or a bare list of its elements, e.g. from
        :func:`~stations_generator.osm.overpass_file.read_overpass_json_file` or
        :meth:`~stations_generator.osm.overpass.OverpassClient.fetch`.

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
    """:func:`_records` of plain elements that passed the file reader's simple-shape
    check (``OverpassJSON.simple``), appended
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

    With ``simple``, every plain element passed the simple-shape check (its tags are
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
