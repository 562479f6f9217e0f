"""The ``calibrate`` use case: time random station pairs of a map and write
calibration.png and calibration.csv."""

from __future__ import annotations

import csv
import io
import logging
import random
from dataclasses import dataclass
from pathlib import Path

from stations_generator.app.play import RoadOptions, drive_times, load_map, map_tiers
from stations_generator.app.reporting import status
from stations_generator.core.play.calibration import Calibration, calibrate, sample_pairs
from stations_generator.core.play.cooldown import COOLDOWN_FACTOR, TRANSIT_FACTOR, TRANSIT_RANGE
from stations_generator.core.play.departure import DepartureTable
from stations_generator.core.stationmap.density import WaitTier
from stations_generator.errors import InputError
from stations_generator.formats.atomic import output_set
from stations_generator.pages.calibration_plot import calibration_png

__all__ = [
    "CALIBRATION_CSV",
    "CALIBRATION_PNG",
    "CalibrationRun",
    "calibrate_map",
    "calibration_csv",
]

CALIBRATION_PNG = "calibration.png"
CALIBRATION_CSV = "calibration.csv"

#: The status lines of the steps.
log = logging.getLogger(__name__)


def calibration_csv(cal: Calibration) -> str:
    """calibration.csv: one row per station pair, with its drive and door-to-door times.

    Parameters
    ----------
    cal : Calibration

    Returns
    -------
    str
        The CSV text (a header row, then the pairs in the calibration's order).
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(
        [
            "origin_id",
            "origin_name",
            "destination_id",
            "destination_name",
            "density_tier",
            "wait_min",
            "wait_max",
            "drive_s",
            "drive_m",
            "method",
            "expected_wait_s",
            "cooldown_s",
            "vehicle_s",
            "target_s",
            "drive_multiple",
        ]
    )
    for p in cal.pairs:
        writer.writerow(
            [
                p.origin.id,
                p.origin.name,
                p.destination.id,
                p.destination.name,
                p.origin.density_tier,
                p.origin.wait_min,
                p.origin.wait_max,
                f"{p.drive.seconds:.1f}",
                f"{p.drive.metres:.1f}",
                p.drive.method,
                f"{p.expected_wait_s:.1f}",
                f"{p.cooldown_s:.1f}",
                f"{p.vehicle_s:.1f}",
                f"{p.target_s:.1f}",
                f"{p.drive_multiple:.3f}",
            ]
        )
    return buf.getvalue()


@dataclass(frozen=True)
class CalibrationRun:
    """What :func:`calibrate_map` found and wrote.

    Attributes
    ----------
    calibration : Calibration
    source : str
        Where the drive times came from (``DriveTimes.describe()``).
    tiers : tuple of WaitTier or None
        The map's wait tiers (:func:`~stations_generator.app.play.map_tiers`).
    written : tuple of Path
        The files written.
    """

    calibration: Calibration
    source: str
    tiers: tuple[WaitTier, ...] | None
    written: tuple[Path, ...]


def calibrate_map(
    map_path: Path,
    output_dir: Path,
    roads: RoadOptions,
    *,
    pairs: int,
    seed: int,
    table: DepartureTable,
    transit_in_play: bool,
    title: str,
) -> CalibrationRun:
    """Calibrate a map's wait ranges on random station pairs; write the plot and the CSV.

    Parameters
    ----------
    map_path : Path
        The ``stations.geojson``.
    output_dir : Path
        The folder of calibration.png and calibration.csv (written together, or
        neither).
    roads : RoadOptions
        Where drive times come from.
    pairs : int
        Station pairs to sample (all of them if there are fewer).
    seed : int
        Seed of the sample.
    table : DepartureTable
        The departure table the expected waits follow.
    transit_in_play : bool
        Count the arrival cooldown
        (:data:`~stations_generator.core.play.cooldown.COOLDOWN_FACTOR` × the drive).
    title : str
        The plot's title.

    Returns
    -------
    CalibrationRun

    Raises
    ------
    InputError
        The map has fewer than two stations, or no pair has a drive time above zero.
    """
    # The folder is locked from here on; both files appear together, or not at all.
    with output_set(output_dir, (CALIBRATION_CSV, CALIBRATION_PNG)) as outputs:
        station_map = load_map(map_path)
        if len(station_map.stations) < 2:
            raise InputError(f"{station_map.source} has one station; calibration needs pairs")
        times = drive_times(station_map, roads)
        chosen = sample_pairs(station_map.stations, pairs, random.Random(seed))
        with status(log, f"Timing {len(chosen)} drives"):
            cal = calibrate(
                chosen,
                times,
                table=table,
                cooldown_factor=COOLDOWN_FACTOR if transit_in_play else 0.0,
                target_factor=TRANSIT_FACTOR,
                drive_range=TRANSIT_RANGE,
            )
        if not cal.pairs:
            raise InputError("no station pair has a drive time above zero; nothing to calibrate")
        with status(log, f"Drawing {CALIBRATION_PNG}"):
            png = calibration_png(cal, title)
        outputs.write_bytes(CALIBRATION_CSV, calibration_csv(cal).encode("utf-8"))
        outputs.write_bytes(CALIBRATION_PNG, png)
    return CalibrationRun(cal, times.describe(), map_tiers(station_map), tuple(outputs.written))
