"""Benchmark: a Large game over a country-sized area — 20 questions, thousands of hiding zones.

The country is real data tiled: 36 copies of the Liechtenstein extract in a 12 × 3
mosaic (its municipalities, country borders, museums, hospitals, zoos, mountains,
railway stations and bus stops) and the Monaco coastline copied along its south, over a
330 × 200 km play area (``tests/support/shifted_osm.py`` writes the copies; the same layout as
the oracle's ``large`` case). The hiding zones are every railway station and bus stop:
over 11,000. The 20 questions measure against the coastline and every country border,
match admin zones (level 8 and first letter), use tentacles at 25 km, radii up to
160 km and 75 km thermometers; their answers are a hider's in the middle of the area.

It runs ``stations-generator questions apply`` on the game file twice:

* as a fresh process (the whole-process wall time, target ≤ 10 s), and
* in-process with the OSM readers timed, so the time spent reading the extract (the
  country-scale extract work of issue 11, not this pipeline) is reported apart from
  the question pipeline, which is broken down per question.

    python bench/bench_large_game.py [--runs 3]

``--tiled EXTRACT --tiles N`` plays the same kind of game over an extract that
``tests/support/tiled_osm.py`` wrote: N copies of the Liechtenstein extract, 0.4° apart,
row by row (e.g. N = 1024: a 32 × 32 grid over 12.8° × 12.8°, ~480 MB of PBF). The
play area is a block of 4 × 3 of those tiles near the middle of the grid (~110 × 130 km
at the middle's latitude), its hiding zones every railway station and bus stop of the
block (the copies' own ids), and the 20 questions are the ones above moved onto the
block, with the body of water in place of the coastline (the copies have none). The
hider's answers are worked out with a cache of their own, so the first timed run
starts from an empty extract cache and reads the whole extract; the later runs
(fresh processes) read the cache.

    python tests/support/tiled_osm.py \
        tests/data/osm-extracts/liechtenstein-2013-08.osm.pbf li-1024.osm.pbf 1024
    python bench/bench_large_game.py --tiled li-1024.osm.pbf --tiles 1024 [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

EXTRACTS = ROOT / "tests" / "data" / "osm-extracts"
LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
MONACO = EXTRACTS / "monaco-2016.osm.pbf"
COPIES = [(LIECHTENSTEIN, 0.35 * i, 0.55 * j) for j in range(3) for i in range(12)] + [
    (MONACO, dlon, 3.1) for dlon in (2.5, 4.0, 5.5)
]
AREA = (9.40, 46.95, 13.75, 48.75)
HIDER = (11.72, 47.66)
VADUZ = (9.5209, 47.1410)


def _pt(lon, lat):
    return {"lat": lat, "lon": lon}


QUESTIONS = [
    {"type": "radius", "seeker": _pt(11.0, 47.8), "radius": "160 km"},
    {"type": "thermometer", "start": _pt(10.8, 47.4), "end": _pt(11.75, 47.6), "distance": "75 km"},
    {"type": "measuring", "seeker": _pt(11.6, 47.85), "subject": "coastline"},
    {"type": "matching", "seeker": _pt(11.9, 47.9), "subject": "hospital"},
    {"type": "radius", "seeker": _pt(11.3, 47.5), "radius": "80 km"},
    {"type": "measuring", "seeker": _pt(11.81, 48.35), "subject": "border"},
    {"type": "tentacles", "seeker": _pt(11.6, 47.7), "subject": "zoo", "radius": "25 km"},
    {
        "type": "matching",
        "seeker": _pt(VADUZ[0] + 0.35 * 6, VADUZ[1] + 0.55),
        "subject": "zone",
        "level": 8,
    },
    {"type": "thermometer", "start": _pt(11.5, 47.9), "end": _pt(11.6, 47.78), "distance": "15 km"},
    {"type": "measuring", "seeker": _pt(12.1, 47.7), "subject": "mountain"},
    {
        "type": "matching",
        "seeker": _pt(9.5061 + 0.35 * 6, 47.1747),
        "subject": "zone-letter",
        "level": 8,
    },
    {"type": "radius", "seeker": _pt(11.7, 47.7), "radius": "40 km"},
    {"type": "tentacles", "seeker": _pt(11.7, 47.6), "subject": "museum", "radius": "25 km"},
    {"type": "measuring", "seeker": _pt(11.4, 47.65), "subject": "border"},
    {"type": "matching", "seeker": _pt(11.6, 47.7), "subject": "museum"},
    {
        "type": "thermometer",
        "start": _pt(11.65, 47.7),
        "end": _pt(11.72, 47.66),
        "distance": "5 km",
    },
    {"type": "measuring", "seeker": _pt(11.9, 47.6), "subject": "coastline"},
    {"type": "radius", "seeker": _pt(11.7, 47.65), "radius": "15 km"},
    {"type": "matching", "seeker": _pt(11.7, 47.66), "subject": "station-letter"},
    {"type": "measuring", "seeker": _pt(11.75, 47.7), "subject": "museum"},
]


def _station(key: str, tags: dict, lon: float, lat: float) -> dict:
    return {
        "type": "Feature",
        "properties": {
            "role": "station",
            "id": key,
            "name": tags.get("name", ""),
            "category": "train_station" if tags.get("railway") else "bus_stop",
            # A station map carries its wait range (the sparse tier's, 20-60 min).
            "wait_min": 20,
            "wait_max": 60,
        },
        "geometry": {"type": "Point", "coordinates": [lon, lat]},
    }


def build(folder: Path) -> Path:
    """The tiled extract, its hiding stations and the answered game file, in ``folder``."""
    from shapely.geometry import box
    from support.shifted_osm import write_copies

    from stations_generator.osm.extracts import read_points

    osm = write_copies(folder / "country.osm.pbf", COPIES)
    stops = read_points(
        osm, lambda t: t.get("highway") == "bus_stop" or t.get("railway") in ("station", "halt")
    )
    features = [_station(e.key, e.tags, e.lon, e.lat) for e in stops]
    return _write_game(folder, features, box(*AREA), Path(osm.name), QUESTIONS, HIDER)


def _write_game(
    folder: Path, features: list[dict], area, osm: Path, questions: list[dict], hider
) -> Path:
    """Write the stations and the game file with the hider's answers; the game's path."""
    from shapely.geometry import mapping

    (folder / "stations.geojson").write_text(
        json.dumps({"type": "FeatureCollection", "features": features})
    )
    game = {
        "format": "stations-generator-game/1",
        "rules": "official",
        "game_size": "L",
        "play_area": mapping(area),
        "osm": [str(osm)],
        "stations": "stations.geojson",
        "questions": questions,
    }
    path = folder / "game.json"
    path.write_text(json.dumps(game))
    from stations_generator.app.game_loader import load_game

    g = load_game(path).game
    words = {
        "radius": ("within", "not within"),
        "thermometer": ("hotter", "colder"),
        "matching": ("same", "different"),
        "measuring": ("closer", "further"),
    }
    for raw, (_, answer) in zip(questions, g.hider_answers(*hider), strict=True):
        raw["answer"] = (
            answer if raw["type"] == "tentacles" else words[raw["type"]][0 if answer else 1]
        )
    path.write_text(json.dumps(game))
    return path


# The tiled game (--tiled): a block of BLOCK tiles, its questions placed in the frame of
# the block's first tile (copy 0's Liechtenstein), moved with it.
BLOCK = (4, 3)  # tiles across, tiles down: ~110 x 130 km at 53° N
SCHAAN = (9.5061, 47.1747)
TILED_HIDER = (VADUZ[0] + 0.4, VADUZ[1] + 0.4)  # Vaduz of the block's tile (1, 1)


def _tiled_questions() -> list[dict]:
    """The 20 questions in the first tile's frame (the caller moves them). The
    thermometers run north: a degree of latitude is as long at any tile's latitude, so
    each is longer than its distance wherever the block is."""
    return [
        {"type": "radius", "seeker": _pt(10.3, 47.6), "radius": "160 km"},
        {"type": "thermometer", "start": _pt(9.7, 47.05), "end": _pt(9.9, 47.72), "distance": "75 km"},
        {"type": "measuring", "seeker": _pt(9.9, 47.5), "subject": "body_of_water"},
        {"type": "matching", "seeker": _pt(10.2, 47.7), "subject": "hospital"},
        {"type": "radius", "seeker": _pt(9.9, 47.3), "radius": "80 km"},
        {"type": "measuring", "seeker": _pt(10.4, 48.0), "subject": "border"},
        {"type": "tentacles", "seeker": _pt(10.1, 47.5), "subject": "zoo", "radius": "25 km"},
        {"type": "matching", "seeker": _pt(VADUZ[0] + 0.8, VADUZ[1] + 0.4), "subject": "zone", "level": 8},
        {"type": "thermometer", "start": _pt(10.0, 47.72), "end": _pt(10.0, 47.58), "distance": "15 km"},
        {"type": "measuring", "seeker": _pt(10.3, 47.45), "subject": "mountain"},
        {"type": "matching", "seeker": _pt(SCHAAN[0] + 0.8, SCHAAN[1]), "subject": "zone-letter", "level": 8},
        {"type": "radius", "seeker": _pt(9.95, 47.55), "radius": "40 km"},
        {"type": "tentacles", "seeker": _pt(9.95, 47.45), "subject": "museum", "radius": "25 km"},
        {"type": "measuring", "seeker": _pt(9.75, 47.4), "subject": "border"},
        {"type": "matching", "seeker": _pt(9.9, 47.5), "subject": "museum"},
        {"type": "thermometer", "start": _pt(9.92, 47.59), "end": _pt(9.92, 47.54), "distance": "5 km"},
        {"type": "measuring", "seeker": _pt(10.05, 47.45), "subject": "body_of_water"},
        {"type": "radius", "seeker": _pt(9.92, 47.54), "radius": "15 km"},
        {"type": "matching", "seeker": _pt(9.92, 47.54), "subject": "station-letter"},
        {"type": "measuring", "seeker": _pt(9.95, 47.58), "subject": "museum"},
    ]  # fmt: skip


def _moved(value, dlon: float, dlat: float):
    """``value`` (a question, or a part of one) with every point moved by (dlon, dlat)."""
    if isinstance(value, dict):
        if set(value) == {"lat", "lon"}:
            return _pt(value["lon"] + dlon, value["lat"] + dlat)
        return {k: _moved(v, dlon, dlat) for k, v in value.items()}
    return value


def _block(tiles: int) -> tuple[list[int], float, float]:
    """The copies in the play area's block and the (dlon, dlat) of its first tile."""
    from support.tiled_osm import shifts

    side = math.ceil(math.sqrt(tiles))
    rows = tiles // side  # full rows only
    if side < BLOCK[0] or rows < BLOCK[1]:
        raise SystemExit(f"--tiles: {tiles} tiles leave no block of {BLOCK[0]} x {BLOCK[1]}")
    col, row = side // 2 - BLOCK[0] // 2, rows // 2 - BLOCK[1] // 2
    copies = [(row + j) * side + col + i for j in range(BLOCK[1]) for i in range(BLOCK[0])]
    dlon, dlat = shifts(tiles)[copies[0]]
    return copies, dlon, dlat


def _tiled_stops(tiles: int, copies: list[int]) -> list[dict]:
    """The railway stations and bus stops of ``copies``, as the tiled extract holds them
    (copy k: every id + k x the tiler's stride, moved by its shift), read from copy 0."""
    from support.tiled_osm import load, shifts

    from stations_generator.osm.extracts import read_points

    stops = read_points(
        LIECHTENSTEIN,
        lambda t: t.get("highway") == "bus_stop" or t.get("railway") in ("station", "halt"),
    )
    stride, moves = load(LIECHTENSTEIN).stride, shifts(tiles)
    return [
        _station(f"{e.osm_type}/{e.osm_id + k * stride}", e.tags, e.lon + moves[k][0], e.lat + moves[k][1])
        for k in copies
        for e in stops
    ]  # fmt: skip


def build_tiled(folder: Path, osm: Path, tiles: int) -> Path:
    """The answered game file of the tiled extract ``osm`` (``tiles`` copies), in ``folder``."""
    from shapely.geometry import box

    copies, dlon, dlat = _block(tiles)
    w, s = 9.40 + dlon, 46.99 + dlat
    area = box(w, s, w + 0.4 * BLOCK[0], s + 0.4 * BLOCK[1])
    questions = [_moved(q, dlon, dlat) for q in _tiled_questions()]
    hider = (TILED_HIDER[0] + dlon, TILED_HIDER[1] + dlat)
    return _write_game(folder, _tiled_stops(tiles, copies), area, osm.resolve(), questions, hider)


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def whole_process(game: Path, runs: int) -> tuple[list[float], list[float]]:
    """Each run's wall time and CPU time (user + system: steadier on a shared machine)."""
    times, cpu = [], []
    for k in range(runs):
        start, start_cpu = time.perf_counter(), _children_cpu_s()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "stations_generator",
                "-q",
                "questions",
                "apply",
                str(game),
                "-o",
                str(game.parent / f"out{k}"),
            ],
            check=True,
        )
        times.append(time.perf_counter() - start)
        cpu.append(_children_cpu_s() - start_cpu)
    return times, cpu


def breakdown(game: Path) -> dict:
    """The same command in-process: OSM read time apart, then each question's time."""
    from stations_generator.osm import extracts, layers

    read = {"s": 0.0, "calls": 0}
    # Layers come through the extract cache (layers._cached: a cache load, or one
    # read of every layer on a miss); station filters and routes read the extract.
    for module, name in [
        (extracts, n) for n in ("read_points", "read_areas", "read_lines", "read_water")
    ] + [(layers, "_cached"), (layers, "routes")]:
        real = getattr(module, name)

        def timed(*a, _real=real, **k):
            t = time.perf_counter()
            try:
                return _real(*a, **k)
            finally:
                read["s"] += time.perf_counter() - t
                read["calls"] += 1

        setattr(module, name, timed)
    from stations_generator.app.game_loader import load_game
    from stations_generator.commands.questions import elimination_geojson, zones_geojson
    from stations_generator.core.questions.geometry import AreaQuestion
    from stations_generator.formats.geojson import dumps_geojson

    t0 = time.perf_counter()
    g = load_game(game).game
    t1 = time.perf_counter()
    per_question = []
    remaining = g.play_area
    import shapely

    from stations_generator.core.geo.shapes import polygonal

    for q in g.questions:
        t = time.perf_counter()
        if isinstance(q, AreaQuestion):
            remaining = polygonal(shapely.make_valid(q.kept(remaining)))
        per_question.append(
            (q.label(), round(time.perf_counter() - t, 3), len(shapely.get_coordinates(remaining)))
        )
    t2 = time.perf_counter()
    elimination = g.eliminate()
    t3 = time.perf_counter()
    zones = g.possible_zones(elimination)
    t4 = time.perf_counter()
    text = dumps_geojson(elimination_geojson(g, elimination)) + dumps_geojson(
        zones_geojson(g, zones)
    )
    t5 = time.perf_counter()
    return {
        "stations": len(g.stations),
        "possible_zones": sum(z.possible for z in zones),
        "remaining_km2": round(elimination.remaining_km2, 3),
        "read_osm_s": round(read["s"], 2),
        "read_calls": read["calls"],
        "load_without_reads_s": round(t1 - t0 - read["s"], 2),
        "eliminate_s": round(t3 - t2, 2),
        "possible_zones_s": round(t4 - t3, 2),
        "write_geojson_s": round(t5 - t4, 2),
        "output_bytes": len(text),
        "questions_s_first_fold": per_question,
        "fold_timed_s": round(t2 - t1, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tiled", type=Path, help="an extract tests/support/tiled_osm.py wrote")
    parser.add_argument("--tiles", type=int, help="how many copies it holds (with --tiled)")
    args = parser.parse_args()
    if (args.tiled is None) != (args.tiles is None):
        parser.error("--tiled and --tiles go together")
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        # The hider's answers read the extract with a cache of their own (not the
        # user's): the timed runs' cache below starts empty.
        os.environ["STATIONS_GENERATOR_EXTRACT_CACHE_DIR"] = str(Path(tmp) / "build-cache")
        if args.tiled is not None:
            game = build_tiled(Path(tmp), args.tiled, args.tiles)
            side = math.ceil(math.sqrt(args.tiles))
            size = f"{BLOCK[0]} x {BLOCK[1]} tiles of {side} x {math.ceil(args.tiles / side)}"
        else:
            game, size = build(Path(tmp)), "330 x 200 km"
        built_s = time.perf_counter() - t
        # The extract cache of this run: empty, so the first run reads the extract.
        os.environ["STATIONS_GENERATOR_EXTRACT_CACHE_DIR"] = str(Path(tmp) / "extract-cache")
        times, cpu = whole_process(game, args.runs)
        parts = breakdown(game)
        out = {
            "play_area": size,
            "questions": len(QUESTIONS),
            "build_s": round(built_s, 1),
            "whole_process_runs_s (first: empty extract cache)": [round(x, 2) for x in times],
            "whole_process_median_s": round(statistics.median(times), 2),
            "whole_process_cpu_s (first: empty extract cache)": [round(x, 2) for x in cpu],
            **parts,
        }
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
