"""The program as run (``python -m stations_generator``, the installed script): exit codes,
one-line messages, whole output files."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.paths import REPO

SIOUX_FALLS = REPO / "zones" / "sioux-falls.geojson"
POIS = REPO / "examples" / "sioux-falls" / "pois.json"


@pytest.mark.parametrize(
    ("argv", "code", "stderr"),
    [
        (["generate", "no-such-area.geojson"], 2, "error: 'no-such-area.geojson' does not exist"),
        (["no-such-command"], 2, "error: no such command 'no-such-command'"),
        (["--help"], 0, ""),
    ],
)
def test_program_exit_codes_and_messages(argv, code, stderr):
    done = subprocess.run(
        [sys.executable, "-m", "stations_generator", *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == code
    assert stderr in done.stderr
    assert "Traceback" not in done.stderr
    if code == 0:
        assert done.stdout.startswith("Usage: ") and "generate" in done.stdout


def test_generate_through_the_program_writes_every_file(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable, "-m", "stations_generator", "generate", str(SIOUX_FALLS),
            "--osm", str(POIS), "--no-water-subtract", "-o", str(out),
        ],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in out.iterdir())
    assert written == ["stations.csv", "stations.geojson", "stations.kml"]
    # Whole files: the GeoJSON parses and the CSV ends with its last line.
    import json

    collection = json.loads((out / "stations.geojson").read_text(encoding="utf-8"))
    assert collection["features"]
    assert (out / "stations.csv").read_text(encoding="utf-8").endswith("\n")


def test_the_installed_program_is_run():
    # The console script (pyproject's [project.scripts]) runs cli.run, as
    # python -m stations_generator does.
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="stations-generator")
    assert script.value == "stations_generator.cli:run"
    main_module = (REPO / "stations_generator" / "__main__.py").read_text(encoding="utf-8")
    assert "run()" in main_module
