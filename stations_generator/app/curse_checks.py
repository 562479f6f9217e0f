"""Check a curse's map condition on OSM extracts: the referee's ``check-curse`` use case.

:class:`ExtractCurseLayers` gives :func:`~stations_generator.core.referee.curse_map.check_curse`
its features from extracts: the curse kinds through :mod:`~stations_generator.osm.curse_layers`
(bodies of water are the measuring question's), and the railway stations as the
questions read them (:class:`~stations_generator.app.map_context.OsmContext`, routes
included, so the valid-stop rules of :mod:`~stations_generator.core.questions.stops`
see the lines serving each stop).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shapely.geometry import box

from stations_generator.app.map_context import OsmContext
from stations_generator.core.questions.places import Station
from stations_generator.core.referee.curse_map import (
    CurseCheck,
    CurseNotCheckable,
    MapFeature,
    check_curse,
)
from stations_generator.errors import InputError
from stations_generator.osm import curse_layers, layers

__all__ = ["ExtractCurseLayers", "check_curse_on_map", "curse_check_json"]

#: The catalogue categories of railway stations and halts (the valid-stop candidates).
STATION_CATEGORIES = ("train_station", "train_halt")


@dataclass
class ExtractCurseLayers:
    """The :class:`~stations_generator.core.referee.curse_map.CurseLayers` of OSM extracts.

    Parameters
    ----------
    files : sequence of Path
        OSM extracts (PBF, XML, ...); features of every file are read, duplicates once.
    """

    files: Sequence[Path]
    _stations: dict = field(default_factory=dict, repr=False)

    def map_features(self, kind: str, near: tuple[float, float], reach: float) -> list[MapFeature]:
        """Every feature of ``kind`` within ``reach`` metres of ``near`` (lat, lon), or more."""
        bbox = curse_layers.box_around(near[0], near[1], reach)
        seen: dict[str, MapFeature] = {}
        for f in self.files:
            for oid, tags, geom in curse_layers.features(Path(f), kind, bbox):
                seen.setdefault(oid, MapFeature(oid, tags.get("name", ""), geom))
        return [seen[k] for k in sorted(seen)]

    def stations(self, near: tuple[float, float], reach: float) -> list[Station]:
        """The railway stations and halts within ``reach`` metres of ``near`` (or more)."""
        bbox = curse_layers.box_around(near[0], near[1], reach)
        if bbox not in self._stations:
            context = OsmContext(box(*bbox), tuple(Path(f) for f in self.files))
            self._stations[bbox] = context.stations_from_osm(STATION_CATEGORIES)
        return list(self._stations[bbox])

    def regions(self, name: str) -> list[MapFeature]:
        """The named admin areas (any level) called ``name``: the border question's layer."""
        seen: dict[str, MapFeature] = {}
        for f in self.files:
            for zid, tags, geom in layers.areas(Path(f), "admin"):
                if tags.get("name") == name:
                    seen.setdefault(zid, MapFeature(zid, name, geom))
        return [seen[k] for k in sorted(seen)]


def check_curse_on_map(
    curse_id: str,
    size: str,
    osm: Sequence[Path],
    *,
    seekers: tuple[float, float] | None = None,
    hider: tuple[float, float] | None = None,
    place: tuple[float, float] | None = None,
    country: str | None = None,
    plates: tuple[str, str] | None = None,
) -> CurseCheck:
    """Measure a curse's map conditions on OSM extracts.

    Parameters
    ----------
    curse_id : str
        The card id, e.g. ``"curse-of-the-bridge-troll"``.
    size : str
        ``"S"``, ``"M"`` or ``"L"``.
    osm : sequence of Path
        OSM extracts covering the positions.
    seekers, hider, place : (lat, lon), optional
        See :func:`~stations_generator.core.referee.curse_map.check_curse`.
    country : str, optional
        The game's country code (which stops are valid for hiding).
    plates : (str, str), optional
        The admin areas of the hider's and the seekers' licence plates, by name.

    Returns
    -------
    CurseCheck

    Raises
    ------
    InputError
        One line: an unknown curse or one the map cannot check, a bad size or position,
        no extract, or an extract that cannot be read.
    """
    files = tuple(Path(f) for f in osm)
    try:
        for f in files:
            if not f.exists():
                raise InputError(f"OSM file {f.name!r} does not exist; check the path")
        return check_curse(
            curse_id,
            size,
            ExtractCurseLayers(files) if files else None,
            seekers=seekers,
            hider=hider,
            place=place,
            country=country,
            plates=plates,
        )
    except (CurseNotCheckable, ValueError, TypeError) as exc:
        raise InputError(str(exc)) from None


def curse_check_json(check: CurseCheck) -> dict:
    """A curse check as JSON-ready data (what ``check-curse --json`` prints)."""
    return {
        "curse": check.curse_id,
        "rule": check.rule,
        "size": check.size,
        "met": check.met,
        "conditions": [
            {
                "part": r.condition.part,
                "who": r.condition.who,
                "rule": r.condition.rule,
                "met": r.met,
                "distance_m": None if r.distance_m is None else round(r.distance_m, 2),
                "limit_m": r.limit_m,
                "feature": {"name": r.feature_name, "osm_id": r.osm_id} if r.osm_id else None,
                "explanation": r.explanation,
                "players_word": r.condition.players_word,
            }
            for r in check.results
        ],
    }
