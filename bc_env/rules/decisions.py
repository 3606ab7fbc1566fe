"""Decisions as objects on a stack (DESIGN "Expansions as plug-ins, decisions as a stack").

``Game.stack`` holds :class:`Frame` objects. The top frame is either a **decision** (``kind`` is its name,
``owner`` the player who decides, :meth:`Frame.legal` its options, :meth:`Frame.choose` applies one) or a
**procedure** (``kind`` is ``None``): a resolution in progress that :meth:`Frame.run` advances until it is done
(it pops itself) or needs a decision (it pushes one and returns). The game's run loop
(``Game._run``) runs procedures until the top frame is a decision; ``Game.current_player`` is the owner of
that decision, which may be another player than the active one (RULINGS R23). When the stack is empty, the
turn is over and the core flow goes on (end of turn, Round Settlement, next turn).

So any resolution loop can pause for a decision by any player and resume after it: a frame keeps its own
progress (the Hotspots still to resolve, the settlement's next ResortTile, the Resources paid so far) and the
frames below it wait. Frames are copied by :meth:`Frame.copy` (stateless ones return themselves).

The decisions of the core game (docs/actions.md):

* ``place_tile`` (:class:`PlaceTile`): where the drawn tile goes (CORE-01-04-04..08, RULINGS R3);
* ``political`` (:class:`Political`): the turn's one Political Action (CORE-01-04-09, RULINGS R7);
* ``move_to`` (:class:`MoveTo`): the destination of a Move (CORE-01-04-12, RULINGS R10);
* ``pay`` / ``gain`` (:class:`Resolution`): the next Resource of a payment (RULINGS R18, docs/rulings.md BC-05)
  and the resort a ConvertResources takes (CORE-01-04-22, RULINGS R16).

Expansions add theirs (``target``: ``expansions/measure_system.py``; ``exchange``: ``expansions/exp01.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

from mypy_extensions import mypyc_attr

#: The decision kinds of the JSON state's ``phase`` (schema v1): the core game's, then those of the Measure
#: system and EXP-01 (``target``, ``exchange``). A later expansion's decisions are written with the stack.
PHASE_NAMES = ("place_tile", "political", "move_to", "pay", "gain", "over", "target", "exchange")

if TYPE_CHECKING:
    from .game import Game


@mypyc_attr(allow_interpreted_subclasses=True)  # expansions outside the compiled engine (tests/toy_expansion.py)
class Frame:
    """One entry of the decision stack: a decision (``kind`` set) or a procedure (``kind`` None)."""

    __slots__ = ("owner",)

    #: The frame's name in the JSON state's ``stack`` (state.py); frames that can be written register it
    #: (:func:`register_frame`).
    name: ClassVar[str] = ""

    #: The name of the decision this frame asks for now (``None``: a procedure the run loop advances).
    kind: str | None = None
    #: The player who decides (RULINGS R23); -1 for procedures.
    owner: int

    def legal(self, game: Game) -> list[int]:
        """The decision's options as sorted actions."""
        raise NotImplementedError(type(self).__name__)

    def choose(self, game: Game, action: int) -> None:
        """Apply the legal ``action`` (the game's run loop continues afterwards)."""
        raise NotImplementedError(type(self).__name__)

    def run(self, game: Game) -> None:
        """Advance a procedure: pop itself when done, or push a decision and return."""
        raise NotImplementedError(type(self).__name__)

    def copy(self) -> Frame:
        """An independent copy for ``Game.clone`` (immutable frames return themselves)."""
        return self

    def describe(self, game: Game) -> dict[str, Any]:
        """The public, read-only view of this frame (``Game.decision``)."""
        return {"kind": self.kind, "owner": self.owner}

    def to_json(self, game: Game) -> dict[str, Any]:
        """The frame in the JSON state's ``stack``: ``{"frame": name, ...fields}`` (plain JSON)."""
        raise NotImplementedError(f"{type(self).__name__} is not written to JSON")

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        """Read a frame written by :meth:`to_json`; raise StateError (naming ``where``) on bad data."""
        raise NotImplementedError(cls.__name__)


#: Frames that a JSON state's ``stack`` may hold, by name.
FRAME_TYPES: dict[str, type[Frame]] = {}


def register_frame(cls: type[Frame]) -> type[Frame]:
    """Class decorator: ``cls`` may appear in a JSON state's ``stack`` under ``cls.name``."""
    FRAME_TYPES[cls.name] = cls
    return cls


def _seat(game: Game, data: dict[str, Any], key: str, where: str) -> int:
    from .errors import StateError

    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < game.num_players:
        raise StateError(f"{where}.{key} must be a player 0..{game.num_players - 1}, got {v!r}")
    return v


def _index(data: dict[str, Any], key: str, where: str, hi: int) -> int:
    from .errors import StateError

    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= hi:
        raise StateError(f"{where}.{key} must be an integer 0..{hi}, got {v!r}")
    return v


class PlaceTile(Frame):
    """Phase 1: place the drawn tile (CORE-01-04-02, -04..08; RULINGS R3)."""

    __slots__ = ()
    kind: str | None = "place_tile"
    name = "place_tile"

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        return PLACE_TILE[_seat(game, data, "owner", where)]

    def __init__(self, owner: int) -> None:
        self.owner = owner

    def legal(self, game: Game) -> list[int]:
        # RULINGS R3: empty table cells adjacent to a Board tile (CORE-01-04-05, -08) where any placement cost can
        # be paid; the block starts at 0.
        return game._tile_cells(self.owner)

    def choose(self, game: Game, action: int) -> None:
        game.stack.pop()
        game._place_tile_choice(self.owner, action)  # then the Political Action


class Political(Frame):
    """Phase 2: exactly one Political Action (CORE-01-04-03, -09; RULINGS R7)."""

    __slots__ = ()
    kind: str | None = "political"
    name = "political"

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        return POLITICAL[_seat(game, data, "owner", where)]

    def __init__(self, owner: int) -> None:
        self.owner = owner

    def legal(self, game: Game) -> list[int]:
        return game._political_options(self.owner)

    def choose(self, game: Game, action: int) -> None:
        game.stack.pop()
        game._political_choice(self.owner, action)


#: The stateless turn decisions of each seat (RULINGS R6: at most 6 players), shared by every game: immutable,
#: so pushing one allocates nothing.
PLACE_TILE: Final[tuple[PlaceTile, ...]] = tuple(PlaceTile(p) for p in range(6))
POLITICAL: Final[tuple[Political, ...]] = tuple(Political(p) for p in range(6))


class MoveTo(Frame):
    """The destination of a Move (CORE-01-04-12, RULINGS R10, docs/rulings.md BC-13)."""

    __slots__ = ("src",)
    kind: str | None = "move_to"
    name = "move_to"

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner, "from": game.topo.label(self.src)}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        from .errors import StateError

        owner = _seat(game, data, "owner", where)
        text = data.get("from")
        try:
            src = game.topo.parse(text) if isinstance(text, str) else None
        except ValueError:
            src = None
        if src is None or game.infl[src * game.num_players + owner] <= 0:
            raise StateError(f"{where}.from must be a tile with an Influence of the owner, got {text!r}")
        return MoveTo(owner, src)

    def __init__(self, owner: int, src: int) -> None:
        self.owner = owner
        self.src = src

    def legal(self, game: Game) -> list[int]:
        return game._move_destinations(self.owner, self.src)

    def choose(self, game: Game, action: int) -> None:
        game.stack.pop()
        game._move_choice(self.owner, self.src, action)

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": self.kind, "owner": self.owner, "from": self.src}


class HotspotQueue(Frame):
    """The Hotspots one placement closed, resolved in order (CORE-01-06-02/03, RULINGS R5); resumes after
    any decision a resolution asks for."""

    __slots__ = ("cells", "next")
    name = "hotspots"

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "cells": [game.topo.label(c) for c in self.cells], "next": self.next}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        from .components import HOTSPOT
        from .errors import StateError

        raw = data.get("cells")
        if not isinstance(raw, list) or not raw or len(raw) > 7:
            raise StateError(f"{where}.cells must be a list of 1..7 Hotspot cells (one placement closes at most 7)")
        cells = []
        for i, text in enumerate(raw):
            try:
                c = game.topo.parse(text) if isinstance(text, str) else None
            except ValueError:
                c = None
            if c is None or game.kind_at[c] != HOTSPOT:
                raise StateError(
                    f"{where}.cells[{i}] must be a Hotspot on the Board (a resolved Hotspot before next, a waiting one "
                    f"after it), got {text!r}"
                )
            cells.append(c)
        nxt = _index(data, "next", where, len(cells))
        for i, c in enumerate(cells):
            # RULINGS R5: the ones before ``next`` have resolved; the others wait, fully surrounded.
            if game.resolved[c] != (i < nxt):
                state = "resolved" if i < nxt else "not resolved yet"
                raise StateError(f"{where}.cells[{i}] must be a Hotspot that has {state} (next = {nxt})")
        return HotspotQueue(cells, nxt)

    def __init__(self, cells: list[int], next_: int = 0) -> None:
        self.owner = -1
        self.cells = cells
        self.next = next_

    def run(self, game: Game) -> None:
        stack = game.stack
        depth = len(stack)
        while self.next < len(self.cells):
            cell = self.cells[self.next]
            self.next += 1
            game._resolve_hotspot(cell)
            if len(stack) != depth:  # a resolution pushed a decision: resume after it
                return
        stack.pop()

    def copy(self) -> Frame:
        return HotspotQueue(self.cells, self.next)

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": None, "procedure": "hotspots", "cells": self.cells[self.next :]}


class Settlement(Frame):
    """Round Settlement (CORE-01-07-02/03): start, Resort Production per ResortTile in ascending cell order
    (docs/rulings.md BC-01), end. Resumes after any decision a step asks for."""

    __slots__ = ("step", "next")
    name = "settlement"

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "step": self.step, "next": self.next}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        return Settlement(
            _index(data, "step", where, Settlement.END), _index(data, "next", where, len(game.resort_cells))
        )

    START: Final = 0
    PRODUCTION: Final = 1
    END: Final = 2

    def __init__(self, step: int = 0, next_: int = 0) -> None:
        self.owner = -1
        self.step = step
        self.next = next_

    def run(self, game: Game) -> None:
        stack = game.stack
        depth = len(stack)
        if self.step == Settlement.START:
            self.step = Settlement.PRODUCTION
            game._settlement_start()
            if len(stack) != depth:
                return
        if self.step == Settlement.PRODUCTION:
            if not game._production(self):  # paused for a decision
                return
            self.step = Settlement.END
        stack.pop()
        game._settlement_end()

    def copy(self) -> Frame:
        return Settlement(self.step, self.next)

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": None, "procedure": "settlement", "step": self.step, "next": self.next}


class AfterSettlement(Frame):
    """What follows a Round Settlement: the next round's first turn, or the end of the game (RULINGS R8)."""

    __slots__ = ("final",)
    name = "after-settlement"

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "final": self.final}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        from .errors import StateError

        if not isinstance(data.get("final"), bool):
            raise StateError(f"{where}.final must be true or false")
        return AfterSettlement(data["final"])

    def __init__(self, final: bool) -> None:
        self.owner = -1
        self.final = final

    def run(self, game: Game) -> None:
        game.stack.pop()
        if self.final:
            game._game_over()
        else:
            game._next_round()

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": None, "procedure": "after-settlement", "final": self.final}


@mypyc_attr(allow_interpreted_subclasses=True)  # EXP-02's RegulationPayment (expansions/exp02.py, not compiled)
class Resolution(Frame):
    """One Political Action's effect while it is being decided: the record of its resolution (ContextTile, card,
    target, payment options, the Resources paid so far, the gain ...) and the decision it waits for (``kind``:
    ``pay``, ``gain`` or an expansion's, e.g. ``exchange``). Nothing moves until the effect is executed at once
    (CORE-01-06-00-03, docs/rulings.md BC-05)."""

    __slots__ = (
        "kind", "effect", "tile", "src", "card", "target", "paid", "options", "gains", "gain",
        "exchanges", "supplemented", "exchange", "supplements", "supplement", "transfer",
    )  # fmt: skip
    #: The name of its payment decision: ``pay`` (schema v1), or an expansion's own (written with the stack).
    pay_kind: ClassVar[str] = "pay"

    def __init__(self, owner: int, effect: str, tile: int, src: int = -1, card: int = -1, target: int = -1) -> None:
        self.owner = owner
        self.kind: str | None = None
        #: The effect kind ("place", "move", "formalize", "convert", "take", "play").
        self.effect = effect
        #: ContextTile (-1: null), the source of a Move, the Measure card and targeted player (-1: none).
        self.tile = tile
        self.src = src
        self.card = card
        self.target = target
        #: Every complete payment still possible, and the Resources paid so far (ascending resorts).
        self.paid: list[int] = []
        self.options: list[tuple[int, ...]] = []
        #: ConvertResources: the resorts it may gain and the one chosen (-1: not yet).
        self.gains: list[int] = []
        self.gain = -1
        #: Expansion riders of a ConvertResources (EXP-01-05-03: the Investment Program exchange): the resorts
        #: offered, those needing Supplemental Budget's Resource (BC-30), the one chosen and who may pay it.
        self.exchanges: list[int] = []
        self.supplemented: list[int] = []
        self.exchange = -1
        self.supplements: list[int] | None = None
        self.supplement = -1
        #: A cost component another player paid for the actor (EXP-03-08-M13, RULINGS R52): (player, resort, slot
        #: index in the total cost), or None.
        self.transfer: tuple[int, int, int] | None = None

    def legal(self, game: Game) -> list[int]:
        return game._resolution_options(self)

    def choose(self, game: Game, action: int) -> None:
        game._resolution_choice(self, action)

    def copy(self) -> Frame:
        r = type(self)(self.owner, self.effect, self.tile, self.src, self.card, self.target)  # subclasses too
        r.kind = self.kind
        r.paid = self.paid[:]
        r.options = self.options  # never mutated in place
        r.gains = self.gains
        r.gain = self.gain
        r.exchanges = self.exchanges
        r.supplemented = self.supplemented
        r.exchange = self.exchange
        r.supplements = self.supplements
        r.supplement = self.supplement
        r.transfer = self.transfer
        return r

    def describe(self, game: Game) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "owner": self.owner, "effect": self.effect, "tile": self.tile,
                               "paid": list(self.paid)}  # fmt: skip
        if self.effect == "move":
            out["from"] = self.src
        if self.card >= 0:
            out["card"] = self.card
            out["target"] = self.target
        if self.gain >= 0:
            out["gain"] = self.gain
        if self.kind == "gain":
            out["gains"] = list(self.gains)
        if self.kind == "exchange":
            out["exchanges"] = list(self.exchanges)
            out["supplemented"] = list(self.supplemented)
        if self.exchange >= 0:
            out["exchange"] = self.exchange
        return out


__all__ = ["AfterSettlement", "Frame", "HotspotQueue", "MoveTo", "PLACE_TILE", "POLITICAL", "PlaceTile", "Political"]
__all__ += ["Resolution"]
__all__ += ["Settlement"]

# Registered by calls, not by the class decorator: mypyc compiles a decorated class as a plain Python class, which
# may not derive from the compiled Frame (a frame outside the compiled engine may use the decorator).
for _frame in (PlaceTile, Political, MoveTo, HotspotQueue, Settlement, AfterSettlement):
    register_frame(_frame)
