"""An interactive HTML map of the station map (Folium / Leaflet), offline-capable.

What the page shows
-------------------
* the play area outline and the exclusions;
* one pin per station: the pin's fill is its category (legend bottom left), its
  outline the colour of its cluster (neighbouring clusters get different colours);
  a click opens a popup with the name, category, wait range and tier
  (``Wait 10–30 min (moderate)``), opening hours and a link to the OSM object;
* toggleable layers (Leaflet layer control, top right): hiding zones (a circle of the
  hiding radius around every station, in its cluster's colour), the spacing rings
  (300 m within a cluster) and the gap rings (1000 m between clusters), and — when
  candidates are given — the rejected candidates with the reason each was rejected;
* OSM attribution; the view fits the play area.

Large maps stay responsive: vector shapes (areas, circles, rejected candidates) are
drawn on one canvas (``prefer_canvas``), and past :data:`CLUSTER_MARKERS_ABOVE`
stations the pins go into a marker-cluster layer (``folium.plugins.MarkerCluster``).
The stations travel as one JSON array that a short script turns into Leaflet layers,
so the page grows by a few hundred bytes per station instead of one Folium element
(and one random id) per marker, circle and popup.

Offline use
-----------
The page carries its own Leaflet (and, when clustering, Leaflet.markercluster) as
inline ``<script>`` / ``<style>`` elements, from the files vendored in
``stations_generator/data/vendor/`` (their licences are there). Folium's CDN links
(Leaflet, jQuery, Bootstrap, Font Awesome) are removed: nothing on the page needs
jQuery or Bootstrap. **Only the map tiles load from the network**
(``https://tile.openstreetmap.org/{z}/{x}/{y}.png``); without a connection the page
works on a blank background. Links inside popups and the attribution point to
openstreetmap.org but load nothing until clicked.

Deterministic output
--------------------
Folium names every element ``<kind>_<32 random hex digits>`` (from ``os.urandom``).
:func:`render_station_map` renumbers those ids in order of first appearance
(``map_sg1``, ``feature_group_sg2``, …) after rendering, so the same input gives a
byte-identical file. Only tokens of that exact shape (a word ending in ``_`` followed by
exactly 32 lowercase hex digits) are rewritten, and consistently, so references between
elements stay intact.
"""

from __future__ import annotations

import base64
import html
import json
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import folium
import geopandas as gpd
import numpy as np
import pandas as pd
from branca.element import Element, Figure, MacroElement
from folium.plugins import MarkerCluster
from folium.template import Template
from shapely.geometry import MultiPolygon, Point, Polygon, shape
from shapely.geometry.base import BaseGeometry

from stations_generator.errors import InputError
from stations_generator.formats.atomic import atomic_write_text
from stations_generator.formats.geojson import (
    ATTRIBUTION,
    STATION_PROPERTIES,
    polygon_rings,
    station_records,
)
from stations_generator.formats.kml import CATEGORY_COLOURS

__all__ = [
    "CLUSTER_COLOURS",
    "CLUSTER_MARKERS_ABOVE",
    "LEGEND_ID",
    "REASON_COLOURS",
    "TILES_URL",
    "add_area",
    "cluster_colours",
    "offline_map",
    "read_candidates_file",
    "read_station_file",
    "read_station_metadata",
    "render_station_map",
    "station_map",
    "wait_text",
    "write_station_map",
]

TILES_URL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
"""The only resource the page loads from the network."""

TILES_ATTRIBUTION = (
    '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> '
    "contributors, ODbL 1.0"
)

CLUSTER_MARKERS_ABOVE = 300
"""Past this many stations the pins are clustered (Leaflet.markercluster)."""

LEGEND_ID = "sg-legend"
"""``id`` (and class) of the legend element, for tests and custom CSS."""

PIN_CLASS = "sg-pin"
"""CSS class of every station pin (a Leaflet ``divIcon``)."""

CLUSTER_COLOURS: tuple[str, ...] = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#393b79", "#637939", "#7f7f7f",
)  # fmt: skip
"""Cluster outline / hiding-zone colours; neighbouring clusters get different ones."""

REASON_COLOURS: dict[str, str] = {
    "gap": "#e53935",
    "spacing": "#fb8c00",
    "duplicate": "#8e24aa",
    "cluster_cap": "#3949ab",
    "excluded": "#212121",
}
"""Colour of a rejected candidate by rejection reason (others: grey)."""

_REASON_TEXT = {
    "gap": "closer than {gap:g} m to another cluster, or beyond the reach of the nearby one",
    "spacing": "closer than {spacing:g} m to a station of its cluster",
    "duplicate": "same site as another candidate",
    "cluster_cap": "its cluster was full",
    "excluded": "inside an exclusion",
}

_FALLBACK_COLOURS: tuple[str, ...] = (
    "e53935", "8e24aa", "3949ab", "039be5", "00897b",
    "7cb342", "fdd835", "fb8c00", "6d4c41", "546e7a",
)  # fmt: skip

_NEIGHBOUR_FACTOR = 3.0  # clusters whose centres lie within 3 × the gap are neighbours
_OSM = "https://www.openstreetmap.org"
_VENDOR = "data/vendor"
_LEAFLET_ASSETS = ("leaflet/leaflet.css", "leaflet/leaflet.js")
_CLUSTER_ASSETS = (
    "leaflet.markercluster/MarkerCluster.css",
    "leaflet.markercluster/MarkerCluster.Default.css",
    "leaflet.markercluster/leaflet.markercluster.js",
)
# Folium's CDN resources by the names its classes give them: the ones the station
# map replaces with inline copies, and the ones it does not need at all.
_INLINED_CDN = {
    "leaflet",
    "leaflet_css",
    "markerclusterjs",
    "markerclustercss",
    "markerclusterdefaultcss",
}
_UNNEEDED_CDN = {
    "jquery",
    "bootstrap",
    "bootstrap_css",
    "glyphicons_css",
    "awesome_markers",
    "awesome_markers_css",
    "awesome_markers_font_css",
    "awesome_rotate_css",
}
_FOLIUM_ID = re.compile(r"(?<=[a-z0-9]_)[0-9a-f]{32}(?![0-9A-Za-z])")
_ASSET_PLACEHOLDER = re.compile(r"<!--sg-inline:([A-Za-z0-9_./-]+)-->")
_CSS_URL = re.compile(r"url\((images/[A-Za-z0-9_.-]+\.png)\)")
_SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")
_NETWORK_LOAD = re.compile(
    r"<script[^>]*\ssrc=|<link[^>]*\shref=|@import|url\(\s*['\"]?(?:https?:)?//", re.IGNORECASE
)


# --------------------------------------------------------------------------- values


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _category_hex(category: str) -> str:
    rgb = CATEGORY_COLOURS.get(category)
    if rgb is None:
        rgb = _FALLBACK_COLOURS[zlib.crc32(category.encode("utf-8")) % len(_FALLBACK_COLOURS)]
    return f"#{rgb}"


@lru_cache(maxsize=1)
def _catalogue_labels() -> dict[str, str]:
    from stations_generator.core.catalogue import load_catalogue

    return {c.name: c.label for c in load_catalogue()}


def _category_label(category: str) -> str:
    if not category:
        return "Unknown"
    return _catalogue_labels().get(category) or category.replace("_", " ").capitalize()


def wait_text(wait_min: Any, wait_max: Any, tier: Any) -> str:
    """The wait line of a popup, e.g. ``"Wait 10–30 min (moderate)"``.

    Parameters
    ----------
    wait_min, wait_max : int or None
        The wait range in minutes.
    tier : str or None
        The density tier's name.

    Returns
    -------
    str
    """
    if wait_min is None and wait_max is None:
        text = "Wait unknown"
    elif wait_min is None or wait_max is None or wait_min == wait_max:
        text = f"Wait {wait_min if wait_min is not None else wait_max} min"
    else:
        text = f"Wait {wait_min}–{wait_max} min"
    return f"{text} ({tier})" if tier else text


def _osm_key(props: Mapping[str, Any]) -> str:
    """``"node/123"`` for an OSM object, ``""`` when the record has no OSM identity."""
    osm_type, osm_id = props.get("osm_type"), props.get("osm_id")
    key = f"{osm_type}/{osm_id}" if osm_type and osm_id is not None else _text(props.get("id"))
    return key if "/" in key else ""


def _display_name(props: Mapping[str, Any]) -> str:
    name = _text(props.get("name")).strip()
    return name or f"Unnamed {_category_label(_text(props.get('category'))).lower()}"


def station_popup_lines(props: Mapping[str, Any]) -> list[str]:
    """The plain-text lines of a station's popup below its name.

    Parameters
    ----------
    props : mapping
        Station properties (``category``, ``cluster_id``, ``wait_min``,
        ``wait_max``, ``density_tier``, ``open_during_play``, ``opening_hours``).

    Returns
    -------
    list of str
        E.g. ``["Museum · cluster 3", "Wait 10–30 min (moderate)",
        "Open during play: yes", "Hours: Tu-Su 10:00-17:00"]``. The page adds the
        name above them and the OpenStreetMap link below.
    """
    category = _category_label(_text(props.get("category")))
    cluster = props.get("cluster_id")
    lines = [
        category + (f" · cluster {cluster}" if cluster is not None else ""),
        wait_text(props.get("wait_min"), props.get("wait_max"), props.get("density_tier")),
    ]
    if props.get("open_during_play"):
        lines.append(f"Open during play: {_text(props['open_during_play'])}")
    if props.get("opening_hours"):
        lines.append(f"Hours: {_text(props['opening_hours'])}")
    return lines


def _reason_text(reason: str, min_spacing_m: float, gap_m: float) -> str:
    why = _REASON_TEXT.get(reason, "")
    why = why.format(gap=gap_m, spacing=min_spacing_m)
    return f"Rejected: {reason}" + (f" — {why}" if why else "")


def _script_json(value: Any) -> str:
    """JSON that is safe inside an HTML ``<script>`` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escape in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


# --------------------------------------------------------------------------- colours


def cluster_colours(
    stations: pd.DataFrame, *, neighbour_distance_m: float = 3000.0
) -> dict[int, str]:
    """A colour per cluster such that neighbouring clusters differ where possible.

    Clusters are coloured greedily in ``cluster_id`` order with
    :data:`CLUSTER_COLOURS`: each takes the first colour no neighbouring cluster
    (centre within ``neighbour_distance_m``) already has, else the one its
    neighbours use least.

    Parameters
    ----------
    stations : geopandas.GeoDataFrame
        Stations with a ``cluster_id`` column and Point geometries (EPSG:4326).
    neighbour_distance_m : float
        Distance between cluster centres below which two clusters are neighbours.

    Returns
    -------
    dict of int to str
        ``cluster_id`` -> ``"#rrggbb"``. Empty when there are no stations.
    """
    if len(stations) == 0 or "cluster_id" not in stations.columns:
        return {}
    frame = stations.to_crs(4326) if stations.crs and stations.crs.to_epsg() != 4326 else stations
    table = pd.DataFrame(
        {
            "cluster": pd.to_numeric(frame["cluster_id"], errors="coerce").fillna(-1).astype(int),
            "lon": frame.geometry.x.to_numpy(),
            "lat": frame.geometry.y.to_numpy(),
        }
    )
    centres = table.groupby("cluster", sort=True)[["lon", "lat"]].mean()
    ids = centres.index.to_numpy()
    lon = centres["lon"].to_numpy()
    lat = centres["lat"].to_numpy()
    scale = np.cos(np.radians(lat.mean()))
    x = lon * 111_320.0 * scale
    y = lat * 110_574.0
    colours: dict[int, str] = {}
    palette = CLUSTER_COLOURS
    for i, cluster in enumerate(ids):
        near = np.hypot(x[:i] - x[i], y[:i] - y[i]) < neighbour_distance_m
        used = [colours[int(c)] for c in ids[:i][near]]
        free = [c for c in palette if c not in used]
        colours[int(cluster)] = free[0] if free else min(palette, key=used.count)
    return colours


# --------------------------------------------------------------------------- map elements


class _InlineAssets(MacroElement):
    """Placeholders in ``<head>`` that :func:`render_station_map` fills with vendored files."""

    _template = Template(
        """
        {% macro header(this, kwargs) %}
        {%- for asset in this.assets %}
        <!--sg-inline:{{ asset }}-->
        {%- endfor %}
        {% endmacro %}
        """
    )

    def __init__(self, assets: Sequence[str]):
        super().__init__()
        self._name = "InlineAssets"
        self.assets = list(assets)


class StyledBlock(MacroElement):
    """A block of HTML in the page's body, with its ``<style>`` element in the head.

    Parameters
    ----------
    name : str
        The element's name in the page.
    style : str
        The ``<style>...</style>`` element (its text goes into the page as it is).
    body : str
        The HTML.
    """

    def __init__(self, name: str, style: str, body: str):
        super().__init__()
        self._name = name
        self.body = body
        self._template = Template(
            "\n        {% macro header(this, kwargs) %}\n" + style + "        {% endmacro %}\n"
            "        {% macro html(this, kwargs) %}\n"
            "        {{ this.body }}\n"
            "        {% endmacro %}\n        "
        )


# The fixed legend box and the pin / popup styles.
_LEGEND_STYLE = """        <style>
        .sg-pin span { display: block; box-sizing: border-box; width: 20px; height: 20px;
            border: 4px solid; border-radius: 50% 50% 50% 0; transform: rotate(-45deg);
            box-shadow: 0 1px 3px rgba(0, 0, 0, 0.55); }
        .sg-popup { font: 13px/1.45 system-ui, sans-serif; }
        .sg-legend { position: fixed; left: 10px; bottom: 38px; z-index: 1000;
            max-height: 55vh; overflow-y: auto; min-width: 170px; padding: 8px 10px;
            background: rgba(255, 255, 255, 0.94); border-radius: 6px;
            box-shadow: 0 1px 5px rgba(0, 0, 0, 0.4); font: 12px/1.4 system-ui, sans-serif; }
        .sg-legend summary { margin: 0 0 4px; font-weight: bold; font-size: 13px;
            cursor: pointer; }
        .sg-legend ul { list-style: none; margin: 0 0 6px; padding: 0; }
        .sg-legend li { margin: 1px 0; white-space: nowrap; }
        .sg-legend .sg-swatch { display: inline-block; width: 10px; height: 10px;
            margin-right: 6px; border-radius: 50% 50% 50% 0; transform: rotate(-45deg);
            vertical-align: -1px; }
        .sg-legend .sg-dot { display: inline-block; width: 9px; height: 9px; margin-right: 6px;
            border-radius: 50%; vertical-align: -1px; }
        .sg-legend .sg-count { color: #555; }
        .sg-legend p { margin: 2px 0; color: #333; }
        </style>
"""


class _StationLayers(MacroElement):
    """Builds the station pins, circles and rejected candidates from one JSON payload."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        (function () {
            var data = {{ this.payload }};
            var pins = {{ this.pins.get_name() }};
            var zones = {{ this.zones.get_name() }};
            var spacing = {{ this.spacing.get_name() }};
            var gap = {{ this.gap.get_name() }};
            var rejected = {% if this.rejected %}{{ this.rejected.get_name() }}{% else %}null{% endif %};
            function popup(className, name, lines, osm) {
                var box = document.createElement("div");
                box.className = className;
                var title = document.createElement("b");
                title.textContent = name;
                box.appendChild(title);
                lines.forEach(function (text) {
                    if (!text) { return; }
                    var line = document.createElement("div");
                    line.textContent = text;
                    box.appendChild(line);
                });
                if (osm) {
                    var link = document.createElement("a");
                    link.href = "{{ this.osm_base }}/" + osm;
                    link.target = "_blank";
                    link.rel = "noopener";
                    link.textContent = "OpenStreetMap " + osm;
                    box.appendChild(link);
                }
                return box;
            }
            var markers = [];
            data.stations.forEach(function (s) {
                var fill = data.categories[s.k].colour;
                var ring = data.clusters[s.c];
                var icon = L.divIcon({
                    className: "{{ this.pin_class }}",
                    html: '<span style="background:' + fill + ';border-color:' + ring + '"></span>',
                    iconSize: [20, 20],
                    iconAnchor: [10, 24],
                    popupAnchor: [0, -22]
                });
                var marker = L.marker([s.lat, s.lon], {icon: icon, title: s.name, alt: s.name});
                marker.bindPopup(function () {
                    return popup("sg-popup", s.name, s.lines, s.osm);
                }, {maxWidth: 320});
                markers.push(marker);
                L.circle([s.lat, s.lon], {radius: data.hidingRadius, color: ring, weight: 1,
                    fillColor: ring, fillOpacity: 0.12, interactive: false}).addTo(zones);
                L.circle([s.lat, s.lon], {radius: data.minSpacing, color: ring, weight: 1.5,
                    dashArray: "4 4", fill: false, interactive: false}).addTo(spacing);
                L.circle([s.lat, s.lon], {radius: data.clusterGap, color: "#555555", weight: 1,
                    dashArray: "2 6", fill: false, interactive: false}).addTo(gap);
            });
            if (pins.addLayers) {
                pins.addLayers(markers);
            } else {
                markers.forEach(function (m) { pins.addLayer(m); });
            }
            if (rejected) {
                data.rejected.forEach(function (r) {
                    var reason = data.reasons[r.r];
                    L.circleMarker([r.lat, r.lon], {radius: 4, color: reason.colour, weight: 1,
                        fillColor: reason.colour, fillOpacity: 0.75})
                        .bindPopup(function () {
                            return popup("sg-popup sg-rejected", r.name,
                                [data.categories[r.k].label, reason.text, r.conflict], r.osm);
                        }, {maxWidth: 320})
                        .addTo(rejected);
                });
            }
            window.stationMap = {
                map: {{ this._parent.get_name() }},
                stations: pins,
                markers: markers,
                stationCount: data.stations.length,
                rejectedCount: data.rejected.length
            };
        })();
        {% endmacro %}
        """
    )

    def __init__(
        self,
        payload: str,
        pins: Element,
        zones: Element,
        spacing: Element,
        gap: Element,
        rejected: Element | None,
    ):
        super().__init__()
        self._name = "StationLayers"
        self.payload = payload
        self.pins = pins
        self.zones = zones
        self.spacing = spacing
        self.gap = gap
        self.rejected = rejected
        self.pin_class = PIN_CLASS
        self.osm_base = _OSM


# --------------------------------------------------------------------------- building


def _polygons(geometry: BaseGeometry) -> list[Polygon]:
    if isinstance(geometry, Polygon):
        return [] if geometry.is_empty else [geometry]
    if isinstance(geometry, MultiPolygon):
        return [p for p in geometry.geoms if not p.is_empty]
    raise TypeError(f"expected a Polygon or MultiPolygon, got {geometry.geom_type}")


def _area_feature(geometry: BaseGeometry, name: str) -> dict[str, Any] | None:
    polygons = _polygons(geometry)
    if not polygons:
        return None
    return {
        "type": "Feature",
        "properties": {"name": name},
        "geometry": {
            "type": "MultiPolygon",
            "coordinates": [polygon_rings(p) for p in polygons],
        },
    }


def _area_style(colour: str, fill_opacity: float, dash: str | None = None):
    style: dict[str, Any] = {
        "color": colour,
        "weight": 3,
        "fillColor": colour,
        "fillOpacity": fill_opacity,
    }
    if dash:
        style["dashArray"] = dash

    def styler(_feature: Any) -> dict[str, Any]:
        return style

    return styler


def _legend_html(
    counts: list[tuple[str, str, int]],
    n_stations: int,
    n_clusters: int,
    hiding_radius_m: float,
    min_spacing_m: float,
    cluster_gap_m: float,
    rejected: Mapping[str, int] | None,
) -> str:
    plural = "" if n_stations == 1 else "s"
    cluster_plural = "" if n_clusters == 1 else "s"
    parts = [
        f'<div id="{LEGEND_ID}" class="{LEGEND_ID}"><details open>',
        f"<summary>{n_stations} station{plural} · {n_clusters} cluster{cluster_plural}</summary>",
        '<ul class="sg-legend-categories">',
    ]
    for category, colour, count in counts:
        parts.append(
            f'<li data-category="{html.escape(category, quote=True)}">'
            f'<span class="sg-swatch" style="background:{colour}"></span>'
            f'{html.escape(_category_label(category))} <span class="sg-count">{count}</span></li>'
        )
    parts.append("</ul>")
    parts.append("<p>Pin fill: category · pin outline: cluster</p>")
    parts.append(f"<p>Hiding zone: {hiding_radius_m:g} m around each station</p>")
    parts.append(
        f"<p>Rule: ≥ {min_spacing_m:g} m within a cluster, ≥ {cluster_gap_m:g} m between</p>"
    )
    if rejected:
        parts.append('<ul class="sg-legend-rejected">')
        for reason, count in sorted(rejected.items(), key=lambda kv: (-kv[1], kv[0])):
            colour = REASON_COLOURS.get(reason, "#9e9e9e")
            parts.append(
                f'<li data-reason="{html.escape(reason, quote=True)}">'
                f'<span class="sg-dot" style="background:{colour}"></span>'
                f'rejected: {html.escape(reason)} <span class="sg-count">{count}</span></li>'
            )
        parts.append("</ul>")
    parts.append(f"<p>Map data {html.escape(ATTRIBUTION)}</p>")
    parts.append("</details></div>")
    return "".join(parts)


def _bounds(
    play_area: BaseGeometry | None, lons: Sequence[float], lats: Sequence[float]
) -> list[list[float]]:
    if play_area is not None and not play_area.is_empty:
        west, south, east, north = play_area.bounds
    elif len(lons):
        west, east, south, north = min(lons), max(lons), min(lats), max(lats)
    else:
        raise ValueError("nothing to show: no play area and no stations")
    return [[float(south), float(west)], [float(north), float(east)]]


def offline_map(
    bounds: Sequence[Sequence[float]],
    *,
    title: str = "Map",
    marker_clusters: bool = False,
    height: str = "100%",
) -> folium.Map:
    """An empty map with OSM tiles and attribution whose page works offline.

    The building block of :func:`station_map` (and of other pages of the project):
    add layers, then render with :func:`render_station_map`, which inlines the
    vendored Leaflet.

    Parameters
    ----------
    bounds : [[south, west], [north, east]]
        Initial centre (the view is not fitted: call ``fit_bounds`` when done).
    title : str
        The page title.
    marker_clusters : bool
        Also inline Leaflet.markercluster (for ``folium.plugins.MarkerCluster``).
    height : str
        CSS height of the map in the page.

    Returns
    -------
    folium.Map
        Canvas rendering (``prefer_canvas``), a scale bar, no layer control yet.
    """
    (south, west), (north, east) = bounds
    figure = Figure(title=title)
    m = folium.Map(
        location=[(south + north) / 2, (west + east) / 2],
        zoom_start=12,
        tiles=None,
        prefer_canvas=True,
        control_scale=True,
        height=height,
    )
    figure.add_child(m)
    _InlineAssets(_LEAFLET_ASSETS + (_CLUSTER_ASSETS if marker_clusters else ())).add_to(m)
    folium.TileLayer(
        tiles=TILES_URL,
        attr=TILES_ATTRIBUTION,
        name="OpenStreetMap",
        max_zoom=19,
        control=False,
    ).add_to(m)
    return m


def add_area(
    m: folium.Map,
    areas: Sequence[BaseGeometry],
    name: str,
    *,
    colour: str = "#1565c0",
    fill_opacity: float = 0.04,
    dash: str | None = None,
    show: bool = True,
) -> None:
    """Draw (multi)polygons as one non-interactive, toggleable GeoJSON layer.

    Parameters
    ----------
    m : folium.Map
    areas : sequence of shapely Polygon or MultiPolygon (WGS84)
        Empty ones are skipped; nothing is drawn when all are empty.
    name : str
        The layer's name in the layer control.
    colour, fill_opacity, dash : outline / fill style
    show : bool
        Whether the layer is on when the page opens.
    """
    features = [_area_feature(a, name) for a in areas]
    features = [f for f in features if f is not None]
    if not features:
        return
    folium.GeoJson(
        {"type": "FeatureCollection", "features": features},
        name=name,
        style_function=_area_style(colour, fill_opacity, dash),
        interactive=False,
        show=show,
    ).add_to(m)


def station_map(
    stations: pd.DataFrame,
    play_area: BaseGeometry | None,
    exclusions: Iterable[BaseGeometry] = (),
    *,
    candidates: pd.DataFrame | None = None,
    hiding_radius_m: float = 402.0,
    min_spacing_m: float = 300.0,
    cluster_gap_m: float = 1000.0,
    cluster_markers_above: int = CLUSTER_MARKERS_ABOVE,
    title: str = "Stations",
) -> folium.Map:
    """Build the interactive station map.

    Parameters
    ----------
    stations : geopandas.GeoDataFrame
        The stations, as ``StationMap.stations`` or :func:`read_station_file` give
        them (the columns of ``STATION_COLUMNS``; Point geometries).
    play_area : shapely Polygon or MultiPolygon, or None
        The play area in WGS84.
    exclusions : iterable of shapely Polygon or MultiPolygon
        Excluded areas in WGS84.
    candidates : geopandas.GeoDataFrame, optional
        Every candidate with ``status``, ``reason`` and ``conflict_with`` (as
        ``StationMap.candidates`` or :func:`read_candidates_file`); the rejected
        ones are shown in their own layer with their reason.
    hiding_radius_m : float
        Radius of the hiding-zone circles.
    min_spacing_m, cluster_gap_m : float
        Radii of the spacing rings (within a cluster) and gap rings (between clusters).
    cluster_markers_above : int
        Cluster the pins (Leaflet.markercluster) when there are more stations than this.
    title : str
        The page title.

    Returns
    -------
    folium.Map
        Render it with :func:`render_station_map` (or write it with
        :func:`write_station_map`): that step inlines the vendored Leaflet and
        makes the HTML deterministic. ``Map.save`` would keep Folium's CDN links.

    Raises
    ------
    ValueError
        If a station geometry is not a Point, or there is neither a play area nor a
        station to show.
    TypeError
        If an area is not a Polygon or MultiPolygon.
    """
    records = station_records(stations)
    exclusions = [e for e in exclusions if e is not None and not e.is_empty]
    colours = cluster_colours(stations, neighbour_distance_m=_NEIGHBOUR_FACTOR * cluster_gap_m)
    lons = [r.lon for r in records]
    lats = [r.lat for r in records]
    bounds = _bounds(play_area, lons, lats)
    clustered = len(records) > cluster_markers_above

    m = offline_map(bounds, title=title, marker_clusters=clustered)

    if play_area is not None:
        if _area_feature(play_area, "Play area") is None:
            raise ValueError("the play area is empty")
        add_area(m, [play_area], "Play area")
    if exclusions:
        add_area(
            m,
            exclusions,
            f"Exclusions ({len(exclusions)})",
            colour="#c62828",
            fill_opacity=0.25,
            dash="6 4",
        )

    zones = folium.FeatureGroup(name=f"Hiding zones ({hiding_radius_m:g} m)", show=True)
    gap = folium.FeatureGroup(name=f"Gap rings ({cluster_gap_m:g} m, between clusters)", show=False)
    spacing = folium.FeatureGroup(
        name=f"Spacing rings ({min_spacing_m:g} m, within a cluster)", show=False
    )
    for group in (zones, gap, spacing):
        group.add_to(m)

    categories: list[str] = []
    category_index: dict[str, int] = {}

    def category_number(category: str) -> int:
        if category not in category_index:
            category_index[category] = len(categories)
            categories.append(category)
        return category_index[category]

    rejected_group = None
    rejected_rows: list[dict[str, Any]] = []
    rejected_counts: dict[str, int] = {}
    reasons: list[str] = []
    if candidates is not None:
        fields = (*STATION_PROPERTIES, "status", "reason", "conflict_with")
        cand_records = station_records(candidates, fields)
        names = {_text(r.properties.get("id")): _display_name(r.properties) for r in cand_records}
        for record in records:
            names.setdefault(_text(record.properties.get("id")), _display_name(record.properties))
        for record in cand_records:
            props = record.properties
            if props.get("status") != "rejected":
                continue
            reason = _text(props.get("reason")) or "unknown"
            if reason not in rejected_counts:
                reasons.append(reason)
                rejected_counts[reason] = 0
            rejected_counts[reason] += 1
            conflict = _text(props.get("conflict_with"))
            other = names.get(conflict)
            rejected_rows.append(
                {
                    "lat": record.lat,
                    "lon": record.lon,
                    "name": _display_name(props),
                    "k": category_number(_text(props.get("category"))),
                    "r": reasons.index(reason),
                    "conflict": (
                        f"Conflicts with {other} ({conflict})"
                        if other
                        else f"Conflicts with {conflict}"
                    )
                    if conflict
                    else "",
                    "osm": _osm_key(props),
                }
            )
        rejected_group = folium.FeatureGroup(
            name=f"Rejected candidates ({len(rejected_rows)})", show=False
        )
        rejected_group.add_to(m)

    if clustered:
        pins: Element = MarkerCluster(
            name=f"Stations ({len(records)})",
            options={"chunkedLoading": True, "maxClusterRadius": 40},
        )
    else:
        pins = folium.FeatureGroup(name=f"Stations ({len(records)})")
    pins.add_to(m)

    station_categories: dict[str, int] = {}
    cluster_list: list[str] = []
    cluster_index: dict[Any, int] = {}
    rows = []
    for record in records:
        props = record.properties
        category = _text(props.get("category"))
        station_categories[category] = station_categories.get(category, 0) + 1
        cluster = props.get("cluster_id")
        if cluster not in cluster_index:
            cluster_index[cluster] = len(cluster_list)
            cluster_list.append(colours.get(cluster, CLUSTER_COLOURS[-1]))
        rows.append(
            {
                "lat": record.lat,
                "lon": record.lon,
                "name": _display_name(props),
                "k": category_number(category),
                "c": cluster_index[cluster],
                "lines": station_popup_lines(props),
                "osm": _osm_key(props),
            }
        )
    payload = {
        "hidingRadius": float(hiding_radius_m),
        "minSpacing": float(min_spacing_m),
        "clusterGap": float(cluster_gap_m),
        "categories": [
            {"name": c, "label": _category_label(c), "colour": _category_hex(c)} for c in categories
        ],
        "clusters": cluster_list,
        "reasons": [
            {
                "name": r,
                "colour": REASON_COLOURS.get(r, "#9e9e9e"),
                "text": _reason_text(r, min_spacing_m, cluster_gap_m),
            }
            for r in reasons
        ],
        "stations": rows,
        "rejected": rejected_rows,
    }
    _StationLayers(_script_json(payload), pins, zones, spacing, gap, rejected_group).add_to(m)

    order = {name: i for i, name in enumerate(_catalogue_labels())}
    legend_counts = [
        (c, _category_hex(c), n)
        for c, n in sorted(
            station_categories.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])
        )
    ]
    n_clusters = len({r.properties.get("cluster_id") for r in records})
    StyledBlock(
        "Legend",
        _LEGEND_STYLE,
        _legend_html(
            legend_counts,
            len(records),
            n_clusters,
            hiding_radius_m,
            min_spacing_m,
            cluster_gap_m,
            rejected_counts if candidates is not None else None,
        ),
    ).add_to(m)
    folium.LayerControl(collapsed=False).add_to(m)
    m.fit_bounds(bounds, padding=(12, 12))
    return m


# --------------------------------------------------------------------------- rendering


def _elements(root: Element) -> Iterable[Element]:
    stack = [root]
    seen: set[int] = set()
    while stack:
        element = stack.pop()
        if id(element) in seen:
            continue
        seen.add(id(element))
        yield element
        stack.extend(reversed(list(element._children.values())))


def _drop_cdn_links(m: folium.Map) -> None:
    """Remove Folium's CDN links; the inline copies replace the ones the map needs."""
    for element in _elements(m.get_root()):
        for attribute in ("default_js", "default_css"):
            links = getattr(element, attribute, None)
            if not links:
                continue
            unknown = [name for name, _url in links if name not in _INLINED_CDN | _UNNEEDED_CDN]
            if unknown:
                raise RuntimeError(
                    f"{type(element).__name__} needs {unknown[0]!r}, which the offline map "
                    "does not vendor"
                )
            setattr(element, attribute, [])


@cache
def _asset(path: str) -> str:
    """A vendored file ready to inline: source-map comment dropped, images as data URIs."""
    base = resources.files("stations_generator").joinpath(_VENDOR)
    text = base.joinpath(path).read_text("utf-8")
    text = _SOURCE_MAP.sub("", text)
    if path.endswith(".css"):
        folder = base.joinpath(path.rsplit("/", 1)[0])

        def data_uri(match: re.Match[str]) -> str:
            data = folder.joinpath(match.group(1)).read_bytes()
            return "url(data:image/png;base64," + base64.b64encode(data).decode("ascii") + ")"

        text = _CSS_URL.sub(data_uri, text)
        return f"<style>\n{text}\n</style>"
    if "</script" in text.lower():  # would end the inline element early
        raise RuntimeError(f"vendored {path} contains '</script'; it cannot be inlined")
    return f"<script>\n{text}\n</script>"


def _normalise_ids(text: str) -> str:
    numbers: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        found = match.group(0)
        if found not in numbers:
            numbers[found] = f"sg{len(numbers) + 1}"
        return numbers[found]

    return _FOLIUM_ID.sub(renumber, text)


def render_station_map(m: folium.Map) -> str:
    """Render a map from :func:`station_map` as one self-contained, deterministic page.

    Folium's CDN links are dropped and the vendored Leaflet (and marker-cluster)
    files are inlined; Folium's random element ids are renumbered in order of
    first appearance, so the same input renders byte-identically.

    Parameters
    ----------
    m : folium.Map
        A map built by :func:`station_map`.

    Returns
    -------
    str
        The HTML page. It loads only map tiles from the network.

    Raises
    ------
    RuntimeError
        If some element still needs a resource from the network (a Folium feature
        whose JavaScript is not vendored).
    """
    _drop_cdn_links(m)
    page = _normalise_ids(m.get_root().render())
    leftover = _NETWORK_LOAD.search(page)
    if leftover:
        raise RuntimeError(f"the map would load {leftover.group(0)!r} from the network")
    page = "\n".join(line.rstrip() for line in page.splitlines()).strip("\n") + "\n"
    # Vendored files go in last and untouched (apart from what _asset documents).
    return _ASSET_PLACEHOLDER.sub(lambda match: _asset(match.group(1)), page)


def write_station_map(path: Path, m: folium.Map) -> None:
    """Render ``m`` (:func:`render_station_map`) and write it to ``path`` atomically.

    Parameters
    ----------
    path : Path
        The HTML file (parent directories are created).
    m : folium.Map
        A map built by :func:`station_map`.
    """
    atomic_write_text(Path(path), render_station_map(m))


# --------------------------------------------------------------------------- reading


def _load_feature_collection(path: Path, what: str, hint: str) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise InputError(
            f"{what} file {str(path)!r} does not exist; {hint}"
            if not path.exists()
            else f"{what} file {str(path)!r} is a folder, not a file; {hint}"
        )
    from stations_generator.formats import jsonio

    data = jsonio.read_json_file(path, "JSON", label=repr(str(path)), hint=hint, fix=hint)
    if not isinstance(data, dict) or data.get("type") != "FeatureCollection":
        raise InputError(f"{str(path)!r} is not a GeoJSON FeatureCollection; {hint}")
    features = data.get("features")
    if not isinstance(features, list):
        raise InputError(f"{str(path)!r} has no features array; {hint}")
    return data


def _role(feature: Any) -> str | None:
    if not isinstance(feature, dict):
        return None
    props = feature.get("properties")
    return props.get("role") if isinstance(props, dict) else None


def _geometry(feature: dict[str, Any], path: Path, index: int) -> BaseGeometry:
    try:
        geometry = shape(feature["geometry"])
    except Exception as exc:  # shapely raises several kinds for malformed geometry
        raise InputError(
            f"{str(path)!r}: feature {index} has an unreadable geometry ({exc})"
        ) from None
    if geometry.is_empty:
        raise InputError(f"{str(path)!r}: feature {index} has an empty geometry")
    return geometry


def _points_frame(
    rows: list[dict[str, Any]], points: list[BaseGeometry], fields: Sequence[str]
) -> gpd.GeoDataFrame:
    columns = {f: [row.get(f) for row in rows] for f in fields}
    return gpd.GeoDataFrame(columns, geometry=list(points), crs="EPSG:4326")


_STATIONS_HINT = "give the stations.geojson that `stations-generator generate` wrote"
_CANDIDATES_HINT = "give the candidates.geojson that `stations-generator generate --explain` wrote"


def read_station_file(
    path: Path,
) -> tuple[gpd.GeoDataFrame, BaseGeometry | None, list[BaseGeometry]]:
    """Read a ``stations.geojson`` written by ``stations-generator generate``.

    Parameters
    ----------
    path : Path
        The file.

    Returns
    -------
    stations : geopandas.GeoDataFrame
        One row per ``role: "station"`` feature with the station properties
        (``STATION_PROPERTIES``) and Point geometries (EPSG:4326).
    play_area : shapely geometry or None
        The ``role: "play_area"`` feature's (Multi)Polygon, if any.
    exclusions : list of shapely geometries
        The ``role: "exclusion"`` features' (Multi)Polygons.

    Raises
    ------
    InputError
        As :func:`stations_generator.formats.stationfile.read_station_map`, the one reader of
        station maps (the same checks as ``roll`` and ``route``).
    """
    from stations_generator.formats.stationfile import read_station_map

    station_map = read_station_map(Path(path))
    points = [Point(st.lon, st.lat) for st in station_map.stations]
    rows = [dict(props) for props in station_map.properties]
    return (
        _points_frame(rows, points, STATION_PROPERTIES),
        station_map.play_area,
        list(station_map.exclusions),
    )


def read_station_metadata(path: Path) -> dict[str, Any]:
    """The top-level ``metadata`` member of a ``stations.geojson`` (``{}`` if none).

    Parameters
    ----------
    path : Path

    Returns
    -------
    dict
        E.g. ``game_size``, ``min_spacing_m``, ``cluster_gap_m``, ``cluster_radius_m``.

    Raises
    ------
    InputError
        As :func:`read_station_file`.
    """
    from stations_generator.formats.stationfile import read_station_map

    return dict(read_station_map(Path(path)).metadata)


def read_candidates_file(path: Path) -> gpd.GeoDataFrame:
    """Read a ``candidates.geojson`` written by ``generate --explain``.

    Parameters
    ----------
    path : Path

    Returns
    -------
    geopandas.GeoDataFrame
        One row per ``role: "candidate"`` feature with the station properties plus
        ``priority``, ``status``, ``reason`` and ``conflict_with``.

    Raises
    ------
    InputError
        The file is missing, is not GeoJSON, or has no candidate features.
    """
    path = Path(path)
    data = _load_feature_collection(path, "candidates", _CANDIDATES_HINT)
    rows: list[dict[str, Any]] = []
    points: list[BaseGeometry] = []
    for index, feature in enumerate(data["features"]):
        if _role(feature) != "candidate":
            continue
        geometry = _geometry(feature, path, index)
        if geometry.geom_type != "Point":
            raise InputError(
                f"{str(path)!r}: candidate feature {index} is a {geometry.geom_type}, not a Point"
            )
        rows.append(feature["properties"])
        points.append(geometry)
    if not rows:
        raise InputError(f"{str(path)!r} has no candidate features; {_CANDIDATES_HINT}")
    fields = (*STATION_PROPERTIES, "priority", "status", "reason", "conflict_with")
    return _points_frame(rows, points, fields)
