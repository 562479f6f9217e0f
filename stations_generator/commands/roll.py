"""``roll``: roll for a departure at a station of the map.

The text (no wider than a phone's terminal) or ``--json`` goes to stdout; notes and
warnings go to stderr (log records the main group prints).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import random
from pathlib import Path

import click

from stations_generator.app.play import load_map, locate_station
from stations_generator.commands.options import CONTEXT, MINUTES
from stations_generator.commands.play_options import (
    TRANSIT_IN_PLAY,
    parse_clock_option,
    parse_table_option,
    table_option,
)
from stations_generator.commands.play_text import echo_lines, roll_json, roll_text
from stations_generator.core.play.station_roll import (
    DAY_S,
    Cooldown,
    roll_at_station,
    roll_cooldown,
)
from stations_generator.errors import InputError

log = logging.getLogger(__name__)

__all__ = ["roll"]


def _roll_time(at: str | None) -> int:
    """``--at`` in seconds after midnight, else the time now (to the minute)."""
    clock = parse_clock_option(at)
    if clock is not None:
        return clock
    now = dt.datetime.now()
    return now.hour * 3600 + now.minute * 60


def _parse_drove(text: str) -> tuple[int, int]:
    """(departure, arrival) seconds after the departure's midnight from ``HH:MM-HH:MM``.

    An arrival before the departure is an error (``14:00-13:00`` is not a 23-hour
    drive), unless it is written with ``+1`` to say the drive crossed midnight:
    ``23:50-00:10+1`` is a 20-minute drive.
    """
    start, sep, end = text.partition("-")
    if not sep:
        raise InputError(
            f"--drove: {text!r} is not DEPART-ARRIVE; write e.g. 13:50-14:02 (24-hour)"
        )
    next_day = end.strip().endswith("+1")
    end = end.strip().removesuffix("+1")
    departed = parse_clock_option(start, "--drove") or 0
    arrived = (parse_clock_option(end, "--drove") or 0) + (DAY_S if next_day else 0)
    if arrived < departed:
        raise InputError(
            f"--drove {text}: the arrival is before the departure; if the drive crossed "
            f"midnight write the arrival as {end.strip()}+1"
        )
    if arrived - departed >= DAY_S:
        raise InputError(f"--drove {text}: a drive of a day or more is not a ride between stations")
    return departed, arrived


def _cooldown(drove: str | None, transit_in_play: bool, now_s: int) -> Cooldown | None:
    """The cooldown of ``--drove`` (None without it, or without --transit-in-play)."""
    if drove is None:
        return None
    departed, arrived = _parse_drove(drove)
    if not transit_in_play:
        log.warning("--drove without --transit-in-play: no cooldown applies")
        return None
    return roll_cooldown(now_s, departed, arrived)


@click.command(context_settings=CONTEXT)
@click.argument("station")
@click.option(
    "--map",
    "map_path",
    required=True,
    type=click.Path(path_type=Path),
    help="The stations.geojson written by generate.",
)
@click.option("--at", "at", metavar="HH:MM", help="Clock time of the roll [default: now].")
@click.option("--seed", type=int, help="Seed the dice (reproducible); default: system randomness.")
@click.option(
    "--pickup-eta",
    type=MINUTES(min=0),
    metavar="MIN",
    help="By-request ride: minutes it takes to arrive; prints when to request it.",
)
@click.option(
    "--transit-in-play/--no-transit-in-play",
    default=TRANSIT_IN_PLAY,
    show_default=True,
    help="Real transit is in play: wait 2× your last drive (--drove) before rolling.",
)
@click.option(
    "--drove",
    metavar="HH:MM-HH:MM",
    help="Departure and arrival of the ride that brought you here (for the cooldown); "
    "an arrival after midnight is written HH:MM+1.",
)
@table_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
def roll(
    station: str,
    map_path: Path,
    at: str | None,
    seed: int | None,
    pickup_eta: float | None,
    transit_in_play: bool,
    drove: str | None,
    table_spec: str | None,
    as_json: bool,
) -> None:
    """Roll for a departure at STATION (a name or id of the map).

    2d6 against the station's wait range: 2–3 leave now, 4–6 wait the lower
    bound, 7–10 the upper bound, 11–12 missed (wait the upper bound, roll again).

    \b
    Example (a map made from the bundled Liechtenstein data):
      stations-generator roll Nendeln --map out/liechtenstein/stations.geojson --at 14:05
    """
    table = parse_table_option(table_spec)
    station_map = load_map(map_path)
    st = locate_station(station, station_map.stations)
    now = _roll_time(at)
    cooldown = _cooldown(drove, transit_in_play, now)
    rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
    result = roll_at_station(st, now, table, rng, cooldown=cooldown, pickup_eta_min=pickup_eta)
    if as_json:
        click.echo(json.dumps(roll_json(result, seed), ensure_ascii=False, indent=2))
    else:
        echo_lines(roll_text(result))
