"""Real OSM data moved where the bundled extracts do not reach: shifted, renumbered copies.

The question-geometry oracle needs play areas of 300 km, above 65° N and across the
antimeridian, made of real shapes. This module keeps the objects of a real extract
that questions use (catalogue places, coastlines, admin boundaries with their member
ways, water) and writes copies of them, each shifted and renumbered (1, 2, 3… across the copies), to a new
``.osm.pbf`` with pyosmium. Longitudes are wrapped
into [-180°, 180°] as OSM keeps them, and a line that a shift carries across ±180°
is cut there into two ways ending on the meridian, as OSM does (Fiji, Chukotka).

Nothing is invented: every node, way and relation is a real one, moved.

    python tests/support/shifted_osm.py SOURCE.osm.pbf OUT.osm.pbf DLON,DLAT [DLON,DLAT ...]
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import osmium
import osmium.filter


@cache
def _catalogue():
    from stations_generator import load_catalogue

    return load_catalogue()


def wanted(tags: dict[str, str]) -> bool:
    """Objects the questions use: catalogue places, coastlines, admin boundaries, water,
    and bus stops (hiding stations of large games)."""
    from stations_generator.osm.extracts import is_water

    if tags.get("natural") == "coastline" or is_water(tags) or tags.get("highway") == "bus_stop":
        return True
    if tags.get("boundary") == "administrative" and tags.get("admin_level") in ("2", "8"):
        return True
    return _catalogue().keeps(tags)


@dataclass
class Source:
    """The kept objects of one extract (ids, coordinates, members, tags)."""

    nodes: dict[int, tuple[float, float, dict]] = field(default_factory=dict)
    ways: dict[int, tuple[list[int], dict]] = field(default_factory=dict)
    relations: dict[int, tuple[list[tuple[str, int, str]], dict]] = field(default_factory=dict)
    member_ways: set[int] = field(default_factory=set)


@cache
def load_source(path: Path) -> Source:
    """Read the objects :func:`wanted` keeps, with every way and node they need."""
    src = Source()
    for rel in osmium.FileProcessor(str(path), osmium.osm.RELATION):
        tags = dict(rel.tags)
        if wanted(tags):
            src.relations[rel.id] = ([(m.type, m.ref, m.role) for m in rel.members], tags)
    src.member_ways = {r for ms, _ in src.relations.values() for t, r, _ in ms if t == "w"}
    member_nodes = {r for ms, _ in src.relations.values() for t, r, _ in ms if t == "n"}
    node_refs: set[int] = set()

    def _pass(kind, *filters):
        proc = osmium.FileProcessor(str(path), kind)
        for f in filters:
            proc = proc.with_filter(f)
        return proc

    # Osmium's C++ filters pick what reaches Python: members by id, else tagged objects.
    for by_id in (True, False):
        for way in _pass(
            osmium.osm.WAY,
            osmium.filter.IdFilter(src.member_ways) if by_id else osmium.filter.EmptyTagFilter(),
        ):
            tags = dict(way.tags)
            if by_id or wanted(tags):
                refs = [n.ref for n in way.nodes]
                src.ways[way.id] = (refs, tags)
                node_refs.update(refs)
    for by_id in (True, False):
        for node in _pass(
            osmium.osm.NODE,
            osmium.filter.IdFilter(node_refs | member_nodes)
            if by_id
            else osmium.filter.EmptyTagFilter(),
        ):
            tags = dict(node.tags)
            if (by_id or wanted(tags)) and node.location.valid():
                src.nodes[node.id] = (node.location.lon, node.location.lat, tags)
    # A way clipped at the extract's edge keeps the nodes it has (as the readers do);
    # one with fewer than two is dropped, and so are relation members that are gone.
    trimmed = {}
    for wid, (refs, tags) in src.ways.items():
        have = [n for n in refs if n in src.nodes]
        if len(have) >= 2:
            trimmed[wid] = (have, tags)
    src.ways = trimmed
    return src


def _wrap(lon: float) -> float:
    return (lon + 180.0) % 360.0 - 180.0


def write_copies(out: Path, copies: list[tuple]) -> Path:
    """Write ``out``: for each ``(extract, dlon, dlat[, drop_crossing])`` a shifted copy.

    Ids are renumbered 1, 2, 3… per object type across all copies, in copy order.
    An area's way that the shift carries across ±180° cannot be cut like a line: it
    is an error, or with ``drop_crossing`` the way is left out of that copy.

    Returns
    -------
    Path
        ``out`` (replaced if it exists).
    """
    nodes: list[tuple[int, float, float, dict]] = []
    ways: list[tuple[int, list[int], dict]] = []
    relations: list[tuple[int, list[tuple[str, int, str]], dict]] = []
    counter = {"n": 0, "w": 0, "r": 0}

    def new_id(kind: str) -> int:
        counter[kind] += 1
        return counter[kind]

    for path, dlon, dlat, *rest in copies:
        drop_crossing = bool(rest and rest[0])
        src = load_source(Path(path))
        node_id = {nid: new_id("n") for nid in sorted(src.nodes)}
        way_id = {wid: new_id("w") for wid in sorted(src.ways)}
        moved = {nid: (lon + dlon, lat + dlat) for nid, (lon, lat, _) in src.nodes.items()}
        for nid in sorted(src.nodes):
            lon, lat = moved[nid]
            nodes.append((node_id[nid], _wrap(lon), lat, src.nodes[nid][2]))
        dropped = set()
        for wid in sorted(src.ways):
            refs, tags = src.ways[wid]
            area_way = wid in src.member_ways or refs[0] == refs[-1]
            xs = [moved[r][0] for r in refs]
            if area_way and drop_crossing and any(min(xs) < m < max(xs) for m in (-180.0, 180.0)):
                dropped.add(wid)
                continue
            pieces = [[node_id[refs[0]]]]
            for a, b in zip(refs[:-1], refs[1:], strict=True):
                (xa, ya), (xb, yb) = moved[a], moved[b]
                crossing = [m for m in (-180.0, 180.0) if (xa - m) * (xb - m) < 0]
                if crossing:
                    if area_way:
                        raise ValueError(
                            f"{path}: way {wid} of an area would cross ±180°; shift the copy"
                        )
                    m = crossing[0]
                    y = ya + (yb - ya) * (m - xa) / (xb - xa)
                    east, west = new_id("n"), new_id("n")
                    nodes.append((east, 180.0, y, {}))
                    nodes.append((west, -180.0, y, {}))
                    pieces[-1].append(east if xa < m else west)
                    pieces.append([west if xa < m else east])
                pieces[-1].append(node_id[b])
            for j, piece in enumerate(pieces):
                ways.append((way_id[wid] if j == 0 else new_id("w"), piece, tags))
        for rid in sorted(src.relations):
            members, tags = src.relations[rid]
            kept = [
                (t, way_id[ref] if t == "w" else node_id[ref], role)
                for t, ref, role in members
                if (t == "w" and ref in way_id and ref not in dropped)
                or (t == "n" and ref in node_id)
            ]
            relations.append((new_id("r"), kept, tags))
    out = Path(out)
    if out.exists():
        out.unlink()
    writer = osmium.SimpleWriter(str(out))
    try:
        for nid, lon, lat, tags in sorted(nodes, key=lambda n: n[0]):
            writer.add_node(osmium.osm.mutable.Node(id=nid, location=(lon, lat), tags=tags))
        for wid, refs, tags in sorted(ways, key=lambda w: w[0]):
            writer.add_way(osmium.osm.mutable.Way(id=wid, nodes=refs, tags=tags))
        for rid, members, tags in sorted(relations, key=lambda r: r[0]):
            writer.add_relation(osmium.osm.mutable.Relation(id=rid, members=members, tags=tags))
    finally:
        writer.close()
    return out


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    shifts = [tuple(float(v) for v in a.split(",")) for a in sys.argv[3:]]
    done = write_copies(Path(sys.argv[2]), [(Path(sys.argv[1]), dx, dy) for dx, dy in shifts])
    print(f"wrote {done} ({done.stat().st_size / 1e6:.2f} MB)")
