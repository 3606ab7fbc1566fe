"""Strict reading of JSON: the one parser of every JSON document the project reads from outside (:func:`strict_loads`:
states, replays, rules files, protocol messages, logs) and the field readers of the state loader and the
expansions' states. Each raises ``StateError`` naming the field (``where``) and what was wrong. The field readers'
input is typed ``Any``: they check it themselves (the compiled engine would otherwise refuse a wrong type first
with a bare ``TypeError``)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .errors import StateError

#: A ``\uXXXX`` escape of a UTF-16 surrogate (D800-DFFF) in JSON text: the only way a lone surrogate gets into a
#: string parsed from UTF-8 (a valid pair is joined into one character by the parser and is fine).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Bad:
    """What the locating parse puts in place of a refused value (its reason names it)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        raise ValueError("duplicate key")
    return d


def _mark_constant(name: str) -> Any:
    return _Bad(f"{name} is not a JSON number; numbers must be finite")


def _mark_float(text: str) -> Any:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 40 else text[:37] + "..."
        return _Bad(f"{shown} is out of the range of a double (it would read as infinity); numbers must be finite")
    return value


def _mark_object(pairs: list[tuple[str, Any]]) -> Any:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                return _Bad(f"the key {_show(key)} appears twice in one object (which one counts?)")
            seen.add(key)
    return d


def _show(text: str) -> str:
    shown = ascii(text[:64])  # ascii: a lone surrogate prints as its escape, not as a character
    return shown if len(text) <= 64 else shown + "..."


def is_text(text: str) -> bool:
    """Whether ``text`` is Unicode text: no lone surrogate, so it can be written as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def problem(value: Any, where: str) -> str | None:
    """The first value in ``value`` (parsed JSON data) that is not plain JSON data, as ``"<path>: <why>"``: a
    float that is not finite (NaN, infinity), a string or key holding a lone surrogate (not Unicode text, cannot be
    written as UTF-8), a refused value of the locating parse; None if there is none. Iterative: any depth."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        v, path = stack.pop()
        if isinstance(v, str):
            if not is_text(v):
                return f"{path}: the string {_show(v)} holds a lone surrogate (not Unicode text)"
        elif isinstance(v, float):
            if not math.isfinite(v):
                return f"{path}: {v!r} is not a JSON number; numbers must be finite"
        elif isinstance(v, _Bad):
            return f"{path}: {v.reason}"
        elif isinstance(v, dict):
            items = list(v.items())
            for k, item in reversed(items):
                if not isinstance(k, str):
                    continue  # not JSON (a caller's dict): the readers of the fields say what they expect
                if not is_text(k):
                    return f"{path}: the key {_show(k)} holds a lone surrogate (not Unicode text)"
                stack.append((item, f"{path}.{k}"))
        elif isinstance(v, list | tuple):
            for i in range(len(v) - 1, -1, -1):
                stack.append((v[i], f"{path}[{i}]"))
    return None


def check_data(value: Any, where: str) -> None:
    """Raise ``StateError`` naming the first non-finite number or lone surrogate in ``value`` (see :func:`problem`):
    for data that did not come through :func:`strict_loads` (a TOML file, a caller's dict)."""
    found = problem(value, where)
    if found is not None:
        raise StateError(found)


def strict_loads(data: str | bytes, where: str = "document") -> Any:
    """Parse one JSON document strictly (RFC 8259 and Unicode), or raise ``StateError`` naming the problem and,
    where there is one, the field (``where`` is the document's name, e.g. ``state`` -> ``state.events[3].x``):

    * bytes must be UTF-8 (no BOM, no UTF-16/32 guessing); text must not nest deeper than Python can read;
    * ``NaN``, ``Infinity``, ``-Infinity`` and numbers out of the range of a double (``1e400``, which reads as
      infinity) are refused: JSON numbers are finite;
    * a string or key holding a lone surrogate (``"\\ud800"``: not Unicode text, it cannot be written back as
      UTF-8) is refused;
    * an object with the same key twice is refused (which one counts is not JSON's to say).
    """
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StateError(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        if text.startswith("\ufeff"):
            raise StateError(f"{where}: starts with a byte order mark; JSON text is UTF-8 without one")
    elif isinstance(data, str):
        text = data
    else:
        raise StateError(f"{where}: JSON text is a str or bytes, got {type(data).__name__}")
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_unique_object
        )
    except json.JSONDecodeError as exc:
        raise StateError(f"{where}: not valid JSON: {exc}") from None
    except RecursionError:
        raise StateError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # a refused number or key (located below), or an integer beyond Python's digit limit
        try:
            marked = json.loads(
                text, parse_constant=_mark_constant, parse_float=_mark_float, object_pairs_hook=_mark_object
            )
        except (ValueError, RecursionError):
            raise StateError(f"{where}: not a readable JSON document: {exc}") from None
        found = problem(marked, where)
        raise StateError(found if found is not None else f"{where}: not a readable JSON document: {exc}") from None
    if _SURROGATE_ESCAPE.search(text) is not None or (isinstance(data, str) and not is_text(text)):
        check_data(value, where)
    return value


def keys(d: Any, where: str, allowed: frozenset[str], optional: frozenset[str] = frozenset()) -> None:
    """``d`` is an object with exactly the keys ``allowed`` (plus any of ``optional``)."""
    if not isinstance(d, dict):
        raise StateError(f"{where} must be an object, got {type(d).__name__}")
    unknown = sorted(repr(k) for k in d if k not in allowed and k not in optional)
    if unknown:
        known = ", ".join(sorted(allowed | optional)) or "none"
        raise StateError(f"{where} has unknown key(s) {', '.join(unknown)}; allowed: {known}")
    missing = sorted(allowed - set(d))
    if missing:
        raise StateError(f"{where}.{missing[0]} is missing")


def get(d: Any, key: str, where: str) -> Any:
    if not isinstance(d, dict):
        raise StateError(f"{where} must be an object, got {type(d).__name__}")
    if key not in d:
        raise StateError(f"{where}.{key} is missing")
    return d[key]


def get_int(d: Any, key: str, where: str, lo: int = 0, hi: int | None = None) -> int:
    v = get(d, key, where)
    if isinstance(v, bool) or not isinstance(v, int):
        raise StateError(f"{where}.{key} must be an integer, got {v!r}")
    if v < lo or (hi is not None and v > hi):
        raise StateError(f"{where}.{key} = {v} is out of range {lo}..{hi if hi is not None else ''}")
    return v


def get_bool(d: Any, key: str, where: str) -> bool:
    v = get(d, key, where)
    if not isinstance(v, bool):
        raise StateError(f"{where}.{key} must be true or false, got {v!r}")
    return v


def get_list(d: Any, key: str, where: str) -> list[Any]:
    v = get(d, key, where)
    if not isinstance(v, list):
        raise StateError(f"{where}.{key} must be a list, got {type(v).__name__}")
    return v


__all__ = ["check_data", "get", "get_bool", "get_int", "get_list", "is_text", "keys", "problem", "strict_loads"]
