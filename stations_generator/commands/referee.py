"""The ``referee`` command group: keep a round's game log and say where the game stands.

``referee start`` writes a new log, ``referee record`` appends one event if the house
rules allow it (else one ``error:`` line, exit non-zero, the log untouched), ``referee
state`` replays the log to a moment; ``referee check-curse`` checks a curse's map
condition. The text (no wider than a phone's terminal) or ``--json`` goes to stdout.
See docs/referee.md.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import click

from stations_generator.app import referee as app
from stations_generator.commands.options import CONTEXT
from stations_generator.core.referee.events import EVENT_KINDS
from stations_generator.core.referee.state import GameState, LedgerRow
from stations_generator.errors import InputError
from stations_generator.formats import gamelog, jsonio

__all__ = ["referee"]

#: Subcommands living in other modules, imported when used.
_LAZY = {"check-curse": "stations_generator.commands.referee_curses:check_curse"}


class _Group(click.Group):
    """The group, with the lazily imported subcommands of :data:`_LAZY`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _LAZY and cmd_name not in self.commands:
            module, _, name = _LAZY[cmd_name].partition(":")
            self.add_command(getattr(importlib.import_module(module), name), cmd_name)
        return super().get_command(ctx, cmd_name)


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
@click.option("--force", is_flag=True, help="Start the log over if it exists.")
def start(
    log: Path,
    size: str | None,
    game: Path | None,
    cards: str,
    setup: str | None,
    rules: str,
    max_hours: float | None,
    force: bool,
) -> None:
    """Start a game log LOG (a JSON file) for one round.

    \b
    Example:
      stations-generator referee start day1.json --size L --game game.json
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
    )
    click.echo(f"started {log.name}; record events with `referee record {log} EVENT`")


def _ids(text: str | None) -> list[str]:
    return [] if not text else [p.strip() for p in text.split(",") if p.strip()]


def _question(text: str | None) -> dict[str, Any] | None:
    """``--question``: JSON, or ``@FILE`` holding it."""
    if text is None:
        return None
    source = "--question"
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise InputError(f"--question {text}: no such file; give @FILE or the JSON itself")
        text, source = path.read_text(encoding="utf-8"), path.name
    data = jsonio.loads(text, source, "a question")
    if not isinstance(data, dict):
        raise InputError(f'{source}: a question is a JSON object, e.g. {{"type": "radius", …}}')
    return data


def _event(kind: str, at: str, options: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The event ``record`` appends, from its options (ids filled in where obvious)."""
    event: dict[str, Any] = {"at": at, "event": kind}
    question = _question(options["question"])
    qid = options["qid"]
    if qid is None and kind in ("question-asked", "thermometer-started"):
        running = app.running_thermometer(data)
        is_thermo = (question or {}).get("type") == "thermometer"
        qid = running if (running and is_thermo) else app.next_question_id(data)
    elif qid is None and kind == "thermometer-cancelled":
        qid = app.running_thermometer(data)
    elif qid is None and kind == "question-answered":
        qid = app.open_question_id(data)
    fields = {
        "id": qid,
        "question": question,
        "answer": options["answer"],
        "card": options["card"],
        "target": options["target"],
        "team": options["team"],
        "note": options["note"],
    }
    event.update({k: v for k, v in fields.items() if v is not None})
    for key in ("cards", "discards", "paid", "draws"):
        if options[key]:
            event[key] = _ids(options[key])
    return event


@referee.command(context_settings=CONTEXT)
@click.argument("log", type=click.Path(path_type=Path))
@click.argument("event", metavar="EVENT", type=click.Choice(EVENT_KINDS))
@click.option("--at", "at", help="When: HH:MM on the log's day, or an ISO time [default: now].")
@click.option(
    "--id", "qid", help="The question's id [default: q1, q2, …; an answer: the last asked]."
)
@click.option("--question", help="The question: GAME.json question JSON, or @FILE.")
@click.option("--answer", help="The hider's answer (within, hotter, same, closer, sent, …).")
@click.option("--card", help="The card played (an id such as veto-question).")
@click.option("--cards", help="Cards drawn, kept or discarded: ids, comma-separated.")
@click.option("--discards", help="Cards discarded with a played power-up.")
@click.option("--paid", help="Cards discarded as a curse's casting cost.")
@click.option("--draws", help="Cards a played power-up drew.")
@click.option("--target", help="The card a Duplicate Another Card duplicates.")
@click.option("--team", type=click.Choice(["seekers", "hider", "both"]), help="Lunch: whose.")
@click.option("--note", help="A note kept with the event.")
@click.option("--json", "as_json", is_flag=True, help="Print the state after it as JSON.")
def record(log: Path, event: str, at: str | None, as_json: bool, **options: Any) -> None:
    """Record EVENT in LOG if the house rules allow it; else say why and write nothing.

    \b
    Examples:
      stations-generator referee record day1.json seeking-started --at 10:00
      stations-generator referee record day1.json question-asked --at 10:12 \\
        --question '{"type": "radius", "seeker": "60.17,24.94", "radius": "1 km"}'
      stations-generator referee record day1.json question-answered --answer within
      stations-generator referee record day1.json cards-drawn --cards time-bonus-5,move
      stations-generator referee record day1.json question-answered --card veto-question
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
