"""Bots behind one protocol (``policies.base.Policy``): ``act(game) -> action``.

``policies.load(name_or_path)`` returns any bot: ``"random"``, ``"heuristic"``, ``"expert"``, a shipped trained bot
(``"ppo-core-2p"``, ``"ppo-core-4p"``: files in ``policies/bots/``) or the path of an exported policy
(``runs/<name>/policy`` with or without ``.npz``). Trained bots run on NumPy alone (no torch).
"""

from __future__ import annotations

from pathlib import Path

from .base import Policy, RandomPolicy
from .expert import ExpertPolicy
from .heuristic import HeuristicPolicy
from .neural import NeuralPolicy, PolicyFileError

BOTS_DIR = Path(__file__).resolve().parent / "bots"

_REGISTRY = {
    "expert": ExpertPolicy,
    "heuristic": HeuristicPolicy,
    "random": RandomPolicy,
}


def shipped_bots() -> list[str]:
    return sorted(p.stem for p in BOTS_DIR.glob("*.npz"))


def available() -> list[str]:
    return sorted([*_REGISTRY, *shipped_bots()])


def load(name: str, seed: int | None = None) -> Policy:
    """A bot by name or by the path of an exported policy (``seed`` seeds the bots that draw at random)."""
    factory = _REGISTRY.get(name)
    if factory is not None:
        return factory(seed=seed)
    shipped = BOTS_DIR / name
    if shipped.with_suffix(".npz").is_file():
        return NeuralPolicy(shipped)
    path = Path(name)
    if path.with_suffix(".npz").is_file() or path.suffix == ".npz":
        return NeuralPolicy(path)
    raise ValueError(f"unknown policy {name!r}; available: {', '.join(available())}, or a path to an exported policy")


__all__ = [
    "ExpertPolicy",
    "HeuristicPolicy",
    "NeuralPolicy",
    "Policy",
    "PolicyFileError",
    "RandomPolicy",
    "available",
    "load",
]
