"""Observation encoders (pure NumPy over ``bc_env.rules``); the layout is in ``docs/observation.md``."""

from typing import Any

from bc_env.rules import RulesConfig

from . import exp02 as exp02  # registers EXP-02's views (views.py)
from . import exp03 as exp03  # registers EXP-03's encoder views
from .compact import COMPACT_LAYOUT, COMPACT_LAYOUTS, COMPACT_V2, CompactEncoder
from .observation import ENCODER_VERSION, TILE_CHANNELS, Encoder, encode, encoder_version, get_encoder

#: The observation layouts a policy file may name (its manifest's ``observation_layout``; absent means ``core``).
LAYOUTS = ("core", *COMPACT_LAYOUTS)


def layout_encoder(config: RulesConfig | str, layout: str = "core") -> Any:
    """A fresh encoder of observation layout ``layout`` (:data:`LAYOUTS`) for ``config``; ``ValueError`` for an
    unknown layout, or one that does not cover the configuration (the compact layouts: core configurations only). Its
    ``version`` is what a policy file of the layout records as ``encoder_version``: the core encoder's version for
    the configuration, or the compact layout's name."""
    if layout == "core":
        return Encoder(config)
    if layout in COMPACT_LAYOUTS:
        return CompactEncoder(config, layout)
    raise ValueError(f"unknown observation layout {layout!r}; known: {', '.join(LAYOUTS)}")


__all__ = [
    "COMPACT_LAYOUT",
    "COMPACT_LAYOUTS",
    "COMPACT_V2",
    "ENCODER_VERSION",
    "LAYOUTS",
    "TILE_CHANNELS",
    "CompactEncoder",
    "Encoder",
    "encode",
    "encoder_version",
    "get_encoder",
    "layout_encoder",
]
