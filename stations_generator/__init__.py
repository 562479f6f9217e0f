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
    "Catalogue": "core.catalogue",
    "Category": "core.catalogue",
    "load_catalogue": "core.catalogue",
    "elements_to_candidates": "core.stationmap.candidates",
    "PlayWindow": "core.stationmap.opening_hours",
    "open_during_play": "core.stationmap.opening_hours",
    "parse_play_window": "core.stationmap.opening_hours",
    "SpacingRules": "core.stationmap.spacing",
    "StationMap": "core.stationmap.build",
    "StationMapOptions": "core.stationmap.build",
    "build_station_map": "core.stationmap.build",
    "InputError": "errors",
    "ArgumentError": "errors",
    "ArgumentTypeError": "errors",
    "ArgumentValueError": "errors",
    "NoDataError": "errors",
    "OverpassError": "errors",
    "UserError": "errors",
    "OsmElement": "core.elements",
    "load_polygons": "formats.playarea",
    "parse_polygons": "formats.playarea",
    "Game": "core.questions.game",
    "Elimination": "core.questions.game",
    "ZoneCheck": "core.questions.game",
    "ZoneStatus": "core.questions.game",
    "RadiusQuestion": "core.questions.geometry",
    "ThermometerQuestion": "core.questions.geometry",
    "TentaclesQuestion": "core.questions.geometry",
    "MatchingNearestQuestion": "core.questions.geometry",
    "MatchingZoneQuestion": "core.questions.geometry",
    "MatchingStationQuestion": "core.questions.geometry",
    "MeasuringQuestion": "core.questions.geometry",
    "Place": "core.questions.geometry",
    "Station": "core.questions.geometry",
    "Zone": "core.questions.geometry",
    "QuestionError": "core.questions.geometry",
    "RuleSet": "core.questions.rules",
    "RULE_SETS": "core.questions.rules",
    "rule_set": "core.questions.rules",
    "cost_ledger": "core.questions.rules",
    "geodesic_circle": "core.geo.shapes",
    "AzimuthalFrame": "core.geo.shapes",
    "load_game": "app.game_loader",
    "OsmContext": "app.map_context",
    "WaitTier": "core.stationmap.density",
    "parse_tiers": "core.stationmap.density",
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
