"""Batched environments: many games stepped in one call (``docs/environment.md``, "Batched self-play environment").

* :class:`SelfPlayVectorEnv`: N games, every seat played by the caller, observations and masks in preallocated
  arrays, automatic reset, per-seat rewards;
* :class:`LearnerVectorEnv`: a Gymnasium ``VectorEnv`` view, one learner seat per game against opponent objects.
"""

from __future__ import annotations

from .core import SelfPlayVectorEnv
from .gym import LearnerVectorEnv

__all__ = ["LearnerVectorEnv", "SelfPlayVectorEnv"]
