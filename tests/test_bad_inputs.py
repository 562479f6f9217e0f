"""The bad-input corpus (tests/support/bad_inputs.py), run in-process: every case gives a one-line
error with a non-zero exit, or the stated correct result — no traceback, no hang, no wrong
success. Also property-based tests: arbitrary JSON and arbitrary bytes never make a reader
raise anything but a one-line InputError."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import bad_inputs

from stations_generator.cli import main
from stations_generator.errors import InputError, UserError


@pytest.fixture(scope="module")
def map_bytes(tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("corpus-map")
    area = folder / "area.geojson"
    area.write_bytes(bad_inputs._json(bad_inputs._polygon(bad_inputs._ring())))
    args = ["-q", "generate", str(area), "--osm", str(bad_inputs.SUBSET), "-o", str(folder)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return (folder / "stations.geojson").read_bytes()


def _run(case, folder: Path, map_bytes: bytes) -> tuple[str, str]:
    argv = bad_inputs.prepare(case, folder, map_bytes)
    here = os.getcwd()
    os.chdir(folder)
    try:
        start = time.perf_counter()
        result = CliRunner().invoke(main, argv)
        seconds = time.perf_counter() - start
    finally:
        os.chdir(here)
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    verdict = bad_inputs.verdict(case, result.exit_code, result.stderr, crashed, seconds)
    detail = repr(result.exception) if crashed else result.stderr.strip()[-300:]
    return verdict, detail


@pytest.mark.slow
def test_corpus_has_no_traceback_hang_or_wrong_success(map_bytes, tmp_path, monkeypatch):
    monkeypatch.setenv("STATIONS_GENERATOR_CACHE_DIR", str(tmp_path / "cache"))
    cases = bad_inputs.all_cases(map_bytes)
    assert len(cases) >= 250
    commands = {c.args[0] for c in cases}
    assert commands >= {
        "generate",
        "report",
        "questions",
        "zones",
        "map",
        "roll",
        "route",
        "calibrate",
    }
    bad = []
    verdicts = Counter()
    for number, case in enumerate(cases):
        verdict, detail = _run(case, tmp_path / f"c{number}", map_bytes)
        verdicts[verdict] += 1
        if verdict != "clean":
            bad.append(f"{verdict}: {case.name}: {detail}")
    assert not bad, f"{len(bad)} of {len(cases)} cases:\n" + "\n".join(bad)
    assert verdicts["clean"] == len(cases)


# --------------------------------------------------------------------------- properties

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(
        st.sampled_from(
            ["type", "features", "geometry", "coordinates", "geometries", "properties", "role",
             "id", "wait_min", "wait_max", "elements", "lat", "lon", "tags", "questions",
             "data", "play_area", "seeker", "radius", "answer", "format", "center", "members"]
        ) | st.text(max_size=4),
        children,
        max_size=5,
    ),
    max_leaves=25,
)  # fmt: skip


def _documents():
    """Arbitrary JSON, half of it shaped like our formats (so the readers look deeper)."""
    shaped = st.fixed_dictionaries(
        {"type": st.sampled_from(["FeatureCollection", "Feature", "Polygon", "MultiPolygon", "LineString", "GeometryCollection"])},
        optional={"features": _json_values, "geometry": _json_values, "coordinates": _json_values, "geometries": _json_values, "questions": _json_values, "properties": _json_values},
    )  # fmt: skip
    game = st.fixed_dictionaries(
        {"format": st.just("stations-generator-game/1")},
        optional={"play_area": _json_values, "questions": _json_values, "stations": _json_values, "rules": _json_values, "osm": _json_values},
    )  # fmt: skip
    return _json_values | shaped | game


def _only_one_line_errors(call, *args) -> None:
    try:
        call(*args)
    except UserError as exc:
        assert "\n" not in str(exc) and str(exc)


_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_documents())
def test_readers_take_arbitrary_json(data):
    from stations_generator.formats import taibeled
    from stations_generator.formats.playarea import parse_polygons
    from stations_generator.formats.stationfile import parse_station_map
    from stations_generator.osm import overpass_json

    _only_one_line_errors(parse_polygons, data, "x")
    _only_one_line_errors(parse_station_map, data, "x")
    _only_one_line_errors(taibeled.parse_state, data)
    _only_one_line_errors(overpass_json.parse_overpass, data)


@_SETTINGS
@given(_documents())
def test_game_reader_takes_arbitrary_json(tmp_path_factory, data):
    from stations_generator.app.game_loader import load_game

    path = tmp_path_factory.mktemp("game") / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    _only_one_line_errors(load_game, path)


@_SETTINGS
@given(st.binary(max_size=300) | _documents().map(lambda d: json.dumps(d).encode()[:-1]))
def test_file_readers_take_arbitrary_bytes(tmp_path_factory, raw):
    from stations_generator.app.game_loader import load_game
    from stations_generator.formats import taibeled
    from stations_generator.formats.playarea import load_polygons
    from stations_generator.formats.stationfile import read_station_map
    from stations_generator.osm.overpass_file import read_overpass_json_file

    folder = tmp_path_factory.mktemp("bytes")
    for name, reader in (
        ("a.geojson", load_polygons),
        ("s.geojson", read_station_map),
        ("o.json", read_overpass_json_file),
        ("g.json", load_game),
    ):
        path = folder / name
        path.write_bytes(raw)
        _only_one_line_errors(reader, path)
    _only_one_line_errors(taibeled.load_any, raw.decode("utf-8", errors="replace"))


_MAGIC = st.sampled_from(
    [b"", b"\x00\x00\x27\x0a", b"SQLite format 3\x00" + b"\x00" * 52 + b"GPKG", b"fgb\x03fgb\x01",
     b"PK\x03\x04", b"<kml>", b"<gpx>", b"<OGRVRTDataSource>"]
)  # fmt: skip


@_SETTINGS
@given(_MAGIC, st.binary(max_size=400))
def test_area_readers_take_arbitrary_bytes_in_every_format(tmp_path_factory, magic, tail):
    """Bytes that start like each format (so the reader goes past its sniffing) under
    every name a play area may have: a one-line error or an area, never a traceback."""
    from stations_generator.formats.playarea import load_polygons

    folder = tmp_path_factory.mktemp("area-bytes")
    for side in ("shx", "dbf"):  # (so a would-be shapefile reaches GDAL)
        (folder / f"area.{side}").write_bytes(magic + tail)
    for suffix in ("kml", "kmz", "gpx", "shp", "gpkg", "fgb", "zip", "gml", "sqlite", "tab"):
        path = folder / f"area.{suffix}"
        path.write_bytes(magic + tail)
        _only_one_line_errors(load_polygons, path)


def test_share_link_bomb_is_refused_quickly():
    import base64
    import zlib

    from stations_generator.formats import taibeled

    bomb = zlib.compress(b" " * 200_000_000, 9)  # ~200 kB of zlib, 200 MB unpacked
    link = "?hzc=" + base64.urlsafe_b64encode(bomb).decode().rstrip("=")
    start = time.perf_counter()
    with pytest.raises(InputError, match="unpacks to more than 16 MiB"):
        taibeled.decode_hzc(link)
    assert time.perf_counter() - start < 5
