"""The map features the curses' conditions are measured to, read from OSM extracts.

Bodies of water are the measuring question's own (:func:`.layers.areas` ``"water"``
kept when open water, and :func:`.layers.lines` ``"waterway"``, through the extract
cache), so a curse and a question measure to the same shapes. The other kinds
(bridges, dykes, named streets, monuments, windmills, town halls, graveyards, places
of worship, train station outlines; see
:data:`~stations_generator.core.referee.curse_map.FEATURE_KINDS`) are read together by
:func:`.one_pass.read_layers` (osmium's C++ tag filters first; the same rows as
:func:`.extracts.read_lines`, ``read_areas`` and ``read_points`` give one by one), and
classified by
:func:`~stations_generator.core.referee.curse_map.feature_kind_matches`. The result is
stored in the extract cache (:mod:`.extract_cache`, one entry per extract, as the
question layers are), so a country extract is read once, not at every check:

* **lines** — ways: bridges carrying a road, path or railway, dykes, named streets;
* **areas** — closed ways and multipolygons: ``man_made=bridge`` outlines, dykes,
  monuments, windmills, town halls, graveyards, places of worship, train stations;
* **points** — nodes: monuments, windmills, town halls, graveyards, places of worship
  (a station mapped only as a node has no outline: it is not read).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import Point, box
from shapely.geometry.base import BaseGeometry

from stations_generator.core.catalogue import Prefilter
from stations_generator.core.questions.water_bodies import is_open_water
from stations_generator.core.referee.curse_map import FEATURE_KINDS, feature_kind_matches
from stations_generator.osm import extracts, layers, one_pass
from stations_generator.osm.extract_cache import CacheEntryError, pack_json, unpack_json

__all__ = ["AREA_KINDS", "LINE_KINDS", "POINT_KINDS", "box_around", "features"]

Row = tuple[str, dict[str, str], BaseGeometry]

LINE_KINDS = ("bridge", "dyke", "named_street")
AREA_KINDS = (
    "bridge",
    "dyke",
    "monument",
    "windmill",
    "town_hall",
    "graveyard",
    "place_of_worship",
    "train_station",
)
POINT_KINDS = ("monument", "windmill", "town_hall", "graveyard", "place_of_worship")

#: Tags one of which every area or point of a kind has (osmium drops the rest in C++).
_POI_PAIRS = frozenset(
    {
        ("man_made", "bridge"),
        ("man_made", "dyke"),
        ("historic", "monument"),
        ("man_made", "windmill"),
        ("man_made", "wind_turbine"),
        ("generator:source", "wind"),
        ("amenity", "townhall"),
        ("landuse", "cemetery"),
        ("amenity", "grave_yard"),
        ("amenity", "place_of_worship"),
        ("building", "train_station"),
        ("railway", "station"),
        ("public_transport", "station"),
    }
)
_AREA_PREFILTER = Prefilter(_POI_PAIRS)
#: Ways of the line kinds: every bridge and street has one of these keys.
_LINE_PREFILTER = Prefilter(frozenset({("man_made", "dyke")}), frozenset({"bridge", "highway"}))
_R_MIN_M = 6_335_000.0  # smallest radius of curvature of WGS84 (meridian at the equator)

#: The extract cache's layer name; a new version when what is read changes.
CACHE_LAYER = "curse-features|1"
_MEMO: dict[tuple[str, str], dict[str, list[Row]]] = {}


def _line_kind(kind: str, tags: Mapping[str, str]) -> bool:
    # a man_made=bridge way is an outline: it is read as an area
    return tags.get("man_made") != "bridge" and feature_kind_matches(kind, tags)


def _read_extract(path: Path) -> dict[str, list[Row]]:
    """Every feature of every kind in the whole extract, in one read of the layers."""
    found: dict[str, list[Row]] = {k: [] for k in FEATURE_KINDS}
    read = one_pass.read_layers(
        path,
        points=(lambda t: any(feature_kind_matches(k, t) for k in POINT_KINDS), _AREA_PREFILTER),
        areas={
            "areas": (
                lambda t: any(feature_kind_matches(k, t) for k in AREA_KINDS),
                _AREA_PREFILTER,
            )
        },
        lines={"lines": (lambda t: any(_line_kind(k, t) for k in LINE_KINDS), _LINE_PREFILTER)},
    )
    for oid, tags, geom in read["lines"]:
        for k in LINE_KINDS:
            if _line_kind(k, tags):
                found[k].append((oid, tags, geom))
    for oid, tags, geom in read["areas"]:
        for k in AREA_KINDS:
            if feature_kind_matches(k, tags):
                found[k].append((oid, tags, geom))
    for e in read["points"]:
        if e.osm_type != "node":
            continue  # ways and relations are read as outlines above
        for k in POINT_KINDS:
            if feature_kind_matches(k, e.tags):
                found[k].append((e.key, dict(e.tags), Point(e.lon, e.lat)))
    return found


def _columns(found: dict[str, list[Row]]) -> dict[str, np.ndarray]:
    rows = [(k, *row) for k in sorted(found) for row in found[k]]
    blobs = [shapely.to_wkb(g) for _, _, _, g in rows]
    return {
        "kinds": pack_json([k for k, _, _, _ in rows]),
        "keys": pack_json([oid for _, oid, _, _ in rows]),
        "tags": pack_json([t for _, _, t, _ in rows]),
        "offsets": np.cumsum([0, *map(len, blobs)], dtype=np.int64),
        "wkb": np.frombuffer(b"".join(blobs), dtype=np.uint8),
    }


def _from_columns(columns: dict[str, np.ndarray]) -> dict[str, list[Row]]:
    """The features a cache entry holds; CacheEntryError when it does not hold them."""
    offsets, wkb = columns["offsets"], columns["wkb"]
    n = len(offsets) - 1
    if n < 0 or offsets[0] != 0 or offsets[-1] != len(wkb) or (np.diff(offsets) < 0).any():
        raise CacheEntryError("geometry offsets do not match")
    kinds = unpack_json(columns["kinds"], n)
    keys = unpack_json(columns["keys"], n)
    tags = unpack_json(columns["tags"], n)
    raw, bounds = wkb.tobytes(), offsets.tolist()
    try:
        geoms = shapely.from_wkb([raw[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    except shapely.errors.GEOSException as exc:
        raise CacheEntryError(f"bad geometry ({exc})") from None
    found: dict[str, list[Row]] = {k: [] for k in FEATURE_KINDS}
    for kind, key, tag, geom in zip(kinds, keys, tags, geoms, strict=True):
        if kind not in found or not isinstance(key, str) or not isinstance(tag, dict):
            raise CacheEntryError("a feature is not of a known kind")
        if geom is None or geom.is_empty:
            raise CacheEntryError("a feature has no geometry")
        found[kind].append((key, tag, geom))
    return found


def _read(path: Path) -> dict[str, list[Row]]:
    """Every feature of every kind in the whole extract: from this process, the extract
    cache, or one read of the file (then stored)."""
    cache = layers.current_cache()
    key = cache.key(path, CACHE_LAYER)
    memo = (str(cache.folder), key)
    if memo in _MEMO:
        return _MEMO[memo]
    columns = cache.load(key)
    found = None
    if columns is not None:
        try:
            found = _from_columns(columns)
        except (CacheEntryError, LookupError, ValueError, TypeError) as exc:
            cache.drop(key, f"invalid ({exc})")
    if found is None:
        found = _read_extract(path)
        cache.store(key, _columns(found))
    _MEMO[memo] = found
    return found


def box_around(lat: float, lon: float, reach_m: float) -> tuple[float, float, float, float]:
    """A lon/lat box holding every point within ``reach_m`` of (lat, lon).

    Latitudes grow by ``reach / R_min`` (R_min = 6335 km, the smallest radius of
    curvature of WGS84), longitudes by ``asin(sin(reach/R_min) / cos φ)`` at the box's
    most poleward latitude φ; near a pole, or across ±180°, the box is a band of
    latitude all round.
    """
    delta = reach_m * 1.01 / _R_MIN_M
    dlat = math.degrees(delta)
    south, north = max(lat - dlat, -90.0), min(lat + dlat, 90.0)
    top = math.radians(max(abs(south), abs(north)))
    if delta >= math.pi / 2 - top:
        return (-180.0, south, 180.0, north)
    dlon = math.degrees(math.asin(min(1.0, math.sin(delta) / math.cos(top))))
    if lon - dlon < -180.0 or lon + dlon > 180.0:
        return (-180.0, south, 180.0, north)
    return (lon - dlon, south, lon + dlon, north)


def features(path: Path, kind: str, bbox: tuple[float, float, float, float] | None = None) -> list:
    """The features of one kind in an extract, cut to a box.

    Parameters
    ----------
    path : Path
        An OSM extract.
    kind : str
        A key of :data:`~stations_generator.core.referee.curse_map.FEATURE_KINDS`
        other than ``"valid_stop"`` (stations come from the catalogue's points).
    bbox : (min_lon, min_lat, max_lon, max_lat), optional
        Only features intersecting it (unclipped).

    Returns
    -------
    list of (osm_id, tags, geometry)
        ``osm_id`` as ``"way/123"``; lines, then areas, then points; WGS84 lon/lat.

    Raises
    ------
    InputError
        The file is missing or osmium cannot read it.
    ValueError
        An unknown kind (naming it).
    """
    path = Path(path)
    if kind == "body_of_water":
        rows = [r for r in layers.areas(path, "water", bbox) if is_open_water(r[1])]
        return rows + list(layers.lines(path, "waterway", bbox))
    if kind not in FEATURE_KINDS or kind == "valid_stop":
        raise ValueError(f"kind: no map layer for {kind!r}; use one of {', '.join(FEATURE_KINDS)}")
    extracts.open_extract(path)  # the readers' one-line errors, before the memo
    rows = _read(path)[kind]
    if bbox is None:
        return list(rows)
    clip = box(*bbox)
    return [r for r in rows if r[2].intersects(clip)]
