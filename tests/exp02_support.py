"""Test support for EXP-02 (not a test module): build EXP-02 games while the expansion is incomplete, and set
up scenarios (tiles on the Board, Regulations, Resources) through the engine's own state."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bc_env.rules import Game, RulesConfig
from bc_env.rules.expansions import exp02

#: The configurations the EXP-02 tests use.
EXP02_4P = RulesConfig(players=4, exp02=True, name="exp02-test-4p")
EXP0102_4P = RulesConfig(players=4, exp01=True, exp02=True, name="exp0102-test-4p")


@contextmanager
def incomplete_ok() -> Iterator[None]:
    """INCOMPLETE_OK: the one test-only switch that lets Game.new build EXP-02 games before every EXP-02 rule is in
    (Game.new refuses them otherwise, naming what is missing)."""
    saved = exp02.Exp02.missing
    exp02.Exp02.missing = ""
    try:
        yield
    finally:
        exp02.Exp02.missing = saved


def new_game(config: RulesConfig = EXP02_4P, seed: int = 0) -> Game:
    with incomplete_ok():
        return Game.new(config, seed)


def tile_id(game: Game, name: str, nth: int = 0) -> int:
    ids = [s.id for s in game.catalogue if s.name == name]
    return ids[nth]


def put(game: Game, name: str, cell: int, nth: int = 0) -> int:
    """Put catalogue tile ``name`` onto ``cell`` (taken out of the DrawPile)."""
    t = tile_id(game, name, nth)
    if t in game.draw_pile:
        game.draw_pile.remove(t)
    game._put_tile(t, cell)
    game._legal = None
    return cell


def regs(game: Game) -> exp02.Regulations:
    return game.ext["EXP-02"]


def add_reg(game: Game, t: int, cell: int) -> None:
    st = regs(game)
    st.attach(cell, t)
    st.placed += 1
    game._legal = None


def give(game: Game, player: int, **amounts: int) -> None:
    for name, n in amounts.items():
        r = game.config.resorts.index(name)
        game.res[player * game.num_resorts + r] += n
        game.bank[r] -= n
    game._legal = None


def strings(game: Game) -> list[str]:
    return [game.action_to_string(a) for a in game.legal_actions()]


def act(game: Game, text: str) -> None:
    game.apply(game.string_to_action(text))


def cell(game: Game, x: int, y: int) -> int:
    return y * game.topo.size + x


def events(game: Game, type_: str) -> list[dict[str, Any]]:
    return [e for e in game.events if e["type"] == type_]


class Scenario02:
    """exp01_support.Scenario for EXP-02 configurations (built and loaded under :func:`incomplete_ok`), plus
    Regulations: ``sc.reg("8,7", "control")``."""

    def __init__(self, config: RulesConfig = EXP02_4P, seed: int = 0) -> None:
        from exp01_support import Scenario

        with incomplete_ok():
            self.sc = Scenario(config, seed)
        self.data = self.sc.data
        self.data["measures"]["decks"].setdefault("EXP-02", {})

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sc, name)

    @property
    def deck(self) -> dict[str, Any]:
        return self.data["measures"]["decks"]["EXP-02"]

    def hand(self, p: int, *keys: str) -> None:
        self.sc.deck_name = "EXP-02"
        for key in keys:
            for deck in self.data["measures"]["decks"].values():
                for zone in ("draw_pile", "open", "recycle_pile", "final_discard"):
                    if key in deck[zone]:
                        deck[zone].remove(key)
            self.data["measures"]["hands"][p].append(key)
        while len(self.deck["open"]) < 3 and self.deck["draw_pile"]:
            self.deck["open"].append(self.deck["draw_pile"].pop())

    def reg(self, cell: str, type_: str, n: int = 1) -> None:
        r = self.data["regulations"]
        r["attached"].setdefault(cell, {})
        r["attached"][cell][type_] = r["attached"][cell].get(type_, 0) + n
        r["placed"] += n

    def game(self) -> Game:
        import copy

        with incomplete_ok():
            return Game.from_dict(copy.deepcopy(self.data))
