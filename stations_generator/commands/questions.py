"""``questions apply | answer | cost`` and ``zones check``: the question geometry on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..core.antimeridian import split_antimeridian, wrap_lon
from ..core.game import Elimination, Game, ZoneStatus
from ..core.questions import QuestionError
from ..core.rules import cost_ledger
from ..errors import InputError
from ..export.atomic import output_set
from ..export.geojson import dumps_geojson, polygon_rings
from ..gamefile import LoadedGame, load_cost_questions, load_game, parse_lat_lon
from ..taibeled_game import MapSources

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
REMAINING_GEOJSON = "remaining.geojson"
ZONES_GEOJSON = "zones.geojson"
ELIMINATION_HTML = "elimination.html"
#: The files ``questions apply`` owns in its -o folder (elimination.html only with --map).
APPLY_FILES = (REMAINING_GEOJSON, ZONES_GEOJSON, ELIMINATION_HTML)

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
        help="GeoJSON play area (overrides the game's; a question list needs one, or --stations/--osm).",
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
        envvar="STATIONS_GENERATOR_OVERPASS_URL",
        help="Overpass endpoint for a taibeled play area stored as an OSM id that no --osm file "
        "holds, and for places when no --osm is given (env STATIONS_GENERATOR_OVERPASS_URL).",
    ),
    click.option(
        "--cache-dir",
        type=click.Path(path_type=Path),
        envvar="STATIONS_GENERATOR_CACHE_DIR",
        help="Overpass cache folder [default: the user cache dir; env STATIONS_GENERATOR_CACHE_DIR].",
    ),
    click.option(
        "--no-cache", is_flag=True, help="Neither read nor write the Overpass or the extract cache."
    ),
]


def _osm_opt(f):
    """The options that say where the map comes from (shared by every command here)."""
    for option in reversed(_MAP_OPTIONS):
        f = option(f)
    return f


def _sources(console, options: dict) -> MapSources:
    from ..osm import overpass

    urls = tuple(u for text in options.get("overpass_urls") or () for u in str(text).split())

    def client() -> overpass.OverpassClient:
        return overpass.OverpassClient(
            urls or overpass.DEFAULT_ENDPOINTS,
            cache_dir=options.get("cache_dir"),
            use_cache=not options.get("no_cache"),
            log=console.detail,
        )

    from ..osm import layers
    from ..osm.extract_cache import ExtractCache

    ctx = click.get_current_context(silent=True)
    if ctx is not None:  # the extract cache of this command, until it ends
        ctx.with_resource(
            layers.use_cache(
                ExtractCache.for_command(
                    options.get("cache_dir"), not options.get("no_cache"), console
                )
            )
        )
    return MapSources(
        osm=tuple(options.get("osm_files") or ()),
        play_area=options.get("play_area"),
        stations=options.get("stations_file"),
        overpass=client,
        say=console.info,
    )


def _load(game: Path, console, options: dict) -> LoadedGame:
    try:
        loaded = load_game(game, sources=_sources(console, options), warn=console.warn)
        loaded.game.validate()
    except QuestionError as exc:
        raise InputError(f"{game.name}: {exc}") from None
    return loaded


def _geometry(geom) -> dict | None:
    geom = split_antimeridian(geom)  # RFC 7946: cut at ±180°, longitudes in [-180, 180]
    polys = [
        g for g in getattr(geom, "geoms", [geom]) if g.geom_type == "Polygon" and not g.is_empty
    ]
    if not polys:
        return None
    if len(polys) == 1:
        return {"type": "Polygon", "coordinates": polygon_rings(polys[0])}
    return {"type": "MultiPolygon", "coordinates": [polygon_rings(p) for p in polys]}


def _feature(fid: str, props: dict, geom: dict | None) -> dict:
    return {"type": "Feature", "id": fid, "properties": props, "geometry": geom}


def elimination_geojson(game: Game, elimination: Elimination) -> dict:
    """Remaining area plus one feature per question with the area it removed."""
    features = [
        _feature(
            "remaining",
            {"role": "remaining", "area_km2": round(elimination.remaining_km2, 6)},
            _geometry(elimination.remaining),
        )
    ]
    for k, step in enumerate(elimination.steps, 1):
        q = step.question
        features.append(
            _feature(
                f"question/{k}",
                {
                    "role": "eliminated",
                    "question": k,
                    "label": q.label(),
                    "answer": q.answer_text(q.answer),
                    "removed_km2": round(step.removed_km2, 6),
                    "stations_removed": list(step.stations_removed),
                    "set_aside": step.set_aside,
                    "contradicts": list(step.contradicts),
                },
                _geometry(step.removed),
            )
        )
    return {"type": "FeatureCollection", "features": features}


def zones_geojson(game: Game, zones: list[ZoneStatus]) -> dict:
    """Every hiding zone as a Point Feature with its status (circles are drawn by the viewer)."""
    features = []
    for z in zones:
        s = z.station
        features.append(
            {
                "type": "Feature",
                "id": s.id,
                "properties": {
                    "id": s.id,
                    "name": s.name,
                    "possible": z.possible,
                    "fraction": round(z.fraction, 4),
                    "reason": z.reason,
                    "radius_m": round(game.hiding_radius_m, 1),
                },
                "geometry": {
                    "type": "Point",
                    "coordinates": [round(float(wrap_lon(s.lon)), 7), round(s.lat, 7)],
                },
            }
        )
    return {"type": "FeatureCollection", "features": features}


def summary_table(game: Game, elimination: Elimination, zones: list[ZoneStatus]) -> list[str]:
    """The table printed on stderr after ``questions apply``."""
    lines = [f"{'#':>2}  {'question':<34} {'answer':<24} {'removed km²':>11} {'left km²':>9}"]
    for k, step in enumerate(elimination.steps, 1):
        q = step.question
        removed = (
            "set aside"
            if step.set_aside
            else f"{len(step.stations_removed)} stations"
            if step.stations_removed
            else f"{step.removed_km2:.4f}"
        )
        lines.append(
            f"{k:>2}  {q.label()[:34]:<34} {q.answer_text(q.answer)[:24]:<24} {removed:>11} {step.remaining_km2:>9.4f}"
        )
    possible = [z for z in zones if z.possible]
    lines.append(
        f"Remaining: {elimination.remaining_km2:.4f} km²; hiding zones still possible: "
        f"{len(possible)} of {len(zones)} (radius {game.hiding_radius_m:g} m)"
    )
    return lines


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
@_osm_opt
@click.pass_obj
def apply_cmd(console, game: Path, output_dir: Path, html_map: bool, **options) -> None:
    """Remaining area and possible hiding zones after every question."""
    # The folder is locked from here on; its files appear together, or not at all.
    with output_set(output_dir, APPLY_FILES) as outputs:
        g, elimination, zones, texts = _apply_outputs(console, game, html_map, options)
        for name, text in texts.items():
            outputs.write_text(name, text)
    for line in summary_table(g, elimination, zones):
        console.info(line)
    console.info("Wrote " + ", ".join(str(output_dir / n) for n in texts))


def _apply_outputs(
    console, game: Path, html_map: bool, options: dict
) -> tuple[Game, Elimination, list[ZoneStatus], dict[str, str]]:
    """The game, what its questions leave, and the files of ``questions apply`` by name."""
    loaded = _load(game, console, options)
    g = loaded.game
    elimination = g.eliminate()
    _warn_contradictions(console, elimination)
    zones = g.possible_zones(elimination)
    texts = {
        REMAINING_GEOJSON: dumps_geojson(elimination_geojson(g, elimination)),
        ZONES_GEOJSON: dumps_geojson(zones_geojson(g, zones)),
    }
    if html_map:
        from ..export.elimination_map import elimination_map
        from ..export.folium_map import render_station_map

        texts[ELIMINATION_HTML] = render_station_map(
            elimination_map(
                g, elimination, zones, title=game.parent.name if game.stem == "game" else game.stem
            )
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
@click.pass_obj
def answer_cmd(
    console, game: Path, hider: str, station_id: str | None, as_json: bool, **options
) -> None:
    """Answer every question truthfully for a hider (the same geometry the seekers use)."""
    lon, lat = parse_lat_lon(hider, "--hider")  # before the (slow) game load
    loaded = _load_for_answers(game, console, options)
    g = loaded.game
    if not g.covers(lon, lat):
        raise InputError(
            f"--hider {hider} is outside the play area; check the coordinates (LAT,LON)"
        )
    station = _station(g, station_id) if station_id else None
    if all(q.answer is not None for q in g.questions):
        _warn_contradictions(console, g.eliminate())
    try:
        answers = g.hider_answers(lon, lat, station)
    except QuestionError as exc:
        raise InputError(str(exc)) from None
    rows = [
        {
            "question": k,
            "label": q.label(),
            "answer": q.answer_text(a),
            "value": a,
            "recorded": None if q.answer is None else q.answer_text(q.answer),
        }
        for k, (q, a) in enumerate(answers, 1)
    ]
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
@click.pass_obj
def cost_cmd(console, game: Path, as_json: bool, **options) -> None:
    """Cards the hider draws and picks for each question, repeated questions costing more.

    A taibeled question list or single question needs no map here.
    """
    try:
        questions = load_cost_questions(game, _sources(console, options))
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


def _warn_contradictions(console, elimination: Elimination) -> None:
    """Say which recorded answers contradict each other (each such question is set aside)."""
    for contradiction in elimination.contradictions:
        console.warn(contradiction.message())


def _load_for_answers(game: Path, console, options: dict) -> LoadedGame:
    """Like _load, but answers may be missing (hider mode does not need them)."""
    try:
        return load_game(game, sources=_sources(console, options), warn=console.warn)
    except QuestionError as exc:
        raise InputError(f"{game.name}: {exc}") from None


def _station(g: Game, station_id: str):
    for s in g.stations:
        if s.id == station_id or s.name.casefold() == station_id.casefold():
            return s
    raise InputError(
        f"no station {station_id!r} in the game; give an id like node/123 or an exact name"
    )


@click.group(context_settings=CONTEXT)
def zones() -> None:
    """Hiding zones: check whether one is still valid."""


@zones.command("check", context_settings=CONTEXT)
@_game_arg
@click.option("--station", "station_id", help="The station (id like node/123, or its name).")
@click.option("--at", "at", help="A zone centred on LAT,LON instead of a station.")
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout.")
@_osm_opt
@click.pass_obj
def check_cmd(
    console, game: Path, station_id: str | None, at: str | None, as_json: bool, **options
) -> None:
    """Is this hiding zone valid? Names each question that rules it out. Exit 0 valid, 1 not."""
    if (station_id is None) == (at is None):
        raise click.UsageError("give exactly one of --station ID or --at LAT,LON")
    point = parse_lat_lon(at, "--at") if at is not None else None  # before the game load
    loaded = _load(game, console, options)
    g = loaded.game
    _warn_contradictions(console, g.eliminate())
    if station_id:
        result = g.check_zone(station=_station(g, station_id))
    else:
        assert point is not None
        lon, lat = point
        result = g.check_zone(point=(lon, lat))
        if not result.inside_map:
            raise InputError(
                f"--at {at} is outside the play area (no part of its hiding zone is in it); "
                "give LAT,LON inside the play area"
            )
    what = (
        f"{result.station.name or result.station.id} ({result.station.id})"
        if result.station
        else f"zone at {at}"
    )
    payload: dict[str, Any] = {
        "zone": what,
        "valid": result.valid,
        "allowed_stop": result.allowed_stop,
        "inside_map": result.inside_map,
        "ruled_out_by": [
            {
                "question": c.index + 1,
                "label": c.question.label(),
                "recorded": c.question.answer_text(c.recorded),
                "needed": c.question.answer_text(c.needed),
            }
            for c in result.conflicts
        ],
    }
    if as_json:
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        click.echo(f"{what}: {'VALID' if result.valid else 'NOT VALID'}")
        if not result.allowed_stop:
            click.echo(f"  not a valid hiding stop under {g.rules.name}")
        if not result.inside_map:
            click.echo("  the zone lies outside the play area")
        for c in payload["ruled_out_by"]:
            click.echo(
                f"  ruled out by question {c['question']} ({c['label']}): answered {c['recorded']}, "
                f"this zone would need {c['needed']}"
            )
    click.get_current_context().exit(0 if result.valid else 1)
