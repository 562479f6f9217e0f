"""The extract read's memory is bounded by what it keeps, not by the file.

Built here from the real Liechtenstein extract by ``tiled_osm.py``: the same extract
tiled 2 and 8 times. Tracking the needed nodes' ids,
:func:`~stations_generator.osm.one_pass.read_layers` stores the locations of the nodes
its layers need -- the nodes of the ways it keeps and of the relations it reads -- and
no other: the count is that of the needed nodes (computed here independently, with plain
osmium), a small part of the file's nodes, and it grows with the copies of what is kept
(×4 from 2 to 8 tiles), whatever else the file holds.

Tracking costs 4 MiB per block of 2**25 node ids in use: a real extract's ids are
spread over most blocks, so a small one stores every node instead, which costs less
(:func:`~stations_generator.osm.one_pass.stores_every_node`); both give the same layers.

These are the pyosmium reader's tests (the compiled reader's are in test_pbf_reader.py):
every test here reads with it.
"""

from __future__ import annotations

import osmium
import osmium.filter
import pytest
from support.paths import EXTRACTS
from support.tiled_osm import load, write_tiles

from stations_generator.osm import layers, one_pass
from stations_generator.osm.roads import is_drivable, read_drive_graph

# Slow: writing the 8-tile extract and reading it take ~8 s (the quick loop's budget).
pytestmark = pytest.mark.slow

LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
#: sparse_mmap_array stores a node as an 8-byte id and an 8-byte location.
BYTES_A_NODE = 16


@pytest.fixture(autouse=True)
def pyosmium_reader():
    """The pyosmium reader, even where the compiled one is built (kept through the
    tests' own ``monkeypatch.undo()``)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STATIONS_GENERATOR_PYOSMIUM_READER", "1")
        yield


@pytest.fixture(scope="module")
def tiles(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiles")
    return {n: write_tiles(LIECHTENSTEIN, folder / f"li-{n}.osm.pbf", n) for n in (2, 8)}


def _stored_nodes(monkeypatch, read, every_node: bool | None = False) -> tuple[int, object]:
    """How many node locations ``read()`` stored in osmium's index, and what it returned;
    ``every_node`` forces the choice of :func:`one_pass.stores_every_node` (None: its own)."""
    made = []
    create = osmium.index.create_map

    def spy(storage):
        made.append(create(storage))
        return made[-1]

    monkeypatch.setattr(osmium.index, "create_map", spy)
    monkeypatch.setenv("STATIONS_GENERATOR_LOCATIONS_ON_DISK_MB", "100000")  # in memory
    if every_node is not None:
        monkeypatch.setattr(one_pass, "stores_every_node", lambda path, sample: every_node)
    result = read()
    monkeypatch.undo()
    assert len(made) == 1
    return made[0].used_memory() // BYTES_A_NODE, result


def _file_nodes(path) -> set[int]:
    return {n.id for n in osmium.FileProcessor(str(path), osmium.osm.NODE)}


def _nodes_of_ways(path, pairs) -> set[int]:
    """The node ids of the ways with one of ``pairs``, read with plain osmium."""
    ways = osmium.FileProcessor(str(path), osmium.osm.WAY).with_filter(
        osmium.filter.TagFilter(*pairs)
    )
    return {n.ref for w in ways for n in w.nodes}


def test_a_line_layer_stores_exactly_its_ways_nodes(tiles, monkeypatch):
    spec = layers.LINE_LAYERS["waterway"]
    pairs = sorted(spec.prefilter.pairs)
    for n, path in tiles.items():
        stored, found = _stored_nodes(
            monkeypatch,
            lambda path=path: one_pass.read_layers(
                path, lines={"waterway": (spec.keep, spec.prefilter)}
            ),
        )
        in_file = _file_nodes(path)
        needed = _nodes_of_ways(path, pairs) & in_file
        assert found["waterway"], "the layer is not empty"
        assert stored == len(needed), (n, stored, len(needed))
        assert stored < len(in_file) / 10, (n, stored, len(in_file))


def test_every_layer_stores_a_part_that_scales_with_the_copies(tiles, monkeypatch):
    index = layers._default_index()
    counts = {}
    for n, path in tiles.items():
        stored, found = _stored_nodes(monkeypatch, lambda path=path: layers._read_all(path, index))
        in_file = len(_file_nodes(path))
        # The layers need a small part of the file's nodes (8 % of Liechtenstein's) ...
        assert 0 < stored < in_file / 5, (n, stored, in_file)
        assert len(found["points"]) and len(found["admin"]) and len(found["routes"])
        counts[n] = stored
    # ... and each copy the same part: 4 times the copies, 4 times the nodes kept.
    assert counts[8] == 4 * counts[2], counts


def test_the_same_layers_as_before_from_the_tiles(tiles):
    """What is stored changed, not what is read: copy 0 of the tiles gives the real
    extract's layers (same objects, ids and geometry)."""
    index = layers._default_index()
    alone = layers._read_all(LIECHTENSTEIN, index)
    tiled = layers._read_all(tiles[2], index)
    stride = load(LIECHTENSTEIN).stride  # copy k's ids are the real ones + k × stride
    for name, rows in alone.items():
        if name == "points":
            first = [e for e in tiled[name] if e.osm_id < stride]
            assert first == rows
            assert len(tiled[name]) == 2 * len(rows)
        elif name == "routes":
            assert len(tiled[name]) == 2 * len(rows) > 0
            first = [r for r in tiled[name] if int(r.id.split("/")[1]) < stride]
            assert first == rows
        else:
            first = [r for r in tiled[name] if int(r[0].split("/")[1]) < stride]
            assert [(k, t) for k, t, _ in first] == [(k, t) for k, t, _ in rows], name
            assert all(
                a.equals_exact(b, 0) for (_, _, a), (_, _, b) in zip(first, rows, strict=True)
            ), name


def test_the_assembler_gets_only_the_relations_it_can_complete(tiles, monkeypatch):
    """osmium holds every relation it is given until the read ends and builds none whose
    member ways are not all in the file: a clipped extract's neighbouring boundaries
    never reach it. The relations handed on are exactly those (found here with plain
    osmium), and the layers are unchanged."""
    handed: list[int] = []

    class Spy(one_pass._Completer):
        def relation(self, rel):
            dropped = super().relation(rel)
            if not dropped:
                handed.append(rel.id)
            return dropped

    monkeypatch.setattr(one_pass, "_Completer", Spy)
    areas = {n: (spec.keep, spec.prefilter) for n, spec in layers.AREA_LAYERS.items()}
    path = tiles[2]
    found = one_pass.read_layers(path, areas=areas)
    ways = {w.id for w in osmium.FileProcessor(str(path), osmium.osm.WAY)}
    kept, complete = set(), set()
    for rel in osmium.FileProcessor(str(path), osmium.osm.RELATION):
        tags = dict(rel.tags)
        if any(keep(tags) for keep, _ in areas.values()):
            kept.add(rel.id)
            if all(m.ref in ways for m in rel.members if m.type == "w"):
                complete.add(rel.id)
    assert sorted(handed) == sorted(complete)
    assert 0 < len(complete) < len(kept), (len(complete), len(kept))
    built = {int(k.split("/")[1]) for name in areas for k, _, _ in found[name] if "relation/" in k}
    assert built and built <= complete


def test_the_road_graph_stores_only_the_drivable_ways_nodes(tiles, monkeypatch):
    """``read_drive_graph`` (``route``, ``calibrate``) stores the locations of the drivable
    ways' nodes (counted here with plain osmium) and of no other node of the file."""
    for path in tiles.values():
        stored, graph = _stored_nodes(monkeypatch, lambda path=path: read_drive_graph(path))
        drivable = osmium.FileProcessor(str(path), osmium.osm.WAY).with_filter(
            osmium.filter.KeyFilter("highway")
        )
        needed = {n.ref for w in drivable if is_drivable(dict(w.tags)) for n in w.nodes}
        in_file = _file_nodes(path)
        assert graph.number_of_edges() > 0
        assert stored == len(needed & in_file), (path.name, stored, len(needed & in_file))
        assert stored < len(in_file) / 3, (path.name, stored, len(in_file))


REAL = ["helsinki-centre.osm.pbf", "monaco-2016.osm.pbf", "krems.osm.gz"]


@pytest.mark.parametrize("name", REAL)
def test_a_real_extract_stores_every_node_and_the_tiles_track(name, tiles, monkeypatch):
    """Real node ids are spread over ~10**10: tracking a small real extract's needed nodes
    would cost a 4 MiB block for most of its nodes' 2**25-id ranges; storing every node
    costs 16 bytes a node. The tiles' ids are dense: one block holds a tile's needed
    nodes, and tracking them is cheaper."""
    path = EXTRACTS / name
    index = layers._default_index()
    stored, _ = _stored_nodes(monkeypatch, lambda: layers._read_all(path, index), None)
    in_file = _file_nodes(path)
    blocks = {i >> one_pass.ID_BLOCK_BITS for i in in_file}
    assert stored == len(in_file)
    assert one_pass.LOCATION_BYTES * len(in_file) < one_pass.ID_BLOCK_BYTES * len(blocks) / 10
    stored, _ = _stored_nodes(monkeypatch, lambda: layers._read_all(tiles[8], index), None)
    assert stored < len(_file_nodes(tiles[8])) / 5


@pytest.mark.parametrize("name", [*REAL, "liechtenstein-2013-08.osm.pbf"])
def test_both_ways_of_storing_give_the_same_layers(name, monkeypatch):
    path = EXTRACTS / name
    index = layers._default_index()
    found = {}
    for every in (True, False):
        _, found[every] = _stored_nodes(monkeypatch, lambda: layers._read_all(path, index), every)
    for layer, rows in found[True].items():
        other = found[False][layer]
        if layer in ("points", "routes"):
            assert rows == other, layer
        else:
            assert [(k, t) for k, t, _ in rows] == [(k, t) for k, t, _ in other], layer
            assert all(
                a.equals_exact(b, 0) for (_, _, a), (_, _, b) in zip(rows, other, strict=True)
            ), layer


def test_the_road_graph_is_the_same_either_way(monkeypatch):
    def edge(u, v, data) -> tuple:
        ways = data["osmid"] if isinstance(data["osmid"], list) else [data["osmid"]]
        return u, v, tuple(sorted(ways)), round(data["length"], 6)

    edges = {}
    for every in (True, False):
        _, graph = _stored_nodes(
            monkeypatch, lambda: read_drive_graph(EXTRACTS / "kouvola-test.osm.pbf"), every
        )
        edges[every] = sorted(edge(u, v, d) for u, v, d in graph.edges(data=True))
    assert edges[True] == edges[False] and edges[True]
