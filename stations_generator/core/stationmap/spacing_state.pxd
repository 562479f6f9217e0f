# C types for spacing_state.py when Cython compiles it (setup.py); Python ignores this file.
# The per-candidate arrays are typed memoryviews of the array.array objects the source
# makes, so the loops over neighbours run in C with no Python object per step.
cimport cython

ctypedef long long i64
ctypedef i64[::1] i64s
ctypedef double[::1] f64s


cdef class Selection:
    cdef public object rules
    cdef public tuple arrays
    cdef public signed char[::1] exempt
    cdef public list rank_list
    cdef public i64s rank, ptr, nb, cluster_of, conflict, near, close, near_sum, near_sq
    cdef public f64s dist, x, y, k
    cdef public double gap, spacing, radius
    cdef public Py_ssize_t cap, count
    cdef public list reason, seeds, sizes, mem
    cdef public object journal
    cdef public set radius_missed

    @cython.locals(other=Selection)
    cpdef Selection copy(self)

    @cython.locals(grid=double)
    cpdef double distance(self, Py_ssize_t i, Py_ssize_t j)

    @cython.locals(radius=double, rank=i64s, best=Py_ssize_t, s=Py_ssize_t, m=Py_ssize_t,
                   far=double, d=double)
    cpdef Py_ssize_t centre(self, list members)

    @cython.locals(gap=double, spacing=double, near=i64s, close=i64s, near_sum=i64s,
                   near_sq=i64s, by=i64, by_sq=i64, nb=i64s, dist=f64s, k=Py_ssize_t,
                   d=double, j=Py_ssize_t)
    cdef void _mark(self, Py_ssize_t i, i64 c, i64 step)

    @cython.locals(k=i64, c=i64)
    cdef i64 _one_cluster(self, Py_ssize_t i)

    @cython.locals(close=i64, near=i64, total=i64, squares=i64, one=i64, cap=Py_ssize_t,
                   size=Py_ssize_t)
    cpdef bint tallies_pass_without(self, Py_ssize_t i, i64 c, double d)

    @cython.locals(c=i64)
    cpdef tuple fits(self, Py_ssize_t i)

    @cython.locals(seed=Py_ssize_t, cap=Py_ssize_t)
    cdef tuple _joins(self, Py_ssize_t i, i64 c0)

    @cython.locals(cluster_of=i64s, nb=i64s, dist=f64s, best=Py_ssize_t, best_d=double,
                   k=Py_ssize_t, j=Py_ssize_t)
    cdef Py_ssize_t _nearest(self, Py_ssize_t i)

    @cython.locals(c=i64, gap=double, cluster_of=i64s, nb=i64s, dist=f64s, c0=i64,
                   j0=Py_ssize_t, j1=Py_ssize_t, d0=double, d1=double, k=Py_ssize_t,
                   j=Py_ssize_t, d=double, seed=Py_ssize_t, cap=Py_ssize_t)
    cpdef tuple fit(self, Py_ssize_t i)

    cpdef add(self, Py_ssize_t i, Py_ssize_t c, Py_ssize_t seed=*)

    cpdef reseed(self, Py_ssize_t c, Py_ssize_t seed)

    @cython.locals(c=Py_ssize_t, seed=Py_ssize_t, m=Py_ssize_t)
    cpdef list remove(self, Py_ssize_t i)

    @cython.locals(pos=Py_ssize_t)
    cdef void _drop(self, Py_ssize_t i, Py_ssize_t c)

    @cython.locals(cluster_of=i64s, exempt="signed char[::1]", op=Py_ssize_t, a=Py_ssize_t,
                   b=Py_ssize_t, pos=Py_ssize_t)
    cpdef undo(self, Py_ssize_t mark)

    @cython.locals(c=Py_ssize_t, seed=Py_ssize_t, blocker=Py_ssize_t)
    cpdef bint try_add(self, Py_ssize_t i)

    @cython.locals(rank=i64s, cluster_of=i64s, total=i64, i=Py_ssize_t)
    cpdef i64 rank_sum(self)
