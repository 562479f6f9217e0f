"""Where OSM data comes from: saved files or Overpass. Returns elements and water polygons.

Files are told apart by their name: ``.json`` is Overpass JSON (a full response or
a bare element list); ``.osm``, ``.osm.bz2``, ``.osm.gz`` and ``.osm.pbf`` are OSM
extracts read with pyosmium.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.catalogue import Catalogue
from stations_generator.core.elements import OsmElement
from stations_generator.errors import InputError, NoDataError
from stations_generator.osm import extracts, layers, overpass, overpass_file, overpass_json
from stations_generator.osm.nominatim import NominatimClient
from stations_generator.osm.query import build_query, relation_query

JSON_SUFFIXES = (".json",)


@dataclass
class OsmData:
    """Candidates' raw material for one play area."""

    elements: list[OsmElement] = field(default_factory=list)
    water: list[BaseGeometry] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def _kind(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(JSON_SUFFIXES):
        return "json"
    if name.endswith(tuple(extracts.EXTRACT_SUFFIXES)):
        return "extract"
    raise InputError(
        f"{path.name!r}: unknown OSM file type; give Overpass JSON (.json) or an extract "
        "(.osm, .osm.bz2, .osm.pbf)"
    )


def _bbox(area: BaseGeometry) -> tuple[float, float, float, float]:
    return tuple(float(v) for v in area.bounds)  # type: ignore[return-value]


def json_element_filter(
    catalogue: Catalogue, *, with_water: bool = False
) -> Callable[[dict[str, Any]], bool]:
    """Which raw Overpass JSON elements to keep: those the catalogue keeps, and with
    ``with_water`` those carrying ``out geom`` geometry (the water assembler's)."""

    def wanted(element: dict[str, Any]) -> bool:
        tags = element.get("tags")
        return bool(tags and catalogue.keeps(tags)) or (
            with_water and overpass_file.has_geometry(element)
        )

    return wanted


def read_files(
    osm_files: Sequence[Path],
    water_files: Sequence[Path],
    area: BaseGeometry,
    catalogue: Catalogue,
    *,
    water: bool = True,
) -> OsmData:
    """Read offline OSM data for ``area``.

    Water comes from ``water_files``; when none are given, extracts among
    ``osm_files`` provide it too (Overpass JSON only carries it if it was fetched
    with ``out geom``).
    """
    data = OsmData()
    bbox = _bbox(area)
    for path in osm_files:
        path = Path(path)
        if not path.exists():
            raise InputError(f"OSM file {path.name!r} does not exist; check the --osm path")
        kind = _kind(path)
        if kind == "json":
            with_water = water and not water_files
            wanted = json_element_filter(catalogue, with_water=with_water)
            elements, polygons = overpass_file.read_overpass_elements(path, wanted, path.name)
            if with_water:  # (else ``wanted`` kept only what the catalogue keeps)
                elements = [e for e in elements if catalogue.keeps(e.tags)]
                data.water.extend(polygons)
            data.elements.extend(elements)
        else:
            data.elements.extend(layers.points(path, catalogue, bbox))
            if water and not water_files:
                data.water.extend(layers.water(path, bbox))
        data.sources.append(path.name)
    if water:
        for path in water_files:
            path = Path(path)
            if not path.exists():
                raise InputError(f"water file {path.name!r} does not exist; check the --water path")
            if _kind(path) == "json":
                data.water.extend(
                    overpass_json.water_polygons_from_overpass_json(
                        overpass_file.read_overpass_json_file(path, keep=overpass_file.has_geometry)
                    )
                )
            else:
                data.water.extend(layers.water(path, bbox))
    return data


def fetch_overpass(
    client: overpass.OverpassClient, area: BaseGeometry, catalogue: Catalogue, *, water: bool = True
) -> OsmData:
    """Fetch candidates (and water) for ``area`` with one batched Overpass query.

    The answer is parsed before it is cached, so an answer this parse rejects is
    never cached (see :meth:`OverpassClient.fetch_parsed`).
    """

    def parse(raw: dict) -> OsmData:
        data = OsmData(sources=["Overpass"])
        elements, polygons = overpass_json.parse_overpass(raw, "the Overpass response")
        data.elements = [e for e in elements if catalogue.keeps(e.tags)]
        if water:
            data.water = polygons
        return data

    return client.fetch_parsed(build_query(area, catalogue, water=water), parse)


def fetch_relation_area(client: overpass.OverpassClient, relation_id: int) -> BaseGeometry:
    """The polygon of an OSM relation (``--osm-relation``), assembled from its member ways."""

    def parse(raw: dict) -> tuple[bool, list[BaseGeometry]]:
        elements = raw.get("elements") if isinstance(raw, dict) else None
        found = any(
            isinstance(e, dict) and e.get("type") == "relation" and e.get("id") == relation_id
            for e in elements or ()
        )
        polygons = overpass_json.water_polygons_from_overpass_json(_as_multipolygon(raw))
        return found, polygons

    found, polygons = client.fetch_parsed(relation_query(relation_id), parse)
    if not found:
        raise NoDataError(
            f"Overpass returned no relation {relation_id}: it does not exist (or was deleted); "
            f"check the id at https://www.openstreetmap.org/relation/{relation_id}"
        )
    if not polygons:
        raise NoDataError(
            f"OSM relation {relation_id} has no closed outer ring; is it an area (boundary or multipolygon)?"
        )
    return shapely.normalize(shapely.union_all(polygons))


def _as_multipolygon(raw: dict) -> dict:
    """Let the multipolygon assembler treat a boundary relation like a multipolygon."""
    elements = []
    for el in raw.get("elements", []):
        # Anything not shaped as expected is left to the parser to report.
        if isinstance(el, dict) and el.get("type") == "relation":
            tags = el.get("tags", {})
            if isinstance(tags, dict):
                el = {**el, "tags": {**tags, "type": "multipolygon"}}
        elements.append(el)
    return {**raw, "elements": elements}


def geocode_place(name: str, client: NominatimClient | None = None) -> BaseGeometry:
    """The polygon of a named place via Nominatim, for ``--place``.

    Parameters
    ----------
    name : str
        The place, as you would type it into openstreetmap.org's search.
    client : NominatimClient, optional
        With its deadline, cache and wait reporting [default: a client for
        ``STATIONS_GENERATOR_NOMINATIM_URL``, else nominatim.openstreetmap.org].

    Returns
    -------
    shapely Polygon or MultiPolygon
        The first (Multi)Polygon result by importance, normalised.

    Raises
    ------
    InputError
        If Nominatim finds nothing, or finds no area.
    NominatimError
        If Nominatim cannot be reached, answers with an error, or stays busy past
        the deadline (a network failure: exit 4, as for Overpass).

    Notes
    -----
    The answer is cached in ``nominatim`` beside the Overpass cache
    (:func:`~stations_generator.osm.nominatim.default_nominatim_cache_dir`).
    """
    return (client or NominatimClient()).place_polygon(name)
