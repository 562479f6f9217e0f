"""Where the tests' real data lives: the repository, its test data and bundled examples."""

from __future__ import annotations

from pathlib import Path

#: The tests folder and the repository around it.
TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
#: Real OSM extracts, Overpass answers and play areas recorded for the tests.
DATA = TESTS / "data"
EXTRACTS = DATA / "osm-extracts"
HELSINKI = EXTRACTS / "helsinki-centre.osm.pbf"
LIECHTENSTEIN = EXTRACTS / "liechtenstein-2013-08.osm.pbf"
MONACO = EXTRACTS / "monaco-2016.osm.pbf"
BAYREUTH = EXTRACTS / "north-bayreuth.osm.gz"
KREMS = EXTRACTS / "krems.osm.gz"
#: The quick start's bundled real example.
SIOUX = REPO / "examples" / "sioux-falls"
