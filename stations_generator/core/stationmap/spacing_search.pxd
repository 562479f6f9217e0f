# C types for spacing_search.py when Cython compiles it (setup.py); Python ignores this file.
# The selection is spacing_state's extension type: its columns are read as C arrays here.
cimport cython

from stations_generator.core.stationmap.spacing_state cimport Selection, f64s, i64, i64s


@cython.locals(state=Selection, i=Py_ssize_t, c=Py_ssize_t, seed=Py_ssize_t)
cpdef Selection greedy(object arrays, object rules, object exempt, list order, list start,
                       bint reasons=*)

@cython.locals(cluster_of=i64s, i=Py_ssize_t, added=bint)
cpdef settle(Selection state, list order, bint full=*)

@cython.locals(cluster_of=i64s, noise=double, s=Py_ssize_t, count=Py_ssize_t, a=Py_ssize_t)
cpdef set search(Selection state, list order, list crowd, Py_ssize_t iterations, long seed=*)

@cython.locals(gap=double, spacing=double, cluster_of=i64s, nb=i64s, dist=f64s, ptr=i64s,
               k=Py_ssize_t, c=Py_ssize_t, reach=double)
cdef list _round_targets(Selection state, Py_ssize_t s, object rng)

@cython.locals(exempt="signed char[::1]", cluster_of=i64s, i=Py_ssize_t)
cdef list _give_up(Selection state, list targets)

@cython.locals(rank=i64s, n=Py_ssize_t, gap=double, cluster_of=i64s, nb=i64s, dist=f64s,
               ptr=i64s, i=Py_ssize_t, j=Py_ssize_t, k=Py_ssize_t, mode=Py_ssize_t,
               c=Py_ssize_t, seed_c=Py_ssize_t)
cdef _offer_freed(Selection state, list removed, list crowd, object rng, double noise)

@cython.locals(rank=i64s, n=Py_ssize_t, gap=double, cap=Py_ssize_t, cluster_of=i64s,
               nb=i64s, dist=f64s, ptr=i64s, b=Py_ssize_t, c=Py_ssize_t, k=Py_ssize_t,
               j=Py_ssize_t, seed=Py_ssize_t, hopeful=Py_ssize_t, d=double,
               count=Py_ssize_t, c_j=Py_ssize_t, seed_j=Py_ssize_t, c_b=Py_ssize_t,
               seed_b=Py_ssize_t)
cpdef improve_by_swaps(Selection state, list order, set changed=*)

@cython.locals(rank=i64s, n=Py_ssize_t, gap=double, cluster_of=i64s, nb=i64s, dist=f64s,
               ptr=i64s, b=Py_ssize_t, c=Py_ssize_t, hopeful=bint, k=Py_ssize_t,
               j=Py_ssize_t, count=Py_ssize_t, c_j=Py_ssize_t, seed_j=Py_ssize_t,
               delta=i64, op=Py_ssize_t, a=Py_ssize_t)
cpdef improve_ranks(Selection state, list order)

@cython.locals(cluster_of=i64s, i=Py_ssize_t)
cpdef list _worst_first(Selection state, list order)

@cython.locals(gap=double, cluster_of=i64s, nb=i64s, dist=f64s, ptr=i64s, i=Py_ssize_t,
               k=Py_ssize_t)
cpdef list _near(Selection state, set changed)
