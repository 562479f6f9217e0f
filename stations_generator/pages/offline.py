"""An offline-capable Leaflet page (Folium), rendered deterministically.

The building blocks of every HTML map of the project (the station map of
:mod:`stations_generator.pages.folium_map`, the elimination map, the report page and
the board game's page): :func:`offline_map` makes an empty map, :func:`add_area`
draws areas on it, :class:`StyledBlock` adds HTML, and :func:`render_station_map`
turns it into one self-contained page.

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

Phones
------
:func:`add_page_controls` adds the layer control and fits the view last: on a screen of
:data:`PHONE_MEDIA` the layer control and the legends (``<details class="sg-collapsible"
open>``) start collapsed behind a button and the zoom buttons are 44 px tall. Every page
says its language (``<html lang="en">``) and may be zoomed (Folium's viewport forbids it).

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
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any

import folium
from branca.element import Element, Figure, MacroElement
from folium.template import Template
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from stations_generator.formats.geojson import polygon_rings

__all__ = [
    "COLLAPSIBLE_CLASS",
    "PHONE_MEDIA",
    "TILES_ATTRIBUTION",
    "TILES_URL",
    "RawMacroElement",
    "StyledBlock",
    "add_area",
    "add_page_controls",
    "area_feature",
    "html_text",
    "offline_map",
    "render_station_map",
]

TILES_URL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
"""The only resource the page loads from the network."""

TILES_ATTRIBUTION = (
    '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> '
    "contributors, ODbL 1.0"
)
"""The tile layer's attribution (HTML)."""

PHONE_MEDIA = "(max-width: 700px), (max-height: 500px)"
"""The screens the pages treat as a phone's (a phone upright, or turned sideways): the
layer control and the legends start collapsed behind a button. 700 px is where a
legend and an open layer control no longer fit side by side with the zoom buttons."""

COLLAPSIBLE_CLASS = "sg-collapsible"
"""Class of the ``<details open>`` legends that start closed on a phone."""

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
# Folium's viewport forbids zooming the page (WCAG 1.4.4 wants text zoomable to 200 %);
# the map's own pinch zoom is Leaflet's and needs no such rule.
_VIEWPORT = re.compile(r'<meta name="viewport" content="[^"]*" />')
_OUR_VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1" />'
_NETWORK_LOAD = re.compile(
    r"<script[^>]*\ssrc=|<link[^>]*\shref=|@import|url\(\s*['\"]?(?:https?:)?//", re.IGNORECASE
)


# --------------------------------------------------------------------------- text

# Characters that still mean something after HTML escaping: in a JavaScript template
# literal (Folium writes tooltips into one: `<div>TEXT</div>`) and in Jinja template
# source (a Folium Element's text is a template). As character references they show
# as themselves.
_TEMPLATE_CHARS = str.maketrans(
    {"`": "&#96;", "$": "&#36;", "\\": "&#92;", "{": "&#123;", "}": "&#125;", "%": "&#37;"}
    | {"\u2028": "&#8232;", "\u2029": "&#8233;"}  # line breaks to str.splitlines
)


def html_text(value: Any) -> str:
    """Plain text (a station, place or layer name) as HTML that shows it verbatim.

    Use it for every user or OSM string a page passes to Folium as HTML: tooltips,
    layer names (the layer control sets them as HTML), legends, titles.

    Parameters
    ----------
    value : Any
        The text (``None`` is the empty string; anything else goes through ``str``).

    Returns
    -------
    str
        ``&``, ``<``, ``>``, quotes, backticks, ``$`` and backslashes as character
        references, so the result is inert both as HTML (element text or a quoted
        attribute) and inside the JavaScript template literal of a Folium tooltip
        (no ``${…}`` substitution, no early end of the literal or the script), and
        never Jinja syntax (``{{ … }}``, ``{% … %}``) should it reach template source.
    """
    text = "" if value is None else str(value)
    return html.escape(text, quote=True).translate(_TEMPLATE_CHARS)


# --------------------------------------------------------------------------- elements


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


class _Raw(Element):
    """Text that goes into the page as it is (never read as a template)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text

    def render(self, **kwargs: Any) -> str:
        return self._text


class RawMacroElement(MacroElement):
    """A ``MacroElement`` whose macros' output goes into the page as it is.

    Branca puts each macro's output (``header``, ``html``, ``script``) into a new
    ``Element``, whose text is a template rendered once more: a value in the output
    holding ``{{ … }}`` would be evaluated (with Python's objects in reach). Elements of
    this project that carry user or OSM text derive from this class instead.
    """

    def render(self, **kwargs: Any) -> None:
        figure = self.get_root()
        module = self._template.module
        for part in ("header", "html", "script"):
            macro = getattr(module, part, None)
            if macro is not None:
                getattr(figure, part).add_child(_Raw(macro(self, kwargs)), name=self.get_name())
        for element in self._children.values():
            element.render(**kwargs)


class StyledBlock(RawMacroElement):
    """A block of HTML in the page's body, with its ``<style>`` element in the head.

    Parameters
    ----------
    name : str
        The element's name in the page.
    style : str
        The ``<style>...</style>`` element, or ``""``. It is template source: a
        constant of the page, never user or OSM text.
    body : str
        The HTML. It is inserted as a value, never read as a template, so text in it
        that looks like Jinja (``{{ … }}``) stays text.
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


# The legends' collapsing on a phone, and tap targets of 44 px there (WCAG 2.5.5); a
# legend box of class sg-box keeps to the screen.
_CONTROLS_STYLE = (
    """        <style>
        details.sg-collapsible > summary { cursor: pointer; }
        @media PHONE {
            details.sg-collapsible > summary { min-height: 44px; box-sizing: border-box;
                padding: 12px 4px; line-height: 20px; }
            .sg-box { max-width: calc(100vw - 80px); max-height: 45vh; overflow-y: auto; }
            .leaflet-bar a, .leaflet-touch .leaflet-bar a { width: 44px; height: 44px;
                line-height: 44px; }
        }
        </style>
"""
).replace("PHONE", PHONE_MEDIA)


class _PageControls(RawMacroElement):
    """On a phone: the layer control collapsed, the legends closed, the zoom in quarter
    steps; then the view fitted."""

    _template = Template(
        """
        {% macro header(this, kwargs) %}{{ this.style }}{% endmacro %}
        {% macro script(this, kwargs) %}
        (function () {
            var map = {{ this._parent.get_name() }};
            var layers = {% if this.layers %}{{ this.layers.get_name() }}{% else %}null{% endif %};
            if (window.matchMedia({{ this.media }}).matches) {
                if (layers) {
                    layers.remove();
                    layers.options.collapsed = true;
                    layers.addTo(map);
                }
                document.querySelectorAll("details.{{ this.collapsible }}").forEach(
                    function (d) { d.open = false; });
                map.options.zoomSnap = 0.25;  // the area fills the small screen
            }
            map.fitBounds({{ this.bounds }}, {padding: [{{ this.padding }}, {{ this.padding }}]});
        })();
        {% endmacro %}
        """
    )

    def __init__(self, layers: Element | None, bounds: str, padding: int) -> None:
        super().__init__()
        self._name = "PageControls"
        self.layers = layers
        self.bounds = bounds
        self.padding = padding
        self.media = json.dumps(PHONE_MEDIA)
        self.collapsible = COLLAPSIBLE_CLASS
        self.style = _CONTROLS_STYLE


def add_page_controls(
    m: folium.Map,
    bounds: Sequence[Sequence[float]],
    *,
    layer_control: bool = True,
    padding: int = 12,
) -> None:
    """Add the layer control and fit the view, for a desktop and for a phone.

    Call it last, when every layer is on the map. On a desktop the layer control is
    open and the legends (``<details class="sg-collapsible" open>``) too; on a screen
    matching :data:`PHONE_MEDIA` both start collapsed behind a button (the legend's
    ``<summary>``, at least 44 px tall there, and the layers icon), so the map and its
    zoom buttons (44 px there too) stay clear. Either way the view is then fitted to
    ``bounds`` (on a phone to a quarter zoom level, so the area fills the screen).

    Parameters
    ----------
    m : folium.Map
        A map from :func:`offline_map`.
    bounds : [[south, west], [north, east]]
        What the view shows (the play area).
    layer_control : bool
        Add a layer control (pages without toggleable layers pass False).
    padding : int
        Pixels kept free around ``bounds``.
    """
    control = folium.LayerControl(collapsed=False) if layer_control else None
    if control is not None:
        control.add_to(m)
    (south, west), (north, east) = bounds
    box = json.dumps([[float(south), float(west)], [float(north), float(east)]])
    _PageControls(control, box, int(padding)).add_to(m)


# --------------------------------------------------------------------------- building


def _polygons(geometry: BaseGeometry) -> list[Polygon]:
    if isinstance(geometry, Polygon):
        return [] if geometry.is_empty else [geometry]
    if isinstance(geometry, MultiPolygon):
        return [p for p in geometry.geoms if not p.is_empty]
    raise TypeError(f"expected a Polygon or MultiPolygon, got {geometry.geom_type}")


def area_feature(geometry: BaseGeometry, name: str) -> dict[str, Any] | None:
    """A (multi)polygon as one GeoJSON Feature with a MultiPolygon geometry.

    Parameters
    ----------
    geometry : shapely Polygon or MultiPolygon (WGS84)
        Empty parts are left out.
    name : str
        The feature's ``name`` property.

    Returns
    -------
    dict or None
        The Feature, or None when the geometry has no non-empty polygon.

    Raises
    ------
    TypeError
        If the geometry is not a Polygon or MultiPolygon.
    """
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


def offline_map(
    bounds: Sequence[Sequence[float]],
    *,
    title: str = "Map",
    marker_clusters: bool = False,
    height: str = "100%",
) -> folium.Map:
    """An empty map with OSM tiles and attribution whose page works offline.

    The building block of :func:`~stations_generator.pages.folium_map.station_map`
    (and of the other pages of the project):
    add layers, then render with :func:`render_station_map`, which inlines the
    vendored Leaflet.

    Parameters
    ----------
    bounds : [[south, west], [north, east]]
        Initial centre (the view is not fitted: call ``fit_bounds`` when done).
    title : str
        The page title (plain text; escaped here).
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
    figure = Figure(title=html_text(title))  # branca writes the title into <title> as is
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
    features = [area_feature(a, name) for a in areas]
    features = [f for f in features if f is not None]
    if not features:
        return
    folium.GeoJson(
        {"type": "FeatureCollection", "features": features},
        name=html_text(name),  # the layer control shows it as HTML
        style_function=_area_style(colour, fill_opacity, dash),
        interactive=False,
        show=show,
    ).add_to(m)


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
    """Render a map from :func:`offline_map` as one self-contained, deterministic page.

    Folium's CDN links are dropped and the vendored Leaflet (and marker-cluster)
    files are inlined; Folium's random element ids are renumbered in order of
    first appearance, so the same input renders byte-identically.

    Parameters
    ----------
    m : folium.Map
        A map built on :func:`offline_map` (the station map, the elimination map…).

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
    # the page's language (for screen readers), and a page that may be zoomed
    page = page.replace("<html>", '<html lang="en">', 1)
    page = _VIEWPORT.sub(_OUR_VIEWPORT, page, count=1)
    leftover = _NETWORK_LOAD.search(page)
    if leftover:
        raise RuntimeError(f"the map would load {leftover.group(0)!r} from the network")
    # Split on "\n" only: str.splitlines would also break user text at U+2028 and kin.
    page = "\n".join(line.rstrip(" \t\r") for line in page.split("\n")).strip("\n") + "\n"
    # Vendored files go in last and untouched (apart from what _asset documents).
    return _ASSET_PLACEHOLDER.sub(lambda match: _asset(match.group(1)), page)
