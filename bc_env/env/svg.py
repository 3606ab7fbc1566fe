"""The board as SVG text, for web pages and documents (the picture renderer ``render.py`` draws pixels).

It shows what the text renderer (``bc_env/rules/render.py``) shows, with the colours of the picture renderer:

* the tiles on the Board (the part of the table in use, plus one ring), filled by type (ResortTiles in their
  resort's colour with one pip per point of printed value, the Start Committee gold, Committees purple,
  Grassroots brown, Lobbyists grey, Hotspots red, a resolved Hotspot dark red with an X, EXP-01's special
  tiles pink and teal), each with its two-letter code and, as a tooltip, its name and Influence;
* Influence: one dot per Influence object in the seat's colour, one row per seat (a number beside the dot
  when a seat has more than four on a tile); the controller of a tile as an outline in its colour;
* during a tile placement the legal cells as dashed outlines;
* effects in force (Measures): a square in the owner's colour on the targeted tile and a line in the panel;
* the panel on the right: round, decision, draw pile and discard, the tile in hand, and per seat the supply,
  Influence on the Board (with the cap), Resources, Start Committee use and Measure hand; with an expansion
  the open Measures.

Every tile and every legal placement cell is a ``<g>`` with ``data-cell="x,y"`` (the cell of the action strings,
docs/actions.md), so a page can turn a click into an action. The output depends only on the game state.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from bc_env.rules import Game
from bc_env.rules.components import HOTSPOT, RESORT, START
from bc_env.rules.expansions.measure_system import zones

from .render import (
    KIND_COLOURS,
    PLAYER_COLOURS,
    RESOLVED_HOTSPOT,
    SPECIAL_COLOURS,
    resort_colour,
)

CELL = 44
PANEL_W = 300
LINE_H = 17
FONT = "font-family:DejaVu Sans,Arial,sans-serif"


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _tile_fill(spec) -> str:  # type: ignore[no-untyped-def]
    if spec.kind == RESORT:
        base = resort_colour(spec)
        scale = 0.55 + 0.11 * spec.value
        return _hex(tuple(min(255, int(v * scale)) for v in base))  # type: ignore[arg-type]
    if spec.special:
        return _hex(SPECIAL_COLOURS.get(spec.special, KIND_COLOURS[spec.kind]))
    return _hex(KIND_COLOURS[spec.kind])


class _Layout:
    """Cell centres and outlines for the square or hex table, cropped to the cells in use plus one ring."""

    def __init__(self, game: Game) -> None:
        topo = game.topo
        self.size = size = topo.size
        self.hex = topo.name == "hex"
        used = game.board + game.frontier
        xs = [c % size for c in used]
        ys = [c // size for c in used]
        self.x0, self.x1 = max(min(xs) - 1, 0), min(max(xs) + 1, size - 1)
        self.y0, self.y1 = max(min(ys) - 1, 0), min(max(ys) + 1, size - 1)
        self.cells = [
            y * size + x
            for y in range(self.y0, self.y1 + 1)
            for x in range(self.x0, self.x1 + 1)
            if topo.on_table[y * size + x]
        ]
        centres = {c: self._raw_centre(c) for c in self.cells}
        pad = CELL * 0.6
        minx = min(p[0] for p in centres.values()) - pad
        miny = min(p[1] for p in centres.values()) - pad
        self.centres = {c: (x - minx + 8, y - miny + 8 + 24) for c, (x, y) in centres.items()}
        self.width = max(p[0] for p in self.centres.values()) + pad + 8
        self.height = max(p[1] for p in self.centres.values()) + pad + 8

    def _raw_centre(self, c: int) -> tuple[float, float]:
        x, y = c % self.size, c // self.size
        if not self.hex:
            return x * CELL, y * CELL
        r0 = self.size // 2
        s = CELL / math.sqrt(3.0)
        q, r = x - r0, y - r0
        return s * math.sqrt(3.0) * (q + r / 2.0), 1.5 * s * r

    def outline(self, c: int, inset: float = 1.5) -> str:
        cx, cy = self.centres[c]
        if not self.hex:
            h = CELL / 2 - inset
            pts = [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]
        else:
            s = CELL / math.sqrt(3.0) - inset
            pts = [(cx + s * math.cos(math.radians(60 * k - 30)), cy + s * math.sin(math.radians(60 * k - 30)))
                   for k in range(6)]  # fmt: skip
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)


def render_svg(game: Game) -> str:
    """The board and the supplies of ``game`` as a standalone SVG document (a string)."""
    lay = _Layout(game)
    topo = game.topo
    state = game.to_dict()
    effects = state.get("active_effects", [])
    placing = game.phase_name == "place_tile" and not game.is_terminal()
    frontier = set(game.frontier) if placing else set()
    out: list[str] = []
    board_w = lay.width
    panel_lines = _panel(game, effects)
    height = max(lay.height, 24 + LINE_H * (len(panel_lines) + 1))
    width = board_w + PANEL_W
    out.append(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bc-board" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" style="{FONT}">'
    )
    out.append(f'<rect width="{width:.0f}" height="{height:.0f}" fill="#18181e"/>')
    over = "game over" if game.is_terminal() else f"P{game.current_player} to decide: {game.phase_name}"
    out.append(
        f'<text x="8" y="18" font-size="13" fill="#e8e8f0">{escape(game.config.name)} · round {game.round} · '
        f"{escape(over)}</text>"
    )
    on_board = set(game.board)
    for c in lay.cells:
        if c in on_board or c in frontier:
            continue
        out.append(f'<polygon points="{lay.outline(c)}" fill="#26262e"/>')
    for c in lay.cells:
        if c in frontier:
            label = topo.label(c)
            out.append(
                f'<g class="cell frontier" data-cell={quoteattr(label)}>'
                f"<title>place the tile on {escape(label)}</title>"
                f'<polygon points="{lay.outline(c)}" fill="#60607a" stroke="#e8e8f0" stroke-width="1.5" '
                f'stroke-dasharray="4 3"/></g>'
            )
    for c in game.board:
        out.append(_tile(game, lay, c, effects))
    x = board_w + 8
    for i, (text, colour) in enumerate(panel_lines):
        out.append(
            f'<text x="{x:.0f}" y="{24 + LINE_H * (i + 1)}" font-size="12" fill="{colour}">{escape(text)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def _tile(game: Game, lay: _Layout, c: int, effects: list[dict]) -> str:  # type: ignore[type-arg]
    spec = game.tile_spec(c)
    assert spec is not None
    P = game.num_players
    cx, cy = lay.centres[c]
    label = game.topo.label(c)
    resolved = spec.kind == HOTSPOT and bool(game.resolved[c])
    fill = _hex(RESOLVED_HOTSPOT) if resolved else _tile_fill(spec)
    ctrl = game.controller(c)
    vals = game.influence_on(c)
    code = "h*" if resolved else spec.code
    tip = f"{spec.name} on {label}"
    if spec.kind != START:
        tip += f"; Influence {vals}; controller {'P' + str(ctrl) if ctrl >= 0 else 'none'}"
    parts = [
        f'<g class="cell tile" data-cell={quoteattr(label)} data-tile={quoteattr(spec.name)}>'
        f"<title>{escape(tip)}</title>",
        f'<polygon points="{lay.outline(c)}" fill="{fill}"/>',
    ]
    if ctrl >= 0 and spec.kind != START:
        parts.append(
            f'<polygon points="{lay.outline(c, 3.0)}" fill="none" stroke="{_hex(PLAYER_COLOURS[ctrl % 6])}" '
            'stroke-width="3"/>'
        )
    parts.append(
        f'<text x="{cx - CELL * 0.36:.1f}" y="{cy - CELL * 0.14:.1f}" font-size="10" fill="#101014">'
        f"{escape(code)}</text>"
    )
    if spec.kind == RESORT:
        for k in range(spec.value):
            parts.append(
                f'<circle cx="{cx + CELL * 0.06 + k * 5:.1f}" cy="{cy - CELL * 0.3:.1f}" r="1.8" fill="#fff"/>'
            )
    if resolved:
        h = CELL * 0.22
        parts.append(
            f'<path d="M{cx - h:.1f},{cy - h:.1f}L{cx + h:.1f},{cy + h:.1f}M{cx + h:.1f},{cy - h:.1f}'
            f'L{cx - h:.1f},{cy + h:.1f}" stroke="#000" stroke-width="2"/>'
        )
    regs = game.ext.get("EXP-02")
    counts = regs.on.get(c) if regs is not None else None  # type: ignore[attr-defined]
    if counts:  # EXP-02 Regulations on the tile: S(ecurityLevel) C(ontrol) A(dministration) B(lockade) counts
        text = " ".join(f"{k}{n}" for k, n in zip("SCAB", counts) if n)
        names = ", ".join(f"{name} x{n}" for name, n in zip(REGULATION_NAMES, counts) if n)
        parts.append(
            f'<text class="regulations" x="{cx + CELL * 0.02:.1f}" y="{cy - CELL * 0.14:.1f}" font-size="9" '
            f'font-weight="bold" fill="#5a0000"><title>{escape(names)}</title>{escape(text)}</text>'
        )
    for e in effects:
        if e.get("data", {}).get("cell") == c:
            colour = _hex(PLAYER_COLOURS[int(e.get("owner", 0)) % 6])
            parts.append(
                f'<rect class="effect" x="{cx - CELL * 0.4:.1f}" y="{cy + CELL * 0.14:.1f}" width="8" height="8" '
                f'fill="{colour}" stroke="#000"><title>{escape(str(e.get("id")))}</title></rect>'
            )
    row_h = min(7.0, CELL * 0.5 / max(P, 1))
    y = cy - CELL * 0.02
    for p, count in enumerate(vals):
        if not count:
            continue
        colour = _hex(PLAYER_COLOURS[p % 6])
        yy = y + p * row_h
        shown = count if count <= 4 else 1
        for k in range(shown):
            parts.append(
                f'<circle class="influence" data-seat="{p}" cx="{cx - CELL * 0.3 + k * 7.5:.1f}" cy="{yy:.1f}" r="3.3" '
                f'fill="{colour}" stroke="#000" stroke-width="0.6"/>'
            )
        if count > 4:
            parts.append(f'<text x="{cx - CELL * 0.18:.1f}" y="{yy + 3:.1f}" font-size="8" fill="#000">×{count}</text>')
    parts.append("</g>")
    return "".join(parts)


REGULATION_NAMES = ("SecurityLevel", "Control", "Administration", "Blockade")


def _panel(game: Game, effects: list[dict]) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    """The panel's lines as (text, colour)."""
    grey, white = "#b8b8c8", "#e8e8f0"
    lines: list[tuple[str, str]] = []
    lines.append((f"turn {game.turns_in_round + 1}/{game.num_players} of round {game.round}", white))
    lines.append((f"draw pile {len(game.draw_pile)} · discard {len(game.discard)}", grey))
    if game.drawn >= 0 and not game.is_terminal():
        lines.append((f"tile in hand: {game.catalogue[game.drawn].name}", white))
    lines.append(("", grey))
    resorts = game.config.resorts
    for p in range(game.num_players):
        colour = _hex(PLAYER_COLOURS[p % 6])
        mark = "▶ " if p == game.current_player else "   "
        lines.append((f"{mark}P{p}: supply {game.supply[p]} · on board {game.on_board[p]}/{game.cap}", colour))
        res = "  ".join(f"{r} {v}" for r, v in zip(resorts, game.resources_of(p)))
        extra = " · start committee used" if game.start_used[p] else ""
        lines.append((f"     {res}{extra}", grey))
        if game.measures and zones(game).hands[p]:
            keys = [m.key for m in game.measures]
            lines.append((f"     hand: {', '.join(keys[k] for k in zones(game).hands[p])}", grey))
    if game.measures:
        keys = [m.key for m in game.measures]
        for d, deck in enumerate(game.decks):
            lines.append((f"open {deck}: {', '.join(keys[k] for k in zones(game).open[d]) or '-'}", grey))
    regs = game.ext.get("EXP-02")
    if regs is not None:
        lines.append((f"regulations attached: {regs.count()}", grey))  # type: ignore[attr-defined]
    if effects:
        lines.append(("effects in force:", white))
        for e in effects:
            lines.append((f"  {e.get('id')} (P{e.get('owner')}, until {e.get('until')})", grey))
    if game.is_terminal():
        lines.append(("", grey))
        lines.append((f"winners: {', '.join(f'P{p}' for p in game.winners())}", white))
    return lines
