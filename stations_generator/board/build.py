"""``board generate``: area → OSM features → terrain → board files (one output set)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from stations_generator.board.model import Board, board_from_terrain, board_to_json
from stations_generator.board.terrain import MapFeatures, Thresholds, compute_terrain, make_grid
from stations_generator.errors import InputError, NoDataError
from stations_generator.formats.areafiles import read_area_file
from stations_generator.formats.atomic import output_set
from stations_generator.formats.playarea import parse_polygons

__all__ = ["BOARD_FILES", "BoardRequest", "build_board", "run_board_generate", "dumps"]

BOARD_FILES = ("board.json", "board.geojson", "board.html", "board.pdf", "board.png")
#: The original board is 24 columns (A–X) by 36 rows (01–36): the default shape.
DEFAULT_SHAPE = (24, 36)

#: The board's summary line (info) and its start-location note (a warning).
log = logging.getLogger(__name__)


@dataclass
class BoardRequest:
    area: Path
    output_dir: Path
    osm_file: Path | None = None
    cols: int | None = None
    rows: int | None = None
    cell_km: float | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    paper: str = "a3"
    name: str | None = None
    overpass_client: object | None = None
    #: The ``name`` property of the area file's first feature, if any.
    area_name: str | None = None


def dumps(doc: object) -> str:
    """Deterministic JSON text (sorted keys off: the documented field order is kept)."""
    return json.dumps(doc, ensure_ascii=False, indent=1, allow_nan=False) + "\n"


def _shape(request: BoardRequest, bounds) -> tuple[int | None, int | None, float | None]:
    if request.cell_km is not None:
        if request.cols or request.rows:
            raise InputError("give --cols and --rows, or --cell-km, not both")
        return None, None, request.cell_km * 1000.0
    if bool(request.cols) != bool(request.rows):
        raise InputError("give both --cols and --rows (or --cell-km)")
    if request.cols:
        return request.cols, request.rows, None
    minx, miny, maxx, maxy = bounds
    cols, rows = DEFAULT_SHAPE
    if maxx - minx > maxy - miny:  # a wide area gets the board turned
        cols, rows = rows, cols
    return cols, rows, None


def plan_grid(area_lonlat, request: BoardRequest):
    """The grid over the area (its UTM zone) and the area projected into it."""
    from stations_generator.board.grid import size_problem, utm_epsg
    from stations_generator.board.terrain import project_geometry

    c = area_lonlat.centroid
    bounds = project_geometry(area_lonlat, utm_epsg(c.x, c.y)).bounds
    cols, rows, cell_m = _shape(request, bounds)
    grid, area = make_grid(area_lonlat, cols, rows, cell_m)
    too_large = size_problem(grid.cols, grid.rows)
    if too_large is not None:
        raise InputError(f"the board would be too large: {too_large}; use a larger --cell-km")
    return grid, area


def grid_bbox(grid) -> tuple[float, float, float, float]:
    """The grid's extent in lon/lat (the box to read OSM features from)."""
    import pyproj

    inv = pyproj.Transformer.from_crs(grid.epsg, 4326, always_xy=True)
    east, south = grid.west + grid.cols * grid.cell_m, grid.north - grid.rows * grid.cell_m
    return inv.transform_bounds(grid.west, south, east, grid.north, densify_pts=21)


def build_board(area_lonlat, features: MapFeatures, request: BoardRequest, source: str) -> Board:
    """The board for an area and its features (pure: no I/O).

    Its name, the printed title, is the region's: ``--name``; else the area file's
    ``name``; else the smallest administrative area covering half the play area; else
    the largest big city's; else the area file's name without its suffix.
    """
    grid, area = plan_grid(area_lonlat, request)
    result = compute_terrain(grid, area, features, request.thresholds)
    if not result.on_board.any():
        raise NoDataError(
            "no square lies inside the area; use smaller squares (--cell-km) or a lower --area-share"
        )
    name = (
        request.name
        or request.area_name
        or result.region
        or next(iter(result.cities.values()), None)
        or request.area.name.split(".")[0]
    )
    return board_from_terrain(result, name, request.thresholds.as_dict(), source)


def _first_name(data: object) -> str | None:
    """The ``name`` property of a GeoJSON document's (first) feature, if it has one."""
    if isinstance(data, dict) and data.get("type") == "FeatureCollection":
        items = data.get("features")
        data = items[0] if isinstance(items, list) and items else None
    props = data.get("properties") if isinstance(data, dict) else None
    name = props.get("name") if isinstance(props, dict) else None
    return name.strip()[:200] or None if isinstance(name, str) else None


def terrain_warnings(board: Board, features: MapFeatures) -> list[str]:
    """One line per rulebook terrain the board lacks, with the option that would add it.

    The rulebook's terrain legend: motorway (junctions), big cities (public transport),
    airfield, water and forest, built-up area. A board without one makes its actions
    impossible (HITCHHIKE, PUBLIC TRANSPORT, HELICOPTER, BOAT, the van's MOTORWAY).
    """
    th = board.thresholds
    out = []
    if not board.motorway_edges:
        out.append(
            f"no motorway between two junctions ({len(board.junctions)} junction(s)): HITCHHIKE "
            "and the van's MOTORWAY are never possible; choose an area with a motorway "
            "(highway=motorway_junction) or a larger area"
        )
    towns = sorted(
        (p for p in features.places if p.kind == "town" and p.name),
        key=lambda p: (-p.population, p.name),
    )
    if not board.cities:
        named = list(dict.fromkeys(p.name for p in towns[:3]))
        least = towns[min(2, len(towns) - 1)].population if towns else 0
        what = "a big city" if len(named) == 1 else "big cities"
        hint = (
            f"lower --towns-above (e.g. --towns-above {least} makes {', '.join(named)} {what})"
            if towns
            else "the area has no place=city or place=town; choose a larger area"
        )
        out.append(f"no big city: PUBLIC TRANSPORT is never possible; {hint}")
    elif not board.rail_links:
        out.append(
            f"no rail link between big cities ({len(board.cities)} city/cities): PUBLIC "
            f"TRANSPORT is never possible; raise --station-km "
            f"(now {th.get('station_radius_m', 2500) / 1000:g}) or lower --towns-above"
        )
    if not board.airfields:
        out.append(
            "no airfield (aeroway=aerodrome): HELICOPTER is never possible; choose a larger area"
        )
    for kind, share, option in (
        ("water", board.water, "--water-share"),
        ("forest", board.forest, "--forest-share"),
        ("builtup", board.builtup, "--builtup-share"),
    ):
        if not getattr(board, f"is_{kind}").any():
            most = float(share[board.on_board].max()) if board.on_board.any() else 0.0
            what = {
                "water": "water squares (BOAT is never possible)",
                "builtup": "built-up squares",
            }
            fix = (
                f"lower {option} (now {th.get(f'{kind}_share')}; the most covered square "
                f"has {most:.0%}) or use smaller squares (--cell-km)"
                if most > 0
                else "choose a larger area"
            )
            out.append(f"no {what.get(kind, f'{kind} squares')}: {fix}")
    return out


def run_board_generate(request: BoardRequest) -> Board:
    """Read, compute, write every board file at once; returns the board (the summary is
    an info record)."""
    label = repr(Path(request.area).name)
    data = read_area_file(Path(request.area), label, log.warning)
    area = parse_polygons(data, label, log.warning)
    if request.area_name is None:
        request.area_name = _first_name(data)
    from stations_generator.board import osmdata

    with output_set(request.output_dir, BOARD_FILES) as out:
        grid, _projected = plan_grid(area, request)
        if request.osm_file is not None:
            # Read the whole grid's box: a square partly outside the area keeps what is in it.
            features = osmdata.features_from_extract(request.osm_file, area, grid_bbox(grid))
            source = Path(request.osm_file).name
        else:
            features = osmdata.features_from_overpass(request.overpass_client, area)
            source = "Overpass"
        board = build_board(area, features, request, source)
        if len(board.starts) < 2:
            raise NoDataError(
                f"the area has {len(board.starts)} start location(s) (no prisons, too few named "
                "landmarks); choose a larger area"
            )
        from stations_generator.board.geo import board_geojson
        from stations_generator.board.page import board_page
        from stations_generator.board.render import render_both

        out.write_text("board.json", dumps(board_to_json(board)))
        out.write_text("board.geojson", dumps(board_geojson(board)))
        out.write_text("board.html", board_page(board))
        pdf, png = render_both(board, request.paper)
        out.write_bytes("board.pdf", pdf)
        out.write_bytes("board.png", png)
    if board.start_note:
        log.warning(board.start_note)
    for line in terrain_warnings(board, features):
        log.warning(line)
    g = board.grid
    log.info(
        f"board {board.name}: {g.cols}×{g.rows} squares of {g.cell_m / 1000:.2f} km (EPSG:{g.epsg}), "
        f"{int(board.on_board.sum())} on the board; {len(board.junctions)} junctions, "
        f"{len(board.cities)} cities, {len(board.airfields)} airfields, {len(board.rail_links)} rail links, "
        f"{len(board.starts)} starts → {request.output_dir}"
    )
    return board


def load_board(path: Path) -> Board:
    """Read and check a ``board.json`` (one-line :class:`InputError` on any problem)."""
    from stations_generator.board.model import board_from_json
    from stations_generator.formats import jsonio

    data = jsonio.read_json_file(
        Path(path),
        "board",
        label=repr(Path(path).name),
        limit=200_000_000,
        fix="give a board.json from `board generate`",
    )
    return board_from_json(data)
