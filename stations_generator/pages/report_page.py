"""The ``report --html`` page: a map with one layer per question subject, and the table.

Kept apart from the command so that ``report`` without ``--html`` never loads folium.
"""

from __future__ import annotations

import folium
import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.geodesy import LocalFrame
from stations_generator.core.questions.availability import VERDICT_TEXT, Report, SubjectReport
from stations_generator.pages.offline import (
    StyledBlock,
    add_area,
    add_page_controls,
    html_text,
    offline_map,
    render_station_map,
)
from stations_generator.pages.palette import Palette
from stations_generator.pages.palette import palette as palette_named


def _reach_ring(area: BaseGeometry, distance_m: float) -> BaseGeometry:
    """The area grown by ``distance_m`` (in its UTM zone), back in lon/lat."""
    frame = LocalFrame.for_bounds(area.bounds)
    projected = shapely.transform(
        area, lambda xy: np.column_stack(frame.project(xy[:, 0], xy[:, 1]))
    )
    grown = projected.buffer(distance_m, quad_segs=16).simplify(distance_m / 200)
    return shapely.transform(grown, lambda xy: np.column_stack(frame.unproject(xy[:, 0], xy[:, 1])))


_TABLE_STYLE = """        <style>
        #sg-report { font: 13px/1.4 system-ui, sans-serif; padding: 8px 14px 24px; }
        #sg-report .sg-table { overflow-x: auto; }
        #sg-report table { border-collapse: collapse; }
        #sg-report th, #sg-report td { padding: 2px 8px; border-bottom: 1px solid #ddd;
            text-align: left; }
        #sg-report td.n { text-align: right; }
        #sg-report .usable { color: #1b5e20; }
        #sg-report .only_one { color: #e65100; }
        #sg-report .none { color: #b71c1c; font-weight: bold; }
        #sg-report .unknown, #sg-report .not_assessed { color: #555; font-style: italic; }
        #sg-report tr.sg-layers td { padding-top: 10px; font-weight: normal; font-style: italic; }
        </style>
"""


def _table_html(report: Report, title: str) -> str:
    margin = f"≤ {report.margin_m / 1000:g} km"
    head = ["Subject", "Inside", "≤ 2 km", "≤ 25 km", margin, "Matching", "Measuring", "Tentacles"]
    out = [
        '<div id="sg-report">',
        f"<h2>Question availability: {html_text(title)}</h2>",
        f"<p>Play area {report.area_km2:.1f} km². Verdicts: usable · only one · none "
        "(drop the question before the game) · not assessed (the input lacks the data).</p>",
        # a phone scrolls the table sideways; the box takes the focus for the keyboard
        '<div class="sg-table" tabindex="0" role="region" aria-label="Question availability">'
        "<table><thead><tr>" + "".join(f"<th>{html_text(h)}</th>" for h in head) + "</tr></thead>",
        "<tbody>",
    ]
    for row in report.subjects:
        out.append(_row_html(row, report.margin_m))
    if report.layers:
        out.append(
            '<tr class="sg-layers"><td colspan="8">Read from the extract\'s geometry and the '
            "DEM, as the referee reads them</td></tr>"
        )
        out.extend(_row_html(row, report.margin_m) for row in report.layers)
    out.append("</tbody></table></div>")
    explained = report.explanations()
    if explained:
        out.append("<ul>" + "".join(f"<li>{html_text(e)}</li>" for e in explained) + "</ul>")
    out.extend(f"<p>Note: {html_text(n)}</p>" for n in report.notes)
    out.append("<p>Map data © OpenStreetMap contributors, ODbL 1.0</p></div>")
    return "".join(out)


def _row_html(row: SubjectReport, margin_m: float) -> str:
    """One subject's table row: its counts and a cell per question (the note as its title)."""
    inside = "-" if row.inside is None else row.inside
    cells = [f"<td>{html_text(row.label)}</td>", f'<td class="n">{inside}</td>']
    for reach in (2000.0, 25000.0, margin_m):
        value = row.within.get(reach)
        cells.append(f'<td class="n">{"-" if value is None else value}</td>')
    for question in ("matching", "measuring", "tentacles"):
        found = [q for q in row.questions if q.question == question]
        if not found:
            cells.append("<td>-</td>")
            continue
        q = found[0]
        cells.append(
            f'<td class="{q.verdict}" title="{html_text(q.note)}">'
            f"{html_text(VERDICT_TEXT[q.verdict])}</td>"
        )
    return f'<tr data-subject="{html_text(row.subject)}">{"".join(cells)}</tr>'


def report_page(
    report: Report, area: BaseGeometry, places, title: str, *, palette: str | Palette = "default"
) -> str:
    """An offline HTML page: a map with one layer per subject, and the report's table.

    Parameters
    ----------
    report : Report
    area : shapely geometry
        The play area (WGS84).
    places : geopandas.GeoDataFrame
        From :func:`stations_generator.core.questions.availability.subject_places`.
    title : str
    palette : str or Palette
        ``"default"`` or ``"okabe-ito"`` (:mod:`stations_generator.pages.palette`).

    Returns
    -------
    str
        The page (deterministic; only map tiles load from the network). On a phone the
        layer control starts collapsed (:func:`~stations_generator.pages.offline.add_page_controls`).

    Raises
    ------
    ValueError
        If the palette is unknown.
    """
    colours = palette_named(palette)
    reach_area = _reach_ring(area, report.margin_m)
    west, south, east, north = reach_area.bounds
    m = offline_map([[south, west], [north, east]], title=f"Questions: {title}", height="62%")
    add_area(m, [area], "Play area", colour=colours.play_area)
    for reach in (2000.0, 25000.0, report.margin_m):
        add_area(
            m,
            [_reach_ring(area, reach)],
            f"Reach {reach / 1000:g} km",
            colour="#555555",
            fill_opacity=0.0,
            dash="4 6",
            show=reach == report.margin_m,
        )
    wanted = {row.subject: set(row.ids) for row in report.subjects}
    shown = 0
    for row in report.subjects:
        if not row.ids:
            continue
        colour = colours.subjects[shown % len(colours.subjects)]
        shown += 1
        group = folium.FeatureGroup(
            name=html_text(f"{row.label} ({len(row.ids)})"), show=shown <= 3
        )
        chosen = places[(places["subject"] == row.subject) & places["id"].isin(wanted[row.subject])]
        for name, key, point in zip(chosen["name"], chosen["id"], chosen.geometry, strict=True):
            folium.CircleMarker(
                [point.y, point.x],
                radius=5,
                color=colour,
                weight=1,
                fill=True,
                fill_color=colour,
                fill_opacity=0.8,
                tooltip=html_text(f"{row.label}: {name or 'unnamed'} ({key})"),
            ).add_to(group)
        group.add_to(m)
    StyledBlock("ReportTable", _TABLE_STYLE, _table_html(report, title)).add_to(m)
    # Fit the area and the places within reach, not the whole margin ring.
    shown_ids = {key for row in report.subjects for key in row.ids}
    near = places[places["id"].isin(shown_ids)] if len(places) else places
    fit = shapely.union_all([area.envelope, *near.geometry.tolist()]).bounds
    add_page_controls(m, [[fit[1], fit[0]], [fit[3], fit[2]]])
    return render_station_map(m)
