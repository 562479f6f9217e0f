"""Pages drawn from objects in memory (no file is read here): the interactive station map, the elimination map and the report page (Folium / Leaflet, offline-capable), and the calibration plot."""
