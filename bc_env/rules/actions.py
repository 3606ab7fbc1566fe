"""The action layout: every decision's options as integers in one fixed range per configuration.

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

Strings parse back to the same integer (``parse(to_string(a)) == a`` for every ``a`` in range, also for
grid cells off a hex table, which are never legal). Parsing is context-free; legality is the game's business.
"""

from __future__ import annotations

from .errors import IllegalActionError
from .topology import Topology

# Cell-indexed blocks, in layout order.
CELL_KINDS = ("place-tile", "place", "move-from", "move-to", "formalize", "convert")
PLACE_TILE, PLACE, MOVE_FROM, MOVE_TO, FORMALIZE, CONVERT = range(6)


class ActionLayout:
    """Offsets of the action blocks for one configuration. Immutable and shared."""

    __slots__ = (
        "topo", "resorts", "n", "pass_", "pay", "gain", "num_actions", "_by_name", "cards", "players",
        "take", "play", "target", "target_player", "exchange", "decline", "_card_index",
    )  # fmt: skip

    def __init__(self, topo: Topology, resorts: tuple[str, ...], cards: tuple[str, ...] = (), players: int = 0) -> None:
        self.topo = topo
        self.resorts = resorts
        n = self.n = topo.num_cells
        self.pass_ = 6 * n
        self.pay = 6 * n + 1
        self.gain = 6 * n + 1 + len(resorts)
        self.num_actions = 6 * n + 1 + 2 * len(resorts)
        self._by_name = {name: i for i, name in enumerate(CELL_KINDS)}
        # Measure blocks (only with an expansion; see the table above).
        self.cards = cards
        self.players = players if cards else 0
        self._card_index = {key: i for i, key in enumerate(cards)}
        c = len(cards)
        self.take = self.num_actions
        self.play = self.take + c
        self.target = self.play + c
        self.target_player = self.target + (n if c else 0)
        self.exchange = self.target_player + self.players
        self.decline = self.exchange + (len(resorts) if c else 0)
        if c:
            self.num_actions = self.decline + 1

    def cell_action(self, kind: int, cell: int) -> int:
        return kind * self.n + cell

    def to_string(self, action: int) -> str:
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(f"action {action} is out of range 0..{self.num_actions - 1}")
        if action < self.pass_:
            kind, cell = divmod(action, self.n)
            return f"{CELL_KINDS[kind]} {self.topo.label(cell)}"
        if action == self.pass_:
            return "pass"
        if action < self.gain:
            return f"pay {self.resorts[action - self.pay]}"
        if action < self.take:
            return f"gain {self.resorts[action - self.gain]}"
        if action < self.play:
            return f"take {self.cards[action - self.take]}"
        if action < self.target:
            return f"play {self.cards[action - self.play]}"
        if action < self.target_player:
            return f"target {self.topo.label(action - self.target)}"
        if action < self.exchange:
            return f"target-player P{action - self.target_player}"
        if action < self.decline:
            return f"exchange {self.resorts[action - self.exchange]}"
        return "decline"

    def parse(self, text: str) -> int:
        if not isinstance(text, str):
            raise IllegalActionError(f"an action string must be a str, got {type(text).__name__}")
        words = text.strip().split()
        if words == ["pass"]:
            return self.pass_
        if words == ["decline"] and self.cards:
            return self.decline
        if len(words) != 2:
            raise IllegalActionError(f"cannot parse action {text!r}: expected '<verb> <argument>' or 'pass'")
        verb, arg = words
        if verb in ("pay", "gain") or (verb == "exchange" and self.cards):
            if arg not in self.resorts:
                raise IllegalActionError(
                    f"cannot parse action {text!r}: resort must be one of {', '.join(self.resorts)}"
                )
            base = {"pay": self.pay, "gain": self.gain, "exchange": self.exchange}[verb]
            return base + self.resorts.index(arg)
        if self.cards and verb in ("take", "play"):
            k = self._card_index.get(arg)
            if k is None:
                raise IllegalActionError(f"cannot parse action {text!r}: card must be one of {', '.join(self.cards)}")
            return (self.take if verb == "take" else self.play) + k
        if self.cards and verb == "target-player":
            if not (arg.startswith("P") and arg[1:].isdigit() and int(arg[1:]) < self.players):
                raise IllegalActionError(f"cannot parse action {text!r}: player must be P0..P{self.players - 1}")
            return self.target_player + int(arg[1:])
        kind = self._by_name.get(verb)
        if kind is None and not (self.cards and verb == "target"):
            extra = ("take", "play", "target", "target-player", "exchange", "decline") if self.cards else ()
            verbs = ", ".join((*CELL_KINDS, "pay", "gain", "pass", *extra))
            raise IllegalActionError(f"cannot parse action {text!r}: unknown verb {verb!r}; verbs: {verbs}")
        parts = arg.split(",")
        size = self.topo.size
        try:
            x, y = (int(v) for v in parts)
        except ValueError:
            raise IllegalActionError(f"cannot parse action {text!r}: a cell is written 'x,y' with integers") from None
        if not (0 <= x < size and 0 <= y < size):
            raise IllegalActionError(f"cannot parse action {text!r}: cell {arg} is outside the {size}x{size} grid")
        # Grid cells off a hex table parse too (so every action round-trips); they are never legal.
        cell = y * size + x
        if kind is None:
            return self.target + cell
        return kind * self.n + cell
