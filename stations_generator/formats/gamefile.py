"""GAME.json, our game format: reading it, and its questions as question objects.

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
                                          # or a path to a stations.geojson from `generate`,
                                          # or {"gtfs": "feed.zip", …}: a GTFS feed's
                                          # stations (docs/timetables.md#in-a-game)
      "questions": [
        {"type": "radius", "seeker": {"lat": 60.17, "lon": 24.94}, "radius": "500 m", "answer": "within"},
        {"type": "thermometer", "start": {...}, "end": {...}, "distance": "1 km", "answer": "hotter"},
        {"type": "tentacles", "seeker": {...}, "subject": "museum", "radius": "2 km", "answer": "node/123"},
        {"type": "matching", "seeker": {...}, "subject": "museum", "answer": "same"},
        {"type": "matching", "seeker": {...}, "subject": "zone", "level": 8, "answer": "different"},
        {"type": "matching", "seeker": {...}, "subject": "zone-letter", "level": 8, "answer": "same"},
        {"type": "matching", "seeker": {...}, "subject": "transit-line", "answer": "same"},
        {"type": "matching", "seeker": {...}, "subject": "landmass", "answer": "same"},
        {"type": "matching", "seeker": {...}, "subject": "marked-path", "answer": "different"},
        {"type": "measuring", "seeker": {...}, "subject": "coastline", "answer": "closer"},
        {"type": "measuring", "seeker": {...}, "subject": "border", "level": 8, "answer": "closer"},
        {"type": "measuring", "seeker": {...}, "subject": "sea-level", "altitude": "12 m",
         "answer": "closer"},                # heights from the game's "dem" (docs/sea-level.md)
        {"type": "tentacles", "seeker": {...}, "subject": "transit_line", "radius": "25 km",
         "answer": "HSL:2"},
        {"type": "photo", "photo": "tree", "phase": "long", "answer": "sent"}
      ]
    }

Answers: radius ``within`` / ``not within``; thermometer ``hotter`` / ``colder``;
matching ``same`` / ``different``; measuring ``closer`` / ``further``; photo ``sent`` /
``cannot answer`` (``phase`` ``long`` or ``end``, optional ISO times ``asked_at`` and
``started_at`` — the game's start — for the Large-game embargo); tentacles the
id (``node/123``) or name of the nearest place (for ``transit_line`` the line's
``network:ref``, ref or name), or ``not within``. A ``border`` without ``level`` is the
international border (level 2). Distances are
metres or strings with a unit: ``"500 m"``, ``"2 km"``, ``"3 mi"``. Station matching
subjects (``station-letter``, ``station-length``, ``transit-line``) use the station
nearest the seeker unless ``"seeker_station": "node/…"`` names it.

``"stations": {"gtfs": …}`` takes the stations from a GTFS feed (read by
:mod:`stations_generator.app.timetable_game`); its keys — the feed's routes, service day
and window, the transit-line rule's frequency, and ``"hider_start"`` /
``"hiding_started"``, where and when the hider started, which rule out the zones not
reachable in the hiding period — are in docs/timetables.md, section "In a game".
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.earth import HALF_EARTH_M
from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.core.questions.geometry import (
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
from stations_generator.core.questions.landmass import LandData, MatchingLandmassQuestion
from stations_generator.core.questions.marked_paths import MarkedWay, MatchingMarkedPathQuestion
from stations_generator.core.questions.photos import (
    CANNOT_ANSWER,
    PHASES,
    PHOTO_KINDS,
    SENT,
    PhotoQuestion,
)
from stations_generator.core.questions.rules import ADMIN_LEVELS
from stations_generator.core.questions.sea_level import SUBJECT as SEA_LEVEL
from stations_generator.core.questions.sea_level import ElevationGrid, SeaLevelQuestion
from stations_generator.core.questions.transit import (
    TRACK_ROUTES,
    Line,
    TransitLineTentaclesQuestion,
    lines_within,
)
from stations_generator.errors import InputError
from stations_generator.formats import jsonio
from stations_generator.formats.dem import parse_altitude

FORMAT = "stations-generator-game/1"
MAX_GAME_BYTES = 64 * 1024**2
DEFAULT_STATION_CATEGORIES = ("train_station", "train_halt", "tram_stop")
STATION_SUBJECTS = {"station-letter": "letter", "station-length": "length", "transit-line": "line"}
QUESTION_TYPES = ("radius", "thermometer", "tentacles", "matching", "measuring", "photo")
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


def parse_answer(value: Any, yes: Sequence[str], no: Sequence[str], where: str) -> bool | None:
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


class QuestionContext(Protocol):
    """What reading a question needs from the OSM data around the play area.

    :class:`stations_generator.app.map_context.OsmContext` is the one implementation.
    """

    frame: AzimuthalFrame

    def places(
        self, subject: str, seekers: Sequence[tuple[float, float]], reach_m: float = 0.0
    ) -> tuple[Place, ...]: ...

    def features(
        self, subject: str, seekers: Sequence[tuple[float, float]]
    ) -> tuple[BaseGeometry, ...]: ...

    def zones(self, level: int) -> tuple[Zone, ...]: ...

    def elevation(self) -> ElevationGrid:
        """The DEM's heights over the play area (InputError naming --dem when none)."""
        ...

    def land(self, seekers: Sequence[tuple[float, float]]) -> LandData:
        """Coastlines, water and rivers around the area (the landmass question)."""
        ...

    def marked_paths(self, seekers: Sequence[tuple[float, float]]) -> tuple[MarkedWay, ...]:
        """The marked-path ways that can be nearest to the area or a seeker."""
        ...

    def station_near(
        self, lon: float, lat: float, stations: Sequence[Station]
    ) -> Station | None: ...

    @property
    def routes(self) -> Sequence[Any]:
        """The OSM route relations (``id``, ``ref``, ``name``, ``route``, ``stops``)."""
        ...


def question_from_dict(
    raw: dict,
    context: QuestionContext,
    stations: Sequence[Station],
    where: str,
    context_country: str | None = None,
) -> Question:
    """One question of a game file, resolved against the OSM data around the play area.

    Parameters
    ----------
    raw : dict
        The question as the game file has it (see the module docstring).
    context : QuestionContext
        Places, lines, zones and the nearest station around the play area.
    stations : sequence of Station
        The game's hiding stations (for the station matching subjects).
    where : str
        Names the question in error messages (``"question 3"``).
    context_country : str, optional
        The game's country: its admin levels are the legal zone levels.

    Returns
    -------
    Question

    Raises
    ------
    InputError
        One line naming the question and what is wrong with it.
    """
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a question must be a JSON object")
    kind = str(raw.get("type", raw.get("id", ""))).lower()
    if kind not in QUESTION_TYPES:
        raise InputError(
            f"{where}: unknown question type {kind!r}; use {', '.join(QUESTION_TYPES)}"
        )
    try:
        if kind == "radius":
            return _radius(raw, where)
        if kind == "thermometer":
            return _thermometer(raw, where)
        if kind == "tentacles":
            return _tentacles(raw, context, where)
        if kind == "matching":
            return _matching(raw, context, stations, where, context_country)
        if kind == "photo":
            return _photo(raw, where)
        return _measuring(raw, context, where, context_country)
    except QuestionError as exc:
        raise InputError(f"{where}: {exc}") from None


def _radius(raw: dict, where: str) -> RadiusQuestion:
    return RadiusQuestion(
        parse_lat_lon(raw.get("seeker"), f"{where} seeker"),
        parse_distance(raw.get("radius"), f"{where} radius"),
        parse_answer(
            raw.get("answer"), ("within", "inside", "yes"), ("not within", "outside", "no"), where
        ),
    )


def _thermometer(raw: dict, where: str) -> ThermometerQuestion:
    return ThermometerQuestion(
        parse_lat_lon(raw.get("start"), f"{where} start"),
        parse_lat_lon(raw.get("end"), f"{where} end"),
        parse_answer(raw.get("answer"), ("hotter", "warmer"), ("colder",), where),
        parse_distance(raw["distance"], f"{where} distance") if "distance" in raw else None,
    )


def _iso_time(value: Any, what: str) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise InputError(
            f'{what} {value!r} is not an ISO time; give e.g. "2026-05-01T10:30:00+02:00"'
        ) from None


def _photo(raw: dict, where: str) -> PhotoQuestion:
    photo = str(raw.get("photo", "")).lower()
    if photo not in PHOTO_KINDS:
        raise InputError(
            f"{where}: unknown photo {photo!r} (JLTG.EU house rules, Photos); use "
            f"{', '.join(PHOTO_KINDS)}"
        )
    phase = str(raw.get("phase", "long")).lower()
    if phase not in PHASES:
        raise InputError(f"{where}: photo phase {phase!r} is not one of {', '.join(PHASES)}")
    answer = raw.get("answer")
    text = None if answer is None else str(answer).strip().lower()
    if text in ("sent", "photo", "yes"):
        text = SENT
    elif text in ("cannot answer", "cannot", "i cannot answer that question", "no"):
        text = CANNOT_ANSWER
    elif text is not None:
        raise InputError(f"{where}: answer {answer!r} is not one of {SENT}, {CANNOT_ANSWER}")
    return PhotoQuestion(
        photo,
        phase,
        text,
        _iso_time(raw.get("asked_at"), f"{where} asked_at"),
        _iso_time(raw.get("started_at"), f"{where} started_at"),
    )


def _track_lines(routes: Sequence[Any]) -> list[Line]:
    """Lines on tracks from OSM route relations: the relations of one ``network:ref`` (both
    directions, variants) are one line; a relation without a ref is a line of its own."""
    stops: dict[str, list] = {}
    names: dict[str, str] = {}
    for r in routes:
        if r.route not in TRACK_ROUTES:
            continue
        key = r.line_ref if r.ref else r.id
        stops.setdefault(key, []).extend(r.stops)
        names.setdefault(key, r.ref or r.name)
    return [Line(k, names[k], tuple(stops[k])) for k in sorted(stops)]


def _transit_tentacles(
    raw: dict, context: QuestionContext, seeker: tuple[float, float], radius_m: float, where: str
) -> TransitLineTentaclesQuestion:
    """Tentacles on transit lines (JLTG.EU house rules, Tentacles, "Transit Lines").

    The answer is the line's ``network:ref`` (``HSL:6``), its ref or name.
    """
    near = lines_within(_track_lines(context.routes), seeker, radius_m)
    answer = raw.get("answer")
    line = None
    if answer is not None:
        text = str(answer).strip().casefold()
        if text in (NOT_WITHIN, "none", "no"):
            line = NOT_WITHIN
        else:
            match = [x.id for x in near if text in (x.id.casefold(), x.name.casefold())]
            if len(match) != 1:
                raise InputError(
                    f"{where}: {'no' if not match else len(match)} transit lines {answer!r} "
                    f"with a stop within {radius_m / 1000:g} km of the seeker; give its "
                    f"network:ref{' (' + ', '.join(match) + ')' if match else ', ref or name'}"
                )
            line = match[0]
    return TransitLineTentaclesQuestion(seeker, radius_m, near, line)


def _tentacles(raw: dict, context: QuestionContext, where: str) -> Question:
    subject = str(raw.get("subject", ""))
    seeker = parse_lat_lon(raw.get("seeker"), f"{where} seeker")
    radius = raw.get("radius", TENTACLES_RADIUS_M.get(subject))
    if radius is None:
        raise InputError(f"{where}: tentacles on {subject!r} needs a radius")
    if subject == "transit_line":
        return _transit_tentacles(raw, context, seeker, parse_distance(radius), where)
    places = context.places(subject, [seeker], parse_distance(radius))
    nearest = None
    answer = raw.get("answer")
    if answer is not None:
        text = str(answer)
        if text.lower() in (NOT_WITHIN, "none", "no"):
            nearest = NOT_WITHIN
        else:
            match = [p for p in places if p.id == text] or [
                p for p in places if p.name.casefold() == text.casefold()
            ]
            if not match:
                raise InputError(f"{where}: no {subject} called {text!r} near the play area")
            nearest = match[0].id
    return TentaclesQuestion(seeker, parse_distance(radius), subject, places, nearest)


def _matching(
    raw: dict,
    context: QuestionContext,
    stations: Sequence[Station],
    where: str,
    country: str | None,
) -> Question:
    subject = str(raw.get("subject", ""))
    seeker = parse_lat_lon(raw.get("seeker"), f"{where} seeker")
    same = parse_answer(raw.get("answer"), ("same", "yes"), ("different", "no"), where)
    if subject in ("zone", "zone-letter"):
        level = _zone_level(raw, where, country)
        zones = context.zones(level)
        if not zones:
            raise InputError(f"{where}: no admin zones of level {level} in the OSM data")
        return MatchingZoneQuestion(seeker, level, zones, same, by_letter=subject == "zone-letter")
    if subject == "landmass":  # JLTG.EU house rules, Matching: Landmass
        return MatchingLandmassQuestion(seeker, context.land([seeker]), context.frame, same)
    if subject == "marked-path":  # JLTG.EU house rules, Matching: Marked Path
        ways = context.marked_paths([seeker])
        if not ways:
            raise InputError(f"{where}: no marked paths (streets, roads, paths) in the OSM data")
        return MatchingMarkedPathQuestion(seeker, ways, context.frame, same)
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
    return MatchingNearestQuestion(seeker, subject, context.places(subject, [seeker]), same)


def _zone_level(raw: dict, where: str, country: str | None, extra: tuple[int, ...] = ()) -> int:
    """The ``level`` of a zone question, checked against the country's zone levels
    (JLTG.EU house rules, OSM Zone: DE 4, 6, 8; NL 4, 8; elsewhere any level)."""
    try:
        level = int(raw.get("level", 0))
    except (TypeError, ValueError):
        raise InputError(f"{where}: level {raw.get('level')!r} is not an OSM admin level") from None
    presets = ADMIN_LEVELS.get(str(country or "").upper())
    if presets and level not in (*extra, *presets):
        raise InputError(
            f"{where}: admin level {level} is not a zone level in {country}; "
            f"use {', '.join(map(str, (*extra, *presets)))}"
        )
    return level


def _border_features(
    raw: dict, context: QuestionContext, where: str, country: str | None
) -> tuple[int, tuple[BaseGeometry, ...]]:
    """The admin level of a border question (2, the international border, by default)
    and the borders of that level's zones, read as the matching zone question reads them."""
    level = _zone_level({"level": raw.get("level", 2)}, where, country, extra=(2,))
    if level == 2:
        return 2, context.features("border", [parse_lat_lon(raw.get("seeker"), where)])
    zones = context.zones(level)
    if not zones:
        raise InputError(f"{where}: no admin zones of level {level} in the OSM data")
    return level, tuple(z.geometry.boundary for z in zones)


def _measuring(
    raw: dict, context: QuestionContext, where: str, country: str | None = None
) -> MeasuringQuestion | SeaLevelQuestion:
    subject = str(raw.get("subject", ""))
    seeker = parse_lat_lon(raw.get("seeker"), f"{where} seeker")
    if subject == SEA_LEVEL:  # JLTG.EU house rules, Measuring: Sea Level
        altitude = parse_altitude(raw.get("altitude"), f"{where} altitude")
        try:
            grid = context.elevation()
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        answer = parse_answer(
            raw.get("answer"), ("closer", "yes"), ("further", "farther", "no"), where
        )
        return SeaLevelQuestion(seeker, altitude, grid, answer)
    level = None
    if subject == "border":
        # An international / OSM zone border: each level is its own question
        # (JLTG.EU house rules, Measuring).
        level, features = _border_features(raw, context, where, country)
    else:
        features = context.features(subject, [seeker])
    if not features:
        raise InputError(f"{where}: no {subject} in the OSM data near the play area")
    return MeasuringQuestion(
        seeker,
        subject,
        features,
        context.frame,
        parse_answer(
            raw.get("answer"),
            ("closer", "hider closer", "yes"),
            ("further", "farther", "no"),
            where,
        ),
        level,
    )


def _resolve(base: Path, value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else base / p


def read_game_data(path: Path) -> Any:
    """The parsed game file: JSON, or a share link / bare ``hzc`` code (checked, bounded)."""
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
        return jsonio.loads(text, path.name, "a game file")
    from stations_generator.formats import taibeled

    if "hzc=" not in text and not re.fullmatch(r"[A-Za-z0-9_\-]+=*", text):
        raise InputError(
            f"{path.name!r} is not a game file (neither JSON nor a share link); give a "
            "GAME.json, a taibeled state, or a file holding a ?hzc= link"
        )
    return taibeled.load_any(text)


def check_positions(questions: Sequence[dict]) -> None:
    """Points and distances of every question, checked before any OSM data is read."""
    for k, raw in enumerate(questions, 1):
        for key in ("seeker", "start", "end"):
            if key in raw:
                parse_lat_lon(raw[key], f"question {k} {key}")
        for key in ("radius", "distance"):
            if key in raw:
                parse_distance(raw[key], f"question {k} {key}")
