"""Strict readers of JSON data (the state reader and the expansions' states): each raises ``StateError`` naming the
field (``where``) and what was wrong. Their input is typed ``Any``: they check it themselves (the compiled engine
would otherwise refuse a wrong type first with a bare ``TypeError``)."""

from __future__ import annotations

from typing import Any

from .errors import StateError


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


__all__ = ["get", "get_bool", "get_int", "get_list", "keys"]
