"""The drivable road network of a play area, as an osmnx graph with travel times.

Offline, from an OSM extract (:func:`read_drive_graph`): pyosmium reads the
drivable ``highway=*`` ways (:func:`is_drivable`) with their node locations, in two
reads: the drivable ways and their nodes' ids first, then only those nodes' locations
are stored (16 bytes a node, plus osmium's id sets: see
:mod:`stations_generator.osm.one_pass`), not every node's -- a country's buildings and
land use are most of its nodes.
Extracts are clipped at their edges, and osmnx's XML reader would otherwise
read every way of the file (buildings included) and stumble on ways whose
nodes are missing, so only drivable ways go through, each cut to the longest
run of its nodes that the extract holds (``clipped="trim"``) or dropped when
any node is missing (``clipped="drop"``). They are written to a temporary
``.osm`` XML file that :func:`osmnx.graph_from_xml` turns into a simplified
graph with osmnx's own conventions (one-way handling, edge lengths).

Online (:func:`fetch_drive_graph`): the drivable ways of the play area and their
nodes from Overpass (:func:`road_query`), through the package's Overpass client (its
deadline, retries, wait messages and validated cache; osmnx's own download retried a
busy server without end), then the same graph building as an extract's.

Either way, :func:`stations_generator.core.play.drive.add_travel_times` then adds
``speed_kph`` and ``travel_time`` to every edge.
"""

from __future__ import annotations

import os
import tempfile
from array import array
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import osmium
import osmium.filter
from shapely.geometry.base import BaseGeometry

from stations_generator.core.play.drive import add_travel_times
from stations_generator.core.play.highways import DRIVABLE_HIGHWAYS
from stations_generator.errors import InputError, NoDataError
from stations_generator.osm import overpass
from stations_generator.osm.extract_io import BBox, check_bbox, iterate, open_extract, read_error
from stations_generator.osm.overpass import OverpassClient
from stations_generator.osm.overpass_json import parse_overpass_json
from stations_generator.osm.query import poly_filters

__all__ = [
    "DRIVABLE_HIGHWAYS",
    "fetch_drive_graph",
    "is_drivable",
    "read_drive_graph",
    "road_query",
]

"""Public roads a car may take: what osmnx's ``"drive"`` network type keeps
(it leaves out service roads, tracks, paths, footways, cycleways and roads
under construction), written as an allow-list."""

_NO = frozenset({"no", "private"})


def is_drivable(tags: Mapping[str, str]) -> bool:
    """Tell whether a way is a public road a car may drive.

    Parameters
    ----------
    tags : Mapping[str, str]
        The way's tags.

    Returns
    -------
    bool
        ``highway`` in :data:`DRIVABLE_HIGHWAYS`, not an area, and not closed to
        cars (``access``, ``motor_vehicle`` or ``motorcar`` = no/private).
    """
    return (
        tags.get("highway") in DRIVABLE_HIGHWAYS
        and tags.get("area") != "yes"
        and tags.get("access") not in _NO
        and tags.get("motor_vehicle") not in _NO
        and tags.get("motorcar") not in _NO
    )


Clipped = Literal["trim", "drop"]


def _runs(way: Any) -> Iterator[list[tuple[int, float, float]]]:
    """Runs of consecutive nodes of a way that have a location in the extract."""
    run: list[tuple[int, float, float]] = []
    for node in way.nodes:
        loc = node.location
        if loc.valid():
            run.append((node.ref, loc.lon, loc.lat))
        elif run:
            yield run
            run = []
    if run:
        yield run


def _drivable_ways(source: Any, path: Path) -> tuple[osmium.IdTracker, bool]:
    """Read 1 (no locations): the drivable ways' ids, and whether to store every node's
    location (:func:`.one_pass.stores_every_node`) or only theirs (their ids then go into
    the tracker too)."""
    from stations_generator.osm.one_pass import stores_every_node

    tracker = osmium.IdTracker()
    found = osmium.FileProcessor(source, osmium.osm.WAY).with_filter(
        osmium.filter.KeyFilter("highway")
    )
    sample = array("q")  # each drivable way's first node: the node id blocks they use
    for way in iterate(found, path):
        if is_drivable(way.tags):
            tracker.add_way(way.id)
            if len(way.nodes):
                sample.append(way.nodes[0].ref)
    every_node = stores_every_node(Path(path), sample)
    if not every_node:  # their nodes' ids, in a read of the ways in C++
        try:
            tracker.complete_backward_references(source)
        except (RuntimeError, OSError, ValueError) as exc:
            raise read_error(path, exc) from exc
    return tracker, every_node


def _located_ways(
    source: Any, path: Path, tracker: osmium.IdTracker, every_node: bool
) -> Iterator[Any]:
    """Read 2: the drivable ways with their nodes' locations.

    Unless every node is stored (a small extract), only the drivable ways' nodes are
    (osmium's id filter comes before the location handler), so memory grows with the
    file's roads, not with all its nodes (buildings' and land use's nodes are most of
    an extract's).
    """
    from stations_generator.osm.one_pass import location_index

    def read(storage: str) -> Iterator[Any]:
        # Held here for the whole read: osmium's iterator does not keep them alive.
        index = osmium.index.create_map(storage)
        locations = osmium.NodeLocationsForWays(index)
        locations.ignore_errors()
        only_ways = osmium.filter.EntityFilter(osmium.osm.WAY)
        if every_node:
            handlers = [locations, tracker.id_filter().enable_for(osmium.osm.WAY), only_ways]
        else:
            handlers = [tracker.id_filter(), locations, only_ways]
        with osmium.io.Reader(source, osmium.osm.NODE | osmium.osm.WAY) as reader:
            yield from osmium.OsmFileIterator(reader, *handlers)

    with location_index(Path(path)) as storage:
        yield from iterate(read(storage), path)


def _in_box(run: list[tuple[int, float, float]], box: BBox) -> bool:
    return any(box[0] <= x <= box[2] and box[1] <= y <= box[3] for _, x, y in run)


def read_drive_graph(
    path: Path,
    *,
    bbox: BBox | None = None,
    clipped: Clipped = "trim",
) -> nx.MultiDiGraph:
    """Build the drivable road graph of an OSM extract, offline, with travel times.

    Parameters
    ----------
    path : Path
        An OSM extract (``.osm``, ``.osm.bz2``, ``.osm.pbf`` …).
    bbox : BBox, optional
        ``(min_lon, min_lat, max_lon, max_lat)``: keep only ways with a node inside.
    clipped : {"trim", "drop"}
        For a way with nodes missing from the extract: keep its longest run of
        present nodes, or drop it.

    Returns
    -------
    networkx.MultiDiGraph
        Unprojected (EPSG:4326) osmnx graph, every component kept, with
        ``length``, ``speed_kph`` and ``travel_time`` on its edges. ``graph.graph``
        records ``source``, ``ways``, ``trimmed_ways`` and ``dropped_ways``.

    Raises
    ------
    InputError
        If the file is missing or unreadable.
    NoDataError
        If it holds no drivable road.
    """

    source = open_extract(path)
    box = check_bbox(bbox)
    tracker, every_node = _drivable_ways(source, path)
    nodes: dict[int, tuple[float, float]] = {}
    ways: list[tuple[int, list[int], dict[str, str]]] = []
    trimmed = dropped = 0
    for way in _located_ways(source, path, tracker, every_node):
        runs = list(_runs(way))
        complete = len(runs) == 1 and len(runs[0]) == len(way.nodes)
        if not complete and clipped == "drop":
            dropped += 1
            continue
        run = max(runs, key=len, default=[])
        if len(run) < 2:
            dropped += 1
            continue
        if box is not None and not _in_box(run, box):
            continue
        trimmed += not complete
        for ref, lon, lat in run:
            nodes[ref] = (lon, lat)
        ways.append((way.id, [ref for ref, _, _ in run], {t.k: t.v for t in way.tags}))
    name = Path(os.fspath(path)).name
    if not ways:
        where = " inside the play area" if box is not None else ""
        raise NoDataError(f"'{name}' has no drivable roads{where}; give an extract that covers it")
    graph = _graph_from_ways(nodes, ways)
    graph.graph.update(source=name, ways=len(ways), trimmed_ways=trimmed, dropped_ways=dropped)
    return add_travel_times(graph)


def _graph_from_ways(
    nodes: Mapping[int, tuple[float, float]], ways: list[tuple[int, list[int], dict[str, str]]]
) -> nx.MultiDiGraph:
    """osmnx's simplified graph of these ways (node id -> (lon, lat); (id, refs, tags))."""
    import osmnx as ox

    with tempfile.TemporaryDirectory(prefix="stations-roads-") as tmp:
        xml = Path(tmp) / "roads.osm"
        writer = osmium.SimpleWriter(str(xml))
        try:
            for ref in sorted(nodes):
                lon, lat = nodes[ref]
                writer.add_node(
                    osmium.osm.mutable.Node(
                        id=ref, location=osmium.osm.Location(lon, lat), version=1
                    )
                )
            for wid, refs, tags in sorted(ways, key=lambda w: w[0]):
                writer.add_way(osmium.osm.mutable.Way(id=wid, nodes=refs, tags=tags, version=1))
        finally:
            writer.close()
        return ox.graph_from_xml(xml, retain_all=True)


def road_query(area: BaseGeometry, timeout_s: int = 180) -> str:
    """The Overpass query for the drivable ways of ``area`` and their nodes.

    Parameters
    ----------
    area : shapely Polygon or MultiPolygon
        WGS84 lon/lat.
    timeout_s : int
        Overpass's own ``[timeout:]``.

    Returns
    -------
    str
        Ways whose ``highway`` is in :data:`DRIVABLE_HIGHWAYS` within the area's
        covering rings, then their nodes (``(._;>;); out;``).
    """
    highways = "|".join(sorted(DRIVABLE_HIGHWAYS))
    lines = [f"[out:json][timeout:{int(timeout_s)}];", "("]
    lines += [f'  way["highway"~"^({highways})$"]({poly});' for poly in poly_filters(area)]
    lines += [");", "(._;>;);", "out;", ""]
    return "\n".join(lines)


def _road_ways(data: dict) -> tuple[dict[int, tuple[float, float]], list]:
    """Nodes and drivable ways of an answer to :func:`road_query` (InputError if broken)."""
    nodes = {e.osm_id: (e.lon, e.lat) for e in parse_overpass_json(data) if e.osm_type == "node"}
    ways = []
    for element in data.get("elements", []):
        if element.get("type") != "way":
            continue
        refs, tags = element.get("nodes"), element.get("tags") or {}
        key = f"way/{element.get('id')}"
        if not isinstance(refs, list) or not all(
            isinstance(r, int) and not isinstance(r, bool) for r in refs
        ):
            raise InputError(f"{key} has no list of node ids")
        if not isinstance(tags, dict):
            raise InputError(f"{key} has tags that are not an object")
        tags = {str(k): str(v) for k, v in tags.items()}
        missing = [r for r in refs if r not in nodes]
        if missing:
            raise InputError(f"{key} refers to node/{missing[0]}, which the answer lacks")
        if len(refs) >= 2 and is_drivable(tags):
            ways.append((int(element["id"]), refs, tags))
    return nodes, ways


def fetch_drive_graph(
    polygon: BaseGeometry,
    *,
    client: OverpassClient | None = None,
) -> nx.MultiDiGraph:
    """Download the drivable road graph of a play area from Overpass (online).

    The query (:func:`road_query`) goes through the Overpass client, so the download
    has its deadline, retries, wait messages and validated cache; the ways then become
    a graph exactly as an extract's do in :func:`read_drive_graph`.

    Parameters
    ----------
    polygon : shapely Polygon or MultiPolygon
        The play area, WGS84 lon/lat.
    client : OverpassClient, optional
        [default: the public instances, the user cache dir, a 300 s deadline].

    Returns
    -------
    networkx.MultiDiGraph
        As :func:`read_drive_graph`.

    Raises
    ------
    OverpassError
        If the download fails, passes its deadline or returns unusable data.
    NoDataError
        If the area has no drivable road.
    """
    client = client or overpass.client()
    nodes, ways = client.fetch_parsed(road_query(polygon), _road_ways)
    if not ways:
        raise NoDataError("no drivable roads in the play area (Overpass found none)")
    used = {ref for _, refs, _ in ways for ref in refs}
    graph = _graph_from_ways({k: v for k, v in nodes.items() if k in used}, ways)
    graph.graph.update(source="Overpass", ways=len(ways), trimmed_ways=0, dropped_ways=0)
    return add_travel_times(graph)
