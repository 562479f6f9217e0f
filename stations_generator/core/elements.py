"""The neutral record every OSM reader produces.

Overpass responses, Overpass JSON saved to disk, OSM XML and PBF extracts all
become lists of :class:`OsmElement`, so one catalogue matcher turns any of them
into station candidates.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class OsmElement:
    """One OSM object reduced to a representative point.

    Attributes
    ----------
    osm_type : str
        ``"node"``, ``"way"`` or ``"relation"``.
    osm_id : int
        The OSM id (unique within its type).
    lat, lon : float
        WGS84 position: the node itself, or the centre of the way's / relation's
        bounding box (what Overpass ``out center`` returns).
    tags : dict[str, str]
        The object's tags.
    """

    osm_type: str
    osm_id: int
    lat: float
    lon: float
    tags: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def key(self) -> str:
        """The id as ``"node/123"``, the form OSM's website and taibeled use."""
        return f"{self.osm_type}/{self.osm_id}"
