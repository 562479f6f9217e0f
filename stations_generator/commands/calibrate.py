"""``calibrate``: check a map's wait ranges against transit-like travel times.

Writes calibration.png and calibration.csv; the per-tier table and the suggested
wait ranges go to stdout, notes to stderr (log records the main group prints).
"""

from __future__ import annotations

import logging
from pathlib import Path

import click

from stations_generator.app.calibration import calibrate_map
from stations_generator.app.play import RoadOptions
from stations_generator.commands.options import CONTEXT
from stations_generator.commands.play_options import (
    TRANSIT_IN_PLAY,
    parse_table_option,
    road_options,
    table_option,
)
from stations_generator.commands.play_text import calibration_text, echo_lines, fit

log = logging.getLogger(__name__)

__all__ = ["calibrate"]


@click.command(context_settings=CONTEXT)
@click.argument("map_path", metavar="STATIONS_GEOJSON", type=click.Path(path_type=Path))
@road_options
@click.option(
    "--pairs",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Random station pairs to compare (all pairs if there are fewer).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the pair sample.")
@click.option(
    "--transit-in-play/--no-transit-in-play",
    default=TRANSIT_IN_PLAY,
    show_default=True,
    help="Real transit is in play: count the 2× arrival cooldown in the door-to-door time.",
)
@table_option
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(path_type=Path),
    help="Folder for calibration.png and calibration.csv [default: the map's folder].",
)
def calibrate(
    map_path: Path,
    roads: RoadOptions,
    pairs: int,
    seed: int,
    transit_in_play: bool,
    table_spec: str | None,
    output_dir: Path | None,
) -> None:
    """Check a map's wait ranges against transit-like travel times.

    For random station pairs: expected door-to-door time by vehicle (expected
    rolls + drive + cooldown) against the transit-equivalent target, 3× the
    drive (the rules allow 2–4×), per density tier; writes calibration.png and
    calibration.csv and suggests wait ranges for tiers that are far off.

    \b
    Example (offline, the bundled Liechtenstein roads):
      stations-generator calibrate out/liechtenstein/stations.geojson \\
        --osm tests/data/osm-extracts/liechtenstein-2013-08.osm.pbf
    """
    table = parse_table_option(table_spec)
    name = map_path.as_posix()
    run = calibrate_map(
        map_path,
        output_dir if output_dir is not None else map_path.parent,
        roads,
        pairs=pairs,
        seed=seed,
        table=table,
        transit_in_play=transit_in_play,
        title=f"{fit(name, 50)}: vehicle door to door vs transit target",
    )
    echo_lines(calibration_text(run.calibration, name, run.source, run.tiers))
    log.info("Wrote " + ", ".join(str(p) for p in run.written))
