"""``report``: which matching / measuring / tentacles questions a play area supports.

Offline, from the same OSM files ``generate`` reads. A table goes to stderr, JSON to
stdout (or ``-o FILE``), and with ``--html`` a page with the table and a map that has
one layer per subject. The subjects drawn as lines and areas (coastline, water, admin
areas, landmasses, marked paths) and the sea level are judged from the referee's own
data (:mod:`stations_generator.app.availability_report`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from collections.abc import Callable
from pathlib import Path

import click
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.app.availability_report import MARKED_PATHS_UP_TO_MB, layer_subjects
from stations_generator.commands.options import CONTEXT, METRES, document_options, write_document
from stations_generator.core.catalogue import load_catalogue
from stations_generator.core.geo.coverage import check_coverage
from stations_generator.core.questions.availability import (
    DEFAULT_MARGIN_M,
    build_report,
    data_extent_note,
    format_table,
    question_only_note,
    report_catalogue,
    report_subjects,
    subject_places,
)
from stations_generator.errors import InputError
from stations_generator.formats.playarea import load_polygons
from stations_generator.osm import sources

log = logging.getLogger(__name__)


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
    help="Metres beyond the area where a matching / measuring place, line or area still counts.",
)
@click.option(
    "--dem",
    "dem_file",
    type=click.Path(path_type=Path),
    help="Elevation file (GeoTIFF, SRTM .hgt) covering the area, to judge the sea-level question.",
)
@click.option(
    "--marked-paths/--no-marked-paths",
    default=None,
    help="Judge the marked-path question (reads every street and path of the extract once) "
    f"[default: for extracts up to {MARKED_PATHS_UP_TO_MB:.0f} MB].",
)
@document_options("JSON", "the table and a map with a layer per subject")
def report(
    play_area: Path,
    osm_files: tuple[Path, ...],
    category_files: tuple[Path, ...],
    margin: float,
    dem_file: Path | None,
    marked_paths: bool | None,
    output: Path | None,
    html_file: Path | None,
) -> None:
    """Say which questions PLAY_AREA supports: count each question subject's places.

    For every matching, measuring and tentacles subject (museums, parks, zoos, train
    stations, transit lines, …): how many lie inside the area and within reach of it,
    and a verdict per question: usable, only one (matching is always "same"), or none
    (drop it before the game). Offline, from the OSM files `generate` reads.

    From an OSM extract (.osm.pbf …) also the questions read from its geometry, as the
    referee reads it: coastline and body of water (measuring), admin areas per level
    (matching zone, measuring border), landmass and marked path (matching, JLTG.EU
    house rules); with --dem the sea level. Overpass JSON has no such layers: those
    are "not assessed". The marked paths are every street and path of the extract: on
    an extract over 64 MB they are judged only with --marked-paths (a first read of
    minutes on a large file; cached after).

    \b
    Example:
      stations-generator report zones/sioux-falls.geojson \\
        --osm examples/sioux-falls/pois.json -o report.json --html report.html
    """
    if not osm_files:
        raise InputError("report works offline: give the OSM data with --osm FILE (repeatable)")

    def make() -> tuple[str, Callable[[], str]]:
        area, places, data, result = _build_report(
            play_area, osm_files, category_files, margin, dem_file, marked_paths
        )
        document = {
            "play_area": play_area.name,
            "sources": list(data.sources),
            **result.to_json(),
        }

        def page() -> str:
            from stations_generator.pages.report_page import report_page  # folium: only here

            return report_page(result, area, places, play_area.name.split(".")[0])

        return json.dumps(document, ensure_ascii=False, indent=2) + "\n", page

    write_document(output, html_file, make, log)


def _build_report(
    play_area: Path,
    osm_files,
    category_files,
    margin: float,
    dem: Path | None,
    marked_paths: bool | None = None,
):
    """Read the area and the data, judge the subjects, print the table: (area, places, data, result)."""
    area = load_polygons(play_area, log.warning)
    catalogue = report_catalogue(load_catalogue(category_files))
    if dem is not None:  # a DEM that cannot be read fails before the OSM reads
        from stations_generator.formats.dem import check_dem_path  # rasterio: only here

        check_dem_path(dem)
    data = sources.read_files(osm_files, (), _reading_box(area, margin), catalogue, water=False)
    log.debug(f"read {len(data.elements)} OSM objects from " + ", ".join(data.sources))
    check_coverage(area, osm_files, [(e.lon, e.lat) for e in data.elements], warn=log.warning)
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
    result = dataclasses.replace(
        result, layers=layer_subjects(area, osm_files, catalogue, margin, dem, marked_paths)
    )
    for line in format_table(result).splitlines():
        log.info(line)
    return area, places, data, result
