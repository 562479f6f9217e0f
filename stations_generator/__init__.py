"""stations-generator: station maps, question geometry and hiding-zone checks for
Jet Lag: The Game – Hide + Seek, from OpenStreetMap data.

The public API is re-exported here; ``stations_generator.core`` holds the pure
computation and ``stations_generator.osm`` / ``stations_generator.export`` the I/O.
"""

# The public API, imported on first use (PEP 562) so the command line starts fast.
# The verbs of :mod:`stations_generator.api` come first (docs/api.md); the rest are the
# building blocks they use.
_EXPORTS = {
    "read_play_area": "api",
    "load_osm": "api",
    "make_station_map": "api",
    "summary": "api",
    "write_station_map": "api",
    "read_game": "api",
    "apply_game": "api",
    "write_game_result": "api",
    "check_zone": "api",
    "hider_answers": "api",
    "map_html": "api",
    "share_link": "api",
    "PlayArea": "api",
    "OsmLayers": "api",
    "OverpassSettings": "api",
    "GameResult": "api",
    "StationsGeneratorWarning": "api",
    "Catalogue": "catalogue",
    "Category": "catalogue",
    "load_catalogue": "catalogue",
    "elements_to_candidates": "core.candidates",
    "PlayWindow": "core.opening_hours",
    "open_during_play": "core.opening_hours",
    "parse_play_window": "core.opening_hours",
    "SpacingRules": "core.spacing",
    "StationMap": "core.stationmap",
    "StationMapOptions": "core.stationmap",
    "build_station_map": "core.stationmap",
    "InputError": "errors",
    "NoDataError": "errors",
    "OverpassError": "errors",
    "UserError": "errors",
    "OsmElement": "osm.elements",
    "load_polygons": "playarea",
    "parse_polygons": "playarea",
    "Game": "core.game",
    "Elimination": "core.game",
    "ZoneCheck": "core.game",
    "ZoneStatus": "core.game",
    "RadiusQuestion": "core.questions",
    "ThermometerQuestion": "core.questions",
    "TentaclesQuestion": "core.questions",
    "MatchingNearestQuestion": "core.questions",
    "MatchingZoneQuestion": "core.questions",
    "MatchingStationQuestion": "core.questions",
    "MeasuringQuestion": "core.questions",
    "Place": "core.questions",
    "Station": "core.questions",
    "Zone": "core.questions",
    "QuestionError": "core.questions",
    "RuleSet": "core.rules",
    "RULE_SETS": "core.rules",
    "rule_set": "core.rules",
    "cost_ledger": "core.rules",
    "geodesic_circle": "core.shapes",
    "AzimuthalFrame": "core.shapes",
    "load_game": "gamefile",
    "OsmContext": "gamefile",
    "WaitTier": "core.density",
    "parse_tiers": "core.density",
    "NetworkError": "errors",
    "OutputError": "errors",
}


def _package_version() -> str:
    # (importlib.metadata costs ~30 ms to import: only when the version is asked for)
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("stations-generator")
    except PackageNotFoundError:  # running from a source tree
        return "0.0.0+local"


def __getattr__(name: str):
    if name == "__version__":
        globals()[name] = _package_version()
        return globals()[name]
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'stations_generator' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names plus the lazy exports, so ``dir()`` and tab completion list them."""
    return sorted({*globals(), *_EXPORTS, "__version__"})


__all__ = ["__version__", *sorted(_EXPORTS)]
