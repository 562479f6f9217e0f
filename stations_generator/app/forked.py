"""Work done beside the main process, in a forked child, on a machine with a second core.

A :class:`ForkedTask` starts a zero-argument function in a child made by ``fork`` (which
shares the parent's memory as it was, so nothing is copied or pickled on the way in) and
hands its pickled result back through a pipe. The parent goes on with other work and
asks for the result when it needs it. Only pure functions belong here: the same inputs
give the same result in either process, so outputs do not depend on where the work ran.

Where the work cannot run aside, it runs in the calling process when the result is asked
for, and the answer is the same:

- the system is not Linux (Windows has no ``fork``; on macOS system libraries are not
  safe to use in a forked child, which is why Python's own default there is ``spawn``),
  or the process may use only one core;
- ``STATIONS_GENERATOR_SERIAL=1`` is set (one process, e.g. under a profiler);
- the child fails in any way (an exception, a signal, memory, a result that does not
  unpickle): the function is then run again in the calling process, so a real error
  surfaces with its own traceback there.

The child resets SIGINT and SIGTERM to their defaults (Ctrl-C ends it with the parent),
never writes to the parent's files or streams, and leaves with ``os._exit``; leaving the
``with`` block kills a child whose result was not asked for.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["ForkedTask", "can_fork"]

T = TypeVar("T")

#: Set to a non-empty value other than "0" to keep every task in the calling process.
SERIAL_ENV = "STATIONS_GENERATOR_SERIAL"


def can_fork() -> bool:
    """Whether a :class:`ForkedTask` would run in a child here (Linux, two cores, not off)."""
    if os.environ.get(SERIAL_ENV, "") not in ("", "0"):
        return False
    # (the cores this process may use: its affinity, e.g. under taskset or a container)
    return sys.platform.startswith("linux") and len(os.sched_getaffinity(0)) >= 2


class ForkedTask(Generic[T]):
    """``function()`` computed in a forked child while the caller goes on.

    Use as a context manager::

        with ForkedTask(render_kml) as kml:
            geojson_text = render_geojson()  # meanwhile
            kml_text = kml.result()

    Parameters
    ----------
    function : callable
        No arguments; a picklable result. Pure: it must not write files or change
        state the caller relies on (in a child its changes are lost).
    fork : bool, optional
        False runs ``function`` in the calling process at :meth:`result`; None (the
        default) forks where :func:`can_fork`; True forks wherever ``os.fork`` exists.
    """

    def __init__(self, function: Callable[[], T], *, fork: bool | None = None) -> None:
        self._function = function
        self._pid: int | None = None
        self._read_fd: int | None = None
        self._value: tuple[T] | None = None  # the result, once known
        if fork is None:
            fork = can_fork()
        if fork:
            self._start()

    def _start(self) -> None:
        read_fd, write_fd = os.pipe()
        with warnings.catch_warnings():
            # Python 3.12+ warns about fork in a process with threads (a test runner's,
            # say); the child runs only this pure function and never takes their locks.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child
            os.close(read_fd)
            self._run_child(write_fd)
        os.close(write_fd)
        self._pid, self._read_fd = pid, read_fd

    def _run_child(self, write_fd: int) -> None:
        import pickle

        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            payload = pickle.dumps(self._function(), protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(payload)
            while view:
                view = view[os.write(write_fd, view) :]
            code = 0
        except BaseException:  # noqa: BLE001 - the parent runs the function again
            pass
        finally:
            os._exit(code)

    def result(self) -> T:
        """The function's result: the child's, or computed here (see the module notes)."""
        if self._value is None:
            self._value = (self._compute(),)
        return self._value[0]

    def _compute(self) -> T:
        if self._pid is not None:
            payload = self._collect()
            if payload is not None:
                import pickle  # (here, not at start-up: most runs never fork)

                try:
                    return pickle.loads(payload)
                except Exception:  # noqa: BLE001 - e.g. a class that does not unpickle
                    pass
        return self._function()

    def _collect(self) -> bytes | None:
        """The child's pickled result, or None when it did not finish cleanly."""
        assert self._pid is not None and self._read_fd is not None
        chunks: list[bytes] = []
        read_whole = False
        try:
            while chunk := os.read(self._read_fd, 1 << 20):
                chunks.append(chunk)
            read_whole = True
        except OSError:  # the pipe failed: the result is done here instead
            pass
        finally:
            os.close(self._read_fd)
            self._read_fd = None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if not (read_whole and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            return None
        return b"".join(chunks)

    def cancel(self) -> None:
        """End the child if it is still running (its result is not wanted)."""
        if self._read_fd is not None:
            os.close(self._read_fd)
            self._read_fd = None
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already reaped elsewhere
                pass
            os.waitpid(self._pid, 0)
            self._pid = None

    @property
    def pid(self) -> int | None:
        """The child's process id while it computes the result; None otherwise."""
        return self._pid

    @property
    def forked(self) -> bool:
        """True while a child computes the result (False once it is collected, or if none)."""
        return self._pid is not None

    def __enter__(self) -> ForkedTask[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()

    def __del__(self) -> None:  # a task dropped without its with block: no zombie
        if self._pid is not None and sys is not None:
            self.cancel()
