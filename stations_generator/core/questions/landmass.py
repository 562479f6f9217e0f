"""The matching landmass question (JLTG.EU house rules, Matching: Landmass) (pure).

The rule: "A landmass is area of land that is in one piece, not broken up by a
waterway. If the hider is on a landmass that is entirely surrounded by the landmass the
seekers are on, it counts as a match."

How the land is built from OSM data inside a **window** (the play area and a margin,
cut to the extracts' own boxes: land beyond the data is unknown):

1. **Sea.** ``natural=coastline`` ways have the land on their left. They are joined
   end to end, cut to the window, and an end left inside the window (a way cut off at
   the edge of an extract) is joined straight to the nearest point of the window's
   edge; the window's edge and the coastlines then split the window into faces. Every
   coastline segment inside the window votes: the face just left of its midpoint is
   land, the face just right of it sea; a face is land when its votes say so (most
   votes win, so a few wrongly drawn ways do not flip a face; a tie, or a face no
   coastline borders, is land). With no coastline in the window all of it is land.
   Islands (closed coastline rings) are their own faces: separate landmasses, in a
   sea face that their own votes make sea.
2. **Inland water.** Open water areas (``natural=water`` with any ``water=*``,
   ``waterway=riverbank``, ``dock``, ``landuse=reservoir``, ``basin``; see
   :func:`~stations_generator.core.questions.water_bodies.is_open_water`: no covered,
   tunnelled, underground, intermittent or seasonal water) are taken out of the land.
   ``natural=bay`` is not: a bay is sea the coastline already bounds, and its outline is
   often drawn across the land.
3. **Rivers and canals mapped only as lines** (``waterway=river`` / ``canal``, open
   stretches) cut the land where they cross a piece of it from one shore to another; a
   line that ends inside the land (a river's source, a gap in the data) splits nothing.
   Streams, ditches and drains do not cut land.

A bridge is a way, not land, so it joins nothing; a ferry neither. The pieces left are
the landmasses. The seekers' match region is their landmass with its holes filled: every
landmass inside one of its holes (an island in a lake of their landmass: "entirely
surrounded"), and the water it surrounds (a hider by a pond or a fountain is on the land
around it). An island around which the seekers' landmass only partly reaches (in the sea,
in a river between two landmasses) is not surrounded, nor is water open to the sea: a
hider there (on a pier or a bridge mapped only as a way, on a boat) is on no landmass of
the seekers'. The seekers, asking from a bridge or a ferry, are on the landmass nearest
to them (measured in the local azimuthal frame, metres).

All of this is topology (which side of a line, which face holds a point), done in
lon/lat where OSM draws its ways; no distance is measured in degrees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.core.questions.geometry import AreaQuestion, LonLat
from stations_generator.core.questions.legal import QuestionError
from stations_generator.core.questions.water_bodies import is_open_water

__all__ = [
    "LandData",
    "Landmasses",
    "MatchingLandmassQuestion",
    "coast_land",
    "cuts_land",
]

# A vote's point lies this fraction of its segment's length beside the segment's
# midpoint: strictly on one side, and (for any face wider than a thousandth of the
# segment) inside the face next to it.
_SIDE_STEP = 1e-3


def cuts_land(tags: Mapping[str, str]) -> bool:
    """Whether a water area with these tags is taken out of the land (see the module docstring).

    Parameters
    ----------
    tags : Mapping[str, str]
        A water area's OSM tags (the ``water`` layer).

    Returns
    -------
    bool
        False for ``natural=bay`` and water that is not open.
    """
    return tags.get("natural") != "bay" and is_open_water(tags)


@dataclass(frozen=True)
class LandData:
    """What the landmasses are built from (lon/lat, in the game's longitude window).

    Attributes
    ----------
    window : the (Multi)Polygon where land is known: the play area and a margin, cut
        to the extracts' boxes
    coastlines : ``natural=coastline`` ways, land on their left
    water : open water areas that cut the land (:func:`cuts_land`)
    rivers : open river and canal lines
    """

    window: BaseGeometry
    coastlines: tuple[BaseGeometry, ...] = ()
    water: tuple[BaseGeometry, ...] = ()
    rivers: tuple[BaseGeometry, ...] = ()


def _segments(lines) -> np.ndarray:
    """Every segment of the lines as rows (x1, y1, x2, y2)."""
    rows = []
    for line in lines:
        for part in shapely.get_parts(line):
            c = shapely.get_coordinates(part)
            if len(c) >= 2:
                rows.append(np.column_stack([c[:-1], c[1:]]))
    return np.vstack(rows) if rows else np.zeros((0, 4))


def _closing_lines(pieces: BaseGeometry, window: BaseGeometry) -> list[BaseGeometry]:
    """Straight lines from each coastline end left inside the window to the window's edge."""
    edge = window.boundary
    ends: dict[tuple[float, float], int] = {}
    for part in shapely.get_parts(shapely.line_merge(pieces)):
        if part.is_closed:
            continue
        for xy in (part.coords[0], part.coords[-1]):
            ends[xy] = ends.get(xy, 0) + 1
    out = []
    for xy, count in sorted(ends.items()):
        point = shapely.Point(xy)
        if count == 1 and not edge.intersects(point):
            out.append(shapely.shortest_line(point, edge))
    return out


def coast_land(window: BaseGeometry, coastlines) -> BaseGeometry:
    """The land of ``window`` by the coastlines (step 1 of the module docstring).

    Parameters
    ----------
    window : (Multi)Polygon, lon/lat
    coastlines : sequence of LineStrings, land on their left

    Returns
    -------
    (Multi)Polygon
        The land faces, unioned; the whole window when no coastline crosses it.
    """
    lines = [g for g in coastlines if not g.is_empty and g.intersects(window)]
    if not lines:
        return window
    merged = shapely.line_merge(shapely.MultiLineString(lines), directed=True)
    pieces = shapely.intersection(merged, window)
    noded = shapely.union_all([window.boundary, pieces, *_closing_lines(pieces, window)])
    faces = list(shapely.get_parts(shapely.polygonize(shapely.get_parts(noded))))
    seg = _segments(shapely.get_parts(merged))
    mid = (seg[:, :2] + seg[:, 2:]) / 2
    inside = shapely.intersects_xy(window, mid[:, 0], mid[:, 1])
    seg, mid = seg[inside], mid[inside]
    left = np.column_stack([-(seg[:, 3] - seg[:, 1]), seg[:, 2] - seg[:, 0]]) * _SIDE_STEP
    votes = np.zeros(len(faces))
    tree = shapely.STRtree(faces)
    for sign in (1.0, -1.0):
        _, fi = tree.query(shapely.points(mid + sign * left), predicate="intersects")
        np.add.at(votes, fi, sign)
    # No vote: a face only closing lines and the window's edge bound (no coastline
    # borders it; an island's sea has the island's votes) is land.
    land = [face for k, face in enumerate(faces) if votes[k] >= 0]
    return shapely.union_all(land) if land else shapely.Polygon()


def _split_by_rivers(land: BaseGeometry, rivers) -> list[BaseGeometry]:
    """The pieces of ``land`` that rivers crossing it from shore to shore cut apart."""
    if land.is_empty:
        return []
    cuts = [shapely.intersection(r, land) for r in rivers if r.intersects(land)]
    if not cuts:
        return list(shapely.get_parts(land))
    noded = shapely.union_all([land.boundary, *cuts])
    faces = shapely.get_parts(shapely.polygonize(shapely.get_parts(noded)))
    shapely.prepare(land)
    return [f for f in faces if land.contains_properly(f.representative_point())]


class Landmasses:
    """The landmasses of :class:`LandData` and which one holds a point.

    Parameters
    ----------
    data : LandData
    """

    def __init__(self, data: LandData) -> None:
        land = coast_land(data.window, data.coastlines)
        water = [g for g in data.water if g.intersects(data.window)]
        if water:
            land = shapely.difference(land, shapely.union_all(water))
        pieces = [p for p in _split_by_rivers(land, data.rivers) if p.area > 0]
        # A fixed order (same data, same numbering): by the lower-left corner.
        pieces.sort(key=lambda p: (p.bounds, p.area))
        self.pieces: tuple[BaseGeometry, ...] = tuple(pieces)
        self.tree = shapely.STRtree(self.pieces)
        for p in self.pieces:
            shapely.prepare(p)

    def __len__(self) -> int:
        return len(self.pieces)

    def index_of(self, lons, lats) -> np.ndarray:
        """The landmass holding each point (an index into :attr:`pieces`), -1 on water."""
        pts = shapely.points(np.column_stack([np.atleast_1d(lons), np.atleast_1d(lats)]))
        out = np.full(len(pts), -1, dtype=np.int64)
        pi, li = self.tree.query(pts, predicate="intersects")
        out[pi] = li  # pieces only meet on their edges: any of them will do there
        return out

    def nearest(self, lon: float, lat: float, frame: AzimuthalFrame) -> int:
        """The landmass nearest a point (metres in ``frame``), -1 when there is none."""
        if not self.pieces:
            return -1
        inside = int(self.index_of([lon], [lat])[0])
        if inside >= 0:
            return inside
        point = frame.project(shapely.Point(lon, lat))
        d = [point.distance(frame.project(p)) for p in self.pieces]
        return int(np.argmin(d))

    def surrounded_by(self, k: int) -> list[int]:
        """Landmass ``k`` and every landmass inside one of its holes."""
        piece = self.pieces[k]
        out = [k]
        holes = [shapely.Polygon(r) for r in getattr(piece, "interiors", ())]
        if not holes:
            return out
        filled = shapely.union_all(holes)
        shapely.prepare(filled)
        for j in self.tree.query(filled, predicate="intersects").tolist():
            if j != k and filled.contains(self.pieces[j].representative_point()):
                out.append(j)
        return sorted(out)


@dataclass
class MatchingLandmassQuestion(AreaQuestion):
    """ "Is your landmass the same as mine?" (JLTG.EU house rules, Matching: Landmass)."""

    seeker: LonLat
    data: LandData
    frame: AzimuthalFrame
    same: bool | None = None
    kind: ClassVar[str] = "matching"
    cost: ClassVar[tuple[int, int]] = (3, 1)

    @property
    def answer(self) -> bool | None:
        return self.same

    @cached_property
    def landmasses(self) -> Landmasses:
        """The landmasses of the window (built on first use)."""
        return Landmasses(self.data)

    @cached_property
    def seeker_landmass(self) -> int:
        """The seekers' landmass (an index into the landmasses' pieces)."""
        k = self.landmasses.nearest(*self.seeker, self.frame)
        if k < 0:
            raise QuestionError(f"{self.label()}: no land in the OSM data near the seeker")
        return k

    @cached_property
    def region(self) -> BaseGeometry:
        """The seekers' landmass with its holes filled: the landmasses and the water it
        entirely surrounds (:meth:`Landmasses.surrounded_by`)."""
        region = shapely.Polygon(self.landmasses.pieces[self.seeker_landmass].exterior)
        shapely.prepare(region)
        return region

    def answer_for(self, lon: float, lat: float) -> bool:
        return bool(self.answers_for([lon], [lat])[0])

    def answers_for(self, lons, lats) -> np.ndarray:
        lons, lats = np.atleast_1d(lons).astype(float), np.atleast_1d(lats).astype(float)
        return shapely.intersects_xy(self.region, lons, lats)

    def kept_for(self, answer: Any, extent: BaseGeometry) -> BaseGeometry:
        region = self.region
        return extent.intersection(region) if answer else extent.difference(region)

    def cost_key(self) -> tuple:
        return (self.kind, "landmass")

    def label(self) -> str:
        return "Matching landmass"

    def answer_text(self, answer: bool) -> str:
        return "same" if answer else "different"
