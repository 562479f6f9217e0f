"""GAME.json — our game format — and the OSM context that resolves question subjects.

A game file (JSON) holds everything needed to recompute the map::

    {
      "format": "stations-generator-game/1",
      "rules": "jltg-eu",                 # or "official"
      "country": "FI",                    # optional: valid stops and admin levels
      "game_size": "S",                   # optional: inferred from the play area
      "modifiers": [],                    # "prosperous", "tiny"
      "play_area": "area.geojson",        # a path (relative to the game file) or GeoJSON
      "osm": ["helsinki.osm.pbf"],        # where places, zones, lines and stations come from
      "stations": {"categories": ["train_station", "train_halt", "tram_stop"]},
                                          # or a path to a stations.geojson from `generate`
      "questions": [
        {"type": "radius", "seeker": {"lat": 60.17, "lon": 24.94}, "radius": "500 m", "answer": "within"},
        {"type": "thermometer", "start": {...}, "end": {...}, "distance": "1 km", "answer": "hotter"},
        {"type": "tentacles", "seeker": {...}, "subject": "museum", "radius": "2 km", "answer": "node/123"},
        {"type": "matching", "seeker": {...}, "subject": "museum", "answer": "same"},
        {"type": "matching", "seeker": {...}, "subject": "zone", "level": 8, "answer": "different"},
        {"type": "matching", "seeker": {...}, "subject": "zone-letter", "level": 8, "answer": "same"},
        {"type": "matching", "seeker": {...}, "subject": "transit-line", "answer": "same"},
        {"type": "measuring", "seeker": {...}, "subject": "coastline", "answer": "closer"}
      ]
    }

Answers: radius ``within`` / ``not within``; thermometer ``hotter`` / ``colder``;
matching ``same`` / ``different``; measuring ``closer`` / ``further``; tentacles the
id (``node/123``) or name of the nearest place, or ``not within``. Distances are
metres or strings with a unit: ``"500 m"``, ``"2 km"``, ``"3 mi"``. Station matching
subjects (``station-letter``, ``station-length``, ``transit-line``) use the station
nearest the seeker unless ``"seeker_station": "node/…"`` names it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from . import jsonio, schemas
from .catalogue import Catalogue, load_catalogue
from .core.game import Game
from .core.gamesize import infer_game_size
from .core.geodesy import geodesic_area_km2
from .core.questions import (
    NOT_WITHIN,
    TENTACLES_RADIUS_M,
    MatchingNearestQuestion,
    MatchingStationQuestion,
    MatchingZoneQuestion,
    MeasuringQuestion,
    Place,
    Question,
    QuestionError,
    RadiusQuestion,
    Station,
    TentaclesQuestion,
    ThermometerQuestion,
    Zone,
)
from .core.rules import ADMIN_LEVELS, rule_set
from .core.shapes import AzimuthalFrame, distance_m
from .errors import InputError
from .osm import extracts, overpass
from .osm.elements import OsmElement
from .osm.routes import Route, read_routes, routes_serving
from .params import HALF_EARTH_M
from .playarea import load_polygons, parse_polygons
from .stationfile import read_station_map

FORMAT = "stations-generator-game/1"
MAX_GAME_BYTES = 64 * 1024**2
DEFAULT_STATION_CATEGORIES = ("train_station", "train_halt", "tram_stop")
SUBJECT_MARGIN_M = 50_000.0  # places this far outside the play area still count as "nearest"
LINE_SUBJECTS = ("coastline", "high_speed_rail", "border", "body_of_water")
STATION_SUBJECTS = {"station-letter": "letter", "station-length": "length", "transit-line": "line"}
QUESTION_TYPES = ("radius", "thermometer", "tentacles", "matching", "measuring")
_UNITS = {"m": 1.0, "km": 1000.0, "mi": 1609.344, "mile": 1609.344, "miles": 1609.344, "ft": 0.3048}


def parse_distance(value: Any, what: str = "distance") -> float:
    """Metres from a number or a string like ``"2 km"`` / ``"0.25 mi"``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        metres = float(value)
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(value))
        if not m or m.group(2).lower() not in ("", *_UNITS):
            raise InputError(
                f'cannot read {what} {value!r}; write e.g. 500, "500 m", "2 km" or "3 mi"'
            )
        metres = float(m.group(1)) * _UNITS.get(m.group(2).lower() or "m", 1.0)
    if not math.isfinite(metres) or not 0 < metres <= HALF_EARTH_M:
        raise InputError(
            f"{what} {value!r} is not a distance on Earth; give more than 0 and at most 20000 km"
        )
    return metres


def parse_lat_lon(value: Any, what: str) -> tuple[float, float]:
    """(lon, lat) from {"lat", "lon"|"lng"} or "LAT,LON"; checks ranges and swaps."""
    if isinstance(value, dict):
        lat, lon = value.get("lat"), value.get("lon", value.get("lng"))
    elif isinstance(value, str) and "," in value:
        lat, lon = value.split(",", 1)
    else:
        raise InputError(f'{what} must be {{"lat": …, "lon": …}} or "LAT,LON", got {value!r}')
    try:
        lat, lon = float(lat), float(lon)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{what}: coordinates {value!r} are not numbers") from None
    if not (math.isfinite(lat) and math.isfinite(lon)):
        raise InputError(f"{what}: coordinates {value!r} are not finite numbers; give LAT,LON")
    if abs(lat) > 90:
        hint = " — latitude and longitude look swapped" if abs(lon) <= 90 else ""
        raise InputError(f"{what}: latitude {lat:g} is out of range{hint}")
    if abs(lon) > 180:
        raise InputError(f"{what}: longitude {lon:g} is out of range")
    return lon, lat


@dataclass
class OsmContext:
    """OSM data around a play area, turned into what questions need (the taibeled Resolver)."""

    play_area: BaseGeometry
    files: Sequence[Path] = ()
    catalogue: Catalogue = field(default_factory=load_catalogue)
    margin_m: float = SUBJECT_MARGIN_M

    @cached_property
    def frame(self) -> AzimuthalFrame:
        return AzimuthalFrame.around(self.play_area)

    @cached_property
    def bbox(self) -> tuple[float, float, float, float]:
        minx, miny, maxx, maxy = self.play_area.bounds
        lat = (miny + maxy) / 2
        dlat = self.margin_m / 111_000
        dlon = self.margin_m / (111_000 * max(np.cos(np.radians(lat)), 0.05))
        return (
            max(minx - dlon, -180),
            max(miny - dlat, -90),
            min(maxx + dlon, 180),
            min(maxy + dlat, 90),
        )

    def _extracts(self) -> list[Path]:
        return [Path(f) for f in self.files if not str(f).lower().endswith(".json")]

    @cached_property
    def elements(self) -> list[OsmElement]:
        out: dict[str, OsmElement] = {}
        for f in self.files:
            path = Path(f)
            if not path.exists():
                raise InputError(f"OSM file {path.name!r} does not exist; check the path")
            if str(path).lower().endswith(".json"):
                raw = overpass.read_overpass_json_file(
                    path, keep=lambda el: bool(el.get("tags")) and self.catalogue.keeps(el["tags"])
                )
                found = overpass.parse_overpass_json(raw)
                found = [e for e in found if self.catalogue.keeps(e.tags)]
            else:
                found = extracts.read_points(path, self.catalogue.keeps, self.bbox)
            for e in found:
                out.setdefault(e.key, e)
        return sorted(out.values(), key=lambda e: (e.osm_type, e.osm_id))

    def places(self, subject: str) -> tuple[Place, ...]:
        """Places serving a catalogue subject within the margin of the play area."""
        if subject not in self.catalogue.subjects:
            raise InputError(
                f"unknown subject {subject!r}; use one of {', '.join(self.catalogue.subjects)}"
            )
        return tuple(self._subject_index.get(subject, ()))

    @cached_property
    def _subject_index(self) -> dict[str, list[Place]]:
        index: dict[str, list[Place]] = {}
        for e in self.elements:
            subjects = {s for c in self.catalogue.matching(e.tags) for s in c.subjects}
            for s in sorted(subjects):
                index.setdefault(s, []).append(Place(e.key, e.tags.get("name", ""), e.lon, e.lat))
        return index

    def features(self, subject: str) -> tuple[BaseGeometry, ...]:
        """Geometries for a measuring subject: lines, polygons or the subject's points."""
        if subject == "coastline":
            return self._lines(lambda t: t.get("natural") == "coastline")
        if subject == "high_speed_rail":
            return self._lines(lambda t: t.get("railway") == "rail" and t.get("highspeed") == "yes")
        if subject == "border":
            return tuple(z.geometry.boundary for z in self.zones(2))
        if subject == "body_of_water":
            return tuple(g for f in self._extracts() for g in extracts.read_water(f, self.bbox))
        return tuple(Point(p.lon, p.lat) for p in self.places(subject))

    def _lines(self, keep) -> tuple[BaseGeometry, ...]:
        return tuple(
            line for f in self._extracts() for _, _, line in extracts.read_lines(f, keep, self.bbox)
        )

    def zones(self, level: int) -> tuple[Zone, ...]:
        """Named admin areas of an OSM admin level (boundary=administrative)."""
        key = str(level)
        out = []
        for f in self._extracts():
            for zid, tags, geom in extracts.read_areas(
                f,
                lambda t: (
                    t.get("boundary") == "administrative"
                    and t.get("admin_level") == key
                    and "name" in t
                ),
                self.bbox,
            ):
                out.append(Zone(zid, tags.get("name", ""), geom))
        return tuple(sorted(out, key=lambda z: z.id))

    @cached_property
    def routes(self) -> list[Route]:
        return [r for f in self._extracts() for r in read_routes(f)]

    def stations_from_osm(self, categories: Sequence[str]) -> list[Station]:
        """Stations of the given catalogue categories inside the play area, with their lines."""
        cats = self.catalogue.select(list(categories))
        out = []
        for e in self.elements:
            if not self.play_area.covers(Point(e.lon, e.lat)):
                continue
            if not any(c.name in cats for c in self.catalogue.matching(e.tags)):
                continue
            out.append(self._station(e.key, e.tags.get("name", ""), e.lon, e.lat, e.tags, e.osm_id))
        return out

    def _station(self, sid, name, lon, lat, tags, osm_id=None) -> Station:
        kinds = tuple(
            sorted(
                (k, v)
                for k, v in tags.items()
                if k in ("railway", "station", "public_transport", "highway", "amenity")
            )
        )
        served = routes_serving(lon, lat, osm_id, self.routes) if self.routes else []
        return Station(
            sid,
            name,
            lon,
            lat,
            kinds,
            frozenset(r.id for r in served),
            frozenset(r.line_ref for r in served),
        )

    def stations_from_file(self, path: Path) -> list[Station]:
        """Stations from a stations.geojson written by ``generate`` (the one station-map reader)."""
        station_map = read_station_map(path)
        out = []
        for st, props in zip(station_map.stations, station_map.properties, strict=True):
            tags = {}
            if st.category in self.catalogue:
                first = self.catalogue[st.category].match[0]
                tags = {c.key: c.value for c in first if c.op == "="}
            osm_id = props.get("osm_id") if props.get("osm_type") == "node" else None
            out.append(self._station(st.id, st.name, st.lon, st.lat, tags, osm_id))
        return out

    def station_near(
        self, lon: float, lat: float, stations: Sequence[Station] = ()
    ) -> Station | None:
        if not stations:
            return None
        d = distance_m(
            np.full(len(stations), lon),
            np.full(len(stations), lat),
            np.array([s.lon for s in stations]),
            np.array([s.lat for s in stations]),
        )
        return stations[int(np.argmin(d))]


def _answer(value: Any, yes: Sequence[str], no: Sequence[str], where: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in yes:
        return True
    if text in no:
        return False
    raise InputError(f"{where}: answer {value!r} is not one of {', '.join((*yes, *no))}")


def question_from_dict(
    raw: dict,
    context: OsmContext,
    stations: Sequence[Station],
    where: str,
    context_country: str | None = None,
) -> Question:
    """One question of a game file, resolved against the OSM context."""
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a question must be a JSON object")
    kind = str(raw.get("type", raw.get("id", ""))).lower()
    if kind not in QUESTION_TYPES:
        raise InputError(
            f"{where}: unknown question type {kind!r}; use {', '.join(QUESTION_TYPES)}"
        )
    ans = raw.get("answer")
    try:
        if kind == "radius":
            return RadiusQuestion(
                parse_lat_lon(raw.get("seeker"), f"{where} seeker"),
                parse_distance(raw.get("radius"), f"{where} radius"),
                _answer(ans, ("within", "inside", "yes"), ("not within", "outside", "no"), where),
            )
        if kind == "thermometer":
            return ThermometerQuestion(
                parse_lat_lon(raw.get("start"), f"{where} start"),
                parse_lat_lon(raw.get("end"), f"{where} end"),
                _answer(ans, ("hotter", "warmer"), ("colder",), where),
                parse_distance(raw["distance"], f"{where} distance") if "distance" in raw else None,
            )
        subject = str(raw.get("subject", ""))
        seeker = parse_lat_lon(raw.get("seeker"), f"{where} seeker")
        if kind == "tentacles":
            radius = raw.get("radius", TENTACLES_RADIUS_M.get(subject))
            if radius is None:
                raise InputError(f"{where}: tentacles on {subject!r} needs a radius")
            places = context.places(subject)
            nearest = None
            if ans is not None:
                text = str(ans)
                if text.lower() in (NOT_WITHIN, "none", "no"):
                    nearest = NOT_WITHIN
                else:
                    match = [p for p in places if p.id == text] or [
                        p for p in places if p.name.casefold() == text.casefold()
                    ]
                    if not match:
                        raise InputError(
                            f"{where}: no {subject} called {text!r} near the play area"
                        )
                    nearest = match[0].id
            return TentaclesQuestion(seeker, parse_distance(radius), subject, places, nearest)
        if kind == "matching":
            same = _answer(ans, ("same", "yes"), ("different", "no"), where)
            if subject in ("zone", "zone-letter"):
                level = int(raw.get("level", 0))
                presets = ADMIN_LEVELS.get(str(context_country or "").upper())
                if presets and level not in presets:
                    raise InputError(
                        f"{where}: admin level {level} is not a zone level in {context_country}; "
                        f"use {', '.join(map(str, presets))}"
                    )
                zones = context.zones(level)
                if not zones:
                    raise InputError(f"{where}: no admin zones of level {level} in the OSM data")
                return MatchingZoneQuestion(
                    seeker, level, zones, same, by_letter=subject == "zone-letter"
                )
            if subject in STATION_SUBJECTS:
                sid = raw.get("seeker_station")
                station = (
                    next((s for s in stations if s.id == sid), None)
                    if sid
                    else context.station_near(*seeker, stations)
                )
                if station is None:
                    raise InputError(
                        f"{where}: no station {'named ' + repr(sid) if sid else 'in the game'} for the seeker"
                    )
                return MatchingStationQuestion(station, STATION_SUBJECTS[subject], same)
            return MatchingNearestQuestion(seeker, subject, context.places(subject), same)
        # measuring
        features = context.features(subject)
        if not features:
            raise InputError(f"{where}: no {subject} in the OSM data near the play area")
        return MeasuringQuestion(
            seeker,
            subject,
            features,
            context.frame,
            _answer(ans, ("closer", "hider closer", "yes"), ("further", "farther", "no"), where),
        )
    except QuestionError as exc:
        raise InputError(f"{where}: {exc}") from None


@dataclass
class LoadedGame:
    """A game read from disk, with the context it was resolved against."""

    game: Game
    context: OsmContext
    source: str


def _resolve(base: Path, value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else base / p


def load_game(path: Path, osm_override: Sequence[Path] = ()) -> LoadedGame:
    """Read a game: our GAME.json, a taibeled state / question list, or an ``hzc`` share link.

    Parameters
    ----------
    path : Path
        The file (a text file holding a share link works too).
    osm_override : sequence of Path
        OSM files to use instead of (or, for taibeled states, as) the game's sources.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"game file {path.name!r} does not exist; check the path")
    if path.is_dir():
        raise InputError(f"game file {path.name!r} is a folder; give a GAME.json")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    if len(raw) > MAX_GAME_BYTES:
        raise InputError(
            f"{path.name} is {len(raw) / 1024**2:.0f} MiB, more than the "
            f"{MAX_GAME_BYTES / 1024**2:.0f} MiB accepted for a game file"
        )
    text = jsonio.decode_text(raw, path.name).strip()
    if text.startswith("{") or text.startswith("["):
        data = jsonio.loads(text, path.name, "a game file")
    else:
        from . import taibeled

        if "hzc=" not in text and not re.fullmatch(r"[A-Za-z0-9_\-]+=*", text):
            raise InputError(
                f"{path.name!r} is not a game file (neither JSON nor a share link); give a "
                "GAME.json, a taibeled state, or a file holding a ?hzc= link"
            )
        data = taibeled.load_any(text)
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return _load_ours(data, path.parent, osm_override, path.name)
    return _load_taibeled(data, path.parent, osm_override, path.name)


def _check_positions(questions: Sequence[dict]) -> None:
    """Points and distances of every question, checked before any OSM data is read."""
    for k, raw in enumerate(questions, 1):
        for key in ("seeker", "start", "end"):
            if key in raw:
                parse_lat_lon(raw[key], f"question {k} {key}")
        for key in ("radius", "distance"):
            if key in raw:
                parse_distance(raw[key], f"question {k} {key}")


def _load_ours(data: dict, base: Path, osm_override: Sequence[Path], source: str) -> LoadedGame:
    jsonio.validate(data, schemas.GAME, source)
    area_spec = data.get("play_area")
    if isinstance(area_spec, str):
        area = load_polygons(_resolve(base, area_spec))
    elif isinstance(area_spec, dict):
        area = parse_polygons(area_spec, f"{source} play_area")
    else:
        raise InputError(f"{source}: play_area must be a GeoJSON object or a file path")
    _check_positions(data.get("questions", []))
    files = list(osm_override) or [_resolve(base, f) for f in data.get("osm", [])]
    context = OsmContext(area, files)
    try:
        rules = rule_set(str(data.get("rules", "official")))
    except ValueError as exc:
        raise InputError(f"{source}: {exc}") from None
    size = str(data.get("game_size") or infer_game_size(geodesic_area_km2(area))).upper()
    if size not in ("S", "M", "L"):
        raise InputError(f"{source}: game_size must be S, M or L")
    stations_spec = data.get("stations", {"categories": list(DEFAULT_STATION_CATEGORIES)})
    if isinstance(stations_spec, str):
        stations = context.stations_from_file(_resolve(base, stations_spec))
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
    try:
        game.rules.radius_m(size, game.modifiers)
    except ValueError as exc:
        raise InputError(f"{source}: {exc}") from None
    return LoadedGame(game, context, source)


def _load_taibeled(data: Any, base: Path, osm_override: Sequence[Path], source: str) -> LoadedGame:
    from . import taibeled

    state = taibeled.parse_state(data, source=source)
    if state.play_area is None:
        raise InputError(
            f'{source} is not a game (no play area polygon); give a GAME.json ("format": "{FORMAT}"), '
            "a taibeled state or question list, or a share link"
        )
    context = OsmContext(state.play_area, list(osm_override))
    stations = context.stations_from_osm(DEFAULT_STATION_CATEGORIES) if osm_override else []
    resolver = _TaibeledResolver(context, stations)
    questions = [taibeled.to_model(q, resolver) for q in state.questions]
    size = infer_game_size(geodesic_area_km2(state.play_area))
    rules = rule_set("official")
    if state.hiding_radius_m:
        rules = type(rules)(
            "taibeled",
            {s: state.hiding_radius_m for s in ("S", "M", "L")},
            rules.valid_stop,
            "hiding radius from the taibeled state",
        )
    disabled = set(state.disabled_stations)
    stations = [s for s in stations if s.id not in disabled]
    return LoadedGame(Game(state.play_area, rules, size, stations, questions), context, source)


class _TaibeledResolver:
    def __init__(self, context: OsmContext, stations: Sequence[Station]):
        self.context = context
        self.stations = stations
        self.frame = context.frame

    def places(self, subject: str) -> tuple[Place, ...]:
        return self.context.places(subject)

    def features(self, subject: str) -> tuple[BaseGeometry, ...]:
        return self.context.features(subject)

    def zones(self, level: int) -> tuple[Zone, ...]:
        return self.context.zones(level)

    def station_near(self, lon: float, lat: float) -> Station | None:
        return self.context.station_near(lon, lat, self.stations)


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
