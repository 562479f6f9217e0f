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


def _program(code: str, *argv: str, cwd) -> subprocess.CompletedProcess:
    """Run ``code`` (which ends by calling cli.run) as a program with ``argv``."""
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=cwd, timeout=300
    )


_WITH_EXIT_FUNCTION = """
import atexit, sys
atexit.register(lambda: print("exit function ran", flush=True))
from stations_generator.cli import run
sys.argv[0] = "stations-generator"
run()
"""


@pytest.mark.parametrize(
    ("argv", "code"),
    [(["--help"], 0), (["generate", "no-such-area.geojson"], 2), (["nope"], 2)],
)
def test_leaving_at_once_keeps_the_code_the_output_and_the_exit_functions(tmp_path, argv, code):
    """run() ends the process without tearing the interpreter down (cli._leave): the exit
    code, every line of output and the exit functions are as Python's own exit gives them."""
    done = _program(_WITH_EXIT_FUNCTION, *argv, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    assert done.stdout.endswith("exit function ran\n")
    if code == 0:  # the whole help, up to its last command
        assert done.stdout.startswith("Usage: ")
        assert done.stdout.count("\n") > 20
    else:
        assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr


def test_a_thread_still_running_is_waited_for(tmp_path):
    """A non-daemon thread left running: Python's ordinary exit, which waits for it."""
    code = """
import sys, threading, time
def late():
    time.sleep(0.3)
    print("thread finished", flush=True)
threading.Thread(target=late).start()
from stations_generator.cli import run
sys.argv[0] = "stations-generator"
run()
"""
    done = _program(code, "--version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("thread finished")


def test_leaving_at_once_writes_whole_files(tmp_path):
    """A generate through run(): every output file whole, then the process gone."""
    out = tmp_path / "out"
    code = "import sys; from stations_generator.cli import run; run()"
    done = _program(
        code, "-q", "generate", str(SIOUX_FALLS), "--osm", str(POIS), "-o", str(out), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    import json

    collection = json.loads((out / "stations.geojson").read_text(encoding="utf-8"))
    assert any(f["properties"].get("role") == "station" for f in collection["features"])
    assert (out / "stations.kml").read_text(encoding="utf-8").endswith("</kml>\n")


def test_a_reader_that_leaves_ends_the_program_quietly():
    """`stations-generator … | head -1`: the pipe closes before the output is written; the
    program stops with 141 (128 + SIGPIPE, as tools killed by it) and says nothing."""
    program = subprocess.Popen(
        [sys.executable, "-m", "stations_generator", "referee", "state",
         str(REPO / "examples" / "referee" / "helsinki-log.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
    )  # fmt: skip
    program.stdout.close()  # the reader leaves before anything is written
    stderr = program.stderr.read().decode()
    assert program.wait(60) == 141
    assert stderr == ""
