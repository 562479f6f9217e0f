# distutils: language = c++
"""Python's side of ``blob_reader.hpp``: the reads, their batches as columns and lists.

A batch's columns are copied out (numpy arrays, dicts of str); they stay valid after the
next step, which frees the blob they came from.
"""

from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport strlen
from libcpp cimport bool as cbool
from libcpp.string cimport string
from libcpp.vector cimport vector

import numpy as np

cdef extern from "blob_reader.hpp" namespace "sgpbf":
    cdef cppclass Batch:
        vector[char] kind
        vector[int64_t] id
        vector[uint32_t] tag_end
        vector[const char*] keys
        vector[const char*] values
        vector[double] lon
        vector[double] lat
        vector[uint32_t] member_end
        vector[char] member_type
        vector[int64_t] member_ref
        vector[const char*] member_role
        vector[uint32_t] coord_end
        vector[double] coords
        vector[int64_t] area_id
        vector[char] area_from_way
        vector[uint32_t] area_tag_end
        vector[const char*] area_keys
        vector[const char*] area_values
        string area_wkb
        vector[uint64_t] area_wkb_end

    cdef cppclass TagFilter:
        void clear()
        void add_pair(const string&, const string&)
        void add_key(const string&)

    cdef cppclass BlobReader:
        BlobReader(const string&) except +
        Batch batch
        TagFilter filter
        TagFilter area_filter
        TagFilter way_filter
        cbool auto_keep
        size_t blob_count()
        void track_ways(const int64_t*, size_t)
        void need_nodes(const int64_t*, size_t)
        void ask_relations(const int64_t*, size_t)
        void use_areas()
        void offer_ways(const int64_t*, size_t)
        void keep_area_relation(size_t) except +
        void keep_way(size_t) except +
        void start(int) except +
        cbool step() except +
        vector[int64_t] finish_ways() except +
        cbool location(int64_t, double&, double&)
        size_t tracked_ways()
        size_t needed_nodes()

RELATIONS = 0
RELATIONS_BY_ID = 1
WAYS = 2
NODES_WAYS = 3


cdef str _text(const char* s):
    return PyUnicode_DecodeUTF8(s, strlen(s), "replace")


cdef str _interned(const char* s):
    """A tag's key or value, interned: a country's objects repeat the same strings."""
    return intern(PyUnicode_DecodeUTF8(s, strlen(s), "replace"))


cdef list _tag_dicts(const vector[uint32_t]& ends, const vector[const char*]& keys,
                     const vector[const char*]& values):
    """Each object's tags, a fresh dict of interned strings."""
    cdef list out = []
    cdef size_t i, j, start = 0
    cdef dict tags
    for i in range(ends.size()):
        tags = {}
        for j in range(start, ends[i]):
            tags[_interned(keys[j])] = _interned(values[j])
        out.append(tags)
        start = ends[i]
    return out


ctypedef fused column_t:
    int64_t
    uint32_t
    double


cdef object _array(const column_t* data, size_t n):
    """A copy of ``n`` values at ``data`` as a numpy array: int64, float64, or (offsets)
    uint32 as int64."""
    dtype = np.float64 if column_t is double else np.int64
    if n == 0:
        return np.empty(0, dtype=dtype)
    return np.array(<column_t[:n]> <column_t*> data, dtype=dtype)


cdef object _offsets(const vector[uint32_t]& ends):
    """Where each object's items start, and past the last one's end (n + 1 values, the
    first 0), from their ends."""
    out = np.zeros(ends.size() + 1, dtype=np.int64)
    if ends.size():
        out[1:] = _array(ends.data(), ends.size())
    return out


cdef bytes _chars(const vector[char]& v):
    """A vector of one-byte codes as bytes."""
    return v.data()[:v.size()] if v.size() else b""


cdef void _fill(TagFilter* tag_filter, pairs, keys):
    """``tag_filter`` made to let through the objects with one of ``pairs`` or ``keys``."""
    tag_filter.clear()
    for k, v in pairs:
        tag_filter.add_pair(k.encode(), v.encode())
    for k in keys:
        tag_filter.add_key(k.encode())


cdef const int64_t* _ids_pointer(const int64_t[::1] ids):
    return &ids[0] if ids.shape[0] else NULL


cdef class PbfReader:
    """One PBF extract opened for the compiled reads (``blob_reader.hpp``).

    Parameters
    ----------
    path : str
        The file.

    Raises
    ------
    ValueError
        The file cannot be read this way (not PBF, a history file, or not sorted by
        type): read it with pyosmium.
    RuntimeError
        The file is damaged.
    """

    cdef BlobReader* reader

    def __cinit__(self, str path):
        self.reader = new BlobReader(path.encode())

    def __dealloc__(self):
        del self.reader

    @property
    def blob_count(self) -> int:
        return self.reader.blob_count()

    @property
    def tracked_ways(self) -> int:
        return self.reader.tracked_ways()

    @property
    def needed_nodes(self) -> int:
        return self.reader.needed_nodes()

    def set_filter(self, pairs, keys, auto_keep=False) -> None:
        """The next read's candidates: objects with one of ``pairs`` or of ``keys``."""
        _fill(&self.reader.filter, pairs, keys)
        self.reader.auto_keep = bool(auto_keep)

    def set_area_filter(self, pairs, keys) -> None:
        """The assembled areas that come out: those with one of ``pairs`` or ``keys``."""
        _fill(&self.reader.area_filter, pairs, keys)

    def set_way_filter(self, pairs, keys) -> None:
        """The tracked ways the geometry read offers: those with one of ``pairs`` or
        ``keys`` (and those :meth:`offer_ways` names)."""
        _fill(&self.reader.way_filter, pairs, keys)

    def offer_ways(self, ids) -> None:
        """Ways the geometry read offers whatever their tags (their extents are needed)."""
        cdef const int64_t[::1] a = np.ascontiguousarray(ids, dtype=np.int64)
        self.reader.offer_ways(_ids_pointer(a), a.shape[0])

    def track_ways(self, ids) -> None:
        cdef const int64_t[::1] a = np.ascontiguousarray(ids, dtype=np.int64)
        self.reader.track_ways(_ids_pointer(a), a.shape[0])

    def need_nodes(self, ids) -> None:
        cdef const int64_t[::1] a = np.ascontiguousarray(ids, dtype=np.int64)
        self.reader.need_nodes(_ids_pointer(a), a.shape[0])

    def ask_relations(self, ids) -> None:
        cdef const int64_t[::1] a = np.ascontiguousarray(ids, dtype=np.int64)
        self.reader.ask_relations(_ids_pointer(a), a.shape[0])

    def use_areas(self) -> None:
        self.reader.use_areas()

    def start(self, int phase) -> None:
        self.reader.start(phase)

    def step(self) -> bool:
        return self.reader.step()

    def keep_area_relation(self, size_t i) -> None:
        self.reader.keep_area_relation(i)

    def keep_way(self, size_t i) -> None:
        self.reader.keep_way(i)

    def finish_ways(self):
        cdef vector[int64_t] incomplete = self.reader.finish_ways()
        return _array(incomplete.data(), incomplete.size())

    # -- the current batch ------------------------------------------------------------

    def kinds(self) -> bytes:
        return _chars(self.reader.batch.kind)

    def ids(self):
        return _array(self.reader.batch.id.data(), self.reader.batch.id.size())

    def tags(self) -> list:
        return _tag_dicts(self.reader.batch.tag_end, self.reader.batch.keys,
                          self.reader.batch.values)

    def lon(self):
        return _array(self.reader.batch.lon.data(), self.reader.batch.lon.size())

    def lat(self):
        return _array(self.reader.batch.lat.data(), self.reader.batch.lat.size())

    def member_offsets(self):
        """Where each relation's members start in the member columns (n + 1 values)."""
        return _offsets(self.reader.batch.member_end)

    def member_types(self) -> bytes:
        return _chars(self.reader.batch.member_type)

    def member_refs(self):
        return _array(self.reader.batch.member_ref.data(), self.reader.batch.member_ref.size())

    def member_roles(self, size_t start, size_t end) -> list:
        cdef size_t j
        return [_text(self.reader.batch.member_role[j]) for j in range(start, end)]

    def coord_offsets(self):
        """Where each way's vertices start in :meth:`coords` (n + 1 values)."""
        return _offsets(self.reader.batch.coord_end)

    def coords(self):
        return _array(self.reader.batch.coords.data(), self.reader.batch.coords.size()).reshape(-1, 2)

    def area_ids(self):
        return _array(self.reader.batch.area_id.data(), self.reader.batch.area_id.size())

    def area_from_way(self) -> bytes:
        return _chars(self.reader.batch.area_from_way)

    def area_tags(self) -> list:
        return _tag_dicts(self.reader.batch.area_tag_end, self.reader.batch.area_keys,
                          self.reader.batch.area_values)

    def area_wkbs(self) -> list:
        cdef const char* data = self.reader.batch.area_wkb.data()
        cdef list out = []
        cdef uint64_t start = 0, end
        cdef size_t i
        for i in range(self.reader.batch.area_wkb_end.size()):
            end = self.reader.batch.area_wkb_end[i]
            out.append(data[start:end])
            start = end
        return out

    def locations(self, ids):
        """The locations of needed nodes: (lon, lat, found) arrays."""
        cdef const int64_t[::1] a = np.ascontiguousarray(ids, dtype=np.int64)
        n = a.shape[0]
        lon = np.zeros(n, dtype=np.float64)
        lat = np.zeros(n, dtype=np.float64)
        found = np.zeros(n, dtype=np.bool_)
        cdef double[:] x = lon
        cdef double[:] y = lat
        cdef double lo = 0, la = 0
        cdef Py_ssize_t i
        for i in range(n):
            if self.reader.location(a[i], lo, la):
                x[i] = lo
                y[i] = la
                found[i] = True
        return lon, lat, found
