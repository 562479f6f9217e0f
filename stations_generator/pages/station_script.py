"""The script of the station map: its pins, hiding zones, rings and rejected candidates.

Drawn in the page from one JSON payload (see
:func:`stations_generator.pages.folium_map.station_map`): the page grows by a few
hundred bytes per station instead of one Folium element per marker, circle and popup.
Each cluster's hiding zones and spacing rings have its colour and its dash pattern
(``clusterDashes``), so the cluster is not told by colour alone.
"""

from __future__ import annotations

from branca.element import Element
from folium.template import Template

from stations_generator.pages.offline import RawMacroElement

__all__ = ["StationLayers"]


class StationLayers(RawMacroElement):
    """Builds the station pins, circles and rejected candidates from one JSON payload.

    The payload is :func:`stations_generator.pages.folium_map.station_map`'s; the layers
    are its Folium groups; ``pin_class`` is the pins' CSS class and ``osm_base`` the OSM
    site the popups link to.

    A :class:`~stations_generator.pages.offline.RawMacroElement`: the payload (names,
    opening hours) is never read as a template.
    """

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
                var dash = data.clusterDashes[s.c] || null;
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
                L.circle([s.lat, s.lon], {radius: data.hidingRadius, color: ring, weight: 1.5,
                    dashArray: dash, fillColor: ring, fillOpacity: 0.12, interactive: false})
                    .addTo(zones);
                L.circle([s.lat, s.lon], {radius: data.minSpacing, color: ring, weight: 1.5,
                    dashArray: dash, fill: false, interactive: false}).addTo(spacing);
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
        *,
        pin_class: str,
        osm_base: str,
    ):
        super().__init__()
        self._name = "StationLayers"
        self.payload = payload
        self.pins = pins
        self.zones = zones
        self.spacing = spacing
        self.gap = gap
        self.rejected = rejected
        self.pin_class = pin_class
        self.osm_base = osm_base
