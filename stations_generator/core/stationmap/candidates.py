"""OSM elements -> station candidates, through the catalogue.

The result is a :class:`~.pointtable.PointTable` (or, from
:func:`elements_to_candidates`, a GeoDataFrame in EPSG:4326) with these stable
columns, one row per OSM object that belongs to a station category:

=================  ==========================================================
``id``             ``"node/123"`` (OSM type and id)
``osm_type``       ``"node"``, ``"way"`` or ``"relation"``
``osm_id``         OSM id (int)
``name``           ``name`` tag, ``""`` if none
``category``       best-ranked station category (catalogue name)
``priority``       its tier (0 = transit … 7 = restaurants)
``transit``        real transit station (bool)
``subjects``       question subjects it serves, comma-separated
``opening_hours``  ``opening_hours`` tag, ``""`` if none
``open_during_play`` ``"yes"``, ``"no"`` or ``"unknown"``
``quality``        0–4, see :func:`stations_generator.core.stationmap.ranking.quality_score`
``geometry``       Point (the node, or the centre of the way / relation)
=================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from stations_generator.core.catalogue import Catalogue
from stations_generator.core.elements import OsmElement
from stations_generator.core.stationmap.opening_hours import PlayWindow, open_during_play
from stations_generator.core.stationmap.pointtable import PointTable, text_column
from stations_generator.core.stationmap.ranking import quality_score

if TYPE_CHECKING:
    import geopandas as gpd

CANDIDATE_COLUMNS = (
    "id",
    "osm_type",
    "osm_id",
    "name",
    "category",
    "priority",
    "transit",
    "subjects",
    "opening_hours",
    "open_during_play",
    "quality",
)


_NUMBER_TYPES = {"osm_id": np.int64, "priority": np.int64, "transit": bool, "quality": np.int64}


def elements_to_candidates(
    elements: Iterable[OsmElement], catalogue: Catalogue, window: PlayWindow
) -> gpd.GeoDataFrame:
    """Station candidates from OSM elements, as a GeoDataFrame (EPSG:4326).

    The frame form of :func:`candidate_table`, for callers that work in geopandas.
    """
    return candidate_table(elements, catalogue, window).to_frame()


def candidate_table(
    elements: Iterable[OsmElement], catalogue: Catalogue, window: PlayWindow
) -> PointTable:
    """Station candidates from OSM elements (one row per element with a station category).

    Duplicated elements (the same ``id`` read twice, e.g. from two files) are kept once.
    Rows are ordered by OSM type (node, way, relation), then id.

    Parameters
    ----------
    elements : iterable of OsmElement
    catalogue : Catalogue
        Its station categories decide which elements are candidates.
    window : PlayWindow
        For ``open_during_play``.

    Returns
    -------
    PointTable
        The columns in the module's table, in that order.
    """
    return table_of_rows(candidate_rows(elements, catalogue, window))


CandidateRow = tuple
"""One candidate: the values of :data:`CANDIDATE_COLUMNS`, then its lon and lat."""


def candidate_rows(
    elements: Iterable[OsmElement], catalogue: Catalogue, window: PlayWindow
) -> list[CandidateRow]:
    """The rows of :func:`candidate_table` (plain tuples: cheap to pickle), in its order.

    Rows made from consecutive pieces of one element sequence (e.g. the halves of a file
    read in two processes) give that sequence's table through :func:`table_of_rows`.
    """
    rows: list[CandidateRow] = []
    seen: set[str] = set()
    hours_verdicts: dict[str, str] = {}  # one evaluation per distinct opening_hours text
    station_match = catalogue.station_match
    for el in elements:
        key = el.key
        if key in seen:
            continue
        tags = el.tags
        category, subjects = station_match(tags)
        if category is None:
            continue
        seen.add(key)
        hours = tags.get("opening_hours", "")
        verdict = hours_verdicts.get(hours)
        if verdict is None:
            verdict = hours_verdicts[hours] = open_during_play(hours, window)
        rows.append(
            (
                key,
                el.osm_type,
                int(el.osm_id),
                tags.get("name", "").strip(),
                category.name,
                int(category.priority),
                bool(category.transit),
                ",".join(subjects),
                hours,
                verdict,
                quality_score(tags),
                float(el.lon),
                float(el.lat),
            )
        )
    rows.sort(key=_row_order)
    return rows


_TYPE_ORDER = {"node": 0, "way": 1}


def _row_order(row: CandidateRow) -> tuple[int, int]:
    return _TYPE_ORDER.get(row[1], 2), row[2]


def table_of_rows(*parts: list[CandidateRow]) -> PointTable:
    """The candidate table of :func:`candidate_rows` of consecutive pieces of elements.

    The pieces' rows are merged in order (a stable sort: on equal ``id`` the earlier
    piece's row comes first) and an ``id`` already seen is dropped, as
    :func:`candidate_table` keeps the first of duplicated elements.
    """
    filled = [part for part in parts if part]
    rows = [row for part in filled for row in part]
    if any(_row_order(a[-1]) >= _row_order(b[0]) for a, b in pairwise(filled)):
        # (Pieces in order, as Overpass writes its elements, need no sort and hold no
        # duplicate: each piece's rows are in order and unique.)
        merged, rows = rows, []
        seen: set[str] = set()
        for row in sorted(merged, key=_row_order):
            if row[0] not in seen:
                seen.add(row[0])
                rows.append(row)
    columns = list(zip(*rows, strict=True)) or [()] * (len(CANDIDATE_COLUMNS) + 2)
    table = {
        name: (
            np.array(values, _NUMBER_TYPES[name]) if name in _NUMBER_TYPES else text_column(values)
        )
        for name, values in zip(CANDIDATE_COLUMNS, columns, strict=False)
    }
    lon, lat = np.array(columns[-2], float), np.array(columns[-1], float)
    return PointTable(table, lon, lat, geometry_at=len(table))
