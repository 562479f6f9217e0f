"""A GTFS feed as numpy columns: what the reader gives and the timetable is built from.

Every table is a set of equal-length arrays; references between tables are row
indices (int32), not ids: a stop time's ``st_stop`` is a row of the stops, a trip's
``trip_service`` a row of :attr:`Feed.service_ids`. Times are int32 seconds after
the service day's noon-minus-12h ("midnight"), so ``25:10:00`` is 90600. Dates are
int32 ``YYYYMMDD``. No column is ever None: a missing value is -1 (indices, times)
or NaN (coordinates).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

__all__ = ["NO_INDEX", "Feed"]

#: An absent reference (a stop without parent station, a transfer without minimum time).
NO_INDEX = -1


@dataclass(frozen=True, eq=False)
class Feed:
    """A checked GTFS feed (see the module docstring).

    Attributes
    ----------
    stop_ids, stop_names : tuple of str
        Per stop (every row of ``stops.txt``: stations, platforms, entrances).
    stop_lon, stop_lat : numpy.ndarray of float64
        Per stop, degrees (NaN only for location types 3 and 4, which carry none).
    stop_parent : numpy.ndarray of int32
        Row of the parent station, or -1.
    stop_location_type : numpy.ndarray of int8
        0 stop or platform, 1 station, 2 entrance, 3 generic node, 4 boarding area.
    route_ids, route_short_names : tuple of str
        Per route.
    route_type : numpy.ndarray of int16
        GTFS route type (0 tram, 1 subway, 2 rail, 3 bus...).
    trip_ids : tuple of str
        Per trip.
    trip_route, trip_service : numpy.ndarray of int32
        Per trip: its route's row, its service's row in :attr:`service_ids`.
    service_ids : tuple of str
        Every service id of ``calendar.txt`` and ``calendar_dates.txt``.
    cal_service : numpy.ndarray of int32
        Per ``calendar.txt`` row: the service.
    cal_days : numpy.ndarray of bool, shape (n, 7)
        Monday first.
    cal_start, cal_end : numpy.ndarray of int32
        ``YYYYMMDD``, both days included.
    cd_service, cd_date : numpy.ndarray of int32
        Per ``calendar_dates.txt`` row.
    cd_added : numpy.ndarray of bool
        True for exception type 1 (service added), False for 2 (removed).
    st_trip, st_stop, st_arr, st_dep : numpy.ndarray of int32
        Per stop time, sorted by trip row, then stop sequence.
    st_pickup, st_dropoff : numpy.ndarray of bool
        Whether riders may board (``pickup_type`` not 1) and alight (``drop_off_type``
        not 1) there.
    fr_trip, fr_start, fr_end, fr_headway : numpy.ndarray of int32
        Per ``frequencies.txt`` row (times in seconds).
    fr_exact : numpy.ndarray of bool
        ``exact_times`` 1.
    tr_from, tr_to : numpy.ndarray of int32
        Per ``transfers.txt`` row: stop rows (a station stands for its platforms).
    tr_type : numpy.ndarray of int8
        ``transfer_type`` (0 recommended, 1 timed, 2 minimum time, 3 not possible).
    tr_min_time : numpy.ndarray of int32
        ``min_transfer_time`` in seconds, or -1.
    """

    stop_ids: tuple[str, ...]
    stop_names: tuple[str, ...]
    stop_lon: np.ndarray
    stop_lat: np.ndarray
    stop_parent: np.ndarray
    stop_location_type: np.ndarray
    route_ids: tuple[str, ...]
    route_short_names: tuple[str, ...]
    route_type: np.ndarray
    trip_ids: tuple[str, ...]
    trip_route: np.ndarray
    trip_service: np.ndarray
    service_ids: tuple[str, ...]
    cal_service: np.ndarray
    cal_days: np.ndarray
    cal_start: np.ndarray
    cal_end: np.ndarray
    cd_service: np.ndarray
    cd_date: np.ndarray
    cd_added: np.ndarray
    st_trip: np.ndarray
    st_stop: np.ndarray
    st_arr: np.ndarray
    st_dep: np.ndarray
    st_pickup: np.ndarray
    st_dropoff: np.ndarray
    fr_trip: np.ndarray
    fr_start: np.ndarray
    fr_end: np.ndarray
    fr_headway: np.ndarray
    fr_exact: np.ndarray
    tr_from: np.ndarray
    tr_to: np.ndarray
    tr_type: np.ndarray
    tr_min_time: np.ndarray

    @property
    def n_stops(self) -> int:
        """Rows of ``stops.txt``."""
        return len(self.stop_ids)

    @property
    def n_trips(self) -> int:
        """Rows of ``trips.txt`` (or trips after :func:`expand_frequencies`)."""
        return len(self.trip_ids)

    def station_of(self) -> np.ndarray:
        """Per stop, its parent station's row, or its own row when it has none.

        Returns
        -------
        numpy.ndarray of int32
        """
        own = np.arange(self.n_stops, dtype=np.int32)
        return np.where(self.stop_parent >= 0, self.stop_parent, own).astype(np.int32)

    def stop_index(self) -> dict[str, int]:
        """Stop id to row.

        Returns
        -------
        dict of str to int
        """
        return {sid: i for i, sid in enumerate(self.stop_ids)}

    def array_fields(self) -> dict[str, np.ndarray]:
        """Every numpy column by field name (for storing the feed).

        Returns
        -------
        dict of str to numpy.ndarray
        """
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if isinstance(getattr(self, f.name), np.ndarray)
        }

    def text_fields(self) -> dict[str, tuple[str, ...]]:
        """Every tuple-of-str column by field name (for storing the feed).

        Returns
        -------
        dict of str to tuple of str
        """
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if isinstance(getattr(self, f.name), tuple)
        }

    def with_columns(self, **changes: object) -> Feed:
        """A copy with some columns replaced.

        Returns
        -------
        Feed
        """
        return replace(self, **changes)
