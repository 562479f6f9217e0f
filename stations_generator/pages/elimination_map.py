"""The elimination map: what each answer did, as an interactive page.

Layers: the play area, the remaining area, one layer per question with the area it
removed (shaded in the question's colour and marked with its number, named with its
answer in the layer control and the legend) and the seekers' points, and the hiding
zones (possible ones solid with the share still possible, impossible ones dashed and
faded): colour is never the only sign. On a phone the legend and the layer control
start collapsed (:func:`stations_generator.pages.offline.add_page_controls`). Rendered
through :func:`stations_generator.pages.offline.render_station_map`, so Leaflet is
inlined and only the tiles load from the network.
"""

from __future__ import annotations

from collections.abc import Sequence

import folium
from shapely.geometry import mapping
from shapely.geometry.base import BaseGeometry

from stations_generator.core.questions.game import Elimination, Game, ZoneStatus
from stations_generator.pages.offline import (
    COLLAPSIBLE_CLASS,
    StyledBlock,
    add_page_controls,
    html_text,
    offline_map,
)
from stations_generator.pages.palette import DEFAULT_PALETTE, Palette
from stations_generator.pages.palette import palette as palette_named

QUESTION_COLOURS = DEFAULT_PALETTE.questions
"""The removed areas' colours in question order (default palette)."""
LEGEND_ID = "sg-elimination-legend"
NUMBER_CLASS = "sg-question-number"
"""CSS class of the number that marks each removed area with its question."""
IMPOSSIBLE_DASH = "3 5"
"""Dash pattern of an impossible hiding zone's outline (possible ones are solid)."""

_STYLE = """        <style>
        .sg-question-number { display: block; box-sizing: border-box; width: 22px;
            height: 22px; border: 3px solid; border-radius: 50%; background: #ffffff;
            color: #000000; font: bold 11px/16px system-ui, sans-serif; text-align: center; }
        #sg-elimination-legend { position: absolute; bottom: 24px; left: 10px; z-index: 1000;
            background: #ffffff; padding: 6px 8px; font: 12px sans-serif; max-width: 320px;
            box-shadow: 0 1px 4px rgba(0, 0, 0, 0.4); }
        #sg-elimination-legend summary { font-weight: bold; }
        .sg-legend-swatch { display: inline-block; width: 12px; height: 12px; }
        </style>
"""


def _seeker_points(question) -> list[tuple[str, tuple[float, float]]]:
    points = []
    for attr, label in (("seeker", "seeker"), ("start", "start"), ("end", "end")):
        value = getattr(question, attr, None)
        if isinstance(value, tuple) and len(value) == 2:
            points.append((label, value))
    station = getattr(question, "seeker_station", None)
    if station is not None:
        points.append(("seeker's station", (station.lon, station.lat)))
    return points


def _aside(step) -> str:
    """A note for a question set aside because the answers contradict each other."""
    if not step.set_aside:
        return ""
    others = [str(k) for k in step.contradicts[:-1]]
    return " — set aside: leaves nothing" + (
        f" with question{'s' * (len(others) > 1)} {', '.join(others)}" if others else ""
    )


def _geojson(geometry: BaseGeometry) -> dict:
    return {"type": "Feature", "properties": {}, "geometry": mapping(geometry)}


def _number_label(k: int, colour: str, removed: BaseGeometry) -> folium.Marker:
    """Question ``k``'s number on its removed area (on the area's largest part)."""
    parts = getattr(removed, "geoms", [removed])
    point = max(parts, key=lambda g: g.area).representative_point()
    return folium.Marker(
        [point.y, point.x],
        icon=folium.DivIcon(
            html=f'<span class="{NUMBER_CLASS}" style="border-color:{colour}">{k}</span>',
            icon_size=(22, 22),
            icon_anchor=(11, 11),
            class_name="sg-question-number-icon",
        ),
        interactive=False,
        keyboard=False,
    )


def _question_layer(k: int, step, colours: tuple[str, ...]) -> folium.FeatureGroup:
    """Question ``k``'s layer: the area it removed, marked with ``k``, and the seekers' points."""
    q = step.question
    colour = colours[(k - 1) % len(colours)]
    text = f"{k}. {q.label()}: {q.answer_text(q.answer)}" + _aside(step)
    layer = folium.FeatureGroup(name=html_text(text), show=True)
    if not step.removed.is_empty:
        folium.GeoJson(
            _geojson(step.removed),
            style_function=lambda _f, c=colour: {
                "color": c,
                "weight": 1,
                "fillColor": c,
                "fillOpacity": 0.35,
            },
            tooltip=html_text(f"{text} — removed {step.removed_km2:.3f} km²"),
        ).add_to(layer)
        _number_label(k, colour, step.removed).add_to(layer)
    for label, (lon, lat) in _seeker_points(q):
        folium.CircleMarker(
            [lat, lon],
            radius=6,
            color="#000000",
            weight=2,
            fill=True,
            fill_color=colour,
            fill_opacity=1.0,
            tooltip=html_text(f"{k}. {q.label()} — {label}"),
        ).add_to(layer)
    return layer


def _zone_circle(z: ZoneStatus, radius: float, palette: Palette) -> folium.Circle:
    """A hiding zone: solid with its share still possible, or dashed and faded with why not."""
    s = z.station
    name = html_text(s.name or s.id)
    if z.possible:
        return folium.Circle(
            [s.lat, s.lon],
            radius=radius,
            color=palette.possible,
            weight=2,
            fill=True,
            fill_opacity=0.15,
            tooltip=f"{name}: {z.fraction:.0%} still possible",
            class_name="sg-zone-possible",
        )
    return folium.Circle(
        [s.lat, s.lon],
        radius=radius,
        color=palette.impossible,
        weight=1.5,
        dash_array=IMPOSSIBLE_DASH,
        fill=True,
        fill_opacity=0.05,
        opacity=0.6,
        tooltip=f"{name}: {html_text(z.reason)}",
        class_name="sg-zone-impossible",
    )


def _add_zones(m: folium.Map, zones: Sequence[ZoneStatus], radius: float, palette: Palette) -> None:
    possible = folium.FeatureGroup(name="Possible hiding zones", show=True)
    impossible = folium.FeatureGroup(name="Impossible hiding zones", show=True)
    for z in zones:
        _zone_circle(z, radius, palette).add_to(possible if z.possible else impossible)
    possible.add_to(m)
    impossible.add_to(m)


def _legend_html(
    title: str,
    elimination: Elimination,
    zones: Sequence[ZoneStatus],
    colours: tuple[str, ...],
) -> str:
    n_possible = sum(1 for z in zones if z.possible)
    rows = "".join(
        f'<div><span class="sg-legend-swatch" style="background:'
        f'{colours[(k - 1) % len(colours)]}"></span> '
        f"{k}. {html_text(step.question.label())}: "
        f"{html_text(step.question.answer_text(step.question.answer))}"
        f"{html_text(_aside(step))}</div>"
        for k, step in enumerate(elimination.steps, 1)
    )
    return (
        f'<div id="{LEGEND_ID}" class="sg-box"><details class="{COLLAPSIBLE_CLASS}" open>'
        f"<summary>{html_text(title)}</summary>{rows}"
        f"<div>Remaining {elimination.remaining_km2:.3f} km²; zones possible {n_possible} "
        f"of {len(zones)} (possible: solid outline, impossible: dashed)</div>"
        "<div>© OpenStreetMap contributors, ODbL</div></details></div>"
    )


def elimination_map(
    game: Game,
    elimination: Elimination,
    zones: Sequence[ZoneStatus],
    *,
    title: str = "Game",
    palette: str | Palette = "default",
) -> folium.Map:
    """Build the elimination map of a game.

    Parameters
    ----------
    game : Game
    elimination : Elimination
        From :meth:`Game.eliminate`.
    zones : sequence of ZoneStatus
        From :meth:`Game.possible_zones`.
    title : str
        Page title.
    palette : str or Palette
        ``"default"`` or ``"okabe-ito"`` (colour-blind safe;
        :mod:`stations_generator.pages.palette`).

    Returns
    -------
    folium.Map
        Render it with :func:`stations_generator.pages.offline.render_station_map`.

    Raises
    ------
    ValueError
        If the palette is unknown.
    """
    colours = palette_named(palette)
    minx, miny, maxx, maxy = game.play_area.bounds
    m = offline_map([[miny, minx], [maxy, maxx]], title=title)

    area = folium.FeatureGroup(name="Play area", show=True)
    folium.GeoJson(
        _geojson(game.play_area),
        style_function=lambda _f: {"color": "#333333", "weight": 2, "fill": False},
    ).add_to(area)
    area.add_to(m)

    for k, step in enumerate(elimination.steps, 1):
        _question_layer(k, step, colours.questions).add_to(m)

    remaining = folium.FeatureGroup(name="Remaining area", show=True)
    if not elimination.remaining.is_empty:
        folium.GeoJson(
            _geojson(elimination.remaining),
            style_function=lambda _f: {
                "color": colours.remaining,
                "weight": 3,
                "fillOpacity": 0.0,
            },
            tooltip=f"Remaining: {elimination.remaining_km2:.3f} km²",
        ).add_to(remaining)
    remaining.add_to(m)

    _add_zones(m, zones, game.hiding_radius_m, colours)
    legend = _legend_html(title, elimination, zones, colours.questions)
    StyledBlock("EliminationLegend", _STYLE, legend).add_to(m)
    add_page_controls(m, [[miny, minx], [maxy, maxx]])  # the layer control, the fitted view
    return m
