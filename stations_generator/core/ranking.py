"""Candidate ranking: who wins when two candidates compete for the same spot.

Order (best first): not known-closed during play, priority tier (transit 0 first,
then the rural-jet-lag tiers), named, quality (notability and completeness of the
OSM data), then a stable key (OSM type, id). Input order never matters.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

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


def rank_order(candidates: pd.DataFrame) -> np.ndarray:
    """Row positions of ``candidates``, best first.

    Parameters
    ----------
    candidates : DataFrame
        With columns ``open_during_play``, ``transit``, ``priority``, ``name``,
        ``quality``, ``osm_type``, ``osm_id``.

    Returns
    -------
    numpy int array
    """
    if len(candidates) == 0:
        return np.zeros(0, np.int64)
    closed = ((candidates["open_during_play"] == "no") & ~candidates["transit"]).to_numpy()
    keys = (
        candidates["osm_id"].to_numpy(np.int64),
        candidates["osm_type"].map(_TYPE_ORDER).fillna(3).to_numpy(np.int64),
        -candidates["quality"].to_numpy(np.int64),
        (candidates["name"] == "").to_numpy(),
        candidates["priority"].to_numpy(np.int64),
        closed,
    )
    return np.lexsort(keys)
