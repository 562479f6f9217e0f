"""The colours of the HTML pages, and the line patterns that carry meaning without them.

Two palettes: ``"default"`` (the pages' usual colours) and ``"okabe-ito"``, the eight
colours of Okabe & Ito's *Color Universal Design* (2008), told apart with every common
colour-vision deficiency. In both, colour is never the only carrier of meaning:

* clusters differ in colour **and** in the dash pattern of their hiding zones and spacing
  rings (:data:`CLUSTER_DASHES`), both picked so that neighbouring clusters differ
  (:func:`spread`); a station's popup names its category and cluster;
* on the elimination map each removed area carries its question's number, impossible
  hiding zones are dashed and possible ones solid, and the legend lists both in words.

Light to import (no folium): :mod:`stations_generator.app.request_fields` takes the
palette names from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "CLUSTER_DASHES",
    "DEFAULT_PALETTE",
    "OKABE_ITO",
    "PALETTES",
    "Palette",
    "palette",
    "spread",
]

OKABE_ITO: tuple[str, ...] = (
    "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#000000",
)  # fmt: skip
"""Okabe & Ito's eight colours: orange, sky blue, bluish green, yellow, blue, vermillion,
reddish purple, black."""

# Lines and outlines leave out the yellow: it hardly shows on the light map tiles.
_OKABE_ITO_LINES = tuple(c for c in OKABE_ITO if c != "#f0e442")

CLUSTER_DASHES: tuple[str, ...] = ("", "10 5", "3 5", "12 4 3 4")
"""Dash patterns (SVG ``stroke-dasharray``; ``""`` is a solid line) of a cluster's hiding
zones and spacing rings: a second carrier of the cluster besides its colour."""


@dataclass(frozen=True)
class Palette:
    """The colours of one palette (``"#rrggbb"``).

    Attributes
    ----------
    name : str
        The palette's name (``--palette``).
    clusters : tuple of str
        Cluster outlines and hiding zones.
    categories : tuple of str
        Station pin fills in the legend's order of categories; empty: each category's
        own colour (:func:`stations_generator.pages.folium_map.category_hex`).
    reasons : dict of str to str
        Rejected candidates by rejection reason; ``other_reason`` for the rest.
    other_reason : str
    questions : tuple of str
        The areas removed by the questions of a game, in question order.
    subjects : tuple of str
        The question subjects' places on the report page.
    play_area, exclusion, possible, impossible, remaining : str
        The play area's outline, exclusions, possible and impossible hiding zones, and the
        area that remains after the answers.
    """

    name: str
    clusters: tuple[str, ...]
    categories: tuple[str, ...]
    reasons: dict[str, str] = field(default_factory=dict)
    other_reason: str = "#9e9e9e"
    questions: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    play_area: str = "#1565c0"
    exclusion: str = "#c62828"
    possible: str = "#1b7837"
    impossible: str = "#999999"
    remaining: str = "#1b7837"


_TEN = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#393b79", "#637939", "#7f7f7f",
)  # fmt: skip

DEFAULT_PALETTE = Palette(
    name="default",
    clusters=_TEN,
    categories=(),
    reasons={
        "gap": "#e53935",
        "spacing": "#fb8c00",
        "duplicate": "#8e24aa",
        "cluster_cap": "#3949ab",
        "excluded": "#212121",
    },
    questions=(
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
    ),  # fmt: skip
    subjects=_TEN,
)
"""The pages' usual colours."""

_OKABE_ITO_PALETTE = Palette(
    name="okabe-ito",
    clusters=_OKABE_ITO_LINES,
    categories=OKABE_ITO,
    reasons={
        "gap": "#d55e00",
        "spacing": "#e69f00",
        "duplicate": "#cc79a7",
        "cluster_cap": "#0072b2",
        "excluded": "#000000",
    },
    other_reason="#56b4e9",
    questions=_OKABE_ITO_LINES,
    subjects=_OKABE_ITO_LINES,
    play_area="#0072b2",
    exclusion="#d55e00",
    possible="#009e73",
    impossible="#999999",
    remaining="#0072b2",
)

_BY_NAME = {p.name: p for p in (DEFAULT_PALETTE, _OKABE_ITO_PALETTE)}

PALETTES: tuple[str, ...] = tuple(_BY_NAME)
"""The palette names, the default first."""


def palette(name: str | Palette) -> Palette:
    """The palette of a name.

    Parameters
    ----------
    name : str or Palette
        One of :data:`PALETTES` (a :class:`Palette` is returned as it is).

    Returns
    -------
    Palette

    Raises
    ------
    ValueError
        If the name is not one of :data:`PALETTES`.
    """
    if isinstance(name, Palette):
        return name
    found = _BY_NAME.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"palette: {name!r} is not one of {', '.join(PALETTES)}")
    return found


def spread(
    points: Sequence[tuple[float, float]], near_m: float, choices: Sequence[str]
) -> list[str]:
    """A choice per point such that points closer than ``near_m`` differ where possible.

    Greedy in the points' order: each takes the first choice no nearer, earlier point
    has, else the one those points use least.

    Parameters
    ----------
    points : sequence of (lon, lat)
        WGS84 degrees (cluster centres).
    near_m : float
        Distance in metres under which two points are neighbours. Measured on the local
        equirectangular projection at the pair's mean latitude, with the equator's metres
        per degree: within 1.1 % of the geodesic distance at the few kilometres this is
        used for (a degree of latitude grows from 110 574 m at the equator to 111 694 m
        at the poles), and it only decides which colour or pattern a cluster gets.
    choices : sequence of str
        The colours or patterns to pick from.

    Returns
    -------
    list of str
        One choice per point, in the points' order.
    """
    import numpy as np  # here: the palette names stay light to import

    lon = np.array([p[0] for p in points], dtype=float)
    lat = np.array([p[1] for p in points], dtype=float)
    picked: list[str] = []
    for i in range(len(points)):
        # metres per degree of longitude at the equator times cos(latitude), and per
        # degree of latitude (WGS84): the equirectangular distance at the pair's mean latitude
        scale = np.cos(np.radians((lat[:i] + lat[i]) / 2))
        metres = np.hypot((lon[:i] - lon[i]) * 111_320.0 * scale, (lat[:i] - lat[i]) * 110_574.0)
        used = [picked[j] for j in np.flatnonzero(metres < near_m)]
        free = [c for c in choices if c not in used]
        picked.append(free[0] if free else min(choices, key=used.count))
    return picked
