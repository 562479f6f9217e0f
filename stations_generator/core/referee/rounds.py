"""The round's own events: hiding, seeking, the end game, lunch, breaks, the end (pure).

:class:`Round` keeps the times of a round and answers what the clock rules say:
whether a question may be asked or a card played now, and the :class:`~.state.Clock`
at a moment. JLTG.EU house rules, Hiding (Summary; Large Games, and Time and Location
Shifting), The End Game, Game Time, Lunch Time, Unscheduled Breaks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from stations_generator.core.referee import clock, rule_names
from stations_generator.core.referee.events import Event
from stations_generator.core.referee.state import Clock
from stations_generator.core.referee.violations import RuleViolation

LUNCH_TEAMS = {"seekers": ("seekers",), "hider": ("hider",), "both": clock.TEAMS}
#: JLTG.EU house rules, Hiding: Small and Medium games — between rounds the hider
#: "normally [has] 15 minutes to rest, and do the card exchange, though this may be
#: extended if the other players agree".
REST = timedelta(minutes=15)


@dataclass
class Round:
    """The times of one round, as its events give them."""

    size: str
    max_game_minutes: float | None = None
    previous_end: datetime | None = None  # the end of the game's previous round
    hiding_started: datetime | None = None
    seeking_started: datetime | None = None
    found: datetime | None = None
    end_game: bool = False
    lunch: dict[str, datetime] = field(default_factory=dict)
    breaks: list[tuple[datetime, datetime | None]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    # --- what the clock says ---------------------------------------------------------

    @property
    def max_game(self) -> timedelta | None:
        """The maximum game time (9 h in Large games unless the log sets one)."""
        return clock.max_game_time(self.size, self.max_game_minutes)

    @property
    def round_ends(self) -> datetime | None:
        """When the maximum game time ends the round (None: no maximum, or not started)."""
        if self.seeking_started is None or self.max_game is None:
            return None
        return self.seeking_started + self.max_game

    @property
    def phase_of_photos(self) -> str:
        """A photo's phase now: ``"end"`` in the end game, else ``"long"``."""
        return "end" if self.end_game else "long"

    def over(self, at: datetime) -> bool:
        """Whether the round is over at ``at`` (hider found, or the maximum game time)."""
        ends = self.round_ends
        return self.found is not None or (ends is not None and at >= ends)

    def breaks_until(self, now: datetime) -> list[clock.Interval]:
        """The breaks as intervals, an open one ending at ``now``."""
        return [(a, b or max(a, now)) for a, b in self.breaks]

    def in_break(self, at: datetime) -> bool:
        """Whether an unscheduled break is on at ``at``."""
        return any(a <= at and (b is None or at < b) for a, b in self.breaks)

    def lunch_of(self, at: datetime) -> list[str]:
        """The teams at lunch at ``at``."""
        return [t for t, s in sorted(self.lunch.items()) if s <= at < s + clock.LUNCH_LENGTH]

    def cannot_play(self, at: datetime, what: str) -> list[tuple[str, str]]:
        """(rule, why) for each reason a question or a card is not allowed at ``at``."""
        out = []
        if self.seeking_started is None:
            out.append((rule_names.GAME_TIME, f"seeking has not started; cannot {what} yet"))
        elif self.over(at):
            out.append((rule_names.GAME_TIME, f"the round is over; cannot {what}"))
        teams = self.lunch_of(at)
        if teams:
            until = max(self.lunch[t] for t in teams) + clock.LUNCH_LENGTH
            out.append(
                (
                    rule_names.LUNCH,
                    f"lunch ({', '.join(teams)}) until {until:%H:%M}: no questions asked, "
                    f"no cards played; cannot {what}",
                )
            )
        if self.in_break(at):
            out.append((rule_names.BREAKS, f"a break is on: cannot {what}; end it first"))
        return out

    def require_seeking(self, at: datetime, what: str) -> None:
        """RuleViolation unless seeking has started and the round is not over."""
        if self.seeking_started is None:
            raise RuleViolation(rule_names.GAME_TIME, f"seeking has not started; cannot {what}")
        if self.over(at):
            raise RuleViolation(rule_names.GAME_TIME, f"the round is over; cannot {what}")

    def require_play(self, at: datetime, what: str) -> None:
        """RuleViolation if no card may be played at ``at`` (lunch, a break, round over)."""
        reasons = [r for r in self.cannot_play(at, what) if r[0] != rule_names.GAME_TIME]
        if self.over(at):
            reasons.insert(0, (rule_names.GAME_TIME, f"the round is over; cannot {what}"))
        if reasons:
            raise RuleViolation(*reasons[0])

    # --- events ----------------------------------------------------------------------

    def advance(self, when: datetime) -> None:
        """Lunch declared automatically at 13:30 for a team that has not had it."""
        if self.seeking_started is None:
            return
        auto = clock.automatic_lunch(self.seeking_started)
        if not self.seeking_started <= auto < when or self.over(auto):
            return
        for team in clock.TEAMS:
            if team not in self.lunch:
                self.lunch[team] = auto
                self.warnings.append(
                    f"lunch of the {team} declared automatically at {auto:%H:%M} "
                    "(JLTG.EU house rules, Lunch Time)"
                )

    def check_after_previous(self, e: Event) -> None:
        """RuleViolation if ``e`` comes before the game's previous round ended."""
        end = self.previous_end
        if end is not None and e.at < end:
            raise RuleViolation(
                rule_names.NEXT_ROUND,
                f"the previous round ended at {end.isoformat(timespec='minutes')}; this "
                "round's events come after it",
            )

    def apply(self, e: Event) -> None:
        """Fold a round, lunch or break event in; RuleViolation if the rules forbid it."""
        handler: Callable[[Event], None] = {
            "hiding-started": self._hiding,
            "seeking-started": self._seeking,
            "end-game-started": self._end_game,
            "end-game-left": self._end_game,
            "hider-found": self._found,
            "lunch-started": self._lunch,
            "break-started": self._break,
            "break-ended": self._break,
        }[e.kind]
        handler(e)

    def _hiding(self, e: Event) -> None:
        if self.hiding_started is not None:
            raise RuleViolation(
                rule_names.HIDING, f"hiding already started at {self.hiding_started:%H:%M}"
            )
        self.hiding_started = e.at
        self._after_previous(e)

    def _after_previous(self, e: Event) -> None:
        """In S and M games the next round's hider sets off after a rest of normally 15
        minutes (longer when the other players agree: warned)."""
        end = self.previous_end
        if end is None:
            return
        if self.size != "L" and e.at - end > REST:
            rest = clock.minutes(e.at - end)
            self.warnings.append(
                f"{e.describe()}: {rest:.0f} min after the previous round ended; the rest is "
                "normally 15 minutes, longer only if the other players agree (JLTG.EU house "
                "rules, Hiding: Small and Medium games)"
            )

    def _seeking(self, e: Event) -> None:
        if self.seeking_started is not None:
            raise RuleViolation(
                rule_names.GAME_TIME, f"seeking already started at {self.seeking_started:%H:%M}"
            )
        self.seeking_started = e.at
        if self.size != "L" and self.hiding_started is not None:
            ends = self.hiding_started + clock.hiding_time(self.size)
            if e.at < ends:
                self.warnings.append(
                    f"{e.describe()}: the seekers started before the hiding time ended "
                    f"({ends:%H:%M}; JLTG.EU house rules, Hiding: Summary)"
                )

    def _end_game(self, e: Event) -> None:
        self.require_seeking(e.at, "be in the end game")
        entering = e.kind == "end-game-started"
        if self.end_game == entering:
            state = "already in" if entering else "not in"
            raise RuleViolation(rule_names.END_GAME, f"the players are {state} the end game")
        self.end_game = entering

    def _found(self, e: Event) -> None:
        if self.seeking_started is None:
            raise RuleViolation(rule_names.GAME_TIME, "seeking has not started; nobody is found")
        if self.over(e.at):
            ended = "the hider was already found" if self.found else "the maximum game time"
            raise RuleViolation(rule_names.GAME_TIME, f"the round is over ({ended})")
        self.found = e.at

    def _lunch(self, e: Event) -> None:
        self.require_seeking(e.at, "start lunch")
        teams = LUNCH_TEAMS.get(e.team or "both")
        if teams is None:
            raise RuleViolation(
                rule_names.LUNCH, f"team {e.team!r} is not one of seekers, hider, both"
            )
        for team in teams:
            if team in self.lunch:
                raise RuleViolation(
                    rule_names.LUNCH,
                    f"the {team} already had lunch (from {self.lunch[team]:%H:%M}); "
                    "lunch is taken once, whole",
                )
        for team in teams:
            self.lunch[team] = e.at
        if not clock.in_lunch_window(e.at):
            self.warnings.append(
                f"{e.describe()}: lunch is normally between 11:30 and 14:00 "
                "(JLTG.EU house rules, Lunch Time)"
            )

    def _break(self, e: Event) -> None:
        open_break = bool(self.breaks) and self.breaks[-1][1] is None
        if e.kind == "break-started":
            if open_break:
                raise RuleViolation(rule_names.BREAKS, "a break is already on; end it first")
            self.breaks.append((e.at, None))
            return
        if not open_break:
            raise RuleViolation(rule_names.BREAKS, "no break is on; nothing to end")
        start = self.breaks[-1][0]
        self.breaks[-1] = (start, e.at)
        if e.at - start < timedelta(minutes=30):
            self.warnings.append(
                f"{e.describe()}: a break should generally be at least 30 minutes "
                "(JLTG.EU house rules, Unscheduled Breaks)"
            )

    # --- the clock -------------------------------------------------------------------

    def clock(
        self, at: datetime, pauses: Sequence[clock.Interval], bonus: Callable[[float], float | None]
    ) -> Clock:
        """The clock at ``at``; ``pauses`` are the late answers' paused intervals and
        ``bonus`` gives the hand's time bonuses for a game time in minutes."""
        hiding_ends = (
            None
            if self.hiding_started is None
            else self.hiding_started + clock.hiding_time(self.size)
        )
        hiding_left = None if hiding_ends is None else max(0.0, clock.minutes(hiding_ends - at))
        seeking = breaks = paused = game = 0.0
        if self.seeking_started is not None:
            end = min(x for x in (at, self.found, self.round_ends) if x is not None)
            end = max(end, self.seeking_started)
            stops = self.breaks_until(at)
            seeking = clock.minutes(end - self.seeking_started)
            breaks = clock.minutes(clock.measure(stops, self.seeking_started, end))
            both = clock.minutes(clock.measure([*stops, *pauses], self.seeking_started, end))
            paused = both - breaks
            game = seeking - both
        bonus_min = bonus(game)
        return Clock(
            at=at,
            phase=self._phase(at),
            hiding_started=self.hiding_started,
            hiding_ends=hiding_ends,
            hiding_left_min=hiding_left,
            seeking_started=self.seeking_started,
            seeking_wall_min=seeking,
            breaks_min=breaks,
            paused_min=paused,
            game_min=game,
            max_game_min=None if self.max_game is None else clock.minutes(self.max_game),
            round_ends=self.round_ends,
            lunch=dict(self.lunch),
            in_lunch=bool(self.lunch_of(at)),
            in_break=self.in_break(at),
            bonus_min=bonus_min,
            total_min=None if bonus_min is None else game + bonus_min,
        )

    def _phase(self, at: datetime) -> str:
        if self.found is not None:
            return "found"
        if self.over(at):
            return "over"
        if self.seeking_started is not None:
            return "end game" if self.end_game else "seeking"
        return "hiding" if self.hiding_started is not None else "before"
