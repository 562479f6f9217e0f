"""Service days: which of a feed's services run on a date.

A service runs on a date when ``calendar.txt`` says so (the date within its start and
end, both included, on one of its weekdays) and ``calendar_dates.txt`` does not remove
it, or when ``calendar_dates.txt`` adds it (exception type 1), as the GTFS reference
states: an exception overrides the calendar for that date.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from stations_generator.core.transit.feed import Feed

__all__ = ["as_yyyymmdd", "running_services", "service_dates"]


def as_yyyymmdd(day: dt.date) -> int:
    """The date as the int ``YYYYMMDD`` GTFS uses.

    Parameters
    ----------
    day : datetime.date

    Returns
    -------
    int
    """
    return day.year * 10000 + day.month * 100 + day.day


def running_services(feed: Feed, day: dt.date) -> np.ndarray:
    """Per service of ``feed.service_ids``, whether it runs on ``day``.

    Parameters
    ----------
    feed : Feed
    day : datetime.date

    Returns
    -------
    numpy.ndarray of bool
    """
    if not isinstance(day, dt.date):
        raise TypeError(f"day must be a datetime.date, not {type(day).__name__}")
    ymd = as_yyyymmdd(day)
    runs = np.zeros(len(feed.service_ids), dtype=bool)
    in_range = (feed.cal_start <= ymd) & (ymd <= feed.cal_end) & feed.cal_days[:, day.weekday()]
    runs[feed.cal_service[in_range]] = True
    on_day = feed.cd_date == ymd
    runs[feed.cd_service[on_day & ~feed.cd_added]] = False
    runs[feed.cd_service[on_day & feed.cd_added]] = True
    return runs


def service_dates(feed: Feed, service: int) -> list[int]:
    """Every date (``YYYYMMDD``) on which the service of row ``service`` runs.

    Parameters
    ----------
    feed : Feed
    service : int
        A row of ``feed.service_ids``.

    Returns
    -------
    list of int
        Sorted.
    """
    dates: set[int] = set()
    for row in np.flatnonzero(feed.cal_service == service):
        day = _date(int(feed.cal_start[row]))
        end = _date(int(feed.cal_end[row]))
        while day <= end:
            if feed.cal_days[row, day.weekday()]:
                dates.add(as_yyyymmdd(day))
            day += dt.timedelta(days=1)
    mine = feed.cd_service == service
    dates -= set(feed.cd_date[mine & ~feed.cd_added].tolist())
    dates |= set(feed.cd_date[mine & feed.cd_added].tolist())
    return sorted(dates)


def _date(ymd: int) -> dt.date:
    return dt.date(ymd // 10000, ymd // 100 % 100, ymd % 100)
