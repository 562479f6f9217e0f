"""Benchmark: shared games on a real ``serve`` process on 127.0.0.1 (issue 39).

1. Fan-out: 20 concurrent games of 3 players (a hider and two seekers, each on its own
   WebSocket). In every game the hider answers N times over its WebSocket; the time from
   sending an answer to its arrival on each seeker's socket is one sample. p50 / p95 / max
   over all games and seekers. The seekers get the answer without the hider's position
   (checked on every frame).
2. Memory: the server's resident set (VmRSS) before any game, after 100 games were
   created and joined once (idle: no connection left open), and after 100 games with
   their 300 players connected and idle.

The games are the bundled Helsinki example; the store is the default SQLite file in a
temporary folder (``--database``).

    python bench/bench_shared_games.py [--answers 20] [--games 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAME = json.loads((ROOT / "examples" / "helsinki-game" / "game.json").read_text("utf-8"))
# The game file's relative paths mean nothing to the server: the game travels as data.
GAME.pop("osm", None)
HIDER_AT = {"lat": 60.16912, "lon": 24.93847}


def start_server(database: Path) -> tuple[subprocess.Popen, str]:
    """A real ``serve`` on a free port; its process and base URL."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "stations_generator", "serve", "--port", "0", "--offline",
         "--database", str(database)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    line = process.stdout.readline()
    if "http://127.0.0.1:" not in line:
        raise SystemExit(f"serve did not start: {line}{process.stderr.read()}")
    return process, line.split(" on ", 1)[1].split(" ", 1)[0]


def rss_mib(pid: int) -> float:
    """The process's resident set in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def create_games(url: str, count: int) -> list[dict]:
    import httpx2 as httpx

    with httpx.Client(base_url=url, timeout=60) as client:
        games = []
        while len(games) < count:
            made = client.post("api/shared/games", json={"game": GAME})
            if made.status_code == 429:  # games created at a limited rate: wait as told
                time.sleep(float(made.headers.get("retry-after", "1")))
                continue
            made.raise_for_status()
            games.append(made.json())
        for game in games:
            for token in ("seeker_token", "hider_token"):
                client.post(
                    "api/shared/join", json={"code": game["code"], "token": game[token]}
                ).raise_for_status()
        return games


async def _hello(ws, game: dict, token: str) -> None:
    await ws.send(
        json.dumps({"type": "hello", "code": game["code"], "token": game[token], "since": 0})
    )
    welcome = json.loads(await asyncio.wait_for(ws.recv(), 30))
    assert welcome["type"] == "welcome", welcome


async def _play(ws_url: str, game: dict, answers: int, delays: list[float]) -> None:
    """One game: the hider answers ``answers`` times; each seeker times each arrival."""
    from websockets.asyncio.client import connect

    async with (
        connect(ws_url) as hider,
        connect(ws_url) as seeker_a,
        connect(ws_url) as seeker_b,
    ):
        await _hello(hider, game, "hider_token")
        for seeker in (seeker_a, seeker_b):
            await _hello(seeker, game, "seeker_token")
        for n in range(answers):
            event = {"event": "question-answered", "id": f"q{n}", "answer": "within",
                     "hider": HIDER_AT, "at": "2026-07-10T10:00:00+02:00"}  # fmt: skip
            sent = time.perf_counter()
            await hider.send(json.dumps({"type": "event", "id": f"h-{n}", "event": event}))
            for seeker in (seeker_a, seeker_b):
                while True:
                    frame = await asyncio.wait_for(seeker.recv(), 30)
                    message = json.loads(frame)
                    if message.get("type") == "event":
                        break
                delays.append(time.perf_counter() - sent)
                if "60.16912" in frame or "hider" in message["event"]:
                    raise AssertionError("a seeker received the hider's position")
            while json.loads(await asyncio.wait_for(hider.recv(), 30)).get("type") != "event":
                pass  # the hider's own copy (and its ack)
            await asyncio.sleep(0.05)  # a player's pace, not a flood


async def fan_out(url: str, games: list[dict], answers: int) -> list[float]:
    ws_url = url.replace("http://", "ws://") + "api/shared/ws"
    delays: list[float] = []
    await asyncio.gather(*(_play(ws_url, g, answers, delays) for g in games))
    return delays


async def idle_players(url: str, games: list[dict], seconds: float, pid: int) -> float:
    """The server's RSS with every game's three players connected and idle."""
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://") + "api/shared/ws"
    sockets = []
    try:
        for game in games:
            for token in ("hider_token", "seeker_token", "seeker_token"):
                ws = await connect(ws_url)
                await _hello(ws, game, token)
                sockets.append(ws)
        await asyncio.sleep(seconds)
        return rss_mib(pid)
    finally:
        for ws in sockets:
            await ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--answers", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        process, url = start_server(Path(tmp) / "games.sqlite3")
        try:
            time.sleep(1.0)
            base = rss_mib(process.pid)
            games = create_games(url, args.games)
            delays = asyncio.run(fan_out(url, games, args.answers))
            ms = sorted(d * 1000 for d in delays)
            p95 = ms[int(0.95 * (len(ms) - 1))]
            print(f"fan-out, {args.games} games x 3 players, {len(ms)} arrivals: "
                  f"p50 {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms")  # fmt: skip
            idle = create_games(url, 100)
            after_idle = rss_mib(process.pid)
            connected = asyncio.run(idle_players(url, idle, 2.0, process.pid))
            print(f"server RSS: {base:.0f} MiB at start, {after_idle:.0f} MiB with 100 more idle "
                  f"games, {connected:.0f} MiB with their 300 players connected")  # fmt: skip
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(60)


if __name__ == "__main__":
    main()
