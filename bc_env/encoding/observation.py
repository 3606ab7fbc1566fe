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

Version 2 added the game clock per player (turns left, as a count and a thermometer, and the slack to the cap).

Expansions: the encoding covers EXP-01 too. Its features (the ECO resort in every per-resort view, the
Labor Market and the Investment Program, the Measure market, hands, play counters, active effects,
the new decisions ``target`` / ``exchange``) appear only when an expansion is active; without one the
layout and every value are exactly the core encoding (a test pins digests of core encodings).
"""

from __future__ import annotations

import array
import math
import operator
import struct
from typing import Any

import numpy as np

from bc_env.rules import PHASE_NAMES, Game, RulesConfig
from bc_env.rules import effects as _fx
from bc_env.rules.components import GRASSROOTS, HOTSPOT, LOBBYIST, RESORT, build_catalogue
from bc_env.rules.decisions import MoveTo, Resolution
from bc_env.rules.expansions import build_measures
from bc_env.rules.expansions.measure_system import Target, zones
from bc_env.rules.expansions.measures import HAND_LIMIT, MAX_PLAYS, NO_TARGET, PLAYER_TARGETS
from bc_env.rules.topology import get_topology

from .views import EXPANSION_VIEWS, ExpansionView

#: The version of the core encoding (the layout every configuration starts with). Each expansion's views have
#: their own version (EXPANSION_VERSIONS), so adding or changing an expansion's views never changes the version
#: of a core configuration and the core bots keep loading (:func:`encoder_version`).
ENCODER_VERSION = 2
EXPANSION_VERSIONS = {"EXP-01": 1}


def _expansion_names(config: RulesConfig) -> list[str]:
    return [name for name, on in (("EXP-01", config.exp01), ("EXP-02", config.exp02), ("EXP-03", config.exp03)) if on]


def _version_of(name: str) -> int:
    view = EXPANSION_VIEWS.get(name)
    return view.version if view is not None else EXPANSION_VERSIONS.get(name, 0)


def encoder_version(config: RulesConfig | str) -> int | str:
    """The encoder version of ``config``'s layout: :data:`ENCODER_VERSION` for the core game, else the core
    version and each active expansion's (its ``ExpansionView.version``, views.py), e.g. ``"2+EXP-01.1"``. A
    trained bot's manifest records it."""
    config = RulesConfig.resolve(config)
    names = _expansion_names(config)
    if not names:
        return ENCODER_VERSION
    return "+".join([str(ENCODER_VERSION), *(f"{name}.{_version_of(name)}" for name in names)])


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
#: Clock thermometers: ``turns_left_at_most`` has CLOCK_BINS bins (turns left <= 1 .. CLOCK_BINS),
#: ``slack_at_most`` one bin per slack value in SLACK_RANGE (slack <= -8 .. 8).
CLOCK_BINS = 16
SLACK_RANGE = range(-8, 9)
#: Paid-so-far counts per resort are divided by this (a Grassroots text pays at most 6).
PAID_SCALE = 6.0
#: Kinds of the pending effect: the core game's, then those that only an expansion's pipeline has.
_EFFECT_KINDS = ("formalize", "convert")
_EFFECT_KINDS_EXP = _EFFECT_KINDS + ("place", "move", "take", "play")
#: The core game's decisions (the first six of the engine's PHASE_NAMES; ``target`` and ``exchange``
#: exist only with an expansion, so the core ``phase`` view keeps its six entries).
CORE_PHASES = ("place_tile", "political", "move_to", "pay", "gain", "over")
assert PHASE_NAMES[: len(CORE_PHASES)] == CORE_PHASES
#: Zones of a MeasureCard (EXP-01-02-16), in the order of the ``measure_zone`` view.
MEASURE_ZONES = ("draw_pile", "open", "hand", "recycle_pile", "final_discard")
#: Timing keys of active effects (``effects.TIMINGS``), in the order of the ``effect_until`` view.
EFFECT_TIMINGS = _fx.TIMINGS

# Events whose effect on the tracked board data is known; anything else forces a rebuild.
_NO_BOARD_CHANGE = frozenset(
    ("setup", "start-player", "starting-influence", "discard", "pass", "pay", "formalize", "convert", "settlement",
     "produce", "game-over", "draw-pile-empty", "production-prohibited",
     # EXP-01: the Measure lifecycle, durations and the Investment Program exchange touch no tracked plane.
     "measure-setup", "take-measure", "measure-refill", "measure-not-refilled", "measure-recycle", "play-measure",
     "measure-effect", "measure-recycled", "measure-final-discard", "effect-expired", "effect-consumed",
     "additional-action", "investment-exchange", "investment-declined",
     # EXP-02: Regulations have planes of their own (encoding/exp02.py), written at each encoding.
     "regulation-placed", "regulation-moved", "regulation-removed", "regulation-not-placed", "authority-apparatus",
     "inner-order-declined", "production-tax", "production-tax-declined")
)  # fmt: skip
# Events that mark a Hotspot resolved without moving Influence (v1.3 Labor Market, EXP-01-02-C-03..07).
_RESOLVES_ONLY = frozenset(("labor-market", "labor-market-capped", "inner-order", "hotspot-output-zero"))


def tile_type_key(spec: Any) -> tuple[int, int, int, int, str, str]:
    """Tiles of one key are indistinguishable for the DrawPile composition."""
    return (spec.kind, spec.resort, spec.value, spec.text, spec.label, spec.special)


class Encoder:
    """Observation encoder for one rules configuration. Create once, call :meth:`encode` per step."""

    def __init__(self, config: RulesConfig | str, *, _tables: Encoder | None = None) -> None:
        config = RulesConfig.resolve(config)
        if _tables is not None:  # fork(): the tables of another encoder, a tracker of its own
            self._share(_tables)
            self._new_tracker()
            return
        self.config = config
        self.version = encoder_version(config)
        self.topo = topo = get_topology(config.topology, config.table_size)
        self.catalogue = cat = build_catalogue(config)
        self.resorts = config.resorts
        P = self.num_players = config.players
        R = self.num_resorts = len(config.resorts)
        self.size = S = topo.size
        N = self.num_cells = topo.num_cells
        self.cap = config.cap
        self.max_neighbors = 6 if config.topology == "hex" else 4
        # Expansion state (EXP-01): Measure cards, decks, tiles with their own text. All empty in the core game.
        self.expansion = ex = bool(config.exp01 or config.exp02 or config.exp03)
        self.measures = measures = build_measures(config) if ex else ()
        self.card_names: tuple[str, ...] = tuple(m.key for m in measures)
        self.decks: tuple[str, ...] = tuple(dict.fromkeys(m.deck for m in measures))
        self.specials: tuple[str, ...] = tuple(dict.fromkeys(spec.special for spec in cat if spec.special))
        #: Active-effect ids with a view of their own (a Measure's lasting effect has its card key as id).
        self.effect_ids: tuple[str, ...] = self.card_names
        #: The effect ids whose effect targets a Board tile (one ``measure_target`` plane each).
        self.tile_target_ids: tuple[str, ...] = tuple(
            m.key for m in measures if m.target != NO_TARGET and m.target not in PLAYER_TARGETS
        )
        #: The active expansions' own views (views.py), in canonical order.
        self.expansion_views: tuple[ExpansionView, ...] = tuple(
            EXPANSION_VIEWS[name] for name in _expansion_names(config) if name in EXPANSION_VIEWS
        )
        xv = self.expansion_views
        self.phase_names: tuple[str, ...] = (PHASE_NAMES if ex else CORE_PHASES) + tuple(
            k for view in xv for k in view.phases
        )
        self.effect_kinds: tuple[str, ...] = (_EFFECT_KINDS_EXP if ex else _EFFECT_KINDS) + tuple(
            k for view in xv for k in view.effect_kinds
        )
        self._effect_index = {k: i for i, k in enumerate(self.effect_kinds)}
        self._phase_index = {k: i for i, k in enumerate(self.phase_names)}
        #: Timing keys of the ``effect_until`` view: the built-in ones, then those the expansions' views add.
        self.effect_timings: tuple[str, ...] = EFFECT_TIMINGS + tuple(t for view in xv for t in view.timings)

        # ---------------------------------------------------------------- tile types (pile composition)
        keys: list[tuple[int, int, int, int, str, str]] = []
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
        if ex:  # expansion planes follow the core ones (the core channels keep their rows)
            channels += [("tile_special", len(self.specials)), ("measure_target", len(self.tile_target_ids))]
        view_planes = [entry for view in xv for entry in view.planes(self)]
        channels += view_planes
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
            + ([f"tile_special/{x}" for x in self.specials] + [f"measure_target/{x}" for x in self.tile_target_ids])
            + [f"{name}/{k}" for name, count in view_planes for k in range(count)]
        )
        self._plane_offsets = {name: rows[name] * N for name, _ in view_planes}

        # ---------------------------------------------------------------- non-board vector
        # (name, shape, player axis: "" none / "p" the first axis / "q" the last axis)
        vector: list[tuple[str, tuple[int, ...], str]] = [
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
            ("turns_left", (P,), "p"),
            ("turns_left_at_most", (P, CLOCK_BINS), "p"),
            ("slack_at_most", (P, len(SLACK_RANGE)), "p"),
            ("phase", (len(self.phase_names),), ""),
            ("effect_kind", (len(self.effect_kinds),), ""),
            ("paid", (R,), ""),
            ("gain_options", (R,), ""),
            ("reserved", (RESERVED_VECTOR,), ""),
        ]
        Cm, D, E, S = len(measures), len(self.decks), len(self.effect_ids), len(self.specials)
        exp_vector: list[tuple[str, tuple[int, ...], str]] = []
        if ex:  # expansion views follow the core ones
            exp_vector = [
                ("hand_special", (S,), ""),
                ("measure_zone", (Cm, len(MEASURE_ZONES)), ""),
                ("measure_hand", (P, Cm), "p"),
                ("hand_size", (P,), "p"),
                ("measure_plays", (Cm,), ""),
                ("measure_piles", (D, 4), ""),
                ("measure_played", (P,), "p"),
                ("additional_action", (1,), ""),
                ("pending_card", (Cm,), ""),
                ("pending_target_player", (P,), "p"),
                ("pending_gain", (R,), ""),
                ("exchange_options", (R,), ""),
                ("effect_count", (E,), ""),
                ("effect_owner", (E, P), "q"),
                ("effect_target_player", (E, P), "q"),
                ("effect_until", (E, len(self.effect_timings)), ""),
                ("effect_turns_left", (E,), ""),
                ("effect_waiting", (E,), ""),
                ("effect_used", (E,), ""),
            ]
            vector += exp_vector
        view_vector = [entry for view in xv for entry in view.vector(self)]
        vector += view_vector
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
            rel = [(o + k) % P for k in range(P)]
            for name, shape, axis in vector:
                start, size = voff[name], int(np.prod(shape))
                if axis == "p":
                    block = np.arange(size).reshape(P, size // P) + start
                    perm[start : start + size] = block[rel].ravel()
                elif axis == "q":
                    block = np.arange(size).reshape(size // P, P) + start
                    perm[start : start + size] = block[:, rel].ravel()
            self._vec_perm.append(perm)
        self._offsets = (
            voff["hand_kind"], voff["hand_resort"], voff["hand_value"], voff["supply"], voff["deployed"],
            voff["resources"], voff["resources_log"], voff["start_player"], voff["to_act"], voff["bank"],
            voff["bank_finite"], voff["noise"], voff["formalize_gate"], voff["pile"], voff["pile_size"],
            voff["discard_size"], voff["round"], voff["turn_in_round"], voff["phase"], voff["effect_kind"],
            voff["paid"], voff["gain_options"], voff["turns_left"], voff["turns_left_at_most"], voff["slack_at_most"],
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
        set_scale("turns_left", 1.0 / self._max_round)
        set_scale("paid", 1.0 / PAID_SCALE)
        if ex:
            set_scale("hand_size", 1.0 / HAND_LIMIT)
            set_scale("measure_plays", 1.0 / MAX_PLAYS)
            deck_sizes = [sum(1 for m in measures if m.deck == d) for d in self.decks]
            set_scale("measure_piles", np.repeat(1.0 / np.asarray(deck_sizes, dtype=np.float64), 4))
            set_scale("effect_count", 1.0 / MAX_PLAYS)
            set_scale("effect_turns_left", 1.0 / (2 * P))
            self._xoff = {name: voff[name] for name, _, _ in exp_vector}
            self._effect_row = {k: i for i, k in enumerate(self.effect_ids)}
            self._target_row = {k: i for i, k in enumerate(self.tile_target_ids)}
            self._player_target = {m.key: m.target in PLAYER_TARGETS for m in measures}
            self._special_index = {x: i for i, x in enumerate(self.specials)}
            self._timing_index = {t: i for i, t in enumerate(self.effect_timings)}
        for view in xv:
            for name, value in view.scales(self).items():
                set_scale(name, value)
        self._scale = scale
        self._zero_list = [0.0] * NB
        self._finite_bank = config.bank_stock is not None
        self._log_table = [min(math.log2(x + 1) / RES_LOG_BITS, 1.0) for x in range(64)]
        # Clock thermometer rows: turns left 0 .. CLOCK_BINS + 1 (more reads as CLOCK_BINS + 1); slack from one
        # below to one above SLACK_RANGE (beyond reads as the ends).
        self._at_most_rows = [[1.0 if t <= k + 1 else 0.0 for k in range(CLOCK_BINS)] for t in range(CLOCK_BINS + 2)]
        lo, hi = SLACK_RANGE.start - 1, SLACK_RANGE.stop
        self._slack_rows = [[1.0 if x <= k else 0.0 for k in SLACK_RANGE] for x in range(lo, hi + 1)]

        # Static board: empty table cells and off-table cells.
        static = np.zeros((C, N), dtype=np.float32)
        on = np.asarray(topo.on_table, dtype=bool)
        static[rows["tile"] + 0, on] = 1.0
        static[rows["tile"] + 1, ~on] = 1.0
        self._static = static
        self.low = np.zeros(self.size_total, dtype=np.float32)
        self.high = np.ones(self.size_total, dtype=np.float32)

        self._pack_vector = struct.Struct(f"{NB}f").pack
        self._float32 = np.dtype(np.float32)
        self._vec_perm_lists: list[list[int]] = [perm.tolist() for perm in self._vec_perm]
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
        self._row_special = rows.get("tile_special", 0) * N
        self._row_target = rows.get("measure_target", 0) * N
        self._new_tracker()

    def _new_tracker(self) -> None:
        """A fresh board tracker (one game at a time), the only state of an encoder that encoding changes.

        The flat planes are an array.array (single-element writes are cheap) with NumPy views on the same memory
        (copies and permutations are cheap). An observation is the board rows in the observer's order (memoryviews
        of the runs of consecutive rows in ``self._board_buf``), then the non-board vector packed as float32
        (scaled in place after)."""
        C, N = self.num_channels, self.num_cells
        self._board_buf = array.array("f", self._static.reshape(-1).tobytes())
        self._flat = np.frombuffer(self._board_buf, dtype=np.float32)
        self._board = self._flat.reshape(C, N)
        board_bytes = memoryview(self._board_buf).cast("B")
        self._board_parts: list[list[memoryview]] = []
        for o in range(self.num_players):
            parts: list[memoryview] = []
            order = self._board_rows[o].tolist()
            first = 0
            for k in range(1, C + 1):
                if k == C or order[k] != order[k - 1] + 1:
                    parts.append(board_bytes[order[first] * N * 4 : (order[k - 1] + 1) * N * 4])
                    first = k
            self._board_parts.append(parts)
        self._version = 0
        self._pile: list[int] = [0] * len(self.tile_type_names)
        self._game: Game | None = None
        self._events: list[dict[str, Any]] | None = None
        self._seen = 0
        self._last_event: dict[str, Any] | None = None
        self.rebuilds = 0  # how many full rebuilds happened (for tests and profiling)

    def _share(self, t: Encoder) -> None:
        """Every table of ``t`` (read-only after construction), by reference: the part of an encoder that ``fork``
        shares. (Explicit: a compiled class has no ``__dict__`` to copy.)"""
        self.config = t.config
        self.version = t.version
        self.topo = t.topo
        self.catalogue = t.catalogue
        self.resorts = t.resorts
        self.num_players = t.num_players
        self.num_resorts = t.num_resorts
        self.size = t.size
        self.num_cells = t.num_cells
        self.cap = t.cap
        self.max_neighbors = t.max_neighbors
        self.expansion = t.expansion
        self.measures = t.measures
        self.card_names = t.card_names
        self.decks = t.decks
        self.specials = t.specials
        self.effect_ids = t.effect_ids
        self.tile_target_ids = t.tile_target_ids
        self.expansion_views = t.expansion_views
        self.phase_names = t.phase_names
        self.effect_kinds = t.effect_kinds
        self._effect_index = t._effect_index
        self._phase_index = t._phase_index
        self.effect_timings = t.effect_timings
        self.tile_type_names = t.tile_type_names
        self._type_of = t._type_of
        self._type_of_list = t._type_of_list
        self._inv_initial = t._inv_initial
        self._pile_total = t._pile_total
        self._max_round = t._max_round
        self.num_channels = t.num_channels
        self.board_size = t.board_size
        self._rows = t._rows
        self.channel_names = t.channel_names
        self._plane_offsets = t._plane_offsets
        self.vector_size = t.vector_size
        self._voff = t._voff
        self.spec = t.spec
        self.size_total = t.size_total
        self._board_rows = t._board_rows
        self._vec_perm = t._vec_perm
        self._offsets = t._offsets
        self._scale = t._scale
        self._zero_list = t._zero_list
        self._finite_bank = t._finite_bank
        self._log_table = t._log_table
        self._at_most_rows = t._at_most_rows
        self._slack_rows = t._slack_rows
        self._static = t._static
        self.low = t.low
        self.high = t.high
        self._pack_vector = t._pack_vector
        self._float32 = t._float32
        self._vec_perm_lists = t._vec_perm_lists
        self._row_tile = t._row_tile
        self._row_resort = t._row_resort
        self._row_value = t._row_value
        self._row_resolved = t._row_resolved
        self._row_frontier = t._row_frontier
        self._row_influence = t._row_influence
        self._row_lobbyist = t._row_lobbyist
        self._row_control = t._row_control
        self._idx_move_source = t._idx_move_source
        self._idx_effect_tile = t._idx_effect_tile
        self._row_special = t._row_special
        self._row_target = t._row_target
        if t.expansion:
            self._xoff = t._xoff
            self._effect_row = t._effect_row
            self._target_row = t._target_row
            self._player_target = t._player_target
            self._special_index = t._special_index
            self._timing_index = t._timing_index

    def fork(self) -> Encoder:
        """An encoder of the same configuration that shares this one's tables (layout, scales, permutations, static
        planes: read-only) and has a board tracker of its own. The tracker follows one game at a time, so a batch of
        games (``bc_env.vector``) keeps one fork per game: incremental encoding for each, at the memory of one
        tracker (the board planes) instead of a whole encoder, built in microseconds instead of milliseconds."""
        return Encoder(self.config, _tables=self)

    # ------------------------------------------------------------------ public API
    def encode(self, game: Game, observer: Any) -> np.ndarray:
        """The observation of seat ``observer`` as a new flat float32 vector."""
        out = np.empty(self.size_total, dtype=self._float32)
        self.encode_into(game, observer, out)
        return out

    def encode_into(self, game: Game, observer: Any, out: Any) -> None:
        """Write the observation of seat ``observer`` into ``out``: a writable C-contiguous float32 array of shape
        ``(size_total,)`` (e.g. a row of a preallocated ``(N, size_total)`` batch); every value is written, nothing
        is allocated for the observation itself. :meth:`encode` is this into a fresh array (the same bytes)."""
        if game.topo is not self.topo or game.num_players != self.num_players:
            raise ValueError(f"this encoder is for {self.config.name!r}; the game uses {game.config.name!r}")
        if not 0 <= observer < self.num_players:
            raise ValueError(f"observer must be a seat in 0..{self.num_players - 1}, got {observer!r}")
        if (
            not isinstance(out, np.ndarray)
            or out.dtype != self._float32
            or out.shape != (self.size_total,)
            or not out.flags.c_contiguous
            or not out.flags.writeable
        ):
            raise ValueError(
                f"out must be a writable C-contiguous float32 array of shape ({self.size_total},), got "
                f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}"
            )
        o: int = operator.index(observer)
        self._sync(game)
        vector_bytes: Any = self._vector(game, o) if self.expansion else self._vector_core(game, o)
        # The board rows in the observer's order (runs of consecutive tracker rows), then the raw vector.
        buf = out.data.cast("B")
        pos = 0
        for part in self._board_parts[o]:
            end = pos + len(part)
            buf[pos:end] = part
            pos = end
        buf[pos:] = vector_bytes
        vector = out[self.board_size :]
        np.multiply(vector, self._scale, out=vector)
        dec = game.decision  # decision context on the board (out's board rows were all just written)
        if isinstance(dec, MoveTo):
            out[self._idx_move_source + dec.src] = 1.0
        elif isinstance(dec, Resolution):
            if dec.effect == "move":  # a Move with a cost (expansions): its source; the tile is its destination
                out[self._idx_move_source + dec.src] = 1.0
            if dec.tile >= 0:  # -1: no ContextTile (TakeMeasure, a PlayMeasure without a tile target)
                out[self._idx_effect_tile + dec.tile] = 1.0
        if self.expansion and game.active_effects:
            # The Board tiles targeted by active effects (observer-independent; out's planes were just written).
            rows, base, N = self._target_row, self._row_target, self.num_cells
            for a in game.active_effects:
                row = rows.get(a.id)
                if row is not None:
                    cell = a.get("cell", -1)
                    if cell is not None and cell >= 0:
                        out[base + row * N + cell] = 1.0
        for view in self.expansion_views:
            view.encode_planes(self, game, out)

    def encode_planes(self, game: Game, observer: int) -> dict[str, np.ndarray]:
        """``{"planes": (C, H, W), "vector": (K,)}`` views of one fresh observation."""
        planes, vector = self.split(self.encode(game, observer))
        return {"planes": planes, "vector": vector}

    def plane_offset(self, name: str) -> int:
        """Where an expansion view's board plane ``name`` starts in the flat observation (views.py)."""
        return self._plane_offsets[name]

    def vector_offset(self, name: str) -> int:
        """Where the non-board entry ``name`` starts in the raw vector an expansion view writes (views.py)."""
        return self._voff[name]

    def split(self, vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The board planes ``(C, H, W)`` and the non-board vector of a flat observation (views)."""
        bs = self.board_size
        return vec[:bs].reshape(self.num_channels, self.size, self.size), vec[bs:]

    def views(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """Every named part of a flat observation as a reshaped view (writes go through)."""
        return {name: vec[off : off + int(np.prod(shape))].reshape(shape) for name, (off, shape) in self.spec.items()}

    # ------------------------------------------------------------------ non-board features
    def _vector(self, g: Game, observer: int) -> bytes:
        """The non-board features, seat-relative, as float32 bytes before scaling.

        Raw values go into a list in absolute seat order, then permuted to the observer's order and packed as
        float32; the caller scales them by one NumPy multiplication. Every raw value is bounded so that the scaled
        value lies in [0, 1] (the saturating ones are clamped here), which keeps the observation inside its Box.
        """
        (o_hand_kind, o_hand_resort, o_hand_value, o_players, o_deployed, o_resources, o_resources_log,
         o_start_player, o_to_act, o_bank, o_bank_finite, o_noise, o_gate, o_pile, o_pile_size, o_discard_size,
         o_round, o_turn, o_phase, o_effect_kind, o_paid, o_gain, o_turns_left, o_turns_at_most,
         o_slack) = self._offsets  # fmt: skip
        v: list[Any] = self._zero_list[:]
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
        v[o_players : o_players + 5 * P] = g.supply + g.on_board + starting + deployed + g.created
        v[o_players + 5 * P : o_players + 6 * P] = g.start_used
        # "deployed" is the progress towards the formalize gate (RULINGS R11): min(deployed, starting) / starting.
        v[o_deployed : o_deployed + P] = [min(x, st) / st if st > 0 else 1.0 for x, st in zip(deployed, starting)]
        res = g.res
        n = len(res)
        v[o_resources : o_resources + n] = [x if x < RES_LINEAR else RES_LINEAR for x in res]
        log = self._log_table
        v[o_resources_log : o_resources_log + n] = [log[x] if x < 64 else 1.0 for x in res]
        v[o_start_player + g.start_player] = 1.0
        dec = g.decision
        if dec is not None:
            v[o_to_act + dec.owner] = 1.0
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
        v[o_phase + self._phase_index[g.phase_name]] = 1.0
        if dec is not None:
            self._clock(g, v, o_turns_left, o_turns_at_most, o_slack)
        # A core Move (decision move_to) is no effect yet; with an expansion a Move can have a cost.
        if isinstance(dec, Resolution):
            v[o_effect_kind + self._effect_index[dec.effect]] = 1.0
            for r in dec.paid:
                if v[o_paid + r] < PAID_SCALE:
                    v[o_paid + r] += 1.0
            if dec.kind == "gain":
                for r in dec.gains:
                    v[o_gain + r] = 1.0
        elif isinstance(dec, Target):
            v[o_effect_kind + self._effect_index["play"]] = 1.0
        if self.expansion:
            self._vector_exp(g, v)
            for view in self.expansion_views:
                view.encode_vector(self, g, v)
        return self._pack_vector(*[v[i] for i in self._vec_perm_lists[observer]])

    def _vector_core(self, g: Game, observer: int) -> bytes:
        """:meth:`_vector` of a configuration without expansions, the same bytes: each value goes straight to its
        place in the observer's order (relative player ``k`` is the seat ``(observer + k) % P``), so no permutation
        (``tests/test_encoding.py`` compares the two). A list, then one pack: a compiled list store is far cheaper
        than an ``array.array`` store (which parses its argument)."""
        (o_hand_kind, o_hand_resort, o_hand_value, o_players, o_deployed, o_resources, o_resources_log,
         o_start_player, o_to_act, o_bank, o_bank_finite, o_noise, o_gate, o_pile, o_pile_size, o_discard_size,
         o_round, o_turn, o_phase, o_effect_kind, o_paid, o_gain, o_turns_left, o_turns_at_most,
         o_slack) = self._offsets  # fmt: skip
        a: list[Any] = self._zero_list[:]
        tile = g.drawn
        if tile >= 0:
            spec = self.catalogue[tile]
            a[o_hand_kind + spec.kind] = 1.0
            if spec.kind == RESORT:
                a[o_hand_resort + spec.resort] = 1.0
                a[o_hand_value] = spec.value  # / 5 by the scale vector
        P = self.num_players
        R = self.num_resorts
        supply, on_board, starting, deployed = g.supply, g.on_board, g.starting, g.deployed
        created, start_used, res = g.created, g.start_used, g.res
        log = self._log_table
        for k in range(P):
            p = observer + k
            if p >= P:
                p -= P
            # supply, on_board, starting, deployed (as the progress towards the formalize gate, RULINGS R11),
            # created, start_used: consecutive views of P values each.
            a[o_players + k] = supply[p]
            a[o_players + P + k] = on_board[p]
            st = starting[p]
            a[o_players + 2 * P + k] = st
            x = deployed[p]
            a[o_deployed + k] = (x if x < st else st) / st if st > 0 else 1.0
            a[o_players + 4 * P + k] = created[p]
            if start_used[p]:
                a[o_players + 5 * P + k] = 1.0
            for r in range(R):
                x = res[p * R + r]
                a[o_resources + k * R + r] = x if x < RES_LINEAR else RES_LINEAR
                a[o_resources_log + k * R + r] = log[x] if x < 64 else 1.0
        a[o_start_player + (g.start_player - observer) % P] = 1.0
        dec = g.decision
        if dec is not None:
            a[o_to_act + (dec.owner - observer) % P] = 1.0
        if self._finite_bank:
            bank = g.bank
            for r in range(R):
                a[o_bank + r] = bank[r]
            a[o_bank_finite] = 1.0
        noise = g.noise
        for r in range(R):
            x = noise[r]
            a[o_noise + r] = log[x] if x < 64 else 1.0
        if g.formalize_gate_open():
            a[o_gate] = 1.0
        pile = self._pile
        for i in range(len(pile)):
            a[o_pile + i] = pile[i]
        a[o_pile_size] = len(g.draw_pile)
        a[o_discard_size] = len(g.discard)
        a[o_round] = g.round if g.round < self._max_round else self._max_round
        a[o_turn] = g.turns_in_round
        a[o_phase + self._phase_index[g.phase_name]] = 1.0
        if dec is not None:  # the clock (see _clock), per relative player
            top = self._max_round
            at_most, slack_rows = self._at_most_rows, self._slack_rows
            last_at_most, lo, nb = CLOCK_BINS + 1, SLACK_RANGE.start - 1, len(SLACK_RANGE)
            for k in range(P):
                p = observer + k
                if p >= P:
                    p -= P
                left = g.turns_left(p)
                a[o_turns_left + k] = left if left < top else top
                first = o_turns_at_most + k * CLOCK_BINS
                a[first : first + CLOCK_BINS] = at_most[left if left < last_at_most else last_at_most]
                needed = g.actions_to_cap(p)
                x = min(max(left - needed - lo, 0), nb + 1)
                first = o_slack + k * nb
                a[first : first + nb] = slack_rows[x]
        if isinstance(dec, Resolution):
            a[o_effect_kind + self._effect_index[dec.effect]] = 1.0
            for r in dec.paid:
                if a[o_paid + r] < PAID_SCALE:
                    a[o_paid + r] += 1.0
            if dec.kind == "gain":
                for r in dec.gains:
                    a[o_gain + r] = 1.0
        elif isinstance(dec, Target):
            a[o_effect_kind + self._effect_index["play"]] = 1.0
        return self._pack_vector(*a)

    def _clock(self, g: Game, v: list[Any], o_left: int, o_at_most: int, o_slack: int) -> None:
        """The game clock per player: Political Actions still to take (``Game.turns_left``), as a count and a
        thermometer, and the slack: those turns minus the Place and FormalizeInfluence actions still needed to
        reach the cap (each Influence not on the Board needs a Place, each not yet created a FormalizeInfluence;
        RULINGS R12)."""
        P, top = self.num_players, self._max_round
        at_most, slack_rows = self._at_most_rows, self._slack_rows
        last_at_most, lo, nb = CLOCK_BINS + 1, SLACK_RANGE.start - 1, len(SLACK_RANGE)
        for p in range(P):
            left = g.turns_left(p)
            v[o_left + p] = left if left < top else top
            first = o_at_most + p * CLOCK_BINS  # bin k: turns left <= k + 1
            v[first : first + CLOCK_BINS] = at_most[left if left < last_at_most else last_at_most]
            needed = g.actions_to_cap(p)
            x = min(max(left - needed - lo, 0), nb + 1)  # row of the slack, clamped to the rows' range
            first = o_slack + p * nb  # bin k: slack <= SLACK_RANGE[k]
            v[first : first + nb] = slack_rows[x]

    def _vector_exp(self, g: Game, v: list[Any]) -> None:
        """The expansion features (EXP-01), raw and in absolute seat order, into ``v``."""
        x = self._xoff
        if g.drawn >= 0:
            special = self.catalogue[g.drawn].special
            if special:
                v[x["hand_special"] + self._special_index[special]] = 1.0
        # The Measure zones (EXP-01-02-16); hands are public (RULINGS R19), the draw pile order is not read.
        Cm = len(self.card_names)
        nz = len(MEASURE_ZONES)
        o_zone, o_piles = x["measure_zone"], x["measure_piles"]
        mz = zones(g)
        for d in range(len(self.decks)):
            for z, cards in enumerate((mz.draw[d], mz.open[d], None, mz.recycle[d], mz.final[d])):
                if cards:
                    for k in cards:
                        v[o_zone + k * nz + z] = 1.0
                    v[o_piles + d * 4 + (z if z < 2 else z - 1)] = len(cards)
        o_hand, o_size = x["measure_hand"], x["hand_size"]
        for p, hand in enumerate(mz.hands):
            if hand:
                v[o_size + p] = len(hand)
                for k in hand:
                    v[o_zone + k * nz + 2] = 1.0
                    v[o_hand + p * Cm + k] = 1.0
        o_plays = x["measure_plays"]
        for k, n in enumerate(mz.count):
            if n:
                v[o_plays + k] = n if n < MAX_PLAYS else MAX_PLAYS
        # EXP-01-06-18: who has played a Measure this round; v1.3 EXP-01-06-05: the additional action.
        o_played, rnd = x["measure_played"], g.round
        for p, r in enumerate(mz.last_round):
            if r == rnd:
                v[o_played + p] = 1.0
        if mz.extra:
            v[x["additional_action"]] = 1.0
        dec = g.decision
        if isinstance(dec, Target):
            v[x["pending_card"] + dec.card] = 1.0
        elif isinstance(dec, Resolution):
            if dec.card >= 0:
                v[x["pending_card"] + dec.card] = 1.0
            if dec.target >= 0:
                v[x["pending_target_player"] + dec.target] = 1.0
            if dec.kind == "exchange":  # EXP-01-05-03/04: the gain chosen, the exchanges on offer
                v[x["pending_gain"] + dec.gain] = 1.0
                for r in dec.exchanges:
                    v[x["exchange_options"] + r] = 1.0
            elif dec.supplements is not None:  # EXP-01-06-M10-04, BC-30: paying for the exchange chosen
                v[x["pending_gain"] + dec.gain] = 1.0
                v[x["exchange_options"] + dec.exchange] = 1.0
        if g.active_effects:
            self._effects_exp(g, v)

    def _effects_exp(self, g: Game, v: list[Any]) -> None:
        """Active effects by id: count, owner, target player, timing, turns left, waiting, usage flag."""
        x = self._xoff
        P = self.num_players
        rows = self._effect_row
        nt = len(self.effect_timings)
        o_count, o_owner, o_target = x["effect_count"], x["effect_owner"], x["effect_target_player"]
        o_until, o_left = x["effect_until"], x["effect_turns_left"]
        o_wait, o_used = x["effect_waiting"], x["effect_used"]
        cap = 2 * P
        for a in g.active_effects:
            e = rows.get(a.id)
            if e is None:
                continue  # an effect without a view of its own (none in EXP-01)
            if v[o_count + e] < MAX_PLAYS:
                v[o_count + e] += 1.0
            v[o_owner + e * P + a.owner] = 1.0
            if self._player_target.get(a.id):
                q = a.get("target", a.get("player", -1))  # Budget Deficit: "target"; Investment Freeze: "player"
                if q is not None and q >= 0:
                    v[o_target + e * P + q] = 1.0
            v[o_until + e * nt + self._timing_index[a.until]] = 1.0
            left = self._turns_left(g, a)
            if left > cap:
                left = cap
            if left > v[o_left + e]:
                v[o_left + e] = left
            if a.from_round > g.round:
                v[o_wait + e] = 1.0
            if a.get("used"):
                v[o_used + e] = 1.0

    def _turns_left(self, g: Game, a: Any) -> int:
        """Turns until ``a`` expires, the current turn included (large for permanent / consumed effects).

        The windows are those of ``effects.expire`` as the game calls it: END_OF_TURN at the end of this
        turn, END_OF_ROUND / END_OF_SETTLEMENT at the Round Settlement of round ``max(round, from_round)``,
        END_OF_PLAYER_TURN at the end of ``data["player"]``'s next turn after the one it was created in
        (docs/rulings.md BC-28..30), OWNER_NEXT_TURN when the owner's next turn begins.
        """
        P = self.num_players
        until = a.until
        if until == _fx.END_OF_TURN:
            return 1
        if until == _fx.END_OF_ROUND or until == _fx.END_OF_SETTLEMENT:
            later = a.from_round - g.round
            return P - g.turns_in_round + (later * P if later > 0 else 0)
        if until == _fx.END_OF_PLAYER_TURN:
            q = a.get("player", -1)
            if q == g.active and a.get("turn", -1) < g.turn:
                return 1
            return ((q - g.active) % P or P) + 1
        if until == _fx.OWNER_NEXT_TURN:
            return (a.owner - g.active) % P or P
        if until == _fx.END_OF_NEXT_ROUND:  # through the settlement of the round after data["round"] (R39)
            return P - g.turns_in_round + max(0, a.get("round", g.round) + 1 - g.round) * P
        return 4 * P  # permanent, until consumed: saturates

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
            elif t in ("hotspot-no-majority", "hotspot-no-supply") or t in _RESOLVES_ONLY:
                w[resolved + e["cell"]] = 1.0
            elif t == "measure-applied":  # EXP-01-06-M01-04: a blocked Hotspot is resolved, nothing moves
                if e.get("kind") == "hotspot":
                    w[resolved + e["cell"]] = 1.0
            else:
                self._rebuild(g)
                return
        for c in set(dirty):
            self._set_control(g, c, w)
        if w:
            buf = self._board_buf
            for i, x in w.items():
                buf[i] = x
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
        elif spec.special:  # Labor Market, Investment Program (EXP-01-02-10/13)
            w[self._row_special + self._special_index[spec.special] * N + c] = 1.0
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
