"""A search bot's options (``mcts:sims=400:leaf=rollout``, ``endgame:rounds=6``, or keywords of its constructor):
one reader, one writer and one keyword check for every bot whose settings are a frozen dataclass of ``int``,
``float`` and ``str`` fields with defaults (``policies.mcts.MCTSConfig``, ``policies.endgame.EndgameConfig``)."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

C = TypeVar("C", bound="DataclassInstance")


def parse_options(cls: type[C], text: str, bot: str, error: type[Exception]) -> C:
    """``"key=value:key=value"`` -> ``cls()`` with those fields replaced, each value read by its field's type
    (``int``, ``float``, else the text); ``error`` names an unknown option or a value that is not a number of
    the field's type. Ranges are the caller's to check."""
    types = {f.name: f.type for f in fields(cls)}
    values: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in text.split(":"))):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or key not in types:
            raise error(f"unknown {bot} option {item!r}; options: {', '.join(types)} (key=value)")
        raw = raw.strip()
        kind = types[key]
        try:
            values[key] = int(raw) if kind == "int" else float(raw) if kind == "float" else raw
        except ValueError:
            what = "an integer" if kind == "int" else "a number"
            raise error(f"{bot} option {key} must be {what}, got {raw!r}") from None
    return replace(cls(), **values)


def with_options(cls: type[C], config: C | None, options: dict[str, Any], bot: str, error: type[Exception]) -> C:
    """``config`` (else ``cls()``) with the keyword ``options`` of a bot's constructor replaced; ``error`` names an
    unknown one. Ranges are the caller's to check."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise error(f"unknown {bot} option(s) {', '.join(unknown)}; options: {', '.join(sorted(known))}")
    return replace(config or cls(), **options)


def options_spec(config: DataclassInstance, always: tuple[str, ...] = ()) -> str:
    """The options of ``config`` as :func:`parse_options` reads them: those in ``always`` and every one that
    differs from its default, in the order of the fields (floats written short: ``0.1``, ``1e-05``)."""
    default = type(config)()
    parts = []
    for f in fields(config):
        value = getattr(config, f.name)
        if f.name in always or value != getattr(default, f.name):
            parts.append(f"{f.name}={value:g}" if isinstance(value, float) else f"{f.name}={value}")
    return ":".join(parts)
