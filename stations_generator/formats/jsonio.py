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

Why jsonschema (rather than pydantic): the formats are other people's (GeoJSON,
Overpass, taibeled) or plain documents users write by hand, so their description is
data (JSON Schema, publishable and reusable by the web page's API), independent of
our model classes; jsonschema reports the exact JSON path of each failure; and custom
keywords let the schemas carry their own human wording (``x-expected``, ``x-fix``).
"""

from __future__ import annotations

import codecs
import json
import math
from collections import deque
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from stations_generator.errors import InputError

__all__ = [
    "MAX_DEPTH",
    "MAX_JSON_BYTES",
    "check_depth",
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


def finite_number(value: float) -> bool:
    """Whether a number (int or float) is finite and fits a double: False for NaN, ±inf
    and integers too large for a float (``math.isfinite`` raises OverflowError on those)."""
    return -_FLOAT_MAX <= value <= _FLOAT_MAX


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
    if not finite_number(value):
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
    """InputError if ``data`` nests lists/objects deeper than ``max_depth`` (iterative)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > max_depth:
            raise InputError(
                f"{source} is nested too deeply to be {what} (more than {max_depth} levels)"
            )
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


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
        str: "a string",
        bool: "a boolean",
        type(None): "null",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def describe(value: Any, limit: int = 60) -> str:
    """A short JSON rendering of a value for messages."""
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


def _default_expectation(error) -> str:
    v, value = error.validator, error.validator_value
    if v == "type":
        kinds = value if isinstance(value, list) else [value]
        return " or ".join(_TYPE_WORDS.get(k, k) for k in kinds)
    if v in ("enum", "const"):
        options = value if v == "enum" else [value]
        return "one of " + ", ".join(describe(o) for o in options)
    if v in _BOUNDS:
        return f"a number {_BOUNDS[v]} {value:g}"
    if v in ("minItems", "maxItems"):
        return f"{'at least' if v == 'minItems' else 'at most'} {value} item{'s' * (value != 1)}"
    if v == "minLength":
        return "a non-empty string" if value == 1 else f"a string of at least {value} characters"
    if v == "pattern":
        return f"a string matching {value}"
    return str(error.message)


def _message(error, source: str, prefix: str = "$") -> str:
    where = prefix + error.json_path[1:]
    schema = error.schema if isinstance(error.schema, dict) else {}
    fix = schema.get("x-fix")
    if error.validator == "required":
        missing = next((k for k in error.validator_value if k not in error.instance), "?")
        text = f"{source}: {where}: {describe(missing)} is missing"
        hint = (schema.get("x-required-fix") or {}).get(missing) or fix
        return text + (f"; {hint}" if hint else "")
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in known)
        options = ", ".join(sorted(known))
        return (
            f"{source}: {where}: unknown key {describe(extra[0] if extra else '?')}; use {options}"
        )
    if error.validator == "x-positions":
        return f"{source}: {where}: {error.message}"
    if "x-message" in schema and error.validator not in ("required", "additionalProperties"):
        return f"{source}: {where}: " + schema["x-message"].format(value=repr(error.instance))
    expected = schema.get("x-expected") or _default_expectation(error)
    got = error.instance
    shown = describe(got) if not isinstance(got, dict | list) else _type_name(got)
    text = f"{source}: {where}: expected {expected}, got {shown}"
    return text + (f"; {fix}" if fix else "")


def _relevance(error) -> tuple:
    # The deepest failure is the most specific one; at equal depth prefer failures of
    # a value (type, range) over a missing key, then schema order.
    return (-len(error.absolute_path), error.validator == "required", list(error.schema_path))


def _positions(validator, depth, instance, schema) -> Iterator:
    """The ``x-positions`` keyword: nested arrays ``depth`` deep of [x, y(, z)] numbers."""
    from jsonschema import ValidationError

    stack: deque[tuple[Any, int, tuple]] = deque([(instance, depth, ())])
    while stack:
        value, level, path = stack.pop()
        if level == 1:
            if (
                not isinstance(value, list | tuple)
                or not 2 <= len(value) <= 4
                or not all(
                    isinstance(c, int | float) and not isinstance(c, bool) and finite_number(c)
                    for c in value
                )
            ):
                yield ValidationError(
                    f"expected a position [longitude, latitude] of finite numbers, got "
                    f"{describe(value)}",
                    path=path,
                )
                return
            continue
        if not isinstance(value, list | tuple):
            kind = "positions" if level == 2 else f"arrays {level - 1} deep"
            yield ValidationError(
                f"expected an array of {kind}, got {describe(value)}",
                path=path,
            )
            return
        for i in range(len(value) - 1, -1, -1):
            stack.append((value[i], level - 1, (*path, i)))


@lru_cache(maxsize=32)
def _validator(schema_id: int):
    from jsonschema import Draft202012Validator, validators

    schema = _SCHEMAS[schema_id]
    # Numbers must be finite; tuples count as arrays (Python callers pass shapely's mapping()).
    checker = Draft202012Validator.TYPE_CHECKER.redefine_many(
        {
            "number": lambda _c, x: (
                isinstance(x, int | float) and not isinstance(x, bool) and finite_number(x)
            ),
            "array": lambda _c, x: isinstance(x, list | tuple),
        }
    )
    cls = validators.extend(Draft202012Validator, {"x-positions": _positions}, type_checker=checker)
    return cls(schema)


def _standard(schema: Any, depth_key: str = "x-positions") -> Any:
    """``schema`` in standard draft-07 keywords only, for the compiled fast path.

    ``x-positions: N`` becomes the equivalent nested ``items`` (arrays ``N`` deep of two
    to four numbers); the other ``x-`` keywords only word messages and are dropped.
    """
    if isinstance(schema, list):
        return [_standard(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _standard(v) for k, v in schema.items() if not k.startswith("x-")}
    if depth_key in schema:
        inner: dict[str, Any] = {
            "type": "array",
            "minItems": 2,
            "maxItems": 4,
            "items": {"type": "number"},
        }
        for _ in range(int(schema[depth_key]) - 1):
            inner = {"type": "array", "items": inner}
        out = {"allOf": [out, inner]}
    return out


@lru_cache(maxsize=32)
def _fast_validator(schema_id: int):
    """A compiled validator of the schema's standard part (fastjsonschema), or None.

    It only ever says "valid" faster: whatever it refuses, or cannot check, goes to
    the jsonschema validator, which alone words the error. Finiteness is checked
    apart (:func:`_all_finite`), since JSON Schema's ``number`` admits NaN.
    """
    import fastjsonschema

    schema = {
        **_standard(_SCHEMAS[schema_id]),
        "$schema": "http://json-schema.org/draft-07/schema#",
    }
    try:
        return fastjsonschema.compile(schema)
    except Exception:  # a schema it cannot compile: always take the full validator
        return None


def _all_finite(data: Any) -> bool:
    # The C encoder refuses NaN and ±inf (allow_nan=False) and anything that is not
    # plain JSON data; either way the full validator then decides.
    try:
        json.dumps(data, allow_nan=False, check_circular=False)
    except (ValueError, TypeError, RecursionError):
        return False
    return True


def _fast_valid(data: Any, schema_id: int) -> bool:
    import fastjsonschema

    fast = _fast_validator(schema_id)
    if fast is None:
        return False
    try:
        fast(data)
    except (fastjsonschema.JsonSchemaException, RecursionError, TypeError):
        return False
    return _all_finite(data)


_SCHEMAS: dict[int, dict] = {}


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
        Parsed JSON.
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
        ``SOURCE: $.json.path: expected …, got …; fix``.
    """
    _SCHEMAS.setdefault(id(schema), schema)
    # The compiled check takes ~1/50 of jsonschema's time on valid data (5,000 stations:
    # 0.1 s instead of 5 s); only data it does not pass goes to jsonschema for the message.
    if _fast_valid(data, id(schema)):
        return
    validator = _validator(id(schema))
    try:
        errors = list(validator.iter_errors(data))
    except RecursionError:
        raise error(f"{source} is nested too deeply (more than {MAX_DEPTH} levels)") from None
    if errors:
        raise error(_message(min(errors, key=_relevance), source, path_prefix))
