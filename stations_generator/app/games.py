"""Games as files: load one, apply its questions, check a zone, answer as the hider.

The steps behind ``questions apply | answer`` and ``zones check`` and the public API
(:mod:`stations_generator.api`); the commands only parse options and print.
"""

from __future__ import annotations

import html
import json
import numbers
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stations_generator.app.game_loader import LoadedGame, load_game
from stations_generator.app.map_context import MapSources
from stations_generator.app.request_fields import (
    argument,
    describe,
)
from stations_generator.core.geo.antimeridian import split_antimeridian, wrap_lon
from stations_generator.core.geo.shapes import geodesic_circle
from stations_generator.core.questions.game import Elimination, Game, ZoneCheck, ZoneStatus
from stations_generator.core.questions.geometry import QuestionError, Station
from stations_generator.core.questions.photos import PhotoQuestion
from stations_generator.errors import ArgumentTypeError, ArgumentValueError, InputError
from stations_generator.formats import taibeled
from stations_generator.formats.gamefile import parse_lat_lon
from stations_generator.formats.geojson import dumps_geojson, polygon_rings

REMAINING_GEOJSON = "remaining.geojson"
ZONES_GEOJSON = "zones.geojson"
ELIMINATION_HTML = "elimination.html"
#: The files ``questions apply`` owns in its -o folder (elimination.html only with --map).
APPLY_FILES = (REMAINING_GEOJSON, ZONES_GEOJSON, ELIMINATION_HTML)


def load(game: Path, sources: MapSources, warn, *, validate: bool = True) -> LoadedGame:
    """Read a game file (any format ``questions`` reads); question errors -> InputError.

    With ``validate`` every question must carry an answer (what ``apply`` needs). Every
    question's values must be legal under the game's rules either way (a one-line
    error naming the legal values); a thermometer ended too early is warned about.
    """
    game = Path(game)
    try:
        loaded = load_game(game, sources=sources, warn=warn)
        loaded.game.check_legal()
        if validate:
            loaded.game.validate()
    except QuestionError as exc:
        raise InputError(f"{game.name}: {exc}") from None
    for note in loaded.game.notes():
        warn(note)
    return loaded


def area_geometry(geom) -> dict | None:
    """A (multi)polygon area as an RFC 7946 GeoJSON geometry (cut at ±180°); None if empty."""
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
            area_geometry(elimination.remaining),
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
                    "note": step.note,
                },
                area_geometry(step.removed),
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
    if not game.credits:
        return {"type": "FeatureCollection", "features": features}
    # The zones are a feed's stations: its terms ask for its credit with them.
    credit = {"attribution": "; ".join(game.credits)}
    return {"type": "FeatureCollection", "metadata": credit, "features": features}


def summary_table(game: Game, elimination: Elimination, zones: list[ZoneStatus]) -> list[str]:
    """The table printed on stderr after ``questions apply``."""
    lines = [
        f"{'#':>2}  {'question':<34} {'answer':<24} {'removed km²':>11} {'left km²':>9} "
        f"{'stations removed':>16}"
    ]
    for k, step in enumerate(elimination.steps, 1):
        q = step.question
        # Area in the km² columns, stations in their own: a station question removes
        # stations, not area; a question set aside removes neither.
        removed = "set aside" if step.set_aside else f"{step.removed_km2:.4f}"
        out = "-" if step.set_aside or step.note else str(len(step.stations_removed))
        lines.append(
            f"{k:>2}  {q.label()[:34]:<34} {q.answer_text(q.answer)[:24]:<24} {removed:>11} "
            f"{step.remaining_km2:>9.4f} {out:>16}"
        )
    possible = [z for z in zones if z.possible]
    filtered = ""
    if game.zone_filter is not None:
        out = sum(z.reason == game.zone_filter.reason for z in zones)
        filtered = f"; {out} ruled out by the timetable (not reachable in the hiding period)"
    lines.append(
        f"Remaining: {elimination.remaining_km2:.4f} km²; hiding zones still possible: "
        f"{len(possible)} of {len(zones)} (radius {game.hiding_radius_m:g} m){filtered}"
    )
    return lines


def apply_texts(
    game: Game,
    elimination: Elimination,
    zones: list[ZoneStatus],
    *,
    html_map: bool,
    title: str,
    palette: str = "default",
) -> dict[str, str]:
    """The files of ``questions apply`` by name (elimination.html, in ``palette``, only
    with ``html_map``)."""
    texts = {
        REMAINING_GEOJSON: dumps_geojson(elimination_geojson(game, elimination)),
        ZONES_GEOJSON: dumps_geojson(zones_geojson(game, zones)),
    }
    if html_map:
        texts[ELIMINATION_HTML] = elimination_page(game, elimination, zones, title, palette)
    return texts


def elimination_page(
    game: Game,
    elimination: Elimination,
    zones: list[ZoneStatus],
    title: str,
    palette: str = "default",
) -> str:
    """The elimination map page (elimination.html): a layer per question, the zones."""
    from stations_generator.pages.elimination_map import elimination_map
    from stations_generator.pages.offline import render_station_map

    m = elimination_map(game, elimination, zones, title=title, palette=palette)
    for credit in game.credits:  # a feed's credit next to the tiles' OSM credit
        _credit_element(credit).add_to(m)
    return render_station_map(m)


def _credit_element(text: str) -> Any:
    """A page element adding ``text`` (plain, escaped here) to the map's attribution."""
    from folium.template import Template

    from stations_generator.pages.offline import RawMacroElement

    element = RawMacroElement()
    element._name = "Credit"
    # Escaped for HTML, then a JSON string: no markup, no "</script>" can get through.
    element.credit = json.dumps(html.escape(text))
    element._template = Template(
        "{% macro script(this, kwargs) %}"
        "{{ this._parent.get_name() }}.attributionControl.addAttribution({{ this.credit }});"
        "{% endmacro %}"
    )
    return element


def game_title(path: Path) -> str:
    """A game's map title: its folder for ``…/game.json``, else its file name."""
    path = Path(path)
    return path.parent.name if path.stem == "game" else path.stem


def find_station(game: Game, station_id: str) -> Station:
    """The game's station with this id (``node/123``) or exact name (any case)."""
    for s in game.stations:
        if s.id == station_id or s.name.casefold() == station_id.casefold():
            return s
    raise InputError(
        f"no station {station_id!r} in the game; give an id like node/123 or an exact name"
    )


def lat_lon(name: str, value: Any) -> tuple[float, float]:
    """A point given to the Python API: ``"LAT,LON"`` or a (lat, lon) pair, latitude first
    in both (as ``--at`` and ``--hider``), checked: finite, in range, not swapped.

    Parameters
    ----------
    name : str
        The parameter, for the message.
    value : Any

    Returns
    -------
    tuple of float
        (lat, lon).

    Raises
    ------
    ArgumentTypeError, ArgumentValueError
        Naming ``name``.
    """
    if isinstance(value, str):
        if "," not in value:
            raise ArgumentValueError(name, f' must be "LAT,LON", got {value!r}')
        given = value
    elif isinstance(value, tuple | list) and len(value) == 2:
        for k, number in enumerate(value):
            if isinstance(number, bool) or not isinstance(number, numbers.Real):
                raise ArgumentTypeError(
                    f"{name}[{k}]", f" must be a number, not {describe(number)}"
                )
        given = f"{float(value[0])!r},{float(value[1])!r}"  # repr: the same floats back
    else:
        raise ArgumentTypeError(
            name, f' must be "LAT,LON" or a (lat, lon) pair of numbers, not {describe(value)}'
        )
    with argument(name):
        lon, lat = parse_lat_lon(given, name)
    return lat, lon


def check_zone(
    game: Game,
    *,
    station: str | None = None,
    at: tuple[float, float] | None = None,
    label: str = "",
) -> ZoneCheck:
    """Is the hiding zone of ``station`` (id or name) or centred at ``at`` = (lon, lat) valid?

    A zone the game's zone filter rules out (a timetable: not reachable in the hiding
    period) is not valid; its reason is the result's ``filtered_out`` (``zones check``
    prints it under NOT VALID).
    """
    if (station is None) == (at is None):
        raise InputError("give exactly one of a station or a position")
    if station is not None:
        result = game.check_zone(station=find_station(game, station))
    else:
        result = game.check_zone(point=at)
        if not game.play_area.intersects(geodesic_circle(*result.point, game.hiding_radius_m)):
            raise InputError(
                f"--at {label or at} is outside the play area (no part of its hiding zone is "
                "in it); give LAT,LON inside the play area"
            )
    return result


def zone_payload(game: Game, result: ZoneCheck, what: str) -> dict[str, Any]:
    """A zone check as the JSON ``zones check --json`` prints (with ``timetable``, why
    the game's timetable rules it out, when it does)."""
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
    if result.filtered_out:
        payload["timetable"] = result.filtered_out
    return payload


def hider_answers(
    game: Game, lon: float, lat: float, station: str | None = None, *, label: str = ""
) -> list[dict[str, Any]]:
    """Every question answered truthfully for a hider at (lon, lat), as ``answer --json`` rows."""
    if not game.covers(lon, lat):
        raise InputError(
            f"--hider {label or f'{lat},{lon}'} is outside the play area; check the coordinates (LAT,LON)"
        )
    found = find_station(game, station) if station else None
    try:
        answers = game.hider_answers(lon, lat, found)
    except QuestionError as exc:
        raise InputError(str(exc)) from None
    return [
        {
            "question": k,
            "label": q.label(),
            "answer": q.answer_text(a),
            "value": a,
            "recorded": None if q.answer is None else q.answer_text(q.answer),
        }
        for k, (q, a) in enumerate(answers, 1)
    ]


def share_link(
    game: Game,
    *,
    base_url: str = taibeled.APP_URL,
    zone_options: Sequence[str] | None = None,
) -> str:
    """The game as a taibeled share link (``BASE_URL?hzc=…``).

    Parameters
    ----------
    game : Game
        Its play area, questions and hiding radius go into the link.
    base_url : str
        The taibeled app's address.
    zone_options : sequence of str, optional
        The app's Overpass filters of the hiding stations [default: the app's
        ``[railway=station]``].

    Returns
    -------
    str
        Photo questions are left out: the app has no photo question, and a photo
        removes no area.
    """
    state = taibeled.TaibeledState(
        play_area=game.play_area,
        questions=[
            taibeled.from_model(q) for q in game.questions if not isinstance(q, PhotoQuestion)
        ],
        hiding_radius_m=game.hiding_radius_m,
        **({} if zone_options is None else {"zone_options": list(zone_options)}),
    )
    return base_url + "?hzc=" + taibeled.encode_hzc(taibeled.dump_state(state, "collection"))
