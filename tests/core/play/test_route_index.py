"""Stations' routes through the stop index are the ones the full scan finds."""

from __future__ import annotations

import numpy as np
from support.paths import EXTRACTS

from stations_generator.core.catalogue import load_catalogue
from stations_generator.osm.extracts import read_points
from stations_generator.osm.routes import read_routes, routes_serving, stop_index


def test_indexed_look_up_matches_the_scan():
    path = EXTRACTS / "helsinki-centre.osm.pbf"
    routes = read_routes(path)
    index = stop_index(routes)
    places = read_points(path, load_catalogue().keeps)
    rng = np.random.default_rng(11)
    # Real places, and points 50-150 m from real stops (around the 100 m rule).
    probes = [(e.lon, e.lat, e.osm_id if e.osm_type == "node" else None) for e in places]
    for r in routes[:40]:
        x, y = r.stops[0]
        for _ in range(5):
            a = rng.uniform(0, 2 * np.pi)
            d = rng.uniform(50, 150)
            probes.append(
                (
                    x + d * np.cos(a) / (111_320 * np.cos(np.radians(y))),
                    y + d * np.sin(a) / 110_574,
                    None,
                )
            )
        probes.append((x, y, next(iter(r.stop_ids))))
    served = 0
    for lon, lat, osm_id in probes:
        want = routes_serving(lon, lat, osm_id, routes)
        assert routes_serving(lon, lat, osm_id, routes, index) == want
        served += bool(want)
    assert served > 100 and served < len(probes)  # both answers were exercised
