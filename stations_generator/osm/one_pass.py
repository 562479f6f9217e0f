"""Read several layers of an extract in one pass: points, areas and lines together.

:func:`read_layers` gives, for the whole file, exactly what
:func:`~stations_generator.osm.extracts.read_points`, ``read_areas`` and ``read_lines``
give one by one (same objects, tags, geometry, order), while osmium reads the file
once for all of them:

* the area assembler's relation pass also picks the relations the points need
  and the transit routes (:func:`~stations_generator.osm.routes.read_routes`'s,
  whose stops are then looked up in the main pass's node locations); a second
  relation pass runs only if a points relation has relation members;
* one main pass over nodes and ways, with node locations and area assembly, lets
  through (in C++) only objects with an exact tag of one of the layers' prefilters;
  Python sorts each into the layers whose predicate keeps it;
* a points prefilter's bare keys (``diplomatic~^consulate``) get a pass of their
  own, and member ways of kept relations that no layer wanted a way-only pass with
  an id filter -- both C++-filtered, so few objects reach Python.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import osmium
import osmium.filter
import shapely

from stations_generator import settings
from stations_generator.core.catalogue import Prefilter
from stations_generator.core.elements import OsmElement
from stations_generator.osm.extract_io import (
    TYPE_ORDER,
    Extent,
    all_items,
    centre,
    iterate,
    open_extract,
    polygonal,
    relation_extent,
    split_members,
    stored_extent,
    tags_of,
    way_coords,
    way_extent,
)
from stations_generator.osm.routes import is_route, make_routes, stop_nodes

__all__ = ["read_layers"]


class _Relations:
    """The area assembler's first-pass filter, which also collects the points' relations,
    the transit routes, and the member ways of the area relations (into ``way_ids``).

    A relation's members are read from osmium once, whatever wants them (a route is
    often a point too, and its members are many).
    """

    def __init__(
        self,
        points_keep,
        area_keeps: Mapping[str, Any],
        route_kinds: tuple[str, ...] | None,
        way_ids: osmium.IdTracker,
    ) -> None:
        self.points_keep = points_keep
        self.area_keeps = area_keeps
        self.route_kinds = route_kinds
        self.way_ids = way_ids
        self.point_rels: dict[int, tuple[dict[str, str], list, list, list]] = {}
        self.area_tags: dict[str, dict[int, dict[str, str]]] = {n: {} for n in area_keeps}
        self.routes: dict[int, tuple[dict[str, str], list[int]]] = {}
        self.error: BaseException | None = None

    def relation(self, rel: Any) -> bool:
        if self.error is not None:
            return True
        try:
            if not len(rel.tags):
                return True
            tags = tags_of(rel)  # one copy: several predicates look at it
            point = self.points_keep is not None and self.points_keep(tags)
            route = self.route_kinds is not None and is_route(tags, self.route_kinds)
            assemble = [name for name, keep in self.area_keeps.items() if keep(tags)]
            if not (point or route or assemble):
                return True
            members = [(m.type, m.ref, m.role) for m in all_items(rel.members)]
            if point:
                self.point_rels[rel.id] = (dict(tags), *_split(members))
            if route:
                self.routes[rel.id] = (dict(tags), stop_nodes(members))
            for name in assemble:
                self.area_tags[name][rel.id] = dict(tags)
            if assemble:  # its member ways go to the assembler
                for kind, ref, _ in members:
                    if kind == "w":
                        self.way_ids.add_way(ref)
        except Exception as exc:  # re-raised after the read, not as a read error
            self.error = exc
            return True
        return not assemble


def _split(members: list[tuple[str, int, str]]) -> tuple[list[int], list[int], list[int]]:
    """Node, way and relation member ids (as :func:`~stations_generator.osm.extract_io.split_members`)."""
    nodes: list[int] = []
    ways: list[int] = []
    rels: list[int] = []
    for kind, ref, _ in members:
        if kind == "n":
            nodes.append(ref)
        elif kind == "w":
            ways.append(ref)
        elif kind == "r":
            rels.append(ref)
    return nodes, ways, rels


def _union_filter(prefilters) -> Any:
    pairs = frozenset().union(*(p.pairs for p in prefilters))
    keys = frozenset().union(*(p.keys for p in prefilters))
    return Prefilter(pairs, keys)


ON_DISK_FROM_MB = settings.DEFAULT_LOCATIONS_ON_DISK_MB
"""Extracts from this size up keep their node locations in a file, not in memory.

On disk (``sparse_file_array``, in the temporary folder) the page cache holds what
fits. Env ``STATIONS_GENERATOR_LOCATIONS_ON_DISK_MB`` changes the threshold
(:func:`stations_generator.settings.locations_on_disk_mb`).
"""

IN_MEMORY = "sparse_mmap_array" if "sparse_mmap_array" in osmium.index.map_types() else "flex_mem"
"""The in-memory node-location index: an anonymous mmap grown in place (Linux), else
``flex_mem``. On 256 tiles of Liechtenstein (15 M nodes) storing and looking up the
nodes cost 3.5 s CPU and 345 MB peak, against 3.9-4.4 s and 569 MB with ``flex_mem``.
"""


@contextlib.contextmanager
def location_index(path: Path) -> Iterator[str]:
    """The osmium node-location storage for ``path``: in memory, or a temporary file."""
    limit = settings.locations_on_disk_mb()
    if os.path.getsize(path) < limit * 1e6:
        yield IN_MEMORY
        return
    with tempfile.TemporaryDirectory(prefix="stations-generator-") as tmp:
        yield f"sparse_file_array,{Path(tmp) / 'locations.idx'}"


def _main_pass(
    source, index, manager, way_ids: osmium.IdTracker, exact_pairs: list[tuple[str, str]]
) -> Iterator[Any]:
    """Pass 2: nodes and ways with node locations, and the assembled areas.

    Only the ways of ``way_ids`` get past the first filter: the location handler
    looks up the nodes of those alone, and the assembler builds areas of those alone
    (pyosmium's ``with_areas`` hands it every closed way -- every building -- before
    any filter); of the nodes only those with an exact tag come out.
    """
    locations = osmium.NodeLocationsForWays(index)
    locations.ignore_errors()
    ways = way_ids.id_filter()
    ways.enable_for(osmium.osm.WAY)
    # Untagged nodes (most of the file) leave at the cheap EmptyTagFilter: the TagFilter
    # costs more per node, even on one without tags.
    if exact_pairs:
        tail = [osmium.filter.EmptyTagFilter(), osmium.filter.TagFilter(*exact_pairs)]
    else:
        tail = [osmium.filter.EntityFilter(osmium.osm.WAY)]
    for node_filter in tail:
        node_filter.enable_for(osmium.osm.NODE)
    handlers: list[Any] = [ways, locations]
    buffer = None
    if manager is not None:
        # Areas (way or relation) keep the filter the readers give them: an exact tag.
        area_filter = (
            osmium.filter.TagFilter(*exact_pairs)
            if exact_pairs
            else osmium.filter.EntityFilter(osmium.osm.NOTHING)
        )
        buffer = osmium.BufferIterator(area_filter)
        handlers.append(manager.second_pass_to_buffer(buffer))
    with osmium.io.Reader(source, osmium.osm.NODE | osmium.osm.WAY) as reader:
        for obj in osmium.OsmFileIterator(reader, *handlers, *tail):
            yield obj
            if buffer:
                yield from buffer
    if buffer:
        yield from buffer


def read_layers(
    path: Path,
    points: tuple[Any, Prefilter] | None = None,
    areas: Mapping[str, tuple[Any, Prefilter]] | None = None,
    lines: Mapping[str, tuple[Any, Prefilter]] | None = None,
    routes: tuple[str, ...] | None = None,
) -> dict[str, list]:
    """Read the points, area layers and line layers of a whole extract together.

    Parameters
    ----------
    path : Path
        An OSM extract.
    points : (predicate, Prefilter), optional
        What :func:`~stations_generator.osm.extracts.read_points` would be given.
    areas, lines : mapping of name -> (predicate, Prefilter), optional
        Each as :func:`~stations_generator.osm.extracts.read_areas` /
        :func:`~stations_generator.osm.extracts.read_lines` would be given it.
    routes : tuple of str, optional
        Route kinds, as :func:`~stations_generator.osm.routes.read_routes` is given
        them: the route relations come from the relation pass, their stops' locations
        from the main pass's location index.

    Returns
    -------
    dict[str, list]
        ``"points"`` and ``"routes"`` (if asked) and each area and line layer's
        name, each holding what its reader returns for the whole file (no bounding
        box).

    Raises
    ------
    InputError
        As the readers do.
    """
    source = open_extract(path)
    with location_index(Path(path)) as storage:
        return _LayerReader(path, source, points, areas, lines, routes).read(storage)


class _LayerReader:
    """One read of an extract for :func:`read_layers`: the passes and what they find."""

    def __init__(self, path, source, points, areas, lines, routes) -> None:
        self.path, self.source, self.routes = path, source, routes
        self.areas: dict[str, tuple[Any, Prefilter]] = dict(areas or {})
        self.lines: dict[str, tuple[Any, Prefilter]] = dict(lines or {})
        self.points_keep, self.points_pre = points if points is not None else (None, None)
        used = [pre for _, pre in [*self.areas.values(), *self.lines.values()]]
        if self.points_pre is not None:
            used.append(self.points_pre)
        self.exact = _union_filter(used)
        # The way ids in an osmium IdTracker, which the main pass filters ways by.
        self.way_ids = osmium.IdTracker()
        area_keeps = {n: keep for n, (keep, _) in self.areas.items()}
        self.rels = _Relations(self.points_keep, area_keeps, routes, self.way_ids)
        self.manager = osmium.area.AreaManager() if self.areas else None
        self.out_points: list[OsmElement] = []
        self.way_extents: dict[int, Extent] = {}
        self.found_areas: dict[str, list] = {n: [] for n in self.areas}
        self.found_lines: dict[str, list] = {n: [] for n in self.lines}
        self.factory = osmium.geom.WKBFactory()
        self.seen: set[tuple[bool, int]] = set()
        self.needed_ways: set[int] = set()
        self.index: Any = None

    def read(self, storage: str) -> dict[str, list]:
        """All the passes, with node locations in ``storage``; the layers found."""
        self._first_pass()
        if self.points_keep is not None:
            self._add_children(list(self.rels.point_rels))
        for wid in self.needed_ways:
            self.way_ids.add_way(wid)
        self.index = osmium.index.create_map(storage)
        self._sort_main_pass()
        result: dict[str, list] = {}
        if self.routes is not None:
            result["routes"] = self._routes()
        if self.points_keep is not None:
            result["points"] = self._points()
        for n, rows in self.found_areas.items():
            rows.sort(key=lambda t: (t[0], t[1]))
            result[n] = [(key, tags, geom) for _, _, key, tags, geom in rows]
        for n, rows in self.found_lines.items():
            rows.sort(key=lambda t: t[0])
            result[n] = [(f"way/{wid}", tags, line) for wid, tags, line in rows]
        return result

    def _first_pass(self) -> None:
        """Pass 1 (ways and relations, no locations): the ids of the ways with an exact
        tag, the points' relations, and the area relations (handed to the assembler's
        first pass) with their member ways."""
        way_filter = Prefilter(self.exact.pairs).exact_filter()
        way_filter.enable_for(osmium.osm.WAY)
        rel_pairs = self.exact.pairs | ({("type", "route")} if self.routes is not None else set())
        rel_filter = Prefilter(rel_pairs).exact_filter()
        rel_filter.enable_for(osmium.osm.RELATION)
        first = osmium.FileProcessor(self.source, osmium.osm.WAY | osmium.osm.RELATION)
        first = first.with_filter(way_filter).with_filter(rel_filter)
        first = first.with_filter(self.rels)
        if self.manager is not None:
            first = first.with_filter(self.manager.first_pass_handler())
        for obj in iterate(first, self.path):
            if obj.is_way():
                self.way_ids.add_way(obj.id)
            # (an area relation's member ways went into way_ids in rels.relation)
        if self.rels.error is not None:
            raise self.rels.error

    def _sort_main_pass(self) -> None:
        """Pass 2: each node, way and area to the layers that keep it."""
        exact_pairs = sorted(self.exact.pairs)
        main = _main_pass(self.source, self.index, self.manager, self.way_ids, exact_pairs)
        for obj in iterate(main, self.path):
            if obj.is_area():
                self._area_of(obj)
                continue
            tags = tags_of(obj)
            if self.points_keep is not None:
                if self.points_pre.keys:
                    self.seen.add((obj.is_node(), obj.id))
                self._point_of(obj, way_extent, tags)
            if self.lines and obj.is_way() and tags:
                self._line_of(obj, tags)

    def _point_of(self, obj: Any, extent, tags: dict[str, str]) -> None:
        if obj.is_node():
            loc = obj.location
            if loc.valid() and self.points_keep(tags):
                self.out_points.append(OsmElement("node", obj.id, loc.lat, loc.lon, dict(tags)))
            return
        needed = obj.id in self.needed_ways
        wanted = len(tags) > 0 and self.points_keep(tags)
        if not (needed or wanted):
            return
        ext = extent(obj)
        if ext is None:
            return
        if needed:
            self.way_extents[obj.id] = ext
        if wanted:
            self.out_points.append(OsmElement("way", obj.id, *centre(ext), dict(tags)))

    def _line_of(self, way: Any, tags: dict[str, str]) -> None:
        kept = [n for n, (keep, _) in self.lines.items() if keep(tags)]
        if not kept:
            return
        coords = way_coords(way)
        if len(coords) < 2:
            return
        line = shapely.LineString(coords)
        for n in kept:
            self.found_lines[n].append((way.id, dict(tags), line))

    def _area_of(self, area: Any) -> None:
        oid = area.orig_id()
        tags = None
        if area.from_way():
            if not len(area.tags):
                return
            tags = tags_of(area)
            kept = [(n, None) for n, (keep, _) in self.areas.items() if keep(tags)]
            kind = "way"
        else:
            kept = [(n, self.rels.area_tags[n].get(oid)) for n in self.areas]
            kept = [(n, t) for n, t in kept if t is not None]
            kind = "relation"
        if not kept:
            return
        try:
            # osmium writes hex WKB; GEOS parses binary WKB much faster than hex.
            geom = shapely.from_wkb(bytes.fromhex(self.factory.create_multipolygon(area)))
        except (RuntimeError, ValueError, shapely.errors.GEOSException):
            return
        geom = polygonal(geom)
        if geom is None:
            return
        for n, rel_tags in kept:
            self.found_areas[n].append(
                (TYPE_ORDER[kind], oid, f"{kind}/{oid}", dict(tags or rel_tags), geom)
            )

    def _add_children(self, rids: list[int]) -> None:
        """Member relations' node and way members join their parents' (one level)."""
        kept = [self.rels.point_rels[r] for r in rids]
        child_ids = {c for _, _, _, cs in kept for c in cs}
        if child_ids:
            children: dict[int, tuple[list, list]] = {}
            found = osmium.FileProcessor(self.source, osmium.osm.RELATION).with_filter(
                osmium.filter.IdFilter(child_ids)
            )
            for rel in iterate(found, self.path):
                if rel.id in child_ids:
                    nodes, ways, _ = split_members(rel.members)
                    children[rel.id] = (nodes, ways)
            for _, nodes, ways, cs in kept:
                for c in cs:
                    cn, cw = children.get(c, ((), ()))
                    nodes.extend(cn)
                    ways.extend(cw)
        self.needed_ways.update(w for _, _, ws, _ in kept for w in ws)

    def _routes(self) -> list:
        """The routes, their stops located from the main pass's index."""
        where: dict[int, tuple[float, float]] = {}
        for _, stops in self.rels.routes.values():
            for nid in stops:
                if nid in where:
                    continue
                try:
                    loc = self.index.get(nid)
                except KeyError:
                    continue
                if loc.valid():
                    where[nid] = (loc.lon, loc.lat)
        return make_routes(self.rels.routes, where)

    def _points(self) -> list[OsmElement]:
        """The points layer: the main pass's, the bare keys' and the relations'."""
        if self.points_pre.keys:
            self._keyed_pass()
        self._missing_ways()
        for rid, (tags, nodes, ways, _) in self.rels.point_rels.items():
            ext = relation_extent(nodes, ways, self.index, self.way_extents)
            if ext is not None:
                self.out_points.append(OsmElement("relation", rid, *centre(ext), tags))
        self.out_points.sort(key=lambda e: (TYPE_ORDER[e.osm_type], e.osm_id))
        return self.out_points

    def _keyed_pass(self) -> None:
        """Pass 2b: nodes, ways and relations with a bare key (no exact tag)."""
        keyed = osmium.FileProcessor(self.source).with_filter(
            osmium.filter.KeyFilter(*sorted(self.points_pre.keys))
        )
        late: list[int] = []
        for obj in iterate(keyed, self.path):
            if obj.is_relation():
                if obj.id not in self.rels.point_rels:
                    tags = tags_of(obj)
                    if self.points_keep(tags):
                        self.rels.point_rels[obj.id] = (tags, *split_members(obj.members))
                        late.append(obj.id)
            elif (obj.is_node(), obj.id) not in self.seen:
                self._point_of(obj, lambda way: stored_extent(way, self.index), tags_of(obj))
        self._add_children(late)

    def _missing_ways(self) -> None:
        """Pass 3: the member ways of point relations that no layer let through."""
        missing = self.needed_ways - self.way_extents.keys()
        if missing:
            ways = osmium.FileProcessor(self.source, osmium.osm.WAY).with_filter(
                osmium.filter.IdFilter(missing)
            )
            for way in iterate(ways, self.path):
                ext = stored_extent(way, self.index)
                if ext is not None:
                    self.way_extents[way.id] = ext
