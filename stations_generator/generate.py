"""``generate``: play area + OSM data -> station map files. The I/O edge around
:func:`stations_generator.core.stationmap.build_station_map`."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from shapely.geometry.base import BaseGeometry

from .catalogue import Catalogue, load_catalogue
from .core.candidates import elements_to_candidates
from .core.density import DEFAULT_TIERS, parse_tiers
from .core.gamesize import AREA_FLOOR_KM2, STATION_BANDS
from .core.geodesy import LocalFrame
from .core.opening_hours import parse_play_window
from .core.spacing import NeighbourIndex, closest_distances
from .core.stationmap import StationMap, StationMapOptions, build_station_map
from .errors import InputError
from .export import csv as csv_export
from .export import geojson, kml
from .export.atomic import OutputSet, output_set
from .osm import layers, overpass, sources
from .osm.extract_cache import ExtractCache
from .osm.nominatim import NominatimClient
from .playarea import load_polygons

STATIONS_GEOJSON = "stations.geojson"
STATIONS_CSV = "stations.csv"
STATIONS_KML = "stations.kml"
CANDIDATES_GEOJSON = "candidates.geojson"
STATIONS_HTML = "stations.html"
#: Every file ``generate`` writes into its -o folder; a run replaces all of them (the
#: ones it does not write this time, e.g. stations.html without --map, are removed).
GENERATE_FILES = (STATIONS_GEOJSON, STATIONS_CSV, STATIONS_KML, CANDIDATES_GEOJSON, STATIONS_HTML)


@dataclass(frozen=True)
class GenerateRequest:
    """Everything the ``generate`` command was asked to do."""

    play_area: Path | None = None
    osm_relation: int | None = None
    place: str | None = None
    output_dir: Path = Path("out")
    osm_files: tuple[Path, ...] = ()
    water_files: tuple[Path, ...] = ()
    exclude_files: tuple[Path, ...] = ()
    category_files: tuple[Path, ...] = ()
    only_categories: tuple[str, ...] = ()
    include_transit: bool = True
    min_spacing: float = 300.0
    cluster_gap: float = 1000.0
    cluster_radius: float | None = None
    max_per_cluster: int | None = None
    game_size: str | None = None
    density_radius: float = 1609.0
    tiers: str | None = None
    playing_hours: str = "7am-7pm"
    playing_days: str = "sat,sun"
    play_date: dt.date | None = None
    water_subtract: bool = True
    strict_priority: bool = False
    explain: bool = False
    html_map: bool = False
    map_name: str | None = None
    overpass_urls: tuple[str, ...] = ()
    overpass_timeout: float = overpass.DEFAULT_TIMEOUT_S
    cache_dir: Path | None = None
    use_cache: bool = True


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


def _options(request: GenerateRequest) -> StationMapOptions:
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
    )


def _client(request: GenerateRequest, console) -> overpass.OverpassClient:
    return overpass.OverpassClient(
        request.overpass_urls or overpass.DEFAULT_ENDPOINTS,
        timeout=request.overpass_timeout,
        cache_dir=request.cache_dir,
        use_cache=request.use_cache,
        log=console.detail,
        notify=console.info,
        status=console.status,
    )


def _nominatim(request: GenerateRequest, console) -> NominatimClient:
    return NominatimClient(
        timeout=request.overpass_timeout,
        use_cache=request.use_cache,
        log=console.detail,
        notify=console.info,
        status=console.status,
    )


def _play_area(request: GenerateRequest, console) -> tuple[BaseGeometry, str]:
    if request.play_area is not None:
        return load_polygons(request.play_area, console.warn), request.play_area.name.split(".")[0]
    if request.osm_relation is not None:
        area = sources.fetch_relation_area(_client(request, console), request.osm_relation)
        return area, f"relation-{request.osm_relation}"
    assert request.place is not None
    return sources.geocode_place(request.place, _nominatim(request, console)), request.place


def run_generate(request: GenerateRequest, console) -> StationMap:
    """Load, compute, write, report. Raises :class:`UserError` on bad input."""
    try:
        window = parse_play_window(request.playing_hours, request.playing_days, request.play_date)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    options = _options(request)
    catalogue = select_catalogue(request)
    # The -o folder is locked from here on (a second run fails at once); its files
    # appear together when the block ends, or not at all.
    with (
        output_set(request.output_dir, GENERATE_FILES) as outputs,
        layers.use_cache(ExtractCache.for_command(request.cache_dir, request.use_cache, console)),
    ):
        result, default_name = _build(request, console, window, options, catalogue)
        _write_outputs(request, result, default_name, outputs)
    _report(request, result, console)
    return result


def _build(
    request: GenerateRequest, console, window, options: StationMapOptions, catalogue: Catalogue
) -> tuple[StationMap, str]:
    """Read the play area and the OSM data, pick the stations (the map and its name)."""
    area, default_name = _play_area(request, console)
    exclusions = [load_polygons(p, console.warn, min_area_km2=0) for p in request.exclude_files]

    if request.osm_files:
        data = sources.read_files(
            request.osm_files, request.water_files, area, catalogue, water=request.water_subtract
        )
    else:
        data = sources.fetch_overpass(
            _client(request, console), area, catalogue, water=request.water_subtract
        )
        if request.water_files and request.water_subtract:
            extra = sources.read_files((), request.water_files, area, catalogue)
            data.water.extend(extra.water)
    console.detail(
        f"read {len(data.elements)} OSM objects and {len(data.water)} water areas from "
        + ", ".join(data.sources)
    )
    candidates = elements_to_candidates(data.elements, catalogue, window)
    result = build_station_map(
        area,
        candidates,
        options,
        water=data.water if request.water_subtract else (),
        exclusions=exclusions,
        progress=console.progress("Tuning the cluster cap"),
    )
    return result, default_name


def _metadata(request: GenerateRequest, result: StationMap) -> dict:
    rules = result.rules
    return {
        "game_size": result.game_size,
        "net_area_km2": round(result.net_area_km2, 3),
        "min_spacing_m": rules.min_spacing_m,
        "cluster_gap_m": rules.cluster_gap_m,
        "cluster_radius_m": rules.cluster_radius_m,
        "max_per_cluster": rules.max_per_cluster,
        "playing_hours": request.playing_hours,
        "playing_days": request.playing_days,
    }


def _write_outputs(
    request: GenerateRequest, result: StationMap, default_name: str, outputs: OutputSet
) -> None:
    meta = _metadata(request, result)
    stations = result.stations
    texts = {
        STATIONS_GEOJSON: geojson.dumps_geojson(
            geojson.stations_feature_collection(
                stations, result.play_area, result.exclusions, metadata=meta
            )
        ),
        STATIONS_CSV: csv_export.stations_csv(stations),
        STATIONS_KML: kml.stations_kml(
            stations, result.play_area, result.exclusions, name=request.map_name or default_name
        ),
    }
    if request.explain:
        texts[CANDIDATES_GEOJSON] = geojson.dumps_geojson(
            geojson.candidates_feature_collection(result.candidates, metadata=meta)
        )
    if request.html_map:
        from .core.gamesize import HIDING_RADIUS_M
        from .export.folium_map import render_station_map, station_map

        texts[STATIONS_HTML] = render_station_map(
            station_map(
                stations,
                result.play_area,
                result.exclusions,
                candidates=result.candidates if request.explain else None,
                hiding_radius_m=HIDING_RADIUS_M[result.game_size],
                min_spacing_m=result.rules.min_spacing_m,
                cluster_gap_m=result.rules.cluster_gap_m,
                title=request.map_name or default_name,
            )
        )
    for name, text in texts.items():
        outputs.write_text(name, text)


def summary_lines(result: StationMap) -> list[str]:
    """The human summary printed on stderr after ``generate``."""
    stations, cands = result.stations, result.candidates
    reasons = cands.loc[cands["status"] == "rejected", "reason"].value_counts()
    rejected = ", ".join(
        f"{n} {r}" for r, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    lines = [
        f"Stations: {len(stations)} in {result.cluster_count} clusters, from {len(cands)} candidates"
        + (f" (rejected: {rejected})" if rejected else "")
    ]
    floor = AREA_FLOOR_KM2[result.game_size]
    how = (
        f"inferred from the net area {result.net_area_km2:.1f} km² (≥ {floor:g} km²"
        + (
            f", < {AREA_FLOOR_KM2['L' if result.game_size == 'M' else 'M']:g} km²)"
            if result.game_size != "L"
            else ")"
        )
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
    within, between = _closest(result)
    fmt = lambda d: "none this close" if d is None else f"{d:.1f} m"  # noqa: E731
    lines.append(
        f"Closest stations: {fmt(within)} within a cluster (rule ≥ {rules.min_spacing_m:g} m), "
        f"{fmt(between)} between clusters (rule ≥ {rules.cluster_gap_m:g} m)"
    )
    return lines


def _closest(result: StationMap) -> tuple[float | None, float | None]:
    stations = result.stations
    if len(stations) < 2:
        return None, None
    lon, lat = stations.geometry.x.to_numpy(), stations.geometry.y.to_numpy()
    frame = LocalFrame.for_bounds(result.play_area.bounds)
    x, y = frame.project(lon, lat)
    radius = max(result.rules.cluster_gap_m, 2 * result.rules.cluster_radius_m) * 2
    index = NeighbourIndex(x, y, frame.scale_factors(lon, lat), radius)
    return closest_distances(index, stations["cluster_id"].to_numpy(np.int64))


def _report(request: GenerateRequest, result: StationMap, console) -> None:
    for line in summary_lines(result):
        console.info(line)
    names = [STATIONS_GEOJSON, STATIONS_CSV, STATIONS_KML]
    names += [CANDIDATES_GEOJSON] if request.explain else []
    names += [STATIONS_HTML] if request.html_map else []
    console.info("Wrote " + ", ".join(str(request.output_dir / n) for n in names))
    console.detail("options: " + ", ".join(f"{k}={v}" for k, v in asdict(request).items()))
