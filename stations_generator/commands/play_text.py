"""What ``roll``, ``route`` and ``calibrate`` print: text no wider than :data:`WIDTH`
columns (a phone's terminal), or the JSON of ``--json``."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import click

from stations_generator.core.play.calibration import Calibration, TierSummary
from stations_generator.core.play.clock import clock_json, format_clock
from stations_generator.core.play.departure import DepartureTable
from stations_generator.core.play.drive import DriveEstimate
from stations_generator.core.play.itinerary import ItineraryPlan, RoutePlan, timeline_json
from stations_generator.core.play.routes import Station
from stations_generator.core.play.station_roll import StationRoll
from stations_generator.core.play.tier_advice import suggested_tiers, tiers_spec
from stations_generator.core.stationmap.density import WaitTier

__all__ = [
    "WIDTH",
    "calibration_text",
    "echo_lines",
    "fit",
    "roll_json",
    "roll_text",
    "route_json",
    "route_text",
]

WIDTH = 60
"""Widest text line printed (a phone terminal in portrait is ~60 columns)."""


# --------------------------------------------------------------------------- layout


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, an ellipsis marking a cut.

    Parameters
    ----------
    text : str
    width : int

    Returns
    -------
    str
    """
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def _row(label: str, *cols: str, widths: Sequence[int] = ()) -> str:
    """A label padded/truncated so the right-aligned columns keep the line ≤ WIDTH."""
    widths = list(widths) or [len(c) for c in cols]
    right = "".join(c.rjust(w + 1) for c, w in zip(cols, widths, strict=True))
    return fit(label, WIDTH - len(right)).ljust(WIDTH - len(right)) + right


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


def echo_lines(lines: Sequence[str]) -> None:
    """Print lines on stdout, trailing blanks dropped.

    Parameters
    ----------
    lines : sequence of str
    """
    for line in lines:
        click.echo(line.rstrip())


def _station_json(s: Station) -> dict[str, Any]:
    return {
        "id": s.id,
        "name": s.name,
        "wait_min": s.wait_min,
        "wait_max": s.wait_max,
        "density_tier": s.density_tier,
    }


# --------------------------------------------------------------------------- roll


def roll_json(result: StationRoll, seed: int | None) -> dict[str, Any]:
    """``roll --json``: the station, the dice, and when to leave (and request a ride).

    Parameters
    ----------
    result : StationRoll
    seed : int or None
        The ``--seed`` the dice were seeded with.

    Returns
    -------
    dict
    """
    departure = result.departure
    out: dict[str, Any] = {
        "station": _station_json(result.station),
        "table": result.table.spec,
        "seed": seed,
        "at": format_clock(result.at_s),
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
        "expected_wait_minutes": round(float(result.expected_wait), 3),
        "roll_at": format_clock(result.roll_at_s),
        "leave_at": format_clock(result.leave_s),
        "leave_day": clock_json(result.leave_s)["day"],
    }
    if result.cooldown is not None:
        out["cooldown"] = {
            "drive_minutes": result.cooldown.drive_s / 60,
            "cooldown_minutes": result.cooldown.cooldown_s / 60,
            "ends_at": format_clock(result.cooldown.ends_s),
        }
    if result.request is not None:
        out["ride"] = {
            "pickup_eta_minutes": result.pickup_eta_min,
            "request_at": format_clock(result.request.request_s),
            "pickup_at": format_clock(result.request.pickup_s),
            "late": result.request.late,
        }
    return out


def _roll_lines(result: StationRoll) -> list[str]:
    lines: list[str] = []
    for n, r in enumerate(result.departure.rolls, 1):
        dice = "+".join(str(d) for d in r.dice)
        if r.outcome.reroll:
            what = f"missed: wait {r.wait_minutes} min, roll again"
        elif r.outcome.wait == "none":
            what = "leave now"
        else:
            bound = "lower" if r.outcome.wait == "min" else "upper"
            what = f"{bound} bound: wait {r.wait_minutes} min"
        lines += _wrap(f"Roll {n}: {dice} = {r.total} → {what}", "  ")
    return lines


def _ride_lines(result: StationRoll) -> list[str]:
    request = result.request
    if request is None:
        return []
    if request.late:
        return _wrap(
            f"Request the ride now ({format_clock(request.request_s)}): it arrives at "
            f"{format_clock(request.pickup_s)}, after the wait ends.",
            "  ",
        )
    return _wrap(
        f"Request the ride at {format_clock(request.request_s)} "
        f"(pickup ETA {result.pickup_eta_min:g} min) so it arrives at "
        f"{format_clock(result.leave_s)}. "
        "Changing plans before requesting = a missed departure.",
        "  ",
    )


def roll_text(result: StationRoll) -> list[str]:
    """The lines ``roll`` prints: station, cooldown, each roll, when to leave.

    Parameters
    ----------
    result : StationRoll

    Returns
    -------
    list of str
        Lines no wider than :data:`WIDTH`.
    """
    st = result.station
    lines = _wrap(st.display)
    lines.append(
        f"{st.density_tier or 'wait'} · {st.wait_min}–{st.wait_max} min"
        f" · expect {float(result.expected_wait):.1f} min"
    )
    cooldown = result.cooldown
    if cooldown is not None:
        lines += _wrap(
            f"Cooldown: drove {cooldown.drive_s / 60:.0f} min → wait "
            f"{cooldown.cooldown_s / 60:.0f} min, until {format_clock(cooldown.ends_s)}",
            "  ",
        )
    lines += _roll_lines(result)
    lines.append(
        f"Wait {result.departure.wait_minutes} min: leave at {format_clock(result.leave_s)}"
        f" (from {format_clock(result.roll_at_s)})"
    )
    return lines + _ride_lines(result)


# --------------------------------------------------------------------------- route


_ROUTE_WIDTHS = (8, 9)  # the distance and time columns of a route's rows


def _leg_cols(leg: DriveEstimate) -> tuple[str, str]:
    mark = "≈" if leg.method != "road" else ""
    return f"{mark}{leg.metres / 1000:.1f} km", _minutes(leg.seconds)


def _route_lines(n: int, rp: RoutePlan, transit_in_play: bool) -> list[str]:
    """Route ``n``: its stations, the roll at its origin, each leg, cooldown and total."""
    widths = _ROUTE_WIDTHS
    route = rp.item.route
    lines = [""]
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
        lines += _rows(f" {a.label} → {b.label}", *_leg_cols(leg), widths=widths)
    if transit_in_play:
        lines += _rows(
            f" cooldown (2× drive) at {route.destination.label}",
            "",
            _minutes(rp.cooldown_s),
            widths=widths,
        )
    lines.append(_row(" route total", "", _minutes(rp.total_s), widths=widths))
    return lines


def route_text(plan: ItineraryPlan, source: str) -> list[str]:
    """The lines ``route`` prints: each route's legs, the totals and the timeline.

    Parameters
    ----------
    plan : ItineraryPlan
    source : str
        Where the drive times came from (``DriveTimes.describe()``).

    Returns
    -------
    list of str
        Lines no wider than :data:`WIDTH`.
    """
    lines = _wrap(f"Drive times: {source}", "  ")
    for n, rp in enumerate(plan.routes, 1):
        lines += _route_lines(n, rp, plan.transit_in_play)
    lines.append("")
    lines.append(_row("Total, expected", "", _minutes(plan.total_s), widths=_ROUTE_WIDTHS))
    parts = f"wait {plan.expected_wait_s / 60:.1f} + drive {plan.drive_s / 60:.1f}"
    if plan.transit_in_play:
        parts += f" + cooldown {plan.cooldown_s / 60:.1f}"
    lines.append(f"  = {parts} min")
    fallback_reasons = {leg.reason for rp in plan.routes for leg in rp.legs if leg.method != "road"}
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


def route_json(plan: ItineraryPlan, source: str, table: DepartureTable) -> dict[str, Any]:
    """``route --json``: each route's stations, legs and times, the totals, the timeline.

    Parameters
    ----------
    plan : ItineraryPlan
    source : str
        Where the drive times came from.
    table : DepartureTable
        The departure table the expected waits follow.

    Returns
    -------
    dict
    """
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


# --------------------------------------------------------------------------- calibrate


def _tier_table(cal: Calibration) -> list[str]:
    lo, hi = cal.drive_range
    head = f"{'tier':<9}{'pairs':>6}{'drive':>7}{'wait':>6}{'d2d':>6}{'×drv':>6}{'in':>5}  verdict"
    lines = [head]
    for t in cal.tiers:
        lines.append(
            f"{fit(t.tier, 9):<9}{t.pairs:>6}{t.median_drive_s / 60:>7.1f}"
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
    return lines


def _why(t: TierSummary, new: tuple[int, int]) -> str:
    """Why a tier's wait range changes."""
    if t.suggestion is None or t.suggestion != new:
        why = "raised so that it waits no less than a denser tier"
        if t.suggestion is not None and t.suggestion[1] == 0:
            why = "no wait fits: drive + cooldown alone exceed the rules; " + why
        return why
    why = "waits too long" if t.verdict == "too slow" else "waits too short"
    return why + f" for a median drive of {t.median_drive_s / 60:.1f} min"


def _suggestion_lines(cal: Calibration, tiers: Sequence[WaitTier] | None) -> list[str]:
    proposal = suggested_tiers(cal, tiers)
    changed = [(t, rng) for t, rng in proposal if rng != (t.wait_min, t.wait_max)]
    if not changed:
        return ["No tier is far off: keep the wait ranges."] if cal.tiers else []
    lines = ["", "Suggested wait ranges (regenerate with --tiers):"]
    for t, (new_lo, new_hi) in changed:
        why = _why(t, (new_lo, new_hi))
        lines += _wrap(
            f"  {t.tier}: {t.wait_min}–{t.wait_max} → {new_lo}–{new_hi} min ({why})", "    "
        )
    spec = tiers_spec(proposal, tiers)
    if spec:
        lines.append("Paste into generate:")
        lines += _wrap(f"  --tiers {spec}", "    ")
    else:
        lines += _wrap(
            "  (the map does not record its tiers' MIN_NEARBY; write --tiers "
            "NAME:MIN_NEARBY:MIN-MAX with the ranges above)",
            "   ",
        )
    return lines


def calibration_text(
    cal: Calibration, name: str, source: str, tiers: Sequence[WaitTier] | None = None
) -> list[str]:
    """The lines ``calibrate`` prints: the per-tier table and the suggested wait ranges.

    Parameters
    ----------
    cal : Calibration
    name : str
        The map's file name.
    source : str
        Where the drive times came from.
    tiers : sequence of WaitTier, optional
        The map's tiers, for the paste-ready ``--tiers`` text.

    Returns
    -------
    list of str
        Lines no wider than :data:`WIDTH` (the table's rows aside).
    """
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
    lines += _tier_table(cal)
    lines += _suggestion_lines(cal, tiers)
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
