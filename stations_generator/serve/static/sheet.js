/* The bottom sheet of the page on a phone (below 700 px wide or 500 px high, as in
   app.css): the map fills the screen and the controls live in a sheet that peeks, covers
   half or the whole screen. Its bar drags it (pointer events: touch and mouse alike) and
   snaps it to the nearest of the three; a tap on the bar opens it a step; its buttons set
   one. On a desktop the sheet is the sidebar and none of this shows. */
"use strict";

(function sheet() {
  const sg = (window.sg = window.sg || {});
  const box = document.getElementById("sheet");
  const bar = document.getElementById("sheet-bar");
  const phone = window.matchMedia("(max-width: 700px), (max-height: 500px)"); // as app.css
  const STATES = ["peek", "half", "full"];

  function heights() {
    const main = box.parentElement.getBoundingClientRect().height;
    return { peek: Math.min(150, main * 0.35), half: main / 2, full: main }; // as app.css
  }

  function settle() {
    // The map's visible part changed: Leaflet measures its container again.
    if (sg.map) setTimeout(() => sg.map.invalidateSize({ pan: false }), 200);
  }

  function set(state) {
    if (!STATES.includes(state)) return;
    box.dataset.state = state;
    box.style.height = "";
    for (const s of STATES) document.getElementById("sheet-" + s).classList.toggle("on", s === state);
    settle();
  }

  /** The height of the map the sheet leaves free (px), 0 on a desktop. */
  function covered() {
    return phone.matches ? box.getBoundingClientRect().height : 0;
  }

  for (const s of STATES) document.getElementById("sheet-" + s).addEventListener("click", () => set(s));

  let drag = null;
  bar.addEventListener("pointerdown", (e) => {
    if (!phone.matches || e.target.tagName === "BUTTON") return;
    drag = { y: e.clientY, h: box.getBoundingClientRect().height, moved: false };
    box.classList.add("dragging");
    bar.setPointerCapture(e.pointerId);
  });
  bar.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const h = heights();
    const want = Math.min(h.full, Math.max(h.peek, drag.h + (drag.y - e.clientY)));
    drag.moved = drag.moved || Math.abs(drag.y - e.clientY) > 4;
    box.style.height = want + "px";
  });
  function end(e) {
    if (!drag) return;
    const h = heights(), now = box.getBoundingClientRect().height;
    const tapped = !drag.moved;
    drag = null;
    box.classList.remove("dragging");
    if (bar.hasPointerCapture(e.pointerId)) bar.releasePointerCapture(e.pointerId);
    if (tapped) { // a tap on the bar: open a step, or close from full
      const at = STATES.indexOf(box.dataset.state);
      set(at === STATES.length - 1 ? "peek" : STATES[at + 1]);
      return;
    }
    let best = "half";
    for (const s of STATES) if (Math.abs(h[s] - now) < Math.abs(h[best] - now)) best = s;
    set(best);
  }
  bar.addEventListener("pointerup", end);
  bar.addEventListener("pointercancel", end);
  phone.addEventListener("change", settle);

  sg.sheet = { set, covered, state: () => box.dataset.state, phone: () => phone.matches };
  set(box.dataset.state);
})();
