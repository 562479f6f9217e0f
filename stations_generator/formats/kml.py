"""KML 2.2 output for Google My Maps / Google Earth.

Layout::

    Document
      name, description (OSM attribution)
      Style cat-<category> ...      one per category, coloured pushpin
      Style play-area, exclusion    polygon styles
      Folder "Play area"            the play area Placemark
      Folder "Exclusions"           (only when there are exclusions)
      Folder "Cluster 1" ...        one Placemark per station

The text is deterministic (no timestamps, fixed ordering) and pretty-printed.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from stations_generator.formats.atomic import atomic_write_text
from stations_generator.formats.geojson import (
    ATTRIBUTION,
    STATION_PROPERTIES,
    StationRecord,
    polygon_rings,
    round_coord,
    station_records,
)

if TYPE_CHECKING:
    import pandas as pd

    from stations_generator.core.stationmap.pointtable import PointTable

__all__ = ["CATEGORY_COLOURS", "ICON_HREF", "KML_NS", "stations_kml", "write_kml"]

KML_NS = "http://www.opengis.net/kml/2.2"
ICON_HREF = "https://maps.google.com/mapfiles/kml/pushpin/wht-pushpin.png"
"""Google's standard white pushpin; IconStyle ``color`` tints it per category."""

OSM_BASE_URL = "https://www.openstreetmap.org"

CATEGORY_COLOURS: dict[str, str] = {
    # transit
    "bus_station": "1565c0",
    "train_station": "0d47a1",
    "tram_stop": "1976d2",
    "subway_station": "283593",
    "ferry_terminal": "00838f",
    "cable_car_station": "00695c",
    # culture / leisure
    "museum": "6a1b9a",
    "attraction": "ad1457",
    "arcade": "c2185b",
    "park": "2e7d32",
    "nature_reserve": "1b5e20",
    "rest_area": "558b2f",
    # shops / services
    "gas_station": "e65100",
    "supermarket": "f9a825",
    "convenience_store": "fbc02d",
    "department_store": "ff8f00",
    "bookstore": "795548",
    # food / drink
    "cafe": "8d6e63",
    "restaurant": "d32f2f",
    "fast_food": "f4511e",
    "bar": "5d4037",
    "pub": "4e342e",
}
"""Fixed RGB colour (``rrggbb``) per known category."""

_FALLBACK_PALETTE: tuple[str, ...] = (
    "e53935", "8e24aa", "3949ab", "039be5", "00897b",
    "7cb342", "fdd835", "fb8c00", "6d4c41", "546e7a",
)  # fmt: skip
"""Colours for categories not in :data:`CATEGORY_COLOURS` (chosen by a stable hash)."""

_PLAY_AREA_RGB = "1565c0"
_EXCLUSION_RGB = "c62828"

# Characters XML 1.0 cannot carry at all (even escaped).
_XML_INVALID = "[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
_SLUG_INVALID = re.compile(r"[^A-Za-z0-9_.-]+")


def _text(value: Any) -> str:
    text = "" if value is None else str(value)
    # Printable text holds none of those characters (they are all control, surrogate or
    # noncharacter code points); the check is much cheaper than the substitution.
    # (re compiles the pattern on first use, 11 ms, and keeps it: not at import.)
    if text.isprintable() or ("\n" in text and text.replace("\n", "").isprintable()):
        return text  # (a station's description: printable lines)
    return re.sub(_XML_INVALID, "", text)


def _esc(value: Any) -> str:
    """Element text as ElementTree writes it (``&``, ``<``, ``>`` escaped)."""
    if type(value) is str and value.isprintable():  # most values: nothing to drop
        if "&" not in value and "<" not in value and ">" not in value:
            return value
    text = _text(value)
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _attr(value: str) -> str:
    """An attribute value as ElementTree writes it."""
    text = _text(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace('"', "&quot;").replace("\r", "&#13;").replace("\n", "&#10;")
    return text.replace("\t", "&#09;")


class _Lines:
    """Indented XML lines, written as ``ET.indent(space="  ")`` + ``ET.tostring`` would.

    Every element starts its own line at two spaces per level; a leaf holds its text
    inline (``<a></a>`` when empty); a container closes on its own line.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.level = 0

    def open(self, tag: str, attrs: str = "") -> None:
        self.lines.append(f"{'  ' * self.level}<{tag}{attrs}>")
        self.level += 1

    def close(self, tag: str) -> None:
        self.level -= 1
        self.lines.append(f"{'  ' * self.level}</{tag}>")

    def leaf(self, tag: str, text: Any = None, attrs: str = "") -> None:
        body = "" if text is None else _esc(text)
        self.lines.append(f"{'  ' * self.level}<{tag}{attrs}>{body}</{tag}>")


def _kml_colour(rgb: str, alpha: str = "ff") -> str:
    """``rrggbb`` -> KML's ``aabbggrr``."""
    return f"{alpha}{rgb[4:6]}{rgb[2:4]}{rgb[0:2]}".lower()


@functools.lru_cache(maxsize=256)
def _category_slug(category: str) -> str:
    return _SLUG_INVALID.sub("_", category) or "unknown"


def _category_rgb(category: str) -> str:
    if category in CATEGORY_COLOURS:
        return CATEGORY_COLOURS[category]
    index = zlib.crc32(category.encode("utf-8")) % len(_FALLBACK_PALETTE)
    return _FALLBACK_PALETTE[index]


def _number(value: float) -> str:
    return _rounded_number(round_coord(value))


def _rounded_number(value: float) -> str:
    """:func:`_number` of a value :func:`round_coord` has rounded already (a station
    record's lon and lat: rounding again changes nothing)."""
    text = f"{value:.7f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _ring_text(ring: list[list[float]]) -> str:
    return " ".join(f"{_number(lon)},{_number(lat)},0" for lon, lat in ring)


def _polygons(geometry: BaseGeometry) -> list[Polygon]:
    if isinstance(geometry, Polygon):
        return [] if geometry.is_empty else [geometry]
    if isinstance(geometry, MultiPolygon):
        return [p for p in geometry.geoms if not p.is_empty]
    raise TypeError(f"expected a Polygon or MultiPolygon, got {geometry.geom_type}")


def _add_polygon(out: _Lines, polygon: Polygon) -> None:
    rings = polygon_rings(polygon)
    out.open("Polygon")
    for boundary, ring in [("outerBoundaryIs", rings[0])] + [
        ("innerBoundaryIs", hole) for hole in rings[1:]
    ]:
        out.open(boundary)
        out.open("LinearRing")
        out.leaf("coordinates", _ring_text(ring))
        out.close("LinearRing")
        out.close(boundary)
    out.close("Polygon")


def _area_placemark(out: _Lines, name: str, style: str, geometry: BaseGeometry) -> bool:
    polygons = _polygons(geometry)
    if not polygons:
        return False
    out.open("Placemark")
    out.leaf("name", name)
    out.leaf("styleUrl", f"#{style}")
    if len(polygons) > 1:
        out.open("MultiGeometry")
    for polygon in polygons:
        _add_polygon(out, polygon)
    if len(polygons) > 1:
        out.close("MultiGeometry")
    out.close("Placemark")
    return True


def _area_style(out: _Lines, style_id: str, rgb: str) -> None:
    out.open("Style", f' id="{_attr(style_id)}"')
    out.open("LineStyle")
    out.leaf("color", _kml_colour(rgb))
    out.leaf("width", "2")
    out.close("LineStyle")
    out.open("PolyStyle")
    out.leaf("color", _kml_colour(rgb, "33"))
    out.close("PolyStyle")
    out.close("Style")


def _category_style(out: _Lines, category: str) -> None:
    out.open("Style", f' id="{_attr(f"cat-{_category_slug(category)}")}"')
    out.open("IconStyle")
    out.leaf("color", _kml_colour(_category_rgb(category)))
    out.leaf("scale", "1.1")
    out.open("Icon")
    out.leaf("href", ICON_HREF)
    out.close("Icon")
    out.leaf("hotSpot", None, ' x="20" y="2" xunits="pixels" yunits="pixels"')
    out.close("IconStyle")
    out.close("Style")


def _wait_text(props: dict[str, Any]) -> str:
    low, high = props.get("wait_min"), props.get("wait_max")
    if low is None and high is None:
        wait = "unknown"
    elif low is None or high is None or low == high:
        wait = f"{low if low is not None else high} min"
    else:
        wait = f"{low}–{high} min"
    details = []
    if props.get("density_tier"):
        details.append(str(props["density_tier"]))
    if props.get("nearby_count") is not None:
        details.append(f"{props['nearby_count']} nearby")
    return f"{wait} ({', '.join(details)})" if details else wait


def _osm_url(props: dict[str, Any]) -> str | None:
    osm_type, osm_id = props.get("osm_type"), props.get("osm_id")
    if osm_type and osm_id is not None:
        return f"{OSM_BASE_URL}/{osm_type}/{osm_id}"
    station_id = props.get("id")
    if station_id and "/" in station_id:
        return f"{OSM_BASE_URL}/{station_id}"
    return None


def _description(props: dict[str, Any]) -> str:
    category = str(props.get("category") or "unknown").replace("_", " ")
    text = (
        f"Category: {category}\n"
        f"Wait: {_wait_text(props)}\n"
        f"Open during play: {props.get('open_during_play') or 'unknown'}\n"
        f"Opening hours: {props.get('opening_hours') or 'not in OSM'}"
    )
    if props.get("routes"):  # a station from a GTFS feed (timetable stations)
        text += f"\nRoutes: {str(props['routes']).replace(';', ', ')}"
    url = _osm_url(props)
    return f"{text}\nOpenStreetMap: {url}" if url else text


def _placemark_name(props: dict[str, Any]) -> str:
    if props.get("name"):
        return str(props["name"])
    category = str(props.get("category") or "station").replace("_", " ")
    return f"Unnamed {category}"


_DATA_OPEN = {field: f'<Data name="{_attr(field)}">' for field in STATION_PROPERTIES}


@functools.cache
def _placemark_template(pad: str) -> str:
    """One station's Placemark at indent ``pad``, its texts as ``str.format`` fields (in
    order: name, description, style, each of :data:`STATION_PROPERTIES`, coordinates)."""
    lines = [
        f"{pad}<Placemark>",
        f"{pad}  <name>{{}}</name>",
        f"{pad}  <description>{{}}</description>",
        f"{pad}  <styleUrl>{{}}</styleUrl>",
        f"{pad}  <ExtendedData>",
    ]
    for field in STATION_PROPERTIES:
        opening = _DATA_OPEN[field].replace("{", "{{").replace("}", "}}")
        lines += [f"{pad}    {opening}", f"{pad}      <value>{{}}</value>", f"{pad}    </Data>"]
    lines += [
        f"{pad}  </ExtendedData>",
        f"{pad}  <Point>",
        f"{pad}    <coordinates>{{}}</coordinates>",
        f"{pad}  </Point>",
        f"{pad}</Placemark>",
    ]
    return "\n".join(lines)


_PLAIN_NUMBERS = (int, float, bool)  # their text never needs escaping


def _escaped(texts: list[str]) -> list[str]:
    """:func:`_esc` of each text; one test of them all when none needs a change (the
    common case: printable lines without ``&``, ``<`` or ``>``)."""
    joined = "".join(texts)
    if "&" not in joined and "<" not in joined and ">" not in joined:
        if joined.isprintable() or joined.replace("\n", "").isprintable():
            return texts
    return [_esc(text) for text in texts]


def _field_texts(values: list[Any]) -> list[str]:
    """The ExtendedData text of each value of one station property: nothing for None,
    numbers as ``str`` gives them, anything else escaped."""
    kinds = set(map(type, values))
    if kinds <= {str}:
        return _escaped(values)
    if kinds <= set(_PLAIN_NUMBERS):
        return list(map(str, values))
    return [
        "" if value is None
        else str(value) if type(value) in _PLAIN_NUMBERS
        else _esc(value)
        for value in values
    ]  # fmt: skip


def _station_placemarks(pad: str, records: list[StationRecord]) -> list[str]:
    """Each station's Placemark text at indent ``pad``, made column by column (each
    property's texts escaped together: one test for a column that needs nothing)."""
    props = [record.properties for record in records]
    fields = [_field_texts([p.get(field) for p in props]) for field in STATION_PROPERTIES]
    names = _escaped([_placemark_name(p) for p in props])
    descriptions = _escaped([_description(p) for p in props])
    # (a slug is letters, digits, "_", "." and "-")
    styles = [f"#cat-{_category_slug(str(p.get('category') or ''))}" for p in props]
    points = [f"{_rounded_number(r.lon)},{_rounded_number(r.lat)}" for r in records]
    template = _placemark_template(pad)
    return [
        template.format(*texts)
        for texts in zip(names, descriptions, styles, *fields, points, strict=True)
    ]


def _cluster_label(cluster: Any) -> str:
    return "Unclustered" if cluster is None else f"Cluster {cluster}"


def stations_kml(
    stations: pd.DataFrame | PointTable,
    play_area: BaseGeometry | None,
    exclusions: Iterable[BaseGeometry] = (),
    *,
    name: str = "Stations",
    records: list[StationRecord] | None = None,
    attribution: str | None = None,
) -> str:
    """Render the station map as a KML 2.2 document Google My Maps can import.

    Parameters
    ----------
    stations : geopandas.GeoDataFrame or PointTable
        The stations (EPSG:4326, Point geometries).
    records : list of StationRecord, optional
        :func:`~stations_generator.formats.geojson.station_records` of ``stations``
        when the caller already has them (one conversion for every output file);
        ``stations`` is then not read.
    play_area : shapely Polygon or MultiPolygon, or None
        The play area in WGS84 (holes allowed). ``None`` leaves the "Play area"
        folder empty.
    exclusions : iterable of shapely Polygon or MultiPolygon
        Excluded areas; written to an "Exclusions" folder when there are any.
    name : str
        The document name shown by the map application.
    attribution : str, optional
        The document's description, the data's credit [default: ``Map data`` and the
        OpenStreetMap credit, :data:`~stations_generator.formats.geojson.ATTRIBUTION`].

    Returns
    -------
    str
        UTF-8-ready XML text with an XML declaration and a trailing newline.
        Station Placemarks carry a name, a plain-text description (category,
        wait range, open during play, opening hours, OSM link), a ``styleUrl``
        ``#cat-<category>``, ``ExtendedData`` with the GeoJSON station
        properties, and a ``lon,lat`` Point.

    Raises
    ------
    ValueError
        If a station geometry is not a Point.
    TypeError
        If an area is not a Polygon or MultiPolygon.
    """
    if records is None:
        records = station_records(stations)
    out = _Lines()
    out.open("kml", f' xmlns="{_attr(KML_NS)}"')
    out.open("Document")
    out.leaf("name", name)
    out.leaf("description", f"Map data {ATTRIBUTION}" if attribution is None else attribution)
    _document_styles(out, records)
    _area_folders(out, play_area, exclusions)
    _cluster_folders(out, records)
    out.close("Document")
    out.close("kml")
    # One join (the text of a large map is tens of MB: each concatenation copies it all).
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>', *out.lines, ""])


def _document_styles(out: _Lines, records: list[StationRecord]) -> None:
    """One pushpin style per category slug (sorted), then the two area styles."""
    categories = sorted({str(r.properties.get("category") or "") for r in records})
    seen_slugs: set[str] = set()
    for category in categories:
        slug = _category_slug(category)
        if slug not in seen_slugs:
            seen_slugs.add(slug)
            _category_style(out, category)
    _area_style(out, "play-area", _PLAY_AREA_RGB)
    _area_style(out, "exclusion", _EXCLUSION_RGB)


def _area_folders(
    out: _Lines, play_area: BaseGeometry | None, exclusions: Iterable[BaseGeometry]
) -> None:
    """The "Play area" folder, then "Exclusions" when any exclusion is not empty."""
    out.open("Folder")
    out.leaf("name", "Play area")
    if play_area is not None and not _area_placemark(out, "Play area", "play-area", play_area):
        raise ValueError("the play area is empty")
    out.close("Folder")

    exclusion_out = _Lines()
    exclusion_out.level = out.level + 1
    number = 0
    for exclusion in exclusions:
        if _area_placemark(exclusion_out, f"Exclusion {number + 1}", "exclusion", exclusion):
            number += 1
    if number:
        out.open("Folder")
        out.leaf("name", "Exclusions")
        out.lines.extend(exclusion_out.lines)
        out.close("Folder")


def _cluster_folders(out: _Lines, records: list[StationRecord]) -> None:
    """One folder of station Placemarks per cluster."""
    # Records are ordered by (cluster_id, id): each cluster's stations are contiguous.
    # The old tree writer appended a station to its cluster's folder wherever it came,
    # so group by first appearance to keep that order in every case.
    texts = _station_placemarks("  " * (out.level + 1), records)  # (inside a Folder)
    groups: dict[Any, list[str]] = {}
    for record, text in zip(records, texts, strict=True):
        groups.setdefault(record.properties.get("cluster_id"), []).append(text)
    for cluster, members in groups.items():
        out.open("Folder")
        out.leaf("name", _cluster_label(cluster))
        out.lines.extend(members)
        out.close("Folder")


def write_kml(path: Path, text: str) -> None:
    """Write KML text (from :func:`stations_kml`) to ``path`` atomically as UTF-8.

    Parameters
    ----------
    path : Path
        Destination file (parent directories are created).
    text : str
        The KML document.
    """
    atomic_write_text(Path(path), text)
