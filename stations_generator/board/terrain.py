"""Terrain per square from OSM geometry (pure: no files, no network).

Input is :class:`MapFeatures` in WGS84 lon/lat (what :mod:`.osmdata` reads); the
geometry is projected into the grid's UTM zone (exact projection; UTM's scale error
is below 0.1 % inside a zone, so areas and shares are good to ~0.2 %).

The rules, each with its tunable threshold in :class:`Thresholds`:

* **on the board**: the play area covers at least ``area_share`` of the square.
* **motorway**: a ``highway=motorway`` way crosses the square (any length inside).
* **junction**: the square holds a junction: ``highway=motorway_junction`` nodes
  with the same name (else ref) within ``junction_merge_m`` of each other are one
  junction (one node per carriageway, both halves of an interchange), placed on
  the square of their mean position. The junction graph joins two junction
  squares when one is reached from the other along ``highway=motorway`` and
  ``motorway_link`` ways (through shared OSM nodes) without passing another
  junction: "the next junction along the road".
* **big city**: a ``place=city`` node, or a ``place=town`` whose ``population`` is at
  least ``town_population`` (off by default); the city covers the squares of its
  built-up area (:func:`~.names.city_areas`), its node's square always.
* **airfield**: the square holds the centre of an ``aeroway=aerodrome``.
* **water** / **forest**: water (``natural=water``, riverbanks, docks, reservoirs,
  basins, and the sea assembled from ``natural=coastline``) or forest
  (``landuse=forest``, ``natural=wood``) covers at least ``water_share`` /
  ``forest_share`` of the square.
* **built-up**: ``landuse=residential|commercial|retail|industrial`` covers at least
  ``builtup_share``.
* **waterside**: a passable square with a water square among its 8 neighbours.

Water and forest squares are impassable, except that a junction, city, airfield or
start square is always passable (the road, station or prison is there).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyproj
import shapely
from shapely.geometry import LineString, Point, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from stations_generator.board.grid import Grid, utm_epsg
from stations_generator.board.names import board_labels, city_areas, region_name

__all__ = [
    "MapFeatures",
    "NamedArea",
    "Place",
    "Thresholds",
    "TerrainResult",
    "compute_terrain",
    "project",
]


@dataclass(frozen=True)
class Place:
    """A named point: junction, city, airfield, prison or landmark (lon/lat)."""

    lon: float
    lat: float
    name: str
    kind: str = ""
    population: int = 0
    osm: str = ""
    ref: str = ""


@dataclass(frozen=True)
class NamedArea:
    """A named OSM area: ``kind`` ``place`` or ``admin`` (``rank``: its admin_level)."""

    name: str
    kind: str
    rank: int
    geom: BaseGeometry


@dataclass
class MapFeatures:
    """Everything a board is made of, in WGS84 lon/lat."""

    motorways: list[list[tuple[float, float]]] = field(default_factory=list)
    motorway_refs: list[str] = field(default_factory=list)  # one per motorway way ("" if none)
    rivers: list[tuple[str, list[tuple[float, float]]]] = field(default_factory=list)
    named_water: list[tuple[str, BaseGeometry]] = field(default_factory=list)
    named_areas: list[NamedArea] = field(default_factory=list)
    motorway_links: list[list[tuple[float, float]]] = field(default_factory=list)
    junctions: list[Place] = field(default_factory=list)
    places: list[Place] = field(default_factory=list)  # place=city / town
    airfields: list[Place] = field(default_factory=list)
    rail: list[list[tuple[float, float]]] = field(default_factory=list)
    stations: list[Place] = field(default_factory=list)
    coastline: list[list[tuple[float, float]]] = field(default_factory=list)
    water: list[BaseGeometry] = field(default_factory=list)
    forest: list[BaseGeometry] = field(default_factory=list)
    builtup: list[BaseGeometry] = field(default_factory=list)
    prisons: list[Place] = field(default_factory=list)
    landmarks: list[Place] = field(default_factory=list)


@dataclass(frozen=True)
class Thresholds:
    """The tunable numbers of the terrain rules (see the module docstring)."""

    area_share: float = 0.5
    water_share: float = 0.5
    forest_share: float = 0.5
    builtup_share: float = 0.3
    town_population: int | None = None
    #: A city is on the rail network when a passenger station lies within this many
    #: metres of its place node (a station ~ within walking distance of the centre).
    station_radius_m: float = 2500.0
    #: Junction nodes of one name closer than this are one junction (a motorway's two
    #: carriageways lie ~30-100 m apart, interchange halves up to ~1 km).
    junction_merge_m: float = 1500.0

    def as_dict(self) -> dict:
        return {
            "area_share": self.area_share,
            "water_share": self.water_share,
            "forest_share": self.forest_share,
            "builtup_share": self.builtup_share,
            "town_population": self.town_population,
            "station_radius_m": self.station_radius_m,
            "junction_merge_m": self.junction_merge_m,
        }


@dataclass
class TerrainResult:
    """Per-square arrays plus the graphs, as :mod:`.model` stores them."""

    grid: Grid
    on_board: np.ndarray
    motorway: np.ndarray
    water: np.ndarray  # coverage shares 0..1
    forest: np.ndarray
    builtup: np.ndarray
    junctions: dict[int, list[str]]
    motorway_edges: list[tuple[int, int]]
    cities: dict[int, str]
    airfields: dict[int, str]
    rail_links: list[tuple[int, int]]
    starts: list[tuple[int, str, str]]  # (square, name, kind)
    start_note: str | None
    city_squares: dict[int, tuple[int, ...]] = field(default_factory=dict)
    labels: list[tuple[int, str, str]] = field(default_factory=list)  # (square, text, kind)
    region: str | None = None  # the administrative area covering the play area


def project(epsg: int):
    """A ``(lon, lat) → (x, y)`` function into ``epsg`` (always x = easting)."""
    tf = pyproj.Transformer.from_crs(4326, epsg, always_xy=True)
    return tf.transform


def project_geometry(geom: BaseGeometry, epsg: int) -> BaseGeometry:
    """``geom`` (lon/lat) projected into ``epsg``, all coordinates at once."""
    tf = pyproj.Transformer.from_crs(4326, epsg, always_xy=True)

    def f(xy: np.ndarray) -> np.ndarray:
        x, y = tf.transform(xy[:, 0], xy[:, 1])
        return np.column_stack([x, y])

    return shapely.transform(geom, f)


def _cells(grid: Grid) -> np.ndarray:
    return np.array([box(*grid.bounds(i)) for i in range(grid.size)], dtype=object)


def coverage(grid: Grid, cells: np.ndarray, polygons: list[BaseGeometry]) -> np.ndarray:
    """Share of each square covered by the union of ``polygons`` (projected)."""
    out = np.zeros(grid.size)
    if not polygons:
        return out
    extent = box(
        grid.west,
        grid.north - grid.rows * grid.cell_m,
        grid.west + grid.cols * grid.cell_m,
        grid.north,
    )
    clipped = [p.intersection(extent) for p in polygons if p.intersects(extent)]
    if not clipped:
        return out
    merged = unary_union(clipped)
    parts = np.array(shapely.get_parts(merged), dtype=object)
    parts = parts[[shapely.area(p) > 0 for p in parts]] if len(parts) else parts
    if not len(parts):
        return out
    tree = shapely.STRtree(parts)
    cell_idx, part_idx = tree.query(cells, predicate="intersects")
    areas = shapely.area(shapely.intersection(cells[cell_idx], parts[part_idx]))
    np.add.at(out, cell_idx, areas)
    return np.clip(out / (grid.cell_m**2), 0.0, 1.0)


#: Sample points per square side for the sea share (8 × 8 = 64 points: ±1/128 of a square).
SEA_SAMPLES = 8


def sea_share(
    grid: Grid, coast: list[list[tuple[float, float]]], samples: int = SEA_SAMPLES
) -> np.ndarray:
    """Share of each square that is sea, from OSM coastline ways (land left, sea right).

    Extracts clip the coastline, so it rarely closes into polygons; instead each
    of ``samples``² points per square takes the side of its nearest coastline
    segment (right = sea). Exact where the nearest point lies inside a segment,
    which holds for all but points nearest a vertex; the sampling error is at
    most one sample row (1/``samples``) per square crossed by the coast.
    """
    out = np.zeros(grid.size)
    segs = []
    for way in coast:
        c = np.asarray(way, dtype=float)
        if len(c) >= 2:
            segs.append(np.concatenate([c[:-1], c[1:]], axis=1))
    if not segs:
        return out
    seg = np.concatenate(segs)
    seg = seg[(seg[:, 0] != seg[:, 2]) | (seg[:, 1] != seg[:, 3])]
    lines = shapely.linestrings(seg.reshape(-1, 2, 2))
    tree = shapely.STRtree(lines)
    offsets = (np.arange(samples) + 0.5) / samples * grid.cell_m
    ox, oy = np.meshgrid(offsets, offsets)
    ox, oy = ox.ravel(), oy.ravel()
    idx = np.arange(grid.size)
    rows, cols = np.divmod(idx, grid.cols)
    px = (grid.west + cols * grid.cell_m)[:, None] + ox[None, :]
    py = (grid.north - (rows + 1) * grid.cell_m)[:, None] + oy[None, :]
    points = shapely.points(px.ravel(), py.ravel())
    nearest = tree.query_nearest(points, all_matches=False)
    p_i, s_i = nearest
    a, b = seg[s_i, :2], seg[s_i, 2:]
    pts = np.stack([px.ravel()[p_i], py.ravel()[p_i]], axis=1)
    d = b - a
    t = np.clip(np.einsum("ij,ij->i", pts - a, d) / np.einsum("ij,ij->i", d, d), 0.0, 1.0)
    foot = a + d * t[:, None]
    cross = d[:, 0] * (pts[:, 1] - foot[:, 1]) - d[:, 1] * (pts[:, 0] - foot[:, 0])
    sea = np.zeros(len(points), dtype=bool)
    sea[p_i] = cross < 0  # right of the way's direction
    return sea.reshape(grid.size, -1).mean(axis=1)


def _junction_graph(
    grid: Grid,
    ways: list[list[tuple[float, float]]],
    junction_squares: dict[tuple[float, float], int],
) -> list[tuple[int, int]]:
    """Junction squares joined along motorway ways (see the module docstring)."""
    adj: dict[tuple[float, float], set[tuple[float, float]]] = defaultdict(set)
    for way in ways:
        for a, b in zip(way, way[1:], strict=False):
            if a != b:
                adj[a].add(b)
                adj[b].add(a)
    edges: set[tuple[int, int]] = set()
    by_square: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for node, square in junction_squares.items():
        if node in adj:
            by_square[square].append(node)
    for square, nodes in sorted(by_square.items()):
        seen = set(nodes)
        stack = list(nodes)
        while stack:
            node = stack.pop()
            for nxt in adj[node]:
                if nxt in seen:
                    continue
                seen.add(nxt)
                other = junction_squares.get(nxt)
                if other is not None and other != square:
                    edges.add((min(square, other), max(square, other)))
                    continue  # stop at the next junction
                stack.append(nxt)
    return sorted(edges)


def _junction_clusters(grid, on_board, junctions, fwd, merge_m):
    """Junction nodes → one junction square per named junction (see the module docstring).

    Returns ``(node coordinate → square, square → names)``.
    """
    groups: list[tuple[str, list[tuple[float, float]]]] = []
    for j in sorted(junctions, key=lambda j: (j.name, j.ref, j.osm)):
        node = fwd(j.lon, j.lat)
        ident = j.name or j.ref or j.osm
        for other, nodes in groups:
            if other == ident and any(
                (node[0] - n[0]) ** 2 + (node[1] - n[1]) ** 2 <= merge_m**2 for n in nodes
            ):
                nodes.append(node)
                break
        else:
            groups.append((ident, [node]))
    node_square: dict[tuple[float, float], int] = {}
    names: dict[int, list[str]] = defaultdict(list)
    for ident, nodes in groups:
        x = sum(n[0] for n in nodes) / len(nodes)
        y = sum(n[1] for n in nodes) / len(nodes)
        s = grid.locate(x, y)
        if s is None or not on_board[s]:
            continue
        for n in nodes:
            node_square[n] = s
        if ident and ident not in names[s]:
            names[s].append(ident)
    return node_square, {s: sorted(names[s]) for s in sorted(names)}


def _rail_components(rail: list[list[tuple[float, float]]]) -> tuple[dict, list]:
    """Union-find over rail ways joined at shared nodes; returns (node → root, lines)."""
    parent: dict[tuple[float, float], tuple[float, float]] = {}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for way in rail:
        for node in way:
            parent.setdefault(node, node)
        root = find(way[0])
        for node in way[1:]:
            other = find(node)
            if other != root:
                parent[other] = root
    return {n: find(n) for n in parent}, rail


def _rail_links(
    cities: dict[int, tuple[float, float]],
    stations: list[tuple[float, float]],
    rail: list[list[tuple[float, float]]],
    radius_m: float,
) -> list[tuple[int, int]]:
    """Cities (square → projected centre) joined by passenger rail.

    A city is served by a rail network component when a passenger station within
    ``radius_m`` of its centre lies within 50 m of one of the component's ways; two
    cities are linked when they share a component (the rules allow any distance).
    """
    if not cities or not stations or not rail:
        return []
    roots, _ = _rail_components(rail)
    lines = [LineString(w) for w in rail if len(w) >= 2]
    line_roots = [roots[w[0]] for w in rail if len(w) >= 2]
    if not lines:
        return []
    tree = shapely.STRtree(lines)
    station_roots: list[tuple[Point, set]] = []
    for sx, sy in stations:
        pt = Point(sx, sy)
        hits = tree.query(pt, predicate="dwithin", distance=50.0)
        station_roots.append((pt, {line_roots[h] for h in hits}))
    served: dict[int, set] = {}
    for square, (cx, cy) in cities.items():
        centre = Point(cx, cy)
        comps: set = set()
        for pt, rs in station_roots:
            if rs and pt.distance(centre) <= radius_m:
                comps |= rs
        served[square] = comps
    links = []
    squares = sorted(cities)
    for i, a in enumerate(squares):
        for b in squares[i + 1 :]:
            if served[a] & served[b]:
                links.append((a, b))
    return links


def _spread(
    candidates: list[tuple[int, str, str]], grid: Grid, k: int
) -> list[tuple[int, str, str]]:
    """Up to ``k`` candidates far apart (farthest-point order from the first, deterministic)."""
    if len(candidates) <= k:
        return candidates
    rc = [divmod(c[0], grid.cols) for c in candidates]
    chosen = [0]
    while len(chosen) < k:
        best, best_d = None, -1.0
        for i in range(len(candidates)):
            if i in chosen:
                continue
            d = min((rc[i][0] - rc[j][0]) ** 2 + (rc[i][1] - rc[j][1]) ** 2 for j in chosen)
            if d > best_d:
                best, best_d = i, d
        chosen.append(best)
    return sorted((candidates[i] for i in chosen), key=lambda c: c[0])


def make_grid(
    area_lonlat: BaseGeometry, cols: int | None, rows: int | None, cell_m: float | None
) -> tuple[Grid, BaseGeometry]:
    """The grid over the area (in the area's UTM zone) and the projected area."""
    centre = area_lonlat.centroid
    epsg = utm_epsg(centre.x, centre.y)
    area = project_geometry(area_lonlat, epsg)
    return Grid.fit(epsg, area.bounds, cols=cols, rows=rows, cell_m=cell_m), area


def compute_terrain(
    grid: Grid,
    area: BaseGeometry,
    features: MapFeatures,
    thresholds: Thresholds,
    max_starts: int = 6,
) -> TerrainResult:
    """Derive every square's terrain and the board's graphs (see the module docstring).

    Parameters
    ----------
    grid : Grid
        The board's grid (from :func:`make_grid`).
    area : BaseGeometry
        The play area, projected into the grid's CRS.
    features : MapFeatures
        The OSM features in WGS84 lon/lat.
    thresholds : Thresholds
        The numbers of the terrain rules.
    max_starts : int
        Most start locations when named landmarks stand in for prisons.

    Returns
    -------
    TerrainResult
        The per-square arrays and the junction, rail and start lists.
    """
    cells = _cells(grid)
    on_board = coverage(grid, cells, [area]) >= thresholds.area_share
    at = _Locator(grid, project(grid.epsg), on_board)
    motorway, junctions, motorway_edges = _motorways(at, cells, features, thresholds)
    cities, city_xy = _cities(at, features.places, thresholds.town_population)
    airfields: dict[int, str] = {}
    for p in sorted(features.airfields, key=lambda p: (p.name, p.osm)):
        s = at.square_of(p)
        if s is not None and s not in airfields:
            airfields[s] = p.name
    water, forest, builtup_share, builtup = _coverages(grid, cells, features, at.fwd)
    areas = [
        NamedArea(a.name, a.kind, a.rank, project_geometry(a.geom, grid.epsg))
        for a in features.named_areas
    ]
    open_land = on_board & (water < thresholds.water_share) & (forest < thresholds.forest_share)
    found = city_areas(
        grid,
        lambda polys: coverage(grid, cells, polys),
        {s: (name, city_xy[s]) for s, name in cities.items()},
        areas,
        builtup,
        open_land,
        thresholds.builtup_share,
    )
    cities = {c.centre: c.name for c in found}
    city_xy = {s: city_xy[s] for s in cities}
    stations = [at.xy(s) for s in features.stations]
    rail = [[at.fwd(*c) for c in w] for w in features.rail if len(w) >= 2]
    rail_links = _rail_links(city_xy, stations, rail, thresholds.station_radius_m)
    starts, note = _starts(at, features, max_starts)
    city_squares = {c.centre: c.squares for c in found}
    labels = board_labels(
        grid,
        cells,
        on_board,
        features,
        at.fwd,
        lambda g: project_geometry(g, grid.epsg),
        {s for sq in city_squares.values() for s in sq},
    )
    return TerrainResult(
        grid=grid,
        on_board=on_board,
        motorway=motorway,
        water=water,
        forest=forest,
        builtup=builtup_share,
        junctions=junctions,
        motorway_edges=motorway_edges,
        cities=cities,
        airfields=airfields,
        rail_links=rail_links,
        starts=starts,
        start_note=note,
        city_squares=city_squares,
        labels=labels,
        region=region_name(area, areas),
    )


@dataclass(frozen=True)
class _Locator:
    """Projects places into the grid and finds their square on the board."""

    grid: Grid
    fwd: Callable[[float, float], tuple[float, float]]
    on_board: np.ndarray

    def xy(self, p: Place) -> tuple[float, float]:
        return self.fwd(p.lon, p.lat)

    def square_of(self, p: Place) -> int | None:
        """The square holding ``p``; None off the grid or off the board."""
        s = self.grid.locate(*self.xy(p))
        return s if s is not None and self.on_board[s] else None


def _motorways(
    at: _Locator, cells: np.ndarray, features: MapFeatures, thresholds: Thresholds
) -> tuple[np.ndarray, dict[int, list[str]], list[tuple[int, int]]]:
    """Motorway squares, junction squares and the junction graph (node coordinates exact)."""
    grid, fwd = at.grid, at.fwd
    motorway = np.zeros(grid.size, dtype=bool)
    mw_proj = [[fwd(*c) for c in way] for way in features.motorways if len(way) >= 2]
    if mw_proj:
        lines = np.array([LineString(w) for w in mw_proj], dtype=object)
        cell_idx, _ = shapely.STRtree(lines).query(cells, predicate="intersects")
        motorway[np.unique(cell_idx)] = True
    motorway &= at.on_board
    junction_nodes, junctions = _junction_clusters(
        grid, at.on_board, features.junctions, fwd, thresholds.junction_merge_m
    )
    mw_graph = mw_proj + [
        [fwd(*c) for c in way] for way in features.motorway_links if len(way) >= 2
    ]
    return motorway, junctions, _junction_graph(grid, mw_graph, junction_nodes)


def _cities(
    at: _Locator, places: list[Place], town_population: int | None
) -> tuple[dict[int, str], dict[int, tuple[float, float]]]:
    """Big cities: ``(square → name, square → projected centre)``, most populous first."""
    cities: dict[int, str] = {}
    city_xy: dict[int, tuple[float, float]] = {}
    for p in sorted(places, key=lambda p: (-p.population, p.name, p.osm)):
        big = p.kind == "city" or (
            p.kind == "town" and town_population is not None and p.population >= town_population
        )
        s = at.square_of(p)
        if big and s is not None and s not in cities:
            cities[s] = p.name
            city_xy[s] = at.xy(p)
    return cities, city_xy


def _coverages(
    grid: Grid, cells: np.ndarray, features: MapFeatures, fwd: Callable
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[BaseGeometry]]:
    """Water, forest and built-up shares per square (rounded to 4 decimals), and the
    projected built-up areas."""
    water_geoms = [project_geometry(g, grid.epsg) for g in features.water]
    coast = [[fwd(*c) for c in w] for w in features.coastline if len(w) >= 2]
    # A square's water share: the larger of inland water (exact) and sea (sampled).
    water = np.round(np.maximum(coverage(grid, cells, water_geoms), sea_share(grid, coast)), 4)
    forest = np.round(
        coverage(grid, cells, [project_geometry(g, grid.epsg) for g in features.forest]), 4
    )
    builtup_areas = [project_geometry(g, grid.epsg) for g in features.builtup]
    builtup = np.round(coverage(grid, cells, builtup_areas), 4)
    return water, forest, builtup, builtup_areas


def _starts(
    at: _Locator, features: MapFeatures, max_starts: int
) -> tuple[list[tuple[int, str, str]], str | None]:
    """Start locations: prisons, else named landmarks spread over the board (and a note)."""
    starts: list[tuple[int, str, str]] = []
    seen: set[int] = set()
    for p in sorted(features.prisons, key=lambda p: (p.name, p.osm)):
        s = at.square_of(p)
        if s is not None and s not in seen and p.name:
            starts.append((s, p.name, "prison"))
            seen.add(s)
    if len(starts) >= 2:
        return starts, None
    extra = []
    # Landmarks first; places (town, village, …) only if landmarks are too few.
    pool = sorted(features.landmarks, key=lambda p: (p.kind, p.name, p.osm))
    if len({at.square_of(p) for p in pool} - {None}) < 2:
        pool += sorted(features.places, key=lambda p: (-p.population, p.name, p.osm))
    for p in pool:
        s = at.square_of(p)
        if s is not None and s not in seen and p.name:
            extra.append((s, p.name, p.kind or "landmark"))
            seen.add(s)
    extra.sort(key=lambda c: c[0])
    picked = _spread(extra, at.grid, max(0, max_starts - len(starts)))
    note = (
        f"{len(starts)} prison(s) on the board; "
        f"{len(picked)} named landmark(s) added as start locations"
    )
    return sorted(starts + picked, key=lambda c: c[0]), note
