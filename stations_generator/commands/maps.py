"""``map``: an interactive, offline-capable HTML map of a ``stations.geojson``."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from stations_generator.app.maps import write_map_page
from stations_generator.commands.options import CONTEXT, METRES, palette_option

log = logging.getLogger(__name__)


@click.command("map", context_settings=CONTEXT)
@click.argument("stations_file", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="HTML file to write [default: STATIONS_FILE with .html, e.g. stations.html].",
)
@click.option(
    "--candidates",
    "candidates_file",
    type=click.Path(path_type=Path),
    help="candidates.geojson from `generate --explain`: adds a layer of rejected candidates.",
)
@click.option(
    "--hiding-radius",
    type=METRES(min=1),
    help="Hiding-zone radius in metres [default: the file's game size: 402 m S/M, 805 m L].",
)
@click.option(
    "--min-spacing",
    type=METRES(min=1),
    help="Spacing-ring radius in metres [default: the file's, else 300].",
)
@click.option(
    "--cluster-gap",
    type=METRES(min=1),
    help="Gap-ring radius in metres [default: the file's, else 1000].",
)
@click.option("--title", help="Page title [default: the input's folder and file name].")
@palette_option()
def map_command(
    stations_file: Path,
    output: Path | None,
    candidates_file: Path | None,
    hiding_radius: float | None,
    min_spacing: float | None,
    cluster_gap: float | None,
    title: str | None,
    palette: str,
) -> None:
    """Write an interactive HTML map of STATIONS_FILE (the stations.geojson of `generate`).

    The page works offline (Leaflet is inlined); only the map tiles come from
    openstreetmap.org. Layers: stations by category and cluster, hiding zones,
    spacing and gap rings, and with --candidates the rejected candidates and why.

    \b
    Example:
      stations-generator map out/sioux-falls/stations.geojson \\
        --candidates out/sioux-falls/candidates.geojson -o out/sioux-falls/stations.html
    """
    target = output if output is not None else stations_file.with_suffix(".html")
    page = write_map_page(
        stations_file,
        target,
        candidates_file=candidates_file,
        hiding_radius_m=hiding_radius,
        min_spacing_m=min_spacing,
        cluster_gap_m=cluster_gap,
        title=title,
        palette=palette,
    )
    rejected = f", {page.rejected} rejected candidates" if page.rejected is not None else ""
    log.info(f"Map: {page.stations} stations{rejected}; hiding zones {page.hiding_radius_m:g} m")
    log.info(f"Wrote {target} ({target.stat().st_size / 1024:.0f} KiB, works offline)")
    log.debug("only the map tiles load from the network (tile.openstreetmap.org)")
