"""The hosted game store: PostgreSQL, shared by any number of ``serve`` processes or machines.

Events are numbered under a row lock on their game (``SELECT … FOR UPDATE``), so two
processes appending to one game at once still number it 1, 2, 3… Each append sends
``NOTIFY`` on :data:`CHANNEL` with the game's code, delivered when it commits; every
process LISTENs on its own connection (a thread) and wakes its :class:`~.store.Hub`. When
that connection drops it is made again and every subscriber is woken, so nothing
committed meanwhile is missed. Requests use a small pool of connections.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Iterator

import psycopg
from psycopg.conninfo import conninfo_to_dict

from stations_generator.errors import InputError
from stations_generator.serve.shared.model import MAX_EVENTS_PER_GAME, Refused, now
from stations_generator.serve.shared.store import Appended, GameStore, StoredEvent

log = logging.getLogger("stations_generator.serve")

#: The NOTIFY channel: its payload is the code of the game that has a new event.
CHANNEL = "stations_generator_games"
#: Connections used for requests at once, per process (PostgreSQL allows 100 by default).
POOL_SIZE = 4
#: Seconds to wait for a connection (a free one from the pool, or a new one).
CONNECT_TIMEOUT_S = 5
#: The advisory lock that serialises two processes creating the tables at once.
SCHEMA_LOCK = 0x5347_4D45  # "SGME"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS shared_games (
    code TEXT PRIMARY KEY,
    seeker_hash BYTEA NOT NULL,
    hider_hash BYTEA NOT NULL,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    created TEXT NOT NULL,
    last_seq BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS shared_events (
    code TEXT NOT NULL REFERENCES shared_games (code),
    seq BIGINT NOT NULL,
    client_id TEXT NOT NULL,
    role TEXT NOT NULL,
    received TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (code, seq),
    UNIQUE (code, client_id)
);
CREATE TABLE IF NOT EXISTS shared_maps (
    key TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    created TEXT NOT NULL
)
"""

_EVENT_COLUMNS = "seq, client_id, role, received, body"
_UNREACHABLE = "the game database is unreachable; try again in a moment"


def describe_url(url: str) -> str:
    """``url`` without its password, for messages: ``PostgreSQL USER@HOST:PORT/NAME``."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:
        return "PostgreSQL (an unreadable URL)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"PostgreSQL {user}{parts.get('host', 'localhost')}{port}/{parts.get('dbname', '')}"


class PostgresStore(GameStore):
    """Games in the PostgreSQL database ``url`` (tables created when missing).

    Parameters
    ----------
    url : str
        ``postgresql://USER:PASSWORD@HOST:PORT/NAME`` (any libpq URL or parameters).
    pool_size : int
        Connections for requests.

    Raises
    ------
    InputError
        When the database cannot be reached or its tables made.
    """

    def __init__(self, url: str, pool_size: int = POOL_SIZE) -> None:
        super().__init__()
        self.url = url
        self.description = describe_url(url)
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(pool_size)
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._listener: threading.Thread | None = None
        self.open()

    # -- connections ----------------------------------------------------------------

    def _connect(self) -> psycopg.Connection:
        return psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)

    @contextlib.contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """A pooled connection (autocommit; use ``conn.transaction()``); Refused 503 when
        none can be had or it breaks."""
        if not self._slots.acquire(timeout=CONNECT_TIMEOUT_S * 2):
            raise Refused(503, "the game database is busy; try again in a moment")
        conn = None
        try:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = self._connect()
            yield conn
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            log.warning("game database: %s", exc)
            raise Refused(503, _UNREACHABLE) from None
        finally:
            if conn is not None:
                if conn.closed or conn.broken:
                    conn.close()
                else:
                    self._idle.put(conn)
            self._slots.release()

    def open(self) -> None:
        """Create the tables when missing and start listening (idempotent)."""
        try:
            with self._connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                for statement in _SCHEMA.split(";"):
                    conn.execute(statement)  # type: ignore[arg-type] - fixed text
        except (Refused, psycopg.Error) as exc:
            reason = exc.message if isinstance(exc, Refused) else str(exc).strip()
            raise InputError(
                f"--database {self.description}: {reason}; check the URL and that the server runs"
            ) from None
        if self._listener is None or not self._listener.is_alive():
            self._stop.clear()
            self._listener = threading.Thread(
                target=self._listen, name="game-store-listen", daemon=True
            )
            self._listener.start()
            # Events appended from now on wake this process's subscribers.
            self._listening.wait(CONNECT_TIMEOUT_S * 2)

    def _listen(self) -> None:
        """The listening thread: wake the hub on each NOTIFY; reconnect when dropped."""
        while not self._stop.is_set():
            try:
                with self._connect() as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    self.hub.wake_all()  # anything committed while not listening
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.5):
                            self.hub.wake(note.payload)
            except psycopg.Error as exc:
                self._listening.clear()
                if not self._stop.is_set():
                    log.warning("game database: listening again in 1 s after: %s", exc)
                    self._stop.wait(1.0)

    def close(self) -> None:
        """Stop listening and close the pooled connections (the data stays)."""
        self._stop.set()
        if self._listener is not None:
            self._listener.join(3)
        self._listener = None
        self._listening.clear()
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                break

    # -- the store ------------------------------------------------------------------

    def _insert_game(
        self,
        code: str,
        seeker_hash: bytes,
        hider_hash: bytes,
        game: str,
        settings: str,
        created: str,
    ) -> bool:
        with self._connection() as conn:
            row = conn.execute(
                "INSERT INTO shared_games (code, seeker_hash, hider_hash, game, settings, "
                "created) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (code) DO NOTHING "
                "RETURNING code",
                (code, seeker_hash, hider_hash, game, settings, created),
            ).fetchone()
        return row is not None

    def _hashes(self, code: str) -> tuple[bytes, bytes] | None:
        with self._connection() as conn:
            row = conn.execute(
                "SELECT seeker_hash, hider_hash FROM shared_games WHERE code = %s", (code,)
            ).fetchone()
        return None if row is None else (bytes(row[0]), bytes(row[1]))

    def _append(self, code: str, role: str, client_id: str, body: str, received: str) -> Appended:
        with self._connection() as conn, conn.transaction():
            row = conn.execute(
                "SELECT last_seq FROM shared_games WHERE code = %s FOR UPDATE", (code,)
            ).fetchone()
            if row is None:
                raise Refused(404, f"no game {code}")
            found = conn.execute(
                f"SELECT {_EVENT_COLUMNS} FROM shared_events WHERE code = %s AND client_id = %s",
                (code, client_id),
            ).fetchone()
            if found is not None:
                return self.same_or_refused(StoredEvent(*found), role, body)
            if row[0] >= MAX_EVENTS_PER_GAME:
                raise self.full(code)
            seq = row[0] + 1
            conn.execute(
                "INSERT INTO shared_events (code, seq, client_id, role, received, body) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (code, seq, client_id, role, received, body),
            )
            conn.execute("UPDATE shared_games SET last_seq = %s WHERE code = %s", (seq, code))
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, code))
        self.hub.wake(code)  # this process at once; the others by the NOTIFY
        return Appended(StoredEvent(seq, client_id, role, received, body), False)

    def since(self, code: str, seq: int, limit: int = 500) -> list[StoredEvent]:
        """The events of ``code`` after number ``seq``, at most ``limit``, in order."""
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {_EVENT_COLUMNS} FROM shared_events WHERE code = %s AND seq > %s "
                "ORDER BY seq LIMIT %s",
                (code, seq, limit),
            ).fetchall()
        return [StoredEvent(*row) for row in rows]

    def last(self, code: str) -> int:
        """The number of the last event of ``code`` (0 for none)."""
        with self._connection() as conn:
            row = conn.execute(
                "SELECT last_seq FROM shared_games WHERE code = %s", (code,)
            ).fetchone()
        if row is None:
            raise Refused(404, f"no game {code}")
        return row[0]

    def game(self, code: str) -> tuple[str, str, int]:
        """(game text, settings text, the number of the last event) of ``code``."""
        with self._connection() as conn:
            row = conn.execute(
                "SELECT game, settings, last_seq FROM shared_games WHERE code = %s", (code,)
            ).fetchone()
        if row is None:
            raise Refused(404, f"no game {code}")
        return row[0], row[1], row[2]

    def keep_map(self, key: str, text: str) -> None:
        """Keep the ``stations.geojson`` text of the station map ``key`` (once)."""
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO shared_maps (key, body, created) VALUES (%s, %s, %s) "
                "ON CONFLICT (key) DO NOTHING",
                (key, text, now()),
            )

    def kept_map(self, key: str) -> str | None:
        """The ``stations.geojson`` text kept for the station map ``key``, or None."""
        with self._connection() as conn:
            row = conn.execute("SELECT body FROM shared_maps WHERE key = %s", (key,)).fetchone()
        return None if row is None else row[0]
