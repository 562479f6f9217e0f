"""The printable board: PDF and PNG with matplotlib (A3 or A4).

Layout (:func:`layout`, in page fractions, so tests can find each part): the title
(the region's name), the grid with the coordinates on all four edges and the names
players navigate by — big cities, motorway numbers, big rivers and lakes, towns and
villages as room allows (:func:`place_labels`) — then below it the terrain legend, the
start-location legend, the 25-square time bar and the OSM credit. The page is
portrait when the grid is taller than wide, landscape otherwise.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from stations_generator.board.model import Board

__all__ = [
    "COLOURS",
    "LABEL_PT",
    "PAPER_MM",
    "Layout",
    "PlacedLabel",
    "layout",
    "place_labels",
    "render_pdf",
    "render_png",
]

PAPER_MM = {"a3": (297.0, 420.0), "a4": (210.0, 297.0)}

#: Square colours by terrain (:data:`~.model.TERRAIN_KINDS`).
COLOURS = {
    "off": "#ffffff",
    "water": "#5b9bd5",
    "forest": "#3f7f3a",
    "junction": "#7a0000",
    "city": "#f39c34",
    "airfield": "#8e6cc8",
    "motorway": "#e05050",
    "builtup": "#f7e08a",
    "open": "#eef3e2",
}
LABELS = {
    "water": "Water (impassable)",
    "forest": "Forest (impassable)",
    "motorway": "Motorway",
    "junction": "Motorway junction",
    "city": "Big city (public transport)",
    "airfield": "Airfield",
    "builtup": "Built-up area (van: 1 step)",
    "open": "Open land",
}
TIME_SQUARES = 25
#: Label sizes in points by paper: 6 pt is the smallest print read at arm's length
#: (legible on A4, the smaller paper); cities and the title are the largest.
LABEL_PT = {
    "a3": {
        "title": 18.0,
        "city": 9.0,
        "motorway": 7.5,
        "river": 7.5,
        "lake": 7.5,
        "town": 7.0,
        "village": 6.5,
    },
    "a4": {
        "title": 15.0,
        "city": 7.5,
        "motorway": 6.5,
        "river": 6.5,
        "lake": 6.5,
        "town": 6.0,
        "village": 6.0,
    },
}
#: Which labels win a clash, first first (cities are the board's own terrain).
LABEL_ORDER = ("city", "motorway", "river", "lake", "town", "village")
#: A label's box in ems: DejaVu Sans averages ~0.6 em a character; 1.25 em a line.
_EM_WIDTH, _EM_HEIGHT = 0.6, 1.25


@dataclass(frozen=True)
class PlacedLabel:
    """A label drawn on the grid: centre ``(x, y)`` in squares from the top-left corner."""

    text: str
    kind: str
    x: float
    y: float
    size: float


@dataclass(frozen=True)
class Layout:
    """Where the parts sit on the page: ``(left, bottom, width, height)`` fractions."""

    page_mm: tuple[float, float]
    grid: tuple[float, float, float, float]
    legend: tuple[float, float, float, float]
    starts: tuple[float, float, float, float]
    timebar: tuple[float, float, float, float]
    credit_y: float


def _hex(colour: str) -> tuple[float, float, float]:
    colour = colour.lstrip("#")
    return tuple(int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def layout(board: Board, paper: str = "a3") -> Layout:
    """The page layout for ``board`` on ``paper`` (``a3`` or ``a4``)."""
    short, long_ = PAPER_MM[paper]
    g = board.grid
    portrait = g.rows >= g.cols
    w_mm, h_mm = (short, long_) if portrait else (long_, short)
    margin = 14.0  # mm: room for the edge coordinates
    title_h = 9.0  # mm above the top coordinates for the title
    # The band below the grid, stacked up from the bottom edge (mm).
    credit_top = 10.0
    bar_h = min(10.0, (w_mm - 2 * margin) / (TIME_SQUARES + 2))
    bar_y = credit_top + 3.0
    legend_h = 42.0
    legend_y = bar_y + bar_h + 5.0
    grid_bottom = legend_y + legend_h + 12.0  # the bottom coordinates sit in between
    avail_w, avail_h = w_mm - 2 * margin, h_mm - margin - title_h - grid_bottom
    cell = min(avail_w / g.cols, avail_h / g.rows)
    gw, gh = cell * g.cols, cell * g.rows
    gx = (w_mm - gw) / 2
    gy = h_mm - margin - title_h - gh
    inner = w_mm - 2 * margin
    legend = (margin, legend_y, inner * 0.42, legend_h)
    starts = (margin + inner * 0.46, legend_y, inner * 0.54, legend_h)
    timebar = (margin, bar_y, inner, bar_h)
    credit_y = credit_top

    def frac(r):
        return (r[0] / w_mm, r[1] / h_mm, r[2] / w_mm, r[3] / h_mm)

    return Layout(
        (w_mm, h_mm),
        frac((gx, gy, gw, gh)),
        frac(legend),
        frac(starts),
        frac(timebar),
        credit_y / h_mm,
    )


def _figure(board: Board, paper: str):
    """The page as a matplotlib ``Figure``: grid, legends, time bar, credit."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    lay = layout(board, paper)
    g = board.grid
    w_mm, h_mm = lay.page_mm
    fig = Figure(figsize=(w_mm / 25.4, h_mm / 25.4))
    fig.patch.set_facecolor("white")
    ax = _draw_grid(fig, board, lay)
    _draw_labels(ax, place_labels(board, paper))
    # OSM and user text: never mathtext ("$" is a dollar, not a formula).
    ax.set_title(
        board.name, fontsize=LABEL_PT[paper]["title"], weight="bold", pad=18, parse_math=False
    )
    _draw_terrain_legend(fig, lay)
    _draw_start_legend(fig, board, lay)
    _draw_time_bar(fig, lay)
    fig.text(
        lay.grid[0],
        lay.credit_y,
        f"Map data © OpenStreetMap contributors, ODbL 1.0 (openstreetmap.org/copyright). "
        f"Grid {g.cols}×{g.rows} squares of {g.cell_m / 1000:.2f} km in EPSG:{g.epsg}.",
        fontsize=6.5,
        va="top",
    )
    return fig


def _draw_grid(fig, board: Board, lay: Layout):
    """The coloured squares, grid lines, motorway and rail links, starts, coordinates."""
    g = board.grid
    ax = fig.add_axes(lay.grid)
    rgb = np.array([_hex(COLOURS[board.kind(s)]) for s in range(g.size)]).reshape(g.rows, g.cols, 3)
    ax.imshow(rgb, extent=(0, g.cols, g.rows, 0), interpolation="nearest", aspect="auto")
    ax.set_xlim(0, g.cols)
    ax.set_ylim(g.rows, 0)
    for x in range(g.cols + 1):
        ax.axvline(x, color="#888888", lw=0.3)
    for y in range(g.rows + 1):
        ax.axhline(y, color="#888888", lw=0.3)

    def centre(s: int) -> tuple[float, float]:
        r, c = divmod(s, g.cols)
        return c + 0.5, r + 0.5

    for a, b in board.motorway_edges:
        (x0, y0), (x1, y1) = centre(a), centre(b)
        ax.plot([x0, x1], [y0, y1], color="#7a0000", lw=1.2, alpha=0.8)
    for a, b in board.rail_links:
        (x0, y0), (x1, y1) = centre(a), centre(b)
        ax.plot([x0, x1], [y0, y1], color="#333333", lw=0.8, ls=(0, (3, 2)), alpha=0.8)
    for s, _n, _k in board.starts:
        x, y = centre(s)
        ax.plot([x], [y], marker="*", ms=9, color="#d00000", mec="black", mew=0.5)
    cols = [g.name(c)[: -g.row_digits] for c in range(g.cols)]
    rows = [f"{r + 1:0{g.row_digits}d}" for r in range(g.rows)]
    # Labels ~60 % of a square's width (72 pt an inch), kept between 4 and 8 pt.
    fs = max(4.0, min(8.0, 0.6 * 72 * (lay.grid[2] * lay.page_mm[0] / 25.4) / g.cols))
    ax.set_xticks(np.arange(g.cols) + 0.5, cols, fontsize=fs)
    ax.set_yticks(np.arange(g.rows) + 0.5, rows, fontsize=fs)
    ax.tick_params(length=0, labeltop=True, labelright=True, pad=2)
    return ax


def place_labels(board: Board, paper: str = "a3") -> list[PlacedLabel]:
    """The names printed on the grid: every big city, then as many motorway numbers,
    rivers, lakes, towns and villages as fit without overlapping (:data:`LABEL_ORDER`).

    A label is centred on its square, else just below, above, right or left of it (in the
    grid), wherever it clears the labels before it and the start stars; its box is
    estimated from its size in points and the printed square's size (:func:`layout`).
    A city is always printed (on its square when nothing there is free).
    """
    g = board.grid
    lay = layout(board, paper)
    cell_pt = lay.grid[2] * lay.page_mm[0] / 25.4 * 72 / g.cols
    sizes = LABEL_PT[paper]
    items = [(s, n, "city") for s, n in sorted(board.cities.items())] + list(board.labels)
    items.sort(key=lambda it: LABEL_ORDER.index(it[2]))
    placed: list[PlacedLabel] = []
    boxes: list[tuple[float, float, float, float]] = []
    for s, _n, _k in board.starts:  # the stars: 0.8 of a square round the centre
        r, c = divmod(s, g.cols)
        boxes.append((c + 0.1, r + 0.1, c + 0.9, r + 0.9))
    for s, text, kind in items:
        size = sizes[kind]
        w = min(g.cols, _EM_WIDTH * size * len(text) / cell_pt)
        h = _EM_HEIGHT * size / cell_pt
        r, c = divmod(s, g.cols)
        spot = None
        below, side = 0.5 + h / 2, 0.5 + w / 2
        for dx, dy in ((0.0, 0.0), (0.0, below), (0.0, -below), (side, 0.0), (-side, 0.0)):
            x = min(max(c + 0.5 + dx, w / 2), g.cols - w / 2)
            y = min(max(r + 0.5 + dy, h / 2), g.rows - h / 2)
            box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            if not any(_overlap(box, b) for b in boxes):
                spot = (x, y, box)
                break
        if spot is None and kind == "city":
            x = min(max(c + 0.5, w / 2), g.cols - w / 2)
            y = min(max(r + 0.5, h / 2), g.rows - h / 2)
            spot = (x, y, (x - w / 2, y - h / 2, x + w / 2, y + h / 2))
        if spot is not None:
            boxes.append(spot[2])
            placed.append(PlacedLabel(text, kind, spot[0], spot[1], size))
    return placed


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _draw_labels(ax, labels: list[PlacedLabel]) -> None:
    """The names, each on a light box so it reads over any terrain colour.

    Kept as PDF text (a path-effect halo would turn the glyphs into outlines, and the
    names could no longer be searched or copied).
    """
    halo = {"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.72}
    style = {
        "city": {"weight": "bold", "color": "#000000", "bbox": halo},
        "motorway": {
            "weight": "bold",
            "color": "#7a0000",
            "bbox": {"boxstyle": "round,pad=0.15", "fc": "white", "ec": "#7a0000", "lw": 0.6},
        },
        "river": {"style": "italic", "color": "#0b3d91", "bbox": halo},
        "lake": {"style": "italic", "color": "#0b3d91", "bbox": halo},
        "town": {"color": "#222222", "bbox": halo},
        "village": {"color": "#333333", "bbox": halo},
    }
    for lab in labels:
        ax.text(
            lab.x,
            lab.y,
            lab.text,
            fontsize=lab.size,
            ha="center",
            va="center",
            parse_math=False,
            clip_on=True,
            **style[lab.kind],
        )


def _legend_axes(fig, rect: tuple[float, float, float, float]):
    """Blank unit-square axes at ``rect`` for a legend's text and swatches."""
    ax = fig.add_axes(rect)
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    return ax


def _draw_terrain_legend(fig, lay: Layout) -> None:
    from matplotlib.patches import Rectangle

    lg = _legend_axes(fig, lay.legend)
    lg.text(0, 0.97, "Legend: terrain", fontsize=9, weight="bold", va="top")
    items = list(LABELS.items())
    step = 0.85 / len(items)
    for i, (kind, label) in enumerate(items):
        y = 0.82 - i * step
        lg.add_patch(
            Rectangle(
                (0, y - step * 0.35), 0.08, step * 0.7, color=COLOURS[kind], ec="#555555", lw=0.4
            )
        )
        lg.text(0.11, y, label, fontsize=7.5, va="center")


def _draw_start_legend(fig, board: Board, lay: Layout) -> None:
    st = _legend_axes(fig, lay.starts)
    kinds = {k for _s, _n, k in board.starts}
    title = "Start locations: prisons" if kinds == {"prison"} else "Start locations"
    st.text(0, 0.97, title, fontsize=9, weight="bold", va="top")
    step = 0.85 / max(8, len(board.starts))
    for i, (s, name, kind) in enumerate(board.starts):
        extra = "" if kind == "prison" else f" ({kind})"
        st.text(
            0.0,
            0.82 - i * step,
            f"★ {board.grid.name(s)} — {name}{extra}"[:70],
            fontsize=7.5,
            va="center",
            parse_math=False,
        )


def _draw_time_bar(fig, lay: Layout) -> None:
    """START and the squares 1 … :data:`TIME_SQUARES`."""
    from matplotlib.patches import Rectangle

    tb = fig.add_axes(lay.timebar)
    tb.set_axis_off()
    n = TIME_SQUARES + 1
    tb.set_xlim(0, n)
    tb.set_ylim(0, 1)
    for i in range(n):
        tb.add_patch(
            Rectangle(
                (i + 0.05, 0.05), 0.9, 0.9, fc="#fafafa" if i else "#dddddd", ec="#333333", lw=0.6
            )
        )
        tb.text(
            i + 0.5,
            0.5,
            "START" if i == 0 else str(i),
            ha="center",
            va="center",
            fontsize=6 if i == 0 else 7,
        )


def render_both(board: Board, paper: str = "a3", dpi: int = 120) -> tuple[bytes, bytes]:
    """The PDF and the PNG of one drawing (one figure, saved twice)."""
    fig = _figure(board, paper)
    pdf, png = io.BytesIO(), io.BytesIO()
    fig.savefig(
        pdf, format="pdf", metadata={"CreationDate": None, "Producer": "stations-generator"}
    )
    fig.savefig(png, format="png", dpi=dpi, metadata={"Software": None})
    return pdf.getvalue(), png.getvalue()


def render_pdf(board: Board, paper: str = "a3") -> bytes:
    """The board as a one-page PDF (deterministic: no creation date)."""
    fig = _figure(board, paper)
    buf = io.BytesIO()
    fig.savefig(
        buf, format="pdf", metadata={"CreationDate": None, "Producer": "stations-generator"}
    )
    return buf.getvalue()


def render_png(board: Board, paper: str = "a3", dpi: int = 120) -> bytes:
    """The board as a PNG of the same page."""
    fig = _figure(board, paper)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()
