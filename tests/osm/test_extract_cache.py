"""The extract cache and country-scale reads: same outputs from 1 tile, 4 tiles and the cache.

The 4-tile extract is built here from the real Liechtenstein extract by ``tiled_osm.py``
(copy 0 is the extract itself; the play area lies on it).
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from click.testing import CliRunner
from support.paths import EXTRACTS, REPO
from support.tiled_osm import write_tiles

from stations_generator.cli import main
from stations_generator.core.catalogue import load_catalogue
from stations_generator.osm import extracts, layers
from stations_generator.osm.extract_cache import ExtractCache, file_identity

LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
MONACO = EXTRACTS / "monaco-2016.osm.pbf"
ZONE = REPO / "zones" / "liechtenstein.geojson"
OUTPUTS = ("stations.geojson", "stations.csv", "stations.kml")


@pytest.fixture(scope="module")
def tiled(tmp_path_factory):
    return write_tiles(LIECHTENSTEIN, tmp_path_factory.mktemp("tiles") / "li-4.osm.pbf", 4)


@pytest.fixture(autouse=True)
def _fresh_memo():
    layers._MEMO.clear()
    yield
    layers._MEMO.clear()


def _generate(tmp_path, name, extract, *extra):
    out = tmp_path / name
    result = CliRunner().invoke(
        main, ["generate", str(ZONE), "--osm", str(extract), "-o", str(out), *map(str, extra)]
    )
    assert result.exit_code == 0, result.output
    return {f: (out / f).read_bytes() for f in OUTPUTS}


def _forbid_reading(monkeypatch):
    def fail(*_a, **_k):
        raise AssertionError("the extract was read; the cache should have answered")

    for name in ("read_points", "read_areas", "read_lines"):
        monkeypatch.setattr(extracts, name, fail)


def test_station_map_is_the_same_from_1_and_4_tiles_and_from_the_cache(
    tmp_path, tiled, monkeypatch
):
    cache = tmp_path / "cache"
    one = _generate(tmp_path, "one", LIECHTENSTEIN, "--no-cache")
    assert b"FeatureCollection" in one["stations.geojson"]
    assert _generate(tmp_path, "four", tiled, "--no-cache") == one
    assert _generate(tmp_path, "first", tiled, "--cache-dir", cache) == one
    assert list((cache / "extracts").glob("*.npz"))
    layers._MEMO.clear()
    _forbid_reading(monkeypatch)
    assert _generate(tmp_path, "cached", tiled, "--cache-dir", cache) == one


def test_extract_index_then_every_layer_is_cached(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    station_map = _generate(tmp_path, "plain", LIECHTENSTEIN, "--no-cache")
    result = CliRunner().invoke(
        main, ["extract", "index", str(LIECHTENSTEIN), "--cache-dir", str(cache)]
    )
    assert result.exit_code == 0, result.output
    assert "Indexed liechtenstein-2013-08.osm.pbf" in result.output
    entries = list((cache / "extracts").glob("*.npz"))
    assert len(entries) == 1 + len(layers.AREA_LAYERS) + len(layers.LINE_LAYERS) + 1  # routes

    plain = ExtractCache(enabled=False)
    with layers.use_cache(plain):
        want = (
            layers.points(LIECHTENSTEIN, load_catalogue()),
            layers.areas(LIECHTENSTEIN, "admin", (9.5, 47.0, 9.6, 47.2)),
            layers.water(LIECHTENSTEIN),
        )
    layers._MEMO.clear()
    _forbid_reading(monkeypatch)
    with layers.use_cache(ExtractCache(cache / "extracts")):
        got = (
            layers.points(LIECHTENSTEIN, load_catalogue()),
            layers.areas(LIECHTENSTEIN, "admin", (9.5, 47.0, 9.6, 47.2)),
            layers.water(LIECHTENSTEIN),
        )
    assert [(e, e.tags) for e in got[0]] == [(e, e.tags) for e in want[0]]
    assert [(k, t, g.wkb) for k, t, g in got[1]] == [(k, t, g.wkb) for k, t, g in want[1]]
    assert got[1]  # Liechtenstein's municipalities
    assert [g.wkb for g in got[2]] == [g.wkb for g in want[2]]
    # generate's station categories are a selection: the index serves it too.
    assert _generate(tmp_path, "indexed", LIECHTENSTEIN, "--cache-dir", cache) == station_map


def test_extract_index_of_a_missing_file_is_one_line(tmp_path):
    result = CliRunner().invoke(main, ["extract", "index", str(tmp_path / "none.osm.pbf")])
    assert result.exit_code != 0
    assert "does not exist" in result.output
    assert "Traceback" not in result.output


def test_changed_extract_or_catalogue_misses_the_cache(tmp_path):
    path = tmp_path / "area.osm.pbf"
    shutil.copyfile(LIECHTENSTEIN, path)
    cache = ExtractCache(tmp_path / "c")
    key = cache.key(path, "points|x")
    assert ExtractCache(tmp_path / "c").key(path, "points|y") != key  # another catalogue

    with layers.use_cache(cache):
        before = layers.points(path, load_catalogue())
    shutil.copyfile(MONACO, path)  # a new download at the same path
    fresh = ExtractCache(tmp_path / "c")
    assert fresh.key(path, "points|x") != key
    layers._MEMO.clear()
    with layers.use_cache(fresh):
        after = layers.points(path, load_catalogue())
    assert after == extracts.read_points(MONACO, load_catalogue().keeps)
    assert after != before

    ident = file_identity(path)
    os.utime(path, ns=(1, 1))  # same bytes, touched: another identity
    assert file_identity(path) != ident


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_bad_entry_is_rebuilt_never_used(tmp_path, damage):
    warnings = []
    cache = ExtractCache(tmp_path / "c", warn=warnings.append)
    catalogue = load_catalogue()
    with layers.use_cache(cache):
        want = layers.points(LIECHTENSTEIN, catalogue)
    index = layers.index_catalogue(catalogue)
    entry = cache.path(cache.key(LIECHTENSTEIN, f"points|{index.fingerprint()}"))
    # one read stored every layer (points, areas, lines and routes)
    stored = list((tmp_path / "c").glob("*.npz"))
    assert len(stored) == 2 + len(layers.AREA_LAYERS) + len(layers.LINE_LAYERS)
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[: len(data) // 2])
    elif damage == "flip":  # one byte of the coordinates: only the checksum can tell
        arr = bytearray(data)
        lat_at = data.index(b"lat.npy")
        arr[lat_at + 200] ^= 0x01
        entry.write_bytes(bytes(arr))
    else:
        entry.write_bytes(b"not a cache entry")
    layers._MEMO.clear()
    with layers.use_cache(cache):
        got = layers.points(LIECHTENSTEIN, catalogue)
    assert [(e, e.tags) for e in got] == [(e, e.tags) for e in want]
    assert any("dropped" in w for w in warnings), warnings
    assert cache.load(cache.key(LIECHTENSTEIN, f"points|{index.fingerprint()}")) is not None


def test_entry_with_another_key_is_not_trusted(tmp_path):
    cache = ExtractCache(tmp_path / "c")
    cache.store("a", {"x": np.arange(3)})
    os.replace(cache.path("a"), cache.path("b"))  # the right bytes under the wrong name
    assert cache.load("b") is None
    assert not cache.path("b").exists()
    assert cache.load("a") is None  # and nothing else is left behind


def test_size_limit_keeps_the_newest_entries(tmp_path):
    cache = ExtractCache(tmp_path / "c", limit_mb=1.5)
    big = {"x": np.zeros(100_000, dtype=np.float64)}  # 0.8 MB
    cache.store("old", big)
    os.utime(cache.path("old"), ns=(1, 1))
    cache.store("new", big)
    assert cache.path("new").exists()
    assert not cache.path("old").exists()
    assert cache.load("new") is not None


def test_no_cache_writes_nothing(tmp_path):
    cache = ExtractCache(tmp_path / "c", enabled=False)
    with layers.use_cache(cache):
        assert layers.points(LIECHTENSTEIN, load_catalogue())
    assert not (tmp_path / "c").exists()


def test_routes_round_trip_through_the_cache(tmp_path, monkeypatch):
    from stations_generator.osm import routes as routes_module

    path = EXTRACTS / "helsinki-centre.osm.pbf"
    want = routes_module.read_routes(path)
    assert len(want) > 100
    cache = ExtractCache(tmp_path / "c")
    with layers.use_cache(cache):
        assert layers.routes(path) == want
    layers._MEMO.clear()
    monkeypatch.setattr(routes_module, "read_routes", lambda *_a, **_k: pytest.fail("read again"))
    monkeypatch.setattr(layers, "_read_all", lambda *_a, **_k: pytest.fail("read again"))
    with layers.use_cache(cache):
        got = layers.routes(path)
    assert got == want
    assert [(r.stops, r.stop_ids) for r in got] == [(r.stops, r.stop_ids) for r in want]


def test_no_cache_reads_the_extract_once_for_every_layer(tmp_path, monkeypatch):
    """With the cache off, one read serves every layer (nothing stored): the readers' results."""
    from stations_generator.osm.routes import read_routes

    box_ = (9.5, 47.0, 9.6, 47.2)
    catalogue = load_catalogue()
    reads = []
    real = layers._read_all
    monkeypatch.setattr(layers, "_read_all", lambda *a, **k: reads.append(a) or real(*a, **k))
    with layers.use_cache(ExtractCache(tmp_path / "c", enabled=False)):
        points = layers.points(LIECHTENSTEIN, catalogue, box_)
        admin = layers.areas(LIECHTENSTEIN, "admin", box_)
        water = layers.water(LIECHTENSTEIN, box_)
        routes = layers.routes(LIECHTENSTEIN)
    assert len(reads) == 1
    assert not (tmp_path / "c").exists()
    want = extracts.read_points(
        LIECHTENSTEIN, catalogue.keeps, box_, prefilter=catalogue.prefilter()
    )
    assert points and [(e, e.tags) for e in points] == [(e, e.tags) for e in want]
    want_admin = extracts.read_areas(LIECHTENSTEIN, layers.AREA_LAYERS["admin"].keep, box_)
    assert admin and [(k, t, g.wkb) for k, t, g in admin] == [
        (k, t, g.wkb) for k, t, g in want_admin
    ]
    assert water and [g.wkb for g in water] == [
        g.wkb for g in extracts.read_water(LIECHTENSTEIN, box_)
    ]
    assert routes and routes == read_routes(LIECHTENSTEIN)


def test_extract_index_into_an_unusable_folder_fails_in_one_line(tmp_path):
    """`extract index` exists to fill the cache: a cache it cannot use is an error (exit 2),
    not a success message naming a folder that holds nothing."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    args = ["extract", "index", str(LIECHTENSTEIN), "--cache-dir", str(blocker)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "nothing was indexed" in result.stderr and "Traceback" not in result.output
    assert blocker.read_text(encoding="utf-8") == "not a folder"
