"""Benchmark: reading country-sized extracts, against osmium's own C++ filter, in bounded memory.

The extract is the real Liechtenstein extract tiled N times by
``tests/support/tiled_osm.py`` (32, 256 and 1024 by default: 15, 120 and 480 MB of PBF,
2.1, 16.8 and 67 M nodes); the play area (``zones/liechtenstein.geojson``) lies on copy 0,
so the useful work stays that of one tile while the reading grows with the file. Give
``--extract-dir`` a folder holding ``li-N.osm.pbf`` files to skip building them.

In ONE run, for each size, each a fresh process (wall and CPU seconds, peak RSS):

* the floor: ``osmium tags-filter`` (osmium-tool, C++) over the same file, writing a PBF,
  with the same tags as the first read asks for -- every layer the extract cache keeps:
  the catalogue's point tags, the area and line layers' tags and the route relations --
  and, for comparison, with the point tags alone;
* the first read alone: ``extract index`` (every cached layer, into an empty cache);
* ``generate`` with an empty extract cache (the first read and the station map), then
  cached;
* the ratios read / tags-filter, first / tags-filter and cached / first, and the growth
  of the first run's peak RSS per tile between sizes (MiB/tile);
* whether the station map is byte-identical to the one from the real extract alone
  (1 tile), cached and uncached.

Targets (issue 41): first ≤ 1.0× tags-filter (same tags) at 32 and 256 tiles, cached
≤ 0.25× first, peak ≤ 1.0 GB at every size, growth < 0.5 MiB/tile. It says which PBF
reader ran (the compiled one where built; ``STATIONS_GENERATOR_PYOSMIUM_READER=1`` runs
the pyosmium reader, for comparison).

    python bench/bench_extract.py [--tiles 32 256 1024] [--extract-dir DIR] [--commands]

``--commands`` adds the older table for the largest size: ``report`` and ``questions
apply`` (a 5-question game) uncached and cached, and ``extract index``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
    """(wall seconds, CPU seconds, peak RSS in MiB) of one fresh process."""
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


def tags_filter_expressions(folder: Path) -> dict[str, Path] | None:
    """``osmium tags-filter -e`` files (None without osmium): ``"same"``, the tags the
    first read asks for (every cached layer's: points, areas, lines, route relations),
    and ``"points"``, the catalogue's point tags alone."""
    from stations_generator.core.catalogue import load_catalogue
    from stations_generator.osm.layers import AREA_LAYERS, LINE_LAYERS

    if shutil.which("osmium") is None:
        return None

    def expressions(prefilters) -> set[str]:
        return {f"{k}={v}" for p in prefilters for k, v in p.pairs} | {
            k for p in prefilters for k in p.keys
        }

    points = expressions([load_catalogue().prefilter()])
    shapes = expressions([spec.prefilter for spec in {**AREA_LAYERS, **LINE_LAYERS}.values()])
    files = {}
    for name, lines in (("same", points | shapes | {"r/type=route"}), ("points", points)):
        files[name] = folder / f"tags-{name}.txt"
        files[name].write_text("\n".join(sorted(lines)) + "\n")
    return files


def extract_for(tiles: int, extract_dir: Path | None, folder: Path) -> Path:
    """``li-N.osm.pbf`` from ``extract_dir``, else built in ``folder``."""
    from support.tiled_osm import write_tiles

    if tiles == 1:
        return LIECHTENSTEIN
    if extract_dir is not None:
        path = extract_dir / f"li-{tiles}.osm.pbf"
        if not path.is_file():
            raise SystemExit(f"{path} is missing; build it with tests/support/tiled_osm.py")
        return path
    t = time.perf_counter()
    path = write_tiles(LIECHTENSTEIN, folder / f"li-{tiles}.osm.pbf", tiles)
    print(f"built {tiles} tiles in {time.perf_counter() - t:.0f} s", flush=True)
    return path


def measure(tiles: int, extract: Path, folder: Path, expressions: dict[str, Path] | None) -> dict:
    """tags-filter, first and cached ``generate`` of one extract; outputs compared to 1 tile."""
    cache = folder / f"cache-{tiles}"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "STATIONS_GENERATOR_EXTRACT_CACHE_DIR": str(cache),
    }
    row: dict = {"tiles": tiles, "mb": extract.stat().st_size / 1e6}
    for name, tags in (expressions or {}).items():
        out = folder / "filtered.osm.pbf"
        args = ["osmium", "tags-filter", "-e", str(tags), str(extract)]
        row[f"floor-{name}"] = timed_process([*args, "-o", str(out), "--overwrite"], env)
        out.unlink(missing_ok=True)
    cli = [sys.executable, "-c", "from stations_generator.cli import run; run()"]
    # The read alone: every layer into an empty cache, as the first generate reads it.
    row["read"] = timed_process([*cli, "-q", "extract", "index", str(extract)], env)
    shutil.rmtree(cache, ignore_errors=True)
    gen = [*cli, "-q", "generate", str(ZONE), "--osm", str(extract)]
    row["first"] = timed_process([*gen, "-o", str(folder / f"first-{tiles}")], env)
    row["cached"] = timed_process([*gen, "-o", str(folder / f"cached-{tiles}")], env)
    shutil.rmtree(cache, ignore_errors=True)
    return row


def same_outputs(folder: Path, tiles: int) -> bool:
    """Whether the first and cached station maps of ``tiles`` equal the 1-tile one."""
    names = ("stations.geojson", "stations.csv", "stations.kml")
    one = {f: (folder / "first-1" / f).read_bytes() for f in names}
    return all(
        (folder / f"{run}-{tiles}" / f).read_bytes() == one[f]
        for run in ("first", "cached")
        for f in names
    )


def print_table(rows: list[dict], folder: Path) -> None:
    """The numbers table (markdown) and the RSS growth per tile."""
    print(
        "\n| tiles | PBF MB | tags-filter s (CPU): same tags / point tags | read s (CPU)"
        " | read / tags-filter (same tags) wall (CPU) | first generate s (CPU)"
        " | first / tags-filter wall (CPU): same tags / point tags | cached s | cached / first"
        " | peak RSS MiB: tags-filter (same tags) / read / first / cached"
        " | same stations as 1 tile |\n|---|---|---|---|---|---|---|---|---|---|---|"
    )
    for r in rows:
        fw, fc, frss = r["first"]
        cw, _, crss = r["cached"]
        floors, ratios = [], []
        for name in ("same", "points"):
            if f"floor-{name}" in r:
                tw, tc, _ = r[f"floor-{name}"]
                floors.append(f"{tw:.1f} ({tc:.1f})")
                ratios.append(f"{fw / tw:.2f} ({fc / tc:.2f})")
        floor = " / ".join(floors) or "-"
        ratio = " / ".join(ratios) or "-"
        trss = r["floor-same"][2] if "floor-same" in r else float("nan")
        rw, rc, rrss = r["read"]
        read_ratio = "-"
        if "floor-same" in r:
            read_ratio = f"{rw / r['floor-same'][0]:.2f} ({rc / r['floor-same'][1]:.2f})"
        print(
            f"| {r['tiles']} | {r['mb']:.0f} | {floor} | {rw:.1f} ({rc:.1f}) | {read_ratio} "
            f"| {fw:.1f} ({fc:.1f}) | {ratio} | {cw:.2f} | {cw / fw:.2f} "
            f"| {trss:.0f} / {rrss:.0f} / {frss:.0f} / {crss:.0f} "
            f"| {same_outputs(folder, r['tiles'])} |"
        )
    print("\nfirst run's peak RSS growth:")
    for a, b in zip(rows, rows[1:], strict=False):
        grow = (b["first"][2] - a["first"][2]) / (b["tiles"] - a["tiles"])
        print(f"  {a['tiles']} -> {b['tiles']} tiles: {grow:.3f} MiB/tile")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiles", type=int, nargs="+", default=[32, 256, 1024])
    parser.add_argument("--extract-dir", type=Path, help="a folder with li-N.osm.pbf")
    parser.add_argument("--commands", action="store_true", help="also the older command table")
    parser.add_argument("--unfiltered", action="store_true", help="with --commands: the old read")
    parser.add_argument("--probe", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.probe:
        probe(opts.probe, opts.unfiltered)
        return
    from stations_generator.cli import pbf_reader_build

    reader = pbf_reader_build()
    if os.environ.get("STATIONS_GENERATOR_PYOSMIUM_READER", "") not in ("", "0"):
        reader = "pyosmium (STATIONS_GENERATOR_PYOSMIUM_READER)"
    print(f"PBF reader: {reader}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        expressions = tags_filter_expressions(folder)
        if expressions is None:
            print("osmium (osmium-tool) is not on PATH: no tags-filter floor")
        one = measure(1, LIECHTENSTEIN, folder, None)
        print(f"1 tile: first {one['first'][0]:.2f} s, {one['first'][2]:.0f} MiB", flush=True)
        rows = []
        for tiles in sorted(opts.tiles):
            extract = extract_for(tiles, opts.extract_dir, folder)
            rows.append(measure(tiles, extract, folder, expressions))
            print(f"{tiles} tiles measured", flush=True)
        print_table(rows, folder)
        if opts.commands:
            command_table(extract, folder, opts.unfiltered)


def command_table(extract: Path, folder: Path, unfiltered: bool) -> None:
    """The older table: decode times, and report / questions / extract index of ``extract``."""
    # In a child process: a child forked from a parent holding a big read would
    # report the parent's memory as its own peak.
    probed = subprocess.run(
        [sys.executable, __file__, "--probe", str(extract)]
        + (["--unfiltered"] if unfiltered else []),
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
        "report": [*cli, "-q", "report", str(ZONE), "--osm", str(extract)]
        + ["-o", str(folder / "report.json")],
        "questions apply": [*cli, "-q", "questions", "apply", str(game_file)]
        + ["-o", str(folder / "qa")],
    }
    rows = []
    for name, args in commands.items():
        for label in ("uncached", "cached"):
            if label == "uncached":
                shutil.rmtree(cache, ignore_errors=True)
            rows.append((name, label, *timed_process(args, env)))
    shutil.rmtree(cache, ignore_errors=True)
    index = [*cli, "-q", "extract", "index", str(extract)]
    rows.append(("extract index", "uncached", *timed_process(index, env)))
    for name, args in commands.items():
        rows.append((name, "after index", *timed_process(args, env)))
    print(
        f"\n{extract.name}\n| command | cache | wall s | CPU s | CPU × decode | peak RSS MiB |"
        "\n|---|---|---|---|---|---|"
    )
    for name, label, wall, cpu, rss in rows:
        print(f"| {name} | {label} | {wall:.1f} | {cpu:.1f} | {cpu / bare:.1f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
