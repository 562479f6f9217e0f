"""The embedded game store: one SQLite file (write-ahead log), for one ``serve`` process.

Every write is a transaction committed with ``synchronous=FULL`` before it is answered, so
a server stopped or killed loses no event it acknowledged. One connection, used under a
lock, serves the process's threads (a game's events are a few hundred small rows). Only
this process is woken when an event is added: several ``serve`` processes sharing games
need :mod:`.postgres_store`.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from stations_generator.errors import InputError
from stations_generator.serve.shared.model import MAX_EVENTS_PER_GAME, Refused, now
from stations_generator.serve.shared.store import Appended, GameStore, StoredEvent

#: The schema's version, kept in ``PRAGMA user_version`` (the station maps' table was
#: added to version 1 as it is: a file without it gets it, older servers ignore it).
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS shared_games (
    code TEXT PRIMARY KEY,
    seeker_hash BLOB NOT NULL,
    hider_hash BLOB NOT NULL,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    created TEXT NOT NULL,
    last_seq INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS shared_events (
    code TEXT NOT NULL REFERENCES shared_games (code),
    seq INTEGER NOT NULL,
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
);
"""

_EVENT_COLUMNS = "seq, client_id, role, received, body"


class SQLiteStore(GameStore):
    """Games in the SQLite file ``path`` (created with its folder when missing).

    Parameters
    ----------
    path : Path
        The database file.

    Raises
    ------
    InputError
        When the file cannot be opened or is not a game store.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.description = f"SQLite {self.path}"
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self.open()

    def open(self) -> None:
        """Open the file (again after :meth:`close`); creates the tables when missing."""
        with self._lock:
            if self._conn is None:
                self._conn = self._connect()

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Only this user reads the games (their positions, the hider's too).
            self.path.touch(mode=0o600, exist_ok=True)
            db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=10
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise InputError(
                    f"--database {self.path}: its games were written by a newer version; "
                    "upgrade stations-generator or give another file"
                )
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except (sqlite3.Error, OSError) as exc:
            raise InputError(
                f"--database {self.path}: cannot open it as a game store ({exc}); give another file"
            ) from None
        return db

    @property
    def _db(self) -> sqlite3.Connection:
        """The open connection (opened again when closed; call under the lock)."""
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _insert_game(
        self,
        code: str,
        seeker_hash: bytes,
        hider_hash: bytes,
        game: str,
        settings: str,
        created: str,
    ) -> bool:
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO shared_games (code, seeker_hash, hider_hash, game, settings, "
                    "created) VALUES (?, ?, ?, ?, ?, ?)",
                    (code, seeker_hash, hider_hash, game, settings, created),
                )
            except sqlite3.IntegrityError:
                return False
        return True

    def _hashes(self, code: str) -> tuple[bytes, bytes] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT seeker_hash, hider_hash FROM shared_games WHERE code = ?", (code,)
            ).fetchone()
        return None if row is None else (row[0], row[1])

    def _append(self, code: str, role: str, client_id: str, body: str, received: str) -> Appended:
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                found = db.execute(
                    f"SELECT {_EVENT_COLUMNS} FROM shared_events WHERE code = ? AND client_id = ?",
                    (code, client_id),
                ).fetchone()
                if found is not None:
                    db.execute("ROLLBACK")
                    return self.same_or_refused(StoredEvent(*found), role, body)
                row = db.execute(
                    "SELECT last_seq FROM shared_games WHERE code = ?", (code,)
                ).fetchone()
                if row is None:
                    raise Refused(404, f"no game {code}")
                if row[0] >= MAX_EVENTS_PER_GAME:
                    raise self.full(code)
                seq = row[0] + 1
                db.execute(
                    "INSERT INTO shared_events (code, seq, client_id, role, received, body) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (code, seq, client_id, role, received, body),
                )
                db.execute("UPDATE shared_games SET last_seq = ? WHERE code = ?", (seq, code))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        self.hub.wake(code)
        return Appended(StoredEvent(seq, client_id, role, received, body), False)

    def since(self, code: str, seq: int, limit: int = 500) -> list[StoredEvent]:
        """The events of ``code`` after number ``seq``, at most ``limit``, in order."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_EVENT_COLUMNS} FROM shared_events WHERE code = ? AND seq > ? "
                "ORDER BY seq LIMIT ?",
                (code, seq, limit),
            ).fetchall()
        return [StoredEvent(*row) for row in rows]

    def last(self, code: str) -> int:
        """The number of the last event of ``code`` (0 for none)."""
        with self._lock:
            row = self._db.execute(
                "SELECT last_seq FROM shared_games WHERE code = ?", (code,)
            ).fetchone()
        if row is None:
            raise Refused(404, f"no game {code}")
        return row[0]

    def game(self, code: str) -> tuple[str, str, int]:
        """(game text, settings text, the number of the last event) of ``code``."""
        with self._lock:
            row = self._db.execute(
                "SELECT game, settings, last_seq FROM shared_games WHERE code = ?", (code,)
            ).fetchone()
        if row is None:
            raise Refused(404, f"no game {code}")
        return row[0], row[1], row[2]

    def keep_map(self, key: str, text: str) -> None:
        """Keep the ``stations.geojson`` text of the station map ``key`` (once)."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO shared_maps (key, body, created) VALUES (?, ?, ?)",
                (key, text, now()),
            )

    def kept_map(self, key: str) -> str | None:
        """The ``stations.geojson`` text kept for the station map ``key``, or None."""
        with self._lock:
            row = self._db.execute("SELECT body FROM shared_maps WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def close(self) -> None:
        """Close the file (a checkpoint folds the write-ahead log into it)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
