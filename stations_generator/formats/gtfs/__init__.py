"""GTFS feeds, read from a .zip or a folder and checked (see :mod:`.reader`)."""
