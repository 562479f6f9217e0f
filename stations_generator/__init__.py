"""stations-generator: station maps, question geometry and hiding-zone checks for
Jet Lag: The Game – Hide + Seek, from OpenStreetMap data.

The public API is re-exported here; ``stations_generator.core`` holds the pure
computation and ``stations_generator.osm`` / ``stations_generator.export`` the I/O.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("stations-generator")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+local"

from .catalogue import Catalogue, Category, load_catalogue  # noqa: E402
from .core.candidates import elements_to_candidates  # noqa: E402
from .core.opening_hours import PlayWindow, open_during_play, parse_play_window  # noqa: E402
from .core.spacing import SpacingRules  # noqa: E402
from .core.stationmap import StationMap, StationMapOptions, build_station_map  # noqa: E402
from .errors import InputError, NoDataError, OverpassError, UserError  # noqa: E402
from .osm.elements import OsmElement  # noqa: E402
from .playarea import load_polygons, parse_polygons  # noqa: E402

__all__ = [
    "Catalogue",
    "Category",
    "InputError",
    "NoDataError",
    "OsmElement",
    "OverpassError",
    "PlayWindow",
    "SpacingRules",
    "StationMap",
    "StationMapOptions",
    "UserError",
    "__version__",
    "build_station_map",
    "elements_to_candidates",
    "load_catalogue",
    "load_polygons",
    "open_during_play",
    "parse_play_window",
    "parse_polygons",
]
