"""Build explicit game positions for scenario tests and perft fixtures.

A position starts from ``Game.new(config, seed).to_dict()`` (so the RNG, the config and the schema are
real), then the JSON is edited — Board entries, Influence, Resources, DrawPile order, phase and drawn
tile — and loaded back with ``Game.from_dict``, which validates conservation, caps and adjacency.

Example::

    pos = Position(RulesConfig.preset("core-2p"))
    pos.put("8,7", "DOM-W3", influence=[1, 0])
    pos.player(0, resources={"DOM": 1, "FOR": 1})
    pos.draws("Committee")             # the next tile drawn (top of the DrawPile)
    game = pos.game()                  # phase 'political', player 0 to act

Cells are ``"x,y"`` strings or ``(x, y)`` tuples; tiles are catalogue ids or catalogue names
(``"DOM-W3"``, ``"Committee"``, ``"Grassroots"``, ``"Lobbyist"``, ``"Hotspot"``), a name picking the
lowest free id of that name.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from bc_env.rules import Game, IllegalActionError, RulesConfig

CellSpec = str | tuple[int, int]
TileRef = int | str


class Position:
    """A mutable description of a position; :meth:`game` turns it into a validated :class:`Game`."""

    def __init__(self, config: RulesConfig | str, seed: int = 0) -> None:
        base = Game.new(config, seed)
        self.config = base.config
        self.catalogue = base.catalogue
        self.topo = base.topo
        self.num_players = base.num_players
        self.resorts = base.config.resorts
        self.data: dict[str, Any] = base.to_dict()
        self.data["events"] = []
        # Tiles not on the Board and not discarded, in the original shuffled DrawPile order (bottom first).
        self._free: list[int] = [*self.data["draw_pile"], self.data["drawn_tile"]]
        self._board: dict[int, dict[str, Any]] = {self.topo.centre: self.data["board"][0]}
        self._discard: list[int] = []
        self._draws: list[int] = []
        self._pile_only: list[int] | None = None
        self._drawn: int | None = None
        self._supply: dict[int, int] = {}
        self._deployed: dict[int, int] = {}
        self._starting: dict[int, int] = {}
        self._resources: dict[int, list[int]] = {}
        self._start_used: dict[int, bool] = {}
        self._noise = [0] * len(self.resorts)
        self._bank: list[int] | None = None
        self._turn: dict[str, int] = {"active": 0, "turns_in_round": 0, "round": 1}

    # ------------------------------------------------------------------ lookups
    def cell(self, spec: CellSpec) -> int:
        if isinstance(spec, tuple):
            spec = f"{spec[0]},{spec[1]}"
        return self.topo.parse(spec)

    def tile(self, ref: TileRef) -> int:
        """A tile id: the id itself, or the lowest still-free id with that catalogue name."""
        if isinstance(ref, int):
            if ref not in self._free:
                raise ValueError(f"tile {ref} is not free (already placed, discarded or drawn)")
            return ref
        for t in sorted(self._free):
            if self.catalogue[t].name == ref:
                return t
        raise ValueError(f"no free tile named {ref!r}")

    def _take(self, ref: TileRef) -> int:
        t = self.tile(ref)
        self._free.remove(t)
        return t

    # ------------------------------------------------------------------ tiles
    def put(self, cell: CellSpec, tile: TileRef, influence: Sequence[int] | None = None, resolved: bool = False) -> int:
        """Put a tile on the Board (with physical Influence per seat). Returns the tile id."""
        c = self.cell(cell)
        if c in self._board:
            raise ValueError(f"cell {self.topo.label(c)} already holds a tile")
        t = self._take(tile)
        infl = list(influence) if influence is not None else [0] * self.num_players
        if len(infl) != self.num_players:
            raise ValueError(f"influence needs {self.num_players} entries")
        entry: dict[str, Any] = {"cell": self.topo.label(c), "tile": t, "influence": infl}
        if self.catalogue[t].name.startswith("Hotspot"):
            entry["resolved"] = resolved
        self._board[c] = entry
        return t

    def influence(self, cell: CellSpec, influence: Sequence[int]) -> None:
        """Set the physical Influence on a Board tile."""
        self._board[self.cell(cell)]["influence"] = list(influence)

    def fill(self, tile: TileRef | None = None, skip: Iterable[CellSpec] = ()) -> list[int]:
        """Fill every empty table cell (except ``skip``) reachable from the Board, in ascending cell order
        per sweep, with tiles named ``tile`` (None: the lowest free tile ids). Returns the filled cells."""
        skipped = {self.cell(s) for s in skip}
        placed = []
        changed = True
        while changed:
            changed = False
            for c in self.topo.table_cells:
                if c in self._board or c in skipped:
                    continue
                if any(nb in self._board for nb in self.topo.neighbors[c]):
                    self.put(self.topo.label(c), tile if tile is not None else min(self._free))
                    placed.append(c)
                    changed = True
        return placed

    def draws(self, *tiles: TileRef) -> list[int]:
        """The next tiles drawn, in drawing order (the first is drawn first); the rest lie below."""
        ids = [self._take(t) for t in tiles]
        self._draws.extend(ids)
        return ids

    def pile_only(self, *tiles: TileRef) -> list[int]:
        """The DrawPile holds exactly these tiles (drawn in this order); every other free tile is discarded."""
        ids = [self._take(t) for t in tiles]
        self._pile_only = ids
        return ids

    def discard(self, *tiles: TileRef) -> list[int]:
        ids = [self._take(t) for t in tiles]
        self._discard.extend(ids)
        return ids

    def drawn(self, tile: TileRef) -> int:
        """Phase 'place_tile' with this tile in hand (default phase: 'political')."""
        self._drawn = self._take(tile)
        return self._drawn

    # ------------------------------------------------------------------ players, resources, turn
    def player(
        self,
        p: int,
        *,
        supply: int | None = None,
        resources: dict[str, int] | Sequence[int] | None = None,
        starting: int | None = None,
        deployed: int | None = None,
        start_used: bool | None = None,
    ) -> None:
        """Set a player's supply, Resources and counters.

        Defaults: ``starting`` as set up; ``supply`` = starting - Influence on Board (nothing created);
        ``deployed`` = Influence on Board (all of it got there by Place or Hotspot, RULINGS R11).
        ``created`` is always derived: supply + Board - starting.
        """
        if supply is not None:
            self._supply[p] = supply
        if starting is not None:
            self._starting[p] = starting
        if deployed is not None:
            self._deployed[p] = deployed
        if start_used is not None:
            self._start_used[p] = start_used
        if resources is not None:
            if isinstance(resources, dict):
                bad = sorted(set(resources) - set(self.resorts))
                if bad:
                    raise ValueError(f"unknown resorts {bad}")
                self._resources[p] = [resources.get(r, 0) for r in self.resorts]
            else:
                self._resources[p] = list(resources)

    def noise(self, **amounts: int) -> None:
        self._noise = [amounts.get(r, 0) for r in self.resorts]

    def bank(self, **amounts: int) -> None:
        """Bank stock per resort (finite Bank); the rest of the stock goes to Noise. Default: all left over."""
        self._bank = [amounts.get(r, 0) for r in self.resorts]

    def turn(self, active: int, turns_in_round: int = 0, round: int = 1) -> None:
        """Whose turn it is; the start player follows from the seat order (RULINGS R6)."""
        self._turn = {"active": active, "turns_in_round": turns_in_round, "round": round}

    # ------------------------------------------------------------------ output
    def to_dict(self) -> dict[str, Any]:
        d = copy.deepcopy(self.data)
        np_, nres = self.num_players, len(self.resorts)
        d["board"] = [copy.deepcopy(self._board[c]) for c in sorted(self._board)]
        free = list(self._free)
        if self._pile_only is not None:
            d["discard"] = [*self._discard, *free]
            d["draw_pile"] = list(reversed(self._pile_only))
        else:
            d["discard"] = list(self._discard)
            d["draw_pile"] = [*free, *reversed(self._draws)]
        if self._drawn is not None:
            d["phase"], d["drawn_tile"] = "place_tile", self._drawn
        else:
            d["phase"], d["drawn_tile"] = "political", None
        on_board = [sum(e["influence"][p] for e in d["board"]) for p in range(np_)]
        for p, pd in enumerate(d["players"]):
            starting = self._starting.get(p, pd["starting"])
            supply = self._supply.get(p, starting - on_board[p])
            created = supply + on_board[p] - starting
            if supply < 0 or created < 0:
                raise ValueError(f"player {p}: supply {supply} + board {on_board[p]} < starting {starting}")
            pd["starting"], pd["supply"], pd["created"] = starting, supply, created
            pd["deployed"] = self._deployed.get(p, on_board[p])
            pd["start_committee_used"] = self._start_used.get(p, False)
            res = self._resources.get(p, [0] * nres)
            pd["resources"] = dict(zip(self.resorts, res))
        stock = self.config.bank_stock or 0
        held = [sum(self._resources.get(p, [0] * nres)[r] for p in range(np_)) for r in range(nres)]
        if self._bank is None:
            bank = [stock - held[r] - self._noise[r] for r in range(nres)]
            noise = list(self._noise)
        else:
            bank = list(self._bank)
            noise = [stock - held[r] - bank[r] for r in range(nres)]
        d["bank"] = dict(zip(self.resorts, bank))
        d["noise"] = dict(zip(self.resorts, noise))
        t = self._turn
        d["active"], d["turns_in_round"], d["round"] = t["active"], t["turns_in_round"], t["round"]
        d["start_player"] = (t["active"] - t["turns_in_round"]) % np_
        d["turn"] = (t["round"] - 1) * np_ + t["turns_in_round"]
        d["pending"] = None
        return d

    def game(self) -> Game:
        return Game.from_dict(self.to_dict())


# ---------------------------------------------------------------------------- helpers for tests


def act(game: Game, *actions: str) -> None:
    """Apply actions given by their strings."""
    for a in actions:
        game.apply(game.string_to_action(a))


def not_legal_message(game: Game, action: int, phase: str) -> str:
    """The pattern of the engine's error for a well-formed action that decision ``phase`` does not offer."""
    text, where = re.escape(repr(game.action_to_string(action))), re.escape(repr(phase))
    return rf"^action {action} \({text}\) is not legal in decision {where} of player {game.current_player};"


def refused(game: Game, text: str, phase: str) -> None:
    """``text`` is a well-formed action (a misspelt string fails here, not as a refusal), the game is in decision
    ``phase``, and applying the action raises the engine's "not legal in decision ``phase``" error and changes
    nothing (CORE-01-04, the engine's bad-input rule)."""
    action = game.string_to_action(text)
    assert game.phase_name == phase, f"expected decision {phase!r}, the game is in {game.phase_name!r}"
    assert action not in game.legal_actions()
    before = game.to_dict()
    with pytest.raises(IllegalActionError, match=not_legal_message(game, action, phase)):
        game.apply(action)
    assert game.to_dict() == before


def legal(game: Game) -> list[str]:
    """The legal actions as strings, in action order."""
    return [game.action_to_string(a) for a in game.legal_actions()]


def events(game: Game, type_: str | None = None, since: int = 0) -> list[dict[str, Any]]:
    """Events (optionally of one type) logged since index ``since``."""
    return [e for e in game.events[since:] if type_ is None or e["type"] == type_]


def rules_of(game: Game, since: int = 0) -> list[tuple[str, str]]:
    """(type, rule) of every event since ``since``."""
    return [(e["type"], e["rule"]) for e in game.events[since:]]


def res(game: Game, player: int) -> dict[str, int]:
    return dict(zip(game.config.resorts, game.resources_of(player)))


def cfg(preset: str, **changes: Any) -> RulesConfig:
    config = RulesConfig.preset(preset)
    return config.replace(**changes) if changes else config
