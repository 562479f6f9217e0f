"""The station map: OSM candidates -> ranked, de-duplicated, spaced vehicle stations with wait ranges (the spacing kernel, the exact optimizer)."""
