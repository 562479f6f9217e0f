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
"""

from __future__ import annotations

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
    open_feed,
    resolve,
)
from stations_generator.core.geo.antimeridian import wrap_lon
from stations_generator.core.questions.places import Station
from stations_generator.core.transit.lines import (
    TRANSIT_LINE_MAX_WAIT_S,
    TRANSIT_LINE_MODES,
    direct_links,
    stop_validity,
)
from stations_generator.core.transit.modes import mode_of, mode_tags, route_type_mask
from stations_generator.core.transit.selection import select_stations
from stations_generator.errors import InputError

__all__ = ["SPEC_KEYS", "feed_choice", "feed_game_stations", "line_tokens"]

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
)


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


def feed_game_stations(
    spec: dict[str, Any],
    base: Path,
    play_area: BaseGeometry,
    rules: str,
    centre: float = 0.0,
    radius_m: float | None = None,
) -> list[Station]:
    """The hiding stations of a game whose ``"stations"`` name a feed.

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
        The hiding radius, for ``valid_stops_only``.

    Returns
    -------
    list of Station
        In station-row order.

    Raises
    ------
    InputError
        A bad feed or choice (prefixed ``stations.gtfs``), or no station in the play area.
    """
    choice = feed_choice(spec, base)
    try:
        fd = resolve(open_feed(choice.feed), choice)
    except InputError as exc:
        raise InputError(f"stations.gtfs ({Path(choice.feed).name}): {exc}") from None
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
