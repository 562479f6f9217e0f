"""What the API's verbs share: their argument types and the checks of their arguments.

Each check raises :class:`~stations_generator.errors.ArgumentTypeError` or
:class:`~stations_generator.errors.ArgumentValueError` whose one line starts with the
parameter's name (docs/api.md).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stations_generator.app.request_fields import (
    check_flag,
    check_items,
    check_number,
    check_path,
    check_text,
    describe,
)
from stations_generator.errors import ArgumentError, ArgumentTypeError, ArgumentValueError

if TYPE_CHECKING:  # the heavy modules load on first use
    from shapely.geometry.base import BaseGeometry

    from stations_generator.core.questions.game import Elimination, Game, ZoneStatus
    from stations_generator.core.stationmap.build import StationMap
    from stations_generator.osm.sources import OsmData

Warn = Callable[[str], None]
PathLike = str | Path


class StationsGeneratorWarning(UserWarning):
    """A warning about the user's input (a ring closed, a play area partly uncovered, …)."""


@dataclass(frozen=True)
class OverpassSettings:
    """How to reach Overpass (and Nominatim for ``place=``); the CLI's defaults.

    Attributes
    ----------
    urls : tuple of str
        Endpoints tried in order; empty = the built-in public instances.
    timeout : float
        Deadline in seconds for each request (every try, instance and wait).
    cache_dir : path or None
        Cache folder; None = the user cache dir.
    use_cache : bool
        Read and write the cache.
    """

    urls: tuple[str, ...] = ()
    timeout: float = 300.0
    cache_dir: Path | None = None
    use_cache: bool = True

    def __post_init__(self) -> None:
        from stations_generator.app.request_fields import SECONDS

        checked = {
            "urls": check_items("urls", self.urls, check_text, "URLs (str)"),
            # the range of the command line's --overpass-timeout (commands/options.py)
            "timeout": check_number("timeout", self.timeout, SECONDS(min=1)),
            "cache_dir": None
            if self.cache_dir is None
            else check_path("cache_dir", self.cache_dir),
            "use_cache": check_flag("use_cache", self.use_cache),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class PlayArea:
    """A play area: its polygon, the areas left out of it, and the map's default name."""

    polygon: BaseGeometry
    exclusions: tuple[BaseGeometry, ...] = ()
    name: str = "play-area"
    #: How it was given (for the ``generate`` equivalent): a file, relation or place.
    source: Any = None

    def __post_init__(self) -> None:
        check_polygon("polygon", self.polygon)
        exclusions = check_items("exclusions", self.exclusions, check_polygon, "(Multi)Polygons")
        object.__setattr__(self, "exclusions", exclusions)
        check_text("name", self.name)

    @property
    def area_km2(self) -> float:
        """The polygon's geodesic area in km² (before water and exclusions)."""
        from stations_generator.core.geo.geodesy import geodesic_area_km2

        return geodesic_area_km2(self.polygon)


@dataclass
class OsmLayers:
    """The OSM objects and water for one play area, and the station categories read."""

    data: OsmData
    categories: tuple[str, ...]
    category_files: tuple[Path, ...] = ()
    include_transit: bool = True
    water: bool = True

    @property
    def sources(self) -> list[str]:
        """Where the data came from (file names or ``Overpass``)."""
        return self.data.sources


@dataclass
class GameResult:
    """A game after its questions: what each removed, what remains, every zone's status."""

    game: Game
    elimination: Elimination
    zones: list[ZoneStatus]
    title: str = "game"

    def __post_init__(self) -> None:
        from stations_generator.core.questions.game import Elimination

        check_game("game", self.game)
        check_instance("elimination", self.elimination, Elimination, "an Elimination")
        check_items("zones", self.zones, lambda _name, zone: zone, "ZoneStatus")
        check_text("title", self.title)

    @property
    def remaining_km2(self) -> float:
        """Area still possible, km²."""
        return self.elimination.remaining_km2

    @property
    def possible_zones(self) -> list[ZoneStatus]:
        """The hiding zones still possible."""
        return [z for z in self.zones if z.possible]

    def summary(self) -> list[str]:
        """The table ``questions apply`` prints."""
        from stations_generator.app.games import summary_table

        return summary_table(self.game, self.elimination, self.zones)


def python_warning(message: str) -> None:
    warnings.warn(message, StationsGeneratorWarning, stacklevel=3)


@contextlib.contextmanager
def warnings_to(warn: Warn | None) -> Iterator[None]:
    """The package's warnings logged during the block go to ``warn``, else to
    :func:`warnings.warn`; its notes stay plain log records."""
    from stations_generator.app.reporting import routed

    with routed(warn=warn if warn is not None else python_warning):
        yield


# --- the checks at the API's edge -------------------------------------------------------
# Each raises ArgumentTypeError / ArgumentValueError (a TypeError / ValueError, and an
# InputError with the CLI's one-line message) naming the parameter.


def check_instance(name: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kind):
        raise ArgumentTypeError(name, f" must be {what}, not {describe(value)}")
    return value


def check_polygon(name: str, value: Any) -> BaseGeometry:
    if getattr(value, "geom_type", None) not in ("Polygon", "MultiPolygon"):
        raise ArgumentTypeError(
            name,
            " must be a shapely Polygon or MultiPolygon in WGS84 (read_play_area reads "
            f"files, GeoJSON and GeoDataFrames), not {describe(value)}",
        )
    return value


def check_game(name: str, value: Any) -> Game:
    from stations_generator.core.questions.game import Game

    return check_instance(name, value, Game, "a Game (from read_game)")


def check_station_map(name: str, value: Any) -> StationMap:
    from stations_generator.core.stationmap.build import StationMap

    return check_instance(name, value, StationMap, "a StationMap (from make_station_map)")


def check_optional_text(name: str, value: Any, *, empty: bool = True) -> str | None:
    return None if value is None else check_text(name, value, empty=empty)


def check_warn(value: Any) -> Warn:
    if value is None:
        return python_warning
    if not callable(value):
        raise ArgumentTypeError("warn", f" must be a callable taking a str, not {describe(value)}")
    return value


def check_existing(name: str, paths: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(check_file(f"{name}[{k}]", path) for k, path in enumerate(paths))


def check_file(name: str, value: Any) -> Path:
    path = check_path(name, value)
    if not path.is_file():
        raise ArgumentValueError(name, f": no file {str(path)!r}; check the path")
    return path


def make_request(names: dict[str, str] | None = None, **fields: Any):
    """The GenerateRequest of ``fields``; its errors name the API's keywords (``names``:
    field -> keyword)."""
    from stations_generator.app.requests import GenerateRequest

    try:
        return GenerateRequest(**fields)
    except ArgumentError as exc:
        field = exc.parameter.split("[")[0]
        keyword = (names or {}).get(field, field)
        raise exc.renamed(keyword + exc.parameter[len(field) :]) from None


def overpass_request_fields(settings: OverpassSettings | None) -> dict[str, Any]:
    s = OverpassSettings() if settings is None else settings
    check_instance("overpass", s, OverpassSettings, "an OverpassSettings")
    keys = ("overpass_urls", "overpass_timeout", "cache_dir", "use_cache")
    return dict(zip(keys, (s.urls, s.timeout, s.cache_dir, s.use_cache), strict=True))
