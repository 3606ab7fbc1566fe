"""Seat-relative observation encoder (version :data:`ENCODER_VERSION`).

One flat ``float32`` vector per (game, observer), every value in ``[0, 1]``, with named views in the
style of OpenSpiel's observer: :attr:`Encoder.spec` maps a name to ``(offset, shape)`` and
:meth:`Encoder.views` returns reshaped NumPy views of a vector. The vector starts with the board
planes (``C`` channels over the ``size x size`` grid, channel-major), so the planes form for conv nets
is ``vec[:C*H*W].reshape(C, H, W)`` and the rest is a flat vector of non-board features
(:meth:`Encoder.split`). The layout is documented in ``docs/observation.md``.

Seat-relative: the observer is always player 0 of the encoding; relative player ``k`` is the seat
``(observer + k) % num_players``, i.e. the others in turn order after the observer (RULINGS R6).

The encoder never evaluates a rule itself: controllers, Lobbyist totals and the placement frontier
are the engine's answers (``game.controller``, ``game.totals``, ``game.in_frontier``). The hidden
order of the DrawPile is never read, only its public composition (RULINGS R19).

Speed: the absolute (observer-independent) board planes are kept per game and updated from the
engine's event log (``game.events`` only grows); an event the encoder does not know, a different
game object or a rewound log triggers a full rebuild from the state, so the result never depends on
the path. A test checks incremental == rebuilt over random games on every preset.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bc_env.rules import PHASE_NAMES, Game, RulesConfig
from bc_env.rules.components import GRASSROOTS, HOTSPOT, LOBBYIST, RESORT, build_catalogue
from bc_env.rules.topology import get_topology

ENCODER_VERSION = 1

#: Board tile channels: empty table cell, cell off the table (hex), then the engine's tile kinds
#: (components.KIND_NAMES order: start-committee, resort, committee, grassroots, lobbyist, hotspot, system).
TILE_CHANNELS = ("empty", "off_table", "start_committee", "resort", "committee", "grassroots", "lobbyist", "hotspot",
                 "system")  # fmt: skip
#: Kinds of a tile in hand (the engine's tile kinds).
HAND_KINDS = TILE_CHANNELS[2:]
RESERVED_PLANES = 4  # expansion state (Regulations, climate markers, ...) lands here
RESERVED_VECTOR = 8
#: Resources: a linear view saturating at RES_LINEAR (costs are at most 4) and a log2 view up to 63.
RES_LINEAR = 8.0
RES_LOG_BITS = 6.0
#: Paid-so-far counts per resort are divided by this (a Grassroots text pays at most 6).
PAID_SCALE = 6.0
_EFFECT_KINDS = ("formalize", "convert")
_PH_GAIN, _PH_OVER = PHASE_NAMES.index("gain"), PHASE_NAMES.index("over")

# Events whose effect on the tracked board data is known; anything else forces a rebuild.
_NO_BOARD_CHANGE = frozenset(
    ("setup", "start-player", "starting-influence", "discard", "pass", "pay", "formalize", "convert", "settlement",
     "produce", "game-over", "draw-pile-empty", "production-prohibited")
)  # fmt: skip


def tile_type_key(spec: Any) -> tuple[int, int, int, int, str]:
    """Tiles of one key are indistinguishable for the DrawPile composition."""
    return (spec.kind, spec.resort, spec.value, spec.text, spec.label)


class Encoder:
    """Observation encoder for one rules configuration. Create once, call :meth:`encode` per step."""

    version = ENCODER_VERSION

    def __init__(self, config: RulesConfig | str) -> None:
        config = RulesConfig.resolve(config)
        self.config = config
        self.topo = topo = get_topology(config.topology, config.table_size)
        self.catalogue = cat = build_catalogue(config)
        self.resorts = config.resorts
        P = self.num_players = config.players
        R = self.num_resorts = len(config.resorts)
        self.size = S = topo.size
        N = self.num_cells = topo.num_cells
        self.cap = config.influence_cap
        self.max_neighbors = 6 if config.topology == "hex" else 4

        # ---------------------------------------------------------------- tile types (pile composition)
        keys: list[tuple[int, int, int, int, str]] = []
        names: list[str] = []
        type_of = np.full(len(cat), -1, dtype=np.int64)
        for spec in cat[1:]:  # the Start Committee is never in the DrawPile (CORE-01-02-02)
            key = tile_type_key(spec)
            if key not in keys:
                keys.append(key)
                name = spec.name
                if spec.kind == GRASSROOTS and len(config.grassroots_texts) > 1:
                    name = f"{name}#{spec.text}"
                names.append(name)
            type_of[spec.id] = keys.index(key)
        self.tile_type_names: tuple[str, ...] = tuple(names)
        self._type_of = type_of
        self._type_of_list = type_of.tolist()
        T = len(keys)
        initial = np.bincount(type_of[1:], minlength=T).astype(np.float32)
        self._inv_initial = (1.0 / initial).astype(np.float32)
        self._pile_total = float(len(cat) - 1)
        self._max_round = math.ceil((len(cat) - 1) / P) + 1

        # ---------------------------------------------------------------- board channels
        channels: list[tuple[str, int]] = [
            ("tile", len(TILE_CHANNELS)),
            ("resort", R),
            ("value", 1),
            ("resolved", 1),
            ("frontier", 1),
            ("move_source", 1),
            ("effect_tile", 1),
            ("influence", P),
            ("lobbyist", P),
            ("control", P),
            ("reserved_planes", RESERVED_PLANES),
        ]
        spec_map: dict[str, tuple[int, tuple[int, ...]]] = {}
        row = 0
        rows: dict[str, int] = {}
        for name, k in channels:
            rows[name] = row
            spec_map[name] = (row * N, (k, S, S))
            row += k
        C = self.num_channels = row
        self.board_size = C * N
        self._rows = rows
        self.channel_names: tuple[str, ...] = tuple(
            [f"tile/{t}" for t in TILE_CHANNELS]
            + [f"resort/{r}" for r in self.resorts]
            + ["value", "resolved", "frontier", "move_source", "effect_tile"]
            + [f"influence/{k}" for k in range(P)]
            + [f"lobbyist/{k}" for k in range(P)]
            + [f"control/{k}" for k in range(P)]
            + [f"reserved_planes/{k}" for k in range(RESERVED_PLANES)]
        )

        # ---------------------------------------------------------------- non-board vector
        vector: list[tuple[str, tuple[int, ...], str]] = [  # (name, shape, player axis: "" / "p")
            ("hand_kind", (len(HAND_KINDS),), ""),
            ("hand_resort", (R,), ""),
            ("hand_value", (1,), ""),
            ("supply", (P,), "p"),
            ("on_board", (P,), "p"),
            ("starting", (P,), "p"),
            ("deployed", (P,), "p"),
            ("created", (P,), "p"),
            ("start_used", (P,), "p"),
            ("resources", (P, R), "p"),
            ("resources_log", (P, R), "p"),
            ("start_player", (P,), "p"),
            ("to_act", (P,), "p"),
            ("bank", (R,), ""),
            ("bank_finite", (1,), ""),
            ("noise", (R,), ""),
            ("formalize_gate", (1,), ""),
            ("pile", (T,), ""),
            ("pile_size", (1,), ""),
            ("discard_size", (1,), ""),
            ("round", (1,), ""),
            ("turn_in_round", (1,), ""),
            ("phase", (len(PHASE_NAMES),), ""),
            ("effect_kind", (len(_EFFECT_KINDS),), ""),
            ("paid", (R,), ""),
            ("gain_options", (R,), ""),
            ("reserved", (RESERVED_VECTOR,), ""),
        ]
        off = 0
        voff: dict[str, int] = {}
        for name, shape, _axis in vector:
            size = int(np.prod(shape))
            voff[name] = off
            spec_map[name] = (self.board_size + off, shape)
            off += size
        NB = self.vector_size = off
        self._voff = voff
        self.spec: dict[str, tuple[int, tuple[int, ...]]] = spec_map
        self.size_total = self.board_size + NB

        # Observer permutation of the board rows: output row <- absolute row.
        self._board_rows = []
        for o in range(P):
            rel = [(o + k) % P for k in range(P)]
            r = list(range(C))
            for name in ("influence", "lobbyist", "control"):
                base = rows[name]
                r[base : base + P] = [base + q for q in rel]
            self._board_rows.append(np.asarray(r, dtype=np.intp))

        # Observer permutation of the non-board vector (output position <- absolute position).
        self._vec_perm = []
        for o in range(P):
            perm = np.arange(NB, dtype=np.intp)
            for name, shape, axis in vector:
                if axis:
                    start = voff[name]
                    inner = int(np.prod(shape[1:]))
                    block = np.arange(P * inner).reshape(P, inner) + start
                    perm[start : start + P * inner] = block[[(o + k) % P for k in range(P)]].ravel()
            self._vec_perm.append(perm)
        self._offsets = (
            voff["hand_kind"], voff["hand_resort"], voff["hand_value"], voff["supply"], voff["deployed"],
            voff["resources"], voff["resources_log"], voff["start_player"], voff["to_act"], voff["bank"],
            voff["bank_finite"], voff["noise"], voff["formalize_gate"], voff["pile"], voff["pile_size"],
            voff["discard_size"], voff["round"], voff["turn_in_round"], voff["phase"], voff["effect_kind"],
            voff["paid"], voff["gain_options"],
        )  # fmt: skip
        assert [n for n, _, _ in vector[3:9]] == ["supply", "on_board", "starting", "deployed", "created", "start_used"]

        # Raw non-board values are multiplied by this (then capped at 1): see docs/observation.md.
        scale = np.ones(NB, dtype=np.float32)

        def set_scale(name: str, value: float | np.ndarray) -> None:
            start, shape = voff[name], dict((n, sh) for n, sh, _ in vector)[name]
            scale[start : start + int(np.prod(shape))] = value

        set_scale("hand_value", 1.0 / 5.0)
        for name in ("supply", "on_board", "starting", "created"):
            set_scale(name, 1.0 / self.cap)
        set_scale("resources", 1.0 / RES_LINEAR)
        set_scale("bank", 1.0 / config.bank_stock if config.bank_stock else 0.0)
        set_scale("pile", self._inv_initial)
        set_scale("pile_size", 1.0 / self._pile_total)
        set_scale("discard_size", 1.0 / self._pile_total)
        set_scale("round", 1.0 / self._max_round)
        set_scale("turn_in_round", 1.0 / P)
        set_scale("paid", 1.0 / PAID_SCALE)
        self._scale = scale
        self._zero_list = [0.0] * NB
        self._finite_bank = config.bank_stock is not None
        self._log_table = [min(math.log2(x + 1) / RES_LOG_BITS, 1.0) for x in range(64)]

        # Static board: empty table cells and off-table cells.
        static = np.zeros((C, N), dtype=np.float32)
        on = np.asarray(topo.on_table, dtype=bool)
        static[rows["tile"] + 0, on] = 1.0
        static[rows["tile"] + 1, ~on] = 1.0
        self._static = static
        self.low = np.zeros(self.size_total, dtype=np.float32)
        self.high = np.ones(self.size_total, dtype=np.float32)

        # Board-tracking state (one game at a time).
        self._board = static.copy()
        self._flat = self._board.reshape(-1)
        self._version = 0
        self._rel_cache: list[tuple[int, np.ndarray] | None] = [None] * P
        self._row_tile = rows["tile"] * N
        self._row_resort = rows["resort"] * N
        self._row_value = rows["value"] * N
        self._row_resolved = rows["resolved"] * N
        self._row_frontier = rows["frontier"] * N
        self._row_influence = rows["influence"] * N
        self._row_lobbyist = rows["lobbyist"] * N
        self._row_control = rows["control"] * N
        self._idx_move_source = rows["move_source"] * N
        self._idx_effect_tile = rows["effect_tile"] * N
        self._pile = [0] * T
        self._game: Game | None = None
        self._events: list[dict[str, Any]] | None = None
        self._seen = 0
        self._last_event: dict[str, Any] | None = None
        self.rebuilds = 0  # how many full rebuilds happened (for tests and profiling)

    # ------------------------------------------------------------------ public API
    def encode(self, game: Game, observer: int) -> np.ndarray:
        """The observation of seat ``observer`` as a new flat float32 vector."""
        if game.topo is not self.topo or game.num_players != self.num_players:
            raise ValueError(f"this encoder is for {self.config.name!r}; the game uses {game.config.name!r}")
        if not 0 <= observer < self.num_players:
            raise ValueError(f"observer must be a seat in 0..{self.num_players - 1}, got {observer!r}")
        self._sync(game)
        cached = self._rel_cache[observer]
        if cached is not None and cached[0] == self._version:
            board = cached[1]
        else:
            board = self._board.take(self._board_rows[observer], axis=0).reshape(-1)
            self._rel_cache[observer] = (self._version, board)
        out = np.concatenate((board, self._vector(game, observer)))
        pend = game.pending
        if pend is not None:  # decision context on the board (out is a fresh copy)
            if pend["kind"] == "move":
                out[self._idx_move_source + pend["from"]] = 1.0
            else:
                out[self._idx_effect_tile + pend["tile"]] = 1.0
        return out

    def encode_into(self, game: Game, observer: int, out: np.ndarray) -> None:
        """Write the observation of seat ``observer`` into ``out`` (shape ``(size_total,)``)."""
        out[:] = self.encode(game, observer)

    def encode_planes(self, game: Game, observer: int) -> dict[str, np.ndarray]:
        """``{"planes": (C, H, W), "vector": (K,)}`` views of one fresh observation."""
        planes, vector = self.split(self.encode(game, observer))
        return {"planes": planes, "vector": vector}

    def split(self, vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The board planes ``(C, H, W)`` and the non-board vector of a flat observation (views)."""
        bs = self.board_size
        return vec[:bs].reshape(self.num_channels, self.size, self.size), vec[bs:]

    def views(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """Every named part of a flat observation as a reshaped view (writes go through)."""
        return {name: vec[off : off + int(np.prod(shape))].reshape(shape) for name, (off, shape) in self.spec.items()}

    # ------------------------------------------------------------------ non-board features
    def _vector(self, g: Game, observer: int) -> np.ndarray:
        """The non-board features, seat-relative.

        Raw values go into a list in absolute seat order, then one NumPy step permutes them to the
        observer's order and scales them. Every raw value is bounded so that the scaled value lies in
        [0, 1] (the saturating ones are clamped here), which keeps the observation inside its Box.
        """
        (o_hand_kind, o_hand_resort, o_hand_value, o_players, o_deployed, o_resources, o_resources_log,
         o_start_player, o_to_act, o_bank, o_bank_finite, o_noise, o_gate, o_pile, o_pile_size, o_discard_size,
         o_round, o_turn, o_phase, o_effect_kind, o_paid, o_gain) = self._offsets  # fmt: skip
        v = self._zero_list[:]
        tile = g.drawn
        if tile >= 0:
            spec = self.catalogue[tile]
            v[o_hand_kind + spec.kind] = 1.0
            if spec.kind == RESORT:
                v[o_hand_resort + spec.resort] = 1.0
                v[o_hand_value] = spec.value  # / 5 by the scale vector
        P = self.num_players
        starting, deployed = g.starting, g.deployed
        # supply, on_board, starting, deployed, created, start_used: consecutive views of P values each.
        # The cap bounds them all (supply + board = starting + created <= cap, RULINGS R12).
        v[o_players : o_players + 6 * P] = g.supply + g.on_board + starting + deployed + g.created + g.start_used
        # "deployed" is the progress towards the formalize gate (RULINGS R11): min(deployed, starting) / starting.
        v[o_deployed : o_deployed + P] = [min(x, st) / st if st > 0 else 1.0 for x, st in zip(deployed, starting)]
        res = g.res
        n = len(res)
        v[o_resources : o_resources + n] = [x if x < RES_LINEAR else RES_LINEAR for x in res]
        log = self._log_table
        v[o_resources_log : o_resources_log + n] = [log[x] if x < 64 else 1.0 for x in res]
        v[o_start_player + g.start_player] = 1.0
        phase = g.phase
        if phase != _PH_OVER:
            v[o_to_act + g.active] = 1.0
        R = self.num_resorts
        if self._finite_bank:
            v[o_bank : o_bank + R] = g.bank
            v[o_bank_finite] = 1.0
        v[o_noise : o_noise + R] = [log[x] if x < 64 else 1.0 for x in g.noise]
        if g.formalize_gate_open():
            v[o_gate] = 1.0
        pile = self._pile
        v[o_pile : o_pile + len(pile)] = pile
        v[o_pile_size] = len(g.draw_pile)
        v[o_discard_size] = len(g.discard)
        v[o_round] = g.round if g.round < self._max_round else self._max_round
        v[o_turn] = g.turns_in_round
        v[o_phase + phase] = 1.0
        pend = g.pending
        if pend is not None and pend["kind"] != "move":
            v[o_effect_kind + _EFFECT_KINDS.index(pend["kind"])] = 1.0
            for r in pend["paid"]:
                if v[o_paid + r] < PAID_SCALE:
                    v[o_paid + r] += 1.0
            if phase == _PH_GAIN:
                for r in pend["gains"]:
                    v[o_gain + r] = 1.0
        arr = np.array(v, dtype=np.float32)[self._vec_perm[observer]]
        arr *= self._scale
        return arr

    # ------------------------------------------------------------------ board tracking
    # The absolute planes live in ``self._board`` (C, N); ``self._flat`` is the same memory, flat.
    # Changes are collected as {flat index: value} and written with one NumPy assignment.
    def _sync(self, g: Game) -> None:
        events = g.events
        seen = self._seen
        if (
            g is not self._game
            or events is not self._events
            or len(events) < seen
            or (seen and events[seen - 1] is not self._last_event)
        ):
            self._rebuild(g)
            return
        if len(events) == seen:
            return
        w: dict[int, float] = {}
        dirty: list[int] = []
        resolved = self._row_resolved
        for i in range(seen, len(events)):
            e = events[i]
            t = e["type"]
            if t in _NO_BOARD_CHANGE:
                continue
            if t == "draw":
                self._pile[self._type_of_list[e["tile"]]] -= 1
            elif t == "recycle":
                self._pile[self._type_of_list[e["tile"]]] += 1
            elif t == "place-tile":
                self._set_tile(g, e["cell"], w)
                dirty.append(e["cell"])
            elif t == "place-influence":
                self._influence_changed(g, e["cell"], w, dirty)
            elif t == "move-influence":
                self._influence_changed(g, e["src"], w, dirty)
                self._influence_changed(g, e["dst"], w, dirty)
            elif t == "hotspot-resolved":
                w[resolved + e["cell"]] = 1.0
                self._influence_changed(g, e["cell"], w, dirty)
            elif t in ("hotspot-no-majority", "hotspot-no-supply"):
                w[resolved + e["cell"]] = 1.0
            else:
                self._rebuild(g)
                return
        for c in set(dirty):
            self._set_control(g, c, w)
        if w:
            self._flat[list(w)] = list(w.values())
            self._version += 1
        self._seen = len(events)
        self._last_event = events[-1]

    def _rebuild(self, g: Game) -> None:
        """Recompute every tracked plane from the state."""
        self.rebuilds += 1
        self._board[:] = self._static
        w: dict[int, float] = {}
        for c in g.board:
            self._set_tile(g, c, w)
            if g.kind_at[c] == HOTSPOT and g.resolved[c]:
                w[self._row_resolved + c] = 1.0
            self._set_influence(g, c, w)
        for c in g.board:
            self._set_control(g, c, w)
        if w:
            self._flat[list(w)] = list(w.values())
        self._pile = np.bincount(
            self._type_of[np.asarray(g.draw_pile, dtype=np.intp)], minlength=len(self._pile)
        ).tolist()
        self._game = g
        self._events = g.events
        self._seen = len(g.events)
        self._last_event = g.events[-1] if g.events else None
        self._version += 1

    def _set_tile(self, g: Game, c: int, w: dict[int, float]) -> None:
        N = self.num_cells
        spec = self.catalogue[g.tile_at[c]]
        t = self._row_tile
        w[t + c] = 0.0  # no longer empty
        w[t + (2 + spec.kind) * N + c] = 1.0
        if spec.kind == RESORT:
            w[self._row_resort + spec.resort * N + c] = 1.0
            w[self._row_value + c] = spec.value / 5.0
        # The placement frontier (RULINGS R3) changes only at the placed cell and its neighbours.
        f = self._row_frontier
        in_frontier = g.in_frontier
        w[f + c] = 1.0 if in_frontier[c] else 0.0
        for nb in self.topo.neighbors[c]:
            w[f + nb] = 1.0 if in_frontier[nb] else 0.0

    def _set_influence(self, g: Game, c: int, w: dict[int, float]) -> None:
        P, N = self.num_players, self.num_cells
        r = self._row_influence + c
        inv = 1.0 / self.cap
        for q, x in enumerate(g.infl[c * P : c * P + P]):
            w[r + q * N] = x * inv

    def _influence_changed(self, g: Game, c: int, w: dict[int, float], dirty: list[int]) -> None:
        """Update the physical Influence of ``c`` and note the cells whose totals may have changed."""
        self._set_influence(g, c, w)
        dirty.append(c)
        if g.kind_at[c] == LOBBYIST:  # its owner may have changed: its neighbours' totals too (RULINGS R13)
            tile_at = g.tile_at
            dirty.extend(nb for nb in self.topo.neighbors[c] if tile_at[nb] >= 0)

    def _set_control(self, g: Game, c: int, w: dict[int, float]) -> None:
        """Virtual Lobbyist Influence and the controller of ``c``, as the engine computes them."""
        P, N = self.num_players, self.num_cells
        totals = g.totals(c)
        base = c * P
        infl = g.infl
        who = g.controller(c)
        lob = self._row_lobbyist + c
        ctrl = self._row_control + c
        inv = 1.0 / self.max_neighbors
        for q in range(P):
            w[lob + q * N] = (totals[q] - infl[base + q]) * inv
            w[ctrl + q * N] = 1.0 if q == who else 0.0


_ENCODERS: dict[RulesConfig, Encoder] = {}


def get_encoder(config: RulesConfig | str) -> Encoder:
    """A shared encoder for ``config`` (its board tracker follows whichever game it saw last)."""
    config = RulesConfig.resolve(config)
    enc = _ENCODERS.get(config)
    if enc is None:
        enc = _ENCODERS[config] = Encoder(config)
    return enc


def encode(game: Game, observer: int | None = None) -> np.ndarray:
    """The flat observation of ``observer`` (default: the player to decide, else seat 0)."""
    if observer is None:
        observer = game.current_player if game.current_player is not None else 0
    return get_encoder(game.config).encode(game, observer)
