"""Geodesy and shapes: geodesic distances, local frames, buffers, antimeridian handling, OSM feature geometry, close pairs and data coverage."""
