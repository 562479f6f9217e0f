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

``--kinds`` times how long each question of a game takes to apply (built from its
game-file entry on loaded OSM data, then :meth:`Game.eliminate` with it alone, as the
server does on each request): every question of the oracle's cases
(``tests/support/oracle_cases.py``: the bundled extracts, a 330 km mosaic, 69-70° N,
across ±180°), and a border drawn with long straight segments — the 49th parallel
(the US-Canada border from the Strait of Georgia to the Lake of the Woods) given as a
custom measuring line with a node every 2.5° (183 km geodesic segments), measured on
a 590 × 333 km play area north of it and on the same shapes moved across ±180°.
``--base DIR`` runs the same in another copy of the code (``git archive HEAD | tar
-x -C DIR``) in the same run and prints the ratios (median of ``--runs``, alternating):

    python bench/bench_questions.py --kinds --base ../q_base   # from the repository root
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


# --- every question kind, one by one (``--kinds``) ----------------------------------------

# The 49th parallel from the Strait of Georgia (123.32° W) to the Lake of the Woods
# (95.15° W), a node every 2.5°; the play area 8.5° × 3° (590 × 333 km) north of it.
PARALLEL_LAT = 49.0
LONG_AREA = (-101.25, 50.0, -92.75, 53.0)
LONG_SEEKERS = ((-97.0, 52.9), (-97.0, 50.2))
SHIFT_180 = 277.0  # the same shapes moved so the play area straddles ±180°


def _parallel_lons() -> list[float]:
    """The border's nodes: its two ends and every 2.5° between them."""
    lons = [-123.32]
    lon = -122.5
    while lon < -95.15:
        lons.append(lon)
        lon += 2.5
    return [*lons, -95.15]


def _long_cases(shift: float) -> list[tuple[str, object, object]]:
    """(label, play area, build): measuring to the long-segment border, a custom measure
    (as a taibeled custom-measure question is built), moved east by ``shift`` degrees."""
    from shapely.geometry import LineString, box

    from stations_generator.core.geo.antimeridian import wrap_lon
    from stations_generator.core.geo.shapes import AzimuthalFrame
    from stations_generator.core.questions.geometry import MeasuringQuestion

    area = box(LONG_AREA[0] + shift, LONG_AREA[1], LONG_AREA[2] + shift, LONG_AREA[3])
    centre = (area.bounds[0] + area.bounds[2]) / 2
    line = LineString([(wrap_lon(x + shift, centre), PARALLEL_LAT) for x in _parallel_lons()])
    frame = AzimuthalFrame.around(area)
    out = []
    for lon, lat in LONG_SEEKERS:
        seeker = (wrap_lon(lon + shift, centre), lat)
        hider = (wrap_lon(-96.0 + shift, centre), 51.0)
        probe = MeasuringQuestion(seeker, "border", (line,), frame)
        answer = probe.answer_for(*hider)

        def build(seeker=seeker, answer=answer):
            return MeasuringQuestion(seeker, "border", (line,), frame, answer)

        where = "across 180°" if shift else "590 × 333 km"
        out.append(
            (
                f"long-segment border, {where}, seeker {probe.seeker_distance() / 1000:.0f} km",
                area,
                build,
            )
        )
    return out


def _oracle_cases(folder: Path) -> list[tuple[str, object, object]]:
    """(label, play area, build) for every question of the oracle's cases."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support import oracle_cases as oc

    from stations_generator.core.questions.geometry import NOT_WITHIN
    from stations_generator.formats.gamefile import question_from_dict

    words = {
        "radius": ("within", "not within"),
        "thermometer": ("hotter", "colder"),
        "matching": ("same", "different"),
        "measuring": ("closer", "further"),
    }
    out = []
    for case in oc.CASES:
        b = oc.build(case, folder)
        hider = oc._w(b, {"lon": case.hider[0], "lat": case.hider[1]})
        for k, (raw, q) in enumerate(b.questions, 1):
            a = q.answer_for(*hider)
            if raw["type"] == "tentacles":
                text = NOT_WITHIN if a == NOT_WITHIN else a
            else:
                text = words[raw["type"]][0 if a else 1]
            entry = {**raw, "answer": text}

            def build(entry=entry, b=b, k=k):
                return question_from_dict(entry, b.context, [], f"question {k}")

            out.append((f"{case.name}: {q.label()}", b.area, build))
    return out


def kinds_worker() -> None:
    """Print {label: seconds} for every question (run under the code tree timed)."""
    from stations_generator.core.questions.game import Game
    from stations_generator.core.questions.rules import rule_set

    rules = rule_set("official")
    with tempfile.TemporaryDirectory() as tmp:
        cases = _oracle_cases(Path(tmp)) + _long_cases(0.0) + _long_cases(SHIFT_180)
        times = {}
        for label, area, build in cases:
            start = time.perf_counter()
            q = build()
            Game(area, rules, "L", [], [q]).eliminate()
            times[label] = time.perf_counter() - start
    print(json.dumps(times))


def kinds(base: str | None, runs: int) -> None:
    """Each question's time to apply, with the ratio to ``base``'s code if given."""
    import os

    trees = {"now": str(ROOT)} | ({"base": base} if base else {})
    got: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():
            env = dict(os.environ, PYTHONPATH=tree)
            out = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--kinds-worker"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                cwd=tempfile.gettempdir(),
            ).stdout
            got[name].append(json.loads(out.strip().splitlines()[-1]))
    med = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in got.items()}
    head = "| question | now (s) |" + (" base (s) | base / now |" if base else "")
    print(head)
    print("| --- | ---: |" + (" ---: | ---: |" if base else ""))
    for label, t in med["now"].items():
        row = f"| {label} | {t:.3f} |"
        if base:
            b = med["base"][label]
            row += f" {b:.3f} | {b / t:.1f} |"
        print(row)
    worst = max(med["now"].values())
    print(f"\nslowest now: {worst:.2f} s (median of {runs} runs)")


if __name__ == "__main__":
    if "--kinds-worker" in sys.argv:
        kinds_worker()
        sys.exit(0)
    if "--kinds" in sys.argv:
        args = sys.argv[1:]
        base = args[args.index("--base") + 1] if "--base" in args else None
        runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
        kinds(base, runs)
        sys.exit(0)
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
