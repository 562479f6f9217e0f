"""Taibeled questions to and from the question model of :mod:`stations_generator.core.questions.geometry`."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Protocol

import shapely
from shapely.geometry import Point, mapping
from shapely.geometry.base import BaseGeometry

from stations_generator.core.geo.shapes import AzimuthalFrame, distance_m
from stations_generator.core.questions.geometry import (
    NOT_WITHIN,
    MatchingNearestQuestion,
    MatchingStationQuestion,
    MatchingZoneQuestion,
    MeasuringQuestion,
    Place,
    Question,
    QuestionError,
    RadiusQuestion,
    Station,
    TentaclesQuestion,
    ThermometerQuestion,
    Zone,
    first_letter,
)
from stations_generator.formats.taibeled.fields import (
    ADMIN_LEVELS,
    FEATURE_SUBJECTS,
    MATCHING_EXPORT,
    MATCHING_TYPES,
    MEASURING_EXPORT,
    MEASURING_TYPES,
    STATION_EXPORT,
    SUBJECT_MEMBER,
    TENTACLES_EXPORT,
    TENTACLES_TYPES,
    UNITS_M,
    TaibeledError,
    catalogue_subjects,
    clean,
    content_key,
    is_number,
    lat_field,
    lng_field,
    one_line,
    same_length,
)
from stations_generator.formats.taibeled.questions import TaibeledQuestion, normalise
from stations_generator.formats.taibeled.states import jsonable, polygonal, taibeled_geometry


class Resolver(Protocol):
    """OSM-derived data a conversion needs (see :class:`stations_generator.app.map_context.OsmContext`)."""

    frame: AzimuthalFrame

    def places(self, subject: str) -> tuple[Place, ...]:
        """Places of a catalogue subject near the play area."""
        ...

    def features(self, subject: str) -> tuple[BaseGeometry, ...]:
        """Geometries of a measuring subject (coastline, high_speed_rail, border, body_of_water or points)."""
        ...

    def zones(self, level: int) -> tuple[Zone, ...]:
        """Named admin areas of an OSM admin level."""
        ...

    def station_near(self, lon: float, lat: float) -> Station | None:
        """The hiding station nearest a point (the seeker's station), or None."""
        ...


def _features_of(geo: Any) -> list[dict]:
    if isinstance(geo, list):
        return [f for f in geo if isinstance(f, dict)]
    if isinstance(geo, dict):
        if geo.get("type") == "FeatureCollection":
            return [f for f in geo.get("features") or [] if isinstance(f, dict)]
        if geo.get("type") == "Feature":
            return [geo]
        if geo.get("type") == "GeometryCollection":
            return [
                {"type": "Feature", "geometry": g, "properties": {}}
                for g in geo.get("geometries") or []
            ]
        if "coordinates" in geo:
            return [{"type": "Feature", "geometry": geo, "properties": {}}]
    return []


def _geo_geometries(geo: Any, where: str) -> list[BaseGeometry]:
    feats = _features_of(geo)
    out = [
        taibeled_geometry(f["geometry"], where)
        for f in feats
        if isinstance(f.get("geometry"), dict)
    ]
    out = [g for g in out if not g.is_empty]
    if not out:
        raise TaibeledError(
            f"{where}: 'geo' holds no geometry; draw the custom shape in the app again"
        )
    return out


def _geo_places(features: Sequence[Any], where: str) -> tuple[Place, ...]:
    out = []
    for i, f in enumerate(features):
        if not isinstance(f, dict) or not isinstance(f.get("geometry"), dict):
            continue
        geom = f["geometry"]
        if geom.get("type") != "Point":
            continue
        coords = geom.get("coordinates") or []
        if len(coords) < 2:
            continue
        lon = float(lng_field(coords[0], "longitude", where))
        lat = float(lat_field(coords[1], "latitude", where))
        props = f.get("properties") if isinstance(f.get("properties"), dict) else {}
        pid = f.get("id", props.get("id"))
        name = props.get("name")
        out.append(
            Place(
                str(pid) if pid is not None else f"custom/{i}",
                "" if name is None else str(name),
                lon,
                lat,
            )
        )
    return tuple(out)


#: Foreign member of a custom-measure ``geo`` naming the admin level of a border.
LEVEL_MEMBER = "level"


def _geo_subject(geo: Any, default: str = "custom") -> str:
    if isinstance(geo, dict) and isinstance(geo.get(SUBJECT_MEMBER), str):
        return geo[SUBJECT_MEMBER]
    return default


def _check_subject(subject: str, where: str, what: str, features: bool = False) -> None:
    known = catalogue_subjects() | (frozenset(FEATURE_SUBJECTS) if features else frozenset())
    if subject not in known:
        raise TaibeledError(
            f"{where}: {what} cannot be converted: the catalogue has no {subject!r} subject; "
            "redraw it in the app as a custom question"
        )


def _tentacles_answer(q: TaibeledQuestion, places: Sequence[Place], subject: str) -> str:
    loc = q.data["location"]
    if not loc:
        return NOT_WITHIN
    name = q.answer
    lon, lat = (float(c) for c in loc["geometry"]["coordinates"][:2])

    def dist(p: Place) -> float:
        return float(distance_m(lon, lat, p.lon, p.lat))

    named = [p for p in places if p.name == name]
    if named:
        return min(named, key=lambda p: (dist(p), p.id)).id
    near = [p for p in places if dist(p) <= 100.0]
    if near:
        return min(near, key=lambda p: (dist(p), p.id)).id
    raise TaibeledError(
        f"tentacles question: no {subject} named {name!r} at ({lat:g}, {lon:g}) in the OSM data; "
        "give OSM data that covers it"
    )


def to_model(q: TaibeledQuestion, resolver: Resolver) -> Question:
    """Convert a taibeled question to our question model, using OSM-derived data.

    Parameters
    ----------
    q : TaibeledQuestion
    resolver : Resolver
        Supplies places, measuring features, admin zones, the seeker's station and
        the azimuthal frame of the play area.

    Returns
    -------
    Question
        radius → :class:`RadiusQuestion`; thermometer → :class:`ThermometerQuestion`
        (start A, end B); tentacles → :class:`TentaclesQuestion`; matching →
        :class:`MatchingNearestQuestion`, :class:`MatchingZoneQuestion` or
        :class:`MatchingStationQuestion`; measuring → :class:`MeasuringQuestion`.

    Raises
    ------
    TaibeledError
        For what cannot be mapped: station-name-length questions answered
        "shorter" / "longer",
        a custom zone that does not contain the seeker, a tentacles location not
        found in the OSM data, or a station question without a seeker station.
    """
    d = q.data
    where = f"{q.kind} question"
    try:
        if q.kind == "radius":
            return RadiusQuestion(q.seeker, float(q.radius_m or 0.0), d["within"])
        if q.kind == "thermometer":
            start = (float(d["lngA"]), float(d["latA"]))
            end = (float(d["lngB"]), float(d["latB"]))
            return ThermometerQuestion(start, end, d["warmer"])
        if q.kind == "tentacles":
            if not q.radius_m or q.radius_m <= 0:
                raise TaibeledError(f"{where}: radius must be positive")
            loc_type = d["locationType"]
            if loc_type == "custom":
                places = _geo_places(d.get("places") or [], where)
                subject = "custom"
            else:
                subject = str(TENTACLES_TYPES[loc_type])
                places = tuple(resolver.places(subject))
            answer = _tentacles_answer(q, places, subject)
            return TentaclesQuestion(q.seeker, float(q.radius_m), subject, places, answer)
        if q.kind == "matching":
            return _matching_to_model(q, resolver)
        return _measuring_to_model(q, resolver)
    except QuestionError as exc:
        raise TaibeledError(f"{where}: {one_line(exc)}") from None


def _matching_to_model(q: TaibeledQuestion, resolver: Resolver) -> Question:
    d = q.data
    mtype = d["type"]
    where = f"matching question ({mtype})"
    kind, arg = MATCHING_TYPES[mtype]
    if kind == "nearest":
        subject = str(arg)
        _check_subject(subject, where, f"type {mtype!r}")
        return MatchingNearestQuestion(
            q.seeker, subject, tuple(resolver.places(subject)), d["same"]
        )
    if kind == "zone":
        level = int(d["cat"]["adminLevel"])
        return MatchingZoneQuestion(
            q.seeker, level, tuple(resolver.zones(level)), d["same"], by_letter=bool(arg)
        )
    if kind == "station":
        comparison = d.get("lengthComparison")
        if arg == "length" and comparison in ("shorter", "longer"):
            raise TaibeledError(
                f"{where}: lengthComparison {comparison!r} cannot be converted; our station-name-length "
                "question only asks same or different length"
            )
        station = resolver.station_near(*q.seeker)
        if station is None:
            raise TaibeledError(
                f"{where}: no hiding station near the seeker; give OSM data with stations"
            )
        return MatchingStationQuestion(station, str(arg), d["same"])
    if kind == "custom-points":
        places = _geo_places(_features_of(d.get("geo")), where)
        if not places:
            raise TaibeledError(
                f"{where}: 'geo' holds no points; draw the custom points in the app again"
            )
        return MatchingNearestQuestion(q.seeker, _geo_subject(d.get("geo")), places, d["same"])
    # custom-zone
    geo = d.get("geo")
    region = polygonal(_geo_geometries(geo, where))
    if region is None:
        raise TaibeledError(
            f"{where}: 'geo' holds no polygon; draw the custom zone in the app again"
        )
    if not region.covers(Point(*q.seeker)):
        raise TaibeledError(
            f"{where}: the seeker ({q.seeker[1]:g}, {q.seeker[0]:g}) is outside the custom zone; "
            "our zone question needs the seeker inside it"
        )
    feats = _features_of(geo)
    props = (
        feats[0].get("properties") if feats and isinstance(feats[0].get("properties"), dict) else {}
    )
    name = str(props.get("name") or "custom zone")
    return MatchingZoneQuestion(q.seeker, 0, (Zone("custom-zone", name, region),), d["same"])


def _measuring_to_model(q: TaibeledQuestion, resolver: Resolver) -> Question:
    d = q.data
    mtype = d["type"]
    where = f"measuring question ({mtype})"
    subject = MEASURING_TYPES[mtype]
    if subject is None:  # custom-measure
        feats = tuple(_geo_geometries(d.get("geo"), where))
        geo = d.get("geo")
        level = geo.get(LEVEL_MEMBER) if isinstance(geo, dict) else None
        return MeasuringQuestion(
            q.seeker,
            _geo_subject(geo),
            feats,
            resolver.frame,
            d["hiderCloser"],
            level if isinstance(level, int) and not isinstance(level, bool) else None,
        )
    _check_subject(subject, where, f"type {mtype!r}", features=True)
    return MeasuringQuestion(
        q.seeker, subject, tuple(resolver.features(subject)), resolver.frame, d["hiderCloser"]
    )


# -- from the model ---------------------------------------------------------------------


def _pick_unit(metres: float) -> tuple[str, int | float]:
    """The first of miles, kilometers, meters in which ``metres`` has at most 3 decimals."""
    for unit in ("miles", "kilometers"):
        v = metres / UNITS_M[unit]
        if abs(v * 1000 - round(v * 1000)) < 1e-6:
            return unit, clean(v)
    return "meters", clean(metres)


def _radius_value(metres: float, base: dict) -> tuple[str, int | float]:
    """(unit, value) for a radius: the unit of ``base`` (its very value if unchanged), else a round one."""
    unit = base.get("unit")
    if unit not in UNITS_M:
        return _pick_unit(metres)
    old = base.get("radius")
    if is_number(old) and same_length(float(old) * UNITS_M[unit], metres):
        return unit, old
    return unit, clean(metres / UNITS_M[unit])


def _place_feature(p: Place) -> dict:
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [p.lon, p.lat]},
        "id": p.id,
        "properties": {"name": p.name},
    }


def _points_geo(places: Sequence[Place], subject: str) -> dict:
    geo: dict[str, Any] = {
        "type": "FeatureCollection",
        "features": [_place_feature(p) for p in places],
    }
    if subject != "custom":
        geo[SUBJECT_MEMBER] = subject
    return geo


def _same_geometries(a: Sequence[BaseGeometry], b: Sequence[BaseGeometry]) -> bool:
    return len(a) == len(b) and all(
        shapely.equals_exact(x, y, 0.0) for x, y in zip(a, b, strict=True)
    )


def _same_places(a: Sequence[Place], b: Sequence[Place]) -> bool:
    return [(p.id, p.name, p.lon, p.lat) for p in a] == [(p.id, p.name, p.lon, p.lat) for p in b]


def _require(answer: Any, q: Question) -> Any:
    if answer is None:
        raise TaibeledError(f"{q.label()}: no answer recorded; the taibeled app needs one")
    return answer


def _variant(
    like: TaibeledQuestion | None, kind: str, table: dict, subject: str, default: str | None
) -> str | None:
    """Keep the app variant of ``like`` (e.g. "museum" vs "museum-full") if it means the same subject."""
    if (
        like is not None
        and like.kind == kind
        and like.type in table
        and table[like.type] == subject
    ):
        return like.type
    return default


def from_model(q: Question, like: TaibeledQuestion | None = None) -> TaibeledQuestion:
    """Convert one of our questions to a taibeled question (the inverse of :func:`to_model`).

    Parameters
    ----------
    q : Question
        Any question of :mod:`stations_generator.core.questions.geometry`, with its answer.
    like : TaibeledQuestion, optional
        The taibeled question ``q`` came from. It supplies what our model does not
        carry: ``key``, colours and display flags, the distance unit, the app's
        variant of a type ("museum" vs "museum-full"), and ``geo`` / ``places`` /
        ``location`` when they still describe the same shapes and places.

    Returns
    -------
    TaibeledQuestion
        Subjects the app has no type for are written as its custom questions
        (custom-points, custom-measure, custom tentacles, custom-zone), carrying
        the places or shapes themselves.

    Raises
    ------
    TaibeledError
        If ``q`` has no answer (the app has no "unanswered" state) or is of an
        unknown class.
    """
    same_kind = like is not None and like.kind == q.kind
    base = copy.deepcopy(like.data) if like is not None and same_kind else {}
    data: dict[str, Any] = {
        k: base[k]
        for k in ("drag", "color", "collapsed", "hidden", "colorA", "colorB")
        if k in base
    }
    if isinstance(q, RadiusQuestion):
        unit, value = _radius_value(q.radius_m, base)
        data.update(
            lat=q.seeker[1], lng=q.seeker[0], radius=value, unit=unit, within=_require(q.within, q)
        )
    elif isinstance(q, ThermometerQuestion):
        data.update(
            latA=q.start[1],
            lngA=q.start[0],
            latB=q.end[1],
            lngB=q.end[0],
            warmer=_require(q.warmer, q),
        )
    elif isinstance(q, TentaclesQuestion):
        _tentacles_from_model(q, base, like, data)
    elif isinstance(q, MatchingNearestQuestion):
        _nearest_from_model(q, base, like, data)
    elif isinstance(q, MatchingZoneQuestion):
        _zone_from_model(q, base, data)
    elif isinstance(q, MatchingStationQuestion):
        st = q.seeker_station
        data.update(
            lat=st.lat, lng=st.lon, same=_require(q.same, q), type=STATION_EXPORT[q.attribute]
        )
        if q.attribute == "length" and base.get("lengthComparison") == "same":
            data["lengthComparison"] = "same"
    elif isinstance(q, MeasuringQuestion):
        _measuring_from_model(q, base, like, data)
    else:
        raise TaibeledError(f"cannot write a {type(q).__name__} as a taibeled question")
    key = like.key if like is not None else content_key(q.kind, data)
    return TaibeledQuestion(q.kind, key, normalise(q.kind, data, key, require_answer=True))


def _nearest_from_model(
    q: MatchingNearestQuestion, base: dict, like: TaibeledQuestion | None, data: dict
) -> None:
    data.update(lat=q.seeker[1], lng=q.seeker[0], same=_require(q.same, q))
    old = base.get("geo") if base.get("type") == "custom-points" else None
    if old is not None and _same_places(_geo_places(_features_of(old), "geo"), q.places):
        data.update(type="custom-points", geo=old)  # still the points it came from
    else:
        nearest_types = {k: v[1] for k, v in MATCHING_TYPES.items() if v[0] == "nearest"}
        mtype = _variant(like, "matching", nearest_types, q.subject, MATCHING_EXPORT.get(q.subject))
        if mtype is None:
            data.update(type="custom-points", geo=_points_geo(q.places, q.subject))
        else:
            data["type"] = mtype


def _zone_from_model(q: MatchingZoneQuestion, base: dict, data: dict) -> None:
    data.update(lat=q.seeker[1], lng=q.seeker[0], same=_require(q.same, q))
    if q.level in ADMIN_LEVELS:
        data["type"] = "letter-zone" if q.by_letter else "zone"
        data["cat"] = {"adminLevel": int(q.level)}
    else:
        data["type"] = "custom-zone"
        try:
            mine = q.seeker_zone()
        except QuestionError as exc:
            raise TaibeledError(one_line(exc)) from None
        letter = first_letter(mine.name)
        parts = [
            z
            for z in q.zones
            if (first_letter(z.name) == letter if q.by_letter else z.id == mine.id)
        ]
        region = shapely.union_all([z.geometry for z in parts])
        old = base.get("geo") if base.get("type") == "custom-zone" else None
        old_region = (
            polygonal(_geo_geometries(old, "geo"))
            if old is not None and _features_of(old)
            else None
        )
        if old_region is not None and shapely.equals_exact(old_region, region, 0.0):
            data["geo"] = old
        else:
            data["geo"] = {
                "type": "Feature",
                "properties": {"name": mine.name},
                "geometry": jsonable(mapping(region)),
            }


def _measuring_from_model(
    q: MeasuringQuestion, base: dict, like: TaibeledQuestion | None, data: dict
) -> None:
    data.update(lat=q.seeker[1], lng=q.seeker[0], hiderCloser=_require(q.hider_closer, q))
    old = base.get("geo") if base.get("type") == "custom-measure" else None
    if (
        old is not None
        and _features_of(old)
        and _same_geometries(_geo_geometries(old, "geo"), q.features)
    ):
        data.update(type="custom-measure", geo=old)  # still the shapes it came from
    else:
        mtype = _variant(
            like, "measuring", MEASURING_TYPES, q.subject, MEASURING_EXPORT.get(q.subject)
        )
        if mtype is None:
            geo: dict[str, Any] = {
                "type": "FeatureCollection",
                "features": [
                    {"type": "Feature", "properties": {}, "geometry": jsonable(mapping(g))}
                    for g in q.features
                ],
            }
            if q.subject != "custom":
                geo[SUBJECT_MEMBER] = q.subject
            if q.level is not None:  # a border's admin level (foreign member, like subject)
                geo[LEVEL_MEMBER] = q.level
            data.update(type="custom-measure", geo=geo)
        else:
            data["type"] = mtype
            if isinstance(base.get("cat"), dict):
                data["cat"] = base["cat"]


def _tentacles_from_model(
    q: TentaclesQuestion, base: dict, like: TaibeledQuestion | None, data: dict
) -> None:
    nearest = _require(q.nearest, q)
    unit, value = _radius_value(q.radius_m, base)
    data.update(lat=q.seeker[1], lng=q.seeker[0], radius=value, unit=unit)
    loc_type = _variant(
        like, "tentacles", TENTACLES_TYPES, q.subject, TENTACLES_EXPORT.get(q.subject)
    )
    if loc_type is None or loc_type == "custom":
        inside = q.candidates()
        old = base.get("places")
        if (
            base.get("locationType") == "custom"
            and isinstance(old, list)
            and _same_places(
                [p for p in _geo_places(old, "places") if p.id in {c.id for c in inside}], inside
            )
        ):
            data["places"] = old
        else:
            data["places"] = [_place_feature(p) for p in inside]
        loc_type = "custom"
    elif isinstance(base.get("places"), list):
        data["places"] = base["places"]
    data["locationType"] = loc_type
    if nearest == NOT_WITHIN:
        data["location"] = False
        return
    place = next((p for p in q.places if p.id == nearest), None)
    if place is None:
        raise TaibeledError(f"{q.label()}: the answer {nearest!r} is not one of its places")
    old_loc = base.get("location")
    if isinstance(old_loc, dict) and (old_loc.get("properties") or {}).get("name") == place.name:
        data["location"] = old_loc
    else:
        data["location"] = {
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [place.lon, place.lat]},
            "properties": {"name": place.name},
        }
