"""The compact observation layouts ``compact-v1`` and ``compact-v2`` (``docs/observation.md``, "Compact layout").

A small seat-relative ``float32`` vector for batched self-play: raw small integers (tile kind ids, counts) instead
of the core layout's one-hot channels and scaled thermometers, so it is about a quarter of the core size and is
written with a handful of NumPy slice assignments per step. It keeps no per-game state (no board tracker, never reads
the event log), so one encoder serves every game. Core configurations only (no expansion). The core layout
(``observation.py``) is unchanged; this is a separate, named layout with its own version (:data:`COMPACT_LAYOUT`)
and a test pinning its digests. ``compact-v2`` is ``compact-v1`` followed by one block, the slack thermometer of the
core layout (``slack_at_most``: per relative player, the turns left minus the actions still needed to reach the cap):
the one number that says how long a player may hold the FormalizeInfluence gate (docs/training.md).

Seat-relative as the core layout: relative player ``k`` is the seat ``(observer + k) % num_players``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bc_env.rules import Game, RulesConfig
from bc_env.rules.components import build_catalogue
from bc_env.rules.decisions import MoveTo, Resolution
from bc_env.rules.topology import get_topology

from .observation import SLACK_RANGE

#: The name (and version) of this layout; a change of layout or of any value gets a new name.
COMPACT_LAYOUT = "compact-v1"
#: ``compact-v1`` and the slack thermometer (``slack_at_most``, as in the core layout) after it.
COMPACT_V2 = "compact-v2"
#: The compact layouts, oldest first.
COMPACT_LAYOUTS = (COMPACT_LAYOUT, COMPACT_V2)
#: Board planes, in order (the per-player influence planes follow: one per relative player).
COMPACT_PLANES = ("kind", "resort", "value", "resolved", "frontier")
#: Phase ids of the ``phase`` value (the core phases; index into this tuple).
COMPACT_PHASES = ("place_tile", "political", "move_to", "pay", "gain", "over")
#: Per-relative-player counts of the ``players`` block, in order (``P`` values each).
PLAYER_FIELDS = ("supply", "on_board", "starting", "deployed", "created", "start_used", "turns_left")


class CompactEncoder:
    """``compact-v1`` (or, with ``layout="compact-v2"``, ``compact-v2``) observations of one core configuration:
    :meth:`encode`, :meth:`encode_into`, :attr:`spec` (name -> ``(offset, shape)``), :meth:`views`. Stateless;
    :meth:`fork` gives an encoder that follows one game step by step."""

    def __init__(self, config: RulesConfig | str, layout: str = COMPACT_LAYOUT) -> None:
        if layout not in COMPACT_LAYOUTS:
            raise ValueError(f"unknown compact layout {layout!r}; known: {', '.join(COMPACT_LAYOUTS)}")
        config = RulesConfig.resolve(config)
        if config.exp01 or config.exp02 or config.exp03:
            raise ValueError(f"{layout} covers core configurations only, not {config.name}")
        self.config = config
        #: The layout's name, which is its version too.
        self.layout = layout
        self.version = layout
        self._slack = layout == COMPACT_V2
        topo = get_topology(config.topology, config.table_size)
        self.size = topo.size
        self.num_cells = N = topo.num_cells
        self.num_players = P = config.players
        self.num_resorts = R = len(config.resorts)
        cat = build_catalogue(config)
        self._topo = topo
        # Tile id + 1 -> resort + 1 / printed value (index 0: no tile).
        self._resort_of = np.array([0] + [s.resort + 1 if s.resort >= 0 else 0 for s in cat], dtype=np.float32)
        self._value_of = np.array([0] + [s.value for s in cat], dtype=np.float32)
        self._kind_of = [s.kind for s in cat]
        self._off = np.array([not on for on in topo.on_table], dtype=bool)
        self._phase = {k: i for i, k in enumerate(COMPACT_PHASES)}
        self._effect = {"formalize": 1, "convert": 2}
        spec: dict[str, tuple[int, tuple[int, ...]]] = {}
        off = 0

        def add(name: str, shape: tuple[int, ...]) -> None:
            nonlocal off
            spec[name] = (off, shape)
            off += int(np.prod(shape))

        S = self.size
        for name in COMPACT_PLANES:
            add(name, (S, S))
        add("influence", (P, S, S))
        add("hand", (3,))  # drawn tile: kind id + 1 (0: none), resort + 1, value
        add("players", (len(PLAYER_FIELDS), P))
        add("resources", (P, R))
        add("seats", (2,))  # start player, player to act (relative; -1: none)
        add("bank", (R + 1,))  # finite bank stock per resort, then 1 if the bank is finite
        add("noise", (R,))
        add("game", (6,))  # gate open, draw pile size, discard size, round, turns in round, phase id
        # effect id (0 none, 1 formalize, 2 convert), ContextTile cell, Move source cell (-1: none), Resources paid
        # per resort, gains offered per resort
        add("effect", (3 + 2 * R,))
        self._slack_bins = nb = len(SLACK_RANGE)
        if self._slack:
            # compact-v2: bin k of relative player p is 1 when its slack is <= SLACK_RANGE[k] (-8 .. 8)
            add("slack_at_most", (P, nb))
        self.spec = spec
        self.size_total = off
        self.board_size = (len(COMPACT_PLANES) + P) * N
        #: Bounds of every value (an observation space's): -1 (off the table, none) up to unbounded counts.
        self.low = np.full(off, -1.0, dtype=np.float32)
        self.high = np.full(off, np.inf, dtype=np.float32)
        o = {k: v[0] for k, v in spec.items()}
        self._o_influence, self._o_hand, self._o_players = o["influence"], o["hand"], o["players"]
        self._o_resources, self._o_seats, self._o_bank = o["resources"], o["seats"], o["bank"]
        self._o_noise, self._o_game, self._o_effect = o["noise"], o["game"], o["effect"]
        self._o_slack = o.get("slack_at_most", off)
        self._finite_bank = config.bank_stock is not None
        self._resort_list: list[float] = self._resort_of.tolist()
        self._value_list: list[float] = self._value_of.tolist()
        self.input_scale = self._input_scale(cat)
        template: Any = np.zeros(off, dtype=np.float32)
        template[:N][self._off] = -1.0  # kind plane: off the table (RULINGS R2)
        self._template: Any = memoryview(template).cast("B").cast("f")

    def _input_scale(self, cat: Any) -> np.ndarray:
        """A factor per value that brings it to about [-1, 1] for a network: the layout's values are raw counts,
        ids and cell indices (a DrawPile of 70, a cell index of 224 would saturate a tanh unit). The factors are
        1 / the value's bound where it has one (kinds, resorts, printed values, the cap, tiles, rounds, players,
        cells, the finite Bank's stock) and 1/30 for Resources, 1/20 for Noise, which have none (random play
        hoards hundreds; good play holds a few to a few dozen). Not part of the layout
        (the observation stays raw); a trainer multiplies by it, and an exported network carries it in its first
        layer (``training/selfplay``)."""
        config, P, N, R = self.config, self.num_players, self.num_cells, self.num_resorts
        tiles = len(cat) - 1  # without the Start Committee
        rounds = -(-tiles // P) + 1
        kinds, top_value, cap = 7.0, max(1.0, float(self._value_of.max())), float(config.cap)
        scale = np.ones(self.size_total, dtype=np.float32)

        def put(name: str, *bounds: float) -> None:
            """1 / bound for the values of block ``name``: one bound for the whole block, or one per row."""
            o, shape = self.spec[name]
            rows = scale[o : o + int(np.prod(shape))].reshape(len(bounds), -1)
            rows[:] = 1.0 / np.asarray(bounds, dtype=np.float64)[:, None]

        for name, bound in zip(COMPACT_PLANES, (kinds, R, top_value, 1.0, 1.0)):
            put(name, bound)
        put("influence", cap)
        put("hand", kinds, R, top_value)
        put("players", *(cap,) * 5, 1.0, rounds)
        put("resources", 30.0)
        put("seats", P)
        stock = config.bank_stock
        put("bank", *(max(1, int(stock)) if stock else 1.0,) * R, 1.0)
        put("noise", 20.0)
        put("game", 1.0, tiles, tiles, rounds, P, len(COMPACT_PHASES) - 1)
        put("effect", 2.0, N, N, *(4.0,) * R, *(1.0,) * R)
        return scale

    def fork(self) -> CompactFork:
        """An encoder for one game followed step by step (``bc_env.vector`` keeps one per slot): it keeps the game's
        board planes between calls and writes only what changed (:class:`CompactFork`)."""
        return CompactFork(self)

    def encode(self, game: Game, observer: Any) -> np.ndarray:
        out = np.zeros(self.size_total, dtype=np.float32)
        self.encode_into(game, observer, out)
        return out

    def views(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        return {k: vec[o : o + int(np.prod(s))].reshape(s) for k, (o, s) in self.spec.items()}

    def check(self, game: Game, observer: Any) -> int:
        """The observer's seat, after checking that ``game`` is of this configuration (ValueError otherwise)."""
        if game.num_players != self.num_players or game.topo is not self._topo:
            raise ValueError(f"{self.layout} encoder of {self.config.name} got a game of another configuration")
        obs = int(observer)
        if not 0 <= obs < self.num_players:
            raise ValueError(f"observer must be a seat 0..{self.num_players - 1}, got {observer!r}")
        return obs

    def encode_into(self, game: Game, observer: Any, out: Any) -> None:
        """Write the observation of seat ``observer`` into ``out`` (a C-contiguous float32 array of
        ``size_total``). A template copy, then one store per occupied cell, frontier cell and non-board value."""
        g = game
        obs = self.check(g, observer)
        N = self.num_cells
        m: Any = memoryview(out).cast("B").cast("f")
        m[:] = self._template  # zeros, kind -1 off the table
        tile_at, kind_at, resolved = g.tile_at, g.kind_at, g.resolved
        resort_of, value_of = self._resort_list, self._value_list
        for c in g.board:  # occupied cells
            t = tile_at[c] + 1
            m[c] = kind_at[c] + 1  # engine kind + 1 (components.KIND_NAMES); 0 empty
            m[N + c] = resort_of[t]
            m[2 * N + c] = value_of[t]
            if resolved[c]:  # a Hotspot resolved (CORE-01-07)
                m[3 * N + c] = 1.0
        self.write_rest(g, obs, m)

    def write_rest(self, g: Game, obs: int, m: Any) -> None:
        """Everything but the tile planes (kind, resort, value, resolved), into the float32 memoryview ``m`` of a row
        that holds the template's values there: the Influence in the observer's seat order, the frontier, the drawn
        tile, the players, the Bank, Noise, the game and the decision in progress."""
        P, N, R = self.num_players, self.num_cells, self.num_resorts
        infl, inf = g.infl, self._o_influence
        for c in g.board:
            base = c * P
            for k in range(P):
                p = obs + k
                if p >= P:
                    p -= P
                x = infl[base + p]
                if x:
                    m[inf + k * N + c] = x
        resort_of, value_of = self._resort_list, self._value_list
        for c in g.frontier:  # the placement frontier (RULINGS R3)
            m[4 * N + c] = 1.0
        b = self._o_hand
        t = g.drawn
        if t >= 0:
            m[b] = self._kind_of[t] + 1
            m[b + 1] = resort_of[t + 1]
            m[b + 2] = value_of[t + 1]
        b = self._o_players
        supply, on_board, starting, deployed = g.supply, g.on_board, g.starting, g.deployed
        created, start_used, res = g.created, g.start_used, g.res
        rb = self._o_resources
        for k in range(P):
            p = obs + k
            if p >= P:
                p -= P
            m[b + k] = supply[p]
            m[b + P + k] = on_board[p]
            m[b + 2 * P + k] = starting[p]
            m[b + 3 * P + k] = deployed[p]
            m[b + 4 * P + k] = created[p]
            if start_used[p]:
                m[b + 5 * P + k] = 1.0
            m[b + 6 * P + k] = g.turns_left(p)
            for r in range(R):
                m[rb + k * R + r] = res[p * R + r]
        b = self._o_seats
        m[b] = (g.start_player - obs) % P
        dec = g.decision
        m[b + 1] = (dec.owner - obs) % P if dec is not None else -1.0
        if self._finite_bank:
            b = self._o_bank
            bank = g.bank
            for r in range(R):
                m[b + r] = bank[r]
            m[b + R] = 1.0
        b = self._o_noise
        noise = g.noise
        for r in range(R):
            m[b + r] = noise[r]
        b = self._o_game
        if g.formalize_gate_open():
            m[b] = 1.0
        m[b + 1] = len(g.draw_pile)
        m[b + 2] = len(g.discard)
        m[b + 3] = g.round
        m[b + 4] = g.turns_in_round
        m[b + 5] = self._phase[g.phase_name]
        b = self._o_effect
        m[b + 1] = -1.0
        m[b + 2] = -1.0
        if isinstance(dec, MoveTo):
            m[b + 2] = dec.src
        elif isinstance(dec, Resolution):  # the effect, its ContextTile, the Resources paid so far, the gains
            m[b] = self._effect[dec.effect]
            m[b + 1] = dec.tile
            for r in dec.paid:
                m[b + 3 + r] += 1.0
            if dec.kind == "gain":
                for r in dec.gains:
                    m[b + 3 + R + r] = 1.0
        if self._slack:
            self.write_slack(g, obs, m)

    def write_slack(self, g: Game, obs: int, m: Any) -> None:
        """``compact-v2``'s thermometer of each player's slack (the core layout's ``slack_at_most``): the turns it
        has left minus the actions it still needs to reach the cap, one Place per Influence not on the Board and one
        FormalizeInfluence per Influence not yet created (RULINGS R12); bin ``k`` is 1 when the slack is
        ``<= SLACK_RANGE[k]``."""
        P, nb = self.num_players, self._slack_bins
        lo = SLACK_RANGE.start
        for k in range(P):
            p = obs + k
            if p >= P:
                p -= P
            slack = g.turns_left(p) - g.actions_to_cap(p)
            first = self._o_slack + k * nb
            for j in range(max(0, slack - lo), nb):
                m[first + j] = 1.0


class CompactFork:
    """A compact layout for one game followed step by step (:meth:`CompactEncoder.fork`; the batched env keeps one per
    slot). It keeps that game's tile planes between calls: a tile's kind, resort and value are written once, when it
    is placed, and the Resolved marks where they changed. A row is then the template, those planes copied as one
    block, the Influence and the rest as :meth:`CompactEncoder.encode_into` writes them: the same values
    (tests/test_compact_encoding.py compares the two at every step of whole games) for fewer stores. A different
    ``Game`` object, or a board with fewer tiles than before, starts the planes over, so a fork follows one game at
    a time through ``apply`` (tiles never leave the board of a core game). 4 planes per game (3.6 KiB on the 15 x 15
    table)."""

    def __init__(self, encoder: CompactEncoder) -> None:
        self.enc = encoder
        self._game: Game | None = None
        self._tiles = 0  # the tiles on the board at the last call
        self._resolved: list[int] = []  # the occupied cells marked resolved at the last call
        self._planes: Any = None  # float32 4 x N: kind, resort, value, resolved

    def fork(self) -> CompactFork:
        return CompactFork(self.enc)

    def _start(self, g: Game) -> None:
        N = self.enc.num_cells
        planes: Any = np.zeros(4 * N, dtype=np.float32)
        planes[:N] = self.enc._template[:N]  # kind -1 off the table
        self._planes = memoryview(planes).cast("B").cast("f")
        self._game = g
        self._tiles = 0
        self._resolved = []

    def encode_into(self, game: Game, observer: Any, out: Any) -> None:
        """As :meth:`CompactEncoder.encode_into`, from the tile planes kept for ``game``."""
        enc = self.enc
        g = game
        obs = enc.check(g, observer)
        board = g.board
        if g is not self._game or len(board) < self._tiles:
            self._start(g)
        N = enc.num_cells
        planes: Any = self._planes
        if len(board) != self._tiles:  # new tiles (kind 0 in the planes, an empty cell): kind, resort and value, once
            tile_at, kind_at = g.tile_at, g.kind_at
            resort_of, value_of = enc._resort_list, enc._value_list
            for c in board:
                if planes[c] == 0:
                    t = tile_at[c] + 1
                    planes[c] = kind_at[c] + 1
                    planes[N + c] = resort_of[t]
                    planes[2 * N + c] = value_of[t]
            self._tiles = len(board)
        resolved = g.resolved
        marked = [c for c in board if resolved[c]]
        if marked != self._resolved:  # a Hotspot resolved (CORE-01-07)
            for c in self._resolved:
                planes[3 * N + c] = 0.0
            for c in marked:
                planes[3 * N + c] = 1.0
            self._resolved = marked
        m: Any = memoryview(out).cast("B").cast("f")
        m[:] = enc._template
        m[: 4 * N] = planes
        enc.write_rest(g, obs, m)


def compact_digest(preset: str, seed: int, steps: int = 200, layout: str = COMPACT_LAYOUT) -> str:
    """A seeded random game's encodings in a compact layout (every seat, every step), hashed (pins the layout)."""
    import hashlib

    enc = CompactEncoder(preset, layout)
    g = Game.new(preset, seed)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    for _ in range(steps):
        if g.is_terminal():
            break
        for p in range(g.num_players):
            h.update(enc.encode(g, p).tobytes())
        legal = g.legal_actions()
        g.apply(legal[int(rng.integers(len(legal)))])
    return h.hexdigest()[:16]
