"""Reading a user's DEM (formats/dem.py) on a real SRTM3 crop around Monaco.

Reprojected, re-unitted and refused variants are written from the real file into a
temporary folder; no heights are invented.
"""

from __future__ import annotations

import numpy as np
import pytest
import rasterio
import shapely
from rasterio.warp import Resampling, calculate_default_transform, reproject

from stations_generator.core.questions.sea_level import SeaLevelQuestion
from stations_generator.errors import InputError
from stations_generator.formats import dem
from stations_generator.formats.dem import (
    MAX_DEM_CELLS,
    check_dem_path,
    parse_altitude,
    read_dem,
    sample_dem,
)
from tests.support.paths import DATA, EXTRACTS

DEM = DATA / "dem" / "monaco-srtm3.tif"
AREA = (7.349, 43.71, 7.491, 43.77)


def _points(n: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return rng.uniform(AREA[0], AREA[2], n), rng.uniform(AREA[1], AREA[3], n)


def _copy(tmp_path, name: str, **changes):
    """The real DEM written again with some profile changes (and the same heights)."""
    with rasterio.open(DEM) as src:
        profile, data = src.profile, src.read(1)
    profile.update(changes.pop("profile", {}))
    out = tmp_path / name
    with rasterio.open(out, "w", **profile) as dst:
        dst.write(changes.pop("data", data), 1)
        if "units" in changes:
            dst.units = (changes["units"],)
    return out


def test_reads_only_the_window_it_needs():
    grid = read_dem(DEM, AREA)
    with rasterio.open(DEM) as src:
        full = src.height * src.width
    rows, cols = grid.shape
    assert rows * cols < full  # a window, not the file
    a, _, c, _, e, f = grid.transform
    # The window covers the area with one cell to spare on each side.
    assert c <= AREA[0] - a and c + a * cols >= AREA[2] + a
    assert f >= AREA[3] - e and f + e * rows <= AREA[1] + e
    assert grid.frame is None  # WGS84 lon/lat
    assert np.isnan(grid.heights).any() and np.nanmax(grid.heights) > 500


def test_grid_heights_are_gdals_heights():
    grid = read_dem(DEM, AREA)
    lons, lats = _points()
    mine, gdal = grid.heights_at(lons, lats), sample_dem(DEM, lons, lats)
    assert (np.isnan(mine) == np.isnan(gdal)).all()
    assert np.nanmax(np.abs(mine - gdal)) == 0


def test_an_srtm_hgt_tile_is_read(tmp_path):
    """The real cells put back into a whole 1201 x 1201 tile ``N43E007.hgt`` (the rest
    void): GDAL's SRTMHGT driver georeferences it by its name."""
    with rasterio.open(DEM) as src:
        data = src.read(1)
        # The tile's cells are 1/1200° wide, centred on whole degrees at its edges.
        col = round((src.bounds.left - (7 - 1 / 2400)) * 1200)
        row = round((44 + 1 / 2400 - src.bounds.top) * 1200)
    assert (col, row) == (396, 264)  # where the crop was cut (tests/data/dem/README.md)
    tile = np.full((1201, 1201), -32768, ">i2")
    tile[row : row + data.shape[0], col : col + data.shape[1]] = data
    hgt = tmp_path / "N43E007.hgt"
    hgt.write_bytes(tile.tobytes())
    lons, lats = _points()
    got, want = read_dem(hgt, AREA).heights_at(lons, lats), sample_dem(DEM, lons, lats)
    assert (np.isnan(got) == np.isnan(want)).all() and np.nanmax(np.abs(got - want)) == 0


def test_a_projected_dem_is_read_in_its_own_crs(tmp_path):
    """The real DEM warped to UTM 32N (nearest neighbour): the grid keeps UTM, and its
    answers and regions agree with GDAL's reading of that file."""
    utm = tmp_path / "monaco-utm.tif"
    with rasterio.open(DEM) as src:
        transform, width, height = calculate_default_transform(
            src.crs, "EPSG:32632", src.width, src.height, *src.bounds
        )
        profile = src.profile | {"crs": "EPSG:32632", "transform": transform}
        profile |= {"width": width, "height": height}
        with rasterio.open(utm, "w", **profile) as dst:
            reproject(rasterio.band(src, 1), rasterio.band(dst, 1), resampling=Resampling.nearest)
    grid = read_dem(utm, AREA)
    assert grid.frame is not None and grid.frame.crs.to_epsg() == 32632
    lons, lats = _points()
    gdal = sample_dem(utm, lons, lats)
    mine = grid.heights_at(lons, lats)
    assert (np.isnan(mine) == np.isnan(gdal)).all() and np.nanmax(np.abs(mine - gdal)) == 0
    # Same ground as the lon/lat original: a cell or so apart at most points.
    original = sample_dem(DEM, lons, lats)
    assert np.nanmedian(np.abs(original - gdal)) < 10
    q = SeaLevelQuestion((7.42, 43.738), 50.0, grid, True)
    closer = q.kept_for(True, shapely.box(*AREA))
    edge = shapely.buffer(closer.boundary, 1e-6)
    ok = ~shapely.intersects_xy(edge, lons, lats) & np.isfinite(gdal)
    inside = shapely.intersects_xy(closer, lons[ok], lats[ok])
    assert (inside == (np.abs(gdal[ok]) <= 50)).all()


def test_heights_in_feet_are_converted(tmp_path):
    with rasterio.open(DEM) as src:
        metres = src.read(1, masked=True).astype("float32")
    feet = np.ma.filled(metres / 0.3048, -9999).astype("float32")
    path = _copy(
        tmp_path,
        "feet.tif",
        profile={"dtype": "float32", "nodata": -9999},
        data=feet,
        units="ft",
    )
    lons, lats = _points()
    got, want = read_dem(path, AREA).heights_at(lons, lats), sample_dem(DEM, lons, lats)
    assert (np.isnan(got) == np.isnan(want)).all()
    assert np.nanmax(np.abs(got - want)) < 1e-3


def _one_line_error(path, match: str, **kwargs) -> str:
    with pytest.raises(InputError, match=match) as info:
        read_dem(path, AREA, **kwargs)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_no_dem_given_names_the_option():
    message = _one_line_error(None, "no DEM was given")
    assert "--dem FILE" in message and '"dem"' in message
    assert "--elevation FILE" in _one_line_error("", "no DEM", option="--elevation")


def test_missing_file_and_folder(tmp_path):
    _one_line_error(tmp_path / "N43E007.hgt", "not found")
    _one_line_error(tmp_path, "not a regular file")


def test_a_vrt_is_refused_before_gdal_opens_it(tmp_path):
    vrt = tmp_path / "monaco.vrt"
    vrt.write_text(
        '<VRTDataset rasterXSize="216" rasterYSize="96"><VRTRasterBand dataType="Int16" '
        f'band="1"><SimpleSource><SourceFilename>{DEM}</SourceFilename></SimpleSource>'
        "</VRTRasterBand></VRTDataset>"
    )
    assert "gdal_translate" in _one_line_error(vrt, "XML file")


def test_remote_and_virtual_paths_are_refused():
    _one_line_error("/vsicurl/https://example.org/dem.tif", "only local files")
    _one_line_error("https://example.org/dem.tif", "only local files")


def test_non_raster_files_are_refused(tmp_path):
    _one_line_error(EXTRACTS / "monaco-2016.osm.pbf", "not a raster GDAL reads")
    _one_line_error(DATA / "dem" / "README.md", "not a raster GDAL reads")
    geojson = tmp_path / "area.geojson"
    geojson.write_text('{"type": "FeatureCollection", "features": []}')
    _one_line_error(geojson, "JSON file")


def test_formats_that_are_not_one_band_of_heights(tmp_path):
    with rasterio.open(DEM) as src:
        data, transform = src.read(1), src.transform
    two = tmp_path / "two-bands.tif"
    profile = {"driver": "GTiff", "dtype": "int16", "width": data.shape[1]}
    profile |= {"height": data.shape[0], "count": 2, "crs": "EPSG:4326"}
    with rasterio.open(two, "w", **profile, transform=transform) as dst:
        dst.write(np.stack([data, data]))
    _one_line_error(two, "2 bands")
    png = tmp_path / "heights.png"
    with rasterio.open(png, "w", driver="PNG", dtype="uint16", width=8, height=8, count=1) as dst:
        dst.write(np.abs(data[:8, :8]).astype("uint16"), 1)
    _one_line_error(png, "PNG driver")
    _one_line_error(_copy(tmp_path, "no-crs.tif", profile={"crs": None}), "no coordinate system")
    _one_line_error(_copy(tmp_path, "yards.tif", units="yd"), "'yd'")


def test_a_dem_that_misses_the_play_area():
    helsinki = (24.935, 60.164, 24.953, 60.179)
    with pytest.raises(InputError, match="covers lon 7.3296–7.5096") as info:
        read_dem(DEM, helsinki)
    assert "give a DEM covering all of it" in str(info.value)


def test_size_and_cell_limits(monkeypatch, tmp_path):
    monkeypatch.setattr(dem, "MAX_DEM_BYTES", 1000)
    _one_line_error(DEM, "more than the")
    monkeypatch.undo()
    monkeypatch.setattr(dem, "MAX_DEM_CELLS", 100)
    _one_line_error(DEM, "resample it coarser")
    assert MAX_DEM_CELLS >= 4000 * 4000  # a 120 km area at 30 m


def test_check_dem_path_resolves():
    assert check_dem_path(str(DEM)) == DEM.resolve()


@pytest.mark.parametrize(
    ("text", "metres"),
    [(12, 12.0), ("12 m", 12.0), ("-12 m", -12.0), (" 40 ft", 12.192), ("0", 0.0), (-3.5, -3.5)],
)
def test_parse_altitude(text, metres):
    assert parse_altitude(text) == pytest.approx(metres)


@pytest.mark.parametrize("text", ["high", "12 km", "", "nan", 12000, "-600 m", True])
def test_parse_altitude_refuses(text):
    with pytest.raises(InputError, match="altitude"):
        parse_altitude(text)
