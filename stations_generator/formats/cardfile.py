"""Card files for the referee: the hider's deck as TOML ``[[card]]`` tables.

The shipped file is named ``"jltg-eu"`` (JLTG.EU house rules); a user's file is a path.
A user's file may start with ``base = "jltg-eu"``: its cards then add to, or fill in and
replace fields of, the shipped cards with the same id (the house rules leave the text of
unchanged official cards to the original card). Every field is checked; a bad one is a
one-line :class:`InputError` naming the card, the field and the fix.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from stations_generator.core.referee.cards import KINDS, MECHANICS, Card, card_id
from stations_generator.core.referee.curses import (
    BLOCKABLE,
    GAME_SIZES,
    NO_VETO,
    TIMEOUT_KINDS,
    BySize,
)
from stations_generator.errors import InputError

FORMAT = "stations-generator/cards"
VERSION = 1
#: Shipped card files by name.
SHIPPED = {"jltg-eu": "data/jltg-eu-cards.toml"}
#: A card file is a few hundred small tables; 1 MiB is far more than any needs.
MAX_CARD_FILE_BYTES = 1024**2
_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_TOP = {"format", "version", "name", "base", "card", "setup"}
_BY_SIZE = ("timeout", "veto", "cost_time_bonus", "minutes")
_INTS = ("cost_cards", "cost_curses", "discard", "draw", "expand")
_TEXTS = ("text", "casting_cost")
_BOOLS = ("once_per_round", "blocks_curses")
FIELDS = (
    "id",
    "name",
    "kind",
    "count",
    *_TEXTS,
    "consult",
    "blocks",
    *_BOOLS,
    *_BY_SIZE,
    *_INTS,
    "cost_specific",
    "percent",
    "mechanic",
)
#: Fields a card may leave to the original card (``consult``).
CONSULTABLE = ("text", "casting_cost", "minutes", "mechanic", "timeout", "veto")


@dataclass(frozen=True)
class CardFile:
    """A read card file.

    Attributes
    ----------
    name : str
        The file's ``name`` (or its file name).
    cards : Mapping[str, Card]
        The catalogue: card kinds by id, in file order.
    setups : Mapping[str, tuple[str, ...]]
        Named game setups: the cards each removes from the deck (with repeats).
    """

    name: str
    cards: Mapping[str, Card]
    setups: Mapping[str, tuple[str, ...]]

    def excluded(self, setup: str) -> tuple[str, ...]:
        """The cards the game setup ``setup`` removes from the deck."""
        if setup not in self.setups:
            known = ", ".join(self.setups) or "none"
            raise InputError(f"card file {self.name!r} has no setup {setup!r}; known: {known}")
        return self.setups[setup]


def read_card_file(source: str | Path) -> CardFile:
    """Read and check a card file: a shipped one by name ("jltg-eu") or a path.

    Raises
    ------
    InputError
        One line naming the card, the field and the fix.
    """
    if not isinstance(source, (str, Path)):
        raise TypeError(f"source must be a card file name or path, not {type(source).__name__}")
    data, label = _load(source)
    if not isinstance(data.get("setup", {}), dict):
        raise InputError(f"card file {label}: setup must be [setup.NAME] tables")
    base = data.get("base")
    if base is not None:
        if base not in SHIPPED:
            raise InputError(
                f"card file {label}: base {base!r} is not a shipped card file; use "
                f"{', '.join(map(repr, SHIPPED))}"
            )
        if isinstance(source, str) and source == base:
            raise InputError(f"card file {label}: base names the file itself; remove it")
        base_data, _ = _load(base)
        data = _overlay(base_data, data, label)
    return _build(data, label)


def load_catalogue(source: str | Path) -> Mapping[str, Card]:
    """The catalogue of a card file (see :func:`read_card_file`)."""
    return read_card_file(source).cards


def _load(source: str | Path) -> tuple[dict[str, Any], str]:
    """The parsed TOML of a shipped file or a path, size-limited."""
    if isinstance(source, str) and source in SHIPPED:
        label = f"{source!r} (shipped)"
        raw = resources.files("stations_generator").joinpath(SHIPPED[source]).read_bytes()
    else:
        path = Path(source)
        label = repr(path.name)
        try:
            if path.is_dir():
                raise InputError(f"card file {label} is a folder; give a .toml card file")
            if path.stat().st_size > MAX_CARD_FILE_BYTES:
                raise InputError(
                    f"card file {label} is larger than {MAX_CARD_FILE_BYTES} bytes; a card "
                    "file is a few hundred [[card]] tables"
                )
            with path.open("rb") as f:
                raw = f.read(MAX_CARD_FILE_BYTES + 1)
        except FileNotFoundError:
            raise InputError(
                f"card file {label} does not exist; check the path (or use the shipped "
                f"{', '.join(map(repr, SHIPPED))})"
            ) from None
        except OSError as exc:
            raise InputError(f"card file {label} cannot be read ({exc.strerror})") from None
        if len(raw) > MAX_CARD_FILE_BYTES:
            raise InputError(f"card file {label} is larger than {MAX_CARD_FILE_BYTES} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"card file {label} is not UTF-8 text; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"card file {label} is not TOML: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise InputError(
            f"card file {label} nests tables too deeply; give [[card]] tables"
        ) from None
    return data, label


def _key(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return None
    if isinstance(raw.get("id"), str):
        return raw["id"]
    return card_id(raw["name"]) if isinstance(raw.get("name"), str) else None


def _overlay(base: dict[str, Any], data: dict[str, Any], label: str) -> dict[str, Any]:
    """The base file's tables with the user's cards merged in by id (fields replaced; a
    field given is no longer left to the original card) and setups added."""
    cards = [dict(c) if isinstance(c, dict) else c for c in base.get("card", [])]
    where = {_key(c): i for i, c in enumerate(cards)}
    extra = data.get("card", [])
    if not isinstance(extra, list):
        raise InputError(f"card file {label}: card must be [[card]] tables")
    for raw in extra:
        key = _key(raw)
        if key in where:
            old = cards[where[key]]
            merged = {**old, **raw}
            if "consult" not in raw:
                left = [f for f in old.get("consult", []) if f not in raw]
                merged["consult"] = left
            cards[where[key]] = merged
        else:
            cards.append(raw)
    setups = {**base.get("setup", {}), **(data.get("setup") or {})}
    out = {k: v for k, v in data.items() if k != "base"}
    return {**out, "card": cards, "setup": setups, "name": data.get("name", base.get("name"))}


def _build(data: dict[str, Any], label: str) -> CardFile:
    """Check the top level, every card and every setup."""
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise InputError(
            f"card file {label}: unknown top-level key {unknown[0]!r}; use {', '.join(sorted(_TOP))}"
        )
    if data.get("format") != FORMAT:
        raise InputError(f'card file {label}: format must be "{FORMAT}"; add it at the top')
    if data.get("version") != VERSION:
        raise InputError(f"card file {label}: version must be {VERSION}")
    name = data.get("name", label)
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"card file {label}: name must be a non-empty string")
    raws = data.get("card")
    if not isinstance(raws, list) or not raws:
        raise InputError(f"card file {label} has no [[card]] tables; add one per card")
    cards: dict[str, Card] = {}
    for i, raw in enumerate(raws, 1):
        card = _card(raw, f"card file {label}: card {i}")
        if card.id in cards:
            raise InputError(
                f"card file {label}: card {i} {card.name!r}: id {card.id!r} is used twice; "
                "give one table per card (raise its count for copies)"
            )
        cards[card.id] = card
    for card in cards.values():
        for cid, _n in card.cost_specific:
            if cid not in cards:
                raise InputError(
                    f"card file {label}: card {card.name!r}: cost_specific names {cid!r}, "
                    "which is not a card in the file; check the id"
                )
    return CardFile(name, cards, _setups(data.get("setup", {}), cards, label))


def _setups(raw: Any, cards: Mapping[str, Card], label: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, dict):
        raise InputError(f"card file {label}: setup must be [setup.NAME] tables")
    out = {}
    for key, table in raw.items():
        where = f"card file {label}: setup {key!r}"
        if not isinstance(table, dict) or set(table) - {"name", "excluded"}:
            raise InputError(f"{where}: give only name and excluded = [card ids]")
        ids = table.get("excluded", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise InputError(f"{where}: excluded must be a list of card ids")
        for cid, n in Counter(ids).items():
            if cid not in cards:
                raise InputError(
                    f"{where}: excluded {cid!r} is not a card in the file; check the id"
                )
            if n > cards[cid].count:
                raise InputError(
                    f"{where}: excludes {n} copies of {cid!r} but the file counts "
                    f"{cards[cid].count}; raise its count or list it fewer times"
                )
        out[key] = tuple(ids)
    return out


def _fail(where: str, fld: str, problem: str) -> InputError:
    return InputError(f"{where}: {fld} {problem}")


def _by_size(v: Any, where: str, fld: str, *, partial: bool) -> BySize:
    """A ``{ S = .., M = .., L = .. }`` table of finite numbers >= 0."""
    if not isinstance(v, dict) or not v or set(v) - set(GAME_SIZES):
        raise _fail(where, fld, "must be a table like { S = 30, M = 45, L = 60 }")
    for k, x in v.items():
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
            raise _fail(where, fld, f"{k} must be a number of minutes >= 0, got {x!r}")
    if not partial and set(v) != set(GAME_SIZES):
        missing = ", ".join(s for s in GAME_SIZES if s not in v)
        raise _fail(where, fld, f"has no value for {missing}; give S, M and L")
    return BySize.of(v)


def _card(raw: Any, where: str) -> Card:
    """One [[card]] table checked into a :class:`Card`."""
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be a [[card]] table")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(where, "name", "must be the card's printed name (a non-empty string)")
    where = f"{where} {name!r}"
    unknown = sorted(set(raw) - set(FIELDS))
    if unknown:
        raise _fail(where, repr(unknown[0]), f"is not a card field; use {', '.join(FIELDS)}")
    cid = raw.get("id", card_id(name))
    if not isinstance(cid, str) or not _ID.fullmatch(cid):
        raise _fail(where, "id", f"{cid!r} must be lowercase letters, digits and single '-'")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise _fail(where, "kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    fields: dict[str, Any] = {"id": cid, "name": name, "kind": kind}
    for fld in ("count", *_INTS):
        v = raw.get(fld, 0 if fld != "count" else None)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise _fail(where, fld, f"must be a whole number >= 0, got {v!r}")
        fields[fld] = v
    for fld in _TEXTS:
        if fld in raw and not isinstance(raw[fld], str):
            raise _fail(where, fld, "must be a string (the card's printed text)")
        fields[fld] = raw.get(fld)
    for fld in _BOOLS:
        if fld in raw and not isinstance(raw[fld], bool):
            raise _fail(where, fld, "must be true or false")
    fields["once_per_round"] = raw.get("once_per_round", False)
    fields["blocks_curses"] = raw.get("blocks_curses")
    fields.update(_lists(raw, where))
    fields.update(_times(raw, where, fields["consult"]))
    fields.update(_kind_fields(raw, where, kind, fields["consult"]))
    if fields["cost_curses"] > fields["cost_cards"]:
        raise _fail(where, "cost_curses", "must not be more than cost_cards")
    return Card(**fields)


def _lists(raw: dict[str, Any], where: str) -> dict[str, Any]:
    consult = raw.get("consult", [])
    if not isinstance(consult, list) or any(c not in CONSULTABLE for c in consult):
        raise _fail(where, "consult", f"must list fields among {', '.join(CONSULTABLE)}")
    blocks = raw.get("blocks", [])
    if not isinstance(blocks, list) or any(b not in BLOCKABLE for b in blocks):
        raise _fail(where, "blocks", f"must list some of {', '.join(BLOCKABLE)} ([] for nothing)")
    spec = raw.get("cost_specific", {})
    if not isinstance(spec, dict) or any(
        isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in spec.values()
    ):
        raise _fail(where, "cost_specific", 'must be a table like { "time-bonus-5" = 2 }')
    return {
        "consult": frozenset(consult),
        "blocks": frozenset(blocks),
        "cost_specific": tuple(sorted(spec.items())),
    }


def _times(raw: dict[str, Any], where: str, consult: frozenset[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    t = raw.get("timeout")
    if isinstance(t, str):
        if t not in TIMEOUT_KINDS:
            raise _fail(
                where, "timeout", f"{t!r} must be minutes by size or one of {TIMEOUT_KINDS}"
            )
        out["timeout"] = t
    else:
        out["timeout"] = None if t is None else _by_size(t, where, "timeout", partial=False)
    v = raw.get("veto")
    if isinstance(v, str):
        if v != NO_VETO:
            raise _fail(where, "veto", f'{v!r} must be minutes by size or "{NO_VETO}"')
        out["veto"] = v
    else:
        out["veto"] = None if v is None else _by_size(v, where, "veto", partial=False)
    c = raw.get("cost_time_bonus")
    out["cost_time_bonus"] = (
        None if c is None else _by_size(c, where, "cost_time_bonus", partial=False)
    )
    m = raw.get("minutes")
    out["minutes"] = (
        None if m is None else _by_size(m, where, "minutes", partial="minutes" in consult)
    )
    return out


def _kind_fields(
    raw: dict[str, Any], where: str, kind: str, consult: frozenset[str]
) -> dict[str, Any]:
    """What each kind must and must not carry."""
    curse_only = ("blocks", "blocks_curses", "timeout", "veto", "cost_time_bonus")
    curse_only += ("cost_cards", "cost_curses", "cost_specific", "casting_cost", "once_per_round")
    if kind not in ("curse", "blessing"):
        bad = next((f for f in curse_only if f in raw), None)
        if bad:
            raise _fail(where, bad, f"is for curses; a {kind} has none")
    mechanic = raw.get("mechanic")
    percent = raw.get("percent")
    if kind == "power-up":
        if mechanic not in MECHANICS:
            raise _fail(where, "mechanic", f"{mechanic!r} is not one of {', '.join(MECHANICS)}")
        need = {"discard-draw": ("discard", "draw"), "draw-expand": ("draw", "expand")}
        for fld in need.get(mechanic, ()):
            if not raw.get(fld):
                raise _fail(where, fld, f"must be >= 1 for a {mechanic} power up")
        if (mechanic == "veto-or-time-bonus") != ("minutes" in raw):
            raise _fail(where, "minutes", "is the end-of-round value of veto-or-time-bonus only")
    elif mechanic is not None or any(raw.get(f) for f in ("discard", "draw", "expand")):
        raise _fail(where, "mechanic", f"and its numbers are for power ups, not a {kind}")
    if kind == "time-bonus":
        if ("minutes" in raw) == (percent is not None):
            raise _fail(where, "minutes", "or percent: a time bonus has exactly one of them")
        if percent is not None and (
            isinstance(percent, bool)
            or not isinstance(percent, (int, float))
            or not 0 < percent <= 100
        ):
            raise _fail(where, "percent", f"must be a number in (0, 100], got {percent!r}")
    elif percent is not None or (kind != "power-up" and "minutes" in raw):
        raise _fail(where, "minutes", f"or percent is for time bonuses, not a {kind}")
    return {"mechanic": mechanic, "percent": None if percent is None else float(percent)}
