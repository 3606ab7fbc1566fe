"""EXP-02 Security & Order (``spec/EXP-02.md``; RULINGS R24..R49, R59, R61, R62): the SEC resort, Regulations
attached to tiles, the Hotspot Inner Order, the System Tile Authority Apparatus and the fifteen Measures, on the
expansion interface (``base.py``) and the one effect pipeline (``effects.py``).

* SEC is an ordinary resort (EXP-02-00-03, EXP-02-01-01..06, RULINGS R24): ``config.resorts`` lists it while
  EXP-02 is active; no tile produces it (EXP-02-00-08, EXP-02-09-01); conversions may gain it.
* Regulations (EXP-02-02-A) live in :class:`Regulations`, the expansion's per-game state: the RegulationSupply is
  unlimited (A-08), so the state holds the attached ones (count per tile and type) and two counters (placed,
  returned) whose difference is the number attached (the conservation check, :meth:`Regulations.check`).
* The Regulations on an effect's ContextTile are a **modifier source** (:meth:`Exp02.modifiers`, RULINGS R26): one
  record per type with its count; their handlers give the order of EXP-02-04-B-01: Blockade prohibits (step 2 of
  the pipeline, nothing paid, EXP-02-02-D), Control / Administration add cost slots tagged ``"regulation"``
  (step 3, EXP-02-02-C, B-02 additive), SecurityLevel lowers the output (step 5, floor 0, B-03/B-04). The Start
  Committee ignores them (the pipeline skips its ContextTile, CORE-01-08-06A).
* Regulation handling (place, move, remove; EXP-02-02-E/F) is never itself modified by Regulations (RULINGS
  R27): it is a decision (:class:`RegulationChoice`) after the effect that grants it has been paid for.

Readings the texts and RULINGS leave open are docs/rulings.md BC-40.. .

By construction: EXP-02 extends CORE-01, which stays valid (EXP-02-00-01/02, EXP-02-10-02); it adds the object type
Regulation (EXP-02-00-04), a Measure deck in its own zones (EXP-02-00-06, EXP-02-07-00-01, EXP-02-03-01/02 through
the shared Measure system, EXP-02-07-01) and changes neither victory (EXP-02-00-07: ``Game.winners`` is untouched)
nor the Starting Influence or the round structure (EXP-02-03-05/06). A Regulation is neither a tile nor a Resource
(EXP-02-02-A-02: it lives in :class:`Regulations` only), modifies effects, not ownership, majorities or control
(EXP-02-02-A-05, EXP-02-04-C-01/02, EXP-02-09-03: the records act on costs, prohibitions and outputs after the
majority is known), applies to every player alike (EXP-02-02-A-06: the records name no owner), has no upkeep
(EXP-02-02-A-07, EXP-02-09-04), comes from an unlimited supply (EXP-02-02-A-08: counters, no cap) and stacks per
tile and type (EXP-02-02-A-09/10); it never changes the Influence cap (EXP-02-09-02). Costs are paid from the
payer's supply to the Bank, in full and at once, before anything executes, or the effect is not offered
(EXP-02-02-C-02..04, EXP-02-04-A-02/03; RULINGS R18, R62); global cost modifiers stack additively
(EXP-02-10-04). Production is never surcharged by default (RULINGS R28), so EXP-02-10-03 orders nothing there.
Placing a Regulation is no Political Action of its own (EXP-02-06-01..03): it happens through Inner Order and
Measures only (the Authority Apparatus moves or removes). Every effect here is an explicit handler
(EXP-02-09-05), and without EXP-02 none of it exists (EXP-02-10-01: ``expansions_for``, ``config.resorts``). The
only timing windows are the card durations (EXP-02-07-02/03, RULINGS R39); no card has a usage flag (R59).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from .. import effects
from ..actions import CELL, NONE, Block
from ..components import (
    AUTHORITY_APPARATUS,
    GRASSROOTS,
    HOTSPOT,
    INNER_ORDER,
    INVESTMENT_PROGRAM,
    SYSTEM,
    TileAdder,
)
from ..components import RESORT as RESORT_TILE
from ..config import RulesConfig
from ..decisions import Frame, Resolution, register_frame
from ..effects import (
    ALL_MASK,
    ANY,
    END_OF_PLAYER_TURN,
    END_OF_ROUND,
    END_OF_SETTLEMENT,
    FREE,
    MODIFIERS,
    PERMANENT,
    POLITICAL_KINDS,
    ActiveEffect,
    Cost,
    Effect,
    Modifier,
)
from ..errors import StateError
from .base import Expansion, ExpansionState
from .measures import (
    DECKS,
    NO_TARGET,
    PLAYABLE,
    RESOLVERS,
    T_ANY_HOTSPOT,
    T_HOTSPOT,
    T_NON_START,
    T_PLAYER,
    MeasureSpec,
)

if TYPE_CHECKING:
    from ..game import Game

NAME = DECK = "EXP-02"

# EXP-02-02-B-01: exactly four Regulation types (index = position; also the order of their action blocks).
SECURITY_LEVEL, CONTROL, ADMINISTRATION, BLOCKADE = range(4)
TYPE_NAMES = ("security-level", "control", "administration", "blockade")
#: The rule of each type's effect (EXP-02-02-B-02, -B-03, -B-05, -B-07).
TYPE_RULES = ("EXP-02-02-B-02", "EXP-02-02-B-03", "EXP-02-02-B-05", "EXP-02-02-B-07")

#: EXP-02-04-A-01: placing a Regulation normally costs exactly 2 SEC.
PLACEMENT_SEC = 2

# Effect kinds of this expansion besides the Political Actions: the option an Inner Order leader chooses (RULINGS
# R42: ContextTile IO, surcharged by R28). The AA activation is the Political Action "authority" (POLITICAL_KINDS).
IO_KINDS = frozenset(("io-place", "io-move"))
#: Effects with a payer: those cost increases apply to (RULINGS R28).
PAYER_KINDS = POLITICAL_KINDS | IO_KINDS
#: Effects whose output SecurityLevel reduces (RULINGS R29), Future Investment's gain included: EXP-03 resolves it
#: as an effect of kind "measure-gain" on the targeted tile (docs/rulings.md BC-60; EXP-03-08-M03-05).
OUTPUT_KINDS = frozenset(("production", "convert", "formalize", "hotspot", "measure-gain"))


def sec_index(config: RulesConfig) -> int:
    return config.resorts.index("SEC")


def sec_of(game: Game) -> int:
    return game.config.resorts.index("SEC")


# ---------------------------------------------------------------------------- the state (EXP-02-02-A-03)


class Regulations(ExpansionState):
    """The Regulations of one game: attached ones per tile and type (BoardAttached, EXP-02-02-A-03/04) and the
    counters of placements and removals (the RegulationSupply is unlimited, A-08); plus the cells of the
    Authority Apparatus and Inner Order (derived from the Board, not written)."""

    key = "regulations"
    __slots__ = ("on", "placed", "returned", "aa", "io")

    def __init__(self) -> None:
        #: cell -> [SecurityLevel, Control, Administration, Blockade] counts (no all-zero entries).
        self.on: dict[int, list[int]] = {}
        self.placed = 0
        self.returned = 0
        self.aa = -1
        self.io = -1

    def clone(self) -> Regulations:
        r = Regulations()
        r.on = {c: v[:] for c, v in self.on.items()}
        r.placed, r.returned, r.aa, r.io = self.placed, self.returned, self.aa, self.io
        return r

    def count(self) -> int:
        return sum(sum(v) for v in self.on.values())

    def attach(self, cell: int, t: int) -> None:
        self.on.setdefault(cell, [0, 0, 0, 0])[t] += 1

    def detach(self, cell: int, t: int) -> None:
        v = self.on[cell]
        v[t] -= 1
        if not any(v):
            del self.on[cell]

    def to_json(self, game: Game) -> dict[str, Any]:
        label = game.topo.label
        return {
            "attached": {
                label(c): {TYPE_NAMES[t]: n for t, n in enumerate(v) if n} for c, v in sorted(self.on.items())
            },
            "placed": self.placed,
            "returned": self.returned,
        }

    def read_json(self, game: Game, data: Any, where: str) -> None:
        if not isinstance(data, dict) or set(data) != {"attached", "placed", "returned"}:
            raise StateError(f"{where} must be an object with exactly attached, placed, returned")
        for name in ("placed", "returned"):
            v = data[name]
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise StateError(f"{where}.{name} must be a non-negative integer, got {v!r}")
        self.placed, self.returned = data["placed"], data["returned"]
        attached = data["attached"]
        if not isinstance(attached, dict):
            raise StateError(f"{where}.attached must be an object of tiles")
        self.on = {}
        for text, types in attached.items():
            if not isinstance(text, str):
                raise StateError(f"{where}.attached: a tile is named by its cell 'x,y', got {text!r}")
            try:
                cell = game.topo.parse(text)
            except ValueError as exc:
                raise StateError(f"{where}.attached: {exc}") from None
            if game.tile_at[cell] < 0:
                raise StateError(f"{where}.attached: {text!r} is not a Board tile (EXP-02-02-A-01)")
            if cell in self.on:  # one tile, one entry (parse admits one spelling per cell)
                raise StateError(f"{where}.attached: tile {text!r} is listed twice")
            if not isinstance(types, dict) or not types:
                raise StateError(f"{where}.attached.{text} must be a non-empty object of Regulation types")
            for name, n in types.items():
                if name not in TYPE_NAMES:
                    raise StateError(f"{where}.attached.{text}: unknown Regulation type {name!r}")
                if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                    raise StateError(f"{where}.attached.{text}.{name} must be a positive integer, got {n!r}")
                self.on.setdefault(cell, [0, 0, 0, 0])[TYPE_NAMES.index(name)] = n
        problems = self.check(game)
        if problems:
            raise StateError(f"{where}: {problems[0]}")

    def check(self, game: Game) -> list[str]:
        out = []
        if self.count() != self.placed - self.returned:
            out.append(
                f"{self.count()} Regulations attached, but {self.placed} placed and {self.returned} returned "
                "(EXP-02-02-A-03: a Regulation is in the supply or on exactly one tile)"
            )
        for cell, v in self.on.items():
            label = game.topo.label(cell)
            if game.tile_at[cell] < 0 or cell == game.topo.centre:
                out.append(f"a Regulation on {label}, which is not a Board tile but the Start Committee (RULINGS R41)")
                continue
            if len(v) != 4 or min(v) < 0 or not any(v):
                out.append(f"bad Regulation counts {v} on {label}")
            for t in (CONTROL, ADMINISTRATION):
                if v[t] and not attachable(game, t, cell) and not (t == ADMINISTRATION and cell == self.aa):
                    out.append(f"{TYPE_NAMES[t]} on {label} breaks its attachment restriction (EXP-02-02-B-04/06)")
        return out


def state(game: Game) -> Regulations:
    st = game.ext[NAME]
    assert isinstance(st, Regulations)
    return st


def produces_or_converts(game: Game, cell: int) -> bool:
    """RULINGS R41: "produce" = a ResortTile; "convert" = Grassroots and the Investment Program."""
    kind = game.kind_at[cell]
    if kind in (RESORT_TILE, GRASSROOTS):
        return True
    return kind == SYSTEM and game.catalogue[game.tile_at[cell]].special == INVESTMENT_PROGRAM


def attachable(game: Game, t: int, cell: int) -> bool:
    """Whether a Regulation of type ``t`` may be attached to ``cell`` (EXP-02-02-B-04, -B-06, RULINGS R41)."""
    if game.tile_at[cell] < 0 or cell == game.topo.centre:  # CORE-01-08-06: the Start Committee is immune
        return False
    if t == CONTROL:
        return not produces_or_converts(game, cell)  # EXP-02-02-B-04
    if t == ADMINISTRATION:
        return produces_or_converts(game, cell)  # EXP-02-02-B-06
    return True


def protected(game: Game, cell: int) -> bool:
    """EXP-02-08-M13-03, RULINGS R47: Surveillance on ``cell`` this round (no move, no removal)."""
    for a in game.active_effects:
        if a.id == "EXP-02-M13" and a.get("cell") == cell and a.from_round <= game.round:
            return True
    return False


def placements(
    game: Game, types: tuple[int, ...] = (0, 1, 2, 3), cells: list[int] | None = None
) -> list[tuple[int, int]]:
    """Every (type, cell) a Regulation may be placed on (EXP-02-04-A-05, RULINGS R41)."""
    cells = game.nonstart if cells is None else cells
    return [(t, c) for t in types for c in cells if attachable(game, t, c)]


def movable(game: Game) -> list[tuple[int, int]]:
    """Every attached (type, cell) that may be moved: not under Surveillance, with a legal destination
    (EXP-02-02-F-01/02, RULINGS R41, R47)."""
    out = []
    for cell, v in sorted(state(game).on.items()):
        if protected(game, cell):
            continue
        for t in range(4):
            if v[t] and any(attachable(game, t, d) for d in game.nonstart if d != cell):
                out.append((t, cell))
    return sorted(out)


def removable(game: Game) -> list[tuple[int, int]]:
    """Every attached (type, cell) that may be removed (EXP-02-02-E-01, RULINGS R47)."""
    return sorted((t, c) for c, v in state(game).on.items() if not protected(game, c) for t in range(4) if v[t])


def benefits(game: Game, active: ActiveEffect, player: int) -> bool:
    """Whether ``player`` gets the benefit of M06 / M15 ``active``: everybody (RULINGS R34, as written), or with the
    option ``owner_only_benefits`` only its owner (its R31 window is the duration, see ``_benefit_card``)."""
    return not game.config.owner_only_benefits or player == active.owner


def placement_discount(game: Game, player: int) -> int:
    """The index in ``game.active_effects`` of the Situation Assessment in force for a placement by ``player``, or
    -1 (EXP-02-08-M15, R45; R34: anybody's, or with ``owner_only_benefits`` only ``player``'s own)."""
    for i, a in enumerate(game.active_effects):
        if a.id == "EXP-02-M15" and a.from_round <= game.round and benefits(game, a, player):
            return i
    return -1


def placement_cost(game: Game, player: int) -> Cost:
    """EXP-02-04-A-01: 2 SEC; Situation Assessment: 1 SEC less, minimum 1 (EXP-02-08-M15-03, RULINGS R45)."""
    n = PLACEMENT_SEC
    if placement_discount(game, player) >= 0:
        n = max(1, n - 1)
    return ((n, ANY, 1 << sec_of(game)),)


def consume_discount(game: Game, player: int) -> None:
    """RULINGS R45: the discount is consumed by the first placement that is made (by ``player``, who gets it)."""
    i = placement_discount(game, player)
    if i >= 0:
        active = game.active_effects.pop(i)
        game.log("effect-consumed", "EXP-02-08-M15-03", id=active.id, owner=active.owner)


def attach(game: Game, t: int, cell: int, player: int, rule: str) -> None:
    """EXP-02-04-A-05: a Regulation from the RegulationSupply to BoardAttached on ``cell``; then Deployment Order's
    free move if the placer has one in force (EXP-02-08-M03-03, RULINGS R31)."""
    st = state(game)
    st.attach(cell, t)
    st.placed += 1
    game.log("regulation-placed", rule, player=player, type=TYPE_NAMES[t], cell=cell)
    i = _window(game, "EXP-02-M03", player)
    if i >= 0:
        # RULINGS R31: consumed by the owner's first placement in the window; the move is mandatory where a legal
        # destination exists (and the Regulation may be moved: Surveillance, R47), chosen by the owner (R23).
        active = game.active_effects.pop(i)
        game.log("effect-consumed", "EXP-02-08-M03-03", id=active.id, owner=active.owner)
        if not protected(game, cell) and any(attachable(game, t, d) for d in game.nonstart if d != cell):
            game.stack.append(RegulationChoice(player, MOVE_TO, "EXP-02-08-M03-03", t, cell))


def _window(game: Game, key: str, player: int) -> int:
    """The index of ``player``'s "this turn" window of card ``key`` in force (RULINGS R31), or -1."""
    for i, a in enumerate(game.active_effects):
        if a.id == key and a.owner == player:
            return i
    return -1


def _left_tile(game: Game, t: int, cell: int) -> None:
    """RULINGS R46, docs/rulings.md BC-41: a File-Status Regulation that leaves its tile stops counting twice."""
    for i, a in enumerate(game.active_effects):
        if a.id == "EXP-02-M14" and a.get("cell") == cell and a.get("type") == t:
            game.active_effects.pop(i)
            game.log("effect-expired", "EXP-02-08-M14-03", id=a.id, owner=a.owner)
            return


def detach(game: Game, t: int, cell: int, player: int, rule: str) -> None:
    """EXP-02-02-E-01/02: Removal, back to the RegulationSupply (no refund)."""
    st = state(game)
    st.detach(cell, t)
    st.returned += 1
    _left_tile(game, t, cell)
    game.log("regulation-removed", rule, player=player, type=TYPE_NAMES[t], cell=cell)


def move(game: Game, t: int, src: int, dst: int, player: int, rule: str) -> None:
    """EXP-02-02-F-01..03: the same Regulation to another tile, its type unchanged, no SEC."""
    st = state(game)
    st.detach(src, t)
    st.attach(dst, t)
    _left_tile(game, t, src)
    game.log("regulation-moved", rule, player=player, type=TYPE_NAMES[t], src=src, dst=dst)


# ---------------------------------------------------------------------------- modifiers (EXP-02-04-B)


def _file_status_bonus(game: Game, cell: int, t: int) -> int:
    """RULINGS R46: this round the chosen Regulation counts as two for every stacking count."""
    for a in game.active_effects:
        if a.id == "EXP-02-M14" and a.get("cell") == cell and a.get("type") == t and a.from_round <= game.round:
            return 1
    return 0


class _Regulation(Modifier):
    """A Regulation record on the ContextTile: ``count`` of one type (File Status included)."""

    source = "regulation"
    tile_sensitive = True
    data_keys = frozenset(("cell", "count"))
    type_index = 0

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return TYPE_RULES[self.type_index]


class BlockadeRule(_Regulation):
    """EXP-02-02-B-07, EXP-02-04-B-01 (1), EXP-02-10-05: prohibits the effect; checked before any payment
    (EXP-02-02-D-01/02, RULINGS R62); a blockaded Hotspot does not resolve (EXP-02-04-C-03, R43)."""

    type_index = BLOCKADE
    kinds = PAYER_KINDS | frozenset(("production", "hotspot"))

    def prohibits(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return True


class CostIncrease(_Regulation):
    """Control (EXP-02-02-B-03) and Administration (-B-05): +1 Resource of any resort each (EXP-02-02-C-01),
    stacking additively (EXP-02-04-B-02), on effects with a payer (RULINGS R28)."""

    kinds = PAYER_KINDS

    def __init__(self, type_index: int) -> None:
        self.type_index = type_index

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        return ((active.get("count"), ANY, ALL_MASK),)


class SecurityLevelRule(_Regulation):
    """EXP-02-02-B-02, EXP-02-04-B-03/04: the output -1 per SecurityLevel, floor 0 (RULINGS R29)."""

    type_index = SECURITY_LEVEL
    kinds = OUTPUT_KINDS

    def output(self, game: Game, active: ActiveEffect, effect: Effect, amount: int) -> int:
        return amount - active.get("count")


_RECORD_IDS = ("EXP-02-SECURITY-LEVEL", "EXP-02-CONTROL", "EXP-02-ADMINISTRATION", "EXP-02-BLOCKADE")
MODIFIERS.update(
    {
        "EXP-02-SECURITY-LEVEL": SecurityLevelRule(),
        "EXP-02-CONTROL": CostIncrease(CONTROL),
        "EXP-02-ADMINISTRATION": CostIncrease(ADMINISTRATION),
        "EXP-02-BLOCKADE": BlockadeRule(),
    }
)
#: Threat Situation and Emergency Decree place a Regulation: their PlayMeasure costs the card and the placement at
#: once (RULINGS R61, EXP-02-04-A-06), so their cost carries the placement slot (PLACEMENT_SEC SEC) after the
#: printed one; Situation Assessment lowers that slot (R45).
_PLACING_CARDS = frozenset(("EXP-02-M01", "EXP-02-M02"))


# ---------------------------------------------------------------------------- decisions


# Modes of a RegulationChoice.
PLACE, PICK_MOVE, PICK_REMOVE, MOVE_TO, INNER, LOSS_OF_CONTROL, FILE_STATUS = range(7)
_MODE_NAMES = ("place", "pick-move", "pick-remove", "move-to", "inner-order", "loss-of-control", "file-status")
_KINDS = ("regulation-place", "regulation-pick", "regulation-pick", "regulation-move-to", "inner-order",
          "regulation-place", "regulation-pick")  # fmt: skip


def _type_action(game: Game, t: int, cell: int) -> int:
    return game.layout.offset(TYPE_NAMES[t]) + cell


class RegulationChoice(Frame):
    """A decision about Regulations, by ``owner`` (who may not be the active player, RULINGS R23): which
    Regulation to place where, which to move or remove, where to move it, or an Inner Order leader's option.

    Actions: ``<type> x,y`` (the four type blocks) names a Regulation type and a tile; ``place-regulation``,
    ``move-regulation`` and ``decline`` are the Inner Order options (EXP-02-02-G-04, RULINGS R42)."""

    __slots__ = ("mode", "rtype", "src", "rule", "kind")
    name = "regulation"

    def __init__(self, owner: int, mode: int, rule: str, rtype: int = -1, src: int = -1) -> None:
        self.owner = owner
        self.mode = mode
        self.rule = rule
        self.rtype = rtype
        self.src = src
        self.kind = _KINDS[mode]

    def copy(self) -> Frame:
        return RegulationChoice(self.owner, self.mode, self.rule, self.rtype, self.src)

    def legal(self, game: Game) -> list[int]:
        mode = self.mode
        if mode == PLACE:
            pairs = placements(game)
        elif mode == PICK_MOVE:
            pairs = movable(game)
        elif mode == PICK_REMOVE:
            pairs = removable(game)
        elif mode == MOVE_TO:
            pairs = [(self.rtype, d) for d in game.nonstart if d != self.src and attachable(game, self.rtype, d)]
        elif mode == LOSS_OF_CONTROL:  # RULINGS R44: Blockade, Control or SecurityLevel on a Hotspot
            hotspots = [c for c in game.board if game.kind_at[c] == HOTSPOT]
            pairs = placements(game, (SECURITY_LEVEL, CONTROL, BLOCKADE), hotspots)
        elif mode == FILE_STATUS:  # RULINGS R46
            pairs = sorted((t, c) for c, v in state(game).on.items() for t in range(4) if v[t])
        else:
            return inner_order_options(game, self.owner, self.src)
        return sorted(_type_action(game, t, c) for t, c in pairs)

    def choose(self, game: Game, action: int) -> None:
        game.stack.pop()
        p, mode = self.owner, self.mode
        if mode == INNER:
            _inner_order_choice(game, p, self.src, action)
            return
        d = game.layout.decode(action)
        t, cell = TYPE_NAMES.index(d.verb), d.cell
        if mode == PLACE:
            attach(game, t, cell, p, self.rule)
        elif mode == PICK_MOVE:
            game.stack.append(RegulationChoice(p, MOVE_TO, self.rule, t, cell))
        elif mode == PICK_REMOVE:
            detach(game, t, cell, p, self.rule)
        elif mode == MOVE_TO:
            move(game, t, self.src, cell, p, self.rule)
        elif mode == LOSS_OF_CONTROL:
            # RULINGS R44: chosen at play, executed at the start of the next Round Settlement.
            active = ActiveEffect("EXP-02-M12", p, END_OF_SETTLEMENT, game.round, (("cell", cell), ("type", t)))
            game.active_effects.append(active)
            game.log("measure-effect", "EXP-02-08-M12-03", card="EXP-02-M12", player=p, cell=cell, type=TYPE_NAMES[t])
        else:  # FILE_STATUS
            active = ActiveEffect("EXP-02-M14", p, END_OF_ROUND, game.round, (("cell", cell), ("type", t)))
            game.active_effects.append(active)
            game.log("measure-effect", "EXP-02-08-M14-03", card="EXP-02-M14", player=p, cell=cell, type=TYPE_NAMES[t])

    def describe(self, game: Game) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "owner": self.owner, "mode": _MODE_NAMES[self.mode]}
        if self.rtype >= 0:
            out["type"] = TYPE_NAMES[self.rtype]
        if self.src >= 0:
            out["tile"] = self.src
        return out

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner, "mode": _MODE_NAMES[self.mode], "rule": self.rule,
                "type": TYPE_NAMES[self.rtype] if self.rtype >= 0 else None,
                "tile": game.topo.label(self.src) if self.src >= 0 else None}  # fmt: skip

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        owner = data.get("owner")
        if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < game.num_players:
            raise StateError(f"{where}.owner must be a player, got {owner!r}")
        mode = data.get("mode")
        if mode not in _MODE_NAMES:
            raise StateError(f"{where}.mode must be one of {', '.join(_MODE_NAMES)}, got {mode!r}")
        rule = data.get("rule")
        if not isinstance(rule, str):
            raise StateError(f"{where}.rule must be a rule id string")
        rtype = data.get("type")
        if rtype is not None and rtype not in TYPE_NAMES:
            raise StateError(f"{where}.type must be a Regulation type or null, got {rtype!r}")
        text = data.get("tile")
        src = -1
        if text is not None:
            try:
                src = game.topo.parse(text) if isinstance(text, str) else -2
            except ValueError:
                src = -2
            if src < 0 or game.tile_at[src] < 0:
                raise StateError(f"{where}.tile must be a Board tile or null, got {text!r}")
        m = _MODE_NAMES.index(mode)
        if (m == MOVE_TO) != (rtype is not None) or (m in (MOVE_TO, INNER)) != (src >= 0):
            raise StateError(f"{where}: mode {mode} needs {'a type and a tile' if m == MOVE_TO else 'a tile'}")
        if m == MOVE_TO and (src not in state(game).on or not state(game).on[src][TYPE_NAMES.index(rtype)]):
            raise StateError(f"{where}: no {rtype} Regulation on {text} to move")
        return RegulationChoice(owner, m, rule, TYPE_NAMES.index(rtype) if rtype is not None else -1, src)


register_frame(RegulationChoice)


class ProductionTax(Frame):
    """RULINGS R28's option, docs/rulings.md BC-42: a recipient of a surcharged production pays ``count`` Resources
    of any resort (one ``pay`` decision per Resource where there is a choice, BC-05; the share just received may
    pay) or declines and returns its ``share`` to the Bank (the production yields nothing for it)."""

    __slots__ = ("cell", "resort", "share", "count", "paid")
    kind: str | None = "production-tax"
    name = "production-tax"

    def __init__(self, owner: int, cell: int, resort: int, share: int, count: int, paid: list[int] | None = None):
        self.owner = owner
        self.cell = cell
        self.resort = resort
        self.share = share
        self.count = count
        self.paid = paid or []

    def copy(self) -> Frame:
        return ProductionTax(self.owner, self.cell, self.resort, self.share, self.count, self.paid[:])

    def _options(self, game: Game) -> list[tuple[int, ...]]:
        return effects.affordable(((self.count, ANY, ALL_MASK),), game.resources_of(self.owner))

    def legal(self, game: Game) -> list[int]:
        lay = game.layout
        out = [lay.pay + r for r in effects.next_choices(self._options(game), self.paid)]
        if not self.paid:
            out.append(lay.decline)
        return out

    def choose(self, game: Game, action: int) -> None:
        lay = game.layout
        p = self.owner
        if action == lay.decline:
            game.stack.pop()
            game.res[p * game.num_resorts + self.resort] -= self.share
            game.bank[self.resort] += self.share
            game.log("production-tax-declined", "RULINGS-R28", player=p, cell=self.cell, returned=self.share)
            return
        self.paid.append(action - lay.pay)
        options = self._options(game)
        while True:  # BC-05: take a determined next Resource without asking
            nxt = effects.next_choices(options, self.paid)
            if len(nxt) != 1:
                break
            self.paid.append(nxt[0])
        if not effects.next_choices(options, self.paid):
            game.stack.pop()
            game._pay(p, self.paid, "RULINGS-R28")
            game.log("production-tax", "RULINGS-R28", player=p, cell=self.cell, extra=self.count)

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": self.kind, "owner": self.owner, "cell": self.cell, "share": self.share, "count": self.count,
                "paid": list(self.paid)}  # fmt: skip

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner, "tile": game.topo.label(self.cell),
                "resort": game.config.resorts[self.resort], "share": self.share, "count": self.count,
                "paid": [game.config.resorts[r] for r in self.paid]}  # fmt: skip

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        owner = data.get("owner")
        if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < game.num_players:
            raise StateError(f"{where}.owner must be a player, got {owner!r}")
        text = data.get("tile")
        try:
            cell = game.topo.parse(text) if isinstance(text, str) else -1
        except ValueError:
            cell = -1
        if cell < 0 or cell not in game.resort_cells:
            raise StateError(f"{where}.tile must be a ResortTile on the Board, got {text!r}")
        resorts = game.config.resorts
        resort = data.get("resort")
        if resort not in resorts:
            raise StateError(f"{where}.resort must be one of {', '.join(resorts)}, got {resort!r}")
        for key in ("share", "count"):
            v = data.get(key)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 64:
                raise StateError(f"{where}.{key} must be an integer 1..64, got {v!r}")
        paid = data.get("paid")
        if not isinstance(paid, list) or any(r not in resorts for r in paid) or len(paid) >= data["count"]:
            raise StateError(f"{where}.paid must be a list of fewer than count resorts")
        frame = ProductionTax(owner, cell, resorts.index(resort), data["share"], data["count"],
                              [resorts.index(r) for r in paid])  # fmt: skip
        if not frame.legal(game):
            raise StateError(f"{where}: the payment so far cannot be completed")
        return frame


register_frame(ProductionTax)


class CompetenceConflict(Frame):
    """EXP-02-08-M05-03, RULINGS R30: after its owner's AA activation has resolved, an Administration onto the
    Authority Apparatus (the card overrides EXP-02-02-B-06), paying the normal placement cost (EXP-02-04-A-06;
    Situation Assessment applies, R45); if the owner cannot pay, nothing is placed and the activation stands."""

    __slots__ = ()
    name = "competence-conflict"

    def __init__(self, owner: int) -> None:
        self.owner = owner

    def run(self, game: Game) -> None:
        game.stack.pop()
        p, aa = self.owner, state(game).aa
        cost = placement_cost(game, p)[0][0]
        sec = sec_of(game)
        if game.res[p * game.num_resorts + sec] < cost:
            game.log("regulation-not-placed", "EXP-02-04-A-04", player=p, cell=aa, type=TYPE_NAMES[ADMINISTRATION])
            return
        game._pay(p, [sec] * cost, "EXP-02-04-A-01")
        consume_discount(game, p)
        attach(game, ADMINISTRATION, aa, p, "EXP-02-08-M05-03")

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": None, "procedure": self.name, "owner": self.owner}

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        owner = data.get("owner")
        if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < game.num_players:
            raise StateError(f"{where}.owner must be a player, got {owner!r}")
        if state(game).aa < 0:
            raise StateError(f"{where}: no Authority Apparatus on the Board")
        return CompetenceConflict(owner)


register_frame(CompetenceConflict)


class RegulationPayment(Resolution):
    """The payment of an Authority Apparatus activation (``src``: PICK_MOVE / PICK_REMOVE) or of an Inner Order
    option (``io-place`` / ``io-move``, paid by the leader, who may not be the active player: R23). A ``pay``
    decision of the core pipeline (BC-05) named ``regulation-pay``, so that the JSON state keeps it, with its
    owner, in its ``stack``."""

    __slots__ = ()
    name = "regulation-payment"
    pay_kind: ClassVar[str] = "regulation-pay"

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner, "effect": self.effect, "tile": game.topo.label(self.tile),
                "mode": _MODE_NAMES[self.src] if self.effect == "authority" else None,
                "paid": [game.config.resorts[r] for r in self.paid]}  # fmt: skip

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        owner = data.get("owner")
        if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < game.num_players:
            raise StateError(f"{where}.owner must be a player, got {owner!r}")
        effect = data.get("effect")
        if effect not in ("authority", "io-place", "io-move"):
            raise StateError(f"{where}.effect must be 'authority', 'io-place' or 'io-move', got {effect!r}")
        text = data.get("tile")
        st = state(game)
        want = st.aa if effect == "authority" else st.io
        try:
            cell = game.topo.parse(text) if isinstance(text, str) else -1
        except ValueError:
            cell = -1
        if cell < 0 or cell != want:
            raise StateError(f"{where}.tile must be the {'Authority Apparatus' if want == st.aa else 'Inner Order'}")
        mode = data.get("mode")
        if (effect == "authority") != (mode in ("pick-move", "pick-remove")) or (effect != "authority" and mode):
            raise StateError(f"{where}.mode must be 'pick-move' / 'pick-remove' for 'authority', else null")
        resorts = game.config.resorts
        paid = data.get("paid")
        if not isinstance(paid, list) or any(r not in resorts for r in paid):
            raise StateError(f"{where}.paid must be a list of resorts")
        res = RegulationPayment(owner, effect, cell, _MODE_NAMES.index(mode) if mode else -1)
        res.options = game.payment_choices(game._effect_of(res))
        res.paid = [resorts.index(r) for r in paid]
        if len(effects.next_choices(res.options, res.paid)) < 2:
            raise StateError(f"{where}: the payment so far leaves no choice (it completes by itself, BC-05)")
        res.kind = res.pay_kind
        return res


register_frame(RegulationPayment)


def begin_payment(game: Game, p: int, kind: str, cell: int, mode: int = -1) -> None:
    """Start the payment of an AA activation or an Inner Order option (CORE-01-06-00-03: one record, executed at
    once when paid; BC-05: one Resource at a time where there is a choice)."""
    res = RegulationPayment(p, kind, cell, mode)
    res.options = game.payment_choices(game._effect_of(res))
    game.stack.append(res)
    game._advance_payment(res)


def _pay_option(game: Game, res: Resolution, effect: Effect, rule: str) -> None:
    """Pay an Inner Order option (not a Political Action, so nothing is consumed, RULINGS R28/R42)."""
    p = res.owner
    effects.use_payment(game, effect, tuple(res.paid))
    for handler, active in effects.collect_modifiers(game, effect):
        extra = handler.extra_cost(game, active, effect)
        if extra:
            game.log("measure-applied", handler.rule(game, active), id=active.id, owner=active.owner,
                     kind=effect.kind, player=p, extra=sum(s[0] for s in extra))  # fmt: skip
    if res.paid:
        game._pay(p, res.paid, rule)


def inner_order_options(game: Game, p: int, cell: int) -> list[int]:
    """RULINGS R42: place one Regulation paying the placement cost, move one (free), or decline; the Regulations
    on IO itself surcharge the option (R28), so an option is offered only when it can be paid."""
    lay = game.layout
    out = []
    if game.payment_choices(game.effect_for("io-place", cell, p)):
        out.append(lay.offset("place-regulation"))
    if movable(game) and game.payment_choices(game.effect_for("io-move", cell, p)):
        out.append(lay.offset("move-regulation"))
    out.append(lay.decline)
    return out


def _inner_order_choice(game: Game, p: int, cell: int, action: int) -> None:
    lay = game.layout
    if action == lay.decline:
        game.log("inner-order-declined", "EXP-02-02-G-04", player=p, cell=cell)
        return
    kind = "io-place" if action == lay.offset("place-regulation") else "io-move"
    begin_payment(game, p, kind, cell)


def _resolve_inner_order(game: Game, cell: int, leader: int) -> None:
    """EXP-02-02-G-03..07, RULINGS R42: once fully surrounded and not blockaded (the core checks the
    prohibition, EXP-02-04-C-03), the single majority leader (computeMajority, strict) may place or move one
    Regulation; no Resources, no Influence (G-06/07). The leader decides even when not active (R23)."""
    game.log("inner-order", "EXP-02-02-G-04", cell=cell, player=leader)
    options = inner_order_options(game, leader, cell)
    if options == [game.layout.decline]:
        game.log("inner-order-declined", "EXP-02-02-G-04", player=leader, cell=cell, reason="no option")
        return
    game.stack.append(RegulationChoice(leader, INNER, "EXP-02-02-G-04", src=cell))


# ---------------------------------------------------------------------------- the Measures (EXP-02-08)


def _cost(*resorts: int) -> Cost:
    return tuple((1, ANY, 1 << r) for r in sorted(resorts))


def build_deck(config: RulesConfig) -> tuple[MeasureSpec, ...]:
    """EXP-02-08-M01..M15 (cost line -01, duration -02, effect -03); SEC's index depends on the configuration."""
    s = sec_index(config)
    dom, for_, inf = 0, 1, 2

    def card(n: int, name: str, cost: tuple[int, ...], target: str = NO_TARGET) -> MeasureSpec:
        key = f"EXP-02-M{n:02d}"
        rule = f"{DECK}-08-M{n:02d}-03"  # the card's effect line
        slots = _cost(*cost)
        if key in _PLACING_CARDS:  # RULINGS R61: the card and the placement, paid at once
            slots = slots + ((PLACEMENT_SEC, ANY, 1 << s),)
        return MeasureSpec(key, DECK, name, slots, target, (rule, rule), context_tile=False)

    # Cost lines and durations (the durations are the ActiveEffect timings of the resolvers below):
    # EXP-02-08-M01-01, EXP-02-08-M01-02
    # EXP-02-08-M02-01, EXP-02-08-M02-02
    # EXP-02-08-M03-01, EXP-02-08-M03-02
    # EXP-02-08-M04-01, EXP-02-08-M04-02
    # EXP-02-08-M05-01, EXP-02-08-M05-02
    # EXP-02-08-M06-01, EXP-02-08-M06-02
    # EXP-02-08-M07-01, EXP-02-08-M07-02
    # EXP-02-08-M08-01, EXP-02-08-M08-02
    # EXP-02-08-M09-01, EXP-02-08-M09-02
    # EXP-02-08-M10-01, EXP-02-08-M10-02
    # EXP-02-08-M11-01, EXP-02-08-M11-02
    # EXP-02-08-M12-01, EXP-02-08-M12-02
    # EXP-02-08-M13-01, EXP-02-08-M13-02
    # EXP-02-08-M14-01, EXP-02-08-M14-02
    # EXP-02-08-M15-01, EXP-02-08-M15-02
    return (
        card(1, "Threat Situation", (s, inf)),
        card(2, "Emergency Decree", (s, s), T_HOTSPOT),  # RULINGS R32: an unresolved Hotspot
        card(3, "Deployment Order", (s,)),
        card(4, "Jurisdiction Shift", (s,)),
        card(5, "Competence Conflict", (s, dom)),
        card(6, "Order Partnership", (s, for_)),
        card(7, "Legal Review", (s, dom)),
        card(8, "De-escalation", (s, inf), T_ANY_HOTSPOT),  # RULINGS R44, R49
        card(9, "Parliamentary Oversight", (dom, s)),
        card(10, "State of Exception", (s, s, dom)),
        card(11, "Risk Address", (s,), T_PLAYER),  # RULINGS R49: any player
        card(12, "Loss of Control", (s, s)),
        card(13, "Surveillance", (s, inf), T_NON_START),  # RULINGS R49
        card(14, "File Status", (s, dom)),
        card(15, "Situation Assessment", (s,)),
    )


class ParliamentaryOversight(Modifier):
    """M09 (RULINGS R33): this round every Regulation that modifies an effect with a payer adds +1 to its cost
    (a File-Status Regulation +2, R46)."""

    source = "measure"
    kinds = PAYER_KINDS

    def amend(
        self, game: Game, active: ActiveEffect, effect: Effect, other: Modifier, other_active: ActiveEffect, extra: Cost
    ) -> Cost:
        if other.source == "regulation":
            return extra + ((other_active.get("count"), ANY, ALL_MASK),)
        return extra

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return "EXP-02-08-M09-03"


class StateOfException(Modifier):
    """M10 (EXP-02-08-M10-03, RULINGS R28): this round every effect with a payer costs +1 Resource."""

    source = "measure"
    kinds = PAYER_KINDS

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        return ((1, ANY, ALL_MASK),)

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return "EXP-02-08-M10-03"


class RiskAddress(Modifier):
    """M11 (EXP-02-08-M11-03, RULINGS R49): next round the target may not PlayMeasure (any deck)."""

    kinds = frozenset(("play",))
    tile_sensitive = False
    data_keys = frozenset(("target",))

    def prohibits(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return effect.actor == active.get("target")

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return "EXP-02-08-M11-03"


class OrderPartnership(Modifier):
    """M06 (EXP-02-08-M06-03, RULINGS R48, R34): this round, in each payment of a Measure cost one required
    Resource of a named resort may be paid with SEC instead (at most one per payment; all players)."""

    source = "measure"
    kinds = frozenset(("play",))
    data_keys = frozenset(("player", "turn"))  # the R31 window under the option ``owner_only_benefits``

    def substitutes(
        self, game: Game, active: ActiveEffect, effect: Effect, cost: Cost, imposed: tuple[int, ...]
    ) -> list[Cost]:
        if not benefits(game, active, effect.actor):
            return []  # RULINGS R34 option: its owner only
        sec_mask = 1 << sec_of(game)
        out = []
        for i, (count, rule, mask) in enumerate(cost):
            if mask != sec_mask and mask != ALL_MASK and mask & (mask - 1) == 0:  # a named resort other than SEC
                rest = cost[:i] + cost[i + 1 :]
                if count > 1:
                    rest = rest + ((count - 1, rule, mask),)
                out.append(rest + ((1, ANY, sec_mask),))
        return out

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return "EXP-02-08-M06-03"


class SituationAssessment(Modifier):
    """M15 (EXP-02-08-M15-03, RULINGS R45, R34): this round the next Regulation placement by anybody costs 1 SEC
    less, minimum 1 (``placement_cost``); for Threat Situation / Emergency Decree the placement slot of the card's
    cost is lowered the same way. Consumed by the first placement made (``consume_discount``)."""

    kinds = frozenset(("play",))
    data_keys = frozenset(("player", "turn"))  # the R31 window under the option ``owner_only_benefits``

    def adjust_cost(self, game: Game, active: ActiveEffect, effect: Effect, cost: Cost) -> Cost:
        if game.measures[effect.card].key not in _PLACING_CARDS or not benefits(game, active, effect.actor):
            return cost
        slot = (PLACEMENT_SEC, ANY, 1 << sec_of(game))
        if slot not in cost:
            return cost
        i = cost.index(slot)
        return cost[:i] + ((max(1, PLACEMENT_SEC - 1), ANY, slot[2]),) + cost[i + 1 :]

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return "EXP-02-08-M15-03"


class _Marker(Modifier):
    """A duration that modifies no effect itself (read by the Regulation rules: Surveillance, File Status,
    Situation Assessment, De-escalation, Loss of Control)."""

    data_keys = frozenset(("cell", "type"))

    def __init__(self, rule: str) -> None:
        self._rule = rule

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return self._rule


class _Window(_Marker):
    data_keys = frozenset(("player", "turn"))


MODIFIERS.update(
    {
        "EXP-02-M03": _Window("EXP-02-08-M03-03"),
        "EXP-02-M05": _Window("EXP-02-08-M05-03"),
        "EXP-02-M06": OrderPartnership(),
        "EXP-02-M08": _Marker("EXP-02-08-M08-03"),
        "EXP-02-M09": ParliamentaryOversight(),
        "EXP-02-M10": StateOfException(),
        "EXP-02-M11": RiskAddress(),
        "EXP-02-M12": _Marker("EXP-02-08-M12-03"),
        "EXP-02-M13": _Marker("EXP-02-08-M13-03"),
        "EXP-02-M14": _Marker("EXP-02-08-M14-03"),
        "EXP-02-M15": SituationAssessment(),
    }
)


def _m01(game: Game, player: int, card: int, tile: int, target: int) -> None:
    # EXP-02-08-M01-03, RULINGS R61: the placement cost was paid with the card (EXP-02-04-A-06).
    consume_discount(game, player)
    game.stack.append(RegulationChoice(player, PLACE, "EXP-02-08-M01-03"))
    return None


def _m02(game: Game, player: int, card: int, tile: int, target: int) -> None:
    # EXP-02-08-M02-03, RULINGS R32: a Blockade at once on the unresolved Hotspot (placement paid with the card).
    consume_discount(game, player)
    attach(game, BLOCKADE, tile, player, "EXP-02-08-M02-03")
    return None


def _window_card(key: str) -> Any:
    def resolve(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
        # RULINGS R31: "this turn" = from play to the end of the owner's next turn, consumed by its trigger.
        data = (("player", player), ("turn", game.turn))
        return ActiveEffect(key, player, END_OF_PLAYER_TURN, game.round, data)

    return resolve


def _benefit_card(key: str) -> Any:
    def resolve(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
        if game.config.owner_only_benefits:
            # RULINGS R34 option, R31 window: its owner only, from play to the end of the owner's next turn.
            data = (("player", player), ("turn", game.turn))
            return ActiveEffect(key, player, END_OF_PLAYER_TURN, game.round, data)
        # "This round" (EXP-02-07-02): until the next Round Settlement begins (RULINGS R35); everybody (R34).
        return ActiveEffect(key, player, END_OF_ROUND, game.round)

    return resolve


def _m04(game: Game, player: int, card: int, tile: int, target: int) -> None:
    game.stack.append(RegulationChoice(player, PICK_MOVE, "EXP-02-08-M04-03"))  # EXP-02-08-M04-03, free (F-03)
    return None


def _m07(game: Game, player: int, card: int, tile: int, target: int) -> None:
    game.stack.append(RegulationChoice(player, PICK_REMOVE, "EXP-02-08-M07-03"))  # EXP-02-08-M07-03
    return None


def _this_round(key: str, *data: tuple[str, Any]) -> Any:
    def resolve(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
        # "This round" (EXP-02-07-02): until the next Round Settlement begins (RULINGS R35).
        extra = tuple((k, tile if v == "tile" else v) for k, v in data)
        return ActiveEffect(key, player, END_OF_ROUND, game.round, extra)

    return resolve


def _m08(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-02-08-M08-02/03, RULINGS R44: executed at the start of the next Round Settlement.
    return ActiveEffect("EXP-02-M08", player, END_OF_SETTLEMENT, game.round, (("cell", tile),))


def _m11(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-02-08-M11-02/03: during next round (from the next round on, until its Round Settlement begins).
    return ActiveEffect("EXP-02-M11", player, END_OF_ROUND, game.round + 1, (("target", target),))


def _m12(game: Game, player: int, card: int, tile: int, target: int) -> None:
    # RULINGS R44: the Hotspot and the type are chosen at play.
    game.stack.append(RegulationChoice(player, LOSS_OF_CONTROL, "EXP-02-08-M12-03"))
    return None


def _m14(game: Game, player: int, card: int, tile: int, target: int) -> None:
    game.stack.append(RegulationChoice(player, FILE_STATUS, "EXP-02-08-M14-03"))  # RULINGS R46
    return None


RESOLVERS.update(
    {
        "EXP-02-M01": _m01,
        "EXP-02-M02": _m02,
        "EXP-02-M03": _window_card("EXP-02-M03"),
        "EXP-02-M04": _m04,
        "EXP-02-M05": _window_card("EXP-02-M05"),
        "EXP-02-M06": _benefit_card("EXP-02-M06"),
        "EXP-02-M07": _m07,
        "EXP-02-M08": _m08,
        "EXP-02-M09": _this_round("EXP-02-M09"),
        "EXP-02-M10": _this_round("EXP-02-M10"),
        "EXP-02-M11": _m11,
        "EXP-02-M12": _m12,
        "EXP-02-M13": _this_round("EXP-02-M13", ("cell", "tile")),
        "EXP-02-M14": _m14,
        "EXP-02-M15": _benefit_card("EXP-02-M15"),
    }
)
PLAYABLE.update(
    {
        "EXP-02-M04": lambda game, p: bool(movable(game)),  # RULINGS R49
        "EXP-02-M07": lambda game, p: bool(removable(game)),
        "EXP-02-M12": lambda game, p: any(game.kind_at[c] == HOTSPOT for c in game.board),
        "EXP-02-M14": lambda game, p: bool(state(game).on),
    }
)
DECKS[DECK] = build_deck


# ---------------------------------------------------------------------------- the expansion


class Exp02(Expansion):
    """EXP-02 on the expansion interface."""

    name = NAME
    #: The Inner Order options and Authority Apparatus activations (EXP-02-02-G-04, EXP-02-05-02), then one cell
    #: block per Regulation type: ``<type> x,y`` places, picks or moves a Regulation of that type on/to that tile.
    action_blocks = (
        Block("place-regulation", NONE),
        Block("move-regulation", NONE),
        Block("remove-regulation", NONE),
        *(Block(name, CELL) for name in TYPE_NAMES),
    )

    def __init__(self) -> None:
        self.hotspot_resolvers = {INNER_ORDER: _resolve_inner_order}

    def new_state(self, game: Game) -> Regulations:
        return Regulations()

    def add_tiles(self, config: RulesConfig, add: TileAdder) -> None:
        # EXP-02-00-05, EXP-02-03-03/04: Inner Order and Authority Apparatus, once each, into the DrawPile.
        add(HOTSPOT, "Inner Order", special=INNER_ORDER)  # EXP-02-02-G-01/02
        add(SYSTEM, "Authority Apparatus", special=AUTHORITY_APPARATUS)

    def tile_placed(self, game: Game, cell: int) -> None:
        special = game.catalogue[game.tile_at[cell]].special
        if special == AUTHORITY_APPARATUS:
            state(game).aa = cell  # EXP-02-05-01: a System Tile on the Board
        elif special == INNER_ORDER:
            state(game).io = cell

    def modifiers(self, game: Game, effect: Effect) -> list[ActiveEffect]:
        """RULINGS R26: the Regulations on the effect's ContextTile (the pipeline skips the Start Committee)."""
        out = []
        tile = effect.tile
        if tile >= 0:
            counts = state(game).on.get(tile)
            if counts:
                for t in range(4):
                    n = counts[t]
                    if n:
                        n += _file_status_bonus(game, tile, t)
                        out.append(ActiveEffect(_RECORD_IDS[t], -1, PERMANENT, 0, (("cell", tile), ("count", n))))
        return out

    def modifying(self, game: Game) -> bool:
        """Records exist only for attached Regulations."""
        return bool(state(game).on)

    def tile_sensitive(self, game: Game, kind: str) -> bool:
        """Only attached Regulations depend on the ContextTile (the placement-cost record of Threat Situation /
        Emergency Decree is the same for every target)."""
        return bool(state(game).on)

    def render_lines(self, game: Game) -> list[str]:
        """The Regulations per tile and type, and the EXP-02 durations in force, for the text rendering."""
        st = state(game)
        label = game.topo.label
        parts = [
            f"{label(c)} " + " ".join(f"{TYPE_NAMES[t]}x{n}" if n > 1 else TYPE_NAMES[t] for t, n in enumerate(v) if n)
            for c, v in sorted(st.on.items())
        ]
        lines = [f"regulations: {'; '.join(parts) or '-'}  (placed {st.placed}, returned {st.returned})"]
        names = {m.key: m.name for m in game.measures}
        active = [f"{names.get(a.id, a.id)} (P{a.owner})" for a in game.active_effects if a.id.startswith("EXP-02-")]
        if active:
            lines.append(f"  EXP-02 in force: {', '.join(active)}")
        return lines

    # -- Authority Apparatus (EXP-02-05, RULINGS R25)
    def political_options(self, game: Game, player: int, out: list[int]) -> None:
        aa = state(game).aa
        if aa < 0:
            return
        if game.config.action_tiles_require_control and game.controller(aa) != player:  # RULINGS R25, R15
            return
        if not game.payment_choices(game.effect_for("authority", aa, player)):  # Blockade / surcharges
            return
        lay = game.layout
        if movable(game):
            out.append(lay.offset("move-regulation"))  # EXP-02-05-02 (a)
        if removable(game):
            out.append(lay.offset("remove-regulation"))  # EXP-02-05-02 (b)

    def political_choice(self, game: Game, player: int, action: int) -> bool:
        lay = game.layout
        if action in (lay.offset("move-regulation"), lay.offset("remove-regulation")):
            mode = PICK_MOVE if action == lay.offset("move-regulation") else PICK_REMOVE
            begin_payment(game, player, "authority", state(game).aa, mode)
            return True
        return False

    def effect(self, game: Game, kind: str, cell: int, player: int, card: int, target: int) -> Effect | None:
        if kind == "authority":
            return Effect("authority", player, cell, FREE)  # EXP-02-05-03: no SEC; ContextTile AA (R25)
        if kind == "io-place":
            return Effect("io-place", player, cell, placement_cost(game, player))  # EXP-02-02-G-05
        if kind == "io-move":
            return Effect("io-move", player, cell, FREE)  # EXP-02-02-F-03
        return None

    def execute(self, game: Game, res: Resolution, effect: Effect) -> bool:
        kind = res.effect
        if kind == "authority":
            game._pop(res)
            game._before_pay(effect, res.paid, effects.surcharge_rule(game, effect))
            game.log("authority-apparatus", "EXP-02-05-02", player=res.owner, cell=res.tile,
                     option="move" if res.src == PICK_MOVE else "remove")  # fmt: skip
            i = _window(game, "EXP-02-M05", res.owner)
            if i >= 0:  # RULINGS R30/R31: the owner's first AA activation in the window; after it resolves
                active = game.active_effects.pop(i)
                game.log("effect-consumed", "EXP-02-08-M05-03", id=active.id, owner=active.owner)
                game.stack.append(CompetenceConflict(res.owner))
            game.stack.append(RegulationChoice(res.owner, res.src, "EXP-02-05-02"))
            return True
        if kind in IO_KINDS:
            game._pop(res)
            _pay_option(game, res, effect, "EXP-02-02-G-05" if kind == "io-place" else "EXP-02-02-G-04")
            if kind == "io-place":
                consume_discount(game, res.owner)
            game.stack.append(RegulationChoice(res.owner, PLACE if kind == "io-place" else PICK_MOVE, "EXP-02-02-G-04"))
            return True
        return False

    def after_production(self, game: Game, cell: int, players: list[int], share: int) -> None:
        """RULINGS R28 option ``cost_regulations_tax_production`` (docs/rulings.md BC-42): each recipient of a
        production on a tile with Control / Administration pays the surcharge (1 Resource of any resort each) or
        returns its share, in seat order."""
        if not game.config.cost_regulations_tax_production or share <= 0:
            return
        counts = state(game).on.get(cell)
        k = counts[CONTROL] + counts[ADMINISTRATION] if counts else 0
        if not k:
            return
        resort = game.catalogue[game.tile_at[cell]].resort
        for q in reversed(players):  # the first recipient decides first (top of the stack)
            game.stack.append(ProductionTax(q, cell, resort, share, k))

    def resolution_options(self, game: Game, res: Resolution) -> list[int] | None:
        if isinstance(res, RegulationPayment) and res.kind == "regulation-pay":
            return [game.layout.pay + r for r in effects.next_choices(res.options, res.paid)]
        return None

    def resolution_choice(self, game: Game, res: Resolution, action: int) -> bool:
        if isinstance(res, RegulationPayment) and res.kind == "regulation-pay":
            res.paid.append(action - game.layout.pay)
            game._advance_payment(res)
            return True
        return False

    def settlement_start(self, game: Game) -> None:
        """RULINGS R44: De-escalation and Loss of Control execute at the start of the Round Settlement, before
        production, in play order ("this round" cards have ended, R35)."""
        todo = [i for i, a in enumerate(game.active_effects) if a.id in ("EXP-02-M08", "EXP-02-M12")]
        if todo:
            game.stack.append(SettlementRegulations(len(todo)))


class SettlementRegulations(Frame):
    """RULINGS R44: the De-escalation and Loss of Control effects in force, one at a time in play order, at the
    start of the Round Settlement; resumes after a decision one of them asks for (Deployment Order's move, R31).
    ``left``: how many of them (the last ones of ``game.active_effects`` with those ids) are still to execute."""

    __slots__ = ("left",)
    name = "settlement-regulations"

    def __init__(self, left: int) -> None:
        self.owner = -1
        self.left = left

    def copy(self) -> Frame:
        return SettlementRegulations(self.left)

    def run(self, game: Game) -> None:
        stack = game.stack
        depth = len(stack)
        while self.left:
            pending = [a for a in game.active_effects if a.id in ("EXP-02-M08", "EXP-02-M12")]
            active = pending[len(pending) - self.left]
            self.left -= 1
            _settlement_effect(game, active)
            if len(stack) != depth:
                return
        stack.pop()

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": None, "procedure": self.name, "left": self.left}

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "left": self.left}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        n = sum(1 for a in game.active_effects if a.id in ("EXP-02-M08", "EXP-02-M12"))
        left = data.get("left")
        if isinstance(left, bool) or not isinstance(left, int) or not 0 <= left <= n:
            raise StateError(f"{where}.left must be an integer 0..{n}, got {left!r}")
        return SettlementRegulations(left)


register_frame(SettlementRegulations)


def _settlement_effect(game: Game, active: ActiveEffect) -> None:
    if active.id == "EXP-02-M08":
        cell = active.get("cell")
        v = state(game).on.get(cell)
        counts = v[:] if v else [0, 0, 0, 0]
        for t in range(4):
            for _ in range(counts[t]):
                detach(game, t, cell, active.owner, "EXP-02-08-M08-03")  # EXP-02-08-M08-03
        return
    p, cell, t = active.owner, active.get("cell"), active.get("type")
    sec = sec_of(game)
    if game.res[p * game.num_resorts + sec] >= PLACEMENT_SEC:  # EXP-02-08-M12-03: pay the placement cost then
        game._pay(p, [sec] * PLACEMENT_SEC, "EXP-02-04-A-01")
        attach(game, t, cell, p, "EXP-02-08-M12-03")
    else:  # EXP-02-04-A-04: placement fails
        game.log("regulation-not-placed", "EXP-02-04-A-04", player=p, cell=cell, type=TYPE_NAMES[t])


__all__ = ["Exp02", "Regulations", "RegulationChoice", "attachable", "movable", "removable"]
