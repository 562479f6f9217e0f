"""The hider's cards as the referee shows them: hand, deck, curses with timeouts (pure)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stations_generator.core.referee.state import CardsView


def cards_view(table: Any, at: datetime, size: str) -> CardsView | None:
    """What a card table (``core.referee.cards.CardTable``) holds at ``at``.

    Each open curse shows when it was cast, when its timeout clears it and what an
    immediate veto is worth now (minutes of time bonus; None: it cannot be vetoed).
    """
    if table is None:
        return None
    curses = []
    for c in table.curses:
        ends = c.ends_at
        veto = None if c.veto_max_min is None else c.veto_bonus(at, size)
        curses.append(
            {
                "card": c.card_id,
                "cast_at": c.cast_at,
                "times_out_at": ends,
                "blocks": sorted(c.blocks),
                "veto_min": veto,
            }
        )
    return CardsView(
        hand=tuple(table.hand),
        deck=len(table.deck),
        discard=len(table.discard_pile),
        hand_limit=table.hand_limit,
        curses=tuple(curses),
        blocks=tuple(sorted(table.blocks(at))),
        pending_rewards=len(table.rewards),
    )
