"""HTML pages: the interactive station map, the elimination map and the report page (Folium / Leaflet, offline-capable)."""
