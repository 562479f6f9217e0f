/* The settings panel of the station map view: one input per `generate` option (the
   player's label, the CLI name in the tooltip), the OSM and water files to use, and the
   game view's data for a game from the taibeled app. Loaded before app.js; its functions
   are called once app.js has the server's configuration (sg.config). */
"use strict";

function settingInput(opt) {
  const id = "opt-" + opt.name;
  let input;
  if (opt.kind === "flag") {
    input = el("input", { type: "checkbox", id });
  } else if (opt.kind === "choice") {
    input = el("select", { id }, el("option", { value: "" }, "inferred"),
      ...opt.choices.map((c) => el("option", { value: c }, c)));
  } else if (opt.kind === "list") {
    input = el("select", { id, multiple: true, size: 6 },
      ...sg.config.categories.map((c) => el("option", { value: c }, c)));
  } else {
    input = el("input", { id, type: opt.kind === "text" ? "text" : "number",
      step: opt.kind === "int" ? "1" : "any",
      placeholder: opt.default === null ? "" : String(opt.default) });
  }
  input.addEventListener("change", changed);
  if (input.tagName === "INPUT" && input.type !== "checkbox") input.addEventListener("input", changed);
  // The player's label; the CLI option only as the tooltip (for who also uses the CLI).
  const help = opt.page_help + (opt.default !== null && opt.kind !== "flag" ? ` Default: ${opt.default}.` : "");
  return el("div", { class: "setting", title: `command line: ${opt.flag}` },
    el("label", { for: id }, el("span", { class: "label" }, opt.label), " ", input,
      opt.limits ? el("span", { class: "limits" }, opt.limits) : "",
      opt.name === "game_size" ? el("span", { id: "inferred-size", class: "help" }) : ""),
    el("div", { class: "help" }, help));
}

function readSettings() {
  const out = {};
  for (const opt of sg.config.options) {
    const e = $("opt-" + opt.name);
    if (opt.kind === "flag") { if (e.checked) out[opt.name] = true; continue; }
    if (opt.kind === "list") {
      const chosen = [...e.selectedOptions].map((o) => o.value);
      if (chosen.length) out[opt.name] = chosen;
      continue;
    }
    if (e.value === "") continue;
    out[opt.name] = opt.kind === "int" ? Number(e.value) : opt.kind === "float" ? Number(e.value) : e.value;
  }
  return out;
}

function writeSettings(settings) {
  for (const opt of sg.config.options) {
    const e = $("opt-" + opt.name), v = settings[opt.name];
    if (opt.kind === "flag") e.checked = !!v;
    else if (opt.kind === "list") for (const o of e.options) o.selected = (v || []).includes(o.value);
    else e.value = v === undefined || v === null ? "" : String(v);
  }
}

function sourceChoices() {
  const box = $("sources");
  box.replaceChildren();
  const add = (name, role, checked) => box.append(el("label", {},
    el("input", { type: "checkbox", class: "src-" + role, value: name, checked, on: { change: changed } }),
    ` ${role === "osm" ? "OSM" : "water"}: ${name}`));
  // The first extract by default: an extract that misses the area only adds a warning.
  sg.config.osm_files.forEach((n, i) => add(n, "osm", i === 0));
  for (const n of sg.config.water_files) add(n, "water", true);
  box.append(el("p", { class: "help" }, "Tick the OSM extracts and water files that cover the play area."));
  if (!sg.config.osm_files.length) box.append(el("p", { class: "help" }, sg.config.online
    ? "This server has no OSM extract: places are looked up on OpenStreetMap online (kept once fetched)."
    : "This server has no OSM extract and works offline: load a play area only where whoever runs it has data."));
}
function gameSourceChoices() {
  $("game-osm").replaceChildren(...sg.config.osm_files.map((n) => el("label", {},
    el("input", { type: "checkbox", class: "src-game", value: n, on: { change: () => sg.game && !sg.game.ours && applyGame() } }), ` ${n}`)));
  $("game-area").append(...sg.config.other_files.map((n) => el("option", { value: n }, n)));
  $("game-area").onchange = () => sg.game && !sg.game.ours && applyGame();
}
function gameExtras() {
  if (!sg.game || sg.game.ours) return {};
  const extra = { osm: chosen("game") };
  if ($("game-area").value) extra.play_area = $("game-area").value;
  return extra;
}
const chosen = (role) => [...document.querySelectorAll(".src-" + role)].filter((c) => c.checked).map((c) => c.value);

