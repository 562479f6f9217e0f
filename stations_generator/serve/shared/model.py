"""What every game store shares: join codes, tokens, the checks of an event, what a seeker sees.

A shared game is a game file (the JSON the ``questions`` commands read), its settings and an
ordered list of events. An event is an opaque JSON object with an ``"event"`` kind (the
referee's game-log events: ``question-asked``, ``question-answered``, ``cards-drawn``…);
the store checks only its shape and size and hands it to the check it was given.

Privacy: a seeker never receives the hider's position nor what an event declares private.
:func:`seeker_view` removes, at any depth, every key named in :data:`HIDER_KEYS`, and the
top-level fields an event lists in its ``"private"`` key (``"private": ["cards"]``); an
event with ``"private": true`` reaches seekers as its kind and time only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from stations_generator.errors import InputError
from stations_generator.formats import jsonio

SEEKER = "seeker"
HIDER = "hider"
ROLES = (SEEKER, HIDER)

#: Join codes: 6 letters and digits without the look-alikes I, O, 0, 1 (32**6, about a
#: billion codes; the code only names a game, the tokens open it).
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
#: 24 random bytes (192 bits) per token, from :mod:`secrets`.
TOKEN_BYTES = 24
#: One event as JSON: a question with a drawn polygon of ~2,000 vertices fits.
MAX_EVENT_BYTES = 64 * 1024
#: The game file of a shared game (a drawn play area with thousands of vertices fits).
MAX_GAME_BYTES = 8 * 1024**2
MAX_SETTINGS_BYTES = 64 * 1024
#: A long game has a few hundred events (questions, answers, cards, curses).
MAX_EVENTS_PER_GAME = 5000
#: Keys that hold the hider's position, removed at any depth from what a seeker receives.
HIDER_KEYS = frozenset({"hider", "hider_position", "hider_location"})

_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_KIND = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")

#: The check of an event's content: ``check(event, role)`` raises ValueError (the
#: referee's RuleViolation is one) to refuse it.
EventCheck = Callable[[dict, str], None]


class Refused(Exception):
    """A request the shared-game API refuses: an HTTP status and a one-line reason.

    Parameters
    ----------
    status : int
        The HTTP status (a WebSocket closes with ``4000 + status``).
    message : str
        What is wrong and what to do.
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    @property
    def close_code(self) -> int:
        """The WebSocket close code of this refusal (4400, 4403, 4404, 4409, 4413, 4429…)."""
        return 4000 + self.status


def new_code() -> str:
    """A new random join code (:data:`CODE_LENGTH` characters of :data:`CODE_ALPHABET`)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(value: Any) -> str:
    """A join code as typed (any case, spaces or dashes) -> its canonical form.

    Raises
    ------
    Refused
        400 when it cannot be a join code.
    """
    text = re.sub(r"[\s-]", "", value).upper() if isinstance(value, str) else ""
    if len(text) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in text):
        raise Refused(
            400,
            f"{jsonio.describe(value, 20)} is not a join code: give the "
            f"{CODE_LENGTH} letters and digits the game's organiser shows",
        )
    return text


def new_token() -> str:
    """A new secret token (URL-safe text)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> bytes:
    """What the store keeps of a token: its SHA-256 (a stolen database opens no game)."""
    return hashlib.sha256(token.encode("utf-8")).digest()


def role_of(token: Any, seeker_hash: bytes, hider_hash: bytes) -> str | None:
    """The role ``token`` opens, comparing with both hashes in constant time; None if none."""
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        token = ""
    given = token_hash(token)
    seeker = hmac.compare_digest(given, bytes(seeker_hash))
    hider = hmac.compare_digest(given, bytes(hider_hash))
    return HIDER if hider else SEEKER if seeker else None


def denied(code: str) -> Refused:
    """The one refusal of a wrong token, an unknown code or another game's token (403)."""
    return Refused(
        403,
        f"this token does not open game {code}; open the game's link again or ask its "
        "organiser for it",
    )


def canonical(data: Any) -> str:
    """``data`` as compact JSON with sorted keys (same data, same text)."""
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def now() -> str:
    """The server's time, UTC, ISO 8601 to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _checked_json(value: Any, what: str, max_bytes: int) -> str:
    """``value``'s canonical text after the depth, number and size checks (Refused 4xx)."""
    try:
        jsonio.check_depth(value, what)
        jsonio.check_finite(value, what)
        text = canonical(value)
    except (InputError, ValueError) as exc:
        raise Refused(400, str(exc)) from None
    if len(text.encode("utf-8")) > max_bytes:
        raise Refused(413, f"{what} is larger than the {max_bytes:,} bytes a shared game takes")
    return text


def check_event(message: Any, role: str, check: EventCheck) -> tuple[str, dict, str]:
    """A posted event ``{"id": CLIENT_ID, "event": {...}}`` -> (id, event, its canonical text).

    Parameters
    ----------
    message : Any
        The posted JSON (a WebSocket message may also carry ``"type": "event"``).
    role : str
        The author's role (from the token).
    check : EventCheck
        The content's check; its ValueError becomes a 422.

    Raises
    ------
    Refused
        400 for a malformed message, 413 for an oversized event, 422 for a refused one.
    """
    if not isinstance(message, dict):
        raise Refused(400, 'send an event as {"id": "…", "event": {"event": "…", …}}')
    unknown = sorted(set(message) - {"id", "event", "type"})
    if unknown:
        raise Refused(
            400, f"unknown field {unknown[0][:40]!r} in the event message; send id, event"
        )
    client_id = message.get("id")
    if not isinstance(client_id, str) or not _CLIENT_ID.fullmatch(client_id):
        raise Refused(
            400,
            "give the event an id of 1-64 letters, digits or ._:- (unique per "
            "event, the same when it is sent again)",
        )
    event = message.get("event")
    if not isinstance(event, dict) or not isinstance(event.get("event"), str):
        raise Refused(400, 'event must be an object with its kind in "event"')
    if not _KIND.fullmatch(event["event"]):
        raise Refused(
            400,
            f"{jsonio.describe(event['event'], 40)} is not an event kind "
            "(lower-case words joined by -)",
        )
    private = event.get("private", False)
    if not (
        private is True
        or private is False
        or (isinstance(private, list) and all(isinstance(p, str) for p in private))
    ):
        raise Refused(400, '"private" must be true or a list of the event\'s field names')
    text = _checked_json(event, "the event", MAX_EVENT_BYTES)
    try:
        check(event, role)
    except ValueError as exc:
        raise Refused(422, str(exc)) from None
    return client_id, event, text


def check_game(body: Any) -> tuple[str, str]:
    """A new game ``{"game": {...}, "settings": {...}?}`` -> the canonical texts of both."""
    if not isinstance(body, dict) or not isinstance(body.get("game"), dict):
        raise Refused(400, 'send {"game": GAME.json as an object, "settings": {...}}')
    unknown = sorted(set(body) - {"game", "settings"})
    if unknown:
        raise Refused(400, f"unknown field {unknown[0][:40]!r}; send game and settings")
    settings = body.get("settings", {})
    if not isinstance(settings, dict):
        raise Refused(400, "settings must be an object")
    return (
        _checked_json(body["game"], "the game", MAX_GAME_BYTES),
        _checked_json(settings, "the settings", MAX_SETTINGS_BYTES),
    )


def basic_event_check(event: dict, role: str) -> None:
    """The default check of an event's content: any kind from either role."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")


def _without_hider(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_hider(v) for k, v in value.items() if k not in HIDER_KEYS}
    if isinstance(value, list):
        return [_without_hider(v) for v in value]
    return value


def seeker_view(data: Any) -> Any:
    """``data`` (an event, a game, settings) as a seeker may receive it (module docstring)."""
    if not isinstance(data, dict):
        return _without_hider(data)
    private = data.get("private", False)
    if private is True:
        return {k: data[k] for k in ("event", "at") if k in data and k not in HIDER_KEYS} | {
            "private": True
        }
    hidden = set(private) if isinstance(private, list) else set()
    return {
        k: _without_hider(v)
        for k, v in data.items()
        if k not in HIDER_KEYS and k not in hidden and k != "private"
    }


def view(data: Any, role: str) -> Any:
    """``data`` as ``role`` may receive it: all of it for the hider."""
    return data if role == HIDER else seeker_view(data)


class RateLimit:
    """A token bucket: ``rate`` messages a second on average, ``burst`` at once.

    Parameters
    ----------
    rate : float
        Messages per second allowed on average.
    burst : int
        Messages allowed at once after a quiet spell.
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._level = float(burst)
        self._at = time.monotonic()

    def allow(self) -> bool:
        """Take one message; False when the bucket is empty (the message is refused)."""
        t = time.monotonic()
        self._level = min(self.burst, self._level + (t - self._at) * self.rate)
        self._at = t
        if self._level < 1:
            return False
        self._level -= 1
        return True


class RateLimits:
    """One :class:`RateLimit` per key (a game and role), the least recently used dropped
    beyond ``keys``. Thread-safe.

    Parameters
    ----------
    rate, burst :
        As :class:`RateLimit`.
    keys : int
        Buckets kept.
    """

    def __init__(self, rate: float, burst: int, keys: int = 10_000) -> None:
        self.rate, self.burst, self.keys = rate, burst, keys
        self._buckets: OrderedDict[Any, RateLimit] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, key: Any) -> bool:
        """Take one message for ``key``."""
        with self._lock:
            bucket = self._buckets.pop(key, None) or RateLimit(self.rate, self.burst)
            self._buckets[key] = bucket
            while len(self._buckets) > self.keys:
                self._buckets.popitem(last=False)
            return bucket.allow()


def as_mapping(text: str) -> Mapping[str, Any]:
    """A stored canonical JSON text back as data."""
    return json.loads(text)
