"""Build hook: the package is pure Python, and its spacing core is also compiled by mypyc.

The compiled module is ``stations_generator/core/spacing.py`` itself, compiled: the same
stations, in under half the time on large maps (``bench/bench_spacing.py``). Where no C
compiler is at hand, or ``STATIONS_GENERATOR_PURE_PYTHON=1`` is set, the extension is
skipped and the same code runs as Python. The build records each compiled source's
SHA-256 in ``stations_generator/core/compiled_sources.json``, so the tests can tell a
compiled module that no longer matches its source (an editable install after an edit:
``pip install -e .`` again).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
#: Modules compiled by mypyc (each stays importable as plain Python too).
COMPILED = ["stations_generator/core/spacing.py"]
RECORD = ROOT / "stations_generator" / "core" / "compiled_sources.json"


def _remove_compiled() -> None:
    """Drop what an earlier editable build compiled in place (it would shadow the source)."""
    for source in COMPILED:
        path = ROOT / source
        for built in path.parent.glob(f"{path.stem}*.so"):
            if built.name.split(".")[0] in (path.stem, f"{path.stem}__mypyc"):
                built.unlink()


def compiled_extensions() -> list:
    RECORD.unlink(missing_ok=True)  # written again below, only for a compiled build
    if os.environ.get("STATIONS_GENERATOR_PURE_PYTHON", "") not in ("", "0"):
        _remove_compiled()
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # mypy not in the build environment: plain Python
        return []
    try:
        extensions = mypycify(COMPILED, opt_level="3")
    except (Exception, SystemExit) as exc:  # mypy's type check failed: say so, build Python
        print(
            f"warning: not compiling the spacing core ({exc!r}); it runs as Python", file=sys.stderr
        )
        return []
    for extension in extensions:
        extension.optional = True  # no compiler: the pure-Python package
    sources = {Path(p).name: hashlib.sha256((ROOT / p).read_bytes()).hexdigest() for p in COMPILED}
    RECORD.write_text(json.dumps(sources, indent=1, sort_keys=True) + "\n")
    return extensions


setup(ext_modules=compiled_extensions())
