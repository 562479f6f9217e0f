"""Reading JSON input: one encoding policy, size and depth limits, schema errors as one line.

Every reader of a JSON file format (GeoJSON play areas, game files, taibeled states,
Overpass JSON, ``stations.geojson``) decodes its text here and checks it against its
schema (:mod:`stations_generator.formats.schemas`) with :func:`validate`, so every reader fails
the same way: one line with the file, the JSON path and the fix, e.g.
``game.json: $.questions[2].level: expected an integer admin level such as 8, got "eight"``.

The policy, the same for every JSON reader:

* UTF-8, with or without a byte-order mark (Windows editors write one; RFC 8259 lets
  parsers ignore it). UTF-16 and UTF-32 text (recognised by their BOM) and any other
  bytes that are not UTF-8 are refused with the offset of the first bad byte.
* ``NaN``, ``Infinity`` and numbers too large for a float (``1e400``) are refused: no
  non-finite number gets past a reader.
* Nesting deeper than :data:`MAX_DEPTH` and files larger than the reader's limit are
  refused with a message (a deeply nested array would otherwise exhaust the stack).
* Data built in Python (the ``parse_*`` functions of the API) is checked by the same
  :func:`validate`, whose validator reads NaN and ±inf as null: a reader given Python
  data where a schema allows null checks it with :func:`check_finite` first.

Why JSON Schema, checked by jsonschema-rs (rather than pydantic models): the formats are
other people's (GeoJSON, Overpass, taibeled) or plain documents users write by hand, so
their description is data (JSON Schema, publishable and reusable by the web page's API),
independent of our model classes. jsonschema-rs builds a validator in well under a
millisecond and checks a 5,000-station map in ~25 ms; it reports every failure with its
JSON path and its place in the schema, where the schemas carry their own human wording
(``x-expected``, ``x-fix``).
"""

from __future__ import annotations

import codecs
import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from stations_generator.errors import InputError

__all__ = [
    "MAX_DEPTH",
    "MAX_JSON_BYTES",
    "check_depth",
    "check_finite",
    "decode_text",
    "describe",
    "loads",
    "read_json_file",
    "validate",
]

#: Deepest nesting any of our formats needs (a MultiPolygon inside a Feature inside a
#: GeometryCollection inside a FeatureCollection is 8 levels; taibeled states ~10).
MAX_DEPTH = 64
#: Default size limit of a JSON file read whole (play areas, games, station maps).
MAX_JSON_BYTES = 256 * 1024**2

_UTF16_32_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


class _NotFinite(ValueError):
    pass


class _TooLarge(ValueError):
    pass


_FLOAT_MAX = 1.7976931348623157e308  # the largest double (sys.float_info.max)
_CONTAINERS = (dict, list, tuple)


def decode_text(raw: bytes, source: str, fix: str = "") -> str:
    """UTF-8 text from bytes (a UTF-8 BOM is dropped); one-line InputError otherwise.

    Parameters
    ----------
    raw : bytes
    source : str
        The file name, for messages.
    fix : str
        What to give instead [default: save it as UTF-8].
    """
    fix = fix or "save it as UTF-8"
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    else:
        for bom, name in _UTF16_32_BOMS:
            if raw.startswith(bom):
                raise InputError(f"{source} is {name} text; save it as UTF-8")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = raw[exc.start : exc.start + 1].hex().upper()
        raise InputError(
            f"{source} is not UTF-8 text (byte 0x{byte} at offset {exc.start}); {fix}"
        ) from None


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(text)
    return value


def _no_constant(text: str) -> float:
    raise _NotFinite(text)


def _double_sized_int(text: str) -> int:
    # An integer beyond a double's range is no coordinate, count or id; Python would
    # read it (up to 4300 digits) and fail later, converting it to a float. (This check
    # adds ~15 % to reading a 5 MB station map, 0.06 s.)
    if len(text) <= 308:  # below 1e308 whatever the digits
        return int(text)
    try:
        value = int(text)
    except ValueError:  # beyond Python's digit limit
        raise _TooLarge(text) from None
    if not -_FLOAT_MAX <= value <= _FLOAT_MAX:
        raise _TooLarge(text)
    return value


def _shown_number(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}… ({len(text.lstrip('-'))} digits)"


def loads(
    text: str, source: str, what: str = "JSON", max_depth: int = MAX_DEPTH, fix: str = ""
) -> Any:
    """Parse JSON text under the policy above (finite numbers, bounded depth).

    Raises
    ------
    InputError
        ``SOURCE is not valid JSON (line L, column C: why); give WHAT``, or a
        non-finite number, or nesting beyond ``max_depth``.
    """
    try:
        data = json.loads(
            text,
            parse_float=_finite_float,
            parse_constant=_no_constant,
            parse_int=_double_sized_int,
        )
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source} is not {what} (invalid JSON at line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg})" + (f"; {fix}" if fix else "")
        ) from None
    except _NotFinite as exc:
        raise InputError(
            f"{source}: {_shown_number(str(exc))} is not a finite number; "
            "JSON numbers must be finite"
        ) from None
    except _TooLarge as exc:
        raise InputError(
            f"{source}: the integer {_shown_number(str(exc))} is too large; JSON numbers "
            "must fit a double (about ±1.8e308)"
        ) from None
    except RecursionError:
        raise InputError(
            f"{source} is nested too deeply to be {what} (more than {max_depth} levels)"
        ) from None
    check_depth(data, source, what, max_depth)
    return data


def check_depth(data: Any, source: str, what: str = "JSON", max_depth: int = MAX_DEPTH) -> None:
    """InputError if ``data`` nests arrays/objects deeper than ``max_depth`` (iterative).

    Parameters
    ----------
    data : Any
        Parsed JSON, or Python data of the same shapes (tuples count as arrays).
    source : str
        The file name, for messages.
    what : str
        What it should be, for messages.
    max_depth : int
        Deepest nesting accepted.
    """
    level = [data] if isinstance(data, _CONTAINERS) else []
    depth = 0
    while level:  # level by level: ~2.5x faster than a stack of (value, depth) pairs
        depth += 1
        if depth > max_depth:
            raise InputError(
                f"{source} is nested too deeply to be {what} (more than {max_depth} levels)"
            )
        children: list[Any] = []
        for value in level:
            children.extend(value.values() if isinstance(value, dict) else value)
        level = [c for c in children if isinstance(c, _CONTAINERS)]


def check_finite(data: Any, source: str) -> None:
    """InputError naming the JSON path of the first number that is not finite.

    Text read by :func:`loads` never holds one, but data built in Python may (NaN, ±inf,
    an integer beyond a double), and the validator reads NaN and ±inf as null: readers
    given Python data check it here first.

    Parameters
    ----------
    data : Any
        Python data of JSON shapes (tuples count as arrays).
    source : str
        The file name, for messages.
    """
    stack: list[tuple[tuple, Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list | tuple):
            stack.extend(((*path, i), value[i]) for i in range(len(value) - 1, -1, -1))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if not -_FLOAT_MAX <= value <= _FLOAT_MAX:  # also False for NaN
                shown = _shown_number(str(value)) if isinstance(value, int) else describe(value)
                raise InputError(
                    f"{source}: {_json_path('$', path)}: {shown} is not a finite number; "
                    "JSON numbers must be finite"
                )


def read_json_file(
    path: Path,
    what: str,
    *,
    label: str | None = None,
    limit: int = MAX_JSON_BYTES,
    hint: str = "check the path",
    fix: str = "",
) -> Any:
    """Read and parse a JSON file under the policy above.

    Parameters
    ----------
    path : Path
    what : str
        What it should be, e.g. ``"a GeoJSON file"``; used in the fixes.
    label : str, optional
        How to name the file in messages [default: its name].
    limit : int
        Largest size accepted, in bytes.
    hint : str
        The fix when the file does not exist.
    fix : str
        The fix when it is not JSON.
    """
    path = Path(path)
    source = label or path.name
    if not path.exists():
        raise InputError(f"{source} does not exist; {hint}")
    if path.is_dir():
        raise InputError(f"{source} is a folder, not {what}")
    try:
        size = path.stat().st_size
        if size > limit:
            raise InputError(
                f"{source} is {size / 1024**2:.0f} MiB, more than the {limit / 1024**2:.0f} MiB "
                f"accepted for {what}"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {source}: {exc.strerror or exc}") from None
    if not raw.strip():
        raise InputError(f"{source} is empty, not {what}")
    return loads(decode_text(raw, source, fix), source, what, fix=fix)


# --------------------------------------------------------------------------- schemas


def _type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        tuple: "an array",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def describe(value: Any, limit: int = 60) -> str:
    """A short JSON rendering of a value for messages.

    Parameters
    ----------
    value : Any
    limit : int
        Longest text returned; a longer one is cut and ends with an ellipsis.

    Returns
    -------
    str
    """
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_TYPE_WORDS = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "number": "a finite number",
    "integer": "a whole number",
    "boolean": "true or false",
    "null": "null",
}


_BOUNDS = {"minimum": "≥", "maximum": "≤", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def _default_expectation(keyword: str, value: Any, message: str) -> str:
    if keyword == "type":
        kinds = value if isinstance(value, list) else [value]
        return " or ".join(_TYPE_WORDS.get(k, k) for k in kinds)
    if keyword in ("enum", "const"):
        options = value if keyword == "enum" else [value]
        return "one of " + ", ".join(describe(o) for o in options)
    if keyword in _BOUNDS:
        return f"a number {_BOUNDS[keyword]} {value:g}"
    if keyword in ("minItems", "maxItems"):
        limit = "at least" if keyword == "minItems" else "at most"
        return f"{limit} {value} item{'s' * (value != 1)}"
    if keyword == "minLength":
        return "a non-empty string" if value == 1 else f"a string of at least {value} characters"
    if keyword == "pattern":
        return f"a string matching {value}"
    return message


class _Failure(NamedTuple):
    """One schema failure: where in the document, which keyword, in which part of the schema."""

    path: tuple  # of the value in the document (keys and indexes)
    keyword: str
    schema: dict  # the schema object holding ``keyword``
    order: tuple  # the failure's place in the schema, for ties
    message: str  # the validator's own wording, the last resort


def _resolve(root: dict, schema_path: list) -> Any:
    """The part of ``root`` at a schema path (a ``$ref`` within the document is followed)."""
    node: Any = root
    for step in schema_path:
        ref = node.get("$ref") if isinstance(node, dict) and step == "$ref" else None
        if isinstance(ref, str) and ref.startswith("#"):
            node = root
            for name in filter(None, ref[1:].split("/")):
                node = node[name]
            continue
        node = node[step]
    return node


def _failure(error: Any, root: dict) -> _Failure:
    schema_path = list(error.schema_path)
    schema = _resolve(root, schema_path[:-1])
    path = tuple(error.instance_path)
    if isinstance(schema, dict) and schema.get("x-in-position"):
        # A number of a position: the position as a whole is named (schemas._positions).
        path, schema = path[:-1], _resolve(root, schema_path[:-2])
    keyword = str(schema_path[-1]) if schema_path else ""
    schema = schema if isinstance(schema, dict) else {}
    return _Failure(path, keyword, schema, tuple(map(str, schema_path)), str(error.message))


def _relevance(failure: _Failure) -> tuple:
    # The deepest failure is the most specific one; at equal depth prefer failures of
    # a value (type, range) over a missing key, then schema order.
    return (-len(failure.path), failure.keyword == "required", failure.order)


def _json_path(prefix: str, path: tuple) -> str:
    return prefix + "".join(map(_path_step, path))


def _path_step(key: Any) -> str:
    """``[3]`` for an index, ``.name`` for a plain key, else the key JSON-quoted in brackets
    (a key from a file may hold a newline or anything else: the message stays one line)."""
    if isinstance(key, int):
        return f"[{key}]"
    if str(key).isidentifier():
        return f".{key}"
    return "[" + json.dumps(str(key)) + "]"


def _position_message(level: int, value: Any) -> str:
    if level == 1:
        return f"expected a position [longitude, latitude] of finite numbers, got {describe(value)}"
    kind = "positions" if level == 2 else f"arrays {level - 1} deep"
    return f"expected an array of {kind}, got {describe(value)}"


def _message(failure: _Failure, data: Any, source: str, prefix: str = "$") -> str:
    where = _json_path(prefix, failure.path)
    schema, keyword = failure.schema, failure.keyword
    value = data
    for step in failure.path:  # the value itself (the validator sees NaN as null)
        value = value[step]
    fix = schema.get("x-fix")
    if keyword == "required":
        missing = next((k for k in schema["required"] if k not in value), "?")
        hint = (schema.get("x-required-fix") or {}).get(missing) or fix
        return f"{source}: {where}: {describe(missing)} is missing" + (f"; {hint}" if hint else "")
    if keyword == "additionalProperties" and isinstance(value, dict):
        known = set(schema.get("properties", {}))
        extra = sorted(k for k in value if k not in known)
        options = ", ".join(sorted(known))
        return (
            f"{source}: {where}: unknown key {describe(extra[0] if extra else '?')}; use {options}"
        )
    if "x-position" in schema:
        return f"{source}: {where}: {_position_message(schema['x-position'], value)}"
    if "x-message" in schema:
        return f"{source}: {where}: " + schema["x-message"].format(value=repr(value))
    expected = schema.get("x-expected") or _default_expectation(
        keyword, schema.get(keyword), failure.message
    )
    shown = describe(value) if not isinstance(value, dict | list | tuple) else _type_name(value)
    return f"{source}: {where}: expected {expected}, got {shown}" + (f"; {fix}" if fix else "")


@lru_cache(maxsize=32)
def _validator(schema_id: int) -> Any:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(_SCHEMAS[schema_id])


_SCHEMAS: dict[int, dict] = {}


def _errors(validator: Any, data: Any, source: str, error: type[InputError]) -> list:
    try:
        return list(validator.iter_errors(data))
    except ValueError as exc:  # a value that is no JSON type (a set, a NumPy integer…)
        try:
            plain = json.loads(json.dumps(data))  # float and str subclasses become plain
        except (TypeError, ValueError):
            raise error(f"{source} is not JSON data ({exc}); give JSON values") from None
        return list(validator.iter_errors(plain))


def validate(
    data: Any,
    schema: dict,
    source: str,
    error: type[InputError] = InputError,
    *,
    path_prefix: str = "$",
) -> None:
    """Check ``data`` against a JSON Schema; raise one line naming the first problem.

    Parameters
    ----------
    data : Any
        Parsed JSON, or Python data of the same kinds (tuples count as arrays).
    schema : dict
        A schema of :mod:`stations_generator.formats.schemas`.
    source : str
        The file name, for messages.
    error : InputError subclass
        The exception raised.
    path_prefix : str
        The JSON path of ``data`` in its document (for one element of a stream).

    Raises
    ------
    InputError
        ``SOURCE: $.json.path: expected …, got …; fix``; or nesting deeper than
        :data:`MAX_DEPTH` (the validator recurses natively: it is never given deeper data).
    """
    try:
        check_depth(data, source)
    except InputError:
        raise error(f"{source} is nested too deeply (more than {MAX_DEPTH} levels)") from None
    _SCHEMAS.setdefault(id(schema), schema)
    errors = _errors(_validator(id(schema)), data, source, error)
    if errors:
        failure = min((_failure(e, schema) for e in errors), key=_relevance)
        raise error(_message(failure, data, source, path_prefix))
