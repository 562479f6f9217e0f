/* The referee part of the Game view: a round's game log, kept in this browser
   (localStorage), checked event by event by the server (POST api/referee/record, the
   same rule checks as `referee record`). Every text from the log or the deck reaches
   the page as text (textContent, text nodes), never as HTML. */
"use strict";

(function referee() {
  const KEY = "stations-generator/referee/v1";
  const R = { log: null, state: null, deck: null, error: null, updates: 0, answered: 0, picked: [] };
  window.sg = window.sg || {};
  window.sg.referee = R;

  const ANSWERS = ["within", "not within", "hotter", "colder", "same", "different",
    "closer", "further", "sent", "cannot answer"];
  const byId = (id) => document.getElementById(id);

  const button = (label, onclick, attrs) => node("button", { type: "button", class: "ref-button", onclick, ...(attrs || {}) }, label);
  const field = (label, control) => node("label", { class: "ref-field" }, label + " ", control);
  const option = (value, label) => node("option", { value }, label);

  async function post(path, body) {
    const res = await fetch(path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    let data = null;
    try { data = await res.json(); } catch (_e) { data = null; }
    if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
    return data;
  }

  function showError(message) {
    R.error = message || null;
    const box = byId("ref-error");
    box.textContent = message ? "refused: " + message : "";
    box.hidden = !message;
  }

  function saveLog(log) {
    R.log = log;
    try {
      if (log) localStorage.setItem(KEY, JSON.stringify(log)); else localStorage.removeItem(KEY);
    } catch (_e) { showError("this browser did not keep the log (storage full or off); download it"); }
  }

  // ------------------------------------------------------------------ the state as text

  const hm = (iso) => (iso ? iso.slice(11, 16) : "-");
  function mins(v) {
    if (v === null || v === undefined) return "-";
    const h = Math.floor(Math.round(v) / 60), m = Math.round(v) % 60;
    return h ? `${h} h ${String(m).padStart(2, "0")}` : `${m} min`;
  }

  function clockLines(s) {
    const c = s.clock, out = [`${hm(c.at)} ${s.size} game, ${c.phase}` + (c.in_lunch ? " (lunch)" : "") + (c.in_break ? " (break)" : "")];
    if (c.hiding_left_min) out.push(`hiding time left ${mins(c.hiding_left_min)} (ends ${hm(c.hiding_ends)})`);
    if (c.seeking_started) {
      out.push(`game time ${mins(c.game_min)} (breaks ${mins(c.breaks_min)}, paused ${mins(c.paused_min)})` +
        (c.round_ends ? `; round ends ${hm(c.round_ends)}` : ""));
    }
    if (c.total_min !== null && ["found", "over"].includes(c.phase)) out.push(`total time ${mins(c.total_min)} (bonuses ${mins(c.bonus_min)})`);
    const lunch = Object.entries(c.lunch || {});
    if (lunch.length) out.push("lunch " + lunch.map(([t, a]) => `${t} ${hm(a)}`).join(", "));
    return out;
  }

  function questionLines(s) {
    const out = [];
    if (s.open_question) out.push(`open: ${s.open_question.id} ${s.open_question.label}, answer due ${hm(s.open_question.deadline)}`);
    if (s.thermometer) out.push(`thermometer ${s.thermometer.id} running`);
    out.push(s.can_ask ? "can ask now" : "cannot ask: " + (s.cannot_ask_because[0] || ""));
    out.push("next question costs:");
    for (const n of s.next_costs) out.push(`  ${n.label}: ${n.allowed ? `draw ${n.draw} pick ${n.pick}` : "not allowed"}` + (n.note ? ` (${n.note})` : ""));
    if (s.ledger.length) out.push("questions:");
    for (const r of s.ledger) {
      out.push(`  ${r.id} ${hm(r.asked_at)} ${r.label}${r.times_asked > 1 ? ` ×${r.times_asked}` : ""}: draw ${r.draw} pick ${r.pick} — ${r.answer || r.card || "open"}, ${r.reward}`);
    }
    for (const h of s.hints || []) out.push(`hint ${hm(h.at)}: ${h.accepted ? "accepted" : "unasked"}, ${h.reward}`);
    for (const f of s.free_questions || []) {
      out.push(`free ${hm(f.at)}: ${f.question}` + (f.answer ? ` — ${f.answer}` : "") + (f.exit_blue_lines ? ", they must exit the blue lines" : ""));
    }
    return out;
  }

  function cardLines(s) {
    const k = s.cards;
    if (!k) return ["no cards in this log"];
    const out = [
      `hand (${k.hand.length}/${k.hand_limit === null ? "∞" : k.hand_limit}): ${k.hand.join(", ") || "empty"}`,
      `deck ${k.deck}, discard pile ${k.discard}, rewards owed ${k.pending_rewards === null ? "-" : k.pending_rewards}`,
    ];
    if (k.blocks.length) out.push("blocked: " + k.blocks.join(", "));
    return out;
  }

  function curseRow(curse) {
    const text = `curse ${curse.card} since ${hm(curse.cast_at)}` +
      (curse.times_out_at ? `, times out ${hm(curse.times_out_at)}` : "") +
      (curse.veto_min !== null && curse.veto_min !== undefined ? `, veto now ${curse.veto_min} min` : ", no veto");
    return node("li", {}, text, " ",
      button("Cleared", () => record("curse-cleared", { card: curse.card })),
      button("Vetoed", () => record("curse-vetoed", { card: curse.card })));
  }

  function show(state) {
    R.state = state;
    R.updates += 1;
    byId("ref-clock").textContent = state ? clockLines(state).join("\n") : "No round yet: start one below.";
    byId("ref-questions").textContent = state ? questionLines(state).join("\n") : "";
    byId("ref-cards").textContent = state ? cardLines(state).join("\n") : "";
    byId("ref-curses").replaceChildren(...(state && state.cards ? state.cards.curses.map(curseRow) : []));
    byId("ref-warnings").textContent = state && state.warnings.length ? state.warnings.map((w) => "warning: " + w).join("\n") : "";
    byId("ref-count").textContent = R.log ? `${R.log.events.length} event${R.log.events.length === 1 ? "" : "s"} in the log (${R.log.size} game)` : "";
  }

  async function refresh() {
    if (!R.log) { show(null); return; }
    const at = byId("ref-state-at").value;
    try {
      show(await post("api/referee/state", at ? { log: R.log, at } : { log: R.log }));
      showError(null);
    } catch (e) { showError(e.message); }
  }

  // ------------------------------------------------------------------------ the events

  async function record(kind, fields) {
    if (!R.log) { showError("start a round first (Start a round)"); return false; }
    const event = { event: kind, ...(fields || {}) };
    const at = byId("ref-at").value, note = byId("ref-note").value.trim();
    if (at) event.at = at;
    if (note) event.note = note;
    try {
      const r = await post("api/referee/record", { log: R.log, event });
      saveLog(r.log);
      show(r.state);
      showError(null);
      byId("ref-note").value = "";
      return true;
    } catch (e) { showError(e.message); return false; } finally { R.answered += 1; }
  }
  R.record = record;

  async function start() {
    if (R.log && R.log.events.length && !confirm("Start a new round? The current log is replaced (download it first to keep it).")) return;
    const body = { size: byId("ref-size").value, rules: byId("ref-rules").value };
    if (byId("ref-setup").value) body.setup = byId("ref-setup").value;
    if (byId("ref-max-hours").value) body.max_hours = Number(byId("ref-max-hours").value);
    if (byId("ref-start-hand").checked && R.picked.length) body.hand = [...R.picked];
    try {
      const r = await post("api/referee/start", body);
      saveLog(r.log);
      show(r.state);
      showError(null);
    } catch (e) { showError(e.message); }
  }

  function gameQuestions() {
    const g = window.sg.game;
    return g && g.ours && g.doc && Array.isArray(g.doc.questions) ? g.doc.questions : [];
  }

  function questionChoices() {
    const qs = gameQuestions(), box = byId("ref-question"), was = box.value;
    box.replaceChildren(...(qs.length ? qs.map((q, i) => option(String(i),
      `${i + 1}. ${q.type} ${q.subject || q.photo || q.radius || q.distance || ""}`.trim()))
      : [option("", "none: add one with the Questions form above")]));
    box.value = was && Number(was) < qs.length ? was : qs.length ? String(qs.length - 1) : "";
  }

  async function askFormQuestion() {
    questionChoices();
    const qs = gameQuestions(), i = byId("ref-question").value;
    if (i === "") { showError("no question in the Questions list: add one with the Questions form (Add a question)"); return; }
    const q = { ...qs[Number(i)] };
    const answer = q.answer;
    delete q.answer; // recorded with question-answered
    if (await record("question-asked", { question: q }) && typeof answer === "string") byId("ref-answer").value = answer;
  }

  function askPhoto() {
    const phase = R.state && R.state.clock.phase === "end game" ? "end" : "long";
    record("question-asked", { question: { type: "photo", photo: byId("ref-photo").value, phase } });
  }

  function askJson() {
    let q;
    try { q = JSON.parse(byId("ref-question-json").value); } catch (e) { showError("the question is not JSON: " + e.message); return; }
    record("question-asked", { question: q });
  }

  function freeQuestion() {
    const free = byId("ref-free").value, fields = { free };
    const answer = byId("ref-answer").value.trim();
    if (answer) fields.answer = answer;
    if (free === "blue-lines") fields.exit_blue_lines = byId("ref-exit-blue").checked;
    record("free-question", fields);
  }

  function answered() {
    const answer = byId("ref-answer").value.trim();
    if (!answer) { showError("type the hider's answer (within, hotter, same, closer, sent, …)"); return; }
    record("question-answered", { answer });
  }

  const ids = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);
  function withExtras(fields) {
    for (const k of ["discards", "paid", "draws"]) {
      const v = ids(byId("ref-" + k).value);
      if (v.length) fields[k] = v;
    }
    const target = byId("ref-target").value;
    if (target) fields.target = target;
    return fields;
  }

  function listed(kind) {
    if (!R.picked.length) { showError("add the cards to the list first (pick a card, Add to the list)"); return; }
    record(kind, { cards: [...R.picked] }).then((ok) => { if (ok) { R.picked = []; renderPicked(); } });
  }

  function replaced() {
    if (!R.picked.length) { showError("add the inappropriate cards to the list first"); return; }
    const draws = ids(byId("ref-draws").value);
    record("cards-replaced", { cards: [...R.picked], ...(draws.length ? { draws } : {}) })
      .then((ok) => { if (ok) { R.picked = []; renderPicked(); byId("ref-draws").value = ""; } });
  }

  function renderPicked() {
    byId("ref-picked").replaceChildren(...R.picked.map((id, i) => node("li", {}, id, " ",
      button("Remove", () => { R.picked.splice(i, 1); renderPicked(); }, { title: "Remove " + id }))));
  }

  function cardPicker(id) {
    const box = node("select", { id });
    const kinds = {};
    for (const c of (R.deck ? R.deck.cards : [])) (kinds[c.kind] = kinds[c.kind] || []).push(c);
    for (const [kind, cards] of Object.entries(kinds)) {
      box.append(node("optgroup", { label: kind }, ...cards.map((c) => option(c.id, c.name))));
    }
    return box;
  }

  // ---------------------------------------------------------------------------- the form

  function startForm() {
    const setups = R.deck ? R.deck.setups : [];
    return node("details", { id: "ref-start-box", open: !R.log },
      node("summary", {}, "Start a round"),
      field("Game size", node("select", { id: "ref-size" }, option("S", "Small"), option("M", "Medium"), option("L", "Large"))),
      field("Question rules", node("select", { id: "ref-rules" }, option("jltg-eu", "JLTG.EU house rules"), option("official", "official"))),
      field("Deck setup", node("select", { id: "ref-setup" }, option("", "the whole jltg-eu deck"), ...setups.map((s) => option(s, s)))),
      field("Maximum game time, hours (blank: 9 in Large games, none in S and M)",
        node("input", { id: "ref-max-hours", type: "number", min: "0.5", step: "0.5", inputmode: "decimal" })),
      node("label", { class: "ref-check" }, node("input", { id: "ref-start-hand", type: "checkbox" }),
        " The hider starts with the card list (Cards, below) as the hand"),
      button("Start a new round", start, { id: "ref-start" }));
  }

  function group(title, ...children) {
    return node("fieldset", { class: "ref-group" }, node("legend", {}, title), ...children);
  }

  function eventForms() {
    const deck = R.deck || { answer_cards: [], photos: [] };
    return [
      field("Time of the event (blank: now)", node("input", { id: "ref-at", type: "time" })),
      field("Note (kept with the event)", node("input", { id: "ref-note", maxlength: "500" })),
      group("Round",
        button("Hiding started", () => record("hiding-started")),
        button("Seeking started", () => record("seeking-started")),
        button("End game started", () => record("end-game-started")),
        button("End game left", () => record("end-game-left")),
        button("Hider found", () => record("hider-found"))),
      group("Pauses",
        field("Lunch of", node("select", { id: "ref-team" }, option("both", "everyone"), option("seekers", "the seekers"), option("hider", "the hider"))),
        button("Lunch started", () => record("lunch-started", { team: byId("ref-team").value })),
        button("Break started", () => record("break-started")),
        button("Break ended", () => record("break-ended"))),
      group("Questions",
        field("A question of the Questions list", node("select", { id: "ref-question" })),
        button("Record it as asked", askFormQuestion, { id: "ref-ask-form" }),
        field("A photo", node("select", { id: "ref-photo" }, ...deck.photos.map((p) => option(p.id, p.name)))),
        button("Photo asked", askPhoto),
        node("details", {}, node("summary", {}, "…or a question as JSON (GAME.json form)"),
          node("textarea", { id: "ref-question-json", rows: "3", placeholder: '{"type": "radius", "seeker": "60.17,24.94", "radius": "1 km"}' }),
          button("Asked: this question", askJson)),
        button("Thermometer started", () => record("thermometer-started")),
        button("Thermometer cancelled", () => record("thermometer-cancelled")),
        field("The hider's answer", node("input", { id: "ref-answer", list: "ref-answers", maxlength: "200" })),
        node("datalist", { id: "ref-answers" }, ...ANSWERS.map((a) => option(a, a))),
        button("Answered", answered, { id: "ref-answered" }),
        field("…or a card played instead", node("select", { id: "ref-answer-card" }, ...deck.answer_cards.map((c) => option(c, c)))),
        button("Answered with the card", () => record("question-answered", withExtras({ card: byId("ref-answer-card").value }))),
        button("Hint given, accepted (draw 1 pick 1)", () => record("hint-given", { accepted: true })),
        button("Hint given unasked (free)", () => record("hint-given", { accepted: false })),
        field("A free question (its answer: the hider's answer above)", node("select", { id: "ref-free" },
          ...(deck.free_questions || []).map((f) => option(f.id, f.words)))),
        node("label", { class: "ref-check" }, node("input", { id: "ref-exit-blue", type: "checkbox" }),
          " They must exit the blue lines (blue lines only)"),
        button("Free question asked", freeQuestion)),
      group("Cards",
        field("Card", cardPicker("ref-card")),
        button("Add to the list", () => { R.picked.push(byId("ref-card").value); renderPicked(); }, { id: "ref-add-card" }),
        node("ul", { id: "ref-picked", class: "ref-list" }),
        button("The list drawn", () => listed("cards-drawn"), { id: "ref-drawn" }),
        button("The list kept", () => listed("cards-kept"), { id: "ref-kept" }),
        button("The list discarded", () => listed("cards-discarded")),
        button("The list replaced (inappropriate; their replacements: Drawn, below)", replaced),
        button("Clear the list", () => { R.picked = []; renderPicked(); }),
        button("Card played (power-up)", () => record("card-played", withExtras({ card: byId("ref-card").value }))),
        button("Curse cast", () => record("curse-cast", withExtras({ card: byId("ref-card").value })), { id: "ref-cast" }),
        button("Curse cleared", () => record("curse-cleared", { card: byId("ref-card").value })),
        button("Curse vetoed", () => record("curse-vetoed", { card: byId("ref-card").value })),
        node("details", {}, node("summary", {}, "With the card played or cast (ids, comma-separated)"),
          field("Discarded", node("input", { id: "ref-discards" })),
          field("Paid (casting cost)", node("input", { id: "ref-paid" })),
          field("Drawn", node("input", { id: "ref-draws" })),
          field("Duplicates (Duplicate Another Card)", node("select", { id: "ref-target" }, option("", "none"),
            ...(R.deck ? R.deck.cards.map((c) => option(c.id, c.name)) : []))))),
    ];
  }

  function otherEvent() {
    let fields = {};
    const text = byId("ref-other-json").value.trim();
    if (text) {
      try { fields = JSON.parse(text); } catch (e) { showError("the fields are not JSON: " + e.message); return; }
      if (!fields || typeof fields !== "object" || Array.isArray(fields)) { showError('the fields are a JSON object, e.g. {"card": "move"}'); return; }
    }
    record(byId("ref-other").value, fields);
  }

  function otherForm() {
    const kinds = R.deck ? R.deck.events : [];
    return node("details", {}, node("summary", {}, "Any event, with its fields as JSON"),
      field("Event", node("select", { id: "ref-other" }, ...kinds.map((k) => option(k, k)))),
      node("textarea", { id: "ref-other-json", rows: "2", placeholder: '{"card": "move", "discards": ["time-bonus-5"]}' }),
      button("Record this event", otherEvent, { id: "ref-other-record" }));
  }

  function logTools() {
    return group("The log",
      field("State at (blank: now)", node("input", { id: "ref-state-at", type: "time" })),
      button("Show the state", refresh, { id: "ref-refresh" }),
      button("Download the log", download, { id: "ref-download" }),
      field("Upload a log (JSON)", node("input", { id: "ref-upload", type: "file", accept: ".json,application/json" })));
  }

  function download() {
    if (!R.log) { showError("no log yet: start a round first"); return; }
    const text = JSON.stringify(R.log, null, 2) + "\n";
    const a = node("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: "game-log.json" });
    document.body.append(a); a.click(); a.remove();
  }

  async function upload(ev) {
    const f = ev.target.files[0];
    ev.target.value = "";
    if (!f) return;
    let log;
    try { log = JSON.parse(await f.text()); } catch (e) { showError(`${f.name} is not JSON: ${e.message}`); return; }
    try {
      const state = await post("api/referee/state", { log });
      saveLog(log);
      show(state);
      showError(null);
    } catch (e) { showError(`${f.name}: ${e.message}`); }
  }

  function build() {
    const root = byId("referee");
    root.replaceChildren(
      node("p", { class: "help" }, "Keep the round's game log here (in this browser): each event is checked against the house rules, as `referee record` does."),
      node("div", { id: "ref-error", class: "error", role: "alert", hidden: true }),
      node("pre", { id: "ref-clock", class: "status ref-state", "aria-live": "polite" }),
      node("ul", { id: "ref-curses", class: "ref-list" }),
      node("pre", { id: "ref-cards", class: "status ref-state" }),
      node("pre", { id: "ref-questions", class: "status ref-state" }),
      node("pre", { id: "ref-warnings", class: "status ref-state" }),
      node("p", { id: "ref-count", class: "help" }),
      startForm(), ...eventForms(), otherForm(), logTools());
    byId("ref-question").addEventListener("focus", questionChoices);
    byId("ref-question").addEventListener("pointerdown", questionChoices);
    byId("ref-upload").addEventListener("change", upload);
    questionChoices();
  }

  async function init() {
    try {
      const res = await fetch("api/referee/cards");
      R.deck = await res.json();
    } catch (_e) { R.deck = null; }
    try { R.log = JSON.parse(localStorage.getItem(KEY) || "null"); } catch (_e) { R.log = null; }
    build();
    if (R.deck === null) showError("the card deck could not be loaded; reload the page");
    await refresh();
    // The clock moves: the state again every minute while the Game view is shown.
    setInterval(() => { if (R.log && !byId("view-game").hidden && !byId("ref-state-at").value) refresh(); }, 60000);
    R.ready = true;
  }
  init();
})();
