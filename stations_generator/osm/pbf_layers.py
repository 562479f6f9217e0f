"""Read several layers of a PBF extract together with the compiled reader.

The same layers as :func:`~stations_generator.osm.one_pass.read_layers` (same objects,
tags, geometry, order; the tests compare the two on every bundled extract), read by the
C++ reader of :mod:`stations_generator.osm.pbf` over libosmium, which decodes only the
blocks of the file that can hold what each read wants (a PBF extract holds its nodes,
then its ways, then its relations):

1. **relations** (relation blocks): those with a tag of a layer's prefilter come to
   Python, whose predicates pick the points' relations, the transit routes and the area
   relations (copied for the assembler); their member ways are tracked, their member
   nodes and the routes' stops needed; the points' relations' member relations are then
   read by id;
2. **ways** (way blocks): each tracked way's node ids are collected; the ways with a
   layer's tag are offered to Python (tracked at once when no prefilter has a bare key);
   the area relations all of whose member ways the file holds go to the assembler;
3. **nodes and ways** (node and way blocks): the needed nodes' locations are stored and
   the tagged nodes offered as points; each tracked way comes to Python with its located
   vertices and goes to libosmium's multipolygon assembler, whose areas come out as WKB.

Memory is bounded by what is kept: the tracked ways' ids (8 bytes each) and the needed
nodes' ids and locations (10 bytes a node: an id's low 16 bits and its location, the high
bits in a table of 4 bytes per 65,536 ids, 0.8 MB for today's largest ids) are sorted
vectors, however spread the file's ids are (osmium's id sets, which :mod:`.one_pass`
uses, take 4 MiB per block of 2**25 ids holding one: up to ~1.5 GiB for a country), plus
the layers kept and the blocks being decoded (one of relations ahead, ~15 MB; two of
nodes or ways). While the ways are read, their node ids are collected at 8 bytes each
(repeats dropped whenever they have doubled). The peak is therefore about

    ~100 MB (Python, the modules, the blocks in flight) + 10 bytes per needed node
    + 8 bytes per tracked way + the layers kept (points and their tags, lines, the
    areas as WKB, then as geometry)

for any size of extract: the file is never held, nor any node not needed. Measured on the
Liechtenstein extract tiled 32, 256 and 1024 times (``bench/bench_extract.py``):
see the README.

:func:`available` says whether the reader was built (it needs libosmium's headers at
install time); :func:`~stations_generator.osm.one_pass.read_layers` falls back to
pyosmium without it, for files in other formats, and for a PBF file the reader declines
(a history file, or one not sorted by type).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from stations_generator.osm.extract_io import Extent, read_error
from stations_generator.osm.layer_finds import LayerFinds
from stations_generator.osm.routes import stop_nodes

try:
    from stations_generator.osm.pbf import reader as pbf_reader
except ImportError:  # not built: no libosmium headers at install time
    pbf_reader = None

__all__ = ["Declined", "available", "read_layers"]


class Declined(Exception):
    """The compiled reader cannot read this file (it is read with pyosmium instead)."""


def available() -> bool:
    """Whether the compiled reader was built with the package."""
    return pbf_reader is not None


def _key_filter(pairs: frozenset, keys: frozenset) -> tuple[frozenset, frozenset]:
    """``(pairs, keys)`` for the reader as osmium's filters of :mod:`.one_pass` read them:
    with bare keys, the objects with one of those keys or one of the pairs' keys (a
    superset the predicates narrow); without, the objects with one of the pairs."""
    if keys:
        return frozenset(), keys | {k for k, _ in pairs}
    return pairs, frozenset()


def _members(types: bytes, refs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A relation's node, way and relation member ids, in order."""
    kinds = np.frombuffer(types, dtype=np.uint8)
    return (
        refs[kinds == ord("n")],
        refs[kinds == ord("w")],
        refs[kinds == ord("r")],
    )


class _CompiledRead:
    """One read of an extract for :func:`read_layers`: the reads, driven from Python,
    their finds in a :class:`LayerFinds`."""

    def __init__(self, path, points, areas, lines, routes, areas_as_wkb=False) -> None:
        self.path = Path(path)
        self.finds = LayerFinds(
            points, areas, lines, routes, fresh_tags=True, areas_as_wkb=areas_as_wkb
        )
        with self._errors():
            self.reader = pbf_reader.PbfReader(str(path))

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """The reader's errors as the caller takes them: a file it cannot read this way
        (ValueError) is :class:`Declined`, a damaged one an InputError naming it."""
        try:
            yield
        except ValueError as exc:
            raise Declined(str(exc)) from None
        except (RuntimeError, OSError) as exc:
            raise read_error(self.path, exc) from exc

    def _steps(self):
        """The current read's batches (the reader, positioned on each)."""
        while True:
            with self._errors():
                more = self.reader.step()
            if not more:
                return
            yield self.reader

    def read(self) -> dict[str, list]:
        f = self.finds
        if f.areas:
            self.reader.use_areas()
        if f.areas or f.routes is not None or f.points_keep is not None:
            self._relations()
        self._ways()
        f.drop_area_relations(self.reader.finish_ways().tolist())
        self._geometry()
        result: dict[str, list] = {}
        if f.routes is not None:
            result["routes"] = f.routes_layer(self._locate)
        if f.points_keep is not None:
            result["points"] = f.points_layer(self._locate)
        self.reader = None  # the ids and locations go before the areas become geometry
        return {**result, **f.shape_layers()}

    def _locate(self, ids: list[int]) -> dict[int, tuple[float, float]]:
        wanted = np.asarray(ids, dtype=np.int64)
        lon, lat, found = self.reader.locations(wanted)
        return dict(
            zip(
                wanted[found].tolist(),
                zip(lon[found].tolist(), lat[found].tolist(), strict=True),
                strict=True,
            )
        )

    # -- read 1: relations ------------------------------------------------------------

    def _relations(self) -> None:
        f, r = self.finds, self.reader
        # The transit routes by their kind (``route=bus``, ...): ``type=route`` would bring
        # every hiking and cycling route, and their many members, to Python too.
        kinds = {("route", kind) for kind in f.routes} if f.routes is not None else set()
        pairs = f.exact.pairs | kinds
        r.set_filter(*_key_filter(pairs, f.shape_keys | f.point_keys))
        r.start(pbf_reader.RELATIONS)
        need: list[np.ndarray] = []
        for batch in self._steps():
            ids = batch.ids().tolist()
            if not ids:
                continue
            at = batch.member_offsets().tolist()
            types = batch.member_types()
            refs = batch.member_refs()
            for i, (rid, tags) in enumerate(zip(ids, batch.tags(), strict=True)):
                point, route, assemble = f.relation_kinds(tags)
                if not (point or route or assemble):
                    continue
                start, end = at[i], at[i + 1]
                if point:
                    f.point_rels[rid] = (
                        f.keep_tags(tags),
                        *_members(types[start:end], refs[start:end]),
                    )
                if route:
                    members = zip(
                        types[start:end].decode(),
                        refs[start:end].tolist(),
                        batch.member_roles(start, end),
                        strict=True,
                    )
                    stops = stop_nodes(members)
                    f.routes_found[rid] = (f.keep_tags(tags), stops)
                    need.append(np.asarray(stops, dtype=np.int64))
                f.add_area_relation(rid, tags, assemble)
                if assemble:
                    batch.keep_area_relation(i)
        self._add_children(need)
        for ids in need:
            r.need_nodes(ids)

    def _add_children(self, need: list[np.ndarray]) -> None:
        """Member relations' node and way members join their parents' (one level); the
        points' relations' member ways are tracked, their member nodes needed."""
        f = self.finds
        child_ids = sorted({c for _, _, _, cs in f.point_rels.values() for c in cs.tolist()})
        children: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if child_ids:
            self.reader.ask_relations(np.asarray(child_ids, dtype=np.int64))
            self.reader.start(pbf_reader.RELATIONS_BY_ID)
            for batch in self._steps():
                at = batch.member_offsets().tolist()
                types, refs = batch.member_types(), batch.member_refs()
                for i, rid in enumerate(batch.ids().tolist()):
                    nodes, ways, _ = _members(types[at[i] : at[i + 1]], refs[at[i] : at[i + 1]])
                    children[rid] = (nodes, ways)
        for rid, (tags, nodes, ways, rels) in f.point_rels.items():
            extra = [children[c] for c in rels.tolist() if c in children]
            if extra:
                nodes = np.concatenate([nodes, *(n for n, _ in extra)])
                ways = np.concatenate([ways, *(w for _, w in extra)])
                f.point_rels[rid] = (tags, nodes, ways, rels)
            need.append(nodes)
            self.reader.track_ways(ways)
            f.needed_ways.update(ways.tolist())

    # -- read 2: ways -----------------------------------------------------------------

    def _ways(self) -> None:
        f, r = self.finds, self.reader
        keyed = bool(f.shape_keys or f.point_keys)
        r.set_filter(*_key_filter(f.exact.pairs, f.shape_keys | f.point_keys), auto_keep=not keyed)
        r.start(pbf_reader.WAYS)
        shape_filter_keys = f.shape_keys | {k for k, _ in f.exact.pairs}
        for batch in self._steps():
            if not keyed:
                continue  # (every candidate was tracked in C++)
            for i, tags in enumerate(batch.tags()):
                if f.point_keys and not f.point_keys.isdisjoint(tags):
                    batch.keep_way(i)  # a points bare key: its extent may be a point
                elif f.shape_keys:
                    if not shape_filter_keys.isdisjoint(tags) and f.wanted_way(tags):
                        batch.keep_way(i)
                elif any((k, v) in f.exact.pairs for k, v in tags.items()):
                    batch.keep_way(i)

    # -- read 3: nodes and ways -------------------------------------------------------

    def _geometry(self) -> None:
        f, r = self.finds, self.reader
        if f.points_keep is not None:
            r.set_filter(f.exact.pairs, f.point_keys)
        else:
            r.set_filter((), ())
        if f.areas:
            r.set_area_filter(*_key_filter(f.exact.pairs, f.shape_keys))
        # The ways a layer may keep, and those whose extent a point's relation needs.
        r.set_way_filter(*_key_filter(f.exact.pairs, f.shape_keys | f.point_keys))
        r.offer_ways(np.fromiter(f.needed_ways, dtype=np.int64, count=len(f.needed_ways)))
        r.start(pbf_reader.NODES_WAYS)
        for batch in self._steps():
            kinds = batch.kinds()
            if kinds:
                self._objects(batch, kinds)
            if f.areas:
                for oid, from_way, tags, wkb in zip(
                    batch.area_ids().tolist(),
                    batch.area_from_way(),
                    batch.area_tags(),
                    batch.area_wkbs(),
                    strict=True,
                ):
                    f.area(bool(from_way), oid, tags if from_way else {}, lambda wkb=wkb: wkb)

    def _objects(self, batch: Any, kinds: bytes) -> None:
        f = self.finds
        ids = batch.ids().tolist()
        lon, lat = batch.lon().tolist(), batch.lat().tolist()
        at = batch.coord_offsets().tolist()
        coords = batch.coords()
        for i, (kind, oid, tags) in enumerate(zip(kinds, ids, batch.tags(), strict=True)):
            if kind == ord("n"):
                f.node(oid, lat[i], lon[i], tags)
                continue
            xy = coords[at[i] : at[i + 1]]
            f.way(oid, tags, lambda xy=xy: _extent(xy), lambda xy=xy: _vertices(xy))


def _extent(xy: np.ndarray) -> Extent | None:
    """The extent of a way's located vertices (None if none is located)."""
    if not len(xy):
        return None
    lo, hi = xy.min(axis=0).tolist(), xy.max(axis=0).tolist()
    return [lo[0], lo[1], hi[0], hi[1]]


def _vertices(xy: np.ndarray) -> list[tuple[float, float]]:
    """A way's located vertices, repeats dropped (as extract_io.way_coords gives them)."""
    if len(xy) > 1:
        xy = xy[np.concatenate([[True], (xy[1:] != xy[:-1]).any(axis=1)])]
    return [tuple(p) for p in xy.tolist()]


def read_layers(
    path: Path, points=None, areas=None, lines=None, routes=None, areas_as_wkb: bool = False
) -> dict[str, list]:
    """:func:`~stations_generator.osm.one_pass.read_layers`, read by the compiled reader.

    Parameters
    ----------
    path : Path
        A PBF extract.
    points, areas, lines, routes, areas_as_wkb
        As :func:`~stations_generator.osm.one_pass.read_layers` takes them.

    Returns
    -------
    dict[str, list]
        As :func:`~stations_generator.osm.one_pass.read_layers` returns them.

    Raises
    ------
    Declined
        The reader is not built, or cannot read this file (a history file, one not
        sorted by type, not PBF): read it with pyosmium.
    InputError
        The file is damaged.
    """
    if pbf_reader is None:
        raise Declined("the compiled reader is not built")
    return _CompiledRead(path, points, areas, lines, routes, areas_as_wkb).read()
