"""JSON on the HTTP service's wire, read and written by orjson (a compiled JSON library, several times faster
than the standard library's ``json``), with exactly the strictness of ``jsonread.strict_loads`` and
``protocol.encode``:

* :func:`loads` gives the value ``strict_loads`` gives, or raises the ``StateError`` it raises. orjson reads a
  body only where it provably agrees: orjson alone already refuses invalid UTF-8, a byte order mark, ``NaN``,
  ``Infinity`` and numbers out of the range of a double, but it keeps the last of two equal keys and reads an
  integer beyond 64 bits as a float. So a body with any backslash (an escape, the only way to write a lone
  surrogate or a quote inside a string) or a run of 19 digits, or one that orjson refuses, is read by
  ``strict_loads`` instead, which names the problem and its field. Without backslashes no string holds a quote,
  so every ``"`` delimits a string and a key dropped as a duplicate shows as fewer quotes when the value is
  written back: then ``strict_loads`` reads it too, and refuses it.
* :func:`encode_bytes` writes a reply as UTF-8 JSON with orjson, after checking that every float in it is finite
  (orjson would write ``NaN`` as ``null``); a reply that cannot be written becomes an ``internal`` error naming the
  field, as ``protocol.encode_bytes`` did. The check skips the reply's ``state``: that is ``Game.to_dict()``,
  whose numbers are the engine's integers and the event values ``Game.from_dict`` admitted, and it admits finite
  numbers only (``jsonread.check_data``, also for Python data); walking a state in Python would cost most of
  what orjson saves.

Measured on a 12 kB core-2p request (``python tools/load_http.py``'s bodies): ``strict_loads`` ~450 us, this
:func:`loads` ~130 us; ``json.dumps`` of the ``go`` reply ~250-390 us, :func:`encode_bytes` ~140 us.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

from bc_env.rules.jsonread import problem, strict_loads

#: Digits to ``0``, everything else to a space: ``raw.translate(_DIGIT_RUNS).find(_LONG)`` finds a run of 19
#: digits (an integer that may not fit in 64 bits; orjson would read it as a float) at C speed.
_DIGIT_RUNS = bytes(0x30 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
_LONG = b"0" * 19


def loads(raw: bytes, where: str) -> Any:
    """One JSON document from the wire, strictly read (:mod:`module docs <embedding.wirejson>`); ``where`` names
    it in errors, as in ``strict_loads``."""
    if b"\\" not in raw and raw.translate(_DIGIT_RUNS).find(_LONG) < 0:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass  # strict_loads says what is wrong, and where
        else:
            if orjson.dumps(value).count(b'"') == raw.count(b'"'):  # no key was dropped as a duplicate
                return value
    return strict_loads(raw, where)


def _finite(value: Any) -> bool:
    """Whether every float in ``value`` (a reply: dicts, lists, tuples and scalars) is finite."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is dict:
            stack.extend(v.values())
        elif t is list or t is tuple:
            stack.extend(v)
        elif t is float and not math.isfinite(v):
            return False
    return True


def encode_bytes(reply: dict[str, Any]) -> bytes:
    """One reply as UTF-8 JSON. A reply that cannot be written (a non-finite number or a lone surrogate that got
    past the readers: a defect) becomes an ``internal`` error naming the field, never an exception."""
    if _finite([v for k, v in reply.items() if k != "state"]):
        try:
            return orjson.dumps(reply)
        except TypeError:  # orjson.JSONEncodeError: a lone surrogate, an integer beyond 64 bits, a foreign type
            pass
    try:  # what orjson could not write may still be JSON (a big integer): the standard library decides
        return json.dumps(reply, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, TypeError) as exc:  # UnicodeEncodeError is a ValueError
        where = problem(reply, "reply") or f"{type(exc).__name__}: {exc}"
    from .protocol import error_reply  # here: the protocol reads its messages with this module

    fallback = error_reply(None, None, "internal", f"the reply could not be written as JSON: {where}")
    fallback["id"] = reply.get("id") if problem(reply.get("id"), "id") is None else None
    fallback["cmd"] = reply.get("cmd") if problem(reply.get("cmd"), "cmd") is None else None
    return json.dumps(fallback, separators=(",", ":"), ensure_ascii=True).encode("ascii")
