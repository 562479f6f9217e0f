"""``board.html``: the board over the real map, offline like the project's other pages.

Built on :func:`~stations_generator.pages.offline.offline_map` (vendored Leaflet
inlined; only the map tiles load from the network).
"""

from __future__ import annotations

import folium

from stations_generator.board.geo import board_geojson
from stations_generator.board.model import Board
from stations_generator.board.render import COLOURS, LABELS
from stations_generator.pages.offline import (
    COLLAPSIBLE_CLASS,
    StyledBlock,
    add_page_controls,
    html_text,
    offline_map,
    render_station_map,
)

__all__ = ["POSSIBLE_COLOUR", "board_page", "highlight_page"]

#: The tracker's possible squares: magenta, far from every terrain colour (the motorway's
#: red included) and named in the legend.
POSSIBLE_COLOUR = "#ff00ff"
POSSIBLE_LABEL = "Possible square of the fugitive"


def _squares_doc(board: Board) -> dict:
    """The squares for the page: outline, coordinate, terrain and flags only.

    Names (cities, starts, junctions: OSM text) stay out: Folium writes the GeoJSON
    into a script that branca reads once more as a template. The names the page shows
    go through :func:`~stations_generator.pages.offline.html_text`.
    """
    doc = board_geojson(board)
    keep = ("square", "terrain", "flags")
    features = [{**f, "properties": {k: f["properties"][k] for k in keep}} for f in doc["features"]]
    return {"type": "FeatureCollection", "features": features}


def _base(board: Board, title: str) -> tuple[folium.Map, dict]:
    doc = _squares_doc(board)
    lons = [c[0] for f in doc["features"] for c in f["geometry"]["coordinates"][0]]
    lats = [c[1] for f in doc["features"] for c in f["geometry"]["coordinates"][0]]
    bounds = [[min(lats), min(lons)], [max(lats), max(lons)]]
    m = offline_map(bounds, title=title)
    # Fitted for a desktop and a phone; the legend (below) collapses on a phone.
    add_page_controls(m, bounds, layer_control=False)
    return m, doc


def _legend(board: Board, extra: str = "", possible: bool = False) -> str:
    items = [(COLOURS[k], v) for k, v in LABELS.items()]
    if possible:
        items.insert(0, (POSSIBLE_COLOUR, POSSIBLE_LABEL))
    rows = "".join(
        f'<li><span style="display:inline-block;width:10px;height:10px;margin-right:6px;'
        f'background:{colour}"></span>{html_text(v)}</li>'
        for colour, v in items
    )
    starts = "".join(
        f"<li>★ {html_text(board.grid.name(s))} — {html_text(n)}</li>" for s, n, _k in board.starts
    )
    return (
        '<div class="sg-box" style="position:fixed;left:10px;bottom:30px;z-index:1000;'
        "background:#fff;padding:8px 10px;border-radius:6px;font:12px system-ui,sans-serif;"
        'box-shadow:0 1px 5px rgba(0,0,0,.4)">'
        f'<details class="{COLLAPSIBLE_CLASS}" open><summary>{html_text(board.name)}</summary>'
        f"<ul style='list-style:none;padding:0;margin:4px 0'>{rows}</ul>"
        f"<b>Start locations</b><ul style='list-style:none;padding:0;margin:4px 0'>{starts}</ul>"
        f"{extra}<small>Data © OpenStreetMap contributors, ODbL 1.0</small></details></div>"
    )


def board_page(board: Board) -> str:
    """The HTML page of a board (deterministic)."""
    m, doc = _base(board, f"Board: {board.name}")
    colours = dict(COLOURS)
    folium.GeoJson(
        doc,
        name="squares",
        style_function=lambda f: {
            "color": "#555555",
            "weight": 0.5,
            "fillColor": colours[f["properties"]["terrain"]],
            "fillOpacity": 0.0 if f["properties"]["terrain"] in ("off", "open") else 0.45,
        },
        tooltip=folium.GeoJsonTooltip(fields=["square", "terrain", "flags"]),
    ).add_to(m)
    _graphs(m, board)
    StyledBlock("BoardLegend", "", _legend(board)).add_to(m)
    return render_station_map(m)


def _centres(board: Board) -> dict[int, tuple[float, float]]:
    import pyproj

    g = board.grid
    inv = pyproj.Transformer.from_crs(g.epsg, 4326, always_xy=True)
    wanted = {s for e in (*board.motorway_edges, *board.rail_links) for s in e}
    wanted |= {s for s, _n, _k in board.starts}
    out = {}
    for s in sorted(wanted):
        minx, miny, maxx, maxy = g.bounds(s)
        lon, lat = inv.transform((minx + maxx) / 2, (miny + maxy) / 2)
        out[s] = (round(lat, 7), round(lon, 7))
    return out


def _graphs(m: folium.Map, board: Board) -> None:
    """The motorway graph, the rail links and the start locations over the squares."""
    c = _centres(board)
    name = board.grid.name
    for a, b in board.motorway_edges:
        folium.PolyLine(
            [c[a], c[b]],
            color="#7a0000",
            weight=3,
            tooltip=html_text(f"motorway {name(a)}–{name(b)}"),
        ).add_to(m)
    for a, b in board.rail_links:
        folium.PolyLine(
            [c[a], c[b]],
            color="#333333",
            weight=2,
            dash_array="6 4",
            tooltip=html_text(f"rail {name(a)}–{name(b)}"),
        ).add_to(m)
    for s, n, k in board.starts:
        folium.CircleMarker(
            c[s],
            radius=7,
            color="#000000",
            weight=1,
            fill=True,
            fill_color="#d00000",
            fill_opacity=0.9,
            tooltip=html_text(f"★ {name(s)} — {n} ({k})"),
        ).add_to(m)


def highlight_page(board: Board, squares: set[int], title: str, note: str) -> str:
    """The board with ``squares`` highlighted (the tracker's possible squares)."""
    m, doc = _base(board, title)
    names = {board.grid.name(s) for s in squares}
    folium.GeoJson(
        doc,
        name="squares",
        style_function=lambda f: {
            "color": "#555555",
            "weight": 0.4,
            "fillColor": POSSIBLE_COLOUR
            if f["properties"]["square"] in names
            else COLOURS[f["properties"]["terrain"]],
            "fillOpacity": 0.6 if f["properties"]["square"] in names else 0.15,
        },
        tooltip=folium.GeoJsonTooltip(fields=["square", "terrain"]),
    ).add_to(m)
    StyledBlock(
        "BoardLegend", "", _legend(board, f"<p>{html_text(note)}</p>", possible=True)
    ).add_to(m)
    return render_station_map(m)
