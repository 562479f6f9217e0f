"""Het Jachtseizoen boards from real maps.

Pure modules (no I/O): :mod:`.grid` (squares and coordinates), :mod:`.terrain`
(terrain per square from projected OSM geometry), :mod:`.model` (the board and its
JSON form), :mod:`.rules` (the rules engine and referee), :mod:`.tracker` (where
the fugitive can be), :mod:`.players` (computer players) and :mod:`.simulate`.
I/O at the edges: :mod:`.osmdata` (extracts / Overpass), :mod:`.build` (the
``board generate`` pipeline and its output set), :mod:`.geo` (GeoJSON), :mod:`.render`
(PDF/PNG), :mod:`.page` (HTML), :mod:`.gamelog` (game logs, the referee) and
:mod:`.commands` (the CLI).
See docs/board.md.
"""
