"""The click commands, one module each; ``cli.py``'s main group imports one on first use.

What they share is in :mod:`~stations_generator.commands.options` (the click context,
parameter types, option sets) and :mod:`~stations_generator.commands.console` (how
stderr shows the package's log records, status lines and progress bars); commands
report by logging and no command imports ``cli.py``.
"""
