"""The vehicle-station map, from candidates to stations (pure: no I/O).

Steps, each in its own module:

1. net area = play area − water − exclusions; game size from it (:mod:`.gamesize`);
2. candidates outside the play area are dropped, those inside an exclusion are
   rejected as ``excluded``;
3. ranking (:mod:`.ranking`) and same-site de-duplication (:mod:`.dedupe`);
4. local density and wait tiers (:mod:`.density`);
5. two-tier spacing with the per-cluster cap, auto-tuned to the game size's station
   band when not given (:mod:`.spacing`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.core.gamesize import (
    GAME_SIZES,
    HIDING_RADIUS_M,
    STATION_BANDS,
    infer_game_size,
)
from stations_generator.core.geo.geodesy import LocalFrame, geodesic_area_km2
from stations_generator.core.stationmap.dedupe import DEFAULT_RADIUS_M, find_duplicates
from stations_generator.core.stationmap.density import (
    DEFAULT_DENSITY_RADIUS_M,
    DEFAULT_TIERS,
    WaitTier,
    nearby_counts,
    tier_columns,
)
from stations_generator.core.stationmap.optimize import (
    DEFAULT_TIME_LIMIT_S,
    OptimizeResult,
    explain_optimal,
    optimize_stations,
)
from stations_generator.core.stationmap.pointtable import PointTable, text_column
from stations_generator.core.stationmap.ranking import rank_order
from stations_generator.core.stationmap.spacing import (
    NeighbourIndex,
    SpacingResult,
    SpacingRules,
    default_search_rounds,
    select_stations,
)
from stations_generator.errors import NoDataError

if TYPE_CHECKING:
    import geopandas as gpd

EXCLUDED = "excluded"
DUPLICATE = "duplicate"
AUTO_TUNE_CAPS = tuple(range(1, 13))  # the peer's sweep
MIN_NET_AREA_KM2 = 1e-4  # 100 m²: below this, boolean-op slivers, not a play area

STATION_COLUMNS = (
    "id",
    "osm_type",
    "osm_id",
    "name",
    "category",
    "priority",
    "cluster_id",
    "wait_min",
    "wait_max",
    "density_tier",
    "nearby_count",
    "open_during_play",
    "opening_hours",
)


@dataclass(frozen=True)
class StationMapOptions:
    """Everything that tunes the station map (defaults are the game's numbers).

    Attributes
    ----------
    min_spacing_m, cluster_gap_m : float
        The two-tier rule: 300 m within a cluster, 1000 m between clusters.
    cluster_radius_m : float or None
        Cluster extent from its seed; None = the game size's hiding radius.
    max_per_cluster : int or None
        Cap on non-transit stations per cluster; 0 = none; None = auto-tune.
    game_size : str or None
        "S", "M" or "L"; None = inferred from the net area.
    density_radius_m : float
        Radius for the nearby count (1609 m).
    tiers : tuple of WaitTier
    dedupe_radius_m : float
        Same-site duplicates lie within this distance (50 m).
    strict_priority : bool
        Skip the count-improving swaps; keep the pure rank-order greedy.
    optimize : bool
        Solve the spacing exactly (:mod:`.optimize`) under the cap in force (the
        auto-tuned cap is still chosen by the greedy, so it keeps its meaning).
    time_limit_s : float
        The optimizer's budget (CP-SAT deterministic seconds, about wall seconds).
    search_rounds : int or None
        Rounds of local search after the greedy and its swaps
        (:func:`.spacing.select_stations`'s ``search_iterations``); None = the default
        budget (:func:`.spacing.default_search_rounds`), 0 = off. Run once, under the cap
        in force: the auto-tuned cap is chosen by the greedy with swaps, so it keeps its
        meaning. A count, not a clock, so the map is the same on any machine.
    explain_optimal : bool
        With ``optimize``: add a candidate column ``in_optimal_map`` ("yes" / "no" /
        "unknown"): whether any map with the most stations could include it (another
        budget of ``time_limit_s`` for the forced solves).
    """

    min_spacing_m: float = 300.0
    cluster_gap_m: float = 1000.0
    cluster_radius_m: float | None = None
    max_per_cluster: int | None = None
    game_size: str | None = None
    density_radius_m: float = DEFAULT_DENSITY_RADIUS_M
    tiers: tuple[WaitTier, ...] = DEFAULT_TIERS
    dedupe_radius_m: float = DEFAULT_RADIUS_M
    strict_priority: bool = False
    optimize: bool = False
    time_limit_s: float = DEFAULT_TIME_LIMIT_S
    search_rounds: int | None = None
    explain_optimal: bool = False


@dataclass
class StationMap:
    """The result: stations, every candidate with its fate, and how it was decided.

    The stations and candidates are made as point tables
    (:class:`~.pointtable.PointTable`): ``station_table`` and ``candidate_table`` are
    what ``generate``'s writers read, with no pandas; ``stations`` and ``candidates``
    are their GeoDataFrames, made on first use.
    """

    station_table: PointTable
    candidate_table: PointTable
    play_area: BaseGeometry
    net_area: BaseGeometry
    net_area_km2: float
    game_size: str
    game_size_inferred: bool
    rules: SpacingRules
    cap_auto: bool
    cap_trail: list[tuple[int, int]] = field(default_factory=list)
    exclusions: list[BaseGeometry] = field(default_factory=list)
    #: Options recorded in the outputs' metadata (playing hours and days), set by the caller.
    settings: dict[str, str] = field(default_factory=dict)
    optimization: OptimizeResult | None = None
    #: The local search: (stations before, after, rounds per start); None if it did not run.
    search: tuple[int, int, int] | None = None

    @cached_property
    def stations(self) -> gpd.GeoDataFrame:
        """The stations (EPSG:4326), in the columns :data:`STATION_COLUMNS` and geometry,
        ordered by cluster, then id."""
        return self.station_table.to_frame(STATION_COLUMNS)

    @cached_property
    def candidates(self) -> gpd.GeoDataFrame:
        """Every candidate inside the play area, best-ranked first, with its fate
        (``status``, ``reason``, ``conflict_with``) and what the map gave it."""
        return self.candidate_table.to_frame()

    @property
    def cluster_count(self) -> int:
        """Number of clusters."""
        return len(set(self.station_table["cluster_id"].tolist()))


def net_play_area(
    play_area: BaseGeometry, water: Sequence[BaseGeometry], exclusions: Sequence[BaseGeometry]
) -> BaseGeometry:
    """Play area minus water and exclusions (planar boolean ops on lon/lat; topology only)."""
    remove = [g for g in (*water, *exclusions) if not g.is_empty]
    if not remove:
        return play_area
    return shapely.make_valid(play_area.difference(shapely.union_all(remove)))


def _spacing_inputs(table: PointTable, bounds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    frame = LocalFrame.for_bounds(bounds)
    x, y = frame.project(table.lon, table.lat)
    return x, y, frame.scale_factors(table.lon, table.lat)


def _covered_by(table: PointTable, area: BaseGeometry) -> np.ndarray:
    """Which rows of ``table`` lie in ``area`` or on its boundary (``area`` is left
    prepared: GEOS's prepared predicate is what makes this fast).

    A point meets an area exactly when the area covers it; ``intersects_xy`` tests the
    coordinates without making a point object of each (7x faster at 100,000 rows).
    """
    shapely.prepare(area)
    return shapely.intersects_xy(area, table.lon, table.lat)


def _density_counts(
    x: np.ndarray, y: np.ndarray, scale: np.ndarray, active: np.ndarray, radius_m: float
) -> np.ndarray:
    """For each active candidate, the other active ones within ``radius_m``; 0 if inactive."""
    counts = np.zeros(len(x), np.int64)
    counts[active] = nearby_counts(x[active], y[active], scale[active], radius_m)
    return counts


@dataclass(frozen=True)
class _SpacingRuns:
    """The spacing runs of one map: the cap tune's, then the search under the chosen cap."""

    index: NeighbourIndex
    order: np.ndarray
    transit: np.ndarray
    options: StationMapOptions

    def greedy(self, rules: SpacingRules) -> SpacingResult:
        """The greedy (with the swaps unless strict priority), no search."""
        return select_stations(
            self.index,
            self.order,
            rules,
            self.transit,
            improve=not self.options.strict_priority,
            search_iterations=0,
        )

    @property
    def rounds(self) -> int:
        """The search rounds (0: no search)."""
        if self.options.strict_priority or self.options.search_rounds == 0:
            return 0
        if self.options.search_rounds is None:
            return default_search_rounds(len(self.order))
        return self.options.search_rounds

    def searched(
        self, rules: SpacingRules, greedy: SpacingResult
    ) -> tuple[SpacingResult, tuple[int, int, int] | None]:
        """The map under ``rules`` after the local search (``greedy``, its greedy map,
        when there is no search) and the search's (before, after, rounds), if any."""
        if not self.rounds:
            return greedy, None
        searched = select_stations(
            self.index, self.order, rules, self.transit, improve=True,
            search_iterations=self.rounds,
        )  # fmt: skip
        return searched, (greedy.count, searched.count, self.rounds)

    def tuned(
        self,
        base_rules: SpacingRules,
        band: tuple[int, int],
        progress: Callable[[int, int], None] | None,
    ) -> tuple[SpacingRules, SpacingResult, list[tuple[int, int]], tuple[int, int, int] | None]:
        """The first cap of :data:`AUTO_TUNE_CAPS` whose greedy lands in ``band`` (else the
        nearest miss): its rules, its searched map, the caps tried with their counts, and
        the search's (before, after, rounds). Only the chosen cap's map is searched.

        The sweep stops at the first cap whose count is above the band (then the nearest
        miss so far): a larger cap lets clusters keep more stations, so the caps after it
        miss by more. The greedy count can dip as the cap grows (a station the larger cap
        admits may block a new cluster), but in 785 measured sweeps on real data never
        back across the S, M or L band's top (docs/rural-station-map.md, "The cap
        sweep"); where it would, this keeps the cap before the dip.
        """
        lo, hi = band
        trail: list[tuple[int, int]] = []
        best: tuple[int, SpacingRules, SpacingResult] | None = None
        for cap in AUTO_TUNE_CAPS:
            rules = replace(base_rules, max_per_cluster=cap)
            result = self.greedy(rules)
            trail.append((cap, result.count))
            if progress is not None:
                progress(cap, len(AUTO_TUNE_CAPS))
            if lo <= result.count <= hi:
                break
            miss = max(lo - result.count, result.count - hi, 0)
            if best is None or miss < best[0]:
                best = (miss, rules, result)
            if result.count > hi:  # above the band: larger caps keep as many or more
                _, rules, result = best
                break
        else:
            assert best is not None
            _, rules, result = best
        searched, search = self.searched(rules, result)
        return rules, searched, trail, search


def build_station_map(
    play_area: BaseGeometry,
    candidates: PointTable | gpd.GeoDataFrame,
    options: StationMapOptions = StationMapOptions(),
    *,
    water: Sequence[BaseGeometry] = (),
    exclusions: Sequence[BaseGeometry] = (),
    progress: Callable[[int, int], None] | None = None,
) -> StationMap:
    """Pick the stations of a play area.

    Parameters
    ----------
    play_area : shapely (Multi)Polygon, WGS84
    candidates : PointTable or GeoDataFrame
        From :func:`stations_generator.core.stationmap.candidates.candidate_table` (or its frame,
        :func:`~stations_generator.core.stationmap.candidates.elements_to_candidates`).
    options : StationMapOptions
    water, exclusions : sequences of shapely polygons, WGS84
        Subtracted from the play area; candidates inside an exclusion are rejected.
    progress : callable, optional
        Called as ``progress(done, total)`` while the cap is auto-tuned (the long part).

    Returns
    -------
    StationMap

    Raises
    ------
    NoDataError
        Nothing left of the area after exclusions, or no candidate inside it.
    """
    net, net_km2 = _net_area(play_area, water, exclusions)
    game_size, inferred = _game_size(options, net_km2)
    inside, reason = _inside(candidates, play_area, exclusions)
    conflict = np.full(len(inside), "", dtype=object)
    x, y, scale = _spacing_inputs(inside, play_area.bounds)
    order = rank_order(inside)

    # Density counts every other (non-excluded) candidate, duplicates too: a fuel
    # station with its shop is still a busy spot.
    active = reason == ""
    counts = _density_counts(x, y, scale, active, options.density_radius_m)

    base_rules = _base_rules(options, game_size)
    index = NeighbourIndex(x, y, scale, max(options.cluster_gap_m, options.dedupe_radius_m))
    spacing_order = _without_duplicates(index, order, inside, reason, conflict, options)
    transit = np.asarray(inside["transit"], bool)
    runs = _SpacingRuns(index, spacing_order, transit, options)
    cap_auto = options.max_per_cluster is None
    if cap_auto:
        rules, result, cap_trail, search = runs.tuned(
            base_rules, STATION_BANDS[game_size], progress
        )
    else:
        rules, cap_trail = base_rules, []
        result, search = runs.searched(base_rules, runs.greedy(base_rules))
    optimization = None
    in_optimal = None
    if options.optimize:
        optimization = optimize_stations(
            index, spacing_order, rules, transit, time_limit_s=options.time_limit_s, start=result
        )
        result = optimization.result
        if options.explain_optimal:
            in_optimal = _in_optimal(optimization, len(inside), options.time_limit_s)

    fate = _fate(result, spacing_order, inside["id"], reason, conflict, counts, options)
    if in_optimal is not None:
        fate["in_optimal_map"] = in_optimal
    out = inside.with_columns(**fate).take(order)  # best-ranked first
    return StationMap(
        station_table=_station_table(out),
        candidate_table=out,
        play_area=play_area,
        net_area=net,
        net_area_km2=net_km2,
        game_size=game_size,
        game_size_inferred=inferred,
        rules=rules,
        cap_auto=cap_auto,
        cap_trail=cap_trail,
        exclusions=list(exclusions),
        optimization=optimization,
        search=search,
    )


def _net_area(
    play_area: BaseGeometry, water: Sequence[BaseGeometry], exclusions: Sequence[BaseGeometry]
) -> tuple[BaseGeometry, float]:
    """The net play area and its km² (NoDataError when nothing is left of it)."""
    land = net_play_area(play_area, water, ())
    net = net_play_area(land, (), exclusions)
    net_km2 = geodesic_area_km2(net)
    if not net.is_empty and net_km2 >= MIN_NET_AREA_KM2:
        return net, net_km2
    if land.is_empty or geodesic_area_km2(land) < MIN_NET_AREA_KM2:
        raise NoDataError(
            f"water covers the whole play area ({geodesic_area_km2(play_area):.3g} km²); "
            "check that the water data is for this area, or leave water in "
            "(--no-water-subtract)"
        )
    raise NoDataError(
        "nothing is left of the play area after the exclusions; check the --exclude files"
    )


def _game_size(options: StationMapOptions, net_km2: float) -> tuple[str, bool]:
    """The game size, and whether it was inferred from the net area ``net_km2``."""
    if options.game_size is None:
        return infer_game_size(net_km2), True
    game_size = options.game_size.upper()
    if game_size not in GAME_SIZES:
        raise ValueError(f"game size must be one of {', '.join(GAME_SIZES)}")
    return game_size, False


def _inside(
    candidates: PointTable | gpd.GeoDataFrame,
    play_area: BaseGeometry,
    exclusions: Sequence[BaseGeometry],
) -> tuple[PointTable, np.ndarray]:
    """The candidates in the play area and each one's reason so far ("" or excluded);
    NoDataError when there are none, or all are excluded."""
    if not isinstance(candidates, PointTable):
        candidates = PointTable.from_frame(candidates)
    inside = candidates.take(_covered_by(candidates, play_area))
    if len(inside) == 0:
        raise NoDataError(
            "no station candidates inside the play area; check that the OSM data covers it "
            "and that the categories exist there"
        )
    reason = np.full(len(inside), "", dtype=object)
    if exclusions:
        reason[_covered_by(inside, shapely.union_all(list(exclusions)))] = EXCLUDED
    if (reason == EXCLUDED).all():
        raise NoDataError(
            "every station candidate lies inside an exclusion; check the --exclude files"
        )
    return inside, reason


def _base_rules(options: StationMapOptions, game_size: str) -> SpacingRules:
    """The spacing rules of ``options`` (the cluster radius: the game size's hiding radius
    unless given; the cap as given, 0 while it is to be tuned)."""
    rules_radius = options.cluster_radius_m
    if rules_radius is None:
        rules_radius = HIDING_RADIUS_M[game_size]
    # Floats and an int whatever the caller passed (300 or 300.0, numpy scalars): the
    # compiled SpacingRules holds exactly these types, so outputs (the metadata's
    # "min_spacing_m": 300.0) are the same from the compiled and the Python core.
    return SpacingRules(
        min_spacing_m=float(options.min_spacing_m),
        cluster_gap_m=float(options.cluster_gap_m),
        cluster_radius_m=float(rules_radius),
        max_per_cluster=int(options.max_per_cluster or 0),
    )


def _without_duplicates(
    index: NeighbourIndex,
    order: np.ndarray,
    inside: PointTable,
    reason: np.ndarray,
    conflict: np.ndarray,
    options: StationMapOptions,
) -> np.ndarray:
    """Marks same-site duplicates in ``reason`` and ``conflict``; returns the rank order
    of the candidates left for the spacing."""
    active = reason == ""
    dup_of = find_duplicates(
        index,
        order[active[order]],
        inside["name"],
        inside["category"],
        options.dedupe_radius_m,
    )
    dups = dup_of >= 0
    reason[dups] = DUPLICATE
    conflict[dups] = inside["id"][dup_of[dups]]
    return order[(reason == "")[order]]


def _in_optimal(optimization: OptimizeResult, n: int, time_limit_s: float) -> np.ndarray:
    """The ``in_optimal_map`` column: "yes" / "no" / "unknown" per spaced candidate."""
    in_optimal = np.full(n, "", dtype=object)
    for i, verdict in explain_optimal(optimization, time_limit_s).items():
        in_optimal[i] = verdict
    return in_optimal


def _fate(
    result: SpacingResult,
    spaced: np.ndarray,
    ids: np.ndarray,
    reason: np.ndarray,
    conflict: np.ndarray,
    counts: np.ndarray,
    options: StationMapOptions,
) -> dict[str, np.ndarray]:
    """The candidate columns the map adds: each one's fate and wait tier."""
    reason[spaced] = result.reason[spaced]
    blockers = result.conflict[spaced]
    conflict[spaced] = np.where(blockers >= 0, ids[np.maximum(blockers, 0)], "")
    tier_names, wait_min, wait_max = tier_columns(counts, options.tiers)
    return {
        "status": text_column(np.where(result.kept, "kept", "rejected").tolist()),
        "reason": reason,
        "conflict_with": conflict,
        "cluster_id": result.cluster_id.astype(np.int64),
        "seed": np.asarray(result.seed, bool),
        "nearby_count": counts,
        "density_tier": tier_names,
        "wait_min": wait_min,
        "wait_max": wait_max,
    }


def _station_table(out: PointTable) -> PointTable:
    """The kept rows of the candidate table ``out``, in :data:`STATION_COLUMNS`."""
    kept_rows = np.flatnonzero(out["status"] == "kept")
    # By cluster, then id (lexsort is stable: equal keys keep their rank order).
    by_cluster = kept_rows[np.lexsort((out["id"][kept_rows], out["cluster_id"][kept_rows]))]
    return PointTable({c: out[c] for c in STATION_COLUMNS}, out.lon, out.lat).take(by_cluster)
