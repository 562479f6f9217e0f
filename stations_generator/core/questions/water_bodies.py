"""What counts as a body of water for the measuring question under the house rules (pure).

JLTG.EU house rules, "Definitions of Terms: Body of Water": a body of water is marked as
such in the mapping application, its water is visible, it is uncovered (of a canal
through a tunnel only the uncovered part counts), and it has water in it (dry rivers
do not count). The measurement is to its nearest edge (JLTG.EU house rules, "Measuring:
Body of Water").

Read from OSM tags:

* **areas** — the water areas the toolkit always read (``natural=water``, ``bay``,
  ``waterway=riverbank``, ``dock``, ``landuse=reservoir``, ``basin``), now only when
  they are open water (:func:`is_open_water`);
* **rivers and canals mapped only as lines** — ``waterway=river`` and
  ``waterway=canal`` ways (:data:`LINE_WATERWAYS`): they are marked on the map and
  their water is visible, so they count. Distances are measured to the mapped line
  (its centre line): the edge of a river drawn as a line is not in the data, so such a
  distance is too long by at most half the river's width. Streams, ditches and drains
  are left out: small, often piped or dry, and not what the rules call a body of water
  to measure to;
* **not open water** — ``covered=yes``; ``tunnel=*`` other than ``no`` (culverts, a
  river under a building: ``tunnel=building_passage``); ``location=underground``;
  ``intermittent=yes`` and ``seasonal=yes`` (the water is not always there). A way
  cut into covered and open stretches keeps its open ones, as the rules ask.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["LINE_WATERWAYS", "is_line_waterway", "is_open_water"]

#: Waterways mapped as lines that count as a body of water (see the module docstring).
LINE_WATERWAYS = ("river", "canal")


def is_open_water(tags: Mapping[str, str]) -> bool:
    """Whether water with these tags is uncovered and always wet.

    Parameters
    ----------
    tags : Mapping[str, str]
        An OSM object's tags (a water area or a waterway).

    Returns
    -------
    bool
        False for covered, tunnelled, underground, intermittent or seasonal water.
    """
    if tags.get("covered") == "yes" or tags.get("location") == "underground":
        return False
    if tags.get("tunnel", "no") != "no":
        return False
    return tags.get("intermittent") != "yes" and tags.get("seasonal") != "yes"


def is_line_waterway(tags: Mapping[str, str]) -> bool:
    """Whether a way is a river or canal line that counts as open water."""
    return tags.get("waterway") in LINE_WATERWAYS and is_open_water(tags)
