"""Does the OSM data cover the play area? Said before "no station candidates" can puzzle.

The coverage of offline data is the bounding box an extract's header states (what
Geofabrik, BBBike and ``osmium extract`` write); Overpass JSON states none, so its
coverage is the extent of what it holds (elements and water). Two checks:

* the play area lies wholly outside the coverage → an error naming both extents, and
  asking whether latitude and longitude are swapped when the swapped area would lie
  inside it (``[47.12, 9.50]`` for Vaduz is a valid position in the Indian Ocean);
* part of the play area lies outside an extract's stated box → a warning with the share
  (geodesic area) not covered: stations there cannot be found. The extent of Overpass
  JSON is only where its objects happen to be (farmland corners hold none), so it
  backs the first check only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import shapely
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.geodesy import geodesic_area_km2
from stations_generator.errors import NoDataError

#: Uncovered share of the play area below which no warning is given (0.5 %: the bundled
#: areas are drawn 50–100 m inside their extracts' boxes, which leaves nothing out).
WARN_SHARE = 0.005
EXTRACT_SUFFIXES = (".osm", ".osm.bz2", ".osm.gz", ".osm.pbf", ".pbf", ".o5m")


def header_box(path: Path) -> tuple[float, float, float, float] | None:
    """The bounding box an extract's header states, or None (no header box, not an extract)."""
    if not Path(path).name.lower().endswith(EXTRACT_SUFFIXES):
        return None
    try:
        import osmium

        reader = osmium.io.Reader(str(path), osmium.osm.osm_entity_bits.NOTHING)
        try:
            b = reader.header().box()
        finally:
            reader.close()
    except Exception:  # unreadable: the reader proper reports it
        return None
    if not b.valid():
        return None
    return (b.bottom_left.lon, b.bottom_left.lat, b.top_right.lon, b.top_right.lat)


def span(bounds: Sequence[float]) -> str:
    """``lon 9.47–9.64, lat 47.05–47.27`` for (min_lon, min_lat, max_lon, max_lat)."""
    w, s, e, n = bounds
    return f"lon {w:.2f}–{e:.2f}, lat {s:.2f}–{n:.2f}"


def check_coverage(
    area: BaseGeometry,
    osm_files: Sequence[Path],
    points: Sequence[tuple[float, float]],
    water: Sequence[BaseGeometry] = (),
    warn: Callable[[str], None] = lambda _m: None,
) -> float:
    """Compare the play area with the data's coverage; returns the share not covered.

    Parameters
    ----------
    area : the play area (WGS84)
    osm_files : the --osm files (extract headers give their coverage)
    points : (lon, lat) of the objects read (Overpass JSON's coverage)
    water : water polygons read (Overpass JSON's coverage too)
    warn : receives the partial-coverage warning

    Raises
    ------
    NoDataError
        The play area lies wholly outside the data.
    """
    stated = [b for b in (header_box(p) for p in osm_files) if b is not None]
    json_files = [p for p in osm_files if not Path(p).name.lower().endswith(EXTRACT_SUFFIXES)]
    found = []
    if points and (json_files or len(stated) < len(osm_files)):
        # (two lists, not zip(*points): that makes an iterator per point)
        lons, lats = [p[0] for p in points], [p[1] for p in points]
        found.append(box(min(lons), min(lats), max(lons), max(lats)))
    if water and json_files:
        found.append(box(*shapely.union_all(list(water)).bounds))
    stated_cover = shapely.union_all([box(*b) for b in stated]) if stated else None
    cover = shapely.union_all([g for g in (stated_cover, *found) if g is not None])
    if cover is None or cover.is_empty:
        return 0.0
    what = "the extract" if len(osm_files) == 1 and stated else "the OSM data"
    if not area.intersects(cover):
        swapped = shapely.transform(area, lambda xy: xy[:, ::-1])
        hint = (
            " — are latitude and longitude swapped?"
            if swapped.intersects(cover)
            else "; give OSM data that covers the play area, or check the play area's file"
        )
        raise NoDataError(
            f"the play area ({span(area.bounds)}) lies outside {what} ({span(cover.bounds)}){hint}"
        )
    if stated_cover is None:
        return 0.0
    total = geodesic_area_km2(area)
    outside = area.difference(stated_cover)
    share = geodesic_area_km2(outside) / total if total > 0 and not outside.is_empty else 0.0
    if share > WARN_SHARE:
        warn(
            f"{share:.0%} of the play area ({geodesic_area_km2(outside):.1f} km² of "
            f"{total:.1f} km²) lies outside {what} ({span(stated_cover.bounds)}); no station "
            "can be found there — use an extract that covers the whole play area"
        )
    return share
