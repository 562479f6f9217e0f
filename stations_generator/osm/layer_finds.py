"""What a read of several layers finds, and the layers made from it.

Both readers of :func:`~stations_generator.osm.one_pass.read_layers` -- pyosmium's
(:mod:`.one_pass`) and the compiled one (:mod:`.pbf_layers`) -- hand the objects that
pass their C++ filters to one :class:`LayerFinds`, whose predicates decide what each
layer keeps, and which makes the layers once the reads are over: the same objects, tags,
geometry and order, whichever reader read the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import shapely

from stations_generator.core.catalogue import Prefilter
from stations_generator.core.elements import OsmElement
from stations_generator.osm.extract_io import (
    TYPE_ORDER,
    Extent,
    centre,
    kept_tags,
    polygonal,
    relation_extent,
    union_prefilter,
)
from stations_generator.osm.routes import is_route, make_routes

__all__ = ["LayerFinds", "Locate"]

#: Node ids -> ``{id: (lon, lat)}`` for those the file locates.
Locate = Callable[[list[int]], dict[int, tuple[float, float]]]


class _Location:
    """A located node, as :func:`relation_extent` reads osmium's locations."""

    __slots__ = ("lat", "lon")

    def __init__(self, lon: float, lat: float) -> None:
        self.lon, self.lat = lon, lat

    def valid(self) -> bool:
        return True


class _Located:
    """Node id -> location for :func:`relation_extent` (KeyError where none is known)."""

    def __init__(self, where: dict[int, tuple[float, float]]) -> None:
        self.where = where

    def get(self, nid: int) -> _Location:
        return _Location(*self.where[nid])


def _as_read(tags: Any) -> dict[str, str]:
    return tags


class LayerFinds:
    """The layers asked for, their prefilters, and what the reads found for them.

    Parameters
    ----------
    points : (predicate, Prefilter) or None
        The points layer.
    areas, lines : mapping of name -> (predicate, Prefilter), or None
        The area and line layers.
    routes : tuple of str or None
        The transit route kinds.
    fresh_tags : bool, default False
        The reader hands over each object's tags as a dict of its own, its strings
        interned (the compiled reader's): kept as they are, not copied.
    areas_as_wkb : bool, default False
        The area layers' rows hold their geometry as WKB (``bytes``, of the polygonal
        geometry they would hold), made one at a time: an extract's areas are never held
        as geometry all at once (the extract cache stores WKB).
    """

    def __init__(
        self,
        points: tuple[Any, Prefilter] | None,
        areas: Mapping[str, tuple[Any, Prefilter]] | None,
        lines: Mapping[str, tuple[Any, Prefilter]] | None,
        routes: tuple[str, ...] | None,
        fresh_tags: bool = False,
        areas_as_wkb: bool = False,
    ) -> None:
        self.routes = routes
        self.areas_as_wkb = areas_as_wkb
        #: A kept object's tags as they are kept (a copy, its strings interned).
        self.keep_tags: Callable[[Mapping[str, str]], dict[str, str]] = (
            _as_read if fresh_tags else kept_tags
        )
        self.areas: dict[str, tuple[Any, Prefilter]] = dict(areas or {})
        self.lines: dict[str, tuple[Any, Prefilter]] = dict(lines or {})
        self.points_keep, self.points_pre = points if points is not None else (None, None)
        shapes = [pre for _, pre in [*self.areas.values(), *self.lines.values()]]
        used = [*shapes, *([self.points_pre] if self.points_pre is not None else [])]
        #: Every layer's pairs and bare keys.
        self.exact = union_prefilter(used)
        #: The line and area layers' bare keys (their ways pass a key filter).
        self.shape_keys: frozenset[str] = union_prefilter(shapes).keys if shapes else frozenset()
        #: The points' bare keys (their objects are found by key).
        self.point_keys: frozenset[str] = (
            self.points_pre.keys if self.points_pre is not None else frozenset()
        )
        self.area_keeps = {n: keep for n, (keep, _) in self.areas.items()}
        #: Relation id -> (tags, member node ids, way ids, relation ids): the points'.
        self.point_rels: dict[int, tuple[dict[str, str], Any, Any, Any]] = {}
        #: Relation id -> (tags, stop node ids): the transit routes.
        self.routes_found: dict[int, tuple[dict[str, str], Any]] = {}
        #: Layer -> relation id -> tags: the area relations each area layer keeps.
        self.area_tags: dict[str, dict[int, dict[str, str]]] = {n: {} for n in self.areas}
        #: The points' relations' member ways: their extents are needed.
        self.needed_ways: set[int] = set()
        self.way_extents: dict[int, Extent] = {}
        self.out_points: list[OsmElement] = []
        self.found_areas: dict[str, list] = {n: [] for n in self.areas}
        self.found_lines: dict[str, list] = {n: [] for n in self.lines}
        self.wkbs: list[bytes | None] = []  # the areas' geometry until the reads are over

    # -- relations --------------------------------------------------------------------

    def relation_kinds(self, tags: Mapping[str, str]) -> tuple[bool, bool, list[str]]:
        """Whether a relation is a point, a transit route, and which area layers keep it."""
        point = self.points_keep is not None and self.points_keep(tags)
        route = self.routes is not None and is_route(tags, self.routes)
        assemble = [n for n, keep in self.area_keeps.items() if keep(tags)]
        return point, route, assemble

    def add_area_relation(self, rid: int, tags: Mapping[str, str], layers: Iterable[str]) -> None:
        """An area relation some layers keep (its tags: the area's lack ``type``)."""
        for name in layers:
            self.area_tags[name][rid] = self.keep_tags(tags)

    def area_relation_ids(self) -> set[int]:
        """The ids of the relations some area layer keeps."""
        return set().union(*self.area_tags.values())

    def drop_area_relations(self, rids: Iterable[int]) -> None:
        """Area relations that will never be assembled (a member way is not in the file)."""
        for rid in rids:
            for tags in self.area_tags.values():
                tags.pop(rid, None)

    # -- nodes and ways ---------------------------------------------------------------

    def wanted_way(self, tags: Mapping[str, str]) -> bool:
        """Whether a way past a key filter has an exact tag, or a layer keeps it."""
        if any((k, v) in self.exact.pairs for k, v in tags.items()):
            return True
        if self.points_keep is not None and self.points_keep(tags):
            return True
        return any(keep(tags) for keep, _ in [*self.lines.values(), *self.areas.values()])

    def node(self, nid: int, lat: float, lon: float, tags: Mapping[str, str]) -> None:
        """A located node with a tag of the filters: a point if the points keep it."""
        if self.points_keep is not None and self.points_keep(tags):
            self.out_points.append(OsmElement("node", nid, lat, lon, self.keep_tags(tags)))

    def way(
        self,
        wid: int,
        tags: Mapping[str, str],
        extent: Callable[[], Extent | None],
        coords: Callable[[], list[tuple[float, float]]],
    ) -> None:
        """A located way: its point (from ``extent()``), its lines (from ``coords()``:
        vertices, repeats dropped), each worked out only if a layer wants it."""
        if self.points_keep is not None:
            needed = wid in self.needed_ways
            wanted = len(tags) > 0 and self.points_keep(tags)
            ext = extent() if needed or wanted else None
            if ext is not None:
                if needed:
                    self.way_extents[wid] = ext
                if wanted:
                    self.out_points.append(
                        OsmElement("way", wid, *centre(ext), self.keep_tags(tags))
                    )
        if not (self.lines and tags):
            return
        kept = [n for n, (keep, _) in self.lines.items() if keep(tags)]
        if not kept:
            return
        vertices = coords()
        if len(vertices) < 2:
            return
        line = shapely.LineString(vertices)
        for n in kept:
            self.found_lines[n].append((wid, self.keep_tags(tags), line))

    def area(
        self, from_way: bool, oid: int, tags: Mapping[str, str], wkb: Callable[[], bytes]
    ) -> None:
        """An assembled area (from a closed way with ``tags``, or from relation ``oid``):
        its WKB (``wkb()``, skipped if it raises) for the layers that keep it."""
        if from_way:
            if not tags:
                return
            kept: list[tuple[str, Mapping[str, str]]] = [
                (n, tags) for n, keep in self.area_keeps.items() if keep(tags)
            ]
            kind = "way"
        else:  # the relation's own tags, kept when it was read
            kept = [(n, self.area_tags[n].get(oid)) for n in self.areas]
            kept = [(n, t) for n, t in kept if t is not None]
            kind = "relation"
        if not kept:
            return
        try:
            self.wkbs.append(wkb())
        except (RuntimeError, ValueError):
            return
        for n, layer_tags in kept:
            self.found_areas[n].append(
                (
                    TYPE_ORDER[kind],
                    oid,
                    f"{kind}/{oid}",
                    self.keep_tags(layer_tags),
                    len(self.wkbs) - 1,
                )
            )

    # -- the layers -------------------------------------------------------------------

    def routes_layer(self, locate: Locate) -> list:
        """The routes, their stops located."""
        stops = sorted({int(s) for _, ss in self.routes_found.values() for s in ss})
        return make_routes(self.routes_found, locate(stops))

    def points_layer(self, locate: Locate) -> list[OsmElement]:
        """The points: the nodes and ways found, and the relations' (their members'
        extent), in type and id order."""
        ids = sorted({int(n) for _, nodes, _, _ in self.point_rels.values() for n in nodes})
        located = _Located(locate(ids))
        for rid, (tags, nodes, ways, _) in self.point_rels.items():
            ext = relation_extent(nodes, ways, located, self.way_extents)
            if ext is not None:
                self.out_points.append(OsmElement("relation", rid, *centre(ext), tags))
        self.out_points.sort(key=lambda e: (TYPE_ORDER[e.osm_type], e.osm_id))
        return self.out_points

    def shape_layers(self) -> dict[str, list]:
        """The area and line layers, each in type and id order: the areas' WKB made
        geometry (each dropped once read: after the read's ids and locations are gone,
        the peak is lower)."""
        geoms = self._area_geometries()
        result: dict[str, list] = {}
        for n, rows in self.found_areas.items():
            rows.sort(key=lambda t: (t[0], t[1]))
            result[n] = [(key, tags, geoms[i]) for _, _, key, tags, i in rows if geoms[i]]
        for n, rows in self.found_lines.items():
            rows.sort(key=lambda t: t[0])
            result[n] = [(f"way/{wid}", tags, line) for wid, tags, line in rows]
        return result

    def _area_geometries(self) -> list[Any]:
        """The areas' polygonal geometry (or its WKB, :attr:`areas_as_wkb`), by their
        place in ``wkbs`` (None where GEOS cannot read it or it has no polygon)."""
        geoms: list[Any] = []
        for i, wkb in enumerate(self.wkbs):
            self.wkbs[i] = None
            try:
                geom = polygonal(shapely.from_wkb(wkb))
            except (RuntimeError, ValueError, shapely.errors.GEOSException):
                geom = None
            if geom is not None and self.areas_as_wkb:
                geom = shapely.to_wkb(geom)
            geoms.append(geom)
        self.wkbs = []
        return geoms
