"""A small Nominatim client for ``--place``: the polygon of a named place.

It asks Nominatim's search API what ``osmnx.geocode_to_gdf`` asks (``format=json``,
``polygon_geojson=1``, ``dedupe=0``, ``limit=50``; the results sorted by
``importance``, the first (Multi)Polygon taken), on the transport the Overpass client
uses (:mod:`stations_generator.osm.transport`): one overall deadline per call,
retries of 429/502/503/504 within it (``Retry-After`` honoured, or failing at once
when it reaches past the deadline), waits said on stderr, and an on-disk cache that
keeps an answer only once it gave a polygon. osmnx retries a 504 every 55 s without
end and is not imported on this path.

Network failures (refused, unknown host, deadline passed, 5xx) raise
:class:`~stations_generator.errors.NominatimError` (exit 4, as Overpass failures);
a place Nominatim does not know, or knows only as a point, is an
:class:`~stations_generator.errors.InputError`.
"""

from __future__ import annotations

import json
import math
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

from stations_generator import settings
from stations_generator.errors import InputError, NominatimError
from stations_generator.osm.transport import (
    RETRY_STATUSES,
    Deadline,
    DeadlineExceeded,
    JsonCache,
    Waits,
    come_back_at,
    exchange,
    network_failure,
    retry_after,
)

__all__ = ["DEFAULT_NOMINATIM_URL", "NominatimClient", "default_nominatim_cache_dir"]

#: The public instance (see :mod:`stations_generator.settings`).
DEFAULT_NOMINATIM_URL = settings.DEFAULT_NOMINATIM_URL
_POLYGONS = ("Polygon", "MultiPolygon")


def default_nominatim_cache_dir() -> Path:
    """``nominatim`` beside the Overpass cache (:func:`stations_generator.settings.nominatim_cache_dir`)."""
    return settings.nominatim_cache_dir()


def _results(data: Any, url: str) -> list[dict[str, Any]]:
    """Nominatim's search answer: a list of result objects, or InputError."""
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise InputError(f"Nominatim at {url} answered something that is not a list of results")
    return data


def _importance(result: dict[str, Any]) -> float:
    value = result.get("importance")
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return 0.0


def _polygon(result: dict[str, Any], where: str) -> BaseGeometry:
    """A result's GeoJSON (Multi)Polygon as a valid shapely geometry, or InputError."""
    try:
        geometry = shape(result["geojson"])
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(f"{where}: a result has a broken polygon ({exc})") from None
    coords = shapely.get_coordinates(geometry)
    if geometry.is_empty or not (
        (abs(coords[:, 0]) <= 180).all() and (abs(coords[:, 1]) <= 90).all()
    ):
        raise InputError(f"{where}: a result's polygon is empty or off the globe")
    if not geometry.is_valid:
        geometry = shapely.make_valid(geometry)
    return shapely.normalize(geometry)


class NominatimClient:
    """Look places up on Nominatim, with a deadline, retries and a cache.

    Parameters
    ----------
    url : str, optional
        The instance's base URL [default: ``STATIONS_GENERATOR_NOMINATIM_URL``, else
        :data:`DEFAULT_NOMINATIM_URL`]; ``/search`` is appended.
    timeout : float
        The deadline of one lookup in seconds: every try and every wait.
    max_tries : int
        Requests before giving up on a busy server.
    backoff : float
        The wait before retry ``k`` (0-based) is ``min(backoff * 2**k, 60)`` seconds, at
        least 1 s (the usage policy's rate); ``Retry-After`` replaces it.
    cache_dir : Path, optional
        [default: :func:`default_nominatim_cache_dir`].
    use_cache : bool
        ``False`` neither reads nor writes the cache.
    sleep : callable
    log, notify, status : callable, optional
        As for :class:`~stations_generator.osm.overpass.OverpassClient`.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        timeout: float = settings.DEFAULT_TIMEOUT_S,
        max_tries: int = 4,
        backoff: float = 2.0,
        cache_dir: Path | None = None,
        use_cache: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        log: Callable[[str], None] | None = None,
        notify: Callable[[str], None] | None = None,
        status: Callable[[str | None], None] | None = None,
    ) -> None:
        base = url or settings.nominatim_url()
        parts = urllib.parse.urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InputError(
                f"Nominatim URL {base!r} is not an http(s) URL; expected something like "
                f"{DEFAULT_NOMINATIM_URL} (STATIONS_GENERATOR_NOMINATIM_URL)"
            )
        if not (timeout > 0 and math.isfinite(timeout)):
            raise InputError(
                f"Nominatim timeout must be a positive number of seconds, not {timeout}"
            )
        self.search_url = base.rstrip("/") + "/search"
        self.timeout = float(timeout)
        self.max_tries = max(1, int(max_tries))
        self.backoff = float(backoff)
        self.use_cache = use_cache
        self.user_agent = settings.user_agent()
        self._sleep = sleep
        self._waits = Waits(say=notify or log, show=status)
        folder = Path(cache_dir) if cache_dir is not None else default_nominatim_cache_dir()
        self._cache = JsonCache(folder, log=log, warn=notify or log)
        self._opener = urllib.request.build_opener()

    def url(self, query: str) -> str:
        """The search URL for ``query`` (also the cache key)."""
        params = {"format": "json", "polygon_geojson": 1, "dedupe": 0, "limit": 50, "q": query}
        return self.search_url + "?" + urllib.parse.urlencode(params)

    def place_polygon(self, query: str) -> BaseGeometry:
        """The polygon of the first (by importance) result that is an area.

        Parameters
        ----------
        query : str
            The place, as typed into openstreetmap.org's search.

        Returns
        -------
        shapely Polygon or MultiPolygon
            Valid and normalised.

        Raises
        ------
        InputError
            Nominatim knows no such place, or only as a point or line.
        NominatimError
            Nominatim could not be reached, stayed busy past the deadline, or
            answered with an error or a broken answer.
        """
        url = self.url(query)

        def parse(data: Any) -> BaseGeometry | str:
            results = sorted(_results(data, self.search_url), key=_importance, reverse=True)
            for result in results:
                geojson = result.get("geojson")
                if isinstance(geojson, dict) and geojson.get("type") in _POLYGONS:
                    return _polygon(result, f"Nominatim at {self.search_url}")
            if not results:
                return f"Nominatim geocoder returned 0 results for query {query!r}"
            kinds = {str((r.get("geojson") or {}).get("type", "point")) for r in results}
            return f"Nominatim has {query!r} only as a {'/'.join(sorted(kinds))}, not an area"

        if self.use_cache:
            hit = self._cache.load(url, parse, "Nominatim answer")
            if hit is not None and not isinstance(hit[0], str):
                return hit[0]
        body, found = self._get(url, parse)
        if isinstance(found, str):
            raise InputError(
                f"could not find a polygon for place {query!r} ({found}); try --osm-relation ID"
            )
        if self.use_cache:
            self._cache.store(url, body)
        return found

    def _get(self, url: str, parse: Callable[[Any], Any]) -> tuple[bytes, Any]:
        deadline = Deadline(self.timeout)
        request = urllib.request.Request(
            url, headers={"User-Agent": self.user_agent, "Accept": "application/json"}
        )
        label = f"Nominatim at {self.search_url}"
        instead = "or give the play area as a file or --osm-relation ID"
        hint = f"check your internet connection or STATIONS_GENERATOR_NOMINATIM_URL, {instead}"
        later = f"try again later, {instead}"
        for attempt in range(1, self.max_tries + 1):
            try:
                reply = exchange(self._opener, request, deadline, label=label, waits=self._waits)
            except DeadlineExceeded:
                raise NominatimError(
                    f"{label} gave no complete answer within the {self.timeout:g} s deadline; "
                    f"{later} or raise --overpass-timeout"
                ) from None
            except Exception as exc:
                classified = network_failure(exc)
                if classified is None:
                    raise
                kind, detail = classified
                if kind == "unreachable" or attempt == self.max_tries:
                    raise NominatimError(
                        f"could not connect to {label} ({detail}); {hint}"
                    ) from None
                what, wait = f"connection error ({detail})", None
            else:
                if 200 <= reply.status < 300:
                    try:
                        return reply.body, parse(json.loads(reply.body.decode("utf-8")))
                    except (ValueError, InputError) as exc:
                        why = str(exc) if isinstance(exc, InputError) else "not JSON"
                        raise NominatimError(
                            f"{label} answered with unusable data ({why}); nothing was cached; "
                            "try again later"
                        ) from None
                if reply.status not in RETRY_STATUSES or attempt == self.max_tries:
                    busy = reply.status in RETRY_STATUSES or reply.status >= 500
                    raise NominatimError(
                        f"{label} answered {reply.status} after {attempt} "
                        f"{'try' if attempt == 1 else 'tries'}; {later if busy else hint}"
                    )
                what, wait = (
                    f"answered {reply.status}",
                    retry_after(reply.headers.get("Retry-After")),
                )
                if wait is not None and wait > deadline.remaining():
                    raise NominatimError(
                        f"{label} answered {reply.status} and asks to be asked again "
                        f"{come_back_at(wait)}, beyond the {self.timeout:g} s deadline "
                        "(--overpass-timeout); try again then"
                    )
            if wait is None:
                wait = max(1.0, min(self.backoff * 2 ** (attempt - 1), 60.0))
            if wait > deadline.remaining():
                raise NominatimError(
                    f"{label} {what}, and the next try would start after the "
                    f"{self.timeout:g} s deadline (--overpass-timeout); {later}"
                )
            self._waits.pause(
                wait, f"{label} {what}, retrying in {wait:.1f} s (try {attempt + 1}/{self.max_tries})",
                self._sleep,
            )  # fmt: skip
        raise AssertionError("unreachable")  # pragma: no cover
