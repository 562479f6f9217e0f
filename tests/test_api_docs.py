"""docs/api.md runs as documented: its Python blocks in order, in one namespace, from a
folder that looks like the repository root; each ```output block after a Python block
is exactly what that block printed (```text blocks belong to the command-line examples,
checked by test_docs_examples.py)."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

from support.paths import REPO

DOC = REPO / "docs" / "api.md"
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order."""
    return [(m.group(1), m.group(2)) for m in _BLOCK.finditer(text)]


def test_api_page_examples_run_as_shown(tmp_path, monkeypatch):
    work = tmp_path / "repo"
    work.mkdir()
    for entry in REPO.iterdir():
        if not entry.name.startswith(".") and entry.name != "out":
            (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    monkeypatch.chdir(work)
    found = blocks(DOC.read_text("utf-8"))
    namespace: dict = {}
    printed = None
    ran = checked = 0
    for language, body in found:
        if language == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out), warnings.catch_warnings():
                warnings.simplefilter("error")  # the documented examples run clean
                exec(compile(body, f"{DOC.name} block {ran + 1}", "exec"), namespace)
            printed, ran = out.getvalue(), ran + 1
        elif language == "output":
            assert printed is not None, "an output block before any Python block"
            assert printed.rstrip("\n").splitlines() == body.rstrip("\n").splitlines()
            checked += 1
    assert ran >= 6 and checked >= 4
    assert Path("out/api-sioux/stations.geojson").exists()
    assert not Path("out/api-sioux/stations.html").exists()  # the second write removed it
