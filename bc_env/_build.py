"""Which build of the rules engine runs: the mypyc-compiled one (C extensions that ``pip install`` puts beside the
sources of ``bc_env/rules`` and of the observation encoder ``bc_env/encoding/observation.py`` when a C compiler is
present, setup.py) or the pure-Python sources. The encoder follows the engine: both compiled or both pure.

The pure-Python engine runs instead of the compiled one when

* ``BC_PURE_PYTHON`` is set (not ``0``) in the environment: the tests of both builds run from one install; or
* in a source checkout, a source under ``bc_env/rules`` is newer than the compiled extensions (edited or checked out
  since the last build): a warning says so, and ``bash scripts/setup.sh`` rebuilds them. Running stale compiled
  code would silently ignore the edit.

``bc_env.rules.COMPILED`` says which one runs. The compiled and the pure modules are never mixed.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PACKAGE = "bc_env.rules"
RULES_DIR = Path(__file__).resolve().parent / "rules"
#: Modules outside the engine package that setup.py compiles with it (its COMPILED_OUTSIDE_RULES).
COMPILED_MODULES = ("bc_env.encoding.observation", "bc_env.encoding.compact", "bc_env.vector._loop")
COMPILED_SOURCES = (
    Path(__file__).resolve().parent / "encoding" / "observation.py",
    Path(__file__).resolve().parent / "encoding" / "compact.py",
    Path(__file__).resolve().parent / "vector" / "_loop.py",
)


def pure_requested() -> bool:
    return os.environ.get("BC_PURE_PYTHON", "").strip() not in ("", "0")


def compiled_is_stale() -> bool:
    """In a source checkout: a source of the engine is newer than the oldest compiled extension."""
    if not (RULES_DIR.parents[1] / "pyproject.toml").exists():  # an installed wheel: built from these sources
        return False
    extensions = [p for s in importlib.machinery.EXTENSION_SUFFIXES for p in RULES_DIR.rglob(f"*{s}")]
    if not extensions:
        return False
    extensions += [p for src in COMPILED_SOURCES for s in importlib.machinery.EXTENSION_SUFFIXES
                   if (p := src.with_name(src.stem + s)).exists()]  # fmt: skip
    sources = [*RULES_DIR.rglob("*.py"), *COMPILED_SOURCES]
    return max(p.stat().st_mtime for p in sources) > min(p.stat().st_mtime for p in extensions)


class PureEngineFinder(importlib.abc.MetaPathFinder):
    """Imports ``bc_env.rules``, its submodules and COMPILED_MODULES from their ``.py`` sources, past any compiled
    extension."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != PACKAGE and not fullname.startswith(PACKAGE + ".") and fullname not in COMPILED_MODULES:
            return None
        name = fullname.rpartition(".")[2]
        for entry in path or []:
            package = Path(entry) / name
            if (package / "__init__.py").is_file():
                return importlib.util.spec_from_file_location(
                    fullname, package / "__init__.py", submodule_search_locations=[str(package)]
                )
            if (package.with_suffix(".py")).is_file():
                return importlib.util.spec_from_file_location(fullname, package.with_suffix(".py"))
        return None


def select() -> None:
    """Called by ``bc_env/__init__.py`` before the engine is imported."""
    if any(isinstance(f, PureEngineFinder) for f in sys.meta_path) or PACKAGE in sys.modules:
        return
    if pure_requested():
        sys.meta_path.insert(0, PureEngineFinder())
    elif compiled_is_stale():
        warnings.warn(
            "bc_env.rules: the compiled engine is older than its sources; running the pure-Python engine "
            "(run `bash scripts/setup.sh` to rebuild it)",
            RuntimeWarning,
            stacklevel=2,
        )
        sys.meta_path.insert(0, PureEngineFinder())
