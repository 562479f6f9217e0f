"""The game service: a game document -> remaining area, zones, answers, checks, costs, links.

A posted game is read by the CLI's readers (:mod:`stations_generator.formats.gamefile` for our
GAME.json, :mod:`stations_generator.app.game_loader` for taibeled states, question lists
and ``?hzc=`` links). File names inside a game (``play_area``, ``osm``, ``stations``)
resolve only to files the server was started with, never to other paths. For our
format the map part (play area, OSM context, stations) is cached by content and the
questions are rebuilt on each request, so adding a question does not re-read the OSM data.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from pathlib import Path
from typing import Any

from stations_generator.app import games as steps
from stations_generator.app.game_loader import (
    LoadedGame,
    cost_questions,
    load_game_json,
    load_taibeled_game,
)
from stations_generator.app.map_context import MapSources
from stations_generator.app.reporting import routed
from stations_generator.core.questions.geometry import QuestionError
from stations_generator.core.questions.rules import cost_ledger
from stations_generator.errors import InputError
from stations_generator.formats import jsonio
from stations_generator.formats.gamefile import (
    FORMAT,
    MAX_GAME_BYTES,
    check_positions,
    parse_lat_lon,
    question_from_dict,
)
from stations_generator.serve.cache import Cache, digest
from stations_generator.serve.shared.service import GENERATED
from stations_generator.serve.stations import ServerConfig, StationMapService


@dataclasses.dataclass(frozen=True)
class _Entry:
    loaded: LoadedGame
    lock: threading.Lock


class GameService:
    """Loads posted games (cached by content) and runs the ``questions`` / ``zones`` commands."""

    def __init__(self, config: ServerConfig, station_maps: StationMapService):
        self.config = config
        self.station_maps = station_maps
        self._maps = Cache(8)
        self._whole = Cache(8)

    # -- reading -------------------------------------------------------------------

    def parse(self, game: Any, name: str = "game.json") -> Any:
        """The game data: an object as given, or text read as the game-file reader reads it."""
        if isinstance(game, dict | list):
            jsonio.check_depth(game, name)
            return game
        if not isinstance(game, str):
            raise InputError("game must be a game object or the text of a game file")
        if len(game.encode("utf-8")) > MAX_GAME_BYTES:
            raise InputError(f"{name} is larger than the {MAX_GAME_BYTES // 1024**2} MiB accepted")
        text = game.strip()
        if text.startswith("{") or text.startswith("["):
            return jsonio.loads(text, name, "a game file")
        from stations_generator.formats import taibeled

        if "hzc=" not in text and not re.fullmatch(r"[A-Za-z0-9_\-]+=*", text):
            raise InputError(
                f"{name!r} is not a game file (neither JSON nor a share link); give a "
                "GAME.json, a taibeled state, or a file holding a ?hzc= link"
            )
        return taibeled.load_any(text)

    def _file(self, value: Any, pool, what: str, flag: str) -> str:
        if not isinstance(value, str):
            return value
        if value.startswith(GENERATED):
            path = self.station_maps.stations_file(value[len(GENERATED) :])
            if path is None:
                raise InputError(
                    "the station map this game names is no longer on the server; "
                    "regenerate it on the station map page"
                )
            return str(path)
        return str(self.config.named([Path(value).name], pool, what, flag)[0])

    def _resolved(self, data: dict) -> dict:
        c = self.config
        out = dict(data)
        others = (*c.other_files, *c.osm_files)
        if isinstance(out.get("play_area"), str):
            out["play_area"] = self._file(out["play_area"], others, "play area file", "--file")
        if isinstance(out.get("stations"), str):
            out["stations"] = self._file(out["stations"], others, "stations file", "--file")
        if isinstance(out.get("dem"), str):
            out["dem"] = self._file(out["dem"], c.other_files, "elevation file", "--file")
        if isinstance(out.get("osm"), list):
            out["osm"] = [self._file(f, c.osm_files, "osm file", "--osm") for f in out["osm"]]
        return out

    def load(
        self, game: Any, name: str = "game.json", osm: Any = None, play_area: Any = None
    ) -> tuple[LoadedGame, threading.Lock]:
        """The loaded game and the lock to hold while using its (shared) OSM context.

        ``osm`` and ``play_area`` (registered file names) are ``questions --osm`` and
        ``--play-area`` for taibeled JSON (a question list has no map of its own). The
        notes and warnings of the load are not the page's: they are dropped.
        """
        with routed():
            return self._load(game, name, osm, play_area)

    def _load(
        self, game: Any, name: str, osm: Any, play_area: Any
    ) -> tuple[LoadedGame, threading.Lock]:
        if not isinstance(name, str) or not name:
            raise InputError("name must be the game file's name")
        data = self.parse(game, name)
        warn = lambda _m: None  # noqa: E731
        if isinstance(data, dict) and data.get("format") == FORMAT:
            data = self._resolved(data)
            jsonio.validate(data, _game_schema(), name)
            raw_questions = data.get("questions", [])
            check_positions(raw_questions)
            map_part = {k: v for k, v in data.items() if k != "questions"}
            files = [
                self.config.digests(Path(p))
                for p in [
                    *map_part.get("osm", []),
                    map_part.get("play_area"),
                    map_part.get("stations"),
                ]
                if isinstance(p, str)
            ]
            key = digest("game-map", map_part, files)

            def load_map() -> _Entry:
                loaded = load_game_json(
                    {**map_part, "questions": []}, Path("."), MapSources(), name, warn
                )
                return _Entry(loaded, threading.Lock())

            entry = self._maps.get(key, load_map)
            with entry.lock:
                base = entry.loaded
                g = base.game
                questions = [
                    question_from_dict(
                        q, base.context, g.stations, f"question {k}", data.get("country")
                    )
                    for k, q in enumerate(raw_questions, 1)
                ]
            game_obj = dataclasses.replace(g, questions=questions)
            return LoadedGame(game_obj, base.context, name), entry.lock
        osm_files = (
            self.config.named(osm, self.config.osm_files, "osm file", "--osm")
            if osm is not None
            else ()
        )
        area_file = None
        if play_area is not None:
            if not isinstance(play_area, str):
                raise InputError("play_area must be the name of a play-area file (serve --file)")
            others = (*self.config.other_files, *self.config.osm_files)
            area_file = Path(self._file(play_area, others, "play area file", "--file"))
        files = [(p.name, self.config.digests(p)) for p in (*osm_files, *filter(None, [area_file]))]
        key = digest("taibeled", data, files)

        def load_whole() -> _Entry:
            sources = MapSources(osm=tuple(osm_files), play_area=area_file)
            return _Entry(load_taibeled_game(data, sources, name, warn), threading.Lock())

        entry = self._whole.get(key, load_whole)
        return entry.loaded, entry.lock

    def _validated(self, body: Any) -> tuple[LoadedGame, threading.Lock, dict]:
        if not isinstance(body, dict):
            raise InputError("the request body must be a JSON object")
        if "game" not in body:
            raise InputError("give game: a game object or the text of a game file")
        name = body.get("name", "game.json")
        try:
            loaded, lock = self.load(body["game"], name, body.get("osm"), body.get("play_area"))
        except QuestionError as exc:
            raise InputError(f"{name}: {exc}") from None
        return loaded, lock, body

    # -- the commands ------------------------------------------------------------------

    def apply(self, body: Any) -> dict[str, Any]:
        """``questions apply``: the remaining area, the zones, the summary table, the costs."""
        loaded, lock, body = self._validated(body)
        g = loaded.game
        with lock:
            try:
                g.validate()
            except QuestionError as exc:
                raise InputError(f"{loaded.source}: {exc}") from None
            elimination = g.eliminate()
            zones = g.possible_zones(elimination)
            texts = steps.apply_texts(g, elimination, zones, html_map=False, title="game")
        return {
            "summary": steps.summary_table(g, elimination, zones),
            "warnings": [c.message() for c in elimination.contradictions],
            "remaining_km2": elimination.remaining_km2,
            "possible": sum(1 for z in zones if z.possible),
            "zones_total": len(zones),
            "hiding_radius_m": g.hiding_radius_m,
            "game_size": g.game_size,
            "play_area": steps.area_geometry(g.play_area),
            "files": texts,
            "ledger": [e.__dict__ for e in cost_ledger(g.questions)],
            "labels": [q.label() for q in g.questions],
        }

    def answer(self, body: Any) -> list[dict[str, Any]]:
        """``questions answer --json``: the hider's true answers."""
        if not isinstance(body, dict):
            raise InputError("the request body must be a JSON object")
        hider = body.get("hider")
        lon, lat = parse_lat_lon(hider, "hider")
        loaded, lock, body = self._validated(body)
        g = loaded.game
        station_id = body.get("station")
        if station_id is not None and not isinstance(station_id, str):
            raise InputError("station must be an id like node/123 or a name")
        with lock:
            return steps.hider_answers(g, lon, lat, station_id, label=str(hider))

    def check(self, body: Any) -> dict[str, Any]:
        """``zones check --json``: is one hiding zone valid, and which questions rule it out."""
        if not isinstance(body, dict):
            raise InputError("the request body must be a JSON object")
        station_id, at = body.get("station"), body.get("at")
        if (station_id is None) == (at is None):
            raise InputError("give exactly one of station (an id or name) or at (LAT,LON)")
        point = parse_lat_lon(at, "at") if at is not None else None
        loaded, lock, body = self._validated(body)
        g = loaded.game
        with lock:
            try:
                g.validate()
            except QuestionError as exc:
                raise InputError(f"{loaded.source}: {exc}") from None
            if station_id is not None and not isinstance(station_id, str):
                raise InputError("station must be an id like node/123 or a name")
            result = steps.check_zone(g, station=station_id, at=point, label=str(at))
        what = (
            f"{result.station.name or result.station.id} ({result.station.id})"
            if result.station
            else f"zone at {at}"
        )
        return steps.zone_payload(g, result, what)

    def cost(self, body: Any) -> list[dict[str, Any]]:
        """``questions cost --json``: the cards each question costs."""
        if not isinstance(body, dict) or "game" not in body:
            raise InputError("give game: a game object or the text of a game file")
        name = body.get("name", "game.json")
        data = self.parse(body["game"], name)
        try:
            if isinstance(data, dict) and data.get("format") == FORMAT:
                questions = self.load(data, name)[0].game.questions
            else:
                questions = cost_questions(data)
        except QuestionError as exc:
            raise InputError(f"{name}: {exc}") from None
        return [e.__dict__ for e in cost_ledger(questions)]

    def share(self, body: Any) -> dict[str, Any]:
        """A taibeled state and share link for the game (what the app can hold of it)."""
        from stations_generator.formats import taibeled

        loaded, lock, body = self._validated(body)
        g = loaded.game
        base = body.get("base_url", taibeled.APP_URL)
        if not isinstance(base, str) or not base.startswith(("http://", "https://")):
            raise InputError("base_url must be an http(s) address")
        data = self.parse(body["game"], body.get("name", "game.json"))
        categories = None
        if isinstance(data, dict) and isinstance(data.get("stations"), dict):
            categories = data["stations"].get("categories")
        with lock:
            try:
                link = steps.share_link(
                    g, base_url=base, zone_options=_zone_options(loaded, categories)
                )
            except (QuestionError, ValueError) as exc:
                raise InputError(str(exc)) from None
        return {"link": link, "state": taibeled.decode_hzc(link)}


def _zone_options(loaded: LoadedGame, categories: Any = None) -> list[str]:
    """The taibeled ``zoneOptions`` filters of the game's station categories."""
    catalogue = loaded.context.catalogue
    seen: list[str] = []
    cats = [c for c in categories or () if isinstance(c, str) and c in catalogue]
    for s in loaded.game.stations if not cats else ():
        for c in catalogue.matching(dict(s.tags)):
            if c.station and c.name not in cats:
                cats.append(c.name)
    for name in cats:
        for alternative in catalogue[name].match:
            if all(cl.op == "=" for cl in alternative):
                f = "".join(f"[{cl.key}={cl.value}]" for cl in alternative)
                if f not in seen:
                    seen.append(f)
    return seen or ["[railway=station]"]


def _game_schema():
    from stations_generator.formats import schemas

    return schemas.GAME
