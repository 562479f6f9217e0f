"""The polygon of an OSM object named by its type and id (taibeled play areas).

The taibeled app stores a play area as a Photon search result: a Point plus
``properties.osm_type`` (``"R"``, ``"W"`` or ``"N"``) and ``osm_id``; the boundary is
that OSM object's geometry. :func:`area_from_extracts` assembles it from local
extracts (osmium's area assembler, only that object, storing the locations of its own
nodes alone: a national extract costs no more memory than a small one);
:func:`area_from_overpass`
fetches it (``relation(ID); out geom;`` or ``way(ID); out geom;``, cached by the
Overpass client).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from pathlib import Path

import osmium
import osmium.area
import osmium.filter
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from stations_generator.errors import InputError, NoDataError
from stations_generator.osm import extract_io, one_pass, overpass, sources

_KINDS = {
    "r": "relation",
    "relation": "relation",
    "w": "way",
    "way": "way",
    "n": "node",
    "node": "node",
}


def osm_ref(osm_type: object, osm_id: object, where: str = "play area") -> tuple[str, int]:
    """``("relation" | "way" | "node", id)`` from taibeled's ``osm_type`` / ``osm_id``."""
    kind = _KINDS.get(str(osm_type).strip().lower())
    if kind is None:
        raise InputError(f"{where}: osm_type {osm_type!r} is not R, W or N (relation, way, node)")
    try:
        number = int(str(osm_id).strip())
    except ValueError:
        raise InputError(f"{where}: osm_id {osm_id!r} is not a whole number") from None
    if number <= 0:
        raise InputError(f"{where}: osm_id {number} is not a valid OSM id")
    return kind, number


def _one_area(geoms: list[BaseGeometry]) -> BaseGeometry | None:
    polys = [g for g in geoms if g.geom_type in ("Polygon", "MultiPolygon") and not g.is_empty]
    if not polys:
        return None
    return shapely.normalize(shapely.union_all(polys))


def _located(path: Path, tracker: osmium.IdTracker, manager=None):
    """The tracked ways, located, and the areas ``manager`` assembles.

    The ways' nodes are read first; then either only their locations are stored (their
    ids tracked: see :func:`.one_pass.geometry_read`), so a national extract costs what
    the object needs, not ~16 bytes a node of the file -- or, where tracking would cost
    more (a small real extract: :func:`.one_pass.stores_every_node`), every node's.
    """
    source = extract_io.open_extract(path)
    refs = array("q")  # the tracked ways' nodes (one object's: thousands, not millions)
    ways = osmium.FileProcessor(source, osmium.osm.WAY).with_filter(tracker.id_filter())
    for way in extract_io.iterate(ways, path):
        refs.extend(n.ref for n in way.nodes)
    every_node = one_pass.stores_every_node(Path(path), refs)
    if not every_node:
        for ref in refs:
            tracker.add_node(ref)
    with one_pass.location_index(Path(path)) as storage:
        index = osmium.index.create_map(storage)
        every_area = osmium.filter.EntityFilter(osmium.osm.AREA)
        read = one_pass.geometry_read(source, index, manager, tracker, every_area, every_node)
        yield from extract_io.iterate(read, path)


def _relation_area(path: Path, relation_id: int) -> BaseGeometry | None:
    source = extract_io.open_extract(path)
    manager = osmium.area.AreaManager()
    tracker = osmium.IdTracker()
    first = (
        osmium.FileProcessor(source, osmium.osm.RELATION)
        .with_filter(osmium.filter.IdFilter([relation_id]))
        .with_filter(manager.first_pass_handler())
    )
    for rel in extract_io.iterate(first, path):
        tracker.add_references(rel)  # its member ways, for the second read
    if tracker.way_ids().empty():
        return None
    factory = osmium.geom.WKBFactory()
    found = []
    for area in _located(path, tracker, manager):
        if area.is_area() and not area.from_way() and area.orig_id() == relation_id:
            try:
                wkb = factory.create_multipolygon(area)
            except RuntimeError:  # osmium found the area invalid: not an area
                continue
            found.append(shapely.make_valid(shapely.from_wkb(wkb)))
    return _one_area(found)


def _way_area(path: Path, way_id: int) -> BaseGeometry | None:
    tracker = osmium.IdTracker()
    tracker.add_way(way_id)
    for way in _located(path, tracker):
        if way.id != way_id:
            continue
        coords = [(n.location.lon, n.location.lat) for n in way.nodes if n.location.valid()]
        if len(coords) >= 4 and coords[0] == coords[-1]:
            return _one_area([shapely.make_valid(Polygon(coords))])
        return None
    return None


def area_from_extracts(files: Sequence[Path], kind: str, osm_id: int) -> BaseGeometry | None:
    """The object's polygon from the first extract that holds it as an area, or None.

    Overpass JSON files are skipped (they carry places, not boundaries).
    """
    for f in files:
        path = Path(f)
        if str(path).lower().endswith(".json") or not path.exists():
            continue
        if kind == "relation":
            area = _relation_area(path, osm_id)
        elif kind == "way":
            area = _way_area(path, osm_id)
        else:
            return None
        if area is not None:
            return area
    return None


def area_from_overpass(client: overpass.OverpassClient, kind: str, osm_id: int) -> BaseGeometry:
    """The object's polygon through Overpass (``out geom``; cached by the client).

    Raises
    ------
    NoDataError
        If Overpass holds no such object, or it is not an area.
    """
    if kind == "relation":
        return sources.fetch_relation_area(client, osm_id)
    if kind != "way":
        raise NoDataError(f"OSM node {osm_id} is a point, not an area; choose the area itself")
    raw = client.fetch(f"[out:json][timeout:180];\nway({int(osm_id)});\nout geom;\n")
    for el in raw.get("elements", []):
        if el.get("type") == "way" and el.get("id") == osm_id:
            coords = [(float(p["lon"]), float(p["lat"])) for p in el.get("geometry") or []]
            if len(coords) >= 4 and coords[0] == coords[-1]:
                area = _one_area([shapely.make_valid(Polygon(coords))])
                if area is not None:
                    return area
            raise NoDataError(f"OSM way {osm_id} is not a closed area; choose an area")
    raise NoDataError(f"Overpass has no OSM way {osm_id}; check the play area's osm_id")
