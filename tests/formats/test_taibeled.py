"""taibeled/JetLagHideAndSeek compatibility: questions, states, share links, model conversion.

The JSON in tests/data/taibeled/ is real app output; places, zones, stations and the
coastline come from the real OSM extracts in tests/data/osm-extracts/.
"""

from __future__ import annotations

import base64
import copy
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from support.paths import DATA, EXTRACTS, HELSINKI, LIECHTENSTEIN, SIOUX

from stations_generator.core.geo.shapes import AzimuthalFrame, distance_m
from stations_generator.core.questions.geometry import (
    NOT_WITHIN,
    MatchingNearestQuestion,
    MatchingStationQuestion,
    MatchingZoneQuestion,
    MeasuringQuestion,
    Place,
    RadiusQuestion,
    Station,
    TentaclesQuestion,
    ThermometerQuestion,
    Zone,
)
from stations_generator.core.questions.rules import MILE_M
from stations_generator.errors import InputError
from stations_generator.formats import taibeled as tb
from stations_generator.osm import extracts
from stations_generator.osm.routes import read_routes, routes_serving

TAIBELED = DATA / "taibeled"
MONACO = EXTRACTS / "monaco-2016.osm.pbf"

HELSINKI_SEEKER = (24.9441, 60.1710)  # lon, lat: near the central railway station
VADUZ = (9.5209, 47.1410)
MONACO_VILLE = (7.4246, 43.7311)


def _load(name: str) -> dict:
    return json.loads((TAIBELED / name).read_text("utf-8"))


def _text(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False)


# --- real OSM data and a resolver over it ---------------------------------------------


def _places(path: Path, keep) -> tuple[Place, ...]:
    return tuple(
        Place(e.key, e.tags.get("name", ""), e.lon, e.lat) for e in extracts.read_points(path, keep)
    )


@dataclass
class ExtractResolver:
    """A Resolver over real extracts (what app.map_context.OsmContext does, kept local to the test)."""

    area: BaseGeometry
    places_by_subject: dict[str, tuple[Place, ...]] = field(default_factory=dict)
    lines: dict[str, tuple[BaseGeometry, ...]] = field(default_factory=dict)
    zones_by_level: dict[int, tuple[Zone, ...]] = field(default_factory=dict)
    stations: tuple[Station, ...] = ()

    @property
    def frame(self) -> AzimuthalFrame:
        return AzimuthalFrame.around(self.area)

    def places(self, subject: str) -> tuple[Place, ...]:
        return self.places_by_subject.get(subject, ())

    def features(self, subject: str) -> tuple[BaseGeometry, ...]:
        if subject in self.lines:
            return self.lines[subject]
        return tuple(Point(p.lon, p.lat) for p in self.places(subject))

    def zones(self, level: int) -> tuple[Zone, ...]:
        return self.zones_by_level.get(level, ())

    def station_near(self, lon: float, lat: float) -> Station | None:
        if not self.stations:
            return None
        d = distance_m(
            np.full(len(self.stations), lon),
            np.full(len(self.stations), lat),
            np.array([s.lon for s in self.stations]),
            np.array([s.lat for s in self.stations]),
        )
        return self.stations[int(np.argmin(d))]


@pytest.fixture(scope="module")
def helsinki() -> ExtractResolver:
    routes = read_routes(HELSINKI)
    stations = []
    for e in extracts.read_points(
        HELSINKI, lambda t: t.get("railway") in ("station", "halt", "tram_stop")
    ):
        served = routes_serving(e.lon, e.lat, e.osm_id, routes)
        stations.append(
            Station(
                e.key,
                e.tags.get("name", ""),
                e.lon,
                e.lat,
                (("railway", e.tags["railway"]),),
                frozenset(r.id for r in served),
                frozenset(r.line_ref for r in served),
            )
        )
    return ExtractResolver(
        box(24.935, 60.164, 24.953, 60.179),
        {
            "museum": _places(HELSINKI, lambda t: t.get("tourism") == "museum"),
            "library": _places(HELSINKI, lambda t: t.get("amenity") == "library"),
            "train_station": _places(HELSINKI, lambda t: t.get("railway") == "station"),
            "major_city": _places(HELSINKI, lambda t: t.get("place") == "city"),
        },
        stations=tuple(stations),
    )


@pytest.fixture(scope="module")
def liechtenstein() -> ExtractResolver:
    areas = extracts.read_areas(
        LIECHTENSTEIN,
        lambda t: (
            t.get("boundary") == "administrative" and t.get("admin_level") == "8" and "name" in t
        ),
    )
    zones = tuple(
        sorted((Zone(zid, tags["name"], geom) for zid, tags, geom in areas), key=lambda z: z.id)
    )
    return ExtractResolver(
        shapely.union_all([z.geometry for z in zones]), zones_by_level={8: zones}
    )


@pytest.fixture(scope="module")
def monaco() -> ExtractResolver:
    coast = tuple(
        line
        for _, _, line in extracts.read_lines(MONACO, lambda t: t.get("natural") == "coastline")
    )
    return ExtractResolver(box(7.40, 43.72, 7.45, 43.76), lines={"coastline": coast})


# --- the app's own files --------------------------------------------------------------


@pytest.mark.parametrize("name", ["question-radius.json", "question-tentacles.json"])
def test_app_questions_parse_and_reexport_identically(name):
    raw = _load(name)
    q = tb.parse_question(raw)
    assert q.kind == raw["id"] and q.key == raw["key"]
    assert q.seeker == (raw["data"]["lng"], raw["data"]["lat"])
    assert _text(tb.dump_question(q)) == _text(raw)  # same keys, values and key order


def test_app_question_properties():
    radius = tb.parse_question(_load("question-radius.json"))
    assert radius.radius_m == pytest.approx(3 * MILE_M)
    assert radius.answer is True
    tentacles = tb.parse_question(_load("question-tentacles.json"))
    assert tentacles.type == "museum"
    assert tentacles.radius_m == pytest.approx(MILE_M)
    assert tentacles.answer == "British Museum"


def test_app_state_parses_and_keeps_every_field():
    raw = _load("state-featurecollection.json")
    state = tb.parse_state(raw)
    assert state.shape == "collection"
    assert shapely.equals(state.play_area, box(-0.2, 51.45, 0.0, 51.56))
    assert [q.kind for q in state.questions] == ["radius", "measuring"]
    assert state.questions[1].type == "custom-measure"
    assert state.hiding_radius_m == pytest.approx(0.5 * MILE_M)
    assert state.disabled_stations == ["node/123456789"]
    assert state.zone_options == ["[railway=station]", "[railway=halt]"]
    assert state.custom_stations == []
    assert state.extras["hidingRadiusUnits"] == "miles"
    assert _text(tb.dump_state(state)) == _text(raw)


# --- the OSM-feature state shape ([lat, lng], extent [N, W, S, E]) --------------------


def _sioux_falls_feature_state() -> tuple[dict, Polygon]:
    """The Feature shape the README describes, built from the real Sioux Falls play area."""
    ring = json.loads((SIOUX / "polygon.geojson").read_text("utf-8"))["features"][0]["geometry"][
        "coordinates"
    ]
    lonlat = Polygon(ring)
    minx, miny, maxx, maxy = lonlat.bounds
    question = _load("question-radius.json")
    question["data"].update(lat=43.5446, lng=-96.7311)  # downtown Sioux Falls
    state = {
        "type": "Feature",
        "geometry": {"type": "Polygon", "coordinates": [[[lat, lon] for lon, lat in ring]]},
        "properties": {
            "name": "Sioux Falls",
            "extent": [maxy, minx, miny, maxx],
            "isHidingZone": True,
            "questions": [question],
        },
        "disabledStations": ["node/123456789"],
        "hidingRadius": 0.25,
        "hidingRadiusUnits": "miles",
        "alternateLocations": [],
        "zoneOptions": ["[railway=station]"],
        "useCustomStations": False,
        "customStations": [
            {"id": "custom-1", "name": "Falls Park", "lat": 43.5587, "lng": -96.7240}
        ],
        "includeDefaultStations": True,
        "presets": [],
        "permanentOverlay": None,
    }
    return state, lonlat


def test_feature_state_swaps_to_lon_lat_and_dumps_back_identically():
    raw, lonlat = _sioux_falls_feature_state()
    state = tb.parse_state(raw)
    assert state.shape == "feature"
    assert shapely.equals_exact(state.play_area, lonlat, 0.0)
    minx, miny, maxx, maxy = state.play_area.bounds
    assert -96.82 < minx < maxx < -96.55 and 43.44 < miny < maxy < 43.63  # lon is x, lat is y
    assert state.play_area.covers(Point(state.questions[0].seeker))
    assert state.hiding_radius_m == pytest.approx(MILE_M / 4)
    assert state.custom_stations[0]["name"] == "Falls Park"
    assert state.properties["name"] == "Sioux Falls"
    assert _text(tb.dump_state(state)) == _text(raw)
    # A play area built afresh (not the one read) is written the same way, extent included.
    state.play_area = Polygon(list(lonlat.exterior.coords))
    assert _text(tb.dump_state(state)) == _text(raw)


def test_state_converts_between_shapes():
    raw = _load("state-featurecollection.json")
    state = tb.parse_state(raw)
    as_feature = tb.dump_state(state, "feature")
    assert as_feature["type"] == "Feature"
    assert as_feature["geometry"]["coordinates"][0][0] == [51.45, -0.2]  # [lat, lng]
    assert as_feature["properties"]["extent"] == [51.56, -0.2, 51.45, 0.0]  # [N, W, S, E]
    assert as_feature["properties"]["isHidingZone"] is True
    assert as_feature["properties"]["questions"] == raw["questions"]
    back = tb.parse_state(as_feature)
    assert shapely.equals(back.play_area, state.play_area)
    assert back.questions == state.questions
    as_collection = tb.dump_state(back, "collection")
    assert as_collection["features"][0]["geometry"]["coordinates"][0][0] == [
        -0.2,
        51.45,
    ]  # [lng, lat]
    for key in (
        "questions",
        "disabledStations",
        "hidingRadius",
        "hidingRadiusUnits",
        "zoneOptions",
    ):
        assert as_collection[key] == raw[key]
    with pytest.raises(tb.TaibeledError, match="unknown state shape"):
        tb.dump_state(state, "polygon")


def test_bare_question_list_and_single_question_are_states():
    q = _load("question-radius.json")
    assert [x.kind for x in tb.parse_state([q, _load("question-tentacles.json")]).questions] == [
        "radius",
        "tentacles",
    ]
    single = tb.parse_state(q)
    assert single.play_area is None and [x.kind for x in single.questions] == ["radius"]
    with pytest.raises(tb.TaibeledError, match="has no play area"):
        tb.dump_state(single, "feature")


# --- lenient import -------------------------------------------------------------------


def test_missing_fields_take_the_app_defaults():
    q = tb.parse_question({"id": "radius", "data": {"lat": 51.5, "lng": -0.12, "within": False}})
    d = q.data
    assert list(d) == [
        "lat",
        "lng",
        "drag",
        "color",
        "collapsed",
        "hidden",
        "radius",
        "unit",
        "within",
    ]
    assert (d["drag"], d["collapsed"], d["hidden"], d["radius"], d["unit"]) == (
        True,
        False,
        False,
        50,
        "miles",
    )
    assert d["color"] in tb.COLORS and 0 <= q.key < 1
    assert tb.parse_question(tb.dump_question(q)) == q  # defaults are stable
    tentacles = tb.parse_question(
        {"id": "tentacles", "data": {"lat": 1, "lng": 2, "location": False}}
    )
    assert (tentacles.data["radius"], tentacles.data["locationType"], tentacles.answer) == (
        15,
        "theme_park",
        None,
    )
    zone = tb.parse_question(
        {"id": "matching", "data": {"lat": 1, "lng": 2, "same": True, "type": "zone"}}
    )
    assert zone.data["cat"] == {"adminLevel": 3}
    assert (
        tb.parse_question({"id": "matching", "data": {"lat": 1, "lng": 2, "same": True}}).type
        == "airport"
    )
    measuring = tb.parse_question(
        {"id": "measuring", "data": {"lat": 1, "lng": 2, "hiderCloser": False}}
    )
    assert measuring.type == "coastline"
    thermo = tb.parse_question(
        {
            "id": "thermometer",
            "data": {
                "latA": 1,
                "lngA": 2,
                "latB": 1.01,
                "lngB": 2,
                "warmer": True,
                "colorA": "red",
                "colorB": "red",
            },
        }
    )
    assert (thermo.data["colorA"], thermo.data["colorB"]) == ("red", "green")  # the app's own rule
    assert thermo.seeker == (2, 1.01)


def test_unknown_keys_are_dropped():
    raw = _load("question-tentacles.json")
    raw["extra"] = 1
    raw["data"]["unknownField"] = "x"
    raw["data"]["location"]["properties"]["wikidata"] = "Q6373"
    raw["data"]["location"]["bbox"] = [0, 0, 1, 1]
    out = tb.dump_question(tb.parse_question(raw))
    assert "extra" not in out and "unknownField" not in out["data"]
    assert out["data"]["location"]["properties"] == {"name": "British Museum"}
    assert "bbox" not in out["data"]["location"]
    assert out == _load("question-tentacles.json")
    state = _load("state-featurecollection.json")
    state["somethingElse"] = {"a": 1}
    assert tb.dump_state(tb.parse_state(state)) == _load("state-featurecollection.json")


def test_missing_answer_is_an_error_unless_defaults_are_asked_for():
    raw = _load("question-radius.json")
    del raw["data"]["within"]
    with pytest.raises(tb.TaibeledError, match="radius question has no answer \\('within'\\)"):
        tb.parse_question(raw)
    assert tb.parse_question(raw, require_answer=False).answer is True  # the app's default
    tentacles = _load("question-tentacles.json")
    del tentacles["data"]["location"]
    with pytest.raises(tb.TaibeledError, match="location"):
        tb.parse_question(tentacles)
    with pytest.raises(tb.TaibeledError, match="question 2: .*hiderCloser"):
        tb.parse_state(
            [_load("question-radius.json"), {"id": "measuring", "data": {"lat": 1, "lng": 2}}]
        )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda q: q.update(id="foo"),
            "unknown question type 'foo'; use radius, thermometer, tentacles, matching or measuring",
        ),
        (lambda q: q["data"].update(lat="north"), "lat 'north' is not a number"),
        (lambda q: q["data"].update(lng=None), "lng is missing"),
        (lambda q: q["data"].update(lat=95), "lat 95 is out of range"),
        (
            lambda q: q["data"].update(unit="feet"),
            "bad unit 'feet'; use miles, kilometers or meters",
        ),
        (lambda q: q["data"].update(within="yes"), "within must be true or false"),
        (lambda q: q["data"].update(radius=-1), "radius -1 is negative"),
    ],
)
def test_bad_questions_give_one_line_errors(change, message):
    raw = _load("question-radius.json")
    change(raw)
    with pytest.raises(tb.TaibeledError) as info:
        tb.parse_question(raw)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, InputError)


def test_bad_enums_are_named():
    base = {"lat": 1, "lng": 2, "same": True, "hiderCloser": True}
    with pytest.raises(tb.TaibeledError, match="unknown matching type 'pub'"):
        tb.parse_question({"id": "matching", "data": {**base, "type": "pub"}})
    with pytest.raises(tb.TaibeledError, match="unknown measuring type 'volcano'"):
        tb.parse_question({"id": "measuring", "data": {**base, "type": "volcano"}})
    with pytest.raises(tb.TaibeledError, match="bad cat.adminLevel 12"):
        tb.parse_question(
            {"id": "matching", "data": {**base, "type": "zone", "cat": {"adminLevel": 12}}}
        )
    with pytest.raises(tb.TaibeledError, match="unknown locationType 'pub'"):
        tb.parse_question(
            {"id": "tentacles", "data": {**base, "location": False, "locationType": "pub"}}
        )
    with pytest.raises(tb.TaibeledError, match="bad hidingRadiusUnits 'leagues'"):
        tb.parse_state(
            {"type": "FeatureCollection", "features": [], "hidingRadiusUnits": "leagues"}
        )
    with pytest.raises(tb.TaibeledError, match="not a taibeled state"):
        tb.parse_state({"type": "Point", "coordinates": [0, 0]})


# --- share links ----------------------------------------------------------------------


def test_share_link_made_in_python_decodes_to_the_same_state():
    state = tb.dump_state(tb.parse_state(_load("state-featurecollection.json")))
    code = tb.encode_hzc(state)
    assert "=" not in code and "+" not in code and "/" not in code
    link = f"https://taibeled.github.io/JetLagHideAndSeek/?hzc={code}"
    assert tb.decode_hzc(link) == state
    assert tb.decode_hzc(code) == state
    assert tb.load_any(f"  {link}\n") == state
    assert tb.load_any(json.dumps(state)) == state
    # The code is zlib over the compact JSON, as the app's decompressor expects.
    raw = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
    assert zlib.decompress(raw).decode("utf-8") == json.dumps(
        state, separators=(",", ":"), ensure_ascii=False
    )
    assert tb.dump_state(tb.parse_state(tb.decode_hzc(link))) == state


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


@pytest.mark.parametrize(
    ("link", "why"),
    [
        ("https://example.org/?hzc=abc$def", "not base64url"),
        ("?hzc=abcde", "not base64url"),
        (_b64(b"plain text, not compressed"), "not zlib"),
        ("?hzc=" + _b64(zlib.compress(b"{not json")), "not JSON"),
        (_b64(zlib.compress(b"[1, 2]")), "not an object"),
        ("https://example.org/?other=1", "no hzc= parameter"),
        ("?hzc=", "empty"),
    ],
)
def test_malformed_share_links(link, why):
    with pytest.raises(tb.TaibeledError) as info:
        tb.decode_hzc(link)
    assert str(info.value).startswith("malformed share link: ")
    assert why in str(info.value)


def test_load_any_rejects_bad_json():
    with pytest.raises(tb.TaibeledError, match="not valid JSON"):
        tb.load_any('{"id": "radius",')


_coord = st.floats(-80, 80, allow_nan=False)
_bools = st.booleans()


@st.composite
def _question(draw) -> dict:
    kind = draw(st.sampled_from(tb.KINDS))
    base = {
        "lat": draw(_coord),
        "lng": draw(_coord),
        "color": draw(st.sampled_from(tb.COLORS)),
        "drag": draw(_bools),
        "collapsed": draw(_bools),
        "hidden": draw(_bools),
    }
    if kind == "radius":
        data = {
            **base,
            "radius": draw(st.floats(0.01, 500)),
            "unit": draw(st.sampled_from(list(tb.UNITS_M))),
            "within": draw(_bools),
        }
    elif kind == "thermometer":
        data = {
            "latA": draw(_coord),
            "lngA": draw(_coord),
            "latB": draw(_coord),
            "lngB": draw(_coord),
            "warmer": draw(_bools),
        }
    elif kind == "tentacles":
        name = draw(st.text(max_size=20))
        loc = draw(
            st.sampled_from(
                [
                    False,
                    {
                        "type": "Feature",
                        "geometry": {"type": "Point", "coordinates": [1.5, 2.5]},
                        "properties": {"name": name},
                    },
                ]
            )
        )
        data = {
            **base,
            "radius": draw(st.floats(0.1, 30)),
            "unit": "kilometers",
            "location": loc,
            "locationType": draw(st.sampled_from(["zoo", "museum", "library"])),
        }
    elif kind == "matching":
        data = {
            **base,
            "same": draw(_bools),
            "type": draw(
                st.sampled_from(
                    ["zone", "letter-zone", "museum-full", "same-train-line", "airport"]
                )
            ),
            "cat": {"adminLevel": draw(st.integers(2, 10))},
        }
    else:
        data = {
            **base,
            "hiderCloser": draw(_bools),
            "type": draw(st.sampled_from(["coastline", "seven11", "park"])),
        }
    return {"id": kind, "key": draw(st.floats(0, 1, exclude_max=True)), "data": data}


@st.composite
def _state(draw) -> dict:
    x, y = draw(st.floats(-170, 170)), draw(st.floats(-80, 80))
    w, h = draw(st.floats(0.001, 5)), draw(st.floats(0.001, 5))
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {},
                "geometry": {
                    "type": "Polygon",
                    "coordinates": [[[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]]],
                },
            }
        ],
        "questions": draw(st.lists(_question(), max_size=6)),
        "disabledStations": [
            f"node/{n}" for n in draw(st.lists(st.integers(1, 10**10), max_size=4))
        ],
        "hidingRadius": draw(st.floats(0.05, 5)),
        "hidingRadiusUnits": draw(st.sampled_from(list(tb.UNITS_M))),
        "zoneOptions": draw(
            st.lists(st.sampled_from(["[railway=station]", "[railway=halt]", "[highway=bus_stop]"]))
        ),
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_state())
def test_share_link_round_trip_property(raw):
    written = tb.dump_state(tb.parse_state(raw))
    decoded = tb.decode_hzc(
        "https://taibeled.github.io/JetLagHideAndSeek/?hzc=" + tb.encode_hzc(written)
    )
    assert decoded == written
    again = tb.parse_state(decoded)
    assert tb.dump_state(again) == written
    assert len(again.questions) == len(raw["questions"])
    assert again.hiding_radius_m == pytest.approx(
        raw["hidingRadius"] * tb.UNITS_M[raw["hidingRadiusUnits"]]
    )


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=10), _json, max_size=6))
def test_hzc_round_trips_any_json_object(obj):
    assert tb.decode_hzc(tb.encode_hzc(obj)) == obj


# --- model -> taibeled -> model -------------------------------------------------------


def _round_trip(q, resolver):
    t = tb.from_model(q)
    # Through the JSON the app would see, then back.
    again = tb.to_model(tb.parse_question(json.loads(json.dumps(tb.dump_question(t)))), resolver)
    return t, again


@pytest.mark.parametrize(
    ("metres", "unit", "value"),
    [
        (1000.0, "kilometers", 1),
        (402.336, "miles", 0.25),
        (250.0, "kilometers", 0.25),
        (3 * MILE_M, "miles", 3),
        (123.4, "meters", 123.4),
    ],
)
def test_radius_round_trips(helsinki, metres, unit, value):
    q = RadiusQuestion(HELSINKI_SEEKER, metres, within=False)
    t, again = _round_trip(q, helsinki)
    assert (t.kind, t.data["unit"], t.data["radius"], t.data["within"]) == (
        "radius",
        unit,
        value,
        False,
    )
    assert again.seeker == q.seeker and again.within is False
    assert again.radius_m == pytest.approx(metres, abs=1e-9)


def test_thermometer_round_trips_and_warmer_means_closer_to_b(helsinki):
    q = ThermometerQuestion((24.9380, 60.1690), (24.9450, 60.1720), warmer=True)
    t, again = _round_trip(q, helsinki)
    assert (t.data["latA"], t.data["lngA"], t.data["latB"], t.data["lngB"]) == (
        60.1690,
        24.9380,
        60.1720,
        24.9450,
    )
    assert again == q
    assert (
        again.answer_for(24.9450, 60.1720) is True and again.answer_for(24.9380, 60.1690) is False
    )


def test_tentacles_round_trips_with_real_museums(helsinki):
    museums = helsinki.places("museum")
    assert len(museums) == 6
    q = TentaclesQuestion(HELSINKI_SEEKER, 2000.0, "museum", museums)
    q.nearest = q.answer_for(24.9366, 60.1718)  # a hider beside Kiasma
    assert q.nearest == "way/8042215"
    t, again = _round_trip(q, helsinki)
    assert (t.data["locationType"], t.data["unit"], t.data["radius"]) == ("museum", "kilometers", 2)
    assert t.answer == "Kiasma"
    assert again == q
    q.nearest = NOT_WITHIN
    t, again = _round_trip(q, helsinki)
    assert t.data["location"] is False and again.nearest == NOT_WITHIN


def test_tentacles_with_a_subject_the_app_lacks_goes_as_custom_places(helsinki):
    libraries = helsinki.places("library")
    park_like = TentaclesQuestion(HELSINKI_SEEKER, 400.0, "golf_course", libraries)  # no app type
    park_like.nearest = park_like.answer_for(24.9485, 60.1715)
    assert park_like.nearest == "node/1007942428"
    t, again = _round_trip(park_like, helsinki)
    assert t.data["locationType"] == "custom"
    inside = {p.id for p in park_like.candidates()}
    assert {p["id"] for p in t.data["places"]} == inside and len(inside) < len(libraries)
    assert again.nearest == park_like.nearest
    area = helsinki.area
    assert shapely.equals(again.kept(area), park_like.kept(area))


def test_matching_nearest_round_trips(helsinki):
    q = MatchingNearestQuestion(HELSINKI_SEEKER, "museum", helsinki.places("museum"), same=False)
    t, again = _round_trip(q, helsinki)
    assert t.data["type"] == "museum-full" and t.data["same"] is False
    assert again == q
    # No app type for train stations: written as custom points carrying the places.
    q = MatchingNearestQuestion(
        HELSINKI_SEEKER, "train_station", helsinki.places("train_station"), same=True
    )
    t, again = _round_trip(q, helsinki)
    assert t.data["type"] == "custom-points"
    assert [f["id"] for f in t.data["geo"]["features"]] == [p.id for p in q.places]
    assert again == q


@pytest.mark.parametrize(("by_letter", "kind"), [(False, "zone"), (True, "letter-zone")])
def test_matching_zone_round_trips_with_real_admin_zones(liechtenstein, by_letter, kind):
    zones = liechtenstein.zones(8)
    assert len(zones) == 11
    q = MatchingZoneQuestion(VADUZ, 8, zones, same=True, by_letter=by_letter)
    assert q.seeker_zone().name == "Vaduz"
    t, again = _round_trip(q, liechtenstein)
    assert (t.data["type"], t.data["cat"]) == (kind, {"adminLevel": 8})
    assert again == q


def test_custom_zone_round_trips(liechtenstein):
    triesen = next(z for z in liechtenstein.zones(8) if z.name == "Triesen")
    seeker = tuple(triesen.geometry.representative_point().coords[0])
    q = MatchingZoneQuestion(
        seeker, 0, (Zone("custom-zone", "Triesen", triesen.geometry),), same=False
    )
    t, again = _round_trip(q, liechtenstein)
    assert t.data["type"] == "custom-zone" and t.data["geo"]["properties"]["name"] == "Triesen"
    assert isinstance(again, MatchingZoneQuestion) and again.same is False
    area = liechtenstein.area
    assert shapely.equals(again.kept(area), q.kept(area))
    assert again.kept(area).area < area.area - triesen.geometry.area * 0.99  # Triesen removed


@pytest.mark.parametrize(
    ("attribute", "kind"),
    [
        ("letter", "same-first-letter-station"),
        ("length", "same-length-station"),
        ("line", "same-train-line"),
    ],
)
def test_station_matching_round_trips(helsinki, attribute, kind):
    seeker_station = next(s for s in helsinki.stations if s.name == "Rautatieasema (M)")
    assert seeker_station.lines
    q = MatchingStationQuestion(seeker_station, attribute, same=True)
    t, again = _round_trip(q, helsinki)
    assert t.data["type"] == kind
    assert (t.data["lng"], t.data["lat"]) == (seeker_station.lon, seeker_station.lat)
    assert again == q
    kept = [s.id for s in helsinki.stations if again.station_keeps(s)]
    assert seeker_station.id in kept and len(kept) < len(helsinki.stations)


def test_measuring_round_trips_with_real_coastline(monaco):
    q = MeasuringQuestion(
        MONACO_VILLE, "coastline", monaco.features("coastline"), monaco.frame, hider_closer=True
    )
    assert len(q.features) == 28
    t, again = _round_trip(q, monaco)
    assert t.data["type"] == "coastline" and t.data["hiderCloser"] is True
    assert again == q
    assert again.answer_for(*MONACO_VILLE) is True  # a tie counts as "hider closer"


def test_measuring_points_and_custom_shapes_round_trip(helsinki, liechtenstein):
    q = MeasuringQuestion(
        HELSINKI_SEEKER, "museum", helsinki.features("museum"), helsinki.frame, hider_closer=False
    )
    t, again = _round_trip(q, helsinki)
    assert t.data["type"] == "museum-full"
    assert again == q
    borders = tuple(z.geometry.boundary for z in liechtenstein.zones(8))
    q = MeasuringQuestion(VADUZ, "border", borders, liechtenstein.frame, hider_closer=True)
    t, again = _round_trip(q, liechtenstein)
    assert t.data["type"] == "custom-measure" and t.data["geo"]["subject"] == "border"
    assert again == q


# --- taibeled -> model -> taibeled ----------------------------------------------------


def _keeps_fields(t: tb.TaibeledQuestion, resolver) -> None:
    model = tb.to_model(t, resolver)
    back = tb.from_model(model, like=t)
    assert _text(tb.dump_question(back)) == _text(tb.dump_question(t))


def test_app_files_keep_their_fields_through_the_model(helsinki):
    _keeps_fields(tb.parse_question(_load("question-radius.json")), helsinki)
    for q in tb.parse_state(_load("state-featurecollection.json")).questions:
        _keeps_fields(q, helsinki)  # the custom-measure line comes back as it was


def test_every_kind_keeps_its_fields_through_the_model(helsinki, liechtenstein, monaco):
    def restyle(t: tb.TaibeledQuestion, **changes) -> tb.TaibeledQuestion:
        raw = tb.dump_question(t)
        raw["key"] = 0.4242
        raw["data"].update(drag=False, collapsed=True, hidden=True, **changes)
        return tb.parse_question(raw)

    museums = helsinki.places("museum")
    cases = [
        (
            restyle(
                tb.from_model(RadiusQuestion(HELSINKI_SEEKER, 750.0, True)),
                unit="meters",
                radius=750,
            ),
            helsinki,
        ),
        (
            restyle(
                tb.from_model(ThermometerQuestion((24.938, 60.169), (24.945, 60.172), False)),
                colorA="gold",
            ),
            helsinki,
        ),
        (
            restyle(
                tb.from_model(
                    TentaclesQuestion(HELSINKI_SEEKER, 2000.0, "museum", museums, "node/606949807")
                ),
                unit="miles",
                radius=2000 / MILE_M,
            ),
            helsinki,
        ),
        (
            restyle(
                tb.from_model(MatchingNearestQuestion(HELSINKI_SEEKER, "museum", museums, True)),
                type="museum",
            ),
            helsinki,
        ),
        (
            restyle(
                tb.from_model(MatchingZoneQuestion(VADUZ, 8, liechtenstein.zones(8), False, True)),
                color="red",
            ),
            liechtenstein,
        ),
        (
            restyle(
                tb.from_model(MatchingStationQuestion(helsinki.stations[0], "length", False)),
                lengthComparison="same",
            ),
            helsinki,
        ),
        (
            restyle(
                tb.from_model(
                    MeasuringQuestion(
                        MONACO_VILLE, "coastline", monaco.features("coastline"), monaco.frame, False
                    )
                ),
                color="violet",
            ),
            monaco,
        ),
    ]
    for t, resolver in cases:
        _keeps_fields(t, resolver)
    assert cases[3][0].type == "museum"  # the "hiding zone mode" variant is kept, not made "-full"


# --- semantics and what cannot be mapped ----------------------------------------------


def test_answers_mean_what_the_app_means(helsinki):
    radius = tb.to_model(tb.parse_question(_load("question-radius.json")), helsinki)
    assert isinstance(radius, RadiusQuestion) and radius.radius_m == pytest.approx(3 * MILE_M)
    near = (-0.1278, 51.52)  # ~1.4 km north of the seeker
    assert radius.answer_for(*near) is True and radius.kept(box(-0.2, 51.45, 0.0, 51.56)).covers(
        Point(near)
    )
    raw = {
        "id": "measuring",
        "data": {"lat": 60.17, "lng": 24.944, "hiderCloser": True, "type": "museum-full"},
    }
    measuring = tb.to_model(tb.parse_question(raw), helsinki)
    assert measuring.answer_for(24.944, 60.17) is True  # a tie is "hider closer"


def test_unmappable_questions_say_what_is_unsupported(helsinki, liechtenstein):
    seeker = {"lat": 60.17, "lng": 24.944}
    # Major cities are OSM place=city (the Helsinki extract holds Helsinki's node).
    city = tb.to_model(
        tb.parse_question(
            {"id": "matching", "data": {**seeker, "same": True, "type": "major-city"}}
        ),
        helsinki,
    )
    assert city.subject == "major_city" and [p.name for p in city.places] == ["Helsinki"]
    measure = tb.to_model(
        tb.parse_question(
            {"id": "measuring", "data": {**seeker, "hiderCloser": True, "type": "city"}}
        ),
        helsinki,
    )
    assert measure.subject == "major_city"
    longer = {
        "id": "matching",
        "data": {
            **seeker,
            "same": True,
            "type": "same-length-station",
            "lengthComparison": "longer",
        },
    }
    with pytest.raises(tb.TaibeledError, match="lengthComparison 'longer' cannot be converted"):
        tb.to_model(tb.parse_question(longer), helsinki)
    no_stations = ExtractResolver(helsinki.area)
    with pytest.raises(tb.TaibeledError, match="no hiding station near the seeker"):
        tb.to_model(
            tb.parse_question(
                {"id": "matching", "data": {**seeker, "same": True, "type": "same-train-line"}}
            ),
            no_stations,
        )
    triesen = next(z for z in liechtenstein.zones(8) if z.name == "Triesen")
    outside = {
        "id": "matching",
        "data": {
            "lat": VADUZ[1],
            "lng": VADUZ[0],
            "same": True,
            "type": "custom-zone",
            "geo": {
                "type": "Feature",
                "properties": {},
                "geometry": shapely.geometry.mapping(triesen.geometry),
            },
        },
    }
    with pytest.raises(tb.TaibeledError, match="outside the custom zone"):
        tb.to_model(tb.parse_question(json.loads(json.dumps(outside))), liechtenstein)
    with pytest.raises(tb.TaibeledError, match="no museum named 'British Museum'"):
        tb.to_model(tb.parse_question(_load("question-tentacles.json")), helsinki)
    with pytest.raises(tb.TaibeledError, match="no answer recorded"):
        tb.from_model(RadiusQuestion(HELSINKI_SEEKER, 500.0))


def test_tentacles_name_match_prefers_the_place_at_the_location(helsinki):
    libraries = helsinki.places("library")
    twins = [p for p in libraries if p.name == "Kansalliskirjasto"]
    assert len(twins) == 2  # the node and the building way share the name
    way = next(p for p in twins if p.id.startswith("way/"))
    raw = tb.dump_question(
        tb.from_model(TentaclesQuestion(HELSINKI_SEEKER, 2000.0, "library", libraries, way.id))
    )
    assert raw["data"]["locationType"] == "library"
    again = tb.to_model(tb.parse_question(raw), helsinki)
    assert again.nearest == way.id
    moved = copy.deepcopy(raw)
    moved["data"]["location"]["properties"]["name"] = "Kansalliskirjasto (renamed)"
    assert tb.to_model(tb.parse_question(moved), helsinki).nearest == way.id  # found by position


_field_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-200, 200),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sampled_from(["miles", "zone", "custom", "custom-zone", "museum", "letter-zone", "Feature"]),
)
_field_names = st.sampled_from(
    [
        "lat",
        "lng",
        "latA",
        "lngA",
        "latB",
        "lngB",
        "radius",
        "unit",
        "within",
        "warmer",
        "same",
        "hiderCloser",
        "type",
        "locationType",
        "location",
        "places",
        "cat",
        "geo",
        "lengthComparison",
        "color",
        "colorA",
        "drag",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(tb.KINDS),
    st.dictionaries(_field_names, _field_values, max_size=4),
    st.booleans(),
)
def test_any_input_parses_or_fails_with_a_taibeled_error(kind, changes, require_answer):
    valid = {
        "lat": 1.0,
        "lng": 2.0,
        "latA": 1.0,
        "lngA": 2.0,
        "latB": 1.1,
        "lngB": 2.0,
        "within": True,
        "warmer": True,
        "same": True,
        "hiderCloser": True,
        "location": False,
    }
    try:
        q = tb.parse_question(
            {"id": kind, "data": {**valid, **changes}}, require_answer=require_answer
        )
    except tb.TaibeledError as exc:
        assert "\n" not in str(exc)
        return
    assert tb.parse_question(tb.dump_question(q)) == q  # what we accept, we write back stably
