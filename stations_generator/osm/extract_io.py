"""The building blocks of the extract readers: opening a file, iterating osmium, extents.

Shared by :mod:`~stations_generator.osm.extracts`, :mod:`~stations_generator.osm.one_pass`,
:mod:`~stations_generator.osm.routes`, :mod:`~stations_generator.osm.roads` and
:mod:`~stations_generator.osm.osm_area`:

* :func:`open_extract` checks a path and its suffix and :func:`iterate` reads it,
  turning osmium's failures into one-line :class:`~stations_generator.errors.InputError`.
* :func:`tags_of`, :func:`all_items`, :class:`TagView` and :func:`split_members` read
  osmium's tag and member lists without the costly end of their iteration.
* :func:`new_extent`, :func:`add_point`, :func:`way_extent`, ... accumulate the
  bounding boxes whose :func:`centre` stands for a way or relation (Overpass's
  ``out center``).
* :func:`polygonal` keeps the valid polygonal part of an assembled area.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shapely
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from stations_generator.core.catalogue import Prefilter
from stations_generator.errors import InputError

# osmium is imported where a file is read, not here: 19 ms of every command that reads
# no extract (Overpass JSON in, or no OSM data at all).
if TYPE_CHECKING:
    import osmium

__all__ = [
    "kept_tags",
    "union_prefilter",
    "BBox",
    "EXTRACT_SUFFIXES",
    "Extent",
    "TYPE_ORDER",
    "TagPredicate",
    "TagView",
    "add_extent",
    "add_point",
    "all_items",
    "centre",
    "check_bbox",
    "extract_format",
    "in_bbox",
    "iterate",
    "keeps",
    "new_extent",
    "open_extract",
    "polygonal",
    "read_error",
    "relation_extent",
    "split_members",
    "stored_extent",
    "tags_of",
    "way_coords",
    "way_extent",
]

TagPredicate = Callable[[Mapping[str, str]], bool]
"""Decides from an object's tags whether to keep it.

The readers pass a read-only Mapping that is valid only during the call (a view
on osmium's data, to avoid copying every object's tags): look tags up, but copy
with ``dict(tags)`` if you need them afterwards. Kept objects' tags are returned
as plain dicts.
"""

BBox = tuple[float, float, float, float]
"""``(min_lon, min_lat, max_lon, max_lat)`` in WGS84 degrees."""

Extent = list[float]
"""``[min_lon, min_lat, max_lon, max_lat]`` while a bounding box is accumulated."""

#: How the readers order their results: nodes, then ways, then relations.
TYPE_ORDER = {"node": 0, "way": 1, "relation": 2}

# Suffix (lower case) -> osmium format string. Longest suffixes are matched first.
_FORMATS: dict[str, str] = {
    ".osm.pbf": "pbf",
    ".pbf": "pbf",
    ".osm": "osm",
    ".osm.gz": "osm.gz",
    ".osm.bz2": "osm.bz2",
    ".o5m": "o5m",
    ".opl": "opl",
}

EXTRACT_SUFFIXES: tuple[str, ...] = tuple(_FORMATS)
"""File name endings the extract readers accept (case-insensitive)."""

_SUFFIX_HINT = "give an .osm, .osm.bz2, .osm.gz or .osm.pbf file"


# ---------------------------------------------------------------------------
# Opening files and turning osmium failures into InputError
# ---------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(text.split())


def extract_format(path: Path | str) -> str | None:
    """osmium's name of an extract's format from its file name (``"pbf"``, ``"osm.gz"``,
    …), or None for a suffix the readers do not accept (:data:`EXTRACT_SUFFIXES`)."""
    name = Path(os.fspath(path)).name.lower()
    return next(
        (_FORMATS[s] for s in sorted(_FORMATS, key=len, reverse=True) if name.endswith(s)),
        None,
    )


def open_extract(path: Path | str) -> osmium.io.File:
    """Check an extract's path and suffix, and open it for osmium.

    Parameters
    ----------
    path : pathlib.Path or str
        An OSM extract; see :data:`EXTRACT_SUFFIXES`.

    Returns
    -------
    osmium.io.File
        The file, with its format given explicitly.

    Raises
    ------
    InputError
        One line, if the suffix is unknown or the path is missing or not a file.
    """
    import osmium

    shown = os.fspath(path)
    fmt = extract_format(shown)
    if fmt is None:
        suffix = "".join(Path(shown).suffixes) or "none"
        raise InputError(
            _one_line(
                f"'{shown}' is not an OSM extract (unknown suffix '{suffix}'); {_SUFFIX_HINT}"
            )
        )
    p = Path(shown)
    if not p.exists():
        raise InputError(_one_line(f"OSM extract '{shown}' does not exist; check the path"))
    if not p.is_file():
        raise InputError(_one_line(f"OSM extract '{shown}' is not a file; {_SUFFIX_HINT}"))
    return osmium.io.File(shown, fmt)


def read_error(path: Path | str, exc: BaseException) -> InputError:
    """The one-line InputError for an extract osmium failed to read.

    Parameters
    ----------
    path : pathlib.Path or str
        The file, as named in the error.
    exc : BaseException
        osmium's error.

    Returns
    -------
    InputError
    """
    reason = _one_line(str(exc)) or type(exc).__name__
    return InputError(
        _one_line(
            f"cannot read '{os.fspath(path)}' as an OSM extract ({reason}); "
            f"check that the file is complete, or {_SUFFIX_HINT}"
        )
    )


def iterate(processor: Iterable[Any], path: Path | str) -> Iterator[Any]:
    """Iterate an osmium FileProcessor, turning osmium's read errors into InputError.

    Only errors raised while osmium reads the file are converted; exceptions in
    the caller's loop body (e.g. in a tag predicate) propagate unchanged.

    Parameters
    ----------
    processor : iterable
        An ``osmium.FileProcessor`` (or any iterator over osmium objects).
    path : pathlib.Path or str
        The file, as named in the error.

    Yields
    ------
    object
        The osmium objects, valid until the next one is asked for.

    Raises
    ------
    InputError
        If osmium cannot read the file.
    """
    it = iter(processor)
    while True:
        try:
            obj = next(it)
        except StopIteration:
            return
        except (RuntimeError, OSError, ValueError) as exc:
            raise read_error(path, exc) from exc
        yield obj


def check_bbox(bbox: BBox | None) -> BBox | None:
    """A reader's ``bbox`` argument as four floats, or InputError.

    Parameters
    ----------
    bbox : BBox or None
        ``(min_lon, min_lat, max_lon, max_lat)``.

    Returns
    -------
    BBox or None
        The box as floats; None when none was given.

    Raises
    ------
    InputError
        If it is not four finite numbers with each minimum at most its maximum.
    """
    if bbox is None:
        return None
    try:
        min_lon, min_lat, max_lon, max_lat = (float(v) for v in bbox)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"bbox must be four numbers (min_lon, min_lat, max_lon, max_lat), got {bbox!r}"
        ) from exc
    if not all(math.isfinite(v) for v in (min_lon, min_lat, max_lon, max_lat)) or not (
        min_lon <= max_lon and min_lat <= max_lat
    ):
        raise InputError(
            f"bbox {bbox!r} is not (min_lon, min_lat, max_lon, max_lat) with min <= max"
        )
    return (min_lon, min_lat, max_lon, max_lat)


def in_bbox(lon: float, lat: float, bbox: BBox) -> bool:
    """Whether the point lies in ``bbox``, edges included.

    Parameters
    ----------
    lon, lat : float
        The point.
    bbox : BBox
        The box.

    Returns
    -------
    bool
    """
    return bbox[0] <= lon <= bbox[2] and bbox[1] <= lat <= bbox[3]


# ---------------------------------------------------------------------------
# Tags and members
# ---------------------------------------------------------------------------


def all_items(items: Any) -> Iterator[Any]:
    """The items of an osmium tag or member list, stopping at its length.

    pyosmium ends such an iteration by throwing a C++ exception, which costs more
    (~8 µs) than copying a few tags; taking ``len`` items never reaches that end.

    Parameters
    ----------
    items : osmium tag list or member list
        The list.

    Returns
    -------
    iterator
        Its items.
    """
    return islice(items, len(items))


def tags_of(obj: Any) -> dict[str, str]:
    """A copy of an osmium object's tags.

    Parameters
    ----------
    obj : osmium object
        A node, way, relation or area.

    Returns
    -------
    dict of str to str
    """
    return dict(all_items(obj.tags))


def kept_tags(tags: Mapping[str, str]) -> dict[str, str]:
    """A kept object's tags, their strings interned.

    A country's points repeat the same keys and values (``amenity``, ``yes``) tens of
    thousands of times: interned, each is held once.

    Parameters
    ----------
    tags : mapping of str to str
        The tags.

    Returns
    -------
    dict of str to str
    """
    return {sys.intern(k): sys.intern(v) for k, v in tags.items()}


def union_prefilter(prefilters: Iterable[Prefilter]) -> Prefilter:
    """One prefilter letting through what any of ``prefilters`` lets through.

    Parameters
    ----------
    prefilters : iterable of Prefilter

    Returns
    -------
    Prefilter
        The union of their pairs and of their bare keys.
    """
    prefilters = list(prefilters)
    pairs = frozenset().union(*(p.pairs for p in prefilters))
    keys = frozenset().union(*(p.keys for p in prefilters))
    return Prefilter(pairs, keys)


class TagView(Mapping[str, str]):
    """A read-only Mapping over an osmium tag list, without copying it.

    Building a dict for each of tens of thousands of tagged objects costs more
    than reading the file; predicates mostly do a few ``get``/``in`` lookups,
    which this answers from osmium directly. Valid only while the object is.

    Parameters
    ----------
    tags : osmium tag list
        The object's tags.
    """

    __slots__ = ("_tags",)

    def __init__(self, tags: Any) -> None:
        self._tags = tags

    def __getitem__(self, key: str) -> str:
        return self._tags[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._tags

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        """The tag's value, or ``default``."""
        return self._tags.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return (tag.k for tag in all_items(self._tags))

    def __len__(self) -> int:
        return len(self._tags)


def keeps(keep: TagPredicate, obj: Any) -> bool:
    """Call ``keep`` on an osmium object's tags through a :class:`TagView`.

    Parameters
    ----------
    keep : TagPredicate
        The predicate.
    obj : osmium object
        The object.

    Returns
    -------
    bool
        What ``keep`` said.
    """
    return bool(keep(TagView(obj.tags)))


def split_members(members: Any) -> tuple[list[int], list[int], list[int]]:
    """The ids of a relation's node, way and relation members.

    Parameters
    ----------
    members : osmium member list
        ``relation.members``.

    Returns
    -------
    (list of int, list of int, list of int)
        Node ids, way ids and relation ids, each in member order.
    """
    nodes: list[int] = []
    ways: list[int] = []
    rels: list[int] = []
    for m in all_items(members):
        if m.type == "n":
            nodes.append(m.ref)
        elif m.type == "w":
            ways.append(m.ref)
        elif m.type == "r":
            rels.append(m.ref)
    return nodes, ways, rels


def way_coords(way: Any) -> list[tuple[float, float]]:
    """A way's ``(lon, lat)`` vertices.

    Parameters
    ----------
    way : osmium way
        A way read with node locations.

    Returns
    -------
    list of (float, float)
        Its nodes' positions; nodes without a location (clipped extracts) are
        skipped, and repeated vertices dropped.
    """
    coords: list[tuple[float, float]] = []
    for node in way.nodes:
        loc = node.location
        if loc.valid():
            xy = (loc.lon, loc.lat)
            if not coords or coords[-1] != xy:
                coords.append(xy)
    return coords


# ---------------------------------------------------------------------------
# Extents: the centre of a way or relation
# ---------------------------------------------------------------------------


def new_extent() -> Extent:
    """An empty :data:`Extent` (every point added widens it)."""
    return [math.inf, math.inf, -math.inf, -math.inf]


def add_point(ext: Extent, lon: float, lat: float) -> None:
    """Widen ``ext`` to hold the point ``(lon, lat)``."""
    if lon < ext[0]:
        ext[0] = lon
    if lat < ext[1]:
        ext[1] = lat
    if lon > ext[2]:
        ext[2] = lon
    if lat > ext[3]:
        ext[3] = lat


def add_extent(ext: Extent, other: Extent) -> None:
    """Widen ``ext`` to hold the extent ``other``."""
    add_point(ext, other[0], other[1])
    add_point(ext, other[2], other[3])


def way_extent(way: Any) -> Extent | None:
    """The extent of a way's nodes that have a location, or None if none has.

    Parameters
    ----------
    way : osmium way
        A way read with node locations.

    Returns
    -------
    Extent or None
    """
    ext = new_extent()
    found = False
    for node in way.nodes:
        loc = node.location
        if loc.valid():
            add_point(ext, loc.lon, loc.lat)
            found = True
    return ext if found else None


def stored_extent(way: Any, storage: Any) -> Extent | None:
    """Like :func:`way_extent`, with the node locations looked up in ``storage``.

    Parameters
    ----------
    way : osmium way
        A way read without node locations.
    storage : osmium location index
        Node id -> location (``get`` raises KeyError for an unknown node).

    Returns
    -------
    Extent or None
    """
    ext = new_extent()
    found = False
    for node in way.nodes:
        try:
            loc = storage.get(node.ref)
        except KeyError:
            continue
        if loc.valid():
            add_point(ext, loc.lon, loc.lat)
            found = True
    return ext if found else None


def relation_extent(
    node_ids: Iterable[int], way_ids: Iterable[int], storage: Any, way_extents: Mapping[int, Extent]
) -> Extent | None:
    """The extent of a relation's member nodes and member ways, or None if none is known.

    Parameters
    ----------
    node_ids, way_ids : iterable of int
        The member nodes and ways.
    storage : osmium location index
        Node id -> location.
    way_extents : mapping of int to Extent
        The member ways' extents (ways without one are skipped).

    Returns
    -------
    Extent or None
    """
    ext = new_extent()
    found = False
    for nid in node_ids:
        try:
            loc = storage.get(nid)
        except KeyError:
            continue
        if loc.valid():
            add_point(ext, loc.lon, loc.lat)
            found = True
    for wid in way_ids:
        wext = way_extents.get(wid)
        if wext is not None:
            add_extent(ext, wext)
            found = True
    return ext if found else None


def centre(ext: Extent) -> tuple[float, float]:
    """``(lat, lon)`` of the centre of an extent, in OsmElement's argument order.

    Parameters
    ----------
    ext : Extent
        A non-empty extent.

    Returns
    -------
    (float, float)
    """
    return (ext[1] + ext[3]) / 2.0, (ext[0] + ext[2]) / 2.0


# ---------------------------------------------------------------------------
# Areas
# ---------------------------------------------------------------------------


def polygonal(geom: BaseGeometry) -> BaseGeometry | None:
    """A valid, non-empty Polygon or MultiPolygon from ``geom``, or None.

    Parameters
    ----------
    geom : BaseGeometry
        An assembled area; an invalid one is repaired with ``make_valid`` and only
        its polygonal parts kept.

    Returns
    -------
    Polygon, MultiPolygon or None
        A one-part MultiPolygon comes back as its Polygon; None when no area is left.
    """
    if geom.is_empty:
        return None
    if not geom.is_valid:
        geom = shapely.make_valid(geom)
        parts = [
            g
            for g in getattr(geom, "geoms", [geom])
            if isinstance(g, Polygon | MultiPolygon) and not g.is_empty
        ]
        polys: list[Polygon] = []
        for g in parts:
            polys.extend(g.geoms if isinstance(g, MultiPolygon) else [g])
        if not polys:
            return None
        geom = MultiPolygon(polys)
        if not geom.is_valid:
            return None
    if isinstance(geom, MultiPolygon) and len(geom.geoms) == 1:
        geom = geom.geoms[0]
    if not isinstance(geom, Polygon | MultiPolygon) or geom.area <= 0:
        return None
    return geom
