"""Wait ranges to suggest after a calibration (pure).

:func:`~stations_generator.core.play.calibration.calibrate` suggests a range per tier on
its own; :func:`suggested_tiers` makes the suggestions monotone over the tiers, and
:func:`tiers_spec` writes them as the ``--tiers`` text of ``generate``.
"""

from __future__ import annotations

from collections.abc import Sequence

from stations_generator.core.play.calibration import Calibration, TierSummary
from stations_generator.core.stationmap.density import WaitTier, format_tiers

__all__ = ["suggested_tiers", "tiers_spec"]


def suggested_tiers(
    cal: Calibration, tiers: Sequence[WaitTier] | None
) -> list[tuple[TierSummary, tuple[int, int]]]:
    """Each calibrated tier with the wait range to use, densest first and monotone.

    A sparser tier never waits less than a denser one: its range is raised to the
    denser tier's where the per-tier suggestion would dip below it.

    Parameters
    ----------
    cal : Calibration
    tiers : sequence of WaitTier or None
        The map's tiers, densest first (they give the order); None: the
        calibration's order.

    Returns
    -------
    list of (TierSummary, (int, int))
        Each tier's summary and the ``(wait_min, wait_max)`` to use, in minutes.
    """
    rank = {t.name: k for k, t in enumerate(tiers or ())}
    ordered = sorted(cal.tiers, key=lambda t: (rank.get(t.tier, len(rank)), cal.tiers.index(t)))
    out = []
    floor_lo = floor_hi = 0
    for t in ordered:
        lo, hi = t.suggestion if t.suggestion is not None else (t.wait_min, t.wait_max)
        if t.suggestion is not None and t.suggestion[1] == 0:
            lo, hi = t.wait_min, t.wait_max  # no wait fits: keep it unless a denser tier forces
        lo, hi = max(lo, floor_lo), max(hi, floor_hi)
        out.append((t, (lo, hi)))
        floor_lo, floor_hi = lo, hi
    return out


def tiers_spec(
    proposal: list[tuple[TierSummary, tuple[int, int]]], tiers: Sequence[WaitTier] | None
) -> str | None:
    """The proposal as paste-ready ``--tiers`` text.

    Parameters
    ----------
    proposal : list of (TierSummary, (int, int))
        From :func:`suggested_tiers`.
    tiers : sequence of WaitTier or None
        The map's tiers (their ``min_nearby`` thresholds); tiers the pairs missed
        are kept as they were.

    Returns
    -------
    str or None
        None without the map's tiers, or when the new tiers cannot be written.
    """
    if tiers is None:
        return None
    new = {t.tier: rng for t, rng in proposal}
    out = []
    for t in tiers:
        lo, hi = new.get(t.name, (t.wait_min, t.wait_max))
        out.append(WaitTier(t.name, t.min_nearby, lo, hi))
    try:
        return format_tiers(out)
    except ValueError:
        return None
