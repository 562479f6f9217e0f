"""``timetable audit``: a play area's timetable audit for Hide + Seek.

A table on stderr (zones by game size, lines and their frequencies, stops that fail the
house rules' validity), the audit as JSON with ``-o`` (or on stdout), and with
``--html`` a page: the zones coloured by arrival and the audit's tables.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from stations_generator.app.timetable_audit import AuditRequest, AuditResult, run_audit
from stations_generator.commands.options import CONTEXT, document_options, write_document
from stations_generator.commands.timetable_reach import feed_options, feed_query

log = logging.getLogger(__name__)

#: Failing stops listed on stderr; all are in the JSON.
TABLE_ROWS = 15


def _log_table(result: AuditResult) -> None:
    d = result.document
    window = d["window"]
    log.info(f"{d['feed']} on {d['date']}, from {d['from']} at {d['start'][11:16]}")
    log.info(f"{'size':<5}{'radius m':>9}{'hiding min':>11}{'zones':>7}{'reachable':>10}")
    for s in d["sizes"]:
        log.info(
            f"{s['game_size']:<5}{s['radius_m']:>9g}{s['hiding_min']:>11}"
            f"{s['zones']:>7}{s['reachable']:>10}"
        )
    log.info(f"lines from {window['from'][11:16]} to {window['to'][11:16]}:")
    log.info(f"{'line':<10} {'mode':<9}{'trips':>6}{'per h':>7}{'wait min':>9}  busiest station")
    for ln in d["lines"]:
        wait = "-" if ln["longest_wait_min"] is None else ln["longest_wait_min"]
        log.info(
            f"{ln['name'][:10]:<10} {ln['mode'][:9]:<9}{ln['trips']:>6}"
            f"{ln['per_hour']:>7}{wait:>9}  {ln['busiest_station']}"
        )
    bad = d["invalid_stops"]
    log.info(
        f"{d['valid_stops']} valid hiding stops, {len(bad)} fail the house rules "
        f"(a departure every {d['limits']['centre_max_wait_min']} min at the centre stop, "
        f"every {d['limits']['zone_max_wait_min']} min inside the zone):"
    )
    for b in bad[:TABLE_ROWS]:
        log.info(f"  {b['name']} ({b['id']}): {b['reason']}")
    if len(bad) > TABLE_ROWS:
        log.info(f"  ... and {len(bad) - TABLE_ROWS} more (all in the JSON)")


@click.command("audit", context_settings=CONTEXT)
@click.argument("feed", type=click.Path(path_type=Path))
@feed_options
@click.option(
    "--play-area",
    type=click.Path(path_type=Path),
    help="Play area (GeoJSON or another area file): only its stations and departures count.",
)
@click.option(
    "--until",
    help="End of the window for lines and validity, HH:MM [default: the hiding period, "
    "at least an hour].",
)
@document_options("JSON", "the zones coloured by arrival and the audit's tables")
def audit(
    feed: Path,
    play_area: Path | None,
    until: str | None,
    output: Path | None,
    html_file: Path | None,
    **query: Any,
) -> None:
    """Audit a play area's timetable for Hide + Seek, starting FROM at AT.

    Over the GTFS FEED (zip or folder): the hiding zones reachable in the hiding period
    by game size (S, M, L), the lines departing in the window and how often, and the
    stations that fail the JLTG.EU house rules' valid hiding stop (a vehicle an hour at
    the centre stop, transit every 15 minutes inside the zone).

    \b
    Example:
      stations-generator timetable audit tests/data/gtfs/cairns_gtfs.zip \\
        --from 145.7746,-16.9237 --at 08:00 --date 2014-06-10 --game-size M \\
        -o audit.json --html audit.html
    """
    request = AuditRequest(**feed_query(feed, query), play_area=play_area, until=until)

    def make() -> tuple[str, Callable[[], str]]:
        result = run_audit(request)
        _log_table(result)

        def page() -> str:
            from stations_generator.pages.timetable_page import audit_tables_html, reach_page

            return reach_page(
                result.document["zones"],
                feed.name,
                area=result.area,
                extra_html=audit_tables_html(result.document),
            )

        return json.dumps(result.document, ensure_ascii=False, indent=1) + "\n", page

    write_document(output, html_file, make, log)
