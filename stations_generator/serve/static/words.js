/* The page's words: the server's messages said in terms of the page, and places named as a
   player names them. The server answers with the command line's own one-line messages
   (the same checks as the CLI); the page shows them with the CLI's options turned into the
   page's controls. Loaded before app.js. */
"use strict";

(function words() {
  const sg = (window.sg = window.sg || {});

  // [pattern, replacement]: the CLI's advice -> what to do on the page.
  const ADVICE = [
    [/,? ?or pass --overpass-url to use another instance/g, ", or tick an OSM extract under “OSM data”"],
    [/check your internet connection, or pass --overpass-url[^;.]*/g, "check the server's internet connection, or tick an OSM extract under “OSM data”"],
    [/pass the new URL with --overpass-url/g, "tell whoever runs the server: its Overpass address has moved"],
    [/check the Overpass URL \(--overpass-url\)/g, "tell whoever runs the server: its Overpass address is wrong"],
    [/pick an --osm file/g, "tick an OSM extract under “OSM data”"],
    [/use an OSM extract \(serve --osm FILE\)/g, "tick an OSM extract under “OSM data”"],
    [/give OSM data that covers (it|the play area)/g, "tick OSM data that covers the play area (under “OSM data”)"],
    [/give (an extract|--osm with an extract) that covers it/g, "tick OSM data that covers it (under “OSM data”)"],
    [/give --osm with an extract[^;]*/g, "tick OSM data that covers it (under “OSM data”)"],
    [/leave out --osm to fetch it online/g, "untick the OSM extracts to look it up online"],
    [/try --osm-relation ID/g, "try an OSM relation id under “…or an OSM relation or a place”"],
    [/or give the play area as a file or --osm-relation ID/g, "or load the play area from a file, or give an OSM relation id"],
    [/--stations stations\.geojson \(from generate\) or --osm EXTRACT/g, "a station map (Station map view) or OSM data"],
    [/; see '[^']*--help'/g, ""],
  ];
  // click's ranges: "-5.0 is not in the range 1<=x<=20037508.0", "x>=1", "x<=10".
  const RANGE = /is not in the range (?:(-?[\d.e+]+)(<=?))?x(?:(<=?)(-?[\d.e+]+)|(>=?)(-?[\d.e+]+))?/g;
  const HUGE = 1e7; // upper ends this large (half the Earth in metres…) go unsaid

  function rangeWords(_m, low, lowOp, highOp, high, geOp, ge) {
    if (ge !== undefined) { low = ge; lowOp = geOp === ">" ? "<" : "<="; }
    const parts = [];
    if (low !== undefined) parts.push(lowOp === "<" ? `more than ${Number(low)}` : `${Number(low)} or more`);
    if (high !== undefined && Number(high) < HUGE) parts.push(highOp === "<" ? `less than ${Number(high)}` : `at most ${Number(high)}`);
    return parts.length ? `is not allowed: give ${parts.join(", ")}` : "is not allowed";
  }

  /** A server message in the page's words (CLI flags as the settings' labels). */
  function pageMessage(message) {
    let text = String(message || "");
    for (const [re, to] of ADVICE) text = text.replace(re, to);
    text = text.replace(RANGE, rangeWords);
    const options = (sg.config && sg.config.options) || [];
    for (const o of [...options].sort((a, b) => b.flag.length - a.flag.length)) {
      text = text.split(`'${o.flag}'`).join(`“${o.label}”`).split(o.flag).join(`“${o.label}”`);
    }
    text = text.replace(/is not a valid float/g, "is not a number").replace(/is not a valid integer/g, "is not a whole number");
    return text.replace(/^invalid value for (“[^”]*”):/, "$1:");
  }

  const OSM_ID = /^(node|way|relation)\/\d+$/;
  const words = (category) => String(category || "place").replace(/_/g, " ");

  /** The nearest named place of `named` ([{name, lat, lng}]) to `at`, or null. */
  function nearestNamed(at, named) {
    let best = null, bestD = Infinity;
    for (const p of named || []) {
      const d = sg.geo ? sg.geo.inverse(at, p).distance : Math.hypot(at.lat - p.lat, at.lng - p.lng);
      if (p.name && d < bestD) { best = p; bestD = d; }
    }
    return best;
  }

  /** A station or place as a player names it: its name, or "unnamed <category> near
      <the nearest named place>"; the OSM id apart, as a secondary detail. */
  function placeName(props, at, named) {
    const name = props.name && !OSM_ID.test(props.name) ? props.name : "";
    if (name) return { text: name, id: props.id || "" };
    const near = at ? nearestNamed(at, named) : null;
    const text = `unnamed ${words(props.category)}` + (near ? ` near ${near.name}` : "");
    return { text, id: props.id || props.name || "" };
  }

  /** The named places of a station map (stations and rejected candidates): [{name, lat, lng}]. */
  function namedPlaces(data) {
    const out = [];
    for (const f of data.station_map.features) {
      const p = f.properties;
      if (f.geometry.type === "Point" && p.name && !OSM_ID.test(p.name)) out.push({ name: p.name, lat: f.geometry.coordinates[1], lng: f.geometry.coordinates[0] });
    }
    for (const [lon, lat, name] of data.rejected_candidates) if (name) out.push({ name, lat, lng: lon });
    return out;
  }

  /** A question's recorded answer in words: a place's name (from `names`, id -> name)
      rather than its OSM id, the id beside it. */
  function answerText(q, names) {
    const a = q.answer;
    if (typeof a !== "string" || !OSM_ID.test(a)) return a;
    const named = (names || {})[a];
    return named ? `${named} (${a})` : `the ${q.subject ? words(q.subject) : "place"} ${a}`;
  }

  sg.words = { pageMessage, placeName, namedPlaces, answerText, OSM_ID, category: words };
})();
