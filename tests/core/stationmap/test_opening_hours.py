"""Opening hours against the playing window, with the real opening_hours values of the fixture."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from support.paths import SIOUX

from stations_generator.core.stationmap.opening_hours import (
    NO,
    UNKNOWN,
    YES,
    open_during_play,
    parse_play_window,
    parse_time_of_day,
)

WEEKEND = parse_play_window("7am-7pm", "sat,sun")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Su-Th 11:00-22:00; Fr-Sa 11:00-23:00", YES),  # real value in the fixture
        ("Mo-Fr 09:00-17:00", NO),  # closed all weekend
        ("Mo-Fr 09:00-17:00; Sa 19:30-23:00", NO),  # opens only after play ends
        ("Mo-Fr 09:00-17:00; Sa 18:30-23:00", YES),  # open the last half hour
        ("24/7", YES),
        ("", UNKNOWN),
        ("call us", UNKNOWN),  # unparsable: not penalised
        ("Sa-Su unknown", UNKNOWN),
    ],
)
def test_open_during_play(value, expected):
    assert open_during_play(value, WEEKEND) == expected


def test_weekday_window_and_play_date():
    weekdays = parse_play_window("9:30am-5pm", "mon-fri")
    assert weekdays.weekdays == (0, 1, 2, 3, 4)
    assert open_during_play("Mo-Fr 09:00-17:00", weekdays) == YES
    # Seasonal rule: closed in winter; the play date decides.
    summer = parse_play_window("7am-7pm", "sat", dt.date(2026, 7, 4))
    winter = parse_play_window("7am-7pm", "sat", dt.date(2026, 1, 3))
    assert open_during_play("May-Sep Sa 10:00-18:00", summer) == YES
    assert open_during_play("May-Sep Sa 10:00-18:00", winter) == NO


def test_whole_fixture_evaluates_without_error():
    values = [
        e["tags"]["opening_hours"]
        for e in json.loads((SIOUX / "pois.json").read_text())
        if "opening_hours" in e.get("tags", {})
    ]
    assert len(values) > 100
    results = {open_during_play(v, WEEKEND) for v in values}
    assert results <= {YES, NO, UNKNOWN}
    assert YES in results and NO in results


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7am", dt.time(7)),
        ("7:30pm", dt.time(19, 30)),
        ("19:00", dt.time(19)),
        ("12am", dt.time(0)),
    ],
)
def test_parse_time(text, expected):
    assert parse_time_of_day(text) == expected


@pytest.mark.parametrize(
    ("hours", "days", "message"),
    [
        ("7am", "sat", "range like 7am-7pm"),
        ("7pm-7am", "sat", "end before they start"),
        ("7am-7pm", "caturday", "unknown day"),
        ("7am-25:00", "sat", "out of range"),
        ("7am-7pm", ",", "no playing days"),
    ],
)
def test_bad_windows(hours, days, message):
    with pytest.raises(ValueError, match=message):
        parse_play_window(hours, days)
