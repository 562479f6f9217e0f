"""Fault matrix for the write phase and the network waits (issue 9's data-loss and hang counts).

Not a timing benchmark: it counts outcomes, for whichever ``stations_generator`` is first
on ``PYTHONPATH``, so the same script measures an old checkout and a new one::

    PYTHONPATH=path/to/checkout python bench/bench_io_faults.py [--tries 50] [--json out.json]

Cases (real ``generate`` outputs of the bundled Sioux Falls data: a five-file set made
with ``--explain --map`` and a three-file set made with ``--min-spacing 400``):

* **signals** — a forked child does only the write phase of one set into a folder holding
  the other (the old command's loop of per-file atomic writes, or ``output_set``);
  SIGINT, SIGTERM or SIGKILL after a random delay within 1.2x the write phase's median
  duration. Counted: folders that then hold files of both runs, or lost files (after the
  next run's recovery, ``settle``, where the checkout has one), and folders with
  temporary files left after SIGINT/SIGTERM.
* **stale** — ``generate --explain --map`` then plain ``generate`` into one folder with the
  command line: does stations.html / candidates.geojson of the first run stay?
* **concurrent** — two children write the two sets into one folder at the same moment.
  Counted: mixed folders; runs that failed with a message saying why.
* **disk full** — a 600 KiB tmpfs (private mount namespace, ``unshare -rm``): the plain
  set, then the full one, through the command line. Counted: mixed folders, and whether
  the error names the file.
* **network** — ``generate`` online / ``--place`` against the local stand-ins of
  ``tests/support/osm_services.py`` with ``--overpass-timeout 5``: a server dripping one byte every
  2 s, 429 with Retry-After 3600, 504 forever (Overpass and Nominatim), a refused port,
  and a first answer with a poisoned element. A run still going after 60 s is a hang
  (killed). Counted: hangs, runs over deadline + 5 s, exit codes, poisoned cache entries
  (the run after the poisoned one fails too).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
ZONE = ROOT / "zones" / "sioux-falls.geojson"
SIOUX = ROOT / "examples" / "sioux-falls"
OFFLINE = ["--osm", str(SIOUX / "pois.json"), "--water", str(SIOUX / "water.json")]
FOREIGN = {"report.json": b"{}\n", "notes.txt": b"mine\n"}
HANG_S = 60.0


def cli(
    *args: str, env: dict | None = None, timeout: float = HANG_S
) -> tuple[int | None, str, float]:
    """Run the command line; (exit code or None for a hang, stderr, seconds)."""
    command = [sys.executable, "-m", "stations_generator", *map(str, args)]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        return None, err, time.monotonic() - started
    return done.returncode, done.stderr, time.monotonic() - started


def make_sets(work: Path) -> dict[str, dict[str, bytes]]:
    cli("-q", "generate", ZONE, *OFFLINE, "-o", work / "full", "--explain", "--map")
    cli("-q", "generate", ZONE, *OFFLINE, "-o", work / "plain", "--min-spacing", "400")
    return {n: {p.name: p.read_bytes() for p in (work / n).iterdir()} for n in ("full", "plain")}


def prepare(folder: Path, files: dict[str, bytes]) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, data in {**FOREIGN, **files}.items():
        (folder / name).write_bytes(data)


def state(folder: Path, sets: dict[str, dict[str, bytes]]) -> str:
    """'full', 'plain', or 'mixed' (files of both runs, or files lost); temp files ignored."""
    files = {
        p.name: p.read_bytes()
        for p in folder.iterdir()
        if p.is_file() and not p.name.startswith(".")
    }
    for name, expected in sets.items():
        if files == {**FOREIGN, **expected}:
            return name
    for name, expected in sets.items():  # complete, but the other run's extra files stayed
        other = next(v for k, v in sets.items() if k != name)
        if files == {
            **FOREIGN,
            **{k: v for k, v in other.items() if k not in expected},
            **expected,
        }:
            return "stale"
    return "mixed"


def leftovers(folder: Path) -> bool:
    return any(p.name.startswith(".") for p in folder.iterdir())


def write_phase(folder: Path, files: dict[str, bytes]) -> None:
    """What the checkout's ``generate`` does once its files are rendered."""
    from stations_generator.formats import atomic

    if hasattr(atomic, "output_set"):
        from stations_generator.app.generate import GENERATE_FILES

        with atomic.output_set(folder, GENERATE_FILES) as out:
            for name, data in files.items():
                out.write_bytes(name, data)
    else:  # the loop of the old _write_outputs: one atomic rename per file
        for name, data in files.items():
            atomic.atomic_write_bytes(folder / name, data)


def recover(folder: Path) -> None:
    """What the next run or reader in the folder does first, where the checkout has it."""
    from stations_generator.formats import atomic

    if hasattr(atomic, "settle"):
        atomic.settle(folder)


CAUGHT = {signal.SIGINT, signal.SIGTERM}


def fork(body) -> int:
    """Fork a child that runs ``body()`` and exits; a signal never escapes into our code."""
    signal.pthread_sigmask(signal.SIG_BLOCK, CAUGHT)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, CAUGHT)
            body()
            code = 0
        except BaseException as exc:  # noqa: BLE001
            code = 5 if "another stations-generator run" in str(exc) else 1
        finally:
            os._exit(code)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, CAUGHT)
    return pid


def signals(sets, work: Path, tries: int, rng: random.Random) -> dict:
    folder = work / "sig"
    durations = []
    for k in range(5):
        prepare(folder, sets["plain" if k % 2 else "full"])
        started = time.perf_counter()
        write_phase(folder, sets["full" if k % 2 else "plain"])
        durations.append(time.perf_counter() - started)
    window = 1.2 * statistics.median(durations)
    result = {"write_phase_median_ms": round(statistics.median(durations) * 1000, 1)}
    for name in ("SIGINT", "SIGTERM", "SIGKILL"):
        number = getattr(signal, name)
        mixed = stale_only = temp_left = 0
        for attempt in range(tries):
            old, new = ("full", "plain") if attempt % 2 else ("plain", "full")
            prepare(folder, sets[old])
            read_end, write_end = os.pipe()

            def body(new=new, write_end=write_end):
                os.write(write_end, b"x")
                write_phase(folder, sets[new])

            pid = fork(body)
            os.close(write_end)
            os.read(read_end, 1)
            os.close(read_end)
            time.sleep(rng.uniform(0, window))
            os.kill(pid, number)
            os.waitpid(pid, 0)
            if number != signal.SIGKILL and leftovers(folder):
                temp_left += 1
            recover(folder)
            outcome = state(folder, sets)
            mixed += outcome in ("mixed", "stale")
            stale_only += outcome == "stale"
        result[name] = {
            "tries": tries,
            "mixed_or_lost": mixed,
            "of_which_complete_but_stale": stale_only,
            "temp_files_left": temp_left,
        }
    return result


def stale(sets, work: Path) -> dict:
    folder = work / "stale"
    shutil.rmtree(folder, ignore_errors=True)
    cli("-q", "generate", ZONE, *OFFLINE, "-o", folder, "--explain", "--map")
    cli("-q", "generate", ZONE, *OFFLINE, "-o", folder, "--min-spacing", "400")
    left = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    return {"files_after": left, "mixed": left != sorted(sets["plain"])}


def concurrent(sets, work: Path, tries: int) -> dict:
    folder = work / "race"
    mixed = said_why = both_ok = 0
    for _ in range(tries):
        prepare(folder, sets["plain"])
        go = time.time() + 0.1
        pids = []
        for name in ("full", "plain"):

            def body(name=name, go=go):
                time.sleep(max(0.0, go - time.time()))
                write_phase(folder, sets[name])

            pids.append(fork(body))
        codes = [os.WEXITSTATUS(os.waitpid(pid, 0)[1]) for pid in pids]
        recover(folder)
        mixed += state(folder, sets) in ("mixed", "stale")
        said_why += codes.count(5)
        both_ok += codes == [0, 0]
    return {"tries": tries, "mixed": mixed, "loser_said_why": said_why, "both_succeeded": both_ok}


DISK_FULL = """
mount -t tmpfs -o size=600k tmpfs "$1" || exit 97
"$2" -m stations_generator -q generate "$3" --osm "$4" --water "$5" -o "$1/out" --min-spacing 400 || exit 98
"$2" -m stations_generator -q generate "$3" --osm "$4" --water "$5" -o "$1/out" --explain --map
echo "exit $?"
ls -A "$1/out"
cat "$1/out/stations.csv" | md5sum
"""


def disk_full(sets, work: Path) -> dict:
    if shutil.which("unshare") is None:
        return {"skipped": "no unshare"}
    mount = work / "tmpfs"
    mount.mkdir(exist_ok=True)
    args = [
        str(mount),
        sys.executable,
        str(ZONE),
        str(SIOUX / "pois.json"),
        str(SIOUX / "water.json"),
    ]
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", DISK_FULL, "sh", *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if done.returncode in (97, 98):
        return {"skipped": done.stderr.strip()[-200:]}
    lines = done.stdout.split("\n")
    listed = sorted(n for n in lines[1:-2] if n)
    import hashlib

    plain_md5 = hashlib.md5(sets["plain"]["stations.csv"]).hexdigest()
    visible = sorted(n for n in listed if not n.startswith("."))
    return {
        "exit": lines[0],
        "error": done.stderr.strip().splitlines()[-1:] if done.stderr.strip() else [],
        "files_after": listed,
        "mixed": visible != sorted(sets["plain"]) or plain_md5 not in lines[-2],
    }


NETWORK = [
    ("overpass", "drip"),
    ("overpass", "retry-after"),
    ("overpass", "504"),
    ("nominatim", "drip"),
    ("nominatim", "retry-after"),
    ("nominatim", "504"),
    ("overpass", "refused"),
    ("nominatim", "refused"),
]


def network(work: Path) -> dict:
    from support.osm_services import PLACE_QUERY, serve

    out: dict = {}
    for service, mode in NETWORK:
        with serve() as running:
            cache = work / f"cache-{service}-{mode}"
            env = {**running.env(cache / "overpass"), "XDG_CACHE_HOME": str(cache)}
            if mode == "refused":
                key = (
                    "STATIONS_GENERATOR_OVERPASS_URL"
                    if service == "overpass"
                    else "STATIONS_GENERATOR_NOMINATIM_URL"
                )
                env[key] = running.refused_url + (
                    "/api/interpreter" if service == "overpass" else ""
                )
            else:
                running.fault(service, mode)
            area = [ZONE] if service == "overpass" else ["--place", PLACE_QUERY]
            code, err, seconds = cli(
                "generate", *area, "-o", work / "net-out", "--overpass-timeout", "5", env=env
            )
            out[f"{service} {mode}"] = {
                "exit": code,
                "seconds": round(seconds, 1),
                "hang": code is None,
                "over_deadline_plus_5": seconds > 10,
                "error": (err.strip().splitlines() or [""])[-1][:160],
            }
    with serve() as running:
        cache = work / "cache-poisoned"
        env = {**running.env(cache / "overpass"), "XDG_CACHE_HOME": str(cache)}
        running.fault("overpass", "poisoned", times=1)
        first = cli("generate", ZONE, "-o", work / "net-out", "--overpass-timeout", "5", env=env)
        second = cli("generate", ZONE, "-o", work / "net-out", "--overpass-timeout", "5", env=env)
        entries = list((cache / "overpass").glob("*.json")) if (cache / "overpass").exists() else []
        out["overpass poisoned, then good"] = {
            "first_exit": first[0],
            "first_error": (first[1].strip().splitlines() or [""])[-1][:160],
            "second_exit": second[0],
            "second_error": (second[1].strip().splitlines() or [""])[-1][:160] if second[0] else "",
            "poisoned_cache_entries": int(second[0] != 0 and bool(entries)),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tries", type=int, default=50)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--only", choices=["files", "network"])
    options = parser.parse_args()
    import stations_generator

    report: dict = {
        "package": str(Path(stations_generator.__file__).parent),
        "load": os.getloadavg(),
    }
    rng = random.Random(9)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if options.only != "network":
            sets = make_sets(work)
            report["signals"] = signals(sets, work, options.tries, rng)
            report["stale"] = stale(sets, work)
            report["concurrent"] = concurrent(sets, work, max(10, options.tries // 5))
            report["disk_full"] = disk_full(sets, work)
        if options.only != "files":
            report["network"] = network(work)
    text = json.dumps(report, indent=2)
    print(text)
    if options.json:
        options.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
