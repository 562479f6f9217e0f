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
"""

from __future__ import annotations

import argparse
import json
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


def build(folder: Path) -> Path:
    """The tiled extract, its hiding stations and the answered game file, in ``folder``."""
    from shapely.geometry import box, mapping
    from support.shifted_osm import write_copies

    from stations_generator.osm.extracts import read_points

    osm = write_copies(folder / "country.osm.pbf", COPIES)
    stops = read_points(
        osm, lambda t: t.get("highway") == "bus_stop" or t.get("railway") in ("station", "halt")
    )
    features = [
        {
            "type": "Feature",
            "properties": {
                "role": "station",
                "id": e.key,
                "name": e.tags.get("name", ""),
                "category": "train_station" if e.tags.get("railway") else "bus_stop",
                # A station map carries its wait range (the sparse tier's, 20-60 min).
                "wait_min": 20,
                "wait_max": 60,
            },
            "geometry": {"type": "Point", "coordinates": [e.lon, e.lat]},
        }
        for e in stops
    ]
    (folder / "stations.geojson").write_text(
        json.dumps({"type": "FeatureCollection", "features": features})
    )
    game = {
        "format": "stations-generator-game/1",
        "rules": "official",
        "game_size": "L",
        "play_area": mapping(box(*AREA)),
        "osm": [osm.name],
        "stations": "stations.geojson",
        "questions": QUESTIONS,
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
    for raw, (_, answer) in zip(QUESTIONS, g.hider_answers(*HIDER), strict=True):
        raw["answer"] = (
            answer if raw["type"] == "tentacles" else words[raw["type"]][0 if answer else 1]
        )
    path.write_text(json.dumps(game))
    return path


def whole_process(game: Path, runs: int) -> list[float]:
    times = []
    for k in range(runs):
        start = time.perf_counter()
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
    return times


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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        game = build(Path(tmp))
        built_s = time.perf_counter() - t
        # The extract cache of this run: empty, so the first run reads the extract.
        import os

        os.environ["STATIONS_GENERATOR_EXTRACT_CACHE_DIR"] = str(Path(tmp) / "extract-cache")
        times = whole_process(game, args.runs)
        parts = breakdown(game)
        out = {
            "play_area_km": "330 x 200",
            "questions": len(QUESTIONS),
            "build_s": round(built_s, 1),
            "whole_process_runs_s (first: empty extract cache)": [round(x, 2) for x in times],
            "whole_process_median_s": round(statistics.median(times), 2),
            **parts,
        }
        print(json.dumps(out, indent=1))
