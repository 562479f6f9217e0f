"""The elimination map: what each answer did, as an interactive page.

Layers: the play area, the remaining area, one layer per question with the area it
removed (shaded in the question's colour, labelled with its answer) and the seekers'
points, and the hiding zones (possible ones highlighted with the share still
possible, impossible ones faded). Rendered through
:func:`stations_generator.pages.offline.render_station_map`, so Leaflet is inlined
and only the tiles load from the network.
"""

from __future__ import annotations

from collections.abc import Sequence

import folium
from shapely.geometry import mapping
from shapely.geometry.base import BaseGeometry

from stations_generator.core.questions.game import Elimination, Game, ZoneStatus
from stations_generator.pages.offline import StyledBlock, html_text, offline_map

QUESTION_COLOURS = (
    "#e6194b",
    "#3cb44b",
    "#4363d8",
    "#f58231",
    "#911eb4",
    "#42d4f4",
    "#f032e6",
    "#9a6324",
    "#800000",
    "#469990",
    "#000075",
    "#808000",
)
LEGEND_ID = "sg-elimination-legend"


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


def _question_layer(k: int, step) -> folium.FeatureGroup:
    """Question ``k``'s layer: the area it removed and the seekers' points."""
    q = step.question
    colour = QUESTION_COLOURS[(k - 1) % len(QUESTION_COLOURS)]
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


def _zone_circle(z: ZoneStatus, radius: float) -> folium.Circle:
    """A hiding zone: highlighted with its share still possible, or faded with why not."""
    s = z.station
    name = html_text(s.name or s.id)
    if z.possible:
        return folium.Circle(
            [s.lat, s.lon],
            radius=radius,
            color="#1b7837",
            weight=2,
            fill=True,
            fill_opacity=0.15,
            tooltip=f"{name}: {z.fraction:.0%} still possible",
            class_name="sg-zone-possible",
        )
    return folium.Circle(
        [s.lat, s.lon],
        radius=radius,
        color="#999999",
        weight=1,
        fill=True,
        fill_opacity=0.05,
        opacity=0.4,
        tooltip=f"{name}: {html_text(z.reason)}",
        class_name="sg-zone-impossible",
    )


def _add_zones(m: folium.Map, zones: Sequence[ZoneStatus], radius: float) -> None:
    possible = folium.FeatureGroup(name="Possible hiding zones", show=True)
    impossible = folium.FeatureGroup(name="Impossible hiding zones", show=True)
    for z in zones:
        _zone_circle(z, radius).add_to(possible if z.possible else impossible)
    possible.add_to(m)
    impossible.add_to(m)


def _legend_html(title: str, elimination: Elimination, zones: Sequence[ZoneStatus]) -> str:
    n_possible = sum(1 for z in zones if z.possible)
    rows = "".join(
        f'<div><span style="display:inline-block;width:12px;height:12px;background:'
        f'{QUESTION_COLOURS[(k - 1) % len(QUESTION_COLOURS)]}"></span> '
        f"{k}. {html_text(step.question.label())}: "
        f"{html_text(step.question.answer_text(step.question.answer))}"
        f"{html_text(_aside(step))}</div>"
        for k, step in enumerate(elimination.steps, 1)
    )
    return (
        f'<div id="{LEGEND_ID}" style="position:absolute;bottom:24px;left:10px;z-index:1000;'
        "background:white;padding:6px 8px;font:12px sans-serif;max-width:320px;"
        'box-shadow:0 1px 4px rgba(0,0,0,.4)">'
        f"<b>{html_text(title)}</b><br>{rows}"
        f"<div>Remaining {elimination.remaining_km2:.3f} km²; zones possible {n_possible} of {len(zones)}</div>"
        "<div>© OpenStreetMap contributors, ODbL</div></div>"
    )


def elimination_map(
    game: Game, elimination: Elimination, zones: Sequence[ZoneStatus], *, title: str = "Game"
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

    Returns
    -------
    folium.Map
        Render it with :func:`stations_generator.pages.offline.render_station_map`.
    """
    minx, miny, maxx, maxy = game.play_area.bounds
    m = offline_map([[miny, minx], [maxy, maxx]], title=title)

    area = folium.FeatureGroup(name="Play area", show=True)
    folium.GeoJson(
        _geojson(game.play_area),
        style_function=lambda _f: {"color": "#333333", "weight": 2, "fill": False},
    ).add_to(area)
    area.add_to(m)

    for k, step in enumerate(elimination.steps, 1):
        _question_layer(k, step).add_to(m)

    remaining = folium.FeatureGroup(name="Remaining area", show=True)
    if not elimination.remaining.is_empty:
        folium.GeoJson(
            _geojson(elimination.remaining),
            style_function=lambda _f: {"color": "#1b7837", "weight": 3, "fillOpacity": 0.0},
            tooltip=f"Remaining: {elimination.remaining_km2:.3f} km²",
        ).add_to(remaining)
    remaining.add_to(m)

    _add_zones(m, zones, game.hiding_radius_m)
    StyledBlock("EliminationLegend", "", _legend_html(title, elimination, zones)).add_to(m)
    folium.LayerControl(collapsed=False).add_to(m)
    m.fit_bounds([[miny, minx], [maxy, maxx]])
    return m
