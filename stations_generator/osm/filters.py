"""Overpass tag filters as players write them: ``[railway=station][subway=yes]``.

The taibeled app stores its hiding-station choice (``zoneOptions``) as Overpass QL
filters, one string per kind of station; an object is a station when it matches
every bracket of one of them. Keys and values may be quoted (``["railway"="halt"]``);
the operators are those of the catalogue (:class:`~stations_generator.core.catalogue.Clause`):
``=``, ``!=``, ``~`` (regular expression), a bare key (present) and ``!key`` (absent).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from stations_generator.core.catalogue import Clause
from stations_generator.errors import InputError

Filter = tuple[Clause, ...]

_QUOTED = r'"(?:[^"\\]|\\.)*"'
_BRACKET = re.compile(
    r"\[\s*(?P<neg>!)?\s*(?P<key>" + _QUOTED + r"|[^\]=!~\"\s]+)\s*"
    r"(?:(?P<op>!=|=|~)\s*(?P<value>" + _QUOTED + r"|[^\]]*?))?\s*(?:,\s*i\s*)?\]"
)


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def parse_filter(text: str, where: str = "zone option") -> Filter:
    """One Overpass filter string as a tuple of clauses (all must hold).

    Raises
    ------
    InputError
        For text that is not a sequence of ``[...]`` tag filters.
    """
    text = str(text).strip()
    clauses: list[Clause] = []
    pos = 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        m = _BRACKET.match(text, pos)
        if m is None:
            raise InputError(
                f"{where} {text!r} is not an Overpass tag filter; write it like "
                "[railway=station] or [railway=station][subway=yes]"
            )
        key = _unquote(m.group("key"))
        if m.group("neg"):
            clauses.append(Clause(key, "absent"))
        elif m.group("op") is None:
            clauses.append(Clause(key, "exists"))
        else:
            op, value = m.group("op"), _unquote(m.group("value") or "")
            try:
                clauses.append(
                    Clause.parse(f"{key}{op}{value}") if op == "~" else Clause(key, op, value)
                )
            except ValueError as exc:
                raise InputError(f"{where} {text!r}: {exc}") from None
        pos = m.end()
    if not clauses:
        raise InputError(f"{where} is empty; write it like [railway=station]")
    return tuple(clauses)


def parse_filters(texts: Sequence[str], where: str = "zone option") -> tuple[Filter, ...]:
    """Every filter of a list (see :func:`parse_filter`)."""
    return tuple(parse_filter(t, where) for t in texts)


def matches(filters: Sequence[Filter], tags: Mapping[str, str]) -> bool:
    """Whether ``tags`` satisfy every clause of at least one filter."""
    return any(all(c.holds(tags) for c in f) for f in filters)


def overpass_text(f: Filter) -> str:
    """A filter back as Overpass QL (keys and values quoted)."""
    return "".join(c.overpass() for c in f)
