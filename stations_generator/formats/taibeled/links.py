"""Share links: ``?hzc=`` + base64url of the zlib-compressed state, read with a size bound."""

from __future__ import annotations

import base64
import binascii
import json
import re
import urllib.parse
import zlib
from typing import Any

from stations_generator.errors import InputError
from stations_generator.formats import jsonio
from stations_generator.formats.taibeled.fields import MAX_HZC_BYTES, TaibeledError


def encode_hzc(obj: dict) -> str:
    """The ``hzc`` code of a state: base64url (no padding) of zlib(compact JSON).

    Parameters
    ----------
    obj : dict
        A state as :func:`dump_state` writes it (or any JSON object).

    Returns
    -------
    str
        Append to the app's address as ``?hzc=CODE``.
    """
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    packed = zlib.compress(text.encode("utf-8"), 9)
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


_HZC_IN_LINK = re.compile(r"(?:^|[?&#])hzc=([^&#\s]*)")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")


def decode_hzc(link_or_code: str) -> dict:
    """Read a share link (``…?hzc=CODE``) or a bare code back into the state's JSON.

    Parameters
    ----------
    link_or_code : str

    Returns
    -------
    dict

    Raises
    ------
    TaibeledError
        ``malformed share link: …`` when the code is not base64url, not zlib data,
        not UTF-8 JSON, or not a JSON object.
    """
    text = str(link_or_code).strip()
    match = _HZC_IN_LINK.search(text)
    if match:
        code = urllib.parse.unquote(match.group(1))
    elif "://" in text or "?" in text:
        raise TaibeledError("malformed share link: it has no hzc= parameter")
    else:
        code = text
    if not code:
        raise TaibeledError("malformed share link: the hzc code is empty")
    if not _BASE64URL.fullmatch(code) or len(code.rstrip("=")) % 4 == 1:
        raise TaibeledError("malformed share link: the hzc code is not base64url")
    try:
        raw = base64.urlsafe_b64decode(code.rstrip("=") + "=" * (-len(code.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        raise TaibeledError("malformed share link: the hzc code is not base64url") from None
    try:
        inflater = zlib.decompressobj()
        unpacked = inflater.decompress(raw, MAX_HZC_BYTES + 1)
        if len(unpacked) > MAX_HZC_BYTES or inflater.unconsumed_tail:
            raise TaibeledError(
                f"malformed share link: it unpacks to more than {MAX_HZC_BYTES // 1024**2} MiB, "
                "far more than any game state"
            )
        text_json = unpacked.decode("utf-8")
    except zlib.error:
        raise TaibeledError(
            "malformed share link: the hzc code is not zlib-compressed data"
        ) from None
    except UnicodeDecodeError:
        raise TaibeledError(
            "malformed share link: the decompressed data is not UTF-8 text"
        ) from None
    try:
        obj = jsonio.loads(text_json, "the share link", "JSON")
    except InputError as exc:
        raise TaibeledError(
            f"malformed share link: the decompressed data is not JSON ({exc})"
        ) from None
    if not isinstance(obj, dict):
        raise TaibeledError("malformed share link: the JSON is not an object")
    return obj


def load_any(text: str) -> Any:
    """JSON text, a share link or a bare ``hzc`` code, parsed.

    Parameters
    ----------
    text : str

    Returns
    -------
    dict or list
        The JSON value (a state, question or question list).

    Raises
    ------
    TaibeledError
        For invalid JSON or a malformed share link.
    """
    stripped = str(text).strip()
    if stripped.startswith(("{", "[")):
        try:
            return jsonio.loads(stripped, "the text", "valid JSON")
        except InputError as exc:
            raise TaibeledError(str(exc)) from None
    return decode_hzc(stripped)
