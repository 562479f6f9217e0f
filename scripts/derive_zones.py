"""Derive the bundled play areas in zones/ from the real OSM extracts in tests/data.

Run from the repository root: ``python scripts/derive_zones.py``. Output is
deterministic (7 decimals, fixed ordering), so re-running it changes nothing.
"""

from __future__ import annotations

from pathlib import Path

from stations_generator.formats.geojson import dumps_geojson, polygon_rings
from stations_generator.osm.extracts import read_areas

ROOT = Path(__file__).resolve().parent.parent
EXTRACTS = ROOT / "tests" / "data" / "osm-extracts"


def country(path: Path, name: str) -> dict:
    areas = read_areas(
        path, lambda t: t.get("boundary") == "administrative" and t.get("admin_level") == "2"
    )
    (key, tags, geom), *_ = [a for a in areas if a[1].get("name") == name]
    parts = list(getattr(geom, "geoms", [geom]))
    geometry = (
        {"type": "Polygon", "coordinates": polygon_rings(parts[0])}
        if len(parts) == 1
        else {"type": "MultiPolygon", "coordinates": [polygon_rings(p) for p in parts]}
    )
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {
                    "name": name,
                    "source": f"OSM {key} in {path.name}",
                    "attribution": "© OpenStreetMap contributors, ODbL 1.0",
                },
                "geometry": geometry,
            }
        ],
    }


if __name__ == "__main__":
    out = ROOT / "zones" / "liechtenstein.geojson"
    out.write_text(
        dumps_geojson(country(EXTRACTS / "liechtenstein-2013-08.osm.pbf", "Liechtenstein"))
    )
    print(f"wrote {out.relative_to(ROOT)}")
