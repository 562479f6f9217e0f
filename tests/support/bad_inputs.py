"""The bad-input corpus: ≥ 250 hostile inputs across every command and file format.

Each case writes its files into a folder, runs one command line, and states the expected
outcome: ``"error"`` (a one-line error on stderr, a non-zero exit, no traceback) or
``"ok"`` (exit 0, with ``expect_stderr`` fragments such as the warning that says what
was repaired). Every case is built from the real data in the repository (the Sioux
Falls polygon and Overpass elements, the Helsinki game and extract, a station map
``generate`` writes).

``tests/test_bad_inputs.py`` runs the corpus in-process (CliRunner). Run it as a script
to get the table of the issue against any checkout, one subprocess per case (60 s each):

    python tests/support/bad_inputs.py --pythonpath PATH_TO_CHECKOUT [--jobs 2]
"""

from __future__ import annotations

import base64
import copy
import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:  # run as a script (see above): the tests folder is not on sys.path
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.area_files import zip_bytes  # noqa: E402
from support.paths import REPO  # noqa: E402

SIOUX_RING = json.loads((REPO / "zones" / "sioux-falls.geojson").read_text(encoding="utf-8"))
SUBSET = REPO / "tests" / "data" / "overpass" / "sioux-falls-pois-subset.json"
GAME = REPO / "examples" / "helsinki-game" / "game.json"
HELSINKI_AREA = REPO / "zones" / "helsinki-centre.geojson"
HELSINKI_PBF = REPO / "tests" / "data" / "osm-extracts" / "helsinki-centre.osm.pbf"
TIMEOUT_S = 60


@dataclass
class Case:
    """One hostile input: files to write, a command line, the expected outcome."""

    name: str
    args: list[str]
    expect: str  # "error" or "ok"
    files: dict[str, bytes] = field(default_factory=dict)
    expect_stderr: tuple[str, ...] = ()
    needs_map: bool = False  # uses the station map made once by generate (MAP.geojson)


def _json(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


def _ring() -> list:
    geometry = SIOUX_RING.get("geometry") or SIOUX_RING
    if SIOUX_RING.get("type") == "FeatureCollection":
        geometry = SIOUX_RING["features"][0]["geometry"]
    coords = geometry["coordinates"]
    return coords if geometry["type"] == "LineString" else coords[0]


def _polygon(*rings) -> dict:
    return {"type": "Polygon", "coordinates": list(rings)}


def _square(lon: float, lat: float, d: float) -> list:
    return [[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]


# --------------------------------------------------------------------------- GeoJSON


def geojson_variants() -> list[tuple[str, bytes, str, tuple[str, ...]]]:
    """(name, file bytes, expected outcome, stderr fragments) for play-area files."""
    ring = _ring()
    good = _json(_polygon(ring))
    centre = [
        sum(c[0] for c in ring[:-1]) / (len(ring) - 1),
        sum(c[1] for c in ring[:-1]) / (len(ring) - 1),
    ]
    hole = _square(centre[0] - 0.01, centre[1] - 0.01, 0.02)
    far_hole = _square(centre[0] + 5, centre[1], 0.02)
    crossing_hole = _square(ring[0][0] - 0.01, ring[0][1] - 0.01, 0.02)
    open_ring = ring[:-1]
    almost = [*ring[:-1], [ring[0][0] + 0.0004, ring[0][1]]]  # ~30 m short of closing
    bowtie = [ring[0], ring[2], ring[1], ring[3], ring[0]]
    text = good.decode()
    deep = "[" * 5000 + "]" * 5000
    v = [
        ("not-json", b"this is not json", "error", ()),
        ("empty", b"", "error", ()),
        ("whitespace", b"  \n ", "error", ()),
        ("bom-utf8", b"\xef\xbb\xbf" + good, "ok", ()),
        ("utf16", text.encode("utf-16"), "error", ("UTF-16",)),
        ("utf32", text.encode("utf-32"), "error", ("UTF-32",)),
        (
            "latin1-name",
            _json(
                {"type": "Feature", "properties": {"name": "Zürich"}, "geometry": _polygon(ring)}
            ).replace("ü".encode(), b"\xfc"),
            "error",
            ("UTF-8",),
        ),
        ("nan-literal", text.replace(str(ring[1][0]), "NaN", 1).encode(), "error", ("finite",)),
        (
            "infinity-literal",
            text.replace(str(ring[1][1]), "Infinity", 1).encode(),
            "error",
            ("finite",),
        ),
        (
            "overflow-number",
            text.replace(str(ring[1][1]), "1e400", 1).encode(),
            "error",
            ("finite",),
        ),
        (
            "overflow-integer",  # (read as a Python int, it overflowed only in float())
            text.replace(str(ring[1][1]), "1" + "0" * 400, 1).encode(),
            "error",
            ("too large",),
        ),
        (
            "integer-beyond-python",  # (past the 4300 digits Python converts)
            text.replace(str(ring[1][1]), "9" * 5000, 1).encode(),
            "error",
            ("too large",),
        ),
        ("deep-nesting", deep.encode(), "error", ("nested",)),
        (
            "deep-coordinates",
            _json({"type": "Polygon", "coordinates": json.loads("[" * 40 + "]" * 40)}),
            "error",
            (),
        ),
        (
            "features-ints",
            _json({"type": "FeatureCollection", "features": [1]}),
            "error",
            ("$.features[0]",),
        ),
        (
            "features-null",
            _json({"type": "FeatureCollection", "features": None}),
            "error",
            ("$.features",),
        ),
        ("features-missing", _json({"type": "FeatureCollection"}), "error", ("features",)),
        ("features-empty", _json({"type": "FeatureCollection", "features": []}), "error", ()),
        (
            "geometries-null",
            _json({"type": "GeometryCollection", "geometries": None}),
            "error",
            ("$.geometries",),
        ),
        (
            "feature-geometry-string",
            _json({"type": "Feature", "geometry": "POLYGON((0 0))"}),
            "error",
            ("$.geometry",),
        ),
        (
            "feature-null-geometry",
            _json({"type": "Feature", "geometry": None, "properties": {}}),
            "error",
            (),
        ),
        (
            "coordinates-string",
            _json({"type": "Polygon", "coordinates": "1,2,3"}),
            "error",
            ("coordinates",),
        ),
        ("coordinates-missing", _json({"type": "Polygon"}), "error", ("coordinates",)),
        ("coordinates-empty", _json({"type": "Polygon", "coordinates": []}), "error", ()),
        (
            "position-strings",
            _json(_polygon([["a", "b"], *ring[1:]])),
            "error",
            ("$.coordinates[0][0]",),
        ),
        ("position-one-number", _json(_polygon([[1.0], *ring[1:]])), "error", ("position",)),
        ("position-bool", _json(_polygon([[True, False], *ring[1:]])), "error", ("position",)),
        ("position-null", _json(_polygon([None, *ring[1:]])), "error", ("position",)),
        ("swapped", _json(_polygon([[c[1], c[0]] for c in ring])), "error", ("swapped",)),
        (
            "longitude-500",
            _json(_polygon([[c[0] * 5, c[1]] for c in ring])),
            "error",
            ("longitude",),
        ),
        (
            "projected-metres",
            _json(_polygon([[c[0] * 1e5, c[1] * 1e5] for c in ring])),
            "error",
            ("out of range",),
        ),
        ("point", _json({"type": "Point", "coordinates": ring[0]}), "error", ("Point",)),
        (
            "multipoint",
            _json({"type": "MultiPoint", "coordinates": ring}),
            "error",
            ("MultiPoint",),
        ),
        (
            "open-linestring",
            _json({"type": "LineString", "coordinates": ring[:4]}),
            "error",
            ("open LineString",),
        ),
        (
            "almost-closed-linestring",
            _json({"type": "LineString", "coordinates": almost}),
            "ok",
            ("not closed", "m apart"),
        ),
        (
            "closed-linestring",
            _json({"type": "LineString", "coordinates": ring}),
            "ok",
            ("closed LineString",),
        ),
        ("unclosed-ring-small-gap", _json(_polygon(almost)), "ok", ("not closed",)),
        ("unclosed-ring-open", _json(_polygon(ring[:4])), "error", ("is open",)),
        ("unclosed-ring-one-point-missing", _json(_polygon(open_ring)), "error", ("is open",)),
        (
            "two-point-ring",
            _json(_polygon([ring[0], ring[1], ring[0]])),
            "error",
            ("distinct points",),
        ),
        ("hole-inside", _json(_polygon(ring, hole)), "ok", ()),
        (
            "hole-outside-shell",
            _json(_polygon(ring, far_hole)),
            "ok",
            ("outside the outer ring", "ignored"),
        ),
        (
            "hole-equal-shell",
            _json(_polygon(ring, ring)),
            "error",
            ("covers the whole outer ring",),
        ),
        (
            "hole-crossing-shell",
            _json(_polygon(ring, crossing_hole)),
            "ok",
            ("crosses the outer ring",),
        ),
        ("bowtie", _json(_polygon(bowtie)), "ok", ("crosses itself",)),
        ("zero-area", _json(_polygon([ring[0], ring[1], ring[0], ring[1], ring[0]])), "error", ()),
        (
            "microscopic",
            _json(_polygon(_square(ring[0][0], ring[0][1], 1e-7))),
            "error",
            ("covers only",),
        ),
        ("topology", _json({"type": "Topology", "objects": {}}), "error", ("not GeoJSON",)),
        ("array", _json([1, 2, 3]), "error", ("not a GeoJSON object",)),
        ("number", b"42", "error", ()),
        ("string", b'"Sioux Falls"', "error", ()),
        ("type-missing", _json({"coordinates": [ring]}), "error", ()),
        (
            "multipolygon-empty-part",
            _json({"type": "MultiPolygon", "coordinates": [[ring], []]}),
            "error",
            ("no rings",),
        ),
        (
            "overlapping-parts",
            _json({"type": "MultiPolygon", "coordinates": [[ring], [ring]]}),
            "ok",
            ("overlap",),
        ),
        (
            "geometrycollection-nested",
            _json(
                {
                    "type": "GeometryCollection",
                    "geometries": [{"type": "GeometryCollection", "geometries": [_polygon(ring)]}],
                }
            ),
            "ok",
            (),
        ),
    ]
    return v


def _generate(area: str, *extra: str) -> list[str]:
    return ["generate", area, "--osm", str(SUBSET), "-o", "out", *extra]


def geojson_cases() -> list[Case]:
    out = []
    for name, data, expect, frag in geojson_variants():
        files = {"area.geojson": data}
        out.append(Case(f"generate/area/{name}", _generate("area.geojson"), expect, files, frag))
        out.append(
            Case(
                f"report/area/{name}",
                ["report", "area.geojson", "--osm", str(SUBSET), "-o", "report.json"],
                expect,
                files,
                frag,
            )
        )
    ring = _ring()
    area = _json(_polygon(ring))
    nan_polygon = b'{"type":"Polygon","coordinates":[[[NaN,1],[2,3],[3,4],[NaN,1]]]}'
    water = _json(
        {
            "elements": [
                {
                    "type": "way",
                    "id": 1,
                    "tags": {"natural": "water"},
                    "geometry": [
                        {"lat": c[1], "lon": c[0]}
                        for c in _square(ring[0][0] - 1, ring[0][1] - 1, 3)
                    ],
                }
            ]
        }
    )
    small = _json(_polygon(_square(ring[0][0], ring[0][1], 0.001)))
    for name, option, extra, expect, frag in (
        ("exclude/small", "--exclude", small, "ok", ()),
        ("exclude/whole", "--exclude", area, "error", ("--exclude",)),
        ("exclude/nan", "--exclude", nan_polygon, "error", ("finite",)),
        ("water/covers-all", "--water", water, "error", ("water covers the whole play area",)),
    ):
        files = {"area.geojson": area, "extra.json": extra}
        args = [*_generate("area.geojson"), option, "extra.json"]
        out.append(Case(f"generate/{name}", args, expect, files, frag))
    return out


# --------------------------------------------------------------------------- area files


def _kml_doc(ring: list, depth: int = 0) -> bytes:
    coords = " ".join(f"{x},{y},0" for x, y in ring)
    polygon = (
        f"<Polygon><outerBoundaryIs><LinearRing><coordinates>{coords}</coordinates>"
        "</LinearRing></outerBoundaryIs></Polygon>"
    )
    shape = "<MultiGeometry>" * depth + polygon + "</MultiGeometry>" * depth
    return (
        '<kml xmlns="http://www.opengis.net/kml/2.2"><Document><Placemark><name>area</name>'
        f"{shape}</Placemark></Document></kml>"
    ).encode()


def _patched(raw: bytes, at_local: int, at_central: int, value: int) -> bytes:
    """The zip with a 2-byte field of every local and central header set to ``value``."""
    out = bytearray(raw)
    for magic, at in ((b"PK\x03\x04", at_local), (b"PK\x01\x02", at_central)):
        i = out.find(magic)
        while i >= 0:
            out[i + at : i + at + 2] = value.to_bytes(2, "little")
            i = out.find(magic, i + 4)
    return bytes(out)


def area_file_variants() -> list[tuple[str, str, bytes, str, tuple[str, ...]]]:
    """(case, file name, bytes, expect, stderr fragments): hostile play-area files."""
    ring = _ring()
    doc = _kml_doc(ring)
    kmz = zip_bytes({"doc.kml": doc})
    vrt = (
        f"<OGRVRTDataSource><OGRVRTLayer name='a'><SrcDataSource>{GAME}</SrcDataSource>"
        "</OGRVRTLayer></OGRVRTDataSource>"
    ).encode()
    cap = [[lon, 84.0] for lon in range(-180, 181, 20)]
    return [
        ("vrt-as-gml", "area.gml", vrt, "error", ("GDAL VRT",)),
        ("vrt-as-gpkg", "area.gpkg", vrt, "error", ("GDAL VRT",)),
        ("vrt-as-shp", "area.shp", vrt, "error", ("GDAL VRT",)),
        ("kmz-encrypted", "area.kmz", _patched(kmz, 6, 8, 1), "error", ("encrypted",)),
        ("kmz-aes", "area.kmz", _patched(kmz, 8, 10, 99), "error", ("AES",)),
        (
            "kmz-nul-name",
            "area.kmz",
            zip_bytes({"a_b.kml": doc}).replace(b"a_b.kml", b"a\x00b.kml"),
            "error",
            ("NUL byte",),
        ),
        ("kmz-300-byte-name", "area.kmz", zip_bytes({"x" * 296 + ".kml": doc}), "error", ("255",)),
        ("kml-3000-deep", "area.kml", _kml_doc(ring, 3000), "error", ("deep",)),
        ("kml-polar-cap", "area.kml", _kml_doc(cap), "error", ("North Pole",)),
        ("kml-ok", "area.kml", doc, "ok", ()),
        ("kmz-ok", "area.kmz", kmz, "ok", ()),
    ]


def area_file_cases() -> list[Case]:
    return [
        Case(f"generate/area-file/{name}", _generate(file), expect, {file: data}, frag)
        for name, file, data, expect, frag in area_file_variants()
    ]


# --------------------------------------------------------------------------- CLI numbers

_MAP = "MAP.geojson"


def number_cases() -> list[Case]:
    area = {"area.geojson": _json(_polygon(_ring()))}
    out = []
    for option in (
        "--min-spacing",
        "--cluster-gap",
        "--cluster-radius",
        "--density-radius",
        "--overpass-timeout",
    ):
        for value in ("nan", "inf", "-inf", "1e400", "-5", "abc"):
            out.append(
                Case(
                    f"generate/{option}/{value}",
                    [*_generate("area.geojson"), option, value],
                    "error",
                    area,
                )
            )
    # An elevation file that is not one: missing, text, an empty GeoTIFF-named file.
    for name, files in (
        ("missing", {}),
        ("text", {"dem.tif": b"not an elevation model\n"}),
        ("empty", {"dem.tif": b""}),
    ):
        out.append(
            Case(
                f"report/--dem/{name}",
                ["report", "area.geojson", "--osm", str(SUBSET), "--dem", "dem.tif"],
                "error",
                {**area, **files},
            )
        )
    for value in ("nan", "inf", "-1"):
        out.append(
            Case(
                f"report/--margin/{value}",
                ["report", "area.geojson", "--osm", str(SUBSET), "--margin", value],
                "error",
                area,
            )
        )
        out.append(
            Case(
                f"calibrate/--speed/{value}",
                ["calibrate", _MAP, "--speed", value, "-o", "cal"],
                "error",
                needs_map=True,
            )
        )
        out.append(
            Case(
                f"route/--speed/{value}",
                ["route", "A", "B", "--map", _MAP, "--speed", value],
                "error",
                needs_map=True,
            )
        )
        out.append(
            Case(
                f"roll/--pickup-eta/{value}",
                ["roll", "X", "--map", _MAP, "--pickup-eta", value],
                "error",
                needs_map=True,
            )
        )
        for option in ("--hiding-radius", "--min-spacing", "--cluster-gap"):
            out.append(
                Case(
                    f"map/{option}/{value}",
                    ["map", _MAP, option, value, "-o", "m.html"],
                    "error",
                    needs_map=True,
                )
            )
    for drove in ("14:00-13:00", "25:00-26:00", "x", "13:00", "13:00-14:00+2", "nan-nan"):
        out.append(
            Case(
                f"roll/--drove/{drove}",
                [
                    "roll",
                    "FIRST",
                    "--map",
                    _MAP,
                    "--at",
                    "14:30",
                    "--transit-in-play",
                    "--drove",
                    drove,
                ],
                "error",
                needs_map=True,
            )
        )
    out.append(
        Case(
            "roll/--drove/crossing-midnight",
            [
                "roll",
                "FIRST",
                "--map",
                _MAP,
                "--at",
                "00:30",
                "--seed",
                "1",
                "--transit-in-play",
                "--drove",
                "23:50-00:10+1",
            ],
            "ok",
            needs_map=True,
            expect_stderr=(),
        )
    )
    for at in ("24:00", "nan", "-1:00", "7"):
        out.append(
            Case(
                f"roll/--at/{at}",
                ["roll", "FIRST", "--map", _MAP, "--at", at],
                "error",
                needs_map=True,
            )
        )
    for hider in ("nan,nan", "inf,24.94", "95,24.94", "60.17", "a,b", "60.17,nan", "1e400,1"):
        out.append(
            Case(
                f"questions-answer/--hider/{hider}",
                ["questions", "answer", str(GAME), "--hider", hider],
                "error",
            )
        )
        out.append(
            Case(f"zones-check/--at/{hider}", ["zones", "check", str(GAME), "--at", hider], "error")
        )
    return out


# --------------------------------------------------------------------------- game files


def _game() -> dict:
    data = json.loads(GAME.read_text(encoding="utf-8"))
    data["play_area"] = str(HELSINKI_AREA)
    data["osm"] = [str(HELSINKI_PBF)]
    return data


_NO_LEVEL = object()


def _add_zone_question(level=_NO_LEVEL) -> Callable[[dict], None]:
    """Append a zone-matching question with this ``level`` (or none) to a game."""
    question = {"type": "matching", "seeker": {"lat": 60.17, "lon": 24.94}, "subject": "zone"}
    if level is not _NO_LEVEL:
        question["level"] = level
    return lambda game: game["questions"].append({**question, "answer": "same"})


def game_variants() -> list[tuple[str, bytes, str, tuple[str, ...]]]:
    def mutated(change: Callable[[dict], object]) -> bytes:
        data = _game()
        change(data)
        return _json(data)

    q = lambda k: lambda d: d["questions"][k]  # noqa: E731
    text = mutated(lambda d: None).decode()
    v = [
        ("questions-number", mutated(lambda d: d.update(questions=5)), "error", ("$.questions",)),
        (
            "questions-string",
            mutated(lambda d: d.update(questions="radius")),
            "error",
            ("$.questions",),
        ),
        ("stations-list", mutated(lambda d: d.update(stations=[1, 2])), "error", ("$.stations",)),
        (
            "stations-categories-string",
            mutated(lambda d: d.update(stations={"categories": "tram_stop"})),
            "error",
            ("categories",),
        ),
        ("play-area-number", mutated(lambda d: d.update(play_area=5)), "error", ("$.play_area",)),
        ("play-area-missing", mutated(lambda d: d.pop("play_area")), "error", ("play_area",)),
        (
            "play-area-not-found",
            mutated(lambda d: d.update(play_area="nowhere.geojson")),
            "error",
            ("does not exist",),
        ),
        (
            "play-area-inline-nan",
            mutated(
                lambda d: d.update(
                    play_area={
                        "type": "Polygon",
                        "coordinates": [[[float("nan"), 1], [2, 3], [3, 4], [float("nan"), 1]]],
                    }
                )
            ),
            "error",
            (),
        ),
        ("osm-string", mutated(lambda d: d.update(osm="x.pbf")), "error", ("$.osm",)),
        (
            "osm-missing-file",
            mutated(lambda d: d.update(osm=["missing.osm.pbf"])),
            "error",
            ("does not exist",),
        ),
        (
            "rules-unknown",
            mutated(lambda d: d.update(rules="house")),
            "error",
            ("unknown rule set",),
        ),
        ("rules-number", mutated(lambda d: d.update(rules=3)), "error", ("$.rules",)),
        ("game-size-X", mutated(lambda d: d.update(game_size="X")), "error", ("game_size",)),
        (
            "modifiers-unknown",
            mutated(lambda d: d.update(modifiers=["huge"])),
            "error",
            ("modifiers",),
        ),
        ("country-long", mutated(lambda d: d.update(country="Finland")), "error", ("country",)),
        ("unknown-top-key", mutated(lambda d: d.update(qestions=[])), "error", ("unknown key",)),
        (
            "question-not-object",
            mutated(lambda d: d["questions"].append(7)),
            "error",
            ("$.questions[7]",),
        ),
        (
            "question-type-compass",
            mutated(lambda d: q(0)(d).update(type="compass")),
            "error",
            ("unknown question type",),
        ),
        ("question-type-missing", mutated(lambda d: q(0)(d).pop("type")), "error", ("type",)),
        (
            "question-unknown-key",
            mutated(lambda d: q(0)(d).update(answr="within")),
            "error",
            ("unknown key",),
        ),
        ("seeker-missing", mutated(lambda d: q(0)(d).pop("seeker")), "error", ("seeker",)),
        ("seeker-number", mutated(lambda d: q(0)(d).update(seeker=5)), "error", ("seeker",)),
        (
            "seeker-lat-string",
            mutated(lambda d: q(0)(d).update(seeker={"lat": "north", "lon": 24.9})),
            "error",
            ("lat",),
        ),
        ("seeker-lat-nan", text.replace("60.17132", "NaN", 1).encode(), "error", ("finite",)),
        ("seeker-lat-1e400", text.replace("60.17132", "1e400", 1).encode(), "error", ("finite",)),
        (
            "seeker-lat-huge-integer",
            text.replace("60.17132", "6" + "0" * 400, 1).encode(),
            "error",
            ("too large",),
        ),
        (
            "seeker-swapped",
            mutated(lambda d: q(0)(d).update(seeker={"lat": 124.94, "lon": 60.17})),
            "error",
            ("out of range",),
        ),
        (
            "seeker-no-lon",
            mutated(lambda d: q(0)(d).update(seeker={"lat": 60.17})),
            "error",
            ("seeker",),
        ),
        (
            "seeker-string-nan",
            mutated(lambda d: q(0)(d).update(seeker="nan,nan")),
            "error",
            ("finite",),
        ),
        (
            "seeker-string-inf",
            mutated(lambda d: q(0)(d).update(seeker="inf,24.9")),
            "error",
            ("finite",),
        ),
        ("radius-negative", mutated(lambda d: q(0)(d).update(radius=-500)), "error", ("radius",)),
        ("radius-zero", mutated(lambda d: q(0)(d).update(radius=0)), "error", ("radius",)),
        ("radius-words", mutated(lambda d: q(0)(d).update(radius="far")), "error", ("radius",)),
        ("radius-list", mutated(lambda d: q(0)(d).update(radius=[1])), "error", ("radius",)),
        (
            "radius-huge",
            mutated(lambda d: q(0)(d).update(radius="99999 km")),
            "error",
            ("not a distance on Earth",),
        ),
        ("answer-number", mutated(lambda d: q(0)(d).update(answer=3)), "error", ("answer",)),
        ("answer-unknown", mutated(lambda d: q(0)(d).update(answer="maybe")), "error", ("answer",)),
        ("answer-missing", mutated(lambda d: q(0)(d).pop("answer")), "error", ("no answer",)),
        ("thermometer-start-missing", mutated(lambda d: q(1)(d).pop("start")), "error", ("start",)),
        (
            "thermometer-distance-bad",
            mutated(lambda d: q(1)(d).update(distance="15 km")),
            "error",
            ("not allowed",),
        ),
        ("level-eight", mutated(_add_zone_question("eight")), "error", ('"eight"',)),
        ("level-null", mutated(_add_zone_question(None)), "error", ("level",)),
        ("level-missing", mutated(_add_zone_question()), "error", ("level",)),
        ("level-99", mutated(_add_zone_question(99)), "error", ("level",)),
        (
            "subject-unknown",
            mutated(lambda d: q(2)(d).update(subject="volcano")),
            "error",
            ("unknown subject",),
        ),
        ("subject-number", mutated(lambda d: q(2)(d).update(subject=5)), "error", ("subject",)),
        (
            "tentacles-answer-unknown",
            mutated(lambda d: q(3)(d).update(answer="Louvre")),
            "error",
            ("Louvre",),
        ),
        (
            "stations-file-missing",
            mutated(lambda d: d.update(stations="nope.geojson")),
            "error",
            ("does not exist",),
        ),
        (
            "not-utf8",
            text.replace("Helsinki", "H\xe9lsinki").encode("latin-1")
            if "Helsinki" in text
            else text.encode("utf-8") + b"\xff",
            "error",
            ("UTF-8",),
        ),
        ("bom", b"\xef\xbb\xbf" + text.encode(), "ok", ()),
        ("utf16", text.encode("utf-16"), "error", ("UTF-16",)),
        ("truncated", text[: len(text) // 2].encode(), "error", ("invalid JSON",)),
        (
            "deep-nesting",
            b'{"format": "stations-generator-game/1", "questions": '
            + b"[" * 5000
            + b"]" * 5000
            + b"}",
            "error",
            ("nested",),
        ),
        ("empty", b"", "error", ()),
        ("binary", HELSINKI_PBF.read_bytes()[:300], "error", ()),
        (
            "contradiction",
            mutated(
                lambda d: (
                    d["questions"].insert(
                        1,
                        {
                            "type": "radius",
                            "seeker": {"lat": 60.1775, "lon": 24.951},
                            "radius": "250 m",
                            "answer": "within",
                        },
                    )
                    or d["questions"].insert(
                        0,
                        {
                            "type": "radius",
                            "seeker": {"lat": 60.1655, "lon": 24.9375},
                            "radius": "250 m",
                            "answer": "within",
                        },
                    )
                )
            ),
            "ok",
            ("leaves nothing", "check questions 1 and 3"),
        ),
        (
            "seeker-far-away",
            mutated(lambda d: q(0)(d).update(seeker={"lat": 61.5, "lon": 23.7}, radius="500 m")),
            "ok",
            ("leaves nothing on its own",),
        ),
    ]
    return v


# ``questions cost`` counts cards: it needs neither answers nor a game size's distances.
_COST_NEEDS_NO_ANSWERS = ("answer-missing", "thermometer-distance-bad")


def _apply_and_cost(kind: str, variants, filename: str, apply_extra=(), skip_cost=()) -> list[Case]:
    """``questions apply`` on every variant; ``questions cost`` on those that must fail."""
    out = []
    for name, data, expect, frag in variants:
        files = {filename: data}
        apply_args = ["questions", "apply", filename, "-o", "out", *apply_extra]
        out.append(Case(f"questions-apply/{kind}/{name}", apply_args, expect, files, frag))
        if expect == "error" and name not in skip_cost:
            cost_args = ["questions", "cost", filename]
            out.append(Case(f"questions-cost/{kind}/{name}", cost_args, "error", files))
    return out


def game_cases() -> list[Case]:
    out = _apply_and_cost("game", game_variants(), "game.json", skip_cost=_COST_NEEDS_NO_ANSWERS)
    contradiction = next(data for name, data, _, _ in game_variants() if name == "contradiction")
    out.append(
        Case(
            "zones-check/contradiction",
            ["zones", "check", "game.json", "--at", "60.17,24.94"],
            "any",
            {"game.json": contradiction},
            ("leaves nothing",),
        )
    )
    return out


# --------------------------------------------------------------------------- taibeled


def _hzc(raw: bytes) -> bytes:
    return b"https://taibeled.github.io/JetLagHideAndSeek/?hzc=" + base64.urlsafe_b64encode(
        zlib.compress(raw, 9)
    ).rstrip(b"=")


def taibeled_variants() -> list[tuple[str, bytes, str, tuple[str, ...]]]:
    state = json.loads(
        (REPO / "tests" / "data" / "taibeled" / "state-featurecollection.json").read_text(
            encoding="utf-8"
        )
    )
    question = json.loads(
        (REPO / "tests" / "data" / "taibeled" / "question-radius.json").read_text(encoding="utf-8")
    )

    def st(change) -> bytes:
        data = copy.deepcopy(state)
        change(data)
        return _json(data)

    bomb = zlib.compress(b"[" * 40_000_000, 9)
    v = [
        ("questions-number", st(lambda d: d.update(questions=5)), "error", ("$.questions",)),
        (
            "questions-of-ints",
            st(lambda d: d.update(questions=[1, 2])),
            "error",
            ("$.questions[0]",),
        ),
        (
            "question-data-string",
            st(lambda d: d["questions"][0].update(data="x")),
            "error",
            ("data",),
        ),
        (
            "question-lat-string",
            st(lambda d: d["questions"][0]["data"].update(lat="north")),
            "error",
            ("not a number",),
        ),
        (
            "question-lat-95",
            st(lambda d: d["questions"][0]["data"].update(lat=95)),
            "error",
            ("out of range",),
        ),
        (
            "question-radius-negative",
            st(lambda d: d["questions"][0]["data"].update(radius=-1)),
            "error",
            ("negative",),
        ),
        (
            "question-unit-feet",
            st(lambda d: d["questions"][0]["data"].update(unit="feet")),
            "error",
            ("unit",),
        ),
        (
            "question-kind-photo",
            st(lambda d: d["questions"][0].update(id="photo")),
            "error",
            ("unknown question type",),
        ),
        ("features-null", st(lambda d: d.update(features=None)), "error", ("features",)),
        ("features-ints", st(lambda d: d.update(features=[1])), "error", ("features",)),
        (
            "custom-stations-ints",
            st(lambda d: d.update(customStations=[1])),
            "error",
            ("customStations",),
        ),
        (
            "hiding-radius-negative",
            st(lambda d: d.update(hidingRadius=-1)),
            "error",
            ("hidingRadius",),
        ),
        (
            "hiding-radius-nan-string",
            st(lambda d: d.update(hidingRadius="nan")),
            "error",
            ("finite",),
        ),
        (
            "hiding-radius-units",
            st(lambda d: d.update(hidingRadiusUnits="leagues")),
            "error",
            ("leagues",),
        ),
        # A question list works (issue 10): cost needs no map; apply takes the --osm extent.
        ("bare-question-list", _json([question]), "any", ()),
        (
            "nan-literal",
            _json(state).replace(b'"lat": ', b'"lat": NaN, "x": ', 1),
            "error",
            ("finite",),
        ),
        ("deep-nesting", b"[" * 5000 + b"]" * 5000, "error", ("nested",)),
        (
            "hzc-bomb",
            b"https://taibeled.github.io/JetLagHideAndSeek/?hzc="
            + base64.urlsafe_b64encode(bomb).rstrip(b"="),
            "error",
            ("unpacks to more than",),
        ),
        ("hzc-deep", _hzc(b"[" * 100_000 + b"]" * 100_000), "error", ()),
        (
            "hzc-not-base64",
            b"https://taibeled.github.io/JetLagHideAndSeek/?hzc=abc$def",
            "error",
            ("malformed share link",),
        ),
        (
            "hzc-not-zlib",
            b"?hzc=" + base64.urlsafe_b64encode(b"plain text here").rstrip(b"="),
            "error",
            ("not zlib",),
        ),
        ("hzc-not-json", _hzc(b"{not json"), "error", ("not JSON",)),
        ("hzc-array", _hzc(b"[1, 2]"), "error", ()),
        ("hzc-latin1", _hzc('{"a": "Zürich"}'.encode("latin-1")), "error", ("UTF-8",)),
        ("hzc-empty", b"?hzc=", "error", ("empty",)),
        (
            "hzc-nan",
            _hzc(b'{"type": "FeatureCollection", "features": [], "hidingRadius": NaN}'),
            "error",
            ("finite",),
        ),
        ("hzc-good-state", _hzc(_json(state)), "any", ()),
    ]
    return v


def taibeled_cases() -> list[Case]:
    extra = ("--osm", str(HELSINKI_PBF))
    return _apply_and_cost("taibeled", taibeled_variants(), "state.txt", apply_extra=extra)


# --------------------------------------------------------------------------- Overpass JSON


def overpass_variants() -> list[tuple[str, bytes, str, tuple[str, ...]]]:
    subset = json.loads(SUBSET.read_text(encoding="utf-8"))

    def el(change) -> bytes:
        data = copy.deepcopy(subset)
        change(data["elements"])
        return _json(data)

    text = _json(subset).decode()
    first = subset["elements"][0]
    first_position = next((e["lon"], e["lat"]) for e in subset["elements"] if "lat" in e)
    v = [
        ("tags-string", el(lambda e: e[0].update(tags="amenity=cafe")), "error", ("tags",)),
        ("tags-list", el(lambda e: e[0].update(tags=["amenity", "cafe"])), "error", ("tags",)),
        (
            "tag-value-object",
            el(lambda e: e[0]["tags"].update(name={"en": "x"})),
            "error",
            ("tag",),
        ),
        ("id-string", el(lambda e: e[0].update(id="x")), "error", ("id",)),
        ("id-float", el(lambda e: e[0].update(id=1.5)), "error", ("id",)),
        ("type-missing", el(lambda e: e[0].pop("type")), "error", ("type",)),
        ("element-number", el(lambda e: e.insert(0, 5)), "error", ("element #0",)),
        (
            "lat-95",
            el(lambda e: [x.update(lat=95) for x in e if "lat" in x][:1]),
            "error",
            ("latitude",),
        ),
        (
            "lon-500",
            el(lambda e: [x.update(lon=500) for x in e if "lon" in x][:1]),
            "error",
            ("longitude",),
        ),
        (
            "lat-string",
            el(lambda e: [x.update(lat="north") for x in e if "lat" in x][:1]),
            "error",
            ("latitude",),
        ),
        (
            "lat-nan",
            text.replace(
                f'"lat": {first.get("lat", first.get("center", {}).get("lat"))}', '"lat": NaN', 1
            ).encode(),
            "error",
            (),
        ),
        (
            "lat-1e400",
            text.replace(
                f'"lat": {first.get("lat", first.get("center", {}).get("lat"))}', '"lat": 1e400', 1
            ).encode(),
            "error",
            (),
        ),
        ("center-string", el(lambda e: e[0].update(center="47,9")), "error", ("center",)),
        (
            "center-lat-95",
            el(lambda e: e[0].update(center={"lat": 95, "lon": 9})),
            "error",
            ("latitude",),
        ),
        (
            "bounds-strings",
            el(lambda e: e[0].update(bounds={"minlat": "a"})),
            "error",
            ("latitude",),
        ),
        ("members-string", el(lambda e: e[0].update(members="x")), "error", ("members",)),
        ("geometry-string", el(lambda e: e[0].update(geometry="x")), "error", ("geometry",)),
        ("nodes-strings", el(lambda e: e[0].update(nodes=["a"])), "error", ("nodes",)),
        ("elements-object", _json({"elements": {"a": 1}}), "error", ("elements",)),
        ("elements-missing", _json({"version": 0.6}), "error", ("elements",)),
        (
            "featurecollection",
            _json({"type": "FeatureCollection", "features": []}),
            "error",
            ("not an Overpass JSON response",),
        ),
        (
            "runtime-remark",
            (REPO / "tests" / "data" / "overpass" / "runtime-error-remark.json").read_bytes(),
            "error",
            ("incomplete",),
        ),
        ("truncated", text[: len(text) // 2].encode(), "error", ("not valid JSON",)),
        ("not-json", b"<html>504 Gateway Timeout</html>", "error", ("not valid JSON",)),
        ("empty", b"", "error", ("empty",)),
        ("bom", b"\xef\xbb\xbf" + text.encode(), "ok", ()),
        ("utf16", text.encode("utf-16"), "error", ("UTF-8",)),
        (
            "deep-nesting",
            b'{"elements": [{"type": "node", "id": 1, "lat": %.5f, "lon": %.5f, "tags": {"tourism": "museum"}, "x": '
            % (first_position[1], first_position[0])
            + b"[" * 5000
            + b"]" * 5000
            + b"}]}",
            "error",
            ("nested",),
        ),
        ("number", b"42", "error", ()),
        (
            "no-position-elements",
            _json({"elements": [{"type": "node", "id": 1, "tags": {"amenity": "cafe"}}]}),
            "error",
            ("no station candidates",),
        ),
    ]
    return v


def overpass_cases() -> list[Case]:
    area = _json(_polygon(_ring()))
    out = []
    for name, data, expect, frag in overpass_variants():
        files = {"area.geojson": area, "osm.json": data}
        out.append(
            Case(
                f"generate/overpass/{name}",
                ["generate", "area.geojson", "--osm", "osm.json", "-o", "out"],
                expect,
                files,
                frag,
            )
        )
        if expect == "error" and name not in ("no-position-elements",):
            out.append(
                Case(
                    f"report/overpass/{name}",
                    ["report", "area.geojson", "--osm", "osm.json"],
                    "error",
                    files,
                )
            )
    return out


# --------------------------------------------------------------------------- station maps


def station_variants(map_bytes: bytes) -> list[tuple[str, bytes, str, tuple[str, ...]]]:
    base = json.loads(map_bytes)
    index = next(
        i for i, f in enumerate(base["features"]) if f["properties"].get("role") == "station"
    )

    def sm(change) -> bytes:
        data = copy.deepcopy(base)
        change(data["features"][index], data)
        return _json(data)

    text = map_bytes.decode()
    v = [
        ("wait-x", sm(lambda f, d: f["properties"].update(wait_min="x")), "error", ("wait_min",)),
        (
            "wait-30-5",
            sm(lambda f, d: f["properties"].update(wait_min=30, wait_max=5)),
            "error",
            ("30-5",),
        ),
        (
            "wait-negative",
            sm(lambda f, d: f["properties"].update(wait_min=-5)),
            "error",
            ("wait_min",),
        ),
        (
            "wait-fraction",
            sm(lambda f, d: f["properties"].update(wait_max=10.5)),
            "error",
            ("wait_max",),
        ),
        (
            "wait-huge",
            sm(lambda f, d: f["properties"].update(wait_max=100000)),
            "error",
            ("wait_max",),
        ),
        ("wait-missing", sm(lambda f, d: f["properties"].pop("wait_max")), "error", ("wait_max",)),
        (
            "wait-null",
            sm(lambda f, d: f["properties"].update(wait_min=None)),
            "error",
            ("wait_min",),
        ),
        (
            "coords-500-95",
            sm(lambda f, d: f["geometry"].update(coordinates=[500, 95])),
            "error",
            ("off the globe",),
        ),
        (
            "coords-strings",
            sm(lambda f, d: f["geometry"].update(coordinates=["a", "b"])),
            "error",
            ("position",),
        ),
        (
            "coords-missing",
            sm(lambda f, d: f["geometry"].pop("coordinates")),
            "error",
            ("coordinates",),
        ),
        (
            "geometry-line",
            sm(
                lambda f, d: f.update(
                    geometry={"type": "LineString", "coordinates": [[1, 2], [3, 4]]}
                )
            ),
            "error",
            ("Point",),
        ),
        ("geometry-null", sm(lambda f, d: f.update(geometry=None)), "error", ("geometry",)),
        ("id-missing", sm(lambda f, d: f["properties"].pop("id")), "error", ("id",)),
        ("id-number", sm(lambda f, d: f["properties"].update(id=5)), "error", ("id",)),
        (
            "id-duplicate",
            sm(lambda f, d: d["features"].append(copy.deepcopy(f))),
            "error",
            ("appears twice",),
        ),
        (
            "properties-string",
            sm(
                lambda f, d: d["features"].append(
                    {"type": "Feature", "properties": "x", "geometry": None}
                )
            ),
            "error",
            ("properties",),
        ),
        ("features-ints", _json({"type": "FeatureCollection", "features": [1]}), "error", ()),
        ("not-collection", _json({"type": "Feature"}), "error", ("FeatureCollection",)),
        (
            "no-stations",
            _json({"type": "FeatureCollection", "features": []}),
            "error",
            ("no station features",),
        ),
        (
            "nan-literal",
            re.sub(r'"wait_min":\s*', '"wait_min": NaN, "x": ', text, count=1).encode(),
            "error",
            ("finite",),
        ),
        (
            "play-area-bad",
            sm(
                lambda f, d: [
                    g.update(geometry={"type": "Polygon", "coordinates": "x"})
                    for g in d["features"]
                    if g["properties"].get("role") == "play_area"
                ]
            ),
            "error",
            ("coordinates",),
        ),
        ("bom", b"\xef\xbb\xbf" + map_bytes, "ok", ()),
        ("utf16", text.encode("utf-16"), "error", ("UTF-16",)),
        ("truncated", map_bytes[: len(map_bytes) // 2], "error", ()),
    ]
    return v


def station_cases(map_bytes: bytes) -> list[Case]:
    out = []
    for name, data, expect, frag in station_variants(map_bytes):
        files = {"s.geojson": data}
        commands = {
            "map": ["map", "s.geojson", "-o", "s.html"],
            "roll": ["roll", "FIRST", "--map", "s.geojson", "--at", "14:00", "--seed", "1"],
            "calibrate": ["calibrate", "s.geojson", "-o", "cal"],
        }
        if expect == "error":
            commands["route"] = ["route", "FIRST", "SECOND", "--map", "s.geojson"]
        for command, args in commands.items():
            out.append(Case(f"{command}/stations/{name}", args, expect, files, frag))
    return out


def all_cases(map_bytes: bytes) -> list[Case]:
    """The whole corpus, given the bytes of a stations.geojson written by generate."""
    return [
        *geojson_cases(),
        *area_file_cases(),
        *number_cases(),
        *game_cases(),
        *taibeled_cases(),
        *overpass_cases(),
        *station_cases(map_bytes),
    ]


def make_map(folder: Path) -> bytes:
    """A real station map (generate on the Sioux Falls subset), written once per corpus run."""
    import subprocess
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    area = folder / "area.geojson"
    area.write_bytes(_json(_polygon(_ring())))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "stations_generator",
            "-q",
            "generate",
            str(area),
            "--osm",
            str(SUBSET),
            "-o",
            str(folder),
        ],
        check=True,
    )
    return (folder / "stations.geojson").read_bytes()


def station_names(map_bytes: bytes) -> tuple[str, str]:
    names = [
        f["properties"]["name"] or f["properties"]["id"]
        for f in json.loads(map_bytes)["features"]
        if f["properties"].get("role") == "station"
    ]
    return names[0], names[1]


def prepare(case: Case, folder: Path, map_bytes: bytes) -> list[str]:
    """Write the case's files into ``folder``; the command line with names filled in."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        (folder / name).write_bytes(data)
    if case.needs_map:
        (folder / _MAP).write_bytes(map_bytes)
    first, second = station_names(map_bytes)
    return [first if a == "FIRST" else second if a == "SECOND" else a for a in case.args]


def verdict(case: Case, exit_code: int, stderr: str, traceback: bool, seconds: float) -> str:
    """clean / traceback / hang / wrong-success / wrong-failure / unclear."""
    if seconds > TIMEOUT_S:
        return "hang"
    if traceback or "Traceback (most recent call last)" in stderr:
        return "traceback"
    errors = [line for line in stderr.splitlines() if line.lower().startswith("error:")]
    if case.expect == "any":  # a verdict either way (zones check: exit 1 = not valid)
        return "clean" if all(f in stderr for f in case.expect_stderr) else "unclear"
    if case.expect == "ok":
        if exit_code != 0:
            return "wrong-failure"
        return "clean" if all(f in stderr for f in case.expect_stderr) else "unclear"
    if exit_code == 0:
        return "wrong-success"
    if len(errors) != 1:
        return "unclear"
    return "clean" if all(f in stderr for f in case.expect_stderr) else "unclear"


def _run_one(args: tuple) -> tuple[str, str, float, str]:
    import os
    import subprocess
    import sys
    import tempfile
    import time

    case, map_bytes, pythonpath = args
    with tempfile.TemporaryDirectory() as tmp:
        argv = prepare(case, Path(tmp), map_bytes)
        env = {
            **os.environ,
            "PYTHONPATH": pythonpath,
            "STATIONS_GENERATOR_CACHE_DIR": tmp + "/cache",
        }
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [sys.executable, "-m", "stations_generator", *argv], cwd=tmp, env=env,
                capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            seconds = time.perf_counter() - start
            v = verdict(case, done.returncode, done.stderr, False, seconds)
            return (
                case.name,
                v,
                seconds,
                done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "",
            )
        except subprocess.TimeoutExpired:
            return case.name, "hang", float(TIMEOUT_S + 1), ""


def main() -> None:
    import argparse
    import tempfile
    from collections import Counter
    from concurrent.futures import ProcessPoolExecutor

    parser = argparse.ArgumentParser(description="Run the bad-input corpus against a checkout.")
    parser.add_argument("--pythonpath", required=True, help="The checkout to test.")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--details", type=Path, help="Write one line per case here.")
    args = parser.parse_args()
    import os

    os.environ["PYTHONPATH"] = args.pythonpath
    with tempfile.TemporaryDirectory() as tmp:
        map_bytes = make_map(Path(tmp) / "map")
    cases = all_cases(map_bytes)
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_run_one, [(c, map_bytes, args.pythonpath) for c in cases]))
    counts = Counter(v for _, v, _, _ in results)
    if args.details:
        args.details.write_text(
            "".join(f"{v}\t{n}\t{s:.1f}s\t{last}\n" for n, v, s, last in results), encoding="utf-8"
        )
    print(f"cases: {len(cases)}")
    for key in ("clean", "traceback", "hang", "wrong-success", "wrong-failure", "unclear"):
        print(f"{key}: {counts.get(key, 0)}")


if __name__ == "__main__":
    main()
