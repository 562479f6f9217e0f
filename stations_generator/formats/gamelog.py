"""The referee's game log: a JSON file of timestamped events, read and written.

::

    {"format": "stations-generator/game-log", "version": 1,
     "size": "L", "rules": "jltg-eu", "cards": "jltg-eu", "game": "game.json",
     "max_game_minutes": 540,
     "events": [
       {"at": "2026-07-10T09:37:00+02:00", "event": "hiding-started"},
       {"at": "2026-07-10T10:00:00+02:00", "event": "seeking-started"},
       {"at": "2026-07-10T10:12:00+02:00", "event": "question-asked", "id": "q1",
        "question": {"type": "radius", "seeker": {"lat": 60.17, "lon": 24.94},
                     "radius": "1 km"}},
       {"at": "2026-07-10T10:15:00+02:00", "event": "question-answered", "id": "q1",
        "answer": "within"},
       {"at": "2026-07-10T10:16:00+02:00", "event": "cards-drawn",
        "cards": ["time-bonus-5", "curse-of-the-bridge-troll"]},
       ...
     ]}

Every time is ISO 8601 with its time zone. A question is a GAME.json question (see
:mod:`stations_generator.formats.gamefile`); here it is read only for its cost and
legality, so no OSM data is needed, and a photo's embargo runs from the log's
``seeking-started`` (its ``asked_at``/``started_at`` are not used). The event kinds
are listed in :mod:`stations_generator.core.referee.events` with the fields each takes
(another field is refused). A log may give the hider's starting ``hand`` and, for the
game's next round, ``previous`` (``log``, ``ended``, ``round``, ``hand``). The file is checked
against :data:`~stations_generator.formats.schemas.GAME_LOG`, and written whole,
atomically, with sorted keys and two-space indents (same log, same bytes).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from stations_generator.core.geo.shapes import AzimuthalFrame
from stations_generator.core.questions.geometry import (
    MatchingNearestQuestion,
    MatchingStationQuestion,
    MatchingZoneQuestion,
    MeasuringQuestion,
    Question,
    QuestionError,
    RadiusQuestion,
    Station,
    TentaclesQuestion,
    ThermometerQuestion,
)
from stations_generator.core.questions.landmass import MatchingLandmassQuestion
from stations_generator.core.questions.legal import TENTACLES_RADIUS_M
from stations_generator.core.questions.marked_paths import MatchingMarkedPathQuestion
from stations_generator.core.questions.photos import PHOTO_KINDS, PhotoQuestion
from stations_generator.core.questions.sea_level import SUBJECT as SEA_LEVEL
from stations_generator.core.questions.sea_level import SeaLevelQuestion
from stations_generator.core.referee.events import EVENT_FIELDS, Event
from stations_generator.core.referee.replay import Settings
from stations_generator.errors import InputError
from stations_generator.formats import jsonio, schemas
from stations_generator.formats.atomic_file import atomic_write_text
from stations_generator.formats.dem import parse_altitude
from stations_generator.formats.gamefile import STATION_SUBJECTS, parse_distance, parse_lat_lon

FORMAT = "stations-generator/game-log"
VERSION = 1
MAX_LOG_BYTES = 16 * 1024**2  # a long day's log is a few hundred kB


def new_log(
    size: str,
    *,
    rules: str = "jltg-eu",
    cards: str | None = "jltg-eu",
    setup: str | None = None,
    game: str | None = None,
    max_game_minutes: float | None = None,
    hand: Sequence[str] = (),
    previous: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A log with no events yet (checked against the schema).

    ``hand`` is the hider's starting hand, ``previous`` the game's previous round
    (``{"log", "ended", "round", "hand"}``); both are left out when empty.
    """
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "size": size,
        "rules": rules,
        "cards": cards,
        "setup": setup,
        "game": game,
        "max_game_minutes": max_game_minutes,
        "events": [],
    }
    if hand:
        data["hand"] = list(hand)
    if previous:
        data["previous"] = previous
    jsonio.validate(data, schemas.GAME_LOG, "the new log")
    return data


def read_log(path: Path) -> dict[str, Any]:
    """The log at ``path``, parsed and checked against the schema (InputError: one line)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"game log {path.name!r} does not exist; start one with `referee start`")
    raw = path.read_bytes()
    if len(raw) > MAX_LOG_BYTES:
        raise InputError(
            f"{path.name} is {len(raw) / 1024**2:.0f} MiB, more than the "
            f"{MAX_LOG_BYTES / 1024**2:.0f} MiB accepted for a game log"
        )
    data = jsonio.loads(jsonio.decode_text(raw, path.name), path.name, "a game log")
    check_log(data, path.name)
    return data


def check_log(data: Any, source: str) -> None:
    """InputError (one line) unless ``data`` is a game log."""
    if isinstance(data, dict) and data.get("format") not in (FORMAT, None):
        raise InputError(
            f"{source} is not a game log (format {data.get('format')!r}); give a file "
            "written by `referee start`"
        )
    jsonio.validate(data, schemas.GAME_LOG, source)


def dumps_log(data: dict[str, Any]) -> str:
    """The log as text: sorted keys, two-space indents, a final newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_log(path: Path, data: dict[str, Any]) -> None:
    """Write the log to ``path`` whole and atomically (checked against the schema first)."""
    check_log(data, Path(path).name)
    atomic_write_text(Path(path), dumps_log(data))


def settings_of(data: dict[str, Any]) -> Settings:
    """The referee's settings of a (checked) log."""
    return Settings(
        size=str(data["size"]),
        rules=str(data.get("rules") or "jltg-eu"),
        max_game_minutes=data.get("max_game_minutes"),
        previous_end=previous_end(data),
    )


def previous_end(data: dict[str, Any]) -> datetime | None:
    """When the game's previous round ended, if the log follows one."""
    previous = data.get("previous")
    if not previous:
        return None
    return parse_time(previous["ended"], "previous.ended")


def parse_time(value: str, what: str) -> datetime:
    """A timezone-aware time from ISO 8601; InputError naming ``what`` otherwise."""
    try:
        at = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise InputError(
            f'{what}: {value!r} is not an ISO time; write e.g. "2026-07-10T10:30:00+02:00"'
        ) from None
    if at.tzinfo is None or at.utcoffset() is None:
        raise InputError(f"{what}: {value!r} has no time zone; add it, e.g. {value}+02:00")
    return at


def events_of(data: dict[str, Any], source: str = "log") -> list[Event]:
    """The events of a (checked) log, as the referee replays them."""
    return [event_from_dict(raw, k, source) for k, raw in enumerate(data["events"], 1)]


def event_from_dict(raw: dict[str, Any], number: int, source: str = "log") -> Event:
    """One event of a log (already checked against the schema); InputError if unreadable."""
    where = f"{source}: event {number} ({raw.get('event')})"
    extra = sorted(set(raw) - {"at", "event", "note", *EVENT_FIELDS.get(raw["event"], ())})
    if extra:
        takes = ", ".join(EVENT_FIELDS.get(raw["event"], ())) or "no other field"
        raise InputError(f"{where}: {', '.join(extra)} is not a field of it; it takes {takes}")
    question = None
    data = raw.get("question") or {}
    if "question" in raw:
        question = question_model(data, f"{where} question")

    def ids(key: str) -> tuple[str, ...]:
        return tuple(raw.get(key, ()))

    return Event(
        at=parse_time(raw["at"], f"{where} at"),
        kind=raw["event"],
        number=number,
        id=raw.get("id"),
        question=question,
        question_data=data,
        answer=raw.get("answer"),
        card=raw.get("card"),
        cards=ids("cards"),
        discards=ids("discards"),
        paid=ids("paid"),
        draws=ids("draws"),
        team=raw.get("team"),
        target=raw.get("target"),
        accepted=raw.get("accepted"),
        free=raw.get("free"),
        exit_blue_lines=raw.get("exit_blue_lines"),
        retract=raw.get("retract"),
        note=raw.get("note"),
    )


def question_model(raw: dict[str, Any], where: str) -> Question:
    """A GAME.json question as a cost model: its kind, repeat key, label and cost.

    No OSM data is read: places, zones and features are left empty (they do not
    change the cost). InputError (one line) for a question that cannot be read.
    """
    kind = raw.get("type")
    try:
        if kind == "photo":
            return _photo(raw, where)
        if kind == "thermometer":
            end = raw.get("end", raw.get("start"))
            distance = raw.get("distance")
            return ThermometerQuestion(
                parse_lat_lon(raw.get("start"), f"{where} start"),
                parse_lat_lon(end, f"{where} end"),
                None,
                None if distance is None else parse_distance(distance, f"{where} distance"),
            )
        seeker = parse_lat_lon(raw.get("seeker"), f"{where} seeker")
        if kind == "radius":
            return RadiusQuestion(seeker, parse_distance(raw.get("radius"), f"{where} radius"))
        subject = str(raw.get("subject", ""))
        if kind == "tentacles":
            radius = raw.get("radius", TENTACLES_RADIUS_M.get(subject))
            if radius is None:
                raise InputError(f"{where}: tentacles on {subject!r} needs a radius")
            return TentaclesQuestion(seeker, parse_distance(radius, f"{where} radius"), subject, ())
        if kind == "matching":
            return _matching(raw, seeker, subject)
        if subject == SEA_LEVEL:  # no DEM: the heights do not change the cost
            altitude = parse_altitude(raw.get("altitude"), f"{where} altitude")
            return SeaLevelQuestion(seeker, altitude, None)  # type: ignore[arg-type]
        level = raw.get("level", 2 if subject == "border" else None)
        return MeasuringQuestion(seeker, subject, (), AzimuthalFrame(*seeker), None, level)
    except QuestionError as exc:
        raise InputError(f"{where}: {exc}") from None


def _matching(raw: dict[str, Any], seeker: tuple[float, float], subject: str) -> Question:
    if subject in ("zone", "zone-letter"):
        return MatchingZoneQuestion(
            seeker, int(raw["level"]), (), None, by_letter=subject == "zone-letter"
        )
    if subject in STATION_SUBJECTS:
        station = Station(str(raw.get("seeker_station", "")), "", *seeker)
        return MatchingStationQuestion(station, STATION_SUBJECTS[subject])
    if subject == "landmass":  # no land data: it does not change the cost
        return MatchingLandmassQuestion(seeker, None, AzimuthalFrame(*seeker))  # type: ignore[arg-type]
    if subject == "marked-path":
        return MatchingMarkedPathQuestion(seeker, (), AzimuthalFrame(*seeker))
    return MatchingNearestQuestion(seeker, subject, ())


def _photo(raw: dict[str, Any], where: str) -> PhotoQuestion:
    photo = str(raw.get("photo", "")).lower()
    if photo not in PHOTO_KINDS:
        raise InputError(
            f"{where}: unknown photo {photo!r} (JLTG.EU house rules, Photos); use "
            f"{', '.join(PHOTO_KINDS)}"
        )
    return PhotoQuestion(photo, str(raw.get("phase", "long")))


def append_event(data: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    """A copy of the log with ``event`` appended (checked against the schema)."""
    out = {**data, "events": [*data["events"], event]}
    jsonio.validate(
        event, schemas.GAME_LOG["properties"]["events"]["items"], "the event", path_prefix="$"
    )
    return out


def question_ids(events: Sequence[dict[str, Any]]) -> list[str]:
    """The question ids used in a log (asked, or a thermometer started), in order."""
    kinds = ("question-asked", "thermometer-started")
    return list(dict.fromkeys(e["id"] for e in events if e.get("event") in kinds))
