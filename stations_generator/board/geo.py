"""Squares as WGS84 polygons: the board's GeoJSON, and the inverse projection."""

from __future__ import annotations

from typing import Any

import pyproj

from stations_generator.board.model import Board, board_to_json

__all__ = ["square_polygons", "board_geojson"]


def square_polygons(board: Board, densify: int = 4) -> list[list[tuple[float, float]]]:
    """Each square's outline in lon/lat (edges densified so the UTM square stays true)."""
    g = board.grid
    inv = pyproj.Transformer.from_crs(g.epsg, 4326, always_xy=True).transform
    out = []
    for s in range(g.size):
        minx, miny, maxx, maxy = g.bounds(s)
        ring = []
        corners = [(minx, maxy), (maxx, maxy), (maxx, miny), (minx, miny), (minx, maxy)]
        for (x0, y0), (x1, y1) in zip(corners, corners[1:], strict=False):
            for k in range(densify):
                t = k / densify
                ring.append((x0 + (x1 - x0) * t, y0 + (y1 - y0) * t))
        ring.append(corners[0])
        out.append([tuple(round(v, 7) for v in inv(x, y)) for x, y in ring])
    return out


def board_geojson(board: Board) -> dict[str, Any]:
    """A FeatureCollection: one Polygon per square with its terrain and names."""
    doc = board_to_json(board)
    g = board.grid
    starts = {s: n for s, n, _k in board.starts}
    features = []
    for s, ring in enumerate(square_polygons(board)):
        sq = doc["squares"][s]
        props = {
            "square": sq["id"],
            "terrain": sq["terrain"],
            "flags": ",".join(sq["flags"]),
            "water": sq["water"],
            "forest": sq["forest"],
            "builtup": sq["builtup"],
        }
        for key, names in (
            ("junction", board.junctions),
            ("city", {x: board.cities[c] for x, c in board.city_of.items()}),
            ("airfield", board.airfields),
            ("start", starts),
        ):
            if s in names:
                value = names[s]
                props[key] = ", ".join(value) if isinstance(value, list) else value
        features.append(
            {
                "type": "Feature",
                "properties": props,
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        )
    return {
        "type": "FeatureCollection",
        "name": board.name,
        "crs_note": f"squares of {g.cell_m:.0f} m in EPSG:{g.epsg}, written in WGS84",
        "attribution": "Data © OpenStreetMap contributors, ODbL 1.0",
        "features": features,
    }
