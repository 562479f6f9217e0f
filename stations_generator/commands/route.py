"""``route``: plan a route between stations of the map: drive time per leg, expected
wait, cooldown and timeline.

The text (no wider than a phone's terminal) or ``--json`` goes to stdout; notes and
warnings go to stderr (log records the main group prints).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import click

from stations_generator.app.play import RoadOptions, drive_times, load_map, locate_itinerary
from stations_generator.app.reporting import status
from stations_generator.commands.options import CONTEXT
from stations_generator.commands.play_options import (
    TRANSIT_IN_PLAY,
    parse_clock_option,
    parse_table_option,
    road_options,
    table_option,
)
from stations_generator.commands.play_text import echo_lines, route_json, route_text
from stations_generator.core.play.itinerary import plan_routes

log = logging.getLogger(__name__)

__all__ = ["route"]


@click.command(context_settings=CONTEXT)
@click.argument("stations", nargs=-1, required=True)
@click.option(
    "--map",
    "map_path",
    required=True,
    type=click.Path(path_type=Path),
    help="The stations.geojson written by generate.",
)
@road_options
@click.option("--at", "at", metavar="HH:MM", help="Start a timeline at this clock time.")
@click.option(
    "--transit-in-play/--no-transit-in-play",
    default=TRANSIT_IN_PLAY,
    show_default=True,
    help="Real transit is in play: wait 2× each route's drive at its destination.",
)
@table_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
def route(
    stations: tuple[str, ...],
    map_path: Path,
    roads: RoadOptions,
    at: str | None,
    transit_in_play: bool,
    table_spec: str | None,
    as_json: bool,
) -> None:
    """Plan a route: drive time per leg, expected wait, cooldown and timeline.

    STATIONS are names or ids of the map, origin first. Separate routes with
    "/": a new route starts where the previous one ends, or at one of its stops
    (a mid-route change, which ends the previous route there).

    \b
    Example (offline, the bundled Liechtenstein roads):
      stations-generator route Schaan-Vaduz Landesmuseum Gasometer \\
        --map out/liechtenstein/stations.geojson \\
        --osm tests/data/osm-extracts/liechtenstein-2013-08.osm.pbf --at 23:40
    """
    table = parse_table_option(table_spec)
    start = parse_clock_option(at)
    station_map = load_map(map_path)
    itinerary = locate_itinerary(stations, station_map.stations)
    times = drive_times(station_map, roads)
    with status(log, "Timing the drives"):
        plan = plan_routes(
            itinerary,
            times,
            table=table,
            transit_in_play=transit_in_play,
            start_s=float(start) if start is not None else None,
        )
    if as_json:
        click.echo(
            json.dumps(route_json(plan, times.describe(), table), ensure_ascii=False, indent=2)
        )
    else:
        echo_lines(route_text(plan, times.describe()))
