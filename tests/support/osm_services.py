"""Local stand-ins for Overpass and Nominatim that answer with real, bundled OSM data.

The online features (``generate PLAY_AREA`` without ``--osm``, ``--osm-relation``,
``--place``) are tested against these servers on 127.0.0.1; the command line finds
them through ``STATIONS_GENERATOR_OVERPASS_URL`` and ``STATIONS_GENERATOR_NOMINATIM_URL``.

What they serve:

* **Overpass, the POI query of a play area** — dispatched by where the query's first
  ``poly:`` point lies: inside the Sioux Falls play area, the elements frozen by the
  peer project (``examples/sioux-falls/pois.json`` + ``water.json``) as one response;
  inside Liechtenstein, the POIs of the real Liechtenstein extract
  (``liechtenstein-2013-08.osm.pbf``) in ``out center tags`` form plus its water ways
  and relations in ``out geom`` form.
* **Overpass, ``relation(1155955); out geom;``** — the country relation of the
  Liechtenstein extract (``admin_level=2``, ``relation/47`` there) with its members'
  geometries. The extract's ids are renumbered 1..N, so the relation is served under
  Liechtenstein's real id 1155955 (its member ids stay the extract's).
* **Overpass, ``relation(50); out geom;``** — the extract's Wahlkreis Oberland
  (``admin_level=6``), under its extract id: the play area of the taibeled state in
  ``tests/data/taibeled/state-osm-relation.json``, which names it so.
* **Overpass, places and stations of a polygon** (``nwr[…](poly:"…"); out center tags;``
  without water) — when the polygon reaches Liechtenstein: every object of the extract
  matching one of the query's own filters, as Overpass would answer it.
* **Overpass, the road query of ``route --online``** (``osm.roads.road_query``) — the
  drivable ways of the Liechtenstein extract with a node inside the query's polygons,
  and their nodes, in ``out;`` form.
* **Nominatim ``/search``** — for "Sioux Falls, South Dakota", one result shaped as
  Nominatim's ``format=json&polygon_geojson=1`` answer (what ``osmnx.geocode_to_gdf``
  requests), whose polygon is the bundled Sioux Falls play area
  (``zones/sioux-falls.geojson``, served as the Polygon it is, as Nominatim would); any other query gets ``[]``. The response is built,
  not recorded: its polygon is the play area, not the city's boundary.

A relation query for any other id gets an empty element list, as Overpass answers for
an id it does not hold. Any other request is answered 400, so a query the tests did
not expect fails loudly.

Fault modes (:meth:`Services.fault`), for either service, forever or for the next
``times`` requests:

* ``"drip"`` — headers at once, then the real answer one byte every 2 s;
* ``"retry-after"`` — 429 Too Many Requests with ``Retry-After: 3600``;
* ``"504"`` — 504 Gateway Timeout (the page Overpass sends) on every request;
* ``"poisoned"`` — the real answer with one element's latitude set to 95 (Overpass;
  the first node with tags) or one result's polygon moved off the globe (Nominatim).

``Services.refused_url`` is a loopback port nothing listens on (connection refused).
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import osmium
from shapely.geometry import Point, mapping
from shapely.geometry.base import BaseGeometry

from support.paths import REPO

SIOUX = REPO / "examples" / "sioux-falls"
LIECHTENSTEIN = REPO / "tests" / "data" / "osm-extracts" / "liechtenstein-2013-08.osm.pbf"
SIOUX_ZONE = REPO / "zones" / "sioux-falls.geojson"
LIECHTENSTEIN_ZONE = REPO / "zones" / "liechtenstein.geojson"

LIECHTENSTEIN_RELATION = 1155955  # the real OSM id of Liechtenstein's country boundary
EXTRACT_COUNTRY_RELATION = 47  # the same relation in the renumbered extract
OBERLAND_RELATION = 50  # Wahlkreis Oberland in the extract, served under that id
PLACE_QUERY = "Sioux Falls, South Dakota"
ATTRIBUTION = "The data included in this document is from www.openstreetmap.org. The data is made available under ODbL."


@cache
def _zone(path: Path) -> BaseGeometry:
    from stations_generator import load_polygons

    return load_polygons(path)


def _envelope(elements: list[dict]) -> bytes:
    body = {
        "version": 0.6,
        "generator": "Overpass API (stations-generator test fixture)",
        "osm3s": {"copyright": ATTRIBUTION},
        "elements": elements,
    }
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


@cache
def sioux_falls_response() -> bytes:
    """The Sioux Falls elements (POIs, then water) as one Overpass JSON response."""
    elements = json.loads((SIOUX / "pois.json").read_text("utf-8"))
    elements += json.loads((SIOUX / "water.json").read_text("utf-8"))
    return _envelope(elements)


def _position(location: Any) -> dict[str, float]:
    return {"lat": round(location.lat, 7), "lon": round(location.lon, 7)}


def _out_geom(
    path: Path, want_way: Callable[[int, dict], bool], want_relation: Callable[[int, dict], bool]
) -> tuple[list[dict], list[dict]]:
    """Ways and relations of an extract in Overpass ``out geom`` form (ways, relations)."""
    relations: dict[int, tuple[dict, list[tuple[str, int, str]]]] = {}
    for rel in osmium.FileProcessor(str(path), osmium.osm.RELATION):
        tags = dict(rel.tags)
        if want_relation(rel.id, tags):
            relations[rel.id] = (tags, [(m.type, m.ref, m.role) for m in rel.members])
    member_ways = {ref for _, members in relations.values() for t, ref, _ in members if t == "w"}
    member_nodes = {ref for _, members in relations.values() for t, ref, _ in members if t == "n"}
    way_geometry: dict[int, list[dict]] = {}
    node_position: dict[int, dict] = {}
    ways: list[dict] = []
    processor = osmium.FileProcessor(str(path), osmium.osm.NODE | osmium.osm.WAY).with_locations()
    for obj in processor:
        if obj.is_node():
            if obj.id in member_nodes and obj.location.valid():
                node_position[obj.id] = _position(obj.location)
            continue
        tags = dict(obj.tags)
        wanted = bool(tags) and want_way(obj.id, tags)
        if not (wanted or obj.id in member_ways):
            continue
        geometry = [_position(n.location) for n in obj.nodes if n.location.valid()]
        if len(geometry) < len(obj.nodes):
            continue  # clipped at the extract's edge: Overpass would have all nodes
        way_geometry[obj.id] = geometry
        if wanted:
            ways.append(
                {
                    "type": "way",
                    "id": obj.id,
                    "nodes": [n.ref for n in obj.nodes],
                    "geometry": geometry,
                    "tags": tags,
                }
            )
    out_relations = []
    for rid, (tags, members) in sorted(relations.items()):
        out_members: list[dict] = []
        for kind, ref, role in members:
            if kind == "w" and ref in way_geometry:
                out_members.append(
                    {"type": "way", "ref": ref, "role": role, "geometry": way_geometry[ref]}
                )
            elif kind == "n" and ref in node_position:
                out_members.append({"type": "node", "ref": ref, "role": role, **node_position[ref]})
        out_relations.append({"type": "relation", "id": rid, "members": out_members, "tags": tags})
    return ways, out_relations


@cache
def liechtenstein_relation_response() -> bytes:
    """The extract's country relation, ``out geom``, under Liechtenstein's real id."""
    _, relations = _out_geom(
        LIECHTENSTEIN, lambda _i, _t: False, lambda i, _t: i == EXTRACT_COUNTRY_RELATION
    )
    (relation,) = relations
    relation["id"] = LIECHTENSTEIN_RELATION
    return _envelope([relation])


def _out_center(found) -> list[dict]:
    """OsmElements as Overpass ``out center tags`` writes them."""
    elements: list[dict] = []
    for e in found:
        item: dict[str, Any] = {"type": e.osm_type, "id": e.osm_id}
        where = {"lat": round(e.lat, 7), "lon": round(e.lon, 7)}
        if e.osm_type == "node":
            item.update(where)
        else:
            item["center"] = where
        item["tags"] = e.tags
        elements.append(item)
    return elements


@cache
def liechtenstein_poi_response() -> bytes:
    """The extract's POIs of the catalogue (``out center tags``) and its water (``out geom``)."""
    from stations_generator import load_catalogue
    from stations_generator.osm.extracts import is_water, read_points

    catalogue = load_catalogue()
    elements = _out_center(read_points(LIECHTENSTEIN, catalogue.keeps))
    ways, relations = _out_geom(LIECHTENSTEIN, lambda _i, t: is_water(t), lambda _i, t: is_water(t))
    return _envelope(elements + ways + relations)


@cache
def liechtenstein_area_response(relation_id: int) -> bytes:
    """One relation of the extract, ``out geom``, under its extract id."""
    _, relations = _out_geom(LIECHTENSTEIN, lambda _i, _t: False, lambda i, _t: i == relation_id)
    return _envelope(relations)


_NWR = re.compile(r"^\s*nwr((?:\[[^\]]*\])+)\(poly:", re.MULTILINE)


@cache
def liechtenstein_filtered_response(filters: tuple[str, ...]) -> bytes:
    """The extract's objects matching any of ``filters`` (Overpass QL), ``out center tags``."""
    from stations_generator.osm import filters as osm_filters
    from stations_generator.osm.extracts import read_points

    parsed = osm_filters.parse_filters(filters)
    return _envelope(
        _out_center(read_points(LIECHTENSTEIN, lambda t: osm_filters.matches(parsed, t)))
    )


def _poly(query: str):
    """The first ``poly:`` ring of a query as a shapely Polygon (lon/lat)."""
    from shapely.geometry import Polygon

    text = re.search(r'poly:"([^"]*)"', query)
    if text is None:
        return None
    numbers = [float(v) for v in text.group(1).split()]
    return Polygon(list(zip(numbers[1::2], numbers[0::2], strict=True)))


@cache
def _liechtenstein_roads() -> tuple[dict[int, dict], list[dict]]:
    """The extract's complete ``highway=*`` ways of the road query's classes, and their nodes."""
    from stations_generator.osm.roads import DRIVABLE_HIGHWAYS

    nodes: dict[int, dict] = {}
    ways: list[dict] = []
    processor = osmium.FileProcessor(str(LIECHTENSTEIN), osmium.osm.NODE | osmium.osm.WAY)
    for obj in processor.with_locations():
        if obj.is_node():
            if obj.location.valid():
                nodes[obj.id] = {"type": "node", "id": obj.id, **_position(obj.location)}
            continue
        tags = dict(obj.tags)
        refs = [n.ref for n in obj.nodes]
        if tags.get("highway") in DRIVABLE_HIGHWAYS and all(r in nodes for r in refs):
            ways.append({"type": "way", "id": obj.id, "nodes": refs, "tags": tags})
    return nodes, ways


def roads_response(query: str) -> bytes:
    """Overpass's answer to ``road_query``: the ways with a node in its polygons, then nodes."""
    from shapely.geometry import Polygon
    from shapely.prepared import prep

    areas = []
    for ring in re.findall(r'poly:"([-0-9. ]+)"', query):
        numbers = [float(v) for v in ring.split()]
        areas.append(prep(Polygon(list(zip(numbers[1::2], numbers[0::2], strict=True)))))
    nodes, ways = _liechtenstein_roads()
    inside = [
        w for w in ways
        if any(a.contains(Point(nodes[r]["lon"], nodes[r]["lat"])) for a in areas for r in w["nodes"])
    ]  # fmt: skip
    used = sorted({r for w in inside for r in w["nodes"]})
    return _envelope(inside + [nodes[r] for r in used])


def nominatim_result() -> list[dict]:
    """Nominatim's answer to the Sioux Falls search, with the play area as its polygon."""
    area = _zone(SIOUX_ZONE)
    west, south, east, north = area.bounds
    centre = area.representative_point()
    return [
        {
            "licence": "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
            "lat": f"{centre.y:.7f}",
            "lon": f"{centre.x:.7f}",
            "class": "boundary",
            "type": "administrative",
            "place_rank": 16,
            "importance": 0.62,
            "addresstype": "city",
            "name": "Sioux Falls",
            "display_name": "Sioux Falls, Minnehaha County, South Dakota, United States",
            "boundingbox": [f"{south:.7f}", f"{north:.7f}", f"{west:.7f}", f"{east:.7f}"],
            "geojson": json.loads(json.dumps(mapping(area))),
        }
    ]


_POLY = re.compile(r'poly:"([-0-9.]+) ([-0-9.]+)')


FAULTS = ("drip", "retry-after", "504", "poisoned")
DRIP_INTERVAL_S = 2.0
OVERPASS_504 = REPO / "tests" / "data" / "overpass" / "504-gateway-timeout.html"


@dataclass
class Services:
    """The two servers; ``overpass_url`` and ``nominatim_url`` point at them."""

    overpass_url: str = ""
    nominatim_url: str = ""
    refused_url: str = ""
    overpass_queries: list[str] = field(default_factory=list)
    nominatim_queries: list[dict[str, list[str]]] = field(default_factory=list)
    faults: dict[str, list[str | None]] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)

    def fault(self, service: str, mode: str | None, times: int | None = None) -> None:
        """Answer ``service`` ("overpass" or "nominatim") in ``mode`` (None: normally).

        For the next ``times`` requests, then normally; forever when ``times`` is None.
        """
        assert service in ("overpass", "nominatim") and (mode is None or mode in FAULTS)
        self.faults[service] = [mode] if times is None else [mode] * times + [None]

    def _mode(self, service: str) -> str | None:
        queue = self.faults.get(service)
        if not queue:
            return None
        return queue.pop(0) if len(queue) > 1 else queue[0]

    def env(self, cache_dir: Path) -> dict[str, str]:
        """The environment variables that point the command line at these servers."""
        return {
            "STATIONS_GENERATOR_OVERPASS_URL": self.overpass_url,
            "STATIONS_GENERATOR_NOMINATIM_URL": self.nominatim_url,
            "STATIONS_GENERATOR_CACHE_DIR": str(cache_dir),
        }


def overpass_answer(query: str) -> bytes | None:
    """The recorded response for an Overpass query, or None for a query we do not serve."""
    if 'way["highway"~"^(' in query and "(._;>;);" in query:
        return roads_response(query)
    relation = re.search(r"\brelation\((\d+)\);", query)
    if relation is not None:
        if int(relation.group(1)) == LIECHTENSTEIN_RELATION:
            return liechtenstein_relation_response()
        if int(relation.group(1)) == OBERLAND_RELATION:
            return liechtenstein_area_response(OBERLAND_RELATION)
        return _envelope([])  # what Overpass answers for an id it does not hold
    nwr = _NWR.findall(query)
    if nwr and "out geom" not in query:  # places and stations only (taibeled states)
        area = _poly(query)
        if area is not None and area.intersects(_zone(LIECHTENSTEIN_ZONE)):
            return liechtenstein_filtered_response(tuple(sorted(set(nwr))))
    match = _POLY.search(query)
    if match is None:
        return None
    point = Point(float(match.group(2)), float(match.group(1)))
    if _zone(SIOUX_ZONE).buffer(0.01).covers(point):
        return sioux_falls_response()
    if _zone(LIECHTENSTEIN_ZONE).buffer(0.01).covers(point):
        return liechtenstein_poi_response()
    return None


def poisoned_overpass(body: bytes) -> bytes:
    """``body`` with the latitude of its first tagged node set to 95 (off the globe)."""
    data = json.loads(body)
    node = next(e for e in data["elements"] if e["type"] == "node" and e.get("tags"))
    node["lat"] = 95.0
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def poisoned_nominatim(results: list[dict]) -> list[dict]:
    """The results with the first polygon's first point moved to (200, 95)."""
    results = json.loads(json.dumps(results))
    ring = results[0]["geojson"]["coordinates"][0]
    ring[0] = ring[-1] = [200.0, 95.0]
    return results


def _handler(services: Services) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _faulty(self, mode: str | None, body: bytes) -> bool:
            """Answer in ``mode`` if it is one that does not depend on the content."""
            if mode == "retry-after":
                self.send_response(429)
                self.send_header("Retry-After", "3600")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif mode == "504":
                self._send(504, OVERPASS_504.read_bytes(), "text/html")
            elif mode == "drip":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(OSError):
                    for k in range(len(body)):
                        self.wfile.write(body[k : k + 1])
                        self.wfile.flush()
                        if services.stop.wait(DRIP_INTERVAL_S):
                            break
            else:
                return False
            return True

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            if urllib.parse.urlsplit(self.path).path != "/api/interpreter":
                self._send(404, b"not found", "text/plain")
                return
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            query = urllib.parse.parse_qs(raw.decode("utf-8")).get("data", [""])[0]
            services.overpass_queries.append(query)
            body = overpass_answer(query)
            if body is None:
                self._send(400, b"<p><strong>Error</strong>: not a recorded query</p>", "text/html")
                return
            mode = services._mode("overpass")
            if not self._faulty(mode, body):
                self._send(200, poisoned_overpass(body) if mode == "poisoned" else body)

        def do_GET(self) -> None:  # noqa: N802
            url = urllib.parse.urlsplit(self.path)
            if url.path != "/search":
                self._send(404, b"not found", "text/plain")
                return
            params = urllib.parse.parse_qs(url.query)
            services.nominatim_queries.append(params)
            found = params.get("q") == [PLACE_QUERY] and params.get("format") == ["json"]
            results = nominatim_result() if found else []
            mode = services._mode("nominatim")
            if mode == "poisoned" and results:
                results = poisoned_nominatim(results)
            body = json.dumps(results).encode("utf-8")
            if not self._faulty(mode, body):
                self._send(200, body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a dripping answer must not hold up the shutdown

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client gave up on a slow answer: expected here


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve() -> Iterator[Services]:
    """Both servers on 127.0.0.1 for the duration of a ``with`` block."""
    services = Services()
    server = _Server(("127.0.0.1", 0), _handler(services))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    services.overpass_url = f"{base}/api/interpreter"
    services.nominatim_url = base
    services.refused_url = f"http://127.0.0.1:{closed_port()}"
    try:
        yield services
    finally:
        services.stop.set()
        server.shutdown()
        server.server_close()
        thread.join()
