"""``map``: an interactive, offline-capable HTML map of a ``stations.geojson``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click

from stations_generator.commands.params import METRES
from stations_generator.core.gamesize import HIDING_RADIUS_M
from stations_generator.formats.atomic import output_set, reading
from stations_generator.pages.folium_map import (
    read_candidates_file,
    read_station_file,
    read_station_metadata,
    render_station_map,
    station_map,
)

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
DEFAULT_HIDING_RADIUS_M = 402.0


def _positive(value: Any) -> float | None:
    """A positive finite number from the file's metadata, else None."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number > 0 else None


def _defaults(metadata: dict[str, Any]) -> tuple[float, float, float]:
    size = str(metadata.get("game_size") or "").upper()
    hiding = HIDING_RADIUS_M.get(size, DEFAULT_HIDING_RADIUS_M)
    spacing = _positive(metadata.get("min_spacing_m")) or 300.0
    gap = _positive(metadata.get("cluster_gap_m")) or 1000.0
    return hiding, spacing, gap


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
@click.pass_obj
def map_command(
    console,
    stations_file: Path,
    output: Path | None,
    candidates_file: Path | None,
    hiding_radius: float | None,
    min_spacing: float | None,
    cluster_gap: float | None,
    title: str | None,
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
    inputs = [stations_file] + ([candidates_file] if candidates_file is not None else [])
    with output_set(target.parent, [target.name]) as outputs:
        with reading(*inputs):  # one run's stations and candidates, never a mix
            stations, play_area, exclusions = read_station_file(stations_file)
            metadata = read_station_metadata(stations_file)
            candidates = read_candidates_file(candidates_file) if candidates_file else None
        hiding, spacing, gap = _defaults(metadata)
        name = title or " / ".join(p for p in (stations_file.parent.name, stations_file.stem) if p)
        m = station_map(
            stations,
            play_area,
            exclusions,
            candidates=candidates,
            hiding_radius_m=hiding_radius or hiding,
            min_spacing_m=min_spacing or spacing,
            cluster_gap_m=cluster_gap or gap,
            title=name,
        )
        outputs.write_text(target.name, render_station_map(m))
    rejected = (
        f", {int((candidates['status'] == 'rejected').sum())} rejected candidates"
        if candidates is not None
        else ""
    )
    console.info(
        f"Map: {len(stations)} stations{rejected}; hiding zones {hiding_radius or hiding:g} m"
    )
    console.info(f"Wrote {target} ({target.stat().st_size / 1024:.0f} KiB, works offline)")
    console.detail("only the map tiles load from the network (tile.openstreetmap.org)")
