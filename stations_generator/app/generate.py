"""``generate``: play area + OSM data -> station map files. The I/O edge around
:func:`stations_generator.core.stationmap.build.build_station_map`."""

from __future__ import annotations

import json
import logging
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.app.reporting import status_line, status_sink
from stations_generator.app.request_fields import (
    argument,
    check_path,
    describe,
)
from stations_generator.app.requests import GenerateRequest
from stations_generator.core.catalogue import Catalogue, load_catalogue
from stations_generator.core.gamesize import AREA_FLOOR_KM2, STATION_BANDS
from stations_generator.core.geo.coverage import check_coverage
from stations_generator.core.geo.geodesy import LocalFrame
from stations_generator.core.stationmap.build import (
    StationMap,
    StationMapOptions,
    build_station_map,
)
from stations_generator.core.stationmap.candidates import candidate_table
from stations_generator.core.stationmap.density import DEFAULT_TIERS, format_tiers, parse_tiers
from stations_generator.core.stationmap.opening_hours import parse_play_window
from stations_generator.core.stationmap.spacing import NeighbourIndex, closest_distances
from stations_generator.errors import ArgumentTypeError, ArgumentValueError, InputError
from stations_generator.formats import csv as csv_export
from stations_generator.formats import geojson, kml
from stations_generator.formats.atomic import output_set
from stations_generator.formats.playarea import load_polygons, parse_polygons
from stations_generator.osm import layers, overpass, sources
from stations_generator.osm.extract_cache import ExtractCache
from stations_generator.osm.nominatim import NominatimClient

STATIONS_GEOJSON = "stations.geojson"
STATIONS_CSV = "stations.csv"
STATIONS_KML = "stations.kml"
CANDIDATES_GEOJSON = "candidates.geojson"
STATIONS_HTML = "stations.html"
#: Every file ``generate`` writes into its -o folder; a run replaces all of them (the
#: ones it does not write this time, e.g. stations.html without --map, are removed).
GENERATE_FILES = (STATIONS_GEOJSON, STATIONS_CSV, STATIONS_KML, CANDIDATES_GEOJSON, STATIONS_HTML)

#: Progress notes (info), ``-v`` details (debug) and warnings of the steps.
log = logging.getLogger(__name__)


def select_catalogue(request: GenerateRequest) -> Catalogue:
    """The catalogue's station categories the request asks for (unknown name -> InputError)."""
    catalogue = load_catalogue(request.category_files)
    if request.only_categories:
        names = list(request.only_categories)
        chosen = catalogue.select(names)
        not_stations = [c.name for c in chosen if not c.station]
        if not_stations:
            raise InputError(
                f"category {not_stations[0]!r} is a question subject, not a station category; "
                "pick from: " + ", ".join(catalogue.station_names)
            )
    else:
        names = catalogue.station_names
    if not request.include_transit:
        names = [n for n in names if not catalogue[n].transit]
    if not names:
        raise InputError("no station categories left; drop --no-transit or pick --category")
    return catalogue.select(names)


def station_map_options(request: GenerateRequest) -> StationMapOptions:
    try:
        tiers = parse_tiers(request.tiers) if request.tiers else DEFAULT_TIERS
        if request.min_spacing > request.cluster_gap:
            raise ValueError(
                f"--min-spacing {request.min_spacing:g} is larger than --cluster-gap "
                f"{request.cluster_gap:g}; the gap between clusters must be the larger"
            )
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return StationMapOptions(
        min_spacing_m=request.min_spacing,
        cluster_gap_m=request.cluster_gap,
        cluster_radius_m=request.cluster_radius,
        max_per_cluster=request.max_per_cluster,
        game_size=request.game_size.upper() if request.game_size else None,
        density_radius_m=request.density_radius,
        tiers=tiers,
        strict_priority=request.strict_priority,
        optimize=request.optimize,
        time_limit_s=request.time_limit,
        search_rounds=request.search_rounds,
        explain_optimal=request.optimize and request.explain,
    )


def check_settings(request: GenerateRequest) -> None:
    """What the run checks beyond each field alone, before it reads anything: the play
    window, the tiers, the spacing below the gap (the Python API's check, naming fields).

    Parameters
    ----------
    request : GenerateRequest

    Raises
    ------
    ArgumentValueError
        Naming the field.
    """
    if request.min_spacing > request.cluster_gap:
        raise ArgumentValueError(
            "min_spacing",
            f" {request.min_spacing:g} is larger than cluster_gap {request.cluster_gap:g}; "
            "the gap between clusters must be the larger",
        )
    with argument("playing_hours"):
        parse_play_window(request.playing_hours, "mon")
    with argument("playing_days"):
        parse_play_window("7am-7pm", request.playing_days)
    with argument("tiers"):
        parse_tiers(request.tiers) if request.tiers else None


def _client(request: GenerateRequest) -> overpass.OverpassClient:
    return overpass.client(
        request.overpass_urls,
        timeout=request.overpass_timeout,
        cache_dir=request.cache_dir,
        use_cache=request.use_cache,
        log=log.debug,
        notify=log.info,
        status=status_sink(log),
    )


def _nominatim(request: GenerateRequest) -> NominatimClient:
    return NominatimClient(
        timeout=request.overpass_timeout,
        use_cache=request.use_cache,
        log=log.debug,
        notify=log.info,
        status=status_sink(log),
    )


def read_area(request: GenerateRequest) -> tuple[BaseGeometry, list[BaseGeometry], str]:
    """Step 1: the play area, the exclusions and the map's default name."""
    if request.play_area is not None:
        area = load_polygons(request.play_area, log.warning)
        name = request.play_area.name.split(".")[0]
    elif request.osm_relation is not None:
        area = sources.fetch_relation_area(_client(request), request.osm_relation)
        name = f"relation-{request.osm_relation}"
    else:
        assert request.place is not None
        area = sources.geocode_place(request.place, _nominatim(request))
        name = request.place
    exclusions = [load_polygons(p, log.warning, min_area_km2=0) for p in request.exclude_files]
    return area, exclusions, name


def area_from_value(
    name: str, value: Any, warn: Callable[[str], None], **kwargs: Any
) -> BaseGeometry:
    """A play area (or an area to leave out) given to the Python API.

    Parameters
    ----------
    name : str
        The parameter, for the messages.
    value : path, GeoJSON dict, shapely geometry, GeoDataFrame or GeoSeries
        A frame or series in any CRS is reprojected to WGS84 (one without a CRS is refused:
        degrees or metres cannot be told apart); a geometry is in WGS84.
    warn : callable
        Receives the reader's warnings.
    **kwargs
        For :func:`~stations_generator.formats.playarea.parse_polygons` (``min_area_km2``).

    Returns
    -------
    BaseGeometry
        The (Multi)Polygon, as a file of the same shapes gives it.

    Raises
    ------
    ArgumentTypeError, ArgumentValueError
        Naming ``name``.
    """
    if hasattr(value, "to_crs") and hasattr(value, "crs"):  # a GeoDataFrame or GeoSeries
        if value.crs is None:
            raise ArgumentValueError(
                name,
                f": the {type(value).__name__} has no CRS; set the one its coordinates are "
                "in, e.g. .set_crs('EPSG:4326')",
            )
        value = value.to_crs("EPSG:4326").__geo_interface__
    elif isinstance(value, BaseGeometry):
        if not np.isfinite(shapely.get_coordinates(value)).all():
            raise ArgumentValueError(name, ": the geometry has NaN or infinite coordinates")
        value = json.loads(shapely.to_geojson(value))
    with argument(name):
        if isinstance(value, str | os.PathLike):
            return load_polygons(check_path(name, value), warn, **kwargs)
        if isinstance(value, dict):
            return parse_polygons(value, "the GeoJSON", warn, **kwargs)
    raise ArgumentTypeError(
        name,
        " must be a file path, a shapely (Multi)Polygon, a GeoJSON dict, a GeoDataFrame or "
        f"a GeoSeries, not {describe(value)}",
    )


def load_data(
    request: GenerateRequest,
    area: BaseGeometry,
    catalogue: Catalogue,
) -> sources.OsmData:
    """Step 2: the OSM objects and water for ``area``, from files or Overpass."""
    if request.osm_files:
        status_line(log, "Reading " + ", ".join(Path(p).name for p in request.osm_files) + "…")
        # Extracts are read once into the extract cache; later runs read only that.
        cache = ExtractCache.for_command(request.cache_dir, request.use_cache)
        try:
            with layers.use_cache(cache):
                data = sources.read_files(
                    request.osm_files,
                    request.water_files,
                    area,
                    catalogue,
                    water=request.water_subtract,
                )
            points = [(e.lon, e.lat) for e in data.elements]
        finally:
            status_line(log, None)
        check_coverage(area, request.osm_files, points, data.water, log.warning)
    else:
        data = sources.fetch_overpass(
            _client(request), area, catalogue, water=request.water_subtract
        )
        if request.water_files and request.water_subtract:
            extra = sources.read_files((), request.water_files, area, catalogue)
            data.water.extend(extra.water)
    log.debug(
        f"read {len(data.elements)} OSM objects and {len(data.water)} water areas from "
        + ", ".join(data.sources)
    )
    return data


def build(
    request: GenerateRequest,
    area: BaseGeometry,
    exclusions: list[BaseGeometry],
    data: sources.OsmData,
    catalogue: Catalogue,
    progress: Callable[[int, int], None] | None = None,
) -> StationMap:
    """Step 3: pick the stations (options, playing window and catalogue from ``request``);
    ``progress`` gets ``(done, total)`` while the cluster cap is tuned."""
    window = play_window(request)
    options = station_map_options(request)
    status_line(log, f"Ranking {len(data.elements)} OSM objects…")
    try:
        candidates = candidate_table(data.elements, catalogue, window)
    finally:
        status_line(log, None)
    result = build_station_map(
        area,
        candidates,
        options,
        water=data.water if request.water_subtract else (),
        exclusions=exclusions,
        progress=progress,
    )
    result.settings.update(
        playing_hours=request.playing_hours,
        playing_days=request.playing_days,
        tiers=format_tiers(options.tiers),
    )
    warning = band_warning(result, request)
    if warning:
        log.warning(warning)
    return result


def play_window(request: GenerateRequest):
    """The playing window of ``request`` (bad hours/days -> InputError)."""
    try:
        return parse_play_window(request.playing_hours, request.playing_days, request.play_date)
    except ValueError as exc:
        raise InputError(str(exc)) from None


def run_generate(
    request: GenerateRequest, progress: Callable[[int, int], None] | None = None
) -> StationMap:
    """Load, compute, write, report (notes and warnings are log records; ``progress``
    gets ``(done, total)`` while the cluster cap is tuned). Raises :class:`UserError` on
    bad input."""
    play_window(request)
    station_map_options(request)
    catalogue = select_catalogue(request)
    # The -o folder is locked from here on (a second run fails at once); its files
    # appear together when the block ends, or not at all.
    with output_set(request.output_dir, GENERATE_FILES) as outputs:
        area, exclusions, default_name = read_area(request)
        data = load_data(request, area, catalogue)
        result = build(request, area, exclusions, data, catalogue, progress)
        files = output_files(
            result,
            request.map_name or default_name,
            explain=request.explain,
            html_map=request.html_map,
            palette=request.map_palette,
        )
        for name, data in files.items():
            outputs.write_bytes(name, data)
    report(result, request.output_dir, list(files))
    log.debug("options: " + ", ".join(f"{k}={v}" for k, v in asdict(request).items()))
    return result


def station_map_metadata(result: StationMap) -> dict:
    """The ``metadata`` member of a station map's GeoJSON: its rules and settings."""
    rules = result.rules
    return {
        "game_size": result.game_size,
        "net_area_km2": round(result.net_area_km2, 3),
        "min_spacing_m": rules.min_spacing_m,
        "cluster_gap_m": rules.cluster_gap_m,
        "cluster_radius_m": rules.cluster_radius_m,
        "max_per_cluster": rules.max_per_cluster,
        "playing_hours": result.settings.get("playing_hours", "7am-7pm"),
        "playing_days": result.settings.get("playing_days", "sat,sun"),
        # The wait tiers as --tiers text: calibrate pastes its suggestion in this form.
        "tiers": result.settings.get("tiers", format_tiers(DEFAULT_TIERS)),
        **_optimize_metadata(result),
    }


def _optimize_metadata(result: StationMap) -> dict:
    """What --optimize proved (absent without it, so plain outputs do not change)."""
    opt = result.optimization
    if opt is None:
        return {}
    return {"optimized": True, "station_bound": opt.bound, "optimal": opt.optimal}


def output_texts(
    result: StationMap,
    name: str,
    *,
    explain: bool = False,
    html_map: bool = False,
    palette: str = "default",
) -> dict[str, str]:
    """Step 4: the text of every output file by file name (GeoJSON, CSV, KML; candidates
    with ``explain``; the HTML map with ``html_map``, in ``palette``), in the order they
    are listed."""
    renderers = _renderers(result, name, explain, html_map, palette)
    return {file: render() for file, render in renderers.items()}


def output_files(
    result: StationMap,
    name: str,
    *,
    explain: bool = False,
    html_map: bool = False,
    palette: str = "default",
) -> dict[str, bytes]:
    """:func:`output_texts` as the files' UTF-8 bytes, in the same order."""
    texts = output_texts(result, name, explain=explain, html_map=html_map, palette=palette)
    return {file: text.encode("utf-8") for file, text in texts.items()}


def _renderers(
    result: StationMap, name: str, explain: bool, html_map: bool, palette: str = "default"
) -> dict[str, Callable[[], str]]:
    """What renders each output file of :func:`output_texts`, by file name, in order."""
    meta = station_map_metadata(result)
    stations = result.station_table
    records = geojson.station_records(stations)  # converted once for the three files
    renderers: dict[str, Callable[[], str]] = {
        STATIONS_GEOJSON: lambda: geojson.dumps_geojson(
            geojson.stations_feature_collection(
                stations, result.play_area, result.exclusions, metadata=meta, records=records
            )
        ),
        STATIONS_CSV: lambda: csv_export.stations_csv(stations, records=records),
        STATIONS_KML: lambda: kml.stations_kml(
            stations, result.play_area, result.exclusions, name=name, records=records
        ),
    }
    if explain:
        renderers[CANDIDATES_GEOJSON] = lambda: geojson.dumps_geojson(
            geojson.candidates_feature_collection(result.candidate_table, metadata=meta)
        )
    if html_map:
        renderers[STATIONS_HTML] = lambda: station_map_page(
            result, name, candidates=explain, palette=palette
        )
    return renderers


def station_map_page(
    result: StationMap, title: str, *, candidates: bool = False, palette: str = "default"
) -> str:
    """The interactive map page (stations.html), with the rejected candidates' layer when
    ``candidates``, in ``palette``; self-contained and deterministic."""
    from stations_generator.core.gamesize import HIDING_RADIUS_M
    from stations_generator.pages.folium_map import station_map
    from stations_generator.pages.offline import render_station_map

    return render_station_map(
        station_map(
            result.stations,
            result.play_area,
            result.exclusions,
            candidates=result.candidates if candidates else None,
            hiding_radius_m=HIDING_RADIUS_M[result.game_size],
            min_spacing_m=result.rules.min_spacing_m,
            cluster_gap_m=result.rules.cluster_gap_m,
            title=title,
            palette=palette,
        )
    )


def write_outputs(output_dir: Path, texts: dict[str, str]) -> list[Path]:
    """Write ``texts`` as ``generate``'s output set in ``output_dir`` (all or nothing; the
    set's other files from an earlier run are removed). Returns the paths written."""
    with output_set(Path(output_dir), GENERATE_FILES) as outputs:
        for name, text in texts.items():
            outputs.write_text(name, text)
    return [Path(output_dir) / n for n in texts]


def summary_lines(result: StationMap) -> list[str]:
    """The human summary printed on stderr after ``generate``."""
    stations, cands = result.station_table, result.candidate_table
    rejected_rows = cands["status"] == "rejected"
    reasons = Counter(cands["reason"][rejected_rows].tolist())
    rejected = ", ".join(
        f"{n} {r}" for r, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    lines = [
        f"Stations: {len(stations)} in {result.cluster_count} clusters, from {len(cands)} candidates"
        + (f" (rejected: {rejected})" if rejected else "")
    ]
    if result.optimization is not None:
        opt = result.optimization
        lines.append(f"Optimized: {opt.summary()}; without the solver {opt.greedy_count}")
        if "in_optimal_map" in cands:
            rej = Counter(cands["in_optimal_map"][rejected_rows].tolist())
            lines.append(
                f"Rejected candidates that some optimal map includes: {rej.get('yes', 0)}; "
                f"that none can: {rej.get('no', 0)}; undecided in the time limit: "
                f"{rej.get('unknown', 0)} (candidates.geojson: in_optimal_map)"
            )
    size = result.game_size
    bounds = []
    if size != "S":
        bounds.append(f"≥ {AREA_FLOOR_KM2[size]:g} km²")
    if size != "L":
        bounds.append(f"< {AREA_FLOOR_KM2['L' if size == 'M' else 'M']:g} km²")
    how = (
        f"inferred from the net area {result.net_area_km2:.1f} km² ({', '.join(bounds)})"
        if result.game_size_inferred
        else f"given (net area {result.net_area_km2:.1f} km²)"
    )
    lines.append(f"Game size: {result.game_size}, {how}")
    rules = result.rules
    cap = "none" if not rules.max_per_cluster else str(rules.max_per_cluster)
    if result.cap_auto:
        lo, hi = STATION_BANDS[result.game_size]
        band = f"{lo}–{hi}" if hi < 10**8 else f"≥ {lo}"
        trail = ", ".join(f"{c}→{n}" for c, n in result.cap_trail)
        cap += f" (auto-tuned to the {result.game_size} band {band}: {trail})"
    lines.append(f"Cluster radius: {rules.cluster_radius_m:g} m; cap per cluster: {cap}")
    if result.search is not None:
        before, after, rounds = result.search
        lines.append(
            f"Local search: {before} → {after} stations ({rounds} rounds per greedy "
            "start; --search 0 skips it)"
        )
    within, between = _closest(result)
    fmt = lambda d: "none this close" if d is None else f"{d:.1f} m"  # noqa: E731
    if within is None and len(stations) and result.cluster_count == len(stations):
        # No pair shares a cluster, so there is no distance within one to show.
        one = "cap 1: " if rules.max_per_cluster == 1 else ""
        inside = f"none within a cluster ({one}each cluster holds one station)"
    else:
        inside = f"{fmt(within)} within a cluster (rule ≥ {rules.min_spacing_m:g} m)"
    lines.append(
        f"Closest stations: {inside}, "
        f"{fmt(between)} between clusters (rule ≥ {rules.cluster_gap_m:g} m)"
    )
    return lines


#: "Far below" the game size's station band: fewer than this share of its lower end.
FAR_BELOW_SHARE = 0.5


def band_warning(result: StationMap, request: GenerateRequest) -> str | None:
    """A warning when the map has far fewer stations than its game size's band, naming
    what would add stations (None when the count is not far below)."""
    lo, _hi = STATION_BANDS[result.game_size]
    count = len(result.station_table)
    if count >= lo * FAR_BELOW_SHARE:
        return None
    helps = ["a larger play area"]
    if request.only_categories:
        helps.append("more categories (fewer --category, or none for all)")
    else:
        helps.append("more categories (--categories FILE)")
    if not request.include_transit:
        helps.append("transit stations (drop --no-transit)")
    helps.append(
        f"a smaller --min-spacing ({request.min_spacing:g} m) or --cluster-gap "
        f"({request.cluster_gap:g} m)"
    )
    if request.max_per_cluster:
        helps.append(f"a higher --max-per-cluster ({request.max_per_cluster})")
    if not result.game_size_inferred:
        helps.append("a smaller --game-size")
    return (
        f"only {count} station{'s' * (count != 1)}, far below the {lo}–"
        f"{_hi if _hi < 10**8 else '…'} a game of size {result.game_size} aims for; "
        "what would help: " + ", ".join(helps)
    )


def _closest(result: StationMap) -> tuple[float | None, float | None]:
    stations = result.station_table
    if len(stations) < 2:
        return None, None
    lon, lat = stations.lon, stations.lat
    frame = LocalFrame.for_bounds(result.play_area.bounds)
    x, y = frame.project(lon, lat)
    radius = max(result.rules.cluster_gap_m, 2 * result.rules.cluster_radius_m) * 2
    index = NeighbourIndex(x, y, frame.scale_factors(lon, lat), radius)
    return closest_distances(index, stations["cluster_id"].astype(np.int64))


def report(result: StationMap, output_dir: Path, names: list[str]) -> None:
    """Step 5: the summary and the files written, as info records."""
    for line in summary_lines(result):
        log.info(line)
    log.info("Wrote " + ", ".join(str(Path(output_dir) / n) for n in names))
