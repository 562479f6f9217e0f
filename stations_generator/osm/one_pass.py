"""Read several layers of an extract together: points, areas and lines.

:func:`read_layers` reads a PBF extract with the compiled reader where the package was
built with it (:mod:`.pbf_layers`: the same layers, about half the time, memory bounded
by what is kept however the file's ids are spread); this module's pyosmium reader reads
the other formats, the PBF files the compiled one declines, and every file where it is
not built or ``STATIONS_GENERATOR_PYOSMIUM_READER`` is set.

:func:`read_layers` gives, for the whole file, exactly what
:func:`~stations_generator.osm.extracts.read_points`, ``read_areas`` and ``read_lines``
give one by one (same objects, tags, geometry, order), in three reads of the file,
each filtered in C++ so that few objects reach Python:

1. **what is wanted** (ways and relations, and the nodes if there are points; no node
   locations): the nodes with a tag of one of the layers' prefilters become points at
   once (a node carries its own location); the ways with such a tag, the member ways
   of the area relations, of the points' relations and of the bare-key objects
   (``diplomatic~^consulate``, or a line layer's bare ``bridge``) go into an
   :class:`osmium.IdTracker`, as do the relations' member nodes and the transit
   routes' stops (:func:`~stations_generator.osm.routes.read_routes`'s);
2. **their nodes** (ways through the tracker's id filter, and the relations if there
   are area layers): osmium adds the nodes of the tracked ways to the tracker, and
   the area relations all of whose member ways the file holds go to osmium's area
   assembler (its first pass); the others -- in a clipped extract, most boundary
   relations: the neighbouring countries' -- could never be assembled, but osmium
   would hold them and the member ways it finds until the read ends;
3. **geometry**: nodes and ways, through the tracker's id filter: only the tracked
   nodes' locations are stored, only the tracked ways get them and reach the area
   assembler and Python.

Memory is therefore bounded by the layers kept, not by the file. The peak, at the end
of read 3, is about

    ~100 MB (Python, the modules, osmium's read-ahead: :data:`READ_AHEAD_BUFFERS`)
    + 16 bytes per needed node (the location index; ``sparse_mmap_array``)
    + the tracker's node id set: 4 MiB per 2**25 consecutive node ids holding a
      tracked one (osmium's ``IdSetDense``; the way ids' set, as large per 2**25 way
      ids, is dropped before read 3)
    + the layers kept: points and their tags, lines, the areas as WKB (16 bytes a
      point; they become GEOS geometry, ~27 bytes a point, once the id set, the index
      and the assembler are gone).

Measured (the Liechtenstein extract tiled N times by ``bench/bench_extract.py``'s
tiler: a tile spans 1 M node and way ids; 120 MB of PBF and 16.8 M nodes at 256 tiles,
1.45 M of them needed; 480 MB and 67 M nodes at 1024), the peak RSS of
:func:`read_layers` with every layer, in a process that holds ~69 MiB before: 121 MiB
at 32 tiles, 230 at 256, 589 at 1024, 0.47 MiB more per tile (was 126/285/836 MiB,
0.72 MiB/tile, when the assembler was given every area relation and the areas became
geometry during the read). Of that, ~0.13 is the node id set (a tile uses 6.6 % of its
1 M node ids, and 4 MiB covers 33 tiles), ~0.09 the location index, the rest the layers
kept (~0.17 the admin polygons alone, every level's). The id sets cannot grow past
(largest id / 2**25) chunks: for real OSM ids about 170 MiB for ways and, for an
extract whose nodes span the planet's id range, 1.5 GiB for nodes -- pyosmium offers no
sparser id filter.

Real ids are that spread even in a small extract: a city centre's 24,000 nodes fall in
185 blocks of 2**25 ids, 740 MiB of node id set. So after read 1 the reader compares
the two costs (:func:`stores_every_node`: 4 MiB per block the needed nodes' ids fall
in, against 16 bytes per node of the file, bounded from its size) and, where storing
every node is cheaper, does: no node id set, read 2 only finds the member ways (and
the complete relations), read 3 stores every location and lets the tracked ways
through by id. Same layers either way (tested on every bundled extract). Peak RSS of
:func:`read_layers` with every layer: 168 MiB on the Helsinki centre extract (752
tracking), 135 on Monaco's (378), 118 on Krems' (299); the tiled extracts' dense ids
keep tracking (one block holds a tile's needed nodes).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import osmium
import osmium.filter

from stations_generator import settings
from stations_generator.core.catalogue import Prefilter
from stations_generator.osm.extract_io import (
    all_items,
    extract_format,
    iterate,
    kept_tags,
    open_extract,
    tags_of,
    way_coords,
    way_extent,
)
from stations_generator.osm.layer_finds import LayerFinds
from stations_generator.osm.routes import stop_nodes

__all__ = ["geometry_read", "location_index", "read_layers", "stores_every_node"]


class _Relations:
    """The first read's relation filter: the points' relations, the transit routes (and
    their stops' ids) and the area relations go to the :class:`LayerFinds` (an area
    relation's member ways into the tracker; read 2 hands the complete ones to the
    assembler).

    A relation's members are read from osmium once, whatever wants them (a route is
    often a point too, and its members are many).
    """

    def __init__(self, finds: LayerFinds, tracker: osmium.IdTracker) -> None:
        self.finds = finds
        self.tracker = tracker
        self.nodes = array("q")  # the routes' stops: their locations are needed
        self.error: BaseException | None = None

    def relation(self, rel: Any) -> bool:
        if self.error is not None:
            return True
        try:
            if not len(rel.tags):
                return True
            tags = tags_of(rel)  # one copy: several predicates look at it
            point, route, assemble = self.finds.relation_kinds(tags)
            if not (point or route or assemble):
                return True
            if point or route:  # with roles; an area relation's ways alone, below
                members = [(m.type, m.ref, m.role) for m in all_items(rel.members)]
                if point:
                    self.finds.point_rels[rel.id] = (kept_tags(tags), *_split(members))
                if route:
                    stops = array("q", stop_nodes(members))
                    self.finds.routes_found[rel.id] = (kept_tags(tags), stops)
                    self.nodes.extend(stops)
            self.finds.add_area_relation(rel.id, tags, assemble)
            if assemble:  # its member ways go to the assembler
                for m in all_items(rel.members):
                    if m.type == "w":
                        self.tracker.add_way(m.ref)
        except Exception as exc:  # re-raised after the read, not as a read error
            self.error = exc
            return True
        return not assemble


class _Completer:
    """Read 2's filter: each tracked way's nodes go into the tracker (in C++, unless
    every node is stored) and its id is noted as found; an area relation passes on (to
    the assembler's first pass) only if all its member ways were found: all of them are
    in the file (ways come before relations in a sorted file).

    osmium assembles no area from a relation with a way missing, but holds such a
    relation, and the member ways it finds, to the end of the read: in a clipped extract
    most boundary relations (the neighbouring countries') are such.

    Tracking node ids, a found way leaves the tracker's way set (read 3 finds the ways
    by their nodes and needs it no more); storing every node, read 3 finds the ways by
    their ids, so the set stays and the found ones are noted in Python (few: the files
    that store every node are the small ones, :func:`stores_every_node`).
    """

    def __init__(self, tracker: osmium.IdTracker, area_ids: set[int], every_node: bool) -> None:
        self.tracker = tracker
        self.ways = tracker.way_ids()
        self.every_node = every_node
        self.found: set[int] = set()
        self.area_ids = area_ids
        self.incomplete: list[int] = []  # area relations with a member way missing
        self.error: BaseException | None = None

    def way(self, way: Any) -> bool:
        if self.every_node:
            self.found.add(way.id)
        else:
            self.tracker.add_references(way)
            self.ways.unset(way.id)
        return True

    def _missing(self, wid: int) -> bool:
        return wid not in self.found if self.every_node else self.ways.get(wid)

    def relation(self, rel: Any) -> bool:
        if self.error is not None or rel.id not in self.area_ids:
            return True
        try:
            if any(self._missing(m.ref) for m in rel.members if m.type == "w"):
                self.incomplete.append(rel.id)
                return True
            return False
        except Exception as exc:  # re-raised after the read, not as a read error
            self.error = exc
            return True


def _split(members: list[tuple[str, int, str]]) -> tuple[array, array, array]:
    """Node, way and relation member ids (as :func:`~stations_generator.osm.extract_io.split_members`),
    each an ``array('q')``: 8 bytes an id, not a Python int's 36."""
    nodes, ways, rels = array("q"), array("q"), array("q")
    for kind, ref, _ in members:
        if kind == "n":
            nodes.append(ref)
        elif kind == "w":
            ways.append(ref)
        elif kind == "r":
            rels.append(ref)
    return nodes, ways, rels


def _tag_filter(pairs: frozenset, keys: frozenset) -> Any:
    """osmium's C++ filter for objects with one of ``pairs`` or one of ``keys``.

    osmium's filters cannot be or-ed, so with bare keys it is a KeyFilter of those keys
    and the pairs' keys (a superset the predicates narrow); without, a TagFilter.
    """
    if keys:
        return osmium.filter.KeyFilter(*sorted(keys | {k for k, _ in pairs}))
    return Prefilter(pairs).exact_filter()


ON_DISK_FROM_MB = settings.DEFAULT_LOCATIONS_ON_DISK_MB
"""Extracts from this size up keep their (needed) node locations in a file, not in memory.

On disk (``sparse_file_array``, in the temporary folder) the page cache holds what
fits. Env ``STATIONS_GENERATOR_LOCATIONS_ON_DISK_MB`` changes the threshold
(:func:`stations_generator.settings.locations_on_disk_mb`).
"""

IN_MEMORY = "sparse_mmap_array" if "sparse_mmap_array" in osmium.index.map_types() else "flex_mem"
"""The in-memory node-location index: an anonymous mmap grown in place (Linux), else
``flex_mem``; ~16 bytes a stored node. On 256 tiles of Liechtenstein (15 M nodes) storing
and looking up every node cost 3.5 s CPU and 345 MB peak, against 3.9-4.4 s and 569 MB
with ``flex_mem``; :func:`read_layers` stores the needed nodes only.
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


#: osmium's id sets (``IdSetDense``: the IdTracker's, the IdFilter's) take 2**22 bytes
#: for each block of 2**25 consecutive ids that holds one they track.
ID_BLOCK_BITS = 25
ID_BLOCK_BYTES = 1 << 22
#: A stored location: an 8-byte id and an 8-byte location (``sparse_mmap_array``).
LOCATION_BYTES = 16
#: The fewest bytes a node takes in a file of each format (ways and relations take their
#: own), so that size / this bounds the file's nodes from above. Measured: 7.1-9.8 bytes
#: a node in the bundled and tiled PBF extracts and Germany's (4.4 GB, ~600 M nodes),
#: 24-30 in the bundled .osm.gz ones.
_BYTES_A_NODE = {"pbf": 6, "o5m": 6, "osm.gz": 10, "osm.bz2": 10, "opl": 30, "osm": 40}


def stores_every_node(path: Path, sample: Iterable[int]) -> bool:
    """Whether storing every node's location takes less memory than tracking the ids
    of the needed nodes.

    Tracking costs 4 MiB for each block of 2**25 node ids holding a needed node
    (:data:`ID_BLOCK_BYTES`); real OSM node ids run to ~1.3e10 and a real extract's
    nodes, old and new, are spread over most blocks: a 24,000-node city centre would
    take ~740 MiB to track and 0.4 MiB to store whole. Storing every node costs
    :data:`LOCATION_BYTES` a node of the file, bounded from the file's size. A
    country's extract tracks (its nodes fill every block anyway, at ~1.5 GiB); so does
    an extract with dense ids (renumbered, or built by tiling).

    Parameters
    ----------
    path : Path
        The extract (its size and format bound its nodes).
    sample : iterable of int
        Ids of needed nodes (e.g. the first node of each needed way): the blocks they
        fall in.

    Returns
    -------
    bool
        True to store every node.
    """
    per_node = _BYTES_A_NODE.get(extract_format(path) or "pbf", 6)
    most_nodes = os.path.getsize(path) / per_node
    if isinstance(sample, array) and sample.typecode == "q":
        ids = np.frombuffer(sample, dtype=np.int64).view(np.uint64)  # no copy
    else:
        ids = np.fromiter(sample, dtype=np.int64).view(np.uint64)
    blocks = len(np.unique(ids >> np.uint64(ID_BLOCK_BITS)))
    return LOCATION_BYTES * most_nodes < ID_BLOCK_BYTES * blocks


def geometry_read(
    source: Any,
    index: Any,
    manager: Any,
    tracker: osmium.IdTracker,
    area_filter: Any,
    every_node: bool = False,
) -> Iterator[Any]:
    """Read 3: the tracked ways with node locations, and the assembled areas.

    Parameters
    ----------
    source : osmium.io.File
        The extract.
    index : osmium location index
        Where the tracked nodes' locations go (``osmium.index.create_map``).
    manager : osmium.area.AreaManager or None
        The assembler, its first pass done; None for no areas.
    tracker : osmium.IdTracker
        The nodes to store (the ways are found by their nodes); with ``every_node``,
        the ways to locate.
    area_filter : osmium filter
        Which assembled areas come out.
    every_node : bool
        Store every node's location and let the tracked ways through by their ids
        (see :func:`stores_every_node`).

    Yields
    ------
    osmium way or area
        Valid until the next one is asked for.

    Notes
    -----
    The tracker's filters come first: the location handler stores the tracked nodes
    alone, and locates only the ways with a tracked node -- the tracked ways and the
    few that share a node with one -- which alone reach the assembler (pyosmium's
    ``with_areas`` would hand it every closed way: every building) and Python, whose
    predicates keep what they kept before; no node reaches Python. Ways are let
    through by their nodes, not their ids, so that the way ids' set can go before this
    read (4 MiB per 2**25 ids).
    """
    locations = osmium.NodeLocationsForWays(index)
    locations.ignore_errors()
    only_ways = osmium.filter.EntityFilter(osmium.osm.WAY)
    handlers: list[Any] = (
        [locations, tracker.id_filter().enable_for(osmium.osm.WAY)]
        if every_node
        else [
            tracker.id_filter().enable_for(osmium.osm.NODE),
            tracker.contains_filter().enable_for(osmium.osm.WAY),
            locations,
        ]
    )
    buffer = None
    if manager is not None:
        buffer = osmium.BufferIterator(area_filter)
        handlers.append(manager.second_pass_to_buffer(buffer))
    with osmium.io.Reader(source, osmium.osm.NODE | osmium.osm.WAY) as reader:
        for obj in osmium.OsmFileIterator(reader, *handlers, only_ways):
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
    areas_as_wkb: bool = False,
) -> dict[str, list]:
    """Read the points, area layers and line layers of a whole extract together.

    Memory grows with what is kept -- the layers and the nodes of their ways -- not with
    the file (see the module's notes for the bound). A PBF extract is read by the
    compiled reader where it is built (:mod:`.pbf_layers`: the same layers, in about half
    the time, with the needed nodes' ids in a sorted vector), unless
    ``STATIONS_GENERATOR_PYOSMIUM_READER`` is set.

    Parameters
    ----------
    path : Path
        An OSM extract.
    points : (predicate, Prefilter), optional
        What :func:`~stations_generator.osm.extracts.read_points` would be given.
    areas, lines : mapping of name -> (predicate, Prefilter), optional
        Each as :func:`~stations_generator.osm.extracts.read_areas` /
        :func:`~stations_generator.osm.extracts.read_lines` would be given it. A
        prefilter's bare keys (``Prefilter(keys={"bridge"})``) are honoured: the
        objects with one of them reach the predicate too.
    routes : tuple of str, optional
        Route kinds, as :func:`~stations_generator.osm.routes.read_routes` is given
        them: the route relations come from the first read, their stops' locations
        from the location index.
    areas_as_wkb : bool, default False
        The area layers' rows hold the WKB (``bytes``) of their geometry, not the
        geometry: never all of an extract's areas as geometry at once (for the
        extract cache, which stores WKB).

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
    if extract_format(path) == "pbf" and settings.compiled_reader_enabled():
        from stations_generator.osm import pbf_layers

        try:
            return pbf_layers.read_layers(
                Path(path), points, areas, lines, routes, areas_as_wkb=areas_as_wkb
            )
        except pbf_layers.Declined:
            pass  # not built, or a file it does not read (history, unsorted): pyosmium's
    with location_index(Path(path)) as storage, _short_queues():
        reader = _LayerReader(path, source, points, areas, lines, routes, areas_as_wkb)
        return reader.read(storage)


#: osmium's read-ahead queues (its default is 20 buffers each): 4 hold the two decoding
#: threads busy and take ~50 MB less at the peak (measured on 256 tiles: 107 MB against
#: 159 MB for a bare read), at no cost in time.
READ_AHEAD_BUFFERS = 4
_QUEUES = ("INPUT", "OSMDATA", "WORK")


@contextlib.contextmanager
def _short_queues() -> Iterator[None]:
    """osmium's queue sizes (``OSMIUM_MAX_*_QUEUE_SIZE``, read as a Reader starts) set to
    :data:`READ_AHEAD_BUFFERS` for the ``with`` block, unless the user set them."""
    names = [f"OSMIUM_MAX_{q}_QUEUE_SIZE" for q in _QUEUES]
    mine = [n for n in names if n not in os.environ]
    for n in mine:
        os.environ[n] = str(READ_AHEAD_BUFFERS)
    try:
        yield
    finally:
        for n in mine:
            os.environ.pop(n, None)


class _LayerReader:
    """One read of an extract for :func:`read_layers`: the passes and what they find."""

    def __init__(self, path, source, points, areas, lines, routes, areas_as_wkb=False) -> None:
        self.path, self.source = path, source
        self.finds = finds = LayerFinds(points, areas, lines, routes, areas_as_wkb=areas_as_wkb)
        # (their names as the reads below use them)
        self.routes, self.areas, self.lines = finds.routes, finds.areas, finds.lines
        self.points_keep, self.points_pre = finds.points_keep, finds.points_pre
        self.exact, self.shape_keys = finds.exact, finds.shape_keys
        # The ids the geometry read lets through (osmium's id sets, not Python sets).
        self.tracker = osmium.IdTracker()
        self.rels = _Relations(finds, self.tracker)
        self.manager = osmium.area.AreaManager() if self.areas else None
        self.factory = osmium.geom.WKBFactory()
        self.nodes = array("q")  # the points' relations' member nodes
        self.sample = array("q")  # the first node of each wanted way (stores_every_node)
        self.every_node = False
        self.index: Any = None

    def read(self, storage: str) -> dict[str, list]:
        """All the reads, with the needed node locations in ``storage``; the layers found."""
        self._wanted_pass()
        if self.points_keep is not None:
            self._add_children(list(self.finds.point_rels))
            if self.points_pre.keys:
                self._keyed_pass()
        known = self.rels.nodes + self.nodes  # nodes whose locations are needed
        self.every_node = stores_every_node(Path(self.path), self.sample + known)
        if not self.every_node:
            for nid in known:
                self.tracker.add_node(nid)
        if not self.tracker.way_ids().empty():
            self._nodes_pass()
        if not self.every_node:
            self.tracker.way_ids().clear()  # read 3 finds the ways by their nodes
        self.index = osmium.index.create_map(storage)
        self._sort_geometry_pass()
        result: dict[str, list] = {}
        if self.routes is not None:
            result["routes"] = self.finds.routes_layer(self._locate)
        if self.points_keep is not None:
            result["points"] = self.finds.points_layer(self._locate)
        # The id sets, the locations and the assembler go before the areas' WKB (16
        # bytes a point) becomes GEOS geometry (~27 bytes a point): the peak is lower.
        self.index = self.tracker = self.rels.tracker = self.manager = None
        return {**result, **self.finds.shape_layers()}

    def _wanted_pass(self) -> None:
        """Read 1 (no locations): the tagged nodes as points; the wanted ways, the
        points' relations and the area relations' member ways into the tracker."""
        o = osmium.osm
        way_filter = _tag_filter(self.exact.pairs, self.shape_keys)
        way_filter.enable_for(o.WAY)
        rel_pairs = self.exact.pairs | ({("type", "route")} if self.routes is not None else set())
        rel_filter = _tag_filter(rel_pairs, self.shape_keys)
        rel_filter.enable_for(o.RELATION)
        types = o.WAY
        if self.areas or self.routes is not None or self.points_keep is not None:
            types |= o.RELATION  # (lines alone want no relation)
        first = osmium.FileProcessor(self.source, types)
        if self.points_keep is not None:
            # Untagged nodes (most of the file) leave at the cheap EmptyTagFilter.
            node_filter = Prefilter(self.exact.pairs).exact_filter()
            first = osmium.FileProcessor(self.source, o.NODE | types).with_filter(
                osmium.filter.EmptyTagFilter().enable_for(o.NODE)
            )
            first = first.with_filter(node_filter.enable_for(o.NODE))
        first = first.with_filter(way_filter).with_filter(rel_filter).with_filter(self.rels)
        keyed_shapes = bool(self.shape_keys)
        for obj in iterate(first, self.path):
            if obj.is_node():
                self._node(obj, tags_of(obj))
            elif obj.is_way() and (not keyed_shapes or self.finds.wanted_way(tags_of(obj))):
                self.tracker.add_way(obj.id)
                if len(obj.nodes):
                    self.sample.append(obj.nodes[0].ref)
            # (an area relation's member ways went into the tracker in rels.relation)
        if self.rels.error is not None:
            raise self.rels.error

    def _nodes_pass(self) -> None:
        """Read 2: the tracked ways' nodes into the tracker and, if there are area
        layers, the area relations whose member ways are all in the file to the
        assembler's first pass (ways come before relations in a sorted file)."""
        o = osmium.osm
        types = o.WAY | (o.RELATION if self.manager is not None else o.NOTHING)
        completer = _Completer(self.tracker, self.finds.area_relation_ids(), self.every_node)
        second = osmium.FileProcessor(self.source, types)
        second = second.with_filter(self.tracker.id_filter().enable_for(o.WAY))
        second = second.with_filter(completer)
        if self.manager is not None:
            second = second.with_filter(self.manager.first_pass_handler())
        for _ in iterate(second, self.path):
            pass  # (the handlers did the work; only complete area relations come out)
        if completer.error is not None:
            raise completer.error
        self.finds.drop_area_relations(completer.incomplete)  # never assembled

    def _sort_geometry_pass(self) -> None:
        """Read 3: each tracked way and each area to the layers that keep it."""
        pairs, keys = self.exact.pairs, self.shape_keys
        area_filter = (
            _tag_filter(pairs, keys)
            if pairs or keys
            else osmium.filter.EntityFilter(osmium.osm.NOTHING)
        )
        main = geometry_read(
            self.source, self.index, self.manager, self.tracker, area_filter, self.every_node
        )
        for obj in iterate(main, self.path):
            if obj.is_area():
                self._area_of(obj)
            else:  # (the extent and vertices worked out only if a layer wants them)
                self.finds.way(
                    obj.id,
                    tags_of(obj),
                    lambda way=obj: way_extent(way),
                    lambda way=obj: way_coords(way),
                )

    def _node(self, node: Any, tags: dict[str, str]) -> None:
        loc = node.location
        if loc.valid():
            self.finds.node(node.id, loc.lat, loc.lon, tags)

    def _area_of(self, area: Any) -> None:
        from_way = area.from_way()
        tags = tags_of(area) if from_way and len(area.tags) else {}
        # osmium writes hex WKB; GEOS parses binary WKB much faster than hex.
        self.finds.area(
            from_way,
            area.orig_id(),
            tags,
            lambda: bytes.fromhex(self.factory.create_multipolygon(area)),
        )

    def _add_children(self, rids: list[int]) -> None:
        """Member relations' node and way members join their parents' (one level); the
        relations' member ways go into the tracker, their member nodes are noted."""
        kept = [self.finds.point_rels[r] for r in rids]
        child_ids = {c for _, _, _, cs in kept for c in cs}
        if child_ids:
            children: dict[int, tuple[list, list]] = {}
            found = osmium.FileProcessor(self.source, osmium.osm.RELATION).with_filter(
                osmium.filter.IdFilter(child_ids)
            )
            for rel in iterate(found, self.path):
                if rel.id in child_ids:
                    members = [(m.type, m.ref, m.role) for m in all_items(rel.members)]
                    nodes, ways, _ = _split(members)
                    children[rel.id] = (nodes, ways)
            for _, nodes, ways, cs in kept:
                for c in cs:
                    cn, cw = children.get(c, ((), ()))
                    nodes.extend(cn)
                    ways.extend(cw)
        for _, nodes, ways, _ in kept:
            self.nodes.extend(nodes)
            for wid in ways:
                self.tracker.add_way(wid)
                self.finds.needed_ways.add(wid)

    def _locate(self, ids: list[int]) -> dict[int, tuple[float, float]]:
        """The (lon, lat) of the nodes ``ids`` the location index holds."""
        where: dict[int, tuple[float, float]] = {}
        for nid in ids:
            try:
                loc = self.index.get(nid)
            except KeyError:
                continue
            if loc.valid():
                where[nid] = (loc.lon, loc.lat)
        return where

    def _keyed_pass(self) -> None:
        """Read 1b: nodes, ways and relations with a points bare key (no exact tag).

        Nodes with an exact tag were read already; the ways go into the tracker (read 3
        gives them their extents), the relations join the points' relations.
        """
        keyed = osmium.FileProcessor(self.source).with_filter(
            osmium.filter.KeyFilter(*sorted(self.points_pre.keys))
        )
        pairs = self.exact.pairs
        late: list[int] = []
        for obj in iterate(keyed, self.path):
            if obj.is_relation():
                if obj.id not in self.finds.point_rels:
                    tags = tags_of(obj)
                    if self.points_keep(tags):
                        members = [(m.type, m.ref, m.role) for m in all_items(obj.members)]
                        self.finds.point_rels[obj.id] = (kept_tags(tags), *_split(members))
                        late.append(obj.id)
            elif obj.is_way():
                self.tracker.add_way(obj.id)
            else:
                tags = tags_of(obj)
                if not any((k, v) in pairs for k, v in tags.items()):
                    self._node(obj, tags)
        self._add_children(late)
