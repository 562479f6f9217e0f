"""The code base stays ruff-clean (ruff is a test extra)."""

from __future__ import annotations

import shutil
import subprocess
import sys

from support.paths import REPO


def test_ruff_clean():
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    proc = subprocess.run([*cmd, "check", "."], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_readme_test_command_is_what_ci_runs():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    command = 'bash scripts/install-test-services.sh && python -m pip install -e ".[test]" && python -m pytest'
    assert command in readme and command in ci
