"""``timetable reach``: the earliest time in every hiding zone from a start, over a feed.

A table on stderr (the zones reached soonest and the counts), the zones as GeoJSON with
``-o`` (or on stdout), and with ``--html`` a page of the zones coloured by arrival.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from stations_generator.app.timetable_reach import ReachRequest, ReachResult, run_reach
from stations_generator.commands.options import CONTEXT, document_options, write_document
from stations_generator.core.questions.rules import RULE_SETS
from stations_generator.settings import CACHE_DIR_ENV

log = logging.getLogger(__name__)

#: Zones listed in the table on stderr (the soonest reached); the rest are in the GeoJSON.
TABLE_ROWS = 15


def feed_options(f):
    """``--from``, ``--at``, ``--date``, ``--game-size``, ``--rules``, ``--cache-dir``,
    ``--no-cache``: the start of a query and the feed it runs on."""
    options = [
        click.option(
            "--from",
            "start",
            required=True,
            help="Start: a stop or station id, a stop name (any case), or LON,LAT.",
        ),
        click.option(
            "--at", "at", required=True, help="Start time, HH:MM or HH:MM:SS (up to 47:59)."
        ),
        click.option(
            "--date",
            help="Service day, YYYY-MM-DD [default: the feed's busiest day].",
        ),
        click.option(
            "--game-size",
            type=click.Choice(["S", "M", "L"], case_sensitive=False),
            default="M",
            show_default=True,
            help="Game size: the hiding radius and the hiding period (JLTG.EU house rules).",
        ),
        click.option(
            "--rules",
            type=click.Choice(sorted(RULE_SETS)),
            default="jltg-eu",
            show_default=True,
            help="Rule set whose hiding radius the zones take.",
        ),
        click.option(
            "--cache-dir",
            type=click.Path(path_type=Path),
            envvar=CACHE_DIR_ENV,
            help="Cache folder (the feed's columns are kept under extracts/).",
        ),
        click.option("--no-cache", is_flag=True, help="Read the feed again, keep nothing."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def feed_query(feed: Path, query: dict[str, Any]) -> dict[str, Any]:
    """The :class:`~stations_generator.app.timetable_reach.FeedQuery` fields of FEED and
    the options :func:`feed_options` adds (given to the command as ``query``)."""
    return {
        "feed_path": feed,
        "start": query["start"],
        "at": query["at"],
        "date": query["date"],
        "game_size": query["game_size"].upper(),
        "rules": query["rules"],
        "cache_dir": query["cache_dir"],
        "use_cache": not query["no_cache"],
    }


def _log_table(result: ReachResult) -> None:
    q = result.query()
    log.info(
        f"{q['feed']} on {q['date']}, from {q['from']} at {q['start'][11:16]}: "
        f"{q['reached']} of {q['zones']} zones reached; {q['reachable']} by "
        f"{q['deadline'][11:16]} ({q['deadline_note']}), radius {q['radius_m']:g} m"
    )
    rows = [r for r in result.rows() if r["minutes"] is not None]
    rows.sort(key=lambda r: (r["minutes"], r["id"]))
    log.info(f"{'min':>6}  {'arrival':<8} zone")
    for r in rows[:TABLE_ROWS]:
        log.info(f"{r['minutes']:6.1f}  {str(r['arrival'])[11:19]:<8} {r['name']} ({r['id']})")
    if len(rows) > TABLE_ROWS:
        log.info(f"... and {len(rows) - TABLE_ROWS} more reached (all in the GeoJSON)")


@click.command("reach", context_settings=CONTEXT)
@click.argument("feed", type=click.Path(path_type=Path))
@feed_options
@click.option(
    "--within",
    "within_min",
    type=click.FloatRange(min=0, min_open=True),
    help="Deadline in minutes after the start (the seekers' hour: 60) [default: the "
    "game size's hiding period].",
)
@document_options("GeoJSON", "the zones coloured by arrival, a legend and a table")
def reach(
    feed: Path,
    within_min: float | None,
    output: Path | None,
    html_file: Path | None,
    **query: Any,
) -> None:
    """Say when the hider can first be in each hiding zone, starting FROM at AT.

    One earliest-arrival query (RAPTOR) over the GTFS FEED (zip or folder), with walks
    between nearby stops (docs/timetables.md gives the distance and speed); a zone is the circle of the game's hiding
    radius around each station of the feed. Zones reachable by the deadline (the hiding
    period, or --within minutes: how far the seekers get) are marked `reachable`.

    \b
    Example:
      stations-generator timetable reach tests/data/gtfs/nyc_subway_gtfs.zip \\
        --from "Times Sq-42 St" --at 08:00 --date 2025-01-08 --game-size M \\
        -o reach.geojson --html reach.html
    """
    request = ReachRequest(**feed_query(feed, query), within_min=within_min)

    def make() -> tuple[str, Callable[[], str]]:
        result = run_reach(request)
        _log_table(result)
        document = result.geojson()

        def page() -> str:
            from stations_generator.pages.timetable_page import reach_page  # folium: only here

            return reach_page(document, feed.name)

        return json.dumps(document, ensure_ascii=False, indent=1) + "\n", page

    write_document(output, html_file, make, log)
