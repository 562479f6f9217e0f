"""The referee around the questions (pure): the game log replayed to a state — the clock,
breaks and lunch, the hider's cards and curses — and the curses' map conditions, by the
JLTG.EU house rules."""
