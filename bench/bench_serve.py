"""Benchmark: ``stations-generator serve`` on real data, against a real server on 127.0.0.1.

1. Regenerate after a settings change on the Sioux Falls data (area and OSM data cached):
   the server's own time (its ``Server-Timing`` header) for a few cluster-radius changes.
2. First page load in headless Chromium (Debian's, via Playwright), empty profile: from
   navigation until the page has its configuration and is ready.
3. Load: 20 concurrent station-map requests (5 settings × 4) against 127.0.0.1, each
   answer checked against the CLI's stations.geojson; p50 / p95 / max latency.
4. A 20-question game on 5 000 stations (bench/bench_questions.py's tiled real Sioux Falls
   POIs) through the API (a fresh server, nothing cached), against ``questions apply``
   run in-process (click's runner, imports warm).

    python bench/bench_serve.py
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

SIOUX = ROOT / "examples" / "sioux-falls"
AREA = ROOT / "zones" / "sioux-falls.geojson"


def _server(app):
    from support.serve_support import running_server

    return running_server(app)


def _timing(response) -> float:
    """Seconds from the ``Server-Timing: app;dur=MS`` header."""
    return float(response.headers["server-timing"].split("dur=")[1]) / 1000


def body(**settings) -> dict:
    return {
        "play_area": json.loads(AREA.read_text("utf-8")),
        "name": AREA.name,
        "osm": ["pois.json"],
        "water": ["water.json"],
        "settings": settings,
    }


def regenerate(url: str) -> None:
    import httpx2 as httpx  # (the test extra's client: httpx's maintained successor)

    with httpx.Client(base_url=url, timeout=120) as client:
        first = client.post("api/stationmap", json=body())
        print(f"first build (reads the OSM data): {_timing(first):.2f} s server time")
        times = []
        for radius in (450, 500, 550, 600, 650, 700):
            r = client.post("api/stationmap", json=body(cluster_radius=radius))
            assert r.status_code == 200, r.text
            times.append(_timing(r))
        print(
            "regenerate after a cluster-radius change: "
            f"median {statistics.median(times):.3f} s, max {max(times):.3f} s server time "
            f"({len(times)} changes)"
        )


def page_load(url: str) -> None:
    from support.browser import CHROMIUM_FLAGS, sync_playwright_or_fail

    sync_playwright = sync_playwright_or_fail()
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(
            profile, executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_FLAGS
        )
        page = context.pages[0] if context.pages else context.new_page()
        context.route(
            "**/*",
            lambda r: r.continue_() if "127.0.0.1" in r.request.url else r.abort(),
        )
        times = []
        for _ in range(3):
            page.goto("about:blank")
            context.clear_cookies()
            start = time.perf_counter()
            page.goto(url)
            page.wait_for_function("window.sg && window.sg.ready")
            times.append(time.perf_counter() - start)
            page.evaluate("localStorage.clear()")
        context.close()
    print(
        f"first page load until ready: {times[0]:.2f} s (cold), then "
        + ", ".join(f"{t:.2f}" for t in times[1:])
        + " s"
    )


def load_test(url: str) -> None:
    import httpx2 as httpx  # (the test extra's client: httpx's maintained successor)
    from support.serve_support import generate

    variants = [{}, {"cluster_radius": 600}, {"max_per_cluster": 3}, {"min_spacing": 400}]
    variants.append({"cluster_gap": 1200})
    flags = [[], ["--cluster-radius", "600"], ["--max-per-cluster", "3"], ["--min-spacing", "400"]]
    flags.append(["--cluster-gap", "1200"])
    expected = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, f in enumerate(flags):
            generate(Path(tmp) / str(k), AREA, *f)
            expected.append((Path(tmp) / str(k) / "stations.geojson").read_bytes())
    jobs = [(k % len(variants)) for k in range(20)]

    def one(k: int) -> tuple[float, bool]:
        with httpx.Client(base_url=url, timeout=300) as client:
            start = time.perf_counter()
            r = client.post("api/stationmap/file/stations.geojson", json=body(**variants[k]))
            return time.perf_counter() - start, r.status_code == 200 and r.content == expected[k]

    start = time.perf_counter()
    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(one, jobs))
    wall = time.perf_counter() - start
    latencies = sorted(t for t, _ok in results)
    ok = sum(1 for _t, good in results if good)
    p95 = latencies[int(round(0.95 * (len(latencies) - 1)))]
    print(
        f"load: 20 concurrent station maps ({len(variants)} settings, caches cold): {ok}/20 "
        f"correct; latency p50 {statistics.median(latencies):.2f} s, p95 {p95:.2f} s, "
        f"max {latencies[-1]:.2f} s; wall {wall:.2f} s"
    )


def big_game() -> None:
    import httpx2 as httpx  # (the test extra's client: httpx's maintained successor)
    from bench_questions import write_game
    from click.testing import CliRunner
    from support.serve_support import running_server

    from stations_generator.cli import main
    from stations_generator.serve.app import create_app
    from stations_generator.serve.stations import ServerConfig

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        game = write_game(folder, 5000)
        stations = json.loads((folder / "stations.geojson").read_text())["features"]
        cli_times, api_times, api_warm = [], [], []
        runner = CliRunner()
        for k in range(3):
            start = time.perf_counter()
            result = runner.invoke(
                main, ["-q", "questions", "apply", str(game), "-o", str(folder / f"o{k}")]
            )
            cli_times.append(time.perf_counter() - start)
            assert result.exit_code == 0, result.stderr
        expected = (folder / "o0" / "zones.geojson").read_text("utf-8")
        doc = game.read_text("utf-8")
        for _k in range(3):
            config = ServerConfig(
                osm_files=(folder / "pois.json",),
                other_files=(folder / "stations.geojson",),
                online=False,
            )
            with (
                running_server(create_app(config)) as url,
                httpx.Client(base_url=url, timeout=600) as c,
            ):
                start = time.perf_counter()
                r = c.post("api/game/apply", json={"game": doc})
                api_times.append(time.perf_counter() - start)
                assert r.status_code == 200, r.text
                assert r.json()["files"]["zones.geojson"] == expected
                start = time.perf_counter()
                c.post("api/game/apply", json={"game": doc})
                api_warm.append(time.perf_counter() - start)
    cli, api = min(cli_times), min(api_times)
    print(
        f"20-question game on {len(stations)} stations: CLI in-process {cli:.2f} s, "
        f"API (fresh server) {api:.2f} s ({(api / cli - 1) * 100:+.0f} %), "
        f"API again (map part cached) {min(api_warm):.2f} s; best of 3"
    )


def main() -> None:
    from support.serve_support import config

    from stations_generator.serve.app import create_app

    with _server(create_app(config())) as url:
        regenerate(url)
        page_load(url)
    with _server(create_app(config())) as url:
        load_test(url)
    big_game()


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    main()
