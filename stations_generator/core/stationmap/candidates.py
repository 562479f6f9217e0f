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
    columns = _candidate_columns(elements, catalogue, window)
    n_text = len(CANDIDATE_COLUMNS)
    lon, lat = np.array(columns[n_text], float), np.array(columns[n_text + 1], float)
    table = {
        name: (
            np.array(values, _NUMBER_TYPES[name]) if name in _NUMBER_TYPES else text_column(values)
        )
        for name, values in zip(CANDIDATE_COLUMNS, columns, strict=False)
    }
    if columns[-1] is not None:  # the elements were not in order: sort the rows
        order = np.lexsort((table["osm_id"], np.asarray(columns[-1], np.int64)))
        return PointTable(table, lon, lat, geometry_at=len(table)).take(order)
    return PointTable(table, lon, lat, geometry_at=len(table))


_TYPE_ORDER = {"node": 0, "way": 1}  # (then relations, and anything else)


def _candidate_columns(
    elements: Iterable[OsmElement], catalogue: Catalogue, window: PlayWindow
) -> list[list | None]:
    """The values of :data:`CANDIDATE_COLUMNS`, then the lons and lats, of the candidates
    in the order of ``elements`` (the first of a repeated ``id``), as lists; and last,
    None when the elements came ordered by type then id (one file's do), else each
    row's type order (0 node, 1 way, 2 other) to sort by.

    Columns, not rows: no tuple per row to build, keep and transpose (100,000 of them
    on a large map).
    """
    columns: list[list] = [[] for _ in range(len(CANDIDATE_COLUMNS) + 3)]
    (ids, types, osm_ids, names, categories, priorities, transit, subjects, hours_texts,
     verdicts, quality, lons, lats, ranks) = columns  # fmt: skip
    seen: set[str] | None = None  # the ids so far, once the elements are out of order
    hours_verdicts: dict[str, str] = {}  # one evaluation per distinct opening_hours text
    candidate_match, type_rank = catalogue.candidate_match, _TYPE_ORDER.get
    last_rank, last_id = -1, 0
    for el in elements:
        tags = el.tags
        match = candidate_match(tags)
        if match is None:
            continue
        osm_type, osm_id = el.osm_type, el.osm_id
        key = f"{osm_type}/{osm_id}"
        rank = type_rank(osm_type, 2)
        if seen is None:
            # While each element comes after the one before, none repeats an id.
            if rank > last_rank or (rank == last_rank and osm_id > last_id):
                last_rank, last_id = rank, osm_id
            else:
                seen = set(ids)
        if seen is not None:
            if key in seen:
                continue
            seen.add(key)
        ranks.append(rank)
        hours = tags.get("opening_hours", "")
        verdict = hours_verdicts.get(hours)
        if verdict is None:
            verdict = hours_verdicts[hours] = open_during_play(hours, window)
        ids.append(key)
        types.append(osm_type)
        osm_ids.append(osm_id)
        names.append(tags.get("name", "").strip())
        category, priority, is_transit, subject_text = match
        categories.append(category)
        priorities.append(priority)
        transit.append(is_transit)
        subjects.append(subject_text)
        hours_texts.append(hours)
        verdicts.append(verdict)
        quality.append(quality_score(tags))
        lons.append(el.lon)
        lats.append(el.lat)
    return [*columns[:-1], None if seen is None else ranks]
