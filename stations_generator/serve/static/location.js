/* The player's location on the page and the geodesy the page needs for it.

   sg.geo: distances and destinations on the WGS84 ellipsoid (Vincenty's formulae,
   accurate to well under a millimetre at the few-hundred-kilometre distances of a game;
   they converge everywhere but near the antipode, which no question reaches).
   sg.location: the device's position (navigator.geolocation), shown live on the map as a
   dot and its accuracy circle once the player asks for it (the locate button, or "Use my
   location"); current() answers the latest fix, or waits (bounded) for one. The Game view's
   "Use my location" and "Answer from my position" buttons are wired here. */
"use strict";

(function playerLocation() {
  const sg = (window.sg = window.sg || {});
  const A = 6378137.0, F = 1 / 298.257223563, B = A * (1 - F); // WGS84
  const rad = (d) => (d * Math.PI) / 180, deg = (r) => (r * 180) / Math.PI;

  /** Geodesic distance (m) and initial azimuth (degrees from north) from p to q ({lat, lng}). */
  function inverse(p, q) {
    const L = rad(q.lng - p.lng);
    const U1 = Math.atan((1 - F) * Math.tan(rad(p.lat))), U2 = Math.atan((1 - F) * Math.tan(rad(q.lat)));
    const sU1 = Math.sin(U1), cU1 = Math.cos(U1), sU2 = Math.sin(U2), cU2 = Math.cos(U2);
    let lam = L, sinS = 0, cosS = 1, sig = 0, cos2a = 1, cos2sm = 0, sinL = 0, cosL = 1;
    for (let i = 0; i < 200; i++) {
      sinL = Math.sin(lam); cosL = Math.cos(lam);
      sinS = Math.hypot(cU2 * sinL, cU1 * sU2 - sU1 * cU2 * cosL);
      if (sinS === 0) return { distance: 0, azimuth: 0 };
      cosS = sU1 * sU2 + cU1 * cU2 * cosL;
      sig = Math.atan2(sinS, cosS);
      const sinA = (cU1 * cU2 * sinL) / sinS;
      cos2a = 1 - sinA * sinA;
      cos2sm = cos2a ? cosS - (2 * sU1 * sU2) / cos2a : 0;
      const C = (F / 16) * cos2a * (4 + F * (4 - 3 * cos2a));
      const prev = lam;
      lam = L + (1 - C) * F * sinA * (sig + C * sinS * (cos2sm + C * cosS * (-1 + 2 * cos2sm * cos2sm)));
      if (Math.abs(lam - prev) < 1e-12) break;
    }
    const u2 = (cos2a * (A * A - B * B)) / (B * B);
    const bigA = 1 + (u2 / 16384) * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)));
    const bigB = (u2 / 1024) * (256 + u2 * (-128 + u2 * (74 - 47 * u2)));
    const dS = bigB * sinS * (cos2sm + (bigB / 4) * (cosS * (-1 + 2 * cos2sm * cos2sm) -
      (bigB / 6) * cos2sm * (-3 + 4 * sinS * sinS) * (-3 + 4 * cos2sm * cos2sm)));
    const azimuth = deg(Math.atan2(cU2 * sinL, cU1 * sU2 - sU1 * cU2 * cosL));
    return { distance: B * bigA * (sig - dS), azimuth: (azimuth + 360) % 360 };
  }

  /** The point `distance` metres from p ({lat, lng}) along the azimuth (degrees). */
  function direct(p, azimuth, distance) {
    const a1 = rad(azimuth), sA1 = Math.sin(a1), cA1 = Math.cos(a1);
    const tU1 = (1 - F) * Math.tan(rad(p.lat)), cU1 = 1 / Math.sqrt(1 + tU1 * tU1), sU1 = tU1 * cU1;
    const s1 = Math.atan2(tU1, cA1), sinA = cU1 * sA1, cos2a = 1 - sinA * sinA;
    const u2 = (cos2a * (A * A - B * B)) / (B * B);
    const bigA = 1 + (u2 / 16384) * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)));
    const bigB = (u2 / 1024) * (256 + u2 * (-128 + u2 * (74 - 47 * u2)));
    let sig = distance / (B * bigA), cos2sm = 0, sinS = 0, cosS = 1;
    for (let i = 0; i < 200; i++) {
      cos2sm = Math.cos(2 * s1 + sig); sinS = Math.sin(sig); cosS = Math.cos(sig);
      const dS = bigB * sinS * (cos2sm + (bigB / 4) * (cosS * (-1 + 2 * cos2sm * cos2sm) -
        (bigB / 6) * cos2sm * (-3 + 4 * sinS * sinS) * (-3 + 4 * cos2sm * cos2sm)));
      const prev = sig;
      sig = distance / (B * bigA) + dS;
      if (Math.abs(sig - prev) < 1e-12) break;
    }
    sinS = Math.sin(sig); cosS = Math.cos(sig); cos2sm = Math.cos(2 * s1 + sig);
    const x = sU1 * sinS - cU1 * cosS * cA1;
    const lat = Math.atan2(sU1 * cosS + cU1 * sinS * cA1, (1 - F) * Math.hypot(sinA, x));
    const lam = Math.atan2(sinS * sA1, cU1 * cosS - sU1 * sinS * cA1);
    const C = (F / 16) * cos2a * (4 + F * (4 - 3 * cos2a));
    const L = lam - (1 - C) * F * sinA * (sig + C * sinS * (cos2sm + C * cosS * (-1 + 2 * cos2sm * cos2sm)));
    let lng = p.lng + deg(L);
    lng = ((lng + 540) % 360) - 180;
    return L_latLng(deg(lat), lng);
  }
  const L_latLng = (lat, lng) => (window.L ? window.L.latLng(lat, lng) : { lat, lng });

  sg.geo = { inverse, direct };

  // ------------------------------------------------------------- the device's position

  const state = { last: null, watching: false, error: null, waiters: [] };
  let dot = null, ring = null, button = null;

  function show(fix) {
    const map = sg.map;
    if (!map) return;
    const at = [fix.lat, fix.lng];
    if (!dot) {
      ring = window.L.circle(at, { radius: fix.accuracy, color: "#1565c0", weight: 1, fillOpacity: 0.12, interactive: false });
      dot = window.L.circleMarker(at, { radius: 7, color: "#fff", weight: 2, fillColor: "#1565c0", fillOpacity: 1, interactive: false });
      ring.addTo(map); dot.addTo(map);
    }
    ring.setLatLng(at).setRadius(fix.accuracy);
    dot.setLatLng(at).bringToFront();
  }

  function failed(message) {
    state.error = message;
    for (const w of state.waiters.splice(0)) w.reject(new Error(message));
    if (button) button.classList.remove("on");
  }

  /** Start following the device's position (asks the player's permission once). */
  function watch() {
    if (state.watching) return;
    if (!navigator.geolocation) { failed("this browser cannot tell the location; tap the map instead"); return; }
    state.watching = true;
    if (button) button.classList.add("on");
    navigator.geolocation.watchPosition((pos) => {
      const fix = { lat: pos.coords.latitude, lng: pos.coords.longitude, accuracy: pos.coords.accuracy, at: pos.timestamp };
      state.last = fix;
      state.error = null;
      sg.locationFixes = (sg.locationFixes || 0) + 1;
      show(fix);
      for (const w of state.waiters.splice(0)) w.resolve(fix);
    }, (err) => {
      state.watching = false;
      failed(err.code === 1 ? "the location is not allowed for this page: allow it in the browser's site settings, or tap the map instead"
        : "no location fix yet (go outside, or tap the map instead)");
    }, { enableHighAccuracy: true, maximumAge: 5000, timeout: 30000 });
  }

  /** The latest fix {lat, lng, accuracy}, waiting up to `timeoutMs` for a first one. */
  function current(timeoutMs = 20000) {
    watch();
    if (state.last) return Promise.resolve(state.last);
    if (state.error && !state.watching) return Promise.reject(new Error(state.error));
    return new Promise((resolve, reject) => {
      const w = { resolve, reject };
      state.waiters.push(w);
      setTimeout(() => {
        const i = state.waiters.indexOf(w);
        if (i >= 0) { state.waiters.splice(i, 1); reject(new Error("no location fix yet (go outside, or tap the map instead)")); }
      }, timeoutMs);
    });
  }

  function addButton() {
    const map = sg.map;
    if (!map || !window.L) return;
    const Locate = window.L.Control.extend({
      options: { position: "topleft" },
      onAdd() {
        const bar = window.L.DomUtil.create("div", "leaflet-bar");
        button = window.L.DomUtil.create("button", "locate-button", bar);
        button.type = "button";
        button.id = "locate";
        button.title = "Show my location";
        button.setAttribute("aria-label", "Show my location");
        button.textContent = "◎";
        window.L.DomEvent.disableClickPropagation(bar);
        window.L.DomEvent.on(button, "click", () => {
          current().then((fix) => map.setView([fix.lat, fix.lng], Math.max(map.getZoom(), 15)))
            .catch((e) => sg.showMessage && sg.showMessage(e.message));
        });
        return bar;
      },
    });
    new Locate().addTo(map);
  }

  // The Game view's buttons: the seeker's position of a question, and hider mode from the
  // hider's own position (shown first, answered once the hider confirms it).
  function gameButtons() {
    const byId = (id) => document.getElementById(id), L = window.L;
    byId("q-here").addEventListener("click", async () => {
      if (!sg.game || !sg.game.ours) { sg.showMessage("start or load a game first: questions belong to a game"); return; }
      try {
        const fix = await current();
        const what = sg.gameClick(L.latLng(fix.lat, fix.lng), null, "seeker");
        byId("q-where").textContent = `Your location (±${Math.round(fix.accuracy)} m) is the ${what}.`;
        sg.showMessage(null);
      } catch (e) { sg.showMessage(e.message); }
    });
    byId("hider-here").addEventListener("click", async () => {
      if (!sg.game) { sg.showMessage("start or load a game first: the answers are to its questions"); return; }
      try {
        const fix = await current(), at = L.latLng(fix.lat, fix.lng), layer = sg.gameLayers.hider;
        sg.hiderCandidate = at;
        layer.clearLayers();
        L.circle(at, { radius: fix.accuracy, color: "#d81b60", weight: 1, fillOpacity: 0.1, interactive: false }).addTo(layer);
        L.circleMarker(at, { radius: 8, color: "#d81b60", weight: 3, dashArray: "3 3" }).addTo(layer);
        sg.map.panTo(at);
        byId("hider-where").textContent = `You are at ${fix.lat.toFixed(5)}, ${fix.lng.toFixed(5)} (±${Math.round(fix.accuracy)} m), shown in pink on the map. Answer every question from here?`;
        byId("hider-confirm").hidden = false;
        sg.showMessage(null);
      } catch (e) { sg.showMessage(e.message); }
    });
    byId("hider-confirm").addEventListener("click", () => {
      byId("hider-confirm").hidden = true;
      if (sg.hiderCandidate) sg.hiderAt(sg.hiderCandidate);
    });
  }

  sg.location = { watch, current, state };
  addButton();
  gameButtons();
})();
