"""A fast rule-of-thumb bot: one-step look-ahead on clones scored by a static evaluation.

For every (pruned) legal action the bot applies the action to a ``game.clone()``. While the decision
that follows still belongs to the bot within the same turn (the payment of a FormalizeInfluence, the
destination of a Move, the gain of a ConvertResources) it continues with the best continuation, so a
whole Political Action is valued at once. The resulting position is scored by :func:`evaluate`, which
is documented term by term in ``docs/policies.md``. Ties are broken by a seeded RNG, so the bot is
deterministic given its seed.

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
from bc_env.rules.actions import CONVERT, FORMALIZE, MOVE_FROM, MOVE_TO, PLACE
from bc_env.rules.components import COMMITTEE, GRASSROOTS, HOTSPOT, LOBBYIST, RESORT

# Decisions that continue the same player's turn (the rest of one Political Action).
_CONTINUATIONS = ("move_to", "pay", "gain")


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


def _turns_left(game: Game, p: int) -> int:
    """Political actions ``p`` still takes, the current turn included (one tile drawn per turn)."""
    n = game.num_players
    future = len(game.draw_pile)
    a = game.active
    d = (p - a) % n or n
    count = 0 if future < d else (future - d) // n + 1
    return count + (1 if p == a else 0)


def player_scores(game: Game, w: HeuristicWeights = DEFAULT_WEIGHTS, me: int | None = None) -> list[float]:
    """Each player's score in units of final Influence on the Board (see docs/policies.md).

    With ``me`` given, the formalization potential of the other players counts ``w.opponent_potential``
    of its value: the bot is sure to pursue its own potential, the opponents may not (and can be denied
    later), so a sure step of its own beats an equal-looking denial.
    """
    n = game.num_players
    nres = game.num_resorts
    kind_at = game.kind_at
    infl = game.infl
    nbrs = game.topo.neighbors
    tile_at = game.tile_at
    catalogue = game.catalogue
    over = game.is_terminal()

    # Lobbyist owners (RULINGS R13) once; they feed every majority below.
    owner: dict[int, int] = {}
    lob_bonus = [0.0] * n
    hotspots: list[int] = []
    for c in game.nonstart:
        k = kind_at[c]
        if k == LOBBYIST:
            o = game.lobbyist_owner(c)
            owner[c] = o
            if o >= 0:
                empty = 0
                resorts = 0
                for nb in nbrs[c]:
                    if tile_at[nb] < 0:
                        empty += 1
                    elif kind_at[nb] == RESORT:
                        resorts += 1
                lob_bonus[o] += w.lobbyist_room * empty + w.lobbyist_resort * resorts
        elif k == HOTSPOT and not game.resolved[c]:
            hotspots.append(c)

    def totals(c: int) -> list[int]:
        t = infl[c * n : c * n + n]
        for nb in nbrs[c]:
            o = owner.get(nb, -1)
            if o >= 0:
                t[o] += 1
        return t

    # Settlements still to come whose Resources can still be turned into Influence, and the discounted
    # number of productions they are worth.
    settlements = 0 if over else -(-(game.turns_in_round + len(game.draw_pile) + 1) // n)
    settlements = max(0, settlements - w.late_settlements)
    gamma = w.income_discount
    horizon = (1 - gamma**settlements) / (1 - gamma)

    # Expected future Resources per player and resort from the Resorts they control now.
    expected = [[0.0] * nres for _ in range(n)]
    if settlements:
        for c in game.resort_cells:
            t = totals(c)
            top = max(t)
            if top <= 0:
                continue
            leaders = [q for q in range(n) if t[q] == top]
            spec = catalogue[tile_at[c]]
            share = spec.value // len(leaders)  # CORE-01-06-14/15: split, remainder to Noise
            if share <= 0:
                continue
            if len(leaders) == 1:
                second = max(t[q] for q in range(n) if q != leaders[0])
                conf = w.confidence_thin if top - second <= 1 else w.confidence_safe
            else:
                conf = w.confidence_thin
            for q in leaders:
                expected[q][spec.resort] += share * conf * horizon

    # Pending free Hotspot placements (CORE-01-06-05): the current single majority of an unresolved Hotspot.
    threat = [0.0] * n
    for c in hotspots:
        empty = sum(1 for nb in nbrs[c] if tile_at[nb] < 0)
        if empty <= 0:
            continue
        t = totals(c)
        top = max(t)
        if top <= 0 or t.count(top) != 1:
            continue
        q = t.index(top)
        if game.supply[q] > 0:
            threat[q] += w.hotspot_threat * w.tempo / empty

    # Committees: a standard one on the Board allows any number of formalizations; otherwise only the
    # Start Committee (once per player, CORE-01-08-07) until a Committee is drawn, whose chance over
    # the next few draws follows from the DrawPile's public composition.
    standard_committee = any(c != game.topo.centre for c in game.committees)
    committee_chance = 1.0
    if not standard_committee:
        pile = game.draw_pile
        left = sum(1 for t in pile if catalogue[t].kind == COMMITTEE)
        committee_chance = 1.0 - (1.0 - left / len(pile)) ** min(len(pile), 2 * n) if pile else 0.0
    convert = bool(game.grassroots)
    scores = []
    for p in range(n):
        b = game.on_board[p]
        s = game.supply[p]
        if over:
            scores.append(float(b))
            continue
        turns = _turns_left(game, p)
        room = game.cap - s - b
        deploy = min(s, turns)
        score = b + (1.0 - w.tempo) * deploy + w.stranded_supply * (s - deploy)
        res = game.res[p * nres : p * nres + nres]
        holdings = [res[r] + expected[p][r] for r in range(nres)]
        cap_new = min(room, (turns - deploy) // 2)  # each new Influence needs 2 more turns
        if cap_new > 0:
            pairs = _pairs(holdings, convert, w.convert_ratio)
            potential = cap_new * (1.0 - math.exp(-pairs / cap_new))
            if not standard_committee:
                first = 0.0 if game.start_used[p] else min(1.0, potential)
                potential = first + committee_chance * (potential - first)
            if me is not None and p != me:
                potential *= w.opponent_potential
            score += (1.0 - 2.0 * w.tempo) * potential
        score += w.resource_epsilon * sum(res) + lob_bonus[p] + threat[p]
        scores.append(score)
    return scores


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
    return _turns_left(game, me) > turns_needed_after_gate(game, me) + w.gate_margin + int(others_closed)


def evaluate(game: Game, me: int, w: HeuristicWeights = DEFAULT_WEIGHTS, hold: bool = False) -> float:
    """Relative score of ``me``: own score minus a blend of the best and the mean opponent score.

    ``hold``: ``me`` is holding the gate (see :func:`holds_gate`); positions that open it anyway, or
    risk a Hotspot placing the held Influence, are penalised.
    """
    scores = player_scores(game, w, me)
    others = [s for q, s in enumerate(scores) if q != me]
    rel = scores[me] - (w.best_opponent * max(others) + (1.0 - w.best_opponent) * sum(others) / len(others))
    if game.is_terminal():
        rel += w.terminal_bonus * game.returns()[me]
    elif hold:
        if game.deployed[me] >= game.starting[me]:
            rel -= w.gate_opened_penalty
        tile_at, nbrs = game.tile_at, game.topo.neighbors
        for c in game.nonstart:
            if game.kind_at[c] == HOTSPOT and not game.resolved[c]:
                t = game.totals(c)
                if t[me] > 0 and t[me] >= max(t):
                    empty = sum(1 for nb in nbrs[c] if tile_at[nb] < 0)
                    rel -= w.gate_hotspot_risk / max(empty, 1)
    return rel


class HeuristicPolicy:
    """One-step look-ahead over the bot's own decisions of the turn, scored by :func:`evaluate`."""

    name = "heuristic"

    #: Tile-placement cells evaluated besides the interesting ones (all other cells score alike).
    extra_cells = 3

    def __init__(self, seed: int | None = None, weights: HeuristicWeights | None = None) -> None:
        self.rng = random.Random(seed)
        self.weights = weights or DEFAULT_WEIGHTS

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
        hold = holds_gate(game, me, self.weights)
        values: dict[int, float] = {}
        for a in self._candidates(game, me, legal, hold):
            child = game.clone()
            child.apply(a)
            values[a] = self._continue(child, me, hold)
        return values

    # ------------------------------------------------------------------ search
    def _continue(self, game: Game, me: int, hold: bool) -> float:
        """Value after an action: the best continuation while the same Political Action goes on."""
        if game.current_player == me and game.phase_name in _CONTINUATIONS:
            legal = game.legal_actions()
            best = -math.inf
            for a in self._candidates(game, me, legal, hold):
                child = game.clone()
                child.apply(a)
                best = max(best, self._continue(child, me, hold))
            return best
        return evaluate(game, me, self.weights, hold)

    def _candidates(self, game: Game, me: int, legal: list[int], hold: bool) -> list[int]:
        phase = game.phase_name
        if phase == "place_tile":
            return self._placement_candidates(game, legal)
        if phase == "political":
            return self._political_candidates(game, me, legal, hold)
        if phase == "move_to":
            n = game.layout.n
            cells = self._influence_targets(game, me, [a - MOVE_TO * n for a in legal])
            return [MOVE_TO * n + c for c in cells]
        return legal  # pay / gain: a handful of options

    def _placement_candidates(self, game: Game, legal: list[int]) -> list[int]:
        """Cells where the drawn tile interacts with its neighbours; a few others stand for the rest."""
        kind = game.catalogue[game.drawn].kind
        kind_at, resolved = game.kind_at, game.resolved
        nbrs = game.topo.neighbors
        interesting, plain = [], []
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

    def _influence_targets(self, game: Game, me: int, cells: list[int]) -> list[int]:
        """Tiles where one more Influence of ``me`` changes or secures a majority, plus one other tile."""
        n = game.num_players
        kind_at, resolved, infl = game.kind_at, game.resolved, game.infl
        control_tiles = game.config.action_tiles_require_control
        out, plain = [], []
        for c in cells:
            k = kind_at[c]
            relevant = k in (RESORT, LOBBYIST) or (k == HOTSPOT and not resolved[c])
            if control_tiles and k in (COMMITTEE, GRASSROOTS):
                relevant = True
            if not relevant:
                plain.append(c)
                continue
            if k == LOBBYIST:
                t = infl[c * n : c * n + n]  # ownership counts physical Influence only (RULINGS R13)
            else:
                t = game.totals(c)
            mine = t[me]
            top_other = max(t[q] for q in range(n) if q != me)
            if mine + 1 >= top_other and mine - top_other <= 1:
                out.append(c)
        if plain:
            out.append(plain[self.rng.randrange(len(plain))])
        elif not out and cells:  # no tile changes anything: any one of them stands for all
            out.append(cells[self.rng.randrange(len(cells))])
        return sorted(out)

    def _political_candidates(self, game: Game, me: int, legal: list[int], hold: bool) -> list[int]:
        n = game.layout.n
        place, move, other = [], [], []
        seen_groups: set[tuple[int, int]] = set()
        centre = game.topo.centre
        for a in legal:
            kind, cell = divmod(a, n)
            if a == game.layout.pass_:
                other.append(a)
            elif kind == PLACE:
                place.append(cell)
            elif kind == MOVE_FROM:
                move.append(a)
            elif kind == FORMALIZE:
                group = (FORMALIZE, 1 if cell == centre else 0)
                if group not in seen_groups:
                    seen_groups.add(group)
                    other.append(a)
            elif kind == CONVERT:
                group = (CONVERT, game.catalogue[game.tile_at[cell]].text)
                if group not in seen_groups:
                    seen_groups.add(group)
                    other.append(a)
            else:
                other.append(a)
        if hold and (move or other):  # gate control: the held Influence stays in the supply
            place = []
        out = [PLACE * n + c for c in self._influence_targets(game, me, place)] if place else []
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
