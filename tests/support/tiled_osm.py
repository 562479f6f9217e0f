"""A big extract made of one real one: every object of the extract, copied onto a grid.

Country-scale extracts are too big to bundle, so the extract tests and
``bench/bench_extract.py`` build one: copy 0 is the extract itself (same ids, same
places), copies 1…N-1 are every node, way and relation of it moved onto a grid of
tiles and renumbered (ids + k × a stride above the file's largest id). A play
area on copy 0 then sees the same data from the 1-tile and the N-tile file, while
the reader has N times the file to get through.

Nothing is invented: every object is a real one, moved (as in ``shifted_osm.py``,
which keeps only the objects the questions use; this keeps them all).

    python tests/support/tiled_osm.py SOURCE.osm.pbf OUT.osm.pbf N
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import osmium

# Degrees between tiles: Liechtenstein spans 0.17° × 0.23°, so neighbours stay apart.
STEP_DEG = 0.4


@dataclass
class Extract:
    """Every object of an extract, as plain tuples."""

    nodes: list[tuple[int, float, float, tuple]]
    ways: list[tuple[int, list[int], tuple]]
    relations: list[tuple[int, list[tuple[str, int, str]], tuple]]
    stride: int


@cache
def load(path: Path) -> Extract:
    nodes, ways, relations = [], [], []
    for obj in osmium.FileProcessor(str(path)):
        tags = tuple((t.k, t.v) for t in obj.tags)
        if obj.is_node():
            if obj.location.valid():
                nodes.append((obj.id, obj.location.lon, obj.location.lat, tags))
        elif obj.is_way():
            ways.append((obj.id, [n.ref for n in obj.nodes], tags))
        elif obj.is_relation():
            relations.append((obj.id, [(m.type, m.ref, m.role) for m in obj.members], tags))
    top = max(i for rows in (nodes, ways, relations) for i, *_ in rows)
    return Extract(nodes, ways, relations, stride=10 ** (len(str(top)) + 1))


def shifts(n: int) -> list[tuple[float, float]]:
    """(dlon, dlat) of each copy: row by row on a square grid, copy 0 unmoved."""
    side = math.ceil(math.sqrt(n))
    return [(STEP_DEG * (k % side), STEP_DEG * (k // side)) for k in range(n)]


def write_tiles(source: Path, out: Path, n: int) -> Path:
    """Write ``out``, an ``.osm.pbf`` holding ``n`` copies of ``source`` (copy 0 as is).

    Returns
    -------
    Path
        ``out`` (replaced if it exists).
    """
    src = load(Path(source))
    out = Path(out)
    if out.exists():
        out.unlink()
    moves = shifts(n)
    writer = osmium.SimpleWriter(str(out))
    mutable = osmium.osm.mutable
    try:
        for k, (dlon, dlat) in enumerate(moves):
            off = k * src.stride
            for nid, lon, lat, tags in src.nodes:
                writer.add_node(
                    mutable.Node(id=nid + off, location=(lon + dlon, lat + dlat), tags=tags)
                )
        for k in range(n):
            off = k * src.stride
            for wid, refs, tags in src.ways:
                writer.add_way(mutable.Way(id=wid + off, nodes=[r + off for r in refs], tags=tags))
        for k in range(n):
            off = k * src.stride
            for rid, members, tags in src.relations:
                writer.add_relation(
                    mutable.Relation(
                        id=rid + off,
                        members=[(t, ref + off, role) for t, ref, role in members],
                        tags=tags,
                    )
                )
    finally:
        writer.close()
    return out


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    done = write_tiles(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))
    print(f"wrote {done} ({done.stat().st_size / 1e6:.1f} MB)")
