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

from positions import refused

from bc_env.rules import Game, RulesConfig
from bc_env.rules.actions import CONVERT, PLACE

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


def unpaid(game: Game, text: str, phase: str = "political") -> None:
    """``text`` is refused for its cost alone (EXP-01-06-08, BC-20, RULINGS R18): it is a well-formed action, the
    game is in decision ``phase``, applying it raises the engine's "not legal" error and changes nothing, and the
    same state with 6 more of every Resource for the acting player offers it."""
    refused(game, text, phase)
    data = game.to_dict()
    who = data["players"][game.current_player]["resources"]
    for r in who:
        extra = 6 if game.config.bank_stock is None else min(6, data["bank"][r])
        who[r] += extra
        data["bank"][r] -= extra
    assert text in legal_strings(Game.from_dict(data)), f"{text!r} is not offered even when it can be paid"


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


def supplemental_budget_seeker(game: Game, legal: list[int], rng: random.Random) -> int:
    """A random player that pursues the one situation in which Supplemental Budget (M10) changes the state of
    an EXP-01-only standalone game (docs/rulings.md BC-30): its owner converts, in the owner's next turn, while
    controlling the Investment Program, holding 2 ECO after the conversion and one more Resource, and while
    another player's Collective Bargaining (M03) forbids the exchange. Plain random play almost never gets there.

    Preferences, first match wins (the *planner* is the player who holds or owns M10):

    * ``exchange``: exchange (a random resort) rather than decline;
    * ``gain``: the planner gains ECO; ``pay``: the planner pays a non-ECO Resource when it can;
    * ``political``: the owner of M10 converts while M03 is in force; anybody plays M03 while another player's
      M10 is in force; the planner places Influence on the Investment Program until it controls it, plays M10
      once it controls the Program and holds 2 ECO, and converts half the time while it holds under 3 ECO;
      anybody takes M10, and M03 unless it is the planner; M03 and M10 are played only as said.

    Otherwise a random legal action (a Measure action half of the time). Every action is legal: the games are
    real games, only the choices are steered.
    """
    lay = game.layout
    n, p, keys, eco = lay.n, game.active, lay.cards, game.ext["EXP-01"].eco
    phase = game.phase_name
    m03, m10 = M["M03"], M["M10"]
    effects = game.active_effects
    planner = keys.index(m10) in game.ext["measures"].hands[p] or any(a.id == m10 and a.owner == p for a in effects)
    if phase == "exchange":
        return rng.choice([a for a in legal if a != lay.decline])
    if phase == "gain" and planner and lay.gain + eco in legal:
        return lay.gain + eco
    if phase == "pay" and planner:
        non_eco = [a for a in legal if a - lay.pay != eco]
        if non_eco:
            return rng.choice(non_eco)
    if phase == "political":
        convert = [a for a in legal if CONVERT * n <= a < (CONVERT + 1) * n]
        owns = any(a.id == m10 and a.owner == p for a in effects)
        if owns and convert and any(a.id == m03 for a in effects):
            return rng.choice(convert)
        plays = {keys[a - lay.play]: a for a in legal if lay.play <= a < lay.target}
        takes = {keys[a - lay.take]: a for a in legal if lay.take <= a < lay.play}
        if m03 in plays and any(a.id == m10 and a.owner != p for a in effects):
            return plays[m03]
        controls = any(game.controller(c) == p for c in game.ext["EXP-01"].invest_cells)
        on_program = [
            a for a in legal if PLACE * n <= a < (PLACE + 1) * n and a - PLACE * n in game.ext["EXP-01"].invest_cells
        ]
        held_eco = game.resources_of(p)[eco]
        if planner and on_program and not controls:
            return on_program[0]
        if m10 in plays and controls and held_eco >= 2:
            return plays[m10]
        if m10 in takes:
            return takes[m10]
        if m03 in takes and not planner:
            return takes[m03]
        if planner and convert and held_eco < 3 and rng.random() < 0.5:
            return rng.choice(convert)
        legal = [a for a in legal if not (lay.play <= a < lay.target and keys[a - lay.play] in (m03, m10))] or legal
    pref = [a for a in legal if a >= lay.take]
    return rng.choice(pref) if pref and rng.random() < 0.5 else rng.choice(legal)
