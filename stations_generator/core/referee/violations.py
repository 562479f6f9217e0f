"""The one error the referee raises: a game event the house rules do not allow."""

from __future__ import annotations


class RuleViolation(ValueError):
    """An event or play the rules forbid; the message is one line naming the rule.

    Parameters
    ----------
    rule : str
        The rule's short name with its section, e.g. ``"hand limit (Cards, Hand Limit)"``.
    problem : str
        What is wrong and, where there is one, the fix.
    """

    def __init__(self, rule: str, problem: str) -> None:
        self.rule, self.problem = rule, problem
        super().__init__(f"{problem} — {rule}")
