"""The files of a GTFS feed, a .zip or a folder, read within bounds.

Only the members the reader asks for by name are read (``stops.txt``, ...), at the
archive's top or in its one top folder. A member is unpacked in chunks and counted by
the bytes actually unpacked, whatever its header claims, so a zip bomb stops at
:data:`MAX_MEMBER_BYTES` with a one-line error; entries that cannot be read safely
(encrypted, unknown methods, bad names) are refused by
:func:`stations_generator.formats.zipread.open_zip` before anything is unpacked.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

from stations_generator.errors import InputError
from stations_generator.formats.zipread import open_zip

__all__ = ["MAX_MEMBER_BYTES", "FeedSource"]

#: Largest file of a feed read, 2 GiB: the largest national feeds' stop_times.txt are
#: about 1 GB (Germany's, 2024); a member beyond is refused rather than read.
MAX_MEMBER_BYTES = 2 * 1024**3
_CHUNK = 1024**2


class FeedSource:
    """A feed's files by name (see the module docstring).

    Parameters
    ----------
    path : pathlib.Path
        A .zip file or a folder.
    max_member_bytes : int
        Largest file read [default: :data:`MAX_MEMBER_BYTES`].

    Raises
    ------
    InputError
        Missing path, not a zip or folder, or an unsafe zip.
    """

    def __init__(self, path: Path, max_member_bytes: int = MAX_MEMBER_BYTES) -> None:
        self.path = Path(path)
        self.label = self.path.name
        self.limit = max_member_bytes
        self._zip: zipfile.ZipFile | None = None
        self._members: dict[str, zipfile.ZipInfo] = {}
        if self.path.is_dir():
            return
        if not self.path.is_file():
            raise InputError(f"GTFS feed {self.label} not found; give a GTFS .zip or its folder")
        self._zip = open_zip(self.path, self.label, "GTFS zip")
        infos = [i for i in self._zip.infolist() if not i.is_dir()]
        tops = {i.filename.split("/")[0] for i in infos if "/" in i.filename}
        prefix = (
            f"{tops.pop()}/"
            if not any("/" not in i.filename for i in infos) and len(tops) == 1
            else ""
        )
        for info in infos:
            if info.filename.startswith(prefix) and "/" not in info.filename[len(prefix) :]:
                self._members[info.filename[len(prefix) :]] = info

    def close(self) -> None:
        """Close the archive (nothing for a folder)."""
        if self._zip is not None:
            self._zip.close()

    def has(self, name: str) -> bool:
        """Whether the feed has the file ``name``."""
        if self._zip is None:
            return (self.path / name).is_file()
        return name in self._members

    def read(self, name: str) -> bytes:
        """The bytes of the file ``name`` (which must exist: see :meth:`has`).

        Raises
        ------
        InputError
            Larger than the limit, unreadable or damaged.
        """
        if self._zip is None:
            file = self.path / name
            try:
                if file.stat().st_size > self.limit:
                    raise InputError(self._too_big(name))
                return file.read_bytes()
            except OSError as exc:
                raise InputError(f"{self.label}: {name} cannot be read ({exc.strerror})") from None
        return self._unpack(name, self._members[name])

    def _too_big(self, name: str) -> str:
        return (
            f"{self.label}: {name} is larger than {self.limit / 1024**2:.0f} MiB, more than a "
            "GTFS feed's file is read; give a feed cut to the area of the game"
        )

    def _unpack(self, name: str, info: zipfile.ZipInfo) -> bytes:
        assert self._zip is not None
        parts, total = [], 0
        try:
            with self._zip.open(info) as stream:
                while chunk := stream.read(_CHUNK):
                    total += len(chunk)
                    if total > self.limit:
                        raise InputError(self._too_big(name))
                    parts.append(chunk)
        except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, RuntimeError) as exc:
            raise InputError(
                f"{self.label}: {name} is damaged ({exc}); download the feed again"
            ) from None
        return b"".join(parts)
