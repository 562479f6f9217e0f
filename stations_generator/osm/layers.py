"""What the commands read from an OSM extract, by layer, through the extract cache.

A layer is everything of one kind in the whole extract: the catalogue's points,
water areas, named admin areas, coastlines, high-speed rail, rivers and canals; and,
read on its own when a game asks for it, the marked paths (public streets, roads and
paths: :data:`ON_DEMAND_LINE_LAYERS`). It is read once
(with osmium's C++ tag filters; see :class:`~stations_generator.osm.extracts.Prefilter`),
stored in the :class:`~stations_generator.osm.extract_cache.ExtractCache`, and cut
to each caller's bounding box afterwards, exactly as the readers cut it -- so a
different play area in the same extract reads only the cache, and the result is
the same, byte for byte, as reading the extract with that box.

With the cache off (``--no-cache``, ``STATIONS_GENERATOR_NO_CACHE=1``) nothing is
read from or written to it, but the layers come from the same one read of the whole
extract (kept for the process) and are cut the same way: one read of the file for
all of a command's layers, not one per layer.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from stations_generator import settings
from stations_generator.core.elements import OsmElement
from stations_generator.core.questions.marked_paths import MARKED_HIGHWAYS, is_marked_path
from stations_generator.core.questions.water_bodies import (
    LINE_WATERWAYS,
    is_line_waterway,
    is_open_water,
)
from stations_generator.errors import InputError
from stations_generator.osm import extract_io, extracts
from stations_generator.osm.extract_cache import (
    CacheEntryError,
    ExtractCache,
    pack_json,
    unpack_json,
)

__all__ = [
    "AREA_LAYERS",
    "LINE_LAYERS",
    "ON_DEMAND_LINE_LAYERS",
    "areas",
    "bodies_of_water",
    "build_index",
    "current_cache",
    "data_box",
    "lines",
    "points",
    "use_cache",
    "water",
]


def _admin(tags) -> bool:
    return tags.get("boundary") == "administrative" and "name" in tags


@dataclass(frozen=True)
class Layer:
    """A predicate and its C++ prefilter."""

    keep: Callable[[Any], bool]
    prefilter: extracts.Prefilter


AREA_LAYERS: dict[str, Layer] = {
    "water": Layer(extracts.is_water, extracts.WATER_PREFILTER),
    # Every named admin area; callers pick the level (a few hundred per country).
    "admin": Layer(_admin, extracts.Prefilter(frozenset({("boundary", "administrative")}))),
}
LINE_LAYERS: dict[str, Layer] = {
    "coastline": Layer(
        lambda t: t.get("natural") == "coastline",
        extracts.Prefilter(frozenset({("natural", "coastline")})),
    ),
    "high_speed_rail": Layer(
        lambda t: t.get("railway") == "rail" and t.get("highspeed") == "yes",
        extracts.Prefilter(frozenset({("highspeed", "yes")})),
    ),
    # Rivers and canals mapped as lines, open stretches only (core/questions/water_bodies.py).
    "waterway": Layer(
        is_line_waterway, extracts.Prefilter(frozenset(("waterway", w) for w in LINE_WATERWAYS))
    ),
}
#: Line layers read only when asked for, alone (not with the others: a country's street
#: network is far bigger than every other layer together), then cached like the rest.
ON_DEMAND_LINE_LAYERS: dict[str, Layer] = {
    # Publicly accessible streets, roads and paths (core/questions/marked_paths.py).
    "marked_path": Layer(
        is_marked_path, extracts.Prefilter(frozenset(("highway", h) for h in MARKED_HIGHWAYS))
    ),
}
#: The tags the marked-path layer keeps (its cache entry holds no others).
MARKED_PATH_TAGS = ("highway", "name", "access", "area", "bridge", "tunnel")

_TYPES = ("node", "way", "relation")

_CACHE: contextvars.ContextVar[ExtractCache | None] = contextvars.ContextVar(
    "extract_cache", default=None
)
_MEMO: dict[tuple[str, str], Any] = {}  # (folder, key) -> layer: a process reads it once


def current_cache() -> ExtractCache:
    """The cache in use: set by :func:`use_cache`, else one from the environment."""
    cache = _CACHE.get()
    if cache is None:
        cache = ExtractCache(enabled=settings.cache_enabled())
    return cache


@contextlib.contextmanager
def use_cache(cache: ExtractCache) -> Iterator[ExtractCache]:
    """Make ``cache`` the one layer reads use inside the ``with`` block."""
    token = _CACHE.set(cache)
    try:
        yield cache
    finally:
        _CACHE.reset(token)


# ---------------------------------------------------------------------------
# Columns <-> layers (with validation: a bad entry raises CacheEntryError)
# ---------------------------------------------------------------------------


def _str_dicts(values: list) -> list[dict[str, str]]:
    for v in values:
        if not isinstance(v, dict) or not all(
            isinstance(k, str) and isinstance(x, str) for k, x in v.items()
        ):
            raise CacheEntryError("tags are not string maps")
    return values


def _points_columns(elements: list[OsmElement]) -> dict[str, np.ndarray]:
    return {
        "type": np.array([_TYPES.index(e.osm_type) for e in elements], dtype=np.uint8),
        "id": np.array([e.osm_id for e in elements], dtype=np.int64),
        "lat": np.array([e.lat for e in elements], dtype=np.float64),
        "lon": np.array([e.lon for e in elements], dtype=np.float64),
        "tags": pack_json([e.tags for e in elements]),
    }


def _points_from(columns: dict[str, np.ndarray]) -> list[OsmElement]:
    kinds, ids, lat, lon = (columns[c] for c in ("type", "id", "lat", "lon"))
    n = len(ids)
    if not (len(kinds) == len(lat) == len(lon) == n) or (n and int(kinds.max()) > 2):
        raise CacheEntryError("point columns do not match")
    if not (np.isfinite(lat).all() and np.isfinite(lon).all()):
        raise CacheEntryError("a point is not finite")
    if n and (np.abs(lat).max() > 90 or np.abs(lon).max() > 180):
        raise CacheEntryError("a point is off the globe")
    tags = _str_dicts(unpack_json(columns["tags"], n))
    return [
        OsmElement(_TYPES[k], i, y, x, t)
        for k, i, y, x, t in zip(
            kinds.tolist(), ids.tolist(), lat.tolist(), lon.tolist(), tags, strict=True
        )
    ]


def _shapes_columns(rows: list[tuple[str, dict, BaseGeometry]]) -> dict[str, np.ndarray]:
    blobs = [shapely.to_wkb(g) for _, _, g in rows]
    return {
        "keys": pack_json([k for k, _, _ in rows]),
        "tags": pack_json([t for _, t, _ in rows]),
        "offsets": np.cumsum([0, *map(len, blobs)], dtype=np.int64),
        "wkb": np.frombuffer(b"".join(blobs), dtype=np.uint8),
    }


def _shapes_from(columns: dict[str, np.ndarray], kinds: tuple[type, ...]) -> list:
    offsets, wkb = columns["offsets"], columns["wkb"]
    n = len(offsets) - 1
    if n < 0 or offsets[0] != 0 or offsets[-1] != len(wkb) or (np.diff(offsets) < 0).any():
        raise CacheEntryError("geometry offsets do not match")
    keys = unpack_json(columns["keys"], n)
    tags = _str_dicts(unpack_json(columns["tags"], n))
    raw = wkb.tobytes()
    bounds = offsets.tolist()
    try:
        geoms = shapely.from_wkb([raw[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    except shapely.errors.GEOSException as exc:
        raise CacheEntryError(f"bad geometry ({exc})") from None
    for k, g in zip(keys, geoms, strict=True):
        if not isinstance(k, str) or not isinstance(g, kinds) or g.is_empty:
            raise CacheEntryError("a geometry is not of its layer's type")
    return list(zip(keys, tags, geoms, strict=True))


def _layer_id(name: str, index) -> str:
    if name == "points":
        return f"points|{index.fingerprint()}"
    if name == "routes":
        return "routes"
    return f"{'areas' if name in AREA_LAYERS else 'lines'}|{name}"


def _columns(name: str, value: list) -> dict[str, np.ndarray]:
    if name == "points":
        return _points_columns(value)
    return _routes_columns(value) if name == "routes" else _shapes_columns(value)


def _value(name: str, columns: dict[str, np.ndarray]) -> list:
    if name == "points":
        return _points_from(columns)
    if name == "routes":
        return _routes_from(columns)
    return _shapes_from(columns, (Polygon, MultiPolygon) if name in AREA_LAYERS else (LineString,))


def _read_all(path: Path, index) -> dict[str, list]:
    """Every layer of the whole extract, in one pass of osmium (see :mod:`.one_pass`)."""
    from stations_generator.osm.one_pass import read_layers
    from stations_generator.osm.routes import TRANSIT_ROUTES

    prefilter = index.prefilter()
    found = read_layers(
        path,
        (index.keeps, prefilter) if prefilter is not None else None,
        {n: (spec.keep, spec.prefilter) for n, spec in AREA_LAYERS.items()},
        {n: (spec.keep, spec.prefilter) for n, spec in LINE_LAYERS.items()},
        TRANSIT_ROUTES,
    )
    if prefilter is None:  # a category anything might match: no C++ filter for it
        found["points"] = extracts.read_points(path, index.keeps)
    return found


def _read_on_demand(path: Path, name: str) -> dict[str, list]:
    """One on-demand line layer of the whole extract, alone, keeping only the tags it needs."""
    from stations_generator.osm.one_pass import read_layers

    spec = ON_DEMAND_LINE_LAYERS[name]
    rows = read_layers(path, lines={name: (spec.keep, spec.prefilter)})[name]
    return {
        name: [
            (key, {k: tags[k] for k in MARKED_PATH_TAGS if k in tags}, line)
            for key, tags, line in rows
        ]
    }


def _cached(path: Path, name: str, index) -> list:
    """Layer ``name`` of the whole extract: from this process, the cache, or one read of all."""
    cache = current_cache()
    key = cache.key(path, _layer_id(name, index))
    memo = (str(cache.folder), key)
    if memo in _MEMO:
        return _MEMO[memo]
    columns = cache.load(key)
    if columns is not None:
        try:
            value = _value(name, columns)
        except (CacheEntryError, LookupError, ValueError, TypeError, AttributeError) as exc:
            cache.drop(key, f"invalid ({exc})")
        else:
            _MEMO[memo] = value
            return value
    # A miss reads every layer at once: the next command's layers are then there too.
    found = _read_on_demand(path, name) if name in ON_DEMAND_LINE_LAYERS else None
    for other, value in (found or _read_all(path, index)).items():
        other_key = cache.key(path, _layer_id(other, index))
        cache.store(other_key, _columns(other, value))
        _MEMO[(str(cache.folder), other_key)] = value
    return _MEMO[memo]


def _default_index():
    from stations_generator.core.catalogue import load_catalogue

    return index_catalogue(load_catalogue())


# ---------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------


def _in_box(e: OsmElement, b: extracts.BBox) -> bool:
    return b[0] <= e.lon <= b[2] and b[1] <= e.lat <= b[3]


def points(path: Path, catalogue, bbox: extracts.BBox | None = None) -> list[OsmElement]:
    """The catalogue's points of an extract, as :func:`extracts.read_points` returns them.

    Parameters
    ----------
    path : Path
        An OSM extract.
    catalogue : Catalogue
        Keeps what its :meth:`~stations_generator.core.catalogue.Catalogue.keeps` keeps.
    bbox : BBox, optional
        Only points inside it (edges included).

    Returns
    -------
    list[OsmElement]
        Sorted by type and id.
    """
    path = Path(path)
    box_ = extract_io.check_bbox(bbox)
    extract_io.open_extract(path)  # the readers' checks and messages, before any cache look-up
    index = index_catalogue(catalogue)
    found = _cached(path, "points", index)
    if index is not catalogue:  # the index holds more: keep what this catalogue keeps
        found = [e for e in found if catalogue.keeps(e.tags)]
    return list(found) if box_ is None else [e for e in found if _in_box(e, box_)]


_INDEX: dict[str, Any] = {}


def index_catalogue(catalogue):
    """The catalogue whose points the cache holds, for any command's ``catalogue``.

    Every command's catalogue (generate's station selection, the questions' full
    catalogue, the report's with transit lines) is covered by one index: the
    default catalogue and the report's extras, plus any category of ``catalogue``
    they lack (from ``--categories`` files). So one read, or ``extract index``,
    serves them all; a command then keeps the points its own catalogue keeps.
    """
    from stations_generator.core.catalogue import Catalogue, load_catalogue
    from stations_generator.core.questions.availability import report_catalogue

    base = _INDEX.get("base")
    if base is None:
        base = _INDEX["base"] = report_catalogue(load_catalogue())
    known = {(c.name, c.match) for c in base.categories.values()}
    extra = [c for c in catalogue.categories.values() if (c.name, c.match) not in known]
    if not extra:
        return catalogue if catalogue.fingerprint() == base.fingerprint() else base
    renamed = [dataclasses.replace(c, name=f"{c.name}|extra") for c in extra]
    return Catalogue([*base.categories.values(), *renamed])


def areas(path: Path, layer: str, bbox: extracts.BBox | None = None) -> list:
    """An area layer (:data:`AREA_LAYERS`) as :func:`extracts.read_areas` returns it."""
    AREA_LAYERS[layer]  # a KeyError for an unknown layer
    return _shapes(path, layer, bbox)


def lines(path: Path, layer: str, bbox: extracts.BBox | None = None) -> list:
    """A line layer (:data:`LINE_LAYERS`) as :func:`extracts.read_lines` returns it.

    An on-demand layer (:data:`ON_DEMAND_LINE_LAYERS`) keeps only the tags of
    :data:`MARKED_PATH_TAGS`.
    """
    if layer not in ON_DEMAND_LINE_LAYERS:
        LINE_LAYERS[layer]  # a KeyError for an unknown layer
    return _shapes(path, layer, bbox)


def _shapes(path: Path, layer: str, bbox: extracts.BBox | None) -> list:
    """An area or line layer of the whole extract (through the extract cache), cut to ``bbox``."""
    path = Path(path)
    box_ = extract_io.check_bbox(bbox)
    extract_io.open_extract(path)
    found = _cached(path, layer, _default_index())
    return list(found) if box_ is None else _cut(found, box_)


def _cut(rows: list, box_: extracts.BBox) -> list:
    clip = box(*box_)
    return [row for row in rows if row[2].intersects(clip)]


def water(path: Path, bbox: extracts.BBox | None = None) -> list[BaseGeometry]:
    """The water areas, as :func:`extracts.read_water` returns them."""
    return [geom for _, _, geom in areas(path, "water", bbox)]


def bodies_of_water(path: Path, bbox: extracts.BBox | None = None) -> list[BaseGeometry]:
    """The bodies of water of the measuring question (JLTG.EU house rules, Body of Water).

    Open water areas (no covered, tunnelled, underground, intermittent or seasonal
    water), then the open stretches of rivers and canals mapped as lines; see
    :mod:`stations_generator.core.questions.water_bodies`.

    Parameters
    ----------
    path : Path
        An OSM extract.
    bbox : BBox, optional
        Only shapes intersecting it (unclipped).

    Returns
    -------
    list of BaseGeometry
        Polygons / MultiPolygons, then LineStrings, each in the extract's order; WGS84.
    """
    found = [geom for _, tags, geom in areas(path, "water", bbox) if is_open_water(tags)]
    return found + [line for _, _, line in lines(path, "waterway", bbox)]


def data_box(path: Path) -> extracts.BBox | None:
    """The box an extract says it holds (its header), or None when it says nothing.

    Land beyond it is unknown: the landmass question closes coastlines cut off at the
    extract's edge along this box (:mod:`stations_generator.core.questions.landmass`).

    Parameters
    ----------
    path : Path
        An OSM extract.

    Returns
    -------
    BBox or None
        ``(min_lon, min_lat, max_lon, max_lat)``.
    """
    import osmium

    source = extract_io.open_extract(Path(path))
    try:
        reader = osmium.io.Reader(source, osmium.osm.osm_entity_bits.NOTHING)
        try:
            b = reader.header().box()
        finally:
            reader.close()
    except RuntimeError as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"cannot read the OSM extract {Path(path).name!r}: {reason}") from None
    if not b.valid():
        return None
    return (b.bottom_left.lon, b.bottom_left.lat, b.top_right.lon, b.top_right.lat)


def _routes_columns(routes: list) -> dict[str, np.ndarray]:
    return {
        "meta": pack_json([[r.id, r.ref, r.network, r.name, r.route] for r in routes]),
        "stop_ids": pack_json([sorted(r.stop_ids) for r in routes]),
        "offsets": np.cumsum([0, *(len(r.stops) for r in routes)], dtype=np.int64),
        "stops": np.array([xy for r in routes for xy in r.stops], dtype=np.float64).reshape(-1, 2),
    }


def _routes_from(columns: dict[str, np.ndarray]) -> list:
    from stations_generator.osm.routes import Route

    offsets, stops = columns["offsets"], columns["stops"]
    n = len(offsets) - 1
    if n < 0 or offsets[0] != 0 or offsets[-1] != len(stops) or (np.diff(offsets) <= 0).any():
        raise CacheEntryError("route offsets do not match")
    if stops.ndim != 2 or (len(stops) and stops.shape[1] != 2) or not np.isfinite(stops).all():
        raise CacheEntryError("route stops are not finite points")
    meta = unpack_json(columns["meta"], n)
    ids = unpack_json(columns["stop_ids"], n)
    out = []
    bounds = offsets.tolist()
    for k, (m, sid) in enumerate(zip(meta, ids, strict=True)):
        if not (isinstance(m, list) and len(m) == 5 and all(isinstance(v, str) for v in m)):
            raise CacheEntryError("route fields are not strings")
        if not all(isinstance(v, int) for v in sid):
            raise CacheEntryError("route stop ids are not integers")
        pts = tuple(tuple(p) for p in stops[bounds[k] : bounds[k + 1]].tolist())
        out.append(Route(*m, stops=pts, stop_ids=frozenset(sid)))
    return out


def routes(path: Path) -> list:
    """The transit route relations of an extract, as :func:`.routes.read_routes` returns them."""
    path = Path(path)
    extract_io.open_extract(path)
    return list(_cached(path, "routes", _default_index()))


def build_index(path: Path, catalogue, progress: Callable[[int, int], None] | None = None) -> int:
    """Read every layer of an extract into the cache (``extract index``); the count of objects.

    ``progress(done, total)`` is called after each layer.
    """
    steps: list[Callable[[], list]] = [
        lambda: points(path, catalogue),
        *(lambda name=name: areas(path, name) for name in AREA_LAYERS),
        *(lambda name=name: lines(path, name) for name in LINE_LAYERS),
        lambda: routes(path),
    ]
    total = 0
    for k, step in enumerate(steps, 1):
        total += len(step())
        if progress is not None:
            progress(k, len(steps))
    return total
