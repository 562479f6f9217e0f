"""``stations-generator extract``: work with OSM extracts ahead of the commands that read them."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import click

from stations_generator.commands.console import Console
from stations_generator.commands.options import CONTEXT
from stations_generator.errors import InputError
from stations_generator.settings import CACHE_DIR_ENV

log = logging.getLogger(__name__)


@click.group(context_settings=CONTEXT)
def extract() -> None:
    """OSM extracts: read one into the extract cache ahead of time.

    Every command that reads an extract (generate, report, questions) keeps what it
    read in the extract cache; `extract index` does that ahead of time, for every
    layer, so the first command on a country extract takes seconds too.
    """


@extract.command("index", context_settings=CONTEXT)
@click.argument("extract_file", metavar="EXTRACT", type=click.Path(path_type=Path))
@click.option(
    "--categories",
    "category_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="TOML catalogue additions the later commands will use (repeatable); the "
    "default catalogue and the report's transit lines are always indexed.",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    envvar=CACHE_DIR_ENV,
    help="Cache folder (the extract cache is its 'extracts' folder) [default: the user "
    "cache dir; env STATIONS_GENERATOR_CACHE_DIR].",
)
@click.pass_obj
def index(console: Console, extract_file: Path, category_files, cache_dir: Path | None) -> None:
    """Read EXTRACT (.osm.pbf, .osm, .osm.bz2, …) once and keep every layer in the cache.

    The layers: the catalogue's places and stations, water, named admin areas,
    coastlines and high-speed rail. An entry already there and valid is kept.

    Example:
      stations-generator extract index netherlands-latest.osm.pbf
    """
    from stations_generator.core.catalogue import load_catalogue
    from stations_generator.osm import extract_io, layers
    from stations_generator.osm.extract_cache import ExtractCache

    extract_io.open_extract(extract_file)  # one clear line for a missing or unknown file
    catalogue = load_catalogue(category_files)
    cache = ExtractCache(
        Path(cache_dir) / "extracts" if cache_dir is not None else None,
        log=log.debug,
        warn=log.warning,
    )
    bar = console.progress(f"Indexing {extract_file.name}")
    started = time.perf_counter()
    with layers.use_cache(cache):
        count = layers.build_index(extract_file, catalogue, bar)
    if not cache.writable:  # its folder could not be used or written (the cache warned why)
        raise InputError(
            f"nothing was indexed: the extract cache folder {cache.folder} cannot be used or written; "
            "give a writable folder with --cache-dir"
        )
    log.info(
        f"Indexed {extract_file.name}: {count} objects in "
        f"{time.perf_counter() - started:.1f} s, cached in {cache.folder}"
    )
