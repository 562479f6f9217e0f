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

A cached layer is made into objects only where a caller's box needs them: the entry
keeps each point's coordinates, each shape's envelope (``bounds``) and the envelope of
each transit route's stops beside the packed tags, geometries and stops, so a box picks
its rows with one array test and only those are parsed and checked (a game on a few
tiles of a 1024-tile extract parses a few tiles' worth). What a process has made is
kept for it (:class:`_Held`).

With the cache off (``--no-cache``, ``STATIONS_GENERATOR_NO_CACHE=1``) nothing is
read from or written to it, but the layers come from the same one read of the whole
extract (kept for the process) and are cut the same way: one read of the file for
all of a command's layers, not one per layer.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
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
from stations_generator.core.play.highways import MARKED_HIGHWAYS, is_marked_path
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
_MEMO: dict[tuple[str, str], _Held] = {}  # (folder, key) -> layer: a process reads it once


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
        **_json_columns("tags", [e.tags for e in elements]),
    }


def _json_columns(name: str, values: list) -> dict[str, np.ndarray]:
    """``values`` as :func:`pack_json` packs them (column ``name``), and where each one's
    JSON text starts in it (``name_at``: n + 1 byte offsets, the last one past the end):
    a reader can then parse only the rows it needs."""
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    parts = [encode(v).encode() for v in values]
    at = np.cumsum([1, *(len(p) + 1 for p in parts)], dtype=np.int64)
    return {name: _joined(parts, b"[", b",", b"]"), f"{name}_at": at}


def _joined(
    parts: list[bytes], start: bytes = b"", sep: bytes = b"", end: bytes = b""
) -> np.ndarray:
    """``start + sep.join(parts) + end`` as a uint8 array, made in place: each part is
    dropped once copied (``parts`` is emptied), so the bytes are held about once, not
    two or three times (a join, then a concatenation, or a growing buffer's copies)."""
    size = len(start) + len(end) + sum(map(len, parts)) + len(sep) * max(len(parts) - 1, 0)
    out = np.empty(size, dtype=np.uint8)
    at = len(start)
    out[:at] = np.frombuffer(start, dtype=np.uint8)
    for i, part in enumerate(parts):
        if i and sep:
            out[at : at + len(sep)] = np.frombuffer(sep, dtype=np.uint8)
            at += len(sep)
        out[at : at + len(part)] = np.frombuffer(part, dtype=np.uint8)
        at += len(part)
        parts[i] = b""
    out[at:] = np.frombuffer(end, dtype=np.uint8)
    parts.clear()
    return out


def _json_rows(columns: dict[str, np.ndarray], name: str, n: int) -> Callable[[list[int]], list]:
    """The values of rows of a JSON column (:func:`_json_columns`), parsed when asked for;
    an entry stored without the offsets is parsed whole."""
    at = columns.get(f"{name}_at")
    if at is None:
        values = unpack_json(columns[name], n)
        return lambda picked: [values[i] for i in picked]
    text = columns[name]  # (a row's bytes are copied out when it is made, not the column)
    end = len(text) if n else 1  # (the offset past the last row: 1 when there is none)
    if at.shape != (n + 1,) or at[0] != 1 or at[-1] != end or (np.diff(at) < 2).any():
        raise CacheEntryError(f"the {name} offsets do not match")

    def rows(picked: list[int]) -> list:
        starts, ends = _spans(at, picked)
        return [json.loads(text[a : b - 1].tobytes()) for a, b in zip(starts, ends, strict=True)]

    return rows


def _spans(offsets: np.ndarray, picked: list[int]) -> tuple[list[int], list[int]]:
    """Where rows ``picked`` start and end by ``offsets`` (n + 1 of them), as lists."""
    at = np.asarray(picked, dtype=np.int64)
    return offsets[at].tolist(), offsets[at + 1].tolist()


class _Held:
    """One layer of the whole extract, kept for a process: each row's envelope, and the
    rows, made on first use (all at once when read from the extract; from the cache
    entry's columns, only as far as the boxes asked for need them)."""

    def __init__(
        self,
        envelopes: np.ndarray | None,
        rows: list | None,
        make: Callable[[list[int]], list] | None = None,
        count: int = 0,
    ) -> None:
        self.envelopes = envelopes  # (n, 4) float64: min lon, min lat, max lon, max lat
        self._rows: list = list(rows) if rows is not None else [None] * count
        self._make = make

    def __len__(self) -> int:
        return len(self._rows)

    def select(self, box_: extracts.BBox | None) -> list:
        """The rows whose envelope meets ``box_`` (edges included; None: all), in order.

        Raises
        ------
        CacheEntryError
            A row made now from the entry's columns is not what its layer holds.
        """
        rows = self._rows
        if box_ is None or self.envelopes is None:
            wanted = list(range(len(rows)))
        else:
            e, (w, s, east, n) = self.envelopes, box_
            hit = (e[:, 0] <= east) & (e[:, 2] >= w) & (e[:, 1] <= n) & (e[:, 3] >= s)
            wanted = np.flatnonzero(hit).tolist()
        missing = [i for i in wanted if rows[i] is None]
        if missing:
            assert self._make is not None
            for i, row in zip(missing, self._make(missing), strict=True):
                rows[i] = row
        return [rows[i] for i in wanted]


def _points_held(columns: dict[str, np.ndarray]) -> _Held:
    kinds, ids, lat, lon = (columns[c] for c in ("type", "id", "lat", "lon"))
    n = len(ids)
    if not (len(kinds) == len(lat) == len(lon) == n) or (n and int(kinds.max()) > 2):
        raise CacheEntryError("point columns do not match")
    if not (np.isfinite(lat).all() and np.isfinite(lon).all()):
        raise CacheEntryError("a point is not finite")
    if n and (np.abs(lat).max() > 90 or np.abs(lon).max() > 180):
        raise CacheEntryError("a point is off the globe")
    tags = _json_rows(columns, "tags", n)

    def make(picked: list[int]) -> list[OsmElement]:
        found = _str_dicts(tags(picked))
        return [
            OsmElement(_TYPES[k], i, y, x, t)
            for k, i, y, x, t in zip(
                kinds[picked].tolist(),
                ids[picked].tolist(),
                lat[picked].tolist(),
                lon[picked].tolist(),
                found,
                strict=True,
            )
        ]

    lon = lon.astype(np.float64)
    lat = lat.astype(np.float64)
    return _Held(np.column_stack([lon, lat, lon, lat]), None, make, n)


def _shapes_columns(rows: list[tuple[str, dict, Any]]) -> dict[str, np.ndarray]:
    """An area or line layer's columns. A row's geometry may be its WKB (``bytes``: the
    extract cache's reads hold areas so). ``rows`` is emptied as the WKB is copied in."""
    columns = {
        **_json_columns("keys", [k for k, _, _ in rows]),
        **_json_columns("tags", [t for _, t, _ in rows]),
    }
    bounds = np.empty((len(rows), 4), dtype=np.float64)
    blobs: list[bytes] = []
    for i, (_, _, geom) in enumerate(rows):
        if isinstance(geom, bytes):
            blob, geom = geom, shapely.from_wkb(geom)
        else:
            blob = shapely.to_wkb(geom)
        bounds[i] = shapely.bounds(geom)
        blobs.append(blob)
        rows[i] = None  # type: ignore[call-overload]
    rows.clear()
    offsets = np.cumsum([0, *map(len, blobs)], dtype=np.int64)
    return {**columns, "offsets": offsets, "wkb": _joined(blobs), "bounds": bounds}


def _envelopes(geoms: list[BaseGeometry]) -> np.ndarray:
    """Each geometry's (min lon, min lat, max lon, max lat), as an (n, 4) float64 array."""
    return np.asarray(shapely.bounds(np.array(geoms, dtype=object)), dtype=np.float64).reshape(
        -1, 4
    )


def _shapes_held(columns: dict[str, np.ndarray], kinds: tuple[type, ...]) -> _Held:
    offsets, wkb = columns["offsets"], columns["wkb"]
    n = len(offsets) - 1
    if n < 0 or offsets[0] != 0 or offsets[-1] != len(wkb) or (np.diff(offsets) < 0).any():
        raise CacheEntryError("geometry offsets do not match")
    keys = _json_rows(columns, "keys", n)
    tags = _json_rows(columns, "tags", n)
    raw = wkb  # (each row's WKB is copied out when it is made, not the column)
    bounds = columns.get("bounds")

    def make(picked: list[int]) -> list:
        found = _str_dicts(tags(picked))
        starts, ends = _spans(offsets, picked)
        try:
            geoms = shapely.from_wkb(
                [raw[a:b].tobytes() for a, b in zip(starts, ends, strict=True)]
            )
        except shapely.errors.GEOSException as exc:
            raise CacheEntryError(f"bad geometry ({exc})") from None
        out = []
        for k, t, g in zip(keys(picked), found, geoms, strict=True):
            if not isinstance(k, str) or not isinstance(g, kinds) or g.is_empty:
                raise CacheEntryError("a geometry is not of its layer's type")
            out.append((k, t, g))
        if bounds is not None and not np.array_equal(_envelopes(geoms), bounds[picked]):
            raise CacheEntryError("a geometry is not within its envelope")
        return out

    if bounds is None:  # an entry stored before the envelopes were: make every row now
        rows = make(list(range(n)))
        return _Held(_envelopes([g for _, _, g in rows]), rows)
    if bounds.shape != (n, 4) or not np.isfinite(bounds).all():
        raise CacheEntryError("geometry envelopes do not match")
    return _Held(bounds.astype(np.float64), None, make, n)


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


def _held_from(name: str, columns: dict[str, np.ndarray]) -> _Held:
    """A layer from its cache entry's columns (a bad entry raises CacheEntryError)."""
    if name == "points":
        return _points_held(columns)
    if name == "routes":
        return _routes_held(columns)
    return _shapes_held(columns, (Polygon, MultiPolygon) if name in AREA_LAYERS else (LineString,))


def _read_all(path: Path, index, areas_as_wkb: bool = False) -> dict[str, list]:
    """Every layer of the whole extract, in one pass of osmium (see :mod:`.one_pass`);
    ``areas_as_wkb``: the areas' rows hold WKB (what the cache stores)."""
    from stations_generator.osm.one_pass import read_layers
    from stations_generator.osm.routes import TRANSIT_ROUTES

    prefilter = index.prefilter()
    found = read_layers(
        path,
        (index.keeps, prefilter) if prefilter is not None else None,
        {n: (spec.keep, spec.prefilter) for n, spec in AREA_LAYERS.items()},
        {n: (spec.keep, spec.prefilter) for n, spec in LINE_LAYERS.items()},
        TRANSIT_ROUTES,
        areas_as_wkb=areas_as_wkb,
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


_BAD_ENTRY = (CacheEntryError, LookupError, ValueError, TypeError, AttributeError)


def _held(path: Path, name: str, index, *, fresh: bool = False) -> tuple[_Held, str]:
    """Layer ``name`` of the whole extract: from this process, the cache (unless
    ``fresh``), or one read of all; with its cache key."""
    cache = current_cache()
    key = cache.key(path, _layer_id(name, index))
    memo = (str(cache.folder), key)
    if memo in _MEMO and not fresh:
        return _MEMO[memo], key
    columns = None if fresh else cache.load(key)
    if columns is not None:
        try:
            held = _held_from(name, columns)
        except _BAD_ENTRY as exc:
            cache.drop(key, f"invalid ({exc})")
        else:
            _MEMO[memo] = held
            return held, key
    # A miss reads every layer at once: the next command's layers are then there too.
    found = _read_on_demand(path, name) if name in ON_DEMAND_LINE_LAYERS else None
    found = found or _read_all(path, index, areas_as_wkb=True)
    # Each layer's rows go once its columns are made, the points' (many small objects)
    # first and the areas' (the largest columns) last: a lower peak.
    order = sorted(found, key=lambda n: (n in AREA_LAYERS, n != "points", n))
    for other in order:
        value = found.pop(other)
        other_key = cache.key(path, _layer_id(other, index))
        columns = _columns(other, value)
        del value
        cache.store(other_key, columns)
        # Held as the columns (a row made when a box asks for it), as a cached run holds it.
        _MEMO[(str(cache.folder), other_key)] = _held_from(other, columns)
    return _MEMO[memo], key


def _cached(path: Path, name: str, index, box_: extracts.BBox | None = None) -> list:
    """The rows of layer ``name`` whose envelope meets ``box_`` (None: all), in order.

    A row of a cache entry that turns out bad when it is made drops the entry, and
    the extract is read again.
    """
    held, key = _held(path, name, index)
    try:
        return held.select(box_)
    except _BAD_ENTRY as exc:
        current_cache().drop(key, f"invalid ({exc})")
        return _held(path, name, index, fresh=True)[0].select(box_)


def _default_index():
    from stations_generator.core.catalogue import load_catalogue

    return index_catalogue(load_catalogue())


# ---------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------


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
    found = _cached(path, "points", index, box_)  # a point's envelope is itself
    if index is not catalogue:  # the index holds more: keep what this catalogue keeps
        found = [e for e in found if catalogue.keeps(e.tags)]
    return found


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
    found = _cached(path, layer, _default_index(), box_)  # the rows whose envelope meets it
    return found if box_ is None else _cut(found, box_)


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
    offsets = np.cumsum([0, *(len(r.stops) for r in routes)], dtype=np.int64)
    stops = np.array([xy for r in routes for xy in r.stops], dtype=np.float64).reshape(-1, 2)
    return {
        **_json_columns("meta", [[r.id, r.ref, r.network, r.name, r.route] for r in routes]),
        **_json_columns("stop_ids", [sorted(r.stop_ids) for r in routes]),
        "offsets": offsets,
        "stops": stops,
        "bounds": _stop_envelopes(offsets, stops),  # what a box picks routes by
    }


def _route_envelopes(stops: list) -> np.ndarray:
    """The envelopes of routes' ``stops`` (each a sequence of (lon, lat), at least one)."""
    offsets = np.cumsum([0, *map(len, stops)], dtype=np.int64)
    xy = np.array([p for pts in stops for p in pts], dtype=np.float64).reshape(-1, 2)
    return _stop_envelopes(offsets, xy)


def _stop_envelopes(offsets: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """Each route's (min lon, min lat, max lon, max lat) from the stop columns (route k's
    stops are ``stops[offsets[k]:offsets[k + 1]]``, at least one), as an (n, 4) array."""
    if len(offsets) < 2:
        return np.empty((0, 4), dtype=np.float64)
    starts = offsets[:-1]
    low = [np.minimum.reduceat(stops[:, c], starts) for c in (0, 1)]
    high = [np.maximum.reduceat(stops[:, c], starts) for c in (0, 1)]
    return np.column_stack([*low, *high]).astype(np.float64)


def _routes_held(columns: dict[str, np.ndarray]) -> _Held:
    """The routes of a cache entry, made as far as the boxes asked for need them; an entry
    stored before the envelopes were gets them from its stops (no route is parsed)."""
    from stations_generator.osm.routes import Route

    offsets, stops = columns["offsets"], columns["stops"]
    n = len(offsets) - 1
    if n < 0 or offsets[0] != 0 or offsets[-1] != len(stops) or (np.diff(offsets) <= 0).any():
        raise CacheEntryError("route offsets do not match")
    if stops.ndim != 2 or (len(stops) and stops.shape[1] != 2) or not np.isfinite(stops).all():
        raise CacheEntryError("route stops are not finite points")
    meta = _json_rows(columns, "meta", n)
    ids = _json_rows(columns, "stop_ids", n)
    bounds = columns.get("bounds")
    if bounds is None:
        bounds = _stop_envelopes(offsets, stops)
    elif bounds.shape != (n, 4) or not np.isfinite(bounds).all():
        raise CacheEntryError("route envelopes do not match")

    def make(picked: list[int]) -> list:
        starts, ends = _spans(offsets, picked)
        out = []
        for m, sid, a, b in zip(meta(picked), ids(picked), starts, ends, strict=True):
            if not (isinstance(m, list) and len(m) == 5 and all(isinstance(v, str) for v in m)):
                raise CacheEntryError("route fields are not strings")
            if not (isinstance(sid, list) and all(isinstance(v, int) for v in sid)):
                raise CacheEntryError("route stop ids are not integers")
            pts = tuple(tuple(p) for p in stops[a:b].tolist())
            out.append(Route(*m, stops=pts, stop_ids=frozenset(sid)))
        if not np.array_equal(_route_envelopes([r.stops for r in out]), bounds[picked]):
            raise CacheEntryError("a route's stops are not within its envelope")
        return out

    return _Held(bounds.astype(np.float64), None, make, n)


def routes(path: Path, bbox: extracts.BBox | None = None) -> list:
    """The transit route relations of an extract, as :func:`.routes.read_routes` returns them.

    Parameters
    ----------
    path : Path
        An OSM extract.
    bbox : BBox, optional
        Only the routes with a stop inside it (edges included); the routes keep all
        their stops.

    Returns
    -------
    list of Route
        Sorted by relation id.
    """
    path = Path(path)
    box_ = extract_io.check_bbox(bbox)
    extract_io.open_extract(path)
    found = _cached(path, "routes", _default_index(), box_)  # the envelope meets the box
    if box_ is None:
        return found
    w, s, e, n = box_
    return [r for r in found if any(w <= x <= e and s <= y <= n for x, y in r.stops)]


def build_index(path: Path, catalogue, progress: Callable[[int, int], None] | None = None) -> int:
    """Read every layer of an extract into the cache (``extract index``); the count of objects.

    The layers are held as the cache holds them: no row is made (a country's layers as
    objects would take several times their columns' memory).

    ``progress(done, total)`` is called after each layer.
    """
    path = Path(path)
    extract_io.open_extract(path)
    index, defaults = index_catalogue(catalogue), _default_index()
    names = ["points", *AREA_LAYERS, *LINE_LAYERS, "routes"]
    total = 0
    for k, name in enumerate(names, 1):
        held, _ = _held(path, name, index if name == "points" else defaults)
        total += len(held)
        if progress is not None:
            progress(k, len(names))
    return total
