"""Whole output sets (``formats.atomic.output_set``): a run's files appear whole or not at all.

The sets are real: ``generate`` outputs of the bundled Sioux Falls data, once with
``--explain --map`` (five files) and once with another spacing and neither (three
files). Faults come from outside the module: a forked child does only the write phase
of one set into a folder holding the other, and is signalled right after each of its
file-system calls in turn (``os.open``, ``os.replace``, ``os.fsync``...: the test wraps
them in the child) or after a random delay; a real full file system (a small tmpfs in a
private mount namespace), a file-size limit (``RLIMIT_FSIZE``) and failing ``fsync``
calls stand for a full disk. Afterwards the folder must hold exactly one of the two
sets, next to the files no command owns, which stay untouched.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.paths import REPO, SIOUX

from stations_generator.app.generate import GENERATE_FILES
from stations_generator.cli import main
from stations_generator.errors import InputError, OutputBusyError, OutputError
from stations_generator.formats import atomic
from stations_generator.formats.atomic import STATE_DIR, output_set, reading, settle

ZONE = REPO / "zones" / "sioux-falls.geojson"
OFFLINE = ["--osm", SIOUX / "pois.json", "--water", SIOUX / "water.json"]
#: Files of other commands in the same folder (the README's out/liechtenstein has them).
FOREIGN = {
    "report.json": b'{"play_area": "sioux-falls.geojson"}\n',
    "calibration/calibration.csv": b"tier,pairs\n",
    "notes.txt": b"mine\n",
    ".hidden": b"also mine\n",
}
#: The os functions a write phase's file-system steps go through (pathlib, shutil and
#: tempfile call them too).
STEPS = ("open", "mkdir", "fsync", "replace", "unlink", "rmdir")
RANDOM_TRIES = 20


def run(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


@pytest.fixture(scope="module")
def sets(tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """Two real output sets of ``generate``: "full" (5 files) and "plain" (3 other files)."""
    out = tmp_path_factory.mktemp("sets")
    full = run("-q", "generate", ZONE, *OFFLINE, "-o", out / "full", "--explain", "--map")
    plain = run("-q", "generate", ZONE, *OFFLINE, "-o", out / "plain", "--min-spacing", "400")
    assert full.exit_code == 0 and plain.exit_code == 0, full.output + plain.output
    found = {
        name: {p.name: p.read_bytes() for p in sorted((out / name).iterdir())}
        for name in ("full", "plain")
    }
    assert sorted(found["full"]) == sorted(GENERATE_FILES)
    assert sorted(found["plain"]) == ["stations.csv", "stations.geojson", "stations.kml"]
    assert found["full"]["stations.csv"] != found["plain"]["stations.csv"]
    return found


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones included) by relative path."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def prepare(folder: Path, files: dict[str, bytes]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    for name, data in {**FOREIGN, **files}.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def which(folder: Path, sets: dict[str, dict[str, bytes]]) -> str:
    """The name of the one set the folder holds (with the foreign files intact), else fail."""
    state = snapshot(folder)
    for name, files in sets.items():
        if state == {**FOREIGN, **files}:
            return name
    mixed = {k: [s for s, f in sets.items() if f.get(k) == v] for k, v in state.items()}
    raise AssertionError(f"the folder mixes runs or lost files: {mixed}")


CAUGHT = {signal.SIGINT, signal.SIGTERM}


def fork(body) -> int:
    """Fork a child that runs ``body()`` and exits with its code; nothing escapes into pytest."""
    signal.pthread_sigmask(signal.SIG_BLOCK, CAUGHT)  # until the child is in its try
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        code = 99
        try:
            # A command started from a terminal: pytest may run with SIGINT ignored (a
            # background job, nohup), which its children inherit.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, CAUGHT)
            code = body()
        except KeyboardInterrupt:
            code = 130
        except SystemExit as exc:
            code = int(exc.code or 0)
        except BaseException:  # noqa: BLE001
            code = 99
        finally:
            os._exit(code)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, CAUGHT)
    return pid


def write_set(folder: Path, files: dict[str, bytes]) -> None:
    with output_set(folder, GENERATE_FILES) as out:
        for name, data in files.items():
            out.write_bytes(name, data)


@contextlib.contextmanager
def after_each_step(call):
    """Call ``call(name, args)`` right after each file-system step (see ``STEPS``)."""
    real = {name: getattr(os, name) for name in STEPS}

    def wrap(name):
        def step(*args, **kwargs):
            result = real[name](*args, **kwargs)
            call(name, args)
            return result

        return step

    try:
        for name in STEPS:
            setattr(os, name, wrap(name))
        yield
    finally:
        for name, function in real.items():
            setattr(os, name, function)


def count_steps(write) -> int:
    """How many file-system steps ``write()`` takes."""
    steps = []
    with after_each_step(lambda name, _args: steps.append(name)):
        write()
    assert {"open", "fsync", "replace", "unlink", "rmdir"} <= set(steps)
    return len(steps)


def signal_at_step(k: int, number: int, write) -> int:
    """Child body: run ``write()``, sending ``number`` to itself right after step ``k``."""
    seen = 0

    def call(_name, _args):
        nonlocal seen
        seen += 1
        if seen == k:
            os.kill(os.getpid(), number)

    with after_each_step(call):
        write()
    return 0


# --------------------------------------------------------------------------- #
# The set itself
# --------------------------------------------------------------------------- #


def test_a_run_replaces_what_it_owns_and_nothing_else(tmp_path, sets):
    folder = tmp_path / "out"
    prepare(folder, sets["full"])
    write_set(folder, sets["plain"])
    # stations.html and candidates.geojson of the earlier --map --explain run are gone;
    # report.json, calibration/ and the user's own files are as they were.
    assert which(folder, sets) == "plain"
    assert not (folder / STATE_DIR).exists()
    write_set(folder, sets["full"])
    assert which(folder, sets) == "full"


def test_dot_as_output_folder(tmp_path, sets, monkeypatch):
    work = tmp_path / "work"
    prepare(work, sets["plain"])
    monkeypatch.chdir(work)
    result = run("-q", "generate", ZONE, *OFFLINE, "-o", ".", "--explain", "--map")
    assert result.exit_code == 0, result.output
    assert which(work, sets) == "full"


def test_generate_removes_stale_files_of_an_earlier_run(tmp_path, sets):
    """Issue 13: stations.html and candidates.geojson of an earlier run do not linger."""
    folder = tmp_path / "out"
    prepare(folder, sets["full"])
    result = run("generate", ZONE, *OFFLINE, "-o", folder, "--min-spacing", "400")
    assert result.exit_code == 0, result.output
    assert which(folder, sets) == "plain"


def test_a_failing_run_changes_nothing(tmp_path, sets):
    folder = tmp_path / "out"
    prepare(folder, sets["full"])
    with pytest.raises(ZeroDivisionError):
        with output_set(folder, GENERATE_FILES) as out:
            out.write_bytes("stations.csv", sets["plain"]["stations.csv"])
            _ = 1 / 0
    assert which(folder, sets) == "full"
    assert not (folder / STATE_DIR).exists()
    # A folder the failed run created is removed again.
    with pytest.raises(InputError):
        with output_set(tmp_path / "new" / "deep", ["a.txt"]) as out:
            raise InputError("bad input")
    assert not (tmp_path / "new").exists()


def test_bad_input_leaves_no_folder(tmp_path):
    result = run("generate", tmp_path / "missing.geojson", *OFFLINE, "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert not (tmp_path / "out").exists()


def test_files_in_two_folders_commit_together(tmp_path):
    json_file, html_file = tmp_path / "a" / "report.json", tmp_path / "b" / "report.html"
    with output_set(tmp_path, ["a/report.json", "b/report.html"]) as out:
        out.write_text("a/report.json", "{}\n")
        assert not json_file.exists()
        out.write_bytes("b/report.html", b"<p>")
    assert json_file.read_text() == "{}\n" and html_file.read_bytes() == b"<p>"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "report.html", "report.json"]


def test_api_misuse_is_refused(tmp_path):
    with pytest.raises(ValueError, match="named twice"):
        output_set(tmp_path, ["x.txt", "./x.txt"]).__enter__()
    with output_set(tmp_path, ["x.txt", "z.txt"]) as out:
        with pytest.raises(ValueError, match="not one of"):
            out.write_text("y.txt", "")
        out.write_text("x.txt", "1")
        with pytest.raises(ValueError, match="already written"):
            out.write_text("x.txt", "2")
        with pytest.raises(TypeError):
            out.write_bytes("x.txt", "text")  # type: ignore[arg-type]
    assert (tmp_path / "x.txt").read_text() == "1"
    with pytest.raises(RuntimeError, match="outside"):
        out.write_text("z.txt", "3")


def test_output_that_is_a_file(tmp_path):
    (tmp_path / "taken").write_text("x")
    with pytest.raises(InputError, match="is a file, not a folder"):
        with output_set(tmp_path / "taken", ["a"]):
            pass
    assert (tmp_path / "taken").read_text() == "x"


def test_permissions_of_replaced_files_are_kept(tmp_path):
    (tmp_path / "a.txt").write_text("old")
    os.chmod(tmp_path / "a.txt", 0o640)
    with output_set(tmp_path, ["a.txt", "b.txt"]) as out:
        out.write_text("a.txt", "new")
        out.write_text("b.txt", "new")
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640
    mask = os.umask(0o022)
    os.umask(mask)
    assert (tmp_path / "b.txt").stat().st_mode & 0o777 == 0o666 & ~mask


# --------------------------------------------------------------------------- #
# Two runs into one folder, and every wait bounded
# --------------------------------------------------------------------------- #


def test_second_run_into_a_busy_folder_fails_at_once(tmp_path, sets):
    folder = tmp_path / "out"
    prepare(folder, sets["full"])
    with output_set(folder, GENERATE_FILES) as out:
        started = time.monotonic()
        result = run("generate", ZONE, *OFFLINE, "-o", folder)
        waited = time.monotonic() - started
        out.write_bytes("stations.csv", sets["plain"]["stations.csv"])
        out.write_bytes("stations.geojson", sets["plain"]["stations.geojson"])
        out.write_bytes("stations.kml", sets["plain"]["stations.kml"])
    assert result.exit_code == 5
    assert result.output == (
        f"error: another stations-generator run (pid {os.getpid()}) is writing to {folder}; "
        "wait for it or choose another -o\n"
    )
    assert waited < atomic.LOCK_WAIT_S + 2  # no computing first: it stops at the lock
    assert which(folder, sets) == "plain"


def _race_child(folder: Path, files: dict[str, bytes], go: float, report: int) -> int:
    """Write one set after ``go`` (a time.time()), computing a while; report by pipe."""
    time.sleep(max(0.0, go - time.time()))
    try:
        with output_set(folder, GENERATE_FILES) as out:
            time.sleep(0.4)  # the computation, with the folder locked
            for name, data in files.items():
                out.write_bytes(name, data)
        message, code = "", 0
    except OutputBusyError as exc:
        message, code = str(exc), 5
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        message, code = repr(exc), 99
    os.write(report, json.dumps([os.getpid(), code, message]).encode() + b"\n")
    return code


def test_two_concurrent_runs_one_wins_whole(tmp_path, sets):
    outcomes = {"full": 0, "plain": 0}
    for attempt in range(4):
        folder = tmp_path / f"race{attempt}"
        prepare(folder, sets["plain"] if attempt % 2 else sets["full"])
        read_end, write_end = os.pipe()
        go = time.time() + 0.15
        children = {}
        for name in ("full", "plain"):
            pid = fork(lambda name=name: _race_child(folder, sets[name], go, write_end))  # noqa: B023
            children[pid] = name
        os.close(write_end)
        for pid in children:
            os.waitpid(pid, 0)
        with os.fdopen(read_end) as pipe:
            reports = [json.loads(line) for line in pipe]
        winners = [(pid, code) for pid, code, _ in reports if code == 0]
        losers = [(pid, code, msg) for pid, code, msg in reports if code != 0]
        assert len(winners) == 1 and len(losers) == 1, reports
        (winner, _), (_, code, message) = winners[0], losers[0]
        assert code == 5
        assert message == (
            f"another stations-generator run (pid {winner}) is writing to {folder}; "
            "wait for it or choose another -o"
        )
        assert which(folder, sets) == children[winner]
        assert not (folder / STATE_DIR).exists()
        outcomes[children[winner]] += 1
    assert sum(outcomes.values()) == 4


def test_a_lock_held_by_a_stuck_reader_is_waited_for_a_bounded_time(tmp_path):
    """A holder marked as recovering is waited for, but only LOCK_WAIT_S."""
    (tmp_path / STATE_DIR).mkdir()
    lock = tmp_path / STATE_DIR / "lock"
    lock.write_text(f"{os.getpid()} recovering\n")
    with open(lock, "rb") as held:  # another open file description: flock conflicts
        fcntl.flock(held, fcntl.LOCK_EX)
        started = time.monotonic()
        with pytest.raises(OutputBusyError, match=f"pid {os.getpid()}"):
            with output_set(tmp_path, ["a.txt"]):
                pass
        waited = time.monotonic() - started
    assert atomic.LOCK_WAIT_S <= waited < atomic.LOCK_WAIT_S + 2
    assert not (tmp_path / "a.txt").exists()


def test_a_reader_waits_for_a_commit_a_bounded_time(tmp_path, monkeypatch):
    """A commit that never ends (its record stays, its run holds the lock) fails the reader."""
    (tmp_path / "a.txt").write_text("old")
    monkeypatch.setattr(atomic, "COMMIT_WAIT_S", 0.3)
    with output_set(tmp_path, ["b.txt"]):
        (tmp_path / STATE_DIR / "run.set").write_text("{}")  # as if committing
        started = time.monotonic()
        with pytest.raises(OutputBusyError, match="stays busy"):
            with reading(tmp_path / "a.txt"):
                pass
        assert 0.3 <= time.monotonic() - started < 2
        (tmp_path / STATE_DIR / "run.set").unlink()
    with reading(tmp_path / "a.txt"):
        assert (tmp_path / "a.txt").read_text() == "old"


# --------------------------------------------------------------------------- #
# Signals after every file-system step of the write phase, and at random moments
# --------------------------------------------------------------------------- #


def _recover(folder: Path, attempt: int) -> bool:
    """What the next run or reader does first: settle the folder (or read from it)."""
    if attempt % 2:
        return settle(folder)
    with reading(folder / "stations.csv"):
        (folder / "stations.csv").read_bytes()
    return False


def _check_signalled(folder, number, status, where):
    if number != signal.SIGKILL:
        # Caught: the staging is removed before the process ends. (A signal before
        # the set was opened ends the child at once: it had made nothing yet.)
        caught = os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 130, 143)
        early = os.WIFSIGNALED(status) and os.WTERMSIG(status) == number
        assert caught or early, where
        assert not (folder / STATE_DIR).exists(), (where, os.listdir(folder / STATE_DIR))


@pytest.mark.slow  # (seconds; the full suite runs it)
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_signals_never_leave_a_mixed_folder(tmp_path, sets, signame):
    number = getattr(signal, signame)
    rng = random.Random(f"signals-{signame}")
    folder = tmp_path / "out"
    outcomes = {"old": 0, "new": 0, "rolled forward": 0}
    plans = []
    for old, new in (("full", "plain"), ("plain", "full")):
        prepare(folder, sets[old])
        steps = count_steps(lambda new=new: write_set(folder, sets[new]))
        plans += [(old, new, k) for k in range(1, steps + 1)]  # after every step in turn
    plans += [("full", "plain", -1), ("plain", "full", -1)] * (RANDOM_TRIES // 2)
    for attempt, (old, new, k) in enumerate(plans):
        prepare(folder, sets[old])
        write = lambda new=new: write_set(folder, sets[new])  # noqa: E731
        pid = fork(lambda: signal_at_step(k, number, write))  # noqa: B023
        if k < 0:
            time.sleep(rng.uniform(0.0, 0.06))
            os.kill(pid, number)
        _, status = os.waitpid(pid, 0)
        where = f"attempt {attempt}, {old} -> {new}, signal after step {k}, status {status:#x}"
        _check_signalled(folder, number, status, where)
        if (folder / STATE_DIR).exists():  # what a SIGKILL left
            rolled = _recover(folder, attempt)
            outcomes["rolled forward"] += rolled and which(folder, sets) == new
            assert not (folder / STATE_DIR).exists(), where
        outcomes["old" if which(folder, sets) == old else "new"] += 1
    assert outcomes["old"] > 0 and outcomes["new"] > 0, outcomes
    if number == signal.SIGKILL:
        assert outcomes["rolled forward"] > 0, outcomes


@pytest.mark.slow  # (seconds; the full suite runs it)
def test_sigkill_after_every_step_of_a_set_in_two_folders(tmp_path):
    """report -o a/report.json --html b/report.html: both files or neither, whichever
    folder the next run or reader visits first."""
    names = ["a/report.json", "b/report.html"]
    old = {"a/report.json": b"old json", "b/report.html": b"old html"}
    new = {"a/report.json": b"new json", "b/report.html": b"new html"}

    def write(files):
        with output_set(tmp_path, names) as out:
            for name, data in files.items():
                out.write_bytes(name, data)

    def seen():
        return {n: (tmp_path / n).read_bytes() for n in names}

    write(old)
    steps = count_steps(lambda: write(new))
    outcomes = set()
    for k in range(1, steps + 1):
        for first in ("a", "b"):
            write(old)
            os.waitpid(fork(lambda k=k: signal_at_step(k, signal.SIGKILL, lambda: write(new))), 0)
            for folder in (first, "b" if first == "a" else "a"):
                settle(tmp_path / folder)
            assert seen() in (old, new), (k, first, seen())
            assert not (tmp_path / "a" / STATE_DIR).exists(), (k, first)
            assert not (tmp_path / "b" / STATE_DIR).exists(), (k, first)
            outcomes.add("new" if seen() == new else "old")
    assert outcomes == {"old", "new"}


def _kill_after_moving(target: Path, write) -> int:
    """Child body: SIGKILL right after ``target`` was renamed into place."""

    def call(name, args):
        if name == "replace" and Path(args[1]) == target:
            os.kill(os.getpid(), signal.SIGKILL)

    with after_each_step(call):
        write()
    return 0


def test_a_reader_rolls_a_killed_commit_forward(tmp_path, sets):
    """SIGKILL between the first and the last rename: `map` and `roll` see the new set."""
    folder = tmp_path / "out"
    prepare(folder, sets["full"])
    target = (folder / "stations.geojson").absolute()
    pid = fork(lambda: _kill_after_moving(target, lambda: write_set(folder, sets["plain"])))
    os.waitpid(pid, 0)
    assert (folder / STATE_DIR).is_dir()
    on_disk = snapshot(folder)
    assert on_disk["stations.geojson"] == sets["plain"]["stations.geojson"]  # moved
    assert on_disk["stations.kml"] == sets["full"]["stations.kml"]  # not yet
    result = run("roll", "Sioux Area Metro", "--map", folder / "stations.geojson", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert which(folder, sets) == "plain"


def test_reading_notices_a_file_replaced_meanwhile(tmp_path, sets):
    folder = tmp_path / "out"
    prepare(folder, sets["full"])
    with pytest.raises(OutputBusyError, match="replaced by another run while it was read"):
        with reading(folder / "stations.geojson", folder / "candidates.geojson"):
            (folder / "stations.geojson").read_bytes()
            write_set(folder, sets["plain"])
    with reading(folder / "stations.geojson"):
        assert (folder / "stations.geojson").read_bytes() == sets["plain"]["stations.geojson"]


# --------------------------------------------------------------------------- #
# A full disk
# --------------------------------------------------------------------------- #


def test_failing_fsync_at_every_write(tmp_path, sets, monkeypatch):
    """ENOSPC at each fsync of the write phase (a staged file, the record): old set kept."""
    folder = tmp_path / "out"
    prepare(folder, sets["plain"])
    real_fsync = os.fsync
    calls = 0

    def counting(fd):
        nonlocal calls
        calls += 1
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting)
    write_set(folder, sets["full"])
    total = calls
    assert total >= len(sets["full"]) + 1
    failures = 0
    for k in range(1, total + 1):
        prepare(folder, sets["plain"])
        calls = 0

        def full_disk(fd, k=k):
            nonlocal calls
            calls += 1
            if calls == k:
                raise OSError(errno.ENOSPC, "No space left on device")
            real_fsync(fd)

        monkeypatch.setattr(os, "fsync", full_disk)
        try:
            write_set(folder, sets["full"])
        except OutputError as exc:
            failures += 1
            message = str(exc)
            assert message.startswith(f"no space left on device while writing {folder}/")
            assert "\n" not in message
            assert which(folder, sets) == "plain"
        else:  # the failed fsync was a folder's (best effort): the set is complete
            assert which(folder, sets) == "full"
        assert not (folder / STATE_DIR).exists()
    assert failures >= len(sets["full"]) + 1  # every file and the record


def _limited_child(folder: Path, files: dict[str, bytes], limit: int, report: int) -> int:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails: EFBIG
    try:
        write_set(folder, files)
        message = ""
    except OutputError as exc:
        message = str(exc)
    os.write(report, message.encode() + b"\n")
    return 0


def test_a_file_size_limit_fails_the_set_whole(tmp_path, sets):
    """RLIMIT_FSIZE below the largest file: that file's write fails, nothing changes."""
    folder = tmp_path / "out"
    prepare(folder, sets["plain"])
    sizes = sorted(len(data) for data in sets["full"].values())
    read_end, write_end = os.pipe()
    pid = fork(lambda: _limited_child(folder, sets["full"], sizes[-1] - 1, write_end))
    os.close(write_end)
    os.waitpid(pid, 0)
    with os.fdopen(read_end) as pipe:
        message = pipe.read().strip()
    big = next(name for name, data in sets["full"].items() if len(data) == sizes[-1])
    assert message == (
        f"cannot write {folder / big}: File too large; nothing was changed in {folder}"
    )
    assert which(folder, sets) == "plain"
    assert not (folder / STATE_DIR).exists()


CHILD = """
import json, os, sys
from pathlib import Path
from stations_generator.errors import OutputError
from stations_generator.formats.atomic import output_set
from stations_generator.app.generate import GENERATE_FILES

mount, first, second = Path(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
folder, filler = mount / "out", mount / "filler"
def write(files):
    with output_set(folder, GENERATE_FILES) as out:
        for name in files:
            out.write_bytes(name, Path(files[name]).read_bytes())
def free():
    st = os.statvfs(mount)
    return st.f_bavail * st.f_frsize
results = []
for pages in range(int(sys.argv[4])):
    write(first)
    filler.write_bytes(b"")
    filler.write_bytes(b"x" * max(0, free() - pages * 4096))  # leave that many pages free
    try:
        write(second)
        error = None
    except OutputError as exc:
        error = str(exc)
    filler.unlink()
    left = sorted(p.name for p in folder.iterdir())
    def same(files):
        return all(
            (folder / n).is_file() and (folder / n).read_bytes() == Path(files[n]).read_bytes()
            for n in files
        )
    intact, complete = same(first), same(second)
    results.append({"error": error, "left": left, "first": intact, "second": complete})
print(json.dumps(results))
"""


def test_a_full_tmpfs_at_every_page(tmp_path, sets):
    """A real full disk: a tmpfs in a private mount namespace, filled so that from 0 to
    enough pages stay free; the write fails at each file in turn, or succeeds whole."""
    if shutil.which("unshare") is None or sys.platform != "linux":
        pytest.skip("needs util-linux unshare (Linux); the fsync and RLIMIT tests cover it")
    sources = {}
    for name, files in sets.items():
        for file, data in files.items():
            path = tmp_path / "src" / name / file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            sources.setdefault(name, {})[file] = str(path)
    mount = tmp_path / "small"
    mount.mkdir()
    pages = sum(-(-len(d) // 4096) for d in sets["full"].values()) + 4
    script = f'mount -t tmpfs -o size=4m tmpfs {mount} && exec {sys.executable} -c "$0" "$@"'
    args = [
        "unshare", "-rm", "sh", "-c", script, CHILD, str(mount),
        json.dumps(sources["plain"]), json.dumps(sources["full"]), str(pages),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0 and "mount" in done.stderr.lower() and not done.stdout:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    failed_at = set()
    for pages_free, result in enumerate(results):
        if result["error"] is None:
            assert result["second"] and result["left"] == sorted(GENERATE_FILES), pages_free
            continue
        prefix = f"no space left on device while writing {mount}/out/"
        assert result["error"].startswith(prefix), result["error"]
        assert result["left"] == ["stations.csv", "stations.geojson", "stations.kml"]
        assert result["first"], pages_free
        failed_at.add(result["error"][len(prefix) :].split(";")[0])
    assert results[0]["error"] is not None and results[-1]["error"] is None
    # Every staged file in turn, the record (the commit point) and even the lock file.
    assert set(sets["full"]) <= failed_at, failed_at
    assert any(name.endswith(".set") for name in failed_at), failed_at
