"""``questions apply | answer | cost`` and ``zones check``: the question geometry on the command line."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import click

from stations_generator.app.game_loader import LoadedGame, load_cost_questions
from stations_generator.app.games import (  # noqa: F401  (re-exported: the commands' steps live in games.py)
    APPLY_FILES,
    ELIMINATION_HTML,
    REMAINING_GEOJSON,
    ZONES_GEOJSON,
    apply_texts,
    check_zone,
    elimination_geojson,
    find_station,
    game_title,
    hider_answers,
    load,
    summary_table,
    zone_payload,
    zones_geojson,
)
from stations_generator.app.map_context import MapSources, map_sources
from stations_generator.commands.options import CONTEXT, palette_option
from stations_generator.core.questions.game import Elimination, Game, ZoneStatus
from stations_generator.core.questions.geometry import QuestionError
from stations_generator.core.questions.rules import cost_ledger
from stations_generator.errors import InputError
from stations_generator.formats.atomic import output_set
from stations_generator.formats.gamefile import parse_lat_lon
from stations_generator.settings import CACHE_DIR_ENV, OVERPASS_URL_ENV

_game_arg = click.argument("game", type=click.Path(path_type=Path))
_MAP_OPTIONS = [
    click.option(
        "--osm",
        "osm_files",
        multiple=True,
        type=click.Path(path_type=Path),
        help="OSM extract(s) or Overpass JSON for places, zones and stations (overrides the game's).",
    ),
    click.option(
        "--play-area",
        type=click.Path(path_type=Path),
        help="Play-area file, GeoJSON/KML/KMZ/GPX/shapefile/GeoPackage (overrides the game's; a question list needs one, or --stations/--osm).",
    ),
    click.option(
        "--stations",
        "stations_file",
        type=click.Path(path_type=Path),
        help="stations.geojson from generate: the hiding stations (and the play area it holds).",
    ),
    click.option(
        "--overpass-url",
        "overpass_urls",
        multiple=True,
        envvar=OVERPASS_URL_ENV,
        help="Overpass endpoint for a taibeled play area stored as an OSM id that no --osm file "
        "holds, and for places when no --osm is given (env STATIONS_GENERATOR_OVERPASS_URL).",
    ),
    click.option(
        "--cache-dir",
        type=click.Path(path_type=Path),
        envvar=CACHE_DIR_ENV,
        help="Overpass cache folder [default: the user cache dir; env STATIONS_GENERATOR_CACHE_DIR].",
    ),
    click.option(
        "--no-cache", is_flag=True, help="Neither read nor write the Overpass or the extract cache."
    ),
    click.option(
        "--dem",
        "dem_file",
        type=click.Path(path_type=Path),
        help="Elevation file (GeoTIFF, SRTM .hgt) for sea-level questions (overrides the game's).",
    ),
]


def _osm_opt(f):
    """The options that say where the map comes from (shared by every command here)."""
    for option in reversed(_MAP_OPTIONS):
        f = option(f)
    return f


log = logging.getLogger(__name__)


def _sources(options: dict) -> MapSources:
    from stations_generator.osm import layers
    from stations_generator.osm.extract_cache import ExtractCache

    ctx = click.get_current_context(silent=True)
    if ctx is not None:  # the extract cache of this command, until it ends
        ctx.with_resource(
            layers.use_cache(
                ExtractCache.for_command(options.get("cache_dir"), not options.get("no_cache"))
            )
        )
    return map_sources(
        options.get("osm_files") or (),
        options.get("play_area"),
        options.get("stations_file"),
        overpass_urls=options.get("overpass_urls") or (),
        cache_dir=options.get("cache_dir"),
        use_cache=not options.get("no_cache"),
        dem=options.get("dem_file"),
    )


def _load(game: Path, options: dict) -> LoadedGame:
    return load(game, _sources(options), log.warning)


@click.group(context_settings=CONTEXT)
def questions() -> None:
    """Apply seekers' questions to the map, answer them as the hider, count their cost.

    GAME is a GAME.json (see docs/questions.md), a taibeled state, a taibeled question
    list or single question (its map from --play-area, --stations or --osm; cost needs
    none), or a file holding a taibeled share link (?hzc=…). A taibeled play area stored
    as an OSM id is read from --osm, else fetched from Overpass (cached).
    """


@questions.command("apply", context_settings=CONTEXT)
@_game_arg
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(path_type=Path),
    default=Path("out"),
    show_default=True,
    help="Folder for remaining.geojson and zones.geojson.",
)
@click.option(
    "--map",
    "html_map",
    is_flag=True,
    help="Also write elimination.html: a layer per question, zones possible and not.",
)
@palette_option()
@_osm_opt
def apply_cmd(game: Path, output_dir: Path, html_map: bool, palette: str, **options) -> None:
    """Remaining area and possible hiding zones after every question.

    \b
    Example (the bundled Helsinki game, offline):
      stations-generator questions apply examples/helsinki-game/game.json -o out/helsinki --map
    """
    # The folder is locked from here on; its files appear together, or not at all.
    with output_set(output_dir, APPLY_FILES) as outputs:
        g, elimination, zones, texts = _apply_outputs(game, html_map, palette, options)
        for name, text in texts.items():
            outputs.write_text(name, text)
    for line in summary_table(g, elimination, zones):
        log.info(line)
    log.info("Wrote " + ", ".join(str(output_dir / n) for n in texts))


def _apply_outputs(
    game: Path, html_map: bool, palette: str, options: dict
) -> tuple[Game, Elimination, list[ZoneStatus], dict[str, str]]:
    """The game, what its questions leave, and the files of ``questions apply`` by name."""
    g = _load(game, options).game
    elimination = g.eliminate()
    _warn_contradictions(elimination)
    zones = g.possible_zones(elimination)
    texts = apply_texts(
        g, elimination, zones, html_map=html_map, title=game_title(game), palette=palette
    )
    return g, elimination, zones, texts


@questions.command("answer", context_settings=CONTEXT)
@_game_arg
@click.option("--hider", required=True, help="The hider's position as LAT,LON.")
@click.option(
    "--station", "station_id", help="The hider's station id (default: nearest to the hider)."
)
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout.")
@_osm_opt
def answer_cmd(game: Path, hider: str, station_id: str | None, as_json: bool, **options) -> None:
    """Answer every question truthfully for a hider (the same geometry the seekers use).

    \b
    Example:
      stations-generator questions answer examples/helsinki-game/game.json --hider 60.1665,24.9490
    """
    lon, lat = parse_lat_lon(hider, "--hider")  # before the (slow) game load
    g = _load_for_answers(game, options).game
    if all(q.answer is not None for q in g.questions) and g.covers(lon, lat):
        _warn_contradictions(g.eliminate())
    rows = hider_answers(g, lon, lat, station_id, label=hider)
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for r in rows:
        mark = "" if r["recorded"] in (None, r["answer"]) else f"   (recorded: {r['recorded']})"
        click.echo(f"{r['question']:>2}. {r['label']}: {r['answer']}{mark}")


@questions.command("cost", context_settings=CONTEXT)
@_game_arg
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout.")
@_osm_opt
def cost_cmd(game: Path, as_json: bool, **options) -> None:
    """Cards the hider draws and picks for each question, repeated questions costing more.

    A taibeled question list or single question needs no map here.

    \b
    Example:
      stations-generator questions cost examples/helsinki-game/game.json
    """
    try:
        questions = load_cost_questions(game, _sources(options))
    except QuestionError as exc:
        raise InputError(f"{game.name}: {exc}") from None
    ledger = cost_ledger(questions)
    if as_json:
        click.echo(json.dumps([e.__dict__ for e in ledger], ensure_ascii=False, indent=2))
        return
    total_draw = total_pick = 0
    for k, e in enumerate(ledger, 1):
        total_draw += e.draw
        total_pick += e.pick
        again = f" (asked {e.times_asked}×)" if e.times_asked > 1 else ""
        click.echo(f"{k:>2}. {e.label}{again}: draw {e.draw}, pick {e.pick}")
    click.echo(f"Total: draw {total_draw}, pick {total_pick}")


def _warn_contradictions(elimination: Elimination) -> None:
    """Say which recorded answers contradict each other (each such question is set aside)."""
    for contradiction in elimination.contradictions:
        log.warning(contradiction.message())


def _load_for_answers(game: Path, options: dict) -> LoadedGame:
    """Like _load, but answers may be missing (hider mode does not need them)."""
    return load(game, _sources(options), log.warning, validate=False)


@click.group(context_settings=CONTEXT)
def zones() -> None:
    """Hiding zones: check whether one is still valid."""


@zones.command("check", context_settings=CONTEXT)
@_game_arg
@click.option("--station", "station_id", help="The station (id like node/123, or its name).")
@click.option("--at", "at", help="A zone centred on LAT,LON instead of a station.")
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout.")
@_osm_opt
def check_cmd(game: Path, station_id: str | None, at: str | None, as_json: bool, **options) -> None:
    """Is this hiding zone valid? Names each question that rules it out. Exit 0 valid, 1 not.

    \b
    Example:
      stations-generator zones check examples/helsinki-game/game.json --station Senaatintori
    """
    if (station_id is None) == (at is None):
        raise click.UsageError("give exactly one of --station ID or --at LAT,LON")
    point = parse_lat_lon(at, "--at") if at is not None else None  # before the game load
    g = _load(game, options).game
    _warn_contradictions(g.eliminate())
    result = check_zone(g, station=station_id, at=point, label=at or "")
    what = (
        f"{result.station.name or result.station.id} ({result.station.id})"
        if result.station
        else f"zone at {at}"
    )
    payload = zone_payload(g, result, what)
    if as_json:
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        click.echo(f"{what}: {'VALID' if result.valid else 'NOT VALID'}")
        if not result.allowed_stop:
            click.echo(f"  not a valid hiding stop under {g.rules.name}")
        if not result.inside_map:
            click.echo(
                "  its stop lies outside the play area (a zone is centred on a stop in the map)"
            )
        if result.filtered_out:
            click.echo(f"  {result.filtered_out}")
        for c in payload["ruled_out_by"]:
            click.echo(
                f"  ruled out by question {c['question']} ({c['label']}): answered {c['recorded']}, "
                f"this zone would need {c['needed']}"
            )
    click.get_current_context().exit(0 if result.valid else 1)
