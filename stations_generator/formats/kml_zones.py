"""Hiding zones for the KML station map: a geodesic circle around every station.

:func:`add_hiding_zones` takes the KML text of
:func:`stations_generator.formats.kml.stations_kml` and adds

* a ``Style`` ``hiding-zone`` (after the existing styles) with a thin outline and a
  semi-transparent fill (``PolyStyle`` alpha :data:`ZONE_FILL_ALPHA`), and
* a ``Folder`` "Hiding zones" (after the existing folders) with one ``Placemark``
  per station: a ``Polygon`` whose outer ``LinearRing`` is the circle of the hiding
  radius around the station,

leaving everything else as it was. :func:`stations_kml_with_zones` does both steps.

The circles are geodesic: each vertex is the point at the hiding radius from the
station along an azimuth (``pyproj.Geod.fwd`` on WGS84), :data:`DEFAULT_VERTICES`
of them (every 5°), so a 402 m circle departs from the true circle by under 0.4 m
between vertices. Rings are closed, counter-clockwise (as KML asks of outer
boundaries), written ``lon,lat,0``, with 7 decimals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any
from xml.etree import ElementTree as ET

import numpy as np
import pandas as pd
import pyproj
from shapely.geometry.base import BaseGeometry

from stations_generator.formats.geojson import StationRecord, station_records
from stations_generator.formats.kml import KML_NS, stations_kml

__all__ = [
    "DEFAULT_VERTICES",
    "ZONE_FILL_ALPHA",
    "ZONE_FOLDER",
    "ZONE_STYLE_ID",
    "add_hiding_zones",
    "hiding_zone_ring",
    "stations_kml_with_zones",
]

DEFAULT_VERTICES = 72
"""Vertices per circle (one every 5°)."""

ZONE_STYLE_ID = "hiding-zone"
ZONE_FOLDER = "Hiding zones"
ZONE_RGB = "e65100"
"""Outline and fill colour (``rrggbb``) of the hiding zones."""

ZONE_FILL_ALPHA = "4d"
"""Fill opacity as KML alpha (hex): 0x4d ≈ 30 %, the stations and map stay visible."""

_GEOD = pyproj.Geod(ellps="WGS84")


def _kml_colour(rgb: str, alpha: str) -> str:
    """``rrggbb`` -> KML's ``aabbggrr``."""
    return f"{alpha}{rgb[4:6]}{rgb[2:4]}{rgb[0:2]}".lower()


def _number(value: float) -> str:
    text = f"{round(float(value), 7):.7f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def hiding_zone_ring(
    lon: float, lat: float, radius_m: float, vertices: int = DEFAULT_VERTICES
) -> list[tuple[float, float]]:
    """A closed, counter-clockwise geodesic circle around a point.

    Parameters
    ----------
    lon, lat : float
        The centre in WGS84 degrees.
    radius_m : float
        The radius in metres (> 0).
    vertices : int
        Distinct vertices (≥ 8).

    Returns
    -------
    list of (lon, lat)
        ``vertices + 1`` positions; the last repeats the first.

    Raises
    ------
    ValueError
        On a non-positive radius, too few vertices or non-finite coordinates.
    """
    if not (math.isfinite(radius_m) and radius_m > 0):
        raise ValueError(f"the hiding radius must be a positive number of metres, got {radius_m}")
    if vertices < 8:
        raise ValueError(f"a hiding-zone circle needs at least 8 vertices, got {vertices}")
    if not (math.isfinite(lon) and math.isfinite(lat)):
        raise ValueError("the station has non-finite coordinates")
    # Decreasing azimuths (north, west, south, east) run counter-clockwise on the map.
    azimuths = -np.arange(vertices) * (360.0 / vertices)
    lons, lats, _ = _GEOD.fwd(
        np.full(vertices, float(lon)),
        np.full(vertices, float(lat)),
        azimuths,
        np.full(vertices, float(radius_m)),
    )
    ring = [(float(x), float(y)) for x, y in zip(lons, lats, strict=True)]
    ring.append(ring[0])
    return ring


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _sub(parent: ET.Element, tag: str, text: str | None = None) -> ET.Element:
    element = ET.SubElement(parent, tag)
    if text is not None:
        element.text = text
    return element


def _zone_style() -> ET.Element:
    style = ET.Element("Style", {"id": ZONE_STYLE_ID})
    line = _sub(style, "LineStyle")
    _sub(line, "color", _kml_colour(ZONE_RGB, "ff"))
    _sub(line, "width", "1.5")
    poly = _sub(style, "PolyStyle")
    _sub(poly, "color", _kml_colour(ZONE_RGB, ZONE_FILL_ALPHA))
    _sub(poly, "fill", "1")
    _sub(poly, "outline", "1")
    return style


def _station_name(props: dict[str, Any]) -> str:
    if props.get("name"):
        return str(props["name"])
    return f"Unnamed {str(props.get('category') or 'station').replace('_', ' ')}"


def add_hiding_zones(
    kml: str,
    stations: pd.DataFrame,
    radius_m: float = 402.0,
    *,
    vertices: int = DEFAULT_VERTICES,
) -> str:
    """Add a "Hiding zones" folder of geodesic circles to a station-map KML document.

    Parameters
    ----------
    kml : str
        A KML 2.2 document, as :func:`stations_generator.formats.kml.stations_kml`
        writes it.
    stations : geopandas.GeoDataFrame
        The stations the document shows (Point geometries, EPSG:4326).
    radius_m : float
        Hiding radius in metres (402 m S/M, 805 m L under the official rules).
    vertices : int
        Vertices per circle.

    Returns
    -------
    str
        The document with the ``hiding-zone`` style and the folder added, pretty-printed
        as ``stations_kml`` prints, with an XML declaration and a trailing newline.
        Zone Placemarks follow the stations' order (cluster, then id).

    Raises
    ------
    ValueError
        If ``kml`` is not a KML document, already has hiding zones, or a station /
        the radius is invalid.
    """
    root, document = _kml_document(kml)
    children = list(document)
    styles = [i for i, child in enumerate(children) if child.tag in ("Style", "StyleMap")]
    features = [i for i, child in enumerate(children) if child.tag in ("Folder", "Placemark")]
    at = styles[-1] + 1 if styles else (features[0] if features else len(children))
    document.insert(at, _zone_style())

    folder = _sub(document, "Folder")
    _sub(folder, "name", ZONE_FOLDER)
    _sub(
        folder,
        "description",
        f"Circle of {radius_m:g} m around every station (geodesic, WGS84)",
    )
    for record in station_records(stations):
        _zone_placemark(folder, record, radius_m, vertices)

    ET.indent(root, space="  ")
    body = ET.tostring(root, encoding="unicode", short_empty_elements=False)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _kml_document(kml: str) -> tuple[ET.Element, ET.Element]:
    """The parsed root (tags unprefixed, ``xmlns`` set) and its ``Document`` element."""
    try:
        root = ET.fromstring(kml.encode("utf-8"))
    except ET.ParseError as exc:
        raise ValueError(f"not an XML document: {exc}") from None
    if root.tag != f"{{{KML_NS}}}kml":
        raise ValueError(f"not a KML 2.2 document (root element {root.tag!r})")
    for element in root.iter():  # serialise as stations_kml does: unprefixed, xmlns on root
        element.tag = _local(element.tag)
    root.set("xmlns", KML_NS)
    document = root.find("Document")
    if document is None:
        raise ValueError("the KML document has no Document element")
    if document.find(f"Style[@id='{ZONE_STYLE_ID}']") is not None:
        raise ValueError("the KML document already has hiding zones")
    return root, document


def _zone_placemark(
    folder: ET.Element, record: StationRecord, radius_m: float, vertices: int
) -> None:
    """Append one station's hiding-zone Placemark (a one-ring Polygon) to ``folder``."""
    props = record.properties
    placemark = _sub(folder, "Placemark")
    name = _station_name(props)
    _sub(placemark, "name", f"Zone: {name}")
    cluster = props.get("cluster_id")
    where = f" (cluster {cluster})" if cluster is not None else ""
    _sub(placemark, "description", f"Hiding zone {radius_m:g} m around {name}{where}")
    _sub(placemark, "styleUrl", f"#{ZONE_STYLE_ID}")
    polygon = _sub(placemark, "Polygon")
    _sub(polygon, "tessellate", "1")
    ring = _sub(_sub(polygon, "outerBoundaryIs"), "LinearRing")
    positions = hiding_zone_ring(record.lon_raw, record.lat_raw, radius_m, vertices)
    text = [f"{_number(x)},{_number(y)},0" for x, y in positions[:-1]]
    text.append(text[0])  # closed exactly, after rounding
    _sub(ring, "coordinates", " ".join(text))


def stations_kml_with_zones(
    stations: pd.DataFrame,
    play_area: BaseGeometry | None,
    exclusions: Iterable[BaseGeometry] = (),
    *,
    name: str = "Stations",
    hiding_radius_m: float = 402.0,
    vertices: int = DEFAULT_VERTICES,
) -> str:
    """The station-map KML (:func:`~stations_generator.formats.kml.stations_kml`) with hiding zones.

    Parameters
    ----------
    stations : geopandas.GeoDataFrame
    play_area : shapely Polygon or MultiPolygon, or None
    exclusions : iterable of shapely Polygon or MultiPolygon
    name : str
        The document name.
    hiding_radius_m : float
        Radius of the zones in metres.
    vertices : int
        Vertices per circle.

    Returns
    -------
    str
        The KML document.
    """
    text = stations_kml(stations, play_area, exclusions, name=name)
    return add_hiding_zones(text, stations, hiding_radius_m, vertices=vertices)
