"""The legal values of questions and how a repeat is recognised (pure: no I/O).

Every number here is from the JLTG.EU house rules; the section is named next to it:

* radius ("Radius", "Radii"): 250 m, 500 m, 1, 2, 5, 10, 15, 40, 80, 160 km, or a
  custom radius of any size, in every game size. Every custom radius is the *same*
  question for the repeat cost, whatever its size;
* thermometer ("Thermometer", "Available Thermometers"): 400 m, 1 km, 5 km; 15 km
  only in M and L games, 75 km only in L. A thermometer repeats by this distance
  class. Ended before travelling its distance it still counts as asked, the reward is
  given, and the answer is null ("Thermometer Mechanics");
* tentacles ("Tentacles", "Available tentacles"): 25 km for zoos, aquariums, theme
  parks and transit lines, 2 km for museums, libraries, cinemas and hospitals — "you
  cannot use a 2 km tentacle for a 25 km question".
"""

from __future__ import annotations

import math

#: Radius values (metres), JLTG.EU house rules, Radius ("Radii"); any other is custom.
RADII_M = (250.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0, 15000.0, 40000.0, 80000.0, 160000.0)
CUSTOM = "custom"
#: A radius within this of a listed value is that value (a km typed as 0.9999 km…).
RADIUS_MATCH_M = 0.5

#: Thermometer distances by game size, JLTG.EU house rules, Thermometer ("Available
#: Thermometers"): 15 km only in Medium or Large games, 75 km only in Large games.
THERMOMETER_DISTANCES_M = {
    "S": (400.0, 1000.0, 5000.0),
    "M": (400.0, 1000.0, 5000.0, 15000.0),
    "L": (400.0, 1000.0, 5000.0, 15000.0, 75000.0),
}
ALL_THERMOMETER_DISTANCES_M = THERMOMETER_DISTANCES_M["L"]
THERMOMETER_SLACK = 0.02  # start–end may fall 2 % short of the nominal distance (GPS noise)

#: Tentacles radius by subject, JLTG.EU house rules, Tentacles ("Available tentacles").
TENTACLES_RADIUS_M = {
    "zoo": 25000.0,
    "aquarium": 25000.0,
    "theme_park": 25000.0,
    "transit_line": 25000.0,
    "museum": 2000.0,
    "library": 2000.0,
    "cinema": 2000.0,
    "hospital": 2000.0,
}
#: Subjects of the app's own "custom" tentacles (custom points): any radius.
CUSTOM_TENTACLES = "custom"
HOUSE_RULES = "jltg-eu"
#: Rule sets whose tentacles subjects are the list above (the official rules name the
#: same eight; a game read from the taibeled app also allows the app's custom points).
TENTACLES_LISTED = (HOUSE_RULES, "official")


class QuestionError(ValueError):
    """A question that cannot be evaluated as given (missing answer, bad distance, …)."""


def fmt_distance(metres: float) -> str:
    """A distance as people write it: ``"400 m"``, ``"1 km"``, ``"1.23 km"``."""
    if metres >= 1000:
        km = metres / 1000
        return f"{km:g} km" if km == round(km, 3) else f"{km:.2f} km"
    return f"{metres:g} m"


def radius_class(radius_m: float) -> float | str:
    """The listed radius (metres) a radius is, or :data:`CUSTOM` (for the repeat cost).

    JLTG.EU house rules, Radius: "If the custom option is used more than once, it
    carries the same question penalty, even if different radius is used."
    """
    for listed in RADII_M:
        if abs(radius_m - listed) <= RADIUS_MATCH_M:
            return listed
    return CUSTOM


def thermometer_class(
    travelled_m: float, allowed: tuple[float, ...] = ALL_THERMOMETER_DISTANCES_M
) -> float | None:
    """The largest distance of ``allowed`` not longer than ``travelled_m`` (2 % slack).

    None when the travel is shorter than every allowed distance (asked too early).
    """
    fits = [a for a in allowed if travelled_m >= a * (1 - THERMOMETER_SLACK)]
    return fits[-1] if fits else None


def check_thermometer_distance(distance_m: float, game_size: str) -> None:
    """QuestionError naming the legal distances if ``distance_m`` is not one in ``game_size``."""
    allowed = THERMOMETER_DISTANCES_M[game_size]
    if not any(math.isclose(distance_m, a, abs_tol=RADIUS_MATCH_M) for a in allowed):
        raise QuestionError(
            f"a {fmt_distance(distance_m)} thermometer is not allowed in a {game_size} game "
            f"(JLTG.EU house rules, Thermometer); use {', '.join(map(fmt_distance, allowed))}"
        )


def _subjects_at(radius_m: float) -> list[str]:
    return [s for s, r in TENTACLES_RADIUS_M.items() if r == radius_m]


def check_tentacles(subject: str, radius_m: float, rules: str) -> None:
    """QuestionError if a tentacles question is not legal under the rule set ``rules``.

    Under :data:`TENTACLES_LISTED` the subject must be a tentacles subject; under the
    JLTG.EU house rules the radius must also be the subject's own.
    """
    legal = ", ".join(TENTACLES_RADIUS_M)
    if rules not in TENTACLES_LISTED or subject == CUSTOM_TENTACLES:
        return
    if subject not in TENTACLES_RADIUS_M:
        raise QuestionError(
            f"{subject!r} is not a tentacles subject (JLTG.EU house rules, Tentacles); use {legal}"
        )
    own = TENTACLES_RADIUS_M[subject]
    if rules == HOUSE_RULES and abs(radius_m - own) > RADIUS_MATCH_M:
        at = _subjects_at(radius_m) if radius_m in TENTACLES_RADIUS_M.values() else []
        for_radius = (
            f"a {fmt_distance(radius_m)} tentacle takes {', '.join(at)}"
            if at
            else f"there is no {fmt_distance(radius_m)} tentacle"
        )
        raise QuestionError(
            f"tentacles {subject} at {fmt_distance(radius_m)}: {for_radius}; {subject} is a "
            f"{fmt_distance(own)} tentacle (JLTG.EU house rules, Tentacles: you cannot use a 2 km "
            "tentacle for a 25 km question)"
        )
