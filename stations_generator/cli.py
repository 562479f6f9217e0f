"""The ``stations-generator`` command line (click). Thin: parse, call, report."""

from __future__ import annotations

import datetime as dt
import importlib.util
import shutil
import sys
from pathlib import Path

import click

from stations_generator.commands.params import METRES, SECONDS, overpass_options
from stations_generator.errors import UserError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class Console:
    """Messages to stderr by verbosity: -q shows errors only, -v adds details."""

    def __init__(self, verbosity: int = 0):
        self.verbosity = verbosity

    def info(self, message: str) -> None:
        if self.verbosity >= 0:
            click.echo(message, err=True)

    def detail(self, message: str) -> None:
        if self.verbosity > 0:
            click.echo(message, err=True)

    def warn(self, message: str) -> None:
        if self.verbosity >= 0:
            click.echo(f"warning: {message}", err=True)

    @property
    def show_progress(self) -> bool:
        """Progress bars only on an interactive terminal, never in pipes or with -q."""
        return self.verbosity >= 0 and sys.stderr.isatty()

    def status(self, message: str | None) -> None:
        """Draw a status line in place on a terminal (None clears it); silent otherwise."""
        if not self.show_progress:
            return
        width = max(10, shutil.get_terminal_size().columns - 1)
        click.echo(
            "\r" + ("" if message is None else message[:width]) + "\x1b[K", err=True, nl=False
        )

    def progress(self, label: str) -> ProgressBar:
        """A ``(done, total)`` callback drawing a bar on a terminal, silent otherwise."""
        return ProgressBar(label, self.show_progress)


class ProgressBar:
    """A click progress bar fed by ``(done, total)`` calls; a no-op when not on a terminal."""

    def __init__(self, label: str, enabled: bool):
        self.label, self.enabled = label, enabled
        self._bar = None
        self._done = 0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            self._bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
            self._bar.__enter__()
        self._bar.update(done - self._done)
        self._done = done
        if done >= total:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


# Subcommands living in their own modules, imported only when used (fast start-up).
LAZY_COMMANDS = {
    "questions": "stations_generator.commands.questions:questions",
    "zones": "stations_generator.commands.questions:zones",
    "report": "stations_generator.commands.report:report",
    "map": "stations_generator.commands.maps:map_command",
    "roll": "stations_generator.commands.play:roll",
    "route": "stations_generator.commands.play:route",
    "calibrate": "stations_generator.commands.play:calibrate",
    "extract": "stations_generator.commands.extract:extract",
    # Het Jachtseizoen board game (issue 14): generate, play, track, simulate.
    "board": "stations_generator.commands.board:board",
    "serve": "stations_generator.commands.serve:serve",
}


# The first paragraph of each lazy command's help, so ``--help`` can list the
# commands without importing them (tests/test_startup.py keeps these in step).
LAZY_HELP = {
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
}


class Group(click.Group):
    """Turns user errors into one line on stderr and a non-zero exit, without a traceback.

    Commands listed in :data:`LAZY_COMMANDS` are imported on first use; the
    command list of ``--help`` takes their help from :data:`LAZY_HELP`.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, as click writes it, without importing lazy commands."""
        commands = []
        for name in self.list_commands(ctx):
            cmd = self.commands.get(name)
            if cmd is None and name in LAZY_HELP:
                cmd = click.Command(name, help=LAZY_HELP[name])
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

    def get_command(self, ctx: click.Context, name: str):
        if name in LAZY_COMMANDS and name not in self.commands:
            from importlib import import_module

            module, attr = LAZY_COMMANDS[name].split(":")
            self.add_command(getattr(import_module(module), attr), name)
        return super().get_command(ctx, name)

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
        except OSError as exc:  # disk full, permission denied, …
            click.echo(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), err=True)
            ctx.exit(5)


def click_error_line(exc: click.ClickException) -> str:
    """A click error (bad option, missing argument…) as one ``error:`` line like the tool's
    own, naming the command's --help instead of repeating its usage."""
    message = exc.format_message().strip().replace("\n", " ")
    message = (message[:1].lower() + message[1:]).rstrip(".")
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message += f"; see '{ctx.command_path} --help'"
    return f"error: {message}"


def spacing_core_build() -> str:
    """How the installed spacing core runs: ``"compiled (Cython)"`` or ``"Python"`` (without
    importing it: ``--version`` stays light)."""
    spec = importlib.util.find_spec("stations_generator.core.stationmap.spacing")
    origin = (spec.origin or "") if spec is not None else ""
    return "Python" if origin.endswith(".py") else "compiled (Cython)"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    # The build says how fast the spacing core is (setup.py compiles it where it can).
    from stations_generator import __version__

    click.echo(f"stations-generator, version {__version__} (spacing core: {spacing_core_build()})")
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
    ctx.obj = Console(-1 if quiet else verbose)
    _exit_cleanly_on_terminate(ctx)
    _fewer_collections(ctx)


def run() -> None:
    """The ``stations-generator`` program (and ``python -m stations_generator``).

    :func:`main`, then a quick exit. A command that made a large map leaves millions of
    objects, which the interpreter would free one by one as it shuts down: 0.07-0.09 s
    after ``generate`` at 10k-50k candidates (from the end of :func:`main` to the end of
    the process), where the operating system frees them at once. So once a command has
    ended with an exit code, the standard streams are flushed, the ``atexit`` functions
    run, and the process ends there (as mypy's does). Where that might lose something --
    another thread still running, an exit message in place of a code, a stream that
    fails to flush, an interpreter without ``atexit._run_exitfuncs`` -- it ends the
    ordinary way.
    """
    try:
        main.main()
    except SystemExit as ended:
        _leave(ended)
    # (click's main always ends in SystemExit; reaching here, Python exits as usual)


def _leave(ended: SystemExit) -> None:
    """End the process with ``ended``'s exit code at once, or re-raise it (see :func:`run`)."""
    import atexit
    import os
    import threading

    code = 0 if ended.code is None else ended.code
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    others = [
        t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon
    ]
    if not isinstance(code, int) or others or run_exit_functions is None:
        raise ended
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - e.g. a closed pipe: Python's own exit reports it
        raise ended from None
    run_exit_functions()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


# Objects made between young garbage collections while a command runs (Python's default
# is 700). A command makes millions of long-lived containers (one dict per OSM element,
# neighbour lists), and at the default the collector walks them again and again: 1.5 s
# of 10 s at 100k candidates (bench/bench_generate_scale.py --stages). Cycles are still
# collected, just in larger batches.
COMMAND_GC_THRESHOLD = 100_000


def _fewer_collections(ctx: click.Context) -> None:
    """Raise the young-generation GC threshold for the command; restored when it ends."""
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


def _parse_date(_ctx, _param, value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date; write YYYY-MM-DD") from None


@main.command(context_settings=CONTEXT)
@click.argument("play_area", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(path_type=Path),
    default=Path("out"),
    show_default=True,
    help="Folder for stations.geojson, stations.csv, stations.kml.",
)
@click.option(
    "--osm",
    "osm_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Work offline from a saved Overpass JSON or an .osm/.osm.bz2/.osm.pbf extract (repeatable).",
)
@click.option(
    "--water",
    "water_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Water areas to subtract, as Overpass JSON (out geom) or an extract (repeatable).",
)
@click.option(
    "--exclude",
    "exclude_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Polygons to leave out of the play area, in any play-area format (repeatable).",
)
@click.option(
    "--osm-relation", type=int, help="Online: use this OSM relation's area as the play area."
)
@click.option(
    "--place", help='Online: use this named place as the play area, e.g. "Sioux Falls, SD".'
)
@click.option(
    "--categories",
    "category_files",
    multiple=True,
    type=click.Path(path_type=Path),
    help="TOML file of [[category]] entries that extend or override the catalogue (repeatable).",
)
@click.option(
    "--category",
    "only_categories",
    multiple=True,
    help="Use only these station categories (repeatable); default: every station category.",
)
@click.option("--no-transit", is_flag=True, help="Leave out real transit stations.")
@click.option(
    "--min-spacing",
    type=METRES(min=1),
    default=300.0,
    show_default=True,
    help="Metres between stations of one cluster.",
)
@click.option(
    "--cluster-gap",
    type=METRES(min=1),
    default=1000.0,
    show_default=True,
    help="Metres between stations of different clusters.",
)
@click.option(
    "--cluster-radius",
    type=METRES(min=0),
    help="Metres from a cluster's first station to its others [default: the game size's hiding radius].",
)
@click.option(
    "--max-per-cluster",
    type=click.IntRange(min=0),
    help="Cap on non-transit stations per cluster; 0 = none [default: auto-tuned to the game size].",
)
@click.option(
    "--game-size",
    type=click.Choice(["S", "M", "L"], case_sensitive=False),
    help="Game size [default: from the net play area: S < 259 km² ≤ M < 2590 km² ≤ L].",
)
@click.option(
    "--density-radius",
    type=METRES(min=1),
    default=1609.0,
    show_default=True,
    help="Metres for the nearby count that sets the wait tier.",
)
@click.option(
    "--tiers",
    help="Wait tiers as NAME:MIN_NEARBY:MIN-MAX,… [default: dense:15:5-15,moderate:5:10-30,sparse:0:20-60].",
)
@click.option("--playing-hours", default="7am-7pm", show_default=True, help="Daily playing hours.")
@click.option(
    "--playing-days",
    default="sat,sun",
    show_default=True,
    help="Playing days, e.g. sat,sun or mon-fri.",
)
@click.option(
    "--play-date",
    callback=_parse_date,
    help="First day of the game (YYYY-MM-DD), for seasonal opening hours.",
)
@click.option("--no-water-subtract", is_flag=True, help="Do not subtract water from the play area.")
@click.option(
    "--strict-priority",
    is_flag=True,
    help="Pure rank-order selection, without the swaps that add stations.",
)
@click.option(
    "--optimize",
    is_flag=True,
    help="Solve the spacing exactly (CP-SAT): the most stations the rules allow, with the "
    "proven bound; never fewer than without it.",
)
@click.option(
    "--search",
    "search_rounds",
    type=click.IntRange(min=0, max=1_000_000),
    default=None,
    help="Rounds of local search per greedy start after the swaps (re-packs clusters for "
    "more stations; a count, so the map is reproducible) [default: 4 per candidate, at most "
    "2000: Sioux Falls 105 -> 113 stations, 98-99 % of the proven optima, ~1 s]; 0 = the "
    "greedy with swaps only.",
)
@click.option(
    "--time-limit",
    type=SECONDS(min=0.1),
    help="Solver budget for --optimize in (deterministic) seconds [default: 60].",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Also write candidates.geojson: every candidate with its status and reason.",
)
@click.option(
    "--map",
    "html_map",
    is_flag=True,
    help="Also write stations.html: an interactive map (Leaflet inlined; only tiles load online).",
)
@click.option(
    "--name", "map_name", help="Map name in the KML [default: the play area's file name]."
)
@overpass_options(
    url_help="Overpass endpoint (repeatable; tried in order; env STATIONS_GENERATOR_OVERPASS_URL, space-separated).",
    timeout_help="Deadline in seconds for each Overpass (and --place Nominatim) request: every try, "
    "instance and wait must end within it, however slowly a server answers.",
    cache_help="Overpass cache folder [default: the user cache dir; env STATIONS_GENERATOR_CACHE_DIR].",
    no_cache_help="Neither read nor write the Overpass or the extract cache.",
)
@click.pass_obj
def generate(
    console: Console,
    play_area: Path | None,
    output_dir: Path,
    osm_files,
    water_files,
    exclude_files,
    osm_relation,
    place,
    category_files,
    only_categories,
    no_transit,
    min_spacing,
    cluster_gap,
    cluster_radius,
    max_per_cluster,
    game_size,
    density_radius,
    tiers,
    playing_hours,
    playing_days,
    play_date,
    no_water_subtract,
    strict_priority,
    optimize,
    search_rounds,
    time_limit,
    explain,
    html_map,
    map_name,
    overpass_urls,
    overpass_timeout,
    cache_dir,
    no_cache,
) -> None:
    """Pick vehicle stations for a play area and write GeoJSON, CSV and KML.

    PLAY_AREA is a polygon file: GeoJSON, KML/KMZ (Google My Maps, Google Earth), GPX,
    a shapefile or GeoPackage (anything GDAL reads). Offline with --osm FILE; otherwise one batched
    Overpass query fetches the candidates and the water.

    \b
    Example (the bundled Sioux Falls data, offline):
      stations-generator generate zones/sioux-falls.geojson \\
        --osm examples/sioux-falls/pois.json --water examples/sioux-falls/water.json -o out/sioux-falls
    """
    from stations_generator.app.generate import GenerateRequest, run_generate
    from stations_generator.core.stationmap.optimize import DEFAULT_TIME_LIMIT_S

    sources = [s for s in (play_area, osm_relation, place) if s is not None]
    if len(sources) != 1:
        raise click.UsageError("give exactly one of PLAY_AREA, --osm-relation ID or --place NAME")
    if (osm_relation is not None or place is not None) and osm_files:
        raise click.UsageError(
            "--osm-relation and --place fetch the area online; with --osm give a PLAY_AREA file"
        )
    if time_limit is not None and not optimize:
        raise click.UsageError("--time-limit is the --optimize budget; add --optimize")
    if search_rounds is not None and strict_priority:
        raise click.UsageError(
            "--search re-packs the map and --strict-priority forbids that; drop one of them"
        )
    request = GenerateRequest(
        play_area=play_area,
        osm_relation=osm_relation,
        place=place,
        output_dir=output_dir,
        osm_files=tuple(osm_files),
        water_files=tuple(water_files),
        exclude_files=tuple(exclude_files),
        category_files=tuple(category_files),
        only_categories=tuple(only_categories),
        include_transit=not no_transit,
        min_spacing=min_spacing,
        cluster_gap=cluster_gap,
        cluster_radius=cluster_radius,
        max_per_cluster=max_per_cluster,
        game_size=game_size,
        density_radius=density_radius,
        tiers=tiers,
        playing_hours=playing_hours,
        playing_days=playing_days,
        play_date=play_date,
        water_subtract=not no_water_subtract,
        strict_priority=strict_priority,
        optimize=optimize,
        time_limit=DEFAULT_TIME_LIMIT_S if time_limit is None else time_limit,
        search_rounds=search_rounds,
        explain=explain,
        html_map=html_map,
        map_name=map_name,
        overpass_urls=tuple(overpass_urls),
        overpass_timeout=overpass_timeout,
        cache_dir=cache_dir,
        use_cache=not no_cache,
    )
    run_generate(request, console)
