"""File formats, read and written, one module each: play areas, station maps, GeoJSON, KML, CSV, taibeled states, JSON input limits and schemas, and whole output sets."""
