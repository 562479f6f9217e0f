"""The road kinds a car may drive, and the ways that are marked paths: OSM tags (pure,
no imports).

Apart from :mod:`~stations_generator.core.play.drive` and
:mod:`~stations_generator.core.questions.marked_paths` so that what only needs the tags
-- the extract readers -- loads neither networkx nor the geometry with them.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["DRIVABLE_HIGHWAYS", "MARKED_HIGHWAYS", "NOT_PUBLIC", "is_marked_path"]

#: ``highway=*`` values of roads a car may drive (the road network of drive times).
DRIVABLE_HIGHWAYS: frozenset[str] = frozenset(
    {
        "motorway",
        "motorway_link",
        "trunk",
        "trunk_link",
        "primary",
        "primary_link",
        "secondary",
        "secondary_link",
        "tertiary",
        "tertiary_link",
        "unclassified",
        "residential",
        "living_street",
        "road",
    }
)

#: ``highway=*`` values that are marked paths (JLTG.EU house rules, Definitions of Terms:
#: Marked Path).
MARKED_HIGHWAYS: frozenset[str] = DRIVABLE_HIGHWAYS | frozenset(
    {"service", "pedestrian", "track", "footway", "cycleway", "bridleway", "path", "steps"}
)
#: ``access=*`` values that close a way to the public ("publicly accessible").
NOT_PUBLIC: frozenset[str] = frozenset(
    {"no", "private", "customers", "delivery", "agricultural", "forestry", "military"}
)
_OPEN = frozenset({"yes", "designated", "permissive", "destination"})
_MODES = ("foot", "bicycle", "vehicle", "motor_vehicle", "motorcar")


def is_marked_path(tags: Mapping[str, str]) -> bool:
    """Whether a way with these tags is a marked path (JLTG.EU house rules, Definitions
    of Terms: Marked Path; see :mod:`~stations_generator.core.questions.marked_paths`).

    Parameters
    ----------
    tags : Mapping[str, str]
        A way's OSM tags.

    Returns
    -------
    bool
    """
    if tags.get("highway") not in MARKED_HIGHWAYS or tags.get("area") == "yes":
        return False
    if tags.get("access") in NOT_PUBLIC:
        return any(tags.get(m) in _OPEN for m in _MODES)
    return True
