"""A click group whose subcommands live in other modules, imported on first use.

The program's group (:class:`stations_generator.cli.Group`) and the ``timetable`` and
``referee`` groups keep their start-up light this way: a subcommand's module (and what
it imports: pandas, folium, …) loads only when that subcommand runs or shows its help.
"""

from __future__ import annotations

from importlib import import_module
from typing import ClassVar

import click

__all__ = ["LazyGroup"]


class LazyGroup(click.Group):
    """A group with the subcommands of :attr:`lazy` imported when first asked for.

    ``lazy`` maps a subcommand's name to ``"module:attribute"``; ``lazy_help`` its
    first help line, so that ``--help`` lists it without importing it (a lazy
    subcommand without one is imported to list it).
    """

    lazy: ClassVar[dict[str, str]] = {}
    lazy_help: ClassVar[dict[str, str]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, _, attr = self.lazy[cmd_name].partition(":")
            self.add_command(getattr(import_module(module), attr), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, as click writes it, without importing lazy subcommands."""
        commands = []
        for name in self.list_commands(ctx):
            cmd = self.commands.get(name)
            if cmd is None and name in self.lazy_help:
                cmd = click.Command(name, help=self.lazy_help[name])
            elif cmd is None:
                cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            commands.append((name, cmd))
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _ in commands)
            rows = [(name, cmd.get_short_help_str(limit)) for name, cmd in commands]
            with formatter.section("Commands"):
                formatter.write_dl(rows)
