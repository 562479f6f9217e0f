"""A user's elevation model (DEM), read safely with rasterio for the sea-level question.

The sea-level question needs the height of the ground where the hider may be; that comes
from a DEM the user gives (``--dem FILE``, or ``"dem"`` in the game file): a GeoTIFF
(e.g. Copernicus GLO-30, a national DEM), an SRTM ``.hgt`` tile, or another single-band
raster format GDAL reads (:data:`DEM_DRIVERS`). Heights are taken as metres above sea
level (the band's unit may say feet: converted; scale and offset applied).

Opened safely (GDAL opens whatever its drivers recognise, and some point elsewhere):

* only a regular local file of at most :data:`MAX_DEM_BYTES`, opened by its absolute
  path (no ``/vsi…`` paths, URLs or ``DRIVER:file:subdataset`` names);
* XML, JSON and SQLite files are refused before GDAL sees them (a VRT, a WMS/WMTS/WCS
  service description, a tile index or a tile store names other files or the network);
  the driver GDAL picks must then be one of :data:`DEM_DRIVERS`, the file must have one
  band, no subdatasets, a coordinate system and a north-up grid;
* GDAL's network access and directory listings are off (:data:`.ogr_files.GDAL_CONFIG`);
* only the window covering the needed area (plus one cell) is read, at most
  :data:`MAX_DEM_CELLS` cells: memory is bounded whatever the file's size.

The DEM's CRS is honoured: the area is reprojected to it to find the window, and the
grid keeps its CRS (:class:`~stations_generator.core.questions.sea_level.ElevationGrid`
projects points and regions between it and WGS84).
"""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyproj
import rasterio
from rasterio.errors import RasterioError
from rasterio.warp import transform as warp_transform
from rasterio.warp import transform_bounds
from rasterio.windows import Window, from_bounds

from stations_generator.core.geo.geodesy import LocalFrame
from stations_generator.core.questions.sea_level import ElevationGrid
from stations_generator.errors import InputError
from stations_generator.formats.ogr_files import GDAL_CONFIG

__all__ = [
    "DEM_DRIVERS",
    "DEM_OPTION",
    "MAX_DEM_BYTES",
    "MAX_DEM_CELLS",
    "check_dem_path",
    "no_dem_error",
    "parse_altitude",
    "read_dem",
    "sample_dem",
]

#: How a user gives the DEM on the command line (named in the "no DEM" message).
DEM_OPTION = "--dem"
#: Largest DEM file opened: a country's 25 m DEM as one GeoTIFF is a few GiB; only a
#: window of it is read (:data:`MAX_DEM_CELLS`), so the size only bounds what GDAL scans.
MAX_DEM_BYTES = 8 * 1024**3
#: Most cells read: 4000 x 4000, a 120 x 120 km play area at 30 m (Copernicus GLO-30,
#: SRTM 1") or 360 x 360 km at 90 m (SRTM3); 128 MB as float64 heights.
MAX_DEM_CELLS = 16_000_000
#: GDAL raster drivers accepted: single-file elevation formats (GeoTIFF and COG, SRTM
#: .hgt, DTED, USGS DEM, Esri/GRASS ASCII grids, Erdas Imagine, BIL/ENVI, Surfer, SAGA,
#: netCDF with one variable, JPEG 2000, and the terrain formats).
DEM_DRIVERS = frozenset(
    {
        "GTiff",
        "SRTMHGT",
        "DTED",
        "USGSDEM",
        "AAIGrid",
        "GRASSASCIIGrid",
        "HFA",
        "EHdr",
        "ENVI",
        "GSAG",
        "GSBG",
        "GS7BG",
        "SAGA",
        "XYZ",
        "netCDF",
        "JP2OpenJPEG",
        "BT",
        "Leveller",
        "Terragen",
        "HF2",
        "SIGDEM",
        "RST",
        "PCRaster",
        "RRASTER",
    }
)
#: Band units read as metres, and the ones converted (US survey foot: 1200/3937 m).
_METRES = {"", "m", "metre", "metres", "meter", "meters"}
_FEET = {"ft": 0.3048, "foot": 0.3048, "feet": 0.3048, "us survey foot": 1200 / 3937}
_FIX = "give a GeoTIFF or SRTM .hgt file"
#: Altitudes accepted for a seeker (m): the Dead Sea shore (-430 m) to above Everest.
_ALTITUDE_RANGE_M = (-500.0, 9000.0)
_ALTITUDE_UNITS = {"": 1.0, "m": 1.0, "ft": 0.3048, "feet": 0.3048}


def no_dem_error(option: str = DEM_OPTION) -> InputError:
    """The one-line error for a sea-level question without a DEM, naming the option."""
    return InputError(
        "the sea-level question needs ground heights and no DEM was given; give an elevation "
        f'file covering the play area (a GeoTIFF or SRTM .hgt) with {option} FILE or "dem" '
        "in the game file"
    )


def check_dem_path(path: str | os.PathLike | None, option: str = DEM_OPTION) -> Path:
    """The DEM's absolute path, after the checks made before GDAL sees the file.

    Parameters
    ----------
    path : str, PathLike or None
        The DEM the user gave; None or ``""`` when none was.
    option : str
        How the user gives a DEM (named in the message when none was given).

    Returns
    -------
    Path
        The resolved path of a regular file of at most :data:`MAX_DEM_BYTES`.

    Raises
    ------
    InputError
        One line naming the problem and the fix.
    """
    if path is None or str(path).strip() == "":
        raise no_dem_error(option)
    text = str(path)
    if "://" in text or text.startswith("/vsi"):
        raise InputError(
            f"DEM {text}: only local files are read, not URLs or GDAL /vsi paths; {_FIX}"
        )
    label = Path(text).name or text
    try:
        resolved = Path(text).resolve(strict=True)
        info = resolved.stat()
    except FileNotFoundError:
        raise InputError(f"DEM file {text} not found; {_FIX} covering the play area") from None
    except (OSError, RuntimeError) as exc:
        raise InputError(
            f"cannot read DEM {label}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"DEM {label} is not a regular file; {_FIX}")
    if info.st_size > MAX_DEM_BYTES:
        raise InputError(
            f"DEM {label} is {info.st_size / 1024**3:.1f} GiB, more than the "
            f"{MAX_DEM_BYTES // 1024**3} GiB read; crop it to the play area (gdal_translate -projwin)"
        )
    _sniff(resolved, label)
    return resolved


def _sniff(path: Path, label: str) -> None:
    """Refuse the files that make GDAL open other files or the network (by their first bytes)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        raise InputError(f"cannot read DEM {label}: {exc.strerror or exc}") from None
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    what = None
    if text.startswith(b"<"):
        what = "an XML file (a VRT, or a WMS/WMTS/WCS service description)"
    elif text[:1] in (b"{", b"["):
        what = "a JSON file (a STAC or tile index, not elevations)"
    elif head.startswith(b"SQLite format 3\x00"):
        what = "an SQLite file (a tile store or index)"
    if what:
        raise InputError(
            f"DEM {label} is {what}; {_FIX} with the heights themselves "
            "(gdal_translate turns a VRT into a GeoTIFF)"
        )


def _open(path: Path, label: str) -> Any:
    try:
        src = rasterio.open(path)
    except RasterioError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        first = first.replace(f"'{path}' ", "").replace(str(path), label)  # GDAL names the path
        raise InputError(f"DEM {label} is not a raster GDAL reads ({first}); {_FIX}") from None
    try:
        _check_dataset(src, label)
    except BaseException:
        src.close()
        raise
    return src


def _check_dataset(src: Any, label: str) -> None:
    if src.driver not in DEM_DRIVERS:
        raise InputError(
            f"DEM {label} is read by GDAL's {src.driver} driver, not one of the elevation "
            f"formats accepted; {_FIX} (gdal_translate converts)"
        )
    if src.subdatasets:
        raise InputError(
            f"DEM {label} holds {len(src.subdatasets)} subdatasets; export the elevation "
            "variable alone to a GeoTIFF (gdal_translate)"
        )
    if src.count != 1:
        raise InputError(f"DEM {label} has {src.count} bands, not one band of heights; {_FIX}")
    if src.crs is None:
        raise InputError(f"DEM {label} has no coordinate system; {_FIX} with its CRS")
    t = src.transform
    if t.b != 0 or t.d != 0:
        raise InputError(f"DEM {label} is a rotated grid; warp it north-up (gdalwarp) first")
    _metres_per_unit(src, label)


def _metres_per_unit(src: Any, label: str) -> float:
    unit = (src.units[0] or "").strip().lower() if src.units else ""
    if unit in _METRES:
        return 1.0
    if unit in _FEET:
        return _FEET[unit]
    raise InputError(f"DEM {label} has heights in {unit!r}; give heights in metres or feet")


def _frame(crs: Any) -> LocalFrame | None:
    """None for WGS84 lon/lat (the grid's x/y are lon/lat), else the CRS as a frame."""
    proj = pyproj.CRS.from_wkt(crs.to_wkt())
    if proj.is_geographic and proj.equals(pyproj.CRS.from_epsg(4326), ignore_axis_order=True):
        return None
    return LocalFrame(proj)


def read_dem(
    path: str | os.PathLike | None,
    bounds: tuple[float, float, float, float],
    option: str = DEM_OPTION,
) -> ElevationGrid:
    """The heights of a DEM over a lon/lat area, as an :class:`ElevationGrid`.

    Parameters
    ----------
    path : str, PathLike or None
        The DEM (None when the user gave none: the "no DEM" error).
    bounds : (float, float, float, float)
        ``(min_lon, min_lat, max_lon, max_lat)`` of the area needed (the play area).
    option : str
        How the user gives a DEM, for the messages.

    Returns
    -------
    ElevationGrid
        The cells covering ``bounds`` plus one cell each side, in the DEM's CRS;
        heights in metres, NaN where the DEM has no data.

    Raises
    ------
    InputError
        One line: no DEM, not a raster GDAL reads, a format refused, too large a
        window, or a DEM that does not cover the area.
    """
    resolved = check_dem_path(path, option)
    label = resolved.name
    with rasterio.Env(**GDAL_CONFIG), _open(resolved, label) as src:
        window = _window(src, bounds, label)
        band = src.read(1, window=window, masked=True, out_dtype="float64")
        heights = np.ma.filled(band, np.nan)
        heights = heights * src.scales[0] + src.offsets[0]
        heights *= _metres_per_unit(src, label)
        transform = src.window_transform(window)
        frame = _frame(src.crs)
    return ElevationGrid(heights, tuple(transform)[:6], frame, label)  # type: ignore[arg-type]


def _window(src: Any, bounds: tuple[float, float, float, float], label: str) -> Window:
    """The window of cells covering lon/lat ``bounds`` with one cell to spare each side."""
    west, south, east, north = transform_bounds("EPSG:4326", src.crs, *bounds, densify_pts=21)
    left, bottom, right, top = src.bounds
    # Half a cell of slack: a tile's edge cells are centred on the whole degree.
    slack_x, slack_y = abs(src.transform.a) / 2, abs(src.transform.e) / 2
    if (
        west < left - slack_x
        or east > right + slack_x
        or south < bottom - slack_y
        or north > top + slack_y
    ):
        have = transform_bounds(src.crs, "EPSG:4326", left, bottom, right, top)
        raise InputError(
            f"DEM {label} covers lon {have[0]:.4f}–{have[2]:.4f}, lat {have[1]:.4f}–{have[3]:.4f} "
            f"but the play area reaches lon {bounds[0]:.4f}–{bounds[2]:.4f}, lat "
            f"{bounds[1]:.4f}–{bounds[3]:.4f}; give a DEM covering all of it (merge tiles with gdalwarp)"
        )
    win = from_bounds(west, south, east, north, src.transform)
    col0, row0 = math.floor(win.col_off) - 1, math.floor(win.row_off) - 1
    col1 = math.ceil(win.col_off + win.width) + 1
    row1 = math.ceil(win.row_off + win.height) + 1
    col0, row0 = max(col0, 0), max(row0, 0)
    col1, row1 = min(col1, src.width), min(row1, src.height)
    cells = (col1 - col0) * (row1 - row0)
    if cells > MAX_DEM_CELLS:
        raise InputError(
            f"DEM {label}: the play area covers {cells:,} of its cells, more than the "
            f"{MAX_DEM_CELLS:,} read; resample it coarser (gdalwarp -tr) or play on a smaller area"
        )
    return Window(col0, row0, max(col1 - col0, 1), max(row1 - row0, 1))


def sample_dem(path: str | os.PathLike, lons: Sequence[float], lats: Sequence[float]) -> np.ndarray:
    """The DEM's height (m) at each lon/lat point, read point by point through GDAL.

    An independent reading of the same file (rasterio's sampler, points reprojected
    to the DEM's CRS): NaN where the DEM has no data or the point is off it.
    """
    resolved = check_dem_path(path)
    label = resolved.name
    with rasterio.Env(**GDAL_CONFIG), _open(resolved, label) as src:
        xs, ys = warp_transform("EPSG:4326", src.crs, list(lons), list(lats))
        nodata = src.nodata
        scale = src.scales[0] * _metres_per_unit(src, label)
        offset = src.offsets[0] * _metres_per_unit(src, label)
        left, bottom, right, top = src.bounds
        out = np.full(len(xs), np.nan)
        for i, value in enumerate(src.sample(zip(xs, ys, strict=True), indexes=1, masked=True)):
            x, y = xs[i], ys[i]
            if not (left <= x < right and bottom < y <= top) or np.ma.is_masked(value[0]):
                continue
            if nodata is not None and value[0] == nodata:
                continue
            out[i] = float(value[0]) * scale + offset
    return out


def parse_altitude(value: Any, what: str = "altitude") -> float:
    """The seekers' GPS altitude in metres: a number, or ``"12 m"``, ``"-3 m"``, ``"40 ft"``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        metres = float(value)
    else:
        m = re.fullmatch(r"\s*([-+]?[0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(value))
        if not m or m.group(2).lower() not in _ALTITUDE_UNITS:
            raise InputError(
                f'cannot read {what} {value!r}; write e.g. 12, "12 m", "-3 m" or "40 ft"'
            )
        metres = float(m.group(1)) * _ALTITUDE_UNITS[m.group(2).lower()]
    low, high = _ALTITUDE_RANGE_M
    if not math.isfinite(metres) or not low <= metres <= high:
        raise InputError(
            f"{what} {value!r} is not an altitude on Earth; give {low:g} to {high:g} m"
        )
    return metres
