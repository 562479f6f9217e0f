"""A small thread-safe LRU cache whose values are computed once per key (single flight)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class Cache:
    """Least-recently-used values by key; concurrent callers of one key wait for one computation.

    A computation that raises is not cached: the next caller tries again. ``on_evict``
    is called with the key of each value that leaves the cache (outside its lock).
    """

    def __init__(self, size: int = 32, on_evict: Callable[[str], None] | None = None):
        self.size = size
        self.on_evict = on_evict
        self._values: OrderedDict[str, Any] = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def peek(self, key: str) -> Any:
        """The cached value of ``key`` or None, without computing it."""
        with self._lock:
            return self._values.get(key)

    def get(self, key: str, compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                self.hits += 1
                return self._values[key]
            flight = self._locks.setdefault(key, threading.Lock())
        with flight:
            with self._lock:
                if key in self._values:
                    self.hits += 1
                    return self._values[key]
                self.misses += 1
            try:
                value = compute()
            finally:
                with self._lock:
                    self._locks.pop(key, None)
            with self._lock:
                self._values[key] = value
                evicted = []
                while len(self._values) > self.size:
                    evicted.append(self._values.popitem(last=False)[0])
            for old in evicted:
                if self.on_evict is not None:
                    self.on_evict(old)
            return value


def digest(*parts: Any) -> str:
    """A stable SHA-256 of JSON-serialisable parts (dict keys sorted)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class FileDigests:
    """SHA-256 of files by path, recomputed only when size or mtime change."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[tuple[int, int], str]] = {}
        self._lock = threading.Lock()

    def forget(self, path: Path) -> None:
        """Drop what is known of ``path`` (a file that was deleted)."""
        with self._lock:
            self._known.pop(path, None)

    def __call__(self, path: Path) -> str:
        st = path.stat()
        stamp = (st.st_size, st.st_mtime_ns)
        with self._lock:
            known = self._known.get(path)
            if known and known[0] == stamp:
                return known[1]
        h = hashlib.sha256()
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        value = h.hexdigest()
        with self._lock:
            self._known[path] = (stamp, value)
        return value
