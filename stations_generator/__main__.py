from stations_generator.cli import run

run()
