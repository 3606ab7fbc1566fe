"""Observation encoders (pure NumPy over ``bc_env.rules``); the layout is in ``docs/observation.md``."""

from . import exp02 as exp02  # registers EXP-02's views (views.py)
from . import exp03 as exp03  # registers EXP-03's encoder views
from .observation import ENCODER_VERSION, TILE_CHANNELS, Encoder, encode, encoder_version, get_encoder

__all__ = ["ENCODER_VERSION", "TILE_CHANNELS", "Encoder", "encode", "encoder_version", "get_encoder"]
