"""The expansions: their Measure decks as data plus small handlers on the one effect pipeline.

``measures.py`` holds what every deck shares (card specs, target kinds, the registry of resolvers);
``exp01.py`` holds EXP-01's ten Measures and their modifiers. Importing this package registers them.
"""

from . import exp01 as exp01
from .measures import MeasureSpec, build_measures

__all__ = ["MeasureSpec", "build_measures", "exp01"]
