"""The printable board, checked as a picture: board.pdf rendered to pixels with pypdfium2."""

from __future__ import annotations

import numpy as np
import pypdfium2 as pdfium
import pytest
from support.board_cases import real_board

from stations_generator.board.render import (
    COLOURS,
    LABELS,
    TIME_SQUARES,
    layout,
    place_labels,
    render_pdf,
)

SCALE = 2.0  # pixels per PDF point
PAGE_PT = {"a3": (841.89, 1190.55), "a4": (595.28, 841.89)}


def _hex(c: str) -> np.ndarray:
    return np.array([int(c[i : i + 2], 16) for i in (1, 3, 5)], dtype=float)


@pytest.fixture(scope="module", params=["a3", "a4"])
def page(request):
    board = real_board("monaco", 36, 24)
    pdf = pdfium.PdfDocument(render_pdf(board, request.param))
    assert len(pdf) == 1
    p = pdf[0]
    size = p.get_size()
    img = np.asarray(p.render(scale=SCALE).to_pil().convert("RGB")).astype(float)
    return board, request.param, size, img


def _box(img, frac):
    """Pixel rows/cols of a layout rectangle (fractions from the bottom-left)."""
    h, w = img.shape[:2]
    left, bottom, width, height = frac
    x0, x1 = int(left * w), int((left + width) * w)
    y0, y1 = int((1 - bottom - height) * h), int((1 - bottom) * h)
    return y0, y1, x0, x1


def test_page_size_and_orientation(page):
    board, paper, size, _img = page
    short, long_ = PAGE_PT[paper]
    # Monaco's board is wider than tall: landscape.
    assert size == pytest.approx((long_, short), abs=1.0)


def test_every_square_has_its_terrain_colour(page):
    board, paper, _size, img = page
    y0, y1, x0, x1 = _box(img, layout(board, paper).grid)
    g = board.grid
    cw, ch = (x1 - x0) / g.cols, (y1 - y0) / g.rows
    good = 0
    for s in range(g.size):
        r, c = divmod(s, g.cols)
        # A point a quarter in from the square's top-left (lines run centre to centre).
        px = img[int(y0 + (r + 0.28) * ch), int(x0 + (c + 0.28) * cw)]
        good += np.abs(px - _hex(COLOURS[board.kind(s)])).max() <= 40
    assert good >= 0.95 * g.size


def _dark(region) -> int:
    return int((region.max(axis=2) < 100).sum())


def test_coordinates_on_all_four_edges(page):
    board, paper, _size, img = page
    y0, y1, x0, x1 = _box(img, layout(board, paper).grid)
    band = int(8 * SCALE)
    cw = (x1 - x0) / board.grid.cols
    # Column letters above and below the first column, row numbers left and right of row 01.
    col_a = slice(int(x0), int(x0 + cw))
    assert _dark(img[y0 - band : y0 - 1, col_a]) > 5
    assert _dark(img[y1 + 1 : y1 + band, col_a]) > 5
    ch = (y1 - y0) / board.grid.rows
    row_1 = slice(int(y0), int(y0 + ch))
    assert _dark(img[row_1, x0 - 3 * band : x0 - 1]) > 5
    assert _dark(img[row_1, x1 + 1 : x1 + 3 * band]) > 5
    # The white margin just past the labels is empty.
    assert _dark(img[:, : int(2 * SCALE)]) == 0


def test_terrain_legend_start_legend_time_bar_and_credit(page):
    board, paper, _size, img = page
    lay = layout(board, paper)
    y0, y1, x0, x1 = _box(img, lay.legend)
    legend = img[y0:y1, x0:x1].reshape(-1, 3)
    for kind in LABELS:
        assert (np.abs(legend - _hex(COLOURS[kind])).max(axis=1) <= 10).any(), kind
    y0, y1, x0, x1 = _box(img, lay.starts)
    assert _dark(img[y0:y1, x0:x1]) > 200 * len(board.starts) / 6
    # Time bar: START and 25 boxes, seen as 26 light runs (box insides) wider than half a
    # box along a row near the boxes' top, above their labels.
    y0, y1, x0, x1 = _box(img, lay.timebar)
    light = img[y0 + (y1 - y0) // 5, x0:x1].min(axis=1) > 200
    runs, width = [], 0
    for v in [*light, False]:
        if v:
            width += 1
        elif width:
            runs.append(width)
            width = 0
    box = (x1 - x0) / (TIME_SQUARES + 1)
    assert sum(1 for r in runs if r > 0.5 * box) == TIME_SQUARES + 1
    h = img.shape[0]
    cy = int((1 - lay.credit_y) * h)
    assert _dark(img[cy : cy + int(10 * SCALE), :]) > 100


# ------------------------------------------------------------- names (issue 40)
@pytest.fixture(scope="module", params=["a3", "a4"])
def bayreuth_page(request):
    board = real_board("north-bayreuth", 24, 36)
    pdf = pdfium.PdfDocument(render_pdf(board, request.param))
    p = pdf[0]
    img = np.asarray(p.render(scale=SCALE).to_pil().convert("RGB")).astype(float)
    return board, request.param, p, img


def _text(pdf_page) -> str:
    return pdf_page.get_textpage().get_text_range()


def test_names_are_in_the_pdf_as_text_and_legible(page):
    board, paper, _size, _img = page
    doc = pdfium.PdfDocument(render_pdf(board, paper))
    text = _text(doc[0])
    labels = place_labels(board, paper)
    assert board.name in text  # the title: the region's name
    placed = {lab.text for lab in labels}
    assert set(board.cities.values()) <= placed  # every city is printed
    assert "A 8" in placed
    for lab in labels:
        assert lab.text in text, lab.text
        assert lab.size >= 6.0  # points: legible on A4, the smaller paper


def test_bayreuth_prints_motorway_numbers_river_and_villages(bayreuth_page):
    board, paper, pdf_page, _img = bayreuth_page
    text = _text(pdf_page)
    for name in ("A 9", "A 70", "Roter Main", "Neudrossenfeld"):
        assert name in text, name
    assert len(place_labels(board, paper)) >= 8


def _label_ink(board, paper, img, lab) -> int:
    """Text-coloured pixels inside a placed label's box on the rendered page."""
    y0, y1, x0, x1 = _box(img, layout(board, paper).grid)
    g = board.grid
    cw, ch = (x1 - x0) / g.cols, (y1 - y0) / g.rows
    half_h = max(2, int(0.3 * ch))
    cx, cy = int(x0 + lab.x * cw), int(y0 + lab.y * ch)
    region = img[cy - half_h : cy + half_h, max(0, cx - int(cw)) : cx + int(cw)]
    # Ink: black, dark grey, dark red or dark blue, luminance below 80 (every terrain
    # colour but the junction's is lighter: forest's is 100, water's 142).
    luminance = region @ np.array([0.299, 0.587, 0.114])
    return int((luminance < 80).sum())


def test_names_are_drawn_where_they_are_placed(page, bayreuth_page):
    monaco, monaco_paper, _size, monaco_img = page
    bayreuth, bayreuth_paper, _pdf_page, bayreuth_img = bayreuth_page
    for board, paper, img in (
        (monaco, monaco_paper, monaco_img),
        (bayreuth, bayreuth_paper, bayreuth_img),
    ):
        for lab in place_labels(board, paper):
            assert _label_ink(board, paper, img, lab) >= 6, lab
