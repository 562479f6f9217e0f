"""Calibration: expected door-to-door vehicle times against the transit-equivalent target (pure).

For sampled station pairs, the vehicle time (expected wait at the origin, drive and
cooldown) is compared with ``3 ×`` the drive (the game's rules want transit at 2–4 ×
the drive); per density tier, a wait range is suggested where the median pair is off.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from stations_generator.core.play.cooldown import COOLDOWN_FACTOR, TRANSIT_FACTOR, TRANSIT_RANGE
from stations_generator.core.play.departure import DEFAULT_TABLE, DepartureTable
from stations_generator.core.play.drive import DriveEstimate, DriveTimes
from stations_generator.core.play.routes import Station

__all__ = ["Calibration", "CalibrationPair", "TierSummary", "calibrate", "sample_pairs"]


@dataclass(frozen=True)
class CalibrationPair:
    """Expected door-to-door time by vehicle for one ordered station pair.

    Attributes
    ----------
    origin, destination : Station
    drive : DriveEstimate
    expected_wait_s : float
        At the origin, re-rolls included.
    cooldown_s : float
    target_factor : float
        The transit-equivalent target is ``target_factor ×`` the drive time.
    """

    origin: Station
    destination: Station
    drive: DriveEstimate
    expected_wait_s: float
    cooldown_s: float
    target_factor: float = TRANSIT_FACTOR

    @property
    def vehicle_s(self) -> float:
        """Expected wait + drive + cooldown."""
        return self.expected_wait_s + self.drive.seconds + self.cooldown_s

    @property
    def target_s(self) -> float:
        """Transit-equivalent time, ``target_factor ×`` the drive."""
        return self.target_factor * self.drive.seconds

    @property
    def ratio(self) -> float:
        """Vehicle time over the target (1 = on target)."""
        return self.vehicle_s / self.target_s

    @property
    def drive_multiple(self) -> float:
        """Vehicle time over the drive time (the rules want 2–4)."""
        return self.vehicle_s / self.drive.seconds


@dataclass(frozen=True)
class TierSummary:
    """Calibration of one density tier (pairs grouped by their origin's tier).

    Attributes
    ----------
    tier : str
    pairs : int
    wait_min, wait_max : int
        The tier's (most common) wait range.
    expected_wait_s : float
    median_drive_s, median_vehicle_s, median_multiple : float
        Medians over the tier's pairs; ``median_multiple`` is vehicle / drive.
    in_range : float
        Share of pairs whose vehicle time is 2–4 × their drive.
    verdict : str
        ``"ok"``, ``"too slow"`` (waits too long for these drives) or ``"too fast"``.
    suggestion : tuple of int or None
        A wait range that puts the median pair in the middle of the reachable
        part of the range, when the verdict is not ok.
    """

    tier: str
    pairs: int
    wait_min: int
    wait_max: int
    expected_wait_s: float
    median_drive_s: float
    median_vehicle_s: float
    median_multiple: float
    in_range: float
    verdict: str
    suggestion: tuple[int, int] | None


@dataclass(frozen=True)
class Calibration:
    """Result of :func:`calibrate`.

    Attributes
    ----------
    pairs : list of CalibrationPair
    tiers : list of TierSummary
    skipped : int
        Pairs without a usable drive time (zero seconds).
    cooldown_factor, target_factor : float
    drive_range : tuple of float
        The acceptable vehicle/drive multiples (2, 4).
    """

    pairs: list[CalibrationPair]
    tiers: list[TierSummary]
    skipped: int
    cooldown_factor: float
    target_factor: float
    drive_range: tuple[float, float]

    @property
    def methods(self) -> Counter[str]:
        """How many drive times came from roads / the great circle."""
        return Counter(p.drive.method for p in self.pairs)


def sample_pairs(
    stations: Sequence[Station], n: int, rng: random.Random
) -> list[tuple[Station, Station]]:
    """Up to ``n`` distinct ordered pairs of different stations, drawn at random.

    Parameters
    ----------
    stations : sequence of Station
    n : int
        Number of pairs; all pairs when there are fewer.
    rng : random.Random
        Seeded for reproducible reports.

    Returns
    -------
    list of (Station, Station)
        Sorted by origin id, then destination id.
    """
    ordered = sorted(stations, key=lambda s: s.id)
    count = len(ordered) * (len(ordered) - 1)
    if count == 0:
        return []
    picks = range(count) if n >= count else sorted(rng.sample(range(count), n))
    out = []
    for k in picks:
        i, j = divmod(k, len(ordered) - 1)
        out.append((ordered[i], ordered[j + (j >= i)]))
    return out


def _suggest(
    wait_min: int,
    wait_max: int,
    table: DepartureTable,
    median_drive_s: float,
    cooldown_factor: float,
    target_factor: float,
    drive_range: tuple[float, float],
) -> tuple[int, int]:
    # Vehicle/drive multiple m = E/d + 1 + c. The range lo ≤ m ≤ hi allows
    # E/d in [max(0, lo − 1 − c), hi − 1 − c]; aim for the middle of it.
    lo, hi = drive_range
    top = hi - 1 - cooldown_factor
    if top <= 0:
        return (0, 0)
    bottom = max(0.0, lo - 1 - cooldown_factor)
    goal_min = (bottom + top) / 2 * median_drive_s / 60
    a, b = table.wait_coefficients()
    # Keep the tier's min:max proportion (1:3 if it had none).
    ratio = Fraction(wait_max, wait_min) if wait_min > 0 else Fraction(3)
    new_min = goal_min / float(a + b * ratio)
    low = max(0, round(new_min))
    high = max(low, round(new_min * float(ratio)), 1)
    return (low, high)


def calibrate(
    pairs: Sequence[tuple[Station, Station]],
    drive_times: DriveTimes,
    *,
    table: DepartureTable = DEFAULT_TABLE,
    cooldown_factor: float = COOLDOWN_FACTOR,
    target_factor: float = TRANSIT_FACTOR,
    drive_range: tuple[float, float] = TRANSIT_RANGE,
) -> Calibration:
    """Compare expected door-to-door vehicle times with the transit-equivalent target.

    For each pair: vehicle = expected wait at the origin (closed form) + drive +
    cooldown (``cooldown_factor ×`` drive); target = ``target_factor ×`` drive.
    Per density tier of the origin: medians, the share of pairs within
    ``drive_range`` × drive, and a suggested wait range when the median pair is
    outside it.

    With the cooldown (c = 2) the multiple is ``3 + E/d``, inside 2–4 when the
    expected wait is at most the drive; without it (c = 0) ``1 + E/d``, inside
    when ``d ≤ E ≤ 3d``.

    Parameters
    ----------
    pairs : sequence of (Station, Station)
    drive_times : DriveTimes
    table : DepartureTable
    cooldown_factor : float
        2 with real transit in play, 0 without.
    target_factor : float
    drive_range : (float, float)

    Returns
    -------
    Calibration
    """
    results, skipped = _pair_times(pairs, drive_times, table, cooldown_factor, target_factor)
    groups: dict[str, list[CalibrationPair]] = {}
    for p in results:
        groups.setdefault(p.origin.density_tier or "(none)", []).append(p)
    tiers = [
        _tier_summary(tier, group, table, cooldown_factor, target_factor, drive_range)
        for tier, group in sorted(groups.items(), key=lambda kv: _tier_order(kv[0]))
    ]
    return Calibration(results, tiers, skipped, cooldown_factor, target_factor, drive_range)


def _pair_times(
    pairs: Sequence[tuple[Station, Station]],
    drive_times: DriveTimes,
    table: DepartureTable,
    cooldown_factor: float,
    target_factor: float,
) -> tuple[list[CalibrationPair], int]:
    """Each pair's expected wait, drive and cooldown (one search per origin); and how
    many pairs had no usable drive time."""
    by_origin: dict[str, list[Station]] = {}
    origins: dict[str, Station] = {}
    for a, b in pairs:
        by_origin.setdefault(a.id, []).append(b)
        origins[a.id] = a
    results: list[CalibrationPair] = []
    skipped = 0
    for oid, targets in by_origin.items():
        a = origins[oid]
        wait_s = float(table.expected_wait(a.wait_min, a.wait_max) * 60)
        for b, drive in zip(targets, drive_times.from_origin(a, targets), strict=True):
            if drive.seconds <= 0:
                skipped += 1
                continue
            results.append(
                CalibrationPair(a, b, drive, wait_s, cooldown_factor * drive.seconds, target_factor)
            )
    return results, skipped


def _tier_summary(
    tier: str,
    group: list[CalibrationPair],
    table: DepartureTable,
    cooldown_factor: float,
    target_factor: float,
    drive_range: tuple[float, float],
) -> TierSummary:
    """The medians, the share in range and the verdict of one tier's pairs."""
    lo, hi = drive_range
    wait_min, wait_max = Counter((p.origin.wait_min, p.origin.wait_max) for p in group).most_common(
        1
    )[0][0]
    multiples = [p.drive_multiple for p in group]
    median_multiple = statistics.median(multiples)
    median_drive = statistics.median(p.drive.seconds for p in group)
    verdict = "ok"
    if median_multiple > hi:
        verdict = "too slow"
    elif median_multiple < lo:
        verdict = "too fast"
    suggestion = None
    if verdict != "ok":
        suggestion = _suggest(
            wait_min, wait_max, table, median_drive, cooldown_factor, target_factor, drive_range
        )
    return TierSummary(
        tier,
        len(group),
        wait_min,
        wait_max,
        float(table.expected_wait(wait_min, wait_max) * 60),
        median_drive,
        statistics.median(p.vehicle_s for p in group),
        median_multiple,
        sum(lo <= m <= hi for m in multiples) / len(multiples),
        verdict,
        suggestion,
    )


_TIER_ORDER = {"dense": 0, "moderate": 1, "sparse": 2}


def _tier_order(tier: str) -> tuple[int, str]:
    return (_TIER_ORDER.get(tier, 3), tier)
