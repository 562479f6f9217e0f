"""Building game-log events for the referee tests (pure: no files, no OSM data)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from functools import cache
from typing import Any

from stations_generator.core.questions.geometry import (
    MatchingNearestQuestion,
    Question,
    RadiusQuestion,
    ThermometerQuestion,
)
from stations_generator.core.questions.photos import PhotoQuestion
from stations_generator.core.referee.events import Event
from stations_generator.core.referee.replay import Settings, replay

HELSINKI = timezone(timedelta(hours=3))
DAY = (2026, 7, 11)
SEEKER = (24.94146, 60.17132)  # (lon, lat): Helsinki centre, as in examples/helsinki-game


def at(hhmm: str) -> datetime:
    """``"10:05"`` on the test day, Helsinki summer time."""
    h, m = map(int, hhmm.split(":"))
    return datetime(*DAY, h, m, tzinfo=HELSINKI)


def ev(hhmm: str, kind: str, **kw: Any) -> Event:
    """An event at ``hhmm``."""
    return Event(at=at(hhmm), kind=kind, **kw)


def radius(km: float = 1.0) -> Question:
    return RadiusQuestion(SEEKER, km * 1000.0)


def matching(subject: str = "library") -> Question:
    return MatchingNearestQuestion(SEEKER, subject, ())


def thermometer(distance_m: float | None = 400.0) -> Question:
    return ThermometerQuestion(SEEKER, (24.946, 60.168), None, distance_m)


def photo(kind: str = "tree") -> Question:
    return PhotoQuestion(kind)


def ask(hhmm: str, qid: str, question: Question, **kw: Any) -> Event:
    return ev(hhmm, "question-asked", id=qid, question=question, **kw)


def answer(hhmm: str, qid: str, text: str | None = None, **kw: Any) -> Event:
    return ev(hhmm, "question-answered", id=qid, answer=text, **kw)


def start(size: str = "S", hiding: str = "09:30", seeking: str = "10:00") -> list[Event]:
    """hiding-started and seeking-started."""
    return [ev(hiding, "hiding-started"), ev(seeking, "seeking-started")]


def run(events: list[Event], size: str = "S", when: str | None = None, table: Any = None, **kw):
    """The state after ``events`` (at ``when``, default the last event)."""
    return replay(events, Settings(size, **kw), table, None if when is None else at(when))


@cache
def catalogue() -> Any:
    """The shipped card file's cards (real data: stations_generator/data)."""
    from stations_generator.formats.cardfile import read_card_file

    return read_card_file("jltg-eu").cards


def table(size: str = "S", hand: tuple[str, ...] = ()) -> Any:
    """A fresh card table of the shipped cards."""
    from stations_generator.core.referee.cards import new_table

    return new_table(catalogue(), size, hand=hand)
