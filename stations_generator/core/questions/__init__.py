"""The questions: their geometry, games as question lists, rule sets and costs, and which questions a play area supports."""
