/* The timetable layer of the Game view: where can the hider be? Over a GTFS feed the
   server was given (serve --gtfs FEED), the earliest time the hider can be in each hiding
   zone from a start station (or this phone's location) and time: POST
   api/timetable/reach, the same answer as `timetable reach`. The zones are drawn coloured
   by their band of arrival; the legend names each band in words and minutes with its
   count, and each zone's station dot says its time (tooltip, or popup on a tap), so
   colour is never the only carrier.
   Builds its own section at the end of the Game view; shown only when the server has a
   feed. Every text from the feed (stop names) reaches the page as text, never as HTML. */
"use strict";

(function timetable() {
  const sg = (window.sg = window.sg || {});
  const T = { feeds: [], result: null, zones: [], position: null, answered: 0, ready: false };
  sg.timetable = T;
  const byId = (id) => document.getElementById(id);

  const option = (value, label) => node("option", { value }, label);
  const field = (label, control) => node("label", {}, label + " ", control);

  function showError(message) {
    const box = byId("tt-error");
    box.textContent = message ? (sg.words ? sg.words.pageMessage(message) : message) : "";
    box.hidden = !message;
    if (message && sg.sheet && sg.sheet.state && sg.sheet.state() === "peek") sg.sheet.set("half");
  }

  async function post(path, body) {
    const res = await fetch(path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    let data = null;
    try { data = await res.json(); } catch (_e) { data = null; }
    if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
    return data;
  }

  // ------------------------------------------------------------------ words for times

  const hm = (iso) => (iso ? String(iso).slice(11, 16) : "-");
  function minutesText(m) {
    if (m === null || m === undefined) return "-";
    const r = Math.round(m), h = Math.floor(r / 60), mm = r % 60;
    return h ? `${h} h ${String(mm).padStart(2, "0")} min` : `${r} min`;
  }

  /** What a zone's tooltip says: its station, when the hider can first be in it, its band. */
  function zoneText(p, band) {
    const where = `${p.name || "unnamed station"} (${p.id})`;
    if (p.arrival === null || p.arrival === undefined) return `${where}: not reached`;
    const by = p.reachable ? "by the deadline" : "after the deadline";
    return `${where}: in the zone at ${hm(p.arrival)}, ${minutesText(p.minutes)} after the start (${by}; band: ${band.label})`;
  }

  // ------------------------------------------------------------------ the layer

  function layer() {
    if (!T.layer && sg.map && window.L) T.layer = window.L.layerGroup().addTo(sg.map);
    return T.layer;
  }

  function clearLayer() {
    if (T.layer) T.layer.clearLayers();
    T.result = null;
    T.zones = [];
    byId("tt-summary").textContent = "";
    byId("tt-legend").replaceChildren();
    byId("tt-legend").hidden = true;
    byId("tt-clear").hidden = true;
  }

  function draw(doc) {
    const L = window.L, group = layer();
    if (!group) return;
    group.clearLayers();
    T.zones = [];
    const reached = [];
    doc.features.forEach((f, i) => {
      const band = doc.bands[doc.zone_bands[i]], p = f.properties;
      const [lon, lat] = f.geometry.coordinates, text = zoneText(p, band);
      // The zone itself lets taps through (to the Game view's own use of a tap on the
      // map); its station's dot answers a tap or a hover with the zone's time.
      const circle = L.circle([lat, lon], {
        radius: p.radius_m, color: band.colour, weight: 1, fillColor: band.colour, fillOpacity: 0.3, interactive: false,
      }).addTo(group);
      const dot = L.circleMarker([lat, lon], {
        radius: 7, color: "#212121", weight: 1, fillColor: band.colour, fillOpacity: 1, bubblingMouseEvents: false,
      }).addTo(group);
      // Elements, not strings: Leaflet would read a string as HTML.
      dot.bindTooltip(node("span", { class: "tt-zone" }, text));
      dot.bindPopup(node("span", { class: "tt-zone" }, text));
      T.zones.push({ circle, dot, text });
      if (p.arrival !== null && p.arrival !== undefined) reached.push([lat, lon]);
    });
    if (reached.length) fit(L.latLngBounds(reached));
  }

  /** The map on the zones reached, clear of the bottom sheet on a phone (set to half
      first, so that the map shows; its height is read once it has moved). */
  function fit(bounds) {
    const sheet = sg.sheet && sg.sheet.phone && sg.sheet.phone() ? sg.sheet : null;
    if (sheet && sheet.state() === "full") sheet.set("half");
    setTimeout(() => {
      const below = sheet ? Math.min(sheet.covered(), sg.map.getSize().y * 0.6) : 0;
      sg.map.fitBounds(bounds, { paddingTopLeft: [10, 10], paddingBottomRight: [10, 10 + below], maxZoom: 15 });
    }, sheet ? 250 : 0);
  }

  function legend(doc) {
    const q = doc.query;
    byId("tt-summary").textContent =
      `From ${q.from} at ${hm(q.start)} on ${q.date} (${q.feed}): the hider can be in ${q.reachable} of ` +
      `${q.zones} zones (radius ${q.radius_m} m) by ${hm(q.deadline)}, ${q.deadline_note}; ${q.reached} reached at all.`;
    const rows = doc.bands.map((b, i) => {
      const swatch = node("span", { class: "tt-swatch", "aria-hidden": "true" });
      // CSSOM, not a style attribute: the page's policy allows no inline style.
      Object.assign(swatch.style, {
        display: "inline-block", width: "14px", height: "14px", marginRight: "6px",
        border: "1px solid #333", verticalAlign: "middle", backgroundColor: b.colour,
      });
      return node("tr", { "data-band": String(i) }, node("td", {}, swatch, b.label),
        node("td", { class: "tt-count" }, `${b.count} zone${b.count === 1 ? "" : "s"}`));
    });
    const table = byId("tt-legend");
    table.replaceChildren(
      node("caption", {}, "Earliest time the hider can be in a zone (minutes after the start)"),
      node("thead", {}, node("tr", {}, node("th", {}, "Band"), node("th", {}, "Zones"))),
      node("tbody", {}, ...rows));
    table.hidden = false;
  }

  // ------------------------------------------------------------------ the form

  function feed() { return T.feeds[Number(byId("tt-feed").value) || 0]; }

  function fillStations() {
    const f = feed(), box = byId("tt-station");
    box.replaceChildren(option("", "choose a station…"),
      ...f.stations.map((s) => option(s.id, `${s.name || "unnamed"} (${s.id})`)));
    const date = byId("tt-date");
    date.min = f.first_date || "";
    date.max = f.last_date || "";
    date.value = "";
    byId("tt-date-help").textContent = `Blank: the feed's busiest day, ${f.busiest_date}. The timetable runs ${f.first_date} to ${f.last_date}.`;
    byId("tt-credit").textContent = f.attribution;
    T.position = null;
    byId("tt-where").textContent = "";
  }

  async function useLocation() {
    try {
      const fix = await sg.location.current();
      T.position = [fix.lng, fix.lat];
      byId("tt-station").value = "";
      byId("tt-where").textContent = `From your location: ${fix.lat.toFixed(5)}, ${fix.lng.toFixed(5)} (±${Math.round(fix.accuracy)} m).`;
      showError(null);
    } catch (e) { showError(e.message); }
  }

  function request() {
    const body = { feed: Number(byId("tt-feed").value) || 0, at: byId("tt-at").value, game_size: byId("tt-size").value };
    const station = byId("tt-station").value;
    if (station) body.from = station;
    else if (T.position) body.from = T.position;
    if (byId("tt-date").value) body.date = byId("tt-date").value;
    const within = byId("tt-within").value.trim();
    if (within) body.within_min = Number(within);
    return body;
  }

  async function go() {
    const body = request();
    if (body.from === undefined) { showError("choose a start station, or use your location"); return; }
    if (!body.at) { showError("give the start time, e.g. 08:00"); return; }
    const button = byId("tt-go");
    button.disabled = true;
    try {
      const doc = await post("api/timetable/reach", body);
      T.result = doc;
      draw(doc);
      legend(doc);
      byId("tt-clear").hidden = false;
      showError(null);
    } catch (e) { showError(e.message); } finally { button.disabled = false; T.answered += 1; }
  }

  function build() {
    const sizes = T.sizes.map((s) => option(s, { S: "S (30 min to hide)", M: "M (1 h to hide)", L: "L (3 h to hide)" }[s] || s));
    const section = node("section", { id: "timetable", "aria-label": "Timetable" },
      node("h2", {}, "Timetable"),
      node("p", { class: "help" }, "Where can the hider be? The earliest time the hider can be in each hiding zone, over the timetable, from where and when they set off."),
      node("div", { id: "tt-error", class: "error", role: "alert", hidden: true }),
      field("Timetable", node("select", { id: "tt-feed" }, ...T.feeds.map((f, i) => option(String(i), f.name)))),
      field("Start station", node("select", { id: "tt-station" })),
      node("div", { class: "buttons" }, node("button", { id: "tt-here", type: "button", onclick: useLocation,
        title: "Start from this phone's position (walking to the first stop)" }, "Use my location")),
      node("p", { id: "tt-where", class: "help", role: "status" }),
      field("Start time", node("input", { id: "tt-at", type: "time", value: "08:00", required: true })),
      field("Day", node("input", { id: "tt-date", type: "date" })),
      node("p", { id: "tt-date-help", class: "help" }),
      field("Game size (the hiding radius and hiding time)", node("select", { id: "tt-size" }, ...sizes)),
      field("…or the minutes to look ahead (blank: the hiding time)", node("input", { id: "tt-within", type: "number", min: "1", max: "1440", step: "any", placeholder: "e.g. 60" })),
      node("div", { class: "buttons" },
        node("button", { id: "tt-go", type: "button", onclick: go }, "Show where the hider can be"),
        node("button", { id: "tt-clear", type: "button", onclick: clearLayer, hidden: true }, "Hide the zones")),
      node("p", { id: "tt-summary", class: "help", role: "status", "aria-live": "polite" }),
      node("table", { id: "tt-legend", hidden: true }),
      node("p", { id: "tt-credit", class: "help" }));
    byId("view-game").append(section);
    byId("tt-size").value = "M";
    byId("tt-feed").addEventListener("change", () => { fillStations(); clearLayer(); });
    byId("tt-station").addEventListener("change", () => { if (byId("tt-station").value) { T.position = null; byId("tt-where").textContent = ""; } });
    fillStations();
  }

  async function init() {
    try {
      const res = await fetch("api/timetable/feeds");
      const data = res.ok ? await res.json() : null;
      T.feeds = (data && data.feeds) || [];
      T.sizes = (data && data.game_sizes) || ["S", "M", "L"];
    } catch (_e) { T.feeds = []; }
    if (T.feeds.length) build(); // no feed given to the server: no section
    T.ready = true;
  }
  init();
})();
