"""Which questions a play area can support: the question-availability report (pure).

Before a game, the organiser wants to know which matching / measuring / tentacles
questions make sense: a tentacles question about museums needs several museums within
2 km of the seeker; "is your nearest zoo the same as mine?" is always "same" when only
one zoo exists; a measuring question needs at least one.

For every question subject of the catalogue (plus transit lines and high-speed rail)
the report counts the places **inside** the play area and **within reach** of it, and
gives each question that uses the subject a verdict:

=============  ===============================================================
``usable``     enough places for the question to split the area
``only_one``   one place within reach (matching is then always "same"), or —
               for matching — several, but the whole area has the same nearest
``none``       no place within reach: drop the question before the game
``unknown``    transit lines when the data has railway stations but no route
               relations to count lines from
=============  ===============================================================

The subjects read from geometry (coastline, water, admin areas, landmasses, marked paths,
sea level) are judged by :mod:`stations_generator.app.availability_report` from the
referee's own data, as :attr:`Report.layers` (``not_assessed`` without their data).

Reach, per question:

* **tentacles** — places within the question's radius of the area: 25 km for zoos,
  aquariums, theme parks and transit lines, 2 km for museums, libraries, cinemas and
  hospitals (the seeker stands in the area; a place farther than R from all of it can
  never be a tentacle answer). Usable with ≥ 2 places, as the hider names one of them;
* **matching** — the nearest place may lie outside the area, so places within a margin
  (default :data:`DEFAULT_MARGIN_M`, 50 km) count; usable when at least two of them are
  the nearest one for some part of the area (sampled on a grid);
* **measuring** — any one place within the margin is enough.

Distances are measured in the area's UTM zone (:class:`~.geodesy.LocalFrame`); at the
radii used here the projection's scale error is below 0.1 %.

Transit lines are ``type=route`` relations of rail modes (train, subway, light rail,
tram, monorail); a relation is placed at the centre of its extent, as the OSM readers
place every relation. High-speed rail is ``railway=rail`` + ``highspeed=yes`` or a
``route=train`` relation with ``service=high_speed`` / ``highspeed=yes``.

The counts see only what the OSM input holds: data cut to the play area (as the bundled
Sioux Falls ``pois.json``) cannot show places beyond it, and data fetched for other
tags shows none of these; :func:`data_extent_note` says when the input stops at the area.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.catalogue import Catalogue, Category, Clause
from stations_generator.core.elements import OsmElement
from stations_generator.core.geo.geodesy import LocalFrame, geodesic_area_km2

if TYPE_CHECKING:
    import geopandas as gpd

__all__ = [
    "DEFAULT_MARGIN_M",
    "EXTRA_CATEGORIES",
    "LAYER_LABELS",
    "NEEDS_DEM",
    "NEEDS_EXTRACT",
    "NOT_ASSESSED",
    "QuestionVerdict",
    "Report",
    "SubjectReport",
    "TENTACLES_RADIUS_M",
    "area_points",
    "build_report",
    "data_extent_note",
    "format_table",
    "question_only_note",
    "report_catalogue",
    "report_subjects",
    "subject_places",
]

DEFAULT_MARGIN_M = 50_000.0
"""How far beyond the area a matching / measuring place still counts (50 km)."""

TENTACLES_RADIUS_M: dict[str, float] = {
    "zoo": 25_000.0,
    "aquarium": 25_000.0,
    "theme_park": 25_000.0,
    "transit_line": 25_000.0,
    "museum": 2_000.0,
    "library": 2_000.0,
    "cinema": 2_000.0,
    "hospital": 2_000.0,
}
"""The tentacles subjects and their radii (official rules)."""

MATCHING_SUBJECTS = frozenset(
    {
        "airport",
        "aquarium",
        "zoo",
        "theme_park",
        "mountain",
        "museum",
        "hospital",
        "cinema",
        "library",
        "golf_course",
        "consulate",
        "park",
        "transit_line",
    }
)
MEASURING_SUBJECTS = frozenset(
    {
        "airport",
        "high_speed_rail",
        "aquarium",
        "zoo",
        "theme_park",
        "mountain",
        "museum",
        "hospital",
        "cinema",
        "library",
        "golf_course",
        "consulate",
        "park",
        "mcdonalds",
        "seven_eleven",
        "train_station",
    }
)

LAYER_LABELS: dict[str, str] = {
    "coastline": "Coastline",
    "body_of_water": "Body of water",
    "admin_border": "Admin areas",
    "landmass": "Landmass",
    "marked_path": "Marked path",
    "sea_level": "Sea level",
}
"""The subjects read from geometry layers and the DEM, and their labels."""
NEEDS_EXTRACT = "needs an OSM extract (.osm.pbf)"
NEEDS_DEM = "needs an elevation model (--dem FILE)"
# Major city is a catalogue subject (place=city), counted in the table like any other, so
# it is not listed here too (issue 13: it was in both, once as "none", once "not assessed").
NOT_ASSESSED: dict[str, str] = {
    **{s: NEEDS_EXTRACT for s in LAYER_LABELS if s != "sea_level"},
    "sea_level": NEEDS_DEM,
}
"""Why each geometry subject is not assessed without its data (Overpass JSON has no
geometry layers); all of ``not_assessed`` when a report has no :attr:`Report.layers`."""

PROBE_SUBJECTS = (
    "zoo",
    "aquarium",
    "theme_park",
    "hospital",
    "cinema",
    "library",
    "golf_course",
    "airport",
    "mountain",
    "consulate",
)
"""Question-only subjects (not station categories, not brands of station POIs): when the
input has none of them at all, it was probably not fetched for them."""

TRANSIT_LINE = "transit_line"
HIGH_SPEED_RAIL = "high_speed_rail"
TRAIN_STATION = "train_station"
RAIL_ROUTES = ("train", "subway", "light_rail", "tram", "monorail")


def _category(name: str, label: str, match: Sequence[Sequence[str]], subject: str) -> Category:
    return Category(
        name=name,
        label=label,
        priority=99,
        station=False,
        transit=False,
        match=tuple(tuple(Clause.parse(c) for c in alt) for alt in match),
        subjects=(subject,),
    )


EXTRA_CATEGORIES: tuple[Category, ...] = (
    _category(
        "transit_line",
        "Transit line",
        [["type=route", f"route={mode}"] for mode in RAIL_ROUTES],
        TRANSIT_LINE,
    ),
    _category(
        "high_speed_rail",
        "High-speed rail",
        [
            ["railway=rail", "highspeed=yes"],
            ["type=route", "route=train", "service=high_speed"],
            ["type=route", "route=train", "highspeed=yes"],
        ],
        HIGH_SPEED_RAIL,
    ),
)
"""Categories the report adds to the catalogue: rail route relations and high-speed rail."""

VERDICT_TEXT = {
    "usable": "usable",
    "only_one": "only one",
    "none": "none",
    "unknown": "unknown",
    "not_assessed": "not assessed",
}


def report_catalogue(catalogue: Catalogue) -> Catalogue:
    """The catalogue plus :data:`EXTRA_CATEGORIES` (those whose name it lacks).

    Parameters
    ----------
    catalogue : Catalogue
        Every category (station and question subjects), e.g. ``load_catalogue()``.

    Returns
    -------
    Catalogue
    """
    extra = [c for c in EXTRA_CATEGORIES if c.name not in catalogue]
    return Catalogue([*catalogue, *extra])


def report_subjects(catalogue: Catalogue) -> list[str]:
    """The subjects the report covers: the catalogue's, then transit lines and high-speed rail.

    Parameters
    ----------
    catalogue : Catalogue

    Returns
    -------
    list of str
        Sorted, without duplicates.
    """
    return sorted({*catalogue.subjects, TRANSIT_LINE, HIGH_SPEED_RAIL})


def _place_key(subject: str, element: OsmElement) -> str:
    """What makes two objects the same place: a transit line is its mode, network and
    ref (both directions and variants of a route are one line); else its OSM id."""
    if subject == TRANSIT_LINE:
        tags = element.tags
        line = tags.get("ref") or tags.get("name")
        if line:
            return f"{tags.get('route', '')}:{tags.get('network', '')}:{line}"
    return element.key


def subject_places(elements: Iterable[OsmElement], catalogue: Catalogue) -> gpd.GeoDataFrame:
    """One row per (OSM object, question subject) it serves.

    Parameters
    ----------
    elements : iterable of OsmElement
        From the OSM readers; an object read twice counts once, and route relations
        of one transit line (same mode, network and ref, e.g. both directions)
        count once, as the lowest-id relation.
    catalogue : Catalogue
        Best :func:`report_catalogue` of the full catalogue.

    Returns
    -------
    geopandas.GeoDataFrame
        Columns ``subject``, ``id`` (``"node/123"``), ``name``, ``geometry`` (Point,
        EPSG:4326); sorted by subject, then id.
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    type_order = {"node": 0, "way": 1, "relation": 2}
    ordered_elements = sorted(
        elements, key=lambda e: (type_order.get(e.osm_type, 3), int(e.osm_id))
    )
    for element in ordered_elements:
        subjects = {s for c in catalogue.matching(element.tags) for s in c.subjects}
        for subject in sorted(subjects):
            rows.setdefault(
                (subject, _place_key(subject, element)),
                {
                    "subject": subject,
                    "id": element.key,
                    "osm_type": element.osm_type,
                    "osm_id": int(element.osm_id),
                    "name": element.tags.get("name", "").strip(),
                    "lon": float(element.lon),
                    "lat": float(element.lat),
                },
            )
    ordered = sorted(
        rows.values(),
        key=lambda r: (r["subject"], type_order.get(r["osm_type"], 3), r["osm_id"]),
    )
    import geopandas as gpd

    return gpd.GeoDataFrame(
        {
            "subject": [r["subject"] for r in ordered],
            "id": [r["id"] for r in ordered],
            "name": [r["name"] for r in ordered],
        },
        geometry=gpd.points_from_xy([r["lon"] for r in ordered], [r["lat"] for r in ordered]),
        crs="EPSG:4326",
    )


@dataclass(frozen=True)
class QuestionVerdict:
    """One question about one subject.

    Attributes
    ----------
    question : str
        ``"matching"``, ``"measuring"`` or ``"tentacles"``.
    reach_m : float
        Places within this distance of the area count (tentacles radius or margin).
    count : int
        Places within reach.
    verdict : str
        ``"usable"``, ``"only_one"``, ``"none"``, ``"unknown"`` or ``"not_assessed"``.
    note : str
        Why, in a few words.
    """

    question: str
    reach_m: float
    count: int
    verdict: str
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "question": self.question,
            "reach_m": self.reach_m,
            "count": self.count,
            "verdict": self.verdict,
            "note": self.note,
        }


@dataclass(frozen=True)
class SubjectReport:
    """Counts and verdicts for one subject.

    Attributes
    ----------
    subject, label : str
    inside : int or None
        Places inside the play area (geometry subjects: zones, landmasses, paths or
        features there; None when not counted).
    within : dict of float to int
        Places within each reach distance of the area (0 m = inside).
    nearest_in_area : int or None
        How many different places are the nearest one for some part of the area
        (only computed for matching subjects).
    questions : tuple of QuestionVerdict
    ids : tuple of str
        OSM ids of the places within the largest reach, nearest first.
    """

    subject: str
    label: str
    inside: int | None
    within: dict[float, int]
    nearest_in_area: int | None
    questions: tuple[QuestionVerdict, ...]
    ids: tuple[str, ...] = field(default=(), repr=False)

    def verdict(self, question: str) -> str | None:
        """The verdict for ``question``, or None when the subject has no such question."""
        for q in self.questions:
            if q.question == question:
                return q.verdict
        return None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "subject": self.subject,
            "label": self.label,
            "inside": self.inside,
            "within_m": {f"{k:g}": v for k, v in sorted(self.within.items())},
            "nearest_in_area": self.nearest_in_area,
            "questions": [q.to_json() for q in self.questions],
        }


@dataclass(frozen=True)
class Report:
    """The question-availability report of one play area."""

    subjects: tuple[SubjectReport, ...]
    area_km2: float
    margin_m: float
    notes: tuple[str, ...] = ()
    layers: tuple[SubjectReport, ...] = ()
    """Subjects judged from geometry layers and the DEM (``layer_subjects`` in JSON)."""

    def not_assessed(self) -> dict[str, str]:
        """Subjects not assessed and why: the layers' own, or all of :data:`NOT_ASSESSED`."""
        if not self.layers:
            return dict(NOT_ASSESSED)
        return {
            row.subject: q.note
            for row in self.layers
            for q in row.questions
            if q.verdict == "not_assessed"
        }

    def subject(self, name: str) -> SubjectReport:
        """The row of subject ``name`` (KeyError if absent)."""
        for row in self.subjects:
            if row.subject == name:
                return row
        raise KeyError(name)

    def explanations(self) -> list[str]:
        """Why each geometry question that is not usable is not; what is not assessed."""
        lines = [
            f"{row.label}, {q.question}: {VERDICT_TEXT[q.verdict]} — {q.note}"
            for row in self.layers
            for q in row.questions
            if q.verdict not in ("usable", "not_assessed")
        ]
        why: dict[str, list[str]] = {}
        for subject, reason in self.not_assessed().items():
            why.setdefault(reason, []).append(subject.replace("_", " "))
        if why:
            lines.append(
                "not assessed: " + "; ".join(f"{', '.join(s)} — {r}" for r, s in why.items())
            )
        return lines

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (what ``report`` writes)."""
        return {
            "area_km2": round(self.area_km2, 3),
            "margin_m": self.margin_m,
            "verdicts": dict(VERDICT_TEXT),
            "subjects": [s.to_json() for s in self.subjects],
            "layer_subjects": [s.to_json() for s in self.layers],
            "not_assessed": self.not_assessed(),
            "notes": list(self.notes),
        }


def _label(subject: str, catalogue: Catalogue | None) -> str:
    if catalogue is not None:
        for category in catalogue:
            if subject in category.subjects and category.name == subject:
                return category.label
        for category in catalogue:
            if subject in category.subjects:
                return category.label
    return subject.replace("_", " ").capitalize()


def _count_verdict(count: int, *, need: int) -> str:
    if count == 0:
        return "none"
    if count < need:
        return "only_one"
    return "usable"


def _area_samples(area_m: BaseGeometry, target: int = 2500) -> np.ndarray:
    """Grid points inside a projected area (about ``target`` of them) plus a representative point."""
    west, south, east, north = area_m.bounds
    step = max(np.sqrt(max(area_m.area, 1.0) / target), 50.0)
    xs = np.arange(west + step / 2, east, step)
    ys = np.arange(south + step / 2, north, step)
    gx, gy = np.meshgrid(xs, ys)
    inside = shapely.contains_xy(area_m, gx.ravel(), gy.ravel())
    samples = np.column_stack([gx.ravel()[inside], gy.ravel()[inside]])
    anchor = area_m.representative_point()
    return np.vstack([samples, [[anchor.x, anchor.y]]])


def area_points(area: BaseGeometry, target: int = 2500) -> tuple[np.ndarray, np.ndarray]:
    """Grid points inside the area (lon, lat): where the matching verdicts sample it.

    Parameters
    ----------
    area : shapely Polygon or MultiPolygon
        WGS84.
    target : int
        About how many points.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Longitudes and latitudes, a representative point last.
    """
    frame = LocalFrame.for_bounds(area.bounds)
    area_m = shapely.transform(area, lambda xy: np.column_stack(frame.project(xy[:, 0], xy[:, 1])))
    samples = _area_samples(area_m, target)
    lon, lat = frame.unproject(samples[:, 0], samples[:, 1])
    return np.asarray(lon), np.asarray(lat)


def _distinct_nearest(x: np.ndarray, y: np.ndarray, samples: np.ndarray) -> int:
    """How many of the places (``x``, ``y``) are the nearest place of some sample point.

    Planar distances in the area's local frame (as the samples are); a sample equally
    near two places takes the first. GEOS's STRtree answers the queries (shapely is
    loaded anyway; a k-d tree from scipy would cost ~0.5 s of imports per command).
    """
    tree = shapely.STRtree(shapely.points(x, y))
    sample, place = tree.query_nearest(shapely.points(samples), all_matches=True)
    first = np.full(len(samples), len(x), np.int64)
    np.minimum.at(first, sample, place)
    return int(len(np.unique(first)))


def build_report(
    area: BaseGeometry,
    places: gpd.GeoDataFrame,
    subjects: Sequence[str],
    *,
    margin_m: float = DEFAULT_MARGIN_M,
    catalogue: Catalogue | None = None,
    notes: Sequence[str] = (),
) -> Report:
    """Count each subject's places in and around the area and judge its questions.

    Parameters
    ----------
    area : shapely Polygon or MultiPolygon
        The play area in WGS84.
    places : geopandas.GeoDataFrame
        From :func:`subject_places` (columns ``subject``, ``id``, Point geometry).
    subjects : sequence of str
        Subjects to report, in order (e.g. :func:`report_subjects`).
    margin_m : float
        Reach of matching and measuring questions beyond the area.
    catalogue : Catalogue, optional
        For the subjects' labels.
    notes : sequence of str
        Caveats to carry into the report (e.g. :func:`data_extent_note`).

    Returns
    -------
    Report
    """
    if area.is_empty:
        raise ValueError("the play area is empty")
    frame = LocalFrame.for_bounds(area.bounds)
    area_m = shapely.transform(area, lambda xy: np.column_stack(frame.project(xy[:, 0], xy[:, 1])))
    samples = _area_samples(area_m)
    has_routes = bool((places["subject"] == TRANSIT_LINE).any()) if len(places) else False
    station_count_anywhere = int((places["subject"] == TRAIN_STATION).sum()) if len(places) else 0
    rows = []
    for subject in subjects:
        chosen = places[places["subject"] == subject] if len(places) else places
        line_unknown = subject == TRANSIT_LINE and not has_routes and station_count_anywhere > 0
        verdicts = _Verdicts(float(margin_m), line_unknown)
        rows.append(_subject_report(subject, chosen, frame, area_m, samples, verdicts, catalogue))
    return Report(
        subjects=tuple(rows),
        area_km2=geodesic_area_km2(area),
        margin_m=float(margin_m),
        notes=tuple(notes),
    )


def _subject_report(
    subject: str,
    chosen: gpd.GeoDataFrame,
    frame: LocalFrame,
    area_m: BaseGeometry,
    samples: np.ndarray,
    verdicts: _Verdicts,
    catalogue: Catalogue | None,
) -> SubjectReport:
    """One subject's counts around the area (in ``frame``'s metres) and its questions."""
    margin_m = verdicts.margin_m
    lon = chosen.geometry.x.to_numpy() if len(chosen) else np.empty(0)
    lat = chosen.geometry.y.to_numpy() if len(chosen) else np.empty(0)
    x, y = frame.project(lon, lat) if len(lon) else (np.empty(0), np.empty(0))
    distance = shapely.distance(area_m, shapely.points(x, y)) if len(x) else np.empty(0)
    tentacles = TENTACLES_RADIUS_M.get(subject)
    matching = subject in MATCHING_SUBJECTS
    measuring = subject in MEASURING_SUBJECTS
    if not (tentacles or matching or measuring):  # a user-defined subject
        matching = measuring = True
    reaches = {0.0}
    if tentacles:
        reaches.add(tentacles)
    if matching or measuring:
        reaches.add(margin_m)
    within = {r: int((distance <= r).sum()) for r in sorted(reaches)}
    far = max(reaches)
    near_mask = distance <= far
    order = np.argsort(distance[near_mask], kind="stable")
    ids = tuple(chosen["id"].to_numpy()[near_mask][order]) if len(chosen) else ()

    nearest_in_area = None
    questions: list[QuestionVerdict] = []
    if tentacles:
        questions.append(verdicts.tentacles(tentacles, within[tentacles]))
    if matching:
        count = within[margin_m]
        if count >= 2 and not verdicts.line_unknown:
            nearest_in_area = _distinct_nearest(x[near_mask], y[near_mask], samples)
        questions.append(verdicts.matching(count, nearest_in_area))
    if measuring:
        questions.append(verdicts.measuring(within[margin_m]))
    return SubjectReport(
        subject=subject,
        label=_label(subject, catalogue),
        inside=within[0.0],
        within=within,
        nearest_in_area=nearest_in_area,
        questions=tuple(questions),
        ids=ids,
    )


@dataclass(frozen=True)
class _Verdicts:
    """How the tentacles, matching and measuring questions of one subject are judged."""

    margin_m: float
    line_unknown: bool  # transit lines, with stations but no route relations to count them

    def tentacles(self, radius: float, count: int) -> QuestionVerdict:
        """Tentacles need two places within its radius."""
        if self.line_unknown:
            verdict, note = "unknown", "no route relations in the data to count lines"
        else:
            verdict = _count_verdict(count, need=2)
            note = {
                "none": f"nothing within {radius / 1000:g} km of the area",
                "only_one": "a single place: the answer is that one or none",
                "usable": f"{count} places within {radius / 1000:g} km",
            }[verdict]
        return QuestionVerdict("tentacles", radius, count, verdict, note)

    def matching(self, count: int, nearest_in_area: int | None) -> QuestionVerdict:
        """Matching needs two different nearest places across the area."""
        margin_m = self.margin_m
        if self.line_unknown:
            verdict, note = "unknown", "no route relations in the data to count lines"
        elif count == 0:
            verdict, note = "none", f"nothing within {margin_m / 1000:g} km"
        elif count == 1:
            verdict, note = "only_one", "one place: the answer is always 'same'"
        elif nearest_in_area is not None and nearest_in_area < 2:
            verdict, note = "only_one", "the whole area has the same nearest place"
        else:
            verdict = "usable"
            note = f"{nearest_in_area} different nearest places across the area"
        return QuestionVerdict("matching", margin_m, count, verdict, note)

    def measuring(self, count: int) -> QuestionVerdict:
        """Measuring needs one place within the margin."""
        margin_m = self.margin_m
        verdict = "none" if count == 0 else "usable"
        note = (
            f"nothing within {margin_m / 1000:g} km"
            if count == 0
            else "one place is enough to measure against"
            if count == 1
            else f"{count} places within {margin_m / 1000:g} km"
        )
        return QuestionVerdict("measuring", margin_m, count, verdict, note)


def data_extent_note(
    area: BaseGeometry, points: Sequence[tuple[float, float]], margin_m: float
) -> str | None:
    """A caveat when the OSM input seems to stop at the play area's bounding box.

    Parameters
    ----------
    area : shapely geometry
        The play area (WGS84).
    points : sequence of (lon, lat)
        Every OSM object read (any category).
    margin_m : float
        The report's margin.

    Returns
    -------
    str or None
        The note, or None when some data lies beyond the area's bounding box.
    """
    if not len(points):
        return "the OSM input holds no object of any catalogue category"
    west, south, east, north = area.bounds
    slack = 0.01  # about 1 km
    lon = np.asarray([p[0] for p in points])
    lat = np.asarray([p[1] for p in points])
    beyond = (
        (lon < west - slack) | (lon > east + slack) | (lat < south - slack) | (lat > north + slack)
    )
    if beyond.any():
        return None
    return (
        "the OSM input stops at the play area's bounding box: places within reach beyond it "
        f"(up to {margin_m / 1000:g} km) are missing, so counts beyond the area are lower bounds"
    )


def question_only_note(places: gpd.GeoDataFrame, catalogue: Catalogue) -> str | None:
    """A caveat when the input holds no object of any question-only category.

    Data fetched for the station categories alone (as the bundled Sioux Falls
    ``pois.json``) has no zoos, hospitals, cinemas or libraries at all: the report's
    "none" then reflects the data, not the place.

    Parameters
    ----------
    places : geopandas.GeoDataFrame
        From :func:`subject_places`.
    catalogue : Catalogue

    Returns
    -------
    str or None
    """
    question_only = sorted(set(PROBE_SUBJECTS) & {s for c in catalogue for s in c.subjects})
    if not question_only:
        return None
    if len(places) and places["subject"].isin(question_only).any():
        return None
    return (
        "the OSM input holds no object of the question-only categories ("
        + ", ".join(s.replace("_", " ") for s in question_only)
        + "): it was probably fetched for station categories only, so their 'none' may only "
        "mean missing data; use an extract or fetch those tags too"
    )


def _cell(row: SubjectReport, question: str) -> str:
    for q in row.questions:
        if q.question == question:
            text = VERDICT_TEXT[q.verdict]
            if question == "tentacles":
                text += f" ({q.reach_m / 1000:g} km)"
            return text
    return "-"


def format_table(report: Report) -> str:
    """The report as a fixed-width text table (for stderr).

    Parameters
    ----------
    report : Report

    Returns
    -------
    str
        Header, one line per subject (the geometry subjects last), why each geometry
        question that is not usable is not, what is not assessed, the notes; no
        trailing newline.
    """
    margin = f"≤{report.margin_m / 1000:g} km"
    header = ["subject", "inside", "≤2 km", "≤25 km", margin, "matching", "measuring", "tentacles"]
    lines = [header]
    for row in (*report.subjects, *report.layers):
        within = row.within

        def count(reach: float, within: Mapping[float, int] = within) -> str:
            return str(within[reach]) if reach in within else "-"

        inside = "-" if row.inside is None else str(row.inside)
        counts = [count(2000.0), count(25000.0), count(report.margin_m)]
        questions = [_cell(row, q) for q in ("matching", "measuring", "tentacles")]
        lines.append([row.label, inside, *counts, *questions])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    numeric = {1, 2, 3, 4}
    text = []
    for line in lines:
        cells = [
            cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            for i, cell in enumerate(line)
        ]
        text.append("  ".join(cells).rstrip())
    text.extend(report.explanations())
    text.extend(f"note: {note}" for note in report.notes)
    return "\n".join(text)
