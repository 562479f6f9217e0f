"""The matching marked-path question (JLTG.EU house rules, Matching: Marked Path) (pure).

"Is your marked path the same as mine?" — the path meant is the nearest marked path.

**A marked path** (JLTG.EU house rules, Definitions of Terms: Marked Path) is a path,
street, road, way or lane seen on the map, for vehicles or not, that is publicly
accessible; a road behind a control or a prohibiting sign does not count, and parks are
not marked paths. Read from OSM (:func:`is_marked_path`): a ``highway=*`` way of
:data:`MARKED_HIGHWAYS` (roads, streets, footways, cycleways, paths, steps, tracks,
service roads), not an area (``area=yes``: "a square ... can be left out"), and not
closed to the public (``access`` in :data:`NOT_PUBLIC`) unless walking, cycling or
driving is allowed on it all the same (``foot``, ``bicycle``, ``vehicle``,
``motor_vehicle`` or ``motorcar`` = ``yes`` / ``designated`` / ``permissive`` /
``destination``: "pedestrian traffic may be allowed in an area where vehicle traffic is
not"). Bus-only roads, platforms, corridors and roads under construction are left out.
Gates mapped as nodes (``barrier=gate``) are not read: a way behind a private gate is
almost always tagged ``access=private`` itself.

**Where a path ends.** "The path is considered to end when it changes name. If the path
is unnamed, then it ends at the nearest intersections." A named path is every marked
way with that ``name`` connected to it through ways of the same name, or lying less
than :data:`NAME_JOIN_M` (50 m) from one of them: the two carriageways of a dual
carriageway are one street even where they meet only beyond the data. A street of the
same name elsewhere in the area, not joined to it, is another path. An unnamed path is
a run of unnamed ways between intersections: nodes where three or more way ends or
passages meet, or where it meets a named way; two unnamed ways joined end to end (a way
split for a bridge) are one path.

**The matching region** is the set of points whose nearest marked path is the seekers'
one, a Voronoi diagram of lines. It is built in the play area's azimuthal frame
(:class:`~stations_generator.core.geo.shapes.AzimuthalFrame`, metres) from points on
the paths no more than :data:`SAMPLE_SPACING_M` apart (every vertex, and points between
them): the nearest sample of a point is at most half the spacing farther than its
nearest path, so **a point is given a path at most** :data:`ERROR_BOUND_M` **(1 m)
farther from it than its truly nearest path** — only points within 1 m of being
equidistant from two paths can be given the wrong one. The frame's own scale error is
far below that within a play area (under 1e-5 of the distance 20 km from its centre).
The hider's answer is read from the same samples, so the map and the answers agree.
Only the samples near the seekers' path enter the diagram, which changes nothing in it
(:meth:`MarkedPaths.region`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.core.play.highways import MARKED_HIGHWAYS, NOT_PUBLIC, is_marked_path
from stations_generator.core.questions.geometry import AreaQuestion, LonLat
from stations_generator.core.questions.legal import QuestionError

__all__ = [
    "ERROR_BOUND_M",
    "MARKED_HIGHWAYS",
    "NAME_JOIN_M",
    "NOT_PUBLIC",
    "SAMPLE_SPACING_M",
    "MarkedPaths",
    "MarkedWay",
    "MatchingMarkedPathQuestion",
    "is_marked_path",
]

#: Two ways of one name less than this apart (m) are one path even where they do not
#: meet in the data: the two carriageways of a dual carriageway, a sidewalk mapped
#: beside its street with the street's name (carriageways lie 5-40 m apart).
NAME_JOIN_M = 50.0
#: Largest gap between two samples on a path (m).
SAMPLE_SPACING_M = 2.0
#: How much farther than its nearest path a point's path may be (m): half the spacing,
#: and the rounding of the samples to the millimetre.
ERROR_BOUND_M = SAMPLE_SPACING_M / 2 + 0.001
# Samples are rounded to this grid (m): points closer than that are one (GEOS's Voronoi
# fails on near-duplicates). It adds at most 0.7 mm to the bound.
_GRID_M = 0.001


@dataclass(frozen=True)
class MarkedWay:
    """One marked-path way: its OSM key (``way/123``), ``name`` ('' if none), lon/lat line."""

    key: str
    name: str
    line: BaseGeometry


def _vertex_ids(ways: Sequence[MarkedWay]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Unique vertices (lon/lat rows) of the ways and each way's vertex ids."""
    coords = [shapely.get_coordinates(w.line) for w in ways]
    allc = np.vstack(coords) if coords else np.zeros((0, 2))
    unique, inverse = np.unique(allc, axis=0, return_inverse=True)
    ids, start = [], 0
    for c in coords:
        ids.append(inverse.ravel()[start : start + len(c)])
        start += len(c)
    return unique, ids


def _name_joins(
    ways: Sequence[MarkedWay], ids: list[np.ndarray], xy: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of ways (i < j) of one name less than :data:`NAME_JOIN_M` apart (in the frame)."""
    named = [k for k, w in enumerate(ways) if w.name and len(np.unique(ids[k])) >= 2]
    if len(named) < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    lines = [shapely.linestrings(xy[ids[k]]) for k in named]
    left, right = shapely.STRtree(lines).query(lines, predicate="dwithin", distance=NAME_JOIN_M)
    idx = np.array(named)
    i, j = idx[left], idx[right]
    same = np.array([ways[x].name == ways[y].name for x, y in zip(i, j, strict=True)], bool)
    keep = same & (i < j) if len(i) else np.zeros(0, bool)
    return i[keep], j[keep]


def _path_labels(ways: Sequence[MarkedWay], frame: AzimuthalFrame) -> tuple[np.ndarray, ...]:
    """Segments (vertex a, vertex b) of the ways, their path number, their way, and the
    vertices projected into ``frame`` (see "Where a path ends" in the module docstring)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    vertices, ids = _vertex_ids(ways)
    x, y = frame.project_xy(vertices[:, 0], vertices[:, 1])
    xy = np.column_stack([x, y])
    names = sorted({w.name for w in ways if w.name})
    name_no = {n: k for k, n in enumerate(names)}
    a = np.concatenate([v[:-1] for v in ids])
    b = np.concatenate([v[1:] for v in ids])
    seg_name = np.concatenate(
        [np.full(len(v) - 1, name_no.get(w.name, -1)) for w, v in zip(ways, ids, strict=True)]
    )
    seg_way = np.concatenate([np.full(len(v) - 1, k) for k, v in enumerate(ids)])
    keep = a != b
    a, b, seg_name, seg_way = a[keep], b[keep], seg_name[keep], seg_way[keep]
    n = len(a)
    # Incidences: each segment touches its two vertices.
    inc_v = np.concatenate([a, b])
    inc_s = np.concatenate([np.arange(n), np.arange(n)])
    inc_name = np.concatenate([seg_name, seg_name])
    degree = np.bincount(inc_v, minlength=len(vertices))
    order = np.lexsort((inc_s, inc_name, inc_v))
    v, s, nm = inc_v[order], inc_s[order], inc_name[order]
    same_v = v[1:] == v[:-1]
    same_name = nm[1:] == nm[:-1]
    named = same_v & same_name & (nm[1:] >= 0)  # one name through a vertex: one path
    # Unnamed: joined only where the vertex is no intersection (two passages meet).
    unnamed = same_v & same_name & (nm[1:] < 0) & (degree[v[1:]] == 2)
    join = named | unnamed
    # Ways of one name side by side (dual carriageways): their first segments joined.
    first = np.full(len(ways), -1, np.int64)
    ways_with, at = np.unique(seg_way, return_index=True)
    first[ways_with] = at
    wi, wj = _name_joins(ways, ids, xy)
    ok = (first[wi] >= 0) & (first[wj] >= 0)
    rows = np.concatenate([s[:-1][join], first[wi][ok]])
    cols = np.concatenate([s[1:][join], first[wj][ok]])
    graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return np.column_stack([a, b]), labels, seg_way, xy


def _samples(xy: np.ndarray, segs: np.ndarray, spacing_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Points along every segment no more than ``spacing_m`` apart, and their segment.

    A segment's own vertices first, then the points between them; all rounded to the
    millimetre (:data:`_GRID_M`), so that a vertex shared by several ways is one point.
    """
    p, q = xy[segs[:, 0]], xy[segs[:, 1]]
    length = np.hypot(*(q - p).T)
    pieces = np.maximum(np.ceil(length / spacing_m), 1).astype(np.int64)
    inner = pieces - 1
    seg = np.repeat(np.arange(len(segs)), inner)
    offsets = np.cumsum(inner) - inner
    k = np.arange(len(seg)) - np.repeat(offsets, inner) + 1
    t = (k / pieces[seg])[:, None]
    between = p[seg] + t * (q[seg] - p[seg])
    ends = np.arange(len(segs))
    pts = np.vstack([p, q, between])
    return np.round(pts / _GRID_M) * _GRID_M, np.concatenate([ends, ends, seg])


class MarkedPaths:
    """The marked paths of some ways, their samples in a frame, and their Voronoi regions.

    Parameters
    ----------
    ways : sequence of MarkedWay
        Lon/lat, in the game's longitude window.
    frame : AzimuthalFrame
        The local frame (metres) the samples and the Voronoi diagram live in.
    spacing_m : float
        Largest gap between samples (:data:`SAMPLE_SPACING_M`).
    """

    def __init__(
        self, ways: Sequence[MarkedWay], frame: AzimuthalFrame, spacing_m: float = SAMPLE_SPACING_M
    ) -> None:
        self.ways = tuple(ways)
        self.frame = frame
        if not self.ways:
            raise ValueError("ways: no marked-path way given")
        segs, self.segment_path, self.segment_way, xy = _path_labels(self.ways, frame)
        pts, seg = _samples(xy, segs, spacing_m)
        # One sample per position (ways meeting at a node): the first in segment order.
        pts, first = np.unique(pts, axis=0, return_index=True)
        self.points = pts
        self.point_path = self.segment_path[seg[first]]
        self.spacing_m = spacing_m
        self._segment_xy = np.stack([xy[segs[:, 0]], xy[segs[:, 1]]], axis=1)
        self.tree = shapely.STRtree(shapely.points(pts))

    def path_of(self, lons, lats) -> np.ndarray:
        """The path number of each point's nearest sample (-1 when there are no paths)."""
        lons, lats = np.atleast_1d(lons), np.atleast_1d(lats)
        out = np.full(len(lons), -1, dtype=np.int64)
        if len(self.points) == 0 or len(lons) == 0:
            return out
        x, y = self.frame.project_xy(lons, lats)
        qi, ti = self.tree.query_nearest(shapely.points(np.column_stack([x, y])), all_matches=False)
        out[qi] = self.point_path[ti]
        return out

    def describe(self, path: int) -> str:
        """A path's name, or ``unnamed way/…`` (its first way)."""
        first = int(np.flatnonzero(self.segment_path == path)[0])
        way = self.ways[int(self.segment_way[first])]
        return way.name or f"unnamed {way.key}"

    def reach_m(self, path: int, extent_xy: BaseGeometry) -> float:
        """An upper bound ``R`` (m) of how far a point of ``extent_xy`` whose nearest sample
        lies on ``path`` can be from that sample (the points between the extent's lattice
        nodes included).

        Lattice nodes ``g`` apart over the extent (64 across), those within ``g`` of it
        kept: every point ``P`` of the extent is within ``h = g/√2`` of a kept node ``n``,
        so ``d(P) ≤ d(n) + h`` and ``d(P, path) ≥ d(n, path) − h`` (``d``: to the nearest
        sample). ``P`` can only be on the path's side where ``d(n, path) − h ≤ d(n) + h``;
        ``R`` is the largest ``d(n) + h`` over those nodes.
        """
        minx, miny, maxx, maxy = extent_xy.bounds
        g = max(maxx - minx, maxy - miny, 1.0) / 64
        h = g / math.sqrt(2)
        xs, ys = np.meshgrid(np.arange(minx, maxx + g, g), np.arange(miny, maxy + g, g))
        nodes = shapely.points(xs.ravel(), ys.ravel())
        shapely.prepare(extent_xy)
        nodes = nodes[shapely.dwithin(extent_xy, nodes, g)]
        if len(nodes) == 0:
            return h
        _, d_all = self.tree.query_nearest(nodes, return_distance=True, all_matches=False)
        mine = shapely.STRtree(shapely.points(self.points[self.point_path == path]))
        _, d_path = mine.query_nearest(nodes, return_distance=True, all_matches=False)
        there = d_path - h <= d_all + h
        return float(d_all[there].max()) + h if there.any() else h

    def region(self, path: int, extent_xy: BaseGeometry) -> BaseGeometry:
        """The points of ``extent_xy`` whose nearest sample lies on ``path`` (Voronoi cells).

        Only the samples near the path are needed. A point of the extent in the path's
        region is within ``R`` (:meth:`reach_m`) of the path's samples, so within ``R`` of
        its ways: inside their buffer ``B`` (a little over ``R``). A point there is within
        ``B' = B + spacing/2`` of a sample of the path, and every sample nearer to it
        lies within ``2B'`` of that one; so the diagram of the samples within ``2B'`` of
        the path's box, cut to the buffer, is the whole diagram's region there.
        """
        on_path = self.point_path == path
        if not on_path.any():
            return shapely.Polygon()
        # The buffer's edges are chords inside the true one: 1 % and a metre of room.
        reach = self.reach_m(path, extent_xy) * 1.01 + 1.0
        lines = shapely.linestrings(self._segment_xy[self.segment_path == path])
        around = shapely.buffer(shapely.multilinestrings(lines), reach, quad_segs=16)
        grow = 2 * (reach + self.spacing_m / 2 + _GRID_M)
        (x0, y0), (x1, y1) = self.points[on_path].min(axis=0), self.points[on_path].max(axis=0)
        x, y = self.points[:, 0], self.points[:, 1]
        near = (x >= x0 - grow) & (x <= x1 + grow) & (y >= y0 - grow) & (y <= y1 + grow)
        if near.sum() < 2:  # one sample: its cell is the whole plane
            return around
        cells = shapely.get_parts(
            shapely.voronoi_polygons(
                shapely.multipoints(self.points[near]),
                extend_to=shapely.box(*around.bounds).buffer(grow),
                ordered=True,
            )
        )
        region = shapely.coverage_union_all(cells[self.point_path[near] == path])
        return shapely.intersection(region, around)


@dataclass
class MatchingMarkedPathQuestion(AreaQuestion):
    """ "Is your marked path the same as mine?" (JLTG.EU house rules, Matching: Marked Path)."""

    seeker: LonLat
    ways: tuple[MarkedWay, ...]
    frame: AzimuthalFrame
    same: bool | None = None
    kind: ClassVar[str] = "matching"
    cost: ClassVar[tuple[int, int]] = (3, 1)

    @property
    def answer(self) -> bool | None:
        return self.same

    @cached_property
    def paths(self) -> MarkedPaths:
        """The marked paths (built on first use)."""
        return MarkedPaths(self.ways, self.frame)

    @cached_property
    def seeker_path(self) -> int:
        """The path number of the seekers' nearest marked path."""
        k = int(self.paths.path_of([self.seeker[0]], [self.seeker[1]])[0])
        if k < 0:
            raise QuestionError(f"{self.label()}: no marked path in the OSM data near the seeker")
        return k

    def answer_for(self, lon: float, lat: float) -> bool:
        return bool(self.answers_for([lon], [lat])[0])

    def answers_for(self, lons, lats) -> np.ndarray:
        return self.paths.path_of(np.asarray(lons, float), np.asarray(lats, float)) == (
            self.seeker_path
        )

    def _region(self, extent: BaseGeometry) -> BaseGeometry:
        extent_xy = self.frame.project_area(extent)
        region = self.paths.region(self.seeker_path, extent_xy)
        # Voronoi edges are straight in the frame: cut into 50 m pieces before mapping
        # back, a piece's lon/lat chord strays from the frame's line by under 0.1 mm.
        return self.frame.unproject(shapely.segmentize(region, 50.0))

    def kept_for(self, answer: Any, extent: BaseGeometry) -> BaseGeometry:
        if extent.is_empty:
            return extent
        cached = self.__dict__.get("_last_region")
        if cached is None or cached[0] is not extent:
            cached = (extent, self._region(extent))
            self.__dict__["_last_region"] = cached
        region = cached[1]
        return extent.intersection(region) if answer else extent.difference(region)

    def cost_key(self) -> tuple:
        return (self.kind, "marked-path")

    def label(self) -> str:
        return "Matching marked path"

    def answer_text(self, answer: bool) -> str:
        return "same" if answer else "different"
