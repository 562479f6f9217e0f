"""Benchmark: the Helsinki drive graph, and drive times between 100 station pairs.

Builds a station map from the bundled Helsinki extract (real OSM data, closer
spacing than the defaults so the 1.7 km centre has a couple of dozen stations),
then times

* reading the drivable roads with pyosmium and building the osmnx graph with
  travel times (:func:`stations_generator.osm.roads.read_drive_graph`),
* preparing the router (largest strongly connected component, snapping),
* 100 station pairs one by one (one Dijkstra search each), and the same pairs
  grouped by origin (one search per origin, as ``calibrate`` does).

    python bench/bench_drive.py
    python bench/bench_drive.py path/to/extract.osm.pbf path/to/stations.geojson
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELSINKI = ROOT / "tests" / "data" / "osm-extracts" / "helsinki-centre.osm.pbf"
DENSE_OPTIONS = [
    "--min-spacing", "150", "--cluster-gap", "400", "--density-radius", "250",
    "--tiers", "dense:40:5-15,moderate:15:10-30,sparse:0:20-60",
]  # fmt: skip
PAIRS = 100


def helsinki_map(folder: Path) -> Path:
    """Generate the Helsinki station map (play area = the extract's header box)."""
    import osmium
    from click.testing import CliRunner

    from stations_generator.cli import main

    reader = osmium.io.Reader(str(HELSINKI), osmium.osm.osm_entity_bits.NOTHING)
    box = reader.header().box()
    reader.close()
    w, s, e, n = box.bottom_left.lon, box.bottom_left.lat, box.top_right.lon, box.top_right.lat
    area = folder / "helsinki-area.geojson"
    ring = [[w, s], [e, s], [e, n], [w, n], [w, s]]
    area.write_text(json.dumps({"type": "Polygon", "coordinates": [ring]}))
    args = ["-q", "generate", str(area), "--osm", str(HELSINKI), "-o", str(folder), *DENSE_OPTIONS]
    result = CliRunner().invoke(main, args)
    if result.exit_code != 0:
        raise SystemExit(result.output)
    return folder / "stations.geojson"


def timed(label: str, fn):
    start = time.perf_counter()
    value = fn()
    print(f"{label:<44} {time.perf_counter() - start:8.3f} s")
    return value


def main(extract: Path, stations_path: Path | None) -> None:
    import osmnx  # noqa: F401  (imported before timing: its import alone takes ~1 s)

    from stations_generator.core.play.calibration import sample_pairs
    from stations_generator.core.play.drive import RoadDriveTimes
    from stations_generator.formats.stationfile import read_station_map
    from stations_generator.osm.roads import read_drive_graph

    with tempfile.TemporaryDirectory() as tmp:
        path = stations_path or helsinki_map(Path(tmp))
        stations = read_station_map(path).stations
    graph = timed(f"read_drive_graph({extract.name})", lambda: read_drive_graph(extract))
    print(
        f"  graph: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges "
        f"from {graph.graph['ways']} ways ({graph.graph['trimmed_ways']} trimmed at the edge)"
    )
    times = timed(
        "RoadDriveTimes (largest SCC)", lambda: RoadDriveTimes(graph, source=extract.name)
    )
    print(f"  routing on {times.describe()}")
    timed(f"snap {len(stations)} stations", lambda: times.snap_all(stations))
    pairs = sample_pairs(stations, PAIRS, random.Random(0))
    estimates = timed(
        f"{len(pairs)} pairs, one search each", lambda: [times.estimate(a, b) for a, b in pairs]
    )

    def grouped():
        out = []
        origins: dict[str, list] = {}
        for a, b in pairs:
            origins.setdefault(a.id, [a]).append(b)
        for a, *targets in origins.values():
            out.extend(times.from_origin(a, targets))
        return out

    timed(f"{len(pairs)} pairs, one search per origin", grouped)
    road = [e for e in estimates if e.method == "road"]
    minutes = sorted(e.seconds / 60 for e in road)
    print(
        f"  {len(road)} road estimates, {len(estimates) - len(road)} great-circle; drive "
        f"min {minutes[0]:.1f} / median {minutes[len(minutes) // 2]:.1f} / max {minutes[-1]:.1f} min"
    )


if __name__ == "__main__":
    extract = Path(sys.argv[1]) if len(sys.argv) > 1 else HELSINKI
    given = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    if extract != HELSINKI and given is None:
        raise SystemExit("with another extract, also give its stations.geojson")
    main(extract, given)
