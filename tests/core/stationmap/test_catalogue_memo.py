"""Memoised catalogue matching answers as the plain matcher does, on real tags."""

from __future__ import annotations

import json

from support.paths import EXTRACTS, SIOUX

from stations_generator.core.catalogue import load_catalogue
from stations_generator.osm.extracts import read_points


def test_memo_gives_the_plain_answers():
    catalogue = load_catalogue()
    tags = [e["tags"] for e in json.loads((SIOUX / "pois.json").read_text()) if "tags" in e]
    tags += [e.tags for e in read_points(EXTRACTS / "monaco-2016.osm.pbf", lambda t: True)]
    tags += [{"aeroway": "aerodrome"}, {"aeroway": "aerodrome", "iata": "SFO"}, {"amenity": 5}]
    tags += [{"diplomatic": "consulate_general", "x": "y"}, {"amenity": ["unhashable"]}]
    kept = 0
    for t in tags * 2:  # the second round answers from the memo
        want = catalogue._matching(t)
        assert catalogue.matching(t) == want
        assert catalogue.keeps(t) == bool(want)
        # The candidates' one lookup: the station category and every subject, sorted.
        station, subjects = catalogue.station_match(t)
        assert station == catalogue.station_category(t, want)
        assert list(subjects) == sorted({s for c in want for s in c.subjects})
        kept += bool(want)
    assert catalogue._memo and catalogue._station_memo and catalogue._keeps_memo
    assert 0 < kept < 2 * len(tags)
