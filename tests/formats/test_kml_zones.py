"""Hiding-zone circles in the KML: KML 2.2 structure and geodesic geometry."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pyproj
import pytest

from stations_generator import build_station_map
from stations_generator.formats.kml import KML_NS, stations_kml
from stations_generator.formats.kml_zones import (
    DEFAULT_VERTICES,
    ZONE_FOLDER,
    ZONE_STYLE_ID,
    add_hiding_zones,
    hiding_zone_ring,
    stations_kml_with_zones,
)

NS = {"k": KML_NS}
GEOD = pyproj.Geod(ellps="WGS84")


@pytest.fixture(scope="module")
def sioux_map(sioux_area, sioux_candidates, sioux_data):
    return build_station_map(sioux_area, sioux_candidates, water=sioux_data.water)


@pytest.fixture(scope="module")
def document(sioux_map):
    text = stations_kml_with_zones(
        sioux_map.stations, sioux_map.play_area, name="Sioux Falls", hiding_radius_m=402.0
    )
    return text, ET.fromstring(text.encode("utf-8"))


def zone_folder(root: ET.Element) -> ET.Element:
    folders = [
        f
        for f in root.iterfind("k:Document/k:Folder", NS)
        if f.findtext("k:name", namespaces=NS) == ZONE_FOLDER
    ]
    assert len(folders) == 1
    return folders[0]


def ring_positions(placemark: ET.Element) -> list[tuple[float, float, float]]:
    text = placemark.findtext(
        "k:Polygon/k:outerBoundaryIs/k:LinearRing/k:coordinates", namespaces=NS
    )
    assert text is not None
    return [tuple(float(v) for v in item.split(",")) for item in text.split()]


def signed_area(ring) -> float:
    x0, y0 = ring[0][0], ring[0][1]
    return 0.5 * sum(
        (a[0] - x0) * (b[1] - y0) - (b[0] - x0) * (a[1] - y0)
        for a, b in zip(ring, ring[1:], strict=False)
    )


def test_document_is_kml_22(document):
    text, root = document
    assert text.startswith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2">'
    )
    assert root.tag == f"{{{KML_NS}}}kml"
    assert [child.tag for child in root] == [f"{{{KML_NS}}}Document"]
    # Every element is in the KML namespace (no ns0: prefixes, nothing foreign).
    assert all(el.tag.startswith(f"{{{KML_NS}}}") for el in root.iter())
    assert "ns0:" not in text


def test_styles_come_before_folders_and_zone_style_is_translucent(document):
    _, root = document
    doc = root.find("k:Document", NS)
    tags = [child.tag.split("}")[1] for child in doc]
    last_style = max(i for i, t in enumerate(tags) if t == "Style")
    first_folder = min(i for i, t in enumerate(tags) if t == "Folder")
    assert last_style < first_folder
    style = doc.find(f"k:Style[@id='{ZONE_STYLE_ID}']", NS)
    fill = style.findtext("k:PolyStyle/k:color", namespaces=NS)
    outline = style.findtext("k:LineStyle/k:color", namespaces=NS)
    assert len(fill) == 8 and 0 < int(fill[:2], 16) < 0xFF  # aabbggrr, semi-transparent
    assert outline[:2] == "ff" and outline[2:] == fill[2:]


def test_every_style_url_targets_a_style(document):
    _, root = document
    ids = {s.get("id") for s in root.iter(f"{{{KML_NS}}}Style")}
    urls = [el.text for el in root.iter(f"{{{KML_NS}}}styleUrl")]
    assert urls and all(u.startswith("#") and u[1:] in ids for u in urls)
    assert urls.count(f"#{ZONE_STYLE_ID}") == len(list(zone_folder(root))) - 2  # name, description


def test_one_zone_per_station_in_station_order(document, sioux_map):
    _, root = document
    placemarks = zone_folder(root).findall("k:Placemark", NS)
    assert len(placemarks) == len(sioux_map.stations) > 0
    station_marks = [
        p
        for f in root.iterfind("k:Document/k:Folder", NS)
        if f.findtext("k:name", namespaces=NS).startswith("Cluster ")
        for p in f.findall("k:Placemark", NS)
    ]
    names = [p.findtext("k:name", namespaces=NS) for p in station_marks]
    assert [p.findtext("k:name", namespaces=NS) for p in placemarks] == [
        f"Zone: {n}" for n in names
    ]


def test_rings_are_closed_ccw_geodesic_circles_in_lon_lat_alt(document, sioux_map):
    _, root = document
    placemarks = zone_folder(root).findall("k:Placemark", NS)
    points = [
        tuple(float(v) for v in p.findtext("k:Point/k:coordinates", namespaces=NS).split(","))
        for f in root.iterfind("k:Document/k:Folder", NS)
        for p in f.findall("k:Placemark", NS)
        if p.find("k:Point", NS) is not None
    ]
    assert len(points) == len(placemarks)  # zones follow the stations' order
    for placemark, (lon, lat) in zip(placemarks, points, strict=True):
        ring = ring_positions(placemark)
        assert len(ring) == DEFAULT_VERTICES + 1
        assert ring[0] == ring[-1]  # closed
        assert all(len(p) == 3 and p[2] == 0 for p in ring)  # lon,lat,alt
        assert all(-97.0 < p[0] < -96.4 and 43.4 < p[1] < 43.7 for p in ring)  # lon first
        assert signed_area(ring) > 0  # counter-clockwise
        _, _, distance = GEOD.inv(
            [lon] * len(ring), [lat] * len(ring), [p[0] for p in ring], [p[1] for p in ring]
        )
        assert max(abs(d - 402.0) for d in distance) < 0.05  # 7 decimals ≈ 1 cm


def test_everything_else_is_unchanged(sioux_map, document):
    plain = stations_kml(sioux_map.stations, sioux_map.play_area, name="Sioux Falls")
    _, root = document
    doc = root.find("k:Document", NS)
    doc.remove(doc.find(f"k:Style[@id='{ZONE_STYLE_ID}']", NS))
    doc.remove(zone_folder(root))
    original = ET.fromstring(plain.encode("utf-8"))
    assert ET.canonicalize(ET.tostring(root), strip_text=True) == ET.canonicalize(
        ET.tostring(original), strip_text=True
    )


def test_deterministic_and_refuses_a_second_pass(sioux_map, document):
    text, _ = document
    again = stations_kml_with_zones(
        sioux_map.stations, sioux_map.play_area, name="Sioux Falls", hiding_radius_m=402.0
    )
    assert again == text
    with pytest.raises(ValueError, match="already has hiding zones"):
        add_hiding_zones(text, sioux_map.stations)
    with pytest.raises(ValueError, match="not a KML"):
        add_hiding_zones('<?xml version="1.0"?><gpx/>', sioux_map.stations)


def test_large_game_radius_and_ring_errors(sioux_map):
    text = add_hiding_zones(
        stations_kml(sioux_map.stations, sioux_map.play_area),
        sioux_map.stations,
        805.0,
        vertices=36,
    )
    root = ET.fromstring(text.encode("utf-8"))
    first = zone_folder(root).find("k:Placemark", NS)
    assert len(ring_positions(first)) == 37
    assert "805 m" in first.findtext("k:description", namespaces=NS)
    with pytest.raises(ValueError):
        hiding_zone_ring(-96.7, 43.5, 0.0)
    with pytest.raises(ValueError):
        hiding_zone_ring(-96.7, 43.5, 402.0, vertices=4)
