"""Test-session setup and the fixtures shared by the suite.

No test may reach the internet (:mod:`support.network`); the real-data fixtures
(Sioux Falls, a dense Helsinki station map) are built once per session. Plain helpers
live in ``tests/support/`` and are imported from there, never from this file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import network
from support.cases import DENSE_OPTIONS, extract_area
from support.paths import HELSINKI, SIOUX


@pytest.fixture(autouse=True, scope="session")
def _block_network():
    network.block()
    yield
    network.unblock()


@pytest.fixture(autouse=True, scope="session")
def _extract_cache(tmp_path_factory):
    """The extract cache of the session: a fresh folder, never the user's (subprocesses too)."""
    import os

    folder = tmp_path_factory.mktemp("extract-cache")
    old = os.environ.get("STATIONS_GENERATOR_EXTRACT_CACHE_DIR")
    os.environ["STATIONS_GENERATOR_EXTRACT_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("STATIONS_GENERATOR_EXTRACT_CACHE_DIR", None)
    else:
        os.environ["STATIONS_GENERATOR_EXTRACT_CACHE_DIR"] = old


@pytest.fixture(autouse=True, scope="session")
def _data_folder(tmp_path_factory):
    """The per-user data folder of the session (``serve``'s games database): a fresh one,
    never the user's (subprocesses inherit it)."""
    import os

    folder = tmp_path_factory.mktemp("xdg-data")
    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = old


# --- the local Overpass and Nominatim ------------------------------------------


@pytest.fixture
def local_services(tmp_path, monkeypatch):
    """``osm_services`` running, and the environment pointing the CLI at them (cwd tmp_path)."""
    from support.osm_services import serve

    monkeypatch.chdir(tmp_path)
    with serve() as running:
        env = {**running.env(tmp_path / "overpass"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
        yield running, env


#: The spacing core's modules that setup.py compiles with Cython (beside their .pxd).
COMPILED_SPACING = ("spacing_state", "spacing_search")


@pytest.fixture(scope="session")
def pure_spacing():
    """``core/stationmap/spacing.py`` and the two modules setup.py compiles
    (:data:`COMPILED_SPACING`) run from their sources as Python, under other names, beside
    the installed (maybe compiled) modules; the returned ``spacing`` module holds the
    Python ones' names (``pure.Selection`` is the Python class)."""
    import importlib.util
    import sys

    from stations_generator.core.stationmap import spacing

    package = "stations_generator.core.stationmap"
    folder = Path(spacing.__file__).parent
    names = (*COMPILED_SPACING, "spacing")
    installed = {name: sys.modules[f"{package}.{name}"] for name in names}
    aliases = []
    try:
        for name in names:
            alias = f"{package}._{name}_as_python"
            spec = importlib.util.spec_from_file_location(alias, folder / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[alias] = module
            aliases.append(alias)
            # The next module's imports by the real name find this Python one.
            sys.modules[f"{package}.{name}"] = module
            spec.loader.exec_module(module)
    finally:
        for name, module in installed.items():
            sys.modules[f"{package}.{name}"] = module
    try:
        yield sys.modules[aliases[-1]]
    finally:
        for alias in aliases:
            del sys.modules[alias]


# --- real-data fixtures -----------------------------------------------------


@pytest.fixture(scope="session")
def catalogue():
    from stations_generator import load_catalogue

    return load_catalogue()


@pytest.fixture(scope="session")
def sioux_area():
    from stations_generator import load_polygons

    return load_polygons(SIOUX / "polygon.geojson")


@pytest.fixture(scope="session")
def sioux_data(catalogue, sioux_area):
    from stations_generator.osm.sources import read_files

    return read_files([SIOUX / "pois.json"], [SIOUX / "water.json"], sioux_area, catalogue)


@pytest.fixture(scope="session")
def sioux_candidates(sioux_data, catalogue):
    from stations_generator import elements_to_candidates, parse_play_window

    return elements_to_candidates(
        sioux_data.elements, catalogue, parse_play_window("7am-7pm", "sat,sun")
    )


@pytest.fixture(scope="session")
def helsinki_stations_file(tmp_path_factory) -> Path:
    """stations.geojson of the Helsinki extract, generated with DENSE_OPTIONS."""
    from click.testing import CliRunner

    from stations_generator.cli import main

    out = tmp_path_factory.mktemp("helsinki-map")
    args = ["-q", "generate", extract_area(HELSINKI, out), "--osm", HELSINKI, "-o", out]
    result = CliRunner().invoke(main, [str(a) for a in [*args, *DENSE_OPTIONS]])
    assert result.exit_code == 0, result.output
    return out / "stations.geojson"
