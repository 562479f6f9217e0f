/* The page's service worker: the page works offline once it has been opened.
   The server fills in VERSION (the package version and a hash of the files below) and
   SHELL (the page and every asset); a new release makes a new cache and drops the old.
   - the page and its assets: from the cache (the page itself from the network first);
   - /api/*: the network first; the last good answer of GET /api/config (and the
     referee's cards, the timetable feeds) and of the game, station-map and timetable
     POSTs is kept, keyed by a hash of
     the request body, and given back offline with the header X-Offline-Copy, so a
     reload offline redraws them;
   - map tiles: kept as seen (the last MAX_TILES); a tile never seen is an empty image
     offline, not an error. */
"use strict";

const VERSION = "__VERSION__";
const SHELL = __SHELL__;
const SHELL_CACHE = `shell-${VERSION}`, API_CACHE = "api-v1", TILE_CACHE = "tiles-v1";
const KEPT_GETS = ["api/config", "api/referee/cards", "api/timetable/feeds"];
const KEPT_POSTS = ["api/stationmap", "api/game/apply", "api/game/answer", "api/game/check", "api/game/parse", "api/timetable/reach"];
// Tiles are opaque (another site) and browsers count each as megabytes of quota: the
// last 500 are kept, the oldest go first. The last 200 answers of the server are kept.
const MAX_TILES = 500, MAX_ANSWERS = 200;
// A 1×1 transparent PNG for a tile that was never seen.
const EMPTY_PNG = Uint8Array.from(atob(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="), (c) => c.charCodeAt(0));

self.addEventListener("install", (ev) => {
  // The GETs too: the page asked them before this worker was there to keep them.
  ev.waitUntil(caches.open(SHELL_CACHE).then((c) => c.addAll(SHELL))
    .then(() => caches.open(API_CACHE)).then((c) => c.addAll(KEPT_GETS.map((p) => "/" + p)))
    .then(() => self.skipWaiting()));
});
self.addEventListener("activate", (ev) => {
  ev.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("shell-") && k !== SHELL_CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (ev) => {
  const req = ev.request, url = new URL(req.url);
  if (url.hostname === "tile.openstreetmap.org") ev.respondWith(tile(req));
  else if (url.origin !== location.origin) return;
  else if (url.pathname.startsWith("/api/")) {
    const path = url.pathname.slice(1);
    if (req.method === "GET" && KEPT_GETS.includes(path)) ev.respondWith(kept(req, "/" + path));
    else if (req.method === "POST" && KEPT_POSTS.includes(path)) ev.respondWith(keyed(req, path));
  } else if (req.method === "GET") ev.respondWith(shell(req));
});

/** The page from the network first (so a new page shows at once), assets from the cache. */
async function shell(req) {
  const cache = await caches.open(SHELL_CACHE);
  if (req.mode === "navigate") {
    try { return await fetch(req); } catch (_e) { return (await cache.match("/")) || offline(); }
  }
  return (await cache.match(req)) || fetch(req);
}

/** The network's answer, kept when good; offline, the last kept answer. */
async function kept(req, key) {
  const cache = await caches.open(API_CACHE);
  let res;
  try { res = await fetch(req); } catch (_e) {
    const old = await cache.match(key);
    if (!old) return offline();
    const headers = new Headers(old.headers);
    headers.set("X-Offline-Copy", "1");
    return new Response(old.body, { status: old.status, headers });
  }
  if (res.ok) await keep(cache, key, res.clone(), MAX_ANSWERS);
  return res;
}

/** A POST kept under a hash of its body (without the changing progress_id). */
async function keyed(req, path) {
  const text = await req.clone().text();
  let body = text;
  try { const doc = JSON.parse(text); delete doc.progress_id; body = canonical(doc); } catch (_e) { /* as sent */ }
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  const hex = [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return kept(req, `/offline-copy/${path}/${hex}`);
}

/** JSON with its keys sorted: the same request, the same key. */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

function offline() {
  const error = "offline: the server cannot be reached and this answer was not kept; try again when it is back";
  return new Response(JSON.stringify({ error }), { status: 503, headers: { "Content-Type": "application/json", "X-Offline-Copy": "1" } });
}

async function tile(req) {
  const cache = await caches.open(TILE_CACHE);
  const old = await cache.match(req);
  if (old) return old;
  try {
    const res = await fetch(req);
    if (res.ok || res.type === "opaque") keep(cache, req, res.clone(), MAX_TILES);
    return res;
  } catch (_e) {
    return new Response(EMPTY_PNG, { headers: { "Content-Type": "image/png" } });
  }
}

/** Put `res` in `cache` under `key`, keeping the last `max` entries; a full store only stops the keeping. */
async function keep(cache, key, res, max) {
  try {
    await cache.delete(key); // put again: last in the order
    await cache.put(key, res);
    const keys = await cache.keys(); // in the order they were put
    for (const old of keys.slice(0, Math.max(0, keys.length - max))) await cache.delete(old);
  } catch (_e) { /* storage full: shown, not kept */ }
}
