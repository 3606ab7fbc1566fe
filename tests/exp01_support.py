"""Scenario building for the EXP-01 tests (not a test module).

A :class:`Scenario` starts from ``Game.new(preset, seed).to_dict()`` (real RNG, config and schema), edits
the JSON (Board, Influence, Resources, Measure zones, phase, active player, active effects) and loads it
back with ``Game.from_dict``, which validates conservation, caps, adjacency and the Measure zones.

Example::

    sc = Scenario("exp01-4p")
    sc.put("8,7", "ECO-W2", influence=[1, 0, 0, 0])
    sc.resources(0, ECO=2, FOR=1)
    sc.hand(0, "EXP-01-M02")
    game = sc.game()                   # phase 'political', player 0 to act, round 1
"""

from __future__ import annotations

import copy
import random
from typing import Any

from bc_env.rules import Game, RulesConfig

M = {f"M{i:02d}": f"EXP-01-M{i:02d}" for i in range(1, 11)}


class Scenario:
    def __init__(self, preset: str | RulesConfig = "exp01-4p", seed: int = 0) -> None:
        base = Game.new(preset, seed)
        self.config = base.config
        self.catalogue = base.catalogue
        self.topo = base.topo
        self.n = base.num_players
        self.resorts = base.config.resorts
        d = base.to_dict()
        d["events"] = []
        d["draw_pile"].append(d["drawn_tile"])
        d["drawn_tile"] = None
        d["phase"] = "political"
        d["active"] = 0
        d["start_player"] = 0
        d["turns_in_round"] = 0
        self.data = d

    # ------------------------------------------------------------------ tiles and influence
    def tile_id(self, name: str) -> int:
        for t in self.data["draw_pile"]:
            if self.catalogue[t].name == name:
                return t
        raise KeyError(f"no free tile {name!r}")

    def put(self, cell: str, name: str, influence: list[int] | None = None, resolved: bool = False) -> int:
        t = self.tile_id(name)
        self.data["draw_pile"].remove(t)
        entry: dict[str, Any] = {"cell": cell, "tile": t, "influence": list(influence or [0] * self.n)}
        if self.catalogue[t].kind == 5:
            entry["resolved"] = resolved
        self.data["board"].append(entry)
        for p, v in enumerate(entry["influence"]):
            pl = self.data["players"][p]
            # Influence on the Board comes from the supply or was created: keep supply + board = starting + created.
            if pl["supply"] >= v:
                pl["supply"] -= v
            else:
                pl["created"] += v - pl["supply"]
                pl["supply"] = 0
            pl["deployed"] += v
        return t

    def draws(self, name: str) -> None:
        """Put tile ``name`` on top of the DrawPile (drawn next)."""
        t = self.tile_id(name)
        self.data["draw_pile"].remove(t)
        self.data["draw_pile"].append(t)

    def supply(self, p: int, n: int) -> None:
        pl = self.data["players"][p]
        pl["created"] += n - pl["supply"]
        pl["supply"] = n

    def resources(self, p: int, **res: int) -> None:
        pl = self.data["players"][p]
        for r in self.resorts:
            v = res.get(r, 0)
            self.data["bank"][r] += pl["resources"][r] - v  # unlimited Bank: the net balance
            pl["resources"][r] = v

    # ------------------------------------------------------------------ measures
    @property
    def deck(self) -> dict[str, Any]:
        return self.data["measures"]["decks"]["EXP-01"]

    def _take_out(self, key: str) -> None:
        for zone in ("draw_pile", "open", "recycle_pile", "final_discard"):
            if key in self.deck[zone]:
                self.deck[zone].remove(key)
        for hand in self.data["measures"]["hands"]:
            if key in hand:
                hand.remove(key)

    def hand(self, p: int, *keys: str) -> None:
        for key in keys:
            self._take_out(key)
            self.data["measures"]["hands"][p].append(key)
        self._fix_open()

    def open(self, *keys: str) -> None:
        """Make ``keys`` the OpenMeasures (the old open cards go back on the draw pile's bottom)."""
        old = list(self.deck["open"])
        for key in keys:
            self._take_out(key)
        self.deck["open"] = []
        for key in old:
            if key not in keys:
                self.deck["draw_pile"].insert(0, key)
        self.deck["open"] = list(keys)

    def zones(self, draw: list[str], open_: list[str], recycle: list[str], final: list[str]) -> None:
        """Set the deck's zones exactly (cards not named stay where they are, e.g. in hands)."""
        for key in draw + open_ + recycle + final:
            self._take_out(key)
        self.deck["draw_pile"], self.deck["open"] = list(draw), list(open_)
        self.deck["recycle_pile"], self.deck["final_discard"] = list(recycle), list(final)

    def counter(self, key: str, n: int) -> None:
        self.data["measures"]["play_counts"][key] = n

    def _fix_open(self) -> None:
        while len(self.deck["open"]) < 3 and self.deck["draw_pile"]:
            self.deck["open"].append(self.deck["draw_pile"].pop())

    # ------------------------------------------------------------------ flow
    def at(self, player: int = 0, round_: int = 1, turns_in_round: int = 0, start_player: int = 0) -> None:
        self.data["active"] = player
        self.data["round"] = round_
        self.data["turns_in_round"] = turns_in_round
        self.data["start_player"] = start_player
        self.data["turn"] = (round_ - 1) * self.n + turns_in_round

    def effect(self, id_: str, owner: int, until: str, from_round: int = 1, **data: Any) -> None:
        self.data["active_effects"].append(
            {"id": id_, "owner": owner, "until": until, "from_round": from_round, "data": data}
        )

    def game(self) -> Game:
        return Game.from_dict(copy.deepcopy(self.data))


def act(game: Game, *texts: str) -> None:
    """Apply actions given as strings."""
    for text in texts:
        game.apply(game.string_to_action(text))


def legal_strings(game: Game) -> list[str]:
    return [game.action_to_string(a) for a in game.legal_actions()]


def events(game: Game, type_: str) -> list[dict[str, Any]]:
    return [e for e in game.events if e["type"] == type_]


def finish_turn(game: Game) -> None:
    """Play the current player's whole turn deterministically: the drawn tile on the first legal cell,
    then the lowest-numbered non-Measure options (Place on the lowest tile, ...) until the turn ends."""
    p = game.current_player
    while game.current_player == p:
        legal = game.legal_actions()
        plain = [a for a in legal if a < game.layout.take] or legal
        game.apply(plain[0])
        if game.current_player == p and game.phase_name == "place_tile":
            break  # the same player again (cannot happen with 2+ players)


def play_random(game: Game, rng: random.Random, measure_bias: float = 0.0) -> list[int]:
    """Play to the end; with ``measure_bias`` prefer Measure and target actions when legal."""
    actions = []
    take = game.layout.take
    while not game.is_terminal():
        legal = game.legal_actions()
        if measure_bias:
            pref = [a for a in legal if a >= take]
            if pref and rng.random() < measure_bias:
                legal = pref
        a = legal[rng.randrange(len(legal))]
        game.apply(a)
        actions.append(a)
    return actions
