"""Benchmark: ``generate --osm`` on a ~75 MB Overpass JSON of 10⁶ nodes, made from real data.

The bundled Liechtenstein and Monaco extracts are converted to Overpass ``[out:json]``
(every node with its tags, every tagged way ``out center``, water ways ``out geom``)
and tiled (copies with shifted ids, the same places) until the file holds 10⁶ nodes —
the shape of the file the reliability issue measured (176 s, 6.7 GB before). Each run
is a whole ``stations-generator generate`` process; its wall time and peak RSS
(``ru_maxrss`` of the child) are printed with the median:

    python bench/bench_overpass_json.py [RUNS] [--nodes N] [--keep FILE]

Run it with PYTHONPATH pointing at the checkout to measure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import osmium

ROOT = Path(__file__).resolve().parent.parent
EXTRACTS = ROOT / "tests" / "data" / "osm-extracts"
SOURCES = ("liechtenstein-2013-08.osm.pbf", "monaco-2016.osm.pbf")
ID_STRIDE = 10**10  # tile k's ids are id + k * ID_STRIDE


class _Collect(osmium.SimpleHandler):
    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[tuple[int, float, float, dict]] = []
        self.ways: list[tuple[int, dict, list[tuple[float, float]]]] = []

    def node(self, n) -> None:
        if n.location.valid():
            self.nodes.append((n.id, n.location.lat, n.location.lon, dict(n.tags)))

    def way(self, w) -> None:
        if len(w.tags) == 0:
            return
        points = [(nd.lat, nd.lon) for nd in w.nodes if nd.location.valid()]
        if points:
            self.ways.append((w.id, dict(w.tags), points))


def _elements(nodes_wanted: int):
    data = []
    for name in SOURCES:
        handler = _Collect()
        handler.apply_file(str(EXTRACTS / name), locations=True)
        data.append(handler)
    total = sum(len(h.nodes) for h in data)
    tiles = -(-nodes_wanted // total)
    written = 0
    for tile in range(tiles):
        shift = tile * ID_STRIDE
        for h in data:
            for nid, lat, lon, tags in h.nodes:
                if written >= nodes_wanted:
                    break
                element = {
                    "type": "node",
                    "id": nid + shift,
                    "lat": round(lat, 7),
                    "lon": round(lon, 7),
                }
                if tags:
                    element["tags"] = tags
                written += 1
                yield element
            for wid, tags, points in h.ways:
                if tags.get("natural") == "water" and points[0] == points[-1]:
                    geometry = [{"lat": lat, "lon": lon} for lat, lon in points]
                    yield {"type": "way", "id": wid + shift, "geometry": geometry, "tags": tags}
                else:
                    lats, lons = zip(*points, strict=True)
                    centre = {
                        "lat": (min(lats) + max(lats)) / 2,
                        "lon": (min(lons) + max(lons)) / 2,
                    }
                    yield {"type": "way", "id": wid + shift, "center": centre, "tags": tags}


def make_file(path: Path, nodes: int) -> None:
    """Write the tiled Overpass JSON (one element a line, as Overpass writes it)."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"version": 0.6, "generator": "bench_overpass_json", "elements": [\n')
        first = True
        for element in _elements(nodes):
            out.write(
                ("" if first else ",\n")
                + json.dumps(element, ensure_ascii=False, separators=(",", ":"))
            )
            first = False
        out.write("\n]}\n")


def _area(folder: Path) -> Path:
    area = folder / "liechtenstein.geojson"
    area.write_text((ROOT / "zones" / "liechtenstein.geojson").read_text(encoding="utf-8"))
    return area


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="Write (or reuse) the JSON file here.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        big = args.keep or folder / "big.json"
        if not big.exists():
            make_file(big, args.nodes)
        print(
            f"input: {big.stat().st_size / 1e6:.1f} MB, {args.nodes} nodes; load {os.getloadavg()}"
        )
        times, peaks = [], []
        for k in range(args.runs):
            cmd = [
                sys.executable, "-m", "stations_generator", "-q", "generate", str(_area(folder)),
                "--osm", str(big), "-o", str(folder / f"run{k}"),
            ]  # fmt: skip
            start = time.perf_counter()
            child = subprocess.Popen(cmd)
            _, status, usage = os.wait4(child.pid, 0)
            times.append(time.perf_counter() - start)
            peaks.append(usage.ru_maxrss / 1024)  # KiB -> MiB
            print(
                f"run {k}: {times[-1]:.1f} s, peak RSS {peaks[-1]:.0f} MiB, exit {os.waitstatus_to_exitcode(status)}"
            )
        print(
            f"median: {statistics.median(times):.1f} s, peak RSS {statistics.median(peaks):.0f} MiB"
        )
        print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
