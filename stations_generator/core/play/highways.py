"""The road kinds a car may drive: OSM ``highway=*`` values (pure, no imports).

Apart from :mod:`~stations_generator.core.play.drive` so that what only needs the list
-- the marked-path questions, the extract readers -- does not load networkx with it.
"""

from __future__ import annotations

__all__ = ["DRIVABLE_HIGHWAYS"]

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
