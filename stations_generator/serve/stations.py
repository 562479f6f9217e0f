"""The station-map service: play area + OSM source + settings -> the map and its files.

The same steps as ``generate`` (:mod:`stations_generator.app.generate`), with the play area
given as parsed GeoJSON instead of a file, and with what does not depend on the
settings cached by content: the OSM data read for an area and a source, and the
candidates made from it. A settings change re-runs only the selection.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import logging
import re
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from stations_generator.app import generate as gen
from stations_generator.app.reporting import routed, status_sink
from stations_generator.core.gamesize import HIDING_RADIUS_M
from stations_generator.core.geo.geodesy import geodesic_area_km2
from stations_generator.core.stationmap.build import StationMap
from stations_generator.errors import InputError
from stations_generator.formats import geojson
from stations_generator.formats.playarea import load_polygons, parse_polygons
from stations_generator.osm import overpass, sources
from stations_generator.osm.nominatim import NominatimClient
from stations_generator.serve.cache import Cache, FileDigests, digest
from stations_generator.serve.options import convert_settings

#: The files a station map can be downloaded as (the names ``generate`` writes).
DOWNLOADS = {
    gen.STATIONS_GEOJSON: "application/geo+json",
    gen.STATIONS_CSV: "text/csv; charset=utf-8",
    gen.STATIONS_KML: "application/vnd.google-earth.kml+xml",
    gen.CANDIDATES_GEOJSON: "application/geo+json",
    gen.STATIONS_HTML: "text/html; charset=utf-8",
}

#: The name the KML carries for a drawn play area (``generate`` uses the file's stem:
#: a play area saved as ``play-area.geojson`` gives the same KML).
DRAWN_NAME = "play-area"

#: The requests' notes, status lines and warnings (each request's go to its page).
log = logging.getLogger(__name__)


@dataclass
class ServerConfig:
    """What the server was started with.

    Attributes
    ----------
    osm_files, water_files : the OSM extracts / Overpass JSON files the page may use,
        named on the page by their file name
    other_files : play areas and station maps a posted game file may name
    gtfs_files : the GTFS feeds the page may show timetable reach on (``--gtfs``)
    online : whether play areas without an OSM file may be fetched from Overpass
    max_online_km2 : the largest play area fetched online (one Overpass query)
    overpass_urls, overpass_timeout, cache_dir, use_cache : as ``generate``'s options
    """

    osm_files: tuple[Path, ...] = ()
    water_files: tuple[Path, ...] = ()
    other_files: tuple[Path, ...] = ()
    gtfs_files: tuple[Path, ...] = ()
    online: bool = True
    # One batched Overpass query for an L game's area; beyond that the public
    # instances time out (and their usage policy asks for extracts).
    max_online_km2: float = 20_000.0
    overpass_urls: tuple[str, ...] = ()
    overpass_timeout: float = overpass.DEFAULT_TIMEOUT_S
    cache_dir: Path | None = None
    use_cache: bool = True
    digests: FileDigests = field(default_factory=FileDigests, repr=False)

    def named(self, names: Any, pool: Sequence[Path], what: str, flag: str) -> tuple[Path, ...]:
        """The registered files of ``pool`` with these file names (unknown name -> InputError)."""
        if names is None:
            return ()
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise InputError(f"{what} must be a list of file names")
        by_name = {p.name: p for p in pool}
        out = []
        for n in names:
            if n not in by_name:
                known = ", ".join(sorted(by_name)) or "none"
                raise InputError(
                    f"{what} {n!r} is not a file this server was started with (known: {known}); "
                    f"restart it with {flag} {n}"
                )
            out.append(by_name[n])
        return tuple(out)


class Progress:
    """The latest progress line of each running request, by the id the page gave it."""

    def __init__(self, size: int = 256) -> None:
        self._lines: OrderedDict[str, str | None] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def sink(self, pid: str | None):
        """A ``(message)`` callback recording under ``pid`` (a no-op without one)."""

        def record(message: str | None) -> None:
            if pid is None:
                return
            with self._lock:
                if message is not None or pid not in self._lines:
                    self._lines[pid] = message
                self._lines.move_to_end(pid)
                while len(self._lines) > self.size:
                    self._lines.popitem(last=False)

        return record

    def get(self, pid: str) -> str | None:
        with self._lock:
            return self._lines.get(pid)


_PROGRESS_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MAP_KEY = re.compile(r"[0-9a-f]{64}")  # a SHA-256 (cache.digest)
#: Station maps cached (each a few MB at most), and so files in the temporary folder.
MAPS_CACHED = 32
#: The longest file name most file systems store, in bytes (ext4, APFS, NTFS: 255).
MAX_NAME_BYTES = 255


class _NotKept(Exception):
    """No copy of a station map is kept (so nothing is cached for it)."""


class _Messages:
    """One request's messages: its warnings, kept for the page, and its notes and status
    lines, the page's progress line (the package logs them; :meth:`route` collects them)."""

    def __init__(self, progress: Callable[[str | None], None] | None = None) -> None:
        self.warnings: list[str] = []
        self._progress = progress or (lambda _m: None)

    def _status(self, message: str | None) -> None:
        if message is not None:  # the page keeps the last line
            self._progress(message)

    def route(self, warnings: list[str] | None = None) -> contextlib.AbstractContextManager:
        """The package's records logged in this block, to this request (its warnings
        into ``warnings`` when given, else into :attr:`warnings`)."""
        kept = self.warnings if warnings is None else warnings
        return routed(warn=kept.append, info=self._progress, status=self._status)


class _Texts:
    """An :class:`OutputSet` stand-in that keeps the texts ``generate`` would write."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def write_text(self, name: str, text: str) -> None:
        self.texts[name] = text


@dataclass
class Built:
    """A built station map with what the page shows and downloads."""

    key: str
    request: gen.GenerateRequest
    result: StationMap
    name: str
    warnings: list[str]
    _files: dict[str, str] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def file(self, name: str) -> str:
        """One of ``generate``'s files for this map, byte-identical to the CLI's."""
        if name not in DOWNLOADS:
            raise InputError(f"no download {name!r}; choose one of: " + ", ".join(DOWNLOADS))
        with self._lock:
            if name not in self._files:
                texts = gen.output_texts(
                    self.result,
                    self.request.map_name or self.name,
                    explain=self.request.explain or name == gen.CANDIDATES_GEOJSON,
                    html_map=name == gen.STATIONS_HTML,
                )
                self._files[name] = texts[name]
            return self._files[name]

    def summary(self) -> dict[str, Any]:
        """The CLI summary lines, the counts, and the layers of the station map page."""
        r = self.result
        cands = r.candidates
        rejected = cands[cands["status"] == "rejected"]
        return {
            "key": self.key,
            "summary": gen.summary_lines(r),
            "warnings": self.warnings,
            "stations": len(r.stations),
            "clusters": r.cluster_count,
            "candidates": len(cands),
            "rejected": {str(k): int(v) for k, v in rejected["reason"].value_counts().items()},
            "game_size": r.game_size,
            "game_size_inferred": r.game_size_inferred,
            "net_area_km2": round(r.net_area_km2, 3),
            "hiding_radius_m": HIDING_RADIUS_M[r.game_size],
            "cluster_radius_m": r.rules.cluster_radius_m,
            "max_per_cluster": r.rules.max_per_cluster,
            # The dict stations.geojson holds (the file itself comes from output_texts).
            "station_map": geojson.stations_feature_collection(
                r.stations,
                r.play_area,
                r.exclusions,
                metadata=gen.station_map_metadata(r),
            ),
            # [lon, lat, name, reason] per rejected candidate: the page's grey dots.
            "rejected_candidates": [
                [round(float(p.x), 7), round(float(p.y), 7), str(n or ""), str(why)]
                for p, n, why in zip(
                    rejected.geometry, rejected["name"], rejected["reason"], strict=True
                )
            ],
        }


class StationMapService:
    """Builds station maps for the page and the API (thread-safe, cached by content).

    Parameters
    ----------
    config : ServerConfig
    temp_dir : Path
        The server's temporary folder: uploaded play-area files are read there, and the
        ``stations.geojson`` of a cached map a game names is written there, and deleted
        when the map leaves the cache (so the folder holds at most ``maps_cached``).
    maps_cached : int
        Station maps kept [default: :data:`MAPS_CACHED`].
    """

    def __init__(self, config: ServerConfig, temp_dir: Path, maps_cached: int = MAPS_CACHED):
        self.config = config
        self.temp_dir = temp_dir
        self._maps_dir = temp_dir / "maps"
        self._areas = Cache(16)
        self._data = Cache(8)
        self._maps = Cache(maps_cached, on_evict=self._forget)
        self._restored = Cache(maps_cached, on_evict=self._forget)
        self._unions = Cache(8)
        self.progress = Progress()
        #: ``kept(key)`` -> a station map's ``stations.geojson`` kept elsewhere (the
        #: shared games' store), or None; set by the app.
        self.kept: Callable[[str], str | None] | None = None

    def built(self, key: str) -> Built | None:
        """The station map built with this ``key`` (still cached), or None."""
        return self._maps.peek(key)

    def stations_text(self, key: str) -> str | None:
        """The ``stations.geojson`` of the cached map ``key`` (None: not cached)."""
        built = self.built(key) if _MAP_KEY.fullmatch(key) else None
        return None if built is None else built.file(gen.STATIONS_GEOJSON)

    def stations_file(self, key: str) -> Path | None:
        """The ``stations.geojson`` of the map ``key`` as a file (None: not on the server).

        The map cached in memory, or else the copy :attr:`kept` gives (a shared game's
        map, kept in the game store across restarts). The file lives in the server's
        temporary folder while the map is cached (:attr:`kept` copies: the last
        ``maps_cached`` asked for).
        """
        if not _MAP_KEY.fullmatch(key):
            return None
        built = self.built(key)
        if built is not None:
            return self._written(key, lambda: built.file(gen.STATIONS_GEOJSON))
        if self.kept is None:
            return None

        def restore() -> bool:
            text = self.kept(key)  # type: ignore[misc] - checked above
            if text is None:
                raise _NotKept(key)  # not cached: asked again next time
            self._written(key, lambda: text)
            return True

        try:
            self._restored.get(key, restore)
        except _NotKept:
            return None
        path = self._maps_dir / f"{key}.geojson"
        if path.exists():
            return path
        text = self.kept(key)  # the file went with the other cache's copy: again
        return None if text is None else self._written(key, lambda: text)

    def _written(self, key: str, text: Callable[[], str]) -> Path:
        """The map file of ``key``, written from ``text()`` when missing."""
        path = self._maps_dir / f"{key}.geojson"
        if not path.exists():
            self._maps_dir.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{threading.get_ident()}.tmp")
            tmp.write_text(text(), "utf-8")
            tmp.replace(path)  # never a half-written file under the map's name
        return path

    def _forget(self, key: str) -> None:
        """The map ``key`` left a cache: delete its file unless the other one holds it."""
        if self._maps.peek(key) is not None or self._restored.peek(key) is not None:
            return
        path = self._maps_dir / f"{key}.geojson"
        path.unlink(missing_ok=True)
        self.config.digests.forget(path)

    # -- inputs ------------------------------------------------------------------

    def _client(self) -> overpass.OverpassClient:
        c = self.config
        return overpass.client(
            c.overpass_urls,
            timeout=c.overpass_timeout,
            cache_dir=c.cache_dir,
            use_cache=c.use_cache,
            notify=log.info,
            status=status_sink(log),
        )

    def _area_file(self, spec: Any) -> tuple[BaseGeometry, str]:
        """A play-area file as the page read it (``{name, base64}``), read by the CLI's own
        reader for its format (GeoJSON, KML/KMZ, GPX, shapefile, GeoPackage…)."""
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise InputError("play_area_file must be {name: the file's name, base64: its bytes}")
        name = Path(spec["name"].replace("\\", "/")).name
        if not name or name in (".", ".."):
            raise InputError("play_area_file needs the file's name, e.g. area.kml")
        if any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise InputError(
                "play_area_file.name holds a control character; give the file's plain name"
            )
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise InputError(
                f"play_area_file.name is longer than {MAX_NAME_BYTES} bytes; rename the file"
            )
        try:
            raw = base64.b64decode(str(spec.get("base64", "")), validate=True)
        except (ValueError, binascii.Error):
            raise InputError(f"{name!r}: play_area_file.base64 is not base64") from None
        key = digest("area-file", name, hashlib.sha256(raw).hexdigest())

        def read() -> tuple[BaseGeometry, list[str]]:
            warned: list[str] = []
            with tempfile.TemporaryDirectory(prefix="area-", dir=self.temp_dir) as tmp:
                path = Path(tmp) / name
                path.write_bytes(raw)
                area = load_polygons(path, warned.append)
            return area, warned

        area, warned = self._areas.get(key, read)
        for w in warned:
            log.warning(w)
        return area, name.split(".")[0]

    def _area(self, body: dict) -> tuple[BaseGeometry, str]:
        keys = ("play_area", "play_area_file", "osm_relation", "place")
        given = [k for k in keys if body.get(k) is not None]
        if len(given) != 1:
            raise InputError(
                "give exactly one of play_area (GeoJSON), play_area_file (a file), "
                "osm_relation (an id) or place (a name)"
            )
        if body.get("play_area_file") is not None:
            return self._area_file(body["play_area_file"])
        name = body.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise InputError("name must be a non-empty text (the play area's file name)")
        if body.get("play_area") is not None:
            label = repr(name) if name else "the drawn play area"
            area = parse_polygons(body["play_area"], label, log.warning)
            stem = name.split(".")[0] if name else DRAWN_NAME
            return area, stem
        if not self.config.online:
            raise InputError("this server works offline (--offline); draw or load the play area")
        if body.get("osm_relation") is not None:
            rel = body["osm_relation"]
            if not isinstance(rel, int) or isinstance(rel, bool) or rel <= 0:
                raise InputError(
                    "osm_relation must be a positive whole number (an OSM relation id)"
                )
            area = self._areas.get(
                digest("relation", rel),
                lambda: sources.fetch_relation_area(self._client(), rel),
            )
            return area, f"relation-{rel}"
        place = body["place"]
        if not isinstance(place, str) or not place.strip():
            raise InputError('place must be a name, e.g. "Sioux Falls, South Dakota"')
        client = NominatimClient(
            timeout=self.config.overpass_timeout,
            use_cache=self.config.use_cache,
            notify=log.info,
            status=status_sink(log),
        )
        area = self._areas.get(digest("place", place), lambda: sources.geocode_place(place, client))
        return area, place

    def request_for(
        self, body: Any
    ) -> tuple[gen.GenerateRequest, BaseGeometry, str, list, _Messages]:
        """The ``GenerateRequest`` the body stands for, its play area, name and exclusions,
        and the request's messages."""
        if not isinstance(body, dict):
            raise InputError("the request body must be a JSON object")
        pid = body.get("progress_id")
        if pid is not None and (not isinstance(pid, str) or not _PROGRESS_ID.fullmatch(pid)):
            raise InputError("progress_id must be 1 to 64 letters, digits, - or _")
        messages = _Messages(self.progress.sink(pid))
        values = convert_settings(body.get("settings"))
        c = self.config
        osm_files = c.named(body.get("osm"), c.osm_files, "osm file", "--osm")
        water_files = c.named(body.get("water"), c.water_files, "water file", "--water")
        with messages.route():
            area, name = self._area(body)
            exclusions_raw = body.get("exclusions")
            exclusions = []
            if exclusions_raw is not None:
                exclusions = [
                    parse_polygons(exclusions_raw, "the exclusions", log.warning, min_area_km2=0)
                ]
        if values["search_rounds"] is not None and values["strict_priority"]:
            # The CLI's usage check, in its words.
            raise InputError(
                "--search re-packs the map and --strict-priority forbids that; drop one of them"
            )
        request = gen.GenerateRequest(
            osm_files=osm_files,
            water_files=water_files,
            **values,
            overpass_urls=c.overpass_urls,
            overpass_timeout=c.overpass_timeout,
            cache_dir=c.cache_dir,
            use_cache=c.use_cache,
        )
        return request, area, name, exclusions, messages

    # -- the build -----------------------------------------------------------------

    def _osm_data(
        self, request: gen.GenerateRequest, area: BaseGeometry, catalogue, area_key, messages
    ):
        """Step 2 of ``generate`` (:func:`generate.load_data`), cached by area and file contents."""
        c = self.config
        files_key = [(p.name, c.digests(p)) for p in request.osm_files] + [
            ("water", p.name, c.digests(p)) for p in request.water_files
        ]
        key = digest("data", area_key, files_key, catalogue.station_names, request.water_subtract)

        def read() -> tuple[sources.OsmData, list[str]]:
            if not request.osm_files:
                if not c.online:
                    raise InputError(
                        "no OSM file chosen and this server works offline; pick an --osm file"
                    )
                km2 = geodesic_area_km2(area)
                if km2 > c.max_online_km2:
                    raise InputError(
                        f"the play area covers {km2:,.0f} km², more than the "
                        f"{c.max_online_km2:,.0f} km² fetched online; use an OSM extract "
                        "(serve --osm FILE) or a smaller area"
                    )
            warned: list[str] = []
            with messages.route(warned):  # the same progress line, the warnings kept apart
                data = gen.load_data(request, area, catalogue)
            return data, warned

        data, warned = self._data.get(key, read)
        for w in warned:  # the coverage warnings of the (cached) read, on every map
            log.warning(w)
        return key, data

    def _water(self, data_key: str, data: sources.OsmData) -> tuple[BaseGeometry, ...]:
        """The data's water as one union, made once per data (``build_station_map`` unions
        the water it is given on every run; the union of one geometry is that geometry)."""
        if not data.water:
            return ()
        return self._unions.get(data_key, lambda: (shapely.union_all(data.water),))

    def build(self, body: Any) -> Built:
        """A station map for the body (see the API docs); cached by content.

        The steps and checks of ``generate`` in its order: the playing window, the
        options, the catalogue, the area, the OSM data, the selection.
        """
        request, area, name, exclusions, messages = self.request_for(body)
        with messages.route():
            return self._build(request, area, name, exclusions, messages)

    def _build(
        self,
        request: gen.GenerateRequest,
        area: BaseGeometry,
        name: str,
        exclusions: list,
        messages: _Messages,
    ) -> Built:
        gen.play_window(request)
        options = gen.station_map_options(request)
        catalogue = gen.select_catalogue(request)
        data_key, data = self._osm_data(
            request, area, catalogue, digest(shapely.to_wkb(area, hex=True)), messages
        )
        excl_key = [shapely.to_wkb(e, hex=True) for e in exclusions]
        key = digest("map", data_key, excl_key, repr(options), name, repr(request))

        def run() -> Built:
            # generate's own step 3, on the cached data (its water unioned once).
            water = self._water(data_key, data) if request.water_subtract else []
            cached = sources.OsmData(data.elements, list(water), data.sources)
            result = gen.build(request, area, exclusions, cached, catalogue)
            return Built(key, request, result, name, messages.warnings)

        return self._maps.get(key, run)
