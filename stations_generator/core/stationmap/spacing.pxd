# C types for spacing.py when Cython compiles it (setup.py); Python ignores this file.
# The per-candidate arrays are typed memoryviews of the array.array objects the source
# makes, so the loops over neighbours run in C with no Python object per step.
cimport cython

ctypedef long long i64
ctypedef i64[::1] i64s
ctypedef double[::1] f64s


cdef class _Selection:
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

    @cython.locals(other=_Selection)
    cpdef _Selection copy(self)

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


@cython.locals(state=_Selection, i=Py_ssize_t, c=Py_ssize_t, seed=Py_ssize_t)
cpdef _Selection _greedy(object index, object rules, object exempt, list order, list start,
                         bint reasons=*)

@cython.locals(cluster_of=i64s, i=Py_ssize_t, added=bint)
cpdef _settle(_Selection state, list order, bint full=*)

@cython.locals(rank=i64s, n=Py_ssize_t, gap=double, spacing=double, cluster_of=i64s,
               nb=i64s, dist=f64s, ptr=i64s, noise=double, exempt="signed char[::1]",
               s=Py_ssize_t, count=Py_ssize_t, k=Py_ssize_t, c=Py_ssize_t, reach=double,
               i=Py_ssize_t, j=Py_ssize_t, transit_gone=bint, mode=Py_ssize_t,
               seed_c=Py_ssize_t, a=Py_ssize_t)
cpdef set _search(_Selection state, list order, list crowd, Py_ssize_t iterations,
                  long seed=*)

@cython.locals(rank=i64s, n=Py_ssize_t, gap=double, cap=Py_ssize_t, cluster_of=i64s,
               nb=i64s, dist=f64s, ptr=i64s, b=Py_ssize_t, c=Py_ssize_t, k=Py_ssize_t,
               j=Py_ssize_t, seed=Py_ssize_t, hopeful=Py_ssize_t, d=double,
               count=Py_ssize_t, c_j=Py_ssize_t, seed_j=Py_ssize_t, c_b=Py_ssize_t,
               seed_b=Py_ssize_t)
cpdef _improve_by_swaps(_Selection state, list order, set changed=*)

@cython.locals(rank=i64s, n=Py_ssize_t, gap=double, cluster_of=i64s, nb=i64s, dist=f64s,
               ptr=i64s, b=Py_ssize_t, c=Py_ssize_t, hopeful=bint, k=Py_ssize_t,
               j=Py_ssize_t, count=Py_ssize_t, c_j=Py_ssize_t, seed_j=Py_ssize_t,
               delta=i64, op=Py_ssize_t, a=Py_ssize_t)
cpdef _improve_ranks(_Selection state, list order)

@cython.locals(cluster_of=i64s, i=Py_ssize_t)
cpdef list _worst_first(_Selection state, list order)

@cython.locals(gap=double, cluster_of=i64s, nb=i64s, dist=f64s, ptr=i64s, i=Py_ssize_t,
               k=Py_ssize_t)
cpdef list _near(_Selection state, set changed)
