"""The POI catalogue: OSM tag filters -> category, priority tier, question subjects.

The catalogue ships as ``stations_generator/data/catalogue.toml``; users extend or
override it with their own TOML file of ``[[category]]`` tables (``--categories``):
a table whose ``name`` exists replaces that category, a new name adds one.

A tag filter is a list of alternatives; each alternative is a list of clauses that
must all hold. Clauses use Overpass's own syntax, so the same filter both selects
objects in a saved extract and builds the Overpass query:

``k=v`` equals, ``k`` present, ``!k`` absent, ``k!=v`` differs, ``k~regex`` matches.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from stations_generator.errors import InputError

NOT_A_STATION = 99
#: Distinct tag signatures a catalogue remembers answers for, before it starts again.
MEMO_SIZE = 100_000


@dataclass(frozen=True)
class Prefilter:
    """The tags an object needs before a predicate could keep it, checked in C++.

    A reader given a prefilter lets osmium drop every object without one of
    ``pairs`` (or, when ``keys`` is not empty, without one of the keys of
    ``pairs`` and ``keys``) before Python sees it; the predicate then decides
    on the few objects left. A prefilter must be implied by its predicate:
    whatever the predicate keeps passes the prefilter.

    Parameters
    ----------
    pairs : frozenset of (str, str)
        ``(key, value)`` tags, one of which every kept object has, unless it
        has one of ``keys``.
    keys : frozenset of str
        Keys for alternatives without an exact value (``key~regex``, ``key``).
    """

    pairs: frozenset[tuple[str, str]] = frozenset()
    keys: frozenset[str] = frozenset()

    def exact_filter(self) -> Any:
        """A TagFilter of ``pairs`` alone (the objects with one of ``keys`` need another pass)."""
        import osmium.filter

        if self.pairs:
            return osmium.filter.TagFilter(*sorted(self.pairs))
        return osmium.filter.EntityFilter(osmium.osm.NOTHING)

    def osmium_filter(self) -> Any:
        """The osmium filter: a TagFilter, a KeyFilter when ``keys`` is set."""
        import osmium.filter

        if self.keys:
            return osmium.filter.KeyFilter(*sorted(self.keys | {k for k, _ in self.pairs}))
        if self.pairs:
            return osmium.filter.TagFilter(*sorted(self.pairs))
        return osmium.filter.EntityFilter(osmium.osm.NOTHING)


@dataclass(frozen=True)
class Clause:
    """One tag condition, e.g. ``amenity=cafe`` or ``diplomatic~^consulate``."""

    key: str
    op: str  # "=", "!=", "~", "exists", "absent"
    value: str = ""
    pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> Clause:
        """Parse one clause written in Overpass syntax."""
        text = text.strip()
        if not text:
            raise ValueError("empty tag clause")
        if text.startswith("!"):
            return cls(text[1:].strip(), "absent")
        for op in ("!=", "~", "="):
            if op in text:
                key, value = text.split(op, 1)
                key, value = key.strip(), value.strip()
                if not key:
                    raise ValueError(f"tag clause {text!r} has no key")
                if op == "~":
                    try:
                        return cls(key, op, value, re.compile(value))
                    except re.error as exc:
                        raise ValueError(f"bad regular expression in {text!r}: {exc}") from exc
                return cls(key, op, value)
        return cls(text, "exists")

    def holds(self, tags: Mapping[str, str]) -> bool:
        """Whether ``tags`` satisfy the clause."""
        value = tags.get(self.key)
        if self.op == "=":
            return value == self.value
        if self.op == "exists":
            return value is not None
        if self.op == "absent":
            return value is None
        if self.op == "!=":
            return value != self.value
        return value is not None and self.pattern is not None and bool(self.pattern.search(value))

    def overpass(self) -> str:
        """The clause as an Overpass QL tag filter, e.g. ``["amenity"="cafe"]``."""
        key = _ql_string(self.key)
        if self.op == "exists":
            return f"[{key}]"
        if self.op == "absent":
            return f"[!{key}]"
        return f"[{key}{self.op}{_ql_string(self.value)}]"


def _ql_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class Category:
    """One catalogue entry."""

    name: str
    label: str
    priority: int
    station: bool
    transit: bool
    match: tuple[tuple[Clause, ...], ...]
    subjects: tuple[str, ...]

    def matches(self, tags: Mapping[str, str]) -> bool:
        """Whether an OSM object with ``tags`` belongs to this category."""
        return any(all(c.holds(tags) for c in alternative) for alternative in self.match)

    def overpass_filters(self) -> list[str]:
        """One Overpass filter string per alternative, e.g. ``["aeroway"="aerodrome"]["iata"]``."""
        return ["".join(c.overpass() for c in alternative) for alternative in self.match]


class Catalogue:
    """An ordered set of categories with fast tag matching.

    Parameters
    ----------
    categories : iterable of Category
        Entries in catalogue order (names must be unique).
    """

    def __init__(self, categories: Iterable[Category]):
        self.categories: dict[str, Category] = {}
        for cat in categories:
            self.categories[cat.name] = cat
        self._order = {name: k for k, name in enumerate(self.categories)}
        # Index categories by the key of their first positive clause, so matching a
        # tag dict only tests categories whose key it carries.
        self._by_key: dict[str, list[Category]] = {}
        self._unindexed: list[Category] = []
        for cat in self.categories.values():
            keys = {_index_key(alt) for alt in cat.match}
            if None in keys:
                self._unindexed.append(cat)
                continue
            for key in sorted(keys):  # type: ignore[arg-type]
                self._by_key.setdefault(key, []).append(cat)
        # Matching depends only on the tags whose key some clause names: answers are
        # memoised by those tags (real data repeats them: amenity=restaurant, …).
        self._clause_key_order = tuple(
            sorted({c.key for cat in self.categories.values() for alt in cat.match for c in alt})
        )
        self._memo: dict[tuple, tuple[Category, ...]] = {}
        self._station_memo: dict[tuple, tuple[Category | None, tuple[str, ...]]] = {}
        self._keeps_memo: dict[tuple, bool] = {}
        self._candidate_memo: dict[tuple, tuple[str, int, bool, str] | None] = {}

    def __contains__(self, name: object) -> bool:
        return name in self.categories

    def __getitem__(self, name: str) -> Category:
        return self.categories[name]

    def __iter__(self):
        return iter(self.categories.values())

    def __len__(self) -> int:
        return len(self.categories)

    @property
    def station_names(self) -> list[str]:
        """Names of the categories that are vehicle-station candidates by default."""
        return [c.name for c in self.categories.values() if c.station]

    @property
    def subjects(self) -> list[str]:
        """Every question subject some category serves, sorted."""
        return sorted({s for c in self.categories.values() for s in c.subjects})

    def select(self, names: Sequence[str]) -> Catalogue:
        """A catalogue with only ``names``; an unknown name is an :class:`InputError`."""
        unknown = [n for n in names if n not in self.categories]
        if unknown:
            raise InputError(
                f"unknown category {unknown[0]!r}; known categories: "
                + ", ".join(sorted(self.categories))
            )
        wanted = set(names)
        return Catalogue(c for c in self.categories.values() if c.name in wanted)

    def _signature(self, tags: Mapping[str, str]) -> tuple | None:
        """The values (None: absent) of the tags some clause names, in a fixed key order:
        what matching depends on (None: a value is not hashable)."""
        signature = tuple(map(tags.get, self._clause_key_order))
        try:
            hash(signature)
        except TypeError:  # an unhashable value: no memo
            return None
        return signature

    def _memoised(self, signature: tuple, tags: Mapping[str, str]) -> tuple[Category, ...]:
        known = self._memo.get(signature)
        if known is None:
            known = _remember(self._memo, signature, tuple(self._matching(tags)))
        return known

    def matching(self, tags: Mapping[str, str]) -> list[Category]:
        """Every category the tags belong to, in catalogue order."""
        signature = self._signature(tags)
        if signature is None:
            return self._matching(tags)
        return list(self._memoised(signature, tags))

    def station_match(self, tags: Mapping[str, str]) -> tuple[Category | None, tuple[str, ...]]:
        """:meth:`station_category` of ``tags``, and the question subjects of every
        category they belong to (sorted); one memoised lookup for the candidates."""
        # (_signature inline, its hash checked by the memo's own look-up: one call per
        # candidate, 100,000 on a large map)
        signature = tuple(map(tags.get, self._clause_key_order))
        try:
            known = self._station_memo.get(signature)
        except TypeError:  # an unhashable value: no memo
            return self._station_match(tags, self._matching(tags))
        if known is None:
            match = self._station_match(tags, self._memoised(signature, tags))
            known = _remember(self._station_memo, signature, match)
        return known

    def candidate_match(self, tags: Mapping[str, str]) -> tuple[str, int, bool, str] | None:
        """What the candidates table takes from :meth:`station_match`: the station
        category's name, priority and transit flag, and the subjects comma-separated;
        None when the tags have no station category. Memoised as ``station_match``."""
        signature = tuple(map(tags.get, self._clause_key_order))  # (as in station_match)
        try:
            known = self._candidate_memo.get(signature, _UNKNOWN)
        except TypeError:  # an unhashable value: no memo
            return _candidate_of(*self.station_match(tags))
        if known is _UNKNOWN:
            known = _remember(
                self._candidate_memo, signature, _candidate_of(*self.station_match(tags))
            )
        return known

    def _station_match(
        self, tags: Mapping[str, str], matching: Sequence[Category]
    ) -> tuple[Category | None, tuple[str, ...]]:
        subjects = tuple(sorted({s for c in matching for s in c.subjects}))
        return self.station_category(tags, matching), subjects

    def _matching(self, tags: Mapping[str, str]) -> list[Category]:
        found: dict[str, Category] = {}
        for key in tags:
            for cat in self._by_key.get(key, ()):
                if cat.name not in found and cat.matches(tags):
                    found[cat.name] = cat
        for cat in self._unindexed:
            if cat.name not in found and cat.matches(tags):
                found[cat.name] = cat
        return sorted(found.values(), key=lambda c: self._order[c.name])

    def station_category(
        self, tags: Mapping[str, str], matching: Sequence[Category] | None = None
    ) -> Category | None:
        """The best-ranked station category the tags belong to (lowest priority, then order).

        ``matching``, if given, is what :meth:`matching` returns for ``tags`` (to not
        match them twice)."""
        best = None
        for cat in self.matching(tags) if matching is None else matching:
            if cat.station and (best is None or cat.priority < best.priority):
                best = cat
        return best

    def keeps(self, tags: Mapping[str, str]) -> bool:
        """Whether the tags belong to any category (a predicate for the OSM readers)."""
        signature = tuple(map(tags.get, self._clause_key_order))  # (as in station_match)
        try:
            kept = self._keeps_memo.get(signature)
        except TypeError:  # an unhashable value: no memo
            return self._keeps_unmemoised(tags)
        if kept is None:
            kept = _remember(self._keeps_memo, signature, bool(self._memoised(signature, tags)))
        return kept

    def _keeps_unmemoised(self, tags: Mapping[str, str]) -> bool:
        for key in tags:
            for cat in self._by_key.get(key, ()):
                if cat.matches(tags):
                    return True
        return any(cat.matches(tags) for cat in self._unindexed)

    def prefilter(self):
        """The tags :meth:`keeps` needs, for the extract readers' C++ tag filter.

        Returns
        -------
        Prefilter or None
            One exact ``key=value`` of each alternative (or its key, for an
            alternative with only ``key`` / ``key~regex`` clauses); None when an
            alternative has no positive clause (anything might match it).
        """
        pairs: set[tuple[str, str]] = set()
        keys: set[str] = set()
        for cat in self.categories.values():
            for alternative in cat.match:
                exact = next((c for c in alternative if c.op == "="), None)
                if exact is not None:
                    pairs.add((exact.key, exact.value))
                    continue
                positive = next((c for c in alternative if c.op in ("exists", "~")), None)
                if positive is None:
                    return None
                keys.add(positive.key)
        return Prefilter(frozenset(pairs), frozenset(keys))

    def fingerprint(self) -> str:
        """A hash of what :meth:`keeps` matches: equal fingerprints keep the same objects."""
        import hashlib

        known = getattr(self, "_fingerprint", None)
        if known is not None:
            return known

        text = repr(
            sorted(
                (cat.name, [[(c.key, c.op, c.value) for c in alt] for alt in cat.match])
                for cat in self.categories.values()
            )
        )
        self._fingerprint = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return self._fingerprint

    def overpass_filters(self) -> list[str]:
        """Every distinct Overpass filter of the catalogue, sorted (for one batched query)."""
        return sorted({f for cat in self.categories.values() for f in cat.overpass_filters()})


_UNKNOWN = object()  # (not in a memo; None is a memoised answer there)


def _candidate_of(
    category: Category | None, subjects: tuple[str, ...]
) -> tuple[str, int, bool, str] | None:
    """:meth:`Catalogue.candidate_match` of a :meth:`Catalogue.station_match` answer."""
    if category is None:
        return None
    return category.name, int(category.priority), bool(category.transit), ",".join(subjects)


def _remember(memo: dict, key: tuple, value):
    """Store ``value`` under ``key``, first emptying a memo that holds :data:`MEMO_SIZE`."""
    if len(memo) > MEMO_SIZE:
        memo.clear()
    memo[key] = value
    return value


def _index_key(alternative: tuple[Clause, ...]) -> str | None:
    for clause in alternative:
        if clause.op in ("=", "exists", "~"):
            return clause.key
    return None


def _category_from_table(table: Mapping, source: str) -> Category:
    try:
        name = str(table["name"])
        match = table["match"]
    except KeyError as exc:
        raise InputError(
            f"{source}: a [[category]] has no {exc.args[0]!r}; give name and match"
        ) from None
    if isinstance(match, str) or not isinstance(match, list) or not match:
        raise InputError(
            f"{source}: category {name!r} needs match = a list of lists of tag clauses, "
            'e.g. match = [["amenity=cafe"]]'
        )
    alternatives = []
    for alt in match:
        if isinstance(alt, str):
            alt = [alt]
        try:
            alternatives.append(tuple(Clause.parse(str(c)) for c in alt))
        except ValueError as exc:
            raise InputError(f"{source}: category {name!r}: {exc}") from None
    priority = int(table.get("priority", NOT_A_STATION))
    return Category(
        name=name,
        label=str(table.get("label", name.replace("_", " ").capitalize())),
        priority=priority,
        station=bool(table.get("station", priority < NOT_A_STATION)),
        transit=bool(table.get("transit", False)),
        match=tuple(alternatives),
        subjects=tuple(str(s) for s in table.get("subjects", ())),
    )


def _load_tables(text: str, source: str) -> list[Category]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(
            f"{source} is not valid TOML ({exc}); see the catalogue format in the docs"
        ) from None
    tables = doc.get("category")
    if not isinstance(tables, list) or not tables:
        raise InputError(
            f"{source} has no [[category]] tables; see the catalogue format in the docs"
        )
    return [_category_from_table(t, source) for t in tables]


def load_catalogue(extra: Sequence[Path] = ()) -> Catalogue:
    """Load the bundled catalogue, then apply the user's catalogue files in order.

    Parameters
    ----------
    extra : sequence of Path
        TOML files of ``[[category]]`` tables; a known name replaces that
        category, a new name is appended.

    Returns
    -------
    Catalogue
    """
    text = resources.files("stations_generator").joinpath("data/catalogue.toml").read_text("utf-8")
    merged = {c.name: c for c in _load_tables(text, "bundled catalogue")}
    for path in extra:
        path = Path(path)
        if not path.is_file():
            raise InputError(
                f"category file {str(path)!r} does not exist; check the --categories path"
            )
        for cat in _load_tables(path.read_text("utf-8"), repr(str(path))):
            merged[cat.name] = cat
    return Catalogue(merged.values())
