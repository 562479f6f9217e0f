"""The report's questions read from geometry: coastline, water, admin areas, landmass, paths, sea level.

``report`` counts the points of the catalogue's subjects itself
(:mod:`stations_generator.core.questions.availability`); the subjects drawn as lines and
areas, and the sea level, are judged here from the data the referee uses for them: an
:class:`~stations_generator.app.map_context.OsmContext` over the play area reads them
(through the extract cache) exactly as for a game's questions, and the referee's own
question classes say which landmass or marked path a point is on.

One row per subject (a :class:`~stations_generator.core.questions.availability.SubjectReport`,
as the point subjects' rows), with the same verdicts:

* **coastline, body of water** (measuring): usable when one lies within the report's
  margin of the area; the referee reads them as far as it must, so the nearest one's
  distance is given when it lies farther;
* **admin areas**, one row per ``admin_level`` of the named admin areas around the area
  (matching "OSM zone" and measuring "border"): matching is usable when the area spans
  two zones of the level, only one when it lies in one; measuring "border" of level 2
  (the international border) needs a level-2 border within the margin, of another level
  a zone of it;
* **landmass**, **marked path** (matching, JLTG.EU house rules): usable when at least
  two landmasses / marked paths are the seekers' for some part of the area (sampled on
  the grid of :func:`~stations_generator.core.questions.availability.area_points`);
* **sea level** (measuring, JLTG.EU house rules): with a DEM, usable when the heights
  over the area differ (a seeker's altitude between them splits it).

Without an OSM extract (Overpass JSON holds no geometry layers) the first five are
``not_assessed``, and the sea level without a DEM.

Distances from the area to a line or area are planar in the play area's azimuthal
equidistant frame (:class:`~stations_generator.core.geo.shapes.AzimuthalFrame`), never
shorter than the geodesic ones and at most ``ρ²/4R²`` longer (ρ the distance from the
frame's centre: under 0.01 % at 100 km).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.catalogue import Catalogue
from stations_generator.core.geo.antimeridian import wrap_lon
from stations_generator.core.questions.availability import (
    LAYER_LABELS,
    NEEDS_DEM,
    NEEDS_EXTRACT,
    QuestionVerdict,
    SubjectReport,
    area_points,
)
from stations_generator.core.questions.landmass import Landmasses
from stations_generator.core.questions.marked_paths import MarkedPaths
from stations_generator.osm import layers

if TYPE_CHECKING:
    from stations_generator.app.map_context import OsmContext

__all__ = ["MARKED_PATHS_UP_TO_MB", "PATH_SPACING_M", "layer_subjects"]

#: Sample spacing (m) on the marked paths when counting them: a point may be given a path
#: up to half of it farther than its nearest one, which cannot change how many paths
#: there are across the area, and it keeps the count fast (the referee draws with 2 m).
PATH_SPACING_M = 50.0
#: The context reads at least this far beyond the area: its reads widen by multiples of
#: their first margin, which must not be 0 (``--margin 0``).
_MIN_READ_M = 1_000.0

MARKED_PATHS_UP_TO_MB = 64.0
"""Extracts up to this size have their marked paths judged unless told otherwise.

The marked-path layer is every street and path of the whole extract (read once, then
cached): on the Liechtenstein extract tiled 256 times (120 MB) its first read takes
~50 s and ~1.1 GB, tiled 1024 times (480 MB) ~220 s and 4.4 GB; the report's other
layers come from one read of ~11 s. A larger extract is judged with ``--marked-paths``.
"""


def layer_subjects(
    area: BaseGeometry,
    osm_files: Sequence[Path],
    catalogue: Catalogue,
    margin_m: float,
    dem: Path | None = None,
    marked_paths: bool | None = None,
) -> tuple[SubjectReport, ...]:
    """The geometry subjects' rows of the question-availability report.

    Parameters
    ----------
    area : shapely Polygon or MultiPolygon
        The play area (WGS84).
    osm_files : sequence of Path
        The report's ``--osm`` files; the extracts among them give the layers.
    catalogue : Catalogue
        The report's catalogue (for the context's point reads).
    margin_m : float
        How far beyond the area a line or area still counts (the report's margin).
    dem : Path, optional
        The elevation model for the sea level.
    marked_paths : bool, optional
        Whether to judge the marked paths (read every street and path of the
        extracts); None: when no extract is larger than :data:`MARKED_PATHS_UP_TO_MB`.

    Returns
    -------
    tuple of SubjectReport
        Coastline, body of water, admin areas (one row per level), landmass, marked
        path, sea level.

    Raises
    ------
    InputError
        For a DEM that cannot be read or does not cover the area.
    """
    extracts = [Path(f) for f in osm_files if not str(f).lower().endswith(".json")]
    if not extracts:  # Overpass JSON: no geometry layers
        rows = [_not_assessed(s, NEEDS_EXTRACT) for s in LAYER_LABELS if s != "sea_level"]
        if dem is None:
            return (*rows, _not_assessed("sea_level", NEEDS_DEM))
    # The referee's map (and rasterio with it: 0.4 s of imports) only when it is read.
    from stations_generator.app.map_context import OsmContext

    context = OsmContext(
        area, tuple(osm_files), catalogue, margin_m=max(margin_m, _MIN_READ_M), dem=dem
    )
    lon, lat = area_points(area)
    lon = wrap_lon(lon, context.centre)
    # The DEM first: a DEM that does not cover the area fails before the long reads.
    if dem is None:
        sea_level = _not_assessed("sea_level", NEEDS_DEM)
    else:
        sea_level = _sea_level_row(context, lon, lat)
    if extracts:
        rows = [
            _measured(context, "coastline", area, margin_m, extracts),
            _measured(context, "body_of_water", area, margin_m, extracts),
            *_admin_rows(context, area, margin_m, extracts),
            _landmass_row(context, lon, lat),
            _marked_path_row(context, lon, lat, extracts, marked_paths),
        ]
    return (*rows, sea_level)


#: The questions of each geometry subject.
_QUESTIONS = {
    "coastline": ("measuring",),
    "body_of_water": ("measuring",),
    "admin_border": ("matching", "measuring"),  # OSM zone; border
    "landmass": ("matching",),
    "marked_path": ("matching",),
    "sea_level": ("measuring",),
}


def _not_assessed(subject: str, why: str) -> SubjectReport:
    questions = tuple(QuestionVerdict(q, 0.0, 0, "not_assessed", why) for q in _QUESTIONS[subject])
    return SubjectReport(subject, LAYER_LABELS[subject], None, {}, None, questions)


def _distances(context: OsmContext, area: BaseGeometry, features) -> np.ndarray:
    """Distance (m) from the area to each feature, in the context's azimuthal frame."""
    if not features:
        return np.empty(0)
    area_m = context.frame.project_area(area)
    return shapely.distance(area_m, [context.frame.project_area(g) for g in features])


def _reach_note(context: OsmContext, margin_m: float, extracts: Sequence[Path]) -> str:
    """A caveat when the extracts say they end before the margin does."""
    held = [layers.data_box(f) for f in extracts]
    if margin_m <= 0 or any(h is None for h in held):
        return ""
    data = shapely.union_all([shapely.box(*h) for h in held])
    reach = shapely.union_all([shapely.box(*b) for b in context.bboxes(margin_m)])
    if data.covers(reach):
        return ""
    return f" (it ends less than {margin_m / 1000:g} km beyond the area)"


def _measured(
    context: OsmContext, subject: str, area: BaseGeometry, margin_m: float, extracts
) -> SubjectReport:
    """Coastline or body of water: the features the referee measures to, near the area."""
    name = LAYER_LABELS[subject].lower()
    distance = _distances(context, area, context.features(subject))
    count = int((distance <= margin_m).sum())
    if count:
        verdict, note = "usable", f"{count} within {margin_m / 1000:g} km of the area"
    elif len(distance):
        nearest = float(distance.min()) / 1000
        verdict = "none"
        note = f"the nearest {name} is {nearest:.0f} km from the area, beyond the margin"
    else:
        verdict = "none"
        note = f"the extract has no {name} within reach" + _reach_note(context, margin_m, extracts)
    return SubjectReport(
        subject,
        LAYER_LABELS[subject],
        int((distance <= 0.0).sum()),
        {0.0: int((distance <= 0.0).sum()), margin_m: count},
        None,
        (QuestionVerdict("measuring", margin_m, count, verdict, note),),
    )


def _admin_levels(context: OsmContext, extracts: Sequence[Path]) -> list[int]:
    """The admin levels of the named admin areas the referee's zones are read from."""
    found = {
        tags.get("admin_level", "")
        for f in extracts
        for b in context.bboxes(1000.0)  # as OsmContext.zones reads them
        for _, tags, _ in layers.areas(f, "admin", b)
    }
    return sorted(int(v) for v in found if v.isdigit())


def _admin_rows(
    context: OsmContext, area: BaseGeometry, margin_m: float, extracts
) -> list[SubjectReport]:
    """One row per admin level: matching "OSM zone" and measuring "border"."""
    levels = _admin_levels(context, extracts)
    if not levels:
        note = "the extract has no named admin area (boundary=administrative) at the area"
        return [
            SubjectReport(
                "admin_border",
                LAYER_LABELS["admin_border"],
                0,
                {0.0: 0},
                None,
                tuple(QuestionVerdict(q, 0.0, 0, "none", note) for q in ("matching", "measuring")),
            )
        ]
    return [_admin_row(context, area, margin_m, level) for level in levels]


def _admin_row(
    context: OsmContext, area: BaseGeometry, margin_m: float, level: int
) -> SubjectReport:
    """One admin level: its zones across the area (matching), their borders (measuring)."""
    zones = context.zones(level)
    inside = sum(1 for z in zones if z.geometry.intersects(area))
    if inside >= 2:
        matching = QuestionVerdict(
            "matching", 0.0, inside, "usable", f"{inside} zones across the area"
        )
    elif inside == 1:
        note = "the whole area lies in one zone: the answer is always 'same'"
        matching = QuestionVerdict("matching", 0.0, 1, "only_one", note)
    else:
        matching = QuestionVerdict("matching", 0.0, 0, "none", "no zone of this level at the area")
    within = {0.0: inside}
    if level == 2:  # the international border: the referee measures to level-2 borders
        borders = _distances(context, area, context.features("border"))
        count = int((borders <= margin_m).sum())
        within = {0.0: inside, margin_m: count} if margin_m > 0 else within
        note = (
            f"{count} level-2 border{'s' * (count > 1)} within {margin_m / 1000:g} km"
            if count
            else (f"no level-2 border within {margin_m / 1000:g} km of the area")
        )
    else:  # another level: the borders of its zones
        count = len(zones)
        note = f"the borders of {count} zones" if count else "no zone of this level"
    measuring = QuestionVerdict("measuring", margin_m, count, "usable" if count else "none", note)
    return SubjectReport(
        f"admin_level_{level}",
        f"{LAYER_LABELS['admin_border']}, level {level}",
        inside,
        within,
        None,
        (matching, measuring),
    )


def _matching_row(subject: str, parts: np.ndarray, empty: str) -> SubjectReport:
    """A matching row from the part (landmass, path) under each sample point (-1: none)."""
    count = len(np.unique(parts[parts >= 0]))
    what = LAYER_LABELS[subject].lower()
    if count >= 2:
        plural = "landmasses" if subject == "landmass" else f"{what}s"
        verdict, note = "usable", f"{count} different {plural} across the area"
    elif count == 1:
        verdict, note = "only_one", f"the whole area has one {what}: the answer is always 'same'"
    else:
        verdict, note = "none", empty
    question = QuestionVerdict("matching", 0.0, count, verdict, note)
    return SubjectReport(subject, LAYER_LABELS[subject], count, {0.0: count}, None, (question,))


def _landmass_row(context: OsmContext, lon: np.ndarray, lat: np.ndarray) -> SubjectReport:
    """Matching landmass: the landmasses the referee builds (JLTG.EU house rules)."""
    landmasses = Landmasses(context.land())
    parts = landmasses.index_of(lon, lat)
    return _matching_row("landmass", parts, "no land in the OSM data at the area")


def _marked_path_row(
    context: OsmContext,
    lon: np.ndarray,
    lat: np.ndarray,
    extracts: Sequence[Path],
    judge: bool | None,
) -> SubjectReport:
    """Matching marked path: the paths the referee reads and joins (JLTG.EU house rules);
    not judged on a large extract unless asked (:data:`MARKED_PATHS_UP_TO_MB`)."""
    largest = max(f.stat().st_size for f in extracts) / 1e6
    if judge is False or (judge is None and largest > MARKED_PATHS_UP_TO_MB):
        why = (
            "not asked (--no-marked-paths)"
            if judge is False
            else f"reading every street and path of a {largest:.0f} MB extract takes long: "
            "add --marked-paths"
        )
        return _not_assessed("marked_path", why)
    ways = context.marked_paths()
    if not ways:
        parts = np.full(len(lon), -1)
    else:
        parts = MarkedPaths(ways, context.frame, spacing_m=PATH_SPACING_M).path_of(lon, lat)
    return _matching_row("marked_path", parts, "the extract has no marked path near the area")


def _sea_level_row(context: OsmContext, lon: np.ndarray, lat: np.ndarray) -> SubjectReport:
    """Measuring sea level: the heights the referee reads from the DEM over the area."""
    heights = np.abs(context.elevation().heights_at(lon, lat))
    known = heights[np.isfinite(heights)]
    if not len(known):
        verdict, note = "none", "the DEM has no height over the area"
    elif known.max() > known.min():
        verdict = "usable"
        note = f"{known.min():g}–{known.max():g} m from sea level across the area"
    else:
        verdict = "only_one"
        note = f"the whole area is {known.min():g} m from sea level: every answer is the same"
    if len(known) < len(heights):
        note += f" ({1 - len(known) / len(heights):.0%} of the area has no height)"
    question = QuestionVerdict("measuring", 0.0, len(known), verdict, note)
    return SubjectReport("sea_level", LAYER_LABELS["sea_level"], None, {}, None, (question,))
