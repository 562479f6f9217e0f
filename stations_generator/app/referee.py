"""Refereeing a round with a game log: start a log, record an event, the state at a time.

The log is a JSON file (:mod:`stations_generator.formats.gamelog`); every use case reads
it whole and replays it (:func:`stations_generator.core.referee.replay.replay`). An event
is recorded only if the log with it still replays under the house rules: a forbidden
event is refused with one line naming the rule, and the file is left as it was (the
new log is written whole and atomically).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from stations_generator.core.referee.cards import CardTable, new_table
from stations_generator.core.referee.replay import replay
from stations_generator.core.referee.state import GameState
from stations_generator.errors import InputError
from stations_generator.formats import gamelog
from stations_generator.formats.cardfile import SHIPPED, read_card_file
from stations_generator.formats.gamefile import read_game_data


def _relative(path: Path, base: Path) -> str:
    """``path`` as the log stores it: relative to the log's folder when it can be."""
    try:
        return Path(path).resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return Path(os.path.relpath(Path(path).resolve(), base.resolve())).as_posix()


def _game_size(game: Path) -> str | None:
    """The ``game_size`` of a GAME.json, if it gives one."""
    data = read_game_data(game)
    size = data.get("game_size") if isinstance(data, dict) else None
    return str(size).upper() if size else None


def start_log(
    path: Path,
    *,
    size: str | None = None,
    game: Path | None = None,
    cards: str | None = "jltg-eu",
    setup: str | None = None,
    rules: str = "jltg-eu",
    max_game_minutes: float | None = None,
    force: bool = False,
    hand: Sequence[str] = (),
    from_log: Path | None = None,
    carry_hand: bool = False,
) -> dict[str, Any]:
    """Write a new game log with no events.

    Parameters
    ----------
    path : Path
        The log file to write.
    size : str, optional
        The game size, S, M or L; default: the game file's ``game_size``.
    game : Path, optional
        The game's GAME.json (stored relative to the log).
    cards : str, optional
        The hider's card file: ``"jltg-eu"`` (shipped) or a path; None: no cards.
    setup : str, optional
        A game setup of the card file (cards removed from the deck).
    rules : str
        The rule set of the questions' legality: ``"jltg-eu"`` or ``"official"``.
    max_game_minutes : float, optional
        The maximum game time; default 9 h in Large games, none in S and M.
    force : bool
        Overwrite an existing log.
    hand : sequence of str
        Card ids the hider starts the round with (taken from the deck), e.g. the house
        card of the Germany 2026 game setup.
    from_log : Path, optional
        The game's previous round: its settings (size, rules, cards, setup, game, maximum
        time) are this round's, its end is kept (the next hiding starts after it), and its
        round must be over. ``size``, ``game``, ``setup`` and ``max_game_minutes`` are then
        not given, and ``cards``/``rules`` only as the previous log has them.
    carry_hand : bool
        With ``from_log``: start with the hand the previous round ended with (the house
        rules do not say the hand carries over; see docs/referee.md).

    Returns
    -------
    dict
        The log written.
    """
    path = Path(path)
    if path.exists() and not force:
        raise InputError(f"{path.name} exists; give another file, or --force to start it over")
    if carry_hand and from_log is None:
        raise InputError("--carry-hand takes the hand of --from-log PREVIOUS; give it")
    if from_log is not None and Path(from_log).resolve() == path.resolve():
        raise InputError(f"--from-log {path.name} is the new log itself; give another file")
    if from_log is not None:
        given = {"--size": size, "--game": game, "--setup": setup, "--max-hours": max_game_minutes}
        named = [k for k, v in given.items() if v is not None]
        if named:
            raise InputError(
                f"{', '.join(named)}: the next round keeps the settings of --from-log "
                f"{Path(from_log).name}; leave them out"
            )
        data = _next_round(Path(from_log), path, cards, rules, list(hand), carry_hand)
        return _write_new(path, data)
    if game is not None and size is None:
        size = _game_size(game)
    if size is None:
        raise InputError("give the game size (--size S, M or L), or a --game file with one")
    base = path.resolve().parent
    if cards is not None and cards not in SHIPPED:
        cards = _relative(Path(cards), base)
    data = gamelog.new_log(
        size.upper(),
        rules=rules,
        cards=cards,
        setup=setup,
        game=None if game is None else _relative(game, base),
        max_game_minutes=max_game_minutes,
        hand=list(hand),
    )
    return _write_new(path, data)


def _write_new(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """Write a new log once its card file, setup and starting hand are readable."""
    _table(data, path.resolve().parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    gamelog.write_log(path, data)
    return data


def _next_round(
    previous: Path, path: Path, cards: str | None, rules: str, hand: list[str], carry: bool
) -> dict[str, Any]:
    """The new log of the round after the log ``previous`` (JLTG.EU house rules, Hiding:
    Small and Medium games; Cards: the discard pile "should be empty at the start of a
    round")."""
    old = gamelog.read_log(previous)
    old_base, base = previous.resolve().parent, path.resolve().parent
    for name, mine, theirs in (("--cards", cards, old.get("cards")), ("--rules", rules, None)):
        theirs = theirs if name == "--cards" else old.get("rules") or "jltg-eu"
        if mine not in ("jltg-eu", theirs):
            raise InputError(
                f"{name} {mine}: the next round keeps {previous.name}'s ({theirs}); leave it out"
            )
    ended, end_hand = _round_end(old, old_base, previous.name)

    def moved(value: str | None) -> str | None:  # a path relative to the old log's folder
        if value is None or value in SHIPPED:
            return value
        return _relative(old_base / value, base)

    number = int((old.get("previous") or {}).get("round", 1)) + 1
    return gamelog.new_log(
        old["size"],
        rules=old.get("rules") or "jltg-eu",
        cards=moved(old.get("cards")),
        setup=old.get("setup"),
        game=moved(old.get("game")),
        max_game_minutes=old.get("max_game_minutes"),
        hand=[*(end_hand if carry else ()), *hand],
        previous={
            "log": _relative(previous, base),
            "ended": ended.isoformat(),
            "round": number,
            "hand": list(end_hand),
        },
    )


def _round_end(data: dict[str, Any], base: Path, source: str) -> tuple[datetime, list[str]]:
    """When the round of a log ended (the hider found, or its maximum game time) and the
    hider's hand then; InputError if it is not over."""
    found = [e["at"] for e in data["events"] if e["event"] == "hider-found"]
    if found:
        ended = gamelog.parse_time(found[0], f"{source}: hider-found")
    else:
        ends = replay_log(data, base, source, None).clock.round_ends if data["events"] else None
        if ends is None or ends > now_for(data):
            raise InputError(f"{source}: its round is not over; record hider-found there first")
        ended = ends
    state = replay_log(data, base, source, max(ended, _last_time(data)))
    return ended, list(state.cards.hand) if state.cards is not None else []


def _last_time(data: dict[str, Any]) -> datetime:
    return gamelog.parse_time(data["events"][-1]["at"], "the last event")


def _table(data: dict[str, Any], base: Path) -> CardTable | None:
    """The hider's cards at the start of the round (None for a log without cards)."""
    source = data.get("cards")
    if source is None:
        if data.get("hand"):
            raise InputError("a starting hand needs the hider's cards; give --cards")
        return None
    card_file = read_card_file(source if source in SHIPPED else base / source)
    excluded = card_file.excluded(data["setup"]) if data.get("setup") else ()
    try:
        return new_table(
            card_file.cards, data["size"], excluded=excluded, hand=data.get("hand", ())
        )
    except ValueError as exc:
        raise InputError(f"card file {card_file.name!r}: {exc}") from None


def replay_log(data: dict[str, Any], base: Path, source: str, at: datetime | None) -> GameState:
    """The state of a (checked) log at ``at``; InputError naming the rule an event breaks."""
    events = gamelog.events_of(data, source)
    if at is None and not events:
        raise InputError(f"{source} has no events yet; record hiding-started first")
    try:
        return replay(events, gamelog.settings_of(data), _table(data, base), at)
    except ValueError as exc:  # RuleViolation, or a card the card file does not have
        raise InputError(f"{source}: {exc}") from None


def record_event(path: Path, event: dict[str, Any]) -> GameState:
    """Append ``event`` to the log at ``path`` if the rules allow it; the state after it.

    The log with the event is replayed first: a forbidden event raises InputError (one
    line naming the rule) and the file is not touched.
    """
    path = Path(path)
    before = path.read_bytes() if path.is_file() else b""
    data = gamelog.read_log(path)
    new = gamelog.append_event(data, event)
    try:
        # The whole log, the new event last: an event out of time order is refused.
        state = replay_log(new, path.resolve().parent, path.name, None)
    except InputError as exc:
        raise InputError(f"{exc}; nothing written") from None
    if path.read_bytes() != before:  # another record in the meantime: do not lose it
        raise InputError(f"{path.name} changed while this event was checked; record it again")
    gamelog.write_log(path, new)
    return state


def log_state(path: Path, at: datetime | None = None) -> GameState:
    """The state of the log at ``path`` at ``at``.

    By default: now (or the last event, if later), and for a round whose hider was
    found, the moment they were found.
    """
    path = Path(path)
    data = gamelog.read_log(path)
    if at is None and data["events"]:
        # Now; a round that is over is shown at its end.
        last = gamelog.parse_time(data["events"][-1]["at"], "the last event")
        ended = data["events"][-1]["event"] == "hider-found"
        at = last if ended else max(now_for(data), last)
    return replay_log(data, path.resolve().parent, path.name, at)


def now_for(data: dict[str, Any]) -> datetime:
    """The time now (to the second), in the time zone of the log's last event."""
    now = datetime.now().astimezone()
    last = _reference_time(data)
    if last is not None:
        now = now.astimezone(last.tzinfo)
    return now.replace(microsecond=0)


def _reference_time(data: dict[str, Any]) -> datetime | None:
    """The log's last event, or (no events yet) the end of the previous round, if any."""
    if data["events"]:
        return gamelog.parse_time(data["events"][-1]["at"], "the last event")
    return gamelog.previous_end(data)


def parse_at(text: str, data: dict[str, Any]) -> datetime:
    """A time from the command line: ISO 8601 with a zone, or ``HH:MM`` on the log's day.

    ``HH:MM`` is on the day, and in the time zone, of the log's last event (a log
    with none yet: of the previous round's end, else today).
    """
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", text)
    if not m:
        return gamelog.parse_time(text, "--at")
    hour, minute = int(m.group(1)), int(m.group(2))
    if hour > 23 or minute > 59:
        raise InputError(f"--at {text!r} is not a time of day; write HH:MM, 24-hour")
    day = _reference_time(data) or now_for(data)
    return day.replace(hour=hour, minute=minute, second=0, microsecond=0)


def next_question_id(data: dict[str, Any]) -> str:
    """The next free question id, ``q1``, ``q2``, …"""
    used = set(gamelog.question_ids(data["events"]))
    k = len(used) + 1
    while f"q{k}" in used:
        k += 1
    return f"q{k}"


def open_question_id(data: dict[str, Any]) -> str | None:
    """The id of the last question asked (the one an answer is most likely about)."""
    ids = [e["id"] for e in data["events"] if e["event"] == "question-asked"]
    return ids[-1] if ids else None


def default_question_id(
    kind: str, question: dict[str, Any] | None, data: dict[str, Any]
) -> str | None:
    """The question id an event of ``kind`` leaves out, as ``referee record`` fills it in.

    A question asked or a thermometer started: the next free id (a thermometer's end:
    the running thermometer's); a thermometer cancelled: the running one; an answer:
    the last question asked; other events: None.
    """
    if kind in ("question-asked", "thermometer-started"):
        running = running_thermometer(data)
        is_thermo = isinstance(question, dict) and question.get("type") == "thermometer"
        return running if (running and is_thermo) else next_question_id(data)
    if kind == "thermometer-cancelled":
        return running_thermometer(data)
    if kind == "question-answered":
        return open_question_id(data)
    return None


def running_thermometer(data: dict[str, Any]) -> str | None:
    """The id of the thermometer started (or retracted, randomised larger) and not yet
    asked or cancelled, if any."""
    running = None
    for e in data["events"]:
        if e["event"] == "thermometer-started":
            running = e.get("id")
        elif e["event"] in ("question-asked", "thermometer-cancelled") and e.get("id") == running:
            running = None
        elif e["event"] == "question-answered" and e.get("retract") is True:
            running = e.get("id")  # a larger randomised thermometer retracted: it runs on
    return running


__all__ = [
    "default_question_id",
    "log_state",
    "next_question_id",
    "now_for",
    "open_question_id",
    "parse_at",
    "record_event",
    "replay_log",
    "running_thermometer",
    "start_log",
]
