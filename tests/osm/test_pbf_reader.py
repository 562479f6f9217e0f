"""The compiled PBF reader (``stations_generator/osm/pbf``): built where it can be, the same
layers as pyosmium's reader, memory bounded by what it keeps, and declining (to pyosmium)
or refusing (one line) the files it must.

The layers themselves are compared with each single-layer reader on every bundled extract
in test_extract_prefilter.py, by both readers.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import osmium
import osmium.filter
import pytest
from support.paths import EXTRACTS
from support.tiled_osm import write_tiles

from stations_generator.errors import InputError
from stations_generator.osm import layers, one_pass, pbf_layers

LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
PBF_FILES = sorted(EXTRACTS.glob("*.osm.pbf"))
SOURCES = Path(pbf_layers.__file__).parent / "pbf"
#: The headers setup.py builds the reader with.
HEADERS = ("osmium/osm.hpp", "protozero/pbf_reader.hpp", "zlib.h")


def _headers_found() -> bool:
    dirs = [
        *os.environ.get("CPLUS_INCLUDE_PATH", "").split(os.pathsep),
        *os.environ.get("CPATH", "").split(os.pathsep),
        "/usr/local/include",
        "/usr/include",
    ]
    return all(any(Path(d, h).is_file() for d in dirs if d) for h in HEADERS)


def test_the_reader_is_built_where_its_headers_are():
    wanted = (
        _headers_found()
        and shutil.which(os.environ.get("CXX", "g++")) is not None
        and os.environ.get("STATIONS_GENERATOR_PURE_PYTHON", "") in ("", "0")
    )
    assert pbf_layers.available() is wanted
    if not wanted:
        return
    # Built from these sources (an edit after an editable install needs `pip install -e .`).
    record = json.loads((SOURCES / "compiled_sources.json").read_text())
    for name in ("reader.pyx", "blob_reader.hpp"):
        digest = hashlib.sha256((SOURCES / name).read_bytes()).hexdigest()
        assert record[name] == digest, f"{name} changed since it was built: pip install -e ."


@pytest.fixture(scope="module")
def compiled():
    if not pbf_layers.available():
        pytest.fail("the compiled PBF reader is not built (see the test above)")
    return pbf_layers


def _layers(path, *, pyosmium: bool):
    """Every layer of ``path`` (points, areas, lines, routes) by one reader."""
    index = layers._default_index()
    with pytest.MonkeyPatch.context() as mp:
        if pyosmium:
            mp.setenv("STATIONS_GENERATOR_PYOSMIUM_READER", "1")
        else:
            mp.delenv("STATIONS_GENERATOR_PYOSMIUM_READER", raising=False)
        return layers._read_all(path, index)


def _comparable(found: dict) -> dict:
    out = {}
    for name, rows in found.items():
        if name == "points":
            out[name] = [(e, e.tags, e.lat, e.lon) for e in rows]
        elif name == "routes":
            out[name] = [(r, r.stops, r.stop_ids) for r in rows]
        else:
            out[name] = [(key, tags, geom.wkb) for key, tags, geom in rows]
    return out


@pytest.mark.parametrize("path", PBF_FILES, ids=lambda p: p.name)
def test_the_same_layers_as_pyosmium(compiled, path):
    got = _comparable(_layers(path, pyosmium=False))
    want = _comparable(_layers(path, pyosmium=True))
    assert got.keys() == want.keys()
    for name in want:
        assert got[name] == want[name], name
    assert sum(map(len, got.values())) > 0


def test_the_marked_paths_as_pyosmium(compiled):
    """The on-demand line layer of every street and path (the largest a question reads)."""
    spec = layers.ON_DEMAND_LINE_LAYERS["marked_path"]
    path = EXTRACTS / "helsinki-centre.osm.pbf"
    got = compiled.read_layers(path, lines={"marked_path": (spec.keep, spec.prefilter)})
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STATIONS_GENERATOR_PYOSMIUM_READER", "1")
        want = one_pass.read_layers(path, lines={"marked_path": (spec.keep, spec.prefilter)})
    assert len(got["marked_path"]) > 1000
    assert _comparable(got) == _comparable(want)


# ---------------------------------------------------------------------------
# Memory: the needed nodes, and nothing else, whatever the file holds
# ---------------------------------------------------------------------------


class _Counting:
    """pbf_layers' reader module, its readers noted (their counts stay readable)."""

    def __init__(self, module) -> None:
        self.module = module
        self.made: list = []
        outer = self

        class Reader(module.PbfReader):
            def __init__(self, path) -> None:
                outer.made.append(self)

        self.PbfReader = Reader

    def __getattr__(self, name):
        return getattr(self.module, name)


def _needed_nodes(monkeypatch, read) -> tuple[int, int, dict]:
    counting = _Counting(pbf_layers.pbf_reader)
    monkeypatch.setattr(pbf_layers, "pbf_reader", counting)
    monkeypatch.delenv("STATIONS_GENERATOR_PYOSMIUM_READER", raising=False)
    found = read()
    monkeypatch.undo()
    (reader,) = counting.made
    return reader.needed_nodes, reader.tracked_ways, found


def _refs_of_ways(path, pairs) -> set[int]:
    """The node ids of the ways with one of ``pairs``, read with plain osmium."""
    ways = osmium.FileProcessor(str(path), osmium.osm.WAY).with_filter(
        osmium.filter.TagFilter(*pairs)
    )
    return {n.ref for w in ways for n in w.nodes}


def _file_nodes(path) -> int:
    return sum(1 for _ in osmium.FileProcessor(str(path), osmium.osm.NODE))


@pytest.fixture(scope="module")
def tiles(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiles")
    return {n: write_tiles(LIECHTENSTEIN, folder / f"li-{n}.osm.pbf", n) for n in (2, 8)}


@pytest.mark.slow
def test_a_line_layer_keeps_exactly_its_ways_nodes(compiled, tiles, monkeypatch):
    spec = layers.LINE_LAYERS["waterway"]
    for n, path in tiles.items():
        needed, tracked, found = _needed_nodes(
            monkeypatch,
            lambda path=path: one_pass.read_layers(
                path, lines={"waterway": (spec.keep, spec.prefilter)}
            ),
        )
        assert found["waterway"], "the layer is not empty"
        assert needed == len(_refs_of_ways(path, sorted(spec.prefilter.pairs))), n
        assert needed < _file_nodes(path) / 10, n
        assert tracked >= len(found["waterway"])


@pytest.mark.slow
def test_every_layer_keeps_a_part_that_scales_with_the_copies(compiled, tiles, monkeypatch):
    index = layers._default_index()
    counts = {}
    for n, path in tiles.items():
        needed, tracked, found = _needed_nodes(
            monkeypatch, lambda path=path: layers._read_all(path, index)
        )
        assert 0 < needed < _file_nodes(path) / 5, n
        assert len(found["points"]) and len(found["admin"]) and len(found["routes"])
        counts[n] = (needed, tracked)
    # 4 times the copies, 4 times the nodes and ways kept: nothing else grows.
    assert counts[8] == (4 * counts[2][0], 4 * counts[2][1]), counts


def test_spread_ids_cost_nothing(compiled, monkeypatch):
    """Real ids are spread over ~1e10 (Helsinki's needed nodes over 185 blocks of 2**25
    ids: 740 MiB in osmium's id set); the compiled reader keeps the needed ids sorted,
    8 bytes each, and reads the same layers."""
    path = EXTRACTS / "helsinki-centre.osm.pbf"
    index = layers._default_index()
    needed, _, found = _needed_nodes(monkeypatch, lambda: layers._read_all(path, index))
    assert 0 < needed < _file_nodes(path)
    assert _comparable(found) == _comparable(_layers(path, pyosmium=True))


# ---------------------------------------------------------------------------
# Files it declines (read with pyosmium) and files no reader can read
# ---------------------------------------------------------------------------


def _reversed_types(path: Path, out: Path) -> Path:
    """``path``'s objects written relations first, then ways, then nodes."""
    with osmium.SimpleWriter(str(out)) as writer:
        for kind, write in (
            (osmium.osm.RELATION, writer.add_relation),
            (osmium.osm.WAY, writer.add_way),
            (osmium.osm.NODE, writer.add_node),
        ):
            for obj in osmium.FileProcessor(str(path), kind):
                write(obj)
    return out


def _without_relations(path: Path, out: Path) -> Path:
    """``path``'s nodes and ways, in order, without its relations."""
    with osmium.SimpleWriter(str(out)) as writer:
        for obj in osmium.FileProcessor(str(path), osmium.osm.NODE | osmium.osm.WAY):
            writer.add(obj)
    return out


def test_a_file_without_relations_reads_as_with_pyosmium(compiled, tmp_path):
    """Each read finds where its type begins by itself (the relations from the last
    block back): a file with none, and a read of lines alone (no relation read), too."""
    path = _without_relations(LIECHTENSTEIN, tmp_path / "no-relations.osm.pbf")
    assert _comparable(_layers(path, pyosmium=False)) == _comparable(_layers(path, pyosmium=True))
    water = layers.LINE_LAYERS["waterway"]
    got = compiled.read_layers(LIECHTENSTEIN, lines={"waterway": (water.keep, water.prefilter)})
    assert got["waterway"]
    want = _comparable(_layers(LIECHTENSTEIN, pyosmium=True))["waterway"]
    assert _comparable(got)["waterway"] == want


def test_a_file_not_sorted_by_type_is_declined(compiled, tmp_path):
    unsorted = _reversed_types(LIECHTENSTEIN, tmp_path / "reversed.osm.pbf")
    index = layers._default_index()
    with pytest.raises(compiled.Declined, match="not sorted by type"):
        compiled.read_layers(unsorted, (index.keeps, index.prefilter()))
    # read_layers reads it with pyosmium instead, as it always did
    got = one_pass.read_layers(unsorted, (index.keeps, index.prefilter()))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STATIONS_GENERATOR_PYOSMIUM_READER", "1")
        want = one_pass.read_layers(unsorted, (index.keeps, index.prefilter()))
    assert _comparable(got) == _comparable(want)


def test_other_formats_are_declined(compiled):
    with pytest.raises(compiled.Declined, match="not a PBF file"):
        compiled.read_layers(EXTRACTS / "krems.osm.gz", routes=("bus",))


@pytest.mark.parametrize("damage", ["truncated", "flipped", "text"])
def test_a_damaged_file_is_one_line_naming_it(tmp_path, damage):
    data = LIECHTENSTEIN.read_bytes()
    path = tmp_path / f"{damage}.osm.pbf"
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":  # inside the compressed data of the last block
        damaged = bytearray(data)
        for i in range(len(data) - 400, len(data) - 300):
            damaged[i] ^= 0x5A
        path.write_bytes(bytes(damaged))
    else:
        path.write_text("this is not an OSM file\n")
    index = layers._default_index()
    with pytest.raises(InputError) as info:
        one_pass.read_layers(path, (index.keeps, index.prefilter()), routes=("bus",))
    message = str(info.value)
    assert "\n" not in message and path.name in message and ".osm.pbf" in message


@pytest.mark.parametrize("pyosmium", [False, True], ids=["compiled", "pyosmium"])
def test_areas_read_as_wkb_make_the_same_cache_columns(pyosmium, monkeypatch):
    """The cache's reads keep the areas as WKB (never an extract's areas as geometry at
    once): the same bytes, and the same cache columns, as from their geometry."""
    if pyosmium:
        monkeypatch.setenv("STATIONS_GENERATOR_PYOSMIUM_READER", "1")
    index = layers._default_index()
    as_geometry = layers._read_all(LIECHTENSTEIN, index)
    as_wkb = layers._read_all(LIECHTENSTEIN, index, areas_as_wkb=True)
    for name in layers.AREA_LAYERS:
        assert as_geometry[name], name
        assert [(k, t, g.wkb) for k, t, g in as_geometry[name]] == as_wkb[name]
        want = layers._columns(name, as_geometry[name])
        got = layers._columns(name, as_wkb[name])
        assert want.keys() == got.keys()
        assert all(np.array_equal(want[c], got[c]) for c in want), name


@pytest.mark.slow  # a corpus (12 reads)
@pytest.mark.parametrize("seed", range(12))
def test_a_file_with_flipped_bytes_reads_or_is_one_line(tmp_path, seed):
    """Bytes flipped anywhere in a real extract (its blocks' headers, their compressed
    data, the objects inside): the read gives layers or one InputError naming the file,
    never another error (nor a crash of the compiled reader)."""
    rng = np.random.default_rng(seed)
    data = bytearray((EXTRACTS / "monaco-2016.osm.pbf").read_bytes())
    for i in rng.integers(0, len(data), size=int(rng.choice([1, 5, 50]))):
        data[i] ^= int(rng.integers(1, 256))
    path = tmp_path / "flipped.osm.pbf"
    path.write_bytes(bytes(data))
    try:
        found = layers._read_all(path, layers._default_index())
    except InputError as exc:
        assert "\n" not in str(exc) and path.name in str(exc)
    else:
        assert set(found) >= {"points", "routes", *layers.AREA_LAYERS, *layers.LINE_LAYERS}
