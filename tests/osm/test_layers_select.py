"""Layers cut to a box from the extract cache (osm/layers.py) on real extracts.

A cached layer is made into objects only where a box needs them, picked by the
points' coordinates and the shapes' envelopes stored in the entry. These tests check
that the pick gives exactly what cutting the whole layer gives (points inside the box,
edges included; shapes meeting it), for random boxes over the real Liechtenstein
extract tiled 4 times and for boxes whose edges lie on a shape's envelope; that an
entry written before the envelopes and row offsets were stored still reads the same;
that a small box makes only its rows; and that a bad row found late is dropped and
the extract read again.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import LIECHTENSTEIN
from support.tiled_osm import STEP_DEG, write_tiles

from stations_generator.core.catalogue import load_catalogue
from stations_generator.osm import extracts, layers
from stations_generator.osm.extract_cache import ExtractCache

SHAPE_LAYERS = [("area", name) for name in layers.AREA_LAYERS] + [
    ("line", name) for name in layers.LINE_LAYERS
]


@pytest.fixture(autouse=True)
def _fresh_memo():
    layers._MEMO.clear()
    yield
    layers._MEMO.clear()


@pytest.fixture(scope="module")
def tiled(tmp_path_factory):
    return write_tiles(LIECHTENSTEIN, tmp_path_factory.mktemp("tiles") / "li-4.osm.pbf", 4)


@pytest.fixture(scope="module")
def whole(tiled, tmp_path_factory):
    """Every layer of the tiled extract, whole (no box), and a cache folder one read filled."""
    folder = tmp_path_factory.mktemp("cache") / "extracts"
    layers._MEMO.clear()
    with layers.use_cache(ExtractCache(folder)):
        found = {
            "points": layers.points(tiled, load_catalogue()),
            **{name: _shapes(kind, tiled, name, None) for kind, name in SHAPE_LAYERS},
        }
    layers._MEMO.clear()
    assert found["points"] and found["admin"] and found["water"] and found["waterway"]
    return found, folder


def _shapes(kind: str, path, name: str, box_):
    return (layers.areas if kind == "area" else layers.lines)(path, name, box_)


def _cut_points(points, box_):
    w, s, e, n = box_
    return [p for p in points if w <= p.lon <= e and s <= p.lat <= n]


def _cut_shapes(rows, box_):
    clip = shapely.box(*box_)
    return [r for r in rows if r[2].intersects(clip)]


def _same_rows(got, want) -> bool:
    return [(k, t, g.wkb) for k, t, g in got] == [(k, t, g.wkb) for k, t, g in want]


def _check_box(tiled, found, folder, box_) -> None:
    """Every layer cut to ``box_`` from the cache entries is the whole layer cut to it."""
    with layers.use_cache(ExtractCache(folder)):
        got = layers.points(tiled, load_catalogue(), box_)
        assert [(e, e.tags) for e in got] == [
            (e, e.tags) for e in _cut_points(found["points"], box_)
        ]
        for kind, name in SHAPE_LAYERS:
            assert _same_rows(_shapes(kind, tiled, name, box_), _cut_shapes(found[name], box_))


# Boxes over the 2 x 2 tiles (0.4° apart) and a little beyond, from points to ~1°.
_LON = st.floats(9.3, 9.9 + STEP_DEG)
_LAT = st.floats(46.9, 47.4 + STEP_DEG)
_SIZE = st.floats(0.0, 1.0)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same boxes every run
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(w=_LON, s=_LAT, dw=_SIZE, ds=_SIZE)
def test_a_box_from_the_cache_is_the_whole_layer_cut_to_it(tiled, whole, w, s, dw, ds):
    found, folder = whole
    layers._MEMO.clear()
    _check_box(tiled, found, folder, (w, s, w + dw, s + ds))


def test_boxes_on_the_edge_of_an_envelope(tiled, whole, monkeypatch):
    """A box that only touches a shape's envelope, or a point, from any side: the pick
    keeps what touches (edges included) and drops nothing that meets the box."""
    found, folder = whole
    monkeypatch.setattr(extracts, "read_points", lambda *_a, **_k: pytest.fail("read"))
    rows = [r for name in ("admin", "water", "waterway") for r in found[name][:15]]
    boxes = []
    for _, _, g in rows:
        w, s, e, n = shapely.bounds(g).tolist()
        boxes += [
            (e, s, e + 0.01, n),
            (w - 0.01, s, w, n),
            (w, n, e, n + 0.01),
            (w, s - 0.01, e, s),
        ]
    p = found["points"][len(found["points"]) // 2]
    boxes += [(p.lon, p.lat, p.lon, p.lat), (p.lon, p.lat, p.lon + 0.1, p.lat + 0.1)]
    for box_ in boxes:
        layers._MEMO.clear()
        _check_box(tiled, found, folder, box_)
    # and the touching ones are really there: a box on a point holds that point
    with layers.use_cache(ExtractCache(folder)):
        assert p in layers.points(tiled, load_catalogue(), (p.lon, p.lat, p.lon, p.lat))


def test_a_small_box_makes_only_its_rows(tiled, whole):
    found, folder = whole
    cache = ExtractCache(folder)
    box_ = (9.50, 47.10, 9.55, 47.15)  # a corner of Vaduz, copy 0
    with layers.use_cache(cache):
        got = layers.points(tiled, load_catalogue(), box_)
    index = layers.index_catalogue(load_catalogue())
    held = layers._MEMO[(str(folder), cache.key(tiled, f"points|{index.fingerprint()}"))]
    made = sum(row is not None for row in held._rows)
    assert got and made == len(_cut_points(held.select(None), box_)) < len(found["points"]) / 10


def _old_layout(folder, tiled) -> None:
    """Rewrite every layer entry as the previous version stored it: no envelopes, no offsets."""
    cache = ExtractCache(folder)
    index = layers.index_catalogue(load_catalogue())
    names = ["points", *layers.AREA_LAYERS, *layers.LINE_LAYERS]
    for name in names:
        key = cache.key(tiled, layers._layer_id(name, index))
        columns = cache.load(key)
        assert columns is not None and ("bounds" in columns or name == "points")
        cache.store(key, {k: v for k, v in columns.items() if k != "bounds" and "_at" not in k})


def test_entries_without_envelopes_or_offsets_read_the_same(tiled, whole, tmp_path, monkeypatch):
    import shutil

    found, folder = whole
    old = tmp_path / "old"
    shutil.copytree(folder, old)
    _old_layout(old, tiled)
    warnings = []
    for name in ("read_points", "read_areas", "read_lines"):
        monkeypatch.setattr(extracts, name, lambda *_a, **_k: pytest.fail("the extract was read"))
    for box_ in [(9.45, 47.0, 9.7, 47.3), (9.5 + STEP_DEG, 47.0, 9.9 + STEP_DEG, 47.6)]:
        layers._MEMO.clear()
        with layers.use_cache(ExtractCache(old, warn=warnings.append)):
            got = layers.points(tiled, load_catalogue(), box_)
            assert [(e, e.tags) for e in got] == [
                (e, e.tags) for e in _cut_points(found["points"], box_)
            ]
            for kind, name in SHAPE_LAYERS:
                want = _cut_shapes(found[name], box_)
                assert _same_rows(_shapes(kind, tiled, name, box_), want)
    assert warnings == []


def test_a_bad_row_found_when_made_drops_the_entry(tiled, whole, tmp_path):
    """An entry whose checksum holds but one admin row's tags are not strings: the row is
    made only when a box needs it; then the entry is dropped and the extract read again."""
    import shutil

    found, folder = whole
    spoiled = tmp_path / "spoiled"
    shutil.copytree(folder, spoiled)
    cache = ExtractCache(spoiled)
    key = cache.key(tiled, layers._layer_id("admin", layers.index_catalogue(load_catalogue())))
    columns = cache.load(key)
    tags = [dict(t) for _, t, _ in found["admin"]]
    last = len(tags) - 1  # a municipality of the last copy, far from copy 0's box below
    tags[last] = {"name": 1}
    cache.store(key, {**columns, **layers._json_columns("tags", tags)})
    warnings = []
    far = shapely.bounds(found["admin"][last][2]).tolist()
    near = (9.50, 47.10, 9.55, 47.15)
    assert not _cut_shapes(found["admin"][last:], near)
    with layers.use_cache(ExtractCache(spoiled, warn=warnings.append)):
        assert _same_rows(layers.areas(tiled, "admin", near), _cut_shapes(found["admin"], near))
        assert warnings == []  # the bad row was not needed, nor made
        got = layers.areas(tiled, "admin", far)
    assert _same_rows(got, _cut_shapes(found["admin"], far))
    assert any("dropped" in w for w in warnings), warnings
    layers._MEMO.clear()
    with layers.use_cache(ExtractCache(spoiled)):  # the entry stored again is good
        assert _same_rows(layers.areas(tiled, "admin", far), _cut_shapes(found["admin"], far))
    assert np.isfinite(far).all()
