"""``referee check-curse``: check a curse's map condition (a bridge, a named street, a
distance between the teams...) on OSM extracts.

The text or ``--json`` goes to stdout; a curse the map cannot check is one ``error:``
line (the ``referee`` group adds this command).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import click

from stations_generator.app.curse_checks import check_curse_on_map, curse_check_json
from stations_generator.commands.options import CONTEXT
from stations_generator.core.referee.curse_map import CurseCheck

__all__ = ["check_curse"]


class LatLon(click.ParamType):
    """A ``LAT,LON`` position in degrees (WGS84)."""

    name = "LAT,LON"

    def convert(self, value, param, ctx) -> tuple[float, float]:
        if isinstance(value, tuple):
            return value
        parts = str(value).replace(" ", "").split(",")
        try:
            lat, lon = (float(p) for p in parts)
        except ValueError:
            self.fail(f"{value!r} is not LAT,LON; write e.g. 60.1699,24.9384", param, ctx)
        if not (math.isfinite(lat) and math.isfinite(lon) and abs(lat) <= 90 and abs(lon) <= 180):
            self.fail(f"{value!r} is not on the globe (|lat| <= 90, |lon| <= 180)", param, ctx)
        return lat, lon


LAT_LON = LatLon()


def curse_check_text(check: CurseCheck) -> list[str]:
    """The lines ``check-curse`` prints: the verdict, then each condition measured."""
    lines = [f"{check.curse_id} ({check.rule}), size {check.size}: "]
    lines[0] += "met" if check.met else "NOT met"
    for r in check.results:
        verdict = "met" if r.met else "not met"
        lines.append(f"  {r.condition.part} ({r.condition.who}): {verdict}: {r.explanation}")
        if r.condition.players_word:
            lines.append(f"    the players' word: {r.condition.players_word}")
    return lines


@click.command("check-curse", context_settings=CONTEXT)
@click.argument("curse_id", metavar="CURSE")
@click.option(
    "--size",
    required=True,
    type=click.Choice(["S", "M", "L"]),
    help="The game size: the rule's numbers for S, M or L.",
)
@click.option("--seekers", type=LAT_LON, help="The seekers' position (LAT,LON).")
@click.option("--hider", type=LAT_LON, help="The hider's position (LAT,LON).")
@click.option(
    "--place",
    type=LAT_LON,
    help="The place the curse names (LAT,LON): the chosen sight, an earlier question's"
    " spot, the seekers' next station.",
)
@click.option(
    "--osm",
    multiple=True,
    type=click.Path(path_type=Path),
    help="An OSM extract (repeatable): the map the features come from.",
)
@click.option("--country", help="The game's country code (which stops are valid for hiding).")
@click.option(
    "--plates",
    nargs=2,
    metavar="HIDER_REGION SEEKERS_REGION",
    help="The regions (admin areas, as OSM names them) of the hider's and the seekers'"
    " licence plates (Curse of the Distant Road Trip).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout.")
def check_curse(
    curse_id: str,
    size: str,
    seekers: tuple[float, float] | None,
    hider: tuple[float, float] | None,
    place: tuple[float, float] | None,
    osm: tuple[Path, ...],
    country: str | None,
    plates: tuple[str, str] | None,
    as_json: bool,
) -> None:
    """Check a curse's map condition: met or not, the distance and the nearest feature.

    Exits 0 when every condition measured is met, 1 when one is not.

    CURSE is the card's id, e.g. curse-of-the-bridge-troll (JLTG.EU house rules).
    Distances are geodesic (WGS84); the features are the OSM data's bridges, named
    streets, bodies of water, valid stops, monuments... (docs/curses.md lists the
    curses the map checks, and what stays the players' word).

    \b
    Example (offline, the bundled Helsinki extract):
      stations-generator referee check-curse curse-of-the-bridge-troll --size M \\
        --seekers 60.1699,24.9384 \\
        --osm tests/data/osm-extracts/helsinki-centre.osm.pbf
    """
    check = check_curse_on_map(
        curse_id,
        size,
        osm,
        seekers=seekers,
        hider=hider,
        place=place,
        country=country,
        plates=plates or None,
    )
    if as_json:
        click.echo(json.dumps(curse_check_json(check), indent=2, ensure_ascii=False))
    else:
        for line in curse_check_text(check):
            click.echo(line)
    # Like `zones check`: exit 0 when every condition measured is met, 1 when not.
    click.get_current_context().exit(0 if check.met else 1)
