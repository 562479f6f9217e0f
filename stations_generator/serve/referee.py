"""The referee on the page: a round's game log kept by the browser, checked by the server.

The service is stateless. The page keeps the log (a game log as ``referee start`` writes
it, :mod:`stations_generator.formats.gamelog`) and sends it whole with each request; the
server replays it with the CLI's code (:func:`stations_generator.app.referee.replay_log`,
the same rule checks as ``referee record`` and ``referee state``) and answers the state
as JSON, or a 4xx with the one line naming the rule an event breaks.

The server opens no file a request names: a log's ``cards`` must be the shipped deck
(``"jltg-eu"``) or none — any other card file is refused — and its ``game`` (a GAME.json
path the CLI keeps) and ``previous.log`` (the previous round's log) are kept in the log
but never read (the referee prices the questions from the log alone). A log is at most
:data:`MAX_LOG_BYTES` and :data:`MAX_EVENTS` events.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from stations_generator.app import referee as app
from stations_generator.core.questions.photos import PHOTO_KINDS
from stations_generator.core.referee.events import ANSWER_CARDS, EVENT_KINDS, FREE_QUESTIONS
from stations_generator.errors import InputError
from stations_generator.formats import gamelog
from stations_generator.formats.cardfile import SHIPPED, read_card_file
from stations_generator.serve.shared.model import HIDER_KEYS

#: The largest request the referee routes read: a long day's log is a few hundred kB
#: (formats/gamelog.py), so 2 MiB leaves room for several days.
MAX_LOG_BYTES = 2 * 1024**2
#: A day's log has a few hundred events; each request replays all of them.
MAX_EVENTS = 5000
#: The one card deck the page uses (a card file path from a request is never opened).
DECK = "jltg-eu"
#: Where the replay would look for a card file named by path: nowhere (no folder there).
#: Only shipped decks reach the replay, so nothing is ever looked up under it.
_NO_FOLDER = Path(os.devnull)
#: Fields of ``start`` besides the size.
_START_FIELDS = ("size", "rules", "setup", "cards", "hand", "max_game_minutes", "max_hours", "note")


def _object(body: Any, what: str, example: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InputError(f"{what} must be a JSON object, e.g. {example}")
    return body


def checked_log(raw: Any) -> dict[str, Any]:
    """A log sent by the page, checked: schema, size, the shipped card deck only.

    Parameters
    ----------
    raw : Any
        The ``log`` of a request body.

    Returns
    -------
    dict
        The log as sent (its ``game`` path kept but never opened).

    Raises
    ------
    InputError
        One line: not a log, too large, or naming a card file by path.
    """
    log = _object(raw, "log", '{"format": "stations-generator/game-log", …}')
    size = len(json.dumps(log, ensure_ascii=False).encode("utf-8"))
    if size > MAX_LOG_BYTES:
        raise InputError(
            f"the game log is {size / 1024**2:.1f} MiB, more than the "
            f"{MAX_LOG_BYTES // 1024**2} MiB the page accepts; start a new log for a new round"
        )
    events = log.get("events")
    if isinstance(events, list) and len(events) > MAX_EVENTS:  # before the schema's walk
        raise InputError(
            f"the log has {len(events)} events, more than the {MAX_EVENTS} accepted for "
            "one round; start a new log for a new round"
        )
    gamelog.check_log(log, "the log")
    cards = log.get("cards")
    if cards is not None and cards not in SHIPPED:
        raise InputError(
            f"the log's cards name a card file ({str(cards)[:80]!r}); the page uses the "
            f'shipped deck only: set "cards": "{DECK}" (or null), or use `referee` on the CLI'
        )
    return log


def _replay(log: dict[str, Any], at: datetime | None) -> dict[str, Any]:
    """The state of a checked log at ``at`` (None: its last event), as JSON."""
    # The game file is the CLI's: never read here (its name may be any path).
    state = app.replay_log({**log, "game": None}, _NO_FOLDER, "the log", at)
    return state.to_dict()


def _default_at(log: dict[str, Any]) -> datetime:
    """Now (or the last event, if later); a round whose hider was found: that moment.

    The same moment as ``referee state`` without ``--at`` (app.referee.log_state).
    """
    last = gamelog.parse_time(log["events"][-1]["at"], "the last event")
    if log["events"][-1]["event"] == "hider-found":
        return last
    return max(app.now_for(log), last)


def _at(text: Any, log: dict[str, Any], what: str) -> datetime:
    if not isinstance(text, str) or len(text) > 64:
        raise InputError(f'{what} must be a time: "HH:MM" or ISO, e.g. "2026-07-10T10:30:00+02:00"')
    return app.parse_at(text, log)


def check_shared_event(header: dict[str, Any], events: list[dict[str, Any]], event: dict) -> None:
    """Refuse a shared game's new event that the house rules do not allow.

    Parameters
    ----------
    header : dict
        The game's referee settings: a game log without its events (size, rules,
        cards, setup, …), as ``referee start`` writes it.
    events : list of dict
        The game's events so far, in the server's order (those that are not game-log
        events, such as positions, are left out of the replay).
    event : dict
        The new event; one that is not a game-log event is not checked.

    Raises
    ------
    InputError
        The one line naming the rule the event breaks (or what is wrong with it).
    """
    if event.get("event") not in EVENT_KINDS:
        return  # not a referee event (e.g. a position): the game log does not hold it
    referee_events = [_log_event(e) for e in events if e.get("event") in EVENT_KINDS]
    log = checked_log({**header, "events": [*referee_events, _log_event(event)]})
    try:
        _replay(log, None)
    except InputError as exc:
        raise InputError(f"{exc}; not recorded") from None


def _log_event(event: dict[str, Any]) -> dict[str, Any]:
    """A shared game's event as the game log holds it: without the hider's position and
    the privacy marks the server adds for the seekers' view (not the rules' business)."""
    return {k: v for k, v in event.items() if k not in HIDER_KEYS and k != "private"}


def referee_header(raw: Any) -> dict[str, Any]:
    """A shared game's referee settings, checked: a game log without events."""
    header = _object(raw, "settings.referee", '{"format": "stations-generator/game-log", …}')
    if "events" in header:
        raise InputError("settings.referee is a game log without its events: leave out events")
    checked_log({**header, "events": []})
    return header


class RefereeService:
    """The referee's API on a log the page sends: start, record, state, the card deck."""

    def cards(self) -> dict[str, Any]:
        """The shipped deck for the page's pickers: card ids, names, kinds, counts.

        Returns
        -------
        dict
            ``{"deck", "cards": [{"id", "name", "kind", "count"}], "setups",
            "events", "answer_cards", "photos": [{"id", "name", "sizes"}],
            "free_questions": [{"id", "words"}]}``.
        """
        return _deck()

    def start(self, body: Any) -> dict[str, Any]:
        """A new log with no events: ``{size, rules?, setup?, cards?, hand?, max_hours?}``.

        ``cards`` is ``"jltg-eu"`` (default) or null; ``hand`` card ids the hider starts
        with; ``max_hours`` (or ``max_game_minutes``) the maximum game time (default 9 h
        in L games).

        Returns
        -------
        dict
            ``{"log": the new log, "state": its state now}``.
        """
        body = _object(body, "the request", '{"size": "M"}')
        unknown = sorted(set(body) - set(_START_FIELDS))
        if unknown:
            raise InputError(
                f"unknown field {unknown[0][:40]!r}; a start takes {', '.join(_START_FIELDS)}"
            )
        size = body.get("size")
        if not isinstance(size, str) or size.upper() not in ("S", "M", "L"):
            raise InputError('give the game size: "size": "S", "M" or "L"')
        minutes = body.get("max_game_minutes")
        hours = body.get("max_hours")
        if hours is not None:
            if isinstance(hours, bool) or not isinstance(hours, (int, float)) or hours <= 0:
                raise InputError("max_hours must be a number of hours above 0, e.g. 9")
            minutes = hours * 60
        hand = body.get("hand") or []
        if not isinstance(hand, list) or not all(isinstance(c, str) for c in hand):
            raise InputError('hand must be a list of card ids, e.g. ["time-bonus-5"]')
        log = gamelog.new_log(
            size.upper(),
            rules=body.get("rules") or "jltg-eu",
            cards=body.get("cards", DECK),
            setup=body.get("setup") or None,
            max_game_minutes=minutes,
            **({"hand": hand} if hand else {}),  # a starting hand, e.g. a setup's house card
        )
        if body.get("note"):
            log["note"] = body["note"]
        log = checked_log(log)
        return {"log": log, "state": _replay(log, app.now_for(log))}

    def state(self, body: Any) -> dict[str, Any]:
        """The state of ``{"log", "at"?}`` (``referee state --json``).

        ``at``: ``HH:MM`` on the log's day or an ISO time; default now (a round whose
        hider was found: that moment), as ``referee state``.
        """
        body = _object(body, "the request", '{"log": {…}, "at": "10:30"}')
        log = checked_log(body.get("log"))
        at = body.get("at")
        if at is None:
            if not log["events"]:
                return _replay(log, app.now_for(log))
            return _replay(log, _default_at(log))
        return _replay(log, _at(at, log, "at"))

    def record(self, body: Any) -> dict[str, Any]:
        """Append ``{"log", "event"}``'s event if the house rules allow it.

        The event is as in a log (``{"event": "question-asked", "question": …}``);
        ``at`` may be ``HH:MM`` or left out (now), a question id is filled in as
        ``referee record`` fills it.

        Returns
        -------
        dict
            ``{"log": the log with the event, "state": the state after it}``.

        Raises
        ------
        InputError
            The one line naming the rule the event breaks; the log is not changed.
        """
        body = _object(body, "the request", '{"log": {…}, "event": {"event": "seeking-started"}}')
        log = checked_log(body.get("log"))
        event = dict(_object(body.get("event"), "event", '{"event": "seeking-started"}'))
        when = app.now_for(log) if event.get("at") is None else _at(event["at"], log, "event at")
        event["at"] = when.isoformat()
        if "id" not in event:  # filled in as `referee record` fills it
            qid = app.default_question_id(str(event.get("event")), event.get("question"), log)
            if qid is not None:
                event["id"] = qid
        new = gamelog.append_event(log, event)
        new = checked_log(new)
        try:
            # The whole log replayed, the new event last: an event out of order is refused.
            state = _replay(new, None)
        except InputError as exc:
            raise InputError(f"{exc}; not recorded") from None
        return {"log": new, "state": state}


@cache
@cache
def _deck() -> dict[str, Any]:
    deck = read_card_file(DECK)
    return {
        "deck": DECK,
        "name": deck.name,
        "cards": [
            {"id": c.id, "name": c.name, "kind": c.kind, "count": c.count}
            for c in deck.cards.values()
        ],
        "setups": list(deck.setups),
        "events": list(EVENT_KINDS),
        "answer_cards": list(ANSWER_CARDS),
        "photos": [{"id": k.id, "name": k.name, "sizes": k.sizes} for k in PHOTO_KINDS.values()],
        "free_questions": [{"id": k, "words": v} for k, v in FREE_QUESTIONS.items()],
    }


__all__ = [
    "DECK",
    "MAX_EVENTS",
    "MAX_LOG_BYTES",
    "RefereeService",
    "check_shared_event",
    "checked_log",
    "referee_header",
]
