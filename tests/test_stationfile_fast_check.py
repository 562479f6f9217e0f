"""The fast station-feature check never accepts what the station-map schema rejects."""

from __future__ import annotations

import copy
import json
import math

from click.testing import CliRunner
from conftest import REPO, SIOUX

from stations_generator.cli import main
from stations_generator.errors import InputError
from stations_generator.formats import jsonio, schemas
from stations_generator.formats.stationfile import _plain_station, _plainly_valid

BAD = (None, "", "x", math.nan, math.inf, -1, 1441, 10.5, True, [], {}, [1.0], [1, 2, 3, 4, 5])


def _schema_ok(doc) -> bool:
    try:
        jsonio.validate(doc, schemas.STATION_MAP, "t")
    except InputError:
        return False
    return True


def test_fast_check_implies_the_schema(tmp_path):
    out = tmp_path / "map"
    result = CliRunner().invoke(
        main,
        [
            "generate",
            str(REPO / "zones" / "sioux-falls.geojson"),
            "--osm",
            str(SIOUX / "pois.json"),
            "--no-water-subtract",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "stations.geojson").read_text())
    assert _plainly_valid(doc) and _schema_ok(doc)
    stations = [f for f in doc["features"] if f["properties"].get("role") == "station"]
    assert len(stations) > 50 and all(_plain_station(f) for f in stations)
    accepted = rejected = 0
    for feature in stations[:10]:
        variants = []
        for key in (
            "id",
            "wait_min",
            "wait_max",
            "name",
            "category",
            "osm_id",
            "cluster_id",
            "role",
        ):
            for bad in BAD:
                f = copy.deepcopy(feature)
                f["properties"][key] = bad
                variants.append(f)
            f = copy.deepcopy(feature)
            f["properties"].pop(key, None)
            variants.append(f)
        for bad in BAD:
            f = copy.deepcopy(feature)
            f["geometry"]["coordinates"] = bad
            variants.append(f)
            f = copy.deepcopy(feature)
            f["geometry"] = bad
            variants.append(f)
        for f in variants:
            single = {**doc, "features": [f]}
            if _plain_station(f):
                accepted += 1
                assert _schema_ok(single), f
            else:
                rejected += 1
            assert _plainly_valid(single) == _schema_ok(single), f
    assert accepted > 50 and rejected > 500
