"""The shared-game use cases behind the HTTP API and the WebSocket: create, join, post, read.

Each method is synchronous (the stores are), checks what it is given and raises
:class:`~.model.Refused` with the status and reason a phone is shown. Posting is bounded
per game and role (:data:`EVENT_RATE`), creating per server (:data:`CREATE_RATE`).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stations_generator.errors import InputError
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
#: A game's stations may name a station map built on the page: ``generated:KEY``.
GENERATED = "generated:"
#: A kept station map's ``stations.geojson``: as large as a shared game's file may be.
MAX_MAP_BYTES = model.MAX_GAME_BYTES


@dataclass(frozen=True)
class GameRules:
    """The rules a game's events are checked against, when its settings carry them.

    A game created with ``settings.referee`` (a game log without its events: size, rules,
    cards, …) has every new event replayed after the ones before it; an event the rules
    do not allow is refused (422) with the rule's line.

    Parameters
    ----------
    header : callable
        ``header(settings["referee"])`` -> the checked settings; InputError if unusable.
    check : callable
        ``check(header, events_so_far, event)``; InputError naming the rule to refuse it.
    """

    header: Callable[[Any], dict[str, Any]]
    check: Callable[[dict[str, Any], list[dict[str, Any]], dict[str, Any]], None]


class SharedGames:
    """The shared games of one server.

    Parameters
    ----------
    store : GameStore
        Where the games are kept.
    check : EventCheck
        The check of an event's content on its own.
    rules : GameRules, optional
        The check of an event against the game's events so far (the referee's), for the
        games whose settings carry it.
    maps : callable, optional
        ``maps(key)`` -> the ``stations.geojson`` text of the station map ``key`` the
        page built (None: not on this server): a game naming ``generated:KEY`` keeps it
        in the store, so the game outlives a restart [default: such games are refused].
    """

    def __init__(
        self,
        store: GameStore,
        check: EventCheck = model.basic_event_check,
        rules: GameRules | None = None,
        maps: Callable[[str], str | None] | None = None,
    ) -> None:
        self.store = store
        self.check = check
        self.rules = rules
        self.maps = maps
        self.posting = RateLimits(EVENT_RATE, EVENT_BURST)
        self.creating = RateLimit(CREATE_RATE, CREATE_BURST)
        # One post at a time per game while its rules are checked (one process: with
        # several processes on PostgreSQL, two events checked at once may both pass).
        self._checking: dict[str, threading.Lock] = {}
        self._locks = threading.Lock()

    def create(self, body: Any) -> dict[str, Any]:
        """``{game, settings?}`` -> ``{code, seeker_token, hider_token, links}``.

        The links open the page on the game; the token is in the fragment (``#``), which
        a browser sends to no server and puts in no Referer.
        """
        game, settings = model.check_game(body)
        referee = json.loads(settings).get("referee")
        if referee is not None:
            if self.rules is None:
                raise Refused(400, "this server checks no game rules: leave out settings.referee")
            try:
                self.rules.header(referee)
            except InputError as exc:
                raise Refused(400, str(exc)) from None
        if not self.creating.allow():
            raise Refused(429, "too many games created at once; try again in a few seconds")
        self._keep_map(body["game"].get("stations"))
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

    def _keep_map(self, stations: Any) -> None:
        """Keep the station map a game names (``generated:KEY``) in the store; Refused
        when this server no longer has it or it is too large."""
        if not isinstance(stations, str) or not stations.startswith(GENERATED):
            return
        key = stations[len(GENERATED) :]
        text = self.maps(key) if self.maps is not None else None
        if text is None:
            text = self.store.kept_map(key) if re.fullmatch(r"[0-9a-f]{64}", key) else None
            if text is not None:
                return  # kept already (a game started from the same map)
            raise Refused(
                409,
                "the station map this game names is no longer on the server; build it "
                "again on the station map page and start the game from it",
            )
        if len(text.encode("utf-8")) > MAX_MAP_BYTES:
            raise Refused(
                413,
                f"this game's station map is larger than the {MAX_MAP_BYTES // 1024**2} MiB "
                "a shared game may keep; download stations.geojson, start serve with "
                "--file stations.geojson and share a game file naming it",
            )
        self.store.keep_map(key, text)

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
        header = self._rules_of(code)
        if header is None:
            done = self.store.append(code, role, client_id, text)
        else:
            with self._lock_of(code):
                self._check_rules(code, header, client_id, _event)
                done = self.store.append(code, role, client_id, text)
        return {"seq": done.event.seq, "id": client_id, "duplicate": done.duplicate}

    def _rules_of(self, code: str) -> dict[str, Any] | None:
        """The game's referee settings, when this server checks rules and it has them."""
        if self.rules is None:
            return None
        return json.loads(self.store.game(code)[1]).get("referee")

    def _lock_of(self, code: str) -> threading.Lock:
        with self._locks:
            return self._checking.setdefault(code, threading.Lock())

    def _check_rules(
        self, code: str, header: dict[str, Any], client_id: str, event: dict[str, Any]
    ) -> None:
        """Refused 422 with the rule's line when the rules do not allow ``event`` now
        (an event sent again is not checked again: the store answers it as a duplicate)."""
        so_far: list[dict[str, Any]] = []
        seq = 0
        while batch := self.store.since(code, seq, READ_BATCH):
            if any(e.client_id == client_id for e in batch):
                return
            so_far += [json.loads(e.body) for e in batch]
            seq = batch[-1].seq
        try:
            self.rules.check(header, so_far, event)  # type: ignore[union-attr]
        except InputError as exc:
            raise Refused(422, str(exc)) from None

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
