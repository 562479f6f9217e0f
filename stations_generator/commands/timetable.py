"""The ``timetable`` command group: GTFS feeds for stations, lines and valid hiding stops.

``timetable stations`` writes a station map from a feed (the files ``generate`` writes),
``timetable lines`` lists routes and their frequencies and checks the transit-line rule
between two stations, ``timetable check-stops`` lists the stops that fail the JLTG.EU
house rules' timetable validity. ``reach`` and ``audit`` live in their own modules and
are imported when used. See docs/timetables.md.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from stations_generator.commands.lazy_group import LazyGroup
from stations_generator.commands.options import CONTEXT
from stations_generator.errors import InputError
from stations_generator.settings import CACHE_DIR_ENV

__all__ = ["timetable"]

log = logging.getLogger(__name__)

#: Subcommands living in other modules, imported when used.
_LAZY = {
    "reach": "stations_generator.commands.timetable_reach:reach",
    "audit": "stations_generator.commands.timetable_audit:audit",
}
#: Their first help line, so ``timetable --help`` lists them without importing them.
_LAZY_HELP = {
    "reach": "Earliest arrivals over the timetable: where the hider or seekers can get to.",
    "audit": "Audit a play area with a feed: reachable zones, lines, stops failing the rules.",
}


class _Group(LazyGroup):
    """The group, with the lazily imported subcommands of :data:`_LAZY`."""

    lazy = _LAZY
    lazy_help = _LAZY_HELP

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, each short help cut to the room its own name leaves."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.commands.get(name)
            if cmd is None:
                rows.append((name, self.lazy_help.get(name, "")))
            elif not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(formatter.width - 6 - len(name))))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=_Group, context_settings=CONTEXT)  # the main group turns UserErrors into one line
def timetable() -> None:
    """GTFS timetables: stations from a feed, lines and frequencies, valid hiding stops.

    \b
    Example:
      stations-generator timetable stations feed.zip -o out/feed --route-type rail
      stations-generator timetable lines feed.zip --date 2025-01-08
      stations-generator timetable check-stops feed.zip --radius 500

    See docs/timetables.md.
    """


def _feed_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options choosing part of a feed, on every subcommand."""
    options = [
        click.option(
            "--route-type",
            "route_types",
            multiple=True,
            help="Only routes of this GTFS route_type: a number (2, 109…) or a word "
            "(rail, subway, tram, bus, ferry, funicular, monorail…); repeatable.",
        ),
        click.option(
            "--route",
            "routes",
            multiple=True,
            help="Only this route: its route_id or short name; repeatable.",
        ),
        click.option(
            "--date",
            help="Service day, YYYY-MM-DD [default: the feed's busiest day].",
        ),
        click.option(
            "--window",
            default="07:00-19:00",
            show_default=True,
            help="The hours that count, HH:MM-HH:MM (25:00 = 1 am the next morning).",
        ),
        click.option(
            "--cache-dir",
            type=click.Path(path_type=Path),
            envvar=CACHE_DIR_ENV,
            help="Cache folder (the read feed is kept in its 'extracts' folder) [default: the "
            "user cache dir; env STATIONS_GENERATOR_CACHE_DIR].",
        ),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the feed cache."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _choice(feed: Path, kw: dict[str, Any], **extra: Any):
    from stations_generator.app.timetable_feed import FeedChoice

    start, dash, end = str(kw["window"]).partition("-")
    if not dash:
        raise InputError(f"--window {kw['window']!r}: give HH:MM-HH:MM, e.g. 07:00-19:00")
    return FeedChoice(
        feed=feed,
        route_types=tuple(kw["route_types"]),
        routes=tuple(kw["routes"]),
        date=kw["date"],
        start=start,
        end=end,
        **extra,
    )


@timetable.command(context_settings=CONTEXT)
@click.argument("feed", type=click.Path(path_type=Path))
@click.option("-o", "--output", "output_dir", type=click.Path(path_type=Path), required=True,
              help="Folder for stations.geojson, stations.csv and stations.kml.")  # fmt: skip
@_feed_options
@click.option("--min-per-hour", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Fewest departures an hour (chosen routes, in the window).")  # fmt: skip
@click.option("--every-nth", type=click.IntRange(min=1), default=1, show_default=True,
              help="Every Nth station along each route (its longest stop sequence).")  # fmt: skip
@click.option("--osm-stations", type=click.Path(path_type=Path),
              help="A stations.geojson of OSM stations to merge with (same place or name: one station).")  # fmt: skip
@click.option("--attribution", help="The credit the feed's terms ask for [default: its agencies].")
@click.option("--name", help="The KML document's name [default: the feed's file name].")
def stations(feed: Path, output_dir: Path, **kw: Any) -> None:
    """Write a station map (stations.geojson, .csv, .kml) of FEED's stations.

    FEED is a GTFS .zip or folder. A station is a parent station, or a stop without
    one, served by the chosen routes in the window.

    \b
    Example:
      stations-generator timetable stations tests/data/gtfs/nyc_subway_gtfs.zip \\
        -o out/nyc --route 1 --min-per-hour 6 --every-nth 2
    """
    from stations_generator.app.timetable_stations import run_timetable_stations, summary_lines

    choice = _choice(
        feed,
        kw,
        min_per_hour=kw["min_per_hour"],
        every_nth=kw["every_nth"],
        attribution=kw["attribution"],
    )
    result = run_timetable_stations(
        choice,
        output_dir,
        osm_stations=kw["osm_stations"],
        name=kw["name"],
        cache_dir=kw["cache_dir"],
        use_cache=not kw["no_cache"],
    )
    for line in summary_lines(result, output_dir):
        log.info(line)


@timetable.command(context_settings=CONTEXT)
@click.argument("feed", type=click.Path(path_type=Path))
@_feed_options
@click.option("--between", nargs=2, metavar="A B",
              help="Check the transit-line rule between two stations (ids or names).")  # fmt: skip
@click.option("--every", "every_min", type=click.IntRange(min=1), default=120, show_default=True,
              help="The rule's longest wait for a direct trip, minutes (JLTG.EU: 2 hours).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout instead of a table.")
def lines(
    feed: Path, between: tuple[str, str] | None, every_min: int, as_json: bool, **kw: Any
) -> None:
    """List FEED's routes and their frequencies in the window; check two stations' line.

    With --between A B: are A and B on the same transit line, i.e. does a direct trip
    of the chosen routes run between them at least every --every minutes, the whole
    window through (JLTG.EU house rules, Matching: Transit Line)? Exit 0 if so, 1 if not.

    \b
    Examples:
      stations-generator timetable lines tests/data/gtfs/cairns_gtfs.zip --date 2014-06-10
      stations-generator timetable lines tests/data/gtfs/nyc_subway_gtfs.zip \\
        --between "Times Sq-42 St" "Chambers St" --every 10
    """
    from stations_generator.app import timetable_lines as app
    from stations_generator.app.timetable_feed import open_feed, resolve

    fd = resolve(open_feed(feed, kw["cache_dir"], not kw["no_cache"]), _choice(feed, kw))
    if between:
        check = app.check_line(
            fd, app.find_station(fd, between[0]), app.find_station(fd, between[1]), every_min * 60
        )
        _print_line_check(fd, check, as_json)
        raise SystemExit(0 if check.same_line else 1)
    rows = app.route_frequencies(fd)
    if as_json:
        click.echo(json.dumps([r.__dict__ for r in rows], ensure_ascii=False, indent=1))
        return
    click.echo(f"{fd.name} {fd.day.isoformat()} {fd.window_text()}")
    click.echo(
        f"{'route':<10} {'mode':<9} {'trips':>5} {'stations':>8} {'per hour':>8} {'longest wait':>12}  busiest station"
    )
    for r in rows:
        click.echo(
            f"{r.name:<10} {r.mode:<9} {r.trips:>5} {r.stations:>8} {r.per_hour:>8.1f} "
            f"{app.minutes_text(r.longest_wait_s):>12}  {r.busiest}"
        )


def _print_line_check(fd: Any, check: Any, as_json: bool) -> None:
    from stations_generator.app.timetable_lines import minutes_text

    names = fd.feed.stop_names
    if as_json:
        click.echo(
            json.dumps(
                {**check.__dict__, "a": names[check.a], "b": names[check.b]}, ensure_ascii=False
            )
        )
        return
    verdict = "same transit line" if check.same_line else "not the same transit line"
    click.echo(
        f"{names[check.a]} – {names[check.b]}: {verdict} (a direct trip every ≤ {check.max_wait_s // 60} min)"
    )
    click.echo(
        f"  {names[check.a]} → {names[check.b]}: {check.trips_ab} trips, longest wait {minutes_text(check.wait_ab_s)}"
    )
    click.echo(
        f"  {names[check.b]} → {names[check.a]}: {check.trips_ba} trips, longest wait {minutes_text(check.wait_ba_s)}"
    )


@timetable.command("check-stops", context_settings=CONTEXT)
@click.argument("feed", type=click.Path(path_type=Path))
@_feed_options
@click.option("--radius", type=click.FloatRange(min=0, min_open=True), default=500.0, show_default=True,
              help="Hiding radius, metres (JLTG.EU: 500 in S and M games, 1000 in L).")  # fmt: skip
@click.option("--all", "show_all", is_flag=True, help="List every stop, not only those failing.")
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout instead of a table.")
def check_stops(feed: Path, radius: float, show_all: bool, as_json: bool, **kw: Any) -> None:
    """List FEED's stops that fail the house rules' timetable validity.

    JLTG.EU house rules, Hiding Zones: a vehicle at least every 60 min at the zone's
    stop, and transit every 15 min inside the zone (any stop within --radius; their
    departures together), the whole window through.

    \b
    Example:
      stations-generator timetable check-stops tests/data/gtfs/cairns_gtfs.zip \\
        --date 2014-06-10 --radius 500
    """
    from stations_generator.app import timetable_lines as app
    from stations_generator.app.timetable_feed import open_feed, resolve

    fd = resolve(open_feed(feed, kw["cache_dir"], not kw["no_cache"]), _choice(feed, kw))
    result = app.check_stops(fd, radius)
    names, ids = fd.feed.stop_names, fd.feed.stop_ids
    rows = [
        {
            "id": ids[s],
            "name": names[s],
            "valid": bool(result.valid[k]),
            "centre_wait_s": int(result.centre_wait_s[k]),
            "zone_wait_s": int(result.zone_wait_s[k]),
            "zone_stations": int(result.zone_stations[k]),
        }
        for k, s in enumerate(result.stations.tolist())
        if show_all or not result.valid[k]
    ]
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=1))
    else:
        for row in rows:
            click.echo(
                f"{'VALID' if row['valid'] else 'FAILS'} {row['name']} ({row['id']}): longest wait "
                f"{app.minutes_text(row['centre_wait_s'])} at the stop, "
                f"{app.minutes_text(row['zone_wait_s'])} in the zone ({row['zone_stations']} stops)"
            )
    failing = int((~result.valid).sum())
    log.info(
        f"{failing} of {len(result.stations)} stops fail (≥ 1 vehicle an hour at the stop, "
        f"transit every 15 min within {radius:g} m) on {fd.day.isoformat()} {fd.window_text()}"
    )
