"""Game size from the net play area, and what follows from it.

S < 259 km² ≤ M < 2590 km² ≤ L (100 mi² and 1000 mi², the game's rules).
"""

from __future__ import annotations

GAME_SIZES = ("S", "M", "L")
AREA_FLOOR_KM2 = {"S": 0.0, "M": 259.0, "L": 2590.0}  # 100 mi², 1000 mi²
# Station-count bands the rural-jet-lag generator aims for.
STATION_BANDS = {"S": (30, 100), "M": (100, 500), "L": (500, 10**9)}
# Default cluster radius = the official rules' hiding radius: ¼ mile S/M, ½ mile L.
HIDING_RADIUS_M = {"S": 402.0, "M": 402.0, "L": 805.0}


def infer_game_size(net_area_km2: float) -> str:
    """The game size for a net play area in km²."""
    size = "S"
    for name in GAME_SIZES:
        if net_area_km2 >= AREA_FLOOR_KM2[name]:
            size = name
    return size
