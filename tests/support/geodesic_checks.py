"""Independent checks of the spacing rules, by brute force with pyproj.Geod (GeographicLib).

Nothing here reuses the package's own distance code, so a bug there cannot hide.
"""

from __future__ import annotations

import numpy as np
import pyproj

GEOD = pyproj.Geod(ellps="WGS84")
TOLERANCE_M = 1e-3  # the package's distances are exact to well under a millimetre


def pairwise(lon: np.ndarray, lat: np.ndarray) -> np.ndarray:
    """Full geodesic distance matrix in metres."""
    n = len(lon)
    i, j = np.triu_indices(n, 1)
    _, _, d = GEOD.inv(lon[i], lat[i], lon[j], lat[j])
    out = np.zeros((n, n))
    out[i, j] = d
    out[j, i] = d
    return out


def rule_violations(stations, min_spacing: float, gap: float) -> list[str]:
    """Pairs of stations breaking the within-cluster or between-cluster rule."""
    lon, lat = stations.geometry.x.to_numpy(), stations.geometry.y.to_numpy()
    cid = stations["cluster_id"].to_numpy()
    d = pairwise(lon, lat)
    bad = []
    n = len(lon)
    for a in range(n):
        for b in range(a + 1, n):
            limit = min_spacing if cid[a] == cid[b] else gap
            if d[a, b] < limit - TOLERANCE_M:
                bad.append(
                    f"{stations['id'].iloc[a]} – {stations['id'].iloc[b]}: {d[a, b]:.2f} m < {limit}"
                )
    return bad


def addable(candidates, rules) -> list[str]:
    """Rejected-for-spacing candidates that could be added without breaking a rule or the cap.

    Only additions that keep every rule by more than the tolerance count.
    """
    kept = candidates[candidates["status"] == "kept"]
    pool = candidates[candidates["reason"].isin(["spacing", "gap", "cluster_cap"])]
    if len(pool) == 0 or len(kept) == 0:
        return []
    klon, klat = kept.geometry.x.to_numpy(), kept.geometry.y.to_numpy()
    kcid = kept["cluster_id"].to_numpy()
    transit = kept["transit"].to_numpy(bool)
    seeds = {int(c): i for i, c in enumerate(kcid) if kept["seed"].iloc[i]}
    out = []
    for _, r in pool.iterrows():
        rl = np.full(len(klon), r.geometry.x)
        rt = np.full(len(klon), r.geometry.y)
        _, _, d = GEOD.inv(rl, rt, klon, klat)
        if (d >= rules.cluster_gap_m + TOLERANCE_M).all():
            out.append(f"{r['id']} could found a new cluster")
            continue
        for c in np.unique(kcid):
            inside = kcid == c
            if (d[inside] < rules.min_spacing_m + TOLERANCE_M).any() or (
                d[~inside] < rules.cluster_gap_m + TOLERANCE_M
            ).any():
                continue
            if d[seeds[int(c)]] > rules.cluster_radius_m - TOLERANCE_M:
                continue
            if rules.max_per_cluster and not r["transit"]:
                if (~transit[inside]).sum() >= rules.max_per_cluster:
                    continue
            out.append(f"{r['id']} could join cluster {c}")
    return out


def cluster_violations(candidates, rules) -> list[str]:
    """Clusters with a member beyond the radius of the seed, or over the cap, by Geod."""
    kept = candidates[candidates["status"] == "kept"]
    bad = []
    for cid, members in kept.groupby("cluster_id"):
        seed = members[members["seed"]]
        if len(seed) != 1:
            bad.append(f"cluster {cid} has {len(seed)} seeds")
            continue
        s = seed.geometry.iloc[0]
        _, _, d = GEOD.inv(
            np.full(len(members), s.x),
            np.full(len(members), s.y),
            members.geometry.x.to_numpy(),
            members.geometry.y.to_numpy(),
        )
        if d.max() > rules.cluster_radius_m + TOLERANCE_M:
            bad.append(f"cluster {cid}: member {d.max():.1f} m from its seed")
        if rules.max_per_cluster and (~members["transit"]).sum() > rules.max_per_cluster:
            bad.append(f"cluster {cid}: {(~members['transit']).sum()} non-transit members")
    return bad
