"""``stations-generator serve``: the organiser's web page and its JSON API.

:mod:`.services` holds the work (the same readers, validators and builders the CLI
uses, with caches keyed by content); :mod:`.app` is the FastAPI application over it;
:mod:`.assets` serves the page and the vendored Leaflet files.
"""
