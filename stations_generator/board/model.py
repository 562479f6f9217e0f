"""The board: grid, terrain per square, motorway graph, rail links, start locations.

:class:`Board` is what every other module works on; :func:`board_to_json` /
:func:`board_from_json` are its versioned JSON form (``board.json``, see
docs/board.md). Derived structures (passability, neighbours, the water bodies a
boat can cross) are computed here from the stored terrain, never stored.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from stations_generator.board.grid import Grid, size_problem
from stations_generator.errors import InputError

__all__ = ["BOARD_FORMAT", "BOARD_VERSION", "Board", "board_from_json", "board_to_json"]

BOARD_FORMAT = "het-jachtseizoen-board"
BOARD_VERSION = 1

#: Terrain drawing order / legend order: the first that applies colours the square.
TERRAIN_KINDS = (
    "off",
    "water",
    "forest",
    "junction",
    "city",
    "airfield",
    "motorway",
    "builtup",
    "open",
)

#: Every name a square's ``flags`` may hold (:meth:`Board.flags`).
FLAG_KINDS = (
    "off",
    "water",
    "forest",
    "motorway",
    "junction",
    "city",
    "airfield",
    "builtup",
    "waterside",
)


@dataclass
class Board:
    """One generated board (see the module docstring)."""

    grid: Grid
    name: str
    on_board: np.ndarray
    motorway: np.ndarray
    water: np.ndarray
    forest: np.ndarray
    builtup: np.ndarray
    junctions: dict[int, list[str]]
    motorway_edges: list[tuple[int, int]]
    cities: dict[int, str]
    airfields: dict[int, str]
    rail_links: list[tuple[int, int]]
    starts: list[tuple[int, str, str]]
    thresholds: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    start_note: str | None = None
    #: A city's node square → all its squares (its built-up area); absent: the node's only.
    city_squares: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: Printed names: ``(square, text, kind)``, kind one of :data:`LABEL_KINDS`.
    labels: list[tuple[int, str, str]] = field(default_factory=list)

    # ------------------------------------------------------------ derived terrain
    @cached_property
    def city_of(self) -> dict[int, int]:
        """Every city square → the node square of its city (the key of :attr:`cities`)."""
        out = {}
        for centre in self.cities:
            for s in self.city_squares.get(centre, (centre,)):
                out[s] = centre
        return out

    @cached_property
    def pt_targets(self) -> dict[int, tuple[int, ...]]:
        """City square → the squares of the cities linked to its city by rail.

        Public transport goes "from city to city": boarding on any square of a city,
        getting off on any square of a linked one.
        """
        squares = {c: self.city_squares.get(c, (c,)) for c in self.cities}
        out = {}
        for s, centre in sorted(self.city_of.items()):
            linked = self.rail_adj.get(centre, ())
            if linked:
                out[s] = tuple(sorted(x for c in linked for x in squares[c]))
        return out

    @cached_property
    def protected(self) -> np.ndarray:
        """Squares always passable: junction, city, airfield and start squares."""
        out = np.zeros(self.grid.size, dtype=bool)
        for s in (*self.junctions, *self.city_of, *self.airfields, *(st[0] for st in self.starts)):
            out[s] = True
        return out

    @cached_property
    def is_water(self) -> np.ndarray:
        share = float(self.thresholds.get("water_share", 0.5))
        return self.on_board & (self.water >= share) & ~self.protected

    @cached_property
    def is_forest(self) -> np.ndarray:
        share = float(self.thresholds.get("forest_share", 0.5))
        return self.on_board & (self.forest >= share) & ~self.protected & ~self.is_water

    @cached_property
    def is_builtup(self) -> np.ndarray:
        share = float(self.thresholds.get("builtup_share", 0.3))
        return self.on_board & (self.builtup >= share)

    @cached_property
    def passable(self) -> np.ndarray:
        return self.on_board & ~self.is_water & ~self.is_forest

    @cached_property
    def waterside(self) -> np.ndarray:
        """Passable squares with a water square among their 8 neighbours."""
        out = np.zeros(self.grid.size, dtype=bool)
        for s in np.flatnonzero(self.passable):
            out[s] = any(self.is_water[n] for n in self.grid.neighbours(int(s), 8))
        return out

    @cached_property
    def water_body(self) -> dict[int, frozenset[int]]:
        """Waterside square → ids of the water bodies (8-connected water) it touches."""
        label = -np.ones(self.grid.size, dtype=int)
        current = 0
        for s in np.flatnonzero(self.is_water):
            if label[s] >= 0:
                continue
            stack = [int(s)]
            label[s] = current
            while stack:
                x = stack.pop()
                for n in self.grid.neighbours(x, 8):
                    if self.is_water[n] and label[n] < 0:
                        label[n] = current
                        stack.append(n)
            current += 1
        out = {}
        for s in np.flatnonzero(self.waterside):
            out[int(s)] = frozenset(
                int(label[n]) for n in self.grid.neighbours(int(s), 8) if label[n] >= 0
            )
        return out

    @cached_property
    def junction_adj(self) -> dict[int, tuple[int, ...]]:
        adj: dict[int, set[int]] = defaultdict(set)
        for a, b in self.motorway_edges:
            adj[a].add(b)
            adj[b].add(a)
        return {k: tuple(sorted(v)) for k, v in sorted(adj.items())}

    @cached_property
    def rail_adj(self) -> dict[int, tuple[int, ...]]:
        adj: dict[int, set[int]] = defaultdict(set)
        for a, b in self.rail_links:
            adj[a].add(b)
            adj[b].add(a)
        return {k: tuple(sorted(v)) for k, v in sorted(adj.items())}

    @cached_property
    def boat_targets(self) -> dict[int, tuple[int, ...]]:
        """Waterside square → the other waterside squares of the same water (BOAT)."""
        wb = self.water_body
        by_body: dict[int, set[int]] = defaultdict(set)
        for s, bodies in wb.items():
            for w in bodies:
                by_body[w].add(s)
        out = {}
        for s, bodies in wb.items():
            out[s] = tuple(sorted(set().union(*(by_body[w] for w in bodies)) - {s}))
        return out

    def steps(self, mode: int) -> list[tuple[int, ...]]:
        """Per square, the passable squares one step away (4 or 8 neighbours), cached."""
        cache = self.__dict__.setdefault("_steps", {})
        if mode not in cache:
            passable = self.passable
            cache[mode] = [
                tuple(n for n in self.grid.neighbours(s, mode) if passable[n])
                for s in range(self.grid.size)
            ]
        return cache[mode]

    def kind(self, s: int) -> str:
        """The one terrain that colours square ``s`` (see :data:`TERRAIN_KINDS`)."""
        if not self.on_board[s]:
            return "off"
        if self.is_water[s]:
            return "water"
        if self.is_forest[s]:
            return "forest"
        if s in self.junctions:
            return "junction"
        if s in self.city_of:
            return "city"
        if s in self.airfields:
            return "airfield"
        if self.motorway[s]:
            return "motorway"
        if self.is_builtup[s]:
            return "builtup"
        return "open"

    def flags(self, s: int) -> list[str]:
        """Every terrain that applies to square ``s``."""
        out = []
        for name, on in (
            ("off", not self.on_board[s]),
            ("water", self.is_water[s]),
            ("forest", self.is_forest[s]),
            ("motorway", self.motorway[s]),
            ("junction", s in self.junctions),
            ("city", s in self.city_of),
            ("airfield", s in self.airfields),
            ("builtup", self.is_builtup[s]),
            ("waterside", self.waterside[s]),
        ):
            if on:
                out.append(name)
        return out

    def square(self, name: str, what: str = "square") -> int:
        """Index of a coordinate; :class:`InputError` naming the problem otherwise."""
        try:
            return self.grid.index(name)
        except ValueError as exc:
            raise InputError(f"{what}: {exc}") from None


# ------------------------------------------------------------------- JSON form
def board_to_json(board: Board) -> dict[str, Any]:
    """The ``board.json`` document (version :data:`BOARD_VERSION`; docs/board.md)."""
    g = board.grid
    name = g.name
    squares = []
    for s in range(g.size):
        minx, miny, maxx, maxy = g.bounds(s)
        squares.append(
            {
                "id": name(s),
                "terrain": board.kind(s),
                "flags": board.flags(s),
                "water": float(board.water[s]),
                "forest": float(board.forest[s]),
                "builtup": float(board.builtup[s]),
                "motorway": bool(board.motorway[s]),
                "on_board": bool(board.on_board[s]),
            }
        )
    return {
        "format": BOARD_FORMAT,
        "version": BOARD_VERSION,
        "name": board.name,
        "source": board.source,
        "attribution": "Data © OpenStreetMap contributors, ODbL 1.0",
        "grid": {
            "crs": f"EPSG:{g.epsg}",
            "west": g.west,
            "north": g.north,
            "cell_m": g.cell_m,
            "cols": g.cols,
            "rows": g.rows,
            "first": name(0),
            "last": name(g.size - 1),
        },
        "thresholds": board.thresholds,
        "squares": squares,
        "junctions": [{"square": name(s), "names": n} for s, n in sorted(board.junctions.items())],
        "motorway": [[name(a), name(b)] for a, b in board.motorway_edges],
        "cities": [
            {
                "square": name(s),
                "name": n,
                "squares": [name(x) for x in board.city_squares.get(s, (s,))],
            }
            for s, n in sorted(board.cities.items())
        ],
        "airfields": [{"square": name(s), "name": n} for s, n in sorted(board.airfields.items())],
        "rail_links": [[name(a), name(b)] for a, b in board.rail_links],
        "starts": [{"square": name(s), "name": n, "kind": k} for s, n, k in board.starts],
        "start_note": board.start_note,
        "labels": [{"square": name(s), "text": t, "kind": k} for s, t, k in board.labels],
    }


def _need(cond: bool, where: str, fix: str) -> None:
    if not cond:
        raise InputError(f"board.json: {where}; {fix}")


def _number(value: Any, where: str, lo: float = -math.inf, hi: float = math.inf) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    _need(
        ok and lo <= value <= hi,
        f"{where} is {value!r}, not a number in [{lo}, {hi}]",
        "regenerate the board with `board generate`",
    )
    return float(value)


#: The fix every board.json problem names.
_FIX = "regenerate it with `stations-generator board generate`"


def board_from_json(data: Any) -> Board:
    """Read a ``board.json`` document, checking every field (one-line :class:`InputError`).

    Parameters
    ----------
    data : Any
        The parsed JSON document.

    Returns
    -------
    Board
        The board it describes.

    Raises
    ------
    InputError
        Naming the first field that is missing or wrong.
    """
    _check_header(data)
    g = _read_grid(data)
    on_board, motorway, shares = _read_squares(data, g)
    junctions = _read_junctions(data, g)
    starts = _read_starts(data, g)
    _need(bool(starts), "starts is empty: a game begins on a start location", _FIX)
    for i, (square, _name, _kind) in enumerate(starts):
        _need(
            bool(on_board[square]),
            f"starts[{i}] is on {g.name(square)}, a square off the board (on_board false)",
            _FIX,
        )
    thresholds = _read_thresholds(data)
    cities = _read_named(data, g, "cities")
    city_squares = _read_city_squares(data, g, cities)
    edges = _read_pairs(data, g, "motorway")
    for a, b in edges:
        _need(
            a in junctions and b in junctions,
            f"motorway edge {g.name(a)}–{g.name(b)} does not join two junctions",
            _FIX,
        )
    links = _read_pairs(data, g, "rail_links")
    for a, b in links:
        _need(
            a in cities and b in cities,
            f"rail link {g.name(a)}–{g.name(b)} does not join two cities",
            _FIX,
        )
    for key in ("name", "source"):
        _need(isinstance(data.get(key, ""), str), f"{key} is not a string", _FIX)
    _need(
        isinstance(data.get("start_note"), str | None), "start_note is not a string or null", _FIX
    )
    board = Board(
        grid=g,
        name=data.get("name", ""),
        on_board=on_board,
        motorway=motorway,
        water=shares["water"],
        forest=shares["forest"],
        builtup=shares["builtup"],
        junctions=junctions,
        motorway_edges=edges,
        cities=cities,
        airfields=_read_named(data, g, "airfields"),
        rail_links=links,
        starts=starts,
        thresholds=thresholds,
        source=data.get("source", ""),
        start_note=data.get("start_note"),
        city_squares=city_squares,
        labels=_read_labels(data, g),
    )
    _check_derived(board, data["squares"])
    return board


def _check_header(data: Any) -> None:
    _need(isinstance(data, dict), "the top level is not an object", _FIX)
    _need(
        data.get("format") == BOARD_FORMAT,
        f"format is {data.get('format')!r}, not {BOARD_FORMAT!r}",
        "give a board.json written by `board generate`",
    )
    _need(
        data.get("version") == BOARD_VERSION,
        f"version {data.get('version')!r} is not supported (this is version {BOARD_VERSION})",
        _FIX,
    )


def _read_grid(data: dict[str, Any]) -> Grid:
    grid = data.get("grid")
    _need(isinstance(grid, dict), "grid is missing", _FIX)
    epsg = _read_crs(grid.get("crs"))
    cols = grid.get("cols")
    rows = grid.get("rows")
    _need(
        type(cols) is int and type(rows) is int and cols >= 1 and rows >= 1,
        f"grid.cols/rows are {cols!r}/{rows!r}, not whole numbers ≥ 1",
        _FIX,
    )
    too_large = size_problem(cols, rows)
    _need(too_large is None, f"grid: {too_large}", "use a coarser grid (fewer --cols/--rows)")
    return Grid(
        epsg,
        _number(grid.get("west"), "grid.west"),
        _number(grid.get("north"), "grid.north"),
        _number(grid.get("cell_m"), "grid.cell_m", 1e-3, 1e7),
        cols,
        rows,
    )


def _read_crs(crs: Any) -> int:
    """The EPSG code of ``grid.crs``: a projected CRS in metres that pyproj knows."""
    import pyproj

    _need(
        isinstance(crs, str) and crs.startswith("EPSG:") and crs[5:].isdigit() and len(crs) < 16,
        f"grid.crs is {crs!r}, not EPSG:<code>",
        _FIX,
    )
    try:
        parsed = pyproj.CRS.from_epsg(int(crs[5:]))
    except pyproj.exceptions.CRSError:
        raise InputError(f"board.json: grid.crs {crs} is not a CRS pyproj knows; {_FIX}") from None
    units = {axis.unit_name for axis in parsed.axis_info}
    _need(
        parsed.is_projected and units == {"metre"},
        f"grid.crs {crs} ({parsed.name}) is not a projected CRS in metres",
        "boards use their area's UTM zone; " + _FIX,
    )
    return int(crs[5:])


def _read_squares(
    data: dict[str, Any], g: Grid
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """``(on_board, motorway, {"water" | "forest" | "builtup": shares})`` per square."""
    squares = data.get("squares")
    _need(
        isinstance(squares, list) and len(squares) == g.size,
        f"squares has {len(squares) if isinstance(squares, list) else 'no'} entries, not {g.size}",
        _FIX,
    )
    shares = {k: np.zeros(g.size) for k in ("water", "forest", "builtup")}
    on_board = np.zeros(g.size, dtype=bool)
    motorway = np.zeros(g.size, dtype=bool)
    for i, sq in enumerate(squares):
        _need(
            isinstance(sq, dict) and sq.get("id") == g.name(i),
            f"squares[{i}] is not square {g.name(i)}",
            _FIX,
        )
        for k in shares:
            shares[k][i] = _number(sq.get(k), f"squares[{i}].{k}", 0.0, 1.0)
        _need(
            isinstance(sq.get("on_board"), bool) and isinstance(sq.get("motorway"), bool),
            f"squares[{i}].on_board/motorway are not true/false",
            _FIX,
        )
        _need(
            sq.get("terrain") in TERRAIN_KINDS,
            f"squares[{i}].terrain is {sq.get('terrain')!r}, not one of {', '.join(TERRAIN_KINDS)}",
            _FIX,
        )
        flags = sq.get("flags")
        _need(
            isinstance(flags, list) and all(f in FLAG_KINDS for f in flags),
            f"squares[{i}].flags is {flags!r}, not a list of {', '.join(FLAG_KINDS)}",
            _FIX,
        )
        on_board[i] = sq["on_board"]
        motorway[i] = sq["motorway"]
    return on_board, motorway, shares


def _check_derived(board: Board, squares: list[dict[str, Any]]) -> None:
    """The stored ``terrain`` and ``flags`` must be what the shares and thresholds give."""
    for i, sq in enumerate(squares):
        kind, flags = board.kind(i), board.flags(i)
        _need(
            sq["terrain"] == kind and sorted(sq["flags"]) == sorted(flags),
            f"squares[{i}] ({sq['id']}) says terrain {sq['terrain']!r}, flags "
            f"{sq['flags']!r}, but its shares, the thresholds and the named places give "
            f"{kind!r}, {flags!r}",
            "change the shares and thresholds, not terrain/flags (they are derived), or " + _FIX,
        )


def _square_ref(g: Grid, value: Any, where: str) -> int:
    """The index of the square named by ``value`` (at ``where`` in the document)."""
    _need(isinstance(value, str), f"{where} is {value!r}, not a coordinate", _FIX)
    try:
        return g.index(value)
    except ValueError as exc:
        raise InputError(f"board.json: {where}: {exc}; {_FIX}") from None


def _list_of(data: dict[str, Any], key: str) -> list:
    items = data.get(key, [])
    _need(isinstance(items, list), f"{key} is not a list", _FIX)
    return items


def _read_named(data: dict[str, Any], g: Grid, key: str) -> dict[int, str]:
    """``[{"square", "name"}]`` (cities, airfields) as square → name."""
    out = {}
    for i, it in enumerate(_list_of(data, key)):
        _need(
            isinstance(it, dict) and isinstance(it.get("name"), str),
            f"{key}[{i}] has no name",
            _FIX,
        )
        out[_square_ref(g, it.get("square"), f"{key}[{i}].square")] = it["name"]
    return out


def _read_pairs(data: dict[str, Any], g: Grid, key: str) -> list[tuple[int, int]]:
    """``[[square, square]]`` (motorway, rail links) as sorted, distinct index pairs."""
    out = []
    for i, it in enumerate(_list_of(data, key)):
        _need(isinstance(it, list) and len(it) == 2, f"{key}[{i}] is not a pair of squares", _FIX)
        a = _square_ref(g, it[0], f"{key}[{i}][0]")
        b = _square_ref(g, it[1], f"{key}[{i}][1]")
        out.append((min(a, b), max(a, b)))
    return sorted(set(out))


def _read_junctions(data: dict[str, Any], g: Grid) -> dict[int, list[str]]:
    junctions: dict[int, list[str]] = {}
    for i, it in enumerate(_list_of(data, "junctions")):
        _need(
            isinstance(it, dict)
            and isinstance(it.get("names", []), list)
            and all(isinstance(n, str) for n in it.get("names", [])),
            f'junctions[{i}] is not {{"square", "names": [strings]}}',
            _FIX,
        )
        junctions[_square_ref(g, it.get("square"), f"junctions[{i}].square")] = list(
            it.get("names", [])
        )
    return junctions


def _read_starts(data: dict[str, Any], g: Grid) -> list[tuple[int, str, str]]:
    starts = []
    for i, it in enumerate(_list_of(data, "starts")):
        _need(
            isinstance(it, dict)
            and isinstance(it.get("name"), str)
            and isinstance(it.get("kind", ""), str),
            f"starts[{i}] has no name (or a kind that is not a string)",
            _FIX,
        )
        square = _square_ref(g, it.get("square"), f"starts[{i}].square")
        starts.append((square, it["name"], it.get("kind", "")))
    return starts


def _read_city_squares(
    data: dict[str, Any], g: Grid, cities: dict[int, str]
) -> dict[int, tuple[int, ...]]:
    """Each city's ``squares`` (optional; its node square first, no square in two cities)."""
    out: dict[int, tuple[int, ...]] = {}
    owner: dict[int, int] = {}
    for i, it in enumerate(_list_of(data, "cities")):
        centre = _square_ref(g, it.get("square"), f"cities[{i}].square")
        items = it.get("squares", [it.get("square")])
        _need(
            isinstance(items, list) and bool(items) and len(items) <= g.size,
            f"cities[{i}].squares is not a list of coordinates",
            _FIX,
        )
        squares = tuple(_square_ref(g, v, f"cities[{i}].squares") for v in items)
        _need(
            squares[0] == centre and len(set(squares)) == len(squares),
            f"cities[{i}].squares does not start with its square {g.name(centre)} "
            "or names a square twice",
            _FIX,
        )
        for s in squares:
            _need(
                owner.setdefault(s, centre) == centre and (s == centre or s not in cities),
                f"cities[{i}].squares: {g.name(s)} belongs to another city",
                _FIX,
            )
        out[centre] = squares
    return out


#: The kinds of printed labels (cities are printed from ``cities``).
LABEL_KINDS = ("motorway", "river", "lake", "town", "village")


def _read_labels(data: dict[str, Any], g: Grid) -> list[tuple[int, str, str]]:
    out = []
    for i, it in enumerate(_list_of(data, "labels")):
        _need(
            isinstance(it, dict)
            and isinstance(it.get("text"), str)
            and it.get("kind") in LABEL_KINDS,
            f'labels[{i}] is not {{"square", "text", "kind": {" | ".join(LABEL_KINDS)}}}',
            _FIX,
        )
        out.append(
            (_square_ref(g, it.get("square"), f"labels[{i}].square"), it["text"], it["kind"])
        )
    return out


def _read_thresholds(data: dict[str, Any]) -> dict[str, Any]:
    thresholds = data.get("thresholds", {})
    _need(isinstance(thresholds, dict), "thresholds is not an object", _FIX)
    for key in ("water_share", "forest_share", "builtup_share"):
        if key in thresholds:
            _number(thresholds[key], f"thresholds.{key}", 0.0, 1.0)
    return thresholds


def board_from_terrain(result, name: str, thresholds: dict[str, Any], source: str) -> Board:
    """A :class:`Board` from :func:`~.terrain.compute_terrain`'s result."""
    return Board(
        grid=result.grid,
        name=name,
        on_board=result.on_board,
        motorway=result.motorway,
        water=result.water,
        forest=result.forest,
        builtup=result.builtup,
        junctions=result.junctions,
        motorway_edges=result.motorway_edges,
        cities=result.cities,
        airfields=result.airfields,
        rail_links=result.rail_links,
        starts=result.starts,
        thresholds=thresholds,
        source=source,
        start_note=result.start_note,
        city_squares=result.city_squares,
        labels=result.labels,
    )
