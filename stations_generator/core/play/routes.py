"""Routes between vehicle stations (pure: no I/O).

A route is a declared sequence of stations of the map (the game's rules): the players
roll at the first station, ride through the others in order and dismount at
each stop; the last station, the destination, is a forced stop — the route ends
there, and going on means declaring a new route and rolling again. A mid-route
change ends the route at a station on it and declares a new route from there.

Stations are named by id (``node/123``) or by name. Names are matched without
case or accents; a name that is not found is looked up among close names with
:mod:`difflib`, and an unknown or ambiguous name is an
:class:`~stations_generator.errors.InputError` whose one-line message lists the
close matches (with ids, since station names repeat: several cafés of a chain).
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from stations_generator.errors import InputError

__all__ = [
    "FUZZY_CUTOFF",
    "HINT_CUTOFF",
    "ItineraryRoute",
    "MatchKind",
    "Route",
    "Station",
    "StationMatch",
    "change_route",
    "declare_route",
    "end_route_at",
    "find_station",
    "normalise_name",
    "plan_itinerary",
    "similarity",
    "split_itinerary",
    "validate_route",
]

MatchKind = Literal["id", "name", "part", "fuzzy"]

FUZZY_CUTOFF = 0.8
"""difflib ratio a name needs to be taken for a mistyped one (0.8 ≈ one slip in ten letters)."""

HINT_CUTOFF = 0.55
"""Looser ratio for the names suggested in an "unknown station" error."""

TIE_MARGIN = 0.05
"""Names scoring within this of the best close name are a tie (an ambiguity)."""

MAX_LISTED = 5
"""Matches named in one error message (it stays one readable line)."""


@dataclass(frozen=True)
class Station:
    """A vehicle station of a generated map.

    Attributes
    ----------
    id : str
        ``"node/123"``, ``"way/45"`` or ``"relation/6"``.
    name : str
        May be empty (unnamed POIs can be stations).
    lon, lat : float
        WGS84 position.
    wait_min, wait_max : int
        The departure roll's wait range in minutes.
    density_tier : str
    category : str
    cluster_id : int or None
    """

    id: str
    name: str
    lon: float
    lat: float
    wait_min: int
    wait_max: int
    density_tier: str = ""
    category: str = ""
    cluster_id: int | None = None

    @property
    def label(self) -> str:
        """The name, or the id for an unnamed station."""
        return self.name or self.id

    @property
    def display(self) -> str:
        """``"Name (node/123)"``, or the id alone for an unnamed station."""
        return f"{self.name} ({self.id})" if self.name else self.id


@dataclass(frozen=True)
class StationMatch:
    """How a query found its station (the CLI mentions fuzzy matches)."""

    query: str
    station: Station
    kind: MatchKind


def normalise_name(text: str) -> str:
    """Fold case, accents and runs of whitespace: ``"Eteläranta "`` -> ``"etelaranta"``.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())


def _listing(stations: Iterable[Station]) -> str:
    items = sorted(stations, key=lambda s: (normalise_name(s.name), s.id))
    shown = [s.display for s in items[:MAX_LISTED]]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def find_station(query: str, stations: Sequence[Station]) -> StationMatch:
    """Find one station by id or name.

    Tried in order: the id (``node/123``, case-insensitive); the whole name
    (without case or accents); a part of the name; a close name (difflib ratio
    ≥ :data:`FUZZY_CUTOFF`). The first step with exactly one station wins; a
    step with several stations is an ambiguity error.

    Parameters
    ----------
    query : str
        What the player typed.
    stations : sequence of Station
        The map's stations.

    Returns
    -------
    StationMatch

    Raises
    ------
    InputError
        If nothing matches (the message lists close names) or several stations do
        (the message lists them with their ids).
    """
    text = query.strip()
    if not text:
        raise InputError("empty station name; give a station's name or id (e.g. node/123)")
    by_id = {s.id.casefold(): s for s in stations}
    if text.casefold() in by_id:
        return StationMatch(query, by_id[text.casefold()], "id")

    wanted = normalise_name(text)
    names: dict[str, list[Station]] = {}
    for s in stations:
        if s.name:
            names.setdefault(normalise_name(s.name), []).append(s)

    def one(found: list[Station], kind: MatchKind) -> StationMatch | None:
        if len(found) == 1:
            return StationMatch(query, found[0], kind)
        if len(found) > 1:
            raise InputError(
                f"{text!r} matches {len(found)} stations: {_listing(found)}; "
                "give the id or more of the name"
            )
        return None

    for kind, found in (
        ("name", names.get(wanted, [])),
        ("part", [s for n, group in names.items() if wanted in n for s in group]),
    ):
        match = one(found, kind)  # type: ignore[arg-type]
        if match is not None:
            return match

    scores = {n: similarity(wanted, n) for n in names}
    best = max(scores.values(), default=0.0)
    if best >= FUZZY_CUTOFF:
        # Near-ties are ambiguous; a clear winner is taken.
        close = [n for n, r in scores.items() if r >= best - TIE_MARGIN]
        match = one([s for n in close for s in names[n]], "fuzzy")
        if match is not None:
            return match

    hints = sorted((n for n, r in scores.items() if r >= HINT_CUTOFF), key=lambda n: -scores[n])
    if hints:
        suggestion = _listing(s for n in hints[:MAX_LISTED] for s in names[n])
        raise InputError(f"no station {text!r} on this map; close matches: {suggestion}")
    raise InputError(
        f"no station {text!r} on this map (and no close name); "
        "give a station's name or its id as in stations.geojson"
    )


def similarity(query: str, name: str) -> float:
    """How close a typed query is to a station name, 0–1 (difflib ratio).

    The better of the ratio to the whole name and to the stretch of the name,
    starting at any word, that is as long as the query — so ``"kaisaniemi"``
    is close to ``"kaisaniemen kasvitieteellinen puutarha"``.

    Parameters
    ----------
    query, name : str
        Both already passed through :func:`normalise_name`.

    Returns
    -------
    float
    """
    matcher = difflib.SequenceMatcher(None, "", query)  # b (cached) = the query
    matcher.set_seq1(name)
    best = matcher.ratio()
    starts = [0] + [i + 1 for i, c in enumerate(name) if c == " "]
    for i in starts:
        matcher.set_seq1(name[i : i + len(query)])
        best = max(best, matcher.ratio())
    return best


@dataclass(frozen=True)
class Route:
    """A validated route: its stations in riding order.

    Attributes
    ----------
    stations : tuple of Station
        Origin first, destination last; at least two, each once.
    """

    stations: tuple[Station, ...]

    @property
    def origin(self) -> Station:
        """Where the players roll and board."""
        return self.stations[0]

    @property
    def destination(self) -> Station:
        """The forced stop that ends the route."""
        return self.stations[-1]

    @property
    def stops(self) -> tuple[Station, ...]:
        """Every station after the origin; the players dismount at each."""
        return self.stations[1:]

    @property
    def legs(self) -> list[tuple[Station, Station]]:
        """Consecutive ``(from, to)`` pairs."""
        return list(zip(self.stations[:-1], self.stations[1:], strict=True))

    def index(self, station: Station) -> int:
        """Position of ``station`` on the route.

        Parameters
        ----------
        station : Station

        Returns
        -------
        int

        Raises
        ------
        ValueError
            If the station is not on the route.
        """
        for i, s in enumerate(self.stations):
            if s.id == station.id:
                return i
        raise ValueError(f"{station.display} is not on this route")


def validate_route(stations: Sequence[Station], *, known: Sequence[Station] | None = None) -> Route:
    """Check a declared sequence of stations and make it a :class:`Route`.

    Parameters
    ----------
    stations : sequence of Station
        In riding order.
    known : sequence of Station, optional
        The map's stations; when given, every station must be one of them.

    Returns
    -------
    Route

    Raises
    ------
    InputError
        If there are fewer than 2 stations, a station repeats, or a station is
        not on the map.
    """
    if len(stations) < 2:
        got = f"only {stations[0].display}" if stations else "none"
        raise InputError(f"a route needs at least 2 stations (origin and destination); got {got}")
    if known is not None:
        ids = {s.id for s in known}
        for s in stations:
            if s.id not in ids:
                raise InputError(f"{s.display} is not a station of this map")
    seen: dict[str, int] = {}
    for i, s in enumerate(stations, 1):
        if s.id in seen:
            raise InputError(
                f"{s.display} is on the route twice (stops {seen[s.id]} and {i}); "
                "a route visits each station once — end it there and declare a new one"
            )
        seen[s.id] = i
    return Route(tuple(stations))


def declare_route(
    queries: Sequence[str], stations: Sequence[Station]
) -> tuple[Route, list[StationMatch]]:
    """Resolve station names or ids and validate them as a route.

    Parameters
    ----------
    queries : sequence of str
        Station names or ids, origin first.
    stations : sequence of Station
        The map's stations.

    Returns
    -------
    (Route, list of StationMatch)
        The route and how each query was matched.

    Raises
    ------
    InputError
        See :func:`find_station` and :func:`validate_route`.
    """
    matches = [find_station(q, stations) for q in queries]
    return validate_route([m.station for m in matches]), matches


def end_route_at(route: Route, station: Station) -> Route:
    """End a route early at a station on it (the first half of a mid-route change).

    Parameters
    ----------
    route : Route
    station : Station
        A station of the route after its origin; it becomes the destination.

    Returns
    -------
    Route
        The route up to and including ``station``.

    Raises
    ------
    InputError
        If ``station`` is not on the route or is its origin.
    """
    try:
        i = route.index(station)
    except ValueError:
        raise InputError(
            f"{station.display} is not on the route {_route_text(route)}; a route can only "
            "end at one of its stations"
        ) from None
    if i == 0:
        raise InputError(f"{station.display} is where the route starts; end it at a later station")
    return Route(route.stations[: i + 1])


def change_route(route: Route, new_stations: Sequence[Station]) -> tuple[Route, Route]:
    """A mid-route change: end ``route`` where the new route starts, and declare the new one.

    Parameters
    ----------
    route : Route
        The route being ridden.
    new_stations : sequence of Station
        The new route; its first station must be on ``route`` after the origin
        (the destination included, which is simply the next route).

    Returns
    -------
    (Route, Route)
        The shortened old route and the validated new route (which needs a new roll).

    Raises
    ------
    InputError
        If the new route does not start on the old one, or is not a valid route.
    """
    if not new_stations:
        raise InputError("the new route has no stations")
    ended = end_route_at(route, new_stations[0])
    return ended, validate_route(new_stations)


def _route_text(route: Route) -> str:
    return " → ".join(s.label for s in route.stations)


def split_itinerary(tokens: Sequence[str], separator: str = "/") -> list[list[str]]:
    """Split ``A B C / C D`` into the station lists of consecutive routes.

    Parameters
    ----------
    tokens : sequence of str
        Station names or ids, with ``separator`` between routes.
    separator : str

    Returns
    -------
    list of list of str

    Raises
    ------
    InputError
        If a route between separators is empty.
    """
    groups: list[list[str]] = [[]]
    for token in tokens:
        if token.strip() == separator:
            groups.append([])
        else:
            groups[-1].append(token)
    if any(not g for g in groups):
        raise InputError(
            f"empty route around {separator!r}; write e.g. A B C {separator} C D "
            "(a new route starts at a station of the previous one)"
        )
    return groups


@dataclass(frozen=True)
class ItineraryRoute:
    """One route of an itinerary, and what a mid-route change dropped from it.

    Attributes
    ----------
    route : Route
        The route as ridden (shortened by a change).
    declared : Route
        The route as declared.
    """

    route: Route
    declared: Route

    @property
    def dropped(self) -> tuple[Station, ...]:
        """Declared stations left out by a mid-route change."""
        return self.declared.stations[len(self.route.stations) :]


def plan_itinerary(
    groups: Sequence[Sequence[str]], stations: Sequence[Station]
) -> tuple[list[ItineraryRoute], list[StationMatch]]:
    """Resolve and validate consecutive routes, applying mid-route changes.

    Each route after the first must start at a station of the previous one
    (after its origin): at its destination it simply follows on; at an earlier
    stop it is a mid-route change, which ends the previous route there.

    Parameters
    ----------
    groups : sequence of sequence of str
        Station names or ids per route (see :func:`split_itinerary`).
    stations : sequence of Station
        The map's stations.

    Returns
    -------
    (list of ItineraryRoute, list of StationMatch)

    Raises
    ------
    InputError
        For an unknown or ambiguous station, an invalid route, or a route that
        does not start on the previous one.
    """
    items: list[ItineraryRoute] = []
    all_matches: list[StationMatch] = []
    for n, group in enumerate(groups, 1):
        route, matches = declare_route(group, stations)
        all_matches.extend(matches)
        if items:
            previous = items[-1]
            try:
                ended = end_route_at(previous.route, route.origin)
            except InputError:
                raise InputError(
                    f"route {n} starts at {route.origin.display}, which is not a stop of "
                    f"route {n - 1} ({_route_text(previous.route)}); a new route starts "
                    "where the previous one ends, or at one of its stops"
                ) from None
            items[-1] = ItineraryRoute(ended, previous.declared)
        items.append(ItineraryRoute(route, route))
    return items, all_matches
