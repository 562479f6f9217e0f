"""A game's hiding stations from a GTFS feed: ``"stations": {"gtfs": "feed.zip", …}``.

The game file names the feed and its choice (the keys of :data:`SPEC_KEYS`, as the
``timetable stations`` options); the stations are those ``timetable stations`` would
write, kept when inside the play area, each a
:class:`~stations_generator.core.questions.places.Station` as an OSM station is:

* ``tags``: what an OSM stop of its routes' mode carries
  (:func:`~stations_generator.core.transit.modes.mode_tags`: a rail station is
  ``railway=station`` + ``train=yes``, a metro one ``station=subway``…), so the rule
  sets' valid hiding stops read it as they read OSM;
* ``lines``: the matching transit-line question compares two stations' ``lines``; here
  each pair of stations on the same line under the game's rules
  (:mod:`stations_generator.core.transit.lines`) shares one token
  ``gtfs-line:<id>~<id>``, so "same line" is exactly "a direct trip at least every T".
  Under ``jltg-eu`` the routes are the trains' (rail and monorail) and T is 2 hours
  (house rules, Matching: Transit Line); under other rule sets every route counts and T
  is the window's length (any direct trip in the window); ``"line_every_min"`` sets T;
* ``line_refs``: the short names of the routes departing from it.

With ``"valid_stops_only": true`` the stations failing the house rules' timetable
validity (:func:`~stations_generator.core.transit.lines.stop_validity`, in the game's
hiding radius) are left out.

**Reachable in the hiding period**: with ``"hider_start"`` (a stop id or name, or
``[lon, lat]``) and ``"hiding_started"`` (``HH:MM`` on the game's service day) the game
gets a :class:`~stations_generator.core.questions.game.ZoneFilter`: a zone the hider
cannot be in by the end of the game size's hiding period over the feed's timetable
(:func:`~stations_generator.core.transit.reach.reachable_zone_filter`, one RAPTOR query
per use) is no longer possible, with a reason naming the feed, the start and the times.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from stations_generator.app.timetable_feed import (
    DEFAULT_END,
    DEFAULT_START,
    FeedChoice,
    FeedDay,
    clock_text,
    open_feed,
    parse_clock,
    resolve,
)
from stations_generator.app.timetable_reach import resolve_start
from stations_generator.core.geo.antimeridian import wrap_lon
from stations_generator.core.questions.game import ZoneFilter
from stations_generator.core.questions.places import Station
from stations_generator.core.transit.lines import (
    TRANSIT_LINE_MAX_WAIT_S,
    TRANSIT_LINE_MODES,
    direct_links,
    stop_validity,
)
from stations_generator.core.transit.modes import mode_of, mode_tags, route_type_mask
from stations_generator.core.transit.reach import (
    UNREACHABLE_REASON,
    hiding_deadline,
    reachable_zone_filter,
)
from stations_generator.core.transit.selection import select_stations
from stations_generator.core.transit.timetable import build_timetable
from stations_generator.errors import InputError

__all__ = [
    "SPEC_KEYS",
    "FeedGame",
    "feed_choice",
    "feed_game",
    "feed_game_stations",
    "hiding_filter",
    "line_tokens",
]

#: The keys of a game's ``"stations"`` object naming a feed.
SPEC_KEYS = (
    "gtfs",
    "route_types",
    "routes",
    "date",
    "window",
    "min_per_hour",
    "every_nth",
    "attribution",
    "line_every_min",
    "valid_stops_only",
    "hider_start",
    "hiding_started",
)


@dataclass(frozen=True)
class FeedGame:
    """What a game takes from the feed its ``"stations"`` name.

    Attributes
    ----------
    stations : list of Station
    attribution : str
        The feed's credit (``"attribution"``, else its agencies' names).
    zone_filter : ZoneFilter or None
        "Reachable in the hiding period", when the game says where and when the hider
        started.
    """

    stations: list[Station]
    attribution: str
    zone_filter: ZoneFilter | None = None


def feed_choice(spec: dict[str, Any], base: Path) -> FeedChoice:
    """The :class:`FeedChoice` of a game's ``"stations"`` object (paths from ``base``)."""
    path = Path(str(spec["gtfs"]))
    start, _, end = str(spec.get("window", f"{DEFAULT_START}-{DEFAULT_END}")).partition("-")
    return FeedChoice(
        feed=path if path.is_absolute() else base / path,
        route_types=tuple(str(t) for t in spec.get("route_types", ())),
        routes=tuple(str(r) for r in spec.get("routes", ())),
        date=spec.get("date"),
        start=start,
        end=end,
        min_per_hour=float(spec.get("min_per_hour", 0)),
        every_nth=int(spec.get("every_nth", 1)),
        attribution=spec.get("attribution"),
    )


def line_tokens(fd: FeedDay, rules: str, every_s: int | None = None) -> dict[int, set[str]]:
    """Per station row, the tokens of the lines it is on (module docstring).

    Parameters
    ----------
    fd : FeedDay
    rules : str
        The rule set's name.
    every_s : int, optional
        The rule's longest wait [default: 2 h under ``jltg-eu``, else the window].

    Returns
    -------
    dict of int to set of str
    """
    feed = fd.feed
    if rules == "jltg-eu":
        routes = route_type_mask(feed.route_type, TRANSIT_LINE_MODES)
        every = TRANSIT_LINE_MAX_WAIT_S if every_s is None else every_s
    else:
        routes = np.ones(len(feed.route_ids), dtype=bool)
        every = fd.window.end_s - fd.window.start_s if every_s is None else every_s
    tokens: dict[int, set[str]] = {}
    for a, b in sorted(direct_links(fd.service, routes).linked(every)):
        token = f"gtfs-line:{feed.stop_ids[a]}~{feed.stop_ids[b]}"
        tokens.setdefault(a, set()).add(token)
        tokens.setdefault(b, set()).add(token)
    return tokens


def hiding_filter(fd: FeedDay, spec: dict[str, Any], game_size: str) -> ZoneFilter | None:
    """The game's "reachable in the hiding period" filter, when its ``"stations"`` say
    where (``"hider_start"``) and when (``"hiding_started"``) the hider started.

    Parameters
    ----------
    fd : FeedDay
        The feed on the game's service day.
    spec : dict
        The game's ``"stations"`` object.
    game_size : str
        ``S``, ``M`` or ``L``: the hiding period (JLTG.EU house rules, by game size).

    Returns
    -------
    ZoneFilter or None
        None when neither key is given.

    Raises
    ------
    InputError
        One key without the other, a bad time, or a start the feed does not know.
    """
    given = [k for k in ("hider_start", "hiding_started") if k in spec]
    if not given:
        return None
    if len(given) == 1:
        other = "hiding_started" if given[0] == "hider_start" else "hider_start"
        raise InputError(
            f'stations: "{given[0]}" needs "{other}" (where the hider started and at what '
            'time, e.g. "hider_start": "Times Sq-42 St", "hiding_started": "08:00"); add it, '
            "or drop the key"
        )
    start_s = parse_clock(str(spec["hiding_started"]), "stations.hiding_started")
    tt = build_timetable(fd.feed, fd.day)
    where = spec["hider_start"]
    if isinstance(where, list):
        lon, lat = float(where[0]), float(where[1])
        if not (abs(lon) <= 180 and abs(lat) <= 90):
            raise InputError(
                f"stations.hider_start {where!r}: give [lon, lat] in degrees, longitude first"
            )
        label, stops, position = f"{lon:.6f},{lat:.6f}", None, (lon, lat)
    else:
        try:
            found = resolve_start(fd.feed, tt, str(where))
        except InputError as exc:
            text = str(exc).replace("--from ", "", 1).replace("or LON,LAT", "or [lon, lat]")
            raise InputError(f"stations.hider_start: {text}") from None
        label, stops, position = found.label, list(found.stops), None
    deadline = hiding_deadline(start_s, game_size)
    when = f"from {label} at {clock_text(start_s)}, by {clock_text(deadline)}"
    period = (
        f"the hiding period of a size-{game_size.upper()} game, {(deadline - start_s) // 60} min"
    )

    def keeps(lons: np.ndarray, lats: np.ndarray, radius: float) -> np.ndarray:
        return reachable_zone_filter(
            tt, lons, lats, radius, start_s, deadline, from_stops=stops, from_position=position
        )

    return ZoneFilter(
        keeps=keeps,
        reason=f"{UNREACHABLE_REASON} over the timetable ({fd.name}: {when})",
        note=(
            f"timetable ({fd.name}, {fd.day.isoformat()}): hiding zones the hider cannot "
            f"reach {when} ({period}) are not possible"
        ),
    )


def feed_game(
    spec: dict[str, Any],
    base: Path,
    play_area: BaseGeometry,
    rules: str,
    centre: float = 0.0,
    radius_m: float | None = None,
    game_size: str = "M",
) -> FeedGame:
    """The stations, credit and zone filter of a game whose ``"stations"`` name a feed.

    Parameters
    ----------
    spec : dict
        The game's ``"stations"`` object.
    base : Path
        The game file's folder (relative paths start there).
    play_area : BaseGeometry
    rules : str
        The rule set's name.
    centre : float
        The play area's central longitude (stations are kept on its side of ±180°).
    radius_m : float, optional
        The hiding radius, for ``valid_stops_only`` (the game gives its radius to the
        zone filter when it runs).
    game_size : str
        The game's size, for the reachability filter's hiding period.

    Returns
    -------
    FeedGame

    Raises
    ------
    InputError
        A bad feed or choice (prefixed ``stations.gtfs``), a bad start, or no station in
        the play area.
    """
    choice = feed_choice(spec, base)
    try:
        fd = resolve(open_feed(choice.feed), choice)
    except InputError as exc:
        raise InputError(f"stations.gtfs ({Path(choice.feed).name}): {exc}") from None
    stations = _stations(fd, choice, spec, play_area, rules, centre, radius_m)
    return FeedGame(stations, fd.attribution, hiding_filter(fd, spec, game_size))


def feed_game_stations(
    spec: dict[str, Any],
    base: Path,
    play_area: BaseGeometry,
    rules: str,
    centre: float = 0.0,
    radius_m: float | None = None,
) -> list[Station]:
    """The hiding stations of a game whose ``"stations"`` name a feed (:func:`feed_game`).

    Returns
    -------
    list of Station
        In station-row order.
    """
    return feed_game(spec, base, play_area, rules, centre, radius_m).stations


def _stations(
    fd: FeedDay,
    choice: FeedChoice,
    spec: dict[str, Any],
    play_area: BaseGeometry,
    rules: str,
    centre: float,
    radius_m: float | None,
) -> list[Station]:
    """The feed's chosen stations inside the play area (module docstring)."""
    feed = fd.feed
    service = select_stations(fd.service, fd.routes, choice.min_per_hour, choice.every_nth).service
    every = spec.get("line_every_min")
    tokens = line_tokens(fd, rules, None if every is None else int(every) * 60)
    keep = np.ones(len(service.stations), dtype=bool)
    if spec.get("valid_stops_only"):
        if radius_m is None:
            raise InputError("stations.gtfs: valid_stops_only needs the game's hiding radius")
        validity = stop_validity(fd.service, radius_m, service.stations, fd.routes)
        keep = validity.valid
    out = []
    for k, s in enumerate(service.stations.tolist()):
        lon, lat = wrap_lon(float(feed.stop_lon[s]), centre), float(feed.stop_lat[s])
        if not keep[k] or not play_area.covers(Point(lon, lat)):
            continue
        routes = service.routes[k]
        out.append(
            Station(
                id=f"gtfs:{feed.stop_ids[s]}",
                name=feed.stop_names[s],
                lon=lon,
                lat=lat,
                tags=mode_tags(mode_of(int(feed.route_type[r])) for r in routes),
                lines=frozenset(tokens.get(s, ())),
                line_refs=frozenset(fd.route_names(routes)),
            )
        )
    if not out:
        raise InputError(
            f"stations.gtfs: no station of {fd.name} chosen on {fd.day.isoformat()} "
            f"{fd.window_text()} lies in the play area; check the feed and the choice"
        )
    return out
