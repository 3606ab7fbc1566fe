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

    cell c = y * table_size + x        (the same numbering for the square and the hex table)

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

    __slots__ = ("topo", "resorts", "n", "pass_", "pay", "gain", "num_actions", "_by_name")

    def __init__(self, topo: Topology, resorts: tuple[str, ...]) -> None:
        self.topo = topo
        self.resorts = resorts
        n = self.n = topo.num_cells
        self.pass_ = 6 * n
        self.pay = 6 * n + 1
        self.gain = 6 * n + 1 + len(resorts)
        self.num_actions = 6 * n + 1 + 2 * len(resorts)
        self._by_name = {name: i for i, name in enumerate(CELL_KINDS)}

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
        return f"gain {self.resorts[action - self.gain]}"

    def parse(self, text: str) -> int:
        if not isinstance(text, str):
            raise IllegalActionError(f"an action string must be a str, got {type(text).__name__}")
        words = text.strip().split()
        if words == ["pass"]:
            return self.pass_
        if len(words) != 2:
            raise IllegalActionError(f"cannot parse action {text!r}: expected '<verb> <argument>' or 'pass'")
        verb, arg = words
        if verb in ("pay", "gain"):
            if arg not in self.resorts:
                raise IllegalActionError(
                    f"cannot parse action {text!r}: resort must be one of {', '.join(self.resorts)}"
                )
            base = self.pay if verb == "pay" else self.gain
            return base + self.resorts.index(arg)
        kind = self._by_name.get(verb)
        if kind is None:
            verbs = ", ".join((*CELL_KINDS, "pay", "gain", "pass"))
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
        return kind * self.n + y * size + x
