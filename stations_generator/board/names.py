"""What a board is named by: its cities' built-up outlines, its labels, its title (pure).

* **City outlines.** A big city covers the squares of its built-up area, not only the
  square of its ``place`` node: its outline is the OSM area of the same name that holds
  the node (a ``place=city|town|village`` area as it is; else the administrative area of
  the highest ``admin_level``, cut to the built-up landuse inside it, if any); without
  such an area,
  the built-up landuse within :data:`CITY_REACH_M` of the node. The city's squares are
  those the outline covers by at least the built-up threshold, joined (8 neighbours) to
  the node's square, neither water nor forest nor another city's. A city whose node lies
  in a bigger city's squares is part of that city.
* **Labels.** Motorway numbers (the ways' ``ref``) every :data:`LABEL_SPACING` squares
  along the road, big rivers and canals (named, at least :data:`RIVER_MIN_SQUARES` squares
  long on the grid), big lakes (named water of at least one square's area) and the names
  of towns and villages. The printed board shows as many as fit (:mod:`.render`).
* **The title.** The smallest administrative area that covers at least half of the play
  area (:func:`region_name`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import LineString, Point, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from stations_generator.board.grid import Grid

__all__ = ["CityArea", "board_labels", "city_areas", "region_name"]

#: Without an OSM outline, a city is the built-up landuse this close to its node: 250 m
#: joins the blocks of a town centre without reaching the next village.
CITY_REACH_M = 250.0
#: A motorway number or river name is repeated every 12 squares (a third of the
#: original board's 36 rows), at most :data:`LABELS_PER_NAME` times.
LABEL_SPACING = 12
LABELS_PER_NAME = 3
#: A river or canal is "big" when its course on the grid is at least 3 squares long.
RIVER_MIN_SQUARES = 3.0


@dataclass(frozen=True)
class CityArea:
    """A city's squares: ``centre`` (its node's square) first, then the rest, sorted."""

    centre: int
    name: str
    squares: tuple[int, ...]


def _outline(name: str, point: Point, areas: list):
    """The OSM area named ``name`` holding ``point``: a place area, else the most local
    administrative one (``areas``: projected ``NamedArea``), or None."""
    key = name.casefold()
    hits = [a for a in areas if a.name.casefold() == key and a.geom.covers(point)]
    if not hits:
        return None
    return min(hits, key=lambda a: (a.kind != "place", -a.rank, a.geom.area))


def _city_region(
    name: str, point: Point, areas: list, builtup: BaseGeometry | None
) -> BaseGeometry | None:
    """The built-up part of the city's outline (see the module docstring)."""
    outline = _outline(name, point, areas)
    if outline is not None:
        if outline.kind == "place" or builtup is None:
            return outline.geom  # a place outline is drawn round the town itself
        inside = outline.geom.intersection(builtup)
        return inside if inside.area > 0 else outline.geom
    if builtup is None:
        return None
    parts = [p for p in shapely.get_parts(builtup) if p.distance(point) <= CITY_REACH_M]
    return unary_union(parts) if parts else None


def _grow(grid: Grid, centre: int, allowed: np.ndarray) -> list[int]:
    """The squares of ``allowed`` joined to ``centre`` through 8-neighbour steps."""
    seen = {centre}
    stack = [centre]
    while stack:
        for n in grid.neighbours(stack.pop(), 8):
            if allowed[n] and n not in seen:
                seen.add(n)
                stack.append(n)
    return sorted(seen)


def city_areas(
    grid: Grid,
    cover: Callable[[list[BaseGeometry]], np.ndarray],
    cities: dict[int, tuple[str, tuple[float, float]]],
    areas: list,
    builtup: list[BaseGeometry],
    open_land: np.ndarray,
    share: float,
) -> list[CityArea]:
    """Every big city's squares (see the module docstring).

    Parameters
    ----------
    grid : Grid
    cover : callable
        Share of each square a list of projected polygons covers.
    cities : dict
        Node square → (name, projected node position), most populous first.
    areas : list of NamedArea
        Place and administrative areas, projected.
    builtup : list of BaseGeometry
        Built-up landuse, projected.
    open_land : numpy.ndarray
        Squares on the board that are neither water nor forest.
    share : float
        The built-up threshold: the share of a square a city must cover.

    Returns
    -------
    list of CityArea
        In the order of ``cities``; a city inside a bigger one is left out.
    """
    merged = unary_union(builtup) if builtup else None
    taken: set[int] = set()
    out = []
    for centre, (name, xy) in cities.items():
        if centre in taken:
            continue
        region = _city_region(name, Point(xy), areas, merged)
        squares = [centre]
        if region is not None and not region.is_empty:
            allowed = (cover([region]) >= share) & open_land
            allowed[list(taken)] = False
            allowed[centre] = True
            squares = _grow(grid, centre, allowed)
        taken.update(squares)
        out.append(CityArea(centre, name, (centre, *sorted(set(squares) - {centre}))))
    return out


def _spread_squares(grid: Grid, squares: set[int]) -> list[int]:
    """Up to :data:`LABELS_PER_NAME` of ``squares``, :data:`LABEL_SPACING` apart, the first
    nearest their middle."""
    cells = sorted(squares)
    rc = np.array([divmod(s, grid.cols) for s in cells], dtype=float)
    mid = rc.mean(axis=0)
    order = sorted(range(len(cells)), key=lambda i: (float(np.abs(rc[i] - mid).max()), cells[i]))
    chosen = [order[0]]
    for i in order[1:]:
        if len(chosen) == LABELS_PER_NAME:
            break
        if all(np.abs(rc[i] - rc[j]).max() >= LABEL_SPACING for j in chosen):
            chosen.append(i)
    return [cells[i] for i in chosen]


def _line_squares(grid: Grid, cells: np.ndarray, on_board: np.ndarray, lines: list) -> set[int]:
    tree = shapely.STRtree(np.array(lines, dtype=object))
    idx, _ = tree.query(cells, predicate="intersects")
    return {int(s) for s in np.unique(idx) if on_board[s]}


def board_labels(
    grid: Grid,
    cells: np.ndarray,
    on_board: np.ndarray,
    features,
    fwd: Callable,
    project: Callable[[BaseGeometry], BaseGeometry],
    skip: set[int],
) -> list[tuple[int, str, str]]:
    """The board's labels ``(square, text, kind)``: motorway, river, lake, town, village.

    ``features`` is the board's :class:`~.terrain.MapFeatures`; ``fwd`` projects a lon/lat
    pair and ``project`` a geometry into the grid's CRS; ``skip``: city squares (their
    names are printed from the cities).
    """
    out: list[tuple[int, str, str]] = []
    by_ref: dict[str, list[LineString]] = {}
    for ref, way in zip(features.motorway_refs, features.motorways, strict=False):
        if ref and len(way) >= 2:
            by_ref.setdefault(ref, []).append(LineString([fwd(*c) for c in way]))
    for ref in sorted(by_ref):
        squares = _line_squares(grid, cells, on_board, by_ref[ref])
        if squares:
            out += [(s, ref, "motorway") for s in _spread_squares(grid, squares)]
    extent = box(grid.west, grid.north - grid.rows * grid.cell_m, *_east_north(grid))
    rivers: dict[str, list[LineString]] = {}
    for name, way in features.rivers:
        if len(way) >= 2:
            rivers.setdefault(name, []).append(LineString([fwd(*c) for c in way]))
    for name in sorted(rivers):
        length = sum(line.intersection(extent).length for line in rivers[name])
        squares = _line_squares(grid, cells, on_board, rivers[name])
        if length >= RIVER_MIN_SQUARES * grid.cell_m and squares:
            out += [(s, name, "river") for s in _spread_squares(grid, squares)]
    named = {t for _s, t, k in out if k == "river"}
    lakes: dict[str, list[BaseGeometry]] = {}
    for name, geom in features.named_water:
        lakes.setdefault(name, []).append(project(geom).intersection(extent))
    for name in sorted(set(lakes) - named):
        water = unary_union(lakes[name])
        if water.area >= grid.cell_m**2:
            s = grid.locate(*water.representative_point().coords[0])
            if s is not None and on_board[s]:
                out.append((s, name, "lake"))
    seen = set(skip)
    for p in sorted(features.places, key=lambda p: (p.kind != "town", -p.population, p.name)):
        s = grid.locate(*fwd(p.lon, p.lat))
        if p.name and p.kind in ("town", "village") and s is not None and on_board[s]:
            if s not in seen:
                seen.add(s)
                out.append((s, p.name, p.kind))
    return out


def _east_north(grid: Grid) -> tuple[float, float]:
    return grid.west + grid.cols * grid.cell_m, grid.north


def region_name(area: BaseGeometry, areas: list) -> str | None:
    """The smallest administrative area covering at least half of ``area`` (projected).

    Parameters
    ----------
    area : BaseGeometry
        The play area, projected.
    areas : list of NamedArea
        Place and administrative areas, projected.

    Returns
    -------
    str or None
        Its name; None when no administrative area covers half of the play area.
    """
    whole = area.area
    if whole <= 0:
        return None
    found = [
        a for a in areas if a.kind == "admin" and a.geom.intersection(area).area >= 0.5 * whole
    ]
    if not found:
        return None
    return min(found, key=lambda a: (-a.rank, a.geom.area, a.name)).name
