"""A read feed's columns kept in a column cache, so the next read takes a few milliseconds.

The cache is any object with the extract cache's four methods
(:class:`stations_generator.osm.extract_cache.ExtractCache`: ``key``, ``load``,
``store``, ``drop``); it is passed in, as this layer does not import ``osm``. Its
mechanism does the rest: entries keyed by the feed file's identity (size, time and a
hash of its ends) and :data:`LAYER`, checked by checksum on every read, a bad entry
dropped with a warning and the feed read again, written atomically, the folder capped.
A feed given as a folder is keyed by its ``stop_times.txt`` plus the size and time of
every other file read.

Stored: every numpy column of the :class:`~stations_generator.core.transit.feed.Feed`
as is, and each column of ids or names as UTF-8 JSON bytes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Protocol

import numpy as np

from stations_generator.core.transit.feed import Feed
from stations_generator.formats.gtfs.reader import read_feed
from stations_generator.formats.gtfs.source import MAX_MEMBER_BYTES

__all__ = ["LAYER", "ColumnCache", "feed_from_columns", "feed_to_columns", "read_feed_cached"]

#: The entries' layer name; its version goes up whenever what a Feed holds changes.
LAYER = "gtfs-feed-v1"
_FILES = (
    "stops.txt",
    "routes.txt",
    "trips.txt",
    "calendar.txt",
    "calendar_dates.txt",
    "frequencies.txt",
    "transfers.txt",
)


class ColumnCache(Protocol):
    """What :func:`read_feed_cached` needs of a cache (the extract cache has it)."""

    def key(self, path: Path, layer: str) -> str: ...  # noqa: D102
    def load(self, key: str) -> dict[str, np.ndarray] | None: ...  # noqa: D102
    def store(self, key: str, columns: dict[str, np.ndarray]) -> None: ...  # noqa: D102
    def drop(self, key: str, why: str) -> None: ...  # noqa: D102


def feed_to_columns(feed: Feed) -> dict[str, np.ndarray]:
    """The feed as named numpy arrays (text columns as JSON bytes).

    Returns
    -------
    dict of str to numpy.ndarray
    """
    columns = dict(feed.array_fields())
    for name, values in feed.text_fields().items():
        text = json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))
        columns[f"text:{name}"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    return columns


def feed_from_columns(columns: dict[str, np.ndarray]) -> Feed:
    """The feed :func:`feed_to_columns` stored.

    Raises
    ------
    ValueError
        A column missing or of the wrong length.
    """
    values: dict[str, object] = {}
    for name, column in columns.items():
        if name.startswith("text:"):
            items = json.loads(bytes(column).decode("utf-8"))
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise ValueError(f"column {name} is not a list of strings")
            values[name[5:]] = tuple(items)
        else:
            values[name] = column
    try:
        feed = Feed(**values)
    except TypeError as exc:
        raise ValueError(f"columns differ from a feed's ({exc})") from None
    lengths = {
        "stop": (
            feed.n_stops,
            ("stop_names", "stop_lon", "stop_lat", "stop_parent", "stop_location_type"),
        ),
        "route": (len(feed.route_ids), ("route_short_names", "route_type")),
        "trip": (feed.n_trips, ("trip_route", "trip_service")),
        "stop time": (
            len(feed.st_trip),
            ("st_stop", "st_arr", "st_dep", "st_pickup", "st_dropoff"),
        ),
    }
    for what, (count, names) in lengths.items():
        if any(len(getattr(feed, n)) != count for n in names):
            raise ValueError(f"{what} columns of different lengths")
    return feed


def _cache_key(cache: ColumnCache, path: Path) -> str:
    if not path.is_dir():
        return cache.key(path, LAYER)
    stamps = []
    for name in _FILES:
        with_stat = path / name
        if with_stat.is_file():
            st = os.stat(with_stat)
            stamps.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return cache.key(path / "stop_times.txt", f"{LAYER}|{','.join(stamps)}")


def read_feed_cached(
    path: Path, cache: ColumnCache | None, *, max_member_bytes: int = MAX_MEMBER_BYTES
) -> Feed:
    """:func:`~stations_generator.formats.gtfs.reader.read_feed`, through ``cache``.

    Parameters
    ----------
    path : pathlib.Path
        A GTFS .zip or folder.
    cache : ColumnCache or None
        E.g. ``ExtractCache.for_command(cache_dir, use_cache)``; None reads the feed.
    max_member_bytes : int
        Largest file read [default: 2 GiB].

    Returns
    -------
    Feed

    Raises
    ------
    InputError
        As :func:`read_feed` (nothing is stored for a bad feed).
    """
    path = Path(path)
    if cache is None or not (path.is_file() or (path / "stop_times.txt").is_file()):
        return read_feed(path, max_member_bytes=max_member_bytes)
    key = _cache_key(cache, path)
    columns = cache.load(key)
    if columns is not None:
        try:
            return feed_from_columns(columns)
        except (ValueError, UnicodeDecodeError) as exc:
            cache.drop(key, f"invalid ({' '.join(str(exc).split())})")
    feed = read_feed(path, max_member_bytes=max_member_bytes)
    cache.store(key, feed_to_columns(feed))
    return feed
