"""``stations-generator generate``: a play area and OSM data -> the station map files.

The options are :class:`~stations_generator.app.requests.GenerateRequest`'s fields: their
flags, help texts, types and defaults are stated there, once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from stations_generator.app.request_fields import settings_of
from stations_generator.app.requests import GenerateRequest
from stations_generator.commands.console import Console
from stations_generator.commands.options import CONTEXT, overpass_options, request_option

__all__ = ["generate"]

SETTINGS = settings_of(GenerateRequest)


def _option(field_name: str):
    return request_option(GenerateRequest, field_name)


@click.command("generate", context_settings=CONTEXT)
@click.argument("play_area", required=False, type=click.Path(path_type=Path))
@_option("output_dir")
@_option("osm_files")
@_option("water_files")
@_option("exclude_files")
@_option("osm_relation")
@_option("place")
@_option("category_files")
@_option("only_categories")
@_option("include_transit")
@_option("min_spacing")
@_option("cluster_gap")
@_option("cluster_radius")
@_option("max_per_cluster")
@_option("game_size")
@_option("density_radius")
@_option("tiers")
@_option("playing_hours")
@_option("playing_days")
@_option("play_date")
@_option("water_subtract")
@_option("strict_priority")
@_option("optimize")
@_option("search_rounds")
@_option("time_limit")
@_option("explain")
@_option("html_map")
@_option("map_palette")
@_option("map_name")
@overpass_options(
    url_help="Overpass endpoint (repeatable; tried in order; env STATIONS_GENERATOR_OVERPASS_URL, space-separated).",
    timeout_help="Deadline in seconds for each Overpass (and --place Nominatim) request: every try, "
    "instance and wait must end within it, however slowly a server answers.",
    cache_help="Overpass cache folder [default: the user cache dir; env STATIONS_GENERATOR_CACHE_DIR].",
    no_cache_help="Neither read nor write the Overpass or the extract cache.",
)
@click.pass_obj
def generate(console: Console, play_area: Path | None, **options: Any) -> None:
    """Pick vehicle stations for a play area and write GeoJSON, CSV and KML.

    PLAY_AREA is a polygon file: GeoJSON, KML/KMZ (Google My Maps, Google Earth), GPX,
    a shapefile or GeoPackage (anything GDAL reads). Offline with --osm FILE; otherwise one batched
    Overpass query fetches the candidates and the water.

    \b
    Example (the bundled Sioux Falls data, offline):
      stations-generator generate zones/sioux-falls.geojson \\
        --osm examples/sioux-falls/pois.json --water examples/sioux-falls/water.json -o out/sioux-falls
    """
    # (the run's libraries load only when it runs: --help stays light)
    from stations_generator.app.generate import run_generate

    check_usage(play_area, options)
    request = request_from_options(play_area, options)
    run_generate(request, progress=console.progress("Tuning the cluster cap"))


def check_usage(play_area: Path | None, options: dict[str, Any]) -> None:
    """Refuse option combinations that make no sense, as click usage errors.

    Parameters
    ----------
    play_area : Path or None
        The PLAY_AREA argument.
    options : dict
        The command's options by value name.

    Raises
    ------
    click.UsageError
    """
    sources = [s for s in (play_area, options["osm_relation"], options["place"]) if s is not None]
    if len(sources) != 1:
        raise click.UsageError("give exactly one of PLAY_AREA, --osm-relation ID or --place NAME")
    if play_area is None and options["osm_files"]:  # the area comes from --osm-relation/--place
        raise click.UsageError(
            "--osm-relation and --place fetch the area online; with --osm give a PLAY_AREA file"
        )
    if options["time_limit"] is not None and not options["optimize"]:
        raise click.UsageError("--time-limit is the --optimize budget; add --optimize")
    if options["search_rounds"] is not None and options["strict_priority"]:
        raise click.UsageError(
            "--search re-packs the map and --strict-priority forbids that; drop one of them"
        )


def request_from_options(play_area: Path | None, options: dict[str, Any]) -> GenerateRequest:
    """The :class:`GenerateRequest` the command's options stand for.

    Parameters
    ----------
    play_area : Path or None
        The PLAY_AREA argument.
    options : dict
        The command's options by value name.

    Returns
    -------
    GenerateRequest
        An option that is optional and not given keeps the field's default.
    """
    fields: dict[str, Any] = {}
    for field_name, setting in SETTINGS.items():
        value = options[setting.name(field_name)]
        if not (setting.optional and value is None):
            fields[field_name] = setting.field_value(value)
    return GenerateRequest(
        play_area=play_area,
        **fields,
        overpass_urls=tuple(options["overpass_urls"]),
        overpass_timeout=options["overpass_timeout"],
        cache_dir=options["cache_dir"],
        use_cache=not options["no_cache"],
    )
