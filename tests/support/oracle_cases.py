"""The oracle's cases: real OSM data, bundled or moved to where games get hard.

* ``helsinki``, ``liechtenstein``, ``monaco`` — the bundled extracts as they are.
* ``large`` — 330 × 200 km: 39 copies of Liechtenstein in a mosaic (its places,
  municipalities and country border), the Monaco coastline copied south of it.
* ``polar`` — 310 × 155 km at 69–70.4° N: copies of Helsinki centre, three inside
  and three 70–110 km outside, so the nearest "major city" of the northern half of
  the area lies outside it (the old 50 km margin got that wrong).
* ``antimeridian`` — 230 × 130 km across ±180° near Fiji, given split at 180° as
  RFC 7946 asks: Liechtenstein, Helsinki and Monaco copies on both sides, the
  Monaco coastline cut at 180° as OSM cuts such lines.

Run ``python tests/support/oracle_cases.py`` for the mismatch table (cases × types × answers).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import box, mapping

# Run as a script (``python tests/support/oracle_cases.py``) the tests folder is not on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support import question_oracle as oracle  # noqa: E402
from support import shifted_osm  # noqa: E402
from support.paths import EXTRACTS, REPO  # noqa: E402

HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"
LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
MONACO = EXTRACTS / "monaco-2016.osm.pbf"
POINTS = 5000
TOLERANCE_M = 1.0  # the bound: no miss farther than this from the true boundary
LINE_SUBJECTS = ("coastline", "border", "body_of_water", "high_speed_rail")


def _pt(lon, lat):
    return {"lat": lat, "lon": lon}


@dataclass
class Case:
    name: str
    area: dict  # GeoJSON, as a user gives it
    osm: list  # paths, or (copies spec) for write_copies
    questions: list[dict]
    hider: tuple[float, float]
    seed: int = 1
    slow: bool = False


def _box(minx, miny, maxx, maxy) -> dict:
    return mapping(box(minx, miny, maxx, maxy))


def _split_box(west, south, east, north) -> dict:
    """A box across 180° as RFC 7946 writes it: two polygons meeting at ±180°."""
    return mapping(
        shapely.MultiPolygon(
            [box(west, south, 180.0, north), box(-180.0, south, east - 360.0, north)]
        )
    )


H0 = (24.944, 60.171)  # Helsinki centre: where its copies are anchored


def _helsinki_at(lon, lat):
    return (HELSINKI, lon - H0[0], lat - H0[1])


CASES = [
    Case(
        "helsinki",
        _box(24.9360, 60.1648, 24.9520, 60.1782),
        [HELSINKI],
        [
            {"type": "radius", "seeker": _pt(24.94146, 60.17132), "radius": 600},
            {"type": "thermometer", "start": _pt(24.94146, 60.17132), "end": _pt(24.946, 60.168)},
            {
                "type": "tentacles",
                "seeker": _pt(24.946, 60.168),
                "subject": "museum",
                "radius": 550,
            },
            {"type": "matching", "seeker": _pt(24.946, 60.168), "subject": "library"},
            {"type": "matching", "seeker": _pt(24.940, 60.175), "subject": "museum"},
            {"type": "measuring", "seeker": _pt(24.946, 60.168), "subject": "museum"},
            {"type": "measuring", "seeker": _pt(24.940, 60.170), "subject": "coastline"},
            {"type": "measuring", "seeker": _pt(24.945, 60.176), "subject": "body_of_water"},
        ],
        (24.9490, 60.1665),
    ),
    Case(
        "liechtenstein",
        None,  # the country's own boundary, from zones/liechtenstein.geojson
        [LIECHTENSTEIN],
        [
            {"type": "radius", "seeker": _pt(9.5209, 47.1410), "radius": "5 km"},
            {"type": "thermometer", "start": _pt(9.5209, 47.1410), "end": _pt(9.55, 47.18)},
            {"type": "matching", "seeker": _pt(9.5209, 47.1410), "subject": "zone", "level": 8},
            {
                "type": "matching",
                "seeker": _pt(9.5061, 47.1747),
                "subject": "zone-letter",
                "level": 8,
            },
            {"type": "matching", "seeker": _pt(9.55, 47.10), "subject": "mountain"},
            {"type": "measuring", "seeker": _pt(9.5209, 47.1410), "subject": "border"},
            {"type": "measuring", "seeker": _pt(9.56, 47.20), "subject": "mountain"},
            {
                "type": "tentacles",
                "seeker": _pt(9.5209, 47.1410),
                "subject": "museum",
                "radius": "2 km",
            },
        ],
        (9.53, 47.16),
        seed=2,
    ),
    Case(
        "monaco",
        _box(7.405, 43.725, 7.440, 43.752),
        [MONACO],
        [
            {"type": "measuring", "seeker": _pt(7.4200, 43.7380), "subject": "coastline"},
            {"type": "measuring", "seeker": _pt(7.4300, 43.7450), "subject": "body_of_water"},
            {"type": "matching", "seeker": _pt(7.4200, 43.7380), "subject": "park"},
            {"type": "measuring", "seeker": _pt(7.4150, 43.7300), "subject": "hospital"},
        ],
        (7.425, 43.74),
        seed=3,
    ),
    Case(
        "large",
        _box(9.40, 46.95, 13.75, 48.75),
        [(LIECHTENSTEIN, 0.35 * i, 0.55 * j) for j in range(3) for i in range(12)]
        + [(LIECHTENSTEIN, -0.8, 0.55 * j) for j in range(3)]
        + [(MONACO, dlon, 3.1) for dlon in (2.5, 4.0, 5.5)],
        [
            {"type": "radius", "seeker": _pt(11.0, 47.8), "radius": "80 km"},
            {"type": "radius", "seeker": _pt(12.5, 48.2), "radius": "160 km"},
            {
                "type": "thermometer",
                "start": _pt(10.5, 47.5),
                "end": _pt(11.45, 47.7),
                "distance": "75 km",
            },
            {"type": "tentacles", "seeker": _pt(11.3, 47.7), "subject": "zoo", "radius": "25 km"},
            {"type": "matching", "seeker": _pt(12.0, 48.0), "subject": "museum"},
            {"type": "matching", "seeker": _pt(10.2, 47.3), "subject": "hospital"},
            {
                "type": "matching",
                "seeker": _pt(9.5209 + 0.35 * 5, 47.1410 + 0.55),
                "subject": "zone",
                "level": 8,
            },
            {"type": "measuring", "seeker": _pt(11.81, 48.35), "subject": "border"},
            {"type": "measuring", "seeker": _pt(11.6, 47.85), "subject": "coastline"},
            {"type": "measuring", "seeker": _pt(12.2, 47.6), "subject": "mountain"},
        ],
        (11.7, 47.72),
        seed=4,
        slow=True,
    ),
    Case(
        "polar",
        _box(20.0, 69.0, 28.0, 70.4),
        [_helsinki_at(lon, lat) for lon, lat in ((21.0, 69.25), (24.0, 69.25), (27.0, 69.25))]
        + [_helsinki_at(lon, lat) for lon, lat in ((22.5, 71.0), (25.5, 71.0), (30.0, 69.8))],
        [
            {"type": "matching", "seeker": _pt(24.0, 70.3), "subject": "major_city"},
            {"type": "measuring", "seeker": _pt(26.0, 69.9), "subject": "major_city"},
            {
                "type": "thermometer",
                "start": _pt(23.0, 69.6),
                "end": _pt(24.95, 69.6),
                "distance": "75 km",
            },
            {"type": "radius", "seeker": _pt(25.0, 69.5), "radius": "40 km"},
            {"type": "matching", "seeker": _pt(21.5, 69.8), "subject": "museum"},
            {"type": "measuring", "seeker": _pt(26.5, 70.0), "subject": "coastline"},
            {
                "type": "tentacles",
                "seeker": _pt(24.05, 69.3),
                "subject": "museum",
                "radius": "25 km",
            },
        ],
        (24.3, 69.9),
        seed=5,
        slow=True,
    ),
    Case(
        "antimeridian",
        _split_box(178.9, -17.6, 181.1, -16.4),
        [
            (LIECHTENSTEIN, 179.3 - 9.57, -17.2 - 47.16),
            (LIECHTENSTEIN, 180.7 - 9.57, -16.8 - 47.16),
            (MONACO, 180.0 - 7.42, -16.9 - 43.74, True),
            _helsinki_at(179.7, -16.6),
            _helsinki_at(180.4, -17.4),
        ],
        [
            {"type": "radius", "seeker": _pt(-179.85, -17.0), "radius": "40 km"},
            {"type": "thermometer", "start": _pt(179.6, -17.0), "end": _pt(-179.7, -17.0)},
            {
                "type": "tentacles",
                "seeker": _pt(179.9, -16.7),
                "subject": "museum",
                "radius": "25 km",
            },
            {"type": "matching", "seeker": _pt(-179.5, -17.3), "subject": "museum"},
            {"type": "measuring", "seeker": _pt(179.3, -16.6), "subject": "coastline"},
            {"type": "measuring", "seeker": _pt(-179.7, -17.1), "subject": "border"},
            {
                "type": "matching",
                "seeker": _pt(9.5209 + 169.73, 47.1410 - 64.36),
                "subject": "zone",
                "level": 8,
            },
            {"type": "measuring", "seeker": _pt(-179.0, -16.8), "subject": "mountain"},
        ],
        (179.95, -16.95),
        seed=6,
        slow=True,
    ),
]
BY_NAME = {c.name: c for c in CASES}


# --- building a case ----------------------------------------------------------------


@dataclass
class Built:
    case: Case
    area: object  # the library's play area (continuous)
    centre: float
    context: object
    questions: list  # (raw, library question)
    points: np.ndarray  # (n, 2) in the area's window
    data: dict = field(default_factory=dict)  # oracle data, read on demand


def _files(case: Case, folder: Path) -> list[Path]:
    if all(isinstance(f, Path) for f in case.osm):
        return list(case.osm)
    out = folder / f"{case.name}.osm.pbf"
    if not out.exists():
        shifted_osm.write_copies(out, case.osm)
    return [out]


def _wrap_geometry(geom, centre: float):
    return shapely.transform(
        geom, lambda c: np.column_stack([(c[:, 0] - centre + 180) % 360 - 180 + centre, c[:, 1]])
    )


def build(case: Case, folder: Path) -> Built:
    from stations_generator.app.map_context import OsmContext
    from stations_generator.core.geo.antimeridian import join_antimeridian
    from stations_generator.formats.gamefile import question_from_dict
    from stations_generator.formats.playarea import load_polygons, parse_polygons

    if case.area is None:
        area = load_polygons(REPO / "zones" / f"{case.name}.geojson")
    else:  # as load_game reads it: split at ±180° by the reader, then joined
        area = join_antimeridian(parse_polygons(case.area, case.name))
    files = _files(case, folder)
    minx, _, maxx, _ = area.bounds
    centre = (minx + maxx) / 2
    context = OsmContext(area, files)
    questions = [
        (q, question_from_dict(q, context, [], f"{case.name} question {k}"))
        for k, q in enumerate(case.questions, 1)
    ]
    points = oracle.sample_points(area, POINTS, case.seed)
    return Built(case, area, centre, context, questions, points, {"files": files})


# --- the oracle's own reading of the data (no bbox, no margins) ------------------------


def _subject_places(b: Built, subject: str) -> oracle.Places:
    key = ("places", subject)
    if key not in b.data:
        from stations_generator import load_catalogue
        from stations_generator.osm.extracts import read_points

        cat = load_catalogue()
        if "elements" not in b.data:
            b.data["elements"] = [e for f in b.data["files"] for e in read_points(f, cat.keeps)]
        els = [
            e
            for e in b.data["elements"]
            if any(subject in c.subjects for c in cat.matching(e.tags))
        ]
        lons = np.array([(e.lon - b.centre + 180) % 360 - 180 + b.centre for e in els])
        b.data[key] = oracle.Places([e.key for e in els], lons, [e.lat for e in els])
    return b.data[key]


def _zones(b: Built, level: int):
    key = ("zones", level)
    if key not in b.data:
        from stations_generator.osm.extracts import read_areas

        found = [
            (zid, tags.get("name", ""), _wrap_geometry(g, b.centre))
            for f in b.data["files"]
            for zid, tags, g in read_areas(
                f,
                lambda t: (
                    t.get("boundary") == "administrative"
                    and t.get("admin_level") == str(level)
                    and "name" in t
                ),
            )
        ]
        b.data[key] = found
    return b.data[key]


def _lines(b: Built, subject: str) -> oracle.Lines:
    key = ("lines", subject)
    if key not in b.data:
        from stations_generator.osm.extracts import read_lines, read_water

        if subject == "coastline":
            geoms = [
                g
                for f in b.data["files"]
                for _, _, g in read_lines(f, lambda t: t.get("natural") == "coastline")
            ]
        elif subject == "border":
            geoms = [z[2].boundary for z in _zones(b, 2)]
        else:
            geoms = [g for f in b.data["files"] for g in read_water(f)]
        b.data[key] = oracle.Lines([_wrap_geometry(g, b.centre) for g in geoms])
    return b.data[key]


def _first_letter(name: str) -> str:
    return next((ch for ch in name.casefold() if ch.isalpha()), "")


def _w(b: Built, p: dict) -> tuple[float, float]:
    return ((p["lon"] - b.centre + 180) % 360 - 180 + b.centre, p["lat"])


def answers(b: Built, raw: dict, q) -> list:
    """Every answer to check: both for yes/no questions, each candidate and "not within" for tentacles."""
    from stations_generator.core.questions.geometry import NOT_WITHIN

    if raw["type"] == "tentacles":
        places = _subject_places(b, raw["subject"])
        from stations_generator.formats.gamefile import parse_distance

        s = _w(b, raw["seeker"])
        _, _, d = oracle.inv(s[0], s[1], places.lons, places.lats)
        ids = {places.ids[i] for i in np.flatnonzero(d <= parse_distance(raw["radius"]))}
        return sorted(ids | {p.id for p in q.candidates()}) + [NOT_WITHIN]
    return [True, False]


def truth(b: Built, raw: dict, answer, lons, lats) -> oracle.Truth:
    """What the oracle says for ``answer`` at the points."""
    from stations_generator.core.questions.geometry import NOT_WITHIN
    from stations_generator.formats.gamefile import parse_distance

    kind = raw["type"]
    if kind == "radius":
        return oracle.radius(
            _w(b, raw["seeker"]), parse_distance(raw["radius"]), lons, lats, answer
        )
    if kind == "thermometer":
        return oracle.thermometer(_w(b, raw["start"]), _w(b, raw["end"]), lons, lats, answer)
    subject = raw["subject"]
    seeker = _w(b, raw["seeker"])
    if kind == "tentacles":
        places = _subject_places(b, subject)
        return oracle.tentacles(
            places,
            seeker,
            parse_distance(raw["radius"]),
            lons,
            lats,
            None if answer == NOT_WITHIN else answer,
        )
    if kind == "matching" and subject in ("zone", "zone-letter"):
        zones = _zones(b, raw["level"])
        (mine,) = oracle.zone_of(zones, np.array([seeker[0]]), np.array([seeker[1]]))
        names = {z[0]: z[1] for z in zones}
        if subject == "zone":
            ids = {mine}
        else:
            ids = {z for z, n in names.items() if _first_letter(n) == _first_letter(names[mine])}
        key = ("zone-lines", raw["level"])

        def boundary():
            if key not in b.data:
                b.data[key] = oracle.Lines([z[2].boundary for z in zones])
            return b.data[key]

        return oracle.zones_same(zones, ids, lons, lats, answer, boundary)
    if kind == "matching":
        return oracle.nearest_same(_subject_places(b, subject), seeker, lons, lats, answer)
    if subject in LINE_SUBJECTS:
        return oracle.measuring(None, _lines(b, subject), seeker, lons, lats, answer)
    return oracle.measuring(_subject_places(b, subject), None, seeker, lons, lats, answer)


def area_margin(b: Built, idx) -> np.ndarray:
    """Distance (m) of points to the play area's own boundary."""
    if "area-lines" not in b.data:
        b.data["area-lines"] = oracle.Lines([b.area.boundary])
    return b.data["area-lines"].distance(b.points[idx, 0], b.points[idx, 1])


@dataclass
class Row:
    case: str
    question: str
    answer: str
    points: int
    kept: int
    misses: int  # polygon (remaining area) verdicts that differ from the oracle
    far_misses: int  # ... of which more than TOLERANCE_M from the true boundary
    worst_m: float  # the largest distance to the true boundary among the misses
    hider_misses: int  # hider-mode answers that differ (ties within 1 mm excepted)
    seconds: float


def check(b: Built) -> list[Row]:
    """The oracle against the library: every question and answer of a case."""
    rows = []
    lons, lats = b.points[:, 0], b.points[:, 1]
    shapely.prepare(b.area)
    for raw, q in b.questions:
        for answer in answers(b, raw, q):
            start = time.perf_counter()
            kept = q.kept_for(answer, b.area)
            shapely.prepare(kept)
            poly = shapely.intersects_xy(kept, lons, lats)
            hider = np.asarray(q.answers_for(lons, lats) == answer, bool)
            t = truth(b, raw, answer, lons, lats)
            miss = np.flatnonzero(poly != t.keep)
            margin = np.minimum(t.margins(miss), area_margin(b, miss)) if len(miss) else np.zeros(0)
            hmiss = np.flatnonzero(hider != t.keep)
            hmargin = t.margins(hmiss)
            rows.append(
                Row(
                    b.case.name,
                    q.label(),
                    q.answer_text(answer),
                    len(lons),
                    int(t.keep.sum()),
                    len(miss),
                    int((margin > TOLERANCE_M).sum()),
                    float(margin.max()) if len(miss) else 0.0,
                    int((hmargin > 1e-3).sum()),
                    time.perf_counter() - start,
                )
            )
    return rows


def table(rows: list[Row]) -> str:
    head = "| case | question | answer | points | kept | misses | > 1 m | worst miss (m) | hider misses |"
    out = [head, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(
            f"| {r.case} | {r.question} | {r.answer[:28]} | {r.points} | {r.kept} | {r.misses} | "
            f"{r.far_misses} | {r.worst_m:.3f} | {r.hider_misses} |"
        )
    return "\n".join(out)


@cache
def _tmp() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp(prefix="oracle-"))


if __name__ == "__main__":
    names = sys.argv[1:] or [c.name for c in CASES]
    all_rows = []
    for name in names:
        t0 = time.perf_counter()
        built = build(BY_NAME[name], _tmp())
        t1 = time.perf_counter()
        rows = check(built)
        all_rows.extend(rows)
        print(
            f"{name}: build {t1 - t0:.1f} s, check {time.perf_counter() - t1:.1f} s",
            file=sys.stderr,
        )
    print(table(all_rows))
    print(
        f"points per case {POINTS}; total misses > {TOLERANCE_M:g} m: {sum(r.far_misses for r in all_rows)}; "
        f"hider misses: {sum(r.hider_misses for r in all_rows)}",
        file=sys.stderr,
    )
    _ = math
