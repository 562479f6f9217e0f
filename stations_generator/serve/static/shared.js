/* One game on several phones: the page's client of the server's shared games
   (stations_generator/serve/shared/: routes.py, websocket.py).

   - "Share this game" creates a shared game from the open one and shows its join code, a
     QR code (drawn here by the vendored qrcode.js) and two links, the seekers' and the
     hider's. A link carries its token in the fragment (#game=CODE&token=TOKEN), which the
     browser sends to no server: this page reads it, joins, and removes it from the address
     bar at once. A typed code and token (or a pasted link) join too.
   - The game lives in its events, in the server's order: a seeker's question is a
     "question-asked" event, the hider's answer a "question-answered" one (hider mode
     suggests it from the hider's position, the hider confirms). The answered questions
     are appended to the game's own and applied as any game (remaining area, zones, cost).
     The hider's position goes only in the answer's "hider" key, which the server strips
     from everything a seeker receives.
   - The WebSocket pushes each new event (no polling); a lost connection is tried again
     after 0.5, 1, 2, 4, 8, then every 15 s (said on the page), catching up from the last
     event this phone has. What the phone does meanwhile waits in an outbox, in order, each
     with its own id (a resend is stored once), and is sent when the connection is back.
   - The joined game (code, role, token, events, outbox) is kept on this device across a
     reload until "Leave game". */
"use strict";

(function sharedGame() {
  const sg = (window.sg = window.sg || {});
  const KEY = "stations-generator/serve/shared/v1";
  const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000]; // then 15 s each time
  const PING_MS = 15000, SILENT_MS = 40000; // a connection silent for 40 s is dead
  const ROLE_WORDS = { seeker: "Seeker", hider: "Hider" };
  const $ = (id) => document.getElementById(id);

  let state = null; // {code, role, token, game, events, outbox, next, device, links}
  let ws = null, welcomed = false, attempt = 0, retry = null, heard = 0, leaving = false;
  let suggestion = null; // the hider's answer waiting for confirmation
  const timing = { sent: {}, drawn: {} }; // ms since the epoch, per question id

  // The link's token leaves the address bar before anything else happens.
  const fromLink = linkParts(location.hash);
  if (fromLink) history.replaceState(null, "", location.pathname + location.search);

  /** {code, token} from a link's fragment (#game=CODE&token=T, or #join=CODE.TOKEN). */
  function linkParts(text) {
    const at = String(text || "").indexOf("#");
    if (at < 0) return null;
    const p = new URLSearchParams(String(text).slice(at + 1));
    if (p.get("game") && p.get("token")) return { code: p.get("game"), token: p.get("token") };
    const join = p.get("join") || "";
    const dot = join.indexOf(".");
    return dot > 0 ? { code: join.slice(0, dot), token: join.slice(dot + 1) } : null;
  }

  function load() {
    try { return JSON.parse(localStorage.getItem(KEY) || "null"); } catch (_e) { return null; }
  }
  function save() {
    if (!state) return;
    try { localStorage.setItem(KEY, JSON.stringify(state)); } catch (_e) { /* full or disabled */ }
  }
  function randomId() {
    const bytes = crypto.getRandomValues(new Uint8Array(6));
    return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function post(path, body) {
    let res;
    try {
      res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    } catch (_e) {
      throw new Error("the server cannot be reached; try again when this phone is online");
    }
    let data = null;
    try { data = await res.json(); } catch (_e) { data = null; }
    if (!res.ok) throw new Error((data && data.error) || `${res.status} ${res.statusText}`);
    return data;
  }

  // ------------------------------------------------------------- create and join

  async function create() {
    const g = sg.game;
    if (!g || !g.ours || g.shared) {
      sg.showMessage(g && g.shared ? "this game is shared already: its links are below"
        : "start or load a game first (From the station map, or a game file): that game is what the phones share");
      return;
    }
    try {
      const made = await post("api/shared/games", { game: sg.gameForRequest(), settings: { name: g.name } });
      const links = { seeker: new URL(made.links.seeker, location.href).href, hider: new URL(made.links.hider, location.href).href };
      // A station map built on the page is kept with the game by the server (a restart
      // loses nothing).
      await join(made.code, made.seeker_token, links);
      sg.showMessage(null);
    } catch (e) { sg.showMessage(`sharing the game: ${e.message}`); }
  }

  async function join(code, token, links) {
    const joined = await post("api/shared/join", { code, token });
    leave(false);
    state = {
      code: joined.code, role: joined.role, token, game: joined.game, name: `shared game ${joined.code}`,
      events: [], outbox: [], next: 1, device: randomId(), links: links || null,
    };
    save();
    sg.showView("game");
    await render();
    connect();
  }

  async function typedJoin() {
    const text = $("shared-join-code").value.trim();
    const parts = linkParts(text) || { code: text, token: $("shared-join-token").value.trim() };
    if (!parts.code || !parts.token) {
      sg.showMessage("give the whole link, or the join code and its token (the part of the link after token=)");
      return;
    }
    try {
      await join(parts.code, parts.token);
      $("shared-join-code").value = $("shared-join-token").value = "";
      $("shared-join-form").open = false;
      sg.showMessage(null);
    } catch (e) { sg.showMessage(`joining the game: ${e.message}`); }
  }

  /** Stop following the shared game on this phone (the game stays on the server). */
  function leave(forget = true) {
    leaving = true;
    clearTimeout(retry);
    if (ws) ws.close(1000, "left the game");
    ws = null; welcomed = false; attempt = 0; leaving = false;
    if (sg.game && sg.game.shared) sg.game.shared = null;
    state = null; suggestion = null;
    if (forget) { try { localStorage.removeItem(KEY); } catch (_e) { /* disabled */ } }
    show();
  }

  // ---------------------------------------------------------------- the connection

  function connect() {
    clearTimeout(retry);
    if (!state || (ws && ws.readyState <= 1)) return;
    if (!navigator.onLine) { show(); return; } // "online" connects again
    const url = new URL("api/shared/ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = (ws = new WebSocket(url.href));
    welcomed = false;
    socket.onopen = () => {
      heard = Date.now();
      socket.send(JSON.stringify({ type: "hello", code: state.code, token: state.token, since: last() }));
    };
    socket.onmessage = (m) => { heard = Date.now(); if (socket === ws) received(JSON.parse(m.data)); };
    socket.onclose = (c) => { if (socket === ws) closed(c); };
    show();
  }

  /** Send what the outbox holds, in order (the server stores an id sent twice once). */
  let resend = null;
  function flush() {
    if (ws && welcomed) for (const item of state.outbox) ws.send(JSON.stringify({ type: "event", ...item }));
  }

  function last() { return state.events.length ? state.events[state.events.length - 1].seq : 0; }

  function received(m) {
    if (m.type === "welcome") {
      welcomed = true; attempt = 0;
      state.role = m.role;
      flush();
    } else if (m.type === "event" && m.seq > last()) {
      state.events.push({ seq: m.seq, id: m.id, role: m.role, received: m.received, event: m.event });
      state.outbox = state.outbox.filter((o) => o.id !== m.id);
      save();
      render();
    } else if (m.type === "ack") {
      state.outbox = state.outbox.filter((o) => o.id !== m.id);
      save();
    } else if (m.type === "error" && (m.status === 429 || m.status === 503)) {
      clearTimeout(resend); // busy: the outbox keeps it and sends it again shortly
      resend = setTimeout(flush, 2000);
    } else if (m.type === "error") { // refused for good (malformed, too large, against the rules)
      if (m.id) state.outbox = state.outbox.filter((o) => o.id !== m.id);
      save();
      sg.showMessage(`the shared game did not take it: ${m.error}`);
    }
    show();
  }

  function closed(c) {
    ws = null; welcomed = false;
    if (leaving || !state) return;
    if (c.code === 4403 || c.code === 4404) { // the token no longer opens the game: no retry
      state.refused = c.reason || "this link no longer opens the game";
      show();
      return;
    }
    if (c.code === 4409) state.events = []; // the server has fewer events: take them all again
    const wait = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
    attempt += 1;
    state.retryAt = Date.now() + wait;
    retry = setTimeout(connect, wait);
    show();
  }

  setInterval(() => {
    if (ws && welcomed) {
      if (Date.now() - heard > SILENT_MS) ws.close(4000, "no answer");
      else ws.send(JSON.stringify({ type: "ping" }));
    }
  }, PING_MS);
  setInterval(() => { if (state && !welcomed) show(); }, 1000); // the countdown in words
  window.addEventListener("online", () => { attempt = 0; connect(); });
  window.addEventListener("offline", () => { if (ws) ws.close(4000, "offline"); });

  /** Keep `event` in the outbox (in order, with its own id) and send it now if connected. */
  function send(event) {
    const item = { id: `${state.device}-${state.next++}`, event };
    state.outbox.push(item);
    save();
    if (ws && welcomed) ws.send(JSON.stringify({ type: "event", ...item }));
    show();
    return item;
  }

  /** A seeker's new question (app.js's Add): sent to the hider; true when in a shared game. */
  function ask(q) {
    if (!state) return false;
    if (state.role !== "seeker") { sg.showMessage("the hider answers questions; the seekers ask them"); return true; }
    const { answer: _answer, ...question } = q;
    send({ event: "question-asked", id: `q-${state.device}-${state.next}`, at: new Date().toISOString(), question });
    return true;
  }

  // -------------------------------------------------------------- the game from events

  /** The asked questions in the server's order: {answered: [question with answer], pending}. */
  function derive() {
    const asked = new Map(), answers = new Map();
    // The server names each event's author: only a seeker asks, only the hider answers.
    for (const { role, event: e } of state.events) {
      if (!e || typeof e.id !== "string") continue;
      if (e.event === "question-asked" && role === "seeker" && e.question && typeof e.question === "object"
        && !asked.has(e.id)) asked.set(e.id, e.question);
      else if (e.event === "question-answered" && role === "hider" && asked.has(e.id) && !answers.has(e.id)) answers.set(e.id, e.answer);
    }
    const answered = [], pending = [], ids = [];
    for (const [id, q] of asked) {
      if (answers.has(id)) { answered.push({ ...q, answer: answers.get(id) }); ids.push(id); } else pending.push({ id, q });
    }
    return { answered, pending, ids };
  }

  // One render at a time; the events that arrive meanwhile make one more (a catch-up of
  // many events applies the game once or twice, not once per event).
  let rendering = Promise.resolve(), again = false;
  function render() {
    if (again) return rendering;
    again = true;
    rendering = rendering.then(() => { again = false; return renderNow(); })
      .catch((e) => sg.showMessage(e.message));
    return rendering;
  }

  async function renderNow() {
    if (!state) return;
    const d = derive();
    const doc = { ...state.game, questions: [...(state.game.questions || []), ...d.answered] };
    let changed = false;
    if (!sg.game || sg.game.shared !== state.code) {
      sg.setGame(doc, state.name, [], false);
      sg.game.shared = state.code;
      changed = true;
    } else if (JSON.stringify(sg.game.doc.questions) !== JSON.stringify(doc.questions)) {
      sg.game.doc = doc;
      sg.game.hidden = doc.questions.map(() => false);
      changed = true;
    }
    show();
    if (!changed) return;
    await sg.gameChanged();
    for (const id of d.ids) if (!timing.drawn[id]) timing.drawn[id] = Date.now();
  }

  function describe(q) {
    const what = q.subject || q.radius || q.distance || "";
    const at = q.seeker || q.start;
    return `${q.type}${what ? " " + what : ""}` + (at ? ` from ${Number(at.lat).toFixed(5)}, ${Number(at.lon).toFixed(5)}` : "");
  }

  let listed = "", waiting = 0;
  function showPending(pending) {
    const list = $("shared-pending"), hider = state.role === "hider";
    const key = JSON.stringify([state.role, pending.map((p) => p.id), state.outbox.map((o) => o.id)]);
    if (key === listed) return; // unchanged: the buttons stay where a finger may be
    listed = key;
    // A new question for the hider: the sheet opens on it (and the phone buzzes, if it can).
    if (hider && pending.length > waiting) {
      if (sg.sheet && sg.sheet.state() === "peek") sg.sheet.set("half");
      if (navigator.vibrate) navigator.vibrate(200);
    }
    waiting = pending.length;
    const items = pending.map(({ id, q }) => el("li", {}, `${describe(q)}: `, hider
      ? el("button", { type: "button", class: "shared-answer-here", "data-question": id, on: { click: () => suggest(id, q) } }, "Answer from my position")
      : "waiting for the hider's answer"));
    for (const o of state.outbox) {
      if (o.event.event === "question-asked") items.push(el("li", { class: "queued" }, `${describe(o.event.question)}: not sent yet (kept on this phone, sent when the connection is back)`));
    }
    list.replaceChildren(...items);
  }

  // -------------------------------------------------------------- the hider's answers

  /** Hider mode for one question: the answer from the hider's position, shown first. */
  async function suggest(id, q) {
    try {
      const fix = await sg.location.current();
      const d = derive();
      const game = { ...state.game, questions: [...(state.game.questions || []), ...d.answered, q] };
      const rows = await post("api/game/answer", { game, name: state.name, hider: `${fix.lat.toFixed(6)},${fix.lng.toFixed(6)}` });
      const row = rows[rows.length - 1];
      const value = typeof row.value === "string" ? row.value : row.answer;
      const choices = [...new Set([value, ...(ANSWERS[q.type] || ["not within"])])];
      suggestion = { id, value, at: { lat: Number(fix.lat.toFixed(6)), lon: Number(fix.lng.toFixed(6)) } };
      $("shared-answer-where").textContent = `${describe(q)}: from where you are (${fix.lat.toFixed(5)}, ${fix.lng.toFixed(5)}, ±${Math.round(fix.accuracy)} m) the answer is "${row.answer}". Send it? Your position is kept from the seekers.`;
      $("shared-answer-value").replaceChildren(...choices.map((c) => el("option", { value: c }, c === value ? row.answer : c)));
      $("shared-answer-value").value = value;
      $("shared-answer").hidden = false;
      if (sg.sheet && sg.sheet.state() === "peek") sg.sheet.set("half");
      sg.showMessage(null);
    } catch (e) { sg.showMessage(e.message); }
  }

  function confirmAnswer() {
    if (!suggestion || !state) return;
    const { id, at } = suggestion;
    suggestion = null;
    $("shared-answer").hidden = true;
    timing.sent[id] = Date.now();
    // The position only under "hider": the server keeps it from every seeker.
    send({ event: "question-answered", id, at: new Date().toISOString(), answer: $("shared-answer-value").value, hider: at });
  }

  const ANSWERS = {
    radius: ["within", "outside"], thermometer: ["hotter", "colder"],
    matching: ["same", "different"], measuring: ["closer", "further"], tentacles: ["not within"],
  };

  // --------------------------------------------------------------------- the page

  function status() {
    if (!state) return "Play this game on several phones: share it from here, or join with its link or code.";
    const who = `You play as ${ROLE_WORDS[state.role] || state.role} in shared game ${state.code}.`;
    const queued = state.outbox.length ? ` ${state.outbox.length} event(s) kept on this phone until the connection is back.` : "";
    if (state.refused) return `${who} The server refused this phone: ${state.refused}. Leave the game and open its link again.`;
    if (welcomed) return `${who} Live: every question and answer shows here as it is sent.${queued}`;
    if (!navigator.onLine) return `${who} Offline: questions asked now are kept on this phone and sent when it is back online.${queued}`;
    if (state.retryAt && state.retryAt > Date.now()) {
      const s = Math.ceil((state.retryAt - Date.now()) / 1000);
      return `${who} The connection to the server is lost: trying again in ${s} s (attempt ${attempt}).${queued}`;
    }
    return `${who} Connecting to the server…${queued}`;
  }

  function show() {
    $("shared-status").textContent = status();
    $("shared-leave").hidden = !state;
    $("shared-create").hidden = !!state;
    $("shared-join-form").hidden = !!state;
    const invite = !!(state && state.links);
    $("shared-invite").hidden = !invite;
    if (invite) showInvite();
    if (state) showPending(derive().pending);
    else { $("shared-pending").replaceChildren(); listed = ""; $("shared-answer").hidden = true; }
    $("q-answer-row").hidden = !!state; // the hider answers a shared game's questions
    if (state && state.role === "hider") $("add-question").hidden = true;
    else if (sg.game) $("add-question").hidden = !sg.game.ours;
  }

  function showInvite() {
    $("shared-code").textContent = state.code;
    $("shared-seeker-link").value = state.links.seeker;
    $("shared-hider-link").value = state.links.hider;
    // Links to 127.0.0.1 or localhost open the page on this computer only.
    $("shared-local").hidden = !/^(127\.|localhost$|\[::1\]$)/.test(location.hostname);
    $("shared-switch").textContent = state.role === "hider" ? "Play as a seeker on this phone" : "Play as the hider on this phone";
    const role = $("shared-qr-role").value;
    const link = state.links[role] || state.links.seeker;
    const canvas = $("shared-qr");
    if (canvas.dataset.link === link) return;
    drawQr(canvas, link);
    canvas.dataset.link = link;
    // Its text alternative: what it holds, and where the same link is as text.
    const whose = role === "hider" ? "hider's" : "seekers'";
    canvas.setAttribute("aria-label", `QR code of the ${whose} link (the same link is in the field ${whose === "hider's" ? "Hider's" : "Seekers'"} link below)`);
  }

  /** The QR code of `text` on `canvas`, with the 4-module quiet zone readers need. */
  function drawQr(canvas, text) {
    const qr = window.qrcode(0, "M"); // type 0: the smallest version that holds the text
    qr.addData(text);
    qr.make();
    const n = qr.getModuleCount(), quiet = 4, cell = Math.max(2, Math.floor(canvas.width / (n + 2 * quiet)));
    const ctx = canvas.getContext("2d"), offset = Math.floor((canvas.width - cell * n) / 2);
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = "#000";
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) ctx.fillRect(offset + c * cell, offset + r * cell, cell, cell);
    sg.sharedQr = { modules: n, text };
  }

  $("shared-create").addEventListener("click", create);
  $("shared-join").addEventListener("click", typedJoin);
  $("shared-leave").addEventListener("click", () => leave(true));
  $("shared-switch").addEventListener("click", async () => { // the organiser's other role
    const links = state && state.links;
    if (!links) return;
    const other = linkParts(state.role === "hider" ? links.seeker : links.hider);
    try { await join(other.code, other.token, links); sg.showMessage(null); } catch (e) { sg.showMessage(e.message); }
  });
  $("shared-qr-role").addEventListener("change", () => state && state.links && showInvite());
  $("shared-answer-send").addEventListener("click", confirmAnswer);
  $("shared-answer-cancel").addEventListener("click", () => { suggestion = null; $("shared-answer").hidden = true; });

  /** At the page's start (app.js): join from the link, or follow the game joined before. */
  async function start() {
    if (fromLink) {
      try { await join(fromLink.code, fromLink.token); } catch (e) { sg.showView("game"); sg.showMessage(`joining the game: ${e.message}`); }
      return;
    }
    const kept = load();
    if (!kept || !kept.code || !kept.token) { show(); return; }
    state = kept;
    state.refused = null;
    await render();
    connect();
  }

  sg.shared = {
    start, ask, leave, timing,
    /** What the tests compare between phones. */
    snapshot: () => state && {
      code: state.code, role: state.role, live: welcomed, events: state.events.map((e) => [e.seq, e.id]),
      outbox: state.outbox.length, pending: derive().pending.map((p) => p.id), questions: sg.game ? sg.game.doc.questions.length : 0,
    },
  };
})();
