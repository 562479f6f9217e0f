"""A bounded load test: 20 concurrent station-map requests against the real server on 127.0.0.1.

Two settings, ten requests each, all at once on a cold server (the first requests of a
setting wait for one build, the rest share it); every answer must be the CLI's file.
Latencies are measured by bench/bench_serve.py, not here.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import pytest
from support.serve_support import SIOUX_AREA, config, generate, running_server, sioux_body

from stations_generator.serve.app import create_app

pytestmark = pytest.mark.slow


def test_twenty_concurrent_station_maps_are_all_right(tmp_path):
    variants = [({}, []), ({"cluster_radius": 600}, ["--cluster-radius", "600"])]
    expected = []
    for k, (_settings, flags) in enumerate(variants):
        generate(tmp_path / str(k), SIOUX_AREA, *flags)
        expected.append((tmp_path / str(k) / "stations.kml").read_bytes())

    with running_server(create_app(config())) as url:

        def one(k: int) -> tuple[int, bytes]:
            with httpx.Client(base_url=url, timeout=120) as client:
                body = sioux_body(**variants[k % 2][0])
                r = client.post("api/stationmap/file/stations.kml", json=body)
                return r.status_code, r.content

        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(one, range(20)))
        health = httpx.get(url + "api/health").json()
    assert [status for status, _ in answers] == [200] * 20
    assert all(content == expected[k % 2] for k, (_s, content) in enumerate(answers))
    assert health["ok"] is True
