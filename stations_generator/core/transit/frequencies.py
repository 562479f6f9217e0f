"""``frequencies.txt`` expanded into trips.

A frequencies row says that its trip runs every ``headway_secs`` from ``start_time``
until (not including) ``end_time``; the trip's own stop times give the run times
between stops (their first departure is shifted to each start). The GTFS reference
states the starts exactly for ``exact_times`` 1 (start + k·headway < end); for
``exact_times`` 0 it states only the headway. Both are expanded the same way here,
which is the schedule the headway describes: with ``exact_times`` 0 a real vehicle
may come up to a headway later or earlier than the expanded one.

A trip with frequencies rows runs only as expanded (its own times are a template).
Expanded trips are appended after the feed's other trips, ids ``<trip_id>#<k>``.
"""

from __future__ import annotations

import numpy as np

from stations_generator.core.transit.feed import Feed

__all__ = ["expand_frequencies"]


def expand_frequencies(feed: Feed) -> Feed:
    """The feed with every frequency-based trip replaced by one trip per start time.

    Parameters
    ----------
    feed : Feed

    Returns
    -------
    Feed
        ``feed`` itself when it has no ``frequencies.txt`` rows.
    """
    if len(feed.fr_trip) == 0:
        return feed
    templates = np.unique(feed.fr_trip)
    keep_trip = np.ones(feed.n_trips, dtype=bool)
    keep_trip[templates] = False
    new_row = np.cumsum(keep_trip) - 1  # old row -> row among the kept trips
    keep_st = keep_trip[feed.st_trip]
    trip_ids = [t for t, k in zip(feed.trip_ids, keep_trip, strict=True) if k]
    trip_route = [feed.trip_route[keep_trip]]
    trip_service = [feed.trip_service[keep_trip]]
    cols = {
        name: [getattr(feed, name)[keep_st]]
        for name in ("st_stop", "st_arr", "st_dep", "st_pickup", "st_dropoff")
    }
    st_trip = [new_row[feed.st_trip[keep_st]].astype(np.int32)]
    starts_of = feed.st_trip.searchsorted(np.arange(feed.n_trips + 1))
    counter: dict[int, int] = {}
    for row in range(len(feed.fr_trip)):
        trip = int(feed.fr_trip[row])
        lo, hi = starts_of[trip], starts_of[trip + 1]
        if hi == lo:
            continue
        starts = np.arange(feed.fr_start[row], feed.fr_end[row], feed.fr_headway[row])
        first = feed.st_dep[lo] if feed.st_dep[lo] >= 0 else feed.st_arr[lo]
        for start in starts.tolist():
            k = counter.get(trip, 0)
            counter[trip] = k + 1
            shift = start - first
            st_trip.append(np.full(hi - lo, len(trip_ids), dtype=np.int32))
            trip_ids.append(f"{feed.trip_ids[trip]}#{k}")
            trip_route.append(feed.trip_route[trip : trip + 1])
            trip_service.append(feed.trip_service[trip : trip + 1])
            for name, parts in cols.items():
                part = getattr(feed, name)[lo:hi]
                parts.append(part + shift if name in ("st_arr", "st_dep") else part)
    empty = np.zeros(0, dtype=np.int32)
    return feed.with_columns(
        trip_ids=tuple(trip_ids),
        trip_route=np.concatenate(trip_route).astype(np.int32),
        trip_service=np.concatenate(trip_service).astype(np.int32),
        st_trip=np.concatenate(st_trip).astype(np.int32),
        **{
            name: np.concatenate(parts).astype(getattr(feed, name).dtype)
            for name, parts in cols.items()
        },
        fr_trip=empty,
        fr_start=empty,
        fr_end=empty,
        fr_headway=empty,
        fr_exact=np.zeros(0, dtype=bool),
    )
