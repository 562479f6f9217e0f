"""Settings: the environment variables the package reads, and the defaults they override.

Every environment variable of the package is named and read here (the command line
also takes :data:`OVERPASS_URL_ENV` and :data:`CACHE_DIR_ENV` as option defaults, through
click). Each is read when asked for, through a small function, so a change to the
environment (a test's ``monkeypatch.setenv``, say) takes effect on the next call.

==========================================  ============================================
variable                                    read by
==========================================  ============================================
``STATIONS_GENERATOR_OVERPASS_URL``         the ``--overpass-url`` options (click)
``STATIONS_GENERATOR_CACHE_DIR``            ``--cache-dir`` (click), :func:`extract_cache_dir`
``STATIONS_GENERATOR_EXTRACT_CACHE_DIR``    :func:`extract_cache_dir`
``STATIONS_GENERATOR_EXTRACT_CACHE_MB``     :func:`extract_cache_mb`
``STATIONS_GENERATOR_NO_CACHE``             :func:`cache_enabled`
``STATIONS_GENERATOR_NOMINATIM_URL``        :func:`nominatim_url`
``STATIONS_GENERATOR_LOCATIONS_ON_DISK_MB`` :func:`locations_on_disk_mb`
``STATIONS_GENERATOR_PYOSMIUM_READER``      :func:`compiled_reader_enabled`
``LOCALAPPDATA``, ``XDG_CACHE_HOME``        :func:`user_cache_dir`
``LOCALAPPDATA``, ``XDG_DATA_HOME``         :func:`user_data_dir`
==========================================  ============================================

:func:`extract_cache_mb` and :func:`locations_on_disk_mb` refuse a value that is not a size with an
:class:`~stations_generator.errors.InputError` naming the variable and the values it takes
(one line on the command line, exit 2), rather than a silent default.

This module sits beside :mod:`stations_generator.errors` at the bottom of the package:
anything may import it, and it imports nothing of the package but that.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from pathlib import Path

from stations_generator.errors import InputError

__all__ = [
    "CACHE_DIR_ENV",
    "DEFAULT_EXTRACT_CACHE_MB",
    "DEFAULT_LOCATIONS_ON_DISK_MB",
    "DEFAULT_NOMINATIM_URL",
    "DEFAULT_OVERPASS_URLS",
    "DEFAULT_TIMEOUT_S",
    "EXTRACT_CACHE_DIR_ENV",
    "EXTRACT_CACHE_MB_ENV",
    "LOCATIONS_ON_DISK_MB_ENV",
    "NOMINATIM_URL_ENV",
    "NO_CACHE_ENV",
    "OVERPASS_URL_ENV",
    "PROJECT_URL",
    "cache_dir",
    "cache_enabled",
    "extract_cache_dir",
    "extract_cache_mb",
    "locations_on_disk_mb",
    "nominatim_cache_dir",
    "nominatim_url",
    "overpass_cache_dir",
    "user_agent",
    "user_cache_dir",
]

# --------------------------------------------------------------------------- #
# The variables
# --------------------------------------------------------------------------- #

#: Overpass endpoints, space-separated (the default of ``--overpass-url``).
OVERPASS_URL_ENV = "STATIONS_GENERATOR_OVERPASS_URL"
#: The Overpass cache folder (the default of ``--cache-dir``); extracts are cached in
#: its ``extracts`` folder.
CACHE_DIR_ENV = "STATIONS_GENERATOR_CACHE_DIR"
#: The extract cache's own folder.
EXTRACT_CACHE_DIR_ENV = "STATIONS_GENERATOR_EXTRACT_CACHE_DIR"
#: The extract cache's size cap, in MiB.
EXTRACT_CACHE_MB_ENV = "STATIONS_GENERATOR_EXTRACT_CACHE_MB"
#: Set to anything but ``0`` to turn the extract cache off where no command decides.
NO_CACHE_ENV = "STATIONS_GENERATOR_NO_CACHE"
#: The Nominatim instance for ``--place``.
NOMINATIM_URL_ENV = "STATIONS_GENERATOR_NOMINATIM_URL"
#: Extracts from this many MB up keep their node locations in a temporary file.
LOCATIONS_ON_DISK_MB_ENV = "STATIONS_GENERATOR_LOCATIONS_ON_DISK_MB"
#: Read PBF extracts with pyosmium even where the compiled reader is built.
PYOSMIUM_READER_ENV = "STATIONS_GENERATOR_PYOSMIUM_READER"

# --------------------------------------------------------------------------- #
# The defaults
# --------------------------------------------------------------------------- #

#: Public Overpass instances, tried in this order.
DEFAULT_OVERPASS_URLS: tuple[str, ...] = (
    "https://overpass-api.de/api/interpreter",
    "https://overpass.private.coffee/api/interpreter",
)

#: The public Nominatim instance (its usage policy: at most one request a second, a
#: real User-Agent, cache what you fetch).
DEFAULT_NOMINATIM_URL = "https://nominatim.openstreetmap.org"

#: Seconds one Overpass or Nominatim call may take in all (``--overpass-timeout``): every
#: try, every instance and every wait. Overpass stops a query itself after its
#: ``[timeout:180]``; the rest leaves room for a retry or the next instance.
DEFAULT_TIMEOUT_S = 300.0

#: Seconds of (deterministic) solver time ``generate --optimize`` may spend by default.
SOLVER_TIME_LIMIT_S = 60.0

#: Appended to the User-Agent as ``(+URL)`` when set; Overpass operators ask
#: clients to identify themselves. Left empty until the project has a public home.
PROJECT_URL = ""

#: The extract cache's size cap, in MiB, when :data:`EXTRACT_CACHE_MB_ENV` is not set.
DEFAULT_EXTRACT_CACHE_MB = 4096.0

#: Extracts from this many MB up keep their node locations on disk (see
#: :func:`stations_generator.osm.one_pass.location_index`). Only the nodes the layers need
#: are stored (~16 bytes each, sparse): 8 % of the nodes of the tiled Liechtenstein
#: extracts, 88 MiB for 1024 tiles (480 MB of PBF, 67 M nodes); a national extract's
#: layers may need tens of millions, so from this size on the page cache holds them.
DEFAULT_LOCATIONS_ON_DISK_MB = 512.0

_APP_FOLDER = "stations-generator"


# --------------------------------------------------------------------------- #
# Reading them
# --------------------------------------------------------------------------- #


def _env(name: str) -> str:
    """The variable's value; ``""`` when it is not set."""
    return os.environ.get(name, "")


@functools.cache
def user_agent() -> str:
    """The ``User-Agent`` sent to Overpass and Nominatim.

    Returns
    -------
    str
        ``stations-generator/<version>`` (``dev`` when the package is not installed),
        followed by `` (+PROJECT_URL)`` when :data:`PROJECT_URL` is set.
    """
    from importlib import metadata

    try:
        version = metadata.version("stations-generator")
    except metadata.PackageNotFoundError:
        version = "dev"
    agent = f"stations-generator/{version}"
    return f"{agent} (+{PROJECT_URL})" if PROJECT_URL else agent


def user_cache_dir() -> Path:
    """The package's folder in the per-user cache folder.

    Returns
    -------
    pathlib.Path
        ``<base>/stations-generator`` where ``<base>`` is ``%LOCALAPPDATA%`` on Windows
        (falling back to ``~/AppData/Local``) and ``$XDG_CACHE_HOME`` elsewhere (falling
        back to ``~/.cache``; a relative ``XDG_CACHE_HOME`` is ignored, as the XDG spec
        requires). The folder is not created here.
    """
    if sys.platform == "win32":
        local = _env("LOCALAPPDATA")
        base = Path(local) if local else Path.home() / "AppData" / "Local"
    else:
        xdg = _env("XDG_CACHE_HOME")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / _APP_FOLDER


def user_data_dir() -> Path:
    """The package's folder in the per-user data folder (``serve``'s shared games).

    Returns
    -------
    pathlib.Path
        ``<base>/stations-generator`` where ``<base>`` is ``%LOCALAPPDATA%`` on Windows
        (falling back to ``~/AppData/Local``) and ``$XDG_DATA_HOME`` elsewhere (falling
        back to ``~/.local/share``; a relative ``XDG_DATA_HOME`` is ignored, as the XDG
        spec requires). The folder is not created here.
    """
    if sys.platform == "win32":
        local = _env("LOCALAPPDATA")
        base = Path(local) if local else Path.home() / "AppData" / "Local"
    else:
        xdg = _env("XDG_DATA_HOME")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / _APP_FOLDER


def overpass_cache_dir() -> Path:
    """Where Overpass answers are cached when no folder is given.

    Returns
    -------
    pathlib.Path
        ``overpass`` in :func:`user_cache_dir` (:data:`CACHE_DIR_ENV` is applied by the
        command line's ``--cache-dir``, not here).
    """
    return user_cache_dir() / "overpass"


def nominatim_cache_dir() -> Path:
    """Where Nominatim answers are cached when no folder is given.

    Returns
    -------
    pathlib.Path
        ``nominatim`` in :func:`user_cache_dir`, beside the Overpass cache.
    """
    return user_cache_dir() / "nominatim"


def cache_dir() -> Path | None:
    """The cache folder :data:`CACHE_DIR_ENV` names.

    Returns
    -------
    pathlib.Path or None
        The folder, or None when the variable is not set (or empty).
    """
    value = _env(CACHE_DIR_ENV)
    return Path(value) if value else None


def extract_cache_dir() -> Path:
    """Where extract layers are cached when no folder is given.

    The command line's ``--cache-dir`` (which :data:`CACHE_DIR_ENV` also sets) gives a
    folder: its ``extracts`` folder is used, and this is not asked.

    Returns
    -------
    pathlib.Path
        :data:`EXTRACT_CACHE_DIR_ENV`, else ``extracts`` in :func:`cache_dir`, else
        ``extracts`` in :func:`overpass_cache_dir`.
    """
    own = _env(EXTRACT_CACHE_DIR_ENV)
    if own:
        return Path(own)
    return (cache_dir() or overpass_cache_dir()) / "extracts"


def extract_cache_mb() -> float:
    """The extract cache's size cap.

    Returns
    -------
    float
        :data:`EXTRACT_CACHE_MB_ENV` in MiB, or :data:`DEFAULT_EXTRACT_CACHE_MB` when it
        is not set (or empty).

    Raises
    ------
    InputError
        If it is set to anything but a finite number above 0 (``inf``, ``nan``, ``0``,
        ``-1``, ``1e400``, ``abc``): the cap would be no cap, or would empty the cache on
        every write. The message names the variable, the values it takes and the way to
        turn the cache off (``--no-cache``, :data:`NO_CACHE_ENV`).
    """
    raw = _env(EXTRACT_CACHE_MB_ENV).strip()
    if not raw:
        return DEFAULT_EXTRACT_CACHE_MB
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        raise InputError(
            f"{EXTRACT_CACHE_MB_ENV}={shown!r} is not a size: give a number of MiB above 0 "
            f"(default {DEFAULT_EXTRACT_CACHE_MB:g}), or unset it; to turn the extract cache "
            f"off, use --no-cache or {NO_CACHE_ENV}=1"
        )
    return value


def cache_enabled() -> bool:
    """Whether the extract cache is on where no command decides.

    Returns
    -------
    bool
        False when :data:`NO_CACHE_ENV` is set to anything but ``""`` or ``0``.
    """
    return _env(NO_CACHE_ENV) in ("", "0")


def compiled_reader_enabled() -> bool:
    """Whether PBF extracts are read by the compiled reader where it is built.

    Returns
    -------
    bool
        False when :data:`PYOSMIUM_READER_ENV` is set to anything but ``""`` or ``0``
        (the pyosmium reader then reads every extract: the reference the compiled one is
        tested against).
    """
    return _env(PYOSMIUM_READER_ENV) in ("", "0")


def nominatim_url() -> str:
    """The Nominatim instance used when none is given.

    Returns
    -------
    str
        :data:`NOMINATIM_URL_ENV`, or :data:`DEFAULT_NOMINATIM_URL` when it is not set.
    """
    return _env(NOMINATIM_URL_ENV) or DEFAULT_NOMINATIM_URL


def locations_on_disk_mb() -> float:
    """The extract size from which node locations are kept on disk.

    Returns
    -------
    float
        :data:`LOCATIONS_ON_DISK_MB_ENV` in MB, or :data:`DEFAULT_LOCATIONS_ON_DISK_MB`
        when it is not set (or empty); ``0`` keeps them on disk for every extract.

    Raises
    ------
    InputError
        If it is set to anything but a finite number of 0 or more (``abc``, ``-1``,
        ``nan``, ``inf``): one line naming the variable and the values it takes.
    """
    raw = _env(LOCATIONS_ON_DISK_MB_ENV).strip()
    if not raw:
        return DEFAULT_LOCATIONS_ON_DISK_MB
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        raise InputError(
            f"{LOCATIONS_ON_DISK_MB_ENV}={shown!r} is not a size: give a number of MB, 0 or "
            f"more (0: always on disk; default {DEFAULT_LOCATIONS_ON_DISK_MB:g}), or unset it"
        )
    return value
