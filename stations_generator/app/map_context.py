"""The map a game is played on: where it comes from, and the OSM data its questions need.

:class:`MapSources` says where a game's map comes from when its file does not say;
:class:`OsmContext` reads the OSM data around a play area (places, lines, zones, transit
routes, stations) as far as the questions need; :class:`TaibeledResolver` offers that
context to the taibeled question converter.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from stations_generator.app.request_fields import (
    check_flag,
    check_items,
    check_path,
    check_text,
)
from stations_generator.core.catalogue import Catalogue, load_catalogue
from stations_generator.core.elements import OsmElement
from stations_generator.core.geo.antimeridian import (
    centre_lon,
    to_window,
    wrap_lon,
)
from stations_generator.core.geo.features import GeodesicFeatures, PlaceIndex
from stations_generator.core.geo.shapes import AzimuthalFrame, distance_m
from stations_generator.core.questions.geometry import (
    Place,
    Station,
    Zone,
)
from stations_generator.core.questions.landmass import LandData, cuts_land
from stations_generator.core.questions.marked_paths import MarkedWay
from stations_generator.core.questions.sea_level import ElevationGrid
from stations_generator.errors import InputError
from stations_generator.formats.dem import read_dem
from stations_generator.formats.stationfile import read_station_map
from stations_generator.osm import extracts, layers, overpass, overpass_file, overpass_json
from stations_generator.osm import filters as osm_filters
from stations_generator.osm.routes import Route, StopIndex, lines_under, routes_serving, stop_index

# The first read reaches this far beyond the play area; places, lines and zones farther
# out are read too when the geometry needs them (OsmContext.places / features).
SUBJECT_MARGIN_M = 50_000.0
_RADIUS_MIN_M = 6_335_000.0  # smallest radius of curvature of WGS84 (meridian at the equator)
LINE_SUBJECTS = ("coastline", "high_speed_rail", "border", "body_of_water")
# The marked-path question's first read reaches this far beyond the area; then as far
# as the covering radius of the paths needs (OsmContext.marked_paths).
MARKED_PATH_MARGIN_M = 1_000.0
# Transit routes are read this far beyond the play area's box (OsmContext.routes). Every
# route a question uses serves one of the game's stations (the transit-line matching and
# tentacles questions' stations are among them, inside the play area): one of its stops
# is the station's own node or lies within SERVED_WITHIN_M (100 m) of it
# (osm/routes.py). So it has a stop within 100 m of the area's box, plus however far a
# station file's rounded position lies from its node (centimetres): 1 km holds both.
ROUTE_MARGIN_M = 1_000.0
#: The tags a station keeps for the valid-stop rules (core/questions/stops.py reads them).
_STOP_TAGS = frozenset(
    {
        "railway",
        "station",
        "public_transport",
        "highway",
        "amenity",
        "train",
        "subway",
        "tram",
        "light_rail",
        "monorail",
        "funicular",
        "usage",
        "railway:preserved",
    }
)

#: The Overpass client's detail lines (debug).
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MapSources:
    """Where a game's map comes from when its file does not say (``--play-area``, ``--osm``…).

    Attributes
    ----------
    osm : OSM extracts or Overpass JSON (``--osm``); they replace the game's own.
    play_area : a GeoJSON play area (``--play-area``); it replaces the game's own.
    stations : a ``stations.geojson`` from ``generate`` (``--stations``): the hiding
        stations, and the play area when nothing else gives one.
    overpass : makes the Overpass client for what the files do not hold (an OSM
        play area, places when no ``--osm`` is given); None = stay offline.
    dem : an elevation file (``--dem``) for the sea-level question; it replaces the game's.

    The notes of reading the map are info records of
    :mod:`~stations_generator.app.game_loader`'s logger.
    """

    osm: tuple[Path, ...] = ()
    play_area: Path | None = None
    stations: Path | None = None
    overpass: Callable[[], overpass.OverpassClient] | None = None
    dem: Path | None = None


def map_sources(
    osm: Sequence[Path] = (),
    play_area: Path | None = None,
    stations: Path | None = None,
    overpass_urls: Sequence[str] = (),
    cache_dir: Path | None = None,
    use_cache: bool = True,
    dem: Path | None = None,
) -> MapSources:
    """The :class:`MapSources` of a command's or an API call's options.

    Parameters
    ----------
    osm, play_area, stations : paths
        ``--osm``, ``--play-area`` and ``--stations``.
    overpass_urls : sequence of str
        Overpass endpoints (each may hold several, space-separated) [default: the
        client's own list].
    cache_dir, use_cache
        The Overpass answer cache.

    Returns
    -------
    MapSources

    Raises
    ------
    ArgumentTypeError
        For a value of the wrong type (a str for a list of files…), naming the parameter.
    """
    osm = check_items("osm", osm, check_path, "file paths")
    play_area = None if play_area is None else check_path("play_area", play_area)
    stations = None if stations is None else check_path("stations", stations)
    overpass_urls = check_items("overpass_urls", overpass_urls or (), check_text, "URLs")
    cache_dir = None if cache_dir is None else check_path("cache_dir", cache_dir)
    use_cache = check_flag("use_cache", use_cache)
    urls = tuple(u for text in overpass_urls for u in text.split())

    def client() -> overpass.OverpassClient:
        return overpass.client(urls, cache_dir=cache_dir, use_cache=use_cache, log=log.debug)

    return MapSources(osm=osm, play_area=play_area, stations=stations, overpass=client, dem=dem)


@dataclass
class OsmContext:
    """OSM data around a play area, turned into what questions need (the taibeled Resolver).

    Places, lines and zones are read around the play area: first ``margin_m`` beyond
    it, then as far as the geometry needs (:meth:`places`, :meth:`features`), so a
    place counts as long as it can be the nearest one for some point of the area or
    of a seeker's position. Every geometry is moved into the play area's longitude
    window (:mod:`.core.antimeridian`), so areas across ±180° work like any other.

    Parameters
    ----------
    play_area : shapely (Multi)Polygon, lon/lat (continuous across ±180°)
    files : OSM extracts and Overpass JSON files
    catalogue : the tag catalogue
    margin_m : how far beyond the play area the first read reaches
    station_filters : extra OSM filters read with the catalogue (taibeled ``zoneOptions``)
    fetch : optional ``fetch(polygon) -> list[OsmElement]``: places and stations from
        Overpass instead of files (online taibeled states)
    """

    play_area: BaseGeometry
    files: Sequence[Path] = ()
    catalogue: Catalogue = field(default_factory=load_catalogue)
    margin_m: float = SUBJECT_MARGIN_M
    station_filters: tuple = ()
    fetch: Callable[[BaseGeometry], list[OsmElement]] | None = None
    line_rules: str = "official"
    """The rule set's name: which routes are transit lines (:func:`~stations_generator.osm.routes.lines_under`)."""
    dem: Path | None = None
    """The elevation file for the sea-level question (``--dem`` or the game's ``"dem"``)."""
    _reads: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def centre(self) -> float:
        """The play area's central longitude: every geometry is moved within 180° of it."""
        return centre_lon(self.play_area)

    @cached_property
    def frame(self) -> AzimuthalFrame:
        return AzimuthalFrame.around(self.play_area)

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        """The first read's box (the widest piece when it is split at ±180°)."""
        return max(self.bboxes(self.margin_m), key=lambda b: b[2] - b[0])

    def bboxes(self, margin_m: float) -> list[tuple[float, float, float, float]]:
        """Lon/lat boxes in [-180°, 180°] holding every point within ``margin_m`` of the area.

        Latitudes grow by ``margin / R_min`` (R_min = 6335 km, the smallest radius of
        curvature of WGS84); longitudes by ``asin(sin(margin/R_min) / cos φ)`` at the
        area's most poleward latitude φ, the most a geodesic of that length can turn
        east or west. A box crossing ±180° is split in two; near a pole it is a band.
        """
        minx, miny, maxx, maxy = self.play_area.bounds
        delta = margin_m * 1.01 / _RADIUS_MIN_M
        dlat = math.degrees(delta)
        south, north = max(miny - dlat, -90.0), min(maxy + dlat, 90.0)
        top = math.radians(max(abs(miny), abs(maxy)))
        if delta >= math.pi / 2 - top or south <= -90.0 or north >= 90.0:
            return [(-180.0, south, 180.0, north)]
        dlon = math.degrees(math.asin(min(1.0, math.sin(delta) / math.cos(top))))
        west, east = minx - dlon, maxx + dlon
        if east - west >= 360.0:
            return [(-180.0, south, 180.0, north)]
        out = []
        for turns in (-1, 0, 1):
            lo, hi = max(west - 360 * turns, -180.0), min(east - 360 * turns, 180.0)
            if lo < hi:
                out.append((lo, south, hi, north))
        return out

    def _covers_world(self, margin_m: float) -> bool:
        boxes = self.bboxes(margin_m)
        return len(boxes) == 1 and boxes[0][0] == -180.0 and boxes[0][2] == 180.0

    def _extracts(self) -> list[Path]:
        return [Path(f) for f in self.files if not str(f).lower().endswith(".json")]

    def _check_files(self) -> None:
        for f in self.files:
            if not Path(f).exists():
                raise InputError(f"OSM file {Path(f).name!r} does not exist; check the path")

    @property
    def _keep(self):
        """The tag predicate of the reads: the catalogue, and the station filters if any."""
        if not self.station_filters:
            return self.catalogue.keeps
        return lambda tags: (
            self.catalogue.keeps(tags) or osm_filters.matches(self.station_filters, tags)
        )

    def _in_window(self, e: OsmElement) -> OsmElement:
        lon = wrap_lon(e.lon, self.centre)
        return e if lon == e.lon else dataclasses.replace(e, lon=lon)

    def _read_elements(self, margin_m: float) -> tuple[float, list[OsmElement]]:
        """Every kept element within ``margin_m`` of the area (or more), and the margin read."""
        done = self._reads.get("elements")
        if done is not None and done[0] >= margin_m:
            return done
        self._check_files()
        out: dict[str, OsmElement] = {}
        for f in self.files:
            path = Path(f)
            if str(path).lower().endswith(".json"):
                raw = overpass_file.read_overpass_json_file(
                    path, keep=lambda el: bool(el.get("tags")) and self._keep(el["tags"])
                )
                found = [e for e in overpass_json.parse_overpass_json(raw) if self._keep(e.tags)]
            else:
                found = [
                    e
                    for box_ in self.bboxes(margin_m)
                    for e in (
                        extracts.read_points(path, self._keep, box_)
                        if self.station_filters
                        else layers.points(path, self.catalogue, box_)
                    )
                ]
            for e in found:
                out.setdefault(e.key, e)
        if self.fetch is not None:
            hull = shapely.convex_hull(self.play_area)
            reach = self.frame.unproject(
                self.frame.project_area(hull).buffer(margin_m, quad_segs=4)
            )
            for e in self.fetch(reach):
                if self._keep(e.tags):
                    out.setdefault(e.key, e)
        if not self._extracts() and self.fetch is None:
            margin_m = math.inf  # Overpass JSON holds what it holds: nothing more to read
        elements = sorted(
            (self._in_window(e) for e in out.values()), key=lambda e: (e.osm_type, e.osm_id)
        )
        self._reads["elements"] = (margin_m, elements)
        self._reads.pop("subjects", None)
        return margin_m, elements

    @property
    def elements(self) -> list[OsmElement]:
        return self._read_elements(self.margin_m)[1]

    def _subject_index(self, margin_m: float) -> tuple[float, dict[str, list[Place]]]:
        read, elements = self._read_elements(margin_m)
        cached = self._reads.get("subjects")
        if cached is not None and cached[0] == read:
            return cached
        index: dict[str, list[Place]] = {}
        for e in elements:
            subjects = {s for c in self.catalogue.matching(e.tags) for s in c.subjects}
            for s in sorted(subjects):
                index.setdefault(s, []).append(Place(e.key, e.tags.get("name", ""), e.lon, e.lat))
        self._reads["subjects"] = (read, index)
        return read, index

    @cached_property
    def _area_nodes(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Lattice nodes (lon, lat) around the area (32 cells across), and a bound ``h`` (m).

        The lattice is regular in lon/lat; every cell touching the area keeps its four
        corners, so every point of the area is within a cell's diagonal ``h`` (measured
        geodesically at the cell row nearest the equator, where cells are largest) of a
        node: the farthest a point of the area can be from its nearest place is at most
        the largest node-to-nearest-place distance plus ``h``.
        """
        minx, miny, maxx, maxy = self.play_area.bounds
        dx, dy = max((maxx - minx) / 32.0, 1e-3), max((maxy - miny) / 32.0, 1e-3)
        xs = np.arange(minx - dx, maxx + 2 * dx, dx)
        ys = np.arange(miny - dy, maxy + 2 * dy, dy)
        gx, gy = (a.ravel() for a in np.meshgrid(xs, ys))
        near = shapely.dwithin(self.play_area, shapely.points(gx, gy), 1.5 * math.hypot(dx, dy))
        lat0 = float(np.clip(0.0, miny - dy, maxy + dy))  # the row nearest the equator
        h = float(distance_m(minx, lat0 - dy / 2, minx + dx, lat0 + dy / 2))
        return gx[near], gy[near], h

    def _seeker_gap(self, seeker: tuple[float, float]) -> float:
        """An upper bound of the distance (m) from a seeker to the play area."""
        if self.play_area.covers(Point(seeker)):
            return 0.0
        x, y = self.frame.project_xy([seeker[0]], [seeker[1]])
        return float(self.frame.project_area(self.play_area).distance(shapely.Point(x[0], y[0])))

    def _covering(self, subject: str, places: Sequence[Place], lon, lat) -> np.ndarray:
        """An upper bound of the distance from each point to its nearest place (m)."""
        pts = np.array([[p.lon, p.lat] for p in places])
        index = PlaceIndex(pts[:, 0], pts[:, 1])
        # The geodesic distance to the chord-nearest place: an upper bound is enough here.
        return index.chord_nearest_distance(lon, lat)

    def _needed_margin(
        self,
        subject: str,
        places: Sequence[Place],
        seekers: Sequence[tuple[float, float]],
        reach_m: float,
    ) -> float:
        """How far beyond the area a place can still matter (see :meth:`places`)."""
        key = ("covering", subject, len(places))
        if key not in self._reads:
            lon, lat, h = self._area_nodes
            self._reads[key] = float(self._covering(subject, places, lon, lat).max()) + h
        covering = self._reads[key]
        if seekers:
            at = self._covering(
                subject,
                places,
                np.array([s[0] for s in seekers]),
                np.array([s[1] for s in seekers]),
            )
            covering = max(covering, float(at.max()))
        gap = max((self._seeker_gap(s) for s in seekers), default=0.0)
        return max(covering, reach_m) + gap + 1000.0

    def places(
        self,
        subject: str,
        seekers: Sequence[tuple[float, float]] = (),
        reach_m: float = 0.0,
    ) -> tuple[Place, ...]:
        """Places of a catalogue subject that can matter for the play area.

        That is every place that can be the nearest one for some point of the area or
        of a seeker's position (``seekers``), and every place within ``reach_m`` of a
        seeker (tentacles). How far that reaches follows from the places themselves:
        no point of the area is farther from its nearest place than the covering
        radius ``R`` (bounded on a lattice over the area), so places more than ``R``
        beyond the area cannot be anyone's nearest. The data are read again, wider,
        when ``R`` reaches beyond the first read.
        """
        if subject not in self.catalogue.subjects:
            raise InputError(
                f"unknown subject {subject!r}; use one of {', '.join(self.catalogue.subjects)}"
            )
        margin = self.margin_m
        while True:
            read, index = self._subject_index(margin)
            found = index.get(subject, ())
            if not found:
                if math.isinf(read) or self._covers_world(read):
                    return ()
                margin = read * 4
                continue
            need = self._needed_margin(subject, found, seekers, reach_m)
            if need <= read:
                boxes = self.bboxes(need)
                return tuple(
                    p
                    for p in found
                    if any(
                        b[0] <= wrap_lon(p.lon, 0.0) <= b[2] and b[1] <= p.lat <= b[3]
                        for b in boxes
                    )
                )
            margin = need

    def features(
        self, subject: str, seekers: Sequence[tuple[float, float]] = ()
    ) -> tuple[BaseGeometry, ...]:
        """Geometries for a measuring subject: lines, polygons or the subject's points.

        Lines and polygons are read as far beyond the area as the seekers' own
        distance to the nearest one (plus their distance to the area): nothing
        farther can be nearer for any point of the area than the seeker's distance.
        """
        if subject not in LINE_SUBJECTS:
            return tuple(Point(p.lon, p.lat) for p in self.places(subject, seekers))
        margin = self.margin_m
        while True:
            found = self._shapes(subject, margin)
            if not found:
                if self._covers_world(margin) or not self._extracts():
                    return ()
                margin *= 4
                continue
            if not seekers:
                return found
            index = GeodesicFeatures(found, self.frame)
            d = index.distance([s[0] for s in seekers], [s[1] for s in seekers])
            need = float(np.max(d + np.array([self._seeker_gap(s) for s in seekers]))) + 1000.0
            if need <= margin or self._covers_world(margin):
                return found
            margin = need

    def _shapes(self, subject: str, margin_m: float) -> tuple[BaseGeometry, ...]:
        key = ("shapes", subject, round(margin_m, 3))
        if key not in self._reads:
            boxes = self.bboxes(margin_m)
            if subject == "coastline":
                found = self._lines("coastline", boxes)
            elif subject == "high_speed_rail":
                found = self._lines("high_speed_rail", boxes)
            elif subject == "border":
                found = tuple(z.geometry.boundary for z in self._zones(2, boxes))
            else:  # body_of_water
                found = self._unique(
                    (f"{f}:{k}", g)
                    for f in self._extracts()
                    for b in boxes
                    for k, g in enumerate(layers.bodies_of_water(f, b))
                )
            self._reads[key] = found
        return self._reads[key]

    def _unique(self, keyed) -> tuple[BaseGeometry, ...]:
        seen: dict = {}
        for k, g in keyed:
            seen.setdefault(k, g)
        return tuple(to_window(g, self.centre) for g in seen.values())

    def _lines(self, layer: str, boxes) -> tuple[BaseGeometry, ...]:
        self._check_files()
        return self._unique(
            ((str(f), key), line)
            for f in self._extracts()
            for b in boxes
            for key, _, line in layers.lines(f, layer, b)
        )

    def _need_extract(self, what: str) -> list[Path]:
        self._check_files()
        files = self._extracts()
        if not files:
            raise InputError(
                f"the {what} question needs an OSM extract (.osm.pbf …); Overpass JSON "
                "does not hold it: give one with --osm or in the game's osm list"
            )
        return files

    def land(self, seekers: Sequence[tuple[float, float]] = ()) -> LandData:
        """Coastlines, water areas and river lines for the landmass question.

        The window is the play area and ``margin_m`` (and the seekers), cut to the boxes
        the extracts say they hold (:func:`~stations_generator.osm.layers.data_box`):
        land beyond the data is unknown, and coastlines cut off at an extract's edge are
        closed along it (:mod:`stations_generator.core.questions.landmass`).
        """
        files = self._need_extract("landmass")
        gap = max((self._seeker_gap(s) for s in seekers), default=0.0)
        boxes = self.bboxes(self.margin_m + gap)
        window = shapely.union_all([to_window(shapely.box(*b), self.centre) for b in boxes])
        held = [layers.data_box(f) for f in files]
        if all(h is not None for h in held):
            data = shapely.union_all([to_window(shapely.box(*h), self.centre) for h in held])
            window = shapely.intersection(window, data)
        water = self._unique(
            ((str(f), key), geom)
            for f in files
            for b in boxes
            for key, tags, geom in layers.areas(f, "water", b)
            if cuts_land(tags)
        )
        return LandData(
            window, self._lines("coastline", boxes), water, self._lines("waterway", boxes)
        )

    def _marked_ways(self, margin_m: float) -> tuple[MarkedWay, ...]:
        key = ("marked", round(margin_m, 3))
        if key not in self._reads:
            seen: dict = {}
            for f in self._extracts():
                for b in self.bboxes(margin_m):
                    for wid, tags, line in layers.lines(f, "marked_path", b):
                        seen.setdefault((str(f), wid), (wid, tags.get("name", ""), line))
            self._reads[key] = tuple(
                MarkedWay(k, name.strip(), to_window(line, self.centre))
                for k, name, line in seen.values()
            )
        return self._reads[key]

    def marked_paths(self, seekers: Sequence[tuple[float, float]] = ()) -> tuple[MarkedWay, ...]:
        """The marked-path ways that can be the nearest one for the area or a seeker.

        Read first :data:`MARKED_PATH_MARGIN_M` beyond the area, then as far as the
        covering radius needs: no point of the area is farther from its nearest way
        than the largest exact distance from a lattice node (:attr:`_area_nodes`) to
        its nearest way plus the lattice's cell diagonal, so a way farther than that
        from the area is nobody's nearest (likewise for the seekers).
        """
        self._need_extract("marked-path")
        margin = MARKED_PATH_MARGIN_M
        while True:
            ways = self._marked_ways(margin)
            if not ways:
                if self._covers_world(margin):
                    return ()
                margin *= 4
                continue
            index = GeodesicFeatures([w.line for w in ways], self.frame)
            lon, lat, h = self._area_nodes
            need = float(index.distance(lon, lat).max()) + h
            if seekers:
                d = index.distance([s[0] for s in seekers], [s[1] for s in seekers])
                gaps = np.array([self._seeker_gap(s) for s in seekers])
                need = max(need, float(np.max(d + gaps)))
            need += 1.0  # a metre for rounding: the read is a box anyway
            if need <= margin or self._covers_world(margin):
                return self._marked_ways(need) if need <= margin else ways
            margin = need

    def elevation(self) -> ElevationGrid:
        """The DEM's heights over the play area, read once (formats/dem.py)."""
        if "elevation" not in self._reads:
            self._reads["elevation"] = read_dem(self.dem, self.play_area.bounds)
        return self._reads["elevation"]

    def zones(self, level: int) -> tuple[Zone, ...]:
        """Named admin areas of an OSM admin level (boundary=administrative) touching the area."""
        return self._zones(level, self.bboxes(1000.0))

    def _zones(self, level: int, boxes) -> tuple[Zone, ...]:
        self._check_files()
        key = str(level)
        found: dict[str, Zone] = {}
        for f in self._extracts():
            for b in boxes:
                for zid, tags, geom in layers.areas(f, "admin", b):
                    if tags.get("admin_level") != key:
                        continue
                    found.setdefault(
                        zid, Zone(zid, tags.get("name", ""), to_window(geom, self.centre))
                    )
        return tuple(sorted(found.values(), key=lambda z: z.id))

    @cached_property
    def routes(self) -> list[Route]:
        """The transit routes with a stop within :data:`ROUTE_MARGIN_M` of the area's box.

        Each extract's in its order (relation id). These are every route that can serve
        a station inside that box (:meth:`_routes_at`)."""
        return self._routes_in(self.bboxes(ROUTE_MARGIN_M))

    def _routes_in(self, boxes: Sequence[tuple[float, float, float, float]]) -> list[Route]:
        """The routes of every extract with a stop in one of ``boxes``, each route once."""
        out: list[Route] = []
        for f in self._extracts():
            seen: dict[str, Route] = {}
            for b in boxes:
                for r in layers.routes(f, b):
                    seen.setdefault(r.id, r)
            out += seen.values()
        return out

    def _routes_at(self, lon: float, lat: float) -> tuple[list[Route], StopIndex]:
        """The routes that can serve a station at (lon, lat), and their stop index.

        A station inside the area's box gets :attr:`routes`: every point within
        :data:`ROUTE_MARGIN_M` of it lies in the boxes those were read from (see
        :meth:`bboxes`). One elsewhere (a station file of a wider area) gets the routes
        with a stop within that margin of itself, read for it.
        """
        x = wrap_lon(lon, 0.0)
        if "area boxes" not in self._reads:
            self._reads["area boxes"] = self.bboxes(0.0)
        if any(b[0] <= x <= b[2] and b[1] <= lat <= b[3] for b in self._reads["area boxes"]):
            return self.routes, self._stop_index
        key = ("routes near", x, lat)
        if key not in self._reads:
            near = OsmContext(Point(x, lat), self.files, self.catalogue)
            found = self._routes_in(near.bboxes(ROUTE_MARGIN_M))
            self._reads[key] = (found, stop_index(found))
        return self._reads[key]

    @cached_property
    def _stop_index(self) -> StopIndex:
        return stop_index(self.routes)

    def stations_from_osm(
        self, categories: Sequence[str] = (), filters: Sequence = ()
    ) -> list[Station]:
        """Stations inside the play area: of catalogue ``categories`` or matching OSM ``filters``."""
        cats = self.catalogue.select(list(categories)) if categories else {}
        out = []
        for e in self.elements:
            if not self.play_area.covers(Point(e.lon, e.lat)):
                continue
            if filters:
                if not osm_filters.matches(filters, e.tags):
                    continue
            elif not any(c.name in cats for c in self.catalogue.matching(e.tags)):
                continue
            out.append(self._station(e.key, e.tags.get("name", ""), e.lon, e.lat, e.tags, e.osm_id))
        return out

    def _station(self, sid, name, lon, lat, tags, osm_id=None) -> Station:
        kinds = tuple(sorted((k, v) for k, v in tags.items() if k in _STOP_TAGS))
        routes, index = self._routes_at(lon, lat)
        served = routes_serving(lon, lat, osm_id, routes, index) if routes else []
        return Station(
            sid,
            name,
            lon,
            lat,
            kinds,
            # the lines of "same transit line" count by the rule set; the line refs of every
            # route stay (the NL valid-stop rule reads Rotterdam's metro line B from them)
            frozenset(r.id for r in lines_under(served, self.line_rules)),
            frozenset(r.line_ref for r in served),
        )

    def stations_from_file(self, path: Path) -> list[Station]:
        """Stations from a stations.geojson written by ``generate`` (the one station-map reader)."""
        station_map = read_station_map(path)
        out = []
        for st, props in zip(station_map.stations, station_map.properties, strict=True):
            tags = {}
            if st.category in self.catalogue:
                first = self.catalogue[st.category].match[0]
                tags = {c.key: c.value for c in first if c.op == "="}
            osm_id = props.get("osm_id") if props.get("osm_type") == "node" else None
            lon = wrap_lon(st.lon, self.centre)
            out.append(self._station(st.id, st.name, lon, st.lat, tags, osm_id))
        return out

    def station_near(
        self, lon: float, lat: float, stations: Sequence[Station] = ()
    ) -> Station | None:
        if not stations:
            return None
        d = distance_m(
            np.full(len(stations), lon),
            np.full(len(stations), lat),
            np.array([s.lon for s in stations]),
            np.array([s.lat for s in stations]),
        )
        return stations[int(np.argmin(d))]


class TaibeledResolver:
    """The taibeled Resolver over an :class:`OsmContext`.

    ``seekers`` are the positions of every question of the state: places and lines
    are read as far as any of them needs (see :meth:`OsmContext.places`).
    """

    def __init__(
        self,
        context: OsmContext,
        stations: Sequence[Station],
        seekers: Sequence[tuple[float, float]] = (),
        reach_m: float = 0.0,
    ):
        self.context = context
        self.stations = stations
        self.seekers = list(seekers)
        self.reach_m = reach_m
        self.frame = context.frame

    def places(self, subject: str) -> tuple[Place, ...]:
        return self.context.places(subject, self.seekers, self.reach_m)

    def features(self, subject: str) -> tuple[BaseGeometry, ...]:
        return self.context.features(subject, self.seekers)

    def zones(self, level: int) -> tuple[Zone, ...]:
        return self.context.zones(level)

    def station_near(self, lon: float, lat: float) -> Station | None:
        return self.context.station_near(lon, lat, self.stations)
