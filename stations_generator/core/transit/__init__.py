"""Timetables: service days, frequencies, walking transfers and earliest arrivals (RAPTOR).

Pure computation over a :class:`~stations_generator.core.transit.feed.Feed` (numpy
columns); reading a GTFS feed is :mod:`stations_generator.formats.gtfs`.
"""
