"""The ``map`` use case: read a ``stations.geojson`` (and its ``candidates.geojson``)
and write its interactive page.

The readers turn the files ``generate`` writes back into the frames
:func:`stations_generator.pages.folium_map.station_map` draws; :func:`write_map_page`
is the whole ``map`` command short of its messages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import folium
import geopandas as gpd
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from stations_generator.core.gamesize import HIDING_RADIUS_M
from stations_generator.formats.atomic import atomic_write_text, output_set, reading
from stations_generator.formats.candidatefile import read_candidate_map
from stations_generator.formats.geojson import STATION_PROPERTIES
from stations_generator.formats.stationfile import StationFile, read_station_map
from stations_generator.pages.folium_map import station_map
from stations_generator.pages.offline import render_station_map

__all__ = [
    "DEFAULT_HIDING_RADIUS_M",
    "MapPage",
    "map_radii",
    "read_candidates_file",
    "read_station_file",
    "read_station_metadata",
    "write_map_page",
    "write_map_html",
]

DEFAULT_HIDING_RADIUS_M = 402.0
"""Hiding radius when the file names no game size: a quarter mile, the S/M games' radius."""

# --------------------------------------------------------------------------- reading


def _points_frame(
    rows: list[dict[str, Any]], points: list[BaseGeometry], fields: Sequence[str]
) -> gpd.GeoDataFrame:
    columns = {f: [row.get(f) for row in rows] for f in fields}
    return gpd.GeoDataFrame(columns, geometry=list(points), crs="EPSG:4326")


def read_station_file(
    path: Path,
) -> tuple[gpd.GeoDataFrame, BaseGeometry | None, list[BaseGeometry]]:
    """Read a ``stations.geojson`` written by ``stations-generator generate``.

    Parameters
    ----------
    path : Path
        The file.

    Returns
    -------
    stations : geopandas.GeoDataFrame
        One row per ``role: "station"`` feature with the station properties
        (``STATION_PROPERTIES``) and Point geometries (EPSG:4326).
    play_area : shapely geometry or None
        The ``role: "play_area"`` feature's (Multi)Polygon, if any.
    exclusions : list of shapely geometries
        The ``role: "exclusion"`` features' (Multi)Polygons.

    Raises
    ------
    InputError
        As :func:`stations_generator.formats.stationfile.read_station_map`, the one reader of
        station maps (the same checks as ``roll`` and ``route``).
    """
    return _station_frame(read_station_map(Path(path)))


def _station_frame(
    read: StationFile,
) -> tuple[gpd.GeoDataFrame, BaseGeometry | None, list[BaseGeometry]]:
    """A read station map as :func:`read_station_file` returns it."""
    points = [Point(st.lon, st.lat) for st in read.stations]
    rows = [dict(props) for props in read.properties]
    return _points_frame(rows, points, STATION_PROPERTIES), read.play_area, list(read.exclusions)


def read_station_metadata(path: Path) -> dict[str, Any]:
    """The top-level ``metadata`` member of a ``stations.geojson`` (``{}`` if none).

    Parameters
    ----------
    path : Path

    Returns
    -------
    dict
        E.g. ``game_size``, ``min_spacing_m``, ``cluster_gap_m``, ``cluster_radius_m``.

    Raises
    ------
    InputError
        As :func:`read_station_file`.
    """
    return dict(read_station_map(Path(path)).metadata)


def read_candidates_file(path: Path) -> gpd.GeoDataFrame:
    """Read a ``candidates.geojson`` written by ``generate --explain``.

    Parameters
    ----------
    path : Path

    Returns
    -------
    geopandas.GeoDataFrame
        One row per ``role: "candidate"`` feature with the station properties plus
        ``priority``, ``status``, ``reason`` and ``conflict_with``.

    Raises
    ------
    InputError
        The file is missing, is not GeoJSON, or has no candidate features.
    """
    read = read_candidate_map(Path(path))
    points = [Point(lon, lat) for lon, lat in read.points]
    fields = (*STATION_PROPERTIES, "priority", "status", "reason", "conflict_with")
    return _points_frame(list(read.properties), points, fields)


# --------------------------------------------------------------------------- writing


def write_map_html(path: Path, m: folium.Map) -> None:
    """Render ``m`` (:func:`~stations_generator.pages.offline.render_station_map`) and
    write it to ``path`` atomically.

    Parameters
    ----------
    path : Path
        The HTML file (parent directories are created).
    m : folium.Map
        A map built by :func:`~stations_generator.pages.folium_map.station_map`.
    """
    atomic_write_text(Path(path), render_station_map(m))


def _positive(value: Any) -> float | None:
    """A positive finite number from the file's metadata, else None."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number > 0 else None


def map_radii(metadata: dict[str, Any]) -> tuple[float, float, float]:
    """The radii a map was made with, from its file's metadata.

    Parameters
    ----------
    metadata : dict
        The ``metadata`` member of a ``stations.geojson`` (:func:`read_station_metadata`).

    Returns
    -------
    hiding_radius_m, min_spacing_m, cluster_gap_m : float
        The game size's hiding radius (:data:`DEFAULT_HIDING_RADIUS_M` without one),
        the recorded spacing (else 300 m) and cluster gap (else 1000 m), the
        ``generate`` defaults.
    """
    size = str(metadata.get("game_size") or "").upper()
    hiding = HIDING_RADIUS_M.get(size, DEFAULT_HIDING_RADIUS_M)
    spacing = _positive(metadata.get("min_spacing_m")) or 300.0
    gap = _positive(metadata.get("cluster_gap_m")) or 1000.0
    return hiding, spacing, gap


@dataclass(frozen=True)
class MapPage:
    """What :func:`write_map_page` wrote.

    Attributes
    ----------
    path : Path
        The HTML file.
    stations : int
        Stations on the map.
    rejected : int or None
        Rejected candidates shown (None without a candidates file).
    hiding_radius_m : float
        The hiding zones' radius.
    """

    path: Path
    stations: int
    rejected: int | None
    hiding_radius_m: float


def write_map_page(
    stations_file: Path,
    target: Path,
    *,
    candidates_file: Path | None = None,
    hiding_radius_m: float | None = None,
    min_spacing_m: float | None = None,
    cluster_gap_m: float | None = None,
    title: str | None = None,
    palette: str = "default",
) -> MapPage:
    """Read a station map (and its candidates) and write its interactive page.

    Parameters
    ----------
    stations_file : Path
        The ``stations.geojson`` of ``generate``.
    target : Path
        The HTML file to write (as an output set of one: whole or not at all).
    candidates_file : Path, optional
        The ``candidates.geojson`` of ``generate --explain``: adds the rejected
        candidates' layer.
    hiding_radius_m, min_spacing_m, cluster_gap_m : float, optional
        The circles' radii [default: :func:`map_radii` of the file's metadata].
    title : str, optional
        The page title [default: the input's folder and file name].
    palette : str
        The map's colours: ``"default"`` or ``"okabe-ito"``.

    Returns
    -------
    MapPage

    Raises
    ------
    InputError
        An input is missing or not what ``generate`` writes.
    """
    inputs = [stations_file] + ([candidates_file] if candidates_file is not None else [])
    with output_set(target.parent, [target.name]) as outputs:
        with reading(*inputs):  # one run's stations and candidates, never a mix
            read = read_station_map(Path(stations_file))  # once: the frame and the metadata
            stations, play_area, exclusions = _station_frame(read)
            metadata = dict(read.metadata)
            candidates = read_candidates_file(candidates_file) if candidates_file else None
        hiding, spacing, gap = map_radii(metadata)
        name = title or " / ".join(p for p in (stations_file.parent.name, stations_file.stem) if p)
        m = station_map(
            stations,
            play_area,
            exclusions,
            candidates=candidates,
            hiding_radius_m=hiding_radius_m or hiding,
            min_spacing_m=min_spacing_m or spacing,
            cluster_gap_m=cluster_gap_m or gap,
            title=name,
            palette=palette,
        )
        outputs.write_text(target.name, render_station_map(m))
    rejected = int((candidates["status"] == "rejected").sum()) if candidates is not None else None
    return MapPage(target, len(stations), rejected, hiding_radius_m or hiding)
