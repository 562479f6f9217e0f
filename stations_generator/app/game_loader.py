"""Loading a game from any of its files: our GAME.json, a taibeled state, question list or
single question, or an ``hzc`` share link, with its map resolved.

GAME.json is read by :mod:`stations_generator.formats.gamefile`; for taibeled JSON:

What the app stores, and what we do with it:

* **Play area** — a drawn polygon, or a Photon Feature whose ``geometry`` is only a
  Point: the boundary is the OSM object ``properties.osm_type`` / ``osm_id`` (``"R"``
  relation, ``"W"`` way). It is assembled from ``--osm`` extracts when one holds
  it, else fetched through the Overpass client (cached); when neither works the
  error names the object. ``alternateLocations`` (``{"added", "location"}``) are
  resolved the same way and added to or cut out of the area, as the app does.
* **Hiding stations** — ``zoneOptions`` (Overpass filters such as
  ``[railway=station][subway=yes]``; the app's default, ``[railway=station]``, for a
  bare question list): every OSM object inside the area matching one of them, less
  ``disabledStations`` (``"node/123"``); ``customStations`` replace them
  when ``useCustomStations`` is set (and join them with ``includeDefaultStations``).
* **Hiding radius** — ``hidingRadius`` in ``hidingRadiusUnits`` (the app's default,
  ½ mile, when a state has none; a bare question list uses the rule set's).
* **Ignored**, because they only change the app's display or its question editor:
  ``presets``, ``permanentOverlay``, ``displayHidingZones*``, ``defaultUnit``,
  ``zoneOperators``, ``headStartMinutes``.

A question list or a single question carries no map: the map comes from
``--play-area``, the play area of a ``--stations`` file written by ``generate``, or
the extent of the ``--osm`` data; ``questions cost`` needs none (:func:`cost_questions`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shapely
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry

from stations_generator.app.map_context import MapSources, OsmContext, TaibeledResolver
from stations_generator.core.catalogue import load_catalogue
from stations_generator.core.elements import OsmElement
from stations_generator.core.gamesize import infer_game_size
from stations_generator.core.geo.antimeridian import (
    join_antimeridian,
    wrap_lon,
)
from stations_generator.core.geo.geodesy import geodesic_area_km2
from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.core.questions.game import Game
from stations_generator.core.questions.geometry import (
    MatchingNearestQuestion,
    MatchingStationQuestion,
    MatchingZoneQuestion,
    MeasuringQuestion,
    Question,
    RadiusQuestion,
    Station,
    TentaclesQuestion,
    ThermometerQuestion,
)
from stations_generator.core.questions.rules import MILE_M, rule_set
from stations_generator.errors import InputError, OverpassError, UserError
from stations_generator.formats import jsonio, schemas, taibeled
from stations_generator.formats.gamefile import (
    DEFAULT_STATION_CATEGORIES,
    FORMAT,
    check_positions,
    question_from_dict,
    read_game_data,
)
from stations_generator.formats.playarea import load_polygons, parse_polygons
from stations_generator.osm import extracts, overpass_file, overpass_json
from stations_generator.osm import filters as osm_filters
from stations_generator.osm.osm_area import area_from_extracts, area_from_overpass, osm_ref
from stations_generator.osm.query import poly_filters

if TYPE_CHECKING:
    from stations_generator.app.timetable_game import FeedGame

#: Where the map of a game came from (info: the command line's notes).
log = logging.getLogger(__name__)

APP_HIDING_RADIUS_M = 0.5 * MILE_M  # the app's default hidingRadius (0.5, miles)


@dataclass
class LoadedGame:
    """A game read from disk, with the context it was resolved against."""

    game: Game
    context: OsmContext
    source: str


def _resolve(base: Path, value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else base / p


def load_game(
    path: Path,
    osm_override: Sequence[Path] = (),
    sources: MapSources | None = None,
    warn: Callable[[str], None] = lambda _m: None,
) -> LoadedGame:
    """Read a game: our GAME.json, a taibeled state / question list, or an ``hzc`` share link.

    Parameters
    ----------
    path : Path
        The file (a text file holding a share link works too).
    osm_override : sequence of Path
        OSM files to use instead of (or, for taibeled states, as) the game's sources.
    sources : MapSources, optional
        ``--play-area``, ``--stations`` and the Overpass client, for what the file
        does not say (a question list has no map) or to override it.
    warn : callable
        Receives one-line warnings (play-area repairs, a play area taken from the data).
    """
    path = Path(path)
    sources = sources or MapSources()
    if osm_override:
        sources = dataclasses.replace(sources, osm=tuple(Path(f) for f in osm_override))
    data = read_game_data(path)
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return load_game_json(data, path.parent, sources, path.name, warn)
    return load_taibeled_game(data, sources, path.name, warn)


def load_cost_questions(path: Path, sources: MapSources | None = None) -> list[Question]:
    """The questions of a game for the cost ledger.

    Taibeled JSON (a state, a question list, one question) needs no map or OSM data
    for this; our GAME.json is read whole (its subjects come from its OSM data).
    """
    data = read_game_data(path)
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return load_game(path, sources=sources).game.questions
    return cost_questions(data)


def load_game_json(
    data: dict, base: Path, sources: MapSources, source: str, warn: Callable[[str], None]
) -> LoadedGame:
    jsonio.validate(data, schemas.GAME, source)
    area_spec = data.get("play_area")
    if sources.play_area is not None:
        area = load_polygons(sources.play_area, warn)
    elif isinstance(area_spec, str):
        area = load_polygons(_resolve(base, area_spec), warn)
    elif isinstance(area_spec, dict):
        area = parse_polygons(area_spec, f"{source} play_area", warn)
    else:
        raise InputError(f"{source}: play_area must be a GeoJSON object or a file path")
    # The reader keeps an area across ±180° split there (RFC 7946); questions need it whole.
    area = join_antimeridian(area)
    check_positions(data.get("questions", []))
    files = list(sources.osm) or [_resolve(base, f) for f in data.get("osm", [])]
    try:
        rules = rule_set(str(data.get("rules", "official")))
    except ValueError as exc:
        raise InputError(f"{source}: {exc}") from None
    dem = sources.dem or (_resolve(base, data["dem"]) if data.get("dem") else None)
    context = OsmContext(area, files, line_rules=rules.name, dem=dem)
    size = str(data.get("game_size") or infer_game_size(geodesic_area_km2(area))).upper()
    if size not in ("S", "M", "L"):
        raise InputError(f"{source}: game_size must be S, M or L")
    stations_spec = data.get("stations", {"categories": list(DEFAULT_STATION_CATEGORIES)})
    from_feed = None
    if sources.stations is not None:
        stations = context.stations_from_file(sources.stations)
    elif isinstance(stations_spec, str):
        stations = context.stations_from_file(_resolve(base, stations_spec))
    elif "gtfs" in stations_spec:  # a GTFS feed's stations (docs/timetables.md)
        from_feed = _feed_game(stations_spec, base, area, rules, size, data)
        stations = from_feed.stations
    elif set(stations_spec) - {"categories"}:
        raise InputError(
            f"{source}: stations: {sorted(set(stations_spec) - {'categories'})[0]!r} needs "
            '"gtfs": the feed it chooses from; add it, or drop the key'
        )
    else:
        stations = context.stations_from_osm(
            stations_spec.get("categories", DEFAULT_STATION_CATEGORIES)
        )
    questions = [
        question_from_dict(q, context, stations, f"question {k}", data.get("country"))
        for k, q in enumerate(data.get("questions", []), 1)
    ]
    game = Game(
        area,
        rules,
        size,
        stations,
        questions,
        tuple(data.get("modifiers", ())),
        data.get("country"),
    )
    if from_feed is not None:  # the feed's lines, credit and reachability filter
        game.timetable_lines = True
        game.credits = (from_feed.attribution,)
        game.zone_filter = from_feed.zone_filter
    try:
        game.rules.radius_m(size, game.modifiers)
    except ValueError as exc:
        raise InputError(f"{source}: {exc}") from None
    return LoadedGame(game, context, source)


def _feed_game(
    spec: dict, base: Path, area: BaseGeometry, rules: Any, size: str, data: dict
) -> FeedGame:
    """The game's stations, the feed's credit and its reachability filter, from the GTFS
    feed its ``"stations"`` name."""
    from stations_generator.app.timetable_game import feed_game
    from stations_generator.core.geo.antimeridian import centre_lon

    try:
        radius = rules.radius_m(size, tuple(data.get("modifiers", ())))
    except (ValueError, KeyError):
        radius = None  # the game's own check below says what is wrong
    return feed_game(spec, base, area, rules.name, centre_lon(area), radius, size)


def game_to_dict(loaded: LoadedGame) -> dict:
    """A summary of the loaded game (for ``-v`` and tests)."""
    g = loaded.game
    return {
        "rules": g.rules.name,
        "game_size": g.game_size,
        "hiding_radius_m": g.hiding_radius_m,
        "stations": len(g.stations),
        "questions": [q.label() for q in g.questions],
        "play_area_km2": round(geodesic_area_km2(g.play_area), 3),
        "bounds": list(shapely.bounds(g.play_area)),
    }


def _files_text(files: Sequence[Path]) -> str:
    return ", ".join(repr(Path(f).name) for f in files) if files else "no --osm file"


def resolve_osm_area(location: dict, sources: MapSources, where: str) -> BaseGeometry:
    """The polygon of a Photon location (``properties.osm_type`` / ``osm_id``)."""
    props = location.get("properties") if isinstance(location.get("properties"), dict) else {}
    kind, oid = osm_ref(props.get("osm_type"), props.get("osm_id"), where)
    name = props.get("name")
    what = f"OSM {kind} {oid}" + (f" ({name})" if name else "")
    if kind == "node":
        raise InputError(f"{where} is {what}, a point, not an area; choose the area in the app")
    area = area_from_extracts(sources.osm, kind, oid)
    if area is not None:
        log.info(f"{where}: {what} from {_files_text(sources.osm)}")
        return area
    if sources.overpass is None:
        raise InputError(
            f"{where} is {what}, which is not in {_files_text(sources.osm)}; give --osm with an "
            f"extract that holds {kind} {oid}, or --play-area FILE"
        )
    log.info(f"{where}: fetching {what} from Overpass (cached)")
    try:
        return area_from_overpass(sources.overpass(), kind, oid)
    except (OverpassError, UserError) as exc:
        raise InputError(
            f"{where} is {what}, which is not in {_files_text(sources.osm)} and could not be "
            f"fetched from Overpass ({' '.join(str(exc).split())}); give --osm with an extract "
            f"that holds {kind} {oid}, or --play-area FILE"
        ) from None


def _state_area(state: taibeled.TaibeledState, sources: MapSources) -> BaseGeometry | None:
    """The state's own play area: its polygon, or its OSM location with alternateLocations."""
    if state.play_area is not None:
        return state.play_area
    if "osm_id" not in state.properties:
        return None
    area = resolve_osm_area({"properties": state.properties}, sources, "the play area")
    for k, alt in enumerate(state.extras.get("alternateLocations") or [], 1):
        if not isinstance(alt, dict) or not isinstance(alt.get("location"), dict):
            raise InputError(
                f'alternateLocations {k} is not {{"added": …, "location": …}}; '
                "copy the state from the app again"
            )
        other = resolve_osm_area(alt["location"], sources, f"alternate location {k}")
        area = area.union(other) if alt.get("added", True) else area.difference(other)
    if area.is_empty:
        raise InputError("the play area is empty once alternateLocations are cut out of it")
    return shapely.normalize(area)


def _extent_of(files: Sequence[Path]) -> BaseGeometry | None:
    """The box of the OSM data: an extract's header box, else the bounds of its objects."""
    for f in files:
        path = Path(f)
        if str(path).lower().endswith(".json"):
            found = overpass_json.parse_overpass_json(overpass_file.read_overpass_json_file(path))
            if found:
                lons = [e.lon for e in found]
                lats = [e.lat for e in found]
                return box(min(lons), min(lats), max(lons), max(lats))
            continue
        import osmium

        reader = osmium.io.Reader(str(path), osmium.osm.NOTHING)
        try:
            b = reader.header().box()
        finally:
            reader.close()
        if b.valid():
            return box(b.bottom_left.lon, b.bottom_left.lat, b.top_right.lon, b.top_right.lat)
        points = extracts.read_points(path, lambda t: True)
        if points:
            return box(
                min(e.lon for e in points),
                min(e.lat for e in points),
                max(e.lon for e in points),
                max(e.lat for e in points),
            )
    return None


def _stations_file_area(path: Path) -> BaseGeometry | None:
    import json

    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    for f in data.get("features", []) if isinstance(data, dict) else []:
        if isinstance(f, dict) and (f.get("properties") or {}).get("role") == "play_area":
            return parse_polygons(f, f"{Path(path).name} play area")
    return None


def map_area(
    own: BaseGeometry | None,
    sources: MapSources,
    source: str,
    warn: Callable[[str], None],
    questions: bool = True,
) -> BaseGeometry:
    """The play area: ``--play-area``, else the game's own, else the stations file's, else the data's extent."""
    if sources.play_area is not None:
        area = load_polygons(sources.play_area, warn)
    elif own is not None:
        area = own
    elif sources.stations is not None and (found := _stations_file_area(sources.stations)):
        area = found
    elif sources.osm and (found := _extent_of(sources.osm)) is not None:
        b = found.bounds
        warn(
            f"{source} has no play area: using the extent of the OSM data "
            f"({b[1]:.4f}, {b[0]:.4f} to {b[3]:.4f}, {b[2]:.4f}); give --play-area FILE for the real one"
        )
        area = found
    elif not questions:
        raise InputError(
            f"{source} is not a game (no play area polygon); it holds no questions either; give a GAME.json, a "
            "taibeled state or question list, or a share link"
        )
    else:
        raise InputError(
            f"{source} holds questions but no play area; give --play-area FILE (a GeoJSON polygon), "
            "--stations stations.geojson (from generate) or --osm EXTRACT"
        )
    return join_antimeridian(area)


def _elements_fetcher(
    sources: MapSources, catalogue, station_filters
) -> Callable[[BaseGeometry], list[OsmElement]]:
    """``fetch(polygon)``: catalogue places and stations inside a polygon, from Overpass."""

    def fetch(polygon: BaseGeometry) -> list[OsmElement]:
        texts = sorted(
            set(catalogue.overpass_filters())
            | {osm_filters.overpass_text(f) for f in station_filters}
        )
        polys = poly_filters(polygon)
        lines = ["[out:json][timeout:180];", "("]
        lines += [f"  nwr{t}({p});" for t in texts for p in polys]
        lines += [");", "out center tags;"]
        log.info("fetching places and stations from Overpass (cached)")
        raw = sources.overpass().fetch("\n".join(lines) + "\n")
        return overpass_json.parse_overpass_json(raw)

    return fetch


def _custom_stations(state: taibeled.TaibeledState, centre: float) -> list[Station]:
    return [
        Station(
            str(s["id"]), str(s.get("name", "")), wrap_lon(float(s["lng"]), centre), float(s["lat"])
        )
        for s in state.custom_stations
    ]


def _seekers(state: taibeled.TaibeledState) -> list[tuple[float, float]]:
    out = []
    for q in state.questions:
        out.append(q.seeker)
        if q.kind == "thermometer":
            out.append((float(q.data["lngA"]), float(q.data["latA"])))
    return out


def load_taibeled_game(data: Any, sources: MapSources, source: str, warn: Callable[[str], None]):
    """A :class:`LoadedGame` from taibeled JSON (see the module docstring)."""

    state = taibeled.parse_state(data, source=source)
    is_state = not (
        isinstance(data, list) or ("type" not in data and ("id" in data or "data" in data))
    )
    area = map_area(_state_area(state, sources), sources, source, warn, bool(state.questions))
    station_filters = osm_filters.parse_filters(state.zone_options, "zoneOptions")
    catalogue = load_catalogue()
    online = not sources.osm and sources.overpass is not None and sources.stations is None
    context = OsmContext(
        area,
        list(sources.osm),
        catalogue,
        station_filters=station_filters,
        fetch=_elements_fetcher(sources, catalogue, station_filters) if online else None,
    )
    if sources.stations is not None:
        stations = context.stations_from_file(sources.stations)
    elif sources.osm or online:
        stations = context.stations_from_osm(filters=station_filters)
    else:
        stations = []
    if state.extras.get("useCustomStations") and state.custom_stations:
        custom = _custom_stations(state, context.centre)
        stations = (stations if state.extras.get("includeDefaultStations") else []) + custom
    disabled = set(state.disabled_stations)
    stations = [s for s in stations if s.id not in disabled]
    reach = max((q.radius_m or 0.0 for q in state.questions if q.kind == "tentacles"), default=0.0)
    resolver = TaibeledResolver(context, stations, _seekers(state), reach)
    questions = [taibeled.to_model(q, resolver) for q in state.questions]
    size = infer_game_size(geodesic_area_km2(area))
    rules = rule_set("official")
    radius = state.hiding_radius_m or (APP_HIDING_RADIUS_M if is_state else None)
    if radius:
        rules = type(rules)(
            "taibeled",
            {s: radius for s in ("S", "M", "L")},
            rules.valid_stop,
            "hiding radius from the taibeled state",
        )
    return LoadedGame(Game(area, rules, size, stations, questions), context, source)


# --- the cost ledger without a map ------------------------------------------------------


def _cost_model(q: taibeled.TaibeledQuestion) -> Question:
    """A question with what its label and cost need, and no OSM data (for ``questions cost``)."""
    d = q.data
    if q.kind == "radius":
        return RadiusQuestion(q.seeker, float(q.radius_m or 0.0), d["within"])
    if q.kind == "thermometer":
        return ThermometerQuestion((float(d["lngA"]), float(d["latA"])), q.seeker, d["warmer"])
    if q.kind == "tentacles":
        subject = taibeled.TENTACLES_TYPES[d["locationType"]] or "custom"
        return TentaclesQuestion(q.seeker, float(q.radius_m or 0.0), subject, ())
    if q.kind == "matching":
        kind, arg = taibeled.MATCHING_TYPES[d["type"]]
        if kind == "zone":
            return MatchingZoneQuestion(
                q.seeker, int(d["cat"]["adminLevel"]), (), d["same"], bool(arg)
            )
        if kind == "station":
            return MatchingStationQuestion(Station("", "", *q.seeker), str(arg), d["same"])
        if kind == "custom-zone":
            return MatchingZoneQuestion(q.seeker, 0, (), d["same"])
        subject = str(arg) if kind == "nearest" else "custom"
        return MatchingNearestQuestion(q.seeker, subject, (), d["same"])
    subject = taibeled.MEASURING_TYPES[d["type"]] or "custom"
    return MeasuringQuestion(q.seeker, subject, (), AzimuthalFrame(*q.seeker), d["hiderCloser"])


def cost_questions(data: Any) -> list[Question]:
    """The questions of taibeled JSON for the cost ledger: no map or OSM data needed."""
    return [_cost_model(q) for q in taibeled.parse_state(data, require_answer=False).questions]
