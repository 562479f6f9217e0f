"""A game in progress: play area + rule set + stations + ordered questions (pure).

:meth:`Game.eliminate` folds the area questions over the play area and records what
each removed; :meth:`Game.possible_zones` lists the hiding zones still possible;
:meth:`Game.check_zone` says whether one hiding zone is valid and which question
rules it out; :meth:`Game.hider_answers` answers every question for a hider.

A game may carry a :class:`ZoneFilter`, a rule beyond the questions on where the hider
can be (a timetable's "reachable in the hiding period", built by the app from the
game file): :meth:`Game.possible_zones` and :meth:`Game.check_zone` apply it too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.antimeridian import centre_lon, wrap_lon
from stations_generator.core.geo.geodesy import geodesic_area_km2
from stations_generator.core.geo.shapes import distance_m, geodesic_circle, geodesic_circles
from stations_generator.core.geo.shapes import polygonal as _polygonal
from stations_generator.core.questions.geometry import (
    AreaQuestion,
    Question,
    QuestionError,
    Station,
    StationQuestion,
    TentaclesQuestion,
    ThermometerQuestion,
)
from stations_generator.core.questions.legal import check_tentacles
from stations_generator.core.questions.photos import PhotoQuestion
from stations_generator.core.questions.rules import RuleSet
from stations_generator.core.questions.transit import TransitLineTentaclesQuestion
from stations_generator.core.questions.transit_lines import line_notes


def unanswered_reason(question: Question) -> str:
    """Why a question counts as asked but has no answer (a thermometer ended too early), or ""."""
    return question.too_early() if isinstance(question, ThermometerQuestion) else ""


@dataclass(frozen=True)
class Step:
    """What one question did to the map."""

    question: Question
    removed: BaseGeometry
    removed_km2: float
    remaining_km2: float
    stations_removed: tuple[str, ...] = ()
    #: When this answer left nothing: the 1-based numbers of the questions whose answers
    #: together leave nothing (this one included). Such a step is set aside: it removes
    #: nothing and later questions apply to the area before it.
    contradicts: tuple[int, ...] = ()
    #: Why this question has no answer although it counts as asked (it removes nothing).
    note: str = ""

    @property
    def set_aside(self) -> bool:
        """Whether this question was set aside because its answer left nothing."""
        return bool(self.contradicts)


@dataclass(frozen=True)
class Contradiction:
    """Answers that together leave no possible area."""

    question: int  # 1-based: the question whose answer emptied the area
    together: tuple[int, ...]  # 1-based, a minimal set: without any one of them some area is left

    def message(self) -> str:
        """One line naming the questions, e.g. for question 4 contradicting question 2."""
        if self.together == (self.question,):
            return (
                f"question {self.question} leaves nothing on its own: no point of the play area "
                "gives that answer — check its positions and answer; it is set aside"
            )
        names = ", ".join(str(k) for k in self.together[:-1]) + f" and {self.together[-1]}"
        return (
            f"question {self.question} leaves nothing: the answers contradict each other — "
            f"check questions {names}; question {self.question} is set aside and later "
            "questions apply to the area before it"
        )


@dataclass(frozen=True)
class Elimination:
    """The area still possible after every question, and each question's part."""

    remaining: BaseGeometry
    remaining_km2: float
    steps: tuple[Step, ...]
    contradictions: tuple[Contradiction, ...] = ()


@dataclass(frozen=True)
class ZoneStatus:
    """One hiding zone: is it still possible, and how much of it."""

    station: Station
    possible: bool
    fraction: float  # share of the zone's area still possible (0–1)
    reason: str = ""  # why not, when not possible


@dataclass(frozen=True)
class Conflict:
    """A question that rules a hiding zone out, and the answer it would have needed."""

    question: Question
    index: int  # 0-based position in the game
    recorded: Any
    needed: Any


@dataclass(frozen=True)
class ZoneCheck:
    """The verdict on one hiding zone."""

    station: Station | None
    point: tuple[float, float]
    valid: bool
    allowed_stop: bool
    inside_map: bool
    conflicts: tuple[Conflict, ...]
    #: Why the game's :class:`ZoneFilter` rules the zone out, or "".
    filtered_out: str = ""


@dataclass(frozen=True)
class ZoneFilter:
    """A rule beyond the questions on which hiding zones are possible.

    E.g. "reachable in the hiding period" over a timetable
    (:func:`~stations_generator.core.transit.reach.reachable_zone_filter`).
    """

    #: ``keeps(lons, lats, radius_m)``: per zone centre (degrees), whether its zone of
    #: ``radius_m`` is kept.
    keeps: Callable[[np.ndarray, np.ndarray, float], np.ndarray]
    #: The reason a zone it leaves out carries (names the filter's source).
    reason: str
    #: One line about the filter for the game's notes ("" for none).
    note: str = ""


@dataclass
class Game:
    """A game: the map, the rules, the stations and the questions asked so far."""

    play_area: BaseGeometry
    rules: RuleSet
    game_size: str
    stations: Sequence[Station] = ()
    questions: list[Question] = field(default_factory=list)
    modifiers: tuple[str, ...] = ()
    country: str | None = None
    #: The game's name on its maps and pages (the API sets it from the game file's name).
    title: str = "game"
    #: An extra rule on the possible zones (a timetable's reachability), or None.
    zone_filter: ZoneFilter | None = None
    #: Whether the transit-line question reads a timetable (the stations come from a
    #: GTFS feed): its frequency rule is then checked (:func:`line_notes`).
    timetable_lines: bool = False
    #: The credits of the game's data beyond OpenStreetMap (a GTFS feed's), for its outputs.
    credits: tuple[str, ...] = ()

    @property
    def hiding_radius_m(self) -> float:
        return self.rules.radius_m(self.game_size, self.modifiers)

    def in_window(self, lon: float) -> float:
        """A longitude moved by whole turns next to the play area (see core/antimeridian.py)."""
        return float(wrap_lon(lon, centre_lon(self.play_area)))

    def covers(self, lon: float, lat: float) -> bool:
        """Whether the play area covers a point (any longitude convention)."""
        return bool(self.play_area.covers(Point(self.in_window(lon), lat)))

    def check_legal(self) -> None:
        """QuestionError naming the first question whose value the rules do not allow.

        Thermometer distances by game size, tentacles subjects and (JLTG.EU house
        rules) their radius; see :mod:`stations_generator.core.questions.legal`. Photo
        kinds by game size and the Large-game photo embargo; see
        :mod:`stations_generator.core.questions.photos`.
        """
        for k, q in enumerate(self.questions, 1):
            try:
                if isinstance(q, ThermometerQuestion):
                    q.nominal_m(self.game_size)
                elif isinstance(q, TentaclesQuestion | TransitLineTentaclesQuestion):
                    check_tentacles(q.subject, q.radius_m, self.rules.name)
                elif isinstance(q, PhotoQuestion):
                    q.check(self.game_size)
            except QuestionError as exc:
                raise QuestionError(f"question {k}: {exc}") from None

    def validate(self) -> None:
        """Check every question can be evaluated (answers present, values allowed).

        A thermometer ended too early needs no answer (:func:`unanswered_reason`).
        """
        self.check_legal()
        for k, q in enumerate(self.questions, 1):
            if unanswered_reason(q):
                continue
            try:
                q.require_answer()
            except QuestionError as exc:
                raise QuestionError(f"question {k}: {exc}") from None

    def notes(self) -> list[str]:
        """One line per question that counts as asked but has no answer, e.g.
        ``"question 2: thermometer 1 km: travelled only 640 m; counted as asked, no answer"``,
        then what the rule set leaves unchecked (:func:`~stations_generator.core.questions.transit_lines.line_notes`),
        then the zone filter's note."""
        unanswered = [
            f"question {k}: {why}"
            for k, q in enumerate(self.questions, 1)
            if (why := unanswered_reason(q))
        ]
        labels = [q.label() for q in self.questions]
        notes = unanswered + list(line_notes(self.rules.name, labels, self.timetable_lines))
        if self.zone_filter is not None and self.zone_filter.note:
            notes.append(self.zone_filter.note)
        return notes

    def answered(self) -> list[tuple[int, Question]]:
        """(0-based position, question) of every question that has an answer to apply."""
        return [(k, q) for k, q in enumerate(self.questions) if not unanswered_reason(q)]

    # -- elimination --------------------------------------------------------------

    def eliminate(self) -> Elimination:
        """Fold the questions over the play area, in order.

        An answer that leaves nothing (contradictory answers, a swapped or far-away
        seeker position) does not empty the map: its step is set aside
        (:attr:`Step.contradicts` names a minimal set of questions whose answers
        together leave nothing, found by :meth:`contradiction`), it is listed in
        :attr:`Elimination.contradictions`, and later questions apply to the area
        before it.
        """
        self.validate()
        remaining = self.play_area
        left_km2 = geodesic_area_km2(remaining)
        steps = []
        contradictions = []
        applied: list[int] = []
        alive = {s.id for s in self.stations}
        for k, q in enumerate(self.questions):
            if why := unanswered_reason(q):
                steps.append(Step(q, shapely.Polygon(), 0.0, left_km2, note=why))
                continue
            if isinstance(q, AreaQuestion):
                kept = shapely.make_valid(q.kept(remaining))
                kept = _polygonal(kept)
                if _leaves_nothing(kept):
                    together = self.contradiction(applied, k)
                    contradictions.append(Contradiction(k + 1, together))
                    steps.append(Step(q, shapely.Polygon(), 0.0, left_km2, contradicts=together))
                    continue
                applied.append(k)
                removed = _polygonal(shapely.make_valid(remaining.difference(kept)))
                remaining = kept
                # Kept and removed tile the area before: the removed area is the difference.
                kept_km2 = geodesic_area_km2(remaining)
                steps.append(Step(q, removed, max(left_km2 - kept_km2, 0.0), kept_km2))
                left_km2 = kept_km2
            else:
                assert isinstance(q, StationQuestion)
                out = tuple(s.id for s in self.stations if s.id in alive and not q.station_keeps(s))
                alive -= set(out)
                steps.append(Step(q, shapely.Polygon(), 0.0, left_km2, out))
        return Elimination(remaining, left_km2, tuple(steps), tuple(contradictions))

    def contradiction(self, earlier: Sequence[int], emptying: int) -> tuple[int, ...]:
        """A minimal set of area questions whose answers together leave nothing.

        Parameters
        ----------
        earlier : sequence of int
            0-based positions of the area questions applied before ``emptying``.
        emptying : int
            0-based position of the question whose answer left nothing.

        Returns
        -------
        tuple of int
            1-based question numbers, in order, ending with ``emptying + 1``. Each
            question's kept part of the whole play area is computed once; questions are
            then dropped one by one (earliest first) while the others still leave
            nothing, so every question named is needed (deletion filter).
        """
        regions = {
            j: _polygonal(shapely.make_valid(self.questions[j].kept(self.play_area)))  # type: ignore[union-attr]
            for j in (*earlier, emptying)
        }

        def empty(subset: Sequence[int]) -> bool:
            region = regions[emptying]
            for j in subset:
                if _leaves_nothing(region):
                    return True
                region = region.intersection(regions[j])
            return _leaves_nothing(_polygonal(shapely.make_valid(region)))

        needed = list(earlier)
        if empty([]):
            return (emptying + 1,)
        for j in list(needed):
            trial = [i for i in needed if i != j]
            if empty(trial):
                needed = trial
        return tuple(j + 1 for j in (*needed, emptying))

    def station_filter(self) -> np.ndarray:
        """For each station: allowed by the rule set and by every station question."""
        keep = np.array([self.rules.is_valid_stop(s, self.country) for s in self.stations], bool)
        for _, q in self.answered():
            if isinstance(q, StationQuestion):
                keep &= np.array([q.station_keeps(s) for s in self.stations], bool)
        return keep

    def possible_zones(self, elimination: Elimination | None = None) -> list[ZoneStatus]:
        """Every station's hiding zone with whether it is still possible and how much of it."""
        elimination = elimination or self.eliminate()
        if not self.stations:
            return []
        radius = self.hiding_radius_m
        lons = wrap_lon(np.array([s.lon for s in self.stations]), centre_lon(self.play_area))
        lats = np.array([s.lat for s in self.stations])
        circles = geodesic_circles(lons, lats, radius)
        remaining = elimination.remaining
        shapely.prepare(remaining)
        touches = shapely.intersects(remaining, circles)
        inside = shapely.contains(remaining, circles)
        allowed = np.array([self.rules.is_valid_stop(s, self.country) for s in self.stations], bool)
        # A hiding zone is centred on a stop in the game map (JLTG.EU house rules,
        # "Exiting the Game Map"): a stations file may list stops beyond it.
        on_map = shapely.intersects_xy(self.play_area, lons, lats)
        allowed &= on_map
        passed = self.station_filter()
        # Share of each zone still possible. Zones wholly inside are 1; the others are
        # cut. A ratio of lon/lat areas within one zone (≤ a few km across) differs
        # from the geodesic ratio by under 1e-3.
        fraction = inside.astype(float)
        cut = np.flatnonzero(touches & ~inside & allowed & passed)
        if len(cut):
            parts = shapely.intersection(circles[cut], remaining)
            fraction[cut] = shapely.area(parts) / shapely.area(circles[cut])
        kept = self._filter_keeps(lons, lats, allowed & passed & (fraction > 0))
        out = []
        for i, s in enumerate(self.stations):
            reason = ""
            if not on_map[i]:
                reason = "its stop is outside the play area"
            elif not allowed[i]:
                reason = f"not a valid hiding stop under {self.rules.name}"
            elif not passed[i]:
                reason = "ruled out by a station question"
            elif not touches[i] or fraction[i] <= 0:
                reason = "outside the remaining area"
            elif not kept[i]:
                reason = self.zone_filter.reason  # type: ignore[union-attr]
            share = float(min(fraction[i], 1.0)) if reason == "" else 0.0
            out.append(ZoneStatus(s, reason == "", share, reason))
        return out

    def _filter_keeps(self, lons: np.ndarray, lats: np.ndarray, asked: np.ndarray) -> np.ndarray:
        """Per zone centre, kept by the zone filter (only the ``asked`` ones are run)."""
        kept = np.ones(len(lons), dtype=bool)
        if self.zone_filter is not None and asked.any():
            radius = self.hiding_radius_m
            kept[asked] = np.asarray(self.zone_filter.keeps(lons[asked], lats[asked], radius), bool)
        return kept

    # -- hider mode and zone checks -----------------------------------------------

    def nearest_station(self, lon: float, lat: float) -> Station | None:
        """The station nearest a point (ties to the smaller id)."""
        if not self.stations:
            return None
        d = distance_m(
            np.full(len(self.stations), lon),
            np.full(len(self.stations), lat),
            np.array([s.lon for s in self.stations]),
            np.array([s.lat for s in self.stations]),
        )
        best = min(range(len(self.stations)), key=lambda i: (d[i], self.stations[i].id))
        return self.stations[best]

    def hider_answers(
        self, lon: float, lat: float, station: Station | None = None
    ) -> list[tuple[Question, Any]]:
        """What a hider at (lon, lat) answers to each question (station questions about
        ``station``, by default the nearest station)."""
        lon = self.in_window(lon)
        station = station or self.nearest_station(lon, lat)
        out = []
        for q in self.questions:
            if unanswered_reason(q):
                out.append((q, None))
            elif isinstance(q, StationQuestion):
                if station is None:
                    raise QuestionError(
                        f"{q.label()}: needs the hider's station; the game has none"
                    )
                out.append((q, q.answer_for_station(station)))
            else:
                out.append((q, q.answer_for(lon, lat)))
        return out

    def check_zone(
        self, station: Station | None = None, point: tuple[float, float] | None = None
    ) -> ZoneCheck:
        """Is the hiding zone at ``station`` (or a zone centred on ``point``) valid?

        Valid = an allowed stop under the rule set, centred in the play area, for every
        question some point of the zone gives the recorded answer (for station questions:
        the station gives it), and kept by the game's :class:`ZoneFilter`
        (:attr:`ZoneCheck.filtered_out` says why not). Each question that rules it out is
        named with the answer the zone would have given.
        """
        if station is None and point is None:
            raise ValueError("give a station or a point")
        if station is not None:
            point = (station.lon, station.lat)
        assert point is not None
        point = (self.in_window(point[0]), point[1])
        self.validate()
        zone = geodesic_circle(point[0], point[1], self.hiding_radius_m)
        # The zone's centre, its stop, must be in the game map (JLTG.EU house rules,
        # Exiting the Game Map); a zone reaching in from a stop outside does not count.
        inside_map = bool(self.play_area.covers(Point(point)))
        allowed = station is None or self.rules.is_valid_stop(station, self.country)
        conflicts = []
        region = _polygonal(zone.intersection(self.play_area))
        for k, q in enumerate(self.questions):
            if unanswered_reason(q):
                continue
            if isinstance(q, StationQuestion):
                if station is None:
                    continue
                answer = q.answer_for_station(station)
                if answer != q.answer:
                    conflicts.append(Conflict(q, k, q.answer, answer))
                continue
            assert isinstance(q, AreaQuestion)
            kept = _polygonal(shapely.make_valid(q.kept(region))) if not region.is_empty else region
            if kept.is_empty or kept.area == 0:
                needed = q.answer_for(*point)
                conflicts.append(Conflict(q, k, q.answer, needed))
            else:
                region = kept
        centre = (np.array([point[0]]), np.array([point[1]]))
        filtered = not self._filter_keeps(*centre, np.ones(1, dtype=bool))[0]
        return ZoneCheck(
            station=station,
            point=point,
            valid=allowed and inside_map and not conflicts and not filtered,
            allowed_stop=allowed,
            inside_map=inside_map,
            conflicts=tuple(conflicts),
            filtered_out=self.zone_filter.reason if filtered else "",  # type: ignore[union-attr]
        )

    def is_possible(self, lon: float, lat: float) -> bool:
        """Whether a hider at (lon, lat) would give every recorded area answer."""
        return bool(self.possible_many([lon], [lat])[0])

    def possible_many(self, lons, lats) -> np.ndarray:
        """:meth:`is_possible` for many points at once (exact geodesic answers)."""
        lons = wrap_lon(np.atleast_1d(np.asarray(lons, float)), centre_lon(self.play_area))
        lats = np.atleast_1d(np.asarray(lats, float))
        shapely.prepare(self.play_area)
        ok = shapely.intersects_xy(self.play_area, lons, lats)
        for _, q in self.answered():
            if isinstance(q, AreaQuestion) and ok.any():
                got = np.asarray(q.answers_for(lons[ok], lats[ok]))
                same = got == q.answer
                if got.dtype == object:  # None: unknown there (a DEM void), rules nothing out
                    same = same | np.equal(got, None)
                ok[ok] &= np.asarray(same, bool)
        return ok


#: Below this a remaining area is boolean-op slivers, not somewhere to hide (1 m²).
_NOTHING_KM2 = 1e-6


def _leaves_nothing(area: BaseGeometry) -> bool:
    return area.is_empty or area.area == 0 or geodesic_area_km2(area) < _NOTHING_KM2
