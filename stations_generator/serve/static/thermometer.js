/* A thermometer question set by dragging on the map: from its start, an orange handle
   whose drag sets the direction and the distance, the distance kept to the legal values
   of the game size (/api/config's thermometer_distances_m: JLTG.EU house rules,
   Thermometer) and measured on the ellipsoid (sg.geo, location.js). */
"use strict";

(function thermometer() {
  const sg = (window.sg = window.sg || {});

  /** The legal distances (m) of a game size, shortest first. */
  function legal(size) {
    return ((sg.config && sg.config.thermometer_distances_m) || {})[size] || [400, 1000, 5000];
  }
  const words = (m) => (m >= 1000 ? `${m / 1000} km` : `${m} m`);

  /** The legal distance nearest `metres` (by ratio: 700 m is nearer 1 km than 400 m). */
  function snap(metres, distances) {
    let best = distances[0];
    for (const d of distances) if (Math.abs(Math.log(metres / d)) < Math.abs(Math.log(metres / best))) best = d;
    return best;
  }

  /** Draw the start and a draggable end handle on `layer`; `onSet(end, "1 km")` after each
      drag. Returns {state()}: the start, end, distance (m) and the handle's position. */
  function dragThermometer(start, layer, size, onSet) {
    const L = window.L, distances = legal(size);
    const s = { start, distance: distances[0], end: sg.geo.direct(start, 90, distances[0]) };
    const icon = L.divIcon({ className: "thermo-handle", iconSize: [28, 28] });
    L.circleMarker(start, { radius: 6, color: "#e65100", interactive: false }).addTo(layer);
    const line = L.polyline([start, s.end], { color: "#e65100", weight: 3, dashArray: "6 4", interactive: false }).addTo(layer);
    const handle = L.marker(s.end, { draggable: true, icon, title: "Drag: the thermometer's direction and distance", autoPan: true }).addTo(layer);
    handle.bindTooltip(words(s.distance), { permanent: true, direction: "right", offset: [14, 0], className: "thermo-label" });
    const place = (raw, final) => {
      const g = sg.geo.inverse(start, raw);
      s.distance = snap(Math.max(g.distance, 1), distances);
      s.end = sg.geo.direct(start, g.azimuth, s.distance);
      line.setLatLngs([start, s.end]);
      handle.setTooltipContent(words(s.distance));
      if (final) handle.setLatLng(s.end);
    };
    handle.on("drag", (e) => place(e.target.getLatLng(), false));
    handle.on("dragend", (e) => {
      place(e.target.getLatLng(), true);
      onSet(s.end, words(s.distance));
      sg.thermometerDragged = (sg.thermometerDragged || 0) + 1;
    });
    return { state: () => ({ start: s.start, end: s.end, distance: s.distance, handle: handle.getLatLng() }) };
  }

  sg.dragThermometer = dragThermometer;
})();
