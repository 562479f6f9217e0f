"""Benchmark: 20 mixed questions + possible zones, whole process, at 500 / 5 000 / 50 000 stations;
and measuring against a long real line (≥ 10 000 vertices).

Stations and question subjects are the Sioux Falls fixture's real OSM POIs, tiled
over a larger area (copies shifted by whole tiles) to reach each station count; the
play area is the tiles' bounding box. Each size runs ``stations-generator questions
apply`` as a fresh process on a game file written to a temporary folder.

The long line is the real Monaco coastline and railways from the OSRM test extract,
densified geodesically every 5 m to pass 10 000 vertices (the shape is real, the
vertex count is what costs).

    python bench/bench_questions.py
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def tiles_for(n_stations: int, base_count: int) -> int:
    return max(1, math.ceil(n_stations / base_count))


def write_game(folder: Path, n_stations: int) -> Path:
    import numpy as np
    from bench_spacing import tiled_candidates

    cands = tiled_candidates(n_stations)
    minx, miny, maxx, maxy = cands.total_bounds
    area = {
        "type": "Polygon",
        "coordinates": [[[minx, miny], [maxx, miny], [maxx, maxy], [minx, maxy], [minx, miny]]],
    }
    stations = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {
                    "role": "station",
                    "id": r.id,
                    "name": r.name,
                    "category": r.category,
                    # The station-map reader requires wait ranges (the sparse tier's).
                    "wait_min": 20,
                    "wait_max": 60,
                },
                "geometry": {"type": "Point", "coordinates": [r.geometry.x, r.geometry.y]},
            }
            for r in cands.itertuples()
        ],
    }
    (folder / "stations.geojson").write_text(json.dumps(stations))
    # Subjects: the same tiled POIs with their real tags, as Overpass JSON.
    raw = json.loads((ROOT / "examples/sioux-falls/pois.json").read_text())
    by_id = {f"{e['type']}/{e['id']}": e for e in raw}
    elements = []
    for r in cands.itertuples():
        base_id = f"{r.osm_type}/{r.osm_id % 10**11}"
        e = by_id.get(base_id)
        if e is not None:
            elements.append(
                {
                    "type": "node",
                    "id": int(r.osm_id),
                    "lat": r.geometry.y,
                    "lon": r.geometry.x,
                    "tags": e.get("tags", {}),
                }
            )
    (folder / "pois.json").write_text(json.dumps({"elements": elements}))
    cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
    rng = np.random.default_rng(5)

    def pt():
        return {"lat": float(rng.uniform(miny, maxy)), "lon": float(rng.uniform(minx, maxx))}

    def near(p, metres):
        return {"lat": p["lat"] + metres / 111_000, "lon": p["lon"]}

    questions = []
    for r in ("5 km", "10 km", "15 km", "40 km", "2 km", "1 km"):
        questions.append({"type": "radius", "seeker": pt(), "radius": r})
    for d in (400, 1000, 5000, 15000):
        s = pt()
        questions.append({"type": "thermometer", "start": s, "end": near(s, d * 1.01)})
    for subject in ("museum", "park", "mcdonalds"):
        questions.append({"type": "matching", "seeker": pt(), "subject": subject})
    questions.append(
        {
            "type": "tentacles",
            "seeker": {"lat": cy, "lon": cx},
            "subject": "museum",
            "radius": "2 km",
        }
    )
    questions.append({"type": "tentacles", "seeker": pt(), "subject": "park", "radius": "5 km"})
    for subject in ("museum", "park", "mcdonalds", "park"):
        questions.append({"type": "measuring", "seeker": pt(), "subject": subject})
    questions.append({"type": "matching", "seeker": pt(), "subject": "station-letter"})
    assert len(questions) == 20
    game = {
        "format": "stations-generator-game/1",
        "rules": "official",
        "game_size": "L",
        "play_area": area,
        "osm": ["pois.json"],
        "stations": "stations.geojson",
        "questions": questions,
    }
    path = folder / "game.json"
    path.write_text(json.dumps(game))
    # Answer every question as a hider in the middle would.
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "stations_generator",
            "questions",
            "answer",
            str(path),
            "--hider",
            f"{cy},{cx}",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    words = {
        "radius": ("within", "not within"),
        "thermometer": ("hotter", "colder"),
        "matching": ("same", "different"),
        "measuring": ("closer", "further"),
    }
    for q, row in zip(questions, json.loads(out), strict=True):
        q["answer"] = (
            row["value"] if q["type"] == "tentacles" else words[q["type"]][0 if row["value"] else 1]
        )
    path.write_text(json.dumps(game))
    return path


def time_apply(game: Path, runs: int = 3) -> list[float]:
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


def long_line() -> None:
    import shapely
    from shapely.geometry import box

    from stations_generator.core.geo.shapes import AzimuthalFrame, densify_line
    from stations_generator.core.questions.geometry import MeasuringQuestion
    from stations_generator.osm.extracts import read_lines

    lines = read_lines(
        ROOT / "tests/data/osm-extracts/monaco-2016.osm.pbf",
        lambda t: t.get("natural") == "coastline" or t.get("railway") == "rail",
    )
    dense = [densify_line(g, 5.0) for _, _, g in lines]
    vertices = sum(len(g.coords) for g in dense)
    area = box(7.38, 43.70, 7.47, 43.77)
    frame = AzimuthalFrame.around(area)
    q = MeasuringQuestion((7.4200, 43.7380), "coastline", tuple(dense), frame, True)
    start = time.perf_counter()
    kept = q.kept(area)
    answer = q.answer_for(7.43, 43.74)
    elapsed = time.perf_counter() - start
    print(
        json.dumps(
            {
                "long_line_vertices": vertices,
                "measuring_s": round(elapsed, 3),
                "kept_km2": round(shapely.area(kept) * 111 * 81, 3),
                "answer_ok": answer in (True, False),
            }
        )
    )


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [500, 5000, 50000]
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            game = write_game(Path(tmp), n)
            times = time_apply(game)
            print(
                json.dumps(
                    {
                        "stations": n,
                        "questions": 20,
                        "runs_s": [round(t, 2) for t in times],
                        "median_s": round(statistics.median(times), 2),
                    }
                )
            )
    long_line()
