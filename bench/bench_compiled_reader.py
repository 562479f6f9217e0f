"""Benchmark: what a compiled reader would gain over the project's extract read.

``bench/compiled_reader/reader.cpp`` is a measurement prototype (not used by the
package): the three reads of ``stations_generator/osm/one_pass.py`` (every layer the
extract cache keeps: the catalogue's points, the area and line layers, the transit
route relations) written in C++ over libosmium, in several modes (see its header:
``m3`` mirrors one_pass.py; ``n3``, ``r3``, ``b1`` decode less; ``d2`` uses osmium's
own location index over every node, for comparison).

The extracts are the real Liechtenstein extract tiled N times by
``tests/support/tiled_osm.py``, as in ``bench/bench_extract.py`` (32, 256 and 1024 by
default). For each size, ``--rounds`` interleaved rounds (so that a change in the
machine's load hits every reader alike), each run a fresh process (wall and CPU
seconds, peak RSS):

* the floor: ``osmium tags-filter`` (osmium-tool, C++) over the same file, writing a
  PBF, with the same tags as the read asks for (``bench_extract``'s "same" expressions);
* the prototype in each of ``--modes``;
* the project's own read: ``stations-generator -q extract index FILE`` (run as
  ``bench_extract`` runs it) into an empty extract cache (its "read" column).

It prints a markdown table, one row per size and reader: the walls of the rounds, the
best wall, the CPU of that run, the largest peak RSS, best wall / floor's best wall and
least CPU / floor's least CPU; then each size's counts (points, routes, areas, lines,
which the reader prints on stdout), exiting 1 if any mode or round found others.

Target: none (a measurement kept for the record); a prototype mode far under 1.0x the
floor says a compiled reader would beat ``osmium tags-filter`` itself.

    python bench/bench_compiled_reader.py [--tiles 32 256 1024] [--rounds 3]
        [--modes m3 n3 r3 b1 d2 (or s3)] [--extract-dir DIR]

``--extract-dir`` names a folder holding ``li-N.osm.pbf`` files (else they are built,
as ``bench_extract`` does). Needs ``g++`` and the libosmium headers (Debian/Ubuntu:
``apt-get install libosmium2-dev libprotozero-dev zlib1g-dev libbz2-dev libexpat1-dev
g++``), and ``osmium`` (osmium-tool) on PATH; the reader is built into a temporary
folder with ``g++ -O2 -std=c++17`` (libosmium 2.19 does not compile as C++20).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_extract import ROOT, extract_for, tags_filter_expressions, timed_process  # noqa: E402

SOURCE = ROOT / "bench" / "compiled_reader" / "reader.cpp"
PACKAGES = "libosmium2-dev libprotozero-dev zlib1g-dev libbz2-dev libexpat1-dev g++"
# The headers reader.cpp needs from each package above (libosmium 2.19 is C++17 only).
HEADERS = ("osmium/osm.hpp", "protozero/pbf_reader.hpp", "zlib.h", "bzlib.h", "expat.h")
CXX = ["g++", "-O2", "-std=c++17"]
LIBS = ["-lz", "-lbz2", "-lexpat", "-pthread"]
# reader.cpp's modes that print the counts (its bare-* modes only decode).
MODES = ("m3", "n3", "r3", "b1", "d2", "s3")
DEFAULT_MODES = ["m3", "n3", "r3", "b1", "d2"]


def check_tools() -> None:
    """Exit 2 with one line naming what to install when g++, the headers or osmium lack."""
    install = f"install them: apt-get install {PACKAGES}"
    if shutil.which("g++") is None:
        fail(f"g++ is not on PATH; {install}")
    probe = "".join(f"#include <{h}>\n" for h in HEADERS)
    done = subprocess.run(
        [*CXX, "-fsyntax-only", "-x", "c++", "-"], input=probe, capture_output=True, text=True
    )
    if done.returncode != 0:
        fail(f"the libosmium headers (or zlib, bzip2, expat) are missing; {install}")
    if shutil.which("osmium") is None:
        fail("osmium is not on PATH (the floor); install it: apt-get install osmium-tool")


def fail(message: str) -> None:
    """Print ``message`` on one line and exit 2 (a missing tool, not a failed measurement)."""
    print(message, file=sys.stderr)
    sys.exit(2)


def build(folder: Path) -> Path:
    """``reader.cpp`` compiled into ``folder``."""
    binary = folder / "reader"
    done = subprocess.run(
        [*CXX, "-o", str(binary), str(SOURCE), *LIBS], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"building {SOURCE.name} failed:\n{done.stderr[-3000:]}")
    return binary


def layers_lines() -> list[str]:
    """The reader's LAYERS file: ``class key value [route-kind]``, one line per tag.

    The catalogue's point prefilter pairs (sorted), each area and line layer's prefilter
    pairs (in layer order, pairs sorted) and one ``route type route KIND`` per transit
    route kind; the reader's classes: point, area:NAME, line:NAME, route.
    """
    from stations_generator.core.catalogue import load_catalogue
    from stations_generator.osm.layers import AREA_LAYERS, LINE_LAYERS
    from stations_generator.osm.routes import TRANSIT_ROUTES

    prefilters = [("point", load_catalogue().prefilter())]
    prefilters += [(f"area:{name}", spec.prefilter) for name, spec in AREA_LAYERS.items()]
    prefilters += [(f"line:{name}", spec.prefilter) for name, spec in LINE_LAYERS.items()]
    lines = []
    for cls, prefilter in prefilters:
        if prefilter.keys:
            # The reader matches exact key=value pairs only.
            raise SystemExit(f"{cls} prefilter has key-only tags {sorted(prefilter.keys)}")
        for key, value in sorted(prefilter.pairs):
            if any(c.isspace() for c in key + value):
                raise SystemExit(f"{cls} tag {key}={value} has a space the reader cannot read")
            lines.append(f"{cls} {key} {value}")
    lines += [f"route type route {kind}" for kind in TRANSIT_ROUTES]
    return lines


def with_stdout(args: list[str], out: Path) -> list[str]:
    """``args`` run with stdout into ``out`` (``sh`` ``exec``-s it: one process is timed)."""
    return ["sh", "-c", 'exec "$@" > "$0"', str(out), *args]


def one_round(
    extract: Path, folder: Path, binary: Path, modes: list[str], tags: Path
) -> dict[str, tuple[tuple[float, float, float], str]]:
    """One interleaved round: the floor, each mode, the project's read.

    Each reader's (wall s, CPU s, peak RSS MiB) and its stdout (the counts; empty but for
    the modes).
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cache = folder / "extract-cache"
    runs: dict[str, tuple[tuple[float, float, float], str]] = {}
    filtered = folder / "filtered.osm.pbf"
    floor = ["osmium", "tags-filter", "-e", str(tags), str(extract), "-o", str(filtered)]
    runs["floor"] = (timed_process([*floor, "--overwrite"], env), "")
    filtered.unlink(missing_ok=True)
    counts = folder / "counts.txt"
    for mode in modes:
        args = with_stdout([str(binary), mode, str(folder / "layers.txt"), str(extract)], counts)
        runs[mode] = (timed_process(args, env), counts.read_text())
    shutil.rmtree(cache, ignore_errors=True)
    read_env = {**env, "STATIONS_GENERATOR_EXTRACT_CACHE_DIR": str(cache)}
    cli = [sys.executable, "-c", "from stations_generator.cli import run; run()"]
    runs["project read"] = (
        timed_process([*cli, "-q", "extract", "index", str(extract)], read_env),
        "",
    )
    shutil.rmtree(cache, ignore_errors=True)
    return runs


def print_table(results: dict[int, list[dict]], names: list[str]) -> None:
    """The markdown table: per size and reader, over its rounds."""
    rounds = max(len(r) for r in results.values())
    print(
        f"\n| tiles | reader | wall s of the {rounds} rounds | best wall s | CPU s of best"
        " | peak RSS MiB (max) | wall / floor | min CPU / floor min CPU |"
        "\n|---|---|---|---|---|---|---|---|"
    )
    for tiles, runs in sorted(results.items()):
        floor_wall = min(r["floor"][0][0] for r in runs)
        floor_cpu = min(r["floor"][0][1] for r in runs)
        for name in names:
            times = [r[name][0] for r in runs]
            best = min(times)
            walls = " / ".join(f"{wall:.2f}" for wall, _, _ in times)
            print(
                f"| {tiles} | {name} | {walls} | {best[0]:.2f} | {best[1]:.2f}"
                f" | {max(rss for _, _, rss in times):.0f} | {best[0] / floor_wall:.2f}"
                f" | {min(cpu for _, cpu, _ in times) / floor_cpu:.2f} |"
            )


def results_of(stdout: str) -> str:
    """The reader's counts of what it found (its "tracked ways, needed nodes" line is left
    out: bookkeeping that differs by design in ``d2``, which locates through osmium's index)."""
    return "\n".join(line for line in stdout.splitlines() if not line.startswith("tracked ways"))


def same_counts(results: dict[int, list[dict]], modes: list[str]) -> bool:
    """Print each size's counts; whether every mode in every round printed the same."""
    same = True
    for tiles, runs in sorted(results.items()):
        outputs = {results_of(r[mode][1]) for r in runs for mode in modes}
        agree = len(outputs) == 1 and bool(next(iter(outputs)).strip())
        same = same and agree
        print(f"\n{tiles} tiles: {'every mode found' if agree else 'the modes DIFFER:'}")
        for text in sorted(outputs):
            print("    " + text.strip().replace("\n", "\n    "))
    return same


def write_inputs(folder: Path, tiles: list[int], extract_dir: Path | None) -> None:
    """In ``folder``: ``layers.txt``, the tags-filter expressions and ``extracts.json``
    (each size's extract, built there when ``extract_dir`` lacks it)."""
    (folder / "layers.txt").write_text("\n".join(layers_lines()) + "\n")
    tags_filter_expressions(folder)
    paths = {n: str(extract_for(n, extract_dir, folder)) for n in tiles}
    (folder / "extracts.json").write_text(json.dumps(paths))


def prepare(folder: Path, tiles: list[int], extract_dir: Path | None) -> dict[int, Path]:
    """:func:`write_inputs` in a child process; each size's extract.

    The bench itself imports nothing of the project: a child started by vfork from a
    parent reports the parent's peak RSS as its own floor, so a bigger parent would
    raise the smaller readers' peaks.
    """
    args = [sys.executable, __file__, "--write-inputs", str(folder), "--tiles", *map(str, tiles)]
    if extract_dir is not None:
        args += ["--extract-dir", str(extract_dir)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(args, check=True, env=env)
    paths = json.loads((folder / "extracts.json").read_text())
    return {int(n): Path(path) for n, path in paths.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tiles", type=int, nargs="+", default=[32, 256, 1024])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", nargs="+", choices=MODES, default=DEFAULT_MODES)
    parser.add_argument("--extract-dir", type=Path, help="a folder with li-N.osm.pbf")
    parser.add_argument("--write-inputs", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.write_inputs:
        write_inputs(opts.write_inputs, opts.tiles, opts.extract_dir)
        return
    if opts.rounds < 1:
        parser.error("--rounds must be >= 1")
    check_tools()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        binary = build(folder)
        extracts = prepare(folder, sorted(opts.tiles), opts.extract_dir)
        results: dict[int, list[dict]] = {}
        for tiles, extract in sorted(extracts.items()):
            results[tiles] = []
            for n in range(opts.rounds):
                results[tiles].append(
                    one_round(extract, folder, binary, opts.modes, folder / "tags-same.txt")
                )
                print(f"{tiles} tiles: round {n + 1} of {opts.rounds} done", flush=True)
        print_table(results, ["floor", *opts.modes, "project read"])
        if not same_counts(results, opts.modes):
            sys.exit(1)


if __name__ == "__main__":
    main()
