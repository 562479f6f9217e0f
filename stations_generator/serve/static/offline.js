/* Offline play: registers the service worker (sw.js, which keeps the page, its assets and
   the server's last answers), says in words when the server cannot be reached, and keeps
   the questions added meanwhile in a queue on this device (localStorage), applied to the
   game when the server is back. Loaded before app.js, which calls sg.offline. */
"use strict";
(function () {
  const sg = (window.sg = window.sg || {});
  const QUEUE = "stations-generator/serve/queue/v1";
  const PROBE_MS = 10000; // how often the server is asked for while it cannot be reached
  let down = !navigator.onLine, probing = null;

  const $ = (id) => document.getElementById(id);
  function queued() {
    try { return JSON.parse(localStorage.getItem(QUEUE) || "[]"); } catch (_e) { return []; }
  }
  function store(list) {
    try { localStorage.setItem(QUEUE, JSON.stringify(list)); } catch (_e) { /* full or disabled */ }
  }

  function describe(q) {
    const what = q.subject || q.radius || q.distance || "";
    return `${q.type}${what ? " " + what : ""}: ${q.answer} (queued: applied when the server is back)`;
  }

  function show() {
    const box = $("offline-status"), list = $("queued-questions"), waiting = queued();
    if (!box || !list) return;
    box.hidden = !down && !waiting.length;
    const why = navigator.onLine ? `The server cannot be reached (stopped or restarting; asked again every ${PROBE_MS / 1000} s)` : "Offline";
    box.textContent = down
      ? `${why}: showing the last station map and game this device received. Questions added now are queued here and applied when the server is back; answers and zone checks asked before are shown again, new ones need the server.`
      : `${waiting.length} queued question(s) not applied yet: open the game they were asked in and reload the page.`;
    list.replaceChildren(...waiting.map((q) => Object.assign(document.createElement("li"), { textContent: describe(q) })));
  }

  /** The server could not be reached (or the answer is a kept copy): say so, ask again later. */
  function lost() {
    down = true;
    show();
    if (!probing) probing = setInterval(probe, PROBE_MS);
  }

  async function probe() {
    let ok = false;
    try { ok = (await fetch("api/health", { cache: "no-store" })).ok; } catch (_e) { ok = false; }
    if (ok) back();
  }

  /** The server answers again: apply the queued questions to the open game. */
  function back() {
    down = false;
    clearInterval(probing);
    probing = null;
    const waiting = queued(), g = sg.game;
    if (waiting.length && g && g.ours) {
      for (const q of waiting) { g.doc.questions.push(q); g.hidden.push(false); }
      store([]);
      sg.gameChanged();
    }
    show();
  }

  /** Keep question `q` in the queue when the server cannot be reached (or `failed`: its
      send just failed for want of the server); true if kept. */
  function take(q, failed = false) {
    if (!failed && !down && navigator.onLine) return false;
    store([...queued(), q]);
    lost();
    return true;
  }

  sg.offline = { lost, take, probe, queued, isDown: () => down };
  window.addEventListener("offline", lost);
  window.addEventListener("online", probe);
  document.addEventListener("DOMContentLoaded", () => (down ? lost() : show()));
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("sw.js").catch((e) => { sg.swError = String(e); });
  }
})();
