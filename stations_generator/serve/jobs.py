"""The build queue: a few worker threads of their own and a bounded line of waiting work.

The API's builds (station maps, games) run here, not in the thread pool that answers
the page, its assets and ``/api/health``: however many builds are asked for, those
answer at once. A request waits for its build without holding a thread (it awaits a
future on the event loop); when ``workers + queue`` builds are already running or
waiting, :meth:`Jobs.submit` refuses at once (the API answers 503 with Retry-After).

The workers are daemon threads: a server told to stop does not wait for a build it
cannot interrupt (a Cython search, a CP-SAT solve); it abandons it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


class Busy(Exception):
    """Too many builds are running or waiting; the client should try again."""


class Jobs:
    """``workers`` threads taking work from a line at most ``queue_size`` long.

    Parameters
    ----------
    workers : int
        Builds running at once.
    queue_size : int
        Builds waiting for a worker beyond those.
    """

    def __init__(self, workers: int, queue_size: int) -> None:
        if workers < 1 or queue_size < 0:
            raise ValueError("workers must be >= 1 and queue_size >= 0")
        self.workers = workers
        self.capacity = workers + queue_size
        self._line: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0  # waiting + running
        self._running = 0
        self._closed = False
        self._threads: list[threading.Thread] = []

    def submit(self, fn: Callable[[], Any]) -> Future:
        """Queue ``fn()``; its future. Raises :class:`Busy` when the line is full or closed."""
        with self._lock:
            if self._closed or self._pending >= self.capacity:
                raise Busy()
            self._pending += 1
            if len(self._threads) < self.workers:
                thread = threading.Thread(
                    target=self._work, name=f"serve-build-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
        future: Future = Future()
        self._line.put((future, fn))
        return future

    def _work(self) -> None:
        while True:
            item = self._line.get()
            if item is None:
                return
            future, fn = item
            try:
                if future.set_running_or_notify_cancel():  # False: cancelled while waiting
                    with self._lock:
                        self._running += 1
                    try:
                        future.set_result(fn())
                    except BaseException as exc:  # noqa: BLE001 - handed to the waiting request
                        future.set_exception(exc)
                    finally:
                        with self._lock:
                            self._running -= 1
            finally:
                with self._lock:
                    self._pending -= 1

    @property
    def running(self) -> int:
        """Builds running now."""
        with self._lock:
            return self._running

    @property
    def pending(self) -> int:
        """Builds running or waiting now."""
        with self._lock:
            return self._pending

    def reopen(self) -> None:
        """Take work again after :meth:`close` (new workers start as work comes)."""
        with self._lock:
            self._closed = False
            self._threads = [t for t in self._threads if t.is_alive()]

    def close(self) -> None:
        """Refuse new work, cancel the waiting work and let the workers end (running
        builds are abandoned: they finish in their daemon threads or die with the process)."""
        with self._lock:
            self._closed = True
            count = len(self._threads)
        while True:
            try:
                item = self._line.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
                with self._lock:
                    self._pending -= 1
        for _ in range(count):
            self._line.put(None)
