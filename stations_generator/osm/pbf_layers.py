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
nodes' ids and locations (16 bytes a node) are sorted vectors, however spread the file's
ids are (osmium's id sets, which :mod:`.one_pass` uses, take 4 MiB per block of 2**25 ids
holding one: up to ~1.5 GiB for a country), plus the layers kept and ~4 decoded blocks
(~16 MB) read ahead on worker threads. The peak is therefore about

    ~100 MB (Python, the modules) + 16 bytes per needed node + 8 per tracked way
    + the layers kept (points and their tags, lines, the areas as WKB)

for any size of extract: the file is never held, nor any node not needed.

:func:`available` says whether the reader was built (it needs libosmium's headers at
install time); :func:`~stations_generator.osm.one_pass.read_layers` falls back to
pyosmium without it, for files in other formats, and for a PBF file the reader declines
(a history file, or one not sorted by type).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import shapely

from stations_generator.core.catalogue import Prefilter
from stations_generator.core.elements import OsmElement
from stations_generator.osm.extract_io import (
    TYPE_ORDER,
    Extent,
    centre,
    kept_tags,
    polygonal,
    read_error,
    relation_extent,
    union_prefilter,
)
from stations_generator.osm.routes import is_route, make_routes, stop_nodes

try:
    from stations_generator.osm.pbf import _blob_reader
except ImportError:  # not built: no libosmium headers at install time
    _blob_reader = None

__all__ = ["Declined", "available", "read_layers"]


class Declined(Exception):
    """The compiled reader cannot read this file (it is read with pyosmium instead)."""


def available() -> bool:
    """Whether the compiled reader was built with the package."""
    return _blob_reader is not None


def _key_filter(pairs: frozenset, keys: frozenset) -> tuple[frozenset, frozenset]:
    """``(pairs, keys)`` for the reader as osmium's filters of :mod:`.one_pass` read them:
    with bare keys, the objects with one of those keys or one of the pairs' keys (a
    superset the predicates narrow); without, the objects with one of the pairs."""
    if keys:
        return frozenset(), keys | {k for k, _ in pairs}
    return pairs, frozenset()


class _Location:
    """A needed node's location, as :func:`relation_extent` reads osmium's."""

    __slots__ = ("lat", "lon")

    def __init__(self, lon: float, lat: float) -> None:
        self.lon, self.lat = lon, lat

    def valid(self) -> bool:
        return True


class _Locations:
    """Node id -> location for :func:`relation_extent` (KeyError where the file has none)."""

    def __init__(self, reader: Any, ids: np.ndarray) -> None:
        lon, lat, found = reader.locations(ids)
        self.where = {
            int(i): _Location(x, y)
            for i, x, y in zip(
                ids[found].tolist(), lon[found].tolist(), lat[found].tolist(), strict=True
            )
        }

    def get(self, nid: int) -> _Location:
        return self.where[nid]


def _members(types: bytes, refs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A relation's node, way and relation member ids, in order."""
    kinds = np.frombuffer(types, dtype=np.uint8)
    return (
        refs[kinds == ord("n")],
        refs[kinds == ord("w")],
        refs[kinds == ord("r")],
    )


class _CompiledRead:
    """One read of an extract for :func:`read_layers`: the reads and what they find."""

    def __init__(self, path, points, areas, lines, routes) -> None:
        self.path, self.routes = Path(path), routes
        self.areas: dict[str, tuple[Any, Prefilter]] = dict(areas or {})
        self.lines: dict[str, tuple[Any, Prefilter]] = dict(lines or {})
        self.points_keep, self.points_pre = points if points is not None else (None, None)
        shapes = [pre for _, pre in [*self.areas.values(), *self.lines.values()]]
        used = [*shapes, *([self.points_pre] if self.points_pre is not None else [])]
        self.exact = union_prefilter(used)
        self.shape_keys: frozenset[str] = union_prefilter(shapes).keys if shapes else frozenset()
        self.point_keys: frozenset[str] = (
            self.points_pre.keys if self.points_pre is not None else frozenset()
        )
        self.area_keeps = {n: keep for n, (keep, _) in self.areas.items()}
        self.point_rels: dict[int, tuple[dict, np.ndarray, np.ndarray, np.ndarray]] = {}
        self.routes_found: dict[int, tuple[dict[str, str], list[int]]] = {}
        self.area_tags: dict[str, dict[int, dict[str, str]]] = {n: {} for n in self.areas}
        self.needed_ways: set[int] = set()
        self.out_points: list[OsmElement] = []
        self.way_extents: dict[int, Extent] = {}
        self.found_areas: dict[str, list] = {n: [] for n in self.areas}
        self.found_lines: dict[str, list] = {n: [] for n in self.lines}
        self.wkbs: list[bytes | None] = []
        try:
            self.reader = _blob_reader.PbfReader(str(path))
        except ValueError as exc:
            raise Declined(str(exc)) from None
        except (RuntimeError, OSError) as exc:
            raise read_error(path, exc) from exc

    def _steps(self):
        """The current read's batches (the reader, positioned on each)."""
        while True:
            try:
                more = self.reader.step()
            except ValueError as exc:
                raise Declined(str(exc)) from None
            except (RuntimeError, OSError) as exc:
                raise read_error(self.path, exc) from exc
            if not more:
                return
            yield self.reader

    def read(self) -> dict[str, list]:
        if self.areas:
            self.reader.use_areas()
        if self.areas or self.routes is not None or self.points_keep is not None:
            self._relations()
        self._ways()
        for rid in self.reader.finish_ways().tolist():  # never assembled
            for tags in self.area_tags.values():
                tags.pop(rid, None)
        self._geometry()
        result: dict[str, list] = {}
        if self.routes is not None:
            result["routes"] = self._routes()
        if self.points_keep is not None:
            result["points"] = self._points()
        self.reader = None  # the ids and locations go before the areas become geometry
        geoms = self._area_geometries()
        for n, rows in self.found_areas.items():
            rows.sort(key=lambda t: (t[0], t[1]))
            result[n] = [(key, tags, geoms[i]) for _, _, key, tags, i in rows if geoms[i]]
        for n, rows in self.found_lines.items():
            rows.sort(key=lambda t: t[0])
            result[n] = [(f"way/{wid}", tags, line) for wid, tags, line in rows]
        return result

    # -- read 1: relations ------------------------------------------------------------

    def _relations(self) -> None:
        r = self.reader
        pairs = self.exact.pairs | ({("type", "route")} if self.routes is not None else set())
        r.set_filter(*_key_filter(pairs, self.shape_keys | self.point_keys))
        r.start(_blob_reader.RELATIONS)
        track: list[np.ndarray] = []
        need: list[np.ndarray] = []
        for batch in self._steps():
            ids = batch.ids().tolist()
            if not ids:
                continue
            ends = batch.member_ends().tolist()
            types = batch.member_types()
            refs = batch.member_refs()
            for i, (rid, tags) in enumerate(zip(ids, batch.tags(), strict=True)):
                point = self.points_keep is not None and self.points_keep(tags)
                route = self.routes is not None and is_route(tags, self.routes)
                assemble = [n for n, keep in self.area_keeps.items() if keep(tags)]
                if not (point or route or assemble):
                    continue
                start, end = (ends[i - 1] if i else 0), ends[i]
                nodes, ways, rels = _members(types[start:end], refs[start:end])
                if point:
                    self.point_rels[rid] = (kept_tags(tags), nodes, ways, rels)
                if route:
                    member_list = zip(
                        types[start:end].decode(),
                        refs[start:end].tolist(),
                        batch.member_roles(start, end),
                        strict=True,
                    )
                    stops = stop_nodes(member_list)
                    self.routes_found[rid] = (kept_tags(tags), stops)
                    need.append(np.asarray(stops, dtype=np.int64))
                for name in assemble:
                    self.area_tags[name][rid] = kept_tags(tags)
                if assemble:
                    batch.keep_area_relation(i)
        self._add_children(track, need)
        for ids in track:
            r.track_ways(ids)
        for ids in need:
            r.need_nodes(ids)

    def _add_children(self, track: list[np.ndarray], need: list[np.ndarray]) -> None:
        """Member relations' node and way members join their parents' (one level)."""
        child_ids = sorted({c for _, _, _, cs in self.point_rels.values() for c in cs.tolist()})
        children: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if child_ids:
            self.reader.ask_relations(np.asarray(child_ids, dtype=np.int64))
            self.reader.start(_blob_reader.RELATIONS_BY_ID)
            for batch in self._steps():
                ends = batch.member_ends().tolist()
                types, refs = batch.member_types(), batch.member_refs()
                for i, rid in enumerate(batch.ids().tolist()):
                    start, end = (ends[i - 1] if i else 0), ends[i]
                    nodes, ways, _ = _members(types[start:end], refs[start:end])
                    children[rid] = (nodes, ways)
        for rid, (tags, nodes, ways, rels) in self.point_rels.items():
            extra = [children[c] for c in rels.tolist() if c in children]
            if extra:
                nodes = np.concatenate([nodes, *(n for n, _ in extra)])
                ways = np.concatenate([ways, *(w for _, w in extra)])
                self.point_rels[rid] = (tags, nodes, ways, rels)
            need.append(nodes)
            track.append(ways)
            self.needed_ways.update(ways.tolist())

    # -- read 2: ways -----------------------------------------------------------------

    def _ways(self) -> None:
        r = self.reader
        keyed = bool(self.shape_keys or self.point_keys)
        r.set_filter(
            *_key_filter(self.exact.pairs, self.shape_keys | self.point_keys), auto_keep=not keyed
        )
        r.start(_blob_reader.WAYS)
        shape_filter_keys = self.shape_keys | {k for k, _ in self.exact.pairs}
        for batch in self._steps():
            if not keyed:
                continue  # (every candidate was tracked in C++)
            for i, tags in enumerate(batch.tags()):
                if self.point_keys and not self.point_keys.isdisjoint(tags):
                    batch.keep_way(i)  # a points bare key: its extent may be a point
                elif self.shape_keys:
                    if not shape_filter_keys.isdisjoint(tags) and self._wanted_way(tags):
                        batch.keep_way(i)
                elif any((k, v) in self.exact.pairs for k, v in tags.items()):
                    batch.keep_way(i)

    def _wanted_way(self, tags: dict[str, str]) -> bool:
        """Whether a way with a bare key has an exact tag, or a layer keeps it."""
        if any((k, v) in self.exact.pairs for k, v in tags.items()):
            return True
        if self.points_keep is not None and self.points_keep(tags):
            return True
        return any(keep(tags) for keep, _ in [*self.lines.values(), *self.areas.values()])

    # -- read 3: nodes and ways -------------------------------------------------------

    def _geometry(self) -> None:
        r = self.reader
        if self.points_keep is not None:
            r.set_filter(self.exact.pairs, self.point_keys)
        else:
            r.set_filter((), ())
        if self.areas:
            r.set_area_filter(*_key_filter(self.exact.pairs, self.shape_keys))
        r.start(_blob_reader.NODES_WAYS)
        for batch in self._steps():
            kinds = batch.kinds()
            if kinds:
                self._objects(batch, kinds)
            if self.areas and len(batch.area_ids()):
                self._areas(batch)

    def _objects(self, batch: Any, kinds: bytes) -> None:
        ids = batch.ids().tolist()
        tags_list = batch.tags()
        lon, lat = batch.lon().tolist(), batch.lat().tolist()
        ends = batch.coord_ends().tolist()
        coords = batch.coords()
        for i, (kind, oid, tags) in enumerate(zip(kinds, ids, tags_list, strict=True)):
            if kind == ord("n"):
                if self.points_keep is not None and self.points_keep(tags):
                    self.out_points.append(OsmElement("node", oid, lat[i], lon[i], kept_tags(tags)))
                continue
            xy = coords[(ends[i - 1] if i else 0) : ends[i]]
            if self.points_keep is not None:
                self._point_of_way(oid, tags, xy)
            if self.lines and tags:
                self._line_of(oid, tags, xy)

    def _point_of_way(self, wid: int, tags: dict[str, str], xy: np.ndarray) -> None:
        needed = wid in self.needed_ways
        wanted = len(tags) > 0 and self.points_keep(tags)
        if not (needed or wanted) or not len(xy):
            return
        lo, hi = xy.min(axis=0).tolist(), xy.max(axis=0).tolist()
        ext = [lo[0], lo[1], hi[0], hi[1]]
        if needed:
            self.way_extents[wid] = ext
        if wanted:
            self.out_points.append(OsmElement("way", wid, *centre(ext), kept_tags(tags)))

    def _line_of(self, wid: int, tags: dict[str, str], xy: np.ndarray) -> None:
        kept = [n for n, (keep, _) in self.lines.items() if keep(tags)]
        if not kept:
            return
        if len(xy) > 1:  # repeated vertices dropped, as extract_io.way_coords does
            xy = xy[np.concatenate([[True], (xy[1:] != xy[:-1]).any(axis=1)])]
        if len(xy) < 2:
            return
        line = shapely.LineString(xy.tolist())
        for n in kept:
            self.found_lines[n].append((wid, kept_tags(tags), line))

    def _areas(self, batch: Any) -> None:
        for oid, from_way, tags, wkb in zip(
            batch.area_ids().tolist(),
            batch.area_from_way(),
            batch.area_tags(),
            batch.area_wkbs(),
            strict=True,
        ):
            if from_way:
                if not tags:
                    continue
                kept = [(n, None) for n, keep in self.area_keeps.items() if keep(tags)]
                kind = "way"
            else:  # (the relation's own tags, "type" too: the area's lack it)
                tags = None
                kept = [(n, self.area_tags[n].get(oid)) for n in self.areas]
                kept = [(n, t) for n, t in kept if t is not None]
                kind = "relation"
            if not kept:
                continue
            self.wkbs.append(wkb)
            for n, rel_tags in kept:
                self.found_areas[n].append(
                    (
                        TYPE_ORDER[kind],
                        oid,
                        f"{kind}/{oid}",
                        kept_tags(tags or rel_tags),
                        len(self.wkbs) - 1,
                    )
                )

    def _area_geometries(self) -> list[Any]:
        geoms: list[Any] = []
        for i, wkb in enumerate(self.wkbs):
            self.wkbs[i] = None
            try:
                geoms.append(polygonal(shapely.from_wkb(wkb)))
            except (RuntimeError, ValueError, shapely.errors.GEOSException):
                geoms.append(None)
        self.wkbs = []
        return geoms

    # -- after the reads --------------------------------------------------------------

    def _routes(self) -> list:
        stops = sorted({s for _, ss in self.routes_found.values() for s in ss})
        located = _Locations(self.reader, np.asarray(stops, dtype=np.int64))
        where = {nid: (loc.lon, loc.lat) for nid, loc in located.where.items()}
        return make_routes(self.routes_found, where)

    def _points(self) -> list[OsmElement]:
        ids = sorted({n for _, nodes, _, _ in self.point_rels.values() for n in nodes.tolist()})
        located = _Locations(self.reader, np.asarray(ids, dtype=np.int64))
        for rid, (tags, nodes, ways, _) in self.point_rels.items():
            ext = relation_extent(nodes.tolist(), ways.tolist(), located, self.way_extents)
            if ext is not None:
                self.out_points.append(OsmElement("relation", rid, *centre(ext), tags))
        self.out_points.sort(key=lambda e: (TYPE_ORDER[e.osm_type], e.osm_id))
        return self.out_points


def read_layers(path: Path, points=None, areas=None, lines=None, routes=None) -> dict[str, list]:
    """:func:`~stations_generator.osm.one_pass.read_layers`, read by the compiled reader.

    Parameters
    ----------
    path : Path
        A PBF extract.
    points, areas, lines, routes
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
    if _blob_reader is None:
        raise Declined("the compiled reader is not built")
    return _CompiledRead(path, points, areas, lines, routes).read()
