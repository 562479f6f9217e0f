"""The ``board`` command group: generate, play, track, simulate (thin: parse, call, report)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from stations_generator.commands.options import CONTEXT, overpass_options
from stations_generator.errors import InputError

if TYPE_CHECKING:
    from stations_generator.board.rules import Observation

logger = logging.getLogger(__name__)

SHARE = click.FloatRange(0.0, 1.0)


@click.group(context_settings=CONTEXT)  # the main group turns UserErrors into one line
def board() -> None:
    """Het Jachtseizoen boards from real maps: generate, referee, track, simulate.

    See docs/board.md for the board format, the terrain rules and the house rules.
    """


@board.command(context_settings=CONTEXT)
@click.argument("area", type=click.Path(path_type=Path))
@click.option(
    "--osm",
    "osm_file",
    type=click.Path(path_type=Path),
    help="Work offline from an .osm/.osm.gz/.osm.bz2/.osm.pbf extract [default: fetch from Overpass].",
)
@click.option(
    "-o",
    "--output-dir",
    type=click.Path(path_type=Path),
    default=Path("out/board"),
    show_default=True,
    help="Folder for board.json/.geojson/.html/.pdf/.png.",
)
@click.option(
    "--cols",
    type=click.IntRange(1, 702),
    help="Columns (A…); with --rows, at most 5000 squares [default: 24×36, turned for a wide area].",
)
@click.option("--rows", type=click.IntRange(1, 999), help="Rows (01…); with --cols.")
@click.option(
    "--cell-km",
    type=click.FloatRange(0.01, 1000, min_open=False),
    help="Square size in km (instead of --cols/--rows).",
)
@click.option(
    "--area-share",
    type=SHARE,
    default=0.5,
    show_default=True,
    help="A square is on the board when the area covers this share of it.",
)
@click.option(
    "--water-share",
    type=SHARE,
    default=0.5,
    show_default=True,
    help="Water cover that makes a square water.",
)
@click.option(
    "--forest-share",
    type=SHARE,
    default=0.5,
    show_default=True,
    help="Forest cover that makes a square forest.",
)
@click.option(
    "--builtup-share",
    type=SHARE,
    default=0.3,
    show_default=True,
    help="Residential/commercial/retail/industrial cover that makes a square built-up.",
)
@click.option(
    "--towns-above",
    type=click.IntRange(min=0),
    help="Also count place=town with at least this population as big cities.",
)
@click.option(
    "--station-km",
    type=click.FloatRange(0.0, 50.0),
    default=2.5,
    show_default=True,
    help="A city is on the railway when a station lies this close to its centre.",
)
@click.option(
    "--junction-merge-km",
    type=click.FloatRange(0.0, 10.0),
    default=1.5,
    show_default=True,
    help="Junction nodes of one name this close are one junction.",
)
@click.option(
    "--paper",
    type=click.Choice(["a3", "a4"], case_sensitive=False),
    default="a3",
    show_default=True,
    help="Paper size of board.pdf/board.png.",
)
@click.option("--name", help="Board title [default: the area file's name].")
@overpass_options(
    url_help="Overpass endpoint (repeatable).",
    timeout_help="Deadline in seconds for the Overpass request.",
    cache_help="Overpass cache folder.",
    no_cache_help="Neither read nor write the Overpass cache.",
)
def generate(
    area,
    osm_file,
    output_dir,
    cols,
    rows,
    cell_km,
    area_share,
    water_share,
    forest_share,
    builtup_share,
    towns_above,
    station_km,
    junction_merge_km,
    paper,
    name,
    overpass_urls,
    overpass_timeout,
    cache_dir,
    no_cache,
) -> None:
    """Generate a board for AREA (a GeoJSON polygon) from OpenStreetMap.

    \b
    Example (offline, the bundled Liechtenstein extract):
      stations-generator board generate zones/liechtenstein.geojson \\
        --osm tests/data/osm-extracts/liechtenstein-2013-08.osm.pbf -o out/board
    """
    from stations_generator.board.build import BoardRequest, run_board_generate
    from stations_generator.board.terrain import Thresholds

    client = None
    if osm_file is None:
        from stations_generator.app.reporting import status_sink
        from stations_generator.osm import overpass

        client = overpass.client(
            overpass_urls,
            timeout=overpass_timeout,
            cache_dir=cache_dir,
            use_cache=not no_cache,
            log=logger.debug,
            notify=logger.info,
            status=status_sink(logger),
        )
    request = BoardRequest(
        area=area,
        output_dir=output_dir,
        osm_file=osm_file,
        cols=cols,
        rows=rows,
        cell_km=cell_km,
        thresholds=Thresholds(
            area_share=area_share,
            water_share=water_share,
            forest_share=forest_share,
            builtup_share=builtup_share,
            town_population=towns_above,
            station_radius_m=station_km * 1000.0,
            junction_merge_m=junction_merge_km * 1000.0,
        ),
        paper=paper.lower(),
        name=name,
        overpass_client=client,
    )
    run_board_generate(request)


def _house_rules(neighbours: int, cards: Path | None, wait: bool, offline_capture: bool):
    from stations_generator.board.rules import HouseRules, load_cards

    return HouseRules(
        neighbours=neighbours,
        cards=load_cards(cards),
        wait=wait,
        offline_capture=offline_capture,
    )


def _rules_options(f):
    f = click.option(
        "--house-offline-capture",
        "offline_capture",
        is_flag=True,
        help="House rule: catch the fugitive at the end of an OFFLINE turn too [rulebook: not].",
    )(f)
    f = click.option(
        "--house-wait",
        "wait",
        is_flag=True,
        help="House rule: the fugitive may WAIT (1 action, stay) [rulebook: no such action].",
    )(f)
    f = click.option(
        "--cards",
        type=click.Path(path_type=Path),
        help="Card file (TOML) [default: the bundled 30 cards; see docs/board.md].",
    )(f)
    f = click.option(
        "--neighbours",
        type=click.Choice(["4", "8"]),
        default="8",
        show_default=True,
        help="A step goes to the 4 edge neighbours or all 8 (house rule).",
    )(f)
    return f


def _echo_json(doc) -> None:
    import json

    click.echo(json.dumps(doc, ensure_ascii=False, indent=1))


@board.command(context_settings=CONTEXT)
@click.argument("board_file", metavar="BOARD.json", type=click.Path(path_type=Path))
@click.argument("log_file", metavar="GAME.jsonl", type=click.Path(path_type=Path))
@_rules_options
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def play(board_file, log_file, neighbours, cards, wait, offline_capture, as_json) -> None:
    """Referee a game log: every action checked against the rules.

    An illegal action stops with one line naming the rule, e.g.
    "turn 7, action 3: HITCHHIKE used twice this turn (once a turn) (line 40)", exit 6.

    \b
    Example (a log written by `board simulate --log`):
      stations-generator board play out/board/board.json out/board/game.jsonl
    """
    from stations_generator.board.build import load_board
    from stations_generator.board.gamelog import read_log, referee

    b = load_board(board_file)
    rules = _house_rules(int(neighbours), cards, wait, offline_capture)
    done = referee(b, rules, read_log(log_file))
    name = b.grid.name
    turns = []
    for r in done.results:
        o = r.observation
        turns.append(
            {
                "turn": r.turn,
                "reveal": None if o.reveal is None else name(o.reveal),
                "captured": r.captured,
                "trapped": r.observation.trapped,
            }
        )
    g = done.game
    trapped = bool(done.results) and done.results[-1].observation.trapped
    status = (
        f"the hunt team won in turn {done.results[-1].turn}"
        + (" (the fugitive was trapped: no legal action left)" if trapped else "")
        if g.winner == "hunters"
        else "the fugitive won (not caught in 25 turns)"
        if g.winner == "fugitive"
        else f"in progress: turn {g.turn}"
        + (
            f", {g.slots} of {g.budget} fugitive actions taken"
            if done.open_turn is not None
            else ""
        )
    )
    if as_json:
        _echo_json({"legal": True, "winner": g.winner, "status": status, "turns": turns})
        return
    for t in turns:
        shown = t["reveal"] or "no location (OFFLINE)"
        click.echo(
            f"turn {t['turn']:2d}: {'head start, ' if t['turn'] == 0 else ''}{shown}{' — caught' if t['captured'] else ''}"
        )
    click.echo(f"legal; {status}")


@board.command(context_settings=CONTEXT)
@click.argument("board_file", metavar="BOARD.json", type=click.Path(path_type=Path))
@click.argument("log_file", metavar="GAME.jsonl", type=click.Path(path_type=Path))
@_rules_options
@click.option(
    "--map",
    "map_file",
    type=click.Path(path_type=Path),
    help="Also write an HTML page of the possible squares (offline).",
)
@click.option(
    "--cap",
    type=click.IntRange(100, 10_000_000),
    default=2_000,
    show_default=True,
    help="Hypotheses kept exactly; beyond, merged (sound, maybe larger).",
)
@click.option(
    "--after-turn",
    type=click.IntRange(min=0),
    help="Use the log only up to the end of this turn [default: all of it].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def track(
    board_file,
    log_file,
    neighbours,
    cards,
    wait,
    offline_capture,
    map_file,
    cap,
    after_turn,
    as_json,
) -> None:
    """Where can the fugitive be? The exact set of possible squares, from the hunters' view.

    GAME.jsonl is a full log (refereed first) or the hunt team's own log: its actions,
    one {"turn": N, "reveal": "K05"} line a turn (null after OFFLINE) and the answers
    of Drone / Calls cards ("answer"). The tracker sees only what the hunt team sees: the
    reveals (or their absence after OFFLINE), Drone and Calls answers, and its own
    van and hunters. It prints the squares possible now and at the end of the
    coming turn.

    \b
    Example:
      stations-generator board track out/board/board.json out/board/game.jsonl \\
        --after-turn 4 --map out/board/track.html
    """
    from stations_generator.board.build import load_board
    from stations_generator.board.gamelog import read_log, referee
    from stations_generator.board.tracker import Tracker
    from stations_generator.formats.atomic import atomic_write_text

    b = load_board(board_file)
    rules = _house_rules(int(neighbours), cards, wait, offline_capture)
    from stations_generator.board.gamelog import hunters_view, is_hunters_log

    log = read_log(log_file)
    if is_hunters_log(log):
        observed = [
            (o, "hunters" if o.caught else "fugitive" if o.turn >= rules.turns else None)
            for o in hunters_view(b, rules, log)
        ]
    else:
        observed = [(r.observation, r.winner) for r in referee(b, rules, log).results]
    t = Tracker(b, rules, b.square(log.start), cap)
    over = None
    for obs, winner in observed:
        if after_turn is not None and obs.turn > after_turn:
            break
        if not t.observe(obs):
            raise InputError(_impossible(obs, b.grid.name, log.start))
        over = winner
    now = sorted(t.squares())
    nxt = [] if over else sorted(t.preview())
    name = b.grid.name
    doc = {
        "after_turn": t.turn - 1,
        "now": [name(s) for s in now],
        "end_of_next_turn": [name(s) for s in nxt],
        "game_over": over,
        "exact": t.exact,
        "hypotheses": len(t.hyps),
    }
    if map_file is not None:
        from stations_generator.board.page import highlight_page

        atomic_write_text(
            Path(map_file),
            highlight_page(
                b,
                set(nxt or now),
                f"Possible squares: {b.name}",
                f"{len(nxt)} squares possible at the end of turn {t.turn}",
            ),
        )
    if as_json:
        _echo_json(doc)
        return
    click.echo(
        f"after turn {doc['after_turn']}: {len(now)} possible square(s): {' '.join(doc['now'])}"
    )
    if over:
        click.echo(f"the game is over: {over} won in turn {t.turn - 1}")
    else:
        click.echo(
            f"end of turn {t.turn}: {len(nxt)} possible square(s): {' '.join(doc['end_of_next_turn'])}"
        )
    if not t.exact:
        logger.warning(
            f"more than {cap} hypotheses were merged: the set is sound but may be larger "
            "than the exact one; raise --cap for the exact set"
        )


def _impossible(obs: Observation, name: Callable[[int], str], start: str) -> str:
    """The one-line error for an observation no fugitive's path can give."""
    what = "no reveal (OFFLINE)" if obs.reveal is None else f"the reveal {name(obs.reveal)}"
    if obs.caught:
        what = "the capture"
    return (
        f"turn {obs.turn}: {what} is impossible: no legal path from {start} fits it "
        "and the earlier turns; check the log's reveals and answers"
    )


@board.command(context_settings=CONTEXT)
@click.argument("board_file", metavar="BOARD.json", type=click.Path(path_type=Path))
@click.option(
    "--games",
    type=click.IntRange(1, 1_000_000),
    default=200,
    show_default=True,
    help="Games to play.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**62),
    default=0,
    show_default=True,
    help="Seed (the same seed plays the same games).",
)
@click.option(
    "--hunters",
    type=click.Choice(["computer", "random"]),
    default="computer",
    show_default=True,
    help="The computer hunt team, or random moves (the baseline).",
)
@click.option(
    "--team",
    type=click.IntRange(1, 3),
    default=1,
    show_default=True,
    help="Hunt-team size (hand sizes 7 / 4 / 3).",
)
@_rules_options
@click.option(
    "--log",
    "log_file",
    type=click.Path(path_type=Path),
    help="Also write the first game as a game log (JSON Lines) for `board play` / `board track`.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def simulate(
    board_file,
    games,
    seed,
    hunters,
    team,
    neighbours,
    cards,
    wait,
    offline_capture,
    log_file,
    as_json,
) -> None:
    """Computer against computer: the fugitive's win rate per start (95 % interval).

    A balance check for a board: a start the fugitive (nearly) always wins or
    always loses from is a bad start.

    \b
    Example:
      stations-generator board simulate out/board/board.json --games 60 --seed 3 \\
        --log out/board/game.jsonl
    """
    from stations_generator.board.build import load_board
    from stations_generator.board.simulate import simulate as run

    b = load_board(board_file)
    rules = _house_rules(int(neighbours), cards, wait, offline_capture)
    report = run(b, rules, games, seed, hunters=hunters, team=team)
    if log_file is not None:
        import json

        from stations_generator.board.players import BoardGraphs
        from stations_generator.board.simulate import game_seed, play_game
        from stations_generator.formats.atomic import atomic_write_text

        first = play_game(
            b,
            rules,
            BoardGraphs(b, rules),
            b.starts[0][0],
            game_seed(seed, 0),
            hunters=hunters,
            team=team,
            record=True,
        )
        atomic_write_text(
            Path(log_file), "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in first.log)
        )
    if as_json:
        _echo_json(report)
        return
    lo, hi = report["ci95"]
    click.echo(
        f"{games} games, {hunters} hunt team of {team}, seed {seed}: fugitive wins {report['fugitive_win_rate']:.1%} (95 % CI {lo:.1%}–{hi:.1%}); mean capture turn {report['mean_capture_turn']}"
    )
    for row in report["per_start"]:
        lo, hi = row["ci95"]
        rate = (
            "no games" if row["win_rate"] is None else f"{row['win_rate']:.1%} ({lo:.1%}–{hi:.1%})"
        )
        click.echo(
            f"  {row['start']:>5} {row['name'][:40]:40} {row['fugitive_wins']:5d}/{row['games']:<5d} {rate}"
        )
    used = ", ".join(f"{k} {v}" for k, v in report["specials_per_game"].items())
    click.echo(f"  special moves per game: {used}")
    if report["trapped_share"]:
        click.echo(
            f"  fugitive trapped (no legal action left): {report['trapped_share']:.1%} of games"
        )
