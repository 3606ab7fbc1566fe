"""Board topology (CORE-01-00-07..11, CORE-01-00-T01..T05, RULINGS R1, R2).

Cells are integers ``y * size + x`` on a ``size`` x ``size`` grid for both topologies, so the
action layout and the observation planes do not depend on the topology. The hex topology uses
axial coordinates ``q = x - r0``, ``r = y - r0`` (``r0 = size // 2``) and keeps the cells within
``r0`` steps of the centre; the other grid cells are never on the table.

Nothing outside this module knows which topology is in use (CORE-01-00-T05).
"""

from __future__ import annotations

from functools import cache

Cell = int

_SQUARE_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))
# Axial hex directions (q, r).
_HEX_DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


class Topology:
    """Adjacency on a finite table. Immutable and shared between games."""

    __slots__ = ("name", "size", "num_cells", "centre", "on_table", "table_cells", "neighbors")

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size
        self.num_cells = size * size
        r0 = size // 2
        self.centre: Cell = r0 * size + r0
        on_table = [False] * self.num_cells
        for y in range(size):
            for x in range(size):
                if name == "square":
                    on = True
                else:
                    q, r = x - r0, y - r0
                    on = max(abs(q), abs(r), abs(q + r)) <= r0
                on_table[y * size + x] = on
        self.on_table: tuple[bool, ...] = tuple(on_table)
        self.table_cells: tuple[Cell, ...] = tuple(c for c in range(self.num_cells) if on_table[c])
        dirs = _SQUARE_DIRS if name == "square" else _HEX_DIRS
        neighbors: list[tuple[Cell, ...]] = []
        for c in range(self.num_cells):
            x, y = c % size, c // size
            out = []
            if on_table[c]:
                for dx, dy in dirs:
                    nx, ny = x + dx, y + dy
                    # CORE-01-00-T01: Adjacent() is defined on table cells only (RULINGS R2, R5).
                    if 0 <= nx < size and 0 <= ny < size and on_table[ny * size + nx]:
                        out.append(ny * size + nx)
            neighbors.append(tuple(sorted(out)))
        self.neighbors: tuple[tuple[Cell, ...], ...] = tuple(neighbors)

    def adjacent(self, a: Cell, b: Cell) -> bool:
        """CORE-01-00-T01/T02: deterministic adjacency."""
        return b in self.neighbors[a]

    def cell(self, x: int, y: int) -> Cell | None:
        """The cell at grid coordinates, or None when it is not on the table."""
        if 0 <= x < self.size and 0 <= y < self.size:
            c = y * self.size + x
            if self.on_table[c]:
                return c
        return None

    def label(self, cell: Cell) -> str:
        return f"{cell % self.size},{cell // self.size}"

    def parse(self, text: str) -> Cell:
        """Parse ``"x,y"`` written as :meth:`label` writes it (ASCII digits, no sign, padding or leading zero), so
        that one cell has one spelling: a state keyed by cells cannot hold ``"6,3"`` and ``"06,3"`` as two keys of
        one cell. Raises ValueError naming the problem."""
        parts = text.split(",")
        if len(parts) != 2:
            raise ValueError(f"a cell is written 'x,y', got {text!r}")
        try:
            x, y = int(parts[0]), int(parts[1])
        except ValueError:
            raise ValueError(f"a cell is written 'x,y' with integers, got {text!r}") from None
        c = self.cell(x, y)
        if c is None:
            raise ValueError(f"cell {text!r} is not on the {self.name} table of size {self.size}")
        if text != self.label(c):
            raise ValueError(f"cell {text!r} is written {self.label(c)!r} (ASCII digits, no sign, space or leading 0)")
        return c


@cache
def get_topology(name: str, size: int) -> Topology:
    return Topology(name, size)
