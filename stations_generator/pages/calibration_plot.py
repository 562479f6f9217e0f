"""The ``calibrate`` plot (calibration.png), drawn with matplotlib's Agg backend."""

from __future__ import annotations

import io

from stations_generator.core.play.calibration import Calibration

__all__ = ["calibration_png"]

_TIER_COLOURS = {"dense": "#1b9e77", "moderate": "#d95f02", "sparse": "#7570b3"}


def calibration_png(cal: Calibration, title: str) -> bytes:
    """The calibration plot: each pair's door-to-door time by vehicle against its drive.

    The band the rules allow (``cal.drive_range`` × the drive) and the transit
    target line (``cal.target_factor`` × the drive) are drawn behind; pairs are coloured by the origin's density tier, hollow where the drive
    is a great-circle estimate.

    Parameters
    ----------
    cal : Calibration
    title : str
        The plot's title.

    Returns
    -------
    bytes
        A PNG, without matplotlib's ``Software`` tag.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 5), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    top = max((p.drive.seconds / 60 for p in cal.pairs), default=1.0) * 1.05
    lo, hi = cal.drive_range
    xs = [0.0, top]
    ax.fill_between(xs, [0, lo * top], [0, hi * top], color="0.9", label=f"{lo:g}–{hi:g}× drive")
    ax.plot(xs, [0, cal.target_factor * top], color="0.4", ls="--", lw=1, label="transit target")
    tiers = sorted({p.origin.density_tier or "(none)" for p in cal.pairs})
    for tier in tiers:
        pts = [p for p in cal.pairs if (p.origin.density_tier or "(none)") == tier]
        colour = _TIER_COLOURS.get(tier, "0.3")
        for method, filled in (("road", True), ("great-circle", False)):
            some = [p for p in pts if p.drive.method == method]
            if not some:
                continue
            ax.scatter(
                [p.drive.seconds / 60 for p in some],
                [p.vehicle_s / 60 for p in some],
                s=16,
                alpha=0.8,
                facecolors=colour if filled else "none",
                edgecolors=colour,
                label=f"{tier} ({len(some)})" if filled else f"{tier}, great circle ({len(some)})",
            )
    ax.set_xlim(0, top)
    ax.set_ylim(0, None)
    ax.set_xlabel("drive time (min)")
    what = "expected wait + drive" + (" + cooldown" if cal.cooldown_factor else "")
    ax.set_ylabel(f"{what} (min)")
    ax.set_title(title, fontsize=10, parse_math=False)  # "$" in a name is a dollar
    for text in ax.legend(fontsize=8, loc="best").get_texts():
        text.set_parse_math(False)  # tier names come from the station file
    ax.grid(True, lw=0.3)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()
