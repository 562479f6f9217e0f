"""The use cases, one module each (make a station map, load and apply a game, ...): the one service layer that the command line, the Python API and the web server call."""
