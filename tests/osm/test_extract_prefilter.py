"""The C++ tag prefilters give the readers' results unchanged, on every bundled extract."""

from __future__ import annotations

import pytest
from support.paths import EXTRACTS

from stations_generator.core.catalogue import load_catalogue
from stations_generator.osm import extracts
from stations_generator.osm.routes import TRANSIT_ROUTES, read_routes

FILES = sorted(p for p in EXTRACTS.iterdir() if p.name.endswith(extracts.EXTRACT_SUFFIXES))
ADMIN = extracts.Prefilter(frozenset({("boundary", "administrative")}))


def _admin(tags) -> bool:
    return tags.get("boundary") == "administrative" and "name" in tags


@pytest.fixture(params=["compiled", "pyosmium"])
def reader(request, monkeypatch):
    """``read_layers`` by each of its readers: the compiled one (for the PBF files, where
    it is built: test_pbf_reader.py says where it must be) and pyosmium."""
    if request.param == "pyosmium":
        monkeypatch.setenv("STATIONS_GENERATOR_PYOSMIUM_READER", "1")
    else:
        monkeypatch.delenv("STATIONS_GENERATOR_PYOSMIUM_READER", raising=False)
    return request.param


def _wkb(rows):
    return [(key, tags, geom.wkb) for key, tags, geom in rows]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_prefiltered_reads_are_identical(path):
    catalogue = load_catalogue()
    prefilter = catalogue.prefilter()
    plain = extracts.read_points(path, catalogue.keeps)
    assert plain, path.name  # something to compare
    got = extracts.read_points(path, catalogue.keeps, prefilter=prefilter)
    assert [(e, e.tags) for e in got] == [(e, e.tags) for e in plain]
    assert _wkb(extracts.read_areas(path, _admin, prefilter=ADMIN)) == _wkb(
        extracts.read_areas(path, _admin)
    )
    water = [g.wkb for _, _, g in extracts.read_areas(path, extracts.is_water)]
    assert [g.wkb for g in extracts.read_water(path)] == water


def test_relation_centres_use_member_ways_the_filter_drops():
    """Liechtenstein's kept relations have untagged member ways: pass 3 must find them."""
    catalogue = load_catalogue()
    path = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
    got = extracts.read_points(path, catalogue.keeps, prefilter=catalogue.prefilter())
    relations = [e for e in got if e.osm_type == "relation"]
    assert relations
    assert relations == [
        e for e in extracts.read_points(path, catalogue.keeps) if e.osm_type == "relation"
    ]


def test_catalogue_prefilter_is_implied_by_keeps():
    catalogue = load_catalogue()
    prefilter = catalogue.prefilter()
    assert ("amenity", "cafe") in prefilter.pairs
    assert prefilter.keys == frozenset()  # every shipped alternative has an exact tag
    for cat in catalogue.categories.values():
        for alternative in cat.match:
            keys = {c.key for c in alternative if c.op in ("=", "exists", "~")}
            pairs = {(c.key, c.value) for c in alternative if c.op == "="}
            assert pairs & prefilter.pairs or keys & prefilter.keys, cat.name


def test_catalogue_fingerprint_follows_the_match_clauses():
    from stations_generator.core.catalogue import Catalogue

    catalogue = load_catalogue()
    same = Catalogue(catalogue.categories.values())
    fewer = Catalogue(list(catalogue.categories.values())[1:])
    assert same.fingerprint() == catalogue.fingerprint()
    assert fewer.fingerprint() != catalogue.fingerprint()


def _regex_consulate_catalogue():
    """The shipped catalogue with consulate as a regex (no exact pair): a bare key."""
    import dataclasses

    from stations_generator.core.catalogue import Catalogue, Clause

    cats = [
        dataclasses.replace(c, match=((Clause.parse("diplomatic~^consulate"),),))
        if c.name == "consulate"
        else c
        for c in load_catalogue().categories.values()
    ]
    catalogue = Catalogue(cats)
    assert catalogue.prefilter().keys == {"diplomatic"}
    return catalogue


def test_bare_key_alternatives_are_found_in_their_own_pass():
    """Helsinki's consulate, matched by a regex (no exact pair), is kept."""
    catalogue = _regex_consulate_catalogue()
    path = EXTRACTS / "helsinki-centre.osm.pbf"
    got = extracts.read_points(path, catalogue.keeps, prefilter=catalogue.prefilter())
    assert "node/4518323989" in {e.key for e in got}
    assert [(e, e.tags) for e in got] == [
        (e, e.tags) for e in extracts.read_points(path, catalogue.keeps)
    ]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_one_pass_gives_what_each_reader_gives(path, reader):
    from stations_generator.osm import layers
    from stations_generator.osm.one_pass import read_layers

    index = layers.index_catalogue(load_catalogue())
    areas = {n: (s.keep, s.prefilter) for n, s in layers.AREA_LAYERS.items()}
    lines = {n: (s.keep, s.prefilter) for n, s in layers.LINE_LAYERS.items()}
    got = read_layers(path, (index.keeps, index.prefilter()), areas, lines, TRANSIT_ROUTES)
    want = extracts.read_points(path, index.keeps)
    assert [(e, e.tags) for e in got["points"]] == [(e, e.tags) for e in want]
    for name, (keep, _) in areas.items():
        assert _wkb(got[name]) == _wkb(extracts.read_areas(path, keep)), name
    for name, (keep, _) in lines.items():
        assert _wkb(got[name]) == _wkb(extracts.read_lines(path, keep)), name
    assert _route_fields(got["routes"]) == _route_fields(read_routes(path))
    assert sum(map(len, got.values())) > len(got["points"]) or path.name == "kouvola-test.osm.pbf"


def _route_fields(routes):
    return [(r, r.stops, r.stop_ids) for r in routes]


def test_one_pass_routes_without_other_layers(reader):
    """Routes alone (no catalogue has ``type=route``): the relation pass still finds them."""
    from stations_generator.osm.one_pass import read_layers

    path = EXTRACTS / "helsinki-centre.osm.pbf"
    want = read_routes(path)
    assert len(want) > 100
    assert _route_fields(read_layers(path, routes=TRANSIT_ROUTES)["routes"]) == _route_fields(want)
    trams = read_layers(path, routes=("tram",))["routes"]
    assert trams and _route_fields(trams) == _route_fields(read_routes(path, ("tram",)))


def test_node_locations_on_disk_give_the_same_layers(monkeypatch):
    """Big extracts keep node locations in a file (sparse_file_array): same result
    (the pyosmium reader's index; the compiled reader keeps the needed nodes' in memory)."""
    monkeypatch.setenv("STATIONS_GENERATOR_PYOSMIUM_READER", "1")
    from stations_generator.osm import layers
    from stations_generator.osm.one_pass import location_index, read_layers

    path = EXTRACTS / "helsinki-centre.osm.pbf"
    index = layers.index_catalogue(load_catalogue())
    areas = {n: (s.keep, s.prefilter) for n, s in layers.AREA_LAYERS.items()}
    lines = {n: (s.keep, s.prefilter) for n, s in layers.LINE_LAYERS.items()}
    in_memory = read_layers(path, (index.keeps, index.prefilter()), areas, lines)
    monkeypatch.setenv("STATIONS_GENERATOR_LOCATIONS_ON_DISK_MB", "0")
    with location_index(path) as storage:
        assert storage.startswith("sparse_file_array,")
    on_disk = read_layers(path, (index.keeps, index.prefilter()), areas, lines)
    assert [(e, e.tags) for e in on_disk["points"]] == [(e, e.tags) for e in in_memory["points"]]
    for name in [*areas, *lines]:
        assert _wkb(on_disk[name]) == _wkb(in_memory[name]), name


def test_one_pass_keeps_bare_key_alternatives(reader):
    """A catalogue with a regex-only alternative: the one-pass read's key pass finds it."""
    from stations_generator.osm import layers
    from stations_generator.osm.one_pass import read_layers

    path = EXTRACTS / "helsinki-centre.osm.pbf"
    index = layers.index_catalogue(_regex_consulate_catalogue())
    areas = {n: (s.keep, s.prefilter) for n, s in layers.AREA_LAYERS.items()}
    got = read_layers(path, (index.keeps, index.prefilter()), areas)
    want = extracts.read_points(path, index.keeps)
    assert "node/4518323989" in {e.key for e in got["points"]}
    assert [(e, e.tags) for e in got["points"]] == [(e, e.tags) for e in want]


def _bridge_line(tags) -> bool:
    return "bridge" in tags and tags.get("bridge") != "no" and "highway" in tags


def _dyke_or_bridge_area(tags) -> bool:
    return tags.get("man_made") in ("dyke", "bridge") or "bridge:structure" in tags


@pytest.mark.parametrize(
    "name", ["helsinki-centre.osm.pbf", "krems.osm.gz", "liechtenstein-2013-08.osm.pbf"]
)
def test_one_pass_keeps_bare_key_lines_and_areas(name, reader):
    """Line and area layers whose prefilter has bare keys (the curses' ``bridge``,
    ``highway``): one read gives what each reader gives without any prefilter, next to
    the question layers with exact tags."""
    from stations_generator.osm import layers
    from stations_generator.osm.one_pass import read_layers

    path = EXTRACTS / name
    bridges = extracts.Prefilter(frozenset(), frozenset({"bridge"}))
    outlines = extracts.Prefilter(
        frozenset({("man_made", "dyke"), ("man_made", "bridge")}), frozenset({"bridge:structure"})
    )
    water = layers.LINE_LAYERS["waterway"]
    got = read_layers(
        path,
        areas={"outlines": (_dyke_or_bridge_area, outlines)},
        lines={"bridges": (_bridge_line, bridges), "waterway": (water.keep, water.prefilter)},
    )
    assert got["bridges"], name  # something to compare
    assert _wkb(got["bridges"]) == _wkb(extracts.read_lines(path, _bridge_line))
    assert _wkb(got["waterway"]) == _wkb(extracts.read_lines(path, water.keep))
    assert _wkb(got["outlines"]) == _wkb(extracts.read_areas(path, _dyke_or_bridge_area))
