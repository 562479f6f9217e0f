"""Getting OSM data: the Overpass client and Overpass JSON, offline extracts and their cache,
Nominatim, and the layers the questions read (borders, coastline, rail, water, places, routes)."""
