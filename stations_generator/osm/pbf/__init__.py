"""The compiled PBF reader (C++ over libosmium, wrapped by Cython): see ``blob_reader.hpp``.

Built where libosmium's and protozero's headers are at hand (``libosmium2-dev``);
without them :mod:`stations_generator.osm.pbf_layers` says it is absent and the extract
is read with pyosmium (:mod:`stations_generator.osm.one_pass`).
"""
