"""The requests of the use cases: what each was asked to do, every setting stated once.

Light to import (no numpy, shapely or pyproj): ``generate --help`` builds its options from
:class:`GenerateRequest` without loading what a run needs.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import click

from stations_generator import settings
from stations_generator.app.request_fields import (
    MAP_PALETTE,
    METRES,
    SECONDS,
    check_fields,
    check_flag,
    check_items,
    check_number,
    check_path,
    check_text,
    parse_date,
    setting,
)

__all__ = ["GenerateRequest"]


@dataclass(frozen=True)
class GenerateRequest:
    """Everything the ``generate`` command was asked to do.

    The one place the options of ``generate`` and their defaults are stated: the
    command line's options (:mod:`stations_generator.commands.generate`) and the
    page's settings (:mod:`stations_generator.serve.options`) are made from these
    fields' :class:`~stations_generator.app.request_fields.Setting` metadata, and
    ``tests/app/test_requests.py`` checks :func:`stations_generator.api.make_station_map`'s
    keyword defaults against them.

    Made, it checks every field as the command line checks its option (the same click
    type: range, finiteness, choices, date form; see
    :func:`~stations_generator.app.request_fields.check_fields`), so the command line,
    the page and the Python API refuse the same values: an
    :class:`~stations_generator.errors.ArgumentValueError` or
    :class:`~stations_generator.errors.ArgumentTypeError` naming the field.
    """

    play_area: Path | None = None
    osm_relation: int | None = setting(
        None, "--osm-relation", "Online: use this OSM relation's area as the play area.",
        type=click.IntRange(min=1),
    )  # fmt: skip
    place: str | None = setting(
        None, "--place", 'Online: use this named place as the play area, e.g. "Sioux Falls, SD".'
    )
    output_dir: Path = setting(
        Path("out"), "--output-dir", "Folder for stations.geojson, stations.csv, stations.kml.",
        type=click.Path(path_type=Path), short="-o", show_default=True,
    )  # fmt: skip
    osm_files: tuple[Path, ...] = setting(
        (), "--osm", "Work offline from a saved Overpass JSON or an .osm/.osm.bz2/.osm.pbf "
        "extract (repeatable).", type=click.Path(path_type=Path),
    )  # fmt: skip
    water_files: tuple[Path, ...] = setting(
        (), "--water", "Water areas to subtract, as Overpass JSON (out geom) or an extract "
        "(repeatable).", type=click.Path(path_type=Path),
    )  # fmt: skip
    exclude_files: tuple[Path, ...] = setting(
        (), "--exclude", "Polygons to leave out of the play area, in any play-area format "
        "(repeatable).", type=click.Path(path_type=Path),
    )  # fmt: skip
    category_files: tuple[Path, ...] = setting(
        (), "--categories", "TOML file of [[category]] entries that extend or override the "
        "catalogue (repeatable).", type=click.Path(path_type=Path),
    )  # fmt: skip
    only_categories: tuple[str, ...] = setting(
        (), "--category", "Use only these station categories (repeatable); default: every "
        "station category.",
    )  # fmt: skip
    include_transit: bool = setting(
        True, "--no-transit", "Leave out real transit stations.", negated=True
    )
    min_spacing: float = setting(
        300.0, "--min-spacing", "Metres between stations of one cluster.",
        type=METRES(min=1), show_default=True,
    )  # fmt: skip
    cluster_gap: float = setting(
        1000.0, "--cluster-gap", "Metres between stations of different clusters.",
        type=METRES(min=1), show_default=True,
    )  # fmt: skip
    cluster_radius: float | None = setting(
        None, "--cluster-radius", "Metres from a cluster's first station to its others "
        "[default: the game size's hiding radius].", type=METRES(min=0),
    )  # fmt: skip
    # (a bound the kernel's C integers hold: no cluster comes near a million stations)
    max_per_cluster: int | None = setting(
        None, "--max-per-cluster", "Cap on non-transit stations per cluster; 0 = none "
        "[default: auto-tuned to the game size].", type=click.IntRange(min=0, max=1_000_000),
    )  # fmt: skip
    game_size: str | None = setting(
        None, "--game-size", "Game size [default: from the net play area: S < 259 km² ≤ M "
        "< 2590 km² ≤ L].", type=click.Choice(["S", "M", "L"], case_sensitive=False),
    )  # fmt: skip
    # 1609 m = 1 mile: the wait tier counts the stations within a mile
    # (docs/rural-station-map.md).
    density_radius: float = setting(
        1609.0, "--density-radius", "Metres for the nearby count that sets the wait tier.",
        type=METRES(min=1), show_default=True,
    )  # fmt: skip
    tiers: str | None = setting(
        None, "--tiers", "Wait tiers as NAME:MIN_NEARBY:MIN-MAX,… [default: "
        "dense:15:5-15,moderate:5:10-30,sparse:0:20-60].",
    )  # fmt: skip
    playing_hours: str = setting(
        "7am-7pm", "--playing-hours", "Daily playing hours.", show_default=True
    )
    playing_days: str = setting(
        "sat,sun", "--playing-days", "Playing days, e.g. sat,sun or mon-fri.", show_default=True
    )
    play_date: dt.date | None = setting(
        None, "--play-date", "First day of the game (YYYY-MM-DD), for seasonal opening hours.",
        callback=parse_date, value_type=dt.date,
    )  # fmt: skip
    water_subtract: bool = setting(
        True, "--no-water-subtract", "Do not subtract water from the play area.", negated=True
    )
    strict_priority: bool = setting(
        False, "--strict-priority",
        "Pure rank-order selection, without the swaps that add stations.",
    )  # fmt: skip
    optimize: bool = setting(
        False, "--optimize", "Solve the spacing exactly (CP-SAT): the most stations the rules "
        "allow, with the proven bound; never fewer than without it.",
    )  # fmt: skip
    time_limit: float = setting(
        settings.SOLVER_TIME_LIMIT_S, "--time-limit", "Solver budget for --optimize in (deterministic) "
        f"seconds [default: {settings.SOLVER_TIME_LIMIT_S:g}].", type=SECONDS(min=0.1), optional=True,
    )  # fmt: skip
    search_rounds: int | None = setting(
        None, "--search", "Rounds of local search per greedy start after the swaps (re-packs "
        "clusters for more stations; a count, so the map is reproducible) [default: 4 per "
        "candidate, at most 2000: Sioux Falls 105 -> 113 stations, 98-99 % of the proven "
        "optima, ~1 s]; 0 = the greedy with swaps only.",
        type=click.IntRange(min=0, max=1_000_000),
    )  # fmt: skip
    explain: bool = setting(
        False, "--explain",
        "Also write candidates.geojson: every candidate with its status and reason.",
    )  # fmt: skip
    html_map: bool = setting(
        False, "--map", "Also write stations.html: an interactive map (Leaflet inlined; only "
        "tiles load online).",
    )  # fmt: skip
    map_palette: str = setting(
        "default", MAP_PALETTE.option, MAP_PALETTE.help, type=MAP_PALETTE.type, show_default=True
    )
    map_name: str | None = setting(
        None, "--name", "Map name in the KML [default: the play area's file name]."
    )
    overpass_urls: tuple[str, ...] = ()
    overpass_timeout: float = settings.DEFAULT_TIMEOUT_S
    cache_dir: Path | None = None
    use_cache: bool = True

    def __post_init__(self) -> None:
        check_fields(self)
        # the fields the shared Overpass options set (commands/options.py: the same types)
        checked = {
            "play_area": None
            if self.play_area is None
            else check_path("play_area", self.play_area),
            "overpass_urls": check_items("overpass_urls", self.overpass_urls, check_text, "URLs"),
            "overpass_timeout": check_number(
                "overpass_timeout", self.overpass_timeout, SECONDS(min=1)
            ),
            "cache_dir": None
            if self.cache_dir is None
            else check_path("cache_dir", self.cache_dir),
            "use_cache": check_flag("use_cache", self.use_cache),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)
