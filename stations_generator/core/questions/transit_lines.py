"""Which OSM routes make a "transit line" for the matching question, per rule set (pure).

JLTG.EU house rules, "Matching: Transit Line": the hider is on the same transit line as
the seekers when at least one direct train connects the two stations every two hours;
the rules warn that the app's "station on the same train line" is unreliable and that
the hider answers by the rule book. So under ``jltg-eu`` a line is a train service:

* ``route=train`` — trains, regional and long-distance;
* ``route=light_rail`` — the S-Bahn where it is tagged so (Germany's S-Bahn is an
  Interrail train, JLTG.EU house rules, "Hiding Zones", DE);
* ``route=monorail`` — the Wuppertal Schwebebahn, Düsseldorf SkyTrain and Dortmund
  H-Bahn, which the same rules count as railway lines.

Buses, trolleybuses, ferries, trams, metros and funiculars are not trains, and a
``route=railway`` relation is a stretch of track, not a service: none of them makes
two stations "the same line" under ``jltg-eu``. Under ``official`` (and any other rule
set) every transit route counts, as before.

The two-hour frequency is not checked: OSM routes carry no timetable. Any answer under
``jltg-eu`` therefore carries :data:`FREQUENCY_NOTE` — unless the game's stations come
from a GTFS feed, whose direct trips check it (docs/timetables.md, "Lines and
frequencies").
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["FREQUENCY_NOTE", "JLTG_EU_LINE_ROUTES", "counts_as_line", "line_notes", "line_routes"]

#: Route modes that are a "transit line" under ``jltg-eu`` (see the module docstring).
JLTG_EU_LINE_ROUTES = ("train", "light_rail", "monorail")

#: The note every ``jltg-eu`` transit-line answer carries.
FREQUENCY_NOTE = (
    "transit line (JLTG.EU house rules, Matching: Transit Line): stations match when a "
    "train route (train, S-Bahn/light rail, monorail) serves both; the rule's 'a direct "
    "train at least every 2 hours' is not checked, as OSM routes carry no timetable; "
    "answer by the rule book"
)

_LINE_ROUTES: dict[str, tuple[str, ...]] = {"jltg-eu": JLTG_EU_LINE_ROUTES}


def line_routes(rules: str) -> tuple[str, ...] | None:
    """The route modes that count as a transit line under rule set ``rules``.

    Parameters
    ----------
    rules : str
        A rule set's name (``"jltg-eu"``, ``"official"``…).

    Returns
    -------
    tuple of str or None
        The modes (``route=*`` values), or None when every transit route counts.
    """
    return _LINE_ROUTES.get(rules)


def counts_as_line(route: str, rules: str) -> bool:
    """Whether a route relation of mode ``route`` (its ``route=*``) is a line under ``rules``."""
    modes = line_routes(rules)
    return modes is None or route in modes


def line_notes(rules: str, labels: Iterable[str], timetable: bool = False) -> tuple[str, ...]:
    """The notes a game's result carries about its transit-line questions.

    Parameters
    ----------
    rules : str
        The rule set's name.
    labels : iterable of str
        The questions' labels (``Question.label()``); a transit-line matching question
        is labelled ``"Matching transit line"``.
    timetable : bool
        Whether the game's transit lines come from a timetable (a GTFS feed): the
        frequency is then checked by the feed's direct trips, and no note is needed.

    Returns
    -------
    tuple of str
        ``(FREQUENCY_NOTE,)`` under ``jltg-eu`` when a transit-line question is asked
        and the lines carry no timetable, else empty.
    """
    if timetable:
        return ()
    if rules in _LINE_ROUTES and any(label == "Matching transit line" for label in labels):
        return (FREQUENCY_NOTE,)
    return ()
