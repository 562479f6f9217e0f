"""``generate --osm-relation`` and ``--place`` end to end, against local servers.

The servers (``osm_services``) answer with the real bundled data: Liechtenstein's
country relation and POIs from the Liechtenstein extract, the Sioux Falls elements, and
a Nominatim answer whose polygon is the Sioux Falls play area. Fetched online, each map
must be byte-identical to the one made offline from the same data.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from shapely.geometry import shape
from support.osm_services import LIECHTENSTEIN_RELATION, PLACE_QUERY
from support.paths import EXTRACTS, REPO, SIOUX
from support.quickstart import readme_summary, summary

from stations_generator.cli import main


def _run(*args, env=None):
    result = CliRunner().invoke(main, [str(a) for a in args], env=env, catch_exceptions=False)
    return result


@pytest.fixture
def services(local_services):
    return local_services


def _play_area(folder: Path):
    features = json.loads((folder / "stations.geojson").read_text())["features"]
    (area,) = [f for f in features if f["properties"]["role"] == "play_area"]
    return shape(area["geometry"])


def test_osm_relation_matches_the_extract(services, tmp_path):
    running, env = services
    online = _run("generate", "--osm-relation", LIECHTENSTEIN_RELATION, "-o", "online", env=env)
    assert online.exit_code == 0, online.output
    # First the relation's geometry, then one batched query over that polygon.
    first, second = running.overpass_queries
    assert first == f"[out:json][timeout:180];\nrelation({LIECHTENSTEIN_RELATION});\nout geom;\n"
    assert 'poly:"47.' in second and "out center tags;" in second and "out geom;" in second

    offline = _run(
        "generate",
        REPO / "zones" / "liechtenstein.geojson",
        "--osm",
        EXTRACTS / "liechtenstein-2013-08.osm.pbf",
        "-o",
        "offline",
    )
    assert offline.exit_code == 0, offline.output
    assert summary(online.output).line == summary(offline.output).line
    # The relation's rings, assembled from its member ways, are the extract's country.
    assert _play_area(tmp_path / "online").equals(_play_area(tmp_path / "offline"))
    assert (tmp_path / "online" / "stations.csv").read_bytes() == (
        tmp_path / "offline" / "stations.csv"
    ).read_bytes()
    # The KML is named after the relation, the GeoJSON and CSV are the same.
    assert (tmp_path / "online" / "stations.geojson").read_bytes() == (
        tmp_path / "offline" / "stations.geojson"
    ).read_bytes()
    assert "<name>relation-1155955</name>" in (tmp_path / "online" / "stations.kml").read_text()

    again = _run("generate", "--osm-relation", LIECHTENSTEIN_RELATION, "-o", "again", env=env)
    assert again.exit_code == 0
    assert len(running.overpass_queries) == 2  # both answers came from the cache


def test_unknown_relation_fails_cleanly(services):
    _, env = services
    result = _run("generate", "--osm-relation", 1, "-o", "out", env=env)
    assert result.exit_code == 3  # NoDataError
    # Overpass answers an unknown id with no elements: say so, not "no closed outer ring".
    assert result.output == (
        "error: Overpass returned no relation 1: it does not exist (or was deleted); "
        "check the id at https://www.openstreetmap.org/relation/1\n"
    )


def test_place_matches_the_play_area_file(services, tmp_path):
    import osmnx

    running, env = services
    before = (osmnx.settings.nominatim_url, osmnx.settings.cache_folder)
    online = _run("generate", "--place", PLACE_QUERY, "-o", "online", env=env)
    assert online.exit_code == 0, online.output
    # The request osmnx.geocode_to_gdf made, as Nominatim's search API takes it.
    (params,) = running.nominatim_queries
    assert params == {
        "format": ["json"],
        "polygon_geojson": ["1"],
        "dedupe": ["0"],
        "limit": ["50"],
        "q": [PLACE_QUERY],
    }
    (query,) = running.overpass_queries
    assert 'poly:"43.' in query

    offline = _run(
        "generate",
        REPO / "zones" / "sioux-falls.geojson",
        "--osm",
        SIOUX / "pois.json",
        "--water",
        SIOUX / "water.json",
        "-o",
        "offline",
    )
    assert offline.exit_code == 0
    for name in ("stations.geojson", "stations.csv"):
        assert (tmp_path / "online" / name).read_bytes() == (
            tmp_path / "offline" / name
        ).read_bytes()
    # The same map as the README's quick start, which is this offline run.
    assert summary(online.output).line == summary(offline.output).line == readme_summary().line

    # The answer is cached in the user cache folder, not ./cache; osmnx's settings are untouched.
    assert not (tmp_path / "cache").exists()
    assert list((tmp_path / "xdg" / "stations-generator" / "nominatim").glob("*.json"))
    assert (osmnx.settings.nominatim_url, osmnx.settings.cache_folder) == before

    again = _run("generate", "--place", PLACE_QUERY, "-o", "again", env=env)
    assert again.exit_code == 0
    assert len(running.nominatim_queries) == 1 and len(running.overpass_queries) == 1


def test_unknown_place_fails_cleanly(services):
    running, env = services
    result = _run("generate", "--place", "Nowhere In Particular", "-o", "out", env=env)
    assert result.exit_code == 2
    assert (
        "error: could not find a polygon for place 'Nowhere In Particular' "
        "(Nominatim geocoder returned 0 results" in result.output
    )
    assert running.overpass_queries == []
