"""Reading Overpass JSON saved on disk: streamed, screened, and only the elements wanted kept.

:func:`read_overpass_json_file` parses an ordinary file of up to
:data:`WHOLE_PARSE_MAX_BYTES` whole with orjson, when every element is of the two
shapes of nearly every POI; any other file is streamed with ijson, in chunks, and
each kept element is checked against
:data:`~stations_generator.formats.schemas.OVERPASS_ELEMENT` (a fast sufficient test
first, the JSON Schema only for what it does not pass). The result is ready for
:mod:`stations_generator.osm.overpass_json`. :func:`read_overpass_elements` gives
what that module then makes of it (records and water), and for an ordinary file
checks, keeps and converts each element in one loop.
"""

from __future__ import annotations

import collections
import json
import math
import operator
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stations_generator.core.elements import OsmElement
from stations_generator.errors import InputError
from stations_generator.formats import jsonio, schemas
from stations_generator.osm.overpass_json import one_line, parse_overpass, runtime_error

if TYPE_CHECKING:
    from shapely.geometry import Polygon

__all__ = [
    "MAX_KEPT_ELEMENTS",
    "MAX_OVERPASS_JSON_BYTES",
    "WHOLE_PARSE_MAX_BYTES",
    "OverpassJSON",
    "has_geometry",
    "read_overpass_elements",
    "read_overpass_json_file",
]

#: Largest Overpass JSON file read. It is streamed (memory follows what is kept, not the
#: file), so the limit bounds the time: ~2 s per 100 MB. Larger areas: use an extract.
MAX_OVERPASS_JSON_BYTES = 2 * 1024**3
#: Most elements kept from one file (each costs ~2 kB once converted by overpy).
MAX_KEPT_ELEMENTS = 2_000_000
_CHUNK = 1 << 20
#: Files up to this size are parsed whole, by orjson: 2.5x faster than streaming them (and
#: than the standard library), holding ~7x the file in memory at the peak; larger files are
#: streamed. Measured on 100,000 Sioux Falls elements tiled (31 MB): 0.40 s against 1.1 s.
WHOLE_PARSE_MAX_BYTES = 64 * 1024**2


class OverpassJSON(dict):
    """A response read by :func:`read_overpass_json_file`: its kept elements, already
    checked against :data:`~stations_generator.formats.schemas.OVERPASS_ELEMENT`; ``simple`` when
    each passed :func:`_simply_valid` too."""

    checked = True
    simple = False


def has_geometry(element: dict[str, Any]) -> bool:
    """Whether an element carries ``out geom`` geometry (what the water assembler reads)."""
    if isinstance(element.get("geometry"), list):
        return True
    members = element.get("members")
    return isinstance(members, list) and any(
        isinstance(m, dict) and isinstance(m.get("geometry"), list) for m in members
    )


def _screen(element: object, index: int, path: Path, prefix: str) -> dict[str, Any]:
    """The checks every streamed element gets, kept or not (cheap: identity and tags)."""
    if (
        not isinstance(element, dict)
        or not isinstance(element.get("type"), str)
        or type(element.get("id")) is not int
    ):
        raise InputError(
            f"{path} is not an Overpass JSON response (element #{index} has no string 'type' "
            'and integer \'id\'); expected {"elements": [...]} or a list of {"type", "id", ...} objects'
        )
    tags = element.get("tags")
    if tags is not None and not isinstance(tags, dict):
        jsonio.validate(
            element, schemas.OVERPASS_ELEMENT, str(path), path_prefix=f"{prefix}[{index}]"
        )
    return element


def _first_bytes(path: Path, handle) -> tuple[bytes, bool]:
    """The first chunk (a UTF-8 BOM dropped) and whether the document is a bare list."""
    head = handle.read(_CHUNK)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the chunk's end
            byte = head[exc.start : exc.start + 1].hex().upper()
            raise InputError(
                f"{path} is not a text file in UTF-8 (byte 0x{byte} at offset {exc.start}); "
                "expected Overpass JSON"
            ) from None
    start = head.lstrip()[:1]
    if not start:
        raise InputError(f"{path} is empty; expected a saved Overpass [out:json] response")
    return head, start == b"["


# Keys of OVERPASS_ELEMENT whose values _plainly_valid leaves to the schema.
_DEEP_KEYS = frozenset({"members"})
# The members _plainly_valid checks the shape of; any other must be a scalar.
_SHAPED_KEYS = frozenset({"center", "bounds", "nodes", "geometry", "tags"})
_ONLY_STR = frozenset({str})
# The members of the two shapes _plainly_valid decides inline.
_SIMPLE_KEYS = frozenset({"type", "id", "lat", "lon", "center", "tags"})


def _flat(obj: dict) -> bool:
    """No list or object among ``obj``'s values."""
    return not any(isinstance(v, dict | list) for v in obj.values())


def _number_in(value: object, limit: float) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and -limit <= value <= limit
    )


def _in_range(value: object, limit: float) -> bool:
    """A JSON number (exactly an int or a float) within ``[-limit, limit]`` (NaN is not)."""
    kind = type(value)
    return (kind is float or kind is int) and -limit <= value <= limit  # type: ignore[operator]


def _simply_valid(element: dict) -> bool:
    """True for the two shapes of nearly every POI (a node; a way or relation with its
    centre) with values of exactly the JSON types; False sends an element to the
    member-by-member checks of :func:`_plainly_valid`."""
    if not _SIMPLE_KEYS.issuperset(element):
        return False
    if type(element.get("type")) is not str or type(element.get("id")) is not int:
        return False
    tags = element.get("tags", {})
    if type(tags) is not dict or not _ONLY_STR.issuperset(map(type, tags.values())):
        return False
    if ("lat" in element and not _in_range(element["lat"], 90)) or (
        "lon" in element and not _in_range(element["lon"], 180)
    ):
        return False
    if "center" not in element:
        return True
    centre = element["center"]
    return (
        type(centre) is dict
        and len(centre) == 2
        and _in_range(centre.get("lat"), 90)
        and _in_range(centre.get("lon"), 180)
    )


def _plainly_valid(element: dict) -> bool:
    """A fast sufficient test of :data:`~stations_generator.formats.schemas.OVERPASS_ELEMENT`.

    True only for the common ``out center tags`` shapes (type, id, lat/lon or
    center, tags) when every value is plainly right; anything else -- including
    every invalid element -- goes to the JSON Schema, which words the error. The
    schema check costs ~1 ms an element, longer than the rest of ``generate``.
    """
    if _simply_valid(element):
        return True
    kind, oid = element.get("type"), element.get("id")
    if not isinstance(kind, str) or not isinstance(oid, int) or isinstance(oid, bool):
        return False
    if not _DEEP_KEYS.isdisjoint(element):
        return False
    if "lat" in element and not _number_in(element["lat"], 90):
        return False
    if "lon" in element and not _number_in(element["lon"], 180):
        return False
    if "center" in element:
        c = element["center"]
        if not (
            isinstance(c, dict)
            and _number_in(c.get("lat"), 90)
            and _number_in(c.get("lon"), 180)
            and _flat(c)
        ):
            return False
    if "bounds" in element:
        b = element["bounds"]
        if not isinstance(b, dict) or not _flat(b):
            return False
        for key, limit in (("minlat", 90), ("maxlat", 90), ("minlon", 180), ("maxlon", 180)):
            if key in b and not _number_in(b[key], limit):
                return False
    if "nodes" in element:
        nodes = element["nodes"]
        if not isinstance(nodes, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in nodes
        ):
            return False
    if "geometry" in element:
        points = element["geometry"]
        if not isinstance(points, list):
            return False
        for pt in points:
            if pt is None:
                continue
            if not isinstance(pt, dict) or not _flat(pt):
                return False
            lat, lon = pt.get("lat"), pt.get("lon")
            if (lat is not None and not _number_in(lat, 90)) or (
                lon is not None and not _number_in(lon, 180)
            ):
                return False
    if "tags" in element:
        tags = element["tags"]
        if not isinstance(tags, dict):
            return False
        if not _ONLY_STR.issuperset(map(type, tags.values())):  # (the common case, in C)
            for v in tags.values():
                if not isinstance(v, str) and not (
                    isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                ):
                    return False
    # Any other member a scalar: the element nests at most three levels (geometry points).
    for key, value in element.items():
        if key not in _SHAPED_KEYS and isinstance(value, dict | list):
            return False
    return True


def read_overpass_json_file(
    path: Path, keep: Callable[[dict[str, Any]], bool] | None = None
) -> dict[str, Any]:
    """Stream an Overpass response saved on disk, keeping only the elements wanted.

    Parameters
    ----------
    path : pathlib.Path
        A JSON file holding an Overpass response envelope or a bare list of
        elements.
    keep : callable, optional
        Called with each raw element (a dict with a string ``type``, an integer ``id``
        and ``tags`` an object if present); only elements it accepts are kept. Default:
        keep all. A file of up to :data:`WHOLE_PARSE_MAX_BYTES` is parsed whole (the
        peak holds ~7x the file); a larger one, or one out of the ordinary (see
        :func:`_read_whole`), is read once, in chunks, and memory follows what is kept.

    Returns
    -------
    OverpassJSON
        ``{"elements": [...]}`` (plus ``remark`` if the response had one), ready for
        :mod:`~stations_generator.osm.overpass_json` (:func:`parse_overpass`,
        :func:`parse_overpass_json`, :func:`water_polygons_from_overpass_json`). Kept elements have been checked
        against :data:`~stations_generator.formats.schemas.OVERPASS_ELEMENT`.

    Raises
    ------
    InputError
        One line naming the file and the problem, if it is missing, larger than
        :data:`MAX_OVERPASS_JSON_BYTES`, unreadable, not UTF-8 JSON (``NaN`` and
        numbers that overflow a float included), not shaped like an Overpass response,
        an incomplete response (runtime-error remark), or has an element that breaks
        the schema (with its JSON path).
    """
    path = Path(path)
    size = _file_size(path)
    if size <= WHOLE_PARSE_MAX_BYTES:
        whole = _read_whole(path, keep)
        if whole is not None:
            return whole
    return _read_streamed(path, keep)


def _file_size(path: Path) -> int:
    """The size of the file at ``path``, or InputError if it is missing or too large."""
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "does not exist"
        raise InputError(f"Overpass JSON file {path} {what}")
    size = path.stat().st_size
    if size > MAX_OVERPASS_JSON_BYTES:
        raise InputError(
            f"{path} is {size / 1024**3:.1f} GiB, more than the "
            f"{MAX_OVERPASS_JSON_BYTES / 1024**3:.0f} GiB of Overpass JSON read; "
            "use an .osm.pbf extract of the area instead"
        )
    return size


class _Keeper:
    """The elements kept from a streamed file, each screened and (if kept) checked."""

    def __init__(self, path: Path, keep: Callable[[dict[str, Any]], bool] | None) -> None:
        self.path, self.keep = path, keep
        self.prefix = "$.elements"
        self.kept: list[dict[str, Any]] = []

    def take(self, index: int, element: object) -> None:
        """Screen element ``index`` and keep it if wanted, after checking it."""
        path, prefix = self.path, self.prefix
        element = _screen(element, index, path, prefix)
        if self.keep is None or self.keep(element):
            # A plainly valid element nests three levels at most; any other is measured
            # before the schema decides (and words any error).
            if not _plainly_valid(element):
                jsonio.check_depth(element, f"{path}: {prefix}[{index}]", "an OSM element", 16)
                jsonio.validate(
                    element, schemas.OVERPASS_ELEMENT, str(path), path_prefix=f"{prefix}[{index}]"
                )
            self.kept.append(element)
            if len(self.kept) > MAX_KEPT_ELEMENTS:
                raise InputError(
                    f"{path} holds more than {MAX_KEPT_ELEMENTS:,} elements to keep; split the "
                    "area or use an .osm.pbf extract"
                )


def _read_streamed(path: Path, keep: Callable[[dict[str, Any]], bool] | None) -> OverpassJSON:
    """:func:`read_overpass_json_file` of any file, read once, in chunks, by ijson."""
    import ijson

    keeper = _Keeper(path, keep)
    index = -1
    try:
        with path.open("rb") as handle:
            head, bare = _first_bytes(path, handle)
            if bare:
                keeper.prefix = "$"
            reader = _TailReader(handle, head)
            # ijson's C parser builds one element at a time; nothing else is held.
            for index, element in enumerate(
                ijson.items(reader, "item" if bare else "elements.item", use_float=True)
            ):
                keeper.take(index, element)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ijson.JSONError, ijson.IncompleteJSONError) as exc:
        raise InputError(
            f"{path} is not valid JSON ({one_line(str(exc), 120)}); "
            "expected a saved Overpass [out:json] response"
        ) from None
    except RecursionError:
        raise InputError(f"{path} is nested too deeply to be Overpass JSON") from None
    out = OverpassJSON(elements=keeper.kept)
    if bare:
        return out
    if index < 0 and not _has_elements_key(head):
        raise InputError(
            f"{path} is not an Overpass JSON response (a JSON object without an 'elements' "
            'list); expected {"elements": [...]} or a list of {"type", "id", ...} objects'
        )
    # Overpass writes its remark after the elements; one written before them counts too.
    for remark in (_leading_remark(path), _trailing_members(reader.tail).get("remark")):
        if remark is None:
            continue
        out["remark"] = remark
        problem = runtime_error(out)
        if problem is not None:
            raise InputError(f"{path} holds an incomplete Overpass response ({problem}); re-run it")
    return out


# Members only elements outside _SIMPLE_KEYS have, as they appear in the JSON text.
_NOT_SIMPLE = (b'"geometry"', b'"members"', b'"nodes"', b'"bounds"')


def _read_whole(path: Path, keep: Callable[[dict[str, Any]], bool] | None) -> OverpassJSON | None:
    """:func:`read_overpass_json_file` of an ordinary file parsed whole by orjson, or None.

    An ordinary file is UTF-8 JSON (no byte-order mark) holding a bare element list
    or an envelope with one ``elements`` list and no ``remark``, every element of the two
    shapes :func:`_simply_valid` decides. Those are values the streaming parser reads
    alike, so the result is the same; anything else (errors included, which the
    streaming reader words) gives None, and the file is streamed instead.
    """
    elements = _whole_elements(path)
    return None if elements is None else _kept_whole(elements, keep)


def _whole_elements(path: Path) -> list[Any] | None:
    """The element list of an ordinary file (see :func:`_read_whole`) parsed whole, or None
    (its elements not checked yet)."""
    import orjson

    try:
        content = path.read_bytes()
    except OSError:
        return None

    # A member no simple element has (geometries, bounds, node lists, relations) or a
    # byte-order mark: stream it at once rather than parse it twice. Only the first and
    # last chunks are searched (each search of the whole costs ~0.4 ms a MB): such
    # members are in every element of an ``out geom`` or ``out body`` file, and in the
    # last ones of POIs fetched with their water; a file that holds them only in its
    # middle is parsed, found out by the element checks, and streamed.
    head, tail = content[:_CHUNK], content[-_CHUNK:]
    if content.startswith(b"\xef\xbb\xbf") or any(m in head or m in tail for m in _NOT_SIMPLE):
        return None
    try:
        data = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None
    if type(data) is list:
        return data
    if (
        type(data) is dict
        and type(data.get("elements")) is list
        and "remark" not in data
        # Streamed, a repeated top-level "elements" yields the items of every copy.
        and content.count(b'"elements"') == 1
    ):
        return data["elements"]
    return None


def _kept_whole(
    elements: list[Any], keep: Callable[[dict[str, Any]], bool] | None
) -> OverpassJSON | None:
    """The elements of :func:`_whole_elements` that ``keep`` wants, or None unless every
    element is simply valid (and not too many are kept)."""
    kept: list[dict[str, Any]] = []
    for element in elements:
        if type(element) is not dict or not _simply_valid(element):
            return None
        if keep is None or keep(element):
            kept.append(element)
    if len(kept) > MAX_KEPT_ELEMENTS:
        return None
    out = OverpassJSON(elements=kept)
    out.simple = True
    return out


def read_overpass_elements(
    path: Path, keep: Callable[[dict[str, Any]], bool] | None = None, source: str | None = None
) -> tuple[list[OsmElement], list[Polygon]]:
    """:func:`read_overpass_json_file` and then
    :func:`~stations_generator.osm.overpass_json.parse_overpass`, in one pass over an
    ordinary file.

    Parameters
    ----------
    path : pathlib.Path
        As for :func:`read_overpass_json_file`.
    keep : callable, optional
        As for :func:`read_overpass_json_file`.
    source : str, optional
        How to name the data in messages [default: the file's name].

    Returns
    -------
    (list of OsmElement, list of Polygon)
        What ``parse_overpass(read_overpass_json_file(path, keep), source)`` returns:
        the same records (an ordinary file's tags are not copied: nothing else holds
        them) and water polygons.

    Raises
    ------
    InputError
        The same one-line errors as the two functions.
    """
    path = Path(path)
    source = path.name if source is None else source
    if _file_size(path) <= WHOLE_PARSE_MAX_BYTES:
        elements = _whole_elements(path)
        if elements is not None:
            records = _simple_records(elements, keep)
            if records is not None:
                return records, []  # (simple elements carry no geometry: no water)
            whole = _kept_whole(elements, keep)
            if whole is not None:
                return parse_overpass(whole, source)
    return parse_overpass(_read_streamed(path, keep), source)


_GROUP = {"node": 0, "way": 1, "relation": 2}  # (the records' order: type, then id)
_ABSENT = object()
_BY_ID = operator.attrgetter("osm_id")


def _simple_records(
    elements: list[Any], keep: Callable[[dict[str, Any]], bool] | None
) -> list[OsmElement] | None:
    """The records ``parse_overpass`` makes of :func:`_kept_whole`'s elements, from one
    loop that checks (as :func:`_simply_valid`), keeps and converts each element.

    None when the elements need the general path: one not simply valid, or one kept
    that is no node, way or relation, has no position, or lists an object again (whose
    occurrences are merged there); or too many kept.
    """
    groups: tuple[list[OsmElement], ...] = ([], [], [])
    simple_keys, only_str, group_of = _SIMPLE_KEYS.issuperset, _ONLY_STR.issuperset, _GROUP.get
    for element in elements:
        if type(element) is not dict or not simple_keys(element):
            return None
        osm_type, oid = element.get("type"), element.get("id")
        tags = element.get("tags", _ABSENT)
        lat, lon = element.get("lat", _ABSENT), element.get("lon", _ABSENT)
        if (
            type(osm_type) is not str
            or type(oid) is not int
            or (
                tags is not _ABSENT
                and (type(tags) is not dict or not only_str(map(type, tags.values())))
            )
            or (lat is not _ABSENT and not _in_range(lat, 90))
            or (lon is not _ABSENT and not _in_range(lon, 180))
        ):
            return None
        centre = element.get("center")
        if centre is not None:
            if not (
                type(centre) is dict
                and len(centre) == 2
                and _in_range(centre.get("lat"), 90)
                and _in_range(centre.get("lon"), 180)
            ):
                return None
        elif "center" in element:
            return None
        if keep is not None and not keep(element):
            continue
        group = group_of(osm_type)
        if group is None:
            return None
        if group:  # a way or relation: its centre
            if centre is None:
                return None
            lat, lon = centre["lat"], centre["lon"]
        elif lat is _ABSENT or lon is _ABSENT:
            return None
        groups[group].append(
            OsmElement(osm_type, oid, float(lat), float(lon), {} if tags is _ABSENT else tags)
        )
    records: list[OsmElement] = []
    for group in groups:
        group.sort(key=_BY_ID)
        if len(set(map(_BY_ID, group))) < len(group):
            return None
        records += group
    return records if len(records) <= MAX_KEPT_ELEMENTS else None


class _TailReader:
    """A binary file for ijson that starts with an already-read head and keeps the last
    bytes (at least ``keep_bytes`` of them, as whole chunks: no copy per read)."""

    def __init__(self, handle, head: bytes, keep_bytes: int = 2 * _CHUNK) -> None:
        self._handle, self._head, self._keep = handle, head, keep_bytes
        self._chunks: collections.deque[bytes] = collections.deque()
        self._kept = 0

    @property
    def tail(self) -> bytes:
        """The last bytes read: all of the last ``keep_bytes``, and maybe a few more."""
        return b"".join(self._chunks)

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson probes bytes vs text with read(0)
            return b""
        if self._head:
            chunk, self._head = self._head, b""
        else:
            chunk = self._handle.read(size if size and size > 0 else _CHUNK)
        if chunk:
            self._chunks.append(chunk)
            self._kept += len(chunk)
            while self._kept - len(self._chunks[0]) >= self._keep:
                self._kept -= len(self._chunks.popleft())
        return chunk


def _has_elements_key(head: bytes) -> bool:
    """Whether the document's first bytes open a top-level ``elements`` member."""
    import io

    import ijson

    opened = False
    try:
        for prefix, event, value in ijson.parse(io.BytesIO(head)):
            if opened:
                return event == "start_array"
            opened = prefix == "" and event == "map_key" and value == "elements"
    except (ijson.JSONError, ijson.IncompleteJSONError):
        pass
    return False


def _leading_remark(path: Path) -> object:
    """The top-level ``remark`` before the ``elements`` member, if any (None if none).

    Read from the file's start up to that member (the version, generator and osm3s
    members before it are small), after the whole file has been read as JSON.
    """
    import ijson

    remark = None
    try:
        with path.open("rb") as handle:
            if handle.read(3) != b"\xef\xbb\xbf":
                handle.seek(0)
            for prefix, event, value in ijson.parse(handle, use_float=True):
                if prefix == "" and event == "map_key" and value == "elements":
                    break
                if prefix == "remark" and event in ("string", "number", "boolean"):
                    remark = value
    except (OSError, ijson.JSONError, ijson.IncompleteJSONError):
        pass
    return remark


def _trailing_members(tail: bytes) -> dict[str, Any]:
    """The top-level members after the ``elements`` array (Overpass writes ``remark`` there).

    The tail of the file is tried from each ``]`` backwards: the first one after which
    the rest reads as the end of a JSON object closes the elements array.
    """
    text = tail.decode("utf-8", errors="replace")
    end = len(text)
    for _ in range(1000):
        end = text.rfind("]", 0, end)
        if end < 0:
            return {}
        rest = text[end + 1 :].lstrip().removeprefix(",")
        try:
            members = json.loads("{" + rest)
        except ValueError:
            continue
        return members if isinstance(members, dict) else {}
    return {}
