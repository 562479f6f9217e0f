"""Real taibeled games: play areas stored as OSM ids, zone options, question lists.

``tests/data/taibeled/state-osm-relation.json`` is shaped as the app writes a state
whose play area was picked by search: a Photon Feature with only a Point geometry,
``properties.osm_type`` ``"R"`` and ``osm_id`` 50 (Wahlkreis Oberland in the bundled
Liechtenstein extract), ``zoneOptions`` (railway stations and bus stops),
``disabledStations``, ``hidingRadius`` in kilometres. It works offline from the
extract and online through the local Overpass server, with the same result.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.osm_services import serve
from support.paths import DATA, EXTRACTS, REPO

from stations_generator.app.game_loader import load_game
from stations_generator.app.map_context import MapSources
from stations_generator.cli import main
from stations_generator.core.geo.geodesy import geodesic_area_km2

STATE = DATA / "taibeled" / "state-osm-relation.json"
LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
MONACO = EXTRACTS / "monaco-2016.osm.pbf"
HIDER = (9.5267, 47.1078)  # where the state's answers were given (Triesen)
OBERLAND_KM2 = 125.51  # relation 50, assembled by osmium from the extract


def run(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)


@pytest.fixture(scope="module")
def offline():
    return load_game(STATE, [LIECHTENSTEIN])


def test_osm_id_play_area_from_the_extract(offline):
    g = offline.game
    assert g.play_area.geom_type == "Polygon"
    assert geodesic_area_km2(g.play_area) == pytest.approx(OBERLAND_KM2, abs=0.01)
    # zoneOptions: every railway station and bus stop inside Oberland, less the disabled one.
    state = json.loads(STATE.read_text())
    kinds = {s.tag("railway") or s.tag("highway") for s in g.stations}
    assert kinds == {"station", "bus_stop"}
    assert len(g.stations) == 175
    assert state["disabledStations"][0] not in {s.id for s in g.stations}
    assert g.hiding_radius_m == 500.0  # 0.5 kilometers
    assert all(q.answer == a for q, a in g.hider_answers(*HIDER))


def test_offline_cli(tmp_path):
    result = run("questions", "apply", STATE, "--osm", LIECHTENSTEIN, "-o", tmp_path)
    assert result.exit_code == 0, result.output
    assert (
        "OSM relation 50 (Wahlkreis Oberland) from 'liechtenstein-2013-08.osm.pbf'" in result.stderr
    )
    zones = json.loads((tmp_path / "zones.geojson").read_text())["features"]
    assert len(zones) == 175 and {z["properties"]["radius_m"] for z in zones} == {500.0}
    assert any(z["properties"]["possible"] for z in zones)


def _remaining_km2(folder: Path) -> float:
    return json.loads((folder / "remaining.geojson").read_text())["features"][0]["properties"][
        "area_km2"
    ]


def test_online_through_overpass_matches_offline(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run("questions", "apply", STATE, "--osm", LIECHTENSTEIN, "-o", "offline").exit_code == 0
    with serve() as services:
        env = services.env(tmp_path / "cache")
        online = run("questions", "apply", STATE, "-o", "online", env=env)
        assert online.exit_code == 0, online.output
        assert "fetching OSM relation 50 (Wahlkreis Oberland) from Overpass" in online.stderr
        first, second = services.overpass_queries
        assert "relation(50);" in first
        assert '["highway"="bus_stop"]' in second and '["railway"="station"]' in second
        again = run("questions", "apply", STATE, "-o", "again", env=env)
        assert again.exit_code == 0 and len(services.overpass_queries) == 2  # cached
    assert _remaining_km2(Path("online")) == pytest.approx(
        _remaining_km2(Path("offline")), abs=1e-4
    )
    offline = json.loads(Path("offline/zones.geojson").read_text())
    online_zones = json.loads(Path("online/zones.geojson").read_text())
    assert [f["id"] for f in online_zones["features"]] == [f["id"] for f in offline["features"]]
    assert (
        Path("online/remaining.geojson").read_text() == Path("again/remaining.geojson").read_text()
    )


def test_names_the_relation_when_neither_source_has_it(tmp_path):
    env = {
        "STATIONS_GENERATOR_OVERPASS_URL": "http://127.0.0.1:9/api/interpreter",  # nothing listens
        "STATIONS_GENERATOR_CACHE_DIR": str(tmp_path / "cache"),
    }
    result = run("questions", "apply", STATE, "--osm", MONACO, "-o", tmp_path / "out", env=env)
    assert result.exit_code == 2
    assert (
        "is OSM relation 50 (Wahlkreis Oberland), which is not in 'monaco-2016.osm.pbf'"
        in result.stderr
    )
    assert "give --osm with an extract that holds relation 50" in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def _state(**changes) -> dict:
    state = json.loads(STATE.read_text())
    state.update(changes)
    return state


def test_alternate_locations_are_added_and_cut_out(tmp_path):
    unterland = {"properties": {"osm_type": "R", "osm_id": 49, "name": "Wahlkreis Unterland"}}
    vaduz = {"properties": {"osm_type": "R", "osm_id": 48, "name": "Vaduz"}}
    path = tmp_path / "state.json"
    path.write_text(
        json.dumps(
            _state(alternateLocations=[{"added": True, "location": unterland, "base": False}])
        )
    )
    whole = load_game(path, [LIECHTENSTEIN]).game.play_area
    assert geodesic_area_km2(whole) == pytest.approx(160.5, abs=0.05)  # the whole country
    path.write_text(json.dumps(_state(alternateLocations=[{"added": False, "location": vaduz}])))
    cut = load_game(path, [LIECHTENSTEIN]).game.play_area
    assert geodesic_area_km2(cut) == pytest.approx(OBERLAND_KM2 - 17.28, abs=0.05)


def test_custom_stations_replace_the_zone_options(tmp_path):
    custom = [{"id": "mine-1", "name": "Rathaus", "lat": 47.1410, "lng": 9.5209}]
    path = tmp_path / "state.json"
    path.write_text(json.dumps(_state(useCustomStations=True, customStations=custom)))
    assert [s.id for s in load_game(path, [LIECHTENSTEIN]).game.stations] == ["mine-1"]
    path.write_text(
        json.dumps(
            _state(useCustomStations=True, includeDefaultStations=True, customStations=custom)
        )
    )
    assert len(load_game(path, [LIECHTENSTEIN]).game.stations) == 176


def test_bad_zone_option_is_one_line(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(_state(zoneOptions=["railway=station"])))
    result = run("questions", "apply", path, "--osm", LIECHTENSTEIN, "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert "zoneOptions 'railway=station' is not an Overpass tag filter" in result.stderr


# --- question lists and single questions ------------------------------------------------


@pytest.fixture
def question_list(tmp_path) -> Path:
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(json.loads(STATE.read_text())["properties"]["questions"]))
    return path


def test_cost_needs_no_map(question_list):
    result = run("questions", "cost", question_list, "--json")
    assert result.exit_code == 0, result.output
    ledger = json.loads(result.stdout)
    assert [e["label"] for e in ledger][:2] == ["Radius 5 km", "Thermometer 1 km"]
    assert sum(e["draw"] for e in ledger) == 2 + 2 + 3 + 4 + 3 + 3
    single = run("questions", "cost", DATA / "taibeled" / "question-radius.json")
    assert single.exit_code == 0 and "Radius 4.83 km (custom): draw 2, pick 1" in single.stdout


def test_question_list_applies_with_play_area_and_osm(question_list, tmp_path):
    area = tmp_path / "oberland.geojson"
    from shapely.geometry import mapping

    area.write_text(json.dumps(mapping(load_game(STATE, [LIECHTENSTEIN]).game.play_area)))
    result = run(
        "questions",
        "apply",
        question_list,
        "--play-area",
        area,
        "--osm",
        LIECHTENSTEIN,
        "-o",
        tmp_path / "a",
    )
    assert result.exit_code == 0, result.output
    state_run = run("questions", "apply", STATE, "--osm", LIECHTENSTEIN, "-o", tmp_path / "b")
    assert state_run.exit_code == 0
    # The same questions over the same area: the same remaining area.
    assert _remaining_km2(tmp_path / "a") == pytest.approx(_remaining_km2(tmp_path / "b"), abs=1e-6)
    answer = run(
        "questions",
        "answer",
        question_list,
        "--play-area",
        area,
        "--osm",
        LIECHTENSTEIN,
        "--hider",
        f"{HIDER[1]},{HIDER[0]}",
        "--json",
    )
    rows = json.loads(answer.stdout)
    assert answer.exit_code == 0 and len(rows) == 6
    # (A bare list has the app's default stations, [railway=station]: the station
    # question is about another station than in the state, which adds bus stops.)
    assert all(r["answer"] == r["recorded"] for r in rows if "station" not in r["label"])
    single = run(
        "questions",
        "apply",
        DATA / "taibeled" / "question-radius.json",
        "--play-area",
        REPO / "zones" / "liechtenstein.geojson",
        "--osm",
        LIECHTENSTEIN,
        "-o",
        tmp_path / "c",
    )
    # A London radius over Liechtenstein leaves nothing: it is set aside, and said so.
    assert single.exit_code == 0, single.output
    assert "question 1 leaves nothing on its own" in single.stderr
    assert _remaining_km2(tmp_path / "c") == pytest.approx(160.5, abs=0.1)
    check = run(
        "zones",
        "check",
        question_list,
        "--play-area",
        area,
        "--osm",
        LIECHTENSTEIN,
        "--at",
        f"{HIDER[1]},{HIDER[0]}",
    )
    assert check.exit_code == 0 and "VALID" in check.stdout


def test_question_list_without_a_map_says_what_to_give(question_list, tmp_path):
    result = run(
        "questions",
        "apply",
        question_list,
        "-o",
        tmp_path / "out",
        env={"STATIONS_GENERATOR_OVERPASS_URL": "http://127.0.0.1:9/api/interpreter"},
    )
    assert result.exit_code == 2
    assert "holds questions but no play area; give --play-area FILE" in result.stderr


def test_question_list_takes_the_extent_of_the_osm_data(question_list, tmp_path):
    result = run(
        "questions", "apply", question_list, "--osm", LIECHTENSTEIN, "-o", tmp_path / "out"
    )
    assert result.exit_code == 0, result.output
    assert "has no play area: using the extent of the OSM data" in result.stderr


def test_map_sources_in_python(question_list):
    loaded = load_game(
        question_list,
        sources=MapSources(
            osm=(LIECHTENSTEIN,), play_area=REPO / "zones" / "liechtenstein.geojson"
        ),
    )
    assert geodesic_area_km2(loaded.game.play_area) == pytest.approx(160.5, abs=0.5)
    assert len(loaded.game.questions) == 6
