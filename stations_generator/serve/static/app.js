/* The organiser's page of `stations-generator serve`. All work is done by the server's
   JSON API (the same code as the CLI); this file draws, asks and shows. */
"use strict";

const STORE = "stations-generator/serve/v1";
const sg = Object.assign((window.sg = window.sg || {}), { errors: [], seq: 0, shown: 0, config: null, result: null, game: null });
// A phone, upright or sideways: the same query as app.css and sheet.js.
const PHONE = window.matchMedia("(max-width: 700px), (max-height: 500px)").matches;


/** Fit the map to `bounds`, leaving out what the bottom sheet covers on a phone. */
function fit(bounds) {
  const below = sg.sheet ? Math.min(sg.sheet.covered(), map.getSize().y * 0.6) : 0;
  map.fitBounds(bounds, { paddingTopLeft: [10, 10], paddingBottomRight: [10, 10 + below] });
}

// ------------------------------------------------------------------------- the map

const map = L.map("map", { preferCanvas: false }).setView([43.54, -96.73], 11);
L.tileLayer("https://tile.openstreetmap.org/{z}/{x}/{y}.png", {
  maxZoom: 19, attribution: "© OpenStreetMap contributors",
}).addTo(map);
map.pm.setGlobalOptions({ snappable: false, allowSelfIntersection: false });
sg.map = map;

const shapes = L.featureGroup().addTo(map); // drawn play area + exclusions
const stationLayers = {
  stations: L.featureGroup(), clusters: L.featureGroup(),
  zones: L.featureGroup(), rejected: L.featureGroup(),
};
const gameLayers = {
  playArea: L.featureGroup(), remaining: L.featureGroup(), zones: L.featureGroup(),
  marks: L.featureGroup(), hider: L.featureGroup(),
};
sg.gameLayers = gameLayers;
const control = L.control.layers(null, {
  "Stations (category pins)": stationLayers.stations,
  "Cluster rings": stationLayers.clusters,
  "Hiding zones": stationLayers.zones,
  "Rejected candidates": stationLayers.rejected,
}, { collapsed: PHONE, position: PHONE ? "topright" : "bottomright" }).addTo(map);
if (PHONE) map.attributionControl.setPosition("topright"); // not under the sheet
for (const k of ["stations", "clusters", "zones"]) stationLayers[k].addTo(map);

let drawRole = "area";
const AREA_STYLE = { color: "#0277bd", weight: 2, fillOpacity: 0.05 };
const EXCL_STYLE = { color: "#c62828", weight: 2, fillOpacity: 0.25, dashArray: "4 4" };

function addShape(layer, role) {
  layer.sgRole = role;
  layer.setStyle(role === "area" ? AREA_STYLE : EXCL_STYLE);
  layer.on("pm:edit", changed);
  shapes.addLayer(layer);
}

map.on("pm:create", (e) => {
  if (drawRole === "area" && sg.loadedArea) setLoadedArea(null);
  addShape(e.layer, drawRole); // the layer stays on the map, now a member of `shapes`
  changed();
});
map.on("pm:remove", (e) => { shapes.removeLayer(e.layer); changed(); });
map.on("pm:drawend", () => {
  $("draw-area").classList.remove("on"); $("draw-exclusion").classList.remove("on");
  map.doubleClickZoom.enable();
});

function startDraw(role) {
  drawRole = role;
  map.pm.disableGlobalEditMode(); map.pm.disableGlobalRemovalMode();
  // Quick taps on corners are no double tap (Leaflet zooms on two taps within 200 ms).
  map.doubleClickZoom.disable();
  map.pm.enableDraw("Polygon", { pathOptions: role === "area" ? AREA_STYLE : EXCL_STYLE, finishOn: null });
  $(role === "area" ? "draw-area" : "draw-exclusion").classList.add("on");
  if (sg.sheet) sg.sheet.set("peek"); // the map in sight for the corners
}
$("draw-area").onclick = () => startDraw("area");
$("draw-exclusion").onclick = () => startDraw("exclusion");
$("edit-shapes").onclick = () => {
  map.pm.disableDraw(); map.pm.disableGlobalRemovalMode();
  if (sg.loadedArea) { // make the loaded file's polygons editable shapes
    loadedLayer.eachLayer((l) => { if (l instanceof L.Polygon) addShape(L.polygon(l.getLatLngs()), "area"); });
    loadedLayer.clearLayers();
    setLoadedArea(null);
  }
  map.pm.toggleGlobalEditMode({ layerGroup: shapes });
  $("edit-shapes").classList.toggle("on", map.pm.globalEditModeEnabled());
  if (!map.pm.globalEditModeEnabled()) changed();
};
$("delete-shapes").onclick = () => {
  map.pm.disableDraw(); map.pm.disableGlobalEditMode();
  map.pm.toggleGlobalRemovalMode();
  $("delete-shapes").classList.toggle("on", map.pm.globalRemovalModeEnabled());
};
$("clear-shapes").onclick = () => { shapes.clearLayers(); setLoadedArea(null); changed(); };

function collection(role) {
  const features = [];
  shapes.eachLayer((l) => { if (l.sgRole === role) features.push(l.toGeoJSON()); });
  return features.length ? { type: "FeatureCollection", features } : null;
}
sg.areaGeoJSON = () => collection("area");
sg.exclusionsGeoJSON = () => collection("exclusion");

// A loaded play-area file: sent verbatim until a polygon is drawn (or Edit converts it);
// the map shows the area as the server read it.
const loadedLayer = L.geoJSON(null, { style: AREA_STYLE, interactive: false }).addTo(map);
function setLoadedArea(file) {
  sg.loadedArea = file || null;
  loadedLayer.clearLayers();
}
sg.setLoadedArea = setLoadedArea;

function loadShapes(fc, role) {
  L.geoJSON(fc, { filter: (f) => /Polygon/.test((f.geometry || f).type) }).eachLayer((l) => {
    if (l.getLatLngs) addShape(l, role);
  });
}

$("load-area").onchange = async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  try {
    // The file goes to the server as it is: the CLI's reader for its format (GeoJSON,
    // KML/KMZ, GPX, zipped shapefile, GeoPackage…) checks and repairs it there.
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    shapes.eachLayer((l) => { if (l.sgRole === "area") shapes.removeLayer(l); });
    setLoadedArea({ name: file.name, base64: btoa(binary) });
    sg.fitLoaded = true;
    changed();
  } catch (e) {
    showError("error", `${file.name}: ${e.message}`);
  }
  ev.target.value = "";
};

// ------------------------------------------------------------ state and persistence

function requestBody() {
  const body = { settings: readSettings(), osm: chosen("osm"), water: chosen("water") };
  const rel = $("osm-relation").value.trim(), place = $("place").value.trim();
  if (rel) body.osm_relation = Number(rel);
  else if (place) body.place = place;
  else if (sg.loadedArea && !sg.areaGeoJSON()) body.play_area_file = sg.loadedArea;
  else body.play_area = sg.areaGeoJSON();
  const excl = sg.exclusionsGeoJSON();
  if (excl) body.exclusions = excl;
  return body;
}
sg.requestBody = requestBody;

function save() {
  const state = {
    area: sg.areaGeoJSON(), exclusions: sg.exclusionsGeoJSON(), loaded: sg.loadedArea || null,
    settings: readSettings(), osm: chosen("osm"), water: chosen("water"),
    relation: $("osm-relation").value, place: $("place").value,
    view: sg.view, game: sg.game ? { doc: sg.game.doc, hidden: sg.game.hidden, name: sg.game.name } : null,
  };
  try { localStorage.setItem(STORE, JSON.stringify(state)); } catch (_e) { /* full or disabled */ }
}

function restore() {
  let state = null;
  try { state = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (_e) { state = null; }
  if (!state) return false;
  if (state.area) loadShapes(state.area, "area");
  if (state.exclusions) loadShapes(state.exclusions, "exclusion");
  if (state.loaded) { setLoadedArea(state.loaded); sg.fitLoaded = true; }
  writeSettings(state.settings || {});
  for (const c of document.querySelectorAll(".src-osm")) c.checked = (state.osm || []).includes(c.value);
  for (const c of document.querySelectorAll(".src-water")) c.checked = (state.water || []).includes(c.value);
  $("osm-relation").value = state.relation || "";
  $("place").value = state.place || "";
  if (shapes.getLayers().length) fit(shapes.getBounds());
  if (state.game) setGame(state.game.doc, state.game.name, state.game.hidden, false);
  if (state.view) showView(state.view);
  return true;
}

// ----------------------------------------------------------------- regenerate

let timer = null;
function changed() {
  save();
  clearTimeout(timer);
  timer = setTimeout(regenerate, 350); // debounce: typing and dragging settle first
}
sg.changed = changed;

async function regenerate() {
  const body = requestBody();
  if (!body.play_area && !body.play_area_file && !body.osm_relation && !body.place) {
    $("status").textContent = "Draw or load a play area.";
    for (const l of Object.values(stationLayers)) l.clearLayers();
    sg.result = null;
    availability();
    return;
  }
  const seq = ++sg.seq;
  const local = (body.play_area || body.play_area_file) && body.osm.length;
  const waiting = local ? "Building the station map…" : "Fetching from OpenStreetMap online (this can take a while)…";
  $("status").textContent = waiting;
  // Progress of a long Overpass / Nominatim fetch, polled while the request runs.
  body.progress_id = `p${Date.now().toString(36)}${seq}`;
  const poll = setInterval(async () => {
    try {
      const m = (await (await api("api/progress/" + body.progress_id)).json()).message;
      if (m && seq === sg.seq) $("status").textContent = `${waiting}\n${m}`;
    } catch (_e) { /* the next poll tries again */ }
  }, 1000);
  try {
    const res = await api("api/stationmap", body).finally(() => clearInterval(poll));
    const data = await res.json();
    if (seq < sg.shown) return; // a newer answer is already on the map
    sg.shown = seq;
    showError("error", null);
    sg.result = data;
    sg.resultBody = body;
    drawStationMap(data);
  } catch (e) {
    if (seq < sg.shown) return;
    sg.shown = seq;
    showError("error", e.message);
    $("status").textContent = "";
  }
}

sg.layerCounts = () => Object.fromEntries(
  Object.entries(stationLayers).map(([k, l]) => [k, l.getLayers().length]));

function colour(cat) { return (sg.config.colours || {})[cat] || "#555"; }

function drawStationMap(data) {
  for (const l of Object.values(stationLayers)) l.clearLayers();
  const fc = data.station_map;
  const first = {};
  const area = fc.features.find((f) => f.properties && f.properties.role === "play_area");
  loadedLayer.clearLayers();
  if (area && !shapes.getLayers().some((l) => l.sgRole === "area")) loadedLayer.addData(area);
  if (sg.fitLoaded && loadedLayer.getLayers().length) { fit(loadedLayer.getBounds()); sg.fitLoaded = false; }
  const named = sg.words.namedPlaces(data);
  sg.stationNames = {};
  for (const f of fc.features) {
    if (f.geometry.type !== "Point") continue;
    const p = f.properties, ll = [f.geometry.coordinates[1], f.geometry.coordinates[0]];
    const name = sg.words.placeName(p, { lat: ll[0], lng: ll[1] }, named);
    sg.stationNames[p.id] = name.text;
    L.circleMarker(ll, { radius: 6, color: "#222", weight: 1, fillColor: colour(p.category), fillOpacity: 0.95 })
      .bindPopup(`<b>${escapeHtml(name.text)}</b> <span class="osm-id">${escapeHtml(name.id)}</span><br>${escapeHtml(sg.words.category(p.category))}, cluster ${escapeHtml(p.cluster_id)}<br>wait ${escapeHtml(p.wait_min)}–${escapeHtml(p.wait_max)} min (${escapeHtml(p.density_tier)})`)
      .addTo(stationLayers.stations);
    L.circle(ll, { radius: data.hiding_radius_m, color: colour(p.category), weight: 1, fillOpacity: 0.08, interactive: false })
      .addTo(stationLayers.zones);
    if (!(p.cluster_id in first)) first[p.cluster_id] = ll;
  }
  for (const ll of Object.values(first)) {
    L.circle(ll, { radius: data.cluster_radius_m, color: "#6a1b9a", weight: 1, dashArray: "3 3", fill: false, interactive: false })
      .addTo(stationLayers.clusters);
  }
  for (const [lon, lat, name, reason] of data.rejected_candidates) {
    L.circleMarker([lat, lon], { radius: 3, color: "#999", weight: 1, fillOpacity: 0.6 })
      .bindPopup(`${escapeHtml(name || "unnamed place")}: left out (${escapeHtml(reason)})`)
      .addTo(stationLayers.rejected);
  }
  $("status").textContent = sg.words.pageMessage(data.summary.join("\n") + (data.warnings.length ? "\nwarning: " + data.warnings.join("\nwarning: ") : ""));
  $("inferred-size").textContent = ` ${data.game_size_inferred ? "inferred" : "given"}: ${data.game_size}`;
  if (!shapes.getLayers().length && fc.features.length) fit(stationLayers.stations.getBounds());
  availability();
  sg.rendered = (sg.rendered || 0) + 1;
}


function downloadButtons() {
  for (const name of sg.config.downloads) {
    $("downloads").append(el("button", { id: "dl-" + name.replace(".", "-"), class: "download", disabled: true, on: { click: async () => {
      if (!sg.result) return;
      try { await download("api/stationmap/file/" + name, sg.resultBody, name); showError("error", null); }
      catch (e) { showError("error", e.message); }
    } } }, name));
  }
}

/** Enable what can run now; say why the rest cannot (no raw errors, nothing silent). */
function availability() {
  const map_ = !!sg.result, game = !!sg.game;
  const mapWhy = map_ ? "" : "The downloads come with a station map: draw or load a play area first.";
  for (const b of document.querySelectorAll("#downloads button")) { b.disabled = !map_; b.title = mapWhy; }
  $("downloads-why").textContent = mapWhy;
  $("game-from-map").disabled = !map_;
  $("game-from-map-why").textContent = map_ ? "" : "Build a station map first (Station map view), or load a game below.";
  const gameWhy = game ? "" : "Start or load a game first: there is nothing to download or share yet.";
  for (const id of ["export-game", "share-link"]) { $(id).disabled = !game; $(id).title = gameWhy; }
  $("export-why").textContent = gameWhy;
}
sg.availability = availability;

$("reset-settings").onclick = () => { writeSettings({}); changed(); };
$("osm-relation").addEventListener("change", changed);
$("place").addEventListener("change", changed);

// -------------------------------------------------------------------------- views

function showView(view) {
  sg.view = view;
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.view === view);
  $("view-stations").hidden = view !== "stations";
  $("view-game").hidden = view !== "game";
  const onStations = view === "stations";
  for (const [k, l] of Object.entries(stationLayers)) {
    if (onStations && k !== "rejected") l.addTo(map); else if (!onStations) map.removeLayer(l);
  }
  onStations ? shapes.addTo(map) : map.removeLayer(shapes);
  onStations ? loadedLayer.addTo(map) : map.removeLayer(loadedLayer);
  for (const l of Object.values(gameLayers)) onStations ? map.removeLayer(l) : l.addTo(map);
  onStations ? control.addTo(map) : control.remove();
  map.pm.disableDraw();
  save();
}
for (const b of document.querySelectorAll(".tab")) b.onclick = () => showView(b.dataset.view);
sg.showView = showView;

// --------------------------------------------------------------------------- game

const ANSWERS = {
  radius: ["within", "outside"], thermometer: ["hotter", "colder"],
  matching: ["same", "different"], measuring: ["closer", "further"], tentacles: [],
};

function setGame(doc, name, hidden, refresh = true) {
  sg.game = { doc, name: name || "game.json", hidden: hidden || [], labels: [] };
  const ours = doc && typeof doc === "object" && doc.format === "stations-generator-game/1";
  sg.game.ours = ours;
  if (ours) sg.game.hidden = (doc.questions || []).map((_q, i) => !!(hidden || [])[i]);
  $("add-question").hidden = !ours;
  $("game-info").textContent = ours ? `${name}: ${doc.questions.length} questions` :
    `${name}: a game from the taibeled app, shown as it is (to edit its questions, start a game here); tick its OSM data below`;
  if (!ours) $("game-sources").open = true;
  $("replay").value = $("replay").max = ours ? doc.questions.length : 0;
  if (refresh) { save(); applyGame(); }
  availability();
}
sg.setGame = setGame;

function gameForRequest(upTo) {
  const g = sg.game;
  if (!g.ours) return g.doc;
  const qs = g.doc.questions.filter((_q, i) => !g.hidden[i]);
  return { ...g.doc, questions: upTo === undefined ? qs : qs.slice(0, upTo) };
}
sg.gameForRequest = gameForRequest;

function replayCount() {
  const r = Number($("replay").value), max = Number($("replay").max);
  return r >= max ? undefined : r;
}

let gameSeq = 0, gameShown = 0;
async function applyGame() {
  if (!sg.game) return;
  const seq = ++gameSeq;
  $("game-status").textContent = "Applying the questions…";
  try {
    const res = await api("api/game/apply", { game: gameForRequest(replayCount()), name: sg.game.name, ...gameExtras() });
    const data = await res.json();
    if (seq < gameShown) return;
    gameShown = seq;
    showError("game-error", null);
    sg.gameResult = data;
    drawGame(data);
    return null;
  } catch (e) {
    if (seq < gameShown) return e;
    gameShown = seq;
    showError("game-error", e.message);
    $("game-status").textContent = "";
    return e;
  }
}
sg.applyGame = applyGame;

function drawGame(data) {
  gameLayers.playArea.clearLayers(); gameLayers.remaining.clearLayers(); gameLayers.zones.clearLayers();
  if (data.play_area) L.geoJSON(data.play_area, { style: { color: "#37474f", weight: 2, fill: false } }).addTo(gameLayers.playArea);
  const zones = JSON.parse(data.files["zones.geojson"]);
  const named = zones.features.filter((f) => f.properties.name)
    .map((f) => ({ name: f.properties.name, lat: f.geometry.coordinates[1], lng: f.geometry.coordinates[0] }));
  for (const f of zones.features) {
    const p = f.properties, c = f.geometry.coordinates;
    const name = sg.words.placeName({ ...p, name: p.name || (sg.stationNames || {})[p.id] || "", category: p.category || "stop" }, { lat: c[1], lng: c[0] }, named);
    p.shownName = name.text;
    L.circle([c[1], c[0]], { radius: p.radius_m, color: p.possible ? "#1b5e20" : "#9e9e9e", weight: 1, fillOpacity: p.possible ? 0.12 : 0.03 })
      .bindTooltip(`${escapeHtml(name.text)} <span class="osm-id">${escapeHtml(name.id)}</span>`) // Leaflet shows a string as HTML
      .on("click", (ev) => { L.DomEvent.stopPropagation(ev); gameClick(ev.latlng, p); })
      .addTo(gameLayers.zones);
  }
  // The remaining area on top of the zones (it is not clickable, so zone clicks pass).
  const remaining = JSON.parse(data.files["remaining.geojson"]);
  const rem = remaining.features.find((f) => f.id === "remaining");
  if (rem && rem.geometry) {
    L.geoJSON(rem.geometry, { interactive: false, style: { color: "#e65100", weight: 2, fillColor: "#ff9800", fillOpacity: 0.45 } })
      .addTo(gameLayers.remaining);
  }
  gameLayers.remaining.bringToFront && gameLayers.remaining.bringToFront();
  $("game-status").textContent = sg.words.pageMessage(data.summary.join("\n") + (data.warnings.length ? "\nwarning: " + data.warnings.join("\nwarning: ") : ""));
  sg.game.labels = data.labels;
  renderQuestions();
  nameAnswers(data, zones);
  const ledger = $("ledger");
  ledger.replaceChildren();
  let draw = 0, pick = 0;
  data.ledger.forEach((e, i) => {
    draw += e.draw; pick += e.pick;
    ledger.append(el("tr", {}, el("td", {}, `${i + 1}. ${e.label}${e.times_asked > 1 ? ` (asked ${e.times_asked}×)` : ""}`), el("td", {}, `draw ${e.draw}, pick ${e.pick}`)));
  });
  ledger.append(el("tr", {}, el("td", {}, el("b", {}, "Total")), el("td", {}, `draw ${draw}, pick ${pick}`)));
  if (!sg.game.fitted && gameLayers.playArea.getLayers().length) { fit(gameLayers.playArea.getBounds()); sg.game.fitted = true; }
  sg.gameRendered = (sg.gameRendered || 0) + 1;
}

function renderQuestions() {
  const list = $("questions");
  list.replaceChildren();
  const g = sg.game;
  // A shared game's questions are its events' (shared.js): shown, not edited here.
  if (!g.ours) { for (const l of g.labels) list.append(el("li", {}, l)); return; }
  if (g.shared) { g.doc.questions.forEach((q, i) => list.append(el("li", {}, `${g.labels[i] || q.type}: ${sg.words.answerText(q, g.answerNames)}`))); return; }
  let shown = 0;
  g.doc.questions.forEach((q, i) => {
    const label = g.hidden[i] ? `${q.type} ${q.subject || q.radius || q.distance || ""} (hidden)` : g.labels[shown++] || q.type;
    const move = (d) => () => {
      const j = i + d;
      if (j < 0 || j >= g.doc.questions.length) return;
      [g.doc.questions[i], g.doc.questions[j]] = [g.doc.questions[j], g.doc.questions[i]];
      [g.hidden[i], g.hidden[j]] = [g.hidden[j], g.hidden[i]];
      gameChanged();
    };
    list.append(el("li", { class: g.hidden[i] ? "hidden-q" : "" }, `${label}: ${sg.words.answerText(q, g.answerNames)} `,
      el("button", { title: "Earlier", on: { click: move(-1) } }, "↑"),
      el("button", { title: "Later", on: { click: move(1) } }, "↓"),
      el("button", { title: "Hide / show", class: "q-hide", on: { click: () => { g.hidden[i] = !g.hidden[i]; gameChanged(); } } }, g.hidden[i] ? "show" : "hide"),
      el("button", { title: "Edit the answer", on: { click: () => editQuestion(i) } }, "edit"),
      el("button", { title: "Delete", class: "q-delete", on: { click: () => { g.doc.questions.splice(i, 1); g.hidden.splice(i, 1); gameChanged(); } } }, "✕")));
  });
}

/** Names of the places some recorded answers give as OSM ids (tentacles): the server's
    words for the recorded answers, asked once per set of answers. */
async function nameAnswers(data, zones) {
  const g = sg.game;
  if (!g.ours) return;
  const ids = g.doc.questions.filter((q, i) => !g.hidden[i] && typeof q.answer === "string" && sg.words.OSM_ID.test(q.answer));
  if (!ids.length || ids.every((q) => (g.answerNames || {})[q.answer])) return;
  // Any point of the game map answers (every recorded answer comes back in words).
  const inside = zones.features.find((f) => f.properties.possible) || zones.features[0];
  if (!inside) return;
  const [lon, lat] = inside.geometry.coordinates;
  try {
    const rows = await (await api("api/game/answer", { game: gameForRequest(), name: g.name, hider: `${lat},${lon}`, ...gameExtras() })).json();
    const visible = g.doc.questions.filter((_q, i) => !g.hidden[i]);
    g.answerNames = g.answerNames || {};
    rows.forEach((row, k) => {
      const q = visible[k];
      if (q && typeof q.answer === "string" && sg.words.OSM_ID.test(q.answer) && row.recorded) {
        g.answerNames[q.answer] = row.recorded.replace(/^nearest /, "");
      }
    });
    if (g === sg.game) renderQuestions();
  } catch (_e) { /* the ids stay; nothing is wrong with the game */ }
}

function editQuestion(i) {
  const q = sg.game.doc.questions[i];
  const text = prompt("The question as JSON (GAME.json form)", JSON.stringify(q));
  if (text === null) return;
  try { sg.game.doc.questions[i] = JSON.parse(text); gameChanged(); }
  catch (e) { showError("game-error", "the question is not JSON: " + e.message); }
}

sg.gameChanged = gameChanged;
function gameChanged() {
  $("replay").max = sg.game.doc.questions.filter((_q, i) => !sg.game.hidden[i]).length;
  $("replay").value = $("replay").max;
  $("replay-label").textContent = "all";
  save();
  return applyGame(); // shared.js waits for the new remaining area
}

$("replay").oninput = () => {
  const r = replayCount();
  $("replay-label").textContent = r === undefined ? "all" : String(r);
  applyGame();
};

$("game-from-map").onclick = () => {
  if (!sg.result) return;
  const body = sg.resultBody;
  const doc = {
    format: "stations-generator-game/1", rules: "official", game_size: sg.result.game_size,
    play_area: sg.result.station_map.features.find((f) => f.properties && f.properties.role === "play_area").geometry,
    osm: body.osm, stations: "generated:" + sg.result.key, questions: [],
  };
  setGame(doc, "game.json", []);
};

async function loadGameText(text, name) {
  try {
    const res = await api("api/game/parse", { game: text, name });
    setGame((await res.json()).game, name, []);
  } catch (e) { showError("game-error", `${name}: ${e.message}`); }
}
sg.loadGameText = loadGameText;
$("load-game").onchange = async (ev) => {
  const f = ev.target.files[0];
  if (f) await loadGameText(await f.text(), f.name);
  ev.target.value = "";
};
$("load-pasted").onclick = () => loadGameText($("paste-game").value, "pasted game");

// Adding a question: the type's fields, then clicks on the map.
let clicks = [], thermo = null;
function questionForm() {
  const type = $("q-type").value;
  const subjects = type === "matching" ? ["zone", "zone-letter", "station-letter", "station-length", "transit-line", ...sg.config.subjects]
    : type === "measuring" ? ["coastline", "high_speed_rail", "border", "body_of_water", ...sg.config.subjects] : sg.config.subjects;
  $("q-subject").replaceChildren(...subjects.map((s) => el("option", { value: s }, s)));
  $("q-subject-row").hidden = !["tentacles", "matching", "measuring"].includes(type);
  $("q-distance-row").hidden = !["radius", "thermometer", "tentacles"].includes(type);
  $("q-distance-label").textContent = type === "thermometer" ? "Distance (optional)" : "Radius";
  $("q-distance").value = type === "radius" ? "1 km" : type === "tentacles" ? "2 km" : "";
  const answers = ANSWERS[type];
  $("q-answer").hidden = !answers.length;
  $("q-answer-text").hidden = !!answers.length;
  $("q-answer").replaceChildren(...answers.map((a) => el("option", { value: a }, a)));
  subjectChanged();
  clearMarks();
  $("q-where").textContent = type === "thermometer"
    ? "Tap the map (or use your location): the start, then the end. Or drag the orange handle: it keeps to the thermometer distances of the game."
    : "Tap the map, or use your location: the seeker's position.";
}
function clearMarks() {
  clicks = [];
  gameLayers.marks.clearLayers();
  thermo = null;
  $("q-add").disabled = true;
  $("q-here").textContent = "Use my location";
}
function subjectChanged() {
  $("q-level-row").hidden = !($("q-type").value === "matching" && /^zone/.test($("q-subject").value));
}
$("q-type").onchange = questionForm;
$("q-subject").onchange = subjectChanged;

const ll = (p) => ({ lat: Number(p.lat.toFixed(6)), lon: Number(p.lng.toFixed(6)) });
map.on("click", (ev) => gameClick(ev.latlng, null));
function gameClick(latlng, zone, mode = $("click-mode").value) {
  if (sg.view !== "game" || !sg.game) return;
  if (mode === "hider") { hiderAt(latlng); return; }
  if (mode === "zone") { if (zone) checkZone(zone.id, zone.shownName || zone.name); return; }
  if (!sg.game.ours) return;
  const thermometer = $("q-type").value === "thermometer", need = thermometer ? 2 : 1;
  if (clicks.length >= need) clearMarks();
  clicks.push(L.latLng(latlng));
  if (thermometer && clicks.length === 1) { thermometerHandle(clicks[0]); return "start"; }
  if (thermometer) { gameLayers.marks.clearLayers(); thermo = null; }
  for (const c of clicks) L.circleMarker(c, { radius: 6, color: "#e65100", interactive: false }).addTo(gameLayers.marks);
  if (thermometer) L.polyline(clicks, { color: "#e65100", weight: 3, interactive: false }).addTo(gameLayers.marks);
  $("q-add").disabled = clicks.length < need;
  $("q-here").textContent = "Use my location";
  return thermometer ? "end" : "seeker's position";
}
sg.gameClick = gameClick;

// A thermometer set by dragging (thermometer.js): its end at a legal distance of the game size.
function thermometerHandle(start) {
  const size = (sg.gameResult && sg.gameResult.game_size) || (sg.game.doc && sg.game.doc.game_size) || "S";
  thermo = sg.dragThermometer(start, gameLayers.marks, size, (end, distance) => {
    clicks = [start, end];
    $("q-distance").value = distance;
    $("q-add").disabled = false;
  });
  $("q-here").textContent = "Use my location (the end)";
  if (sg.sheet) sg.sheet.set("peek"); // the handle in sight
}
sg.thermometer = () => thermo && thermo.state();

$("q-add").onclick = () => {
  const type = $("q-type").value;
  const q = { type };
  if (type === "thermometer") { q.start = ll(clicks[0]); q.end = ll(clicks[1]); }
  else q.seeker = ll(clicks[0]);
  if (["tentacles", "matching", "measuring"].includes(type)) q.subject = $("q-subject").value;
  if (type === "matching" && /^zone/.test(q.subject)) q.level = Number($("q-level").value);
  const d = $("q-distance").value.trim();
  if (type === "radius" || type === "tentacles" || (type === "thermometer" && d)) q[type === "thermometer" ? "distance" : "radius"] = d;
  q.answer = ANSWERS[type].length ? $("q-answer").value : $("q-answer-text").value.trim() || "not within";
  if (sg.shared.ask(q)) { clearMarks(); return; } // a shared game: sent to the hider (shared.js)
  if (sg.offline.take(q)) { clearMarks(); return; } // offline: queued, applied when back
  addQuestion(q);
};

/** Add `q` to the open game and apply it; when the server does not answer (it stopped
    while the phone is online: a network error, a refused connection, a 5xx), the
    question goes to offline.js's queue instead, as one asked offline, and the map stays. */
async function addQuestion(q) {
  const g = sg.game, status = $("game-status").textContent;
  g.doc.questions.push(q);
  g.hidden.push(false);
  clearMarks();
  const failed = await gameChanged();
  const at = g.doc.questions.lastIndexOf(q);
  if (!failed || !failed.unreachable || g !== sg.game || at < 0) return;
  g.doc.questions.splice(at, 1);
  g.hidden.splice(at, 1);
  sg.offline.take(q, true);
  $("replay").value = $("replay").max = g.doc.questions.filter((_q, i) => !g.hidden[i]).length;
  $("replay-label").textContent = "all";
  save();
  showError("game-error", null); // offline.js's box says it in words: queued, applied when back
  $("game-status").textContent = status; // the map shows the game as it was
}

async function hiderAt(latlng) {
  gameLayers.hider.clearLayers();
  L.circleMarker(latlng, { radius: 8, color: "#d81b60", weight: 3 }).addTo(gameLayers.hider);
  const hider = `${latlng.lat.toFixed(6)},${latlng.lng.toFixed(6)}`;
  sg.hiderPosition = hider;
  $("hider-where").textContent = `The hider at ${hider} answers:`;
  $("hider-confirm").hidden = true;
  try {
    const res = await api("api/game/answer", { game: gameForRequest(), name: sg.game.name, hider, ...gameExtras() });
    const rows = await res.json();
    sg.hiderAnswers = rows;
    $("hider-answers").replaceChildren(...rows.map((r) => el("li", {},
      `${r.label}: ${r.answer}` + (r.recorded !== null && r.recorded !== r.answer ? ` (recorded: ${r.recorded})` : ""))));
    showError("game-error", null);
  } catch (e) { showError("game-error", e.message); }
}
sg.hiderAt = hiderAt;

async function checkZone(id, name) {
  try {
    const res = await api("api/game/check", { game: gameForRequest(), name: sg.game.name, station: id, ...gameExtras() });
    const r = await res.json();
    sg.zoneCheck = r;
    $("zone-check").textContent = `${r.zone}: ${r.valid ? "VALID" : "NOT VALID"}` +
      (r.allowed_stop ? "" : "\n  not a valid hiding stop under the rules") +
      r.ruled_out_by.map((c) => `\n  ruled out by question ${c.question} (${c.label}): answered ${c.recorded}, this zone would need ${c.needed}`).join("");
    showError("game-error", null);
  } catch (e) { showError("game-error", `${name || id}: ${e.message}`); }
}
sg.checkZone = checkZone;

$("export-game").onclick = () => {
  if (!sg.game) return;
  const text = sg.game.ours ? JSON.stringify(gameForRequest(), null, 2) + "\n" : (typeof sg.game.doc === "string" ? sg.game.doc : JSON.stringify(sg.game.doc, null, 2));
  const a = el("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: sg.game.ours ? "game.json" : sg.game.name });
  document.body.append(a); a.click(); a.remove();
};
$("share-link").onclick = async () => {
  if (!sg.game) return;
  try {
    const res = await api("api/game/share", { game: gameForRequest(), name: sg.game.name, ...gameExtras() });
    const r = await res.json();
    $("share-out").hidden = false;
    $("share-out").value = r.link;
    sg.shareLink = r.link;
    showError("game-error", null);
  } catch (e) { showError("game-error", e.message); }
};

// ------------------------------------------------------------------------- start

window.addEventListener("error", (e) => sg.errors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => sg.errors.push(String(e.reason)));

(async function start() {
  // Every script of the page has run (shared.js comes after this one) before the start.
  if (document.readyState === "loading") await new Promise((r) => document.addEventListener("DOMContentLoaded", r));
  sg.config = await (await api("api/config")).json();
  sourceChoices();
  gameSourceChoices();
  $("settings").replaceChildren(...sg.config.options.map(settingInput));
  downloadButtons();
  availability();
  questionForm();
  const restored = restore();
  const params = new URLSearchParams(location.search);
  if (params.get("hzc")) { await loadGameText(location.href, "share link"); showView("game"); }
  if (restored) regenerate();
  if (restored && sg.game && !params.get("hzc")) applyGame(); // the last game again (from sw.js's copy offline)
  if (sg.offline.queued().length) sg.offline.probe();
  await sg.shared.start(); // a shared game joined by its link, or the one joined before
  sg.ready = true;
})();
