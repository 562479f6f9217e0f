"""The game store's interface, its in-process fan-out, and the choice of a backend by URL.

A :class:`GameStore` creates games (a join code and two tokens), tells the role a token
opens, appends events (the server numbers them 1, 2, 3… per game in the order they arrive;
an event sent again with the same client id is stored once) and reads them back. Each
backend wakes the :class:`Hub` of every process that serves the game when one is added:
SQLite its own (one ``serve`` process), PostgreSQL every process through LISTEN/NOTIFY.
A connection waiting for news holds a :class:`Subscription`; it is told "game X has new
events" and reads them itself, so a lost wake-up never loses an event.
"""

from __future__ import annotations

import asyncio
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from stations_generator.serve.shared import model
from stations_generator.serve.shared.model import Refused

#: Phones connected to one game at once (a game has a hider and a few seeker teams).
MAX_CONNECTIONS_PER_GAME = 32
#: Events read at once when a phone catches up.
READ_BATCH = 500


@dataclass(frozen=True)
class Created:
    """A new game: its join code and the two secret tokens."""

    code: str
    seeker_token: str
    hider_token: str


@dataclass(frozen=True)
class StoredEvent:
    """One event as stored: its number, the author's id for it and role, the server's
    time of arrival and the event's canonical JSON text."""

    seq: int
    client_id: str
    role: str
    received: str
    body: str

    def view(self, role: str) -> dict[str, Any]:
        """The event as sent to a phone of ``role`` (the hider's position never to seekers)."""
        return {
            "seq": self.seq,
            "id": self.client_id,
            "role": self.role,
            "received": self.received,
            "event": model.view(model.as_mapping(self.body), role),
        }


@dataclass(frozen=True)
class Appended:
    """The result of an append: the stored event, and whether it was there already."""

    event: StoredEvent
    duplicate: bool


class Subscription:
    """One waiting connection's news of a game (made on its event loop, by :meth:`Hub.subscribe`)."""

    def __init__(self, hub: Hub, code: str) -> None:
        self.hub = hub
        self.code = code
        self.loop = asyncio.get_running_loop()
        self.news = asyncio.Event()

    def wake(self) -> None:
        """Tell the connection there is news (from any thread)."""
        self.loop.call_soon_threadsafe(self.news.set)

    async def wait(self) -> None:
        """Until there is news (set since the last wait)."""
        await self.news.wait()
        self.news.clear()

    def close(self) -> None:
        """Stop listening."""
        self.hub.unsubscribe(self)


class Hub:
    """The subscriptions of this process, by game. Thread-safe."""

    def __init__(self, per_game: int = MAX_CONNECTIONS_PER_GAME) -> None:
        self.per_game = per_game
        self._subs: dict[str, set[Subscription]] = {}
        self._lock = threading.Lock()

    def subscribe(self, code: str) -> Subscription:
        """A subscription to ``code`` (on the running loop); Refused 429 beyond the cap."""
        sub = Subscription(self, code)
        with self._lock:
            subs = self._subs.setdefault(code, set())
            if len(subs) >= self.per_game:
                raise Refused(429, f"game {code} has {self.per_game} phones connected already")
            subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Forget ``sub``."""
        with self._lock:
            subs = self._subs.get(sub.code)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.code]

    def wake(self, code: str) -> None:
        """Game ``code`` has new events."""
        with self._lock:
            subs = list(self._subs.get(code, ()))
        for sub in subs:
            with_closed_loop(sub.wake)

    def wake_all(self) -> None:
        """Every game may have new events (after a lost connection to the database)."""
        with self._lock:
            subs = [s for group in self._subs.values() for s in group]
        for sub in subs:
            with_closed_loop(sub.wake)

    def connections(self, code: str) -> int:
        """Connections subscribed to ``code``."""
        with self._lock:
            return len(self._subs.get(code, ()))


def with_closed_loop(fn: Any) -> None:
    """``fn()``, ignoring the RuntimeError of an event loop that has closed meanwhile."""
    try:
        fn()
    except RuntimeError:
        pass


class GameStore(ABC):
    """Games and their events (the module docstring); the backends supply the storage."""

    #: For messages: "SQLite FILE" or "PostgreSQL".
    description = "a game store"

    def __init__(self) -> None:
        self.hub = Hub()

    def create(self, game_text: str, settings_text: str) -> Created:
        """A new game from the canonical texts of :func:`model.check_game`."""
        seeker, hider = model.new_token(), model.new_token()
        for _ in range(8):  # a code collision is one in 10^8 at 10 games; retried anyway
            code = model.new_code()
            if self._insert_game(
                code,
                model.token_hash(seeker),
                model.token_hash(hider),
                game_text,
                settings_text,
                model.now(),
            ):
                return Created(code, seeker, hider)
        raise Refused(503, "no free join code was found; try again")

    def role(self, code: Any, token: Any) -> tuple[str, str]:
        """(the canonical code, the role ``token`` opens in it); Refused 400/403 otherwise."""
        code = model.normalise_code(code)
        hashes = self._hashes(code)
        # An unknown game is refused as a wrong token is: nothing tells one from the other.
        role = model.role_of(token, *(hashes or (b"\0" * 32, b"\0" * 32)))
        if hashes is None or role is None:
            raise model.denied(code)
        return code, role

    def append(self, code: str, role: str, client_id: str, body: str) -> Appended:
        """Store the event ``body`` (canonical text) by ``role``; the same client id again
        gives the stored event (``duplicate``), with other content Refused 409."""
        return self._append(code, role, client_id, body, model.now())

    @staticmethod
    def same_or_refused(found: StoredEvent, role: str, body: str) -> Appended:
        """The stored event for a client id sent again: the same event, or Refused 409."""
        if found.role != role or found.body != body:
            raise Refused(
                409,
                f"event id {found.client_id!r} was used for another event; "
                "give each new event a new id",
            )
        return Appended(found, True)

    @staticmethod
    def full(code: str) -> Refused:
        """The refusal of an event beyond :data:`model.MAX_EVENTS_PER_GAME`."""
        return Refused(
            409,
            f"game {code} holds {model.MAX_EVENTS_PER_GAME} events, the most "
            "a game may hold; start a new game",
        )

    @abstractmethod
    def _insert_game(
        self,
        code: str,
        seeker_hash: bytes,
        hider_hash: bytes,
        game: str,
        settings: str,
        created: str,
    ) -> bool:
        """Insert a game; False when ``code`` is taken."""

    @abstractmethod
    def _hashes(self, code: str) -> tuple[bytes, bytes] | None:
        """(seeker hash, hider hash) of game ``code``, or None."""

    @abstractmethod
    def _append(self, code: str, role: str, client_id: str, body: str, received: str) -> Appended:
        """Append in one transaction, number it, and wake the hubs."""

    @abstractmethod
    def since(self, code: str, seq: int, limit: int = READ_BATCH) -> list[StoredEvent]:
        """The events of ``code`` after number ``seq``, at most ``limit``, in order."""

    @abstractmethod
    def last(self, code: str) -> int:
        """The number of the last event of ``code`` (0 for none); Refused 404 for no game."""

    @abstractmethod
    def game(self, code: str) -> tuple[str, str, int]:
        """(game text, settings text, the number of the last event) of ``code``."""

    @abstractmethod
    def keep_map(self, key: str, text: str) -> None:
        """Keep the ``stations.geojson`` text of the station map ``key`` (once: a key names
        one content, so a key kept already is left as it is)."""

    @abstractmethod
    def kept_map(self, key: str) -> str | None:
        """The ``stations.geojson`` text kept for the station map ``key``, or None."""

    @abstractmethod
    def open(self) -> None:
        """Ready the store (again after :meth:`close`); idempotent."""

    @abstractmethod
    def close(self) -> None:
        """Release connections and threads (the data stays)."""
