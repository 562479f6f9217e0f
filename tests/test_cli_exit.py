"""The program's quick exit (cli.run): no interpreter teardown, nothing lost on the way out."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SIOUX_FALLS = REPO / "zones" / "sioux-falls.geojson"
POIS = REPO / "examples" / "sioux-falls" / "pois.json"

# Prints "torn down" when the interpreter frees module globals at shutdown.
TEARDOWN_WITNESS = """
import atexit, sys, threading
class Witness:
    def __del__(self):
        sys.stdout.write("torn down\\n")
        sys.stdout.flush()
witness = Witness()
"""


def _python(code: str, *argv: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    script = f"import sys\nsys.argv = ['stations-generator', *{list(argv)!r}]\n"
    script += textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_run_skips_teardown_and_main_does_not():
    # The same witness is torn down after main() (the ordinary exit) and not after run().
    ordinary = _python(
        TEARDOWN_WITNESS + "from stations_generator.cli import main\nmain()", "--version"
    )
    quick = _python(TEARDOWN_WITNESS + "from stations_generator.cli import run\nrun()", "--version")
    assert ordinary.returncode == quick.returncode == 0
    assert ordinary.stdout.startswith("stations-generator, version")
    assert "torn down" in ordinary.stdout
    assert quick.stdout.startswith("stations-generator, version")
    assert "torn down" not in quick.stdout


def test_run_keeps_atexit_functions_and_buffered_output():
    code = """
    import atexit, sys
    sys.stdout = open(sys.stdout.fileno(), "w", buffering=1 << 20, closefd=False)
    atexit.register(lambda: print("atexit ran"))
    from stations_generator.cli import run
    run()
    """
    done = _python(code, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [done.stdout.splitlines()[0], "atexit ran"]
    assert done.stdout.startswith("stations-generator, version")


def test_run_waits_for_other_threads():
    code = """
    import sys, threading, time
    def late():
        time.sleep(0.3)
        print("thread done", flush=True)
    threading.Thread(target=late).start()
    from stations_generator.cli import run
    run()
    """
    done = _python(code, "--version")
    assert done.returncode == 0, done.stderr
    assert "thread done" in done.stdout


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


def test_string_exit_is_left_to_python():
    code = """
    import sys
    from stations_generator import cli
    cli.main.main = lambda: sys.exit("stopped: a message, not a code")
    cli.run()
    """
    done = _python(code)
    assert done.returncode == 1
    assert "stopped: a message, not a code" in done.stderr


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
    # The console script (pyproject's [project.scripts]) ends through cli.run, as
    # python -m stations_generator does.
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="stations-generator")
    assert script.value == "stations_generator.cli:run"
    main_module = (REPO / "stations_generator" / "__main__.py").read_text(encoding="utf-8")
    assert "run()" in main_module
