"""Benchmark: ``generate`` whole process on the Sioux Falls data tiled to 10k / 50k / 100k candidates.

The real Sioux Falls Overpass elements (``examples/sioux-falls/pois.json``) are copied
onto a grid of tiles (shifted by whole tiles, ids renumbered) until the count is
reached, and written as Overpass JSON with a rectangular play area over all tiles;
``generate`` then runs as a fresh process (``--no-water-subtract``: the tiles carry no
water). Also the peer-sized start-up case: a ~20-candidate clip (a 3 × 3 km square
in the north-west of the city, a Dell Rapids-sized town). Prints wall and CPU time.

    python bench/bench_generate_scale.py [--sizes 10000 50000 100000] [--game-size M]
        [--profile N] [--stages] [--against OTHER_CHECKOUT]

The tiled areas are L-size games (inferred); ``--game-size`` runs other rules on them.

``--against`` runs each case in another
checkout of the project too (e.g. the commit before a change, with its compiled core
built in place), interleaved with this one's runs so that both see the same machine
load, and prints the ratio and whether the two wrote the same bytes.

``--stages`` also prints, per case, CPU and wall seconds of each stage of one fresh
process (imports, play area, reading the OSM JSON, the candidates table, the spacing
runs -- ``core/stationmap/spacing.py``, timed on their own -- the rest of the station
map, rendering the output files and writing them), with the load average.

``generate`` runs in one process, so its wall time is about its CPU time on an idle
machine. Forked children (half of the OSM file read in one; the density counts, the
search and the KML in others) were measured with this bench and removed: on an idle
two-core machine only the split read saved anything, 16-19 % of a 100k L-size run and
under 10 % of a 100k M-size one, while with M-size rules the children took 70 % more
CPU and lost time whenever the second core was busy. The one process then lost 16 %
(50k) and 33 % (100k) of wall time to the forked code; single-process work won it
back (an ordinary Overpass file checked, filtered and turned into records in one
loop; the candidates table built column by column; fewer objects for the collector;
the play-area test on coordinates; cache-sized close-pair batches; the KML and
GeoJSON text joined once): best of several runs on a lightly loaded machine, a 100k
run took 2.74 s CPU (2.77 s wall) against 3.40 s before, and a 50k run 1.53 s against
1.74 s, both within 10 % of the forked code's wall time (2.66 s and 1.71 s idle).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POIS = ROOT / "examples" / "sioux-falls" / "pois.json"
SMALL_BOX = (-96.79, 43.575, -96.75, 43.605)  # 21 candidates


def _lonlat(e: dict) -> tuple[float, float]:
    c = e.get("center") or e
    return c["lon"], c["lat"]


def _moved(e: dict, dx: float, dy: float, k: int) -> dict:
    e = dict(e, id=e["id"] + k * 10**11)
    if "center" in e:
        e["center"] = {"lat": e["center"]["lat"] + dy, "lon": e["center"]["lon"] + dx}
    else:
        e["lat"], e["lon"] = e["lat"] + dy, e["lon"] + dx
    return e


def _box_polygon(path: Path, box: tuple[float, float, float, float]) -> Path:
    w, s, e, n = box
    ring = [[w, s], [e, s], [e, n], [w, n], [w, s]]
    path.write_text(
        json.dumps(
            {
                "type": "FeatureCollection",
                "features": [
                    {
                        "type": "Feature",
                        "properties": {},
                        "geometry": {"type": "Polygon", "coordinates": [ring]},
                    }
                ],
            }
        )
    )
    return path


def write_case(folder: Path, n: int) -> tuple[Path, Path]:
    """(play area, Overpass JSON) with ``n`` elements tiled from Sioux Falls."""
    base = json.loads(POIS.read_text())
    xs, ys = zip(*map(_lonlat, base), strict=True)
    dx, dy = (max(xs) - min(xs)) * 1.05, (max(ys) - min(ys)) * 1.05
    side = math.ceil(math.sqrt(n / len(base)))
    out: list[dict] = []
    k = 0
    while len(out) < n:
        i, j = divmod(k, side)
        out.extend(_moved(e, i * dx, j * dy, k) for e in base)
        k += 1
    out = out[:n]
    pxs, pys = zip(*map(_lonlat, out), strict=True)
    area = _box_polygon(
        folder / f"area-{n}.geojson",
        (min(pxs) - 0.01, min(pys) - 0.01, max(pxs) + 0.01, max(pys) + 0.01),
    )
    data = folder / f"pois-{n}.json"
    data.write_text(json.dumps(out))
    return area, data


def write_small(folder: Path) -> tuple[Path, Path]:
    w, s, e, n = SMALL_BOX
    kept = [
        x
        for x in json.loads(POIS.read_text())
        if w <= _lonlat(x)[0] <= e and s <= _lonlat(x)[1] <= n
    ]
    data = folder / "pois-small.json"
    data.write_text(json.dumps(kept))
    return _box_polygon(folder / "area-small.geojson", SMALL_BOX), data


def child_env(root: Path | None = None) -> dict[str, str]:
    """The environment of a timed run: this checkout (or ``root``) first, and bytecode
    caching on.

    A machine with ``PYTHONDONTWRITEBYTECODE`` set compiles every module of the
    package again in every process (~0.1 s); an installed package has its ``.pyc``
    files, so the runs (best of N) measure what a user's process does.
    """
    env = {**os.environ, "PYTHONPATH": str(root or ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run(
    area: Path,
    data: Path,
    out: Path,
    profile: Path | None = None,
    extra: Sequence[str] = (),
    root: Path | None = None,
) -> tuple[float, float, float]:
    """Wall and CPU seconds and peak memory (MB) of one ``generate`` process (of the
    checkout at ``root``; default this one)."""
    # The program as installed (the console script's cli.run); under cProfile, main(),
    # so that the profile is written at exit.
    code = "from stations_generator.cli import run; run()"
    args = [sys.executable, "-c", code]
    if profile is not None:
        script = out.parent / "run_cli.py"
        script.write_text("from stations_generator.cli import main; main()\n")
        args = [sys.executable, "-m", "cProfile", "-o", str(profile), str(script)]
    args += ["-q", "generate", str(area), "--osm", str(data), "--no-water-subtract", "-o", str(out)]
    args += extra
    env = child_env(root)
    started = time.perf_counter()
    # (run in the data's folder: ``python -c`` puts the working directory first on the
    # path, so a run started in a checkout would import that checkout's package)
    proc = subprocess.Popen(args, env=env, cwd=area.parent)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"generate failed on {data.name}")
    cpu = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - started, cpu, usage.ru_maxrss / 1024


_STAGES = r"""
import sys, time, json
clock = lambda: (time.process_time(), time.perf_counter())
t0 = clock()
times = {}
def add(name, start):
    now = clock()
    cpu, wall = times.get(name, (0.0, 0.0))
    times[name] = (cpu + now[0] - start[0], wall + now[1] - start[1])
from stations_generator.app import generate as g
from stations_generator.core.stationmap import build as sm
from stations_generator.cli import main
add("imports", t0)
def timed(module, attr, name):
    fn = getattr(module, attr)
    def wrapper(*a, **k):
        start = clock()
        try:
            return fn(*a, **k)
        finally:
            add(name, start)
    setattr(module, attr, wrapper)
timed(g, "read_area", "play area")
timed(g, "load_data", "read OSM JSON")
timed(g, "candidate_table", "candidates table")
timed(sm, "select_stations", "spacing runs (core/stationmap/spacing.py)")
timed(g, "build", "station map (all of step 3)")
timed(g, "output_files", "output files rendered")
from stations_generator.formats import atomic
timed(atomic.OutputSet, "write_bytes", "write files (and fsync)")
try:
    main(standalone_mode=False)
finally:
    add("whole process (after interpreter start)", t0)
    print("STAGES " + json.dumps(times))
"""


def stages(
    area: Path, data: Path, out: Path, extra: Sequence[str] = ()
) -> dict[str, tuple[float, float]]:
    """CPU and wall seconds of each stage of one ``generate`` process."""
    args = [sys.executable, "-c", _STAGES, "-q", "generate", str(area), "--osm", str(data)]
    args += ["--no-water-subtract", "-o", str(out), *extra]
    env = child_env()
    text = subprocess.run(
        args, env=env, cwd=area.parent, check=True, capture_output=True, text=True
    ).stdout
    line = next(x for x in text.splitlines() if x.startswith("STAGES "))
    return json.loads(line[len("STAGES ") :])


_OUTPUTS = ("stations.geojson", "stations.csv", "stations.kml")


def _time_case(
    label: str,
    area: Path,
    data: Path,
    folder: Path,
    variants: list[tuple[str, Path | None]],
    runs: int,
    extra: Sequence[str],
) -> None:
    """Print the best wall and CPU seconds of each variant (name, checkout)
    of one case, their runs interleaved; against another checkout, the ratio of the
    walls and whether the files are the same."""
    times: dict[str, list[tuple[float, float, float]]] = {v[0]: [] for v in variants}
    outputs: dict[str, Path] = {}
    for r in range(runs):  # (the variants interleaved: the same machine load)
        for k, (name, root) in enumerate(variants):
            out = outputs[name] = folder / f"out-{label}-{r}-{k}"
            times[name].append(run(area, data, out, extra=extra, root=root))
    for name, got in times.items():
        wall, cpu = min(t[0] for t in got), min(t[1] for t in got)
        peak = f" {max(t[2] for t in got):.0f} MB |" if len(variants) > 1 else ""
        print(f"| {label}{name} | {wall:.2f} | {cpu:.2f} |{peak}")
    (this, _), (other, root) = variants[0], variants[-1]
    if root is not None:
        ratio = min(t[0] for t in times[this]) / min(t[0] for t in times[other])
        same = all(
            (outputs[this] / f).read_bytes() == (outputs[other] / f).read_bytes() for f in _OUTPUTS
        )
        print(f"| {label}: this / {root.name} wall | {ratio:.3f} | same files: {same} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 50_000, 100_000])
    parser.add_argument("--runs", type=int, default=3, help="runs per case (best is shown)")
    parser.add_argument("--profile", type=int, help="write a cProfile of this size to ./")
    parser.add_argument("--stages", action="store_true", help="per-stage CPU/wall times")
    parser.add_argument("--game-size", choices=["S", "M", "L"], help="rules [default: inferred]")
    parser.add_argument("--against", type=Path, help="another checkout, timed alongside")
    opts = parser.parse_args()
    extra = ["--game-size", opts.game_size] if opts.game_size else []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = [("small (21)", *write_small(folder))]
        cases += [(f"{n}", *write_case(folder, n)) for n in opts.sizes]
        from stations_generator.cli import spacing_core_build

        core = spacing_core_build()
        print(f"spacing core: {core}\n| candidates | best wall s | best CPU s |\n|---|---|---|")
        variants: list[tuple[str, Path | None]] = [("", None)]
        if opts.against:
            variants.append((f" ({opts.against.name})", opts.against.resolve()))
        for label, area, data in cases:
            _time_case(label, area, data, folder, variants, opts.runs, extra)
        if opts.stages:
            for label, area, data in cases:
                load = os.getloadavg()[0]
                print(f"\n{label}: stage | CPU s | wall s  (load {load:.2f})")
                for name, (cpu, wall) in stages(
                    area, data, folder / f"stages-{label}", extra
                ).items():
                    print(f"  {name} | {cpu:.2f} | {wall:.2f}")
        if opts.profile:
            area, data = write_case(folder, opts.profile)
            target = Path(f"generate-{opts.profile}.prof").resolve()
            run(area, data, folder / "out-profile", target, extra)
            print(f"profile: {target} (python -m pstats {target})")


if __name__ == "__main__":
    main()
