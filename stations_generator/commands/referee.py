"""The ``referee`` command group: keep a round's game log and say where the game stands.

``referee start`` writes a new log, ``referee record`` appends one event if the house
rules allow it (else one ``error:`` line, exit non-zero, the log untouched), ``referee
state`` replays the log to a moment; ``referee check-curse`` checks a curse's map
condition. The text (no wider than a phone's terminal) or ``--json`` goes to stdout.
See docs/referee.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from stations_generator.app import referee as app
from stations_generator.commands.lazy_group import LazyGroup
from stations_generator.commands.options import CONTEXT
from stations_generator.core.referee.events import EVENT_FIELDS, EVENT_KINDS, FREE_QUESTIONS
from stations_generator.core.referee.state import GameState, LedgerRow
from stations_generator.errors import InputError
from stations_generator.formats import gamelog, jsonio

__all__ = ["referee"]

#: Subcommands living in other modules, imported when used.
_LAZY = {"check-curse": "stations_generator.commands.referee_curses:check_curse"}


class _Group(LazyGroup):
    """The group, with the lazily imported subcommands of :data:`_LAZY`."""

    lazy = _LAZY


@click.group(cls=_Group, context_settings=CONTEXT)  # the main group turns UserErrors into one line
def referee() -> None:
    """Referee a round by the JLTG.EU house rules: a game log, checked event by event.

    \b
    Example:
      stations-generator referee start day1.json --size L --game game.json
      stations-generator referee record day1.json hiding-started --at 09:37
      stations-generator referee state day1.json --at 11:00

    See docs/referee.md for the events and the rules checked.
    """


@referee.command(context_settings=CONTEXT)
@click.argument("log", type=click.Path(path_type=Path))
@click.option(
    "--size",
    type=click.Choice(["S", "M", "L"], case_sensitive=False),
    help="Game size [default: the game file's].",
)
@click.option("--game", type=click.Path(path_type=Path), help="The game's GAME.json.")
@click.option(
    "--cards",
    default="jltg-eu",
    show_default=True,
    help='The hider\'s card file: "jltg-eu" (shipped), a TOML path, or "none".',
)
@click.option("--setup", help="A game setup of the card file (cards removed from the deck).")
@click.option(
    "--rules",
    type=click.Choice(["jltg-eu", "official"]),
    default="jltg-eu",
    show_default=True,
    help="Rule set of the questions' legality (tentacles radii).",
)
@click.option(
    "--max-hours",
    type=click.FloatRange(min=0, min_open=True),
    help="Maximum game time in hours [default: 9 in L games, none in S and M].",
)
@click.option("--hand", help="Cards the hider starts with: ids, comma-separated.")
@click.option(
    "--from-log",
    type=click.Path(path_type=Path),
    help="The previous round's log: its settings, and this round starts after it ended.",
)
@click.option(
    "--carry-hand", is_flag=True, help="Start with the hand the --from-log round ended with."
)
@click.option("--force", is_flag=True, help="Start the log over if it exists.")
def start(
    log: Path,
    size: str | None,
    game: Path | None,
    cards: str,
    setup: str | None,
    rules: str,
    max_hours: float | None,
    hand: str | None,
    from_log: Path | None,
    carry_hand: bool,
    force: bool,
) -> None:
    """Start a game log LOG (a JSON file) for one round.

    \b
    Examples:
      stations-generator referee start day1.json --size L --game game.json
      stations-generator referee start day1.json --game game.json \\
        --setup germany-2026-07 --hand curse-of-the-bridge-troll
      stations-generator referee start round2.json --from-log round1.json
    """
    app.start_log(
        log,
        size=size.upper() if size else None,
        game=game,
        cards=None if cards.lower() == "none" else cards,
        setup=setup,
        rules=rules,
        max_game_minutes=None if max_hours is None else max_hours * 60,
        force=force,
        hand=_ids(hand),
        from_log=from_log,
        carry_hand=carry_hand,
    )
    click.echo(f"started {log.name}; record events with `referee record {log} EVENT`")


def _ids(text: str | None) -> list[str]:
    return [] if not text else [p.strip() for p in text.split(",") if p.strip()]


_WORDS_HELP = (
    "radius 1 km | thermometer 400 m | tentacles museum [2 km] | matching library | "
    "matching zone 8 | measuring coastline | measuring border 2 | photo tree [end]"
)


def _question(text: str | None, points: dict[str, str | None]) -> dict[str, Any] | None:
    """``--question``: words (with ``--seeker``, or ``--start`` and ``--end``), JSON, or
    ``@FILE`` holding the JSON."""
    if text is None:
        if any(points.values()):
            raise InputError("--seeker, --start and --end go with --question; give it")
        return None
    source = "--question"
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise InputError(f"--question {text}: no such file; give @FILE or the JSON itself")
        text, source = path.read_text(encoding="utf-8"), path.name
    if not text.lstrip().startswith("{"):
        return _question_words(text, points)
    if any(points.values()):
        raise InputError("--seeker, --start and --end go with a question in words, not JSON")
    data = jsonio.loads(text, source, "a question")
    if not isinstance(data, dict):
        raise InputError(f'{source}: a question is a JSON object, e.g. {{"type": "radius", …}}')
    return data


def _question_words(text: str, points: dict[str, str | None]) -> dict[str, Any]:
    """A GAME.json question from words such as ``radius 1 km`` (see :data:`_WORDS_HELP`)."""
    kind, _, rest = text.strip().partition(" ")
    kind, rest = kind.lower(), rest.strip()
    where = {"thermometer": ("start", "end")}.get(kind, () if kind == "photo" else ("seeker",))
    if kind not in ("radius", "thermometer", "tentacles", "matching", "measuring", "photo"):
        raise InputError(f"--question {text!r}: unknown question; write e.g. {_WORDS_HELP}")
    out: dict[str, Any] = {"type": kind}
    for name in ("seeker", "start", "end"):
        if name in where and not points[name]:
            raise InputError(f"--question {kind}: give --{name} LAT,LON")
        if name not in where and points[name]:
            raise InputError(f"--{name} does not go with a {kind} question")
        if name in where:
            out[name] = points[name]
    words = rest.split()
    if kind in ("radius", "thermometer"):
        if not words:
            raise InputError(f"--question {kind}: give the distance, e.g. {kind} 1 km")
        out["radius" if kind == "radius" else "distance"] = rest
        return out
    if not words:
        raise InputError(f"--question {kind}: give what it is about, e.g. {_WORDS_HELP}")
    subject, extra = words[0], " ".join(words[1:])
    if kind == "photo":
        out["photo"] = subject
        if extra:
            if extra not in ("long", "end"):
                raise InputError(f"--question photo {subject} {extra}: the phase is long or end")
            out["phase"] = extra
        return out
    out["subject"] = subject
    if extra and kind == "tentacles":
        out["radius"] = extra
    elif extra:
        if not extra.isdigit():
            raise InputError(f"--question {text!r}: the level after {subject} is a number")
        out["level"] = int(extra)
    return out


_YES_NO = click.Choice(["yes", "no"])
_OPTION_OF = {
    "id": "--id",
    "question": "--question",
    "answer": "--answer",
    "card": "--card",
    "cards": "--cards",
    "discards": "--discards",
    "paid": "--paid",
    "draws": "--draws",
    "target": "--target",
    "team": "--team",
    "accepted": "--accepted",
    "free": "--free",
    "exit_blue_lines": "--exit-blue-lines",
    "retract": "--retract",
}


def _fields(kind: str, options: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The event's fields from the options; one line naming an option the event does not
    take."""
    points = {k: options.pop(k) for k in ("seeker", "start", "end")}
    fields: dict[str, Any] = {
        "id": options["qid"],
        "question": _question(options["question"], points),
        "answer": options["answer"],
        "card": options["card"],
        "target": options["target"],
        "team": options["team"],
        "free": options["free"],
        **{k: _ids(options[k]) or None for k in ("cards", "discards", "paid", "draws")},
        **{
            k: None if options[k] is None else options[k] == "yes"
            for k in ("accepted", "exit_blue_lines", "retract")
        },
    }
    takes = EVENT_FIELDS[kind]
    for key, value in fields.items():
        if value is not None and key not in takes:
            also = ", ".join(_OPTION_OF[k] for k in takes) or "only --at and --note"
            raise InputError(f"{_OPTION_OF[key]} is not for {kind}; it takes {also}")
    if fields["id"] is None:
        fields["id"] = app.default_question_id(kind, fields["question"], data)
    return {k: v for k, v in fields.items() if v is not None and k in takes}


def _event(kind: str, at: str, options: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The event ``record`` appends, from its options (ids filled in where obvious)."""
    event: dict[str, Any] = {"at": at, "event": kind, **_fields(kind, options, data)}
    if options["note"] is not None:
        event["note"] = options["note"]
    return event


@referee.command(context_settings=CONTEXT)
@click.argument("log", type=click.Path(path_type=Path))
@click.argument("event", metavar="EVENT", type=click.Choice(EVENT_KINDS))
@click.option("--at", "at", help="When: HH:MM on the log's day, or an ISO time [default: now].")
@click.option(
    "--id", "qid", help="The question's id [default: q1, q2, …; an answer: the last asked]."
)
@click.option("--question", help="The question in words (see above), GAME.json JSON, or @FILE.")
@click.option("--seeker", help="Where the seekers asked: LAT,LON (a question in words).")
@click.option("--start", help="A thermometer's start: LAT,LON (a question in words).")
@click.option("--end", help="A thermometer's end: LAT,LON (a question in words).")
@click.option("--answer", help="The hider's answer (within, hotter, same, closer, sent, …).")
@click.option("--card", help="The card played (an id such as veto-question).")
@click.option("--cards", help="Cards drawn, kept, discarded or replaced: ids, comma-separated.")
@click.option("--discards", help="Cards discarded with a played power-up.")
@click.option("--paid", help="Cards discarded as a curse's casting cost.")
@click.option("--draws", help="Cards a played power-up drew, or drawn to replace --cards.")
@click.option("--target", help="The card a Duplicate Another Card duplicates.")
@click.option("--team", type=click.Choice(["seekers", "hider", "both"]), help="Lunch: whose.")
@click.option("--accepted", type=_YES_NO, help="A hint: accepted by the seekers (yes) or not.")
@click.option("--free", type=click.Choice(list(FREE_QUESTIONS)), help="Which free question.")
@click.option("--exit-blue-lines", type=_YES_NO, help="blue-lines: must the seekers exit them?")
@click.option("--retract", type=_YES_NO, help="A larger randomised thermometer: retracted?")
@click.option("--note", help="A note kept with the event.")
@click.option("--json", "as_json", is_flag=True, help="Print the state after it as JSON.")
def record(log: Path, event: str, at: str | None, as_json: bool, **options: Any) -> None:
    """Record EVENT in LOG if the house rules allow it; else say why and write nothing.

    \b
    A question in words: radius 1 km, thermometer 400 m (with --start and --end),
    tentacles museum [2 km], matching library, matching zone 8, measuring coastline,
    measuring border 2, photo tree [long|end]; all but photos with --seeker LAT,LON.

    \b
    Examples:
      stations-generator referee record day1.json seeking-started --at 10:00
      stations-generator referee record day1.json question-asked --at 10:12 \\
        --question "radius 1 km" --seeker 60.17,24.94
      stations-generator referee record day1.json question-answered --answer within
      stations-generator referee record day1.json cards-drawn --cards time-bonus-5,move
      stations-generator referee record day1.json cards-replaced \\
        --cards curse-of-the-touristic-consumerism --draws time-bonus-10
      stations-generator referee record day1.json question-answered --card veto-question
      stations-generator referee record day1.json question-answered \\
        --card duplicate-another-card --target veto-question
      stations-generator referee record day1.json question-answered \\
        --card randomize-question --question "thermometer 1 km" \\
        --start 60.17,24.94 --end 60.16,24.95 --retract no
      stations-generator referee record day1.json hint-given --accepted yes
      stations-generator referee record day1.json free-question --free blue-lines \\
        --exit-blue-lines no --answer yes
      stations-generator referee record day1.json lunch-started --team seekers
    """
    data = gamelog.read_log(log)
    when = app.now_for(data) if at is None else app.parse_at(at, data)
    state = app.record_event(log, _event(event, when.isoformat(), options, data))
    if as_json:
        click.echo(json.dumps(state.to_dict(), indent=2, sort_keys=True))
        return
    click.echo(f"recorded {event} at {when:%H:%M} in {log.name}")
    for line in state_text(state, brief=len(data["events"]) + 1):
        click.echo(line)


@referee.command(context_settings=CONTEXT)
@click.argument("log", type=click.Path(path_type=Path))
@click.option("--at", "at", help="When: HH:MM on the log's day, or an ISO time [default: now].")
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
def state(log: Path, at: str | None, as_json: bool) -> None:
    """Replay LOG and show the round at a moment: clock, open question, costs, cards.

    \b
    Example:
      stations-generator referee state examples/referee/helsinki-log.json --at 10:30
    """
    data = gamelog.read_log(log)
    result = app.log_state(log, None if at is None else app.parse_at(at, data))
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, sort_keys=True))
        return
    for line in state_text(result):
        click.echo(line)


# --- the text ---------------------------------------------------------------------------


def _mins(value: float | None) -> str:
    if value is None:
        return "-"
    h, m = divmod(round(value), 60)
    return f"{h} h {m:02d}" if h else f"{m} min"


def _row(r: LedgerRow) -> str:
    got = f"{r.answer}" if r.answer else (r.card or "open")
    times = f" ×{r.times_asked}" if r.times_asked > 1 else ""
    return f"  {r.id} {r.asked_at:%H:%M} {r.label}{times}: draw {r.draw} pick {r.pick} — {got}, {r.reward}"


def state_text(s: GameState, brief: int = 0) -> list[str]:
    """The state as short lines (a phone's width).

    ``brief`` (the number of the event just recorded): the clock, the open question,
    the hand, and only the warnings about that event.
    """
    c = s.clock
    lines = [f"{c.at:%H:%M} {s.size} game, {c.phase}"]
    if c.hiding_left_min:
        lines.append(f"hiding time left {_mins(c.hiding_left_min)} (ends {c.hiding_ends:%H:%M})")
    if c.seeking_started is not None:
        lines.append(
            f"game time {_mins(c.game_min)} (breaks {_mins(c.breaks_min)}, paused "
            f"{_mins(c.paused_min)})"
            + (f"; round ends {c.round_ends:%H:%M}" if c.round_ends else "")
        )
    if c.total_min is not None and c.phase in ("found", "over"):
        lines.append(f"total time {_mins(c.total_min)} (bonuses {_mins(c.bonus_min)})")
    if c.lunch:
        lines.append("lunch " + ", ".join(f"{t} {a:%H:%M}" for t, a in sorted(c.lunch.items())))
    q = s.open_question
    if q is not None:
        lines.append(f"open: {q.id} {q.label}, answer due {q.deadline:%H:%M}")
    if s.thermometer:
        lines.append(f"thermometer {s.thermometer['id']} running")
    lines.append("can ask now" if s.can_ask else "cannot ask: " + s.cannot_ask_because[0])
    if not brief:
        if s.ledger:
            lines.append("questions:")
            lines.extend(_row(r) for r in s.ledger)
        for h in s.hints:
            lines.append(
                f"hint {h.at:%H:%M}: {'accepted' if h.accepted else 'unasked'}, {h.reward}"
            )
        for f in s.free_questions:
            exits = {True: ", they must exit the blue lines", False: ""}.get(f.exit_blue_lines, "")
            answer = f" — {f.answer}" if f.answer else ""
            lines.append(f"free {f.at:%H:%M}: {f.question}{answer}{exits}")
        lines.append("next question costs:")
        for n in s.next_costs:
            what = f"draw {n.draw} pick {n.pick}" if n.allowed else "not allowed"
            lines.append(f"  {n.label}: {what}" + (f" ({n.note})" if n.note else ""))
        lines.extend(_cards_text(s))
    elif s.cards is not None:
        lines.append(f"hand {len(s.cards.hand)}, rewards owed {s.cards.pending_rewards}")
    warnings = [w for w in s.warnings if not brief or w.startswith(f"event {brief} (")]
    lines.extend(f"warning: {w}" for w in warnings)
    if len(warnings) < len(s.warnings):
        lines.append(f"({len(s.warnings) - len(warnings)} earlier warnings: see `referee state`)")
    return lines


def _cards_text(s: GameState) -> list[str]:
    if s.cards is None:
        return []
    k = s.cards
    out = [
        f"hand ({len(k.hand)}/{k.hand_limit if k.hand_limit is not None else '∞'}): "
        + (", ".join(k.hand) or "empty"),
        f"deck {k.deck}, discard pile {k.discard}, rewards owed {k.pending_rewards}",
    ]
    for curse in k.curses:
        ends = curse["times_out_at"]
        veto = curse["veto_min"]
        out.append(
            f"curse {curse['card']} since {curse['cast_at']:%H:%M}"
            + (f", times out {ends:%H:%M}" if ends else "")
            + (f", veto now {veto} min" if veto is not None else ", no veto")
        )
    if k.blocks:
        out.append("blocked: " + ", ".join(k.blocks))
    return out
