"""Zip archives of play areas (KMZ, zipped shapefiles), read within bounds.

A zip's header states each entry's size, but nothing makes the compressed stream
keep to it: an entry that claims 1 KB may inflate to gigabytes. Entries are
therefore read in chunks and counted by the bytes actually unpacked; reading stops
at the caller's limit whatever the header says. Entries that cannot be read safely
or at all are refused by name before any byte is unpacked: encrypted ones, those
packed with a method other than stored or deflate (AES is method 99), names with
a NUL byte or longer than a file name may be.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from stations_generator.errors import InputError

#: Bytes unpacked per read: small enough that one chunk costs nothing.
CHUNK_BYTES = 1024**2
#: Longest entry name accepted, in bytes (a file name's limit on Linux, macOS and Windows).
MAX_NAME_BYTES = 255
#: Most entries in a play-area zip (a KMZ holds a KML and its icons; a shapefile 4-8 files).
MAX_ENTRIES = 1000
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}


def open_zip(source: Path | bytes, label: str, what: str = "zip") -> zipfile.ZipFile:
    """The archive, its every entry checked (see the module docstring).

    Parameters
    ----------
    source : Path or bytes
        The zip file, or its bytes.
    label : str
        How to name the file in messages.
    what : str
        What the archive should be, for messages (``"KMZ (zip)"``).

    Raises
    ------
    InputError
        Not a zip, too many entries, or an entry that cannot be read safely.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise InputError(f"{label} is not a readable {what} file: {exc}") from None
    if len(infos) > MAX_ENTRIES:
        raise InputError(
            f"{label} holds {len(infos)} files, more than the {MAX_ENTRIES} a play-area "
            "zip may hold; zip only the play area's files"
        )
    for info in infos:
        _check_entry(info, label)
    return archive


def _check_entry(info: zipfile.ZipInfo, label: str) -> None:
    raw_name = info.orig_filename
    shown = repr(raw_name.replace("\x00", "\\0")[:60])
    if "\x00" in raw_name:
        raise InputError(
            f"{label} holds an entry whose name has a NUL byte ({shown}); zip the files again"
        )
    if len(raw_name.encode("utf-8", "replace")) > MAX_NAME_BYTES:
        raise InputError(
            f"{label} holds an entry whose name is longer than {MAX_NAME_BYTES} bytes "
            f"({shown}…); zip the files again with shorter names"
        )
    if info.flag_bits & 0x1:
        raise InputError(
            f"{label}: {shown} is encrypted (password-protected); zip it again without a password"
        )
    if info.compress_type not in _METHODS:
        method = "AES encryption" if info.compress_type == 99 else f"method {info.compress_type}"
        raise InputError(
            f"{label}: {shown} is packed with {method}, which is not read; zip it again with "
            "the usual deflate method and no password"
        )


def iter_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, label: str
) -> Iterator[bytes]:
    """The entry's bytes in chunks, stopping with an error once more than ``limit`` are unpacked.

    The count is of the bytes actually unpacked; the size the header claims is ignored.

    Raises
    ------
    InputError
        More than ``limit`` bytes, or a damaged entry (bad CRC, truncated stream).
    """
    where = f"{label}: its {info.filename}"
    total = 0
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(CHUNK_BYTES):
                total += len(chunk)
                if total > limit:
                    raise InputError(
                        f"{where} unpacks to more than {limit / 1024**2:.0f} MiB, more than a "
                        "play area holds; export the play area alone"
                    )
                yield chunk
    except (
        zipfile.BadZipFile,
        zlib.error,
        OSError,
        EOFError,
        ValueError,
        NotImplementedError,
    ) as exc:
        raise InputError(f"{where} is damaged ({exc}); export the play area again") from None
    except RuntimeError as exc:  # zipfile's "File is encrypted" when the flag lied
        raise InputError(f"{where} cannot be unpacked ({exc}); zip it again") from None


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, label: str) -> bytes:
    """The entry's bytes, at most ``limit`` of them (see :func:`iter_member`)."""
    return b"".join(iter_member(archive, info, limit, label))
