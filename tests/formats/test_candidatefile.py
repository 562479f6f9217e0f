"""The reader of ``candidates.geojson``: what ``generate --explain`` writes reads back whole,
and a hostile file gets one line naming the problem (never a traceback or a silently odd page)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.paths import REPO

from stations_generator.cli import main
from stations_generator.errors import InputError
from stations_generator.formats.candidatefile import read_candidate_map

AREA = REPO / "zones" / "sioux-falls.geojson"
SUBSET = REPO / "tests" / "data" / "overpass" / "sioux-falls-pois-subset.json"


@pytest.fixture(scope="module")
def explained(tmp_path_factory) -> dict:
    """The candidates.geojson of a real --explain run on Sioux Falls."""
    folder = tmp_path_factory.mktemp("explain")
    args = ["-q", "generate", str(AREA), "--osm", str(SUBSET), "--explain", "-o", str(folder)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return json.loads((folder / "candidates.geojson").read_text(encoding="utf-8"))


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "candidates.geojson"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_written_file_reads_back_whole(explained, tmp_path):
    read = read_candidate_map(_write(tmp_path, explained))
    features = [f for f in explained["features"] if f["properties"]["role"] == "candidate"]
    assert len(read.properties) == len(features) == len(read.points)
    assert {p["status"] for p in read.properties} <= {"kept", "rejected"}
    for props, (lon, lat), feature in zip(read.properties, read.points, features, strict=True):
        assert props == feature["properties"]
        assert [lon, lat] == feature["geometry"]["coordinates"][:2]


def _mutations(explained: dict) -> list[tuple[str, dict, str]]:
    """(name, document, a fragment the one-line message must hold)."""
    cases = []

    def mutated(name: str, change, fragment: str) -> None:
        doc = copy.deepcopy(explained)
        change(doc["features"][0])
        cases.append((name, doc, fragment))

    mutated("status not a word", lambda f: f["properties"].update(status={"x": 1}), "status")
    mutated("unknown status", lambda f: f["properties"].update(status="maybe"), "status")
    mutated("name a list", lambda f: f["properties"].update(name=["<b>"]), "name")
    mutated("priority text", lambda f: f["properties"].update(priority="high"), "priority")
    mutated(
        "a polygon", lambda f: f.update(geometry={"type": "Polygon", "coordinates": []}), "Point"
    )
    mutated("off the globe", lambda f: f["geometry"].update(coordinates=[200.0, 10.0]), "globe")
    mutated("no properties", lambda f: f.pop("properties") and f.update(properties=None), "")
    empty = {"type": "FeatureCollection", "features": []}
    cases.append(("no candidates", empty, "no candidate features"))
    bare = {"type": "FeatureCollection", "features": [{"type": "Feature"}]}
    cases.append(("a bare feature", bare, "no candidate features"))
    numbers = {"type": "FeatureCollection", "features": [7]}
    cases.append(("not a feature", numbers, "features[0]"))
    cases.append(("a list", [1, 2], "FeatureCollection"))
    return cases


def test_hostile_files_get_one_line(explained, tmp_path):
    for name, doc, fragment in _mutations(explained):
        path = _write(tmp_path, doc)
        try:
            read = read_candidate_map(path)
        except InputError as exc:
            message = str(exc)
            assert "\n" not in message and fragment in message, (name, message)
        else:
            # Only a feature whose role is gone may be skipped, and then it is not read.
            assert name == "no properties", name
            assert len(read.properties) == len(explained["features"]) - 1


def test_missing_and_folder_name_the_file(tmp_path):
    for path, fragment in ((tmp_path / "nope.geojson", "does not exist"), (tmp_path, "folder")):
        with pytest.raises(InputError, match=fragment) as caught:
            read_candidate_map(path)
        assert "candidates file" in str(caught.value) and "--explain" in str(caught.value)
