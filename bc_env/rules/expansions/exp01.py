"""EXP-01 Economy & Labor: the ten Measures as data plus small handlers on the one effect pipeline.

Both texts are implemented: ``spec/EXP-01.md`` (edition ``standalone``, the default) and
``spec/EXP-01-v1.3.md`` (``exp01_edition = "v1.3"``, RULINGS R22). Rule IDs are cited as
``standalone / v1.3`` where the texts differ. Each Measure's lasting effect is an
:class:`~bc_env.rules.effects.ActiveEffect` whose id is the card key; its handler below contributes
prohibitions, extra costs, substitutions or output changes to the effects it names (``kinds``).
Readings the texts leave open are docs/rulings.md BC-20..BC-32.

EXP-01 extends CORE-01, which stays valid unless overridden (EXP-01-00-01/02, both texts), and does not
touch victory (EXP-01-00-04, both texts: ``Game.winners`` is unchanged). By construction ECO changes
neither the Influence cap nor control, Lobbyists or Hotspot resolution, no Measure touches victory and
no effect happens without a rule (EXP-01-06-01..06 (Restrictions) / EXP-01-09-01..05 (v1.3)): ECO only
adds a resort, and every Measure effect below is an explicit handler. Measures never bypass a
prohibition: prohibitions are checked before any cost or substitution (effects.cost_variants). The one
explicit exception is standalone Supplemental Budget (EXP-01-06-M10-05, docs/rulings.md BC-30): for 1 additional
Resource it lets its owner's ConvertResources make the Investment Program exchange that Collective Bargaining
forbids (exchange_options below).
"""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING

from .. import effects
from ..actions import RESORT, Block
from ..components import HOTSPOT, INVESTMENT_PROGRAM, LABOR_MARKET, SYSTEM, TileAdder, add_resort_tiles
from ..config import RulesConfig
from ..effects import (
    ALL_MASK,
    ANY,
    CONSUMED,
    DISTINCT,
    END_OF_PLAYER_TURN,
    END_OF_ROUND,
    END_OF_SETTLEMENT,
    END_OF_TURN,
    MODIFIERS,
    PERMANENT,
    POLITICAL_KINDS,
    STAGE_DOUBLING,
    STAGE_OUTPUT,
    STAGE_PRINTED,
    ActiveEffect,
    Cost,
    Effect,
    Modifier,
    Payment,
)
from .base import Expansion, ExpansionState
from .measures import (
    DECKS,
    NO_TARGET,
    RESOLVERS,
    T_HOTSPOT,
    T_OPPONENT,
    T_OPPONENT_ECO_RESORT,
    T_PLAYER,
    T_RESORT,
    MeasureSpec,
)

if TYPE_CHECKING:
    from ..decisions import Resolution
    from ..game import Game
    from .measures import Resolver

# EXP-01-02-05 / EXP-01-02-A-01 (2-4 players): ECO-W1x2, W2x1, W3x1.
ECO_RESORT_COUNTS = ((1, 2), (2, 1), (3, 1))
# EXP-01-02-06 / EXP-01-02-A-02 (5-6 players): additionally ECO-W1, W2, W3.
ECO_ADD56_RESORT_COUNTS = ((1, 1), (2, 1), (3, 1))

# Resort indices while EXP-01 is active (config.ALL_RESORTS order: ECO is the fourth resort).
DOM, FOR, INF, ECO = 0, 1, 2, 3
ECO_MASK = 1 << ECO


def _cost(*resorts: int) -> Cost:
    """A printed Measure cost: one slot per Resource of the named resort."""
    return tuple((1, ANY, 1 << r) for r in sorted(resorts))


DECK = "EXP-01"

# EXP-01-06-M01..M10 / EXP-01-08-M01..M10: name, cost (-01 / -02), target, effect rule.
MEASURES: tuple[MeasureSpec, ...] = (
    # EXP-01-06-M01-01..03 / EXP-01-08-M01-01..04
    MeasureSpec("EXP-01-M01", DECK, "Budget Compromise", _cost(DOM, ECO, INF), T_HOTSPOT,
                ("EXP-01-06-M01-04", "EXP-01-08-M01-05")),
    # EXP-01-06-M02-01..03 / EXP-01-08-M02-01..04
    MeasureSpec("EXP-01-M02", DECK, "Economic Stimulus", _cost(ECO, FOR), T_RESORT,
                ("EXP-01-06-M02-04", "EXP-01-08-M02-05")),
    # EXP-01-06-M03-01..02 / EXP-01-08-M03-01..03
    MeasureSpec("EXP-01-M03", DECK, "Collective Bargaining", _cost(ECO, ECO), NO_TARGET,
                ("EXP-01-06-M03-03", "EXP-01-08-M03-04")),
    # EXP-01-06-M04-01..03 / EXP-01-08-M04-01..04
    MeasureSpec("EXP-01-M04", DECK, "Subsidy Reduction", _cost(ECO, FOR), T_OPPONENT_ECO_RESORT,
                ("EXP-01-06-M04-04", "EXP-01-08-M04-05")),
    # EXP-01-06-M05-01..03 / EXP-01-08-M05-01..04
    MeasureSpec("EXP-01-M05", DECK, "Location Debate", _cost(ECO, INF), T_RESORT,
                ("EXP-01-06-M05-04", "EXP-01-08-M05-05")),
    # EXP-01-06-M06-01..03 / EXP-01-08-M06-01..04
    MeasureSpec("EXP-01-M06", DECK, "Budget Deficit", _cost(ECO, ECO), T_PLAYER,
                ("EXP-01-06-M06-04", "EXP-01-08-M06-05")),
    # EXP-01-06-M07-01..02 / EXP-01-08-M07-01..03
    MeasureSpec("EXP-01-M07", DECK, "Debt Brake", _cost(DOM, ECO, ECO), NO_TARGET,
                ("EXP-01-06-M07-03", "EXP-01-08-M07-04")),
    # EXP-01-06-M08-01..03 / EXP-01-08-M08-01..03
    MeasureSpec("EXP-01-M08", DECK, "Economic Council", _cost(ECO, ECO, ECO), NO_TARGET,
                ("EXP-01-06-M08-04", "EXP-01-08-M08-04")),
    # EXP-01-06-M09-01..03 / EXP-01-08-M09-01..04
    MeasureSpec("EXP-01-M09", DECK, "Investment Freeze", _cost(ECO, ECO, INF), T_OPPONENT,
                ("EXP-01-06-M09-04", "EXP-01-08-M09-05")),
    # EXP-01-06-M10-01..02 / EXP-01-08-M10-01..03
    MeasureSpec("EXP-01-M10", DECK, "Supplemental Budget", _cost(ECO), NO_TARGET,
                ("EXP-01-06-M10-05", "EXP-01-08-M10-05")),
)  # fmt: skip
BY_KEY = {m.key: m for m in MEASURES}

#: The rule an effect-expired / effect-consumed event cites: the card's Duration line (standalone, v1.3);
#: for Budget Deficit the rule that consumes it (EXP-01-06-M06-07 / EXP-01-08-M06-07).
END_RULES: dict[str, tuple[str, str]] = {
    "EXP-01-M01": ("EXP-01-06-M01-03", "EXP-01-08-M01-04"),
    "EXP-01-M02": ("EXP-01-06-M02-03", "EXP-01-08-M02-04"),
    "EXP-01-M03": ("EXP-01-06-M03-02", "EXP-01-08-M03-03"),
    "EXP-01-M04": ("EXP-01-06-M04-03", "EXP-01-08-M04-04"),
    "EXP-01-M05": ("EXP-01-06-M05-03", "EXP-01-08-M05-04"),
    "EXP-01-M06": ("EXP-01-06-M06-07", "EXP-01-08-M06-07"),
    "EXP-01-M07": ("EXP-01-06-M07-02", "EXP-01-08-M07-03"),
    "EXP-01-M08": ("EXP-01-06-M08-03", "EXP-01-08-M08-03"),
    "EXP-01-M09": ("EXP-01-06-M09-03", "EXP-01-08-M09-04"),
    "EXP-01-M10": ("EXP-01-06-M10-02", "EXP-01-08-M10-03"),
}

#: The Measures that modify a tile's production value (EXP-01-06-M09-04 / EXP-01-08-M09-05).
PRODUCTION_MEASURES = frozenset(("EXP-01-M02", "EXP-01-M04", "EXP-01-M05"))


def _v13(game: Game) -> bool:
    return game.config.exp01_edition == "v1.3"


class _Measure(Modifier):
    """Common to the EXP-01 Measure handlers: costs they add are imposed by a Measure (EXP-01-08-M10-05)."""

    source = "measure"

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return BY_KEY[active.id].rule(game.config.exp01_edition)

    def end_rule(self, game: Game, active: ActiveEffect) -> str:
        return END_RULES[active.id][_v13(game)]


class BudgetCompromise(_Measure):
    """M01: the targeted Hotspot does not resolve this round (EXP-01-06-M01-04 / EXP-01-08-M01-05, BC-23)."""

    data_keys = frozenset(("cell",))
    kinds = frozenset(("hotspot",))

    def prohibits(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return effect.tile == active.get("cell")


class EconomicStimulus(_Measure):
    """M02: double the printed value this Round Settlement (EXP-01-06-M02-04/05 / EXP-01-08-M02-05)."""

    data_keys = frozenset(("cell",))
    kinds = frozenset(("production",))

    def stage(self, active: ActiveEffect) -> int:
        return STAGE_DOUBLING  # CORE-01-06-16 (a) 2, EXP-01-04-B-02

    def output(self, game: Game, active: ActiveEffect, effect: Effect, amount: int) -> int:
        return amount * 2 if effect.tile == active.get("cell") else amount


class CollectiveBargaining(_Measure):
    """M03: no ConvertResources of ECO into another resort this round (EXP-01-06-M03-03 / EXP-01-08-M03-04).

    docs/rulings.md BC-24: this forbids a conversion whose Grassroots payment includes ECO and whose gain
    is another resort, and the Investment Program exchange (2 ECO into another resort, EXP-01-05-05).
    """

    kinds = frozenset(("convert",))

    def forbids_conversion(self, game: Game, active: ActiveEffect, effect: Effect, paid: Payment, gain: int) -> bool:
        return ECO in paid and gain != ECO


class SubsidyReduction(_Measure):
    """M04. Standalone: the targeted tile's printed value -1 for good, floor 0 (EXP-01-06-M04-03..05);
    v1.3: its production -1 during this Round Settlement, floor 0 (EXP-01-08-M04-04/05)."""

    data_keys = frozenset(("cell",))
    kinds = frozenset(("production",))

    def stage(self, active: ActiveEffect) -> int:
        return STAGE_PRINTED if active.until == PERMANENT else STAGE_OUTPUT

    def output(self, game: Game, active: ActiveEffect, effect: Effect, amount: int) -> int:
        return amount - 1 if effect.tile == active.get("cell") else amount


class LocationDebate(_Measure):
    """M05: the tile's production -1 this Round Settlement, floor 0 (EXP-01-06-M05-04/05 / EXP-01-08-M05-05)."""

    data_keys = frozenset(("cell",))
    kinds = frozenset(("production",))

    def output(self, game: Game, active: ActiveEffect, effect: Effect, amount: int) -> int:
        return amount - 1 if effect.tile == active.get("cell") else amount


class BudgetDeficit(_Measure):
    """M06: the target's next Political Action costs +1 Resource of any resort
    (EXP-01-06-M06-04/05 / EXP-01-08-M06-05); consumed by that attempt (EXP-01-06-M06-07 / EXP-01-08-M06-07,
    effects.consume). Unpayable actions are not offered (EXP-01-06-M06-06 / EXP-01-08-M06-06, BC-26)."""

    data_keys = frozenset(("target",))
    kinds = POLITICAL_KINDS

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        if effect.actor == active.get("target"):
            return ((1, ANY, ALL_MASK),)
        return ()

    def pay_rule(self, game: Game, active: ActiveEffect) -> str:
        # Only the extra cost is paid by a free action (Place, Move, TakeMeasure).
        return "EXP-01-08-M06-05" if _v13(game) else "EXP-01-06-M06-05"


class DebtBrake(_Measure):
    """M07: next round, nobody may choose ConvertResources (EXP-01-06-M07-02/03 / EXP-01-08-M07-03/04)."""

    kinds = frozenset(("convert",))

    def prohibits(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return True


class EconomicCouncil(_Measure):
    """M08: once, in a payment of the owner whose cost names ECO, replace one required ECO by 2 Resources of
    different non-ECO resorts (EXP-01-06-M08-04..07) / treat 1 non-ECO Resource as ECO (EXP-01-08-M08-04).
    docs/rulings.md BC-28: the window lasts until the end of the owner's next turn."""

    data_keys = frozenset(("player", "turn", "used"))
    kinds = POLITICAL_KINDS

    def substitutes(
        self, game: Game, active: ActiveEffect, effect: Effect, cost: Cost, imposed: tuple[int, ...]
    ) -> list[Cost]:
        if effect.actor != active.owner or active.get("used"):
            return []
        non_eco = ((1 << game.num_resorts) - 1) & ~ECO_MASK
        if _v13(game):
            replacement: Cost = ((1, ANY, non_eco),)  # EXP-01-08-M08-04
        else:
            replacement = ((2, DISTINCT, non_eco),)  # EXP-01-06-M08-04..06
        out = []
        for i, (count, rule, mask) in enumerate(cost):
            if mask == ECO_MASK:  # a slot that requires ECO specifically
                rest = cost[:i] + cost[i + 1 :]
                if count > 1:
                    rest = rest + ((count - 1, rule, mask),)
                out.append(rest + replacement)
        return out

    def substitution_used(self, game: Game, active: ActiveEffect, index: int, effect: Effect) -> None:
        # EXP-01-06-M08-07, EXP-02-07-04: the usedThisRound flag.
        game.active_effects[index] = active.with_data(used=True)
        game.log("measure-applied", self.rule(game, active), id=active.id, owner=active.owner,
                 kind=effect.kind, substitution="eco")  # fmt: skip


class InvestmentFreeze(_Measure):
    """M09 (docs/rulings.md BC-29): during the target's next turn, production-value Measures (M02, M04, M05)
    do not apply, so the target cannot play them (EXP-01-06-M09-04 / EXP-01-08-M09-05); production itself
    is unaffected (EXP-01-06-M09-05)."""

    data_keys = frozenset(("player", "turn"))
    kinds = frozenset(("play",))

    def prohibits(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return effect.actor == active.get("player") and game.measures[effect.card].key in PRODUCTION_MEASURES


class SupplementalBudget(_Measure):
    """M10, docs/rulings.md BC-30.

    Standalone (EXP-01-06-M10-03..05): after paying for the owner's Political Action, the owner may pay 1
    additional Resource of any resort so that an action a limitation would resolve only partially resolves
    fully. In EXP-01 that is a ConvertResources whose Investment Program exchange Collective Bargaining
    forbids (BC-24, BC-31): the game offers the exchange with the additional payment (``resolves_fully``);
    nothing else is bypassed (Debt Brake forbids the whole ConvertResources, the Bank limits of BC-03 stay).

    v1.3 (EXP-01-08-M10-04/05): after paying for a Political Action the owner may pay 1 additional Resource
    to ignore one cost component a Measure imposed on it (a substitution). It never bypasses a prohibition
    (EXP-01-09-03). In an EXP-01-only game this pays the same Resources as the standard cost (BC-30).
    """

    data_keys = frozenset(("player", "turn"))
    kinds = POLITICAL_KINDS

    def substitutes(
        self, game: Game, active: ActiveEffect, effect: Effect, cost: Cost, imposed: tuple[int, ...]
    ) -> list[Cost]:
        if effect.actor != active.owner or not _v13(game):
            return []
        return [cost[:i] + cost[i + 1 :] + ((1, ANY, ALL_MASK),) for i in imposed]  # EXP-01-08-M10-04/05

    def substitution_used(self, game: Game, active: ActiveEffect, index: int, effect: Effect) -> None:
        game.log("measure-applied", self.rule(game, active), id=active.id, owner=active.owner,
                 kind=effect.kind, substitution="imposed-cost")  # fmt: skip

    def resolves_fully(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        # EXP-01-06-M10-03..05: the owner's Political Action (standalone only; v1.3 reads the cost components).
        return effect.actor == active.owner and not _v13(game)


MODIFIERS.update(
    {
        "EXP-01-M01": BudgetCompromise(),
        "EXP-01-M02": EconomicStimulus(),
        "EXP-01-M03": CollectiveBargaining(),
        "EXP-01-M04": SubsidyReduction(),
        "EXP-01-M05": LocationDebate(),
        "EXP-01-M06": BudgetDeficit(),
        "EXP-01-M07": DebtBrake(),
        "EXP-01-M08": EconomicCouncil(),
        "EXP-01-M09": InvestmentFreeze(),
        "EXP-01-M10": SupplementalBudget(),
    }
)


# ---------------------------------------------------------------------------- resolvers (EXP-01-06-10)
# Each returns the lasting effect the card puts in force; the game appends it and logs it.


def _this_round_on_tile(key: str) -> Resolver:
    def resolve(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
        # "This round" (EXP-01-06-M01-03 / EXP-01-08-M01-04, EXP-01-04-A-02): until the next Round Settlement.
        return ActiveEffect(key, player, END_OF_ROUND, game.round, (("cell", tile),))

    return resolve


def _this_settlement_on_tile(key: str) -> Resolver:
    def resolve(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
        # "This Round Settlement" (EXP-01-06-M02-03, -M05-03 / EXP-01-08-M02-04, -M04-04, -M05-04):
        # the settlement that ends the current round (docs/rulings.md BC-22).
        return ActiveEffect(key, player, END_OF_SETTLEMENT, game.round, (("cell", tile),))

    return resolve


def _m03(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    return ActiveEffect("EXP-01-M03", player, END_OF_ROUND, game.round)  # EXP-01-06-M03-02 / EXP-01-08-M03-03


def _m04(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    if _v13(game):  # EXP-01-08-M04-04: during this Round Settlement
        return ActiveEffect("EXP-01-M04", player, END_OF_SETTLEMENT, game.round, (("cell", tile),))
    return ActiveEffect("EXP-01-M04", player, PERMANENT, game.round, (("cell", tile),))  # EXP-01-06-M04-03


def _m06(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-01-06-M06-02/03 / EXP-01-08-M06-03/04: one player, until consumed.
    return ActiveEffect("EXP-01-M06", player, CONSUMED, game.round, (("target", target),))


def _m07(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-01-06-M07-02 / EXP-01-08-M07-03, EXP-01-04-A-03: the round after the current one (BC-27).
    return ActiveEffect("EXP-01-M07", player, END_OF_ROUND, game.round + 1)


def _m08(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-01-06-M08-02/03 / EXP-01-08-M08-03, docs/rulings.md BC-28: until the end of the owner's next turn.
    data = (("player", player), ("turn", game.turn), ("used", False))
    return ActiveEffect("EXP-01-M08", player, END_OF_PLAYER_TURN, game.round, data)


def _m09(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-01-06-M09-02/03 / EXP-01-08-M09-03/04, docs/rulings.md BC-29: the target's next turn.
    return ActiveEffect("EXP-01-M09", player, END_OF_PLAYER_TURN, game.round, (("player", target), ("turn", game.turn)))


def _m10(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    if _v13(game):  # EXP-01-08-M10-03: this turn (the additional Political Action follows, EXP-01-06-05 (v1.3))
        return ActiveEffect("EXP-01-M10", player, END_OF_TURN, game.round)
    # EXP-01-06-M10-02, docs/rulings.md BC-30: until the end of the owner's next turn (no usage flag: that turn
    # holds one Political Action of the owner, and a ConvertResources at most one exchange, EXP-01-05-07).
    return ActiveEffect("EXP-01-M10", player, END_OF_PLAYER_TURN, game.round, (("player", player), ("turn", game.turn)))


RESOLVERS.update(
    {
        "EXP-01-M01": _this_round_on_tile("EXP-01-M01"),
        "EXP-01-M02": _this_settlement_on_tile("EXP-01-M02"),
        "EXP-01-M03": _m03,
        "EXP-01-M04": _m04,
        "EXP-01-M05": _this_settlement_on_tile("EXP-01-M05"),
        "EXP-01-M06": _m06,
        "EXP-01-M07": _m07,
        "EXP-01-M08": _m08,
        "EXP-01-M09": _m09,
        "EXP-01-M10": _m10,
    }
)
DECKS[DECK] = MEASURES


# ---------------------------------------------------------------------------- the expansion (base.Expansion)


def exchange_options(game: Game, effect: Effect, pay: Payment, gain: int) -> tuple[list[int], list[int]]:
    """EXP-01-05-02..07 / EXP-01-05-01..04 (v1.3), docs/rulings.md BC-31: the Investment Program exchange
    (2 ECO to the Bank, 1 Resource of a different resort from it) after this ConvertResources.

    Returns the resorts offered and, among them, those offered only with Supplemental Budget's additional
    Resource (docs/rulings.md BC-30): an exchange an effect forbids (Collective Bargaining, BC-24) leaves the
    ConvertResources partially resolved, which Supplemental Budget resolves fully (EXP-01-06-M10-05)."""
    g = game
    p = effect.actor
    st = state(g)
    if not any(g.controller(c) == p for c in st.invest_cells):  # EXP-01-05-06, RULINGS R15
        return [], []
    eco, nr = st.eco, g.num_resorts
    amount = g.grassroots_text(effect.tile).gain
    if g.res[p * nr + eco] - pay.count(eco) + (amount if gain == eco else 0) < 2:
        return [], []
    finite = g.config.bank_stock is not None
    full: bool | None = None  # whether Supplemental Budget can resolve the action fully (computed once)
    out: list[int] = []
    supplemented: list[int] = []
    for r in range(nr):
        if r == eco:
            continue  # "a different resort"
        if finite and g.bank[r] + pay.count(r) - (amount if gain == r else 0) < 1:
            continue  # docs/rulings.md BC-03 applies to the exchange too
        if effects.conversion_forbidden(g, effect, (eco, eco), r):
            # EXP-01-06-M03-03 / EXP-01-08-M03-04, docs/rulings.md BC-24 -- unless Supplemental Budget
            # resolves the ConvertResources fully for 1 additional Resource (EXP-01-06-M10-04/05, BC-30).
            if full is None:
                full = effects.full_resolution(g, effect) is not None and bool(supplement_options(g, effect, pay, gain))
            if not full:
                continue
            supplemented.append(r)
        out.append(r)
    return out, supplemented


def supplement_options(game: Game, effect: Effect, pay: Payment, gain: int) -> list[int]:
    """The resorts that may pay Supplemental Budget's additional Resource for an Investment Program exchange
    after this ConvertResources (EXP-01-06-M10-03/04, docs/rulings.md BC-30): it is paid after the cost, from
    the supply as the payment left it (neither the gain nor the exchange can pay it), and the 2 ECO of the
    exchange must remain."""
    g = game
    p, nr, eco = effect.actor, g.num_resorts, state(g).eco
    amount = g.grassroots_text(effect.tile).gain
    eco_after = g.res[p * nr + eco] - pay.count(eco) + (amount if gain == eco else 0)
    return [r for r in range(nr) if g.res[p * nr + r] - pay.count(r) >= 1 and (r != eco or eco_after - 1 >= 2)]


def _labor_market_v13(game: Game, cell: int, p: int) -> None:
    """v1.3 Labor Market: its majority leader gains 1 new Influence (EXP-01-02-C-03..07, docs/rulings.md BC-32)."""
    g = game
    if g.supply[p] + g.on_board[p] >= g.cap:  # RULINGS R12: creates nothing at the cap
        g.log("labor-market-capped", "RULINGS-R12", cell=cell, player=p)
        return
    if (g.active_effects or g.modifier_sources) and g._suppressed(effects.Effect("hotspot", -1, cell), p):
        return  # EXP-03-06-06/07, RULINGS R50/R51: generated Influence may be suppressed (or replaced)
    labor_market_gain(g, cell, p)


def labor_market_gain(game: Game, cell: int, p: int) -> None:
    g = game
    g.supply[p] += 1  # EXP-01-02-C-04/07: gain 1 Influence (a new one, into the supply)
    g.created[p] += 1
    g.log("labor-market", "EXP-01-02-C-04", cell=cell, player=p)


class Exp01State(ExpansionState):
    """EXP-01's own state: the cells of the Investment Program on the Board (EXP-01-05-01; derived from the
    Board, rebuilt by ``tile_placed`` when a state is loaded, so not written) and the ECO resort's index."""

    __slots__ = ("invest_cells", "eco")

    def __init__(self, eco: int) -> None:
        self.invest_cells: list[int] = []
        self.eco = eco

    def clone(self) -> Exp01State:
        st = Exp01State(self.eco)
        st.invest_cells = self.invest_cells[:]
        return st

    def check(self, game: Game) -> list[str]:
        cells = [c for c in game.board if game.catalogue[game.tile_at[c]].special == INVESTMENT_PROGRAM]
        if cells != self.invest_cells:
            return [f"Investment Program cells {self.invest_cells} != the Board's {cells} (EXP-01-05-01)"]
        return []


def state(game: Game) -> Exp01State:
    """EXP-01's state in ``game`` (``game.ext["EXP-01"]``)."""
    st = game.ext[DECK]
    assert isinstance(st, Exp01State)
    return st


class Exp01(Expansion):
    """EXP-01 on the expansion interface: the Investment Program (EXP-01-05), its exchange as a post-payment
    decision of ConvertResources with standalone Supplemental Budget's additional Resource (BC-30, BC-31), and
    the v1.3 Labor Market. Standalone Labor Market resolves exactly as a core Hotspot (EXP-01-02-11/12;
    EXP-01-06-04 (Restrictions): ECO does not alter Hotspot resolution)."""

    name = DECK
    #: EXP-01-05-03/04: the Investment Program exchange into a resort (its "no" is the shared ``decline``).
    action_blocks = (Block("exchange", RESORT),)

    def __init__(self, edition: str) -> None:
        self.hotspot_resolvers = {LABOR_MARKET: _labor_market_v13} if edition == "v1.3" else {}

    def add_tiles(self, config: RulesConfig, add: TileAdder) -> None:
        # EXP-01-02-01/02, EXP-01-03-01: the expansion's tiles follow the core tiles (core ids unchanged). ECO tiles
        # produce ECO only (EXP-01-02-08/09, EXP-01-04-01..03, EXP-01-04-B-06 (v1.3)): a tile produces its own
        # resort in the core Round Settlement, whose production order (CORE-01-06-16 (a): printed value, doubling,
        # output modifiers, floor; EXP-01-04-04/05, EXP-01-04-B-01..04 (v1.3); majority: EXP-01-04-B-05 (v1.3))
        # is the pipeline's output stages (effects.py); "this round" ends when the Round Settlement begins
        # (EXP-01-04-A-01..03 (v1.3), RULINGS R35).
        # EXP-01-02-07/08, EXP-01-02-B-01..05: printed value W, produces ECO only.
        counts = ECO_RESORT_COUNTS + (ECO_ADD56_RESORT_COUNTS if config.addon56 else ())
        add_resort_tiles(add, "ECO", config.resorts.index("ECO"), counts)
        # EXP-01-02-03, -10..12 / EXP-01-02-C-01..07: the Hotspot "Labor Market".
        add(HOTSPOT, "Labor Market", special=LABOR_MARKET)
        # EXP-01-02-04, -13/14 / EXP-01-02-D-01/02, EXP-01-05-01: the System Tile "Investment Program".
        add(SYSTEM, "Investment Program", special=INVESTMENT_PROGRAM)

    def new_state(self, game: Game) -> Exp01State:
        return Exp01State(game.config.resorts.index("ECO"))

    def tile_placed(self, game: Game, cell: int) -> None:
        if game.catalogue[game.tile_at[cell]].special == INVESTMENT_PROGRAM:
            insort(state(game).invest_cells, cell)  # EXP-01-05-01: a System Tile placed on the Board

    def after_gain(self, game: Game, res: Resolution) -> bool:
        """A post-payment choice of ConvertResources: the optional Investment Program exchange."""
        if not state(game).invest_cells:
            return False
        exchanges, supplemented = exchange_options(game, game._effect_of(res), tuple(res.paid), res.gain)
        if not exchanges:
            return False
        # EXP-01-05-04 / EXP-01-05-02 (v1.3): optional, so a decision
        res.exchanges = exchanges
        res.supplemented = supplemented
        res.kind = "exchange"
        return True

    def resolution_options(self, game: Game, res: Resolution) -> list[int] | None:
        lay = game.layout
        if res.kind == "exchange":
            # EXP-01-05-03/04 / EXP-01-05-01/02 (v1.3): exchange into a resort, or decline (optional).
            return [lay.exchange + r for r in res.exchanges] + [lay.decline]
        if res.kind == "pay" and res.supplements is not None:  # EXP-01-06-M10-04, docs/rulings.md BC-30
            return [lay.pay + r for r in res.supplements]
        return None

    def resolution_choice(self, game: Game, res: Resolution, action: int) -> bool:
        lay = game.layout
        if res.kind == "exchange":
            exchange = -1 if action == lay.decline else action - lay.exchange
            res.exchange = exchange
            if exchange in res.supplemented:
                # The exchange chosen needs Supplemental Budget's additional Resource (EXP-01-06-M10-04, BC-30):
                # pay it, asking only where more than one resort can (as BC-05).
                options = supplement_options(game, game._effect_of(res), tuple(res.paid), res.gain)
                if len(options) == 1:
                    res.supplement = options[0]
                    game._execute_convert(res)
                else:
                    res.supplements = options
                    res.kind = "pay"
            else:
                game._execute_convert(res)
            return True
        if res.kind == "pay" and res.supplements is not None:  # EXP-01-06-M10-04: the additional Resource
            res.supplement = action - lay.pay
            game._execute_convert(res)
            return True
        return False

    def before_gain(self, game: Game, res: Resolution, effect: Effect) -> None:
        if res.supplement < 0:
            return
        # EXP-01-06-M10-03/04: after the cost, 1 additional Resource of any resort to the Bank; -M10-05: the
        # ConvertResources resolves fully, its exchange despite Collective Bargaining (BC-30, BC-24).
        budget = effects.full_resolution(game, effect)
        assert budget is not None and res.exchanges and res.exchange >= 0
        game._pay(res.owner, [res.supplement], "EXP-01-06-M10-04")
        handler = MODIFIERS[budget.id]
        game.log("measure-applied", handler.rule(game, budget), id=budget.id, owner=budget.owner,
                 kind="convert", player=res.owner, exchange=res.exchange)  # fmt: skip

    def execute_riders(self, game: Game, res: Resolution) -> None:
        if not res.exchanges:
            return  # not offered
        g, p, exchange = game, res.owner, res.exchange
        if exchange >= 0:
            # EXP-01-05-03/05 / EXP-01-05-01: 2 ECO to the Bank, 1 Resource of another resort from it.
            eco, nr = state(g).eco, g.num_resorts
            g.res[p * nr + eco] -= 2
            g.bank[eco] += 2
            g.res[p * nr + exchange] += 1
            g.bank[exchange] -= 1
            g.log("investment-exchange", "EXP-01-05-03", player=p, gain=exchange)
        else:
            g.log("investment-declined", "EXP-01-05-04", player=p)
