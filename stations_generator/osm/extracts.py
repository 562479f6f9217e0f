"""Offline readers for OSM extracts (PBF, XML, compressed XML, o5m, OPL).

Everything here reads a local file with pyosmium, so it works without network
access and on extracts of any size that fits the node-location cache in memory.

* :func:`read_points` reduces tagged nodes, ways and relations to one point
  each (ways and relations: the centre of their bounding box, as Overpass
  ``out center`` does) and returns :class:`~stations_generator.core.elements.OsmElement`
  records, the same shape as the Overpass readers.
* :func:`read_areas` assembles closed ways and multipolygon / boundary relations
  into shapely (Multi)Polygons with osmium's area assembler.
* :func:`read_lines` turns ways into shapely LineStrings.
* :func:`read_water` is :func:`read_areas` with :func:`is_water`.

Extracts are often clipped at their edges, so ways and relations may reference
nodes (or ways) that are not in the file. These readers use the members that
exist and skip objects for which nothing usable is left; they never fail on
such data. Any file osmium cannot read becomes an
:class:`~stations_generator.errors.InputError` with a one-line message.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from stations_generator.core.catalogue import Prefilter
from stations_generator.core.elements import OsmElement
from stations_generator.errors import InputError

# osmium is imported where a file is read, not here: 19 ms of every command that reads
# no extract (Overpass JSON in, or no OSM data at all).
if TYPE_CHECKING:
    import osmium

__all__ = [
    "BBox",
    "EXTRACT_SUFFIXES",
    "Prefilter",
    "WATER_PREFILTER",
    "TagPredicate",
    "WATER_TAGS",
    "is_water",
    "read_areas",
    "read_lines",
    "read_points",
    "read_water",
]

log = logging.getLogger(__name__)

TagPredicate = Callable[[Mapping[str, str]], bool]
"""Decides from an object's tags whether to keep it.

The readers pass a read-only Mapping that is valid only during the call (a view
on osmium's data, to avoid copying every object's tags): look tags up, but copy
with ``dict(tags)`` if you need them afterwards. Kept objects' tags are returned
as plain dicts.
"""

BBox = tuple[float, float, float, float]
"""``(min_lon, min_lat, max_lon, max_lat)`` in WGS84 degrees."""

# Suffix (lower case) -> osmium format string. Longest suffixes are matched first.
_FORMATS: dict[str, str] = {
    ".osm.pbf": "pbf",
    ".pbf": "pbf",
    ".osm": "osm",
    ".osm.gz": "osm.gz",
    ".osm.bz2": "osm.bz2",
    ".o5m": "o5m",
    ".opl": "opl",
}

EXTRACT_SUFFIXES: tuple[str, ...] = tuple(_FORMATS)
"""File name endings :func:`read_points` and friends accept (case-insensitive)."""

_SUFFIX_HINT = "give an .osm, .osm.bz2, .osm.gz or .osm.pbf file"

WATER_TAGS: tuple[tuple[str, str], ...] = (
    ("natural", "water"),
    ("natural", "bay"),
    ("waterway", "riverbank"),
    ("waterway", "dock"),
    ("landuse", "reservoir"),
    ("landuse", "basin"),
)
"""``(key, value)`` pairs that mark an area as water (see :func:`is_water`)."""


_TYPE_ORDER = {"node": 0, "way": 1, "relation": 2}


def is_water(tags: Mapping[str, str]) -> bool:
    """Tell whether an object's tags mark it as a body of water.

    Parameters
    ----------
    tags : Mapping[str, str]
        The object's tags.

    Returns
    -------
    bool
        True if any ``(key, value)`` of :data:`WATER_TAGS` is among the tags.
    """
    return any(tags.get(key) == value for key, value in WATER_TAGS)


WATER_PREFILTER = Prefilter(frozenset(WATER_TAGS))
"""The :class:`Prefilter` of :func:`is_water`."""


# ---------------------------------------------------------------------------
# Opening files and turning osmium failures into InputError
# ---------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _open(path: Path | str) -> osmium.io.File:
    """Check the path and suffix and return an osmium file with an explicit format."""
    import osmium.filter

    shown = os.fspath(path)
    name = Path(shown).name.lower()
    fmt = next(
        (_FORMATS[s] for s in sorted(_FORMATS, key=len, reverse=True) if name.endswith(s)),
        None,
    )
    if fmt is None:
        suffix = "".join(Path(shown).suffixes) or "none"
        raise InputError(
            _one_line(
                f"'{shown}' is not an OSM extract (unknown suffix '{suffix}'); {_SUFFIX_HINT}"
            )
        )
    p = Path(shown)
    if not p.exists():
        raise InputError(_one_line(f"OSM extract '{shown}' does not exist; check the path"))
    if not p.is_file():
        raise InputError(_one_line(f"OSM extract '{shown}' is not a file; {_SUFFIX_HINT}"))
    return osmium.io.File(shown, fmt)


def _read_error(path: Path | str, exc: BaseException) -> InputError:
    reason = _one_line(str(exc)) or type(exc).__name__
    return InputError(
        _one_line(
            f"cannot read '{os.fspath(path)}' as an OSM extract ({reason}); "
            f"check that the file is complete, or {_SUFFIX_HINT}"
        )
    )


def way_coords(way: Any) -> list[tuple[float, float]]:
    """A way's (lon, lat) vertices: nodes without a location (clipped extracts) are
    skipped, and repeated vertices dropped."""
    coords: list[tuple[float, float]] = []
    for node in way.nodes:
        loc = node.location
        if loc.valid():
            xy = (loc.lon, loc.lat)
            if not coords or coords[-1] != xy:
                coords.append(xy)
    return coords


def _iterate(processor: osmium.FileProcessor, path: Path | str) -> Iterator[Any]:
    """Iterate a FileProcessor, turning osmium's read errors into InputError.

    Only errors raised while osmium reads the file are converted; exceptions in
    the caller's loop body (e.g. in a tag predicate) propagate unchanged.
    """
    it = iter(processor)
    while True:
        try:
            obj = next(it)
        except StopIteration:
            return
        except (RuntimeError, OSError, ValueError) as exc:
            raise _read_error(path, exc) from exc
        yield obj


def _check_bbox(bbox: BBox | None) -> BBox | None:
    if bbox is None:
        return None
    try:
        min_lon, min_lat, max_lon, max_lat = (float(v) for v in bbox)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"bbox must be four numbers (min_lon, min_lat, max_lon, max_lat), got {bbox!r}"
        ) from exc
    if not all(math.isfinite(v) for v in (min_lon, min_lat, max_lon, max_lat)) or not (
        min_lon <= max_lon and min_lat <= max_lat
    ):
        raise InputError(
            f"bbox {bbox!r} is not (min_lon, min_lat, max_lon, max_lat) with min <= max"
        )
    return (min_lon, min_lat, max_lon, max_lat)


def _in_bbox(lon: float, lat: float, bbox: BBox) -> bool:
    return bbox[0] <= lon <= bbox[2] and bbox[1] <= lat <= bbox[3]


# ---------------------------------------------------------------------------
# Points
# ---------------------------------------------------------------------------

# (min_lon, min_lat, max_lon, max_lat) while accumulating a bounding box.
_Extent = list[float]


def _new_extent() -> _Extent:
    return [math.inf, math.inf, -math.inf, -math.inf]


def _add_point(ext: _Extent, lon: float, lat: float) -> None:
    if lon < ext[0]:
        ext[0] = lon
    if lat < ext[1]:
        ext[1] = lat
    if lon > ext[2]:
        ext[2] = lon
    if lat > ext[3]:
        ext[3] = lat


def _add_extent(ext: _Extent, other: _Extent) -> None:
    _add_point(ext, other[0], other[1])
    _add_point(ext, other[2], other[3])


def _way_extent(way: Any) -> _Extent | None:
    """Bounding box of a way's nodes that have a location, or None if none has."""
    ext = _new_extent()
    found = False
    for node in way.nodes:
        loc = node.location
        if loc.valid():
            _add_point(ext, loc.lon, loc.lat)
            found = True
    return ext if found else None


def _stored_extent(way: Any, storage: Any) -> _Extent | None:
    """Like :func:`_way_extent`, with node locations looked up in ``storage``."""
    ext = _new_extent()
    found = False
    for node in way.nodes:
        try:
            loc = storage.get(node.ref)
        except KeyError:
            continue
        if loc.valid():
            _add_point(ext, loc.lon, loc.lat)
            found = True
    return ext if found else None


def _all(items: Any) -> Iterator[Any]:
    """The items of an osmium tag or member list, stopping at its length.

    pyosmium ends such an iteration by throwing a C++ exception, which costs more
    (~8 µs) than copying a few tags; taking ``len`` items never reaches that end.
    """
    return islice(items, len(items))


def _tags(obj: Any) -> dict[str, str]:
    return dict(_all(obj.tags))


class _TagView(Mapping[str, str]):
    """A read-only Mapping over an osmium tag list, without copying it.

    Building a dict for each of tens of thousands of tagged objects costs more
    than reading the file; predicates mostly do a few ``get``/``in`` lookups,
    which this answers from osmium directly. Valid only while the object is.
    """

    __slots__ = ("_tags",)

    def __init__(self, tags: Any) -> None:
        self._tags = tags

    def __getitem__(self, key: str) -> str:
        return self._tags[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._tags

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self._tags.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return (tag.k for tag in _all(self._tags))

    def __len__(self) -> int:
        return len(self._tags)


def _keeps(keep: TagPredicate, obj: Any) -> bool:
    """Call ``keep`` on an object's tags through a :class:`_TagView`."""
    return bool(keep(_TagView(obj.tags)))


def read_points(
    path: Path, keep: TagPredicate, bbox: BBox | None = None, *, prefilter: Prefilter | None = None
) -> list[OsmElement]:
    """Read every node, way and relation whose tags satisfy ``keep``, as one point each.

    A node becomes its location; a way the centre of the bounding box of its
    node locations; a relation the centre of the bounding box of its members
    (member nodes, member ways' nodes, and the node and way members of member
    relations, one level deep) -- what Overpass ``out center`` returns. In a
    clipped extract, ways and relations use the members that exist and are
    skipped if none exists.

    The file is read in two streaming passes (relations, then nodes and ways
    with a node-location cache), and ``keep`` is only called for tagged objects.

    Parameters
    ----------
    path : Path
        An OSM extract; see :data:`EXTRACT_SUFFIXES`.
    keep : TagPredicate
        Called with each tagged object's tags (see :data:`TagPredicate`); True keeps it.
    bbox : BBox, optional
        ``(min_lon, min_lat, max_lon, max_lat)``; if given, only elements whose
        point lies inside it (edges included) are returned.
    prefilter : Prefilter, optional
        Tags ``keep`` needs (see :class:`Prefilter`): osmium then drops every
        other object in C++, and the member ways of kept relations are read
        in a third pass over ways only. Same result, a fraction of the time.

    Returns
    -------
    list[OsmElement]
        Sorted by type (node, way, relation) and then id.

    Raises
    ------
    InputError
        If the file is missing, has an unknown suffix, or osmium cannot read it,
        or if ``bbox`` is malformed.
    """
    import osmium.filter

    source = _open(path)
    box_ = _check_bbox(bbox)

    # Pass 1: relations. Which relations to keep, and which members they need.
    kept_rels: dict[int, dict[str, str]] = {}
    rel_nodes: dict[int, list[int]] = {}
    rel_ways: dict[int, list[int]] = {}
    rel_children: dict[int, list[int]] = {}
    tag_filter = (
        prefilter.osmium_filter() if prefilter is not None else osmium.filter.EmptyTagFilter()
    )
    for rel in _iterate(
        osmium.FileProcessor(source, osmium.osm.RELATION).with_filter(tag_filter),
        path,
    ):
        if not _keeps(keep, rel):
            continue
        kept_rels[rel.id] = _tags(rel)
        nodes, ways, children = _split_members(rel.members)
        rel_nodes[rel.id] = nodes
        rel_ways[rel.id] = ways
        rel_children[rel.id] = children

    # Pass 1b (only if needed): node and way members of member relations.
    child_ids = {c for cs in rel_children.values() for c in cs}
    child_nodes: dict[int, list[int]] = {}
    child_ways: dict[int, list[int]] = {}
    if child_ids:
        for rel in _iterate(osmium.FileProcessor(source, osmium.osm.RELATION), path):
            if rel.id in child_ids:
                nodes, ways, _ = _split_members(rel.members)
                child_nodes[rel.id] = nodes
                child_ways[rel.id] = ways
    for rid, children in rel_children.items():
        for child in children:
            rel_nodes[rid].extend(child_nodes.get(child, ()))
            rel_ways[rid].extend(child_ways.get(child, ()))

    needed_ways = {w for ws in rel_ways.values() for w in ws}

    # Pass 2: nodes and ways, with every node location cached by osmium (in C++).
    # Untagged nodes are dropped before Python sees them; their locations stay
    # in the cache for ways and relation members.
    out: list[OsmElement] = []
    way_extents: dict[int, _Extent] = {}
    # With a prefilter, nodes and ways are filtered in C++ too: by its exact tags
    # here, by its bare keys (if any) in pass 2b; the member ways of kept relations
    # that neither let through come from a pass over ways only (pass 3).
    processor = osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY).with_locations()
    if prefilter is not None:
        processor = processor.with_filter(prefilter.exact_filter())
    else:
        processor = processor.with_filter(
            osmium.filter.EmptyTagFilter().enable_for(osmium.osm.NODE)
        )
    seen: set[tuple[bool, int]] = set()

    def take(obj: Any, extent: Callable[[Any], _Extent | None]) -> None:
        if obj.is_node():
            loc = obj.location
            if loc.valid() and _keeps(keep, obj):
                out.append(OsmElement("node", obj.id, loc.lat, loc.lon, _tags(obj)))
            return
        needed = obj.id in needed_ways
        wanted = len(obj.tags) > 0 and _keeps(keep, obj)
        if not (needed or wanted):
            return
        ext = extent(obj)
        if ext is None:
            return
        if needed:
            way_extents[obj.id] = ext
        if wanted:
            out.append(OsmElement("way", obj.id, *_centre(ext), _tags(obj)))

    for obj in _iterate(processor, path):
        if prefilter is not None and prefilter.keys:
            seen.add((obj.is_node(), obj.id))
        take(obj, _way_extent)
    storage = processor.node_location_storage

    if prefilter is not None and prefilter.keys:
        # Pass 2b: objects with one of the bare keys (e.g. diplomatic~^consulate).
        keyed = osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY).with_filter(
            osmium.filter.KeyFilter(*sorted(prefilter.keys))
        )
        for obj in _iterate(keyed, path):
            if (obj.is_node(), obj.id) not in seen:
                take(obj, lambda way: _stored_extent(way, storage))

    # Relations: combine member node locations and member way extents.
    missing = needed_ways - way_extents.keys() if prefilter is not None else set()
    if missing:
        # Pass 3: the member ways the tag filter dropped, located from pass 2's cache.
        ways = osmium.FileProcessor(source, osmium.osm.WAY).with_filter(
            osmium.filter.IdFilter(missing)
        )
        for way in _iterate(ways, path):
            ext = _stored_extent(way, storage)
            if ext is not None:
                way_extents[way.id] = ext
    for rid, tags in kept_rels.items():
        ext = _new_extent()
        found = False
        for nid in rel_nodes[rid]:
            try:
                loc = storage.get(nid)
            except KeyError:
                continue
            if loc.valid():
                _add_point(ext, loc.lon, loc.lat)
                found = True
        for wid in rel_ways[rid]:
            wext = way_extents.get(wid)
            if wext is not None:
                _add_extent(ext, wext)
                found = True
        if found:
            out.append(OsmElement("relation", rid, *_centre(ext), tags))

    if box_ is not None:
        out = [e for e in out if _in_bbox(e.lon, e.lat, box_)]
    out.sort(key=lambda e: (_TYPE_ORDER[e.osm_type], e.osm_id))
    return out


def _split_members(members: Any) -> tuple[list[int], list[int], list[int]]:
    nodes: list[int] = []
    ways: list[int] = []
    rels: list[int] = []
    for m in _all(members):
        if m.type == "n":
            nodes.append(m.ref)
        elif m.type == "w":
            ways.append(m.ref)
        elif m.type == "r":
            rels.append(m.ref)
    return nodes, ways, rels


def _centre(ext: _Extent) -> tuple[float, float]:
    """(lat, lon) of the centre of an extent, in OsmElement's argument order."""
    return (ext[1] + ext[3]) / 2.0, (ext[0] + ext[2]) / 2.0


# ---------------------------------------------------------------------------
# Areas and lines
# ---------------------------------------------------------------------------


class _RelationKeep:
    """First-pass area filter: let only relations satisfying ``keep`` be assembled.

    It remembers the kept relations' full tags (osmium drops ``type`` from the
    assembled area) and holds back any exception from ``keep`` so it is not
    mistaken for a file-read error.
    """

    def __init__(self, keep: TagPredicate) -> None:
        self.keep = keep
        self.tags: dict[int, dict[str, str]] = {}
        self.error: BaseException | None = None

    def relation(self, rel: Any) -> bool:
        if self.error is not None:
            return True
        try:
            kept = _keeps(self.keep, rel)
        except Exception as exc:  # re-raised by read_areas after the read
            self.error = exc
            return True
        if kept:
            self.tags[rel.id] = _tags(rel)
        return not kept  # True filters the relation out


def _polygonal(geom: BaseGeometry) -> BaseGeometry | None:
    """A valid, non-empty Polygon or MultiPolygon from ``geom``, or None."""
    if geom.is_empty:
        return None
    if not geom.is_valid:
        geom = shapely.make_valid(geom)
        parts = [
            g
            for g in getattr(geom, "geoms", [geom])
            if isinstance(g, Polygon | MultiPolygon) and not g.is_empty
        ]
        polys: list[Polygon] = []
        for g in parts:
            polys.extend(g.geoms if isinstance(g, MultiPolygon) else [g])
        if not polys:
            return None
        geom = MultiPolygon(polys)
        if not geom.is_valid:
            return None
    if isinstance(geom, MultiPolygon) and len(geom.geoms) == 1:
        geom = geom.geoms[0]
    if not isinstance(geom, Polygon | MultiPolygon) or geom.area <= 0:
        return None
    return geom


def read_areas(
    path: Path, keep: TagPredicate, bbox: BBox | None = None, *, prefilter: Prefilter | None = None
) -> list[tuple[str, dict[str, str], BaseGeometry]]:
    """Read closed ways and multipolygon / boundary relations as polygons.

    Geometry is assembled by osmium's area assembler. Broken or incomplete
    areas (e.g. relations cut by the extract's edge) are skipped, never
    raised; a geometry GEOS finds invalid is repaired with ``make_valid`` and
    kept only if a polygonal part remains.

    Note that OSM data may tag the member ways of a boundary relation with the
    same ``boundary``/``admin_level`` tags; closed ones then come back as areas
    of their own. Require e.g. a ``name`` in ``keep`` to get only real zones.

    Parameters
    ----------
    path : Path
        An OSM extract; see :data:`EXTRACT_SUFFIXES`.
    keep : TagPredicate
        Called with the tags of each closed way and each multipolygon/boundary
        relation (including its ``type`` tag); see :data:`TagPredicate`.
    bbox : BBox, optional
        If given, only areas that intersect this box are returned (unclipped).
    prefilter : Prefilter, optional
        Tags ``keep`` needs (see :class:`Prefilter`): relations and assembled
        areas without them are dropped in C++. Same result, less time.

    Returns
    -------
    list[tuple[str, dict[str, str], BaseGeometry]]
        ``("way/123" or "relation/45", tags, Polygon or MultiPolygon)`` in WGS84
        lon/lat, sorted by type (ways first) and then id.

    Raises
    ------
    InputError
        If the file is missing, has an unknown suffix, or osmium cannot read it,
        or if ``bbox`` is malformed.
    """
    import osmium.filter

    source = _open(path)
    box_ = _check_bbox(bbox)
    clip = box(*box_) if box_ is not None else None

    rel_filter = _RelationKeep(keep)
    processor = osmium.FileProcessor(source)
    if prefilter is not None:
        # The area's tags are its way's or its relation's (but ``type``).
        processor = processor.with_areas(prefilter.osmium_filter(), rel_filter)
    else:
        processor = processor.with_areas(rel_filter)
    processor = processor.with_filter(osmium.filter.EntityFilter(osmium.osm.AREA))
    if prefilter is not None and "type" not in {k for k, _ in prefilter.pairs} | prefilter.keys:
        processor = processor.with_filter(prefilter.osmium_filter())
    factory = osmium.geom.WKBFactory()
    found: list[tuple[int, int, str, dict[str, str], BaseGeometry]] = []
    for area in _iterate(processor, path):
        if area.from_way():
            if not len(area.tags) or not _keeps(keep, area):
                continue
            tags = _tags(area)
            kind = "way"
        else:
            rel_tags = rel_filter.tags.get(area.orig_id())
            if rel_tags is None:
                continue
            tags = rel_tags
            kind = "relation"
        try:
            # osmium writes hex WKB; GEOS parses binary WKB much faster than hex.
            geom = shapely.from_wkb(bytes.fromhex(factory.create_multipolygon(area)))
        except (RuntimeError, ValueError, shapely.errors.GEOSException) as exc:
            log.debug("skipping %s/%d: %s", kind, area.orig_id(), exc)
            continue
        geom = _polygonal(geom)
        if geom is None:
            log.debug("skipping %s/%d: no valid polygon", kind, area.orig_id())
            continue
        if clip is not None and not geom.intersects(clip):
            continue
        oid = area.orig_id()
        found.append((_TYPE_ORDER[kind], oid, f"{kind}/{oid}", tags, geom))
    if rel_filter.error is not None:
        raise rel_filter.error

    found.sort(key=lambda t: (t[0], t[1]))
    return [(key, tags, geom) for _, _, key, tags, geom in found]


def read_lines(
    path: Path, keep: TagPredicate, bbox: BBox | None = None, *, prefilter: Prefilter | None = None
) -> list[tuple[str, dict[str, str], LineString]]:
    """Read ways whose tags satisfy ``keep`` as LineStrings.

    Each line runs through the way's nodes that exist in the extract (nodes
    missing from a clipped extract are left out; repeated consecutive
    positions are merged). Ways with fewer than 2 distinct positions left are
    skipped.

    Parameters
    ----------
    path : Path
        An OSM extract; see :data:`EXTRACT_SUFFIXES`.
    keep : TagPredicate
        Called with each tagged way's tags (see :data:`TagPredicate`).
    bbox : BBox, optional
        If given, only lines that intersect this box are returned (unclipped).
    prefilter : Prefilter, optional
        Tags ``keep`` needs (see :class:`Prefilter`), checked in C++.

    Returns
    -------
    list[tuple[str, dict[str, str], LineString]]
        ``("way/123", tags, line)`` in WGS84 lon/lat, sorted by way id.

    Raises
    ------
    InputError
        If the file is missing, has an unknown suffix, or osmium cannot read it,
        or if ``bbox`` is malformed.
    """
    import osmium.filter

    source = _open(path)
    box_ = _check_bbox(bbox)
    clip = box(*box_) if box_ is not None else None

    processor = (
        osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY)
        .with_locations()
        .with_filter(
            prefilter.osmium_filter() if prefilter is not None else osmium.filter.EmptyTagFilter()
        )
        .with_filter(osmium.filter.EntityFilter(osmium.osm.WAY))
    )
    found: list[tuple[int, dict[str, str], LineString]] = []
    for way in _iterate(processor, path):
        if not _keeps(keep, way):
            continue
        coords = way_coords(way)
        if len(coords) < 2:
            continue
        line = LineString(coords)
        if clip is not None and not line.intersects(clip):
            continue
        found.append((way.id, _tags(way), line))
    found.sort(key=lambda t: t[0])
    return [(f"way/{wid}", tags, line) for wid, tags, line in found]


def read_water(path: Path, bbox: BBox | None = None) -> list[BaseGeometry]:
    """Read the water areas of an extract (see :data:`WATER_TAGS`).

    Parameters
    ----------
    path : Path
        An OSM extract; see :data:`EXTRACT_SUFFIXES`.
    bbox : BBox, optional
        If given, only water areas intersecting this box are returned (unclipped).

    Returns
    -------
    list[BaseGeometry]
        Valid Polygons / MultiPolygons in WGS84 lon/lat, in :func:`read_areas` order.

    Raises
    ------
    InputError
        If the file is missing, has an unknown suffix, or osmium cannot read it.
    """
    return [geom for _, _, geom in read_areas(path, is_water, bbox, prefilter=WATER_PREFILTER)]
