"""Benchmark: commands on a country-sized extract, against the time osmium needs to decode it.

The extract is the real Liechtenstein extract tiled N times (default 256: ~18.7 M
objects) by ``tests/support/tiled_osm.py``, written to a temporary folder; the play area
(``zones/liechtenstein.geojson``) lies on copy 0, so the useful work stays that of one
tile while the reading grows with the file. Reported, in one run:

* pyosmium decode-only: nothing handed to Python, without and with node locations;
* the two-pass floor: the reads any pyosmium design of the one-pass read needs
  (relations, or ways and relations; then nodes and ways with node locations), as a
  multiple of decode-only;
* ``read_points`` with the catalogue's C++ prefilter (and, with ``--unfiltered``, the
  old way: every tagged object through the Python predicate);
* each command as a fresh process -- ``generate``, ``report``, ``questions apply`` (a
  5-question game on the extract) -- uncached (empty extract cache), cached (second
  run), and ``extract index``; wall time and peak RSS of each process.

    python bench/bench_extract.py [--tiles 256] [--unfiltered]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

LIECHTENSTEIN = ROOT / "tests" / "data" / "osm-extracts" / "liechtenstein-2013-08.osm.pbf"
ZONE = ROOT / "zones" / "liechtenstein.geojson"
VADUZ = {"lat": 47.141, "lon": 9.521}


def game(folder: Path, extract: Path) -> Path:
    path = folder / "game.json"
    path.write_text(
        json.dumps(
            {
                "format": "stations-generator-game/1",
                "rules": "official",
                "country": "LI",
                "game_size": "M",
                "play_area": str(ZONE),
                "osm": [str(extract)],
                "questions": [
                    {"type": "radius", "seeker": VADUZ, "radius": "5 km", "answer": "within"},
                    {
                        "type": "thermometer",
                        "start": VADUZ,
                        "end": {"lat": 47.165, "lon": 9.509},
                        "distance": "1 km",
                        "answer": "hotter",
                    },
                    {"type": "measuring", "seeker": VADUZ, "subject": "border", "answer": "closer"},
                    {
                        "type": "tentacles",
                        "seeker": VADUZ,
                        "subject": "museum",
                        "radius": "2 km",
                        "answer": "none",
                    },
                    {
                        "type": "matching",
                        "seeker": VADUZ,
                        "subject": "zone",
                        "level": 8,
                        "answer": "same",
                    },
                ],
            }
        )
    )
    return path


def timed_process(args: list[str], env: dict) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one fresh process."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def decode_times(path: Path) -> tuple[float, float]:
    """CPU seconds to decode ``path``: bare, and with node locations (nothing reaches Python)."""
    import osmium
    import osmium.filter

    nothing = osmium.filter.EntityFilter(osmium.osm.NOTHING)
    t = time.process_time()
    for _ in osmium.FileProcessor(str(path)).with_filter(nothing):
        pass
    bare = time.process_time() - t
    t = time.process_time()
    for _ in osmium.FileProcessor(str(path)).with_locations().with_filter(nothing):
        pass
    return bare, time.process_time() - t


def floor_times(path: Path) -> dict[str, float]:
    """CPU seconds of the reads any pyosmium design of the one-pass read needs.

    libosmium assembles multipolygons from relations read before their ways, so the
    file is read twice: relations (here with ways too, to pick the tagged ways the
    assembler builds), then nodes and ways with every node location stored (in the
    index the reader uses). Nothing reaches Python, no tag filter runs.
    """
    import osmium
    import osmium.filter

    from stations_generator.osm.one_pass import IN_MEMORY

    def cpu(types, locations: bool) -> float:
        handlers = []
        if locations:
            index = osmium.index.create_map(IN_MEMORY)
            handlers.append(osmium.NodeLocationsForWays(index))
            handlers[0].ignore_errors()
        handlers.append(osmium.filter.EntityFilter(osmium.osm.NOTHING))
        t = time.process_time()
        with osmium.io.Reader(str(path), types) as reader:
            for _ in osmium.OsmFileIterator(reader, *handlers):
                pass
        return time.process_time() - t

    o = osmium.osm
    return {
        "relations": cpu(o.RELATION, False),
        "ways+relations": cpu(o.WAY | o.RELATION, False),
        "nodes+ways with locations": cpu(o.NODE | o.WAY, True),
    }


def probe(extract: Path, unfiltered: bool) -> None:
    """Print the decode times and the read_points times of ``extract`` (CPU seconds)."""
    from stations_generator.core.catalogue import load_catalogue
    from stations_generator.osm import extracts

    bare, located = decode_times(extract)
    print(f"decode only: {bare:.2f} s CPU; with node locations: {located:.2f} s CPU")
    floor = floor_times(extract)
    print(
        "two-pass floor: "
        + "; ".join(f"{name} {cpu:.2f} s" for name, cpu in floor.items())
        + f" -> {(floor['relations'] + floor['nodes+ways with locations']) / bare:.2f}"
        + f" (relations first) / {(floor['ways+relations'] + floor['nodes+ways with locations']) / bare:.2f}"
        + " (ways+relations first) × decode, before filters, Python and start-up"
    )
    catalogue = load_catalogue()
    t = time.process_time()
    points = extracts.read_points(extract, catalogue.keeps, prefilter=catalogue.prefilter())
    print(f"read_points, C++ prefilter: {time.process_time() - t:.1f} s CPU ({len(points)} points)")
    if unfiltered:
        t = time.process_time()
        extracts.read_points(extract, catalogue.keeps)
        print(f"read_points, Python predicate: {time.process_time() - t:.1f} s CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiles", type=int, default=256)
    parser.add_argument("--unfiltered", action="store_true", help="also time the old read")
    parser.add_argument("--probe", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.probe:
        probe(opts.probe, opts.unfiltered)
        return

    from support.tiled_osm import write_tiles

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        extract = write_tiles(LIECHTENSTEIN, folder / f"li-{opts.tiles}.osm.pbf", opts.tiles)
        size_mb = extract.stat().st_size / 1e6
        print(f"{opts.tiles} tiles: {size_mb:.0f} MB, built in {time.perf_counter() - t:.0f} s")

        # In a child process: a child forked from a parent holding a big read would
        # report the parent's memory as its own peak.
        probed = subprocess.run(
            [sys.executable, __file__, "--probe", str(extract)]
            + (["--unfiltered"] if opts.unfiltered else []),
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        print(probed.stdout, end="")
        bare = float(probed.stdout.split("decode only: ")[1].split()[0])

        cli = [sys.executable, "-c", "from stations_generator.cli import run; run()"]
        cache = folder / "cache"
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "STATIONS_GENERATOR_EXTRACT_CACHE_DIR": str(cache),
        }
        game_file = game(folder, extract)
        commands = {
            "generate": [*cli, "-q", "generate", str(ZONE), "--osm", str(extract)]
            + ["-o", str(folder / "gen")],
            "report": [*cli, "-q", "report", str(ZONE), "--osm", str(extract)]
            + ["-o", str(folder / "report.json")],
            "questions apply": [*cli, "-q", "questions", "apply", str(game_file)]
            + ["-o", str(folder / "qa")],
        }
        rows = []
        for name, args in commands.items():
            for label in ("uncached", "cached"):
                if label == "uncached":
                    for entry in cache.glob("*.npz") if cache.exists() else ():
                        entry.unlink()
                rows.append((name, label, *timed_process(args, env)))
        for entry in cache.glob("*.npz") if cache.exists() else ():
            entry.unlink()
        index = [*cli, "-q", "extract", "index", str(extract)]
        rows.append(("extract index", "uncached", *timed_process(index, env)))
        for name, args in commands.items():
            rows.append((name, "after index", *timed_process(args, env)))

        # Same outputs from the N-tile extract (cached) as from the real extract alone.
        one = [*cli, "-q", "generate", str(ZONE), "--osm", str(LIECHTENSTEIN), "--no-cache"]
        timed_process([*one, "-o", str(folder / "gen1")], env)
        same = all(
            (folder / "gen1" / f).read_bytes() == (folder / "gen" / f).read_bytes()
            for f in ("stations.geojson", "stations.csv", "stations.kml")
        )
        print(f"station map from {opts.tiles} tiles byte-identical to 1 tile: {same}")
        print(
            "\n| command | cache | wall s | CPU s | CPU × decode | peak RSS MB |"
            "\n|---|---|---|---|---|---|"
        )
        for name, label, wall, cpu, rss in rows:
            print(f"| {name} | {label} | {wall:.1f} | {cpu:.1f} | {cpu / bare:.1f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
