"""Overpass QL for one play area: every catalogue category and the water, in one request."""

from __future__ import annotations

from collections.abc import Sequence

from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from stations_generator.core.catalogue import Catalogue, Clause

# Water areas subtracted from the play area (the peer's list).
WATER_FILTERS = (
    "natural=water",
    "natural=bay",
    "waterway=riverbank",
    "waterway=dock",
    "landuse=reservoir",
    "landuse=basin",
)
MAX_POLY_VERTICES = (
    300  # longer rings are replaced by their convex hull (results are clipped locally)
)


def poly_filters(area: BaseGeometry) -> list[str]:
    """Overpass ``poly:"lat lon …"`` strings covering ``area`` (one per part, holes ignored).

    Coordinates are written with 6 decimals (≈ 0.1 m); candidates are clipped to the
    exact polygon afterwards, so a covering ring is enough.
    """
    parts: Sequence[Polygon] = list(area.geoms) if isinstance(area, MultiPolygon) else [area]
    out = []
    for part in sorted(parts, key=lambda p: p.bounds):
        ring = part.exterior
        if len(ring.coords) > MAX_POLY_VERTICES:
            ring = part.convex_hull.exterior
        coords = list(ring.coords)[:-1]
        out.append('poly:"' + " ".join(f"{lat:.6f} {lon:.6f}" for lon, lat in coords) + '"')
    return out


def build_query(
    area: BaseGeometry, catalogue: Catalogue, *, water: bool = True, timeout_s: int = 180
) -> str:
    """The single batched Overpass query for a play area.

    Parameters
    ----------
    area : shapely (Multi)Polygon, WGS84
    catalogue : Catalogue
        Categories to fetch (``nwr`` per filter and area part; ``out center tags``).
    water : bool
        Also fetch water ways and relations with their geometry (``out geom``).
    timeout_s : int
        Overpass's own ``[timeout:]`` for the query.

    Returns
    -------
    str
    """
    polys = poly_filters(area)
    lines = [f"[out:json][timeout:{int(timeout_s)}];", "("]
    for flt in catalogue.overpass_filters():
        for poly in polys:
            lines.append(f"  nwr{flt}({poly});")
    lines.append(");")
    lines.append("out center tags;")
    if water:
        lines.append("(")
        for text in WATER_FILTERS:
            flt = Clause.parse(text).overpass()
            for poly in polys:
                lines.append(f"  way{flt}({poly});")
                lines.append(f"  relation{flt}({poly});")
        lines.append(");")
        lines.append("out geom;")
    return "\n".join(lines) + "\n"


def relation_query(relation_id: int, timeout_s: int = 180) -> str:
    """Overpass query for one relation's full geometry (``--osm-relation``)."""
    return f"[out:json][timeout:{int(timeout_s)}];\nrelation({int(relation_id)});\nout geom;\n"
