/* Helpers of the page's scripts: elements, the server's JSON API, messages, escaping.
   Loaded before app.js; top-level functions, so the other scripts call them by name. */
"use strict";

window.sg = window.sg || {};

function $(id) { return document.getElementById(id); }
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) e.append(c);
  return e;
}

/** An element built from text only (strings become text nodes, never HTML): `attrs` are
    attributes (true: present, false/null: left out) and `onclick` a click handler. Used by
    the feature scripts (referee.js, timetable.js). */
function node(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick") e.addEventListener("click", v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** The server's answer to `path` (a POST of `body` as JSON). A failure throws an Error
    with the server's one-line message; `unreachable` is set on it when the server gave
    no answer (network error, connection refused, sw.js's "not kept" copy) or a 5xx:
    worth trying again later, unlike a 4xx about the request itself. */
async function api(path, body) {
  let res;
  try {
    res = await fetch(path, body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  } catch (_e) { // no answer at all: offline.js says so and asks again later
    window.sg.offline.lost();
    throw Object.assign(new Error("offline: the server cannot be reached; try again when it is back"), { unreachable: true });
  }
  const copy = !!res.headers.get("X-Offline-Copy");
  if (copy) window.sg.offline.lost(); // sw.js answered from its copy
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try { message = (await res.json()).error || message; } catch (_e) { /* not JSON */ }
    // A 5xx is the server's trouble, not the request's: a question is queued for later
    // (app.js), the rest says the server's reason.
    throw Object.assign(new Error(message), { unreachable: copy || res.status >= 500 });
  }
  return res;
}

function showError(box, message) {
  const e = $(box);
  e.textContent = message ? window.sg.words.pageMessage(message) : "";
  e.hidden = !message;
  if (message && window.sg.sheet && window.sg.sheet.state() === "peek") window.sg.sheet.set("half"); // in sight
}
/** A message about the page in the current view's error box (location.js uses it). */
window.sg.showMessage = (message) => showError(window.sg.view === "game" ? "game-error" : "error", message);

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

async function download(path, body, name) {
  const res = await api(path, body);
  const blob = await res.blob();
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}
