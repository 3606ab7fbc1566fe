"""A picture of the board as a ``uint8`` array ``(H, W, 3)``, drawn with NumPy only.

* tiles are filled by type: ResortTiles in their resort's colour (brighter = higher printed value,
  and one small white pip per point of value along the top; ECO tiles are lime), the Start Committee
  gold, Committees purple, Grassroots brown, Lobbyists grey, Hotspots red (a resolved Hotspot is dark
  red with an X); EXP-01's Labor Market is a pink Hotspot (also crossed out once resolved) and the
  Investment Program a teal System Tile, both with a lime (ECO) pip;
* Influence: one coloured dot per Influence object, one row per seat, in the seat's colour;
* the controller of a tile (``game.controller``) is drawn as an outline in its colour;
* a tile targeted by an active effect (a Measure such as Economic Stimulus) carries a small square in
  the colour of the effect's owner in its lower left corner;
* during a tile placement the legal placement cells are lighter; the status bar below the board
  shows each seat's colour with its supply as dots and its Measure hand as small white cards (the
  seat to decide is underlined) and, on the right, the tile in hand.

:class:`HumanRenderer` is ``render_mode="human"``: this picture in a pygame window where a display exists, the
text board on stdout otherwise.

The pixel geometry (which pixel belongs to which cell, the cell edges) is computed once per table
and cached, so a frame costs one palette lookup plus a few stamps.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from bc_env.rules import Game
from bc_env.rules.components import (
    AUTHORITY_APPARATUS,
    HOTSPOT,
    INNER_ORDER,
    INVESTMENT_PROGRAM,
    LABOR_MARKET,
    RESORT,
    TRANSFORMATIONSDRUCK,
    TileSpec,
)
from bc_env.rules.config import ALL_RESORTS
from bc_env.rules.expansions.measure_system import zones
from bc_env.rules.topology import Topology

BACKGROUND = (24, 24, 30)
EMPTY = (58, 58, 68)
FRONTIER = (96, 96, 120)
KIND_COLOURS = (
    (230, 190, 60),  # start committee
    (0, 0, 0),  # resort: by resort
    (150, 90, 185),  # committee
    (140, 105, 65),  # grassroots
    (125, 125, 125),  # lobbyist
    (205, 60, 60),  # hotspot
    (90, 90, 90),  # system
)
RESOLVED_HOTSPOT = (105, 35, 35)
#: Tiles with their own text (EXP-01-02-10/13).
SPECIAL_COLOURS = {
    LABOR_MARKET: (225, 95, 160),  # a Hotspot: pink
    INVESTMENT_PROGRAM: (40, 150, 150),  # a System Tile: teal
    INNER_ORDER: (235, 130, 40),  # EXP-02's Hotspot: orange
    AUTHORITY_APPARATUS: (60, 70, 150),  # EXP-02's System Tile: navy
    TRANSFORMATIONSDRUCK: (200, 170, 30),  # EXP-03's Hotspot (EXP-03-02-B): ochre
}
CARD_COLOUR = (240, 240, 240)
RESORT_COLOURS = (
    (70, 110, 210),  # DOM
    (60, 165, 90),  # FOR
    (215, 125, 45),  # INF
    (160, 205, 60),  # ECO
    (150, 150, 175),  # SEC
    (50, 190, 190),  # CLM
)


def resort_colour(spec: TileSpec) -> tuple[int, int, int]:
    """A ResortTile's colour by its resort's name (``CLM-W1`` -> CLM), whatever its index in the configuration."""
    name = spec.name.split("-")[0]
    return RESORT_COLOURS[ALL_RESORTS.index(name)] if name in ALL_RESORTS else RESORT_COLOURS[spec.resort % 6]


PLAYER_COLOURS = (
    (235, 60, 60),
    (70, 150, 255),
    (250, 225, 50),
    (60, 220, 110),
    (235, 80, 235),
    (60, 230, 230),
)


class _Geometry:
    """Pixel layout of one table: cell label per pixel, edge pixels and cell centres."""

    def __init__(self, topo: Topology, px: int) -> None:
        self.px = px
        size, r0 = topo.size, topo.size // 2
        if topo.name == "hex":
            s = px / math.sqrt(3.0)  # pointy-top hexagon of width px
            width = size * px
            height = int(math.ceil(3.0 * s * r0 + 2.0 * s))
            ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
            X = xs + 0.5 - width / 2.0
            Y = ys + 0.5 - height / 2.0
            qf = (math.sqrt(3.0) / 3.0 * X - Y / 3.0) / s
            rf = (2.0 / 3.0 * Y) / s
            sf = -qf - rf
            q, r, t = np.round(qf), np.round(rf), np.round(sf)
            dq, dr, dt = np.abs(q - qf), np.abs(r - rf), np.abs(t - sf)
            fix_q = (dq > dr) & (dq > dt)
            fix_r = ~fix_q & (dr > dt)
            q = np.where(fix_q, -r - t, q)
            r = np.where(fix_r, -q - t, r)
            gx = (q + r0).astype(np.int64)
            gy = (r + r0).astype(np.int64)
            centres = []
            for c in range(topo.num_cells):
                x, y = c % size, c // size
                qq, rr = x - r0, y - r0
                centres.append((width / 2.0 + s * math.sqrt(3.0) * (qq + rr / 2.0), height / 2.0 + 1.5 * s * rr))
        else:
            width = height = size * px
            ys, xs = np.mgrid[0:height, 0:width]
            gx, gy = xs // px, ys // px
            centres = [((c % size + 0.5) * px, (c // size + 0.5) * px) for c in range(topo.num_cells)]
        inside = (gx >= 0) & (gx < size) & (gy >= 0) & (gy < size)
        label = np.where(inside, gy * size + gx, -1)
        on_table = np.asarray(topo.on_table + (False,), dtype=bool)  # index -1 -> False
        label = np.where(on_table[label], label, -1)
        edge = np.zeros(label.shape, dtype=bool)
        diff_x = label[:, 1:] != label[:, :-1]
        diff_y = label[1:, :] != label[:-1, :]
        edge[:, 1:] |= diff_x
        edge[:, :-1] |= diff_x
        edge[1:, :] |= diff_y
        edge[:-1, :] |= diff_y
        # A thicker band for the controller outline.
        band = edge.copy()
        band[:, 1:] |= edge[:, :-1]
        band[:, :-1] |= edge[:, 1:]
        band[1:, :] |= edge[:-1, :]
        band[:-1, :] |= edge[1:, :]
        self.width, self.height = width, height
        self.label = label
        self.label_index = np.where(label >= 0, label, topo.num_cells)  # background -> extra palette row
        self.edge = edge & (label >= 0)
        self.band = band & (label >= 0)
        self.centres = centres
        # Outline pixels of every cell, grouped by cell (flat pixel indices).
        flat = np.flatnonzero(self.band)
        owners = label.ravel()[flat]
        order = np.argsort(owners, kind="stable")
        flat, owners = flat[order], owners[order]
        bounds = np.searchsorted(owners, np.arange(topo.num_cells + 1))
        self.band_pixels = [flat[bounds[c] : bounds[c + 1]] for c in range(topo.num_cells)]


@cache
def _geometry(topo: Topology, px: int) -> _Geometry:
    return _Geometry(topo, px)


def _disc(radius: float) -> np.ndarray:
    n = int(math.ceil(radius)) * 2 + 1
    yy, xx = np.mgrid[0:n, 0:n] - n // 2
    return (xx * xx + yy * yy) <= radius * radius


def _stamp(img: np.ndarray, mask: np.ndarray, cx: float, cy: float, colour: tuple[int, int, int]) -> None:
    h, w = mask.shape
    x0, y0 = int(round(cx)) - w // 2, int(round(cy)) - h // 2
    H, W = img.shape[:2]
    xa, ya = max(x0, 0), max(y0, 0)
    xb, yb = min(x0 + w, W), min(y0 + h, H)
    if xa >= xb or ya >= yb:
        return
    sub = mask[ya - y0 : yb - y0, xa - x0 : xb - x0]
    img[ya:yb, xa:xb][sub] = colour


def render_rgb(game: Game, cell_px: int = 32) -> np.ndarray:
    """The board of ``game`` as an RGB image (``uint8``, shape ``(H, W, 3)``)."""
    topo = game.topo
    geo = _geometry(topo, cell_px)
    n = topo.num_cells
    P = game.num_players
    palette = np.empty((n + 1, 3), dtype=np.uint8)
    palette[:] = EMPTY
    palette[n] = BACKGROUND
    if game.phase_name == "place_tile":
        palette[game.frontier] = FRONTIER
    catalogue = game.catalogue
    for c in game.board:
        spec = catalogue[game.tile_at[c]]
        if spec.kind == RESORT:
            base = np.asarray(resort_colour(spec), dtype=np.float64)
            palette[c] = np.clip(base * (0.55 + 0.11 * spec.value), 0, 255).astype(np.uint8)
        elif spec.kind == HOTSPOT and game.resolved[c]:
            palette[c] = RESOLVED_HOTSPOT
        elif spec.special:
            palette[c] = SPECIAL_COLOURS.get(spec.special, KIND_COLOURS[spec.kind])
        else:
            palette[c] = KIND_COLOURS[spec.kind]
    board = palette[geo.label_index]
    board[geo.edge] = BACKGROUND

    px = cell_px
    dot_r = max(px / 14.0, 1.2)
    dot = _disc(dot_r)
    ring = _disc(dot_r + 1.0)
    pip = _disc(max(px / 20.0, 1.0))
    step = max(2.0 * dot_r + 1.5, 3.0)
    row_h = min(step, (0.62 * px) / max(P, 1))
    # Tiles targeted by active effects: a square in the owner's colour in the lower left corner (under the
    # Influence dots drawn next).
    mark = max(int(px * 0.2), 3)
    for a in game.active_effects:
        c = a.get("cell", -1)
        if c is None or c < 0:
            continue
        cx, cy = geo.centres[c]
        x0, y0 = int(cx - 0.32 * px), int(cy + 0.32 * px) - mark
        board[max(y0 - 1, 0) : y0 + mark + 1, max(x0 - 1, 0) : x0 + mark + 1] = (0, 0, 0)
        board[y0 : y0 + mark, x0 : x0 + mark] = PLAYER_COLOURS[a.owner % len(PLAYER_COLOURS)]

    for c in game.board:
        spec = catalogue[game.tile_at[c]]
        cx, cy = geo.centres[c]
        ctrl = game.controller(c)
        if ctrl >= 0:
            board.reshape(-1, 3)[geo.band_pixels[c]] = PLAYER_COLOURS[ctrl % len(PLAYER_COLOURS)]
        if spec.kind == RESORT:  # value pips along the top
            for k in range(spec.value):
                _stamp(board, pip, cx + (k - (spec.value - 1) / 2.0) * (px / 7.0), cy - 0.3 * px, (255, 255, 255))
        if spec.special:  # an expansion tile: a pip in its expansion's resort colour (ECO; CLM for EXP-03)
            _stamp(board, pip, cx, cy - 0.3 * px, RESORT_COLOURS[5 if spec.special == TRANSFORMATIONSDRUCK else 3])
        if spec.kind == HOTSPOT and game.resolved[c]:
            half = 0.22 * px
            for t in np.linspace(-half, half, max(int(2 * half), 2)):
                for sx in (1.0, -1.0):
                    x, y = int(round(cx + sx * t)), int(round(cy + t))
                    if 0 <= y < board.shape[0] and 0 <= x < board.shape[1]:
                        board[y, x] = (0, 0, 0)
        vals = game.infl[c * P : c * P + P]
        if not any(vals):
            continue
        y_start = cy - 0.12 * px - (P - 1) * row_h / 2.0 + 0.2 * px
        for p, count in enumerate(vals):
            if not count:
                continue
            y = y_start + p * row_h
            for k in range(count):
                x = cx + (k - (count - 1) / 2.0) * step
                _stamp(board, ring, x, y, (0, 0, 0))
                _stamp(board, dot, x, y, PLAYER_COLOURS[p % len(PLAYER_COLOURS)])

    # Status bar: seats with their supply and Measure hand, the seat to decide underlined, the tile in hand.
    bar_h = max(px, 16)
    bar = np.empty((bar_h, geo.width, 3), dtype=np.uint8)
    bar[:] = BACKGROUND
    slot = geo.width / (P + 1)
    current = game.current_player
    for p in range(P):
        x0 = int(p * slot + 2)
        colour = PLAYER_COLOURS[p % len(PLAYER_COLOURS)]
        bar[3 : bar_h // 2, x0 : x0 + max(bar_h // 3, 4)] = colour
        for k in range(min(game.supply[p], 12)):
            _stamp(bar, dot, x0 + bar_h // 3 + 4 + k * step, bar_h // 4 + 1, colour)
        if game.measures:  # the Measure hand (public, RULINGS R19): one small card each
            cw = max(bar_h // 5, 3)
            for k in range(len(zones(game).hands[p])):
                xc = x0 + bar_h // 3 + 4 + k * (cw + 3)
                bar[bar_h // 2 + 1 : bar_h - 7, xc : xc + cw] = CARD_COLOUR
        if p == current:
            bar[bar_h - 5 : bar_h - 2, x0 : int(x0 + slot - 4)] = (255, 255, 255)
    if game.drawn >= 0:
        spec = catalogue[game.drawn]
        if spec.kind == RESORT:
            base = np.asarray(resort_colour(spec), dtype=np.float64)
            colour = tuple(np.clip(base * (0.55 + 0.11 * spec.value), 0, 255).astype(np.uint8).tolist())
        else:
            colour = KIND_COLOURS[spec.kind]
        x0 = int(P * slot + 2)
        bar[3 : bar_h - 3, x0 : x0 + bar_h - 6] = colour
        if spec.kind == RESORT:
            for k in range(spec.value):
                _stamp(bar, pip, x0 + 3 + k * (px / 7.0), bar_h // 2, (255, 255, 255))
    return np.ascontiguousarray(np.concatenate((board, bar), axis=0))


def display_available() -> bool:
    """Whether a window can be opened: pygame is installed and there is a display (always on Windows and macOS; on
    other systems ``DISPLAY`` or ``WAYLAND_DISPLAY`` is set, or SDL is told which video driver to use)."""
    import importlib.util
    import os
    import sys

    if importlib.util.find_spec("pygame") is None:
        return False
    if sys.platform in ("win32", "darwin"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"))


class HumanRenderer:
    """``render_mode="human"``: the board in a window where a display exists (pygame, the ``rgb_array`` picture at
    ``cell_px``, ``fps`` frames a second at most), otherwise the text board (``game.render()``) on stdout."""

    def __init__(self, cell_px: int = 32, fps: float = 2.0) -> None:
        self.cell_px = cell_px
        self.fps = fps
        self.window: bool | None = None  # None: not decided yet; False: the terminal
        self._screen: Any = None
        self._clock: Any = None

    def show(self, game: Game) -> None:
        if self.window is None:
            self.window = display_available()
        if self.window:
            try:
                self._draw(game)
                return
            except Exception as exc:  # pygame.error and kin: no usable display after all
                self.close()
                self.window = False
                print(f"render_mode='human': no window ({exc}); drawing the board as text", flush=True)
        turn = f"P{game.current_player} to decide ({game.phase_name})" if not game.is_terminal() else "game over"
        print(f"{game.config.name}, round {game.round}: {turn}\n{game.render()}\n", flush=True)

    def _draw(self, game: Game) -> None:
        import os

        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        frame = render_rgb(game, self.cell_px)
        if self._screen is None:
            pygame.display.init()
            pygame.display.set_caption(f"BALANCE // CONTROL: {game.config.name}")
            self._screen = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
            self._clock = pygame.time.Clock()
        surface = pygame.surfarray.make_surface(frame.swapaxes(0, 1))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            self._screen = self._clock = None
