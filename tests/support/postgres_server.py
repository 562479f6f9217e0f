"""A real PostgreSQL server for the tests: started in a temporary folder, stopped after.

Debian's ``postgresql`` package (``scripts/install-test-services.sh`` installs it) gives
``initdb`` and ``pg_ctl``. PostgreSQL refuses to run as root, so a root test session runs
them as the package's ``postgres`` user (``runuser``), in a folder it owns. The server
listens on 127.0.0.1 on a free port and on a unix socket in the same folder, trusts local
connections (user ``tester``, no password: nothing outside this machine can reach it) and
skips fsync (its data is thrown away).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: The server's superuser in the tests.
USER = "tester"
#: Seconds for initdb, a start and a stop.
TIMEOUT_S = 60
INSTALL = "run scripts/install-test-services.sh (Debian's postgresql package)"


def binaries() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl`` (on the PATH, or Debian's newest)."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).resolve().parent
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name))
    for folder in reversed(folders):
        if (Path(folder) / "pg_ctl").exists() and (Path(folder) / "initdb").exists():
            return Path(folder)
    raise RuntimeError(f"no PostgreSQL server (initdb, pg_ctl) is installed: {INSTALL}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_server_user(folder: Path) -> list[str]:
    """The command prefix that runs PostgreSQL's tools as a user it accepts."""
    if os.geteuid() != 0:
        return []
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError(f"running as root needs the 'postgres' user: {INSTALL}") from None
    os.chown(folder, user.pw_uid, user.pw_gid)
    return ["runuser", "-u", "postgres", "--"]


def _run(command: list[str], folder: Path) -> None:
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        log = folder / "server.log"
        tail = log.read_text("utf-8", "replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"{command[-2:]} failed: {done.stderr or done.stdout}\n{tail}")


@contextlib.contextmanager
def running_postgres() -> Iterator[str]:
    """A fresh PostgreSQL server; yields its URL (``postgresql://tester@127.0.0.1:PORT/postgres``)."""
    bin_dir = binaries()
    folder = Path(tempfile.mkdtemp(prefix="sg-postgres-"))
    data = folder / "data"
    prefix = _as_server_user(folder)
    port = _free_port()
    _run([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", USER, "-A", "trust",
          "-E", "UTF8", "--no-sync"], folder)  # fmt: skip
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    ctl = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-t", str(TIMEOUT_S), "-w"]
    _run([*ctl, "-o", options, "-l", str(folder / "server.log"), "start"], folder)
    try:
        yield f"postgresql://{USER}@127.0.0.1:{port}/postgres"
    finally:
        try:
            _run([*ctl, "-m", "immediate", "stop"], folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def new_database(server_url: str, name: str) -> str:
    """Create database ``name`` on the server; its URL."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + f"/{name}"
