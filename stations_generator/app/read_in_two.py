"""One large Overpass JSON file read and made into station candidates on two cores.

On a map of 100,000 candidates ``generate`` spends over 2 s reading its Overpass JSON
file and turning the elements into the candidate table: the same work for every
element, which depends on no other element until the rows are put in order. A file of
the ordinary shape (:func:`~stations_generator.osm.overpass.split_in_two`) is cut
between two elements near its middle; a forked child (:mod:`stations_generator.app.forked`)
reads the second half and makes its candidate rows while this process does the first,
and the rows are merged into one table -- the table reading the file whole gives
(:func:`~stations_generator.core.stationmap.candidates.table_of_rows`: the same order, the first
of duplicated elements kept).

Anything unusual in either half (an element of another shape, a bad value, too many
elements, an object listed in both halves) gives up: the file is then read the ordinary
way, which words any error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stations_generator.app.forked import ForkedTask, can_fork
from stations_generator.core.catalogue import Catalogue
from stations_generator.core.stationmap.candidates import (
    CandidateRow,
    candidate_rows,
    table_of_rows,
)
from stations_generator.core.stationmap.opening_hours import PlayWindow
from stations_generator.core.stationmap.pointtable import PointTable
from stations_generator.osm import overpass
from stations_generator.osm.sources import json_element_filter

__all__ = ["SPLIT_MIN_BYTES", "CandidatesRead", "read_candidates_in_two"]

#: Files from this size up are read in two halves (about 1,500 elements). The gain grows
#: with the file: 0.04 s of 1.35 at 3,000 candidates (0.9 MB), 0.1 s of 1.5 at 10,000,
#: 0.5 s of 4.0 at 50,000 and 0.9 s of 6.8 at 100,000 (bench/bench_generate_scale.py);
#: below this a fork costs about what it saves.
SPLIT_MIN_BYTES = 512 * 1024

#: Where the file is cut (a share of its length). The child's half is a little smaller:
#: it also pickles its rows, and this process unpickles them.
CUT_AT = 0.52

Extent = tuple[float, float, float, float]  # min lon, min lat, max lon, max lat


@dataclass(frozen=True)
class CandidatesRead:
    """What ``generate`` needs of an OSM file it read in two halves."""

    candidates: PointTable
    """The candidate table, as :func:`~stations_generator.core.stationmap.candidates.candidate_table`
    of the file's elements makes it."""
    objects: int
    """How many OSM objects were read (those the catalogue keeps)."""
    extent: Extent | None
    """The (lon, lat) bounding box of those objects; None when there are none."""

    @property
    def corners(self) -> list[tuple[float, float]]:
        """Two (lon, lat) points with the objects' bounding box (for the coverage check)."""
        if self.extent is None:
            return []
        west, south, east, north = self.extent
        return [(west, south), (east, north)]


@dataclass(frozen=True)
class _Half:
    rows: list[CandidateRow]
    objects: int
    extent: Extent | None
    keys: set[int]
    """Every kept element's type and id (:func:`_key`)."""
    kept: int
    """The elements kept (listings of one object each count, as the whole read counts)."""


_TYPE_CODES = {"node": 0, "way": 1, "relation": 2}


def _key(element: dict[str, Any]) -> int:
    """An element's type and id as one int (types other than the three share a code:
    at worst two elements seem the same, and the file is read whole)."""
    return element["id"] * 4 + _TYPE_CODES.get(element["type"], 3)


def _tabulate(
    raw: overpass.OverpassJSON | None, name: str, catalogue: Catalogue, window: PlayWindow
) -> _Half | None:
    """The candidate rows and the rest :func:`read_candidates_in_two` needs of one half."""
    if raw is None:
        return None
    kept = raw["elements"]
    keys = set(map(_key, kept))
    elements, _ = overpass.parse_overpass(raw, name)
    extent = None
    if elements:
        lons = [e.lon for e in elements]
        lats = [e.lat for e in elements]
        extent = (min(lons), min(lats), max(lons), max(lats))
    rows = candidate_rows(elements, catalogue, window)
    return _Half(rows, len(elements), extent, keys, len(kept))


def read_candidates_in_two(
    path: Path, catalogue: Catalogue, window: PlayWindow
) -> CandidatesRead | None:
    """The candidates of one Overpass JSON file, read on two cores; None to read it whole.

    Parameters
    ----------
    path : Path
        An Overpass JSON file (``sources.read_files`` reads it otherwise).
    catalogue : Catalogue
    window : PlayWindow
        As :func:`~stations_generator.core.stationmap.candidates.candidate_table` takes them.

    Returns
    -------
    CandidatesRead or None
        None when there is one usable core, the file is small (under
        :data:`SPLIT_MIN_BYTES`) or too large to parse whole, cannot be cut, or either
        half is not ordinary: read it the ordinary way then.
    """
    if not can_fork():
        return None
    try:
        size = path.stat().st_size
        if not SPLIT_MIN_BYTES <= size <= overpass.WHOLE_PARSE_MAX_BYTES:
            return None
        halves = overpass.split_in_two(path.read_bytes(), CUT_AT)
    except OSError:
        return None
    if halves is None:
        return None
    # (ordinary elements carry no water geometry: the catalogue's filter alone)
    name, keep = path.name, json_element_filter(catalogue)
    with ForkedTask(lambda: _tabulate(halves.read_second(keep), name, catalogue, window)) as other:
        own = _tabulate(halves.read_first(keep), name, catalogue, window)
        if own is None:
            return None  # (leaving the block stops the child)
        theirs = other.result()
    if theirs is None or own.kept + theirs.kept > overpass.MAX_KEPT_ELEMENTS:
        return None  # (read whole, such a file is streamed: the limit words its error)
    if not own.keys.isdisjoint(theirs.keys):
        # An object listed in both halves: read whole, its listings are merged into one
        # element (parse_overpass), which the halves cannot do apart.
        return None
    extents = [e for e in (own.extent, theirs.extent) if e is not None]
    extent = None
    if extents:
        extent = (
            min(e[0] for e in extents),
            min(e[1] for e in extents),
            max(e[2] for e in extents),
            max(e[3] for e in extents),
        )
    return CandidatesRead(
        table_of_rows(own.rows, theirs.rows), own.objects + theirs.objects, extent
    )
