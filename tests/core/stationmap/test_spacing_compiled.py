"""The spacing core compiled by Cython (setup.py) picks the same stations as its Python source.

The installed ``spacing_state`` and ``spacing_search`` of ``stations_generator.core.stationmap``
are compiled modules wherever the build found a C compiler; their source files beside them
(and ``spacing.py``, the plain-Python API around them) are loaded here as plain Python
under other names, and both run the same selections on real OSM candidates (Sioux Falls, and
the Liechtenstein extract): every array of the result must be equal, element for element.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from support.paths import EXTRACTS

from stations_generator.core.geo.geodesy import LocalFrame
from stations_generator.core.stationmap import spacing, spacing_search, spacing_state
from stations_generator.core.stationmap.ranking import rank_order

SOURCE = Path(spacing.__file__)
#: The modules setup.py compiles, and their sources.
COMPILED = {
    module: SOURCE.with_name(f"{module.__name__.rpartition('.')[2]}.py")
    for module in (spacing_state, spacing_search)
}


@pytest.fixture(scope="module")
def pure(pure_spacing):
    """``spacing.py`` run as Python (the shared fixture of conftest)."""
    return pure_spacing


def test_the_build_compiles_the_core_where_it_can():
    # setup.py compiles unless there is no C compiler or the pure build is asked for.
    wanted = shutil.which(os.environ.get("CC", "cc")) is not None and os.environ.get(
        "STATIONS_GENERATOR_PURE_PYTHON", ""
    ) in ("", "0")
    assert spacing.IS_COMPILED is wanted
    for module, source in COMPILED.items():
        assert module.IS_COMPILED is wanted, module.__file__
        assert source.is_file() and source.with_suffix(".pxd").is_file()
    # The API around the kernel is plain Python, compiled build or not.
    assert SOURCE.suffix == ".py"


def test_the_running_core_is_its_source_or_built_from_it():
    """A Python build runs the sources themselves; a compiled one was built from them.

    (test_the_build_compiles_the_core_where_it_can says which build this must be.)
    """
    if not spacing.IS_COMPILED:
        # Nothing compiled, nothing to go stale: the modules in use are the sources.
        for module, source in COMPILED.items():
            assert Path(module.__file__) == source, module.__file__
        return
    for module, source in COMPILED.items():
        assert Path(module.__file__).parent == source.parent
        assert Path(module.__file__).suffix in (".so", ".pyd"), module.__file__
    record = json.loads(SOURCE.with_name("compiled_sources.json").read_text())
    # An edit after an editable install leaves the old compiled module in use; the .pxd
    # holds the compiled module's C types, so it counts as source too.
    sources = [p for source in COMPILED.values() for p in (source, source.with_suffix(".pxd"))]
    assert sorted(record) == sorted(p.name for p in sources)
    for source in sources:
        assert record[source.name] == hashlib.sha256(source.read_bytes()).hexdigest(), (
            f"{source.name} changed since it was compiled: run `python -m pip install -e .` again"
        )


def test_version_says_how_the_core_runs():
    from click.testing import CliRunner

    from stations_generator import __version__
    from stations_generator.cli import main

    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    from stations_generator.osm import pbf_layers

    build = "compiled (Cython)" if spacing.IS_COMPILED else "Python"
    reader = "libosmium" if pbf_layers.available() else "pyosmium"
    assert result.output == (
        f"stations-generator, version {__version__} (spacing core: {build}; PBF reader: {reader})\n"
    )


def test_the_source_loads_as_python(pure):
    assert not pure.IS_COMPILED
    assert pure.__file__ == str(SOURCE)
    # Its kernel is the Python source too, not the installed (compiled) modules.
    assert pure.Selection is not spacing_state.Selection
    assert pure.select_stations.__globals__["greedy"] is not spacing_search.greedy
    assert type(pure.select_stations.__globals__["greedy"]).__name__ == "function"


def _assert_python_selection(state, greedy) -> None:
    """A selection and search run as Python: plain objects, columns held in lists."""
    assert hasattr(state, "__dict__")
    assert type(greedy).__name__ == "function"
    for name in ("near", "cluster_of", "nb", "dist"):
        assert isinstance(getattr(state, name), list), name


def _assert_compiled_selection(state, greedy) -> None:
    """spacing_state.pxd typed the build: the selection is an extension type (no __dict__)
    whose columns are typed memoryviews of array.array buffers; spacing_search.pxd typed
    its loops (compiled functions, not Python ones)."""
    assert not hasattr(state, "__dict__")
    assert type(greedy).__name__ != "function"
    for name, code in [("near", "q"), ("cluster_of", "q"), ("nb", "q"), ("dist", "d")]:
        column = getattr(state, name)
        assert type(column).__name__ == "_memoryviewslice", name
        assert column.base.typecode == code, name


def test_the_installed_selection_holds_the_sources_numbers(pure, sioux_candidates):
    # The installed selection (compiled or not, as the build says) against the source's.
    x, y, scale, order = _inputs(sioux_candidates)
    transit = sioux_candidates["transit"].to_numpy(bool)
    rules = dict(cluster_radius_m=402, max_per_cluster=0)
    python_state = pure.Selection.empty(
        pure.NeighbourIndex(x, y, scale, 1000).as_arrays(), pure.SpacingRules(**rules), transit
    )
    _assert_python_selection(python_state, pure.select_stations.__globals__["greedy"])
    index = spacing.NeighbourIndex(x, y, scale, 1000)
    state = spacing_state.Selection.empty(index.as_arrays(), spacing.SpacingRules(**rules), transit)
    if spacing.IS_COMPILED:
        _assert_compiled_selection(state, spacing_search.greedy)
    else:
        _assert_python_selection(state, spacing_search.greedy)
    # Both hold the same numbers: the index's neighbours, and no station yet.
    assert list(state.nb) == python_state.nb and list(state.dist) == python_state.dist
    assert not any(state.near) and not any(state.cluster_of)
    state.add(int(order[0]), 0)
    python_state.add(int(order[0]), 0)
    assert list(state.near) == python_state.near and list(state.close) == python_state.close


def _inputs(candidates):
    lon, lat = candidates.geometry.x.to_numpy(), candidates.geometry.y.to_numpy()
    frame = LocalFrame.for_bounds(tuple(candidates.total_bounds))
    x, y = frame.project(lon, lat)
    return x, y, frame.scale_factors(lon, lat), rank_order(candidates)


def _same(a, b) -> None:
    for field in ("kept", "cluster_id", "seed", "reason", "conflict"):
        left, right = getattr(a, field), getattr(b, field)
        assert np.array_equal(left, right), field


RULES = [
    dict(cluster_radius_m=402, max_per_cluster=0),
    dict(cluster_radius_m=402, max_per_cluster=1),
    dict(cluster_radius_m=805, max_per_cluster=2),
    dict(min_spacing_m=150, cluster_gap_m=400, cluster_radius_m=300, max_per_cluster=3),
]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: "-".join(f"{v:g}" for v in r.values()))
@pytest.mark.parametrize("mode", ["greedy", "swaps", "search"])
def test_compiled_and_python_pick_the_same_sioux_falls_map(pure, sioux_candidates, rules, mode):
    x, y, scale, order = _inputs(sioux_candidates)
    transit = sioux_candidates["transit"].to_numpy(bool)
    kwargs = {
        "greedy": dict(improve=False),
        "swaps": dict(improve=True, search_iterations=0),
        "search": dict(improve=True, search_iterations=None),
    }[mode]
    results = []
    for module in (spacing, pure):
        index = module.NeighbourIndex(x, y, scale, 1000)
        results.append(
            module.select_stations(index, order, module.SpacingRules(**rules), transit, **kwargs)
        )
    _same(*results)
    assert results[0].count > 0


def test_compiled_and_python_agree_on_the_liechtenstein_extract(pure, catalogue):
    from stations_generator import elements_to_candidates, parse_play_window
    from stations_generator.osm.extracts import read_points

    path = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
    elements = read_points(path, catalogue.keeps, prefilter=catalogue.prefilter())
    candidates = elements_to_candidates(
        elements, catalogue, parse_play_window("7am-7pm", "sat,sun")
    )
    x, y, scale, order = _inputs(candidates)
    transit = candidates["transit"].to_numpy(bool)
    results = [
        module.select_stations(
            module.NeighbourIndex(x, y, scale, 1000),
            order,
            module.SpacingRules(cluster_radius_m=402, max_per_cluster=2),
            transit,
            improve=True,
        )
        for module in (spacing, pure)
    ]
    _same(*results)
    assert results[0].count > 10
    # closest_distances, the summary's figures, from both.
    cluster = results[0].cluster_id[results[0].kept].astype(np.int64)
    xs, ys, ss = x[results[0].kept], y[results[0].kept], scale[results[0].kept]
    assert spacing.closest_distances(
        spacing.NeighbourIndex(xs, ys, ss, 2000), cluster
    ) == pure.closest_distances(pure.NeighbourIndex(xs, ys, ss, 2000), cluster)
