"""The shared-game use cases behind the HTTP API and the WebSocket: create, join, post, read.

Each method is synchronous (the stores are), checks what it is given and raises
:class:`~.model.Refused` with the status and reason a phone is shown. Posting is bounded
per game and role (:data:`EVENT_RATE`), creating per server (:data:`CREATE_RATE`).
"""

from __future__ import annotations

from typing import Any

from stations_generator.serve.shared import model
from stations_generator.serve.shared.model import EventCheck, RateLimit, RateLimits, Refused
from stations_generator.serve.shared.store import READ_BATCH, GameStore

#: Events a game's seekers (or its hider) may post a second on average, and at once: a
#: phone that was offline sends what it did in a burst.
EVENT_RATE = 10.0
EVENT_BURST = 50
#: Games created a second on average, and at once (an organiser creates one per round).
CREATE_RATE = 1.0
CREATE_BURST = 20


class SharedGames:
    """The shared games of one server.

    Parameters
    ----------
    store : GameStore
        Where the games are kept.
    check : EventCheck
        The check of an event's content (the referee's, when given).
    """

    def __init__(self, store: GameStore, check: EventCheck = model.basic_event_check) -> None:
        self.store = store
        self.check = check
        self.posting = RateLimits(EVENT_RATE, EVENT_BURST)
        self.creating = RateLimit(CREATE_RATE, CREATE_BURST)

    def create(self, body: Any) -> dict[str, Any]:
        """``{game, settings?}`` -> ``{code, seeker_token, hider_token, links}``.

        The links open the page on the game; the token is in the fragment (``#``), which
        a browser sends to no server and puts in no Referer.
        """
        game, settings = model.check_game(body)
        if not self.creating.allow():
            raise Refused(429, "too many games created at once; try again in a few seconds")
        made = self.store.create(game, settings)
        return {
            "code": made.code,
            "seeker_token": made.seeker_token,
            "hider_token": made.hider_token,
            "links": {
                model.SEEKER: f"/#game={made.code}&token={made.seeker_token}",
                model.HIDER: f"/#game={made.code}&token={made.hider_token}",
            },
        }

    def join(self, code: Any, token: Any) -> dict[str, Any]:
        """The role ``token`` opens in game ``code``, with the game as that role sees it."""
        code, role = self.store.role(code, token)
        game, settings, last = self.store.game(code)
        return {
            "code": code,
            "role": role,
            "last": last,
            "game": model.view(model.as_mapping(game), role),
            "settings": model.view(model.as_mapping(settings), role),
        }

    def post(self, code: str, role: str, message: Any) -> dict[str, Any]:
        """Append the event ``message`` (``{id, event}``) by ``role`` (already joined)."""
        client_id, _event, text = model.check_event(message, role, self.check)
        if not self.posting.allow((code, role)):
            raise Refused(
                429,
                f"too many events: at most {EVENT_RATE:g} a second on average; send "
                "the rest in a moment",
            )
        done = self.store.append(code, role, client_id, text)
        return {"seq": done.event.seq, "id": client_id, "duplicate": done.duplicate}

    def read(self, code: str, role: str, since: Any, limit: Any = READ_BATCH) -> dict[str, Any]:
        """The events after number ``since`` (at most ``limit``) as ``role`` sees them."""
        since, limit = whole(since, "since", 0), whole(limit, "limit", 1, READ_BATCH)
        events = self.store.since(code, since, limit)
        last = self.store.last(code)
        return {"code": code, "role": role, "last": last, "events": [e.view(role) for e in events]}


def whole(value: Any, name: str, low: int, high: int = 2**53) -> int:
    """``value`` (a number or its text) as a whole number in [low, high]; Refused 400."""
    if isinstance(value, str) and value.isdigit() and len(value) < 17:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused(400, f"{name} must be a whole number from {low} to {high}")
    return value
