"""An expansion's own encoder views (the expansion interface's "encoder views", docs/architecture.md).

The built-in layout covers the core game and every expansion's shared parts (the resorts of the configuration,
the Measure market, hands, counters, effects in force, tiles with their own text); it never changes for a
configuration it already encodes (digests are pinned, the shipped bots depend on it). What only one expansion has
(e.g. Regulations per tile and type, CountdownMarkers) is an :class:`ExpansionView`: registered under the
expansion's name with :func:`register_view`, it appends its board planes, its non-board entries, the decision and
effect kinds it adds to the ``phase`` and ``effect_kind`` views, and writes its values at each encoding. Its
``version`` is part of the configuration's encoder version (``"2+EXP-02.1"``), so changing a view never touches
another configuration's version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from bc_env.rules import Game

    from .observation import Encoder

#: (name, shape, player axis: "" none / "p" the first axis / "q" the last axis), as the built-in vector entries.
VectorEntry = tuple[str, tuple[int, ...], str]


class ExpansionView:
    """Base class: an expansion's views. Override what the expansion has; every default adds nothing."""

    #: The expansion it belongs to (its config name, ``"EXP-02"``).
    name: str = ""
    #: The version of these views (bump it whenever they change).
    version: int = 1
    #: Decision kinds the expansion adds (``Frame.kind``), appended to the ``phase`` view.
    phases: tuple[str, ...] = ()
    #: Effect kinds on its pipeline (``Effect.kind``), appended to the ``effect_kind`` view.
    effect_kinds: tuple[str, ...] = ()
    #: Timing keys of its durations (``ActiveEffect.until``) beyond ``effects.TIMINGS``, appended to ``effect_until``.
    timings: tuple[str, ...] = ()

    def planes(self, enc: Encoder) -> list[tuple[str, int]]:
        """Board planes ``(name, channels)``, after the built-in ones; observer-independent (absolute seats)."""
        return []

    def vector(self, enc: Encoder) -> list[VectorEntry]:
        """Non-board entries, after the built-in ones; an entry with a player axis is made seat-relative."""
        return []

    def scales(self, enc: Encoder) -> dict[str, float | np.ndarray]:
        """Multipliers of the raw values of its vector entries (default 1); scaled values must lie in [0, 1]."""
        return {}

    def encode_vector(self, enc: Encoder, game: Game, v: list[float]) -> None:
        """Write the raw values of its vector entries into ``v`` (absolute seat order, before scaling) at
        ``enc.vector_offset(name)``."""

    def encode_planes(self, enc: Encoder, game: Game, out: np.ndarray) -> None:
        """Write its board planes into the fresh observation ``out`` (values in [0, 1]) at
        ``enc.plane_offset(name) + channel * enc.num_cells + cell``."""


#: Registered views by expansion name.
EXPANSION_VIEWS: dict[str, ExpansionView] = {}


def register_view(view: ExpansionView) -> ExpansionView:
    """Register ``view`` for its expansion (one per expansion)."""
    if not view.name:
        raise ValueError("an ExpansionView needs the name of its expansion")
    EXPANSION_VIEWS[view.name] = view
    return view


__all__ = ["EXPANSION_VIEWS", "ExpansionView", "VectorEntry", "register_view"]
