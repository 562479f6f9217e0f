"""The click commands, one module each; ``cli.py``'s main group imports one on first use.

What they share is in :mod:`~stations_generator.commands.options` (the click context,
parameter types, option sets) and :mod:`~stations_generator.commands.console` (the
console they report through); no command imports ``cli.py``.
"""
