"""The action layout: every decision's options as integers in one fixed range per configuration.

The layout is built from a table of **blocks** (name, size, argument kind): the core blocks, then the blocks
each active expansion declares (``Expansion.action_blocks``), then ``decline`` when any expansion is active.
With ``N = table_size ** 2`` cells and ``R`` active resorts (3 in the core game)::

    offset            size   action            string              decision
    ----------------  -----  ----------------  ------------------  ---------------------------
    0                 N      place-tile c      "place-tile x,y"    place_tile
    N                 N      place c           "place x,y"         political (Place Influence)
    2N                N      move-from c       "move-from x,y"     political (Move Influence)
    3N                N      move-to c         "move-to x,y"       move_to
    4N                N      formalize c       "formalize x,y"     political (FormalizeInfluence)
    5N                N      convert c         "convert x,y"       political (ConvertResources)
    6N                1      pass              "pass"              political (RULINGS R7)
    6N+1              R      pay r             "pay DOM"           pay
    6N+1+R            R      gain r            "gain FOR"          gain

With Measures (any expansion active; RULINGS R20, R21) these blocks follow, for ``C`` Measure
cards over all active decks and ``P`` players (A = 6N+1+2R)::

    A                 C      take k            "take EXP-01-M03"   political (TakeMeasure, EXP-01-06-02)
    A+C               C      play k            "play EXP-01-M03"   political (PlayMeasure, EXP-01-06-07)
    A+2C              N      target c          "target x,y"        target (a Measure's target tile)
    A+2C+N            P      target-player p   "target-player P2"  target (a Measure's target player)
    A+2C+N+P          R      exchange r        "exchange DOM"      exchange (Investment Program, EXP-01-05-03)
    A+2C+N+P+R        1      decline           "decline"           exchange (skip the optional exchange)

    cell c = y * table_size + x        (the same numbering for the square and the hex table)

Without an expansion the layout ends after ``gain`` (the core layout is unchanged).

Strings are canonical: ``parse(to_string(a)) == a`` for every ``a`` in range (also for grid cells off a hex
table, which are never legal), and ``parse`` accepts exactly the strings ``to_string`` writes (one ASCII
space, ASCII digits without sign or leading zeros). Parsing is context-free; legality is the game's business.
:meth:`ActionLayout.decode` names an action's block and argument.
"""

from __future__ import annotations

import operator
import re
from bisect import bisect_right
from typing import Final, NamedTuple, SupportsIndex

from .errors import IllegalActionError
from .topology import Topology

# Cell-indexed blocks, in layout order.
CELL_KINDS = ("place-tile", "place", "move-from", "move-to", "formalize", "convert")
# (Final: the compiled engine inlines them.)
PLACE_TILE: Final = 0
PLACE: Final = 1
MOVE_FROM: Final = 2
MOVE_TO: Final = 3
FORMALIZE: Final = 4
CONVERT: Final = 5

#: Argument kinds of a block.
CELL, RESORT, CARD, PLAYER, NONE = "cell", "resort", "card", "player", "none"

_NUMBER = re.compile(r"0|[1-9][0-9]*")


class Block(NamedTuple):
    """One block of the layout: ``size`` actions named ``name`` with an argument of kind ``arg``."""

    name: str
    arg: str


class Decoded(NamedTuple):
    """An action's block and argument (-1 where the block has none of that kind)."""

    verb: str
    cell: int = -1
    resort: int = -1
    card: int = -1
    player: int = -1


#: The core blocks, in layout order (the core layout never changes: the shipped bots depend on it).
CORE_BLOCKS = (*(Block(name, CELL) for name in CELL_KINDS), Block("pass", NONE), Block("pay", RESORT),
               Block("gain", RESORT))  # fmt: skip
#: The last block whenever an expansion is active (an optional decision's "no").
DECLINE = Block("decline", NONE)
#: The Measure system's blocks (TakeMeasure, PlayMeasure and a Measure's target; RULINGS R20, R21).
MEASURE_BLOCKS = (Block("take", CARD), Block("play", CARD), Block("target", CELL), Block("target-player", PLAYER))


def _to_int(text: str) -> int | None:
    return int(text) if _NUMBER.fullmatch(text) else None


class ActionLayout:
    """Offsets of the action blocks for one configuration. Immutable and shared."""

    __slots__ = (
        "topo", "resorts", "n", "pass_", "pay", "gain", "num_actions", "cards", "players", "take", "play",
        "target", "target_player", "exchange", "decline", "blocks", "_offset", "_starts", "_first", "_by_verb",
        "_card_index",
    )  # fmt: skip

    def __init__(
        self, topo: Topology, resorts: tuple[str, ...], cards: tuple[str, ...] = (), players: int = 0,
        extra: tuple[Block, ...] = (),
    ) -> None:  # fmt: skip
        """``extra``: the blocks the active expansions declare (``Expansion.action_blocks``), in order; ``cards``
        and ``players`` size their card and player blocks."""
        self.topo = topo
        self.resorts = resorts
        self.n = topo.num_cells
        self.cards = cards
        self.players = players if cards else 0
        self._card_index = {key: i for i, key in enumerate(cards)}
        # The core blocks, the expansions' blocks in the order of their hooks (the Measure system's first,
        # RULINGS R20, R21), then ``decline`` whenever an expansion adds any.
        blocks = [*CORE_BLOCKS, *extra]
        if extra:
            blocks.append(DECLINE)
        self.blocks: tuple[Block, ...] = tuple(blocks)
        offset: dict[str, int] = {}
        starts: list[tuple[int, Block]] = []
        at = 0
        for block in blocks:
            offset[block.name] = at
            starts.append((at, block))
            at += self.block_size(block)
        self.num_actions = at
        self._offset = offset
        self._starts = tuple(starts)
        self._first = [start for start, _ in starts]
        self._by_verb = {block.name: block for block in blocks}
        self.pass_ = offset["pass"]
        self.pay = offset["pay"]
        self.gain = offset["gain"]
        # Offsets of the expansion blocks; a block that is absent starts where the layout ends.
        self.take = offset.get("take", at)
        self.play = offset.get("play", at)
        self.target = offset.get("target", at)
        self.target_player = offset.get("target-player", at)
        self.exchange = offset.get("exchange", at)
        self.decline = offset.get("decline", at)

    def block_size(self, block: Block) -> int:
        return {CELL: self.n, RESORT: len(self.resorts), CARD: len(self.cards), PLAYER: self.players, NONE: 1}[
            block.arg
        ]

    def offset(self, name: str) -> int:
        """The first action of block ``name``."""
        return self._offset[name]

    def _locate(self, action: SupportsIndex) -> tuple[Block, int]:  # a protocol: compiled, True stays a bool
        if isinstance(action, bool):
            raise IllegalActionError(f"an action must be an integer, got {action!r}")
        try:
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"an action must be an integer, got {action!r}") from None
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(f"action {a} is out of range 0..{self.num_actions - 1}")
        start, block = self._starts[bisect_right(self._first, a) - 1]
        return block, a - start

    def decode(self, action: SupportsIndex) -> Decoded:
        """The block and argument of ``action`` (``decode(a).verb`` is the verb of its string)."""
        block, i = self._locate(action)
        if block.arg == CELL:
            return Decoded(block.name, cell=i)
        if block.arg == RESORT:
            return Decoded(block.name, resort=i)
        if block.arg == CARD:
            return Decoded(block.name, card=i)
        if block.arg == PLAYER:
            return Decoded(block.name, player=i)
        return Decoded(block.name)

    def to_string(self, action: SupportsIndex) -> str:
        block, i = self._locate(action)
        if block.arg == CELL:
            return f"{block.name} {self.topo.label(i)}"
        if block.arg == RESORT:
            return f"{block.name} {self.resorts[i]}"
        if block.arg == CARD:
            return f"{block.name} {self.cards[i]}"
        if block.arg == PLAYER:
            return f"{block.name} P{i}"
        return block.name

    def parse(self, text: object) -> int:  # object: checked below (compiled, a str annotation would raise first)
        if not isinstance(text, str):
            raise IllegalActionError(f"an action string must be a str, got {type(text).__name__}")
        words = text.split(" ")
        block = self._by_verb.get(words[0])
        if block is not None and block.arg == NONE:
            if len(words) != 1:
                raise IllegalActionError(
                    f"cannot parse action {text!r}: unknown verb {words[0]!r} with an argument ({words[0]!r} has none)"
                )
            return self._offset[block.name]
        if len(words) != 2 or not words[0] or not words[1]:
            if words[0] in ("pass", "decline") and len(words) == 1:  # a verb of another configuration
                raise IllegalActionError(f"cannot parse action {text!r}: unknown verb {text!r}")
            raise IllegalActionError(
                f"cannot parse action {text!r}: expected '<verb> <argument>' or 'pass' (one space, no padding)"
            )
        verb, arg = words
        if block is None:
            verbs = ", ".join(b.name for b in self.blocks)
            raise IllegalActionError(f"cannot parse action {text!r}: unknown verb {verb!r}; verbs: {verbs}")
        base = self._offset[verb]
        if block.arg == RESORT:
            if arg not in self.resorts:
                raise IllegalActionError(
                    f"cannot parse action {text!r}: resort must be one of {', '.join(self.resorts)}"
                )
            return base + self.resorts.index(arg)
        if block.arg == CARD:
            k = self._card_index.get(arg)
            if k is None:
                raise IllegalActionError(f"cannot parse action {text!r}: card must be one of {', '.join(self.cards)}")
            return base + k
        if block.arg == PLAYER:
            q = _to_int(arg[1:]) if arg.startswith("P") else None
            if q is None or q >= self.players:
                raise IllegalActionError(f"cannot parse action {text!r}: player must be P0..P{self.players - 1}")
            return base + q
        parts = arg.split(",")
        size = self.topo.size
        x = _to_int(parts[0]) if len(parts) == 2 else None
        y = _to_int(parts[1]) if len(parts) == 2 else None
        if x is None or y is None:
            raise IllegalActionError(
                f"cannot parse action {text!r}: a cell is written 'x,y' with non-negative integers in ASCII digits"
            )
        if not (x < size and y < size):
            raise IllegalActionError(f"cannot parse action {text!r}: cell {arg} is outside the {size}x{size} grid")
        # Grid cells off a hex table parse too (so every action round-trips); they are never legal.
        return base + y * size + x
