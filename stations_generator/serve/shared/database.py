"""The game store a ``--database`` names: a SQLite file by default, or PostgreSQL by URL.

The embedded default is ``games.sqlite3`` in the user's data folder (one ``serve``
process); ``postgresql://…`` selects :mod:`.postgres_store` (several processes or machines).
"""

from __future__ import annotations

from pathlib import Path

from stations_generator import settings
from stations_generator.errors import InputError
from stations_generator.serve.shared.store import GameStore

#: The SQLite file of the server's games in its data folder.
DATABASE_NAME = "games.sqlite3"


def default_database() -> Path:
    """The SQLite file of ``serve``'s games when ``--database`` is not given."""
    return settings.user_data_dir() / DATABASE_NAME


def is_postgres(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database."""
    return url.split("://", 1)[0].lower() in ("postgresql", "postgres") and "://" in url


def open_store(database: str | Path) -> GameStore:
    """The game store ``database`` names: a SQLite file path (or ``sqlite:///PATH``) or a
    ``postgresql://`` URL.

    Raises
    ------
    InputError
        An unknown URL scheme, or a database that cannot be opened.
    """
    text = str(database)
    if is_postgres(text):
        from stations_generator.serve.shared.postgres_store import PostgresStore

        return PostgresStore(text)
    if text.lower().startswith("sqlite:///"):
        text = text[len("sqlite:///") :]
    elif "://" in text:
        scheme = text.split("://", 1)[0]
        raise InputError(
            f"--database: unknown kind of database {scheme[:20]!r}; give a SQLite file path or "
            "postgresql://USER:PASSWORD@HOST/NAME"
        )
    from stations_generator.serve.shared.sqlite_store import SQLiteStore

    return SQLiteStore(Path(text))
