"""The interactive HTML map of a station map (Folium / Leaflet), offline-capable.

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

The page is built on :func:`stations_generator.pages.offline.offline_map` and rendered
with :func:`stations_generator.pages.offline.render_station_map` (vendored Leaflet
inlined, only the tiles from the network, byte-identical output for the same input).
This module only draws what it is given; reading ``stations.geojson`` and
``candidates.geojson`` is :mod:`stations_generator.app.maps`.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import folium
import pandas as pd
from branca.element import Element
from folium.plugins import MarkerCluster
from shapely.geometry.base import BaseGeometry

from stations_generator.formats.geojson import (
    ATTRIBUTION,
    STATION_PROPERTIES,
    StationRecord,
    station_records,
)
from stations_generator.formats.kml import CATEGORY_COLOURS
from stations_generator.pages.offline import (
    COLLAPSIBLE_CLASS,
    PHONE_MEDIA,
    StyledBlock,
    add_area,
    add_page_controls,
    area_feature,
    html_text,
    offline_map,
)
from stations_generator.pages.palette import (
    CLUSTER_DASHES,
    DEFAULT_PALETTE,
    Palette,
    spread,
)
from stations_generator.pages.palette import (
    palette as palette_named,
)
from stations_generator.pages.station_script import StationLayers

__all__ = [
    "CLUSTER_COLOURS",
    "CLUSTER_MARKERS_ABOVE",
    "LEGEND_ID",
    "PIN_CLASS",
    "REASON_COLOURS",
    "category_hex",
    "cluster_colours",
    "station_map",
    "station_popup_lines",
    "wait_text",
]

CLUSTER_MARKERS_ABOVE = 300
"""Past this many stations the pins are clustered (Leaflet.markercluster)."""

LEGEND_ID = "sg-legend"
"""``id`` (and class) of the legend element, for tests and custom CSS."""

PIN_CLASS = "sg-pin"
"""CSS class of every station pin (a Leaflet ``divIcon``)."""

CLUSTER_COLOURS: tuple[str, ...] = DEFAULT_PALETTE.clusters
"""Cluster outline / hiding-zone colours of the default palette; neighbouring clusters
get different ones (and different ring patterns, :data:`~stations_generator.pages.palette.CLUSTER_DASHES`)."""

REASON_COLOURS: dict[str, str] = DEFAULT_PALETTE.reasons
"""Colour of a rejected candidate by rejection reason in the default palette (others: grey)."""

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


# --------------------------------------------------------------------------- values


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def category_hex(category: str) -> str:
    """The colour of a category's pins, ``"#rrggbb"``.

    Parameters
    ----------
    category : str
        A catalogue category name (``"museum"``).

    Returns
    -------
    str
        The category's KML colour, or for a category without one a fallback colour
        picked by a checksum of its name (the same on every run).
    """
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
    stations: pd.DataFrame,
    *,
    neighbour_distance_m: float = 3000.0,
    colours: Sequence[str] = CLUSTER_COLOURS,
) -> dict[int, str]:
    """A colour per cluster such that neighbouring clusters differ where possible.

    Clusters are coloured greedily in ``cluster_id`` order
    (:func:`~stations_generator.pages.palette.spread`): each takes the first colour no
    neighbouring cluster (centre within ``neighbour_distance_m``) already has, else the
    one its neighbours use least.

    Parameters
    ----------
    stations : geopandas.GeoDataFrame
        Stations with a ``cluster_id`` column and Point geometries (EPSG:4326).
    neighbour_distance_m : float
        Distance between cluster centres below which two clusters are neighbours.
    colours : sequence of str
        The colours to pick from [default: :data:`CLUSTER_COLOURS`].

    Returns
    -------
    dict of int to str
        ``cluster_id`` -> ``"#rrggbb"``. Empty when there are no stations.
    """
    return _spread_clusters(stations, neighbour_distance_m, colours)


def _spread_clusters(
    stations: pd.DataFrame, neighbour_distance_m: float, choices: Sequence[str]
) -> dict[int, str]:
    """``choices`` spread over the clusters (as :func:`cluster_colours`)."""
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
    points = list(zip(centres["lon"].tolist(), centres["lat"].tolist(), strict=True))
    picked = spread(points, neighbour_distance_m, choices)
    return {int(c): choice for c, choice in zip(centres.index, picked, strict=True)}


# --------------------------------------------------------------------------- map elements


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
        @media PHONE { .sg-legend { max-width: calc(100vw - 80px); max-height: 45vh; } }
        </style>
""".replace("PHONE", PHONE_MEDIA)


# --------------------------------------------------------------------------- building


def _legend_html(
    counts: list[tuple[str, str, int]],
    n_stations: int,
    n_clusters: int,
    radii: tuple[float, float, float],
    rejected: Mapping[str, tuple[str, int]] | None,
) -> str:
    """The legend; ``rejected`` maps a reason's HTML row label to its colour and count."""
    hiding_radius_m, min_spacing_m, cluster_gap_m = radii
    plural = "" if n_stations == 1 else "s"
    cluster_plural = "" if n_clusters == 1 else "s"
    parts = [
        f'<div id="{LEGEND_ID}" class="{LEGEND_ID}"><details class="{COLLAPSIBLE_CLASS}" open>',
        f"<summary>{n_stations} station{plural} · {n_clusters} cluster{cluster_plural}</summary>",
        '<ul class="sg-legend-categories">',
    ]
    for category, colour, count in counts:
        parts.append(
            f'<li data-category="{html_text(category)}">'
            f'<span class="sg-swatch" style="background:{colour}"></span>'
            f'{html_text(_category_label(category))} <span class="sg-count">{count}</span></li>'
        )
    parts.append("</ul>")
    parts.append("<p>Pin fill: category · pin outline, zone colour and dashes: cluster</p>")
    parts.append(f"<p>Hiding zone: {hiding_radius_m:g} m around each station</p>")
    parts.append(
        f"<p>Rule: ≥ {min_spacing_m:g} m within a cluster, ≥ {cluster_gap_m:g} m between</p>"
    )
    if rejected:
        parts.append('<ul class="sg-legend-rejected">')
        for reason, (colour, count) in rejected.items():
            parts.append(
                f'<li data-reason="{html_text(reason)}">'
                f'<span class="sg-dot" style="background:{colour}"></span>'
                f'rejected: {html_text(reason)} <span class="sg-count">{count}</span></li>'
            )
        parts.append("</ul>")
    parts.append(f"<p>Map data {html_text(ATTRIBUTION)}</p>")
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


class _Categories:
    """Numbers the categories in order of first use (the payload names them by number)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._index: dict[str, int] = {}

    def number(self, category: str) -> int:
        if category not in self._index:
            self._index[category] = len(self.names)
            self.names.append(category)
        return self._index[category]


@dataclass
class _Styles:
    """A map's colours: its palette, and the colour and ring pattern of each cluster."""

    palette: Palette
    cluster_colours: dict[int, str]
    cluster_dashes: dict[int, str]

    def category_colours(self, categories: Iterable[str]) -> dict[str, str]:
        """Pin fills: the categories' own colours, or the palette's in the given order."""
        names = list(dict.fromkeys(categories))
        if not self.palette.categories:
            return {c: category_hex(c) for c in names}
        fills = self.palette.categories
        return {c: fills[i % len(fills)] for i, c in enumerate(names)}

    def reason_colour(self, reason: str) -> str:
        """A rejected candidate's colour by its reason."""
        return self.palette.reasons.get(reason, self.palette.other_reason)


def _styles(stations: pd.DataFrame, cluster_gap_m: float, palette: Palette) -> _Styles:
    near = _NEIGHBOUR_FACTOR * cluster_gap_m
    return _Styles(
        palette,
        cluster_colours(stations, neighbour_distance_m=near, colours=palette.clusters),
        _spread_clusters(stations, near, CLUSTER_DASHES),
    )


@dataclass
class _StationRows:
    """The stations' payload rows, the cluster colours and ring patterns they index, the
    category counts."""

    rows: list[dict[str, Any]]
    clusters: list[str]
    dashes: list[str]
    counts: dict[str, int]


@dataclass
class _RejectedRows:
    """The rejected candidates' payload rows and the count per reason (first seen first)."""

    rows: list[dict[str, Any]]
    counts: dict[str, int]


def _station_rows(
    records: Sequence[StationRecord], styles: _Styles, categories: _Categories
) -> _StationRows:
    counts: dict[str, int] = {}
    clusters: list[str] = []
    dashes: list[str] = []
    cluster_index: dict[Any, int] = {}
    rows = []
    for record in records:
        props = record.properties
        category = _text(props.get("category"))
        counts[category] = counts.get(category, 0) + 1
        cluster = props.get("cluster_id")
        if cluster not in cluster_index:
            cluster_index[cluster] = len(clusters)
            clusters.append(styles.cluster_colours.get(cluster, styles.palette.clusters[-1]))
            dashes.append(styles.cluster_dashes.get(cluster, ""))
        rows.append(
            {
                "lat": record.lat,
                "lon": record.lon,
                "name": _display_name(props),
                "k": categories.number(category),
                "c": cluster_index[cluster],
                "lines": station_popup_lines(props),
                "osm": _osm_key(props),
            }
        )
    return _StationRows(rows, clusters, dashes, counts)


def _conflict_text(conflict: str, names: Mapping[str, str]) -> str:
    if not conflict:
        return ""
    other = names.get(conflict)
    return f"Conflicts with {other} ({conflict})" if other else f"Conflicts with {conflict}"


def _rejected_rows(
    candidates: pd.DataFrame, records: Sequence[StationRecord], categories: _Categories
) -> _RejectedRows:
    fields = (*STATION_PROPERTIES, "status", "reason", "conflict_with")
    cand_records = station_records(candidates, fields)
    names = {_text(r.properties.get("id")): _display_name(r.properties) for r in cand_records}
    for record in records:
        names.setdefault(_text(record.properties.get("id")), _display_name(record.properties))
    counts: dict[str, int] = {}
    rows = []
    for record in cand_records:
        props = record.properties
        if props.get("status") != "rejected":
            continue
        reason = _text(props.get("reason")) or "unknown"
        counts[reason] = counts.get(reason, 0) + 1
        rows.append(
            {
                "lat": record.lat,
                "lon": record.lon,
                "name": _display_name(props),
                "k": categories.number(_text(props.get("category"))),
                "r": list(counts).index(reason),
                "conflict": _conflict_text(_text(props.get("conflict_with")), names),
                "osm": _osm_key(props),
            }
        )
    return _RejectedRows(rows, counts)


def _add_areas(
    m: folium.Map,
    play_area: BaseGeometry | None,
    exclusions: Sequence[BaseGeometry],
    palette: Palette,
) -> None:
    if play_area is not None:
        if area_feature(play_area, "Play area") is None:
            raise ValueError("the play area is empty")
        add_area(m, [play_area], "Play area", colour=palette.play_area)
    if exclusions:
        add_area(
            m,
            exclusions,
            f"Exclusions ({len(exclusions)})",
            colour=palette.exclusion,
            fill_opacity=0.25,
            dash="6 4",
        )


def _ring_layers(
    m: folium.Map, hiding_radius_m: float, min_spacing_m: float, cluster_gap_m: float
) -> tuple[folium.FeatureGroup, folium.FeatureGroup, folium.FeatureGroup]:
    """The hiding-zone, gap-ring and spacing-ring layers (filled by the page's script)."""
    zones = folium.FeatureGroup(name=f"Hiding zones ({hiding_radius_m:g} m)", show=True)
    gap = folium.FeatureGroup(name=f"Gap rings ({cluster_gap_m:g} m, between clusters)", show=False)
    spacing = folium.FeatureGroup(
        name=f"Spacing rings ({min_spacing_m:g} m, within a cluster)", show=False
    )
    for group in (zones, gap, spacing):
        group.add_to(m)
    return zones, gap, spacing


def _pin_layer(m: folium.Map, n_stations: int, clustered: bool) -> Element:
    if clustered:
        pins: Element = MarkerCluster(
            name=f"Stations ({n_stations})",
            options={"chunkedLoading": True, "maxClusterRadius": 40},
        )
    else:
        pins = folium.FeatureGroup(name=f"Stations ({n_stations})")
    pins.add_to(m)
    return pins


def _payload(
    stations: _StationRows,
    rejected: _RejectedRows | None,
    categories: _Categories,
    radii: tuple[float, float, float],
    styles: tuple[_Styles, Mapping[str, str]],
) -> dict[str, Any]:
    """The JSON the page's script draws the stations from; ``radii`` as :func:`_ring_layers`,
    ``styles`` the map's styles and its categories' pin fills."""
    style, fills = styles
    hiding_radius_m, min_spacing_m, cluster_gap_m = radii
    reasons = list(rejected.counts) if rejected is not None else []
    return {
        "hidingRadius": float(hiding_radius_m),
        "minSpacing": float(min_spacing_m),
        "clusterGap": float(cluster_gap_m),
        "categories": [
            {"name": c, "label": _category_label(c), "colour": fills[c]} for c in categories.names
        ],
        "clusters": stations.clusters,
        "clusterDashes": stations.dashes,
        "reasons": [
            {
                "name": r,
                "colour": style.reason_colour(r),
                "text": _reason_text(r, min_spacing_m, cluster_gap_m),
            }
            for r in reasons
        ],
        "stations": stations.rows,
        "rejected": rejected.rows if rejected is not None else [],
    }


def _legend_order(counts: Mapping[str, int]) -> list[str]:
    """The stations' categories in the catalogue's order (unknown ones last, by name)."""
    order = {name: i for i, name in enumerate(_catalogue_labels())}
    return sorted(counts, key=lambda c: (order.get(c, len(order)), c))


def _add_legend(
    m: folium.Map,
    stations: _StationRows,
    rejected: _RejectedRows | None,
    radii: tuple[float, float, float],
    styles: tuple[_Styles, Mapping[str, str]],
) -> None:
    style, fills = styles
    legend_counts = [(c, fills[c], stations.counts[c]) for c in _legend_order(stations.counts)]
    reasons = None
    if rejected is not None:
        ranked = sorted(rejected.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        reasons = {r: (style.reason_colour(r), n) for r, n in ranked}
    body = _legend_html(legend_counts, len(stations.rows), len(stations.clusters), radii, reasons)
    StyledBlock("Legend", _LEGEND_STYLE, body).add_to(m)


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
    palette: str | Palette = "default",
) -> folium.Map:
    """Build the interactive station map.

    Parameters
    ----------
    stations : geopandas.GeoDataFrame
        The stations, as ``StationMap.stations`` or
        :func:`stations_generator.app.maps.read_station_file` give them (the columns
        of ``STATION_COLUMNS``; Point geometries).
    play_area : shapely Polygon or MultiPolygon, or None
        The play area in WGS84.
    exclusions : iterable of shapely Polygon or MultiPolygon
        Excluded areas in WGS84.
    candidates : geopandas.GeoDataFrame, optional
        Every candidate with ``status``, ``reason`` and ``conflict_with`` (as
        ``StationMap.candidates`` or
        :func:`stations_generator.app.maps.read_candidates_file`); the rejected ones
        are shown in their own layer with their reason.
    hiding_radius_m : float
        Radius of the hiding-zone circles.
    min_spacing_m, cluster_gap_m : float
        Radii of the spacing rings (within a cluster) and gap rings (between clusters).
    cluster_markers_above : int
        Cluster the pins (Leaflet.markercluster) when there are more stations than this.
    title : str
        The page title.
    palette : str or Palette
        ``"default"`` or ``"okabe-ito"`` (colour-blind safe;
        :mod:`stations_generator.pages.palette`).

    Returns
    -------
    folium.Map
        Render it with :func:`stations_generator.pages.offline.render_station_map`:
        that step inlines the vendored Leaflet and makes the HTML deterministic.
        ``Map.save`` would keep Folium's CDN links.

    Raises
    ------
    ValueError
        If a station geometry is not a Point, or there is neither a play area nor a
        station to show, or the palette is unknown.
    TypeError
        If an area is not a Polygon or MultiPolygon.
    """
    records = station_records(stations)
    exclusions = [e for e in exclusions if e is not None and not e.is_empty]
    style = _styles(stations, cluster_gap_m, palette_named(palette))
    bounds = _bounds(play_area, [r.lon for r in records], [r.lat for r in records])
    clustered = len(records) > cluster_markers_above
    radii = (hiding_radius_m, min_spacing_m, cluster_gap_m)

    m = offline_map(bounds, title=title, marker_clusters=clustered)
    _add_areas(m, play_area, exclusions, style.palette)
    zones, gap, spacing = _ring_layers(m, *radii)
    # Rejected candidates number their categories first (the payload's order).
    categories = _Categories()
    rejected = rejected_group = None
    if candidates is not None:
        rejected = _rejected_rows(candidates, records, categories)
        rejected_group = folium.FeatureGroup(
            name=f"Rejected candidates ({len(rejected.rows)})", show=False
        )
        rejected_group.add_to(m)
    pins = _pin_layer(m, len(records), clustered)
    rows = _station_rows(records, style, categories)
    styles = (style, style.category_colours(_legend_order(rows.counts) + categories.names))
    payload = _script_json(_payload(rows, rejected, categories, radii, styles))
    StationLayers(
        payload, pins, zones, spacing, gap, rejected_group, pin_class=PIN_CLASS, osm_base=_OSM
    ).add_to(m)
    _add_legend(m, rows, rejected, radii, styles)
    add_page_controls(m, bounds)  # the layer control and the fitted view, phone or desktop
    return m
