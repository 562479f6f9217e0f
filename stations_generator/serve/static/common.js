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

async function api(path, body) {
  let res;
  try {
    res = await fetch(path, body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  } catch (_e) { // no answer at all: offline.js says so and asks again later
    window.sg.offline.lost();
    throw new Error("offline: the server cannot be reached; try again when it is back");
  }
  if (res.headers.get("X-Offline-Copy")) window.sg.offline.lost(); // sw.js answered from its copy
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try { message = (await res.json()).error || message; } catch (_e) { /* not JSON */ }
    throw new Error(message);
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
