"""Scenario building for the EXP-03 tests (not a test module).

EXP-03 is not complete yet, so ``Game`` refuses it outside ``allow_incomplete()`` (``Expansion.missing``); the
``incomplete_ok`` fixture below is the one test-only switch every EXP-03 test module uses (autouse there).
:class:`Scenario3` is the EXP-01 scenario builder on an EXP-03 deck.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from exp01_support import Scenario

from bc_env.rules import RulesConfig
from bc_env.rules.expansions.base import allow_incomplete

#: EXP-01 + EXP-03 (all fifteen Measures, RULINGS R36) and EXP-03 alone (eleven), four players.
E13 = RulesConfig(players=4, exp01=True, exp03=True, name="exp0103-4p-test")
E3 = RulesConfig(players=4, exp03=True, name="exp03-4p-test")
M3 = {f"M{i:02d}": f"EXP-03-M{i:02d}" for i in range(1, 16)}


@pytest.fixture
def incomplete_ok() -> Iterator[None]:
    with allow_incomplete():
        yield


def C(x: int, y: int) -> int:
    return y * 15 + x


class Scenario3(Scenario):
    """A Scenario whose ``deck`` is the EXP-03 deck."""

    def __init__(self, preset: RulesConfig = E13, seed: int = 0) -> None:
        with allow_incomplete():
            super().__init__(preset, seed)

    @property
    def deck(self) -> dict[str, Any]:
        return self.data["measures"]["decks"]["EXP-03"]

    def res(self, p: int, **res: int) -> None:
        self.resources(p, **res)
