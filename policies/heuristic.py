"""A fast rule-of-thumb bot: one-step look-ahead scored by a static evaluation.

For every (pruned) legal action the bot applies the action to a ``game.clone()``. While the decision
that follows still belongs to the bot within the same turn (the payment of a FormalizeInfluence, the
destination of a Move, the gain of a ConvertResources) it continues with the best continuation, so a
whole Political Action is valued at once. The resulting position is scored by :func:`evaluate`, which
is documented term by term in ``docs/policies.md``. Ties are broken by a seeded RNG, so the bot is
deterministic given its seed.

In the core game that search runs without a clone per action (:class:`IncrementalEvaluation`): the Board data the
evaluation reads are scanned once per decision and patched per action; the values are bit-identical to
the clone-per-action reference (``HeuristicPolicy(incremental=False)``), so are the decisions.

Pruning (the evaluation is the same for the pruned actions, or they are dominated):

* tile placement: the cells next to a Lobbyist, an unresolved Hotspot or (for a Lobbyist or Hotspot
  tile) a Resort, and for a Hotspot tile the cells with two or more tiles around, plus a few other
  cells picked by the seeded RNG (all other cells score alike);
* Place Influence: Resorts, Lobbyists and unresolved Hotspots where one more Influence of the bot
  changes or secures the majority, plus one other tile (Influence counts anywhere at the end);
* Move Influence: only when the supply is empty or held back (a Place onto the same tile dominates
  a Move); destinations pruned like Place;
* gate control (CORE-01-08-02): while :func:`holds_gate` says so, no Place of the held Influence;
* FormalizeInfluence / ConvertResources: one representative per equivalent tile (standard Committee,
  Start Committee, each Grassroots text), since their effects are identical in the core game.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from bc_env.rules import Game
from bc_env.rules.actions import CONVERT, FORMALIZE, MOVE_TO, PLACE
from bc_env.rules.components import COMMITTEE, GRASSROOTS, HOTSPOT, LOBBYIST, RESORT
from bc_env.rules.decisions import Resolution

from . import exp02_values

# Decisions that continue the same player's turn (the rest of one Political Action); EXP-02's Regulation
# decisions (which Regulation to place, move or remove, and where) are played out too.
_CONTINUATIONS = ("move_to", "pay", "gain", "regulation-pay", "regulation-place", "regulation-pick",
                  "regulation-move-to")  # fmt: skip
#: With EXP-02 also the target of a Measure (Emergency Decree's Hotspot, ...), so a PlayMeasure is valued whole.
_CONTINUATIONS_EXP02 = (*_CONTINUATIONS, "target")


@dataclass(frozen=True)
class HeuristicWeights:
    """Weights of the evaluation (see docs/policies.md for what each term means)."""

    #: Tempo: value of one political action. Influence in supply is worth ``1 - tempo`` (it still needs a
    #: Place), a potential new Influence ``1 - 2 * tempo`` (it needs a FormalizeInfluence and a Place).
    tempo: float = 0.15
    #: Value of supply Influence that can no longer be placed before the game ends.
    stranded_supply: float = 0.05
    #: Per-settlement discount of future income (uncertainty of keeping control, time value).
    income_discount: float = 0.85
    #: Probability-like confidence that a Resort held by a margin of 1 (of >= 2) keeps producing.
    confidence_thin: float = 0.5
    confidence_safe: float = 0.8
    #: Resources needed per ConvertResources-made resort when the holdings are lopsided.
    convert_ratio: float = 4.0
    #: Settlements at the end whose Resources come too late to be used (a FormalizeInfluence and a
    #: Place still have to follow them).
    late_settlements: int = 2
    #: Bonus for an owned Lobbyist per empty neighbouring cell (future Resorts next to it).
    lobbyist_room: float = 0.03
    #: Bonus per owned Lobbyist per neighbouring ResortTile (its +1 defends or takes control).
    lobbyist_resort: float = 0.04
    #: A pending free Hotspot placement (worth ``tempo`` once it happens) counts this fraction of
    #: ``tempo``, divided by the Hotspot's empty neighbours (fewer empty cells: closer to resolving).
    hotspot_threat: float = 0.6
    #: Tiny value of each Resource (tie-break: keep Resources rather than waste them).
    resource_epsilon: float = 0.002
    #: Share of an opponent's formalization potential that counts in the relative score.
    opponent_potential: float = 0.6
    #: Weight of the strongest opponent vs. the mean of the opponents in the relative score.
    best_opponent: float = 0.7
    #: Added per returns() unit at the end of the game (win/loss dominates everything else).
    terminal_bonus: float = 10.0
    #: Gate control (CORE-01-08-02): hold back the last Starting Influence while more than
    #: ``turns needed + gate_margin`` turns are left, so nobody can formalize until then.
    hold_gate: bool = True
    gate_margin: int = 0
    #: While holding: penalty for a position where the gate opened anyway (a Hotspot placed the held
    #: Influence), and for holding the majority on an unresolved Hotspot (divided by its empty neighbours).
    gate_opened_penalty: float = 5.0
    gate_hotspot_risk: float = 2.0


DEFAULT_WEIGHTS = HeuristicWeights()


def _pairs(h: list[float], convert: bool, ratio: float) -> float:
    """Formalizations (2 Resources of different resorts) that holdings ``h`` can pay (continuous)."""
    total = sum(h)
    top = max(h)
    rest = total - top
    if top <= rest:
        return total / 2.0
    if convert:  # ConvertResources turns the surplus of the largest resort into other resorts
        return rest + (top - rest) / ratio
    return rest


# ------------------------------------------------------------------ evaluation building blocks
# The evaluation reads the Board (:class:`_Board`: Lobbyist owners, the majorities of the Resorts and the
# unresolved Hotspots), the game clock and the Committees (:class:`_Frame`), and the players' holdings;
# :func:`_combine` turns them into scores. :func:`evaluate` builds both from a game. The incremental
# evaluation (:class:`IncrementalEvaluation`) builds them once per decision and patches only what one action
# changes. The Board data it patches are integer sums (order-free), so both give bit-identical values.


#: A Resort's entry: (printed value, resort, leaders, thin margin); a Hotspot's: (empty neighbours, totals).
_ResortEntry = tuple[int, int, tuple[int, ...], bool]
_HotspotEntry = tuple[int, list[int]]
#: What an action changes in the Board data (see IncrementalEvaluation._changes): touched cells, Lobbyist owner
#: changes (cell, owner), Resort entry changes (index, entry), Hotspot totals changes (index, totals).
_Change = tuple[
    frozenset[int],
    tuple[tuple[int, int], ...],
    tuple[tuple[int, _ResortEntry], ...],
    tuple[tuple[int, tuple[int, ...]], ...],
]


def _owner_of(t: list[int]) -> int:
    """RULINGS R13: the player with strictly the most physical Influence on a Lobbyist, else -1."""
    top = max(t)
    if top <= 0 or t.count(top) != 1:
        return -1
    return t.index(top)


def _leaders(t: list[int], n: int) -> tuple[tuple[int, ...], bool]:
    """The majority of totals ``t`` (RULINGS R14; empty if nobody) and whether it is thin (a tie or a
    margin of 1: the Resort may well be lost before it produces)."""
    top = max(t)
    if top <= 0:
        return (), False
    leaders = tuple(q for q in range(n) if t[q] == top)
    if len(leaders) == 1:
        second = max(t[q] for q in range(n) if q != leaders[0])
        return leaders, top - second <= 1
    return leaders, True


def _add_resort(item: _ResortEntry, thin: list[int], safe: list[int], nres: int, sign: int) -> None:
    """Add (``sign`` 1) or remove (-1) one Resort's shares: its printed value split among the leaders
    (CORE-01-06-11/14, the remainder goes to Noise), in ``thin`` or ``safe`` by its margin."""
    value, resort, leaders, is_thin = item
    if leaders:
        share = value // len(leaders)
        if share > 0:
            arr = thin if is_thin else safe
            for q in leaders:
                arr[q * nres + resort] += sign * share


class _Board:
    """What the evaluation reads of the Board.

    * ``owner``: Lobbyist cell -> owner (-1: none, RULINGS R13); ``lob_cells`` / ``lob_counts``: each
      Lobbyist's (empty neighbours, neighbouring Resorts); ``lob_empty`` / ``lob_resorts``: their sums
      per owner;
    * ``resort_cells`` (ascending: the settlement order, BC-01) / ``resorts``: ``(value, resort, leaders,
      thin)`` per ResortTile; ``thin`` / ``safe``: flat ``player * nres + resort`` sums of the shares of
      the Resorts each player leads by a thin (tie or 1) or a safe margin — also what a Round Settlement
      now would produce (unlimited Bank);
    * ``hot_cells`` (ascending) / ``hotspots``: ``(empty neighbours, totals)`` per unresolved Hotspot.
    """

    __slots__ = (
        "owner", "lob_cells", "lob_counts", "lob_empty", "lob_resorts",
        "resort_cells", "resorts", "thin", "safe", "hot_cells", "hotspots",
    )  # fmt: skip

    def __init__(self, game: Game) -> None:
        n, nres = game.num_players, game.num_resorts
        kind_at, tile_at, infl = game.kind_at, game.tile_at, game.infl
        nbrs = game.topo.neighbors
        catalogue = game.catalogue
        resolved = game.resolved
        owner: dict[int, int] = {}
        lob_cells, lob_counts, hot_cells = [], [], []
        lob_empty, lob_resorts = [0] * n, [0] * n
        for c in game.nonstart:
            k = kind_at[c]
            if k == LOBBYIST:
                o = _owner_of(infl[c * n : c * n + n])
                owner[c] = o
                empty = 0
                resorts = 0
                for nb in nbrs[c]:
                    if tile_at[nb] < 0:
                        empty += 1
                    elif kind_at[nb] == RESORT:
                        resorts += 1
                lob_cells.append(c)
                lob_counts.append((empty, resorts))
                if o >= 0:
                    lob_empty[o] += empty
                    lob_resorts[o] += resorts
            elif k == HOTSPOT and not resolved[c] and exp02_values.places_influence(game, tile_at[c]):
                hot_cells.append(c)  # a pending free placement (CORE-01-06-05; not EXP-02's Inner Order)
        self.owner = owner
        self.lob_cells = lob_cells
        self.lob_counts = lob_counts
        self.lob_empty = lob_empty
        self.lob_resorts = lob_resorts
        self.resort_cells = game.resort_cells[:]
        self.resorts: list[_ResortEntry] = []
        self.thin = [0] * (n * nres)
        self.safe = [0] * (n * nres)
        regs = game.ext.get("EXP-02")
        attached = regs.on if regs is not None else {}
        for c in game.resort_cells:
            spec = catalogue[tile_at[c]]
            leaders, thin = _leaders(self.totals(c, infl, n, nbrs), n)
            value = spec.value
            counts = attached.get(c) if attached else None
            if counts:  # EXP-02-04-B: a Blockade stops production, each SecurityLevel lowers it (floor 0)
                value = 0 if counts[3] else max(0, value - counts[0])
            item = (value, spec.resort, leaders, thin)
            self.resorts.append(item)
            _add_resort(item, self.thin, self.safe, nres, 1)
        if attached:  # EXP-02-04-C-03, RULINGS R29: a Blockade / SecurityLevel voids a Hotspot's free placement
            hot_cells = [c for c in hot_cells if not exp02_values.voids_output(attached.get(c))]
        self.hot_cells = hot_cells
        self.hotspots = [
            (sum(1 for nb in nbrs[c] if tile_at[nb] < 0), self.totals(c, infl, n, nbrs)) for c in hot_cells
        ]

    def totals(
        self, c: int, infl: list[int], n: int, nbrs: tuple[tuple[int, ...], ...], base: list[int] | None = None
    ) -> list[int]:
        """computeMajority's totals of tile ``c`` (CORE-01-05-03A/04): physical Influence (``base``, or
        from ``infl``) plus one per owned neighbouring Lobbyist (RULINGS R13)."""
        t = infl[c * n : c * n + n] if base is None else base[:]
        owner = self.owner
        for nb in nbrs[c]:
            o = owner.get(nb, -1)
            if o >= 0:
                t[o] += 1
        return t


class _Frame:
    """What the evaluation reads of the game clock and the Committees (nothing of the Influence)."""

    __slots__ = (
        "over",
        "settlements",
        "k_thin",
        "k_safe",
        "turns",
        "standard_committee",
        "committee_chance",
        "convert",
        "surcharge",
    )

    def __init__(self, game: Game, w: HeuristicWeights) -> None:
        n = game.num_players
        self.over = over = game.is_terminal()
        # Settlements still to come whose Resources can still be turned into Influence, and the discounted
        # number of productions they are worth, times the confidence of keeping a thin / safe majority.
        settlements = 0 if over else -(-(game.turns_in_round + len(game.draw_pile) + 1) // n)
        self.settlements = settlements = max(0, settlements - w.late_settlements)
        gamma = w.income_discount
        horizon = (1 - gamma**settlements) / (1 - gamma)
        self.k_thin = w.confidence_thin * horizon
        self.k_safe = w.confidence_safe * horizon
        self.turns = [] if over else [game.turns_left(p) for p in range(n)]
        # Committees: a standard one on the Board allows any number of formalizations; otherwise only the
        # Start Committee (once per player, CORE-01-08-07) until a Committee is drawn, whose chance over
        # the next few draws follows from the DrawPile's public composition.
        self.standard_committee = any(c != game.topo.centre for c in game.committees)
        #: EXP-02: the extra Resources a FormalizeInfluence costs on the cheapest usable Committee (0 otherwise).
        self.surcharge = 0
        regs = exp02_values.regulations(game)
        if regs:
            # A Blockade or SecurityLevel makes a Committee useless for FormalizeInfluence (EXP-02-02-B-02/07,
            # RULINGS R29); Control / Administration make it dearer (EXP-02-02-B-03/05, R28).
            usable = [
                c for c in game.committees if c != game.topo.centre and not exp02_values.voids_output(regs.get(c))
            ]
            self.standard_committee = bool(usable)
            if usable:
                self.surcharge = min(sum(regs[c][1:3]) if c in regs else 0 for c in usable)
        committee_chance = 1.0
        if not self.standard_committee:
            pile = game.draw_pile
            catalogue = game.catalogue
            left = sum(1 for t in pile if catalogue[t].kind == COMMITTEE)
            committee_chance = 1.0 - (1.0 - left / len(pile)) ** min(len(pile), 2 * n) if pile else 0.0
        self.committee_chance = committee_chance
        self.convert = bool(game.grassroots)
        if regs:  # EXP-02-02-B-07: a Blockade prohibits the conversion
            self.convert = any(not (c in regs and regs[c][3]) for c in game.grassroots)

    def copy(self) -> _Frame:
        f = object.__new__(_Frame)
        for name in _Frame.__slots__:
            setattr(f, name, getattr(self, name))
        return f


def _threat(w: HeuristicWeights, hotspots: list[_HotspotEntry], supply: list[int]) -> list[float]:
    """Pending free Hotspot placements (CORE-01-06-05): the single majority of an unresolved Hotspot, if it
    has supply, gets ``hotspot_threat * tempo`` divided by the Hotspot's empty neighbours."""
    threat = [0.0] * len(supply)
    for empty, t in hotspots:
        if empty <= 0:
            continue
        top = max(t)
        if top <= 0 or t.count(top) != 1:
            continue
        q = t.index(top)
        if supply[q] > 0:
            threat[q] += w.hotspot_threat * w.tempo / empty
    return threat


def _player_score(
    w: HeuristicWeights,
    me: int | None,
    frame: _Frame,
    board: _Board,
    p: int,
    supply: list[int],
    on_board: list[int],
    res: list[int],
    start_used: list[bool],
    cap: int,
    threat: list[float],
) -> float:
    """Player ``p``'s score (see :func:`player_scores`); it reads only ``p``'s entries of every list."""
    b = on_board[p]
    s = supply[p]
    turns = frame.turns[p]
    tempo = w.tempo
    deploy = min(s, turns)
    score = b + (1.0 - tempo) * deploy + w.stranded_supply * (s - deploy)
    nres = len(res) // len(supply)
    base = p * nres
    held = res[base : base + nres]
    cap_new = min(cap - s - b, (turns - deploy) // 2)  # room under the cap; each new Influence needs 2 turns
    if cap_new > 0:
        # Expected future Resources from the Resorts ``p`` controls now (zero without useful settlements).
        if frame.settlements:
            k_thin, k_safe, thin, safe = frame.k_thin, frame.k_safe, board.thin, board.safe
            holdings = [held[r] + (k_thin * thin[base + r] + k_safe * safe[base + r]) for r in range(nres)]
        else:
            holdings = [float(h) for h in held]
        pairs = _pairs(holdings, frame.convert, w.convert_ratio)
        if frame.surcharge:  # EXP-02: each formalization costs 2 + surcharge Resources
            pairs *= 2.0 / (2.0 + frame.surcharge)
        potential = cap_new * (1.0 - math.exp(-pairs / cap_new))
        if not frame.standard_committee:
            first = 0.0 if start_used[p] else min(1.0, potential)
            potential = first + frame.committee_chance * (potential - first)
        if me is not None and p != me:
            potential *= w.opponent_potential
        score += (1.0 - 2.0 * tempo) * potential
    lobbyists = w.lobbyist_room * board.lob_empty[p] + w.lobbyist_resort * board.lob_resorts[p]
    return score + (w.resource_epsilon * sum(held) + lobbyists + threat[p])


def _combine(
    w: HeuristicWeights,
    me: int | None,
    frame: _Frame,
    board: _Board,
    supply: list[int],
    on_board: list[int],
    res: list[int],
    start_used: list[bool],
    cap: int,
) -> list[float]:
    """The players' scores (see :func:`player_scores`) from the Board data, the frame and the holdings."""
    if frame.over:
        return [float(b) for b in on_board]
    threat = _threat(w, board.hotspots, supply)
    return [
        _player_score(w, me, frame, board, p, supply, on_board, res, start_used, cap, threat)
        for p in range(len(supply))
    ]


def _relative(
    scores: list[float],
    me: int,
    w: HeuristicWeights,
    frame: _Frame,
    on_board: list[int],
    hold: bool,
    held_deployed: bool,
    hotspots: list[_HotspotEntry],
) -> float:
    """:func:`evaluate` from the scores, the Board counts (for the returns at the end) and the gate state."""
    others = [s for q, s in enumerate(scores) if q != me]
    rel = scores[me] - (w.best_opponent * max(others) + (1.0 - w.best_opponent) * sum(others) / len(others))
    if frame.over:
        rel += w.terminal_bonus * _returns(on_board)[me]
    elif hold:
        if held_deployed:
            rel -= w.gate_opened_penalty
        for empty, t in hotspots:
            if t[me] > 0 and t[me] >= max(t):
                rel -= w.gate_hotspot_risk / max(empty, 1)
    return rel


def _returns(on_board: list[int]) -> list[float]:
    """RULINGS R9 at the end of the game, as ``Game.returns()``: the k winners share +1, the others -1."""
    n = len(on_board)
    best = max(on_board)
    k = on_board.count(best)
    if k == n:
        return [0.0] * n
    return [1.0 / k if on_board[p] == best else -1.0 / (n - k) for p in range(n)]


def player_scores(game: Game, w: HeuristicWeights = DEFAULT_WEIGHTS, me: int | None = None) -> list[float]:
    """Each player's score in units of final Influence on the Board (see docs/policies.md).

    With ``me`` given, the formalization potential of the other players counts ``w.opponent_potential``
    of its value: the bot is sure to pursue its own potential, the opponents may not (and can be denied
    later), so a sure step of its own beats an equal-looking denial.
    """
    return _combine(
        w, me, _Frame(game, w), _Board(game), game.supply, game.on_board, game.res, game.start_used, game.cap
    )


def turns_needed_after_gate(game: Game, me: int) -> int:
    """Turns ``me`` needs once the gate opens: place the held Influence, then Formalize + Place to the cap."""
    return (game.starting[me] - game.deployed[me]) + 2 * max(0, game.cap - game.starting[me] - game.created[me])


def holds_gate(game: Game, me: int, w: HeuristicWeights = DEFAULT_WEIGHTS) -> bool:
    """Gate control: ``me`` keeps its last Starting Influence back while time allows (CORE-01-08-02)."""
    if not w.hold_gate or game.is_terminal():
        return False
    if game.starting[me] - game.deployed[me] != 1 or game.supply[me] < 1:
        return False
    # One turn of slack while another player still keeps the gate closed too (it may open a turn later).
    others_closed = any(game.deployed[q] < game.starting[q] for q in range(game.num_players) if q != me)
    return game.turns_left(me) > turns_needed_after_gate(game, me) + w.gate_margin + int(others_closed)


def evaluate(game: Game, me: int, w: HeuristicWeights = DEFAULT_WEIGHTS, hold: bool = False) -> float:
    """Relative score of ``me``: own score minus a blend of the best and the mean opponent score.

    ``hold``: ``me`` is holding the gate (see :func:`holds_gate`); positions that open it anyway, or
    risk a Hotspot placing the held Influence, are penalised.
    """
    return _evaluate(game, me, w, hold, _Board(game))


def _evaluate(game: Game, me: int, w: HeuristicWeights, hold: bool, board: _Board) -> float:
    """:func:`evaluate` with the Board data given (those of ``game``, or of a position with the same Board)."""
    frame = _Frame(game, w)
    scores = _combine(w, me, frame, board, game.supply, game.on_board, game.res, game.start_used, game.cap)
    held_deployed = game.deployed[me] >= game.starting[me]
    return _relative(scores, me, w, frame, game.on_board, hold, held_deployed, board.hotspots)


#: The position after a Place / Move that changes no Board data (see IncrementalEvaluation._after).
_After = tuple[list[int], list[int], bool, list[int], list[float], list[float], float]


class IncrementalEvaluation:
    """The values of one decision's actions for ``me``, without a clone per action (core rules only, see
    :meth:`applies`). Each value equals :func:`evaluate` of the position the reference search reaches (a
    clone per action, the rest of the Political Action played out) bit for bit: the arithmetic is the same
    (:func:`_player_score`), and the Board data it patches are integer sums. ``tests/test_policies.py``
    checks it against ``HeuristicPolicy(incremental=False)``.

    * :meth:`move_value` — a Place or a Move changes the Influence of one or two tiles (and, through a
      Lobbyist that changes hands, the totals of its neighbours) and the mover's supply, then ends the turn:
      maybe a Round Settlement (CORE-01-07-03) and the next draw. The clock, the DrawPile and the end of the
      game are the same for every action that ends the turn, so one real clone (:meth:`template`) gives the
      :class:`_Frame` after the turn and tells whether a settlement follows; its production is the patched
      ``thin`` + ``safe`` shares. The changes of taking an Influence from a tile and of adding one to a tile
      are computed once per tile and combined; values are memoised by the change, and each player's score by
      its own inputs (only the players a change touches are rescored).
    * :meth:`spend_value` — FormalizeInfluence and ConvertResources leave the Board alone: the Resources
      paid and gained, the new Influence in the supply, the settlement's production of the current majorities.
    * :meth:`tile_value` — a tile placement adds a tile without Influence: a new Resort or Hotspot entry, one
      empty neighbour less for the Lobbyists and Hotspots around it, maybe the first Standard Committee or
      Grassroots, and the resolution of the Hotspots it closes (CORE-01-06-02..07). The turn goes on (the
      Political Action follows), so the clock is the current one.
    """

    def __init__(self, game: Game, me: int, w: HeuristicWeights, hold: bool) -> None:
        self.game = game
        self.me = me
        self.w = w
        self.hold = hold
        self.board = _Board(game)
        self.r_index = {c: i for i, c in enumerate(self.board.resort_cells)}
        self.h_index = {c: i for i, c in enumerate(self.board.hot_cells)}
        self.l_index = {c: i for i, c in enumerate(self.board.lob_cells)}
        self.frame: _Frame | None = None  # after the turn (see template())
        self.settles = False
        self.now: _Frame | None = None  # of the current position (tile placement)
        self.now_scores: tuple[list[float], list[float]] | None = None  # see _now_scores()
        self.memo: dict[tuple[object, ...], float] = {}  # move_value by change
        self.halves: dict[tuple[int, int], _Change] = {}  # _half by (tile, delta)
        self.bases: dict[bool, _After] = {}  # _after by Place / Move
        self.player_memo: dict[tuple[object, ...], float] = {}  # a player's score after a Place / Move by its inputs

    @staticmethod
    def applies(game: Game) -> bool:
        """Core rules only (CORE-01, VAR-01, ADD56-01): an expansion brings modifiers that change costs,
        legality, production and Hotspot resolution (those games take a clone per action)."""
        config = game.config
        return not (config.exp01 or config.exp02 or config.exp03 or game.measures or game.active_effects)

    # ------------------------------------------------------------------ Place / Move
    def template(self, action: int) -> None:
        """Play ``action`` (one that ends the turn once its own decisions are taken) on a clone: the
        :class:`_Frame` after the turn and whether a Round Settlement follows (the same for every such
        action: only Influence, Resources and the supply differ)."""
        if self.frame is not None:
            return
        game = self.game
        child = game.clone()
        child.apply(action)
        while child.current_player == self.me and child.phase_name in _CONTINUATIONS:
            child.apply(child.legal_actions()[0])
        self.frame = _Frame(child, self.w)
        self.settles = any(e["type"] == "settlement" for e in child.events[len(game.events) :])

    def _changes(self, phys: dict[int, list[int]]) -> _Change:
        """What new physical Influence on some tiles (``phys``: cell -> Influence per player) changes in the
        Board data: ``(touched cells, Lobbyist owner changes, Resort entry changes, Hotspot totals changes)``,
        the last three as sorted ``(cell or index, new)`` tuples (hashable: they key the values)."""
        base = self.board
        n = self.game.num_players
        infl, kind_at, nbrs = self.game.infl, self.game.kind_at, self.game.topo.neighbors
        touched = list(phys)
        owner = base.owner
        owners = []
        for c in phys:
            if kind_at[c] == LOBBYIST:
                new = _owner_of(phys[c])
                if new != owner[c]:  # the Lobbyist changes hands: its neighbours' totals change (R13)
                    owners.append((c, new))
                    touched.extend(nbrs[c])
        if owners:
            owner = dict(owner)
            owner.update(owners)
        items: dict[int, _ResortEntry] = {}  # Resort index -> its new entry
        hots: dict[int, tuple[int, ...]] = {}  # Hotspot index -> its new totals
        r_index, h_index = self.r_index, self.h_index
        for c in touched:
            i = r_index.get(c)
            j = h_index.get(c)
            if i is None and j is None:
                continue
            t = phys[c][:] if c in phys else infl[c * n : c * n + n]
            for nb in nbrs[c]:
                o = owner.get(nb, -1)
                if o >= 0:
                    t[o] += 1
            if i is not None:
                old = base.resorts[i]
                item = (old[0], old[1], *_leaders(t, n))
                if item != old:
                    items[i] = item
            elif tuple(t) != tuple(base.hotspots[j][1]):  # type: ignore[index]
                hots[j] = tuple(t)  # type: ignore[index]
        return frozenset(touched), tuple(sorted(owners)), tuple(sorted(items.items())), tuple(sorted(hots.items()))

    def _half(self, c: int, delta: int) -> _Change:
        """:meth:`_changes` of one Influence of ``me`` more (``delta`` 1) or less (-1) on tile ``c``."""
        got = self.halves.get((c, delta))
        if got is None:
            n, me = self.game.num_players, self.me
            t = self.game.infl[c * n : c * n + n]
            t[me] += delta
            got = self.halves[(c, delta)] = self._changes({c: t})
        return got

    def move_value(self, src: int, dst: int) -> float:
        """:func:`evaluate` for ``me`` after a Place onto ``dst`` (``src < 0``) or a Move ``src`` -> ``dst``.

        The value depends only on what the action changes in the Board data (Resort majorities, Hotspot
        totals, Lobbyist owners) and on whether it is a Place, so actions that change the same are valued
        once (e.g. every Move that changes no majority). The changes of taking an Influence from ``src`` and
        of adding one to ``dst`` are computed once per tile; two that touch no common tile add up.
        """
        assert self.frame is not None, "call template() first"
        place = src < 0
        change = self._half(dst, 1)
        if not place:
            away = self._half(src, -1)
            if not away[0].isdisjoint(change[0]):  # they interact (same tiles, or a Lobbyist next to the other)
                n, me, infl = self.game.num_players, self.me, self.game.infl
                t_dst, t_src = infl[dst * n : dst * n + n], infl[src * n : src * n + n]
                t_dst[me] += 1
                t_src[me] -= 1
                change = self._changes({dst: t_dst, src: t_src})
            elif away[1] or away[2] or away[3]:
                change = (
                    frozenset(),
                    tuple(sorted(away[1] + change[1])),
                    tuple(sorted(away[2] + change[2])),
                    tuple(sorted(away[3] + change[3])),
                )
        key = (place, change[1], change[2], change[3])
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = self._move_value(place, change[1], change[2], change[3])
        return got

    def _after(self, place: bool) -> _After:
        """The position after any Place (``place``) or Move that changes no Board data: ``(supply, on_board,
        held deployed, Resources, threat, scores, value)``; the other actions patch it."""
        got = self.bases.get(place)
        if got is None:
            frame = self.frame
            assert frame is not None
            game, me, w, board = self.game, self.me, self.w, self.board
            supply, on_board = game.supply, game.on_board
            held_deployed = game.deployed[me] >= game.starting[me]
            if place:  # Place (CORE-01-04-11): supply -> Board, one more deployed (RULINGS R11)
                supply = supply[:]
                supply[me] -= 1
                on_board = on_board[:]
                on_board[me] += 1
                held_deployed = game.deployed[me] + 1 >= game.starting[me]
            res = self._produce(board, game.res)
            threat = _threat(w, board.hotspots, supply)
            if frame.over:
                scores = [float(b) for b in on_board]
            else:
                scores = [
                    _player_score(w, me, frame, board, p, supply, on_board, res, game.start_used, game.cap, threat)
                    for p in range(game.num_players)
                ]
            value = _relative(scores, me, w, frame, on_board, self.hold, held_deployed, board.hotspots)
            got = self.bases[place] = (supply, on_board, held_deployed, res, threat, scores, value)
        return got

    def _produce(self, board: _Board, res: list[int]) -> list[int]:
        """The Resources ``res`` plus a Round Settlement's production if one follows (CORE-01-07-03)."""
        game = self.game
        if not self.settles:
            return res
        res = res[:]
        if game.config.bank_stock is None:
            for i, (a, b) in enumerate(zip(board.thin, board.safe)):
                res[i] += a + b
            return res
        nres = game.num_resorts
        bank = game.bank[:]  # a finite Bank runs out in ascending cell order (BC-01, BC-02)
        for value, resort, leaders, _ in board.resorts:
            amount = max(value, 0)
            if not leaders or amount <= 0:
                continue
            amount = min(amount, bank[resort])
            if amount <= 0:
                continue
            share = amount // len(leaders)  # CORE-01-06-14/15
            for p in leaders:
                res[p * nres + resort] += share
            bank[resort] -= amount
        return res

    def _move_value(
        self,
        place: bool,
        owners: tuple[tuple[int, int], ...],
        items: tuple[tuple[int, _ResortEntry], ...],
        hots: tuple[tuple[int, tuple[int, ...]], ...],
    ) -> float:
        """The value after a Place (``place``) or Move that changes the Board data as given."""
        supply, on_board, held_deployed, res_after, threat, scores, value = self._after(place)
        res: list[int] | None = res_after
        frame = self.frame
        assert frame is not None
        if frame.over or not (owners or items or hots):
            return value
        game, me, w, base = self.game, self.me, self.w, self.board
        nres = game.num_resorts
        finite = game.config.bank_stock is not None
        affected: set[int] = set()  # the players whose score can change
        board = object.__new__(_Board)  # the parts _player_score and _relative read, patched
        board.lob_empty, board.lob_resorts = base.lob_empty, base.lob_resorts
        if owners:
            board.lob_empty, board.lob_resorts = base.lob_empty[:], base.lob_resorts[:]
            for c, new in owners:
                old = base.owner[c]
                empty, resorts = base.lob_counts[self.l_index[c]]
                if old >= 0:
                    board.lob_empty[old] -= empty
                    board.lob_resorts[old] -= resorts
                    affected.add(old)
                if new >= 0:
                    board.lob_empty[new] += empty
                    board.lob_resorts[new] += resorts
                    affected.add(new)
        board.thin, board.safe, board.resorts = base.thin, base.safe, base.resorts
        if items:
            thin, safe = board.thin, board.safe = base.thin[:], base.safe[:]
            for i, item in items:
                before = base.resorts[i]
                _add_resort(before, thin, safe, nres, -1)
                _add_resort(item, thin, safe, nres, 1)
                affected.update(before[2])
                affected.update(item[2])
            if not finite:
                res = None  # plus the production of the patched majorities: computed when a score needs it
            else:  # a finite Bank: the production runs out in cell order, anybody's share can change (BC-02)
                board.resorts = base.resorts[:]
                for i, item in items:
                    board.resorts[i] = item
                res = self._produce(board, game.res)
                if self.settles:
                    affected.update(range(game.num_players))
        board.hotspots = base.hotspots
        if hots:
            board.hotspots = base.hotspots[:]
            for j, t in hots:
                board.hotspots[j] = (base.hotspots[j][0], list(t))
            threat = _threat(w, board.hotspots, supply)
            affected.update(range(game.num_players))
        scores = scores[:]
        memo = self.player_memo
        for p in sorted(affected):
            # A player's score reads only its own entries (and the supply / Board counts, fixed by ``place``).
            lo, hi = p * nres, p * nres + nres
            key = (
                place,
                p,
                *board.thin[lo:hi],
                *board.safe[lo:hi],
                board.lob_empty[p],
                board.lob_resorts[p],
                threat[p],
            )
            if finite:  # the production is not the sum of the shares: the Resources themselves
                assert res is not None
                key += (*res[lo:hi],)
            got = memo.get(key)
            if got is None:
                if res is None:
                    res = self._produce(board, game.res)
                got = memo[key] = _player_score(
                    w, me, frame, board, p, supply, on_board, res, game.start_used, game.cap, threat
                )
            scores[p] = got
        return _relative(scores, me, w, frame, on_board, self.hold, held_deployed, board.hotspots)

    # ------------------------------------------------------------------ FormalizeInfluence / ConvertResources
    def spends(self) -> bool:
        """Whether :meth:`formalize_value` / :meth:`convert_value` apply: with a finite Bank the payment
        changes what the settlement can produce (BC-02), so a clone values those."""
        return self.game.config.bank_stock is None

    def spend_value(self, kind: str, cell: int, prefix: list[int], gain: int = -1) -> float:
        """The value of FormalizeInfluence (``kind`` "formalize") or ConvertResources ("convert") via the tile
        on ``cell`` with the best payment that starts with ``prefix`` (and, for a conversion, the best gain,
        or ``gain`` if given). Every payment the engine offers is a leaf of the ``pay`` decisions (BC-05),
        every gain one of the ``gain`` decision (CORE-01-04-22, RULINGS R16). FormalizeInfluence: one new
        Influence into the supply (CORE-01-04-17, -08-10), the Start Committee used (CORE-01-08-07). The
        Board is unchanged."""
        game, me = self.game, self.me
        k = len(prefix)
        best = -math.inf
        if kind == "formalize":
            start = cell == game.topo.centre
            for pay in game.payment_choices(game.effect_for("formalize", cell, me)):
                if list(pay[:k]) == prefix:
                    best = max(best, self._spend_value(pay, -1, 0, True, start))
            return best
        text = game.grassroots_text(cell)
        for pay in game.payment_choices(game.effect_for("convert", cell, me)):
            if list(pay[:k]) != prefix:
                continue
            for r in range(game.num_resorts) if gain < 0 else (gain,):
                if text.gain_rule == "different" and r in pay:
                    continue
                best = max(best, self._spend_value(pay, r, text.gain, False, False))
        return best

    def _spend_value(self, pay: tuple[int, ...], gain: int, amount: int, formalize: bool, start: bool) -> float:
        frame = self.frame
        assert frame is not None, "call template() first"
        game, me, w, board = self.game, self.me, self.w, self.board
        nres = game.num_resorts
        res = game.res[:]
        for r in pay:  # RULINGS R18: paid to the Bank
            res[me * nres + r] -= 1
        if gain >= 0:
            res[me * nres + gain] += amount
        supply, start_used = game.supply, game.start_used
        if formalize:
            supply = supply[:]
            supply[me] += 1
            if start:
                start_used = start_used[:]
                start_used[me] = True
        res = self._produce(board, res)
        scores = _combine(w, me, frame, board, supply, game.on_board, res, start_used, game.cap)
        held_deployed = game.deployed[me] >= game.starting[me]
        return _relative(scores, me, w, frame, game.on_board, self.hold, held_deployed, board.hotspots)

    # ------------------------------------------------------------------ tile placement
    def _now_scores(self) -> tuple[list[float], list[float]]:
        """The scores and the Hotspot threat of the current position (tile placement: before the tile)."""
        if self.now_scores is None:
            game, w, board = self.game, self.w, self.board
            assert self.now is not None
            threat = _threat(w, board.hotspots, game.supply)
            scores = [
                _player_score(
                    w, self.me, self.now, board, p, game.supply, game.on_board, game.res, game.start_used,
                    game.cap, threat,
                )
                for p in range(game.num_players)
            ]  # fmt: skip
            self.now_scores = (scores, threat)
        return self.now_scores

    def tile_value(self, cell: int) -> float:
        """:func:`evaluate` for ``me`` after the drawn tile goes to ``cell`` (and the Hotspots it closes
        resolve, CORE-01-06-02..07)."""
        game, me, w, base = self.game, self.me, self.w, self.board
        n, nres = game.num_players, game.num_resorts
        tile_at, nbrs = game.tile_at, game.topo.neighbors
        spec = game.catalogue[game.drawn]
        kind = spec.kind
        around = nbrs[cell]
        if self.now is None:
            self.now = _Frame(game, w)  # the clock is the current one; the placement only adds a tile
        frame = self.now
        if (kind == COMMITTEE and not frame.standard_committee) or (kind == GRASSROOTS and not frame.convert):
            frame = frame.copy()
            frame.standard_committee = frame.standard_committee or kind == COMMITTEE
            frame.convert = frame.convert or kind == GRASSROOTS
        board = object.__new__(_Board)  # the parts _player_score and _relative read, patched
        board.lob_empty, board.lob_resorts = base.lob_empty, base.lob_resorts
        board.thin, board.safe = base.thin, base.safe
        board.hotspots = base.hotspots
        affected: set[int] = set()  # the players whose score can change
        every = frame is not self.now  # every player's score can change
        closing: list[list[int]] = []  # the totals of the Hotspots that close, in resolution order (RULINGS R5)
        new_hotspot = None
        if kind == HOTSPOT:  # no Influence yet: the owned Lobbyists around decide (RULINGS R13)
            new_hotspot = (sum(1 for nb in around if tile_at[nb] < 0), base.totals(cell, game.infl, n, nbrs, [0] * n))
            if new_hotspot[0] == 0:
                closing.append(new_hotspot[1])  # CORE-01-06-02: the placed tile first
        hotspots: dict[int, _HotspotEntry | None] = {}  # the changed Hotspots by cell (None: resolved)
        for nb in around:
            i = self.l_index.get(nb)
            if i is not None:
                o = base.owner[nb]
                if o >= 0:  # one empty neighbour less, maybe one Resort more (future Resorts next to it)
                    if board.lob_empty is base.lob_empty:
                        board.lob_empty, board.lob_resorts = base.lob_empty[:], base.lob_resorts[:]
                    board.lob_empty[o] -= 1
                    if kind == RESORT:
                        board.lob_resorts[o] += 1
                    affected.add(o)
                continue
            j = self.h_index.get(nb)
            if j is not None:
                empty, t = base.hotspots[j]
                if empty <= 1:
                    closing.append(t)  # CORE-01-06-03: its last empty neighbour
                    hotspots[nb] = None
                else:
                    hotspots[nb] = (empty - 1, t)
        if new_hotspot is not None and new_hotspot[0] > 0:
            hotspots[cell] = new_hotspot
        if hotspots:
            every = True
            entries: dict[int, _HotspotEntry | None] = {c: base.hotspots[j] for j, c in enumerate(base.hot_cells)}
            entries.update(hotspots)
            board.hotspots = [e for _, e in sorted(entries.items()) if e is not None]
        if kind == RESORT:  # no Influence yet: the owned Lobbyists around decide (RULINGS R13)
            item = (spec.value, spec.resort, *_leaders(base.totals(cell, game.infl, n, nbrs, [0] * n), n))
            if item[2] and item[0] // len(item[2]) > 0:
                board.thin, board.safe = base.thin[:], base.safe[:]
                _add_resort(item, board.thin, board.safe, nres, 1)
                affected.update(item[2])
        supply, on_board = game.supply, game.on_board
        deployed_me = game.deployed[me]
        for t in closing:  # CORE-01-06-04..07: a single majority with supply places one Influence there
            top = max(t)
            if top > 0 and t.count(top) == 1:
                q = t.index(top)
                if supply[q] > 0:
                    if supply is game.supply:
                        supply, on_board = supply[:], on_board[:]
                    supply[q] -= 1
                    on_board[q] += 1
                    deployed_me += q == me  # RULINGS R11
                    every = True
        held_deployed = deployed_me >= game.starting[me]
        if every:
            scores = _combine(w, me, frame, board, supply, on_board, game.res, game.start_used, game.cap)
        else:
            scores, threat = self._now_scores()
            scores = scores[:]
            for q in sorted(affected):
                scores[q] = _player_score(
                    w, me, frame, board, q, supply, on_board, game.res, game.start_used, game.cap, threat
                )
        return _relative(scores, me, w, frame, on_board, self.hold, held_deployed, board.hotspots)


class FirstChoice:
    """A stand-in for the bot's ``random.Random`` that always takes the first option: ``randrange(n)`` is 0,
    ``sample(cells, k)`` the first ``k`` cells. With ``bot.rng = FirstChoice()`` the heuristic (and the expert)
    break ties canonically — the lowest action id among equally good actions, the first of equivalent
    tiles — so each decision is a function of the position alone. Behaviour cloning uses it for the teacher
    (training/train.py): labels that depend on a coin flip only add noise. Measured: the expert is as strong
    with it (200 games each: 67.8% vs 67.0% against the heuristic, 95.5% vs 96.8% against random, 2p)."""

    def randrange(self, n: int) -> int:
        return 0

    def sample(self, population: list[int], k: int) -> list[int]:
        return list(population)[:k]


class HeuristicPolicy:
    """One-step look-ahead over the bot's own decisions of the turn, scored by :func:`evaluate`."""

    name = "heuristic"

    #: Tile-placement cells evaluated besides the interesting ones (all other cells score alike).
    extra_cells = 3

    def __init__(
        self, seed: int | None = None, weights: HeuristicWeights | None = None, incremental: bool = True
    ) -> None:
        self.rng = random.Random(seed)
        self.weights = weights or DEFAULT_WEIGHTS
        #: Value Places and Moves incrementally (:class:`IncrementalEvaluation`); False: a clone per action, the
        #: reference the incremental values are tested against (same values, same decisions, slower).
        self.incremental = incremental
        # The last IncrementalEvaluation and the position it belongs to (see _reuse).
        self._last: tuple[IncrementalEvaluation, int, object, int] | None = None
        #: EXP-02 only: the values of the EXP-02 cards at this Political Action (policies/exp02_values.py), whose
        #: plan value (exp02_values.option_value) :meth:`_continue` adds to the evaluation; None in every other game.
        self._cards: dict[int, float] | None = None
        self.exp02_weights = exp02_values.DEFAULT_EXP02

    # ------------------------------------------------------------------ public
    def act(self, game: Game) -> int:
        values = self.action_values(game)
        best = max(values.values())
        top = [a for a in sorted(values) if values[a] >= best - 1e-9]
        return top[self.rng.randrange(len(top))] if len(top) > 1 else top[0]

    def action_values(self, game: Game) -> dict[int, float]:
        """Value of each considered legal action for the player to move (pruned actions are left out)."""
        me = game.current_player
        if me is None:
            raise ValueError("the game is over: there is no decision to take")
        legal = game.legal_actions()
        if len(legal) == 1:
            return {legal[0]: 0.0}
        return self._values(game, me, legal)

    def _values(self, game: Game, me: int, legal: list[int]) -> dict[int, float]:
        """:meth:`action_values` of a decision with two or more options: the look-ahead, holding the gate as
        :func:`holds_gate` says (a subclass may decide the hold and adjust the values)."""
        return self._lookahead(game, me, legal, holds_gate(game, me, self.weights))

    def _lookahead(self, game: Game, me: int, legal: list[int], hold: bool) -> dict[int, float]:
        """The one-step look-ahead values of the candidate actions (incremental in the core game, else a clone
        per action)."""
        if self.incremental and IncrementalEvaluation.applies(game):
            return self._incremental_values(game, me, legal, hold)
        self._cards = None
        if game.config.exp02 and (game.phase_name == "political" or game.phase_name in _CONTINUATIONS_EXP02):
            evaluate02 = lambda g, p: self._evaluate02(g, p, hold)  # noqa: E731
            self._cards = exp02_values.card_values(game, me, evaluate02, self.exp02_weights)
        values: dict[int, float] = {}
        for a in self._candidates(game, me, legal, hold):
            child = game.clone()
            child.apply(a)
            values[a] = self._continue(child, me, hold)
        self._cards = None
        return values

    def _incremental_values(self, game: Game, me: int, legal: list[int], hold: bool) -> dict[int, float]:
        """:meth:`action_values` through :class:`IncrementalEvaluation`: the same candidates (the same RNG draws),
        the same values, without a clone per Place, Move or tile placement."""
        inc = self._reuse(game, me, hold)
        memo: dict[int, bool | None] = {}
        values: dict[int, float] = {}
        phase = game.phase_name
        n = game.layout.n
        candidates = self._candidates(game, me, legal, hold, memo)
        if phase == "place_tile":
            for a in candidates:  # PLACE_TILE block starts at 0: the action is the cell
                values[a] = inc.tile_value(a)
            return values
        if phase == "move_to":
            src = game.decision.src  # type: ignore[union-attr]
            if candidates:
                inc.template(candidates[0])
            for a in candidates:
                values[a] = inc.move_value(src, a - MOVE_TO * n)
            return values
        dec = game.decision
        if phase in ("pay", "gain") and inc.spends() and isinstance(dec, Resolution):
            if dec.effect in ("formalize", "convert"):
                inc.template(candidates[0])
                lay = game.layout
                for a in candidates:
                    if phase == "pay":
                        values[a] = inc.spend_value(dec.effect, dec.tile, [*dec.paid, a - lay.pay])
                    else:
                        values[a] = inc.spend_value("convert", dec.tile, list(dec.paid), a - lay.gain)
                return values
        if phase != "political":  # another pay / gain decision (the Board stays as it is)
            for a in candidates:
                child = game.clone()
                child.apply(a)
                values[a] = self._continue(child, me, hold, inc.board)
            return values
        if candidates and candidates[0] != game.layout.pass_:
            inc.template(candidates[0])
        decode = game.layout.decode
        for a in candidates:
            verb, cell = decode(a)[:2]
            if verb == "formalize" and inc.spends():
                values[a] = inc.spend_value("formalize", cell, [])
            elif verb == "convert" and inc.spends():
                values[a] = inc.spend_value("convert", cell, [])
            elif verb == "place":
                values[a] = inc.move_value(-1, cell)
            elif verb == "move-from":
                # As _continue on the move_to decision: its legal destinations are every other non-Start tile
                # (RULINGS R10), pruned by _influence_targets on the same Influence (nothing has moved yet).
                dests = [c for c in game.nonstart if c != cell]
                best = -math.inf
                for c in self._influence_targets(game, me, dests, memo):
                    best = max(best, inc.move_value(cell, c))
                values[a] = best
            else:  # the Board stays as it is (Formalize / Convert with a finite Bank, pass)
                child = game.clone()
                child.apply(a)
                values[a] = self._continue(child, me, hold, inc.board)
        return values

    def _reuse(self, game: Game, me: int, hold: bool) -> IncrementalEvaluation:
        """The :class:`IncrementalEvaluation` of the previous decision if the position is still the same (the bot's
        own ``move_from``, Formalize or Convert leave the Influence, Resources and clock alone and log
        nothing: the destination or payment decision that follows is valued from the same data), else a
        new one. Sameness: the event log is the same list content (its last entry the same object, so
        the games share their history), the same turn, player and gate state."""
        events = game.events
        last = self._last
        if last is not None and events:
            inc, count, event, turn = last
            if (
                len(events) == count
                and events[-1] is event
                and game.turn == turn
                and inc.me == me
                and inc.hold == hold
                and inc.game.config is game.config
            ):
                inc.game = game
                return inc
        inc = IncrementalEvaluation(game, me, self.weights, hold)
        self._last = (inc, len(events), events[-1], game.turn) if events else None
        return inc

    # ------------------------------------------------------------------ search
    def _continue(self, game: Game, me: int, hold: bool, board: _Board | None = None) -> float:
        """Value after an action: the best continuation while the same Political Action goes on.

        ``board``: the Board data of ``game`` if the caller knows them (the Board is unchanged)."""
        continuations = _CONTINUATIONS_EXP02 if game.config.exp02 else _CONTINUATIONS
        if game.current_player == me and game.phase_name in continuations:
            legal = game.legal_actions()
            best = -math.inf
            for a in self._candidates(game, me, legal, hold):
                child = game.clone()
                child.apply(a)
                best = max(best, self._continue(child, me, hold, board))
            return best
        if game.config.exp02:  # the EXP-02 terms: denied Hotspots, the plans of the Measures held or face up
            value = self._evaluate02(game, me, hold)
            if self._cards:
                value += exp02_values.option_value(game, me, self._cards, self.exp02_weights)
            return value
        if board is None:
            return evaluate(game, me, self.weights, hold)
        return _evaluate(game, me, self.weights, hold, board)

    def _evaluate02(self, game: Game, me: int, hold: bool) -> float:
        """EXP-02 only: :func:`evaluate` plus what the Regulations on Hotspots deny (``denied_hotspots``)."""
        return evaluate(game, me, self.weights, hold) + exp02_values.denied_hotspots(game, me, self.exp02_weights)

    def _candidates(
        self, game: Game, me: int, legal: list[int], hold: bool, memo: dict[int, bool | None] | None = None
    ) -> list[int]:
        phase = game.phase_name
        if phase == "place_tile":
            return self._placement_candidates(game, legal)
        if phase == "political":
            return self._political_candidates(game, me, legal, hold, memo)
        if phase == "move_to":
            n = game.layout.n
            cells = self._influence_targets(game, me, [a - MOVE_TO * n for a in legal], memo)
            return [MOVE_TO * n + c for c in cells]
        return legal  # pay / gain: a handful of options

    def _placement_candidates(self, game: Game, legal: list[int]) -> list[int]:
        """Cells where the drawn tile interacts with its neighbours; a few others stand for the rest."""
        kind = game.catalogue[game.drawn].kind
        kind_at, resolved = game.kind_at, game.resolved
        nbrs = game.topo.neighbors
        interesting: list[int] = []
        plain: list[int] = []
        for c in legal:  # PLACE_TILE block starts at 0: the action is the cell
            hit = False
            tiles = 0
            for nb in nbrs[c]:
                k = kind_at[nb]
                if k < 0:
                    continue
                tiles += 1
                if (
                    k == LOBBYIST
                    or (k == HOTSPOT and not resolved[nb])
                    or (k == RESORT and kind in (LOBBYIST, HOTSPOT))
                ):
                    hit = True
            if kind == HOTSPOT and tiles >= 2:
                hit = True
            (interesting if hit else plain).append(c)
        if len(plain) > self.extra_cells:
            plain = sorted(self.rng.sample(plain, self.extra_cells))
        return sorted(interesting + plain)

    def _influence_targets(
        self, game: Game, me: int, cells: list[int], memo: dict[int, bool | None] | None = None
    ) -> list[int]:
        """Tiles where one more Influence of ``me`` changes or secures a majority, plus one other tile.

        ``memo`` caches each tile's class (True: a target, False: relevant but no target, None: plain)
        while the Influence stays the same (one decision); the RNG draws are the same with or without it.
        """
        out, plain = [], []
        for c in cells:
            if memo is None:
                cls = self._target_class(game, me, c)
            elif c in memo:
                cls = memo[c]
            else:
                cls = memo[c] = self._target_class(game, me, c)
            if cls is None:
                plain.append(c)
            elif cls:
                out.append(c)
        if plain:
            out.append(plain[self.rng.randrange(len(plain))])
        elif not out and cells:  # no tile changes anything: any one of them stands for all
            out.append(cells[self.rng.randrange(len(cells))])
        return sorted(out)

    @staticmethod
    def _target_class(game: Game, me: int, c: int) -> bool | None:
        """None: a plain tile (no majority matters); else whether one more Influence of ``me`` ties, takes
        or widens (to a margin of 2) the majority."""
        k = game.kind_at[c]
        relevant = k in (RESORT, LOBBYIST) or (k == HOTSPOT and not game.resolved[c])
        if game.config.action_tiles_require_control and k in (COMMITTEE, GRASSROOTS):
            relevant = True
        if not relevant:
            return None
        n = game.num_players
        if k == LOBBYIST:
            t = game.infl[c * n : c * n + n]  # ownership counts physical Influence only (RULINGS R13)
        else:
            t = game.totals(c)
        mine = t[me]
        top_other = max(t[q] for q in range(n) if q != me)
        return mine + 1 >= top_other and mine - top_other <= 1

    def _political_candidates(
        self, game: Game, me: int, legal: list[int], hold: bool, memo: dict[int, bool | None] | None = None
    ) -> list[int]:
        n = game.layout.n
        place, move, other = [], [], []
        seen_groups: set[tuple[int, int]] = set()
        centre = game.topo.centre
        decode = game.layout.decode
        for a in legal:
            verb, cell = decode(a)[:2]
            if verb == "pass":
                other.append(a)
            elif verb == "place":
                place.append(cell)
            elif verb == "move-from":
                move.append(a)
            elif verb == "formalize":
                group = (FORMALIZE, 1 if cell == centre else 0)
                if group not in seen_groups:
                    seen_groups.add(group)
                    other.append(a)
            elif verb == "convert":
                group = (CONVERT, game.catalogue[game.tile_at[cell]].text)
                if group not in seen_groups:
                    seen_groups.add(group)
                    other.append(a)
            else:
                other.append(a)
        if hold and (move or other):  # gate control: the held Influence stays in the supply
            place = []
        out = [PLACE * n + c for c in self._influence_targets(game, me, place, memo)] if place else []
        if not place:  # a Place onto the same tile dominates a Move, so Moves only without supply
            out.extend(move)
        return sorted(out + other)


__all__ = [
    "DEFAULT_WEIGHTS",
    "HeuristicPolicy",
    "HeuristicWeights",
    "evaluate",
    "holds_gate",
    "player_scores",
    "turns_needed_after_gate",
]
