"""Rural play: the 2d6 departure roll, routes between stations, drive times and their calibration."""
