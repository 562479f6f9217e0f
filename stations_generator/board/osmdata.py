"""Reading a board's OSM features: from an extract (pyosmium) or from Overpass.

Both paths produce the same :class:`~.terrain.MapFeatures` (WGS84 lon/lat); the
tag rules are here, in one place (:func:`classify_line`, :func:`classify_area`,
:func:`classify_point`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import osmium
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from stations_generator.board.terrain import MapFeatures, NamedArea, Place
from stations_generator.errors import InputError, NoDataError
from stations_generator.osm import extracts, overpass, overpass_json
from stations_generator.osm.query import poly_filters

__all__ = ["features_from_extract", "features_from_overpass", "extract_extent", "overpass_query"]

BUILTUP_LANDUSE = ("residential", "commercial", "retail", "industrial")
FOREST_TAGS = (("landuse", "forest"), ("natural", "wood"))
#: Rail service tracks (yards, sidings) and non-passenger uses are not "public transport".
NON_PASSENGER_USAGE = ("industrial", "military", "freight", "tourism", "test")
#: Administrative areas read for city outlines and the board's title: districts (6) to
#: quarters (10). Countries and states (2-5) are left out: their outlines are far larger
#: than a board and, fetched from Overpass, would be megabytes of geometry.
ADMIN_LEVELS = ("6", "7", "8", "9", "10")
#: Named waterways printed on the board (big rivers and canals).
RIVER_WATERWAYS = ("river", "canal")
#: Fallback start locations when an area has fewer than 2 prisons (in this order of kind).
LANDMARK_TAGS = (
    ("historic", "castle"),
    ("historic", "fort"),
    ("tourism", "museum"),
    ("tourism", "attraction"),
    ("amenity", "townhall"),
)


def classify_line(tags: Mapping[str, str]) -> str | None:
    """``motorway``, ``motorway_link``, ``rail``, ``coastline`` or ``river`` (a named
    river or canal) for a way, else None."""
    if tags.get("highway") == "motorway":
        return "motorway"
    if tags.get("highway") == "motorway_link":
        return "motorway_link"
    if (
        tags.get("railway") == "rail"
        and "service" not in tags
        and tags.get("usage") not in NON_PASSENGER_USAGE
    ):
        return "rail"
    if tags.get("natural") == "coastline":
        return "coastline"
    if tags.get("waterway") in RIVER_WATERWAYS and tags.get("name"):
        return "river"
    return None


def classify_area(tags: Mapping[str, str]) -> str | None:
    """``water``, ``forest``, ``builtup``, ``place`` (a named city, town or village outline)
    or ``admin`` (a named administrative area, :data:`ADMIN_LEVELS`) for an area, else None."""
    if extracts.is_water(tags):
        return "water"
    if any(tags.get(k) == v for k, v in FOREST_TAGS):
        return "forest"
    if tags.get("landuse") in BUILTUP_LANDUSE:
        return "builtup"
    if not tags.get("name"):
        return None
    if tags.get("place") in ("city", "town", "village"):
        return "place"
    if tags.get("boundary") == "administrative" and tags.get("admin_level") in ADMIN_LEVELS:
        return "admin"
    return None


def _add_area(features: MapFeatures, kind: str, tags: Mapping[str, str], geom) -> None:
    """File one classified area (and, when it is named water, its name) in ``features``."""
    name = str(tags.get("name", ""))
    if kind in ("water", "forest", "builtup"):
        getattr(features, kind).append(geom)
        if kind == "water" and name:
            features.named_water.append((name, geom))
    else:
        level = str(tags.get("admin_level", ""))
        rank = int(level) if kind == "admin" and level.isdigit() else 99
        features.named_areas.append(NamedArea(name, kind, rank, geom))


def _add_line(features: MapFeatures, kind: str, tags: Mapping[str, str], coords: list) -> None:
    """File one classified line (a motorway with its ``ref``, a river with its name)."""
    if kind == "river":
        features.rivers.append((str(tags["name"]), coords))
        return
    {
        "motorway": features.motorways,
        "motorway_link": features.motorway_links,
        "rail": features.rail,
        "coastline": features.coastline,
    }[kind].append(coords)
    if kind == "motorway":
        features.motorway_refs.append(str(tags.get("ref", "")))


def classify_point(tags: Mapping[str, str]) -> str | None:
    """The kind of point feature: junction, place, airfield, station, prison, landmark."""
    if tags.get("highway") == "motorway_junction":
        return "junction"
    if tags.get("place") in ("city", "town", "village"):
        return "place"
    if tags.get("aeroway") == "aerodrome":
        return "airfield"
    if tags.get("railway") in ("station", "halt") and tags.get("station") not in (
        "subway",
        "light_rail",
        "monorail",
        "funicular",
    ):
        return "station"
    if tags.get("amenity") == "prison":
        return "prison"
    if tags.get("name") and any(tags.get(k) == v for k, v in LANDMARK_TAGS):
        return "landmark"
    return None


def _population(tags: Mapping[str, str]) -> int:
    text = str(tags.get("population", "")).replace(",", "").replace(" ", "").replace(".", "")
    return int(text) if text.isdigit() else 0


def _name(tags: Mapping[str, str]) -> str:
    return str(tags.get("name") or tags.get("ref") or "")


def _landmark_kind(tags: Mapping[str, str]) -> str:
    for k, v in LANDMARK_TAGS:
        if tags.get(k) == v:
            return v
    return "landmark"


def _add_point(
    features: MapFeatures, kind: str, lon: float, lat: float, tags: Mapping[str, str], key: str
) -> None:
    if kind == "junction":
        features.junctions.append(
            Place(
                lon,
                lat,
                str(tags.get("name", "")),
                "junction",
                osm=key,
                ref=str(tags.get("ref", "")),
            )
        )
    elif kind == "place":
        features.places.append(Place(lon, lat, _name(tags), tags["place"], _population(tags), key))
    elif kind == "airfield":
        features.airfields.append(Place(lon, lat, _name(tags) or "airfield", "airfield", osm=key))
    elif kind == "station":
        features.stations.append(Place(lon, lat, _name(tags), "station", osm=key))
    elif kind == "prison":
        features.prisons.append(Place(lon, lat, _name(tags), "prison", osm=key))
    elif kind == "landmark":
        features.landmarks.append(Place(lon, lat, _name(tags), _landmark_kind(tags), osm=key))


def extract_extent(path: Path) -> tuple[float, float, float, float] | None:
    """The extract's bounding box from its header, or None if it has none."""
    try:
        header = osmium.io.Reader(str(path), osmium.osm.NOTHING).header()
    except RuntimeError:
        return None
    b = header.box()
    if not b.valid():
        return None
    return (b.bottom_left.lon, b.bottom_left.lat, b.top_right.lon, b.top_right.lat)


def features_from_extract(path: Path, area: BaseGeometry, bbox: tuple | None = None) -> MapFeatures:
    """Read every board feature of ``area`` (WGS84) from an OSM extract.

    ``bbox`` (lon/lat) is the box to read [default: the area's bounds]; give the
    grid's box so that squares partly outside the area keep their features.

    Raises
    ------
    InputError
        If the file cannot be read, or the area lies outside the extract's bounds.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"OSM extract {path.name!r} does not exist; check the --osm path")
    bbox = tuple(float(v) for v in (bbox or area.bounds))
    extent = extract_extent(path)
    if extent is not None and not box(*extent).intersects(area):
        raise InputError(
            f"the area ({bbox[0]:.3f},{bbox[1]:.3f} – {bbox[2]:.3f},{bbox[3]:.3f}) lies outside "
            f"the extract {path.name!r} ({extent[0]:.3f},{extent[1]:.3f} – {extent[2]:.3f},{extent[3]:.3f}); "
            "give an extract that covers it, or leave out --osm to fetch it online"
        )
    features = MapFeatures()
    for _key, tags, line in extracts.read_lines(path, lambda t: classify_line(t) is not None, bbox):
        _add_line(features, classify_line(tags), tags, [tuple(c) for c in line.coords])
    for _key, tags, geom in extracts.read_areas(path, lambda t: classify_area(t) is not None, bbox):
        _add_area(features, classify_area(tags), tags, geom)
    for el in extracts.read_points(path, lambda t: classify_point(t) is not None, bbox):
        _add_point(features, classify_point(el.tags), el.lon, el.lat, el.tags, el.key)
    return features


# --------------------------------------------------------------------- Overpass
_LINE_FILTERS = (
    '["highway"~"^motorway(_link)?$"]',
    '["railway"="rail"]',
    '["natural"="coastline"]',
    '["waterway"~"^(river|canal)$"]["name"]',
)
_AREA_FILTERS = (
    '["natural"="water"]',
    '["natural"="bay"]',
    '["waterway"="riverbank"]',
    '["waterway"="dock"]',
    '["landuse"="reservoir"]',
    '["landuse"="basin"]',
    '["landuse"="forest"]',
    '["natural"="wood"]',
    '["landuse"~"^(residential|commercial|retail|industrial)$"]',
    '["place"~"^(city|town|village)$"]["name"]',
    '["boundary"="administrative"]["admin_level"~"^([6-9]|10)$"]["name"]',
)
_POINT_FILTERS = (
    '["highway"="motorway_junction"]',
    '["place"~"^(city|town|village)$"]',
    '["aeroway"="aerodrome"]',
    '["railway"~"^(station|halt)$"]',
    '["amenity"="prison"]',
    '["historic"~"^(castle|fort)$"]["name"]',
    '["tourism"~"^(museum|attraction)$"]["name"]',
    '["amenity"="townhall"]["name"]',
)


def overpass_query(area: BaseGeometry, timeout_s: int = 300) -> str:
    """One Overpass query for every board feature of ``area`` (``out geom``)."""
    polys = poly_filters(area)
    lines = [f"[out:json][timeout:{int(timeout_s)}];", "("]
    for poly in polys:
        for flt in _LINE_FILTERS:
            lines.append(f"  way{flt}({poly});")
        for flt in _AREA_FILTERS:
            lines.append(f"  way{flt}({poly});")
            lines.append(f"  relation{flt}({poly});")
        for flt in _POINT_FILTERS:
            lines.append(f"  nwr{flt}({poly});")
    lines += [");", "out geom;"]
    return "\n".join(lines) + "\n"


def _geometry_points(el: dict[str, Any]) -> list[tuple[float, float]]:
    pts = []
    for p in el.get("geometry") or []:
        if (
            isinstance(p, dict)
            and isinstance(p.get("lon"), int | float)
            and isinstance(p.get("lat"), int | float)
        ):
            pts.append((float(p["lon"]), float(p["lat"])))
    for m in el.get("members") or []:
        if isinstance(m, dict):
            pts.extend(_geometry_points(m))
    return pts


def features_from_overpass_json(raw: dict[str, Any]) -> MapFeatures:
    """Parse an Overpass ``out geom`` answer to :func:`overpass_query`."""
    elements = raw.get("elements") if isinstance(raw, dict) else None
    if not isinstance(elements, list):
        raise InputError("the Overpass answer has no element list; try again later")
    features = MapFeatures()
    areas: list[tuple[str, dict[str, str], dict[str, Any]]] = []
    for el in elements:
        if not isinstance(el, dict) or not isinstance(el.get("tags"), dict):
            continue
        tags = {str(k): str(v) for k, v in el["tags"].items()}
        key = f"{el.get('type')}/{el.get('id')}"
        if el.get("type") == "way":
            kind = classify_line(tags)
            if kind:
                coords = _geometry_points(el)
                if len(coords) >= 2:
                    _add_line(features, kind, tags, coords)
        if el.get("type") in ("way", "relation"):
            kind = classify_area(tags)
            if kind:
                areas.append((kind, tags, el))
        kind = classify_point(tags)
        if kind:
            if el.get("type") == "node":
                lon, lat = el.get("lon"), el.get("lat")
            else:
                pts = _geometry_points(el)
                if not pts:
                    continue
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                lon, lat = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
            if isinstance(lon, int | float) and isinstance(lat, int | float):
                _add_point(features, kind, float(lon), float(lat), tags, key)
    for kind, tags, el in areas:
        polys = overpass_json.water_polygons_from_overpass_json({"elements": [el]})
        if polys:
            _add_area(features, kind, tags, polys[0] if len(polys) == 1 else unary_union(polys))
    return features


def features_from_overpass(client: overpass.OverpassClient, area: BaseGeometry) -> MapFeatures:
    """Fetch the board features of ``area`` with one Overpass query (cached by the client)."""
    features = client.fetch_parsed(overpass_query(area), features_from_overpass_json)
    if not isinstance(features, MapFeatures):  # pragma: no cover - defensive
        raise NoDataError("the Overpass answer could not be read")
    return features
