"""Numbers of the WGS84 Earth that need no projection library (cheap to import at start-up)."""

#: Half the WGS84 equator (pi x 6,378,137 m), in metres: more than any geodesic distance on
#: Earth (the longest, between antipodes, is about 20,004 km). Distance options and game
#: files accept no longer distance.
HALF_EARTH_M = 20_037_508.0
