"""The extract cache never breaks a run: hostile entries, folders, writers and settings.

Every case runs ``generate`` on the real Helsinki extract through the command line and
asks for what a cache-less run gives, byte for byte, with no ``Aborted!`` and no
traceback; a bad entry is gone or rewritten afterwards (a last run that is not allowed
to read the extract proves the cache whole again). A setting that is not a size is one
line and a non-zero exit.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support.paths import HELSINKI, REPO

from stations_generator import settings
from stations_generator.cli import main
from stations_generator.osm import extract_cache, layers
from stations_generator.osm.extract_cache import ExtractCache

# Each case runs the CLI on a real extract (1-4 s): the full suite's, not the quick loop's.
pytestmark = pytest.mark.slow

ZONE = REPO / "zones" / "helsinki-centre.geojson"
# points, routes, and every area and line layer (water, admin, coastline, rail, waterways …)
LAYERS_PER_READ = 2 + len(layers.AREA_LAYERS) + len(layers.LINE_LAYERS)
IS_POSIX = os.name == "posix"


@pytest.fixture(autouse=True)
def _fresh_memo():
    layers._MEMO.clear()
    yield
    layers._MEMO.clear()


def _env(cache: Path | str | None, **more: str | None) -> dict[str, str | None]:
    """The environment of a run: this extract cache folder, no other cache setting."""
    env: dict[str, str | None] = {
        settings.CACHE_DIR_ENV: None,
        settings.NO_CACHE_ENV: None,
        settings.EXTRACT_CACHE_MB_ENV: None,
        settings.EXTRACT_CACHE_DIR_ENV: None if cache is None else str(cache),
    }
    env.update(more)
    return env


def _args(out: Path, *extra: str) -> list[str]:
    return ["generate", str(ZONE), "--osm", str(HELSINKI), "-o", str(out), *extra]


def _run(out: Path, cache: Path | str | None, *extra: str, **env: str | None):
    """``generate`` in this process; the result (its output holds stderr's lines too)."""
    layers._MEMO.clear()
    result = CliRunner().invoke(main, _args(out, *extra), env=_env(cache, **env))
    assert "Aborted!" not in result.output
    assert "Traceback" not in result.output
    return result


def _generated(out: Path, cache: Path | str | None, *extra: str) -> tuple[bytes, list[str]]:
    """stations.geojson of a run that must succeed, and the run's lines about the cache."""
    result = _run(out, cache, *extra)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "extract cache" in line]
    return (out / "stations.geojson").read_bytes(), lines


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.npz"))


def _assert_whole(folder: Path, out: Path, want: bytes, monkeypatch) -> None:
    """Every entry a regular file, no temporary file left, and a run from the cache alone."""
    for item in folder.iterdir():
        assert stat.S_ISREG(item.lstat().st_mode), item
        assert not item.name.endswith(".tmp"), item
    assert len(_entries(folder)) == LAYERS_PER_READ
    with monkeypatch.context() as patch:
        patch.setattr(layers, "_read_all", lambda *_a, **_k: pytest.fail("the extract was read"))
        assert _generated(out, folder)[0] == want


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> bytes:
    """stations.geojson of a run without the cache."""
    out = tmp_path_factory.mktemp("plain")
    layers._MEMO.clear()
    result = CliRunner().invoke(main, _args(out, "--no-cache"), env=_env(None))
    assert result.exit_code == 0, result.output
    data = (out / "stations.geojson").read_bytes()
    assert b'"FeatureCollection"' in data
    return data


@pytest.fixture(scope="module")
def warm(tmp_path_factory, plain) -> Path:
    """A cache folder one run filled (copy it before spoiling it)."""
    folder = tmp_path_factory.mktemp("warm") / "extracts"
    got, lines = _generated(tmp_path_factory.mktemp("warm-out"), folder)
    assert got == plain and not lines
    assert len(_entries(folder)) == LAYERS_PER_READ
    return folder


def _copy(warm: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "extracts"
    shutil.copytree(warm, folder)
    return folder


# ---------------------------------------------------------------------------
# Bad entries
# ---------------------------------------------------------------------------


def _restamp(entry: Path, version: int) -> None:
    """Rewrite an entry as another format version would have (its stored key's stamp)."""
    with np.load(entry) as npz:
        columns = {name: npz[name] for name in npz.files}
    meta = json.loads(bytes(columns["__meta__"]).decode())
    stamp = f"v{extract_cache.FORMAT_VERSION}|"
    assert meta["key"].startswith(stamp)
    meta["key"] = f"v{version}|" + meta["key"][len(stamp) :]
    columns["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, **columns)
    entry.write_bytes(buf.getvalue())


def _spoil(folder: Path, how: str, aside: Path) -> None:
    """Spoil every entry of ``folder`` in the same way."""
    entries = _entries(folder)
    contents = [p.read_bytes() for p in entries]
    aside.mkdir()
    for i, entry in enumerate(entries):
        data = contents[i]
        if how != "other version":
            entry.unlink()
        if how == "empty":
            entry.write_bytes(b"")  # what a power cut after a rename can leave
        elif how == "truncated":
            entry.write_bytes(data[: len(data) // 2])
        elif how == "garbage":
            entry.write_bytes(b"not a cache entry\n" * 50)
        elif how == "other version":
            _restamp(entry, extract_cache.FORMAT_VERSION + 1)
        elif how == "another entry's bytes":
            entry.write_bytes(contents[(i + 1) % len(entries)])
        elif how == "symlink":  # to the entry's own good bytes: still not trusted
            target = aside / entry.name
            target.write_bytes(data)
            entry.symlink_to(target)
        elif how == "symlink to a FIFO":
            os.mkfifo(aside / entry.name)
            entry.symlink_to(aside / entry.name)
        elif how == "folder":
            (entry / "inside").mkdir(parents=True)
            (entry / "inside" / "file").write_bytes(data)
        elif how == "FIFO":  # opened for reading, it would wait for a writer forever
            os.mkfifo(entry)
        else:
            raise AssertionError(how)


POSIX_ONLY = pytest.mark.skipif(not IS_POSIX, reason="symbolic links and FIFOs as on POSIX")


@pytest.mark.parametrize(
    "how",
    [
        "empty",
        "truncated",
        "garbage",
        "other version",
        "another entry's bytes",
        "folder",
        pytest.param("symlink", marks=POSIX_ONLY),
        pytest.param("symlink to a FIFO", marks=POSIX_ONLY),
        pytest.param("FIFO", marks=POSIX_ONLY),
    ],
)
def test_a_bad_entry_is_dropped_and_the_extract_read_again(tmp_path, warm, plain, monkeypatch, how):
    folder = _copy(warm, tmp_path)
    _spoil(folder, how, tmp_path / "aside")
    if "FIFO" in how:  # a cache that opened it would wait forever: a run with a deadline
        proc = _cli([], tmp_path / "out", folder)
        text = proc.stdout + proc.stderr
        assert proc.returncode == 0, text
        assert "Traceback" not in text and "Aborted!" not in text
        got = (tmp_path / "out" / "stations.geojson").read_bytes()
        lines = [line for line in text.splitlines() if "extract cache" in line]
    else:
        got, lines = _generated(tmp_path / "out", folder)
    assert got == plain
    assert lines, "a dropped entry is said"
    for line in lines:
        assert line.startswith("warning: extract cache entry ")
        assert line.endswith("; dropped, reading the extract")
    _assert_whole(folder, tmp_path / "again", plain, monkeypatch)


def test_an_empty_entry_never_aborts_and_is_rebuilt_for_good(tmp_path, warm, plain, monkeypatch):
    """The tester's case: an empty entry was an "Aborted!" (numpy's EOFError) on every run."""
    folder = _copy(warm, tmp_path)
    for entry in _entries(folder):
        entry.write_bytes(b"")
    for run in ("first", "second"):
        got, _ = _generated(tmp_path / run, folder)
        assert got == plain
    assert all(entry.stat().st_size > 0 for entry in _entries(folder))
    _assert_whole(folder, tmp_path / "third", plain, monkeypatch)


def test_each_load_of_a_bad_entry_is_one_line_and_drops_it(tmp_path):
    """The cache on its own: every kind of bad bytes, one warning line, the file gone."""
    warnings: list[str] = []
    cache = ExtractCache(tmp_path / "c", warn=warnings.append)
    cache.store("k", {"x": np.arange(1000)})
    good = cache.path("k").read_bytes()
    spoils = [b"", good[:30], good[:-30], b"PK\x05\x06" + bytes(18), b"\x93NUMPY" + bytes(60)]
    for data in spoils:
        cache.path("k").write_bytes(data)
        assert cache.load("k") is None
        assert not cache.path("k").exists()
    assert len(warnings) == len(spoils)
    assert all("\n" not in w and w.endswith("dropped, reading the extract") for w in warnings)


# ---------------------------------------------------------------------------
# Killed and interrupted writers
# ---------------------------------------------------------------------------

_KILLED_WRITER = """
import io, os, signal, sys
import numpy as np
from stations_generator.osm.extract_cache import ExtractCache

real = np.savez

def dying(fh, **arrays):
    buf = io.BytesIO()
    real(buf, **arrays)
    fh.write(buf.getvalue()[: buf.tell() // 2])
    fh.flush()
    os.kill(os.getpid(), signal.SIGKILL)

np.savez = dying
ExtractCache(sys.argv[1], limit_mb=100).store(sys.argv[2], {"x": np.arange(200_000)})
"""


def _killed_writer(folder: Path, key: str) -> Path:
    """The temporary file a writer killed (SIGKILL) half-way through an entry leaves."""
    before = set(folder.glob(".*.tmp")) if folder.exists() else set()
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED_WRITER, str(folder), key], capture_output=True, timeout=60
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    (left,) = set(folder.glob(".*.tmp")) - before
    assert left.stat().st_size > 0
    return left


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX")
def test_temporary_files_of_killed_writers_are_cleaned_when_stale(tmp_path, warm, plain):
    folder = _copy(warm, tmp_path)
    stale = _killed_writer(folder, "a")
    fresh = _killed_writer(folder, "b")
    old = time.time() - extract_cache.STALE_TMP_S - 60
    os.utime(stale, (old, old))
    got, lines = _generated(tmp_path / "out", folder)
    assert got == plain and not lines
    assert not stale.exists()
    assert fresh.exists()  # it may be a live writer's: left alone until it is stale


def test_an_interrupted_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    real = np.savez

    def interrupted(fh, **arrays):
        real(fh, **arrays)
        raise KeyboardInterrupt

    cache = ExtractCache(tmp_path / "c")
    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cache.store("k", {"x": np.arange(10)})
    assert list((tmp_path / "c").iterdir()) == []


# ---------------------------------------------------------------------------
# Folders the cache cannot use
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["a file", "under a file", "--cache-dir a file"])
def test_a_cache_path_that_is_not_a_folder_is_one_warning(tmp_path, plain, where):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder\n")
    extra: tuple[str, ...] = ()
    cache: Path | None = a_file if where == "a file" else a_file / "extracts"
    if where == "--cache-dir a file":
        cache, extra = None, ("--cache-dir", str(a_file))
    got, lines = _generated(tmp_path / "out", cache, *extra)
    assert got == plain
    assert len(lines) == 1, lines
    assert lines[0].startswith("warning: extract cache folder ")
    assert lines[0].endswith(
        "running without the extract cache (point "
        "STATIONS_GENERATOR_EXTRACT_CACHE_DIR or --cache-dir at a folder)"
    )
    assert a_file.read_text() == "not a folder\n"


def _unprivileged() -> list[str]:
    """A prefix that runs a command without root's right to write anywhere."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only folder is writable")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"]


def _os_env(cache: Path) -> dict[str, str]:
    """:func:`_env` applied to this process's environment, for a subprocess."""
    env = dict(os.environ)
    for name, value in _env(cache).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def _cli(prefix: list[str], out: Path, cache: Path, *global_options: str):
    env = _os_env(cache)
    cmd = [*prefix, sys.executable, "-m", "stations_generator", *global_options, *_args(out)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(not IS_POSIX, reason="folder modes as on POSIX")
@pytest.mark.parametrize("holds", ["nothing", "every layer", "a bad entry"])
def test_a_read_only_cache_folder_is_read_and_never_fails_the_run(tmp_path, warm, plain, holds):
    prefix = _unprivileged()
    folder = tmp_path / "extracts"
    if holds == "nothing":
        folder.mkdir()
    else:
        shutil.copytree(warm, folder)
    if holds == "a bad entry":
        for entry in _entries(folder):
            entry.write_bytes(b"")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    out = tmp_path / "out"
    out.mkdir()
    folder.chmod(0o555)
    try:
        probe = subprocess.run([*prefix, "touch", str(folder / "probe")], capture_output=True)
        assert probe.returncode != 0, "the folder must be read-only for the run"
        proc = _cli(prefix, out, folder, "-v")
    finally:
        folder.chmod(0o755)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, text
    assert "Traceback" not in text and "Aborted!" not in text
    assert (out / "stations.geojson").read_bytes() == plain
    warnings = [line for line in text.splitlines() if "extract cache" in line]
    if holds == "nothing":
        assert len(warnings) == 1, warnings  # once, not once per layer
        assert "cannot write the extract cache in" in warnings[0]
        assert warnings[0].endswith("running without storing to it")
    elif holds == "every layer":
        assert warnings == []
        assert "extract layer from cache" in text  # read, though it cannot be written
    else:
        assert len(warnings) == 2, warnings  # the bad entry, and the write that failed
        assert "cannot delete it" in warnings[0]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


# ---------------------------------------------------------------------------
# Concurrent runs, changed extracts, other versions
# ---------------------------------------------------------------------------


def test_two_runs_filling_the_same_cache_at_once(tmp_path, plain, monkeypatch):
    folder = tmp_path / "extracts"
    env = _os_env(folder)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "stations_generator", "-q", *_args(tmp_path / f"out{i}")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in range(2)
    ]
    for i, proc in enumerate(procs):
        text = proc.communicate(timeout=300)[0]
        assert proc.returncode == 0, text
        assert "warning" not in text and "Traceback" not in text
        assert (tmp_path / f"out{i}" / "stations.geojson").read_bytes() == plain
    _assert_whole(folder, tmp_path / "again", plain, monkeypatch)


def test_writers_racing_on_one_entry_never_show_a_reader_half_of_it(warm, tmp_path):
    """Renames are atomic: whatever the interleaving, a load gets a whole entry or none."""
    with np.load(max(_entries(warm), key=lambda p: p.stat().st_size)) as npz:
        columns = {n: npz[n] for n in npz.files if n != "__meta__"}  # a real layer
    warnings: list[str] = []
    cache = ExtractCache(tmp_path / "c", warn=warnings.append)
    cache.store("k", columns)
    stop = threading.Event()
    loads: list[bool] = []

    def write() -> None:
        for _ in range(15):
            ExtractCache(tmp_path / "c", warn=warnings.append).store("k", columns)

    def read() -> None:
        while not stop.is_set():
            got = cache.load("k")
            loads.append(got is not None and all(np.array_equal(got[n], columns[n]) for n in got))

    threads = [threading.Thread(target=write) for _ in range(3)]
    reader = threading.Thread(target=read)
    reader.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    stop.set()
    reader.join(timeout=120)
    assert loads and all(loads)
    assert warnings == []
    assert [p.name for p in (tmp_path / "c").iterdir()] == [cache.path("k").name]


def test_a_changed_extract_or_format_is_read_again(tmp_path, plain, monkeypatch):
    """An entry is keyed by the extract's size, time and bytes, and by the format version."""
    extract = tmp_path / HELSINKI.name
    shutil.copyfile(HELSINKI, extract)
    folder = tmp_path / "extracts"
    reads: list[object] = []
    real = layers._read_all
    monkeypatch.setattr(layers, "_read_all", lambda *a, **k: reads.append(a) or real(*a, **k))

    def run(name: str) -> bytes:
        layers._MEMO.clear()
        args = ["generate", str(ZONE), "--osm", str(extract), "-o", str(tmp_path / name)]
        result = CliRunner().invoke(main, args, env=_env(folder))
        assert result.exit_code == 0, result.output
        return (tmp_path / name / "stations.geojson").read_bytes()

    assert run("first") == plain and len(reads) == 1
    assert run("cached") == plain and len(reads) == 1
    os.utime(extract, ns=(1_000_000_000, 1_000_000_000))  # same bytes, touched
    assert run("touched") == plain and len(reads) == 2
    monkeypatch.setattr(extract_cache, "FORMAT_VERSION", extract_cache.FORMAT_VERSION + 1)
    assert run("next format") == plain and len(reads) == 3
    assert len(_entries(folder)) == 3 * LAYERS_PER_READ  # the others age out (size cap)


# ---------------------------------------------------------------------------
# The size cap's setting
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "-1", "0", "abc", "1e400"])
def test_a_size_cap_that_is_not_a_size_is_one_line(tmp_path, value):
    out = tmp_path / "out"
    result = _run(out, tmp_path / "extracts", **{settings.EXTRACT_CACHE_MB_ENV: value})
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {settings.EXTRACT_CACHE_MB_ENV}={value!r} is not a size")
    assert "number of MiB above 0" in lines[0] and "--no-cache" in lines[0]
    assert not (out / "stations.geojson").exists()
    assert not (tmp_path / "extracts").exists()


def test_a_size_cap_in_the_python_api_is_checked(tmp_path):
    for bad in (float("inf"), float("nan"), 0, -1.0, True, "12"):
        with pytest.raises(ValueError, match="limit_mb"):
            ExtractCache(tmp_path, limit_mb=bad)
    assert ExtractCache(tmp_path, limit_mb=0.5).limit_bytes == 1 << 19
