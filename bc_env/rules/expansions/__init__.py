"""The expansions on the expansion interface (``base.py``): their Measure decks as data plus small handlers on
the one effect pipeline, and the hooks the core flow calls.

``measures.py`` holds what every deck shares (card specs, target kinds, the registry of resolvers);
``measure_system.py`` the TakeMeasure / PlayMeasure lifecycle every expansion shares (RULINGS R20, R21);
``exp01.py`` holds EXP-01's ten Measures, their modifiers and the expansion itself. Importing this package
registers them.
"""

from __future__ import annotations

from ..config import RulesConfig
from . import exp01 as exp01
from . import exp02 as exp02
from . import exp03 as exp03
from .base import Expansion
from .measure_system import MeasureSystem
from .measures import MeasureSpec, build_measures


def expansions_for(config: RulesConfig) -> tuple[Expansion, ...]:
    """The active expansions of ``config`` in the order the core calls their hooks: the shared Measure system
    first (when any active expansion has a deck, RULINGS R21), then each expansion in canonical order."""
    out: list[Expansion] = []
    if build_measures(config):
        out.append(MeasureSystem())
    if config.exp01:
        out.append(exp01.Exp01(config.exp01_edition))
    if config.exp02:
        out.append(exp02.Exp02())
    if config.exp03:
        out.append(exp03.Exp03())
    return tuple(out)


__all__ = ["Expansion", "MeasureSpec", "build_measures", "exp01", "exp02", "exp03", "expansions_for"]
