"""The rules engine and referee of Het Jachtseizoen (pure: no files).

Every rule of the rulebook (*Het Jachtseizoen: Het Bordspel*) with the choices the
rulebook leaves open taken as data (:class:`HouseRules`, documented in
docs/board.md):

* a step is to one of the 4 edge neighbours or 8 with the diagonals (``neighbours``);
* the fugitive spends every action of a turn (rulebook, "Time": "the fugitive has also
  performed 5 actions"); a fugitive left with actions it cannot spend (no legal move:
  never the same square twice) is trapped and loses at the end of that turn;
  ``WAIT`` (1 action, stay) exists only as an opt-in house rule (``wait``), not in
  the rulebook's list of the fugitive's actions;
* ``HELICOPTER`` / ``BOAT`` take 5 consecutive actions (a whole turn; in the 10-action
  head start, any 5 in a row); the fugitive is at the destination after the 5th;
* ``BOAT`` joins waterside squares that touch the same water body;
* ``OFFLINE`` cannot be used in the head start (its reveal is not a time-token move);
* a van's 2-step move is not allowed when it starts in, or passes through, a
  built-up square ("within a built-up area it is always 1 step");
* Drone and Calls cards (the rulebook names but does not define them) are answered
  with the fugitive's square after as many of its actions as the team has taken
  this turn, including the card: Drone says whether that square is within
  ``radius`` (8-neighbour distance) of the van, Calls names its column (or row);
* capture is checked at the end of a turn when the location is handed over (rulebook,
  "End of the game": "while receiving the location"), so never at the end of an
  OFFLINE turn unless the opt-in house rule ``offline_capture`` is on;
* the hunt team's players take their turns clockwise from the player who begins the
  round, each once a round ("The hunt team"); checked when actions name players.

:class:`BoardGame` applies actions one by one and raises :class:`RuleError` (whose text
names the rule) on an illegal one; :func:`referee` runs a whole log.
"""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from stations_generator.board.model import Board
from stations_generator.errors import InputError

__all__ = [
    "CardSpec",
    "BoardGame",
    "HouseRules",
    "Observation",
    "RuleError",
    "TurnResult",
    "load_cards",
]

#: Hand size per player by hunt-team size (rulebook, "Setup").
HAND_SIZES = {1: 7, 2: 4, 3: 3}
#: The bundled card file is under 1 kB; a thousand times that is room for any deck.
_MAX_CARD_FILE_BYTES = 1_000_000
FUGITIVE_ACTIONS = (
    "STEP",
    "HITCHHIKE",
    "PUBLIC_TRANSPORT",
    "HELICOPTER",
    "BOAT",
    "OFFLINE",
    "WAIT",
)
TEAM_ACTIONS = ("VAN", "MOTORWAY", "CARD")
ALIASES = {
    "OV": "PUBLIC_TRANSPORT",
    "PT": "PUBLIC_TRANSPORT",
    "STAP": "STEP",
    "LIFTEN": "HITCHHIKE",
    "BOOT": "BOAT",
    "HELIKOPTER": "HELICOPTER",
    "BUS": "VAN",
    "AUTOWEG": "MOTORWAY",
    "KAART": "CARD",
}
CARD_TYPES = ("hunter", "drone", "calls")


class RuleError(Exception):
    """An illegal action; the message names the rule it breaks."""


@dataclass(frozen=True)
class CardSpec:
    type: str
    count: int
    radius: int = 3
    reveals: str = "column"


@dataclass(frozen=True)
class HouseRules:
    """The numbers of the rulebook and the house rules where it is silent."""

    neighbours: int = 8
    cards: tuple[CardSpec, ...] = ()
    turns: int = 25  # the time bar
    actions: int = 5  # per turn, each side
    head_start: int = 10
    extreme_cost: int = 5
    public_transport_uses: int = 2
    hunter_steps: int = 2
    van_steps: int = 2
    #: House rule, off by default: WAIT (1 action, stay) — not a rulebook action.
    wait: bool = False
    #: House rule, off by default: a van or hunter on the fugitive's square catches it at
    #: the end of an OFFLINE turn too (the rulebook catches only when a location is handed over).
    offline_capture: bool = False

    def deck(self) -> list[str]:
        return [c.type for c in self.cards for _ in range(c.count)]

    def card(self, kind: str) -> CardSpec | None:
        return next((c for c in self.cards if c.type == kind), None)


def load_cards(path: Path | None = None) -> tuple[CardSpec, ...]:
    """Read a card file (TOML ``[[card]]`` tables; the bundled 30 cards by default)."""
    label = "the bundled card file" if path is None else repr(Path(path).name)
    try:
        if path is None:
            text = (
                resources.files("stations_generator")
                .joinpath("data/board-cards.toml")
                .read_text("utf-8")
            )
        else:
            if Path(path).stat().st_size > _MAX_CARD_FILE_BYTES:
                raise InputError(
                    f"card file {label} is larger than {_MAX_CARD_FILE_BYTES} bytes; "
                    "a card file is a few [[card]] tables"
                )
            text = Path(path).read_text("utf-8")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise InputError(f"card file {label} does not exist; check the --cards path") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"card file {label} is not TOML: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise InputError(
            f"card file {label} nests arrays or tables too deeply; give [[card]] tables "
            "as in docs/board.md"
        ) from None
    except OSError as exc:
        raise InputError(
            f"card file {label} cannot be read ({exc.strerror}); check the --cards path"
        ) from None
    cards = data.get("card")
    if not isinstance(cards, list) or not cards:
        raise InputError(f"card file {label} has no [[card]] tables; see docs/board.md")
    out = []
    for i, c in enumerate(cards, 1):
        kind = c.get("type") if isinstance(c, dict) else None
        count = c.get("count") if isinstance(c, dict) else None
        if kind not in CARD_TYPES:
            raise InputError(
                f"card file {label}: card {i} has type {kind!r}; use one of {', '.join(CARD_TYPES)}"
            )
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 1000:
            raise InputError(
                f"card file {label}: card {i} ({kind}) has count {count!r}; give a whole number 0–1000"
            )
        radius = c.get("radius", 3)
        if not isinstance(radius, int) or isinstance(radius, bool) or not 0 <= radius <= 100:
            raise InputError(
                f"card file {label}: card {i} ({kind}) has radius {radius!r}; give 0–100"
            )
        reveals = c.get("reveals", "column")
        if reveals not in ("column", "row"):
            raise InputError(
                f"card file {label}: card {i} ({kind}) reveals {reveals!r}; use column or row"
            )
        out.append(CardSpec(kind, count, radius, reveals))
    if sum(c.count for c in out) < 1:
        raise InputError(f"card file {label} has no cards (the counts add up to 0)")
    return tuple(out)


@dataclass
class Observation:
    """What the hunt team learns in one turn (the tracker's input)."""

    turn: int
    reveal: int | None  # None: skipped (OFFLINE)
    drone: list[tuple[int, int, int, bool]] = field(
        default_factory=list
    )  # (slot, van, radius, within)
    calls: list[tuple[int, str, int]] = field(default_factory=list)  # (slot, "column"/"row", index)
    catchers: tuple[int, ...] = ()  # van and hunter squares at the end of the turn
    caught: bool = False  # the fugitive was on one of them (and was caught)
    trapped: bool = False  # the fugitive had actions left and no legal one: it lost


@dataclass
class TurnResult:
    turn: int
    observation: Observation
    captured: bool
    winner: str | None  # "hunters", "fugitive" or None


def _chebyshev(board: Board, a: int, b: int) -> int:
    ra, ca = divmod(a, board.grid.cols)
    rb, cb = divmod(b, board.grid.cols)
    return max(abs(ra - rb), abs(ca - cb))


class BoardGame:
    """One game: the full state of both sides, advanced action by action.

    Parameters
    ----------
    board : Board
    rules : HouseRules
    start : int
        The start square (a start location of the board).
    team : int
        Hunt-team size, 1–3 (sets the hand sizes).
    seed : int
        Seeds the deck shuffle (the same seed deals the same cards).
    """

    def __init__(self, board: Board, rules: HouseRules, start: int, team: int = 1, seed: int = 0):
        if team not in HAND_SIZES:
            raise RuleError(f"a hunt team has 1, 2 or 3 players, not {team}")
        if start not in {s for s, _n, _k in board.starts}:
            raise RuleError(f"{board.grid.name(start)} is not a start location of this board")
        self.board, self.rules = board, rules
        self.rng = random.Random(seed)
        self.turn = 0
        self.fugitive = start
        self.visited = {start}
        self.trail: list[int] = [start]  # the fugitive's square after each action slot of this turn
        self.slots = 0
        self.hitchhiked = False
        self.pt_used = 0
        self.extreme: str | None = None
        self.offline = 0  # 0 unused, 1 active this turn, 2 spent
        self.van = start
        self.hunters: list[int | None] = [None, None]
        self.team_actions = 0
        self.turn_players: list[int] = []  # 0-based, in the order they acted this round
        deck = rules.deck()
        need = team * HAND_SIZES[team]
        if len(deck) < need:
            raise InputError(
                f"the card file has {len(deck)} card(s), but a hunt team of {team} is dealt "
                f"{team} × {HAND_SIZES[team]} = {need}; give a card file with at least {need} cards"
            )
        self.rng.shuffle(deck)
        self.deck, self.discard = deck, []
        self.hands = [[self._draw_one() for _ in range(HAND_SIZES[team])] for _ in range(team)]
        self.played = [0] * team
        self.pending: list[tuple[str, int, Any]] = []  # drone / calls answered at end of turn
        self.winner: str | None = None
        self.history: list[TurnResult] = []

    # ---------------------------------------------------------------- helpers
    @property
    def budget(self) -> int:
        return self.rules.head_start if self.turn == 0 else self.rules.actions

    def _draw_one(self) -> str | None:
        if not self.deck:
            if not self.discard:
                return None
            self.deck, self.discard = self.discard, []
            self.rng.shuffle(self.deck)
        return self.deck.pop()

    def name(self, s: int) -> str:
        return self.board.grid.name(s)

    def _check_free(self, s: int, verb: str) -> None:
        if s in self.visited:
            raise RuleError(
                f"{verb} to {self.name(s)}: already visited (never the same square twice)"
            )

    def _step_ok(self, a: int, b: int, who: str) -> None:
        if b not in self.board.grid.neighbours(a, self.rules.neighbours):
            raise RuleError(
                f"{who} from {self.name(a)} to {self.name(b)} is not 1 step ({self.rules.neighbours} neighbours)"
            )
        if not self.board.passable[b]:
            what = "off the board" if not self.board.on_board[b] else "water/forest (impassable)"
            raise RuleError(f"{who} to {self.name(b)}: {what}")

    # --------------------------------------------------------------- fugitive
    def fugitive_moves(self) -> list[tuple[str, int | None]]:
        """Every legal fugitive action now, as ``(action, destination)``."""
        if self.winner or self.slots >= self.budget:
            return []
        b, s = self.board, self.fugitive
        visited = self.visited
        out = [("STEP", n) for n in b.steps(self.rules.neighbours)[s] if n not in visited]
        if not self.hitchhiked:
            out += [("HITCHHIKE", n) for n in b.junction_adj.get(s, ()) if n not in self.visited]
        if self.pt_used < self.rules.public_transport_uses:
            out += [("PUBLIC_TRANSPORT", n) for n in b.pt_targets.get(s, ()) if n not in visited]
        if self.extreme is None and self.budget - self.slots >= self.rules.extreme_cost:
            if s in b.airfields:
                out += [("HELICOPTER", n) for n in b.airfields if n != s and n not in self.visited]
            out += [("BOAT", n) for n in b.boat_targets.get(s, ()) if n not in visited]
        if self.offline == 0 and self.turn > 0:
            out.append(("OFFLINE", None))
        if self.rules.wait:
            out.append(("WAIT", None))
        return out

    @property
    def trapped(self) -> bool:
        """Whether the fugitive has actions left this turn and no legal one to spend them.

        OFFLINE costs no action, so it does not count: a trapped fugitive cannot fill its
        turn and loses at the end of it (docs/board.md, "no legal action left").
        """
        if self.winner or self.slots >= self.budget:
            return False
        return not any(a != "OFFLINE" for a, _to in self.fugitive_moves())

    def hidden_turn(self) -> None:
        """Spend the fugitive's actions unseen (a hunt team's own log has no fugitive lines)."""
        self.trail = [self.fugitive] * (self.budget + 1)
        self.slots = self.budget

    def fugitive_action(self, action: str, to: int | None = None) -> None:
        """Apply one fugitive action (raises :class:`RuleError` if illegal).

        Parameters
        ----------
        action : str
            One of :data:`FUGITIVE_ACTIONS` or an alias (:data:`ALIASES`), any case.
        to : int, optional
            The destination square (every action but ``OFFLINE`` and ``WAIT``).
        """
        action = ALIASES.get(action.upper(), action.upper())
        cost = self._fugitive_cost(action, to)
        s = self.fugitive
        if action == "STEP":
            self._step_ok(s, to, "STEP")
            self._check_free(to, "STEP")
        elif action == "HITCHHIKE":
            self._hitchhike(s, to)
        elif action == "PUBLIC_TRANSPORT":
            self._public_transport(s, to)
        elif action in ("HELICOPTER", "BOAT"):
            self._extreme_transport(action, s, to)
        elif action == "OFFLINE":
            self._go_offline()
            return
        # Move (WAIT stays); extreme transport occupies its slots at the origin.
        for _ in range(cost - 1):
            self.trail.append(s)
        if to is not None:
            self.fugitive = to
            self.visited.add(to)
        self.trail.append(self.fugitive)
        self.slots += cost

    def _fugitive_cost(self, action: str, to: int | None) -> int:
        """The slots ``action`` takes; checks the game, the name, ``to`` and the budget."""
        if self.winner:
            raise RuleError(f"the game is over ({self.winner} won)")
        if action not in FUGITIVE_ACTIONS:
            raise RuleError(f"{action} is not a fugitive action ({', '.join(FUGITIVE_ACTIONS)})")
        if action == "WAIT" and not self.rules.wait:
            raise RuleError(
                "WAIT is not a fugitive action of the rulebook (STEP, HITCHHIKE, "
                "PUBLIC_TRANSPORT, HELICOPTER, BOAT, OFFLINE); it is the opt-in house rule "
                "--house-wait"
            )
        cost = {
            "OFFLINE": 0,
            "HELICOPTER": self.rules.extreme_cost,
            "BOAT": self.rules.extreme_cost,
        }.get(action, 1)
        if action in ("STEP", "HITCHHIKE", "PUBLIC_TRANSPORT", "HELICOPTER", "BOAT") and to is None:
            raise RuleError(f'{action} needs a destination square ("to")')
        if self.slots + cost > self.budget:
            raise RuleError(
                f"{action} needs {cost} action(s) but only {self.budget - self.slots} of this turn's {self.budget} are left"
            )
        return cost

    def _hitchhike(self, s: int, to: int) -> None:
        b = self.board
        if self.hitchhiked:
            raise RuleError("HITCHHIKE used twice this turn (once a turn)")
        if s not in b.junctions:
            raise RuleError(f"HITCHHIKE from {self.name(s)}: not a motorway junction")
        if to not in b.junction_adj.get(s, ()):
            raise RuleError(
                f"HITCHHIKE to {self.name(to)}: not the next junction from {self.name(s)}"
            )
        self._check_free(to, "HITCHHIKE")
        self.hitchhiked = True

    def _public_transport(self, s: int, to: int) -> None:
        b = self.board
        if self.pt_used >= self.rules.public_transport_uses:
            raise RuleError(
                f"PUBLIC_TRANSPORT used {self.pt_used + 1} times ({self.rules.public_transport_uses} a game)"
            )
        if s not in b.city_of:
            raise RuleError(f"PUBLIC_TRANSPORT from {self.name(s)}: not a big city")
        if to not in b.pt_targets.get(s, ()):
            raise RuleError(
                f"PUBLIC_TRANSPORT to {self.name(to)}: no rail link from {self.name(s)}"
            )
        self._check_free(to, "PUBLIC_TRANSPORT")
        self.pt_used += 1

    def _extreme_transport(self, action: str, s: int, to: int) -> None:
        """HELICOPTER (airfield to airfield) or BOAT (across one water body)."""
        b = self.board
        if self.extreme is not None:
            raise RuleError(
                f"{action} after {self.extreme}: extreme transport once a game, only one of the two"
            )
        if action == "HELICOPTER":
            if s not in b.airfields:
                raise RuleError(f"HELICOPTER from {self.name(s)}: not an airfield")
            if to not in b.airfields or to == s:
                raise RuleError(f"HELICOPTER to {self.name(to)}: not another airfield")
        else:
            if s not in b.water_body:
                raise RuleError(f"BOAT from {self.name(s)}: not a waterside square")
            if to == s or not (b.water_body.get(to, frozenset()) & b.water_body[s]):
                raise RuleError(
                    f"BOAT to {self.name(to)}: not a waterside square of the same water"
                )
        self._check_free(to, action)
        self.extreme = action

    def _go_offline(self) -> None:
        if self.turn == 0:
            raise RuleError("OFFLINE in the head start: the first location is always handed over")
        if self.offline:
            raise RuleError("OFFLINE used twice (once a game)")
        self.offline = 1

    # ------------------------------------------------------------------- team
    def _player(self, player: int) -> int:
        if not 1 <= player <= len(self.hands):
            raise RuleError(f"player {player} is not in the hunt team (1–{len(self.hands)})")
        return player - 1

    def team_action(
        self,
        action: str,
        to: list[int] | int | None = None,
        *,
        card: str | None = None,
        player: int | None = None,
        pawn: int | None = None,
        by: str = "move",
    ) -> Any:
        """Apply one hunt-team action (raises :class:`RuleError` if illegal).

        Parameters
        ----------
        action : str
            One of :data:`TEAM_ACTIONS` or an alias (:data:`ALIASES`), any case.
        to : list of int, int or None
            The squares of the move, in order (a hunter's path, the van's 1 or 2 steps).
        card : str, optional
            The card played by ``CARD``: hunter, drone or calls.
        player : int, optional
            The player (1-based) who acts; a named player must follow the clockwise
            order of the round (:meth:`players_left`). None: the player acting now
            (player 1 when no one has acted this round); it plays the card.
        pawn : int, optional
            The hunter pawn (1 or 2) a hunter card moves.
        by : str
            How a hunter card moves: ``move``, ``transit`` or ``flight``.

        Returns
        -------
        None
            A Drone / Calls card is answered at the end of the turn.
        """
        action = ALIASES.get(action.upper(), action.upper())
        if self.winner:
            raise RuleError(f"the game is over ({self.winner} won)")
        if self.turn == 0:
            raise RuleError("the hunt team does not move in the head start")
        if action not in TEAM_ACTIONS:
            raise RuleError(f"{action} is not a hunt-team action ({', '.join(TEAM_ACTIONS)})")
        if self.team_actions >= self.rules.actions:
            raise RuleError(f"the hunt team has only {self.rules.actions} actions a turn")
        path = [to] if isinstance(to, int) else list(to or [])
        acting = self._acting(player)
        if action == "VAN":
            self._drive_van(path)
        elif action == "MOTORWAY":
            self._take_motorway(path)
        else:
            self._play_card(path, card, acting + 1, pawn, by)
        if player is not None and (not self.turn_players or self.turn_players[-1] != acting):
            self.turn_players.append(acting)
        self.team_actions += 1
        return None

    def players_left(self) -> list[int]:
        """The players (1-based) who may still act this round, in clockwise order.

        The rulebook ("The hunt team"): the team chooses who begins the round, then the
        players take turns clockwise; each player's turn may hold several actions. So
        the player acting now and those after it, up to the one before the player who
        began; everyone when no player has acted yet.
        """
        n = len(self.hands)
        if not self.turn_players:
            return list(range(1, n + 1))
        first, last = self.turn_players[0], self.turn_players[-1]
        return [(first + k) % n + 1 for k in range((last - first) % n, n)]

    def _acting(self, player: int | None) -> int:
        """The 0-based player who acts; a named one must be in :meth:`players_left`."""
        if player is None:
            return self.turn_players[-1] if self.turn_players else 0
        idx = self._player(player)
        if player not in self.players_left():
            n = len(self.hands)
            first = self.turn_players[0]
            order = " → ".join(str((first + k) % n + 1) for k in range(n))
            raise RuleError(
                f"player {player} after player {self.turn_players[-1] + 1}: the hunt team "
                f"plays clockwise from the player who began the round ({order}), "
                "each once a round"
            )
        return idx

    def _drive_van(self, path: list[int]) -> None:
        b = self.board
        if not 1 <= len(path) <= self.rules.van_steps:
            raise RuleError(f"VAN moves 1 or {self.rules.van_steps} steps, not {len(path)}")
        here = self.van
        for i, nxt in enumerate(path):
            if i and (b.is_builtup[self.van] or b.is_builtup[here]):
                raise RuleError(
                    f"VAN 2 steps through built-up {self.name(here if b.is_builtup[here] else self.van)}: 1 step inside a built-up area"
                )
            self._step_ok(here, nxt, "VAN")
            here = nxt
        self.van = here

    def _take_motorway(self, path: list[int]) -> None:
        b = self.board
        if len(path) != 1:
            raise RuleError("MOTORWAY needs one destination junction")
        if self.van not in b.junctions:
            raise RuleError(f"MOTORWAY from {self.name(self.van)}: the van is not on a junction")
        if path[0] not in b.junction_adj.get(self.van, ()):
            raise RuleError(
                f"MOTORWAY to {self.name(path[0])}: not the next junction from {self.name(self.van)}"
            )
        self.van = path[0]

    def _play_card(
        self, path: list[int], card: str | None, player: int, pawn: int | None, by: str
    ) -> None:
        """Play a card from ``player``'s hand: move a hunter, or queue a Drone / Calls answer."""
        idx = self._player(player)
        kind = card.lower() if isinstance(card, str) else ""
        if kind not in CARD_TYPES:
            raise RuleError(f"CARD {card!r} is not a card type ({', '.join(CARD_TYPES)})")
        if kind not in self.hands[idx]:
            raise RuleError(
                f"CARD {kind}: player {player} holds no {kind} card (hand: {', '.join(sorted(h for h in self.hands[idx] if h)) or 'empty'})"
            )
        if kind == "hunter":
            if pawn not in (1, 2):
                raise RuleError('CARD hunter needs "pawn": 1 or 2')
            self.hunters[pawn - 1] = self._hunter_move(pawn, path, by)
        else:
            answer = (kind, self.team_actions + 1, self.rules.card(kind), self.van)
            self.pending.append(answer)
        self.hands[idx].remove(kind)
        self.discard.append(kind)
        self.played[idx] += 1

    def _hunter_move(self, pawn: int, path: list[int], by: str) -> int:
        """Where hunter ``pawn`` ends moving along ``path`` on foot, by transit or by flight."""
        b = self.board
        origin = self.hunters[pawn - 1]
        origin = self.van if origin is None else origin
        if by == "move":
            if not 1 <= len(path) <= self.rules.hunter_steps:
                raise RuleError(
                    f"a hunter moves 1 or {self.rules.hunter_steps} steps, not {len(path)}"
                )
            here = origin
            for nxt in path:
                self._step_ok(here, nxt, "hunter")
                here = nxt
        elif by in ("transit", "flight"):
            if len(path) != 1:
                raise RuleError(f"hunter {by} needs one destination square")
            here = path[0]
            if by == "transit":
                if here not in b.pt_targets.get(origin, ()):
                    raise RuleError(
                        f"hunter transit {self.name(origin)}→{self.name(here)}: not two big cities joined by rail"
                    )
            elif origin not in b.airfields or here not in b.airfields or here == origin:
                raise RuleError(
                    f"hunter flight {self.name(origin)}→{self.name(here)}: not two airfields"
                )
        else:
            raise RuleError(f'hunter "by" is {by!r}; use move, transit or flight')
        return here

    # ------------------------------------------------------------- end of turn
    def end_turn(self) -> TurnResult:
        """Close the turn: budgets, cards drawn, capture, reveal, time."""
        if self.winner:
            raise RuleError(f"the game is over ({self.winner} won)")
        trapped = self.trapped
        if self.slots != self.budget and not trapped:
            raise RuleError(
                f"the fugitive took {self.slots} of {self.budget} actions this turn; it "
                "spends them all while it has a legal action"
            )
        obs = Observation(self.turn, None)
        for kind, slot, spec, van in self.pending:
            where = self.trail[min(slot, len(self.trail) - 1)]
            if kind == "drone":
                obs.drone.append(
                    (
                        slot,
                        van,
                        spec.radius,
                        _chebyshev(self.board, where, van) <= spec.radius,
                    )
                )
            else:
                r, c = divmod(where, self.board.grid.cols)
                obs.calls.append((slot, spec.reveals, c if spec.reveals == "column" else r))
        catchers = tuple(sorted({self.van, *(h for h in self.hunters if h is not None)}))
        # Caught "while receiving the location": not in an OFFLINE turn (house rule aside).
        handed_over = self.offline != 1 or self.rules.offline_capture
        captured = self.turn > 0 and self.fugitive in catchers and handed_over
        if self.offline == 1:
            self.offline = 2
        else:
            obs.reveal = self.fugitive
        obs.catchers = catchers if self.turn > 0 else ()
        obs.caught = captured
        obs.trapped = trapped
        for i, n in enumerate(self.played):
            for _ in range(n):
                c = self._draw_one()
                if c is not None:
                    self.hands[i].append(c)
        winner = (
            "hunters"
            if captured or trapped
            else ("fugitive" if self.turn >= self.rules.turns else None)
        )
        result = TurnResult(self.turn, obs, captured, winner)
        self.history.append(result)
        self.winner = winner
        self.turn += 1
        self.slots = 0
        self.trail = [self.fugitive]
        self.hitchhiked = False
        self.team_actions = 0
        self.turn_players = []
        self.played = [0] * len(self.hands)
        self.pending = []
        return result
