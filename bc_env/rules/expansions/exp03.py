"""EXP-03 Climate & Future (``spec/EXP-03.md``) on the expansion interface: the CLM resort and the Climate
ResortTiles, the Hotspot Transformationsdruck with its CountdownMarkers, the Climate-effect definition, and the
fifteen Measures as data plus small handlers on the one effect pipeline (``effects.py``).

Readings settled by RULINGS R34-R40, R49-R59 are cited where they apply; readings the rulings leave open are
docs/rulings.md BC-60 onwards.

EXP-03 extends CORE-01, which stays valid unless overridden (EXP-03-00-01/02); victory is unchanged
(EXP-03-00-07: ``Game.winners`` is untouched) and no automatic round-based trigger exists (EXP-03-00-09,
EXP-03-04-B-04/05, EXP-03-09-04, EXP-03-10-06: nothing here runs at a timing point except the durations' ends).
CLM is an ordinary resort (EXP-03-01-01..07): it is one more entry of ``RulesConfig.resorts`` while EXP-03 is
active, so every "any resort" / "different resorts" slot accepts it and it counts as a distinct resort, and a
slot that names another resort never takes it (RULINGS R56). CLM changes neither the Influence cap nor majority
(EXP-03-09-01/02): nothing here reads it there. The round structure, starting Influence and upkeep are
unchanged (EXP-03-03-05/06, EXP-03-09-06).

Without EXP-03 none of it exists (EXP-03-10-01: ``expansions_for``, ``config.resorts``). Every effect here is an
explicit handler (EXP-03-09-05) and every Measure's state is public (EXP-03-07-05: ActiveEffects and the
CountdownState, both in ``Game.to_dict``). The Measures use the shared Measure system in EXP-03's own zones
(EXP-03-00-06, EXP-03-07-00-01, EXP-03-03-02/03) and follow the EXP-01 lifecycle, played by PlayMeasure
(EXP-03-07-01, EXP-03-06-01/02: the Political Actions are those of CORE-01 and EXP-01); their only timing windows
are the card durations (EXP-03-07-02, EXP-03-07-04, RULINGS R39). The timing words are the shared ones of
``effects.py`` (EXP-03-04-A-01..04): a round is the core's cycle of turns plus its Round Settlement (A-01), "this
turn" is END_OF_TURN (A-02), "this round" ends as the next Round Settlement begins, END_OF_ROUND (A-03, RULINGS
R35), "next round" starts at an ActiveEffect's ``from_round`` (A-04). No Measure overrides the CORE Rule Hierarchy
(EXP-03-10-05, CORE-01-10): a card's handler changes only what its text names.

Production (EXP-03-05-02..05) runs through the core's production order (CORE-01-06-16, RULINGS R40): Climate
output modifiers would be output-stage modifiers of CORE-01-06-16 (a)(3) (EXP-03-05-03; none exists, R38); EXP-02's
SecurityLevels are output-stage modifiers there too (EXP-03-05-04); CLM never replaces another Resource in
production (EXP-03-05-05: a CLM ResortTile yields CLM only). Climate cost increases are cost slots added to the
Regulation ones (EXP-03-10-02: additive) and a Regulation Blockade prohibits before any cost is reckoned
(EXP-03-10-03: step 2 of the pipeline, RULINGS R62).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .. import effects
from ..actions import RESORT, Block
from ..components import HOTSPOT, LABOR_MARKET, TRANSFORMATIONSDRUCK, TileAdder, add_resort_tiles
from ..components import RESORT as RESORT_TILE
from ..config import RulesConfig
from ..decisions import Frame, Resolution, register_frame
from ..effects import (
    ANY,
    CONSUMED,
    END_OF_NEXT_ROUND,
    END_OF_PLAYER_TURN,
    MODIFIERS,
    OWNER_NEXT_TURN,
    POLITICAL_KINDS,
    ActiveEffect,
    Cost,
    Effect,
    Modifier,
)
from ..errors import StateError
from .base import Expansion, ExpansionState
from .exp01 import labor_market_gain
from .measures import (
    DECKS,
    NO_TARGET,
    RESOLVERS,
    RESORT_TARGETS,
    T_PLAYER,
    T_RESORT,
    T_RESORT_TYPE,
    TARGET_RESORT_BLOCK,
    MeasureSpec,
)

if TYPE_CHECKING:
    from ..game import Game

DECK = "EXP-03"
#: The source tag of Climate surcharges (effects.SOURCES; RULINGS R55): the exemptions waive exactly these.
CLIMATE = "climate"

# EXP-03-02-A-01 (2-4 players): CLM-W1 x2, CLM-W2 x2.
CLM_RESORT_COUNTS = ((1, 2), (2, 2))
# EXP-03-02-A-02, RULINGS R57 (5-6 players): one more CLM-W1 and CLM-W2.
CLM_ADD56_RESORT_COUNTS = ((1, 1), (2, 1))

#: Effect kinds only EXP-03 gives (docs/rulings.md BC-60): placing a CountdownMarker (EXP-03-04-B-02, RULINGS R37)
#: and Future Investment's gain (EXP-03-08-M03-05; its output, RULINGS R29).
COUNTDOWN = "countdown"
MEASURE_GAIN = "measure-gain"
#: Placing the drawn tile (``game.drawn``) on the pipeline (RULINGS R28/R54; ContextTile = the cell).
PLACE_TILE_KIND = effects.PLACE_TILE


# ---------------------------------------------------------------------------- resorts of the configuration


@lru_cache(maxsize=64)
def _indices(resorts: tuple[str, ...]) -> tuple[int, int, int, int, int]:
    """DOM, FOR, INF, ECO (-1 without EXP-01) and CLM indices for the active resorts (config.ALL_RESORTS order)."""
    eco = resorts.index("ECO") if "ECO" in resorts else -1
    return 0, 1, 2, eco, resorts.index("CLM")


def clm_or_dom(game: Game) -> Cost:
    """ "+1 CLM or +1 DOM" (EXP-03-08-M01-05 and the like): one slot that either resort pays (RULINGS R56)."""
    dom, _, _, _, clm = _indices(game.config.resorts)
    return ((1, ANY, (1 << clm) | (1 << dom)),)


# ---------------------------------------------------------------------------- the cards (EXP-03-08)

# Named resorts of the printed costs; resolved to indices per configuration (build_deck).
_C, _D, _F, _I, _E = "CLM", "DOM", "FOR", "INF", "ECO"


@dataclass(frozen=True)
class CardText:
    """One card as printed: what the Climate-effect definition (EXP-03-02-D-01) reads besides the cost."""

    number: int
    name: str
    cost: tuple[str, ...]
    target: str = NO_TARGET
    #: EXP-03-02-D-01 (b): the effect text names CLM; (c): it names "Climate effect"; (d): it modifies costs or
    #: prohibitions based on Climate Measures.
    text_names_clm: bool = False
    text_names_climate_effect: bool = False
    modifies_by_climate_measures: bool = False

    @property
    def key(self) -> str:
        return f"EXP-03-M{self.number:02d}"

    @property
    def rule(self) -> str:
        """The rule ID of the card's effect line."""
        return f"EXP-03-08-M{self.number:02d}-{EFFECT_LINE[self.number]:02d}"


#: The number of each card's Effect line (EXP-03-08-Mxx-yy); its Duration line is the one before.
EFFECT_LINE = {1: 5, 2: 5, 3: 5, 4: 5, 5: 4, 6: 4, 7: 4, 8: 4, 9: 5, 10: 4, 11: 5, 12: 4, 13: 4, 14: 4, 15: 4}

# Name, cost and target lines of each card; its Duration line is the ActiveEffect timing of its resolver below.
CARDS: tuple[CardText, ...] = (
    CardText(1, "Transformation Directive", (_C, _C), T_RESORT, text_names_clm=True),  # EXP-03-08-M01-01..04
    CardText(2, "Carbon Levy", (_C, _C), T_RESORT_TYPE, text_names_clm=True),  # EXP-03-08-M02-01..04
    CardText(3, "Future Investment", (_C, _C), T_RESORT),  # EXP-03-08-M03-01..04 (Immediate: no duration)
    CardText(4, "Future Resolution", (_C, _C), T_PLAYER),  # EXP-03-08-M04-01..04
    CardText(5, "Greenwashing", (_C, _I), text_names_clm=True),  # EXP-03-08-M05-01..03
    CardText(6, "Energy Crisis", (_C, _E)),  # EXP-03-08-M06-01..03
    CardText(7, "Protest Movement", (_C,)),  # EXP-03-08-M07-01..03
    CardText(8, "Adaptation Strategy", (_C, _C), text_names_climate_effect=True),  # EXP-03-08-M08-01..03
    CardText(9, "Technology Initiative", (_C, _E, _D), text_names_climate_effect=True),  # EXP-03-08-M09-01..04
    CardText(10, "Future Pact", (_C, _D, _F), modifies_by_climate_measures=True),  # EXP-03-08-M10-01..03
    CardText(11, "Supply Chain Disruption", (_C, _E), T_PLAYER),  # EXP-03-08-M11-01..04
    CardText(12, "Extreme Weather Event", (_C,), text_names_clm=True),  # EXP-03-08-M12-01..03
    CardText(13, "Intergenerational Pact", (_C, _D)),  # EXP-03-08-M13-01..03
    CardText(14, "Transformation Blockade", (_C, _I), text_names_clm=True),  # EXP-03-08-M14-01..03
    CardText(15, "Future Committee", (_C, _I, _E), text_names_clm=True),  # EXP-03-08-M15-01..03
)
TEXT_BY_KEY = {c.key: c for c in CARDS}


def build_deck(config: RulesConfig) -> tuple[MeasureSpec, ...]:
    """The EXP-03 Measures of ``config`` (EXP-03-03-02): costs in the configuration's resort indices; without
    EXP-01 the four cards whose cost names ECO are left out (RULINGS R36: 11 cards)."""
    return _build_deck(config.resorts, config.exp03_dead_eco_cards)


@lru_cache(maxsize=16)
def _build_deck(resorts: tuple[str, ...], dead_cards: bool = False) -> tuple[MeasureSpec, ...]:
    out = []
    for card in CARDS:
        cost: Cost
        if any(r not in resorts for r in card.cost):
            if not dead_cards:
                continue  # RULINGS R36: an ECO cost without EXP-01 removes the card
            cost = ((1, ANY, 0),)  # R36 option: a dead card, its cost can never be paid
        else:
            cost = tuple((1, ANY, 1 << r) for r in sorted(resorts.index(r) for r in card.cost))
        out.append(MeasureSpec(card.key, DECK, card.name, cost, card.target, (card.rule, card.rule)))
    return tuple(out)


def is_climate_effect(spec: MeasureSpec, resorts: tuple[str, ...]) -> bool:
    """EXP-03-02-D-01/02: whether a Measure's effect is a Climate effect: (a) it requires CLM as cost, (b) its
    text names CLM, (c) it names "Climate effect", (d) it modifies costs or prohibitions based on Climate
    Measures. Cards of other decks name none of these (only their cost is read). A Political Action is not a
    Climate effect because its payment happens to use CLM (RULINGS R55)."""
    if "CLM" in resorts:
        clm_bit = 1 << resorts.index("CLM")
        if any(mask == clm_bit for _, _, mask in spec.cost):  # (a)
            return True
    text = TEXT_BY_KEY.get(spec.key)
    if text is None:
        return False
    return text.text_names_clm or text.text_names_climate_effect or text.modifies_by_climate_measures  # (b)-(d)


# ---------------------------------------------------------------------------- handlers (effects.Modifier)


class _Card(Modifier):
    """Common to the EXP-03 handlers: the rule cited is the card's effect line."""

    source = "measure"

    def rule(self, game: Game, active: ActiveEffect) -> str:
        return TEXT_BY_KEY[active.id].rule

    def end_rule(self, game: Game, active: ActiveEffect) -> str:
        n = TEXT_BY_KEY[active.id].number
        return f"EXP-03-08-M{n:02d}-{EFFECT_LINE[n] - 1:02d}"  # the card's Duration line


class _ClimateSurcharge(_Card):
    """A Climate cost increase (EXP-03-06-03..05, RULINGS R55): tagged ``climate`` so the exemptions see it."""

    source = CLIMATE


class TransformationDirective(_ClimateSurcharge):
    """M01: each Action whose ContextTile is the targeted ResortTile requires +1 CLM or +1 DOM, every player's,
    the owner's included; unpayable, it is not offered (EXP-03-08-M01-05/06, RULINGS R53, R18)."""

    data_keys = frozenset(("cell",))
    kinds = POLITICAL_KINDS
    tile_sensitive = True

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        return clm_or_dom(game) if effect.tile == active.get("cell") else ()


class CarbonLevy(_ClimateSurcharge):
    """M02: Actions whose ContextTile is a ResortTile of the targeted resort require +1 CLM or +1 DOM
    (EXP-03-08-M02-05/07/08, RULINGS R53); other ContextTiles are not touched (-08)."""

    data_keys = frozenset(("resort", "round"))
    kinds = POLITICAL_KINDS
    tile_sensitive = True

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        cell = effect.tile
        if cell < 0 or game.kind_at[cell] != RESORT_TILE:
            return ()
        return clm_or_dom(game) if game.catalogue[game.tile_at[cell]].resort == active.get("resort") else ()


class FutureResolution(_Card):
    """M04: during the target player's next turn that player may not PlayMeasure, of any deck (EXP-03-08-M04-05,
    RULINGS R39, R49)."""

    data_keys = frozenset(("player", "turn"))
    kinds = frozenset(("play",))

    def prohibits(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return effect.actor == active.get("player")


class EnergyCrisis(_ClimateSurcharge):
    """M06: ConvertResources requires exactly +1 DOM, once per ConvertResources (the Investment Program exchange
    is part of it; EXP-03-08-M06-04/05, RULINGS R55)."""

    kinds = frozenset(("convert",))

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        return ((1, ANY, 1 << _indices(game.config.resorts)[0]),)


class ProtestMovement(_Card):
    """M07: a majority generates no Influence: every Hotspot resolution in the window places none; the majority,
    control, Lobbyists and production are unchanged, Formalize is unaffected (EXP-03-08-M07-04, EXP-03-06-06/07,
    RULINGS R51, R43)."""

    kinds = frozenset(("hotspot",))

    def suppresses_influence(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return True


class AdaptationStrategy(_Card):
    """M08: actions that would incur additional costs from Climate effects incur none, for every player
    (EXP-03-08-M08-04, RULINGS R34, R55); prohibitions stay (EXP-03-07-06)."""

    data_keys = frozenset(("player", "turn"))
    kinds = POLITICAL_KINDS | {COUNTDOWN, PLACE_TILE_KIND}

    def waives(self, game: Game, active: ActiveEffect, effect: Effect) -> frozenset[str]:
        if game.config.owner_only_benefits and effect.actor != active.owner:
            return frozenset()  # RULINGS R34 option: its owner only
        return frozenset((CLIMATE,))


class TechnologyInitiative(_Card):
    """M09: the owner's next Political Action ignores additional costs imposed by Climate effects
    (EXP-03-08-M09-04/05, RULINGS R31: consumed by the owner's first Political Action after play; R55)."""

    data_keys = frozenset(("target",))
    kinds = POLITICAL_KINDS

    def waives(self, game: Game, active: ActiveEffect, effect: Effect) -> frozenset[str]:
        return frozenset((CLIMATE,)) if effect.actor == active.get("target") else frozenset()


class FuturePact(_Card):
    """M10: Climate Measures affecting the owner impose no additional costs on them (EXP-03-08-M10-04, R55)."""

    kinds = POLITICAL_KINDS | {COUNTDOWN, PLACE_TILE_KIND}  # RULINGS R54: Extreme Weather too

    def waives(self, game: Game, active: ActiveEffect, effect: Effect) -> frozenset[str]:
        return frozenset((CLIMATE,)) if effect.actor == active.owner else frozenset()


class SupplyChainDisruption(_Card):
    """M11: during each production instance the target receives at most 1 Resource; the excess goes to Noise
    (EXP-03-08-M11-05, RULINGS R38, R40: after distribution)."""

    data_keys = frozenset(("target",))
    kinds = frozenset(("production",))

    def cap_share(self, game: Game, active: ActiveEffect, effect: Effect, player: int, share: int) -> int:
        return min(share, 1) if player == active.get("target") else share


class ExtremeWeatherEvent(_ClimateSurcharge):
    """M12: placing a ResortTile (any resort's, CLM and ECO included) requires +1 CLM or +1 DOM, paid by the active
    player; the cells are legal only if it can be paid, else the tile is unplaceable (EXP-03-08-M12-04/05,
    RULINGS R54, R3, R4). Future Pact and Adaptation Strategy waive it, Technology Initiative does not (R54)."""

    kinds = frozenset((PLACE_TILE_KIND,))

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        drawn = game.drawn
        return clm_or_dom(game) if drawn >= 0 and game.catalogue[drawn].kind == RESORT_TILE else ()


class Greenwashing(_Card):
    """M05: effects do not generate Influence: a FormalizeInfluence creates none and a Hotspot's majority player
    gets none (RULINGS R50), unless the affected player pays the replacement, 1 CLM or 1 INF (EXP-03-08-M05-04..06):
    a decision of that player (even when not active, R23) right after the formalizer's payment / during the
    resolution (docs/rulings.md BC-61). The replacement is no additional cost (no exemption touches it, R50)."""

    kinds = frozenset(("formalize", "hotspot"))

    def suppresses_influence(self, game: Game, active: ActiveEffect, effect: Effect) -> bool:
        return True

    def replacement(self, game: Game, active: ActiveEffect, effect: Effect, player: int) -> Frame | None:
        options = replacement_options(game, player)
        if not options:
            return None  # -M05-06: nothing paid, nothing generated
        return Replacement(player, effect.kind, effect.tile)


def replacement_options(game: Game, player: int) -> list[int]:
    """The resorts ``player`` can pay Greenwashing's replacement with: CLM or INF (EXP-03-08-M05-05)."""
    _, _, inf, _, clm = _indices(game.config.resorts)
    return [r for r in sorted((inf, clm)) if game.res[player * game.num_resorts + r] >= 1]


class Replacement(Frame):
    """Greenwashing's replacement (EXP-03-08-M05-05/06): the affected ``owner`` pays 1 CLM or 1 INF (``pay``) and
    the Influence is generated normally, or declines (``decline``) and none is."""

    __slots__ = ("effect", "cell")
    kind: str | None = "replacement"
    name = "greenwashing-replacement"

    def __init__(self, owner: int, effect: str, cell: int) -> None:
        self.owner = owner
        self.effect = effect
        self.cell = cell

    def legal(self, game: Game) -> list[int]:
        lay = game.layout
        return [lay.pay + r for r in replacement_options(game, self.owner)] + [lay.decline]

    def choose(self, game: Game, action: int) -> None:
        game.stack.pop()
        lay = game.layout
        p = self.owner
        if action == lay.decline:
            game.log("influence-suppressed", "EXP-03-08-M05-06", id="EXP-03-M05", kind=self.effect, cell=self.cell,
                     player=p)  # fmt: skip
            return
        game._pay(p, [action - lay.pay], "EXP-03-08-M05-05")
        if self.effect == "formalize":
            game._formalize_influence(p, self.cell)
        elif game.catalogue[game.tile_at[self.cell]].special == LABOR_MARKET:  # only v1.3's calls _suppressed
            labor_market_gain(game, self.cell, p)  # v1.3 Labor Market: 1 new Influence into the supply (R50)
        else:
            game._hotspot_influence(self.cell, p)

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": self.kind, "owner": self.owner, "effect": self.effect, "cell": self.cell}

    def to_json(self, game: Game) -> dict[str, Any]:
        return {"frame": self.name, "owner": self.owner, "effect": self.effect, "cell": game.topo.label(self.cell)}

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        owner = data.get("owner")
        if isinstance(owner, bool) or not isinstance(owner, int) or not 0 <= owner < game.num_players:
            raise StateError(f"{where}.owner must be a player, got {owner!r}")
        effect = data.get("effect")
        if effect not in ("formalize", "hotspot"):
            raise StateError(f"{where}.effect must be 'formalize' or 'hotspot', got {effect!r}")
        text = data.get("cell")
        try:
            cell = game.topo.parse(text) if isinstance(text, str) else None
        except ValueError:
            cell = None
        wanted = game.committees if effect == "formalize" else [c for c in game.board if game.kind_at[c] == HOTSPOT]
        if cell is None or cell not in wanted or cell == game.topo.centre:
            raise StateError(f"{where}.cell must be a {'Committee' if effect == 'formalize' else 'Hotspot'} tile")
        if not replacement_options(game, owner):
            raise StateError(f"{where}: the owner cannot pay the replacement (EXP-03-08-M05-05)")
        special = game.catalogue[game.tile_at[cell]].special == LABOR_MARKET and LABOR_MARKET in game.hotspot_resolvers
        if effect == "hotspot" and not special and game.supply[owner] <= 0:
            raise StateError(f"{where}: the owner has no Influence in supply to place (CORE-01-06-07)")
        return Replacement(owner, effect, cell)


register_frame(Replacement)


class IntergenerationalPact(_Card):
    """M13: until consumed, its owner may transfer exactly 1 additional cost component of an effect they pay to
    another player, who must pay it (EXP-03-08-M13-04..07, RULINGS R52). The decisions are ``Transfer`` frames
    asked before the payment (``Exp03.before_payment``); the handler itself changes no cost."""

    data_keys = frozenset(("player",))
    kinds = POLITICAL_KINDS | {PLACE_TILE_KIND}


class CountdownSurcharge(_ClimateSurcharge):
    """M14 / M15: placing a CountdownMarker requires +1 CLM or +1 DOM (EXP-03-08-M14-04/05, -M15-04/05). Nothing
    places one (RULINGS R37): the cards are playable and their surcharge is in force for the placement hook."""

    kinds = frozenset((COUNTDOWN,))

    def extra_cost(self, game: Game, active: ActiveEffect, effect: Effect) -> Cost:
        return clm_or_dom(game)


MODIFIERS.update(
    {
        "EXP-03-M01": TransformationDirective(),
        "EXP-03-M02": CarbonLevy(),
        "EXP-03-M04": FutureResolution(),
        "EXP-03-M06": EnergyCrisis(),
        "EXP-03-M07": ProtestMovement(),
        "EXP-03-M08": AdaptationStrategy(),
        "EXP-03-M09": TechnologyInitiative(),
        "EXP-03-M10": FuturePact(),
        "EXP-03-M11": SupplyChainDisruption(),
        "EXP-03-M05": Greenwashing(),
        "EXP-03-M12": ExtremeWeatherEvent(),
        "EXP-03-M13": IntergenerationalPact(),
        "EXP-03-M14": CountdownSurcharge(),
        "EXP-03-M15": CountdownSurcharge(),
    }
)


# ---------------------------------------------------------------------------- resolvers (EXP-01-06-10)


def _until_owner_next_turn(key: str, target_key: str = "") -> Any:
    """ "Until the beginning of your next turn" (RULINGS R39): OWNER_NEXT_TURN ends it as the owner's turn starts."""

    def resolve(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
        data: tuple[tuple[str, Any], ...] = ()
        if target_key == "cell":
            data = (("cell", tile),)
        elif target_key == "target":
            data = (("target", target),)
        return ActiveEffect(key, player, OWNER_NEXT_TURN, game.round, data)

    return resolve


def _m02(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-03-08-M02-04, RULINGS R39/R53: the rest of this round and all of the next, its settlement included.
    data = (("resort", target), ("round", game.round))
    return ActiveEffect("EXP-03-M02", player, END_OF_NEXT_ROUND, game.round, data)


def _m03(game: Game, player: int, card: int, tile: int, target: int) -> None:
    """Future Investment: gain exactly 1 Resource of the tile's resort from the Bank, at once (EXP-03-08-M03-04/05,
    RULINGS R39 "Immediate"); its output passes the output modifiers (RULINGS R29: SecurityLevel reduces it)."""
    g = game
    r = g.catalogue[g.tile_at[tile]].resort
    amount = effects.effect_output(g, Effect(MEASURE_GAIN, player, tile), 1, log=True)
    if g.config.bank_stock is not None:
        amount = min(amount, g.bank[r])  # docs/rulings.md BC-03: a finite Bank gives what it has
    if amount > 0:
        g.res[player * g.num_resorts + r] += amount
        g.bank[r] -= amount
    g.log("future-investment", "EXP-03-08-M03-05", player=player, cell=tile, resort=r, amount=amount)
    return None


def _m04(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-03-08-M04-04, RULINGS R39: the first turn of the target that starts after play (BC-29's window shape).
    return ActiveEffect("EXP-03-M04", player, END_OF_PLAYER_TURN, game.round, (("player", target), ("turn", game.turn)))


def _m08(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    if game.config.owner_only_benefits:
        # RULINGS R34 option, R31 window: from play to the end of the owner's next turn.
        data = (("player", player), ("turn", game.turn))
        return ActiveEffect("EXP-03-M08", player, END_OF_PLAYER_TURN, game.round, data)
    return ActiveEffect("EXP-03-M08", player, OWNER_NEXT_TURN, game.round)  # EXP-03-08-M08-03, R34: everybody


def _m09(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-03-08-M09-03/04, RULINGS R31: consumed by the owner's first Political Action after play (effects.consume).
    return ActiveEffect("EXP-03-M09", player, CONSUMED, game.round, (("target", player),))


def _m13(game: Game, player: int, card: int, tile: int, target: int) -> ActiveEffect:
    # EXP-03-08-M13-03: until consumed (by the first transfer, -M13-05; not by an action, so no "target" key).
    return ActiveEffect("EXP-03-M13", player, CONSUMED, game.round, (("player", player),))


RESOLVERS.update(
    {
        "EXP-03-M01": _until_owner_next_turn("EXP-03-M01", "cell"),
        "EXP-03-M02": _m02,
        "EXP-03-M03": _m03,
        "EXP-03-M04": _m04,
        "EXP-03-M06": _until_owner_next_turn("EXP-03-M06"),
        "EXP-03-M07": _until_owner_next_turn("EXP-03-M07"),
        "EXP-03-M08": _m08,
        "EXP-03-M09": _m09,
        "EXP-03-M10": _until_owner_next_turn("EXP-03-M10"),
        "EXP-03-M11": _until_owner_next_turn("EXP-03-M11", "target"),
        "EXP-03-M05": _until_owner_next_turn("EXP-03-M05"),
        "EXP-03-M12": _until_owner_next_turn("EXP-03-M12"),
        "EXP-03-M13": _m13,
        "EXP-03-M14": _until_owner_next_turn("EXP-03-M14"),
        "EXP-03-M15": _until_owner_next_turn("EXP-03-M15"),
    }
)
DECKS[DECK] = build_deck


def carbon_levy_targets(game: Game, player: int) -> list[int]:
    """EXP-03-08-M02-03/06, RULINGS R49/R53: any resort of the game not targeted by a Carbon Levy in force."""
    levied = {a.get("resort") for a in game.active_effects if a.id == "EXP-03-M02"}
    return [r for r in range(game.num_resorts) if r not in levied]


RESORT_TARGETS["EXP-03-M02"] = carbon_levy_targets


# ---------------------------------------------------------------------------- CountdownMarkers (EXP-03-02-C)


class CountdownState(ExpansionState):
    """The CountdownMarkers (EXP-03-00-08, EXP-03-02-C-01..09), persistent objects: each is in the CountdownSupply
    or attached to the one Transformationsdruck (EXP-03-02-C-02/03). They have no effect, never move by themselves
    and are never evaluated (EXP-03-02-C-04..09, EXP-03-09-03/04). The supply starts with
    ``config.countdown_supply`` markers (RULINGS R58). ``game.ext["EXP-03"]``, written as ``countdown`` in the JSON
    state."""

    __slots__ = ("supply", "attached")
    key = "countdown"

    def __init__(self, supply: int, attached: dict[int, int] | None = None) -> None:
        self.supply = supply
        #: Markers on the Board by Transformationsdruck cell (EXP-03-02-C-03); they stack without limit (-07).
        self.attached: dict[int, int] = dict(attached or {})

    def clone(self) -> CountdownState:
        return CountdownState(self.supply, self.attached)

    def to_json(self, game: Game) -> dict[str, Any]:
        return {
            "supply": self.supply,
            "attached": [{"cell": game.topo.label(c), "markers": n} for c, n in sorted(self.attached.items())],
        }

    def read_json(self, game: Game, data: Any, where: str) -> None:
        if not isinstance(data, dict) or set(data) != {"supply", "attached"}:
            raise StateError(f"{where} must be an object with the fields 'supply' and 'attached'")
        supply = data["supply"]
        if isinstance(supply, bool) or not isinstance(supply, int) or supply < 0:
            raise StateError(f"{where}.supply must be a non-negative integer, got {supply!r}")
        raw = data["attached"]
        if not isinstance(raw, list):
            raise StateError(f"{where}.attached must be a list")
        attached: dict[int, int] = {}
        for i, entry in enumerate(raw):
            w = f"{where}.attached[{i}]"
            if not isinstance(entry, dict) or set(entry) != {"cell", "markers"}:
                raise StateError(f"{w} must be an object with the fields 'cell' and 'markers'")
            try:
                cell = game.topo.parse(entry["cell"]) if isinstance(entry["cell"], str) else None
            except ValueError:
                cell = None
            if cell is None or not is_transformationsdruck(game, cell):
                raise StateError(f"{w}.cell must be the Transformationsdruck on the Board (EXP-03-02-C-03)")
            n = entry["markers"]
            if isinstance(n, bool) or not isinstance(n, int) or n < 1 or cell in attached:
                raise StateError(f"{w}.markers must be a positive integer, once per cell")
            attached[cell] = n
        self.supply = supply
        self.attached = attached
        problems = self.check(game)
        if problems:
            raise StateError(f"{where}: {problems[0]}")

    def check(self, game: Game) -> list[str]:
        """Conservation: every marker in exactly one zone (EXP-03-02-C-02), the total as set up (RULINGS R58)."""
        out = []
        total = self.supply + sum(self.attached.values())
        if total != game.config.countdown_supply:
            out.append(f"{total} CountdownMarkers in play, {game.config.countdown_supply} were set up (RULINGS R58)")
        for cell in self.attached:
            if not is_transformationsdruck(game, cell):
                out.append(f"CountdownMarkers on cell {cell}, which is not the Transformationsdruck (EXP-03-02-C-03)")
        return out

    def place(self, game: Game, cell: int) -> bool:
        """EXP-03-04-B-02/03: move one marker from the supply onto the Transformationsdruck at ``cell``; with an
        empty supply the placement fails with no partial effect. Only an effect that says so calls this
        (EXP-03-04-B-01, RULINGS R37: none does)."""
        if self.supply <= 0 or not is_transformationsdruck(game, cell):
            game.log("countdown-failed", "EXP-03-04-B-03", cell=cell)
            return False
        self.supply -= 1
        self.attached[cell] = self.attached.get(cell, 0) + 1
        game.log("countdown-placed", "EXP-03-04-B-02", cell=cell, markers=self.attached[cell])
        return True


def is_transformationsdruck(game: Game, cell: int) -> bool:
    t = game.tile_at[cell] if 0 <= cell < len(game.tile_at) else -1
    return t >= 0 and game.catalogue[t].special == TRANSFORMATIONSDRUCK


def countdown_cost(game: Game, player: int, cell: int) -> Cost | None:
    """The total cost ``player`` pays to place a CountdownMarker on ``cell`` through the pipeline: 0 plus the
    surcharges of Transformation Blockade / Future Committee (EXP-03-08-M14-04, -M15-04) less the Climate
    exemptions; None when a prohibition applies (EXP-03-04-C-01..03: checked before any payment, RULINGS R62)."""
    return effects.effect_cost(game, Effect(COUNTDOWN, player, cell))


# ---------------------------------------------------------------------------- Intergenerational Pact (M13)


def _pact_index(game: Game, player: int) -> int:
    for i, a in enumerate(game.active_effects):
        if a.id == "EXP-03-M13" and a.owner == player:
            return i
    return -1


def _under_future_pact(game: Game, player: int) -> bool:
    return any(a.id == "EXP-03-M10" and a.owner == player for a in game.active_effects)


_without = effects.without_one


def _owner_payments(game: Game, effect: Effect, cost: Cost, i: int) -> list[tuple[int, ...]]:
    """The actor's payments of ``cost`` less component ``i`` (a ConvertResources' only where a gain remains)."""
    pays = effects.affordable(_without(cost, i), game.resources_of(effect.actor))
    if effect.kind == "convert":
        pays = [pay for pay in pays if game._gain_options(effect, pay)]
    return pays


def transfers(game: Game, effect: Effect) -> dict[int, dict[int, int]]:
    """RULINGS R52: the transfers Intergenerational Pact offers its owner for ``effect``: receiving player ->
    {resort they pay -> index of the component (slot) it pays}. Only additional components (slots after the base
    cost); to other players who hold the resort, are not under Future Pact, and whose payment leaves the owner a
    payment of the rest. The component a resort pays is the narrowest additional slot admitting it
    (docs/rulings.md BC-63)."""
    p = effect.actor
    if _pact_index(game, p) < 0:
        return {}
    cost = effects.effect_cost(game, effect)
    n = len(effect.base_cost)
    if cost is None or len(cost) <= n:
        return {}
    nr = game.num_resorts
    out: dict[int, dict[int, int]] = {}
    for q in range(game.num_players):
        if q == p or _under_future_pact(game, q):
            continue
        for r in range(nr):
            if game.res[q * nr + r] < 1:
                continue
            fits = [(bin(cost[i][2]).count("1"), i) for i in range(n, len(cost)) if cost[i][2] >> r & 1]
            if not fits:
                continue
            i = min(fits)[1]
            if _owner_payments(game, effect, cost, i):
                out.setdefault(q, {})[r] = i
    return out


class Transfer(Frame):
    """Intergenerational Pact's decisions before a payment (EXP-03-08-M13-04..07, RULINGS R52, R23): the owner
    names the player who pays one additional component (``target-player``) or declines (``decline``, only when
    they can pay alone); then that player picks the resort (``pay``) when more than one would do. The effect
    being paid travels with the frame (kind, ContextTile, Move source, card, target)."""

    __slots__ = ("actor", "effect", "tile", "src", "card", "target", "payer")
    kind: str | None = "transfer"
    name = "pact-transfer"

    def __init__(self, actor: int, effect: str, tile: int, src: int, card: int, target: int, payer: int = -1) -> None:
        self.actor = actor
        self.effect = effect
        self.tile = tile
        self.src = src
        self.card = card
        self.target = target
        self.payer = payer  # -1: the owner names the player; else that player picks the resort
        self.owner = actor if payer < 0 else payer

    def _effect(self, game: Game) -> Effect:
        return game.effect_for(self.effect, self.tile, self.actor, self.card, self.target)

    def legal(self, game: Game) -> list[int]:
        lay = game.layout
        options = transfers(game, self._effect(game))
        if self.payer >= 0:
            return [lay.pay + r for r in sorted(options.get(self.payer, {}))]
        out = [lay.target_player + q for q in sorted(options)]
        if effects.payment_options_for(game, self._effect(game)):
            out.append(lay.decline)  # "may" (-M13-04)
        return out

    def choose(self, game: Game, action: int) -> None:
        lay = game.layout
        game.stack.pop()
        effect = self._effect(game)
        res = Resolution(self.actor, self.effect, self.tile, self.src, self.card, self.target)
        if action == lay.decline:
            game.stack.append(res)
            res.options = game.payment_choices(effect)
            game._advance_payment(res)
            return
        options = transfers(game, effect)
        if self.payer < 0:
            q = action - lay.target_player
            if len(options[q]) > 1:  # RULINGS R23: the chosen player picks the resort
                game.stack.append(Transfer(self.actor, self.effect, self.tile, self.src, self.card, self.target, q))
                return
            r = next(iter(options[q]))
        else:
            q, r = self.payer, action - lay.pay
        i = options[q][r]
        cost = effects.effect_cost(game, effect)
        assert cost is not None
        # -M13-06/07: the chosen player pays the component from their supply, no refusal; -M13-05: consumed.
        game._pay(q, [r], "EXP-03-08-M13-06")
        pact = game.active_effects.pop(_pact_index(game, self.actor))
        game.log("effect-consumed", "EXP-03-08-M13-05", id=pact.id, owner=pact.owner, target=q)
        res.transfer = (q, r, i)
        res.options = _owner_payments(game, effect, cost, i)
        game.stack.append(res)
        game._advance_payment(res)

    def describe(self, game: Game) -> dict[str, Any]:
        return {"kind": self.kind, "owner": self.owner, "effect": self.effect, "tile": self.tile, "payer": self.payer}

    def to_json(self, game: Game) -> dict[str, Any]:
        return {
            "frame": self.name, "actor": self.actor, "effect": self.effect,
            "tile": game.topo.label(self.tile) if self.tile >= 0 else None,
            "from": game.topo.label(self.src) if self.src >= 0 else None,
            "card": game.measures[self.card].key if self.card >= 0 else None,
            "target": self.target if self.target >= 0 else None, "payer": self.payer if self.payer >= 0 else None,
        }  # fmt: skip

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any], where: str) -> Frame:
        def cell(key: str) -> int:
            text = data.get(key)
            if text is None:
                return -1
            try:
                return game.topo.parse(text) if isinstance(text, str) else -2
            except ValueError:
                return -2

        actor, payer, target = data.get("actor"), data.get("payer"), data.get("target")
        card = next((k for k, m in enumerate(game.measures) if m.key == data.get("card")), -1)
        tile, src = cell("tile"), cell("from")
        effect_kind = data.get("effect")
        known_kind = effect_kind in POLITICAL_KINDS or effect_kind == PLACE_TILE_KIND
        ok = type(actor) is int and 0 <= actor < game.num_players and known_kind and tile >= -1 and src >= -1
        ok = ok and (payer is None or (type(payer) is int and 0 <= payer < game.num_players and payer != actor))
        ok = ok and (target is None or type(target) is int) and (card >= 0) == (data.get("card") is not None)
        if not ok or not isinstance(actor, int):
            raise StateError(f"{where} is not an Intergenerational Pact transfer (EXP-03-08-M13)")
        frame = Transfer(actor, data["effect"], tile, src, card, -1 if target is None else target,
                         -1 if payer is None else payer)  # fmt: skip
        options = transfers(game, frame._effect(game))
        if not options or (frame.payer >= 0 and len(options.get(frame.payer, {})) < 2):
            raise StateError(f"{where}: no transfer is possible here (EXP-03-08-M13, RULINGS R52)")
        return frame


register_frame(Transfer)


# ---------------------------------------------------------------------------- the expansion (base.Expansion)


class Exp03(Expansion):
    """EXP-03 on the expansion interface."""

    name = DECK
    #: Carbon Levy's target resort (EXP-03-08-M02-03).
    action_blocks = (Block(TARGET_RESORT_BLOCK, RESORT),)

    def add_tiles(self, config: RulesConfig, add: TileAdder) -> None:
        # EXP-03-00-04, EXP-03-02-A-01..04, EXP-03-03-01, RULINGS R57: CLM ResortTiles (CORE production rules,
        # EXP-03-05-01).
        counts = CLM_RESORT_COUNTS + (CLM_ADD56_RESORT_COUNTS if config.addon56 else ())
        add_resort_tiles(add, "CLM", config.resorts.index("CLM"), counts)
        # EXP-03-00-05, EXP-03-02-B-01..04, EXP-03-03-04: the Hotspot Transformationsdruck (core majority rules, no
        # Resources).
        add(HOTSPOT, "Transformationsdruck", special=TRANSFORMATIONSDRUCK)

    def before_payment(self, game: Game, res: Resolution, effect: Effect) -> bool:
        # EXP-03-08-M13-04, RULINGS R52: the owner of an Intergenerational Pact may transfer a component first.
        if not game.active_effects or not transfers(game, effect):
            return False
        game.stack.pop()  # the Transfer frame carries the effect until the payment starts
        game.stack.append(Transfer(res.owner, res.effect, res.tile, res.src, res.card, res.target))
        return True

    def assisted_payments(self, game: Game, effect: Effect) -> list[tuple[int, ...]]:
        # RULINGS R52: a payment possible only with a transfer makes the action legal.
        options = transfers(game, effect)
        if not options:
            return []
        cost = effects.effect_cost(game, effect)
        assert cost is not None
        found = {pay for by_resort in options.values() for i in by_resort.values()
                 for pay in _owner_payments(game, effect, cost, i)}  # fmt: skip
        return sorted(found)

    def transfer_payments(self, game: Game, res: Resolution) -> list[tuple[int, ...]] | None:
        if res.transfer is None:
            return None
        q, r, i = res.transfer
        effect = game._effect_of(res)
        cost = effects.effect_cost(game, effect)
        if cost is None or not 0 <= i < len(cost) or i < len(effect.base_cost) or not cost[i][2] >> r & 1:
            return []
        if not 0 <= q < game.num_players or q == res.owner:
            return []
        return _owner_payments(game, effect, cost, i)

    def render_lines(self, game: Game) -> list[str]:
        st = game.ext["EXP-03"]
        assert isinstance(st, CountdownState)
        on = ", ".join(f"{game.topo.label(c)}: {n}" for c, n in sorted(st.attached.items())) or "none attached"
        lines = [f"countdown: supply {st.supply}, {on}"]  # EXP-03-02-C-02
        for a in game.active_effects:
            if a.id.startswith(DECK):
                where = ""
                if a.get("cell") is not None:
                    where = f" on {game.topo.label(a.get('cell'))}"
                elif a.get("resort") is not None:
                    where = f" on {game.config.resorts[a.get('resort')]}"
                elif a.get("target") is not None and a.id != "EXP-03-M09":
                    where = f" on P{a.get('target')}"
                lines.append(f"  in force: {TEXT_BY_KEY[a.id].name} (P{a.owner}){where}, {a.until}")
        return lines

    def new_state(self, game: Game) -> CountdownState:
        # EXP-03-02-C-02, RULINGS R58: every marker starts in the CountdownSupply.
        return CountdownState(game.config.countdown_supply)


__all__ = [
    "CARDS",
    "CLIMATE",
    "CountdownState",
    "Exp03",
    "build_deck",
    "clm_or_dom",
    "countdown_cost",
    "is_climate_effect",
]
