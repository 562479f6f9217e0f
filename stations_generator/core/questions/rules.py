"""Rule sets: hiding-zone radii, valid hiding stops, and the question cost ledger.

Presets (the game's rules):

* ``jltg-eu`` — JLTG.EU house rules: hiding radius 500 m for S and M, 1 km for L;
  valid stops per country (Germany: railway stations and halts incl. S-Bahn, no
  metro or tram stops; Netherlands: any railway station plus Rotterdam Metro line B).
* ``official`` — the official (US) rules: ¼ mile (402 m) for S and M, ½ mile (805 m)
  for L; every station of the map is a valid stop.

Curses scale the radius: Prosperous Home ×1.5, Tiny Home ×0.5, both ×0.75.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from stations_generator.core.questions.geometry import Question, Station
from stations_generator.core.questions.stops import de_stop, nl_stop, other_stop

MILE_M = 1609.344

MODIFIERS = {"prosperous": 1.5, "tiny": 0.5}
BOTH_MODIFIERS = 0.75  # Prosperous + Tiny Home together


def _any(_station: Station) -> bool:
    return True


@dataclass(frozen=True)
class RuleSet:
    """A named rule set: radii by game size and which stops are valid hiding stations."""

    name: str
    hiding_radius_m: dict[str, float]
    valid_stop: dict[str, Callable[[Station], bool]] = field(default_factory=dict)
    description: str = ""

    def radius_m(self, game_size: str, modifiers: Sequence[str] = ()) -> float:
        """The hiding-zone radius for a game size with curse modifiers applied."""
        mods = set(modifiers)
        unknown = mods - set(MODIFIERS)
        if unknown:
            raise ValueError(f"unknown modifier {sorted(unknown)[0]!r}; use prosperous or tiny")
        radius = self.hiding_radius_m[game_size]
        if mods == {"prosperous", "tiny"}:
            return radius * BOTH_MODIFIERS
        for m in mods:
            radius *= MODIFIERS[m]
        return radius

    def is_valid_stop(self, station: Station, country: str | None) -> bool:
        """Whether ``station`` may be a hiding station under this rule set in ``country``."""
        check = self.valid_stop.get((country or "").upper()) or self.valid_stop.get("*", _any)
        return check(station)


RULE_SETS: dict[str, RuleSet] = {
    "jltg-eu": RuleSet(
        "jltg-eu",
        {"S": 500.0, "M": 500.0, "L": 1000.0},
        # JLTG.EU house rules, "Hiding Zones" (see core/questions/stops.py)
        {"DE": de_stop, "NL": nl_stop, "*": other_stop},
        "JLTG.EU house rules",
    ),
    "official": RuleSet(
        "official",
        {"S": MILE_M / 4, "M": MILE_M / 4, "L": MILE_M / 2},
        {"*": _any},
        "official Hide + Seek rules",
    ),
}

# OSM admin levels of the matching "zone" questions, per country (the game's rules).
ADMIN_LEVELS = {"DE": (4, 6, 8), "NL": (4, 8)}


def rule_set(name: str) -> RuleSet:
    """A preset by name; ValueError naming the presets otherwise."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise ValueError(f"unknown rule set {name!r}; use {', '.join(RULE_SETS)}") from None


@dataclass(frozen=True)
class LedgerEntry:
    """One question in the cost ledger."""

    label: str
    times_asked: int  # including this one
    draw: int
    pick: int


def cost_ledger(questions: Sequence[Question]) -> list[LedgerEntry]:
    """Cards the hider draws and picks for each question, in order.

    A question asked again (same kind and parameters: the same radius, subject or
    admin level — wherever it is asked) costs its base cost once more for every
    earlier asking: the n-th asking draws and picks n × the base.
    """
    seen: dict[tuple, int] = {}
    out = []
    for q in questions:
        key = q.cost_key()
        seen[key] = seen.get(key, 0) + 1
        n = seen[key]
        draw, pick = q.cost
        out.append(LedgerEntry(q.label(), n, n * draw, n * pick))
    return out
