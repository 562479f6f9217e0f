"""The ``board`` command group: generate, play, track, simulate (thin: parse, call, report)."""

from __future__ import annotations

from pathlib import Path

import click

from ..cli import CONTEXT, Group
from ..params import SECONDS

SHARE = click.FloatRange(0.0, 1.0)


@click.group(cls=Group, context_settings=CONTEXT)
def board() -> None:
    """Het Jachtseizoen boards from real maps: generate, referee, track, simulate.

    See docs/board.md for the board format, the terrain rules and the house rules.
    """


@board.command(context_settings=CONTEXT)
@click.argument("area", type=click.Path(path_type=Path))
@click.option(
    "--osm",
    "osm_file",
    type=click.Path(path_type=Path),
    help="Work offline from an .osm/.osm.gz/.osm.bz2/.osm.pbf extract [default: fetch from Overpass].",
)
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(path_type=Path),
    default=Path("out/board"),
    show_default=True,
    help="Folder for board.json/.geojson/.html/.pdf/.png.",
)
@click.option(
    "--cols",
    type=click.IntRange(1, 702),
    help="Columns (A…); with --rows [default: 24×36, turned for a wide area].",
)
@click.option("--rows", type=click.IntRange(1, 999), help="Rows (01…); with --cols.")
@click.option(
    "--cell-km",
    type=click.FloatRange(0.01, 1000, min_open=False),
    help="Square size in km (instead of --cols/--rows).",
)
@click.option(
    "--area-share",
    type=SHARE,
    default=0.5,
    show_default=True,
    help="A square is on the board when the area covers this share of it.",
)
@click.option(
    "--water-share",
    type=SHARE,
    default=0.5,
    show_default=True,
    help="Water cover that makes a square water.",
)
@click.option(
    "--forest-share",
    type=SHARE,
    default=0.5,
    show_default=True,
    help="Forest cover that makes a square forest.",
)
@click.option(
    "--builtup-share",
    type=SHARE,
    default=0.3,
    show_default=True,
    help="Residential/commercial/retail/industrial cover that makes a square built-up.",
)
@click.option(
    "--towns-above",
    type=click.IntRange(min=0),
    help="Also count place=town with at least this population as big cities.",
)
@click.option(
    "--station-km",
    type=click.FloatRange(0.0, 50.0),
    default=2.5,
    show_default=True,
    help="A city is on the railway when a station lies this close to its centre.",
)
@click.option(
    "--junction-merge-km",
    type=click.FloatRange(0.0, 10.0),
    default=1.5,
    show_default=True,
    help="Junction nodes of one name this close are one junction.",
)
@click.option(
    "--paper",
    type=click.Choice(["a3", "a4"], case_sensitive=False),
    default="a3",
    show_default=True,
    help="Paper size of board.pdf/board.png.",
)
@click.option("--name", help="Board title [default: the area file's name].")
@click.option(
    "--overpass-url",
    "overpass_urls",
    multiple=True,
    envvar="STATIONS_GENERATOR_OVERPASS_URL",
    help="Overpass endpoint (repeatable).",
)
@click.option(
    "--overpass-timeout",
    type=SECONDS(min=1),
    default=300.0,
    show_default=True,
    help="Deadline in seconds for the Overpass request.",
)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path),
    envvar="STATIONS_GENERATOR_CACHE_DIR",
    help="Overpass cache folder.",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the Overpass cache.")
@click.pass_obj
def generate(
    console,
    area,
    osm_file,
    output_dir,
    cols,
    rows,
    cell_km,
    area_share,
    water_share,
    forest_share,
    builtup_share,
    towns_above,
    station_km,
    junction_merge_km,
    paper,
    name,
    overpass_urls,
    overpass_timeout,
    cache_dir,
    no_cache,
) -> None:
    """Generate a board for AREA (a GeoJSON polygon) from OpenStreetMap.

    \b
    Example (offline, the bundled Liechtenstein extract):
      stations-generator board generate zones/liechtenstein.geojson \\
        --osm tests/data/osm-extracts/liechtenstein-2013-08.osm.pbf -o out/board
    """
    from .build import BoardRequest, run_board_generate
    from .terrain import Thresholds

    client = None
    if osm_file is None:
        from ..osm import overpass

        client = overpass.OverpassClient(
            overpass_urls or overpass.DEFAULT_ENDPOINTS,
            timeout=overpass_timeout,
            cache_dir=cache_dir,
            use_cache=not no_cache,
            log=console.detail,
            notify=console.info,
            status=console.status,
        )
    request = BoardRequest(
        area=area,
        output_dir=output_dir,
        osm_file=osm_file,
        cols=cols,
        rows=rows,
        cell_km=cell_km,
        thresholds=Thresholds(
            area_share=area_share,
            water_share=water_share,
            forest_share=forest_share,
            builtup_share=builtup_share,
            town_population=towns_above,
            station_radius_m=station_km * 1000.0,
            junction_merge_m=junction_merge_km * 1000.0,
        ),
        paper=paper.lower(),
        name=name,
        overpass_client=client,
    )
    run_board_generate(request, console)
