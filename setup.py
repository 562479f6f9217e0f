"""Build hook: the package is pure Python; its spacing core and PBF reader are also compiled.

The compiled modules are the kernel of ``stations_generator/core/stationmap/spacing.py``:
``spacing_state.py`` (the selection's state) and ``spacing_search.py`` (the greedy, the
search and the swaps over it), each compiled with the C types that the ``.pxd`` beside it
declares (Cython's "augmenting .pxd": the ``.py`` stays plain Python): the same
stations, about five times faster than the plain source runs on large maps
(``bench/bench_spacing.py``). Where no C compiler is at hand, or
``STATIONS_GENERATOR_PURE_PYTHON=1`` is set, the extension is skipped and the same code
runs as Python. The build records the SHA-256 of each compiled source and its ``.pxd``
in ``stations_generator/core/stationmap/compiled_sources.json``, so the tests can tell a compiled
module that no longer matches its source (an editable install after an edit:
``pip install -e .`` again).

The PBF reader (``stations_generator/osm/pbf/``: C++ over libosmium, wrapped by Cython) is
built where libosmium's, protozero's and zlib's headers are found (Debian/Ubuntu:
``libosmium2-dev``, which ``scripts/install-test-services.sh`` installs) and a C++ compiler
is at hand: it reads a PBF extract's layers in about half the time pyosmium takes, with
memory bounded by what is kept. Without it, extracts are read with pyosmium (the same
layers). Its sources' SHA-256 go to ``stations_generator/osm/pbf/compiled_sources.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
#: Modules compiled by Cython (each stays importable as plain Python too).
COMPILED = [
    "stations_generator/core/stationmap/spacing_state.py",
    "stations_generator/core/stationmap/spacing_search.py",
]
#: Modules compiled by earlier versions and no longer: an editable build's leftover
#: extension would shadow the plain-Python source (spacing.py was compiled whole before
#: its kernel moved into spacing_state and spacing_search).
RETIRED = ["stations_generator/core/stationmap/spacing.py"]
RECORD = ROOT / "stations_generator" / "core" / "stationmap" / "compiled_sources.json"
#: The PBF reader: its Cython wrapper, the C++ it wraps, and where its record goes.
PBF_READER = "stations_generator/osm/pbf/reader.pyx"
PBF_HEADER = "stations_generator/osm/pbf/blob_reader.hpp"
PBF_RECORD = ROOT / "stations_generator" / "osm" / "pbf" / "compiled_sources.json"
#: The headers the PBF reader includes (libosmium is header-only; it links zlib alone).
PBF_NEEDS = ("osmium/osm.hpp", "protozero/pbf_reader.hpp", "zlib.h")
#: Checks a compiled loop would otherwise make on every array access: the indices come
#: from the neighbour index itself, and the typed arrays are set in ``__init__``.
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    # The types are the .pxd files'; the .py annotations stay for readers and Python.
    "annotation_typing": False,
}


def _sources() -> list[Path]:
    """Each compiled module's source and the .pxd that types it."""
    return [ROOT / p for source in COMPILED for p in (source, source[:-3] + ".pxd")]


def _remove_compiled(sources: list[str]) -> None:
    """Drop what an earlier editable build compiled in place (it would shadow the source)."""
    for source in sources:
        path = ROOT / source
        path.with_suffix(".c").unlink(missing_ok=True)
        path.with_suffix(".cpp").unlink(missing_ok=True)
        for built in path.parent.glob(f"{path.stem}.*.so"):
            built.unlink()


def _include_dirs() -> list[Path]:
    """Where the C++ compiler looks for headers (its defaults and the usual variables)."""
    dirs = [
        *os.environ.get("CPLUS_INCLUDE_PATH", "").split(os.pathsep),
        *os.environ.get("CPATH", "").split(os.pathsep),
        os.path.join(sys.prefix, "include"),
        "/usr/local/include",
        "/usr/include",
    ]
    return [Path(d) for d in dirs if d]


def _pbf_reader(cythonize) -> list:
    """The PBF reader's extension, where its headers are found (else none)."""
    dirs = _include_dirs()
    missing = [h for h in PBF_NEEDS if not any((d / h).is_file() for d in dirs)]
    if missing:
        print(
            f"note: not building the compiled PBF reader (no {', '.join(missing)}: install "
            "libosmium2-dev); extracts are read with pyosmium",
            file=sys.stderr,
        )
        return []
    from setuptools import Extension

    reader = Extension(
        "stations_generator.osm.pbf.reader",
        [PBF_READER],
        language="c++",
        include_dirs=[str(ROOT / Path(PBF_HEADER).parent)],
        libraries=["z"],
        extra_compile_args=["-std=c++17", "-O2", "-pthread", "-Wno-stringop-overread"],
        extra_link_args=["-pthread"],
    )
    try:
        built = cythonize([reader], compiler_directives=DIRECTIVES, quiet=True)
    except Exception as exc:
        print(f"warning: not building the compiled PBF reader ({exc!r})", file=sys.stderr)
        return []
    sources = {
        Path(p).name: hashlib.sha256((ROOT / p).read_bytes()).hexdigest()
        for p in (PBF_READER, PBF_HEADER)
    }
    PBF_RECORD.write_text(json.dumps(sources, indent=1, sort_keys=True) + "\n")
    return built


def compiled_extensions() -> list:
    RECORD.unlink(missing_ok=True)  # written again below, only for a compiled build
    PBF_RECORD.unlink(missing_ok=True)
    _remove_compiled(RETIRED)
    if os.environ.get("STATIONS_GENERATOR_PURE_PYTHON", "") not in ("", "0"):
        _remove_compiled(COMPILED)
        _remove_compiled([PBF_READER])
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:  # Cython not in the build environment: plain Python
        return []
    try:
        extensions = cythonize(COMPILED, compiler_directives=DIRECTIVES, quiet=True)
    except Exception as exc:  # Cython could not translate it: say so, build Python
        print(
            f"warning: not compiling the spacing core ({exc!r}); it runs as Python", file=sys.stderr
        )
        return []
    sources = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in _sources()}
    RECORD.write_text(json.dumps(sources, indent=1, sort_keys=True) + "\n")
    _remove_compiled([PBF_READER])  # (an editable build's old one: built again, or not)
    extensions += _pbf_reader(cythonize)
    for extension in extensions:
        extension.optional = True  # no compiler: the pure-Python package
    return extensions


setup(ext_modules=compiled_extensions())
