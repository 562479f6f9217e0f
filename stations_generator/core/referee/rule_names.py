"""The house rules the referee enforces, named as a :class:`RuleViolation` names them.

Each constant is a rule's short name with its section of the JLTG.EU house rules; the
replay (:mod:`.replay`) raises :class:`~.violations.RuleViolation` with one of them.
"""

from __future__ import annotations

ORDER = "events in time order (JLTG.EU house rules, Game Time)"
HIDING = "hiding time (JLTG.EU house rules, Hiding: Summary)"
GAME_TIME = "game time (JLTG.EU house rules, Game Time)"
END_GAME = "the end game (JLTG.EU house rules, The End Game)"
ONE_QUESTION = "one question at a time (JLTG.EU house rules, Questions: Time to answer)"
ASKED = "asking and answering (JLTG.EU house rules, Questions: Time to answer)"
ANSWERS = "valid answers (JLTG.EU house rules, Questions)"
THERMOMETER = "one thermometer at a time (JLTG.EU house rules, Thermometer Mechanics)"
THERMOMETER_DISTANCE = "thermometer distances (JLTG.EU house rules, Thermometer)"
TENTACLES = "tentacles (JLTG.EU house rules, Tentacles)"
PHOTOS = (
    "photos by game size and the Large-game embargo (JLTG.EU house rules, Photos; "
    "Large Games, and Time and Location Shifting)"
)
LUNCH = "lunch time (JLTG.EU house rules, Lunch Time)"
BREAKS = "unscheduled breaks (JLTG.EU house rules, Unscheduled Breaks)"
VETO = "Veto Question (JLTG.EU house rules, Power Ups: Veto Question)"
VETO_OR_BONUS = (
    "Veto Question or 15 Minute Time Bonus (JLTG.EU house rules, Power Ups: Veto Question "
    "or 15 Minute Time Bonus)"
)
DOUBLE_OR_NOTHING = "Double or Nothing (JLTG.EU house rules, Power Ups: Double or Nothing)"
RANDOMIZE = "Randomize Question (JLTG.EU house rules, Power Ups: Randomize Question)"
BLOCKED_QUESTIONS = "blocking questions (JLTG.EU house rules, Curses: Blocking)"
BLOCKED_CURSES = "blocked curses (JLTG.EU house rules, Cards: Playing a card)"
CARDS = "card mechanics (JLTG.EU house rules, Cards: Card Mechanics)"
HINTS = "hints (JLTG.EU house rules, Questions: Hints)"
FREE_QUESTIONS = "free questions (JLTG.EU house rules, Questions: Free questions)"
INAPPROPRIATE = "inappropriate cards (JLTG.EU house rules, Cards: Inappropriate Cards)"
DUPLICATE = "Duplicate Another Card (JLTG.EU house rules, Power Ups: Duplicate Another Card)"
RANDOM_THERMOMETER = (
    "randomising thermometers (JLTG.EU house rules, Thermometer Mechanics: Randomising "
    "Thermometers)"
)
NEXT_ROUND = (
    "the next round (JLTG.EU house rules, Hiding: Small and Medium games; Large Games, and "
    "Time and Location Shifting)"
)
