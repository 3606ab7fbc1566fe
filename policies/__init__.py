"""Bots behind one protocol (``policies.base.Policy``): ``act(game) -> action``.

``policies.load(name)`` returns any bot by name.
"""

from __future__ import annotations

from .base import Policy, RandomPolicy

_REGISTRY = {
    "random": RandomPolicy,
}


def available() -> list[str]:
    return sorted(_REGISTRY)


def load(name: str, seed: int | None = None) -> Policy:
    """A bot by name (``"random"``, ...)."""
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown policy {name!r}; available: {', '.join(available())}")
    return factory(seed=seed)


__all__ = ["Policy", "RandomPolicy", "available", "load"]
