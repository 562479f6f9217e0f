"""The ``stations-generator`` command line (click). Thin: parse, call, report.

The main group: -v/-q, --version, one ``error:`` line for a user error, and the
commands, each in its own module under :mod:`stations_generator.commands`.
"""

from __future__ import annotations

import importlib.util

import click

from stations_generator.app.request_fields import click_error_line
from stations_generator.commands.lazy_group import LazyGroup
from stations_generator.commands.options import CONTEXT
from stations_generator.errors import UserError

__all__ = ["LAZY_COMMANDS", "LAZY_HELP", "Group", "main", "run", "spacing_core_build"]

# Subcommands living in their own modules, imported only when used (fast start-up).
LAZY_COMMANDS = {
    "generate": "stations_generator.commands.generate:generate",
    "questions": "stations_generator.commands.questions:questions",
    "zones": "stations_generator.commands.questions:zones",
    "report": "stations_generator.commands.report:report",
    "map": "stations_generator.commands.maps:map_command",
    "roll": "stations_generator.commands.roll:roll",
    "route": "stations_generator.commands.route:route",
    "calibrate": "stations_generator.commands.calibrate:calibrate",
    "extract": "stations_generator.commands.extract:extract",
    # Het Jachtseizoen board game (issue 14): generate, play, track, simulate.
    "board": "stations_generator.commands.board:board",
    "serve": "stations_generator.commands.serve:serve",
    # Refereeing a round with a game log (issue 38): start, record, state, check-curse.
    "referee": "stations_generator.commands.referee:referee",
    # GTFS timetables (issue 42): stations, lines, check-stops, reach, audit.
    "timetable": "stations_generator.commands.timetable:timetable",
}


# The first paragraph of each lazy command's help, so ``--help`` can list the
# commands without importing them (tests/commands/test_startup.py keeps these in step).
LAZY_HELP = {
    "generate": "Pick vehicle stations for a play area and write GeoJSON, CSV and KML.",
    "questions": "Apply seekers' questions to the map, answer them as the hider, count their cost.",
    "zones": "Hiding zones: check whether one is still valid.",
    "report": "Say which questions PLAY_AREA supports: count each question subject's places.",
    "map": "Write an interactive HTML map of STATIONS_FILE (the stations.geojson of `generate`).",
    "roll": "Roll for a departure at STATION (a name or id of the map).",
    "route": "Plan a route: drive time per leg, expected wait, cooldown and timeline.",
    "calibrate": "Check a map's wait ranges against transit-like travel times.",
    "extract": "OSM extracts: read one into the extract cache ahead of time.",
    "board": "Het Jachtseizoen boards from real maps: generate, referee, track, simulate.",
    "serve": "Serve the organiser's web page: draw a play area, get the station map, run the game.",
    "referee": "Referee a round by the JLTG.EU house rules: a game log, checked event by event.",
    "timetable": "GTFS timetables: stations from a feed, lines and frequencies, valid hiding stops.",
}


class Group(LazyGroup):
    """Turns user errors into one line on stderr and a non-zero exit, without a traceback.

    Commands listed in :data:`LAZY_COMMANDS` are imported on first use; the
    command list of ``--help`` takes their help from :data:`LAZY_HELP`.
    """

    lazy = LAZY_COMMANDS
    lazy_help = LAZY_HELP

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.ClickException as exc:  # the group's own options, e.g. a wrong -x
            click.echo(click_error_line(exc), err=True)
            raise click.exceptions.Exit(exc.exit_code) from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:  # click's usage errors, in the tool's style
            click.echo(click_error_line(exc), err=True)
            ctx.exit(exc.exit_code)
        except UserError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except BrokenPipeError:  # the reader left (`… | head`): stop quietly, as tools do
            import os
            import sys

            # Later writes (the final flush) go nowhere instead of failing again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(141)  # 128 + SIGPIPE, what a shell reports for a tool killed by it
        except OSError as exc:  # disk full, permission denied, …
            click.echo(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), err=True)
            ctx.exit(5)


def spacing_core_build() -> str:
    """How the installed spacing core runs: ``"compiled (Cython)"`` or ``"Python"`` (without
    importing it: ``--version`` stays light)."""
    spec = importlib.util.find_spec("stations_generator.core.stationmap.spacing_search")
    origin = (spec.origin or "") if spec is not None else ""
    return "Python" if origin.endswith(".py") else "compiled (Cython)"


def pbf_reader_build() -> str:
    """Which reader reads PBF extracts: ``"libosmium"`` (the compiled one) or ``"pyosmium"``
    (without importing it)."""
    spec = importlib.util.find_spec("stations_generator.osm.pbf.reader")
    return "libosmium" if spec is not None else "pyosmium"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    # The build says how fast the spacing core and the PBF reader are (setup.py compiles
    # them where it can).
    from stations_generator import __version__

    click.echo(
        f"stations-generator, version {__version__} (spacing core: {spacing_core_build()}; "
        f"PBF reader: {pbf_reader_build()})"
    )
    ctx.exit()


@click.group(cls=Group, context_settings=CONTEXT)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version (and whether the spacing core is compiled) and exit.",
)
@click.option("-v", "--verbose", count=True, help="More detail on stderr (repeatable).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors on stderr.")
@click.pass_context
def main(ctx: click.Context, verbose: int, quiet: bool) -> None:
    """Station maps, question geometry and hiding-zone checks for Jet Lag: The Game – Hide + Seek.

    Data © OpenStreetMap contributors, ODbL 1.0.
    """
    # The package's log records become the command's stderr lines until it ends
    # (imported here: --help and --version need no logging).
    from stations_generator.commands.console import use_console

    use_console(ctx, -1 if quiet else verbose)
    _exit_cleanly_on_terminate(ctx)
    _fewer_collections(ctx)


def run() -> None:
    """The ``stations-generator`` program (and ``python -m stations_generator``).

    Once the command has ended, the process leaves without tearing the interpreter down
    (:func:`_leave`). Python's own exit frees every loaded module one by one: after a
    ``generate`` that is ~450 modules and 50-100 ms, about a fifth of a town-sized run
    (measured: ``bench/bench_generate_scale.py``, the 21-candidate case), and nothing the
    command wrote needs it: its files are complete, synced and renamed into place by then.
    """
    try:
        main()
    except SystemExit as ended:
        _leave(ended)


def _leave(ended: SystemExit) -> None:
    """End the process with ``ended``'s exit code at once, as Python's exit would end it.

    The exit functions (``atexit``: logging's final flush among them) run and the standard
    streams are flushed first. Whenever that cannot be vouched for -- another thread still
    running, a message in place of an exit code, a stream that fails to flush, a Python
    without ``atexit._run_exitfuncs`` -- ``ended`` is raised again and Python exits the
    ordinary way.
    """
    import atexit
    import os
    import sys
    import threading

    code = 0 if ended.code is None else ended.code
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if type(code) is not int or others or run_exit_functions is None:
        raise ended
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - e.g. a closed pipe: Python's own exit words it
        raise ended from None
    run_exit_functions()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


#: The young-generation threshold of Python's cycle collector while a command runs. A run
#: allocates millions of small objects that live until it ends (parsed OSM elements,
#: candidate rows); at the default (700) the collector keeps re-walking them, 15-18 % of a
#: 100,000-candidate `generate` (bench/bench_generate_scale.py). A process setting, so the
#: command line sets it and the library leaves it alone.
COMMAND_GC_THRESHOLD = 100_000


def _fewer_collections(ctx: click.Context) -> None:
    """Raise the collector's young-generation threshold for the command; restored at its end."""
    import gc

    before = gc.get_threshold()
    gc.set_threshold(max(before[0], COMMAND_GC_THRESHOLD), *before[1:])
    ctx.call_on_close(lambda: gc.set_threshold(*before))


def _exit_cleanly_on_terminate(ctx: click.Context) -> None:
    """SIGTERM and SIGHUP end a run as Ctrl-C does: clean-up code runs, exit 128 + n."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def stop(number: int, _frame) -> None:
        raise SystemExit(128 + number)

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, stop)
            ctx.call_on_close(lambda n=number: signal.signal(n, signal.SIG_DFL))
