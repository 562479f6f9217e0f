"""Pure computation: no files, no network. Sub-packages by what they compute (geo, stationmap, questions, play); the catalogue, the neutral OSM element and game sizes are shared vocabulary."""
