"""The board as SVG text, for web pages and documents (the picture renderer ``render.py`` draws pixels).

:func:`board_svg` draws the board alone (the browser page scales it to the window and shows the rest in HTML);
:func:`render_svg` adds a title line and a text panel beside it (a standalone picture: the protocol's ``render``
with ``format: "svg"``). Both show what the text renderer (``bc_env/rules/render.py``) shows, with the colours of
the picture renderer:

* the tiles on the Board (the part of the table in use: the tiles and the cells beside them), filled by type
  (ResortTiles in their resort's colour, brighter for a higher printed value, the Start Committee gold,
  Committees purple, Grassroots brown, Lobbyists grey, Hotspots red, a resolved Hotspot dark red with a faint X,
  the expansions' special tiles in their own colours), each with its code (``D3``: DOM, printed value 3) in
  black or white, whichever reads better on the tile's colour, and, as a tooltip, its name, Influence and
  controller;
* Influence: one badge per seat with Influence on the tile, in the seat's colour, with the count in it; the
  controller of a tile as a thick outline in its colour;
* EXP-02 Regulations as a dark red label under the code (``C2 B1``: two Control, one Blockade; the tooltip
  names them); EXP-03 CountdownMarkers as an amber hourglass with their number on the Transformationsdruck, and a
  leaf on each Climate (CLM) ResortTile;
* during a tile placement the legal cells as dashed outlines;
* effects in force (Measures) on a tile: a small card in the owner's colour at the tile's top right, its
  tooltip the card.

Every tile and every legal placement cell is a ``<g class="cell ...">`` with ``data-cell="x,y"`` (the cell of the
action strings, docs/actions.md), so a page can turn a click into an action; its last child is an invisible
outline (``class="hl"``) that a page's stylesheet can light up (legal cells, the last move). The output depends
only on the game state and has no ``style`` attributes (a page's Content-Security-Policy may forbid them).
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from bc_env.rules import Game
from bc_env.rules.components import HOTSPOT, RESORT, START, TRANSFORMATIONSDRUCK
from bc_env.rules.expansions.measure_system import zones

from .render import (
    KIND_COLOURS,
    PLAYER_COLOURS,
    RESOLVED_HOTSPOT,
    SPECIAL_COLOURS,
    resort_colour,
)

CELL = 60
PANEL_W = 330
LINE_H = 17
TITLE_H = 24
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
REGULATION_NAMES = ("SecurityLevel", "Control", "Administration", "Blockade")


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG relative luminance."""
    lin = [(v / 255) / 12.92 if v <= 10 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def text_colour(rgb: tuple[int, int, int]) -> str:
    """Black or white, whichever has the higher contrast on ``rgb`` (WCAG contrast ratio)."""
    lum = _luminance(rgb)
    return "#111111" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#ffffff"


def _tile_rgb(spec) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    if spec.kind == RESORT:
        base = resort_colour(spec)
        scale = 0.55 + 0.11 * spec.value
        return tuple(min(255, int(v * scale)) for v in base)  # type: ignore[return-value]
    if spec.special:
        return SPECIAL_COLOURS.get(spec.special, KIND_COLOURS[spec.kind])
    return KIND_COLOURS[spec.kind]


def tile_fill(spec) -> str:  # type: ignore[no-untyped-def]
    return _hex(_tile_rgb(spec))


class _Layout:
    """Cell centres and outlines for the square or hex table, cropped to the tiles and the cells beside them."""

    def __init__(self, game: Game, top: float = 0.0) -> None:
        topo = game.topo
        self.size = size = topo.size
        self.hex = topo.name == "hex"
        used = game.board + game.frontier
        xs = [c % size for c in used]
        ys = [c // size for c in used]
        self.x0, self.x1 = min(xs), max(xs)
        self.y0, self.y1 = min(ys), max(ys)
        self.cells = [
            y * size + x
            for y in range(self.y0, self.y1 + 1)
            for x in range(self.x0, self.x1 + 1)
            if topo.on_table[y * size + x]
        ]
        if self.hex:  # the rows and columns of axial cells make a slanted band: keep what lies over the used cells
            lo = min(self._raw_centre(c)[0] for c in used) - 1
            hi = max(self._raw_centre(c)[0] for c in used) + 1
            self.cells = [c for c in self.cells if lo <= self._raw_centre(c)[0] <= hi]
        centres = {c: self._raw_centre(c) for c in self.cells}
        pad = CELL * 0.55
        minx = min(p[0] for p in centres.values()) - pad
        miny = min(p[1] for p in centres.values()) - pad
        self.centres = {c: (x - minx + 4, y - miny + 4 + top) for c, (x, y) in centres.items()}
        self.width = max(p[0] for p in self.centres.values()) + pad + 4
        self.height = max(p[1] for p in self.centres.values()) + pad + 4

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


def board_svg(game: Game) -> str:
    """The board of ``game`` alone as a standalone SVG document (a string), with a ``viewBox`` to scale it."""
    lay = _Layout(game)
    w, h = lay.width, lay.height
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bc-board" width="{w:.0f}" height="{h:.0f}" '
        f'viewBox="0 0 {w:.0f} {h:.0f}" {FONT}>'
    )
    return "\n".join([head, f'<rect class="bg" width="{w:.0f}" height="{h:.0f}" fill="#18181e"/>', *_board(game, lay),
                      "</svg>"])  # fmt: skip


def render_svg(game: Game) -> str:
    """The board and the supplies of ``game`` as a standalone SVG document (a string)."""
    lay = _Layout(game, TITLE_H)
    state = game.to_dict()
    effects = state.get("active_effects", [])
    panel_lines = _panel(game, effects)
    height = max(lay.height, TITLE_H + LINE_H * (len(panel_lines) + 1))
    width = lay.width + PANEL_W
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bc-board" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" {FONT}>',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#18181e"/>',
    ]
    over = "game over" if game.is_terminal() else f"P{game.current_player} to decide: {game.phase_name}"
    out.append(
        f'<text x="8" y="18" font-size="13" fill="#e8e8f0">{escape(game.config.name)} · round {game.round} · '
        f"{escape(over)}</text>"
    )
    out.extend(_board(game, lay))
    x = lay.width + 8
    for i, (text, colour) in enumerate(panel_lines):
        out.append(
            f'<text x="{x:.0f}" y="{TITLE_H + LINE_H * (i + 1)}" font-size="12" fill="{colour}">{escape(text)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def _board(game: Game, lay: _Layout) -> list[str]:
    """The table's empty cells, the legal placement cells and the tiles."""
    topo = game.topo
    effects = game.to_dict().get("active_effects", [])
    placing = game.phase_name == "place_tile" and not game.is_terminal()
    frontier = set(game.frontier) if placing else set()
    on_board = set(game.board)
    out: list[str] = []
    for c in lay.cells:
        if c not in on_board and c not in frontier:
            out.append(f'<polygon points="{lay.outline(c)}" fill="#24242c"/>')
    for c in lay.cells:
        if c in frontier:
            label = topo.label(c)
            out.append(
                f'<g class="cell frontier" data-cell={quoteattr(label)}>'
                f"<title>place the tile on {escape(label)}</title>"
                f'<polygon points="{lay.outline(c)}" fill="#4a4a5e" stroke="#c8c8d8" stroke-width="1.5" '
                f'stroke-dasharray="5 4"/>{_highlight(lay, c)}</g>'
            )
    for c in game.board:
        out.append(_tile(game, lay, c, effects))
    return out


def _highlight(lay: _Layout, c: int) -> str:
    return f'<polygon class="hl" points="{lay.outline(c, 2.0)}" fill="none" stroke="none"/>'


def _countdown(game: Game, c: int) -> int:
    """EXP-03 CountdownMarkers on ``c`` (only ever on the Transformationsdruck, EXP-03-02-C-03)."""
    spec = game.tile_spec(c)
    if spec is None or spec.special != TRANSFORMATIONSDRUCK:
        return 0
    ext = game.ext.get("EXP-03")
    attached = getattr(ext, "attached", None)
    return int(attached.get(c, 0)) if attached else 0


def _tile(game: Game, lay: _Layout, c: int, effects: list[dict]) -> str:  # type: ignore[type-arg]
    spec = game.tile_spec(c)
    assert spec is not None
    cx, cy = lay.centres[c]
    h = CELL / 2
    label = game.topo.label(c)
    resolved = spec.kind == HOTSPOT and bool(game.resolved[c])
    rgb = RESOLVED_HOTSPOT if resolved else _tile_rgb(spec)
    ink = text_colour(rgb)
    ctrl = game.controller(c)
    vals = game.influence_on(c)
    code = "h*" if resolved else spec.code
    tip = f"{spec.name} on {label}"
    if resolved:
        tip += " (resolved)"
    if spec.kind != START:
        tip += f"; Influence {vals}; controller {'P' + str(ctrl) if ctrl >= 0 else 'none'}"
    markers = _countdown(game, c)
    if markers:
        tip += f"; CountdownMarkers {markers}"
    parts = [
        f'<g class="cell tile" data-cell={quoteattr(label)} data-tile={quoteattr(spec.name)}>'
        f"<title>{escape(tip)}</title>",
        f'<polygon points="{lay.outline(c)}" fill="{_hex(rgb)}"/>',
    ]
    if resolved:
        k = CELL * 0.3
        parts.append(
            f'<path d="M{cx - k:.1f},{cy - k:.1f}L{cx + k:.1f},{cy + k:.1f}M{cx + k:.1f},{cy - k:.1f}'
            f'L{cx - k:.1f},{cy + k:.1f}" stroke="#000" stroke-opacity="0.35" stroke-width="3"/>'
        )
    if ctrl >= 0 and spec.kind != START:
        parts.append(
            f'<polygon class="controller" data-seat="{ctrl}" points="{lay.outline(c, 4.0)}" fill="none" '
            f'stroke="{_hex(PLAYER_COLOURS[ctrl % 6])}" stroke-width="4"/>'
        )
    left = cx - h + 6 if not lay.hex else cx - h * 0.62
    parts.append(
        f'<text class="code" x="{left:.1f}" y="{cy - h * 0.42:.1f}" font-size="15" font-weight="bold" '
        f'fill="{ink}">{escape(code)}</text>'
    )
    # Icons at the top right, right to left: effects in force, CountdownMarkers, the Climate leaf.
    right = cx + h - 3 if not lay.hex else cx + h * 0.62
    top = cy - h * 0.72
    for e in effects:
        if e.get("data", {}).get("cell") == c:
            colour = _hex(PLAYER_COLOURS[int(e.get("owner", 0)) % 6])
            parts.append(
                f'<rect class="effect" x="{right - 12:.1f}" y="{top - 2:.1f}" width="12" height="16" rx="2" '
                f'fill="{colour}" stroke="#000" stroke-width="1.5"><title>{escape(str(e.get("id")))}</title></rect>'
                f'<path d="M{right - 9:.1f},{top + 3:.1f}h6M{right - 9:.1f},{top + 7:.1f}h6M{right - 9:.1f},'
                f'{top + 11:.1f}h4" stroke="#000" stroke-width="1.3"/>'
            )
            right -= 15
    if markers:  # an hourglass and the number, in amber on dark brown
        x, y = right - 22, top - 2
        parts.append(
            f'<g class="countdown"><rect x="{x:.1f}" y="{y:.1f}" width="23" height="18" rx="3" fill="#2a1a00" '
            f'stroke="#ffb000" stroke-width="1.5"/><path d="M{x + 3:.1f},{y + 3.5:.1f}h7l-7,11h7z" fill="#ffb000"/>'
            f'<text x="{x + 16:.1f}" y="{y + 13.5:.1f}" font-size="13" font-weight="bold" text-anchor="middle" '
            f'fill="#fff">{markers}</text><title>CountdownMarkers: {markers}</title></g>'
        )
        right -= 24
    if spec.kind == RESORT and spec.name.startswith("CLM"):
        x, y = right - 12, top + 12
        parts.append(
            f'<path class="leaf" d="M{x:.1f},{y:.1f}C{x:.1f},{y - 9:.1f} {x + 5:.1f},{y - 12:.1f} {x + 12:.1f},'
            f'{y - 12:.1f}C{x + 12:.1f},{y - 4:.1f} {x + 7:.1f},{y:.1f} {x:.1f},{y:.1f}Z" fill="#0d3b2e" '
            f'stroke="#e8fff6" stroke-width="1"><title>Climate (CLM) ResortTile</title></path>'
        )
    regs = game.ext.get("EXP-02")
    counts = regs.on.get(c) if regs is not None else None  # type: ignore[attr-defined]
    if counts:  # EXP-02 Regulations on the tile: S(ecurityLevel) C(ontrol) A(dministration) B(lockade) counts
        text = " ".join(f"{k}{n}" for k, n in zip("SCAB", counts) if n)
        names = ", ".join(f"{name} x{n}" for name, n in zip(REGULATION_NAMES, counts) if n)
        width = 7.8 * len(text) + 7
        x0 = cx - width / 2
        parts.append(
            f'<rect class="regulation-badge" x="{x0:.1f}" y="{cy - h * 0.4 - 1:.1f}" width="{width:.1f}" height="15" '
            f'rx="3" fill="#5c0a16" stroke="#ffd6dc" stroke-width="1"/>'
            f'<text class="regulations" x="{cx:.1f}" y="{cy - h * 0.4 + 10.5:.1f}" font-size="12" '
            f'font-weight="bold" text-anchor="middle" fill="#ffffff">'
            f"<title>{escape(names)}</title>{escape(text)}</text>"
        )
    seats = [(p, n) for p, n in enumerate(vals) if n]
    big = len(seats) <= 3  # one row of large badges; two rows of smaller ones for four seats or more
    bw, bh, font, gap = (18.0, 17.0, 14.0, 1.5) if big else (17.0, 13.5, 11.5, 1.5)
    for i, (p, n) in enumerate(seats):
        row, col = divmod(i, 3)
        in_row = min(3, len(seats) - row * 3)
        x = cx - (in_row * bw + (in_row - 1) * gap) / 2 + col * (bw + gap)
        y = (cy + 3 if big else cy - 1) + row * (bh + 1.5)
        colour = _hex(PLAYER_COLOURS[p % 6])
        parts.append(
            f'<g class="influence" data-seat="{p}"><rect x="{x:.1f}" y="{y:.1f}" width="{bw}" height="{bh}" rx="3" '
            f'fill="{colour}" stroke="#000" stroke-width="1"/>'
            f'<text x="{x + bw / 2:.1f}" y="{y + bh / 2 + font * 0.36:.1f}" '
            f'font-size="{font}" font-weight="bold" text-anchor="middle" fill="#111">{n}</text></g>'
        )
    parts.append(_highlight(lay, c))
    parts.append("</g>")
    return "".join(parts)


def _card(game: Game, key: str) -> str:
    names = {m.key: m.name for m in game.measures}
    return f"{names.get(key, key)} ({key})"


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
    keys = [m.key for m in game.measures]
    for p in range(game.num_players):
        colour = _hex(PLAYER_COLOURS[p % 6])
        mark = "▶ " if p == game.current_player else "   "
        lines.append((f"{mark}P{p}: supply {game.supply[p]} · on board {game.on_board[p]}/{game.cap}", colour))
        res = "  ".join(f"{r} {v}" for r, v in zip(resorts, game.resources_of(p)))
        extra = " · start committee used" if game.start_used[p] else ""
        lines.append((f"     {res}{extra}", grey))
        if game.measures:
            for k in zones(game).hands[p]:
                lines.append((f"     hand: {_card(game, keys[k])}", grey))
    if game.measures:
        for d, deck in enumerate(game.decks):
            lines.append((f"open {deck}:", white))
            for k in zones(game).open[d]:
                lines.append((f"  {_card(game, keys[k])}", grey))
    regs = game.ext.get("EXP-02")
    if regs is not None:
        lines.append((f"regulations attached: {regs.count()}", grey))  # type: ignore[attr-defined]
    countdown = game.ext.get("EXP-03")
    if countdown is not None and hasattr(countdown, "supply"):
        lines.append((f"CountdownMarkers: {countdown.supply} in supply", grey))
    if effects:
        lines.append(("effects in force:", white))
        for e in effects:
            lines.append((f"  {e.get('id')} (P{e.get('owner')}, until {e.get('until')})", grey))
    if game.is_terminal():
        lines.append(("", grey))
        lines.append((f"winners: {', '.join(f'P{p}' for p in game.winners())}", white))
    return lines
