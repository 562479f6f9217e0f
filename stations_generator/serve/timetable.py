"""The timetable layer of the page: where the hider can be, over a GTFS feed given at start.

``serve --gtfs FEED`` (repeatable) names the feeds the page may use; each is read once
(through the extract cache, as the ``timetable`` commands read it) and kept in memory,
with the timetables of the last few service days asked for. A request picks a feed by
its index or file name among those, never by a path: the server opens no file a request
names.

* ``GET /api/timetable/feeds`` -> ``{feeds: [{index, name, attribution, first_date,
  last_date, busiest_date, stations: [{id, name, lon, lat}]}], game_sizes, rules}``.
* ``POST /api/timetable/reach`` ``{feed, from, at, date?, game_size?, rules?,
  within_min?}`` -> the GeoJSON ``timetable reach`` writes for the same choices, plus
  ``bands`` (the colour bands of the ``--html`` page: ``upper_min``, ``label``,
  ``colour``, ``count``) and ``zone_bands`` (each feature's band).

A bad request is a 4xx ``{"error": "<one line>"}`` in the page's words (its fields, not
the CLI's options); nothing of it is kept.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from stations_generator.app.timetable_feed import feed_attribution
from stations_generator.app.timetable_reach import (
    ReachResult,
    deadline_for,
    load_feed,
    parse_time,
    pick_day,
    resolve_start,
)
from stations_generator.core.gamesize import GAME_SIZES
from stations_generator.core.questions.rules import RULE_SETS
from stations_generator.core.transit.feed import Feed
from stations_generator.core.transit.reach import (
    Zones,
    feed_station_rows,
    feed_zones,
    reach_zones,
)
from stations_generator.core.transit.timetable import Timetable, build_timetable
from stations_generator.errors import InputError
from stations_generator.pages.timetable_page import BAND_COLOURS, band_of, bands
from stations_generator.serve.stations import ServerConfig

__all__ = ["MAX_REQUEST_BYTES", "TimetableService", "mount"]

#: A reach request is a few short fields; 4 KiB is far above any the page sends.
MAX_REQUEST_BYTES = 4096
#: Longest text field accepted (a stop name or id; the longest NYC/Cairns names are ~40).
MAX_TEXT = 200
#: Service days whose timetable and zones are kept per server (the page asks for one or
#: two; a full NYC day's timetable is tens of MB).
DAYS_KEPT = 4
#: The fields of a reach request.
FIELDS = ("feed", "from", "at", "date", "game_size", "rules", "within_min")
#: The CLI's option names in the app's messages -> the request's fields.
_WORDS = (
    ("--from ", "from "),
    ("--at ", "at "),
    ("--date ", "date "),
    ("--game-size ", "game_size "),
    ("--within ", "within_min "),
    ("--rules ", "rules "),
    ("leave --date out", "leave date out"),
    ("or LON,LAT", "or [lon, lat]"),
)


def _page_words(message: str) -> str:
    for cli, page in _WORDS:
        message = message.replace(cli, page)
    return message


def _ymd(value: int) -> str:
    return f"{value // 10000:04d}-{value // 100 % 100:02d}-{value % 100:02d}"


class TimetableService:
    """The feeds the page may use and the reach queries on them.

    Parameters
    ----------
    feeds : sequence of Path
        The GTFS feeds (zip or folder) given at start, in order (``serve --gtfs``).
    cache_dir : Path, optional
        The extract cache folder [default: the user cache dir].
    use_cache : bool
        Read and write the extract cache.
    """

    def __init__(
        self, feeds: Sequence[Path] = (), cache_dir: Path | None = None, use_cache: bool = True
    ) -> None:
        self.paths = tuple(Path(p) for p in feeds)
        self.cache_dir = cache_dir
        self.use_cache = use_cache
        self._lock = threading.Lock()
        self._feeds: dict[int, Feed] = {}
        self._described: dict[int, dict[str, Any]] = {}
        self._days: OrderedDict[tuple[int, dt.date, float], tuple[Timetable, Zones]] = OrderedDict()

    def load_all(self) -> None:
        """Read every feed now (``serve`` does, before it listens).

        Raises
        ------
        InputError
            A feed is missing or fails the reader's checks (one line naming it).
        """
        for index in range(len(self.paths)):
            self._feed(index)

    def _feed(self, index: int) -> Feed:
        with self._lock:  # one read per feed, whatever the requests at once
            if index not in self._feeds:
                self._feeds[index] = load_feed(self.paths[index], self.cache_dir, self.use_cache)
            return self._feeds[index]

    @property
    def loaded(self) -> int:
        """How many of the feeds have been read."""
        with self._lock:
            return len(self._feeds)

    @property
    def kept_days(self) -> tuple[tuple[str, str, float], ...]:
        """The timetables kept: (feed name, service day, hiding radius), oldest first."""
        with self._lock:
            return tuple((self.paths[i].name, d.isoformat(), r) for i, d, r in self._days)

    def _day(self, index: int, day: dt.date, radius_m: float) -> tuple[Timetable, Zones]:
        """The day's timetable and zones, kept or built (kept by :meth:`_keep` only once
        a query on them has succeeded: a bad request leaves nothing behind)."""
        with self._lock:
            entry = self._days.get((index, day, radius_m))
        if entry is not None:
            return entry
        tt = build_timetable(self._feed(index), day)
        return tt, feed_zones(tt, radius_m)

    def _keep(
        self, index: int, day: dt.date, radius_m: float, entry: tuple[Timetable, Zones]
    ) -> None:
        with self._lock:
            self._days[(index, day, radius_m)] = entry
            self._days.move_to_end((index, day, radius_m))
            while len(self._days) > DAYS_KEPT:
                self._days.popitem(last=False)

    def feeds(self) -> dict[str, Any]:
        """The page's choices: the feeds (dates, stations), game sizes and rule sets.

        Returns
        -------
        dict
        """
        return {
            "feeds": [self._description(i) for i in range(len(self.paths))],
            "game_sizes": list(GAME_SIZES),
            "rules": sorted(RULE_SETS),
        }

    def _description(self, index: int) -> dict[str, Any]:
        if index not in self._described:  # the same for the server's life
            self._described[index] = self._describe(index)
        return self._described[index]

    def _describe(self, index: int) -> dict[str, Any]:
        feed, path = self._feed(index), self.paths[index]
        dates = [int(d) for d in (*feed.cal_start.tolist(), *feed.cal_end.tolist(), *feed.cd_date)]
        rows = np.unique(feed.station_of())
        rows = rows[np.isfinite(feed.stop_lon[rows]) & np.isfinite(feed.stop_lat[rows])]
        stations = sorted(
            (
                {
                    "id": feed.stop_ids[r],
                    "name": feed.stop_names[r],
                    "lon": round(float(feed.stop_lon[r]), 7),
                    "lat": round(float(feed.stop_lat[r]), 7),
                }
                for r in rows.tolist()
            ),
            key=lambda s: (s["name"].casefold(), s["id"]),
        )
        return {
            "index": index,
            "name": path.name,
            "attribution": feed_attribution(path),
            "first_date": _ymd(min(dates)) if dates else None,
            "last_date": _ymd(max(dates)) if dates else None,
            "busiest_date": pick_day(feed, path, None).isoformat(),
            "stations": stations,
        }

    def _index(self, choice: Any) -> int:
        names = [p.name for p in self.paths]
        if not names:
            raise InputError("the server has no timetable; start it with serve --gtfs FEED")
        if isinstance(choice, int) and not isinstance(choice, bool) and 0 <= choice < len(names):
            return choice
        if isinstance(choice, str) and choice in names:
            return names.index(choice)
        shown = str(choice)[:40]
        raise InputError(
            f"feed {shown!r} is not one of the server's feeds; give its index (0 to "
            f"{len(names) - 1}) or its name: {', '.join(names)}"
        )

    def reach(self, body: Any) -> dict[str, Any]:
        """``timetable reach`` for a request (see the module docstring).

        Parameters
        ----------
        body : Any
            The request's JSON.

        Returns
        -------
        dict
            The GeoJSON with ``bands`` and ``zone_bands``.

        Raises
        ------
        InputError
            One line naming the field and the fix.
        """
        ask = _checked(body)
        index = self._index(ask["feed"])
        feed, path = self._feed(index), self.paths[index]
        try:
            at = parse_time(ask["at"], "at")
            day = pick_day(feed, path, ask["date"])
            radius = RULE_SETS[ask["rules"]].radius_m(ask["game_size"])
            tt, zones = self._day(index, day, radius)
            start = resolve_start(feed, tt, ask["from"])
        except InputError as exc:
            raise InputError(_page_words(str(exc))) from None
        hit = reach_zones(
            tt, zones, at, from_stops=list(start.stops) or None, from_position=start.position
        )
        self._keep(index, day, radius, (tt, zones))
        deadline, note = deadline_for(at, ask["game_size"], ask["within_min"])
        result = ReachResult(
            feed_name=path.name,
            day=day,
            start=start,
            reach=hit,
            station_rows=feed_station_rows(tt),
            deadline=deadline,
            deadline_note=note,
            game_size=ask["game_size"],
            rules=ask["rules"],
        )
        return _with_bands(result.geojson(), (deadline - at) / 60)


def _text(body: dict[str, Any], key: str, example: str, default: str | None = None) -> str | None:
    value = body.get(key, default)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise InputError(f"{key} must be text of at most {MAX_TEXT} characters, e.g. {example}")
    return value


def _start(value: Any) -> str:
    """``from``: a stop id or name, or [lon, lat] (as the CLI's ``LON,LAT``)."""
    if isinstance(value, list):
        if len(value) != 2 or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value
        ):
            raise InputError(
                "from as a position must be [lon, lat] in degrees, e.g. [-73.99, 40.75]"
            )
        lon, lat = float(value[0]), float(value[1])
        if not (abs(lon) <= 180 and abs(lat) <= 90):
            raise InputError(
                f"from [{lon:g}, {lat:g}] is off the globe; give [lon, lat] in degrees"
            )
        return f"{lon:.7f},{lat:.7f}"
    text = _text({"from": value}, "from", '"Times Sq-42 St", a stop id, or [lon, lat]')
    if text is None:
        raise InputError('give from: a stop id, a stop name, or [lon, lat], e.g. "Times Sq-42 St"')
    return text


def _checked(body: Any) -> dict[str, Any]:
    """The request's fields, checked and with their defaults (InputError: one line)."""
    if not isinstance(body, dict):
        raise InputError(
            'the request must be a JSON object, e.g. {"feed": 0, "from": "…", "at": "08:00"}'
        )
    unknown = sorted(str(k)[:40] for k in body if k not in FIELDS)
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r}; the fields are: {', '.join(FIELDS)}")
    if "feed" not in body:
        raise InputError("give feed: the index or name of one of the server's feeds")
    size = _text(body, "game_size", '"M"', "M")
    if size is None or size.upper() not in GAME_SIZES:
        raise InputError(f"game_size {str(size)[:20]!r}: give {', '.join(GAME_SIZES)}")
    rules = _text(body, "rules", '"jltg-eu"', "jltg-eu")
    if rules not in RULE_SETS:
        raise InputError(f"rules {str(rules)[:40]!r}: give one of {', '.join(sorted(RULE_SETS))}")
    within = body.get("within_min")
    if within is not None:
        # The timetable holds the day and the next one's trips: a day on is the most.
        number = isinstance(within, int | float) and not isinstance(within, bool)
        if not number or not math.isfinite(within) or not 0 < within <= 24 * 60:
            raise InputError("within_min must be minutes above 0, at most 1440, e.g. 60")
    at = _text(body, "at", '"08:00"')
    if at is None:
        raise InputError('give at: the start time, HH:MM, e.g. "08:00"')
    return {
        "feed": body["feed"],
        "from": _start(body.get("from")),
        "at": at,
        "date": _text(body, "date", '"2025-01-08"'),
        "game_size": size.upper(),
        "rules": rules,
        "within_min": None if within is None else float(within),
    }


def _with_bands(document: dict[str, Any], deadline_min: float) -> dict[str, Any]:
    """The reach GeoJSON with the ``--html`` page's bands, their counts and each zone's."""
    zone_bands = [band_of(f["properties"]["minutes"], deadline_min) for f in document["features"]]
    table = bands(deadline_min)
    counts = np.bincount(np.asarray(zone_bands, dtype=np.int64), minlength=len(table))
    rows = [
        {
            "upper_min": upper if math.isfinite(upper) else None,
            "label": label,
            "colour": colour,
            "count": int(count),
        }
        for (upper, label), colour, count in zip(table, BAND_COLOURS, counts, strict=True)
    ]
    return {**document, "bands": rows, "zone_bands": zone_bands}


def mount(app: FastAPI, config: ServerConfig, call: Callable[..., Awaitable[Response]]) -> None:
    """Read the feeds the server was started with and add the timetable routes to ``app``.

    Parameters
    ----------
    app : FastAPI
        Gets the :class:`TimetableService` as ``app.state.timetables``.
    config : ServerConfig
        Its ``gtfs_files`` (``serve --gtfs``), read now through the extract cache
        (``cache_dir``, ``use_cache``).
    call : callable
        The app's ``call(request, fn, light=...)`` (``serve/app.py``): the body read by
        the project's JSON reader, a UserError answered 4xx with its line.

    Raises
    ------
    InputError
        A feed is missing or fails the reader's checks (one line naming it).
    """
    service = TimetableService(config.gtfs_files, config.cache_dir, config.use_cache)
    service.load_all()
    app.state.timetables = service

    @app.get("/api/timetable/feeds")
    def api_timetable_feeds() -> dict:
        """The feeds the page may use (``serve --gtfs``): names, dates, stations."""
        return service.feeds()

    @app.post("/api/timetable/reach")
    async def api_timetable_reach(request: Request) -> Response:
        """``timetable reach``: ``{feed, from, at, date?, game_size?, rules?, within_min?}``
        → the zones' GeoJSON with their arrival bands."""
        if len(await request.body()) > MAX_REQUEST_BYTES:
            return JSONResponse(
                {"error": f"the request body is larger than {MAX_REQUEST_BYTES:,} bytes"},
                status_code=413,
            )
        # One query on a loaded feed (≤ 1 s on the NYC subway, issue 42's bench): light.
        return await call(request, service.reach, light=True)
