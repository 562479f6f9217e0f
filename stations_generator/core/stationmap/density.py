"""Wait-time ranges from local density.

Each station's wait range comes from how many other candidates lie within the
density radius (1609 m = 1 mile, the rural-jet-lag generator's choice): ≥ 15 is
"dense" (5–15 min), 5–14 "moderate" (10–30 min), 0–4 "sparse" (20–60 min).
Denser places get shorter waits, as transit runs more often in towns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from stations_generator.core.geo.closepairs import counts_within

DEFAULT_DENSITY_RADIUS_M = 1609.0  # one mile


@dataclass(frozen=True)
class WaitTier:
    """One density tier: stations with at least ``min_nearby`` neighbours wait ``wait_min``–``wait_max`` minutes."""

    name: str
    min_nearby: int
    wait_min: int
    wait_max: int


DEFAULT_TIERS: tuple[WaitTier, ...] = (
    WaitTier("dense", 15, 5, 15),
    WaitTier("moderate", 5, 10, 30),
    WaitTier("sparse", 0, 20, 60),
)


def parse_tiers(text: str) -> tuple[WaitTier, ...]:
    """Parse ``"dense:15:5-15,moderate:5:10-30,sparse:0:20-60"`` into tiers.

    Raises
    ------
    ValueError
        With a message showing the expected form.
    """
    tiers = []
    for part in text.split(","):
        try:
            name, min_nearby, waits = part.strip().split(":")
            lo, hi = waits.split("-")
            tiers.append(WaitTier(name.strip(), int(min_nearby), int(lo), int(hi)))
        except ValueError:
            raise ValueError(
                f"cannot read tier {part.strip()!r}; write NAME:MIN_NEARBY:MIN-MAX, "
                "e.g. dense:15:5-15,moderate:5:10-30,sparse:0:20-60"
            ) from None
    return validate_tiers(tiers)


def format_tiers(tiers: Sequence[WaitTier]) -> str:
    """The ``--tiers`` text of ``tiers`` (densest first); :func:`parse_tiers` reads it back."""
    return ",".join(
        f"{t.name}:{t.min_nearby}:{t.wait_min}-{t.wait_max}" for t in validate_tiers(tiers)
    )


def validate_tiers(tiers: Sequence[WaitTier]) -> tuple[WaitTier, ...]:
    """Sort tiers densest first and check they cover every count from 0."""
    ordered = tuple(sorted(tiers, key=lambda t: -t.min_nearby))
    if not ordered or ordered[-1].min_nearby != 0:
        raise ValueError("the sparsest density tier must start at 0 nearby candidates")
    for t in ordered:
        if t.wait_min < 0 or t.wait_max < t.wait_min:
            raise ValueError(f"tier {t.name!r}: wait range {t.wait_min}-{t.wait_max} is not valid")
    return ordered


def nearby_counts(
    x: np.ndarray, y: np.ndarray, scale: np.ndarray, radius_m: float = DEFAULT_DENSITY_RADIUS_M
) -> np.ndarray:
    """For each point, how many *other* points lie within ``radius_m`` (true metres).

    ``x, y`` are conformal-projection coordinates and ``scale`` the point scale
    factors; each point's grid radius is ``radius_m * scale``, exact to well under a
    millimetre at a mile.
    """
    return counts_within(x, y, radius_m * np.asarray(scale, float)) - 1


def assign_tiers(counts: np.ndarray, tiers: Sequence[WaitTier] = DEFAULT_TIERS) -> list[WaitTier]:
    """The tier of each count (tiers sorted densest first)."""
    ordered = validate_tiers(tiers)
    values = np.asarray(counts).tolist()
    tier_of = {c: next(t for t in ordered if c >= t.min_nearby) for c in set(values)}
    return [tier_of[c] for c in values]


def tier_columns(
    counts: np.ndarray, tiers: Sequence[WaitTier] = DEFAULT_TIERS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`assign_tiers` as three columns: each count's tier name (an object array of
    str), wait_min and wait_max (int64), found by a binary search rather than a tier
    object per count.

    Parameters
    ----------
    counts : int array
        Nearby counts, none negative.
    tiers : sequence of WaitTier

    Returns
    -------
    (names, wait_min, wait_max) : numpy arrays
    """
    ordered = validate_tiers(tiers)
    # The first tier (densest first) whose floor the count reaches: past every tier
    # whose floor is above the count.
    floors = np.array([t.min_nearby for t in reversed(ordered)], np.int64)  # ascending
    at = len(ordered) - np.searchsorted(floors, np.asarray(counts, np.int64), side="right")
    names = np.empty(len(ordered), object)
    names[:] = [t.name for t in ordered]
    return (
        names[at],
        np.array([t.wait_min for t in ordered], np.int64)[at],
        np.array([t.wait_max for t in ordered], np.int64)[at],
    )
