"""The transit-line note: given under ``jltg-eu`` when the lines carry no timetable.

The stations are real: the bundled NYC subway feed's (tests/data/gtfs), as a game on a
feed takes them.
"""

from __future__ import annotations

import numpy as np
import shapely
from support.paths import DATA

from stations_generator.core.geo.shapes import geodesic_circles
from stations_generator.core.questions.game import Game
from stations_generator.core.questions.geometry import MatchingStationQuestion, Station
from stations_generator.core.questions.rules import RULE_SETS
from stations_generator.core.questions.transit_lines import FREQUENCY_NOTE, line_notes
from stations_generator.formats.gtfs.reader import read_feed


def feed_stations() -> list[Station]:
    feed = read_feed(DATA / "gtfs" / "nyc_subway_gtfs.zip")
    rows = np.unique(feed.station_of()).tolist()[:6]
    return [
        Station(
            f"gtfs:{feed.stop_ids[r]}",
            feed.stop_names[r],
            float(feed.stop_lon[r]),
            float(feed.stop_lat[r]),
            frozenset({"gtfs-line:a~b"}),
        )  # fmt: skip
        for r in rows
    ]


def test_the_note_is_dropped_when_the_lines_come_from_a_timetable():
    labels = ["Matching transit line"]
    assert line_notes("jltg-eu", labels) == (FREQUENCY_NOTE,)
    assert line_notes("jltg-eu", labels, timetable=True) == ()
    assert line_notes("jltg-eu", labels, timetable=False) == (FREQUENCY_NOTE,)
    assert line_notes("official", labels) == line_notes("official", labels, True) == ()
    assert line_notes("jltg-eu", ["Matching station letter"]) == ()


def test_a_game_s_notes_follow_its_stations_source():
    stations = feed_stations()
    lons, lats = np.array([s.lon for s in stations]), np.array([s.lat for s in stations])
    area = shapely.union_all(geodesic_circles(lons, lats, 1000.0))
    question = MatchingStationQuestion(stations[0], "line", True)
    assert question.label() == "Matching transit line"
    osm = Game(area, RULE_SETS["jltg-eu"], "S", stations, [question])
    feed = Game(area, RULE_SETS["jltg-eu"], "S", stations, [question], timetable_lines=True)
    assert FREQUENCY_NOTE in osm.notes()
    assert FREQUENCY_NOTE not in feed.notes()
    assert osm.notes() == [*feed.notes(), FREQUENCY_NOTE]
