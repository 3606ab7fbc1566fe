"""Text rendering of the board and the supplies, for debugging and the terminal.

Each Board cell shows the tile's two-letter code (``D3`` = DOM-W3, ``SC`` Start Committee, ``Co``
Committee, ``Gr`` Grassroots, ``Lo`` Lobbyist, ``Ho`` Hotspot, ``h*`` a resolved Hotspot) followed
by the controller's seat digit (``-`` nobody); ``..`` marks a legal placement cell for the drawn tile.

A hex table is drawn as hexes: every row starts half a cell (two characters) right of the row above, so a
cell sits between its two neighbours of the row above and its two of the row below (axial directions of
``topology.py``); the x labels of the header fit the top row. ``balance-control legend`` explains all codes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .components import HOTSPOT, START

if TYPE_CHECKING:
    from .game import Game


def render_text(g: Game) -> str:
    topo = g.topo
    size = topo.size
    cells = g.board + g.frontier
    xs = [c % size for c in cells]
    ys = [c // size for c in cells]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    frontier = set(g.frontier) if g.phase_name == "place_tile" else set()
    lines = []
    over = "game over" if g.is_terminal() else f"player {g.current_player} to decide ({g.phase_name})"
    lines.append(
        f"{g.config.name}  round {g.round}  turn {g.turns_in_round + 1}/{g.num_players}  {over}  "
        f"draw pile {len(g.draw_pile)}  discard {len(g.discard)}"
    )
    if g.drawn >= 0:
        lines.append(f"drawn tile: {g.catalogue[g.drawn].name}")
    hexes = topo.name == "hex"
    if hexes:
        lines.append("hex table: each row is drawn half a cell right of the row above; x labels fit the top row")
    lines.append("     " + "".join(f"{x:>4}" for x in range(x0, x1 + 1)))
    for y in range(y0, y1 + 1):
        # Hex: cell (x, y) is drawn at 4x + 2y characters, which puts (x+1, y-1) and (x, y-1) above it to the
        # right and left, and (x-1, y+1) and (x, y+1) below it, as the axial directions say.
        row = [f"{y:>4} " + (" " * (2 * (y - y0)) if hexes else "")]
        for x in range(x0, x1 + 1):
            c = y * size + x
            spec = g.tile_spec(c)
            if spec is None:
                row.append("  .." if c in frontier else "    ")
                continue
            code = spec.code
            if spec.kind == HOTSPOT and g.resolved[c]:
                code = "h*"
            ctrl = g.controller(c)
            owner = "" if spec.kind == START else ("-" if ctrl < 0 else str(ctrl))
            row.append(f"{code + owner:>4}")
        lines.append("".join(row))
    lines.append("influence on tiles (per seat):")
    for c in g.nonstart:
        vals = g.influence_on(c)
        if any(vals):
            spec = g.tile_spec(c)
            assert spec is not None
            lines.append(f"  {topo.label(c):>6} {spec.name:<16} {vals}")
    resorts = g.config.resorts
    for p in range(g.num_players):
        res = " ".join(f"{r}:{v}" for r, v in zip(resorts, g.resources_of(p)))
        mark = "*" if p == g.current_player else " "
        sc = " start-committee-used" if g.start_used[p] else ""
        lines.append(f"{mark}P{p}: influence supply {g.supply[p]} board {g.on_board[p]} (cap {g.cap})  {res}{sc}")
    for ex in g.expansions:
        lines.extend(ex.render_lines(g))  # e.g. the Measure zones and hands
    for a in g.active_effects:
        lines.append(f"  effect {a.id} (owner P{a.owner}, until {a.until}) {dict(a.data) if a.data else ''}")
    if g.is_terminal():
        lines.append(f"winners: {', '.join(f'P{p}' for p in g.winners())}  returns: {g.returns()}")
    return "\n".join(lines)
