"""Shared test cases: option sets, bad-value variants and play areas made from extracts."""

from __future__ import annotations

from pathlib import Path

# Closer spacing and a shorter density radius than the defaults, so the 1.7 km
# extract gives a couple of dozen stations in all three tiers.
DENSE_OPTIONS = [
    "--min-spacing", "150", "--cluster-gap", "400", "--density-radius", "250",
    "--tiers", "dense:40:5-15,moderate:15:10-30,sparse:0:20-60",
]  # fmt: skip


def member_variants(obj: dict, keys, bad_values):
    """Deep copies of ``obj`` with each of ``keys`` set to each of ``bad_values``, and
    with it removed (for checks that must refuse whatever a schema refuses)."""
    import copy

    for key in keys:
        for bad in bad_values:
            changed = copy.deepcopy(obj)
            changed[key] = bad
            yield changed
        changed = copy.deepcopy(obj)
        changed.pop(key, None)
        yield changed


def extract_area(path: Path, folder: Path) -> Path:
    """The extract's bounding box (from its header) as a play-area polygon file."""
    import json

    import osmium

    reader = osmium.io.Reader(str(path), osmium.osm.osm_entity_bits.NOTHING)
    box = reader.header().box()
    reader.close()
    w, s = box.bottom_left.lon, box.bottom_left.lat
    e, n = box.top_right.lon, box.top_right.lat
    area = folder / f"{path.name.split('.')[0]}-area.geojson"
    ring = [[w, s], [e, s], [e, n], [w, n], [w, s]]
    area.write_text(json.dumps({"type": "Polygon", "coordinates": [ring]}))
    return area
