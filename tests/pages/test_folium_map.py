"""The Folium station map: structure, determinism, offline assets, the reader, ``map``."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from support.cli_runs import one_command
from support.paths import REPO, SIOUX

from stations_generator import InputError, build_station_map
from stations_generator.app.maps import (
    read_candidates_file,
    read_station_file,
    read_station_metadata,
    write_map_html,
)
from stations_generator.commands.maps import map_command
from stations_generator.formats.geojson import (
    candidates_feature_collection,
    dumps_geojson,
    stations_feature_collection,
)
from stations_generator.pages.folium_map import (
    CLUSTER_COLOURS,
    LEGEND_ID,
    PIN_CLASS,
    cluster_colours,
    station_map,
)
from stations_generator.pages.offline import TILES_URL, render_station_map

VENDOR = REPO / "stations_generator" / "data" / "vendor"


@pytest.fixture(scope="module")
def sioux_map(sioux_area, sioux_candidates, sioux_data):
    return build_station_map(sioux_area, sioux_candidates, water=sioux_data.water)


@pytest.fixture(scope="module")
def page(sioux_map):
    m = station_map(
        sioux_map.stations,
        sioux_map.play_area,
        candidates=sioux_map.candidates,
    )
    return render_station_map(m)


@pytest.fixture(scope="module")
def files(sioux_map, tmp_path_factory):
    """stations.geojson and candidates.geojson as ``generate`` writes them."""
    out = tmp_path_factory.mktemp("sioux")
    meta = {"game_size": sioux_map.game_size, "min_spacing_m": 300.0, "cluster_gap_m": 1000.0}
    stations = out / "stations.geojson"
    stations.write_text(
        dumps_geojson(
            stations_feature_collection(
                sioux_map.stations, sioux_map.play_area, sioux_map.exclusions, metadata=meta
            )
        )
    )
    candidates = out / "candidates.geojson"
    candidates.write_text(
        dumps_geojson(candidates_feature_collection(sioux_map.candidates, metadata=meta))
    )
    return stations, candidates


def payload(page: str) -> dict:
    """The station data the page's script turns into Leaflet layers."""
    match = re.search(r"var data = (\{.*?\});\n", page)
    assert match, "the page has no station payload"
    return json.loads(match.group(1))


# --------------------------------------------------------------------------- structure


def test_every_station_is_in_the_payload_once(page, sioux_map):
    data = payload(page)
    stations = sioux_map.stations
    assert len(data["stations"]) == len(stations) > 0
    got = sorted((s["lon"], s["lat"]) for s in data["stations"])
    want = sorted((round(p.x, 7), round(p.y, 7)) for p in stations.geometry)  # the GeoJSON rounding
    assert got == want


def test_popup_lines_give_category_wait_range_and_tier(page, sioux_map):
    data = payload(page)
    by_name = {s["name"]: s for s in data["stations"]}
    moderate = sioux_map.stations[sioux_map.stations["density_tier"] == "moderate"]
    assert len(moderate) > 0
    for row in moderate.itertuples():
        if not row.name or list(sioux_map.stations["name"]).count(row.name) > 1:
            continue
        lines = by_name[row.name]["lines"]
        assert f"Wait {row.wait_min}–{row.wait_max} min (moderate)" in lines
        assert by_name[row.name]["osm"] == f"{row.osm_type}/{row.osm_id}"
    assert "Wait 10–30 min (moderate)" in page
    tiers = {line for s in data["stations"] for line in s["lines"] if line.startswith("Wait ")}
    assert tiers <= {
        "Wait 5–15 min (dense)",
        "Wait 10–30 min (moderate)",
        "Wait 20–60 min (sparse)",
    }


def test_legend_lists_each_station_category_with_its_count(page, sioux_map):
    legend = re.search(rf'<div id="{LEGEND_ID}" class="{LEGEND_ID}">(.*?)</div>', page, re.S)
    assert legend
    items = re.findall(
        r'<li data-category="([a-z_]+)">.*?<span class="sg-count">(\d+)</span>', legend.group(1)
    )
    counts = sioux_map.stations["category"].value_counts().to_dict()
    assert {c: int(n) for c, n in items} == counts
    assert f"{len(sioux_map.stations)} stations · {sioux_map.cluster_count} clusters" in page
    assert "rejected: gap" in legend.group(1)


def test_layers_are_toggleable_and_named(page, sioux_map):
    rejected = int((sioux_map.candidates["status"] == "rejected").sum())
    for name in (
        "Play area",
        "Hiding zones (402 m)",
        "Spacing rings (300 m, within a cluster)",
        "Gap rings (1000 m, between clusters)",
        f"Rejected candidates ({rejected})",
        f"Stations ({len(sioux_map.stations)})",
    ):
        assert f'"{name}"' in page, name
    assert "L.control.layers(" in page
    assert ".fitBounds(" in page
    attribution = re.search(r'"attribution": ("[^"\\]*(?:\\.[^"\\]*)*")', page)
    assert attribution and "OpenStreetMap</a> contributors, ODbL 1.0" in json.loads(
        attribution.group(1)
    )
    data = payload(page)
    assert len(data["rejected"]) == rejected
    reasons = {r["name"] for r in data["reasons"]}
    assert reasons == set(sioux_map.candidates.loc[lambda c: c["status"] == "rejected", "reason"])


def test_without_candidates_there_is_no_rejected_layer(sioux_map):
    page = render_station_map(station_map(sioux_map.stations, sioux_map.play_area))
    assert "Rejected candidates" not in page
    assert payload(page)["rejected"] == []


def test_neighbouring_clusters_get_different_colours(sioux_map):
    stations = sioux_map.stations
    colours = cluster_colours(stations)
    assert set(colours) == set(stations["cluster_id"])
    assert set(colours.values()) <= set(CLUSTER_COLOURS)
    centres = stations.to_crs(stations.estimate_utm_crs()).dissolve("cluster_id").centroid
    clashes = 0
    ids = list(centres.index)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            if centres[a].distance(centres[b]) < 2900 and colours[a] == colours[b]:
                clashes += 1
    assert clashes == 0


def test_exclusions_are_drawn(sioux_map, sioux_data):
    lakes = sorted(sioux_data.water, key=lambda g: -g.area)[:2]  # real OSM water polygons
    page = render_station_map(station_map(sioux_map.stations, sioux_map.play_area, lakes))
    assert '"Exclusions (2)"' in page


def test_large_maps_cluster_their_markers(sioux_map):
    clustered = render_station_map(
        station_map(sioux_map.stations, sioux_map.play_area, cluster_markers_above=50)
    )
    plain = render_station_map(station_map(sioux_map.stations, sioux_map.play_area))
    assert "L.markerClusterGroup(" in clustered and "L.MarkerClusterGroup" in clustered
    # Only what the map needs: no marker-cluster code in a map without clusters.
    assert "L.markerClusterGroup(" not in plain and "MarkerClusterGroup" not in plain
    assert "preferCanvas" in plain and '"preferCanvas": true' in plain


# --------------------------------------------------------------------------- determinism


def test_same_input_gives_byte_identical_html(sioux_map, page):
    again = render_station_map(
        station_map(sioux_map.stations, sioux_map.play_area, candidates=sioux_map.candidates)
    )
    assert again == page
    shuffled = sioux_map.stations.sample(frac=1.0, random_state=7)
    assert not shuffled.index.equals(sioux_map.stations.index)
    reordered = render_station_map(
        station_map(shuffled, sioux_map.play_area, candidates=sioux_map.candidates)
    )
    assert reordered == page


def test_no_random_folium_ids_remain(page):
    assert not re.search(r"_[0-9a-f]{32}\b", page)
    assert re.search(r"\bmap_sg1\b", page)


def test_write_is_the_rendered_page(sioux_map, page, tmp_path):
    target = tmp_path / "deep" / "stations.html"
    m = station_map(sioux_map.stations, sioux_map.play_area, candidates=sioux_map.candidates)
    write_map_html(target, m)
    assert target.read_bytes() == page.encode("utf-8")
    assert [p.name for p in target.parent.iterdir()] == ["stations.html"]  # no temp file


# --------------------------------------------------------------------------- offline


def test_app_javascript_and_css_are_inline(page):
    assert not re.search(r"<script[^>]*\bsrc=", page)
    assert not re.search(r"<link\b", page)
    for cdn in ("cdn.jsdelivr", "cdnjs", "code.jquery", "bootstrapcdn", "unpkg"):
        assert cdn not in page
    assert "sourceMappingURL" not in page
    leaflet = (VENDOR / "leaflet" / "leaflet.js").read_text().split("//# sourceMappingURL")[0]
    assert leaflet.strip() in page
    assert "Leaflet 1.9.3" in page
    # The layer-control icon travels as a data URI instead of images/layers.png.
    assert "url(images/" not in page and "url(data:image/png;base64," in page


def test_only_tiles_come_from_the_network(page):
    leaflet = (VENDOR / "leaflet" / "leaflet.js").read_text().split("//# sourceMappingURL")[0]
    own = re.sub(r"/\*.*?\*/", "", page.replace(leaflet.strip(), ""), flags=re.S)  # CSS comments
    assert not re.search(r"""\bsrc\s*=\s*["']?(?:https?:)?//""", own)
    urls = set(re.findall(r"https?://[^\s\"'<>)\\]+", own))
    assert TILES_URL in urls
    # Everything else is a link a person may click (attribution, OSM objects), not a load.
    assert {u for u in urls if u != TILES_URL} <= {
        "https://www.openstreetmap.org/copyright",
        "https://www.openstreetmap.org/",  # + "node/123" in the popup script
    }


def test_vendored_licences_are_shipped():
    assert "BSD 2-Clause" in (VENDOR / "leaflet" / "LICENSE").read_text()
    assert "MIT" in (VENDOR / "leaflet.markercluster" / "MIT-LICENCE.txt").read_text()


def test_pages_draw_what_they_are_given_and_read_no_files():
    """pages/ imports no reader, writer or use case: app/maps.py reads the files."""
    readers = (
        "stations_generator.app",
        "stations_generator.osm",
        "stations_generator.formats.jsonio",
        "stations_generator.formats.stationfile",
        "stations_generator.formats.atomic",
    )
    for path in sorted((REPO / "stations_generator" / "pages").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            assert not [n for n in names if n.startswith(readers)], (path.name, names)


# --------------------------------------------------------------------------- reader


def test_reader_round_trips_what_generate_writes(files, sioux_map):
    stations, play_area, exclusions = read_station_file(files[0])
    assert len(stations) == len(sioux_map.stations)
    keys = list(zip(stations["cluster_id"], stations["id"], strict=True))
    assert keys == sorted(keys)  # the file's order: cluster, then id
    assert set(stations["id"]) == set(sioux_map.stations["id"])
    assert stations.crs.to_epsg() == 4326
    assert play_area.hausdorff_distance(sioux_map.play_area) < 1e-6  # 7-decimal rounding
    assert exclusions == []
    assert read_station_metadata(files[0])["game_size"] == "M"
    candidates = read_candidates_file(files[1])
    assert len(candidates) == len(sioux_map.candidates)
    assert set(candidates["status"]) == {"kept", "rejected"}


def test_map_from_the_file_equals_map_from_memory(files, sioux_map):
    stations, play_area, exclusions = read_station_file(files[0])
    from_file = render_station_map(station_map(stations, play_area, exclusions))
    from_memory = render_station_map(station_map(sioux_map.stations, sioux_map.play_area))
    assert payload(from_file)["stations"] == payload(from_memory)["stations"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.geojson", "does not exist"),
        (lambda d: d, "is a folder"),
        (lambda d: REPO / "README.md", "is not JSON"),
        (lambda d: SIOUX / "pois.json", "is not a GeoJSON FeatureCollection"),
        (lambda d: REPO / "zones" / "sioux-falls.geojson", "is not a stations file"),
    ],
)
def test_reader_errors_are_one_line(tmp_path, make, message):
    with pytest.raises(InputError) as info:
        read_station_file(make(tmp_path))
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_reader_points_a_candidates_file_to_the_option(files):
    with pytest.raises(InputError, match="--candidates"):
        read_station_file(files[1])
    with pytest.raises(InputError, match="no candidate features"):
        read_candidates_file(files[0])


# --------------------------------------------------------------------------- command


def cli() -> click.Group:
    return one_command(map_command)


def test_map_command_writes_the_page(files, page, tmp_path):
    stations, candidates = files
    out = tmp_path / "map.html"
    result = CliRunner().invoke(
        cli(), ["map", str(stations), "--candidates", str(candidates), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "Wrote" in result.stderr and result.stdout == ""
    html = out.read_text()
    assert payload(html)["stations"] == payload(page)["stations"]
    assert payload(html)["rejected"] == payload(page)["rejected"]
    assert f"{PIN_CLASS}" in html


def test_map_command_defaults_to_html_next_to_the_input(files):
    stations, _ = files
    result = CliRunner().invoke(cli(), ["map", str(stations)])
    assert result.exit_code == 0, result.output
    target = Path(stations).with_suffix(".html")
    assert target.is_file() and "Rejected candidates" not in target.read_text()


def test_map_command_reports_a_bad_file_in_one_line(tmp_path):
    result = CliRunner().invoke(cli(), ["map", str(tmp_path / "nope.geojson")])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
