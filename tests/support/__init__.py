"""Test support shared by the suite: data paths, real-data cases, local stand-ins for the
network services, oracles and geodesic checks (imported as ``support.…``)."""
