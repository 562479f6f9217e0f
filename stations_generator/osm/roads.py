"""The drivable road network of a play area, as an osmnx graph with travel times.

Offline, from an OSM extract (:func:`read_drive_graph`): pyosmium reads the
drivable ``highway=*`` ways (:func:`is_drivable`) with their node locations.
Extracts are clipped at their edges, and osmnx's XML reader would otherwise
read every way of the file (buildings included) and stumble on ways whose
nodes are missing, so only drivable ways go through, each cut to the longest
run of its nodes that the extract holds (``clipped="trim"``) or dropped when
any node is missing (``clipped="drop"``). They are written to a temporary
``.osm`` XML file that :func:`osmnx.graph_from_xml` turns into a simplified
graph with osmnx's own conventions (one-way handling, edge lengths).

Online (:func:`fetch_drive_graph`): osmnx's own Overpass download,
:func:`osmnx.graph_from_polygon` with ``network_type="drive"``, cached on disk.

Either way, :func:`stations_generator.core.drive.add_travel_times` then adds
``speed_kph`` and ``travel_time`` to every edge.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import osmium
import osmium.filter
from shapely.geometry.base import BaseGeometry

from ..core.drive import add_travel_times
from ..errors import InputError, NoDataError, OverpassError
from .extracts import BBox, _check_bbox, _iterate, _open
from .overpass import default_cache_dir

__all__ = [
    "DRIVABLE_HIGHWAYS",
    "fetch_drive_graph",
    "is_drivable",
    "read_drive_graph",
]

DRIVABLE_HIGHWAYS: frozenset[str] = frozenset(
    {
        "motorway",
        "motorway_link",
        "trunk",
        "trunk_link",
        "primary",
        "primary_link",
        "secondary",
        "secondary_link",
        "tertiary",
        "tertiary_link",
        "unclassified",
        "residential",
        "living_street",
        "road",
    }
)
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
    import osmnx as ox

    source = _open(path)
    box = _check_bbox(bbox)
    processor = (
        osmium.FileProcessor(source, osmium.osm.NODE | osmium.osm.WAY)
        .with_locations()
        .with_filter(osmium.filter.EntityFilter(osmium.osm.WAY))
        .with_filter(osmium.filter.KeyFilter("highway"))
    )
    nodes: dict[int, tuple[float, float]] = {}
    ways: list[tuple[int, list[int], dict[str, str]]] = []
    trimmed = dropped = 0
    for way in _iterate(processor, path):
        if not is_drivable(way.tags):
            continue
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
        graph = ox.graph_from_xml(xml, retain_all=True)
    graph.graph.update(source=name, ways=len(ways), trimmed_ways=trimmed, dropped_ways=dropped)
    return add_travel_times(graph)


@contextlib.contextmanager
def _osmnx_settings(**values: object) -> Iterator[None]:
    import osmnx as ox

    old = {k: getattr(ox.settings, k) for k in values}
    try:
        for k, v in values.items():
            setattr(ox.settings, k, v)
        yield
    finally:
        for k, v in old.items():
            setattr(ox.settings, k, v)


def default_roads_cache_dir() -> Path:
    """Where osmnx caches its Overpass responses for road graphs.

    Returns
    -------
    Path
        ``osmnx`` next to the Overpass cache (see
        :func:`stations_generator.osm.overpass.default_cache_dir`).
    """
    return default_cache_dir().parent / "osmnx"


def fetch_drive_graph(
    polygon: BaseGeometry,
    *,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    overpass_url: str | None = None,
    timeout: float = 180.0,
) -> nx.MultiDiGraph:
    """Download the drivable road graph of a play area with osmnx (online).

    Parameters
    ----------
    polygon : shapely Polygon or MultiPolygon
        The play area, WGS84 lon/lat.
    cache_dir : Path, optional
        osmnx's response cache [default: :func:`default_roads_cache_dir`].
    use_cache : bool
        Read and write that cache.
    overpass_url : str, optional
        An Overpass API base URL (``https://…/api``) instead of osmnx's default.
    timeout : float
        Seconds to wait for Overpass.

    Returns
    -------
    networkx.MultiDiGraph
        As :func:`read_drive_graph`.

    Raises
    ------
    OverpassError
        If the download fails.
    NoDataError
        If the area has no drivable road.
    """
    import osmnx as ox
    import requests

    settings: dict[str, object] = {
        "use_cache": use_cache,
        "cache_folder": str(cache_dir or default_roads_cache_dir()),
        "requests_timeout": timeout,
    }
    if overpass_url:
        settings["overpass_url"] = overpass_url.rstrip("/").removesuffix("/interpreter")
    try:
        with _osmnx_settings(**settings):
            graph = ox.graph_from_polygon(polygon, network_type="drive", retain_all=True)
    except ox._errors.InsufficientResponseError as exc:
        raise NoDataError(f"no drivable roads in the play area ({exc})") from None
    except (requests.RequestException, ox._errors.ResponseStatusCodeError) as exc:
        raise OverpassError(
            f"could not download the road network from Overpass ({exc}); "
            "try again later, or give an extract with --osm"
        ) from None
    except ValueError as exc:
        raise InputError(f"cannot fetch roads for this play area ({exc})") from None
    graph.graph.update(source="Overpass (osmnx)")
    return add_travel_times(graph)
