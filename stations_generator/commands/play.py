"""Playing the rural game: ``roll``, ``route`` and ``calibrate`` (click commands).

Thin: parse options, call :mod:`stations_generator.core.play.departure`,
:mod:`~stations_generator.core.play.routes` and :mod:`~stations_generator.core.play.drive`,
print. Results go to stdout (text no wider than :data:`WIDTH` columns, for a
phone's terminal, or JSON with ``--json``); notes and warnings go to stderr
through the ``Console`` the main group passes as ``ctx.obj``. User errors are
raised as :class:`~stations_generator.errors.InputError`, which the main group
prints as one line.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import functools
import io
import json
import random
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from stations_generator.commands.params import MINUTES, SPEED_KPH
from stations_generator.core.play.departure import (
    DEFAULT_TABLE,
    DEFAULT_TABLE_SPEC,
    DepartureTable,
    parse_table,
    roll_departure,
)
from stations_generator.core.play.drive import (
    COOLDOWN_FACTOR,
    GREAT_CIRCLE_SPEED_KPH,
    TRANSIT_FACTOR,
    TRANSIT_RANGE,
    Calibration,
    DriveEstimate,
    DriveTimes,
    GreatCircleDriveTimes,
    ItineraryPlan,
    RoadDriveTimes,
    TierSummary,
    arrival_cooldown,
    clock_json,
    format_clock,
    parse_clock,
    plan_routes,
    ride_request,
    sample_pairs,
    timeline_json,
)
from stations_generator.core.play.drive import (
    calibrate as run_calibration,
)
from stations_generator.core.play.routes import (
    Station,
    StationMatch,
    find_station,
    plan_itinerary,
    split_itinerary,
)
from stations_generator.core.stationmap.density import (
    DEFAULT_TIERS,
    WaitTier,
    format_tiers,
    parse_tiers,
)
from stations_generator.errors import InputError
from stations_generator.formats.stationfile import StationFile, read_station_map

if TYPE_CHECKING:  # the main group's Console; imported lazily to keep cli.py import-free
    from stations_generator.cli import Console

__all__ = ["WIDTH", "calibrate", "roll", "route"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

WIDTH = 60
"""Widest text line printed (a phone terminal in portrait is ~60 columns)."""

DAY_S = 86400

#: Whether real transit is in play unless told (the same for roll, route and calibrate):
#: the arrival cooldown is a house rule for games that also use real transit, so it is
#: asked for (--transit-in-play), never assumed.
TRANSIT_IN_PLAY = False

CALIBRATION_PNG = "calibration.png"
CALIBRATION_CSV = "calibration.csv"


# --------------------------------------------------------------------------- shared helpers


def _table(spec: str | None) -> DepartureTable:
    if not spec:
        return DEFAULT_TABLE
    try:
        return parse_table(spec)
    except ValueError as exc:
        raise InputError(f"--table: {exc}") from None


def _clock(text: str | None, option: str = "--at") -> int | None:
    if text is None:
        return None
    try:
        return parse_clock(text)
    except ValueError as exc:
        raise InputError(f"{option}: {exc}") from None


def _now_s() -> int:
    now = dt.datetime.now()
    return now.hour * 3600 + now.minute * 60


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _row(label: str, *cols: str, widths: Sequence[int] = ()) -> str:
    """A label padded/truncated so the right-aligned columns keep the line ≤ WIDTH."""
    widths = list(widths) or [len(c) for c in cols]
    right = "".join(c.rjust(w + 1) for c, w in zip(cols, widths, strict=True))
    return _fit(label, WIDTH - len(right)).ljust(WIDTH - len(right)) + right


def _rows(label: str, *cols: str, widths: Sequence[int] = (), indent: str = "   ") -> list[str]:
    """Like :func:`_row`, but a label too long for one line wraps onto more lines."""
    widths = list(widths) or [len(c) for c in cols]
    room = WIDTH - sum(w + 1 for w in widths)
    if len(label) <= room:
        return [_row(label, *cols, widths=widths)]
    lead = len(label) - len(label.lstrip())
    wrapped = textwrap.wrap(
        label.lstrip(),
        room,
        initial_indent=" " * lead,
        subsequent_indent=indent,
        break_on_hyphens=False,
    )
    return wrapped[:-1] + [_row(wrapped[-1], *cols, widths=widths)]


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent) or [""]


def _echo_lines(lines: Sequence[str]) -> None:
    for line in lines:
        click.echo(line.rstrip())


def _load_map(path: Path) -> StationFile:
    from stations_generator.formats.atomic import reading

    with reading(path):  # never a set a killed `generate` left half-committed
        return read_station_map(path)


def _mention_fuzzy(console: Console, matches: Sequence[StationMatch]) -> None:
    for m in matches:
        if m.kind in ("fuzzy", "part"):
            console.info(f"{m.query!r}: taking {m.station.display}")


def _station_json(s: Station) -> dict[str, Any]:
    return {
        "id": s.id,
        "name": s.name,
        "wait_min": s.wait_min,
        "wait_max": s.wait_max,
        "density_tier": s.density_tier,
    }


def _bbox(station_map: StationFile, margin_deg: float = 0.01) -> tuple[float, float, float, float]:
    if station_map.play_area is not None and not station_map.play_area.is_empty:
        w, s, e, n = station_map.play_area.bounds
    else:
        lons = [st.lon for st in station_map.stations]
        lats = [st.lat for st in station_map.stations]
        w, s, e, n = min(lons), min(lats), max(lons), max(lats)
    # ~1 km around the area, so roads just outside its edge keep it connected.
    return (w - margin_deg * 2, s - margin_deg, e + margin_deg * 2, n + margin_deg)


@dataclass(frozen=True)
class RoadOptions:
    """Where drive times come from (the road options shared by ``route`` and ``calibrate``)."""

    osm: Path | None = None
    online: bool = False
    speed: float = GREAT_CIRCLE_SPEED_KPH
    overpass_urls: tuple[str, ...] = ()
    cache_dir: Path | None = None
    use_cache: bool = True
    overpass_timeout: float = 300.0


@contextlib.contextmanager
def status(console: Console, message: str):
    """A status line on a terminal while a step runs (cleared after; silent in pipes)."""
    console.status(message + "…")
    try:
        yield
    finally:
        console.status(None)


def _drive_times(console: Console, station_map: StationFile, roads: RoadOptions) -> DriveTimes:
    if roads.osm is not None and roads.online:
        raise InputError("give either --osm EXTRACT or --online for the roads, not both")
    if roads.osm is not None:
        from stations_generator.osm.roads import read_drive_graph

        console.detail(f"reading the drivable roads of {roads.osm}")
        with status(console, f"Reading the drivable roads of {roads.osm.name}"):
            graph = read_drive_graph(roads.osm, bbox=_bbox(station_map))
        with status(console, "Building the road graph"):
            times = RoadDriveTimes(graph, fallback_speed_kph=roads.speed, source=roads.osm.name)
        console.detail(times.describe())
        return times
    if roads.online:
        from stations_generator.osm.overpass import DEFAULT_ENDPOINTS, OverpassClient
        from stations_generator.osm.roads import fetch_drive_graph

        area = station_map.play_area
        if area is None:
            import shapely

            area = shapely.MultiPoint([(s.lon, s.lat) for s in station_map.stations]).envelope
        console.detail("downloading the drivable roads from Overpass (cached)")
        client = OverpassClient(
            roads.overpass_urls or DEFAULT_ENDPOINTS,
            timeout=roads.overpass_timeout,
            cache_dir=roads.cache_dir,
            use_cache=roads.use_cache,
            log=console.detail,
            notify=console.info,
            status=console.status,
        )
        graph = fetch_drive_graph(area, client=client)
        with status(console, "Building the road graph"):
            return RoadDriveTimes(graph, fallback_speed_kph=roads.speed, source="Overpass")
    console.warn(
        f"no roads given (--osm EXTRACT or --online): drive times are great-circle "
        f"estimates at an assumed {roads.speed:g} km/h"
    )
    return GreatCircleDriveTimes(roads.speed, "no road graph")


def _road_options(f):
    """Add --osm, --online, --speed and the Overpass options; they arrive as ``roads``."""
    options = [
        click.option(
            "--osm",
            type=click.Path(path_type=Path),
            help="OSM extract (.osm.pbf …) with the play area's roads, for offline drive times.",
        ),
        click.option(
            "--online",
            is_flag=True,
            help="Download the road network from Overpass (cached).",
        ),
        click.option(
            "--speed",
            type=SPEED_KPH(min=1),
            default=GREAT_CIRCLE_SPEED_KPH,
            show_default=True,
            help="Assumed km/h along the great circle when there is no road path.",
        ),
        click.option(
            "--overpass-url",
            "overpass_urls",
            multiple=True,
            envvar="STATIONS_GENERATOR_OVERPASS_URL",
            help="With --online: Overpass endpoint (repeatable; tried in order; env STATIONS_GENERATOR_OVERPASS_URL).",
        ),
        click.option(
            "--overpass-timeout",
            type=click.FloatRange(min=1),
            default=300.0,
            show_default=True,
            help="With --online: deadline in seconds for the download, every try and wait included.",
        ),
        click.option(
            "--cache-dir",
            type=click.Path(path_type=Path),
            envvar="STATIONS_GENERATOR_CACHE_DIR",
            help="With --online: the Overpass cache folder [default: the user cache dir].",
        ),
        click.option("--no-cache", is_flag=True, help="With --online: do not use the cache."),
    ]

    @functools.wraps(f)
    def wrapper(
        *args, osm, online, speed, overpass_urls, overpass_timeout, cache_dir, no_cache, **kwargs
    ):
        roads = RoadOptions(
            osm, online, speed, tuple(overpass_urls), cache_dir, not no_cache, overpass_timeout
        )
        return f(*args, roads=roads, **kwargs)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


_table_option = click.option(
    "--table",
    "table_spec",
    metavar="SPEC",
    help=f"Departure table as LOW-HIGH:OUTCOME,… (leave/min/max/miss) [default: {DEFAULT_TABLE_SPEC}].",
)


# --------------------------------------------------------------------------- roll


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
    departed = _clock(start, "--drove") or 0
    arrived = (_clock(end, "--drove") or 0) + (DAY_S if next_day else 0)
    if arrived < departed:
        raise InputError(
            f"--drove {text}: the arrival is before the departure; if the drive crossed "
            f"midnight write the arrival as {end.strip()}+1"
        )
    if arrived - departed >= DAY_S:
        raise InputError(f"--drove {text}: a drive of a day or more is not a ride between stations")
    return departed, arrived


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
@_table_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
@click.pass_obj
def roll(
    console: Console,
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
    table = _table(table_spec)
    station_map = _load_map(map_path)
    match = find_station(station, station_map.stations)
    _mention_fuzzy(console, [match])
    st = match.station
    now = _clock(at) if at is not None else _now_s()
    assert now is not None

    roll_at = float(now)
    cooldown: dict[str, Any] | None = None
    if drove is not None:
        departed, arrived = _parse_drove(drove)
        if not transit_in_play:
            console.warn("--drove without --transit-in-play: no cooldown applies")
        else:
            drive_s = arrived - departed
            # The arrival is the latest such clock time at or before now.
            arrived = arrived % DAY_S
            arrived_abs = arrived if arrived <= now else arrived - DAY_S
            wait_s = arrival_cooldown(arrived_abs - drive_s, arrived_abs, COOLDOWN_FACTOR)
            ends = arrived_abs + wait_s
            roll_at = max(roll_at, ends)
            cooldown = {"drive_s": drive_s, "cooldown_s": wait_s, "ends_s": ends}

    rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
    departure = roll_departure(st.wait_min, st.wait_max, rng, table)
    wait_s = float(departure.wait_minutes) * 60
    leave = roll_at + wait_s
    expected = table.expected_wait(st.wait_min, st.wait_max)
    request = ride_request(roll_at, leave, pickup_eta * 60) if pickup_eta is not None else None

    if as_json:
        out: dict[str, Any] = {
            "station": _station_json(st),
            "table": table.spec,
            "seed": seed,
            "at": format_clock(now),
            "rolls": [
                {
                    "dice": list(r.dice),
                    "total": r.total,
                    "outcome": r.outcome.key,
                    "wait_minutes": float(r.wait_minutes),
                }
                for r in departure.rolls
            ],
            "wait_minutes": float(departure.wait_minutes),
            "expected_wait_minutes": round(float(expected), 3),
            "roll_at": format_clock(roll_at),
            "leave_at": format_clock(leave),
            "leave_day": clock_json(leave)["day"],
        }
        if cooldown is not None:
            out["cooldown"] = {
                "drive_minutes": cooldown["drive_s"] / 60,
                "cooldown_minutes": cooldown["cooldown_s"] / 60,
                "ends_at": format_clock(cooldown["ends_s"]),
            }
        if request is not None:
            out["ride"] = {
                "pickup_eta_minutes": pickup_eta,
                "request_at": format_clock(request.request_s),
                "pickup_at": format_clock(request.pickup_s),
                "late": request.late,
            }
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return

    lines = _wrap(st.display)
    lines.append(
        f"{st.density_tier or 'wait'} · {st.wait_min}–{st.wait_max} min"
        f" · expect {float(expected):.1f} min"
    )
    if cooldown is not None:
        lines += _wrap(
            f"Cooldown: drove {cooldown['drive_s'] / 60:.0f} min → wait "
            f"{cooldown['cooldown_s'] / 60:.0f} min, until {format_clock(cooldown['ends_s'])}",
            "  ",
        )
    for n, r in enumerate(departure.rolls, 1):
        dice = "+".join(str(d) for d in r.dice)
        if r.outcome.reroll:
            what = f"missed: wait {r.wait_minutes} min, roll again"
        elif r.outcome.wait == "none":
            what = "leave now"
        else:
            bound = "lower" if r.outcome.wait == "min" else "upper"
            what = f"{bound} bound: wait {r.wait_minutes} min"
        lines += _wrap(f"Roll {n}: {dice} = {r.total} → {what}", "  ")
    lines.append(
        f"Wait {departure.wait_minutes} min: leave at {format_clock(leave)}"
        f" (from {format_clock(roll_at)})"
    )
    if request is not None:
        if request.late:
            lines += _wrap(
                f"Request the ride now ({format_clock(request.request_s)}): it arrives at "
                f"{format_clock(request.pickup_s)}, after the wait ends.",
                "  ",
            )
        else:
            lines += _wrap(
                f"Request the ride at {format_clock(request.request_s)} "
                f"(pickup ETA {pickup_eta:g} min) so it arrives at {format_clock(leave)}. "
                "Changing plans before requesting = a missed departure.",
                "  ",
            )
    _echo_lines(lines)


# --------------------------------------------------------------------------- route


def _leg_cols(leg: DriveEstimate) -> tuple[str, str]:
    mark = "≈" if leg.method != "road" else ""
    return f"{mark}{leg.metres / 1000:.1f} km", _minutes(leg.seconds)


def _route_text(plan: ItineraryPlan, source: str) -> list[str]:
    lines = _wrap(f"Drive times: {source}", "  ")
    widths = (8, 9)
    fallback_reasons: set[str] = set()
    for n, rp in enumerate(plan.routes, 1):
        route = rp.item.route
        lines.append("")
        lines += _wrap(f"Route {n}: " + " → ".join(s.label for s in route.stations), "  ")
        if rp.item.dropped:
            lines += _wrap(
                f"  changed at {route.destination.label}; not ridden: "
                + ", ".join(s.label for s in rp.item.dropped),
                "    ",
            )
        origin = route.origin
        lines += _rows(
            f" roll at {origin.label} ({origin.wait_min}–{origin.wait_max} min)",
            "",
            "~" + _minutes(rp.expected_wait_s),
            widths=widths,
        )
        for (a, b), leg in zip(route.legs, rp.legs, strict=True):
            if leg.method != "road":
                fallback_reasons.add(leg.reason)
            lines += _rows(f" {a.label} → {b.label}", *_leg_cols(leg), widths=widths)
        if plan.transit_in_play:
            lines += _rows(
                f" cooldown (2× drive) at {route.destination.label}",
                "",
                _minutes(rp.cooldown_s),
                widths=widths,
            )
        lines.append(_row(" route total", "", _minutes(rp.total_s), widths=widths))
    lines.append("")
    lines.append(_row("Total, expected", "", _minutes(plan.total_s), widths=widths))
    parts = f"wait {plan.expected_wait_s / 60:.1f} + drive {plan.drive_s / 60:.1f}"
    if plan.transit_in_play:
        parts += f" + cooldown {plan.cooldown_s / 60:.1f}"
    lines.append(f"  = {parts} min")
    if fallback_reasons:
        lines += _wrap(
            "≈ great circle at an assumed speed: " + "; ".join(sorted(fallback_reasons)), "  "
        )
    if plan.timeline:
        lines.append("")
        assert plan.start_s is not None
        lines.append(f"Timeline from {format_clock(plan.start_s)} (expected):")
        for e in plan.timeline:
            clock = format_clock(e.seconds).ljust(9)
            lines += _wrap(f" {clock} {e.text}", " " * 11)
    return lines


def _route_json(plan: ItineraryPlan, source: str, table: DepartureTable) -> dict[str, Any]:
    routes = []
    for rp in plan.routes:
        route = rp.item.route
        routes.append(
            {
                "stations": [_station_json(s) for s in route.stations],
                "dropped": [s.id for s in rp.item.dropped],
                "expected_wait_s": round(rp.expected_wait_s, 1),
                "legs": [
                    {"from": a.id, "to": b.id, **leg.as_json()}
                    for (a, b), leg in zip(route.legs, rp.legs, strict=True)
                ],
                "drive_s": round(rp.drive_s, 1),
                "cooldown_s": round(rp.cooldown_s, 1),
                "total_s": round(rp.total_s, 1),
            }
        )
    return {
        "drive_times": source,
        "table": table.spec,
        "transit_in_play": plan.transit_in_play,
        "routes": routes,
        "total": {
            "expected_wait_s": round(plan.expected_wait_s, 1),
            "drive_s": round(plan.drive_s, 1),
            "cooldown_s": round(plan.cooldown_s, 1),
            "total_s": round(plan.total_s, 1),
        },
        "start": format_clock(plan.start_s) if plan.start_s is not None else None,
        "timeline": timeline_json(plan) if plan.timeline else None,
    }


@click.command(context_settings=CONTEXT)
@click.argument("stations", nargs=-1, required=True)
@click.option(
    "--map",
    "map_path",
    required=True,
    type=click.Path(path_type=Path),
    help="The stations.geojson written by generate.",
)
@_road_options
@click.option("--at", "at", metavar="HH:MM", help="Start a timeline at this clock time.")
@click.option(
    "--transit-in-play/--no-transit-in-play",
    default=TRANSIT_IN_PLAY,
    show_default=True,
    help="Real transit is in play: wait 2× each route's drive at its destination.",
)
@_table_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
@click.pass_obj
def route(
    console: Console,
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
    table = _table(table_spec)
    start = _clock(at)
    station_map = _load_map(map_path)
    groups = split_itinerary(stations)
    itinerary, matches = plan_itinerary(groups, station_map.stations)
    _mention_fuzzy(console, matches)
    times = _drive_times(console, station_map, roads)
    with status(console, "Timing the drives"):
        plan = plan_routes(
            itinerary,
            times,
            table=table,
            transit_in_play=transit_in_play,
            start_s=float(start) if start is not None else None,
        )
    if as_json:
        click.echo(
            json.dumps(_route_json(plan, times.describe(), table), ensure_ascii=False, indent=2)
        )
    else:
        _echo_lines(_route_text(plan, times.describe()))


# --------------------------------------------------------------------------- calibrate


def _calibration_csv(cal: Calibration) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(
        [
            "origin_id",
            "origin_name",
            "destination_id",
            "destination_name",
            "density_tier",
            "wait_min",
            "wait_max",
            "drive_s",
            "drive_m",
            "method",
            "expected_wait_s",
            "cooldown_s",
            "vehicle_s",
            "target_s",
            "drive_multiple",
        ]
    )
    for p in cal.pairs:
        writer.writerow(
            [
                p.origin.id,
                p.origin.name,
                p.destination.id,
                p.destination.name,
                p.origin.density_tier,
                p.origin.wait_min,
                p.origin.wait_max,
                f"{p.drive.seconds:.1f}",
                f"{p.drive.metres:.1f}",
                p.drive.method,
                f"{p.expected_wait_s:.1f}",
                f"{p.cooldown_s:.1f}",
                f"{p.vehicle_s:.1f}",
                f"{p.target_s:.1f}",
                f"{p.drive_multiple:.3f}",
            ]
        )
    return buf.getvalue()


_TIER_COLOURS = {"dense": "#1b9e77", "moderate": "#d95f02", "sparse": "#7570b3"}


def _calibration_png(cal: Calibration, title: str) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 5), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    top = max((p.drive.seconds / 60 for p in cal.pairs), default=1.0) * 1.05
    lo, hi = cal.drive_range
    xs = [0.0, top]
    ax.fill_between(xs, [0, lo * top], [0, hi * top], color="0.9", label=f"{lo:g}–{hi:g}× drive")
    ax.plot(xs, [0, cal.target_factor * top], color="0.4", ls="--", lw=1, label="transit target")
    tiers = sorted({p.origin.density_tier or "(none)" for p in cal.pairs})
    for tier in tiers:
        pts = [p for p in cal.pairs if (p.origin.density_tier or "(none)") == tier]
        colour = _TIER_COLOURS.get(tier, "0.3")
        for method, filled in (("road", True), ("great-circle", False)):
            some = [p for p in pts if p.drive.method == method]
            if not some:
                continue
            ax.scatter(
                [p.drive.seconds / 60 for p in some],
                [p.vehicle_s / 60 for p in some],
                s=16,
                alpha=0.8,
                facecolors=colour if filled else "none",
                edgecolors=colour,
                label=f"{tier} ({len(some)})" if filled else f"{tier}, great circle ({len(some)})",
            )
    ax.set_xlim(0, top)
    ax.set_ylim(0, None)
    ax.set_xlabel("drive time (min)")
    what = "expected wait + drive" + (" + cooldown" if cal.cooldown_factor else "")
    ax.set_ylabel(f"{what} (min)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(True, lw=0.3)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def map_tiers(station_map: StationFile) -> tuple[WaitTier, ...] | None:
    """The wait tiers a map was generated with: its metadata's ``tiers`` text, or the
    default tiers when its tier names are the defaults' (maps written before it was kept)."""
    text = station_map.metadata.get("tiers")
    if isinstance(text, str):
        try:
            return parse_tiers(text)
        except ValueError:
            return None
    names = {s.density_tier for s in station_map.stations if s.density_tier}
    return DEFAULT_TIERS if names <= {t.name for t in DEFAULT_TIERS} else None


def suggested_tiers(
    cal: Calibration, tiers: Sequence[WaitTier] | None
) -> list[tuple[TierSummary, tuple[int, int]]]:
    """Each calibrated tier with the wait range to use, densest first and monotone: a
    sparser tier never waits less than a denser one (its range is raised to the denser
    tier's where the per-tier suggestion would dip below it)."""
    rank = {t.name: k for k, t in enumerate(tiers or ())}
    ordered = sorted(cal.tiers, key=lambda t: (rank.get(t.tier, len(rank)), cal.tiers.index(t)))
    out = []
    floor_lo = floor_hi = 0
    for t in ordered:
        lo, hi = t.suggestion if t.suggestion is not None else (t.wait_min, t.wait_max)
        if t.suggestion is not None and t.suggestion[1] == 0:
            lo, hi = t.wait_min, t.wait_max  # no wait fits: keep it unless a denser tier forces
        lo, hi = max(lo, floor_lo), max(hi, floor_hi)
        out.append((t, (lo, hi)))
        floor_lo, floor_hi = lo, hi
    return out


def _tiers_spec(
    proposal: list[tuple[TierSummary, tuple[int, int]]], tiers: Sequence[WaitTier] | None
) -> str | None:
    """The proposal as paste-ready ``--tiers`` text (tiers the pairs missed kept as they were)."""
    if tiers is None:
        return None
    new = {t.tier: rng for t, rng in proposal}
    out = []
    for t in tiers:
        lo, hi = new.get(t.name, (t.wait_min, t.wait_max))
        out.append(WaitTier(t.name, t.min_nearby, lo, hi))
    try:
        return format_tiers(out)
    except ValueError:
        return None


def _calibration_text(
    cal: Calibration, name: str, source: str, tiers: Sequence[WaitTier] | None = None
) -> list[str]:
    lo, hi = cal.drive_range
    n_stations = len({p.origin.id for p in cal.pairs} | {p.destination.id for p in cal.pairs})
    lines = _wrap(f"Calibration of {name}: {len(cal.pairs)} pairs, {n_stations} stations", "  ")
    lines += _wrap(f"Drive times: {source}", "  ")
    door = "expected wait + drive" + (
        f" + cooldown ({cal.cooldown_factor:g}× drive)" if cal.cooldown_factor else ""
    )
    lines += _wrap(
        f"Door to door = {door}; target {cal.target_factor:g}× drive (rules {lo:g}–{hi:g}×)", "  "
    )
    lines.append("")
    head = f"{'tier':<9}{'pairs':>6}{'drive':>7}{'wait':>6}{'d2d':>6}{'×drv':>6}{'in':>5}  verdict"
    lines.append(head)
    for t in cal.tiers:
        lines.append(
            f"{_fit(t.tier, 9):<9}{t.pairs:>6}{t.median_drive_s / 60:>7.1f}"
            f"{t.expected_wait_s / 60:>6.1f}{t.median_vehicle_s / 60:>6.1f}"
            f"{t.median_multiple:>6.1f}{t.in_range * 100:>4.0f}%  {t.verdict}"
        )
    lines += _wrap(
        f"(medians in minutes; ×drv = d2d / drive; in = share within {lo:g}–{hi:g}×)", " "
    )
    overall = sum(lo <= p.drive_multiple <= hi for p in cal.pairs)
    if cal.pairs:
        lines.append(
            f"Overall {overall / len(cal.pairs) * 100:.0f}% of pairs within {lo:g}–{hi:g}×."
        )
    proposal = suggested_tiers(cal, tiers)
    changed = [(t, rng) for t, rng in proposal if rng != (t.wait_min, t.wait_max)]
    if changed:
        lines.append("")
        lines.append("Suggested wait ranges (regenerate with --tiers):")
        for t, (new_lo, new_hi) in changed:
            if t.suggestion is None or t.suggestion != (new_lo, new_hi):
                why = "raised so that it waits no less than a denser tier"
                if t.suggestion is not None and t.suggestion[1] == 0:
                    why = "no wait fits: drive + cooldown alone exceed the rules; " + why
            else:
                why = "waits too long" if t.verdict == "too slow" else "waits too short"
                why += f" for a median drive of {t.median_drive_s / 60:.1f} min"
            lines += _wrap(
                f"  {t.tier}: {t.wait_min}–{t.wait_max} → {new_lo}–{new_hi} min ({why})", "    "
            )
        spec = _tiers_spec(proposal, tiers)
        if spec:
            lines.append("Paste into generate:")
            lines += _wrap(f"  --tiers {spec}", "    ")
        else:
            lines += _wrap(
                "  (the map does not record its tiers' MIN_NEARBY; write --tiers "
                "NAME:MIN_NEARBY:MIN-MAX with the ranges above)",
                "   ",
            )
    elif cal.tiers:
        lines.append("No tier is far off: keep the wait ranges.")
    if cal.skipped:
        lines.append(f"Skipped {cal.skipped} pairs with a zero drive time.")
    fallback = [p.drive for p in cal.pairs if p.drive.method != "road"]
    if fallback:
        off_road = sorted({label for d in fallback for label in d.off_road})
        why = (
            f"{len(off_road)} stations are off the road graph: " + ", ".join(off_road)
            if off_road
            else "no road path"
        )
        lines += _wrap(f"{len(fallback)} drive times are great-circle estimates ({why}).", "  ")
    return lines


@click.command(context_settings=CONTEXT)
@click.argument("map_path", metavar="STATIONS_GEOJSON", type=click.Path(path_type=Path))
@_road_options
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
@_table_option
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(path_type=Path),
    help="Folder for calibration.png and calibration.csv [default: the map's folder].",
)
@click.pass_obj
def calibrate(
    console: Console,
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
    from stations_generator.formats.atomic import output_set

    table = _table(table_spec)
    out = output_dir if output_dir is not None else map_path.parent
    # The folder is locked from here on; both files appear together, or not at all.
    with output_set(out, (CALIBRATION_CSV, CALIBRATION_PNG)) as outputs:
        station_map = _load_map(map_path)
        if len(station_map.stations) < 2:
            raise InputError(f"{station_map.source} has one station; calibration needs pairs")
        times = _drive_times(console, station_map, roads)
        chosen = sample_pairs(station_map.stations, pairs, random.Random(seed))
        with status(console, f"Timing {len(chosen)} drives"):
            cal = run_calibration(
                chosen,
                times,
                table=table,
                cooldown_factor=COOLDOWN_FACTOR if transit_in_play else 0.0,
                target_factor=TRANSIT_FACTOR,
                drive_range=TRANSIT_RANGE,
            )
        if not cal.pairs:
            raise InputError("no station pair has a drive time above zero; nothing to calibrate")
        name = map_path.as_posix()
        title = f"{_fit(name, 50)}: vehicle door to door vs transit target"
        with status(console, "Drawing calibration.png"):
            png = _calibration_png(cal, title)
        outputs.write_bytes(CALIBRATION_CSV, _calibration_csv(cal).encode("utf-8"))
        outputs.write_bytes(CALIBRATION_PNG, png)
    _echo_lines(_calibration_text(cal, name, times.describe(), map_tiers(station_map)))
    console.info("Wrote " + ", ".join(str(p) for p in outputs.written))
