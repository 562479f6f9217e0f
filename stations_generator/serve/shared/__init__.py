"""Shared games: one game that several phones join, kept in a game store and sent live.

:mod:`.model` holds what every store shares (join codes, tokens, the checks of an event,
what a seeker may see); :mod:`.store` the store's interface and its in-process fan-out;
:mod:`.sqlite_store` and :mod:`.postgres_store` its two backends, chosen by
:mod:`.database`; :mod:`.service` the use cases; :mod:`.routes` the
HTTP API and :mod:`.websocket` the live connection, both mounted by ``serve/app.py``.
"""
