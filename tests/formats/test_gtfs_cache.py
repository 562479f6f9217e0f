"""A read feed cached in the extract cache: hit, a changed feed read again, a bad entry healed."""

from __future__ import annotations

import os
import shutil
import zipfile

import numpy as np
from support.paths import DATA

from stations_generator.formats.gtfs.cache import read_feed_cached
from stations_generator.formats.gtfs.reader import read_feed
from stations_generator.osm.extract_cache import ExtractCache

GTFS = DATA / "gtfs"


def same(a, b) -> bool:
    return a.text_fields() == b.text_fields() and all(
        np.array_equal(x, b.array_fields()[k]) and x.dtype == b.array_fields()[k].dtype
        for k, x in a.array_fields().items()
    )


def test_second_read_comes_from_the_cache_and_equals_the_feed(tmp_path):
    logs, warnings = [], []
    cache = ExtractCache(tmp_path / "cache", log=logs.append, warn=warnings.append)
    feed = GTFS / "nyc_subway_gtfs.zip"
    first = read_feed_cached(feed, cache)
    assert not logs and len(list((tmp_path / "cache").glob("*.npz"))) == 1
    second = read_feed_cached(feed, cache)
    assert logs and not warnings
    assert same(first, second) and same(second, read_feed(feed))


def test_changed_feed_is_read_again(tmp_path):
    folder = tmp_path / "feed"
    with zipfile.ZipFile(GTFS / "cairns_gtfs.zip") as archive:
        archive.extractall(folder)
    cache = ExtractCache(tmp_path / "cache")
    before = read_feed_cached(folder, cache)
    stops = folder / "stops.txt"
    stops.write_text(stops.read_text().replace("Cedar Rd", "Cedar Road"))
    os.utime(stops, ns=(1, 1))
    after = read_feed_cached(folder, cache)
    assert after.stop_names != before.stop_names and "Cedar Road" in after.stop_names[0]


def test_corrupt_entry_is_dropped_and_rebuilt(tmp_path):
    warnings = []
    cache = ExtractCache(tmp_path / "cache", warn=warnings.append)
    feed = tmp_path / "cairns.zip"
    shutil.copy(GTFS / "cairns_gtfs.zip", feed)
    good = read_feed_cached(feed, cache)
    (entry,) = (tmp_path / "cache").glob("*.npz")
    entry.write_bytes(entry.read_bytes()[:1000])
    again = read_feed_cached(feed, cache)
    assert warnings and "dropped" in warnings[0]
    assert same(good, again)
    assert same(good, read_feed_cached(feed, cache)) and len(warnings) == 1  # healed
