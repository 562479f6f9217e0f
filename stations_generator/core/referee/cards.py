"""The hider's cards by the JLTG.EU house rules: deck, hand, discard pile, excluded cards.

A :class:`CardTable` is the hider's cards at one moment; every method returns a new table
or raises :class:`RuleViolation` naming the rule. Piles are multisets of card ids (the deck,
discard pile and excluded cards kept sorted, the hand in the order the cards came).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from stations_generator.core.referee import curses as cu
from stations_generator.core.referee.curses import BySize, OpenCurse
from stations_generator.core.referee.violations import RuleViolation

#: JLTG.EU house rules, Cards: Hand Limit — "a hand limit of 6 cards".
HAND_LIMIT = 6
KINDS = ("curse", "blessing", "power-up", "time-bonus")
CURSE_KINDS = ("curse", "blessing")
MECHANICS = (
    "discard-draw",
    "draw-expand",
    "duplicate",
    "veto-question",
    "double-or-nothing",
    "randomize",
    "veto-or-time-bonus",
    "consult-the-card",
)
_HR = "JLTG.EU house rules"
R_MECHANICS = f"draw x, pick y ({_HR}, Cards: Card Mechanics)"
R_HAND_LIMIT = f"hand limit ({_HR}, Cards: Hand Limit)"
R_ENTROPY = f"the deck ({_HR}, Cards: Entropy)"
R_DISCARD = f"discarding ({_HR}, Cards: Discarding)"
R_PLAY = f"playing a card ({_HR}, Cards: Playing a card)"
R_INAPPROPRIATE = f"inappropriate cards ({_HR}, Cards: Inappropriate Cards)"
R_COST = f"casting cost ({_HR}, Cards: Casting Cost)"
R_BLOCKING = f"blocking further curses ({_HR}, Cards: Blocking)"
R_ONCE = f"once per round ({_HR}, Cards: Cards that can only be played once per round)"
R_CLEAR = f"clearing curses ({_HR}, Cards: Clearing Curses)"
R_VETO = f"immediate vetoes ({_HR}, Cards: Immediate Vetoes)"
R_POWER_UPS = f"power ups ({_HR}, Power Ups)"
R_DUPLICATE = f"Duplicate Another Card ({_HR}, Power Ups)"
R_TIME_BONUS = f"time bonuses ({_HR}, Time Bonuses)"


def card_id(name: str) -> str:
    """A card's id: a slug of its printed name.

    Lowercase; apostrophes (' and ’) and the quote marks of 4’33“ dropped; accents dropped
    ("ü" -> "u", so ids are plain ASCII); every run of other characters that are not
    letters or digits becomes "-"; "-" stripped at the ends.
    e.g. "Curse Of The Gambler’s Feet" -> "curse-of-the-gamblers-feet".
    """
    text = re.sub(r"['’‘“”\"]", "", name.lower())
    text = "".join(
        ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)
    )
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


@dataclass(frozen=True)
class Card:
    """One printed card kind, from a card file (see the shipped ``jltg-eu`` file's header).

    ``consult`` names the fields the house rules leave to the original card (not given).
    ``timeout``/``veto``: minutes by size, a kind ("round", "event", "none"), or None for
    the general rule. Power-ups carry ``mechanic`` and its numbers (discard, draw, expand);
    time bonuses ``minutes`` by size or ``percent``.
    """

    id: str
    name: str
    kind: str
    count: int
    text: str | None = None
    casting_cost: str | None = None
    consult: frozenset[str] = frozenset()
    blocks: frozenset[str] = frozenset()
    blocks_curses: bool | None = None
    timeout: BySize | str | None = None
    veto: BySize | str | None = None
    once_per_round: bool = False
    cost_time_bonus: BySize | None = None
    cost_cards: int = 0
    cost_curses: int = 0
    cost_specific: tuple[tuple[str, int], ...] = ()
    minutes: BySize | None = None
    percent: float | None = None
    mechanic: str | None = None
    discard: int = 0
    draw: int = 0
    expand: int = 0

    @property
    def is_curse(self) -> bool:
        """A curse or a blessing (played and blocked as curses)."""
        return self.kind in CURSE_KINDS

    @property
    def fixed_bonus(self) -> bool:
        """A fixed-value time bonus (minutes, not a percentage; Time Bonuses)."""
        return self.kind == "time-bonus" and self.minutes is not None


@dataclass(frozen=True)
class Reward:
    """A "Draw x, Pick y" the hider is owed; ``source`` says what earned it."""

    draw: int
    pick: int
    source: str = ""


def _take(pool: Sequence[str], ids: Sequence[str]) -> tuple[str, ...] | None:
    """``pool`` without one copy of each of ``ids`` (order kept); None if one is missing."""
    out = list(pool)
    for i in ids:
        if i not in out:
            return None
        out.remove(i)
    return tuple(out)


def _sorted(*piles: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(c for pile in piles for c in pile))


def _aware(at: datetime, what: str = "at") -> datetime:
    if not isinstance(at, datetime) or at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"{what} must be a timezone-aware datetime, got {at!r}")
    return at


@dataclass(frozen=True)
class CardTable:
    """The hider's cards at one moment; every method returns a new table.

    Attributes
    ----------
    size : str
        The game size, "S", "M" or "L".
    catalogue : Mapping[str, Card]
        The card kinds by id, with their counts.
    deck, discard_pile, excluded : tuple of str
        Sorted multisets of card ids (Cards: the four collections).
    hand : tuple of str
        The hand, in the order the cards came.
    hand_limit : int or None
        6 plus the expansions played; None: no limit.
    rewards : tuple of Reward
        Rewards owed, the first one open.
    drawn : tuple of str or None
        Cards drawn for the open reward, not yet picked.
    owed_draws : int
        Cards a power-up played without its ``draws`` still has to draw.
    curses : tuple of OpenCurse
        Curses in play (timed-out ones go at the next event).
    played : tuple of str
        Card ids played this round (once-per-round cards).
    """

    size: str
    catalogue: Mapping[str, Card]
    deck: tuple[str, ...]
    hand: tuple[str, ...]
    discard_pile: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    hand_limit: int | None = HAND_LIMIT
    rewards: tuple[Reward, ...] = ()
    drawn: tuple[str, ...] | None = None
    owed_draws: int = 0
    curses: tuple[OpenCurse, ...] = ()
    played: tuple[str, ...] = ()

    # ---- looking ------------------------------------------------------------------------

    def card(self, cid: str) -> Card:
        """The catalogue's card ``cid``; ValueError naming it if the catalogue has none."""
        try:
            return self.catalogue[cid]
        except KeyError:
            raise ValueError(f"card {cid!r} is not in the card file; check its id") from None

    def counts(self) -> Counter[str]:
        """Copies of each card over deck, hand, drawn, discard pile and excluded cards."""
        return Counter(
            [*self.deck, *self.hand, *(self.drawn or ()), *self.discard_pile, *self.excluded]
        )

    @property
    def over_limit(self) -> bool:
        """Whether the hand holds more than the hand limit."""
        return self.hand_limit is not None and len(self.hand) > self.hand_limit

    def check_hand_limit(self) -> None:
        """Raise if the hand is over the limit (the sequence of a reward is not complete)."""
        if self.over_limit:
            raise RuleViolation(
                R_HAND_LIMIT,
                f"the hand holds {len(self.hand)} cards, over the hand limit of "
                f"{self.hand_limit}; discard or play down to it first",
            )

    def at(self, when: datetime) -> CardTable:
        """The table at ``when``: curses past their timeout are cleared (Curse Timeouts)."""
        _aware(when, "when")
        left = cu.still_open(self.curses, when)
        return self if left == self.curses else replace(self, curses=left)

    def blocks(self, when: datetime) -> frozenset[str]:
        """What the open curses block at ``when``: a subset of questions, transit, curses."""
        return cu.blocks_at(self.curses, _aware(when, "when"))

    # ---- rewards: draw x, pick y --------------------------------------------------------

    def reward(self, draw: int, pick: int, source: str = "") -> CardTable:
        """Queue a "Draw ``draw``, Pick ``pick``" reward (done one at a time, in order)."""
        for name, v in (("draw", draw), ("pick", pick)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an int >= 1, got {v!r}")
        if pick > draw:
            raise ValueError(f"pick ({pick}) must not be more than draw ({draw})")
        return replace(self, rewards=(*self.rewards, Reward(draw, pick, source)))

    def _pull(self, card_ids: Sequence[str]) -> CardTable:
        """The cards ``card_ids`` taken off the deck, the discard pile reshuffled into the
        deck only when the deck is empty (Entropy); a card with no copy left is refused."""
        deck, discard = list(self.deck), list(self.discard_pile)
        for cid in card_ids:
            self.card(cid)
            if not deck and discard:
                deck, discard = sorted(discard), []
            if cid not in deck:
                where = "the deck" if deck else "the deck or the discard pile"
                raise RuleViolation(
                    R_ENTROPY,
                    f"no copy of {cid!r} is left in {where} to draw; check the cards drawn "
                    "(the discard pile is shuffled in only when the deck is empty)",
                )
            deck.remove(cid)
        return replace(self, deck=tuple(deck), discard_pile=tuple(discard))

    def _check_draw_size(self, card_ids: Sequence[str], wanted: int, what: str) -> None:
        available = len(self.deck) + len(self.discard_pile)
        if len(card_ids) != min(wanted, available):
            raise RuleViolation(
                R_MECHANICS,
                f"{what} draws {wanted} cards, got {len(card_ids)}"
                + (f" ({available} left to draw)" if available < wanted else ""),
            )

    def draw(self, card_ids: Sequence[str], at: datetime) -> CardTable:
        """The cards drawn for a power-up played without its draws, else for the first
        open reward (whose cards then wait for :meth:`keep`)."""
        _aware(at)
        card_ids = tuple(card_ids)
        if self.owed_draws:
            self._check_draw_size(card_ids, self.owed_draws, "the power up")
            t = self._pull(card_ids)
            return replace(t, hand=(*t.hand, *card_ids), owed_draws=0)
        if not self.rewards:
            raise RuleViolation(
                R_MECHANICS, "cards drawn with no reward owed; a question's reward comes first"
            )
        if self.drawn is not None:
            raise RuleViolation(
                R_MECHANICS, "cards drawn again before picking from the last draw; keep first"
            )
        if self.over_limit:
            raise RuleViolation(
                R_MECHANICS + "; " + R_HAND_LIMIT,
                f"the next reward is drawn with {len(self.hand)} cards in a hand limited to "
                f"{self.hand_limit}; discard or play down to the limit first",
            )
        reward = self.rewards[0]
        self._check_draw_size(card_ids, reward.draw, f"the reward ({reward.source or 'draw'})")
        return replace(self._pull(card_ids), drawn=card_ids)

    def replace_inappropriate(
        self, card_ids: Sequence[str], replacements: Sequence[str], at: datetime
    ) -> CardTable:
        """Quietly discard inappropriate drawn cards and draw as many new ones, before the
        pick (Inappropriate Cards)."""
        _aware(at)
        rest = None if self.drawn is None else _take(self.drawn, card_ids)
        if rest is None:
            raise RuleViolation(
                R_INAPPROPRIATE, "only cards just drawn, before the pick, can be replaced"
            )
        if len(replacements) != len(card_ids):
            raise RuleViolation(R_INAPPROPRIATE, "replace each inappropriate card with one card")
        t = replace(self, drawn=rest, discard_pile=_sorted(self.discard_pile, card_ids))
        t = t._pull(replacements)
        return replace(t, drawn=(*rest, *replacements))

    def keep(self, card_ids: Sequence[str], at: datetime) -> CardTable:
        """Pick ``card_ids`` from the cards drawn into the hand; the others go to the
        discard pile. The hand limit must then hold before the next reward."""
        _aware(at)
        if self.drawn is None:
            raise RuleViolation(R_MECHANICS, "cards kept with none drawn; draw the reward first")
        pick = min(self.rewards[0].pick, len(self.drawn))
        rest = _take(self.drawn, card_ids)
        if rest is None:
            raise RuleViolation(
                R_MECHANICS,
                f"kept {list(card_ids)} is not among the cards drawn {list(self.drawn)}",
            )
        if len(card_ids) != pick:
            raise RuleViolation(R_MECHANICS, f"pick {pick} of the cards drawn, not {len(card_ids)}")
        return replace(
            self,
            hand=(*self.hand, *card_ids),
            discard_pile=_sorted(self.discard_pile, rest),
            drawn=None,
            rewards=self.rewards[1:],
        )

    def discard(self, card_ids: Sequence[str], at: datetime) -> CardTable:
        """Discard ``card_ids`` from the hand onto the discard pile (Discarding)."""
        _aware(at)
        hand = _take(self.hand, card_ids)
        if hand is None:
            raise RuleViolation(
                R_DISCARD, f"discarded {list(card_ids)} is not in the hand {list(self.hand)}"
            )
        return replace(self, hand=hand, discard_pile=_sorted(self.discard_pile, card_ids))

    # ---- playing ------------------------------------------------------------------------

    def play(
        self,
        card_id: str,
        at: datetime,
        *,
        discards: Sequence[str] = (),
        paid: Sequence[str] = (),
        draws: Sequence[str] = (),
        target: str | None = None,
    ) -> CardTable:
        """Play ``card_id`` from the hand: a power-up, a curse or a blessing.

        Parameters
        ----------
        card_id : str
            The card played; it must be in the hand.
        at : datetime
            When (timezone-aware); curses past their timeout are cleared first.
        discards : sequence of str
            A "Discard n, Draw m" power-up's n cards from the hand.
        paid : sequence of str
            Cards discarded from the hand as a curse's casting cost.
        draws : sequence of str
            The cards a draw power-up draws; empty: drawn later with :meth:`draw`.
        target : str, optional
            For Duplicate Another Card: the card in the hand it duplicates, played as
            normal (costs paid again) while the duplicate is discarded instead.
        """
        t = self.at(_aware(at))
        card = t.card(card_id)
        hand = _take(t.hand, [card_id])
        if hand is None:
            raise RuleViolation(R_PLAY, f"{card_id!r} is played but not in the hand")
        if card.kind == "time-bonus":
            raise RuleViolation(
                R_TIME_BONUS, f"{card_id!r} is a time bonus: it cannot be played, only discarded"
            )
        if card.mechanic == "duplicate":
            if target is None or target == card_id or _take(hand, [target]) is None:
                raise RuleViolation(
                    R_DUPLICATE, "name another card in the hand as the target to duplicate"
                )
            copied = t.card(target)
            if copied.kind == "time-bonus":
                raise RuleViolation(
                    R_DUPLICATE, "a time bonus is duplicated only at the end of the round"
                )
            t = replace(t, hand=hand, discard_pile=_sorted(t.discard_pile, [card_id]))
            return t._apply(copied, at, discards, paid, draws)
        if target is not None:
            raise ValueError(f"target is only for Duplicate Another Card, not {card_id!r}")
        t = replace(t, hand=hand, discard_pile=_sorted(t.discard_pile, [card_id]))
        return t._apply(card, at, discards, paid, draws)

    def _apply(
        self,
        card: Card,
        at: datetime,
        discards: Sequence[str],
        paid: Sequence[str],
        draws: Sequence[str],
    ) -> CardTable:
        """The effect of ``card`` played (the card itself already off the hand unless it
        stays there, duplicated)."""
        if card.once_per_round and card.id in self.played:
            raise RuleViolation(R_ONCE, f"{card.id!r} was already played this round")
        if card.is_curse:
            if discards or draws:
                raise RuleViolation(R_PLAY, f"{card.id!r} is a curse: it has no discards or draws")
            return self._cast(card, at, paid)
        if paid:
            raise RuleViolation(R_COST, f"{card.id!r} is a power up: it has no casting cost")
        t = replace(self, played=(*self.played, card.id))
        if card.mechanic == "discard-draw":
            hand = _take(t.hand, discards)
            if hand is None or len(discards) != card.discard:
                raise RuleViolation(
                    R_POWER_UPS,
                    f"{card.id!r} discards exactly {card.discard} other cards from the hand, "
                    f"got {list(discards)}",
                )
            t = replace(t, hand=hand, discard_pile=_sorted(t.discard_pile, discards))
        elif discards:
            raise RuleViolation(R_POWER_UPS, f"{card.id!r} does not discard cards")
        if card.mechanic in ("discard-draw", "draw-expand"):
            if card.mechanic == "draw-expand" and t.hand_limit is not None:
                # Hand Limit: effective as soon as it is played.
                t = replace(t, hand_limit=t.hand_limit + card.expand)
            if not draws:
                return replace(t, owed_draws=t.owed_draws + card.draw)
            t._check_draw_size(draws, card.draw, repr(card.id))
            t = t._pull(draws)
            return replace(t, hand=(*t.hand, *draws))
        if draws:
            raise RuleViolation(R_POWER_UPS, f"{card.id!r} does not draw cards")
        return t

    def _cast(self, card: Card, at: datetime, paid: Sequence[str]) -> CardTable:
        """A curse played at ``at``: not blocked, its casting cost paid, then opened."""
        if "curses" in self.blocks(at):
            blocking = [c.card_id for c in self.curses if "curses" in c.blocks]
            raise RuleViolation(
                R_BLOCKING,
                f"{card.id!r} is played while {', '.join(blocking)} blocks further curses; "
                "clear it first",
            )
        hand = _take(self.hand, paid)
        if hand is None:
            raise RuleViolation(R_COST, f"the casting cost {list(paid)} is not in the hand")
        self._check_cost(card, paid)
        curse = cu.open_curse(
            card.id,
            at,
            self.size,
            timeout=card.timeout,
            veto=card.veto,
            blocks=card.blocks,
            blocks_curses=card.blocks_curses,
        )
        return replace(
            self,
            hand=hand,
            discard_pile=_sorted(self.discard_pile, paid),
            curses=(*self.curses, curse),
            played=(*self.played, card.id),
        )

    def _check_cost(self, card: Card, paid: Sequence[str]) -> None:
        """Raise unless ``paid`` meets the card's casting cost (Casting Cost)."""
        want = f"{card.id!r} costs: {card.casting_cost or 'see the original card'}"
        if card.cost_time_bonus is not None:
            self._check_time_cost(card, paid)
        elif card.cost_specific:
            if Counter(paid) != Counter(dict(card.cost_specific)):
                raise RuleViolation(R_COST, f"{want}; paid {list(paid)}")
        elif card.cost_cards:
            curses = sum(self.card(c).is_curse for c in paid)
            if len(paid) != card.cost_cards or curses < card.cost_curses:
                raise RuleViolation(R_COST, f"{want}; paid {list(paid)}")
        elif paid and "casting_cost" not in card.consult:
            raise RuleViolation(R_COST, f"{want}; it discards no cards, paid {list(paid)}")

    def _check_time_cost(self, card: Card, paid: Sequence[str]) -> None:
        """At least the minutes in fixed-value time bonuses, whole cards; percentages and the
        Veto Question or 15 Minute Time Bonus do not count (Casting Cost)."""
        need = _size_value(card.cost_time_bonus, self.size, card, "cost_time_bonus")
        total = 0.0
        for cid in paid:
            bonus = self.card(cid)
            if not bonus.fixed_bonus:
                raise RuleViolation(
                    R_COST,
                    f"{cid!r} is not a fixed-value time bonus; only those pay "
                    f"{card.id!r}'s {need:g} minutes",
                )
            total += _size_value(bonus.minutes, self.size, bonus, "minutes")
        if total < need:
            raise RuleViolation(
                R_COST,
                f"{card.id!r} needs at least {need:g} minutes of fixed-value time bonuses "
                f"discarded, paid {total:g}",
            )

    # ---- curses -------------------------------------------------------------------------

    def clear_curse(self, card_id: str, at: datetime) -> CardTable:
        """The open curse ``card_id`` cleared (Clearing Curses)."""
        t = self.at(_aware(at))
        left = cu.close(t.curses, card_id)
        if left is None:
            raise RuleViolation(R_CLEAR, f"{card_id!r} is not an open curse (cleared or timed out)")
        return replace(t, curses=left)

    def veto_curse(self, card_id: str, at: datetime) -> tuple[CardTable, int]:
        """The open curse ``card_id`` vetoed: cleared, and the hider's bonus in minutes."""
        t = self.at(_aware(at))
        curse = next((c for c in t.curses if c.card_id == card_id), None)
        if curse is None:
            raise RuleViolation(
                R_VETO, f"{card_id!r} is not an open curse; a veto comes before the timeout"
            )
        if curse.veto_max_min is None:
            raise RuleViolation(R_VETO, f"{card_id!r} cannot be vetoed (its card says None)")
        bonus = curse.veto_bonus(at, self.size)
        return replace(t, curses=cu.close(t.curses, card_id) or ()), bonus

    # ---- the end of the round -----------------------------------------------------------

    def time_bonus_minutes(self, seeking_minutes: float) -> float:
        """The hand's time bonuses at the end of the round, in minutes.

        Fixed values for the game size, the Veto Question or 15 Minute Time Bonus's end
        value, each percentage of the seeking minutes (not compounding: Percentage Time
        Bonuses), and each Duplicate Another Card as the best fixed-value bonus in hand.
        """
        if not isinstance(seeking_minutes, (int, float)) or not seeking_minutes >= 0:
            raise ValueError(f"seeking_minutes must be a number >= 0, got {seeking_minutes!r}")
        total, best, duplicates = 0.0, 0.0, 0
        for cid in self.hand:
            card = self.card(cid)
            if card.kind == "time-bonus" and card.percent is not None:
                total += seeking_minutes * card.percent / 100.0
            elif card.fixed_bonus or card.mechanic == "veto-or-time-bonus":
                value = _size_value(card.minutes, self.size, card, "minutes")
                total += value
                best = max(best, value) if card.fixed_bonus else best
            elif card.mechanic == "duplicate":
                duplicates += 1
        return total + duplicates * best


def _size_value(values: BySize | None, size: str, card: Card, name: str) -> float:
    """``values`` for ``size``; ValueError naming the card when the file does not give it."""
    value = None if values is None else values.get(size)
    if value is None:
        raise ValueError(
            f"card {card.id!r} has no {name} for size {size} (the house rules leave it to the "
            "original card); give it in your own card file"
        )
    return float(value)


def new_table(
    catalogue: Mapping[str, Card],
    size: str,
    *,
    hand: Sequence[str] = (),
    excluded: Sequence[str] = (),
    hand_limit: int | None = HAND_LIMIT,
) -> CardTable:
    """The hider's cards at the start of a round: every copy in the deck but ``excluded``
    (set aside, not the discard pile) and the starting ``hand``.

    Parameters
    ----------
    catalogue : Mapping[str, Card]
        The card kinds by id (a card file's cards).
    size : str
        The game size, "S", "M" or "L".
    hand : sequence of str
        Cards the hider starts the round with (taken from the deck).
    excluded : sequence of str
        Cards removed from the deck for this game (the game setup's).
    hand_limit : int or None
        The hand limit (6; None for no limit).
    """
    if size not in cu.GAME_SIZES:
        raise ValueError(f"size {size!r} is not a game size; use S, M or L")
    if hand_limit is not None and (isinstance(hand_limit, bool) or hand_limit < 0):
        raise ValueError(f"hand_limit must be an int >= 0 or None, got {hand_limit!r}")
    deck = Counter({cid: card.count for cid, card in catalogue.items()})
    for name, ids in (("excluded", excluded), ("hand", hand)):
        for cid in ids:
            if cid not in catalogue:
                raise ValueError(f"{name}: card {cid!r} is not in the card file; check its id")
            if deck[cid] < 1:
                raise ValueError(
                    f"{name}: no copy of {cid!r} is left (the card file counts "
                    f"{catalogue[cid].count}); check the count"
                )
            deck[cid] -= 1
    return CardTable(
        size=size,
        catalogue=catalogue,
        deck=tuple(sorted(deck.elements())),
        hand=tuple(hand),
        excluded=tuple(sorted(excluded)),
        hand_limit=hand_limit,
    )
