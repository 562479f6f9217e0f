"""Benchmark: start-up of the command line, and which heavy modules each path imports.

Runs, each in a fresh interpreter (the median of N runs, wall clock):

* ``stations-generator --help``;
* ``stations-generator generate zones/liechtenstein.geojson --osm <the bundled extract>``;
* ``import stations_generator; dir(stations_generator)`` (the lazy public API);

and reports whether osmnx (the road-graph library, ~10 s to import on a cold machine)
was imported: it must not be on these paths. Compare a checkout before and after a
change by running this script in each.

    python bench/bench_startup.py [RUNS]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTRACT = ROOT / "tests" / "data" / "osm-extracts" / "liechtenstein-2013-08.osm.pbf"
AREA = ROOT / "zones" / "liechtenstein.geojson"
HEAVY = ("osmnx", "networkx", "geopandas", "folium", "matplotlib", "shapely", "pandas")
PROBE = """
import atexit, sys
argv = sys.argv[1:]
atexit.register(lambda: print("heavy:" + " ".join(m for m in {heavy!r} if m in sys.modules)))
if argv == ["--import"]:
    import stations_generator
    dir(stations_generator)
else:
    # The program as installed (cli.run).
    from stations_generator.cli import run
    sys.argv[0] = "stations-generator"
    run()
"""


# Bytecode caching on, as in an installed package (a machine with
# PYTHONDONTWRITEBYTECODE set would compile every module in every run, ~0.1 s).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(args: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        env=_ENV,
    )
    # The probe's own last line (a command's output may come before it).
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("heavy:")]
    return time.perf_counter() - started, [lines[-1].removeprefix("heavy:")] if lines else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="?", type=int, default=5, help="runs per path (median)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        cases = {
            "--help": ["--help"],
            "generate --osm": ["-q", "generate", str(AREA), "--osm", str(EXTRACT), "-o", tmp],
            "import + dir()": ["--import"],
        }
        print(f"{'path':<16}{'median s':>10}{'min s':>8}  heavy modules imported")
        for name, args in cases.items():
            times, heavy = [], []
            for _ in range(runs):
                seconds, heavy = run(args)
                times.append(seconds)
            modules = heavy[0] if heavy else ""
            flag = "  <- osmnx!" if "osmnx" in modules.split() else ""
            print(
                f"{name:<16}{statistics.median(times):>10.2f}{min(times):>8.2f}  {modules or '-'}{flag}"
            )


if __name__ == "__main__":
    main()
