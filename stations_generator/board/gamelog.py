"""Game logs (JSON Lines, one action a line) and the referee that runs them.

A log is a header line, then one line per action (docs/board.md has the format)::

    {"start": "K04", "team": 2, "seed": 7}
    {"turn": 0, "fugitive": "STEP", "to": "K05"}
    {"turn": 1, "team": "VAN", "to": ["K05", "K06"]}
    {"turn": 1, "team": "CARD", "card": "hunter", "player": 2, "pawn": 1, "to": ["L06"]}

Within a turn the fugitive's lines are applied first (both sides play at the same
time; a Drone or Calls card is answered from the fugitive's k-th action), then the
team's, then the turn is closed. A log may stop mid-game.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stations_generator.board.model import Board
from stations_generator.board.rules import (
    BoardGame,
    CardSpec,
    HouseRules,
    Observation,
    RuleError,
    TurnResult,
)
from stations_generator.errors import InputError, UserError

__all__ = ["GameLog", "IllegalAction", "parse_log", "read_log", "referee"]

MAX_LOG_BYTES = 50_000_000
MAX_LINES = 100_000
#: A log line is an object holding at most a list ("to"): depth 2; 8 leaves room.
_MAX_DEPTH = 8


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists/objects deeper than ``limit`` (iterative)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return False


class IllegalAction(UserError):
    """An action the rules forbid: ``turn 7, action 3: HITCHHIKE used twice this turn``."""

    exit_code = 6


@dataclass
class LogLine:
    number: int
    turn: int
    side: str  # "fugitive" or "team"
    action: str
    data: dict[str, Any]


@dataclass
class GameLog:
    start: str
    team: int
    seed: int
    lines: list[LogLine] = field(default_factory=list)


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise InputError(f"{where}: {value!r} is not a whole number {lo}–{hi}")
    return value


def parse_log(text: str, label: str = "game log") -> GameLog:
    """Parse a game log's text (one-line :class:`InputError` naming the line on any problem)."""
    rows = text.splitlines()
    if len(rows) > MAX_LINES:
        raise InputError(f"{label} has {len(rows)} lines (at most {MAX_LINES})")
    parsed: list[tuple[int, dict]] = []
    for n, row in enumerate(rows, 1):
        if not row.strip():
            continue
        deep = False
        try:
            obj = json.loads(row, parse_constant=lambda c: math.nan)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{label} line {n} is not JSON ({exc.msg}); write one JSON object per line"
            ) from None
        except RecursionError:  # named just below: far deeper than any log line
            deep = True
        if deep or _depth_over(obj, _MAX_DEPTH):
            raise InputError(
                f"{label} line {n} nests arrays or objects more than {_MAX_DEPTH} deep; "
                'a log line is one flat object such as {"turn": 1, "fugitive": "STEP"}'
            )
        if not isinstance(obj, dict):
            raise InputError(f"{label} line {n} is not a JSON object")
        parsed.append((n, obj))
    if not parsed:
        raise InputError(
            f'{label} is empty; its first line is the header, e.g. {{"start": "K04", "team": 1}}'
        )
    n, head = parsed[0]
    if "start" not in head or not isinstance(head["start"], str):
        raise InputError(
            f'{label} line {n}: the first line is the header with "start" (a coordinate), e.g. {{"start": "K04", "team": 1}}'
        )
    log = GameLog(
        start=head["start"],
        team=_int(head.get("team", 1), f"{label} line {n} team", 1, 3),
        seed=_int(head.get("seed", 0), f"{label} line {n} seed", 0, 2**63 - 1),
    )
    last = 0
    for n, obj in parsed[1:]:
        where = f"{label} line {n}"
        turn = _int(obj.get("turn"), f"{where} turn", 0, 10_000)
        if turn < last:
            raise InputError(f"{where}: turn {turn} after turn {last}; lines must be in turn order")
        last = turn
        sides = [k for k in ("fugitive", "team", "reveal") if k in obj]
        if sides == ["reveal"]:
            if obj["reveal"] is not None and not isinstance(obj["reveal"], str):
                raise InputError(
                    f"{where}: reveal is {obj['reveal']!r}; give a coordinate or null (OFFLINE)"
                )
            log.lines.append(LogLine(n, turn, "reveal", "REVEAL", obj))
            continue
        if len(sides) != 1 or not isinstance(obj[sides[0]], str):
            raise InputError(
                f'{where}: give exactly one of "fugitive": ACTION, "team": ACTION or "reveal": SQUARE'
            )
        log.lines.append(LogLine(n, turn, sides[0], obj[sides[0]], obj))
    return log


def read_log(path: Path) -> GameLog:
    path = Path(path)
    if not path.exists():
        raise InputError(f"game log {path.name!r} does not exist; check the path")
    if path.stat().st_size > MAX_LOG_BYTES:
        raise InputError(f"game log {path.name!r} is larger than {MAX_LOG_BYTES} bytes")
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"game log {path.name!r} is not UTF-8 text") from None
    return parse_log(text, f"game log {path.name!r}")


def _squares(board: Board, value: Any, where: str) -> list[int] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    out = []
    for v in items:
        if not isinstance(v, str):
            raise InputError(f'{where}: "to" holds {v!r}, not a coordinate such as K04')
        out.append(board.square(v, where))
    return out


@dataclass
class Refereed:
    game: BoardGame
    results: list[TurnResult]
    open_turn: int | None  # a turn the log left unfinished


def is_hunters_log(log: GameLog) -> bool:
    """A hunt team's own log: its actions and the reveals, no fugitive lines."""
    return not any(x.side == "fugitive" for x in log.lines) and any(
        x.side == "reveal" for x in log.lines
    )


def hunters_view(board: Board, rules: HouseRules, log: GameLog) -> list[Observation]:
    """The observations of a hunt team's own log (team actions, reveals, card answers).

    Each turn needs one ``{"turn": N, "reveal": "K05"}`` line (``null`` after OFFLINE);
    a Drone card line carries ``"answer": true|false``, a Calls line the column letters
    or row number it was told (``"answer": "F"`` / ``"answer": 5``). The team's actions
    are refereed as in :func:`referee`.

    Parameters
    ----------
    board : Board
    rules : HouseRules
    log : GameLog
        A hunters' log (:func:`is_hunters_log`).

    Returns
    -------
    list of Observation
        One per turn, up to the last turn of the log or the capture.

    Raises
    ------
    IllegalAction
        On a team action the rules forbid.
    InputError
        On a missing or unreadable reveal or card answer.
    """
    game = _new_game(board, rules, log)
    by_turn: dict[int, list[LogLine]] = {}
    for line in log.lines:
        by_turn.setdefault(line.turn, []).append(line)
    out = []
    for turn in range(0, max(by_turn) + 1):
        lines = by_turn.get(turn, [])
        reveal = _turn_reveal(board, turn, lines)
        obs = Observation(turn, reveal)
        game.hidden_turn()
        count = 0
        for line in (x for x in lines if x.side == "team"):
            count += 1
            where = f"turn {turn}, team action {count} (line {line.number})"
            _hunters_line(game, line, count, where, obs)
        game.fugitive = reveal if reveal is not None else -1
        game.pending = []
        result = game.end_turn()
        obs.catchers, obs.caught = result.observation.catchers, result.captured
        out.append(obs)
        if result.winner:
            break
    return out


def _new_game(board: Board, rules: HouseRules, log: GameLog) -> BoardGame:
    """The game of the log's header (its start, team size and deck seed)."""
    start = board.square(log.start, "game log header start")
    try:
        return BoardGame(board, rules, start, log.team, log.seed)
    except RuleError as exc:
        raise IllegalAction(f"header: {exc}") from None


def _turn_reveal(board: Board, turn: int, lines: list[LogLine]) -> int | None:
    """The square a hunters' log reveals at the end of ``turn`` (None after OFFLINE)."""
    reveals = [x for x in lines if x.side == "reveal"]
    if len(reveals) != 1:
        raise InputError(
            f"hunters' log turn {turn}: {len(reveals)} reveal lines; give one (null after OFFLINE)"
        )
    value = reveals[0].data["reveal"]
    reveal = (
        None
        if value is None
        else board.square(value, f"turn {turn} reveal (line {reveals[0].number})")
    )
    if turn == 0 and reveal is None:
        raise InputError("hunters' log turn 0: the head start always ends with a reveal")
    return reveal


def _hunters_line(game: BoardGame, line: LogLine, slot: int, where: str, obs: Observation) -> None:
    """Apply the ``slot``-th team line of a turn; a Drone / Calls answer goes into ``obs``."""
    board = game.board
    to = _squares(board, line.data.get("to"), where)
    van = game.van
    try:
        game.team_action(
            line.action,
            to,
            card=line.data.get("card"),
            player=_named_player(line.data),
            pawn=line.data.get("pawn"),
            by=str(line.data.get("by", "move")),
        )
    except RuleError as exc:
        raise IllegalAction(f"{where}: {exc}") from None
    card = str(line.data.get("card", "")).lower()
    if line.action.upper() not in ("CARD", "KAART") or card not in ("drone", "calls"):
        return
    spec = game.rules.card(card)
    answer = line.data.get("answer")
    if card == "drone":
        if not isinstance(answer, bool):
            raise InputError(f'{where}: a Drone line needs "answer": true or false')
        obs.drone.append((slot, van, spec.radius, answer))
    else:
        obs.calls.append((slot, spec.reveals, _calls_index(board, spec, answer, where)))


def _calls_index(board: Board, spec: CardSpec, answer: Any, where: str) -> int:
    """The column or row index a Calls card's ``answer`` names."""
    try:
        if spec.reveals == "column":
            return board.grid.index(f"{str(answer).upper()}1") % board.grid.cols
        index = int(answer) - 1
        if not 0 <= index < board.grid.rows:
            raise ValueError
        return index
    except (ValueError, TypeError):
        raise InputError(
            f'{where}: a Calls line needs "answer": the {spec.reveals} it was told'
        ) from None


def _named_player(data: dict[str, Any]) -> int | None:
    """The ``"player"`` a log line names (1-based), or None when it names none."""
    player = data.get("player")
    if player is not None and (not isinstance(player, int) or isinstance(player, bool)):
        raise RuleError(f"player is {player!r}, not 1–3")
    return player


def referee(board: Board, rules: HouseRules, log: GameLog) -> Refereed:
    """Run a log through the rules; :class:`IllegalAction` names the first broken rule."""
    game = _new_game(board, rules, log)
    results: list[TurnResult] = []
    by_turn: dict[int, list[LogLine]] = {}
    for line in log.lines:
        if line.side == "reveal":
            raise InputError(
                f"line {line.number}: reveal lines belong in a hunters' log (no fugitive lines); `board track` reads those"
            )
        by_turn.setdefault(line.turn, []).append(line)
    final = max(by_turn) if by_turn else 0
    for turn in range(0, final + 1):
        lines = by_turn.get(turn, [])
        if game.winner:
            if lines:
                raise IllegalAction(
                    f"turn {turn} (line {lines[0].number}): the game is over ({game.winner} won in turn {game.turn - 1})"
                )
            break
        order = [x for x in lines if x.side == "fugitive"] + [x for x in lines if x.side == "team"]
        counts = {"fugitive": 0, "team": 0}
        for line in order:
            counts[line.side] += 1
            label = "action" if line.side == "fugitive" else "team action"
            where = f"turn {turn}, {label} {counts[line.side]} (line {line.number})"
            to = _squares(board, line.data.get("to"), where)
            try:
                if line.side == "fugitive":
                    if to is not None and len(to) != 1:
                        raise RuleError(f"{line.action} goes to one square")
                    game.fugitive_action(line.action, to[0] if to else None)
                else:
                    game.team_action(
                        line.action,
                        to,
                        card=line.data.get("card"),
                        player=_named_player(line.data),
                        pawn=line.data.get("pawn"),
                        by=str(line.data.get("by", "move")),
                    )
            except RuleError as exc:
                raise IllegalAction(
                    f"turn {turn}, {label} {counts[line.side]}: {exc} (line {line.number})"
                ) from None
        if turn == final and game.slots < game.budget and not game.trapped:
            return Refereed(game, results, turn)
        try:
            results.append(game.end_turn())
        except RuleError as exc:
            raise IllegalAction(f"turn {turn}: {exc}") from None
    return Refereed(game, results, None)
