"""Derive the NYC example's play area from the bundled NYC subway feed.

Run from the repository root: ``python scripts/nyc_play_area.py``. It writes
``examples/nyc-game/play-area.geojson``: the 1 and 2 lines on Manhattan island. The
stations are those of :data:`ENDS` — along each route's longest trip of the feed, its
stations from the first named to the second: the 1 from South Ferry to 215 St (the
next, Marble Hill, is across the Harlem River) and the 2 from Wall St (the next, Clark
St, is in Brooklyn) to 135 St (the next, 149 St-Grand Concourse, is in the Bronx). The
area is the union of their geodesic circles of :data:`MARGIN_M` (a buffer of the
stations). Output is deterministic (7 decimals), so re-running it changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import shapely

from stations_generator.core.geo.shapes import geodesic_circles
from stations_generator.formats.geojson import dumps_geojson, polygon_rings
from stations_generator.formats.gtfs.reader import read_feed

ROOT = Path(__file__).resolve().parent.parent
FEED = ROOT / "tests" / "data" / "gtfs" / "nyc_subway_gtfs.zip"
OUT = ROOT / "examples" / "nyc-game" / "play-area.geojson"
#: Per route (short name), its first and last station on Manhattan island.
ENDS = {"1": ("South Ferry", "215 St"), "2": ("Wall St", "135 St")}
#: Around each station: more than half the widest gap between two stations next to each
#: other here (96 St to Central Park North on the 2, about 1.8 km), so the area is one
#: piece, and more than the official rules' S and M hiding radius (402 m).
MARGIN_M = 1000.0
#: The MTA's terms (tests/data/gtfs/README.md).
CREDIT = "Data provided by the Metropolitan Transportation Authority"


def line_stations(feed) -> np.ndarray:
    """Parent-station rows of :data:`ENDS`, in route order."""
    station = feed.station_of()
    out: list[int] = []
    for route, (first, last) in ENDS.items():
        trips = np.flatnonzero(np.asarray(feed.route_short_names)[feed.trip_route] == route)
        counts = np.bincount(feed.st_trip, minlength=feed.n_trips)[trips]
        longest = int(trips[np.argmax(counts)])  # the earliest of a tie
        calls = [int(station[s]) for s in feed.st_stop[feed.st_trip == longest].tolist()]
        names = [feed.stop_names[s] for s in calls]
        a, b = sorted((names.index(first), names.index(last)))
        out += [s for s in calls[a : b + 1] if s not in out]
    return np.array(out)


def build() -> tuple[str, int]:
    """The play area's GeoJSON text, and how many stations it was drawn around."""
    feed = read_feed(FEED)
    rows = line_stations(feed)
    circles = geodesic_circles(feed.stop_lon[rows], feed.stop_lat[rows], MARGIN_M)
    area = shapely.set_precision(shapely.union_all(circles), 1e-7)
    if area.geom_type != "Polygon" or len(area.interiors):
        raise SystemExit(
            f"the stations' circles are not one polygon without holes: {area.geom_type}"
        )
    names = ", ".join(feed.stop_names[s] for s in rows.tolist())
    doc = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {
                    "name": "Manhattan along the 1 and 2",
                    "source": (
                        f"union of {MARGIN_M:g} m geodesic circles around {len(rows)} stations "
                        f"of {FEED.name} (routes {' and '.join(ENDS)}): {names}"
                    ),
                    "attribution": CREDIT,
                },
                "geometry": {"type": "Polygon", "coordinates": polygon_rings(area)},
            }
        ],
    }
    return dumps_geojson(doc), len(rows)


def main() -> None:
    text, count = build()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, "utf-8")
    print(f"Wrote {OUT.relative_to(ROOT)}: {count} stations")


if __name__ == "__main__":
    main()
