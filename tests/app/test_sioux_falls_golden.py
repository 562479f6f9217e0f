"""The bundled Sioux Falls map, pinned: the suite's one golden-file test.

The README's quick start (``generate zones/sioux-falls.geojson`` on the bundled data) is
run with ``--explain`` and its stations, clusters, candidates and rejections are compared
with ``tests/data/golden/sioux-falls.json``. Every other test states properties (the
rules hold, a page shows as many stations as its map, a printed line equals the README's);
this one fails when the algorithm's result changes at all, so that such a change is a
deliberate one, reviewed in the diff of the golden file.

After a deliberate change: ``STATIONS_GENERATOR_UPDATE_GOLDEN=1 python -m pytest -n 0
tests/app/test_sioux_falls_golden.py`` rewrites the file (and fails, so that no run
passes by rewriting it); review and commit its diff.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import geopandas as gpd
import pytest
from click.testing import CliRunner
from support.geodesic_checks import rule_violations
from support.paths import DATA, REPO, SIOUX
from support.quickstart import summary

from stations_generator.cli import main

GOLDEN = DATA / "golden" / "sioux-falls.json"
UPDATE = os.environ.get("STATIONS_GENERATOR_UPDATE_GOLDEN", "") not in ("", "0")


@pytest.fixture(scope="module")
def quick_start(tmp_path_factory) -> tuple[str, Path]:
    """stderr and the output folder of the quick start, with ``--explain``."""
    out = tmp_path_factory.mktemp("sioux-golden")
    args = [
        "generate", REPO / "zones" / "sioux-falls.geojson", "--osm", SIOUX / "pois.json",
        "--water", SIOUX / "water.json", "-o", out, "--explain",
    ]  # fmt: skip
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stderr, out


def _features(path: Path, role: str) -> list[dict]:
    collection = json.loads(path.read_text("utf-8"))
    return [f["properties"] for f in collection["features"] if f["properties"]["role"] == role]


def _result(out: Path) -> dict:
    """What the golden file holds, read from the run's output files."""
    stations = _features(out / "stations.geojson", "station")
    candidates = _features(out / "candidates.geojson", "candidate")
    rejected = Counter(c["reason"] for c in candidates if c["status"] == "rejected")
    return {
        "stations": len(stations),
        "clusters": len({s["cluster_id"] for s in stations}),
        "candidates": len(candidates),
        "rejected": dict(sorted(rejected.items())),
        # Station id -> cluster, in the output's order.
        "station_clusters": {s["id"]: s["cluster_id"] for s in stations},
    }


def test_the_quick_start_map_is_the_golden_one(quick_start):
    _, out = quick_start
    got = _result(out)
    if UPDATE:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=1) + "\n", "utf-8")
        pytest.fail(
            f"rewrote {GOLDEN.relative_to(REPO)}: review its diff, then run without the update"
        )
    golden = json.loads(GOLDEN.read_text("utf-8"))
    for key in ("stations", "clusters", "candidates", "rejected"):
        assert got[key] == golden[key], key
    assert list(got["station_clusters"].items()) == list(golden["station_clusters"].items())


def test_the_summary_states_the_golden_counts(quick_start):
    stderr, _ = quick_start
    golden = json.loads(GOLDEN.read_text("utf-8"))
    line = summary(stderr)
    assert (line.stations, line.clusters, line.candidates) == (
        golden["stations"],
        golden["clusters"],
        golden["candidates"],
    )
    shown = re.search(r"\(rejected: ([^)]*)\)", line.line).group(1)
    counts = {reason: int(n) for n, reason in (part.split(" ") for part in shown.split(", "))}
    assert counts == golden["rejected"]
    assert sum(counts.values()) + line.stations == line.candidates


def test_the_golden_map_keeps_the_rules(quick_start):
    """The pinned map itself is checked geodesically: 300 m within, 1000 m between clusters."""
    _, out = quick_start
    stations = gpd.read_file(out / "stations.geojson")
    stations = stations[stations["role"] == "station"].reset_index(drop=True)
    assert len(stations) > 0
    assert rule_violations(stations, 300, 1000) == []
