"""The fast self-play trainer, ``balance-control train --backend selfplay`` (docs/training.md, "The selfplay backend"):
``trainer.py`` (PPO, torch) and ``games.py`` (the batched games in worker processes over shared memory, torch-free).
``train`` and ``RunDirError`` are imported lazily, so a worker process never imports torch."""

from __future__ import annotations

from typing import Any

__all__ = ["RunDirError", "train"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import trainer

        return getattr(trainer, name)
    raise AttributeError(f"module 'training.selfplay' has no attribute {name!r}")
