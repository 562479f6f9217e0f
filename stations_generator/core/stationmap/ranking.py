"""Candidate ranking: who wins when two candidates compete for the same spot.

Order (best first): not known-closed during play, priority tier (transit 0 first,
then the rural-jet-lag tiers), named, quality (notability and completeness of the
OSM data), then a stable key (OSM type, id). Input order never matters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

_TYPE_ORDER = {"node": 0, "way": 1, "relation": 2}
_QUALITY_TAGS = (
    frozenset({"wikidata", "wikipedia", "brand:wikidata"}),
    frozenset({"website", "contact:website", "url"}),
    frozenset({"opening_hours"}),
    frozenset({"addr:street", "addr:housenumber"}),
)


def quality_score(tags: Mapping[str, str]) -> int:
    """How well-documented a POI is: one point each for a wiki link, a website,
    opening hours and an address (0–4). Better-documented places make better stations."""
    keys = tags.keys()
    wiki, website, hours, address = _QUALITY_TAGS
    return (
        (not keys.isdisjoint(wiki))
        + (not keys.isdisjoint(website))
        + (not keys.isdisjoint(hours))
        + (not keys.isdisjoint(address))
    )


def rank_order(candidates: Mapping[str, Any]) -> np.ndarray:
    """Row positions of ``candidates``, best first.

    Parameters
    ----------
    candidates : PointTable or DataFrame
        With columns ``open_during_play``, ``transit``, ``priority``, ``name``,
        ``quality``, ``osm_type``, ``osm_id``.

    Returns
    -------
    numpy int array
    """
    if len(candidates) == 0:
        return np.zeros(0, np.int64)

    def column(name: str, dtype: Any = None) -> np.ndarray:
        return np.asarray(candidates[name], dtype)

    closed = (column("open_during_play", object) == "no") & ~column("transit", bool)
    keys = (
        column("osm_id", np.int64),
        _type_order(column("osm_type", object)),
        -column("quality", np.int64),
        column("name", object) == "",
        column("priority", np.int64),
        closed,
    )
    return np.lexsort(keys)


def _type_order(types: np.ndarray) -> np.ndarray:
    """:data:`_TYPE_ORDER` of each OSM type (3 for any other), compared in C."""
    order = np.full(len(types), 3, np.int64)
    for name, value in _TYPE_ORDER.items():
        order[types == name] = value
    return order
