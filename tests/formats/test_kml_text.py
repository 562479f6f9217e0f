"""The KML writer builds its text directly; it must be what ElementTree would write.

The reference is ElementTree itself: the written document is parsed and written
again with ``ET.indent(space="  ")`` + ``ET.tostring(short_empty_elements=False)``
(the writer the module used before, issue 11); any difference in escaping,
indentation, empty elements or element order shows up as a byte difference.
"""

from __future__ import annotations

import csv
from xml.etree import ElementTree as ET

import geopandas as gpd
from shapely.geometry import MultiPolygon, Point, Polygon
from support.paths import REPO

from stations_generator.formats.kml import KML_NS, stations_kml

ROOT = REPO
PEER = ROOT / "examples" / "sioux-falls" / "peer-output.csv"


def _reference(text: str) -> str:
    ET.register_namespace("", KML_NS)
    root = ET.fromstring(text.encode("utf-8"))
    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode", short_empty_elements=False)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _stations() -> gpd.GeoDataFrame:
    rows = list(csv.DictReader(PEER.open(encoding="utf-8")))[:40]
    awkward = ["A & B <cafe>", 'Quote "x" > y', "tab\tnew\nline", "bad\x01char", ""]
    records = []
    for i, row in enumerate(rows):
        lon, lat = float(row["longitude"]), float(row["latitude"])
        records.append(
            {
                "id": f"node/{1000 + i}",
                "name": awkward[i % len(awkward)] if i < 10 else row.get("name") or None,
                "category": ["cafe", "museum", "odd & cat", None][i % 4],
                "cluster_id": None if i % 7 == 0 else i % 3,
                # (in the multi-line description too, where XML-invalid characters go)
                "opening_hours": ("Mo-Fr 08:00-17:00 <closed PH>", "Sa\x0b 10:00-12:00")[i % 2]
                if i % 5 == 0
                else None,
                "wait_min": 10 if i % 2 else None,
                "wait_max": 20 if i % 3 else None,
                "geometry": Point(lon, lat),
            }
        )
    return gpd.GeoDataFrame(records, geometry="geometry", crs="EPSG:4326")


def test_kml_text_is_what_elementtree_writes():
    stations = _stations()
    w, s, e, n = stations.total_bounds
    outer = Polygon(
        [(w - 0.01, s - 0.01), (e + 0.01, s - 0.01), (e + 0.01, n + 0.01), (w - 0.01, n + 0.01)],
        [[(w, s), (w + 0.001, s), (w + 0.001, s + 0.001)]],
    )
    second = Polygon([(e + 0.1, n), (e + 0.2, n), (e + 0.2, n + 0.1)])
    exclusions = [Polygon(), MultiPolygon([outer.buffer(-0.002), second]), second]
    for area, excl in ((MultiPolygon([outer, second]), exclusions), (outer, ()), (None, ())):
        text = stations_kml(stations, area, excl, name="Doc & <name>")
        assert text == _reference(text)
    assert "A &amp; B &lt;cafe&gt;" in text and "badchar" in text
    assert "\nOpening hours: Sa 10:00-12:00\n" in text and "\x0b" not in text
    assert "<Folder>\n      <name>Exclusions</name>" not in text
    with_exclusions = stations_kml(stations, outer, exclusions)
    assert with_exclusions.count("<name>Exclusion ") == 2
