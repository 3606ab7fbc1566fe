"""The game: state, legal actions, apply, turn / round / settlement flow and the event log.

The pending decision is the top of a stack of decision objects (``decisions.py``), owned by
``current_player`` (RULINGS R23); resolutions in progress (the Hotspots a placement closed, a Round
Settlement, an effect being paid for) are frames below it and resume after it. The core decisions are

* ``place_tile``: where the drawn tile goes (CORE-01-04-04..08, RULINGS R3);
* ``political``: the turn's one Political Action (CORE-01-04-09, RULINGS R7);
* ``move_to``: the destination of a Move (CORE-01-04-12, RULINGS R10);
* ``pay``: the next Resource of a payment, when the cost leaves a choice (RULINGS R18);
* ``gain``: the resort a ConvertResources takes from the Bank (CORE-01-04-22, RULINGS R16).

Expansions add decisions of their own (frames of ``decisions.py`` or of their modules) through the hooks of
``expansions/base.py``; this module names no expansion. With an expansion, every Political Action resolves
through the effect pipeline of ``effects.py`` (ContextTile, prohibitions, total cost with extra costs and
substitutions, payment decisions, post-payment choices, atomic execution); in the core game Place and Move
cost nothing and go straight to execution.

An effect's choices (payment, gain) are collected in one record (``decisions.Resolution``) and executed at
once at the end, so a half-decided effect has changed nothing (CORE-01-06-00-03). A payment is chosen one
Resource at a time in ascending resort order; the engine asks only while more than one payment remains
possible and completes a payment by itself once it is determined (see docs/actions.md).
"""

from __future__ import annotations

import operator
from bisect import bisect_left, insort
from collections import OrderedDict
from typing import Any, Final, SupportsIndex

import numpy as np

from . import effects
from .actions import CONVERT, FORMALIZE, MOVE_FROM, MOVE_TO, PLACE, ActionLayout
from .components import (
    COMMITTEE,
    GRASSROOTS,
    HOTSPOT,
    LOBBYIST,
    RESORT,
    START,
    TileSpec,
    build_catalogue,
)
from .config import GrassrootsText, RulesConfig
from .decisions import (
    PLACE_TILE,
    POLITICAL,
    AfterSettlement,
    Frame,
    HotspotQueue,
    MoveTo,
    Resolution,
    Settlement,
)
from .effects import ActiveEffect, Cost, Effect, Payment
from .errors import IllegalActionError, NotImplementedRuleError
from .expansions import Expansion, build_measures, expansions_for
from .expansions.base import ExpansionState, HotspotResolver, incomplete_allowed
from .expansions.measures import MeasureSpec
from .rng import Rng
from .topology import Topology, get_topology

_STARTING_RULE = {2: "CORE-01-03-04", 3: "CORE-01-03-05", 4: "CORE-01-03-06", 5: "ADD56-01-02-01", 6: "ADD56-01-02-02"}

_Shared = tuple[
    Topology, tuple[TileSpec, ...], ActionLayout, tuple[MeasureSpec, ...], tuple[str, ...], tuple[Expansion, ...],
    dict[str, HotspotResolver], tuple[Expansion, ...],
]  # fmt: skip
#: Immutable per-configuration data, least recently used last; bounded so that a long-lived process that sees
#: many configurations (a server, a sweep) does not grow without limit.
_SHARED_CACHE: OrderedDict[RulesConfig, _Shared] = OrderedDict()
_SHARED_CACHE_SIZE = 32


def _shared(config: RulesConfig) -> _Shared:
    """Immutable per-configuration data (topology, catalogue, layout, Measure cards, decks), built once."""
    got = _SHARED_CACHE.get(config)
    if got is None:
        topo = get_topology(config.topology, config.table_size)
        measures = build_measures(config)
        decks = tuple(dict.fromkeys(m.deck for m in measures))
        expansions = expansions_for(config)
        blocks = tuple(block for ex in expansions for block in ex.action_blocks)
        layout = ActionLayout(topo, config.resorts, tuple(m.key for m in measures), config.players, blocks)
        resolvers = {k: v for ex in expansions for k, v in ex.hotspot_resolvers.items()}
        sources = tuple(ex for ex in expansions if type(ex).modifiers is not Expansion.modifiers)
        got = (topo, build_catalogue(config), layout, measures, decks, expansions, resolvers, sources)
        _SHARED_CACHE[config] = got
        if len(_SHARED_CACHE) > _SHARED_CACHE_SIZE:
            _SHARED_CACHE.popitem(last=False)
    else:
        _SHARED_CACHE.move_to_end(config)
    return got


_PAY_RULES: Final = {"same": effects.SAME, "distinct": effects.DISTINCT, "any": effects.ANY}


def _recipe_cost(text: GrassrootsText, n_resorts: int) -> Cost:
    return ((text.pay, _PAY_RULES[text.pay_rule], (1 << n_resorts) - 1),)


#: The token of an empty Game (Game._blank and Game.clone fill in every slot).
_BLANK = object()


class Game:
    """A game of BALANCE // CONTROL. Create with :meth:`new` or :meth:`from_dict`."""

    __slots__ = (
        "config", "topo", "catalogue", "layout", "num_players", "num_resorts", "cap",
        "rng", "draw_pile", "discard", "set_aside", "drawn", "tile_at", "kind_at", "board", "nonstart",
        "frontier", "in_frontier", "committees", "grassroots", "resort_cells", "infl",
        "supply", "on_board", "created", "deployed", "starting", "res", "bank", "noise",
        "start_used", "resolved", "round", "turns_in_round", "active", "start_player",
        "turn", "stack", "over", "_events", "_pending", "active_effects", "_legal", "_winners",
        "measures", "decks", "deck_of", "ext", "expansions", "hotspot_resolvers", "modifier_sources",
    )  # fmt: skip

    # Types of the slots, for type checkers (bare annotations create no class attributes, so they do not
    # clash with __slots__). Shared, immutable per configuration (see _shared):
    config: RulesConfig
    topo: Topology
    catalogue: tuple[TileSpec, ...]
    layout: ActionLayout
    measures: tuple[MeasureSpec, ...]
    #: The active expansions whose hooks the core flow calls (expansions/base.py), and the Hotspots with their
    #: own resolution (TileSpec.special -> resolver).
    expansions: tuple[Expansion, ...]
    hotspot_resolvers: dict[str, HotspotResolver]
    #: The expansions that contribute modifiers besides the durations in force (effects.py step 1).
    modifier_sources: tuple[Expansion, ...]
    decks: tuple[str, ...]
    deck_of: list[int]
    num_players: int
    num_resorts: int
    cap: int
    # Tiles and the board (per cell unless noted; cells ascending in the derived lists).
    rng: Rng
    draw_pile: list[int]
    discard: list[int]
    set_aside: list[int]  # design option equal_turns, docs/rulings.md BC-67
    drawn: int
    tile_at: list[int]
    kind_at: list[int]
    board: list[int]
    nonstart: list[int]
    frontier: list[int]
    in_frontier: list[bool]
    committees: list[int]
    grassroots: list[int]
    resort_cells: list[int]
    resolved: list[bool]
    # Influence and Resources (``infl``: cell * num_players + player; ``res``: player * num_resorts + resort).
    infl: list[int]
    supply: list[int]
    on_board: list[int]
    created: list[int]
    deployed: list[int]
    starting: list[int]
    start_used: list[bool]
    res: list[int]
    bank: list[int]
    noise: list[int]
    # Turn flow and the pending decision.
    round: int
    turns_in_round: int
    active: int
    start_player: int
    turn: int
    #: The decision stack (decisions.py); the top frame is the pending decision. Empty once the game is over.
    stack: list[Frame]
    over: bool
    #: The event log as read (``events``) and the events recorded since it was last read, not built yet: a tuple
    #: ``(type, rule, fields)`` (``fields``: key, value, key, value, ...; see :meth:`event`) or a finished dict.
    _events: list[dict[str, Any]]
    _pending: list[Any]
    active_effects: list[ActiveEffect]
    _legal: list[int] | None
    _winners: list[int] | None
    #: Each active expansion's own state by expansion name (``Expansion.new_state``; e.g. ``ext["measures"]``,
    #: the Measure zones).
    ext: dict[str, ExpansionState]

    # ------------------------------------------------------------------ construction
    def __init__(self, _blank: object = None) -> None:  # use Game.new / Game.from_dict
        if _blank is not _BLANK:  # (a compiled class cannot be made by object.__new__: Game(_BLANK) instead)
            raise TypeError("create a game with Game.new(config, seed) or Game.from_dict(data)")

    @classmethod
    def _blank(cls, config: RulesConfig) -> Game:
        g = Game(_BLANK)
        g.config = config
        (g.topo, g.catalogue, g.layout, g.measures, g.decks, g.expansions, g.hotspot_resolvers,
         g.modifier_sources) = _shared(config)  # fmt: skip
        for ex in g.expansions:  # an expansion still being built refuses to play half a game
            if ex.missing and not incomplete_allowed():
                raise NotImplementedRuleError(f"{ex.name} not implemented yet: {ex.missing} missing")
        g.num_players = config.players
        g.num_resorts = len(config.resorts)
        g.cap = config.cap
        n, p, r = g.topo.num_cells, g.num_players, g.num_resorts
        g.draw_pile = []
        g.discard = []
        g.set_aside = []
        g.drawn = -1
        g.tile_at = [-1] * n
        g.kind_at = [-1] * n
        g.board = []
        g.nonstart = []
        g.frontier = []
        g.in_frontier = [False] * n
        g.committees = []
        g.grassroots = []
        g.resort_cells = []
        g.infl = [0] * (n * p)
        g.supply = [0] * p
        g.on_board = [0] * p
        g.created = [0] * p
        g.deployed = [0] * p
        g.starting = [0] * p
        g.res = [0] * (p * r)
        g.bank = [config.bank_stock or 0] * r
        g.noise = [0] * r
        g.start_used = [False] * p
        g.resolved = [False] * n
        g.round = 1
        g.turns_in_round = 0
        g.active = 0
        g.start_player = 0
        g.turn = 0
        g.stack = []
        g.over = False
        g._events = []
        g._pending = []
        g.active_effects = []
        g._legal = None
        g._winners = None
        g.deck_of = [g.decks.index(m.deck) for m in g.measures]  # each card's deck (CORE-01-00-12)
        g.ext = {}
        for ex in g.expansions:
            state = ex.new_state(g)
            if state is not None:
                g.ext[ex.name] = state
        return g

    @classmethod
    def new(cls, config: RulesConfig | str, seed: object) -> Game:  # object: checked below (compiled, True would be 1)
        """Set up a new game (CORE-01-03) and draw the start player's first tile."""
        config = RulesConfig.resolve(config)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {seed!r}")
        g = cls._blank(config)
        g.rng = Rng.from_seed(seed)
        g.log("setup", "CORE-01-03-01", seed=seed, config=config.name)
        g._put_tile(0, g.topo.centre)  # CORE-01-03-01: Start Committee onto the Board, centre (R2)
        pile = list(range(1, len(g.catalogue)))  # CORE-01-02-02: not the Start Committee
        g.rng.shuffle(pile)  # CORE-01-03-02
        g.draw_pile = pile
        g.start_player = g.rng.below(g.num_players)  # CORE-01-03-03, RULINGS R6, docs/rulings.md BC-10
        g.active = g.start_player
        g.log("start-player", "CORE-01-03-03", player=g.start_player)
        for p in range(g.num_players):
            amount = config.starting_influence  # CORE-01-03-04..06, ADD56-01-02-01/02
            if config.first_player_handicap and p == g.start_player:
                amount -= 1  # VAR-01-02-02/03
            g.starting[p] = g.supply[p] = amount
            rule = "VAR-01-02-02" if amount < config.starting_influence else _STARTING_RULE[g.num_players]
            g.log("starting-influence", rule, player=p, amount=amount)
        for ex in g.expansions:
            ex.setup(g)  # an expansion's Setup additions
        if config.equal_turns:  # design option, docs/rulings.md BC-67: the shuffled pile's bottom tiles, face down
            k = len(g.draw_pile) % g.num_players
            g.set_aside = g.draw_pile[:k]
            del g.draw_pile[:k]
            g.log("set-aside", "BC-67", count=k)
        g._start_turn()
        g._run()
        return g

    # ------------------------------------------------------------------ public API
    @property
    def num_actions(self) -> int:
        return self.layout.num_actions

    @property
    def current_player(self) -> int | None:
        """The player who owns the pending decision (RULINGS R23); None when the game is over."""
        stack = self.stack
        return stack[-1].owner if stack else None

    @property
    def decision(self) -> Frame | None:
        """The pending decision (the top of the decision stack, see decisions.py); None when the game is over.
        Read-only: use :meth:`apply` to answer it."""
        stack = self.stack
        return stack[-1] if stack else None

    @property
    def phase_name(self) -> str:
        """The kind of the pending decision (``"place_tile"``, ``"political"``, ``"pay"``, ...), ``"over"`` at
        the end."""
        stack = self.stack
        if not stack:
            return "over"
        kind = stack[-1].kind
        assert kind is not None
        return kind

    @property
    def events(self) -> list[dict[str, Any]]:
        """The event log: one dict per event with its ``type``, the ``rule`` behind it and its data, oldest first
        (the same list object on every read; it only grows, until :meth:`forget_events`). The engine records
        events compactly (:meth:`event`) and builds their dicts here, when the log is read."""
        if self._pending:
            self._flush_events()
        return self._events

    @events.setter
    def events(self, value: list[dict[str, Any]]) -> None:
        self._events = value
        self._pending = []

    def forget_events(self) -> None:
        """Drop the event log so far, read or not (a new, empty list; a clone keeps its own copy). For a caller that
        never reads the log: the batched environment on the compact layout, whose games would otherwise keep most
        of their memory in it (issue 26). Later events are logged as before; no rule reads the log."""
        self._events = []
        self._pending = []

    def _flush_events(self) -> None:
        """Build the dicts of the events recorded since the log was last read, in order."""
        out = self._events
        for rec in self._pending:
            if isinstance(rec, dict):
                out.append(rec)
                continue
            fields: tuple[Any, ...] = rec[2]
            d: dict[str, Any] = {}
            for i in range(0, len(fields), 2):
                d[fields[i]] = fields[i + 1]
            d["type"] = rec[0]
            d["rule"] = rec[1]
            out.append(d)
        self._pending.clear()

    def is_terminal(self) -> bool:
        return self.over

    def legal_actions(self) -> list[int]:
        """Sorted legal actions of the pending decision (empty only when the game is over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return list(legal)

    def legal_action_mask(self) -> np.ndarray:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        # One bytearray written per legal action, then viewed as bool (writable, it owns the bytearray): cheaper
        # than np.zeros plus an index array built from the list.
        buf = bytearray(self.layout.num_actions)
        for a in legal:
            buf[a] = 1
        return np.frombuffer(buf, dtype=np.bool_)

    def action_to_string(self, action: SupportsIndex) -> str:
        """The canonical string of ``action`` (any action of the layout, legal or not)."""
        return self.layout.to_string(action)

    def string_to_action(self, text: object) -> int:  # object: parse checks it (a compiled str would not)
        return self.layout.parse(text)

    def returns(self) -> list[float]:
        """RULINGS R9: zero-sum; the k winners share +1, the others share -1 (0 before the end)."""
        n = self.num_players
        if not self.over:
            return [0.0] * n
        winners = self.winners()
        k = len(winners)
        if k == n:
            return [0.0] * n
        return [1.0 / k if p in winners else -1.0 / (n - k) for p in range(n)]

    def winners(self) -> list[int]:
        """CORE-01-09-03/04: the players with the most Influence on the Board (ties share; the design option
        ``tie_break = "resources"`` first breaks a tie by the Resources in each PersonalSupply, BC-67)."""
        if not self.over:
            return []
        if self._winners is None:
            best = max(self.on_board)
            tied = [p for p in range(self.num_players) if self.on_board[p] == best]
            if len(tied) > 1 and self.config.tie_break == "resources":
                r = self.num_resorts
                held = [sum(self.res[p * r : (p + 1) * r]) for p in tied]
                tied = [p for p, h in zip(tied, held) if h == max(held)]
            self._winners = tied
        return list(self._winners)

    def apply(self, action: SupportsIndex) -> None:  # a protocol: compiled, no type check before the engine's
        """Apply one legal action. An illegal or malformed action raises and changes nothing."""
        if isinstance(action, bool):
            raise IllegalActionError(f"an action must be an integer, got {action!r}")
        try:
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"an action must be an integer, got {action!r}") from None
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        i = bisect_left(legal, a)
        if i == len(legal) or legal[i] != a:
            raise IllegalActionError(self._illegal_message(a))
        self._legal = None
        stack = self.stack
        stack[-1].choose(self, a)
        if not stack or stack[-1].kind is None:
            self._run()

    def _run(self) -> None:
        """Advance until the top of the decision stack is a decision or the game is over; an empty stack means
        the turn's Political Action has resolved (the core flow goes on: end of turn, settlement, next turn)."""
        stack = self.stack
        while True:
            if not stack:
                if self.over:
                    return
                self._end_turn()
                continue
            top = stack[-1]
            if top.kind is not None:
                return
            top.run(self)

    def clone(self) -> Game:
        """An independent copy (the shared immutable catalogue and layout are not copied)."""
        g = Game(_BLANK)
        g.config = self.config
        g.topo = self.topo
        g.catalogue = self.catalogue
        g.layout = self.layout
        g.num_players = self.num_players
        g.num_resorts = self.num_resorts
        g.cap = self.cap
        g.rng = Rng(self.rng.state)
        g.draw_pile = self.draw_pile[:]
        g.discard = self.discard[:]
        g.set_aside = self.set_aside[:]
        g.drawn = self.drawn
        g.tile_at = self.tile_at[:]
        g.kind_at = self.kind_at[:]
        g.board = self.board[:]
        g.nonstart = self.nonstart[:]
        g.frontier = self.frontier[:]
        g.in_frontier = self.in_frontier[:]
        g.committees = self.committees[:]
        g.grassroots = self.grassroots[:]
        g.resort_cells = self.resort_cells[:]
        g.infl = self.infl[:]
        g.supply = self.supply[:]
        g.on_board = self.on_board[:]
        g.created = self.created[:]
        g.deployed = self.deployed[:]
        g.starting = self.starting[:]
        g.res = self.res[:]
        g.bank = self.bank[:]
        g.noise = self.noise[:]
        g.start_used = self.start_used[:]
        g.resolved = self.resolved[:]
        g.round = self.round
        g.turns_in_round = self.turns_in_round
        g.active = self.active
        g.start_player = self.start_player
        g.turn = self.turn
        g.stack = [f.copy() for f in self.stack]
        g.over = self.over
        g._events = self.events[:]  # the event dicts are shared with the original, as ever
        g._pending = []
        g.active_effects = self.active_effects[:]
        g._legal = self._legal
        g._winners = self._winners
        g.measures = self.measures
        g.decks = self.decks
        g.deck_of = self.deck_of
        g.ext = {name: state.clone() for name, state in self.ext.items()}
        g.expansions = self.expansions
        g.hotspot_resolvers = self.hotspot_resolvers
        g.modifier_sources = self.modifier_sources
        return g

    def to_dict(self) -> dict[str, Any]:
        from .state import game_to_dict

        return game_to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Game:  # Any: game_from_dict checks it (a compiled dict would not)
        from .state import game_from_dict

        return game_from_dict(data)

    def render(self) -> str:
        from .render import render_text

        return render_text(self)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return (
            f"<Game {self.config.name} round={self.round} player={self.current_player} "
            f"phase={self.phase_name} pile={len(self.draw_pile)}>"
        )

    def resample_hidden(self, observer: int, rng: Any) -> Game:
        """A clone with what ``observer`` cannot see re-sampled uniformly (RULINGS R19; ``rng``: a random.Random)."""
        from .hidden import resample_hidden

        return resample_hidden(self, observer, rng)

    # ------------------------------------------------------------------ queries
    def log(self, type_: str, rule: str, **data: Any) -> None:
        """Append an event citing the rule behind it."""
        data["type"] = type_
        data["rule"] = rule
        self._pending.append(data)

    def event(self, type_: str, rule: str, *fields: Any) -> None:
        """:meth:`log` with the data as ``key, value, key, value, ...``: the same event, recorded as a tuple until
        the log is read (the engine's frequent events: no dict per event while nobody reads them)."""
        self._pending.append((type_, rule, fields))

    def resources_of(self, player: int) -> list[int]:
        r = self.num_resorts
        return self.res[player * r : player * r + r]

    def influence_on(self, cell: int) -> list[int]:
        p = self.num_players
        return self.infl[cell * p : cell * p + p]

    def tile_spec(self, cell: int) -> TileSpec | None:
        t = self.tile_at[cell]
        return None if t < 0 else self.catalogue[t]

    def lobbyist_owner(self, cell: int) -> int:
        """RULINGS R13: strictly the most physical Influence on the Lobbyist, else -1."""
        p = self.num_players
        infl = self.infl
        base = cell * p
        top = 0
        owner = -1
        for q in range(p):  # (a loop: no slice, no max(); this runs for every Lobbyist next to a cell asked about)
            x = infl[base + q]
            if x > top:
                top = x
                owner = q
            elif x == top and top > 0:
                owner = -1  # a tie at the top so far
        return owner

    def totals(self, cell: int) -> list[int]:
        # CORE-01-05-03: control is derived from the current Influence whenever asked, so it is always up to
        # date after any Influence movement. CORE-01-05-05/06 (R13): Lobbyists add to these totals only.
        """computeMajority's totalInfluence (CORE-01-05-03A, -04): physical + owned adjacent Lobbyists; on a
        Lobbyist itself physical Influence only (RULINGS R13: virtual Influence never counts towards a Lobbyist,
        docs/rulings.md BC-11)."""
        p = self.num_players
        tot = self.infl[cell * p : cell * p + p]
        kind_at = self.kind_at
        if kind_at[cell] == LOBBYIST:
            return tot
        for nb in self.topo.neighbors[cell]:
            if kind_at[nb] == LOBBYIST:
                owner = self.lobbyist_owner(nb)
                if owner >= 0:
                    tot[owner] += 1
        return tot

    def majority(self, cell: int) -> list[int]:
        """The players sharing the highest positive total on ``cell`` (RULINGS R14); [] if none."""
        tot = self.totals(cell)
        top = 0
        for v in tot:
            if v > top:
                top = v
        if top <= 0:
            return []
        return [q for q, v in enumerate(tot) if v == top]

    def controller(self, cell: int) -> int:
        """CORE-01-05-01/02, -03A: the controlling player, or -1 (ties, nobody, Start Committee)."""
        if self.kind_at[cell] == START:
            return -1  # CORE-01-08-05
        leaders = self.majority(cell)
        return leaders[0] if len(leaders) == 1 else -1

    def formalize_gate_open(self) -> bool:
        """CORE-01-08-02/03, RULINGS R11: every player has deployed their Starting Influence."""
        return all(d >= s for d, s in zip(self.deployed, self.starting))

    def actions_to_cap(self, player: int) -> int:
        """The Political Actions ``player`` still needs to reach the cap (CORE-01-08-01, RULINGS R12): a Place per
        Influence not on the Board and a FormalizeInfluence per Influence not yet created beyond its Starting
        Influence. ``turns_left(player)`` minus this is the slack of the observation layouts (docs/observation.md)."""
        cap = self.cap
        return (cap - self.on_board[player]) + max(0, cap - self.starting[player] - self.created[player])

    def turns_left(self, player: int) -> int:
        """Political Actions ``player`` still takes, the current turn included: one tile is drawn per turn
        (CORE-01-04-04) and the game ends when the active player must draw from an empty DrawPile
        (CORE-01-09-01, RULINGS R8); further discards (CORE-01-04-07) are not foreseen. 0 once it is over."""
        if self.over:
            return 0
        n = self.num_players
        future = len(self.draw_pile)
        d = (player - self.active) % n or n
        return (0 if future < d else (future - d) // n + 1) + (1 if player == self.active else 0)

    def effect_for(self, kind: str, cell: int, player: int, card: int = -1, target: int = -1) -> Effect:
        """The effect a Political Action would resolve, with its ContextTile ``cell`` (-1: null)."""
        if kind == "formalize":
            # CORE-01-06-00-05 (a): ContextTile is the Committee.
            base = effects.START_COMMITTEE_COST if cell == self.topo.centre else effects.STANDARD_COMMITTEE_COST
            return Effect("formalize", player, cell, base)
        if kind == "convert":
            text = self.grassroots_text(cell)
            return Effect("convert", player, cell, _recipe_cost(text, self.num_resorts))
        if kind in ("place", "move", effects.PLACE_TILE):
            # CORE-01-06-00-05 (e) / RULINGS R10: Place on the tile; Move's ContextTile is the destination; a tile
            # placement's is the cell it goes to (RULINGS R3; the tile is ``drawn``).
            return Effect(kind, player, cell)
        for ex in self.expansions:  # an expansion's Political Action (CORE-01-04-09 extended)
            effect = ex.effect(self, kind, cell, player, card, target)
            if effect is not None:
                return effect
        raise ValueError(kind)

    def grassroots_text(self, cell: int) -> GrassrootsText:
        return self.config.grassroots_texts[self.catalogue[self.tile_at[cell]].text]

    def _modified(self) -> bool:
        """Whether a modifier may apply now: a duration in force, or a modifier source that has records now
        (``Expansion.modifying``); otherwise every effect resolves at its base cost (the fast path)."""
        if self.active_effects:
            return True
        return any(source.modifying(self) for source in self.modifier_sources)

    def payment_choices(self, effect: Effect) -> list[Payment]:
        """Every way the effect's owner can pay its total cost in full (empty: cannot resolve)."""
        if not self._modified():
            options = effects.affordable_of(effect.base_cost, self.res, effect.actor, self.num_resorts)
        else:
            # Steps 1-4 of the pipeline: prohibitions, total cost, substitutions (effects.cost_variants).
            options = effects.payment_options_for(self, effect)
            if not options:  # payable only with another player's help (a transfer, RULINGS R52)
                for ex in self.expansions:
                    options = ex.assisted_payments(self, effect)
                    if options:
                        break
        if effect.kind == "convert":
            options = [pay for pay in options if self._gain_options(effect, pay)]
        return options

    # ------------------------------------------------------------------ legal actions
    def _compute_legal(self) -> list[int]:
        stack = self.stack
        return stack[-1].legal(self) if stack else []

    def _move_destinations(self, player: int, src: int) -> list[int]:
        """The ``move_to`` options: any other non-Start Board tile (RULINGS R10); with modifiers in force only the
        destinations whose total cost can be paid (CORE-01-06-00-03)."""
        base = MOVE_TO * self.layout.n
        if self._modified():
            return [base + c for c in self._payable_cells("move", self.nonstart, player) if c != src]
        return [base + c for c in self.nonstart if c != src]

    def _resolution_options(self, res: Resolution) -> list[int]:
        for ex in self.expansions:  # a decision an expansion asked on this effect
            options = ex.resolution_options(self, res)
            if options is not None:
                return options
        lay = self.layout
        if res.kind == res.pay_kind:
            return [lay.pay + r for r in effects.next_choices(res.options, res.paid)]
        return [lay.gain + r for r in res.gains]  # "gain"

    def _payable_cells(self, kind: str, cells: list[int], player: int) -> list[int]:
        """The cells whose Place / Move effect ``player`` can pay (with active modifiers only)."""
        if not cells:
            return []
        if not effects.tile_sensitive(self, kind):  # the same total cost on every tile: check once
            return cells[:] if self.payment_choices(Effect(kind, player, cells[0])) else []
        return [c for c in cells if self.payment_choices(Effect(kind, player, c))]

    def _tile_cells(self, player: int) -> list[int]:
        """RULINGS R3: the cells the drawn tile may go to: empty table cells adjacent to a Board tile
        (CORE-01-04-05, -08) whose placement cost (none in the core game; e.g. EXP-03-08-M12) ``player`` can pay."""
        if not effects.touches(self, effects.PLACE_TILE):
            return self.frontier[:]
        return self._payable_cells(effects.PLACE_TILE, self.frontier, player)

    def _placeable(self, player: int, tile: int) -> bool:
        """Whether ``tile``, drawn now, would have a legal cell (RULINGS R3, R4)."""
        if not effects.touches(self, effects.PLACE_TILE):
            return bool(self.frontier)
        drawn, self.drawn = self.drawn, tile
        try:
            return bool(self._tile_cells(player))
        finally:
            self.drawn = drawn

    def _political_options(self, p: int) -> list[int]:
        n = self.layout.n
        out: list[int] = []
        nonstart = self.nonstart
        # Modifiers in force: every action's total cost is checked.
        slow = self._modified()
        # CORE-01-04-11, RULINGS R10: Place onto any Board tile but the Start Committee (CORE-01-08-04).
        # CORE-01-08-06B: the Start Committee never takes Influence (nonstart excludes it).
        if self.supply[p] > 0 and nonstart:
            base = PLACE * n
            out.extend([base + c for c in (self._payable_cells("place", nonstart, p) if slow else nonstart)])
        # CORE-01-04-12, RULINGS R10, docs/rulings.md BC-13: Move one own Influence elsewhere.
        if len(nonstart) >= 2 and self.on_board[p] > 0:
            base = MOVE_FROM * n
            infl, np_ = self.infl, self.num_players
            if slow:
                dests = self._payable_cells("move", nonstart, p)
                out.extend([base + c for c in nonstart if infl[c * np_ + p] and any(d != c for d in dests)])
            else:
                out.extend([base + c for c in nonstart if infl[c * np_ + p]])
        # CORE-01-04-13..19: FormalizeInfluence via a Committee, once the gate is open (CORE-01-08-02)
        # and while the result stays within the cap (CORE-01-08-01, RULINGS R12).
        if self.committees and self.supply[p] + self.on_board[p] < self.cap and self.formalize_gate_open():
            base = FORMALIZE * n
            centre = self.topo.centre
            need_control = self.config.action_tiles_require_control
            # Without tile-dependent modifiers every tile of one kind costs the same: check each cost once.
            uniform = not slow or not effects.tile_sensitive(self, "formalize")
            same_cost: dict[bool, bool] | None = {} if uniform else None
            for c in self.committees:
                start = c == centre
                if start:
                    if self.start_used[p]:  # CORE-01-08-07
                        continue
                elif need_control and self.controller(c) != p:  # RULINGS R15, docs/rulings.md BC-04
                    continue
                ok = None if same_cost is None else same_cost.get(start)
                if ok is None and not slow:  # payment_choices without modifiers: is the base cost affordable
                    base_cost = effects.START_COMMITTEE_COST if start else effects.STANDARD_COMMITTEE_COST
                    ok = effects.can_afford(base_cost, self.res, p, self.num_resorts)
                    if same_cost is not None:
                        same_cost[start] = ok
                if ok is None:
                    ok = bool(self.payment_choices(self.effect_for("formalize", c, p)))
                    if same_cost is not None:
                        same_cost[start] = ok
                if ok:
                    out.append(base + c)
        # CORE-01-04-20..22: ConvertResources via a Grassroots tile.
        if self.grassroots:
            base = CONVERT * n
            need_control = self.config.action_tiles_require_control
            uniform = not slow or not effects.tile_sensitive(self, "convert")
            by_text: dict[int, bool] | None = {} if uniform else None
            catalogue, tile_at = self.catalogue, self.tile_at
            for c in self.grassroots:
                if need_control and self.controller(c) != p:
                    continue
                text = catalogue[tile_at[c]].text
                ok = None if by_text is None else by_text.get(text)
                if ok is None and not slow:  # payment_choices without modifiers: a payment that leaves a gain
                    ok = self._convert_payable(self.config.grassroots_texts[text], p)
                    if by_text is not None:
                        by_text[text] = ok
                if ok is None:
                    ok = bool(self.payment_choices(self.effect_for("convert", c, p)))
                    if by_text is not None:
                        by_text[text] = ok
                if ok:
                    out.append(base + c)
        for ex in self.expansions:  # Political Actions the expansions add (CORE-01-04-09 extended)
            ex.political_options(self, p, out)
        if not out:
            out.append(self.layout.pass_)  # RULINGS R7
        return out

    def _illegal_message(self, a: int) -> str:
        try:
            text = repr(self.layout.to_string(a))
        except IllegalActionError:
            text = "out of range"
        legal = self._legal or []
        shown = ", ".join(self.layout.to_string(x) for x in legal[:8])
        more = f" and {len(legal) - 8} more" if len(legal) > 8 else ""
        who = "nobody (the game is over)" if self.over else f"player {self.current_player}"
        return (
            f"action {a} ({text}) is not legal in decision {self.phase_name!r} of {who}; legal: {shown or 'none'}{more}"
        )

    # ------------------------------------------------------------------ board changes
    def _put_tile(self, tile: int, cell: int) -> None:
        spec = self.catalogue[tile]
        self.tile_at[cell] = tile
        self.kind_at[cell] = spec.kind
        insort(self.board, cell)
        if spec.kind != START:
            insort(self.nonstart, cell)
        if spec.kind in (COMMITTEE, START):
            insort(self.committees, cell)
        elif spec.kind == GRASSROOTS:
            insort(self.grassroots, cell)
        elif spec.kind == RESORT:
            insort(self.resort_cells, cell)
        for ex in self.expansions:
            ex.tile_placed(self, cell)
        # Incremental legal-placement frontier (RULINGS R3).
        if self.in_frontier[cell]:
            self.in_frontier[cell] = False
            del self.frontier[bisect_left(self.frontier, cell)]
        tile_at, in_frontier = self.tile_at, self.in_frontier
        for nb in self.topo.neighbors[cell]:
            if tile_at[nb] < 0 and not in_frontier[nb]:
                in_frontier[nb] = True
                insort(self.frontier, nb)

    def _rebuild_board_indexes(self) -> None:
        """Recompute the derived board lists from ``tile_at`` (used by from_dict)."""
        self.board, self.nonstart, self.frontier = [], [], []
        self.committees, self.grassroots, self.resort_cells = [], [], []
        self.in_frontier = [False] * self.topo.num_cells
        tiles = [(c, t) for c, t in enumerate(self.tile_at) if t >= 0]
        self.tile_at = [-1] * self.topo.num_cells
        self.kind_at = [-1] * self.topo.num_cells
        for c, t in tiles:
            self._put_tile(t, c)

    # ------------------------------------------------------------------ turn flow
    def _start_turn(self) -> None:
        """CORE-01-04-01/02/04: Phase 1 draws; CORE-01-02-03: only here. Unplaceable tiles are discarded
        (CORE-01-04-06/07) or, with TileRecycling, returned instead (VAR-01-01-02/03 switch the discard off)."""
        effects.expire(self, effects.OWNER_NEXT_TURN, self.active)
        for ex in self.expansions:
            ex.turn_start(self)
        p = self.active
        pile = self.draw_pile
        while True:
            if not pile:
                self.log("draw-pile-empty", "CORE-01-09-01", player=p)
                self._end_game()
                return
            tile = pile.pop()  # CORE-01-04-04 (the top of the pile is the end of the list)
            self.event("draw", "CORE-01-04-04", "player", p, "tile", tile)
            if self._placeable(p, tile):  # RULINGS R3: the tile has a legal cell (CORE-01-04-05, -08)
                self.drawn = tile
                self.stack.append(PLACE_TILE[p])
                return
            if self.config.tile_recycling:
                # RULINGS R4: if no tile left could be placed, the DrawPile counts as exhausted.
                if not any(self._placeable(p, t) for t in pile):  # no tile left in the pile could be placed
                    pile.append(tile)  # docs/rulings.md BC-08
                    self.log("draw-pile-exhausted", "RULINGS-R4", player=p)
                    self._end_game()
                    return
                pile.append(tile)  # VAR-01-01-04
                self.rng.shuffle(pile)  # VAR-01-01-05
                self.log("recycle", "VAR-01-01-04", player=p, tile=tile)  # VAR-01-01-06: draw again
            else:
                self.discard.append(tile)  # CORE-01-04-06
                self.log("discard", "CORE-01-04-06", player=p, tile=tile)  # CORE-01-04-07: draw again

    def _place_tile_choice(self, p: int, cell: int) -> None:
        """Phase 1: the drawn tile goes to ``cell``; a placement cost (e.g. EXP-03-08-M12, RULINGS R54) is paid
        through the pipeline first."""
        if effects.touches(self, effects.PLACE_TILE):
            self._begin_effect(p, effects.PLACE_TILE, cell)
        else:
            self._place_drawn_tile(cell)

    def _place_drawn_tile(self, cell: int) -> None:
        tile = self.drawn
        self.drawn = -1
        self._put_tile(tile, cell)
        self.event("place-tile", "CORE-01-04-05", "player", self.active, "tile", tile, "cell", cell)
        # CORE-01-04-03: Phase 2 (the Political Action) follows once the placement has resolved.
        self.stack.append(POLITICAL[self.active])
        # CORE-01-06-02/03, RULINGS R5: enclosure check right after placement; the placed tile
        # first, then the other closed Hotspots in ascending cell order.
        closed = [cell] if self.kind_at[cell] == HOTSPOT and self._surrounded(cell) else []
        closed += [
            nb  # neighbours are stored in ascending cell order
            for nb in self.topo.neighbors[cell]
            if self.kind_at[nb] == HOTSPOT and not self.resolved[nb] and self._surrounded(nb)
        ]
        if closed:
            self.stack.append(HotspotQueue(closed))

    def _surrounded(self, cell: int) -> bool:
        """CORE-01-06-01, RULINGS R5: every adjacent table cell holds a tile (the edge is closed)."""
        tile_at = self.tile_at
        return all(tile_at[nb] >= 0 for nb in self.topo.neighbors[cell])

    def _resolve_hotspot(self, cell: int) -> None:
        """CORE-01-06-04..08: a Hotspot resolves once, whatever the outcome (BC-06). A Hotspot with its own text
        resolves through its expansion's resolver once the majority is known (``hotspot_resolvers``)."""
        self.resolved[cell] = True
        if self._modified():
            # CORE-01-06-04 (d), CORE-01-06-00-05 (d): the Hotspot is the ContextTile of its resolution.
            blocker = effects.prohibited_by(self, Effect("hotspot", -1, cell))
            if blocker is not None:  # pipeline step 2 (CORE-01-06-00-02): a prohibited Hotspot moves nothing
                self.log("measure-applied", effects.MODIFIERS[blocker.id].rule(self, blocker), id=blocker.id,
                         owner=blocker.owner, kind="hotspot", cell=cell)  # fmt: skip
                return
        leaders = self.majority(cell)  # CORE-01-06-04 (a)
        if len(leaders) != 1:
            self.event("hotspot-no-majority", "CORE-01-05-02", "cell", cell, "tied", leaders)
            return
        p = leaders[0]
        if self.hotspot_resolvers:
            resolver = self.hotspot_resolvers.get(self.catalogue[self.tile_at[cell]].special)
            if resolver is not None:  # a Hotspot with its own text (CORE-01-10-01)
                resolver(self, cell, p)
                return
        if self.supply[p] <= 0:
            self.log("hotspot-no-supply", "CORE-01-06-07", cell=cell, player=p)
            return
        if self._modified():
            effect = Effect("hotspot", -1, cell)
            # Output modifiers of the Hotspot's Influence placement (CORE-01-06-00-02), floor 0.
            if effects.effect_output(self, effect, 1, log=True) <= 0:
                self.log("hotspot-output-zero", "CORE-01-06-00-02", cell=cell, player=p)
                return
            if self._suppressed(effect, p):
                return  # majority suppression (RULINGS R43, R51): the majority stands, no Influence (or a replacement)
        self._hotspot_influence(cell, p)

    def _suppressed(self, effect: Effect, p: int) -> bool:
        """Majority suppression of ``effect``'s Influence for ``p`` (RULINGS R50, R51): log it, or push the replacement
        decision it offers (whose choice generates the Influence). False: not suppressed."""
        blocker, frame = effects.suppression(self, effect, p)
        if blocker is None:
            return False
        if frame is not None:
            self.stack.append(frame)
            return True
        self.log("influence-suppressed", effects.MODIFIERS[blocker.id].rule(self, blocker), id=blocker.id,
                 owner=blocker.owner, kind=effect.kind, cell=effect.tile, player=p)  # fmt: skip
        return True

    def _hotspot_influence(self, cell: int, p: int) -> None:
        # CORE-01-06-05/06: move one Influence from supply to the Hotspot.
        self.supply[p] -= 1
        self.on_board[p] += 1
        self.deployed[p] += 1  # RULINGS R11
        self.infl[cell * self.num_players + p] += 1
        self.event("hotspot-resolved", "CORE-01-06-05", "cell", cell, "player", p)

    def _political_choice(self, p: int, a: int) -> None:
        """The Political Action ``a`` of player ``p`` (CORE-01-04-09, and those the expansions add)."""
        lay = self.layout
        if a == lay.pass_:
            self.event("pass", "RULINGS-R7", "player", p)
            if self._modified():
                effects.consume(self, p)  # docs/rulings.md BC-26: the failed attempt
            return
        if a > lay.pass_:  # a Political Action an expansion adds
            for ex in self.expansions:
                if ex.political_choice(self, p, a):
                    return
            raise AssertionError(f"no expansion takes action {a}")
        kind, cell = divmod(a, lay.n)
        if kind == PLACE:
            if self._modified():
                self._begin_effect(p, "place", cell)
            else:
                self._place_influence(p, cell)
        elif kind == MOVE_FROM:
            self.stack.append(MoveTo(p, cell))
        elif kind == FORMALIZE:
            self._begin_effect(p, "formalize", cell)
        else:
            self._begin_effect(p, "convert", cell)

    def _move_choice(self, p: int, src: int, a: int) -> None:
        dst = a - MOVE_TO * self.layout.n
        if self._modified():
            self._begin_effect(p, "move", dst, src=src)
        else:
            self._move_influence(p, src, dst)

    def _place_influence(self, p: int, cell: int) -> None:
        self.supply[p] -= 1
        self.on_board[p] += 1
        self.deployed[p] += 1  # RULINGS R11
        self.infl[cell * self.num_players + p] += 1
        self.event("place-influence", "CORE-01-04-11", "player", p, "cell", cell)

    def _move_influence(self, p: int, src: int, dst: int) -> None:
        # CORE-01-06-00-06 (R10): a Move names two tiles; its ContextTile is the destination.
        np_ = self.num_players
        self.infl[src * np_ + p] -= 1
        self.infl[dst * np_ + p] += 1
        self.event("move-influence", "CORE-01-04-12", "player", p, "src", src, "dst", dst)

    def _begin_effect(self, p: int, kind: str, cell: int, src: int = -1, card: int = -1, target: int = -1) -> None:
        """Resolve a Political Action through the pipeline: one record (decisions.Resolution) carries its
        payment options and choices until it is executed at once."""
        res = Resolution(p, kind, cell, src, card, target)
        self.stack.append(res)
        if self.active_effects or self.modifier_sources:
            effect = self._effect_of(res)
            for ex in self.expansions:  # a decision before the payment (e.g. a transfer, RULINGS R52)
                if ex.before_payment(self, res, effect):
                    return
        res.options = self.payment_choices(self._effect_of(res))  # docs/rulings.md BC-05: one Resource at a time
        self._advance_payment(res)

    def _effect_of(self, res: Resolution) -> Effect:
        return self.effect_for(res.effect, res.tile, res.owner, res.card, res.target)

    def _resolution_choice(self, res: Resolution, a: int) -> None:
        for ex in self.expansions:  # a decision an expansion asked on this effect
            if ex.resolution_choice(self, res, a):
                return
        lay = self.layout
        if res.kind == res.pay_kind:
            res.paid.append(a - lay.pay)
            self._advance_payment(res)
        else:  # "gain"
            self._after_gain(res, a - lay.gain)

    def _advance_payment(self, res: Resolution) -> None:
        """BC-05: extend the payment while only one next Resource is possible; ask when there is a choice."""
        paid = res.paid
        options = res.options
        while True:
            nxt = effects.next_choices(options, paid)
            if len(nxt) > 1:
                res.kind = res.pay_kind
                return
            if not nxt:  # paid is a complete payment
                break
            paid.append(nxt[0])
        self._payment_complete(res)

    def _gain_options(self, effect: Effect, pay: Payment) -> list[int]:
        """Resorts a ConvertResources may take after paying ``pay`` (CORE-01-04-22, R16, BC-03).

        With extra costs only the Grassroots part of the payment is converted: a gain is possible if some split
        of ``pay`` into the Grassroots payment and the extra cost allows it (docs/rulings.md BC-24); a modifier may
        forbid a conversion (``Modifier.forbids_conversion``).
        """
        text = self.grassroots_text(effect.tile)
        finite = self.config.bank_stock is not None
        if self._modified():
            bases = self._convert_bases(effect, pay)
            check = True
        else:
            bases, check = (pay,), False
        out = []
        for r in range(self.num_resorts):
            if finite and self.bank[r] + pay.count(r) < text.gain:
                continue
            for base in bases:
                if text.gain_rule == "different" and r in base:
                    continue
                if check and effects.conversion_forbidden(self, effect, base, r):
                    continue
                out.append(r)
                break
        return out

    def _convert_payable(self, text: GrassrootsText, p: int) -> bool:
        """Without modifiers: whether ``p`` can resolve a ConvertResources of ``text``, i.e. ``payment_choices`` of
        its effect is non-empty: an affordable payment of the recipe after which some resort can be gained (the
        conditions of :meth:`_gain_options` without modifiers; CORE-01-04-20..22, R16, BC-02, BC-03)."""
        nr = self.num_resorts
        finite = self.config.bank_stock is not None
        different = text.gain_rule == "different"
        gain = text.gain
        bank = self.bank
        for pay in effects.affordable_of(_recipe_cost(text, nr), self.res, p, nr):
            for r in range(nr):
                if finite and bank[r] + pay.count(r) < gain:
                    continue
                if different and r in pay:
                    continue
                return True
        return False

    def _convert_bases(self, effect: Effect, pay: Payment) -> tuple[Payment, ...]:
        """The Grassroots parts of ``pay`` over every cost variant (see effects.base_parts)."""
        variants = effects.cost_variants(self, effect)
        if not variants:
            return ()
        n = len(effect.base_cost)
        found: list[Payment] = []
        for cost, _ in variants:
            if cost[:n] != effect.base_cost:
                continue
            extras = [cost[n:]]
            if len(pay) < sum(s[0] for s in cost):
                # one extra component paid by another player (a transfer, RULINGS R52)
                extras += [effects.without_one(cost[n:], i) for i in range(len(cost) - n)]
            for extra in extras:
                for base in effects.base_parts(pay, effect.base_cost, extra, self.num_resorts):
                    if base not in found:
                        found.append(base)
        return tuple(found)

    def _payment_complete(self, res: Resolution) -> None:
        kind = res.effect
        pay = res.paid
        if kind == "formalize":
            self._execute_formalize(res)
            return
        if kind != "convert":
            effect = self._effect_of(res)
            if kind == "place":
                self._pop(res)
                # Only extra costs: Place is free (CORE-01-04-11).
                self._before_pay(effect, pay, effects.surcharge_rule(self, effect))
                self._place_influence(res.owner, res.tile)
            elif kind == "move":
                self._pop(res)
                # Only extra costs: Move is free (CORE-01-04-12).
                self._before_pay(effect, pay, effects.surcharge_rule(self, effect))
                self._move_influence(res.owner, res.src, res.tile)
            elif kind == effects.PLACE_TILE:
                self._pop(res)
                # Only extra costs: placing a tile is free (CORE-01-04-05; e.g. EXP-03-08-M12-04). Not a Political
                # Action, so nothing "until consumed" by one is consumed.
                if pay:
                    self._log_surcharges(effect)
                    effects.use_payment(self, effect, tuple(pay))
                    self._pay(res.owner, pay, effects.surcharge_rule(self, effect))
                self._place_drawn_tile(res.tile)
            else:  # an expansion's Political Action
                for ex in self.expansions:
                    if ex.execute(self, res, effect):
                        return
                raise AssertionError(f"no expansion executes {kind!r}")
            return
        gains = self._gain_options(self._effect_of(res), tuple(pay))
        res.gains = gains
        if len(gains) == 1:
            self._after_gain(res, gains[0])
        else:
            res.kind = "gain"

    def _pop(self, frame: Frame) -> None:
        """Remove ``frame`` from the top of the stack (its resolution is executed now)."""
        top = self.stack.pop()
        assert top is frame

    def _after_gain(self, res: Resolution, gain: int) -> None:
        """After the gain: the expansions' post-payment choices of ConvertResources (``Expansion.after_gain``)."""
        res.gain = gain
        for ex in self.expansions:
            if ex.after_gain(self, res):
                return
        self._execute_convert(res)

    def _before_pay(self, effect: Effect, pay: list[int], rule: str) -> None:
        """Step 4-6 of an expansion action: note used substitutions and applied extra costs, pay, consume."""
        p = effect.actor
        if self._modified():
            effects.use_payment(self, effect, tuple(pay))
            self._log_surcharges(effect)
        if pay:
            self._pay(p, pay, rule)
        if self._modified():
            effects.consume(self, p)  # durations "until consumed" by this Political Action

    def _log_surcharges(self, effect: Effect) -> None:
        for handler, active in effects.collect_modifiers(self, effect):
            extra = handler.extra_cost(self, active, effect)
            if extra:  # the surcharge was part of this payment
                self.log("measure-applied", handler.rule(self, active), id=active.id, owner=active.owner,
                         kind=effect.kind, player=effect.actor, extra=sum(s[0] for s in extra))  # fmt: skip

    def _pay(self, player: int, pay: list[int], rule: str) -> None:
        """Move paid Resources from the player's supply to the Bank, all at once (RULINGS R18)."""
        base = player * self.num_resorts
        for r in pay:
            self.res[base + r] -= 1
            self.bank[r] += 1
        self.event("pay", rule, "player", player, "resorts", list(pay))

    def _execute_formalize(self, res: Resolution) -> None:
        self._pop(res)
        p, cell, pay = res.owner, res.tile, res.paid
        start = cell == self.topo.centre
        rule = "CORE-01-08-09" if start else "CORE-01-04-16"
        amount = 1
        if self._modified():
            # CORE-01-08-06A: via the Start Committee no modifier applied, but what this Political Action consumes
            # is consumed (docs/rulings.md BC-26).
            effect = self.effect_for("formalize", cell, p)
            self._before_pay(effect, pay, rule)
            amount = effects.effect_output(self, effect, 1, log=True)  # output modifiers (CORE-01-06-00-02)
        else:
            self._pay(p, pay, rule)
        if start:
            self.start_used[p] = True  # CORE-01-08-07
        if amount <= 0:  # an output reduced to 0: the costs are paid, nothing is created
            self.log("formalize", "CORE-01-04-17", player=p, cell=cell, amount=0)
            return
        if not start and self._modified() and self._suppressed(self.effect_for("formalize", cell, p), p):
            return  # suppressed (RULINGS R50): no Influence generated (CORE-01-08-06A: never via the Start Committee)
        self._formalize_influence(p, cell)

    def _formalize_influence(self, p: int, cell: int) -> None:
        start = cell == self.topo.centre
        # CORE-01-04-17 / CORE-01-08-10: exactly one new Influence in the supply.
        self.supply[p] += 1
        self.created[p] += 1
        self.event("formalize", "CORE-01-08-10" if start else "CORE-01-04-17", "player", p, "cell", cell)

    def _execute_convert(self, res: Resolution) -> None:
        """ConvertResources (CORE-01-04-20..22) with the expansions' parts of it (``execute_riders``), at once."""
        self._pop(res)
        p, cell, pay, gain = res.owner, res.tile, res.paid, res.gain
        text = self.grassroots_text(cell)
        amount = text.gain
        if self._modified():
            effect = self.effect_for("convert", cell, p)
            self._before_pay(effect, pay, "CORE-01-04-22")
            for ex in self.expansions:
                ex.before_gain(self, res, effect)
            amount = effects.effect_output(self, effect, amount, log=True)  # output modifiers (CORE-01-06-00-02)
        else:
            self._pay(p, pay, "CORE-01-04-22")
        nr = self.num_resorts
        self.res[p * nr + gain] += amount
        self.bank[gain] -= amount
        self.event("convert", "CORE-01-04-22", "player", p, "cell", cell, "gain", gain, "amount", amount)
        for ex in self.expansions:
            ex.execute_riders(self, res)

    def _end_turn(self) -> None:
        """The turn's Political Action has resolved: "this turn" durations end, the round may end with its
        Round Settlement (CORE-01-07-01/02), then the next player's turn (RULINGS R6: seat order)."""
        for ex in self.expansions:
            ex.turn_end(self)
        effects.expire(self, effects.END_OF_TURN)
        effects.expire(self, effects.END_OF_PLAYER_TURN, self.active)
        self.turn += 1
        self.turns_in_round += 1
        if self.turns_in_round == self.num_players:  # CORE-01-07-01/02
            self.stack.append(AfterSettlement(final=False))
            self.stack.append(Settlement())
            return
        self.active = (self.active + 1) % self.num_players  # RULINGS R6: seat order
        self._start_turn()

    def _next_round(self) -> None:
        self.round += 1
        self.turns_in_round = 0
        self.active = (self.active + 1) % self.num_players  # RULINGS R6: seat order
        self._start_turn()

    def _settlement_start(self) -> None:
        """CORE-01-07-02: "this round" ends when the Round Settlement begins (RULINGS R35)."""
        effects.expire(self, effects.END_OF_ROUND)
        self.event("settlement", "CORE-01-07-02", "round", self.round)
        for ex in self.expansions:
            ex.settlement_start(self)

    def _production(self, frame: Settlement) -> bool:
        """CORE-01-07-03: Resort Production of every ResortTile from ``frame.next`` on, in ascending cell order
        (docs/rulings.md BC-01). False if a production instance paused for a decision (resumes at the next)."""
        stack = self.stack
        depth = len(stack)
        cells = self.resort_cells
        finite = self.config.bank_stock is not None
        nres = self.num_resorts
        n = len(cells)
        modified = self._modified()
        while frame.next < n:
            cell = cells[frame.next]
            frame.next += 1
            spec = self.catalogue[self.tile_at[cell]]
            # CORE-01-06-09/10: only here, at Round Settlement, from the printed value.
            amount = spec.value
            if modified:
                effect = Effect("production", -1, cell)  # CORE-01-06-00-05 (c)
                if effects.effect_cost(self, effect) is None:
                    self.log("production-prohibited", "CORE-01-06-17", cell=cell)
                    continue  # CORE-01-06-17: a prohibition makes the output 0
                # CORE-01-06-16-00: modifiers are collected by effect_output before the steps (a)-(c);
                # CORE-01-06-16 (a): printed value, doubling, output modifiers, floor (RULINGS R40); a tile
                # produces its own resort.
                amount = effects.effect_output(self, effect, amount, log=True)
            leaders = self.majority(cell)  # CORE-01-06-16 (b)
            if not leaders or amount <= 0:
                continue  # CORE-01-06-13
            r = spec.resort
            if finite:
                amount = min(amount, self.bank[r])  # docs/rulings.md BC-02
                if amount <= 0:
                    continue
            k = len(leaders)
            share, rest = divmod(amount, k)  # CORE-01-06-14/15, RULINGS R14
            for p in leaders:  # CORE-01-06-12: from the Bank to the controller(s)
                got = share
                if modified:  # a cap per recipient at distribution (RULINGS R38, R40)
                    got, capper = effects.capped_share(self, effect, p, share)
                    if capper is not None:
                        rest += share - got  # the excess goes to Noise (CORE-01-06-15 analogy, RULINGS R38)
                        self.log("measure-applied", effects.MODIFIERS[capper.id].rule(self, capper), id=capper.id,
                                 owner=capper.owner, kind="production", cell=cell, player=p, before=share,
                                 after=got)  # fmt: skip
                self.res[p * nres + r] += got
            self.bank[r] -= amount
            self.noise[r] += rest
            self.event("produce", "CORE-01-06-11" if k == 1 else "CORE-01-06-14", "cell", cell,
                       "resort", r, "players", leaders, "share", share, "noise", rest)  # fmt: skip
            if modified:
                for ex in self.expansions:
                    ex.after_production(self, cell, leaders, share)  # an expansion's part of this production instance
            if len(stack) != depth:
                return False
        return True

    def _settlement_end(self) -> None:
        for ex in self.expansions:
            ex.settlement_end(self)
        effects.expire(self, effects.END_OF_SETTLEMENT)
        effects.expire(self, effects.END_OF_NEXT_ROUND)  # "until the end of the next round" (RULINGS R39)
        effects.reset_round_flags(self)  # per-round usage flags reset right after the Round Settlement

    def _end_game(self) -> None:
        """RULINGS R8: a final settlement if the round had begun, then the game ends."""
        if self.turns_in_round >= 1:  # docs/rulings.md BC-07
            # the final Round Settlement (CORE-01-09-02)
            self.stack.append(AfterSettlement(final=True))
            self.stack.append(Settlement())
            return
        self._game_over()

    def _game_over(self) -> None:
        self.over = True
        self._winners = None
        self.log("game-over", "CORE-01-09-03", winners=self.winners(), influence=list(self.on_board))


__all__ = ["Game", "ActiveEffect"]
