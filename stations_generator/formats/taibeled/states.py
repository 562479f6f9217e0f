"""Whole taibeled game states: the play area (drawn or an OSM object), the questions and the settings."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import shapely
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from stations_generator.formats import jsonio, schemas
from stations_generator.formats.taibeled.fields import (
    UNITS_M,
    TaibeledError,
    clean,
    is_number,
    lat_field,
    lng_field,
    number_field,
    one_line,
    same_length,
    unit_field,
)
from stations_generator.formats.taibeled.questions import (
    TaibeledQuestion,
    dump_question,
    parse_question,
)

_COLLECTION_ORDER = (
    "disabledStations",
    "hidingRadius",
    "hidingRadiusUnits",
    "zoneOptions",
    "useCustomStations",
    "customStations",
    "includeDefaultStations",
    "presets",
    "permanentOverlay",
)
_FEATURE_ORDER = (
    "disabledStations",
    "hidingRadius",
    "hidingRadiusUnits",
    "alternateLocations",
    "zoneOptions",
    "useCustomStations",
    "customStations",
    "includeDefaultStations",
    "presets",
    "permanentOverlay",
)
_DEFAULTS: dict[str, Any] = {
    "hidingRadius": 0.5,
    "hidingRadiusUnits": "miles",
    "alternateLocations": [],
    "useCustomStations": False,
    "includeDefaultStations": False,
    "presets": [],
    "permanentOverlay": None,
}
# Other settings the app reads from a state; kept when present.
_OTHER_KNOWN = (
    "zoneOperators",
    "displayHidingZones",
    "displayHidingZonesStyle",
    "defaultUnit",
    "headStartMinutes",
)
_EXTRA_KEYS = (
    tuple(
        k
        for k in _FEATURE_ORDER
        if k not in ("disabledStations", "hidingRadius", "customStations", "zoneOptions")
    )
    + _OTHER_KNOWN
)
_DEFAULT_ZONE_OPTIONS = ["[railway=station]"]


@dataclass
class TaibeledState:
    """A taibeled game state ("Copy Hiding Zone"), in either shape.

    Attributes
    ----------
    play_area : shapely geometry or None
        In lon/lat (converted from [lat, lng] for the Feature shape). None when the
        state carries no polygon (a bare question list, or an OSM Feature whose
        geometry is only a point: the app fetches that boundary from OSM itself).
    questions : list of TaibeledQuestion
    hiding_radius_m : float or None
        ``hidingRadius`` in metres (None when the state has none).
    disabled_stations : list of str
        ``"node/123"`` ids the players switched off.
    custom_stations : list of dict
        ``{"id", "name", "lat", "lng"}``.
    zone_options : list of str
        Overpass filters of the hiding stations, e.g. ``"[railway=station]"``.
    extras : dict
        Other known settings, kept as given (``hidingRadiusUnits``,
        ``useCustomStations``, ``includeDefaultStations``, ``presets``,
        ``permanentOverlay``, ``alternateLocations``, …).
    shape : str
        ``"feature"`` or ``"collection"``: the shape it was read from / is written in.
    properties : dict
        Feature shape: the OSM location's properties (``name``, ``osm_id``, ``extent``…)
        other than ``isHidingZone`` and ``questions``, which are written from the state.
    """

    play_area: BaseGeometry | None = None
    questions: list[TaibeledQuestion] = field(default_factory=list)
    hiding_radius_m: float | None = None
    disabled_stations: list[str] = field(default_factory=list)
    custom_stations: list[dict] = field(default_factory=list)
    zone_options: list[str] = field(default_factory=lambda: list(_DEFAULT_ZONE_OPTIONS))
    extras: dict = field(default_factory=dict)
    shape: str = "collection"
    properties: dict = field(default_factory=dict)
    # What was read, so an unchanged play area is written back exactly as it came.
    _source: tuple[BaseGeometry | None, Any] | None = field(default=None, repr=False, compare=False)
    _feature_order: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _properties_order: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _hiding_radius: tuple[float, str, float] | None = field(default=None, repr=False, compare=False)


def _swap(coords: Any) -> Any:
    """Swap the first two numbers of every position ([lat, lng] <-> [lng, lat])."""
    if isinstance(coords, (list, tuple)) and coords and all(is_number(c) for c in coords):
        if len(coords) < 2:
            raise TaibeledError("a position needs two coordinates")
        return [coords[1], coords[0], *coords[2:]]
    if isinstance(coords, (list, tuple)):
        return [_swap(c) for c in coords]
    raise TaibeledError(f"coordinates must be numbers, got {coords!r}")


def jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj


def taibeled_geometry(geom: Any, where: str) -> BaseGeometry:
    try:
        out = shape(geom)
    except Exception as exc:  # shapely raises several types for bad GeoJSON
        raise TaibeledError(f"{where}: not a valid GeoJSON geometry ({one_line(exc)})") from None
    return out


def polygonal(geoms: Iterable[BaseGeometry]) -> BaseGeometry | None:
    polys = [g for g in geoms if g.geom_type in ("Polygon", "MultiPolygon") and not g.is_empty]
    if not polys:
        return None
    return polys[0] if len(polys) == 1 else shapely.union_all(polys)


def _questions(value: Any, require_answer: bool) -> list[TaibeledQuestion]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TaibeledError("'questions' must be a list of questions")
    out = []
    for i, q in enumerate(value, 1):
        try:
            out.append(parse_question(q, require_answer=require_answer))
        except TaibeledError as exc:
            raise TaibeledError(f"question {i}: {exc}") from None
    return out


def _settings(obj: dict, state: TaibeledState) -> None:
    units = unit_field(obj.get("hidingRadiusUnits"), "state", "hidingRadiusUnits")
    if obj.get("hidingRadius") is not None:
        r = number_field(obj["hidingRadius"], "hidingRadius", "state")
        if r <= 0:
            raise TaibeledError(f"state: hidingRadius {r:g} must be positive")
        state.hiding_radius_m = float(r) * UNITS_M[units]
        state._hiding_radius = (state.hiding_radius_m, units, r)
    disabled = obj.get("disabledStations")
    if isinstance(disabled, list):
        state.disabled_stations = [str(s) for s in disabled]
    options = obj.get("zoneOptions")
    if isinstance(options, list) or options is None:
        options = _DEFAULT_ZONE_OPTIONS if options is None else options
        state.zone_options = [str(s) for s in options]
    stations = obj.get("customStations")
    if isinstance(stations, list):
        for i, s in enumerate(stations, 1):
            where = f"state: custom station {i}"
            if not isinstance(s, dict):
                raise TaibeledError(f"{where} must be an object with lat and lng")
            lat = lat_field(s.get("lat"), "lat", where)
            lng = lng_field(s.get("lng"), "lng", where)
            out: dict[str, Any] = {
                "id": str(s["id"]) if s.get("id") is not None else f"{lat},{lng}"
            }
            if s.get("name") is not None:
                out["name"] = s["name"]
            out["lat"], out["lng"] = lat, lng
            state.custom_stations.append(out)
    for k in _EXTRA_KEYS:
        if k in obj:
            state.extras[k] = copy.deepcopy(obj[k])


def parse_state(
    obj: Any, *, require_answer: bool = True, source: str = "taibeled state"
) -> TaibeledState:
    """Read a taibeled game state in either shape, a bare question list, or one question.

    Parameters
    ----------
    obj : dict or list
        A FeatureCollection with top-level ``questions`` (drawn play area), a Feature
        with ``properties.isHidingZone`` (OSM play area, coordinates [lat, lng]), a
        plain GeoJSON Feature/geometry in lon/lat, a list of questions, or one question.
    require_answer : bool
        Passed to :func:`parse_question`.
    source : str
        How to name the input in messages (the file name).

    Returns
    -------
    TaibeledState

    Raises
    ------
    TaibeledError
        If ``obj`` is none of these, or a question or setting is unreadable.
    """
    if not isinstance(obj, dict | list):
        raise TaibeledError(f"not a taibeled state or question: got {type(obj).__name__}")
    jsonio.validate(obj, schemas.TAIBELED_STATE, source, TaibeledError)
    if isinstance(obj, list):
        return TaibeledState(questions=_questions(obj, require_answer))
    if "type" not in obj and ("id" in obj or "data" in obj):
        return TaibeledState(questions=[parse_question(obj, require_answer=require_answer)])
    gtype = obj.get("type")
    props = obj.get("properties") if isinstance(obj.get("properties"), dict) else {}
    state = TaibeledState()
    if gtype == "Feature" and props.get("isHidingZone") is True:
        state.shape = "feature"
        geom = obj.get("geometry")
        if not isinstance(geom, dict) or "coordinates" not in geom:
            raise TaibeledError("state: the hiding-zone Feature has no geometry")
        lonlat = {"type": geom.get("type"), "coordinates": _swap(geom["coordinates"])}
        parsed = taibeled_geometry(lonlat, "state play area")
        state.play_area = parsed if parsed.geom_type in ("Polygon", "MultiPolygon") else None
        state._source = (state.play_area, (copy.deepcopy(geom), copy.deepcopy(props.get("extent"))))
        state.properties = {
            k: copy.deepcopy(v) for k, v in props.items() if k not in ("isHidingZone", "questions")
        }
        state._properties_order = tuple(props)
        state._feature_order = tuple(k for k in obj if k in ("type", "geometry", "properties"))
        state.questions = _questions(props.get("questions"), require_answer)
    elif gtype == "FeatureCollection":
        features = obj.get("features")
        if not isinstance(features, list):
            raise TaibeledError("state: a FeatureCollection needs a 'features' list")
        geoms = []
        for i, f in enumerate(features, 1):
            if isinstance(f, dict) and isinstance(f.get("geometry"), dict):
                geoms.append(taibeled_geometry(f["geometry"], f"state feature {i}"))
        state.play_area = polygonal(geoms)
        state._source = (state.play_area, copy.deepcopy(features))
        state.questions = _questions(obj.get("questions"), require_answer)
    elif gtype == "Feature" or gtype in ("Polygon", "MultiPolygon"):
        geom = obj.get("geometry") if gtype == "Feature" else obj
        state.play_area = polygonal([taibeled_geometry(geom, "state play area")]) if geom else None
        feature = (
            obj if gtype == "Feature" else {"type": "Feature", "properties": {}, "geometry": obj}
        )
        state._source = (state.play_area, [copy.deepcopy(feature)])
        state.questions = _questions(obj.get("questions"), require_answer)
    else:
        raise TaibeledError(
            "not a taibeled state: expected a FeatureCollection with 'questions', a Feature with "
            "properties.isHidingZone, a question list or a question"
        )
    _settings(obj, state)
    return state


def _extent(geometry: BaseGeometry) -> list[float]:
    minx, miny, maxx, maxy = geometry.bounds
    return [maxy, minx, miny, maxx]  # [north, west, south, east]


def dump_state(state: TaibeledState, shape: str | None = None) -> dict:
    """Write a state as the app does, in either shape.

    Parameters
    ----------
    state : TaibeledState
    shape : {"feature", "collection"}, optional
        Defaults to ``state.shape``. The Feature shape writes coordinates as
        [lat, lng] and ``properties.extent`` as [north, west, south, east].

    Returns
    -------
    dict
        Every setting the app writes, with the app's defaults for missing ones.

    Raises
    ------
    TaibeledError
        For an unknown shape, or the Feature shape without a play area.
    """
    shape = shape or state.shape
    if shape not in ("feature", "collection"):
        raise TaibeledError(f"unknown state shape {shape!r}; use feature or collection")
    source = state._source if state._source and state._source[0] is state.play_area else None
    questions = [dump_question(q) for q in state.questions]
    if shape == "collection":
        out = _collection(state, source, questions)
        order = _COLLECTION_ORDER
    else:
        out = _feature(state, source, questions)
        order = _FEATURE_ORDER
    values = _settings_values(state)
    for k in order:
        out[k] = copy.deepcopy(values[k])
    for k in _OTHER_KNOWN:
        if k in state.extras:
            out[k] = copy.deepcopy(state.extras[k])
    return out


def _collection(state: TaibeledState, source: Any, questions: list[dict]) -> dict[str, Any]:
    """The FeatureCollection shape's features and questions."""
    if source is not None and state.shape == "collection":
        features = copy.deepcopy(source[1])
    elif state.play_area is not None:
        features = [
            {"type": "Feature", "properties": {}, "geometry": jsonable(mapping(state.play_area))}
        ]
    else:
        features = []
    return {"type": "FeatureCollection", "features": features, "questions": questions}


def _feature(state: TaibeledState, source: Any, questions: list[dict]) -> dict[str, Any]:
    """The Feature shape: [lat, lng] geometry, the extent and the questions in properties."""
    known = [
        k
        for k in state._properties_order
        if k in state.properties or k in ("isHidingZone", "questions")
    ]
    props = {k: None for k in known}
    props.update(copy.deepcopy(state.properties))
    if source is not None and state.shape == "feature":
        geom, extent = copy.deepcopy(source[1])
        if extent is not None:
            props["extent"] = extent
    elif state.play_area is not None:
        geom = jsonable(mapping(state.play_area))
        geom["coordinates"] = _swap(geom["coordinates"])
        props["extent"] = _extent(state.play_area)
    else:
        raise TaibeledError(
            "state has no play area to write as a Feature; use the collection shape"
        )
    props["isHidingZone"] = True
    props["questions"] = questions
    core = {"type": "Feature", "geometry": geom, "properties": props}
    order_core = [k for k in state._feature_order if k in core] + [
        k for k in core if k not in state._feature_order
    ]
    return {k: core[k] for k in order_core}


def _settings_values(state: TaibeledState) -> dict[str, Any]:
    """Every setting the app writes: the state's, else the app's defaults."""
    units = state.extras.get("hidingRadiusUnits", "miles")
    values: dict[str, Any] = {
        **_DEFAULTS,
        **state.extras,
        "disabledStations": list(state.disabled_stations),
        "customStations": copy.deepcopy(state.custom_stations),
        "zoneOptions": list(state.zone_options),
    }
    if state.hiding_radius_m is not None:
        read = state._hiding_radius
        if read is not None and read[1] == units and same_length(read[0], state.hiding_radius_m):
            values["hidingRadius"] = read[2]  # unchanged: exactly as read
        else:
            values["hidingRadius"] = clean(
                state.hiding_radius_m / UNITS_M[unit_field(units, "state")]
            )
    return values
