"""Tests marked ``pure_engine`` patch engine internals (module globals such as ``game.expansions_for``), which
compiled code does not see: they are skipped on the compiled build, and scripts/test.sh runs them on the pure
build (``BC_PURE_PYTHON=1``, bc_env/_build.py)."""

from __future__ import annotations

import pytest

import bc_env.rules


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not bc_env.rules.COMPILED:
        return
    skip = pytest.mark.skip(reason="patches engine internals that compiled code does not see; runs on the pure build")
    for item in items:
        if "pure_engine" in item.keywords:
            item.add_marker(skip)
