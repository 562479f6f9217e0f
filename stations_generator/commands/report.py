"""``report``: which matching / measuring / tentacles questions a play area supports.

Offline, from the same OSM files ``generate`` reads. A table goes to stderr, JSON to
stdout (or ``-o FILE``), and with ``--html`` a page with the table and a map that has
one layer per subject.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import click
import folium
import numpy as np
import shapely
from branca.element import MacroElement
from folium.template import Template
from shapely.geometry.base import BaseGeometry

from ..catalogue import load_catalogue
from ..core.geodesy import LocalFrame
from ..core.report import (
    DEFAULT_MARGIN_M,
    VERDICT_TEXT,
    Report,
    build_report,
    data_extent_note,
    format_table,
    question_only_note,
    report_catalogue,
    report_subjects,
    subject_places,
)
from ..coverage import check_coverage
from ..errors import InputError
from ..export.atomic import output_set
from ..export.folium_map import add_area, offline_map, render_station_map
from ..osm import sources
from ..params import METRES
from ..playarea import load_polygons

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
_SUBJECT_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#393b79", "#637939", "#7f7f7f",
)  # fmt: skip


def _reading_box(area: BaseGeometry, margin_m: float) -> BaseGeometry:
    """The area's bounding box widened by the margin (what the extract readers keep)."""
    west, south, east, north = area.bounds
    dlat = margin_m / 110_574.0
    widest = max(abs(south - dlat), abs(north + dlat))
    dlon = margin_m / (111_320.0 * max(math.cos(math.radians(min(widest, 89.0))), 0.01))
    return shapely.box(
        max(west - dlon, -180.0),
        max(south - dlat, -90.0),
        min(east + dlon, 180.0),
        min(north + dlat, 90.0),
    )


def _reach_ring(area: BaseGeometry, distance_m: float) -> BaseGeometry:
    """The area grown by ``distance_m`` (in its UTM zone), back in lon/lat."""
    frame = LocalFrame.for_bounds(area.bounds)
    projected = shapely.transform(
        area, lambda xy: np.column_stack(frame.project(xy[:, 0], xy[:, 1]))
    )
    grown = projected.buffer(distance_m, quad_segs=16).simplify(distance_m / 200)
    return shapely.transform(grown, lambda xy: np.column_stack(frame.unproject(xy[:, 0], xy[:, 1])))


class _Table(MacroElement):
    _template = Template(
        """
        {% macro header(this, kwargs) %}
        <style>
        #sg-report { font: 13px/1.4 system-ui, sans-serif; padding: 8px 14px 24px; }
        #sg-report table { border-collapse: collapse; }
        #sg-report th, #sg-report td { padding: 2px 8px; border-bottom: 1px solid #ddd;
            text-align: left; }
        #sg-report td.n { text-align: right; }
        #sg-report .usable { color: #1b5e20; }
        #sg-report .only_one { color: #e65100; }
        #sg-report .none { color: #b71c1c; font-weight: bold; }
        #sg-report .unknown { color: #555; font-style: italic; }
        </style>
        {% endmacro %}
        {% macro html(this, kwargs) %}
        {{ this.body }}
        {% endmacro %}
        """
    )

    def __init__(self, body: str):
        super().__init__()
        self._name = "ReportTable"
        self.body = body


def _table_html(report: Report, title: str) -> str:
    margin = f"≤ {report.margin_m / 1000:g} km"
    head = ["Subject", "Inside", "≤ 2 km", "≤ 25 km", margin, "Matching", "Measuring", "Tentacles"]
    out = [
        '<div id="sg-report">',
        f"<h2>Question availability: {html.escape(title)}</h2>",
        f"<p>Play area {report.area_km2:.1f} km². Verdicts: usable · only one · none "
        "(drop the question before the game).</p>",
        "<table><thead><tr>"
        + "".join(f"<th>{html.escape(h)}</th>" for h in head)
        + "</tr></thead>",
        "<tbody>",
    ]
    for row in report.subjects:
        cells = [f"<td>{html.escape(row.label)}</td>", f'<td class="n">{row.inside}</td>']
        for reach in (2000.0, 25000.0, report.margin_m):
            value = row.within.get(reach)
            cells.append(f'<td class="n">{"-" if value is None else value}</td>')
        for question in ("matching", "measuring", "tentacles"):
            found = [q for q in row.questions if q.question == question]
            if not found:
                cells.append("<td>-</td>")
                continue
            q = found[0]
            cells.append(
                f'<td class="{q.verdict}" title="{html.escape(q.note, quote=True)}">'
                f"{html.escape(VERDICT_TEXT[q.verdict])}</td>"
            )
        out.append(
            f'<tr data-subject="{html.escape(row.subject, quote=True)}">{"".join(cells)}</tr>'
        )
    out.append("</tbody></table>")
    out.extend(f"<p>Note: {html.escape(n)}</p>" for n in report.notes)
    out.append("<p>Map data © OpenStreetMap contributors, ODbL 1.0</p></div>")
    return "".join(out)


def report_page(report: Report, area: BaseGeometry, places, title: str) -> str:
    """An offline HTML page: a map with one layer per subject, and the report's table.

    Parameters
    ----------
    report : Report
    area : shapely geometry
        The play area (WGS84).
    places : geopandas.GeoDataFrame
        From :func:`stations_generator.core.report.subject_places`.
    title : str

    Returns
    -------
    str
        The page (deterministic; only map tiles load from the network).
    """
    reach_area = _reach_ring(area, report.margin_m)
    west, south, east, north = reach_area.bounds
    m = offline_map([[south, west], [north, east]], title=f"Questions: {title}", height="62%")
    add_area(m, [area], "Play area")
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
        colour = _SUBJECT_COLOURS[shown % len(_SUBJECT_COLOURS)]
        shown += 1
        group = folium.FeatureGroup(name=f"{row.label} ({len(row.ids)})", show=shown <= 3)
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
                tooltip=f"{row.label}: {name or 'unnamed'} ({key})",
            ).add_to(group)
        group.add_to(m)
    _Table(_table_html(report, title)).add_to(m)
    folium.LayerControl(collapsed=False).add_to(m)
    # Fit the area and the places within reach, not the whole margin ring.
    shown_ids = {key for row in report.subjects for key in row.ids}
    near = places[places["id"].isin(shown_ids)] if len(places) else places
    fit = shapely.union_all([area.envelope, *near.geometry.tolist()]).bounds
    m.fit_bounds([[fit[1], fit[0]], [fit[3], fit[2]]], padding=(12, 12))
    return render_station_map(m)


@click.command("report", context_settings=CONTEXT)
@click.argument("play_area", type=click.Path(path_type=Path))
@click.option(
    "--osm",
    "osm_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Saved Overpass JSON or an .osm/.osm.bz2/.osm.pbf extract (repeatable; required).",
)
@click.option(
    "--categories",
    "category_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="TOML file of [[category]] entries that extend or override the catalogue (repeatable).",
)
@click.option(
    "--margin",
    type=METRES(min=0),
    default=DEFAULT_MARGIN_M,
    show_default=True,
    help="Metres beyond the area where a matching / measuring place still counts.",
)
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), help="JSON file [default: stdout]."
)
@click.option(
    "--html",
    "html_file",
    type=click.Path(path_type=Path),
    help="Also write an HTML page: the table and a map with a layer per subject.",
)
@click.pass_obj
def report(
    console,
    play_area: Path,
    osm_files: tuple[Path, ...],
    category_files: tuple[Path, ...],
    margin: float,
    output: Path | None,
    html_file: Path | None,
) -> None:
    """Say which questions PLAY_AREA supports: count each question subject's places.

    For every matching, measuring and tentacles subject (museums, parks, zoos, train
    stations, transit lines, …): how many lie inside the area and within reach of it,
    and a verdict per question: usable, only one (matching is always "same"), or none
    (drop it before the game). Offline, from the OSM files `generate` reads.

    \b
    Example:
      stations-generator report zones/sioux-falls.geojson \\
        --osm examples/sioux-falls/pois.json -o report.json --html report.html
    """
    if not osm_files:
        raise InputError("report works offline: give the OSM data with --osm FILE (repeatable)")
    if output is not None and html_file is not None and output.resolve() == html_file.resolve():
        raise InputError(f"-o and --html both name {output}; give two different files")
    files = [f for f in (output, html_file) if f is not None]
    # Both files (they may be in two folders) appear together, or not at all.
    with output_set(Path(), files) as outputs:
        area, places, data, result = _build_report(
            console, play_area, osm_files, category_files, margin
        )
        document = {
            "play_area": play_area.name,
            "sources": list(data.sources),
            **result.to_json(),
        }
        text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        if html_file is not None:
            page = report_page(result, area, places, play_area.name.split(".")[0])
            outputs.write_text(html_file, page)
        if output is not None:
            outputs.write_text(output, text)
    for path in files[::-1]:
        console.info(f"Wrote {path}")
    if output is None:
        click.echo(text, nl=False)


def _build_report(console, play_area: Path, osm_files, category_files, margin: float):
    """Read the area and the data, count the subjects, print the table: (area, places, data, result)."""
    area = load_polygons(play_area, console.warn)
    catalogue = report_catalogue(load_catalogue(category_files))
    data = sources.read_files(osm_files, (), _reading_box(area, margin), catalogue, water=False)
    console.detail(f"read {len(data.elements)} OSM objects from " + ", ".join(data.sources))
    check_coverage(area, osm_files, [(e.lon, e.lat) for e in data.elements], warn=console.warn)
    places = subject_places(data.elements, catalogue)
    notes = [
        n
        for n in (
            data_extent_note(area, [(e.lon, e.lat) for e in data.elements], margin),
            question_only_note(places, catalogue),
        )
        if n
    ]
    result = build_report(
        area,
        places,
        report_subjects(catalogue),
        margin_m=margin,
        catalogue=catalogue,
        notes=notes,
    )
    for line in format_table(result).splitlines():
        console.info(line)
    return area, places, data, result
