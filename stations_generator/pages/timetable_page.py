"""The ``timetable reach --html`` and ``timetable audit --html`` pages.

A map of the hiding zones coloured by the earliest time the hider (or the seekers) can
be in them, with a legend that says each colour's band in words and numbers, every
zone's tooltip saying its time, and a table of the zones by arrival, so colour is never
the only carrier. Built from the commands' JSON (the GeoJSON of ``reach``, the audit's
document), with the project's offline page blocks
(:mod:`stations_generator.pages.offline`): only map tiles load from the network, every
string is escaped, and the same input gives a byte-identical page.

Zones are drawn as Leaflet circles of the hiding radius (a circle in metres on the
Web Mercator map: at city scale within a fraction of a metre of the geodesic circle).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import folium
from shapely.geometry.base import BaseGeometry

from stations_generator.pages.offline import (
    StyledBlock,
    add_area,
    add_page_controls,
    html_text,
    offline_map,
    render_station_map,
)

__all__ = ["BAND_COLOURS", "audit_tables_html", "band_of", "bands", "reach_page"]

#: Band colours, earliest first (a dark-to-light sequence), then "after the deadline"
#: and "not reached". Each band is also named in words and numbers in the legend.
BAND_COLOURS = ("#1b5e20", "#43a047", "#c0ca33", "#fdd835", "#8e24aa", "#9e9e9e")

_STYLE = """        <style>
        #sg-timetable { font: 13px/1.4 system-ui, sans-serif; padding: 8px 14px 24px; }
        #sg-timetable table { border-collapse: collapse; margin-bottom: 12px; }
        #sg-timetable th, #sg-timetable td { padding: 2px 8px; border-bottom: 1px solid #ddd;
            text-align: left; }
        #sg-timetable td.n { text-align: right; }
        #sg-timetable .swatch { display: inline-block; width: 12px; height: 12px;
            border: 1px solid #333; margin-right: 6px; vertical-align: middle; }
        #sg-timetable .sg-table { overflow-x: auto; }
        </style>
"""


def bands(deadline_min: float) -> list[tuple[float, str]]:
    """The colour bands: (upper bound in minutes after the start, label), earliest first.

    Parameters
    ----------
    deadline_min : float
        Minutes from the start to the deadline.

    Returns
    -------
    list of (float, str)
        Quarters of the time to the deadline, then after it (infinite bound), then not
        reached (NaN bound).
    """
    edges = [deadline_min * q / 4 for q in (1, 2, 3, 4)]
    out = [(edges[0], f"within {edges[0]:g} min")]
    out += [(hi, f"{lo:g} to {hi:g} min") for lo, hi in zip(edges, edges[1:], strict=False)]
    out.append((float("inf"), f"after the deadline ({deadline_min:g} min)"))
    out.append((float("nan"), "not reached"))
    return out


def band_of(minutes: float | None, deadline_min: float) -> int:
    """The band index of a time in minutes after the start (None: not reached).

    Returns
    -------
    int
    """
    table = bands(deadline_min)
    if minutes is None:
        return len(table) - 1
    for i, (hi, _) in enumerate(table[:-1]):
        if minutes <= hi:
            return i
    return len(table) - 2


def _minutes(props: Mapping[str, Any]) -> float | None:
    value = props.get("minutes")
    return None if value is None else float(value)


def _or_dash(value: object) -> object:
    return "-" if value is None else value


def _clock(iso: object) -> str:
    return "-" if not iso else str(iso).replace("T", " ")[:16]


def _legend_html(query: Mapping[str, Any], counts: Sequence[int], deadline_min: float) -> str:
    rows = []
    for (_, label), colour, count in zip(bands(deadline_min), BAND_COLOURS, counts, strict=True):
        rows.append(
            f'<tr><td><span class="swatch" style="background:{colour}"></span>'
            f'{html_text(label)}</td><td class="n">{count}</td></tr>'
        )
    return (
        f"<h2>Reachable zones: {html_text(query.get('feed'))}</h2>"
        f"<p>From {html_text(query.get('from'))} at {html_text(_clock(query.get('start')))}; "
        f"deadline {html_text(_clock(query.get('deadline')))} "
        f"({html_text(query.get('deadline_note'))}). "
        f"{int(query.get('reachable', 0))} of {int(query.get('zones', 0))} zones "
        f"(radius {float(query.get('radius_m', 0)):g} m) are reachable by the deadline.</p>"
        "<table><thead><tr><th>Earliest time in the zone</th><th>Zones</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _zone_table_html(features: Sequence[Mapping[str, Any]]) -> str:
    def key(f: Mapping[str, Any]) -> tuple[float, str]:
        m = _minutes(f["properties"])
        return (float("inf") if m is None else m, str(f["properties"].get("id")))

    rows = []
    for f in sorted(features, key=key):
        p = f["properties"]
        m = _minutes(p)
        rows.append(
            f"<tr><td>{html_text(p.get('name'))}</td><td>{html_text(p.get('id'))}</td>"
            f"<td>{html_text(_clock(p.get('arrival')))}</td>"
            f'<td class="n">{"-" if m is None else f"{m:.0f}"}</td>'
            f"<td>{'yes' if p.get('reachable') else 'no'}</td></tr>"
        )
    return (
        '<div class="sg-table" tabindex="0" role="region" aria-label="Zones by arrival">'
        "<table><thead><tr><th>Zone (station)</th><th>Id</th><th>Earliest time in it</th>"
        "<th>Minutes</th><th>By the deadline</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def reach_page(
    document: Mapping[str, Any],
    title: str,
    *,
    area: BaseGeometry | None = None,
    extra_html: str = "",
) -> str:
    """An offline page: the zones coloured by arrival, a legend, the zones' table.

    Parameters
    ----------
    document : mapping
        The GeoJSON of ``timetable reach`` (a FeatureCollection with a ``query`` member).
    title : str
        Plain text (escaped here).
    area : shapely geometry, optional
        A play area to draw.
    extra_html : str
        More HTML for below the legend (already escaped, e.g. :func:`audit_tables_html`).

    Returns
    -------
    str
        The page (deterministic; only tiles load from the network).
    """
    query = document.get("query", {})
    features = list(document.get("features", []))
    start = str(query.get("start", ""))
    deadline_min = _span_minutes(start, str(query.get("deadline", "")))
    lons = [f["geometry"]["coordinates"][0] for f in features] or [0.0]
    lats = [f["geometry"]["coordinates"][1] for f in features] or [0.0]
    if area is not None:
        w, s, e, n = area.bounds
        lons, lats = [*lons, w, e], [*lats, s, n]
    box = [[min(lats), min(lons)], [max(lats), max(lons)]]
    m = offline_map(box, title=f"Reach: {title}", height="62%")
    if area is not None:
        add_area(m, [area], "Play area")
    table = bands(deadline_min)
    groups = [
        folium.FeatureGroup(name=html_text(f"Zones: {label}"), show=True) for _, label in table
    ]
    counts = [0] * len(table)
    for f in features:
        p = f["properties"]
        i = band_of(_minutes(p), deadline_min)
        counts[i] += 1
        lon, lat = f["geometry"]["coordinates"]
        arrival = _clock(p.get("arrival"))
        m_text = "not reached" if _minutes(p) is None else f"{_minutes(p):.0f} min, at {arrival}"
        folium.Circle(
            [lat, lon],
            radius=float(p.get("radius_m", 0)),
            color=BAND_COLOURS[i],
            weight=1,
            fill=True,
            fill_color=BAND_COLOURS[i],
            fill_opacity=0.35,
            tooltip=html_text(f"{p.get('name')} ({p.get('id')}): {m_text} [{table[i][1]}]"),
        ).add_to(groups[i])
    for group, count in zip(groups, counts, strict=True):
        if count:
            group.add_to(m)
    body = (
        '<div id="sg-timetable">'
        + _legend_html(query, counts, deadline_min)
        + extra_html
        + _zone_table_html(features)
        + "<p>Map data © OpenStreetMap contributors, ODbL 1.0</p></div>"
    )
    StyledBlock("TimetableTables", _STYLE, body).add_to(m)
    add_page_controls(m, box)
    return render_station_map(m)


def _span_minutes(start: str, end: str) -> float:
    from datetime import datetime

    try:
        span = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except ValueError:
        return 60.0  # no deadline given: bands of an hour
    return max(span.total_seconds() / 60.0, 1.0)


def audit_tables_html(audit: Mapping[str, Any]) -> str:
    """The audit's tables (game sizes, lines, failing stops) as escaped HTML.

    Parameters
    ----------
    audit : mapping
        The audit's JSON document (``sizes``, ``lines``, ``invalid_stops``, ``window``).

    Returns
    -------
    str
    """
    sizes = "".join(
        f'<tr><td>{html_text(s["game_size"])}</td><td class="n">{float(s["radius_m"]):g}</td>'
        f'<td class="n">{int(s["hiding_min"])}</td><td class="n">{int(s["zones"])}</td>'
        f'<td class="n">{int(s["reachable"])}</td></tr>'
        for s in audit.get("sizes", [])
    )
    lines = "".join(
        f"<tr><td>{html_text(ln['name'])}</td><td>{html_text(ln['mode'])}</td>"
        f'<td class="n">{int(ln["trips"])}</td><td>{html_text(ln["busiest_station"])}</td>'
        f'<td class="n">{html_text(ln["per_hour"])}</td>'
        f'<td class="n">{html_text(_or_dash(ln["longest_wait_min"]))}</td></tr>'
        for ln in audit.get("lines", [])
    )
    bad = "".join(
        f"<tr><td>{html_text(b['name'])}</td><td>{html_text(b['id'])}</td>"
        f"<td>{html_text(b['reason'])}</td></tr>"
        for b in audit.get("invalid_stops", [])
    )
    window = audit.get("window", {})
    limits = audit.get("limits", {})
    return (
        "<h3>Zones by game size</h3><table><thead><tr><th>Size</th><th>Radius (m)</th>"
        "<th>Hiding period (min)</th><th>Zones</th><th>Reachable in it</th></tr></thead>"
        f"<tbody>{sizes}</tbody></table>"
        f"<h3>Lines from {html_text(_clock(window.get('from')))} to "
        f"{html_text(_clock(window.get('to')))}</h3><table><thead><tr><th>Line</th>"
        "<th>Mode</th><th>Trips</th><th>Busiest station</th><th>Departures / h there</th>"
        f"<th>Longest wait (min)</th></tr></thead><tbody>{lines}</tbody></table>"
        f"<h3>Stops that fail the house rules' validity ({len(audit.get('invalid_stops', []))})"
        "</h3><p>A departure at the centre stop at least every "
        f"{html_text(limits.get('centre_max_wait_min'))} minutes and inside the zone at least "
        f"every {html_text(limits.get('zone_max_wait_min'))} minutes, over the window.</p>"
        "<table><thead><tr><th>Station</th>"
        f"<th>Id</th><th>Why</th></tr></thead><tbody>{bad}</tbody></table>"
    )
