"""Photo questions: "Send me a photo of …" (pure: no I/O).

Every number here is from the JLTG.EU house rules, Photos ("Summary of Photo
Questions") and Hiding ("Summary"):

* each photo kind is available in some game sizes (S, M, L), may or may not be cached
  in the end game, and may or may not be zoomed;
* a photo costs Draw 1, Pick 1; the powerful ones (tallest building, tallest
  structure, the two traces) Draw 3, Pick 1 in the long game and Draw 3, Pick 2 in the
  end game;
* the hider answers within 10 minutes in S and M games, 20 minutes in L games;
* in Large games no photo question in the first 2 hours 30 minutes.

A photo eliminates no area: :meth:`PhotoQuestion.kept_for` keeps the whole extent.
The answer is ``"sent"`` or ``"cannot answer"`` (both cost the same).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar

from shapely.geometry.base import BaseGeometry

from stations_generator.core.questions.geometry import AreaQuestion
from stations_generator.core.questions.legal import QuestionError

SENT = "sent"
CANNOT_ANSWER = "cannot answer"
ANSWERS = (SENT, CANNOT_ANSWER)
PHASES = ("long", "end")
#: Photo answer time in minutes by game size (JLTG.EU house rules, Hiding, Summary).
ANSWER_MINUTES = {"S": 10, "M": 10, "L": 20}
#: No photo question in the first 2 h 30 of a Large game (JLTG.EU house rules, Hiding).
LARGE_EMBARGO = timedelta(hours=2, minutes=30)
#: Cost (draw, pick) of a photo, and of a powerful one by phase (JLTG.EU house rules, Photos).
BASE_COST = (1, 1)
POWERFUL_COST = {"long": (3, 1), "end": (3, 2)}


@dataclass(frozen=True)
class PhotoKind:
    """One row of the rules' "Summary of Photo Questions"."""

    id: str
    name: str
    sizes: str  # the game sizes it is available in, e.g. "SML"
    cacheable: bool  # can be cached in the end game
    zoom: bool  # can be zoomed
    powerful: bool = False  # Draw 3, Pick 1 (long game) / Pick 2 (end game)


def _kind(id_: str, name: str, sizes: str, cache: bool, zoom: bool, power: bool = False):
    return PhotoKind(id_, name, sizes, cache, zoom, power)


#: JLTG.EU house rules, Photos, "Summary of Photo Questions".
PHOTO_KINDS: dict[str, PhotoKind] = {
    k.id: k
    for k in (
        _kind("building", "A Building Visible from the Stop", "SML", True, True),
        _kind("body_of_water", "Biggest Body of Water", "L", False, False),
        _kind("sightline", "Current Sightline", "SML", False, False),
        _kind("five_buildings", "Five Buildings", "L", False, False),
        _kind("grocery_aisle", "Grocery Store Aisle", "ML", False, False),
        _kind("bike_stand", "Largest Bike Stand/Cage Next to the Station", "ML", True, False),
        _kind("park", "Park", "ML", False, False),
        _kind("platform", "Platform", "ML", True, False),
        _kind("place_of_worship", "Place of Worship", "ML", False, False),
        _kind("restaurant", "Restaurant Interior or Exterior", "L", False, False),
        _kind("selfie", "Selfie", "SML", False, False),
        _kind("sky", "Sky", "SML", False, False),
        _kind("tree", "Tree", "SML", False, False),
        _kind("tallest_building", "Tallest Building Visible from the Stop", "ML", True, True, True),
        _kind("tallest_mountain", "Tallest Mountain Visible from the Stop", "L", True, True),
        _kind("tallest_structure", "Tallest Structure in your Sightline", "SML", False, True, True),
        _kind("trace_streets", "Trace 1 km of Streets", "L", False, False, True),
        _kind("trace_nearest_street", "Trace the Nearest Street/Path", "L", False, False, True),
        _kind("two_buildings", "Two Buildings", "ML", False, False),
        _kind("widest_street", "Widest Street", "SML", False, False),
    )
}


def kinds_for(game_size: str) -> list[str]:
    """The ids of the photo kinds available in a game of size ``game_size`` (S, M, L)."""
    return [k.id for k in PHOTO_KINDS.values() if game_size.upper() in k.sizes]


def photo_kind(kind: str) -> PhotoKind:
    """The photo kind of id ``kind``; QuestionError naming every kind otherwise."""
    try:
        return PHOTO_KINDS[kind]
    except KeyError:
        raise QuestionError(
            f"unknown photo {kind!r} (JLTG.EU house rules, Photos); use {', '.join(PHOTO_KINDS)}"
        ) from None


def answer_minutes(game_size: str) -> int:
    """Minutes the hider has to send a photo in a game of size ``game_size``."""
    return ANSWER_MINUTES[game_size.upper()]


@dataclass
class PhotoQuestion(AreaQuestion):
    """ "Send me a photo of …": answered with the photo or "I cannot answer"; removes no area.

    ``asked_at`` and ``started_at`` (the game's start) are optional: the Large-game
    embargo is checked only when both are given.
    """

    photo: str
    phase: str = "long"
    sent: str | None = None
    asked_at: datetime | None = None
    started_at: datetime | None = None
    kind: ClassVar[str] = "photo"

    def __post_init__(self) -> None:
        photo_kind(self.photo)
        if self.phase not in PHASES:
            raise QuestionError(f"photo phase {self.phase!r} is not one of {', '.join(PHASES)}")
        if self.sent not in (*ANSWERS, None):
            raise QuestionError(f"photo answer {self.sent!r} is not one of {', '.join(ANSWERS)}")

    @property
    def answer(self) -> str | None:
        return self.sent

    @property
    def cost(self) -> tuple[int, int]:  # type: ignore[override]
        """(draw, pick): Draw 1 Pick 1; powerful kinds 3/1 in the long game, 3/2 in the end."""
        return POWERFUL_COST[self.phase] if photo_kind(self.photo).powerful else BASE_COST

    def answer_for(self, lon: float, lat: float) -> Any:
        # A photo says nothing the map can check: every point gives the recorded answer.
        return self.sent if self.sent is not None else SENT

    def kept_for(self, answer: Any, extent: BaseGeometry) -> BaseGeometry:
        return extent

    def cost_key(self) -> tuple:
        # The same photo asked again repeats its cost (JLTG.EU house rules, Repeating Questions).
        return (self.kind, self.photo)

    def label(self) -> str:
        return f"Photo: {self.photo.replace('_', ' ')}"

    def check(self, game_size: str) -> None:
        """QuestionError if this photo may not be asked in a game of size ``game_size``.

        The kind must be available in that size; in a Large game it may not be asked in
        the first 2 h 30 (checked only when ``asked_at`` and ``started_at`` are given).
        """
        size = game_size.upper()
        if size not in photo_kind(self.photo).sizes:
            raise QuestionError(
                f"photo {self.photo!r} is not available in {size} games (JLTG.EU house rules, "
                f"Photos); use {', '.join(kinds_for(size))}"
            )
        if size == "L" and self.asked_at is not None and self.started_at is not None:
            try:
                elapsed = self.asked_at - self.started_at
            except TypeError:
                raise QuestionError(
                    f"photo {self.photo!r}: asked_at and started_at must both have a time zone "
                    "or both have none"
                ) from None
            if elapsed < LARGE_EMBARGO:
                minutes = int(elapsed.total_seconds() // 60)
                raise QuestionError(
                    f"photo {self.photo!r} asked {minutes} min into a Large game: no photo "
                    "questions in the first 2 h 30 (JLTG.EU house rules, Hiding); ask it later"
                )
