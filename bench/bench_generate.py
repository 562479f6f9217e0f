"""Benchmark: ``generate`` on the Sioux Falls fixture, whole process, offline.

Runs the installed console script N times (default 5) and prints each wall time
and the median:

    python bench/bench_generate.py [N]
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(runs: int = 5) -> None:
    exe = shutil.which("stations-generator")
    cmd = [exe] if exe else [sys.executable, "-m", "stations_generator"]
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(runs):
            args = [
                *cmd,
                "-q",
                "generate",
                str(ROOT / "zones/sioux-falls.geojson"),
                "--osm",
                str(ROOT / "examples/sioux-falls/pois.json"),
                "--water",
                str(ROOT / "examples/sioux-falls/water.json"),
                "-o",
                str(Path(tmp) / f"run{k}"),
            ]
            start = time.perf_counter()
            subprocess.run(args, check=True)
            times.append(time.perf_counter() - start)
    print("runs (s):", " ".join(f"{t:.2f}" for t in times))
    print(f"median: {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
