"""Offline readers for OSM extracts (PBF, XML, compressed XML, o5m, OPL).

Everything here reads a local file with pyosmium, so it works without network
access. Each reader keeps every node location of the file (~16 bytes a node): the
commands read whole countries through :func:`~stations_generator.osm.one_pass.read_layers`
instead, which stores only the nodes its layers need, in three C++-filtered reads.

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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shapely
from shapely.geometry import LineString, box
from shapely.geometry.base import BaseGeometry

from stations_generator.core.catalogue import Prefilter
from stations_generator.core.elements import OsmElement
from stations_generator.osm.extract_io import (
    EXTRACT_SUFFIXES,
    TYPE_ORDER,
    BBox,
    Extent,
    TagPredicate,
    centre,
    check_bbox,
    in_bbox,
    iterate,
    keeps,
    open_extract,
    polygonal,
    relation_extent,
    split_members,
    stored_extent,
    tags_of,
    way_coords,
    way_extent,
)

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

WATER_TAGS: tuple[tuple[str, str], ...] = (
    ("natural", "water"),
    ("natural", "bay"),
    ("waterway", "riverbank"),
    ("waterway", "dock"),
    ("landuse", "reservoir"),
    ("landuse", "basin"),
)
"""``(key, value)`` pairs that mark an area as water (see :func:`is_water`)."""


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
# Points
# ---------------------------------------------------------------------------


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
    source = open_extract(path)
    box_ = check_bbox(bbox)
    rels = _point_relations(source, path, keep, prefilter)
    reader = _PointReader(keep, {w for _, _, ws in rels.values() for w in ws})
    storage = reader.read(source, path, prefilter)
    out = reader.out
    for rid, (tags, nodes, ways) in rels.items():
        ext = relation_extent(nodes, ways, storage, reader.way_extents)
        if ext is not None:
            out.append(OsmElement("relation", rid, *centre(ext), tags))
    if box_ is not None:
        out = [e for e in out if in_bbox(e.lon, e.lat, box_)]
    out.sort(key=lambda e: (TYPE_ORDER[e.osm_type], e.osm_id))
    return out


def _point_relations(
    source: osmium.io.File, path: Path, keep: TagPredicate, prefilter: Prefilter | None
) -> dict[int, tuple[dict[str, str], list[int], list[int]]]:
    """Pass 1: the kept relations' tags, member nodes and member ways.

    The node and way members of their member relations (one level deep) join their
    own, read in a second relation pass only when there are any.
    """
    import osmium.filter

    kept: dict[int, tuple[dict[str, str], list[int], list[int]]] = {}
    rel_children: dict[int, list[int]] = {}
    tag_filter = (
        prefilter.osmium_filter() if prefilter is not None else osmium.filter.EmptyTagFilter()
    )
    for rel in iterate(
        osmium.FileProcessor(source, osmium.osm.RELATION).with_filter(tag_filter),
        path,
    ):
        if not keeps(keep, rel):
            continue
        nodes, ways, children = split_members(rel.members)
        kept[rel.id] = (tags_of(rel), nodes, ways)
        rel_children[rel.id] = children

    # Pass 1b (only if needed): node and way members of member relations.
    child_ids = {c for cs in rel_children.values() for c in cs}
    child_members: dict[int, tuple[list[int], list[int]]] = {}
    if child_ids:
        for rel in iterate(osmium.FileProcessor(source, osmium.osm.RELATION), path):
            if rel.id in child_ids:
                nodes, ways, _ = split_members(rel.members)
                child_members[rel.id] = (nodes, ways)
    for rid, children in rel_children.items():
        _, nodes, ways = kept[rid]
        for child in children:
            child_nodes, child_ways = child_members.get(child, ((), ()))
            nodes.extend(child_nodes)
            ways.extend(child_ways)
    return kept


class _PointReader:
    """Pass 2 of :func:`read_points`: the kept nodes and ways as points, and the
    extents of the ways the kept relations need (``needed_ways``)."""

    def __init__(self, keep: TagPredicate, needed_ways: set[int]) -> None:
        self.keep = keep
        self.needed_ways = needed_ways
        self.out: list[OsmElement] = []
        self.way_extents: dict[int, Extent] = {}

    def take(self, obj: Any, extent: Callable[[Any], Extent | None]) -> None:
        """Keep a node or way as a point, and note a needed way's extent."""
        if obj.is_node():
            loc = obj.location
            if loc.valid() and keeps(self.keep, obj):
                self.out.append(OsmElement("node", obj.id, loc.lat, loc.lon, tags_of(obj)))
            return
        needed = obj.id in self.needed_ways
        wanted = len(obj.tags) > 0 and keeps(self.keep, obj)
        if not (needed or wanted):
            return
        ext = extent(obj)
        if ext is None:
            return
        if needed:
            self.way_extents[obj.id] = ext
        if wanted:
            self.out.append(OsmElement("way", obj.id, *centre(ext), tags_of(obj)))

    def read(self, source: osmium.io.File, path: Path, prefilter: Prefilter | None) -> Any:
        """Read the nodes and ways; return osmium's node-location storage."""
        import osmium.filter

        # Every node location is cached by osmium (in C++). Untagged nodes are dropped
        # before Python sees them; their locations stay in the cache for ways and
        # relation members. With a prefilter, nodes and ways are filtered in C++ too: by
        # its exact tags here, by its bare keys (if any) in pass 2b; the member ways of
        # kept relations that neither let through come from a pass over ways only
        # (pass 3).
        processor = osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY)
        processor = processor.with_locations()
        if prefilter is not None:
            processor = processor.with_filter(prefilter.exact_filter())
        else:
            processor = processor.with_filter(
                osmium.filter.EmptyTagFilter().enable_for(osmium.osm.NODE)
            )
        keyed = prefilter is not None and bool(prefilter.keys)
        seen: set[tuple[bool, int]] = set()
        for obj in iterate(processor, path):
            if keyed:
                seen.add((obj.is_node(), obj.id))
            self.take(obj, way_extent)
        storage = processor.node_location_storage
        if keyed:
            # Pass 2b: objects with one of the bare keys (e.g. diplomatic~^consulate).
            by_key = osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY).with_filter(
                osmium.filter.KeyFilter(*sorted(prefilter.keys))  # type: ignore[union-attr]
            )
            for obj in iterate(by_key, path):
                if (obj.is_node(), obj.id) not in seen:
                    self.take(obj, lambda way: stored_extent(way, storage))
        missing = self.needed_ways - self.way_extents.keys() if prefilter is not None else set()
        if missing:
            # Pass 3: the member ways the tag filter dropped, located from pass 2's cache.
            ways = osmium.FileProcessor(source, osmium.osm.WAY).with_filter(
                osmium.filter.IdFilter(missing)
            )
            for way in iterate(ways, path):
                ext = stored_extent(way, storage)
                if ext is not None:
                    self.way_extents[way.id] = ext
        return storage


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
            kept = keeps(self.keep, rel)
        except Exception as exc:  # re-raised by read_areas after the read
            self.error = exc
            return True
        if kept:
            self.tags[rel.id] = tags_of(rel)
        return not kept  # True filters the relation out


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
    import osmium

    source = open_extract(path)
    box_ = check_bbox(bbox)
    clip = box(*box_) if box_ is not None else None
    rel_filter = _RelationKeep(keep)
    factory = osmium.geom.WKBFactory()
    found: list[tuple[int, int, str, dict[str, str], BaseGeometry]] = []
    for area in iterate(_area_processor(source, rel_filter, prefilter), path):
        if area.from_way():
            if not len(area.tags) or not keeps(keep, area):
                continue
            tags = tags_of(area)
            kind = "way"
        else:
            rel_tags = rel_filter.tags.get(area.orig_id())
            if rel_tags is None:
                continue
            tags = rel_tags
            kind = "relation"
        geom = _area_geometry(factory, area, kind)
        if geom is None or (clip is not None and not geom.intersects(clip)):
            continue
        oid = area.orig_id()
        found.append((TYPE_ORDER[kind], oid, f"{kind}/{oid}", tags, geom))
    if rel_filter.error is not None:
        raise rel_filter.error

    found.sort(key=lambda t: (t[0], t[1]))
    return [(key, tags, geom) for _, _, key, tags, geom in found]


def _area_processor(
    source: osmium.io.File, rel_filter: _RelationKeep, prefilter: Prefilter | None
) -> osmium.FileProcessor:
    """The assembled areas of ``source``: relations as ``rel_filter`` lets through, and
    (with ``prefilter``) only areas with one of its tags."""
    import osmium.filter

    processor = osmium.FileProcessor(source)
    if prefilter is not None:
        # The area's tags are its way's or its relation's (but ``type``).
        processor = processor.with_areas(prefilter.osmium_filter(), rel_filter)
    else:
        processor = processor.with_areas(rel_filter)
    processor = processor.with_filter(osmium.filter.EntityFilter(osmium.osm.AREA))
    if prefilter is not None and "type" not in {k for k, _ in prefilter.pairs} | prefilter.keys:
        processor = processor.with_filter(prefilter.osmium_filter())
    return processor


def _area_geometry(factory: Any, area: Any, kind: str) -> BaseGeometry | None:
    """An assembled area's valid (Multi)Polygon, or None (logged) when there is none."""
    try:
        # osmium writes hex WKB; GEOS parses binary WKB much faster than hex.
        geom = shapely.from_wkb(bytes.fromhex(factory.create_multipolygon(area)))
    except (RuntimeError, ValueError, shapely.errors.GEOSException) as exc:
        log.debug("skipping %s/%d: %s", kind, area.orig_id(), exc)
        return None
    geom = polygonal(geom)
    if geom is None:
        log.debug("skipping %s/%d: no valid polygon", kind, area.orig_id())
    return geom


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

    source = open_extract(path)
    box_ = check_bbox(bbox)
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
    for way in iterate(processor, path):
        if not keeps(keep, way):
            continue
        coords = way_coords(way)
        if len(coords) < 2:
            continue
        line = LineString(coords)
        if clip is not None and not line.intersects(clip):
            continue
        found.append((way.id, tags_of(way), line))
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
